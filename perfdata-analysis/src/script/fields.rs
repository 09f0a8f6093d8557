//! perf script's fields: the default set per output type, `-F`'s syntax, and which fields an
//! event's samples can fill (perf 6.1's `parse_output_fields`, `perf_session__check_output_opt`).

use perfdata_core::attr::sample_type as st;
use perfdata_core::Event;

/// One field of `-F`, as a bit.
pub(crate) type Field = u64;

macro_rules! fields {
    ($($c:ident = $bit:expr, $name:expr;)*) => {
        $(pub(crate) const $c: Field = 1 << $bit;)*
        /// perf's field names, in perf's order (`all_output_options`).
        const NAMES: &[(&str, Field)] = &[$(($name, $c)),*];
    };
}

fields! {
    COMM = 0, "comm";
    TID = 1, "tid";
    PID = 2, "pid";
    TIME = 3, "time";
    CPU = 4, "cpu";
    EVNAME = 5, "event";
    TRACE = 6, "trace";
    IP = 7, "ip";
    SYM = 8, "sym";
    DSO = 9, "dso";
    ADDR = 10, "addr";
    SYMOFFSET = 11, "symoff";
    SRCLINE = 12, "srcline";
    PERIOD = 13, "period";
    IREGS = 14, "iregs";
    UREGS = 15, "uregs";
    BRSTACK = 16, "brstack";
    BRSTACKSYM = 17, "brstacksym";
    DATA_SRC = 18, "data_src";
    WEIGHT = 19, "weight";
    BPF_OUTPUT = 20, "bpf-output";
    CALLINDENT = 21, "callindent";
    INSN = 22, "insn";
    INSNLEN = 23, "insnlen";
    BRSTACKINSN = 24, "brstackinsn";
    BRSTACKOFF = 25, "brstackoff";
    SYNTH = 26, "synth";
    PHYS_ADDR = 27, "phys_addr";
    METRIC = 28, "metric";
    MISC = 29, "misc";
    SRCCODE = 30, "srccode";
    IPC = 31, "ipc";
    TOD = 32, "tod";
    DATA_PAGE_SIZE = 33, "data_page_size";
    CODE_PAGE_SIZE = 34, "code_page_size";
    INS_LAT = 35, "ins_lat";
    BRSTACKINSNLEN = 36, "brstackinsnlen";
    MACHINE_PID = 37, "machine_pid";
    VCPU = 38, "vcpu";
    CGROUP = 39, "cgroup";
    RETIRE_LAT = 40, "retire_lat";
    FLAGS = 41, "flags";
}

/// The fields this implementation prints; the others perf knows are refused with a clear error.
const SUPPORTED: Field = COMM
    | TID
    | PID
    | TIME
    | CPU
    | EVNAME
    | TRACE
    | IP
    | SYM
    | DSO
    | ADDR
    | SYMOFFSET
    | SRCLINE
    | INSNLEN
    | BRSTACK
    | BRSTACKSYM
    | BRSTACKOFF
    | PERIOD
    | IREGS
    | UREGS
    | DATA_SRC
    | WEIGHT
    | PHYS_ADDR
    | DATA_PAGE_SIZE
    | CODE_PAGE_SIZE
    | BPF_OUTPUT
    | INS_LAT;

/// perf's output types: the attr types below `PERF_TYPE_MAX`, synthesized events, the rest.
pub(crate) const TYPES: usize = 8;
pub(crate) const T_TRACEPOINT: usize = 2;
pub(crate) const T_RAW: usize = 4;
pub(crate) const T_SYNTH: usize = 6;

/// The output type of an event (`output_type`).
pub(crate) fn output_type(ev: &Event) -> usize {
    match ev.attr.type_ {
        0x8000_0000 => T_SYNTH,
        t if t < 6 => t as usize,
        _ => 7,
    }
}

/// The `-F type:` names of the output types (perf's `event_type`), and the names perf gives
/// them in messages.
const TYPE_NAMES: [(&str, &str); TYPES] = [
    ("hw", "hardware"),
    ("sw", "software"),
    ("trace", "tracepoint"),
    ("", "hardware cache"),
    ("raw", "raw"),
    ("break", "breakpoint"),
    ("synth", "synthesized"),
    ("", "other"),
];

/// perf's name of an output type in messages.
fn type_name(t: usize) -> &'static str {
    TYPE_NAMES.get(t).map_or("other", |(_, n)| n)
}

const HW_DEFAULT: Field = COMM | TID | CPU | TIME | EVNAME | IP | SYM | SYMOFFSET | DSO | PERIOD;

/// perf 6.1's default fields per output type, and those invalid for it.
fn defaults(t: usize) -> (Field, Field) {
    match t {
        1 => (HW_DEFAULT | BPF_OUTPUT, TRACE),
        T_TRACEPOINT => (COMM | TID | CPU | TIME | EVNAME | TRACE, BPF_OUTPUT),
        T_RAW => (
            HW_DEFAULT | ADDR | DATA_SRC | WEIGHT | PHYS_ADDR | DATA_PAGE_SIZE | CODE_PAGE_SIZE | INS_LAT,
            TRACE | BPF_OUTPUT,
        ),
        T_SYNTH => (COMM | TID | CPU | TIME | EVNAME | IP | SYM | SYMOFFSET | DSO | SYNTH, TRACE | BPF_OUTPUT),
        _ => (HW_DEFAULT, TRACE | BPF_OUTPUT),
    }
}

/// The fields of one output type.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Output {
    pub fields: Field,
    invalid: Field,
    /// Set by `-F` (for this type or for all).
    pub user_set: bool,
    /// Set by `-F` without a type.
    wildcard: bool,
    /// The fields `-F` named explicitly (a sample type the event lacks is then an error).
    user_fields: Field,
}

/// The fields of every output type.
#[derive(Clone, Debug)]
pub(crate) struct Outputs(pub [Output; TYPES]);

impl Default for Outputs {
    fn default() -> Self {
        Outputs(std::array::from_fn(|t| {
            let (fields, invalid) = defaults(t);
            Output { fields: fields & SUPPORTED, invalid, ..Output::default() }
        }))
    }
}

fn field_by_name(name: &str) -> Option<Field> {
    NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn name_of(f: Field) -> &'static str {
    NAMES.iter().find(|(_, g)| *g == f).map_or("?", |(n, _)| n)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Default,
    Set,
    Add,
    Remove,
}

impl Outputs {
    /// Apply one `-F` argument: `fields`, `+field,…`/`-field,…`, or `type:fields`. Warnings (a field
    /// invalid for some type, ignored there) go to `warn`.
    pub(crate) fn parse(&mut self, arg: &str, warn: &mut dyn FnMut(String)) -> Result<(), String> {
        let (ty, list) = match arg.split_once(':') {
            Some((t, rest)) => {
                let Some(i) = TYPE_NAMES.iter().position(|(n, _)| !n.is_empty() && *n == t) else {
                    return Err(format!("Invalid event type in field string: '{t}'"));
                };
                (Some(i), rest)
            }
            None => (None, arg),
        };
        let mut change = Change::Default;
        let mut first = true;
        for tok in list.split(',') {
            let (c, name) = if let Some(n) = tok.strip_prefix('+') {
                (Change::Add, n)
            } else if let Some(n) = tok.strip_prefix('-') {
                (Change::Remove, n)
            } else {
                (Change::Set, tok)
            };
            if change != Change::Default && (change == Change::Set) != (c == Change::Set) {
                return Err("Cannot mix +-field with overridden fields".into());
            }
            change = c;
            let Some(f) = field_by_name(name) else {
                return Err(format!("Invalid field requested: '{name}'"));
            };
            if first && change == Change::Set {
                // A plain list replaces the defaults.
                match ty {
                    Some(t) => {
                        if let Some(o) = self.0.get_mut(t) {
                            (o.fields, o.user_fields, o.user_set, o.wildcard) = (0, 0, true, false);
                        }
                    }
                    None => {
                        for o in &mut self.0 {
                            (o.fields, o.user_fields, o.user_set, o.wildcard) = (0, 0, true, true);
                        }
                    }
                }
            }
            first = false;
            match ty {
                Some(t) => {
                    let Some(o) = self.0.get_mut(t) else { continue };
                    if o.invalid & f != 0 {
                        return Err(format!("'{name}' not valid for {} events", type_name(t)));
                    }
                    o.apply(change, f);
                }
                None => {
                    for (t, o) in self.0.iter_mut().enumerate() {
                        if o.invalid & f != 0 {
                            if change != Change::Remove {
                                warn(format!("'{name}' not valid for {} events. Ignoring.", type_name(t)));
                            }
                            continue;
                        }
                        o.apply(change, f);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Output {
    fn apply(&mut self, change: Change, f: Field) {
        if change == Change::Remove {
            self.fields &= !f;
            self.user_fields &= !f;
        } else {
            self.fields |= f;
            self.user_fields |= f;
            if change == Change::Add {
                self.user_set = self.user_set || self.wildcard;
            }
        }
    }
}

/// `PERF_SAMPLE_BRANCH_ANY` of `branch_sample_type`: every branch, what `brstackinsn` needs.
const ANY_BRANCH: u64 = 1 << 3;

/// Which sample_type bit a field needs (perf's `evsel__check_stype` checks), if any.
fn needs(f: Field) -> Option<(u64, &'static str)> {
    Some(match f {
        IP => (st::IP, "IP"),
        ADDR => (st::ADDR, "ADDR"),
        DATA_SRC => (st::DATA_SRC, "DATA_SRC"),
        WEIGHT => (st::WEIGHT | st::WEIGHT_STRUCT, "WEIGHT"),
        TID | PID => (st::TID, "TID"),
        TIME => (st::TIME, "TIME"),
        CPU => (st::CPU, "CPU"),
        IREGS => (st::REGS_INTR, "IREGS"),
        UREGS => (st::REGS_USER, "UREGS"),
        PHYS_ADDR => (st::PHYS_ADDR, "PHYS_ADDR"),
        DATA_PAGE_SIZE => (st::DATA_PAGE_SIZE, "DATA_PAGE_SIZE"),
        CODE_PAGE_SIZE => (st::CODE_PAGE_SIZE, "CODE_PAGE_SIZE"),
        CGROUP => (st::CGROUP, "CGROUP"),
        INS_LAT => (st::WEIGHT_STRUCT, "WEIGHT_STRUCT"),
        _ => return None,
    })
}

/// Check the fields against the first event of each output type, as perf does: a default field
/// the event's samples lack is dropped, one `-F` named is an error. `has_traces`: the file holds
/// tracing data.
/// `traces_lost`: a damaged file lost its tracing data: the default `trace` field is dropped
/// instead of refused.
/// `stat_file`: a `perf stat record` file (HEADER_STAT), whose events perf does not check.
pub(crate) fn check(
    outputs: &mut Outputs,
    events: &[Event],
    has_traces: bool,
    traces_lost: bool,
    stat_file: bool,
) -> Result<(), String> {
    for (t, o) in outputs.0.iter_mut().enumerate() {
        let Some(ev) = events.iter().find(|e| output_type(e) == t) else {
            if o.user_set && !o.wildcard && t != T_SYNTH {
                return Err(format!(
                    "{} events do not exist. Remove corresponding -F option to proceed.",
                    type_name(t)
                ));
            }
            continue;
        };
        // perf checks neither a dummy event's fields nor a stat file's.
        let dummy = ev.attr.type_ == 1 && ev.attr.config == 9;
        if o.fields == 0 || dummy || stat_file {
            o.fields &= SUPPORTED;
            continue;
        }
        let stype = ev.attr.sample_type;
        let name = ev.display_name();
        if o.fields & TRACE != 0 && !has_traces && traces_lost && !o.user_set {
            o.fields &= !TRACE;
        }
        if o.fields & TRACE != 0 && !has_traces {
            return Err("Samples do not contain trace data: was 'perf record -R' used?".into());
        }
        for bit in 0..64 {
            let f: Field = 1 << bit;
            if o.fields & f == 0 {
                continue;
            }
            let Some((need, msg)) = needs(f) else { continue };
            if stype & need != 0 {
                continue;
            }
            if o.user_fields & f != 0 {
                return Err(format!(
                    "Samples for '{name}' event do not have {msg} attribute set. Cannot print '{}' field.",
                    name_of(f)
                ));
            }
            o.fields &= !f;
        }
        if o.fields & (SYM | DSO) != 0 && stype & (st::IP | st::ADDR) == 0 {
            return Err("Display of symbols requested but neither sample IP nor sample address\navailable. Hence, \
                        no addresses to convert to symbols."
                .into());
        }
        if o.fields & SYMOFFSET != 0 && o.fields & SYM == 0 {
            return Err("Display of offsets requested but symbol is not selected.".into());
        }
        if o.fields & SRCLINE != 0 && o.fields & IP == 0 {
            return Err("Display of source line number requested but sample IP is not\nselected. Hence, no \
                        addresses to convert to source line numbers."
                .into());
        }
        if o.fields & (BRSTACKINSN | BRSTACKINSNLEN) != 0
            && !events.iter().any(|e| e.attr.branch_sample_type & ANY_BRANCH != 0)
        {
            return Err("Display of branch stack assembler requested, but non all-branch filter set\nHint: run \
                        'perf record -b ...'"
                .into());
        }
        // What perf prints of these on samples that lack their data: nothing (INSN, IPC, the
        // guest's machine pid and vcpu, which only decoded AUX traces and guest samples carry;
        // SYNTH, which only synthesized events print).
        let nothing = INSN | IPC | MACHINE_PID | VCPU | SYNTH;
        let unsupported = o.fields & !(SUPPORTED | nothing);
        if unsupported != 0 && o.user_fields & unsupported != 0 {
            let f = unsupported & unsupported.wrapping_neg();
            return Err(format!("the '{}' field is not supported by perfdata script", name_of(f)));
        }
        o.fields &= SUPPORTED;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Outputs, String> {
        let mut o = Outputs::default();
        for a in args {
            o.parse(a, &mut |_| {})?;
        }
        Ok(o)
    }

    #[test]
    fn plain_list_replaces_every_type() {
        let o = parsed(&["comm,tid,ip"]).unwrap();
        for t in 0..TYPES {
            if t == T_TRACEPOINT {
                // ip is valid for tracepoints too.
                assert_eq!(o.0[t].fields, COMM | TID | IP);
            }
        }
        assert_eq!(o.0[0].fields, COMM | TID | IP);
    }

    #[test]
    fn plus_minus_change_the_defaults() {
        let o = parsed(&["+addr,-period"]).unwrap();
        assert_eq!(o.0[0].fields, (HW_DEFAULT | ADDR) & !PERIOD);
        // addr is added to tracepoints too (it is valid there).
        assert_ne!(o.0[T_TRACEPOINT].fields & ADDR, 0);
    }

    #[test]
    fn typed_lists_and_errors() {
        let o = parsed(&["sw:comm,tid"]).unwrap();
        assert_eq!(o.0[1].fields, COMM | TID);
        assert_eq!(o.0[0].fields, HW_DEFAULT);
        assert!(parsed(&["comm,+tid"]).unwrap_err().contains("Cannot mix"));
        assert!(parsed(&["nosuch"]).unwrap_err().contains("Invalid field"));
        assert!(parsed(&["trace:bpf-output"]).unwrap_err().contains("not valid"));
        assert!(parsed(&["xx:comm"]).unwrap_err().contains("Invalid event type"));
    }
}
