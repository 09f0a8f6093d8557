//! `perf report --stdio`: the share of the event count per group of samples — by command,
//! thread, CPU, shared object and symbol of the samples' ips (`--sort`), most first; with
//! `--children`, also the share of every function on the samples' callchains (its callees'
//! samples included), as perf's cumulative entries count it; with a call graph (`-g`), each
//! entry's sample paths as perf's tree ([`CallNode`], [`write_call_graph`]).

mod callchain;

pub use callchain::{write_call_graph, CallGraph, CallNode, ChainOrder, GraphMode, GraphValue};

use crate::options::in_ranges;
use crate::options::FoldedOptions;
use crate::stacks::{ChainEntry, StackFolder};
use crate::Result;
use perfdata_core::process::MachineEvent;
use perfdata_core::record::CpuMode;
use perfdata_core::{Order, PerfFile, Record, RecordKind, Sample};
use perfdata_symbolize::rbtree::RbTree;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

/// A column perf report groups by (`--sort` keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// The command (comm) of the thread at the sample.
    Comm,
    /// The thread (perf's `pid` key is the thread id), shown with its last comm.
    Pid,
    /// The shared object of the address.
    Dso,
    /// The symbol of the address (`sym` or `symbol`).
    Sym,
    /// The CPU of the sample.
    Cpu,
    /// The source file and line of the address (`srcline`): `file:line` from the DWARF line
    /// table of the file its symbols came from, else `symbol+offset` (decimal), else
    /// `module[address]`, `??:0` without a map.
    Srcline,
    /// The first function of the sample's callchain whose name matches
    /// [`ReportOptions::parent`] (`parent`; `[other]` when none does).
    Parent,
    /// A tracepoint sample's text as `perf script` prints it (`trace`, perf's `Trace output`);
    /// perf's default key when every event is a tracepoint ([`default_sort`]).
    Trace,
    /// Branch mode: the shared object of the branch's source (`dso_from`).
    DsoFrom,
    /// Branch mode: the shared object of the branch's target (`dso_to`).
    DsoTo,
    /// Branch mode: the symbol of the branch's source (`symbol_from`).
    SymFrom,
    /// Branch mode: the symbol of the branch's target (`symbol_to`).
    SymTo,
    /// Branch mode: the cycles since the previous branch, the basic block's (`cycles`; `-`
    /// when not recorded).
    Cycles,
}

impl SortKey {
    /// The key perf's `--sort` names `name` (`comm`, `pid`, `dso`, `sym`/`symbol`, `cpu`,
    /// `srcline`, `parent`, `trace`; in branch mode `dso_from`, `dso_to`, `symbol_from`,
    /// `symbol_to`, `cycles`).
    pub fn parse(name: &str) -> Option<SortKey> {
        Some(match name {
            "comm" => SortKey::Comm,
            "pid" => SortKey::Pid,
            "dso" => SortKey::Dso,
            "sym" | "symbol" => SortKey::Sym,
            "cpu" => SortKey::Cpu,
            "srcline" => SortKey::Srcline,
            "parent" => SortKey::Parent,
            "trace" => SortKey::Trace,
            "dso_from" => SortKey::DsoFrom,
            "dso_to" => SortKey::DsoTo,
            "symbol_from" => SortKey::SymFrom,
            "symbol_to" => SortKey::SymTo,
            "cycles" => SortKey::Cycles,
            _ => return None,
        })
    }

    /// The keys of a comma-separated list, or the message naming an unknown one.
    pub fn parse_list(list: &str) -> std::result::Result<Vec<SortKey>, String> {
        list.split(',')
            .map(|k| {
                SortKey::parse(k.trim()).ok_or_else(|| {
                    format!("unknown --sort key `{k}' (known: comm, pid, dso, sym, cpu, srcline, parent, trace; with branch stacks dso_from, dso_to, symbol_from, symbol_to, cycles)")
                })
            })
            .collect()
    }

    /// The key's name in `--sort` (the one [`SortKey::parse`] reads; `sym` for `symbol`).
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Comm => "comm",
            SortKey::Pid => "pid",
            SortKey::Dso => "dso",
            SortKey::Sym => "sym",
            SortKey::Cpu => "cpu",
            SortKey::Srcline => "srcline",
            SortKey::Parent => "parent",
            SortKey::Trace => "trace",
            SortKey::DsoFrom => "dso_from",
            SortKey::DsoTo => "dso_to",
            SortKey::SymFrom => "symbol_from",
            SortKey::SymTo => "symbol_to",
            SortKey::Cycles => "cycles",
        }
    }

    /// The column's header as perf prints it.
    pub fn header(self) -> &'static str {
        match self {
            SortKey::Comm => "Command",
            SortKey::Pid => "    Pid:Command",
            SortKey::Dso => "Shared Object",
            SortKey::Sym => "Symbol",
            SortKey::Cpu => "CPU",
            SortKey::Srcline => "Source:Line",
            SortKey::Parent => "Parent symbol",
            SortKey::Trace => "Trace output",
            SortKey::DsoFrom => "Source Shared Object",
            SortKey::DsoTo => "Target Shared Object",
            SortKey::SymFrom => "Source Symbol",
            SortKey::SymTo => "Target Symbol",
            SortKey::Cycles => "Basic Block Cycles",
        }
    }

    /// Whether the key is one of branch mode's (it reads a branch stack entry).
    pub fn is_branch(self) -> bool {
        matches!(self, SortKey::DsoFrom | SortKey::DsoTo | SortKey::SymFrom | SortKey::SymTo | SortKey::Cycles)
    }
}

/// perf report's sort keys when `--sort` is not given: `trace` when every event of `file` is a
/// tracepoint (perf's tracepoint sort mode), else comm, dso, sym.
pub fn default_sort(file: &PerfFile) -> Vec<SortKey> {
    let events = file.events();
    if !events.is_empty() && events.iter().all(|e| e.attr.type_ == perfdata_core::tracepoint::PERF_TYPE_TRACEPOINT) {
        vec![SortKey::Trace]
    } else {
        ReportOptions::default().sort
    }
}

/// perf's default sort order in branch mode.
pub const BRANCH_SORT: &[SortKey] =
    &[SortKey::Comm, SortKey::DsoFrom, SortKey::SymFrom, SortKey::SymTo, SortKey::Cycles];

/// What [`report`] computes.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The columns to group by, in order (perf's default: comm, dso, sym).
    pub sort: Vec<SortKey>,
    /// Also count each function on the samples' callchains (`--children`): the share of the
    /// samples in it or its callees.
    pub children: bool,
    /// How symbols are found and named (the symbolization and frame options of `folded`).
    pub fold: FoldedOptions,
    /// Only the samples of the event with this index in `PerfFile::events`, as perf report's
    /// table of one event; `None`: every event's samples together.
    pub event: Option<usize>,
    /// Gather each entry's call graph ([`ReportRow::call_graph`]) in this order (perf's `-g`);
    /// `None`: none (`-g none`).
    pub call_graph: Option<ChainOrder>,
    /// The pattern (an extended regular expression) naming the functions the `parent` key
    /// looks for on the callchains (perf's `-p`/`--parent`; default `^sys_|^do_page_fault`).
    pub parent: String,
    /// Hide the rows without a parent (perf's `-x`/`--exclude-other`): all of them when
    /// `parent` is not a key. The percentages stay of all samples.
    pub exclude_other: bool,
    /// Branch mode (perf's `-b`/`--branch-stack`): each entry of each sample's branch stack
    /// is counted, with a period of 1, and the sort keys may be the branch keys
    /// ([`SortKey::is_branch`]); samples without a branch stack count nothing. Neither
    /// `children` nor `call_graph` apply.
    pub branch: bool,
}

/// perf's default `--parent` pattern.
pub const DEFAULT_PARENT: &str = "^sys_|^do_page_fault";

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            sort: vec![SortKey::Comm, SortKey::Dso, SortKey::Sym],
            children: false,
            fold: FoldedOptions::default(),
            event: None,
            call_graph: None,
            parent: DEFAULT_PARENT.to_string(),
            exclude_other: false,
            branch: false,
        }
    }
}

/// What [`report`] gives: the rows, most first as perf orders them, and what they are out of.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The rows.
    pub rows: Vec<ReportRow>,
    /// The total event count (the percentages' base).
    pub total: u64,
    /// The samples counted in [`Report::total`] (perf's `# Samples:`).
    pub samples: u64,
    /// Samples the kernel said it lost (the LOST_SAMPLES records' counts; perf's `# Total Lost
    /// Samples:`).
    pub lost_samples: u64,
    /// What went wrong on the way without stopping it (a jitdump file missing or damaged), and
    /// the line saying what could not be named, if anything.
    pub diagnostics: Vec<String>,
}

/// One row of the table: the fields of the sort keys, the others `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    /// Share of the event count in this row's own samples (perf's `Self` with `--children`), %.
    pub overhead: f64,
    /// With `--children`: share of the event count of the samples with this row's function on
    /// their callchain (its own and its callees'), %.
    pub children: Option<f64>,
    /// The row's own samples.
    pub samples: u64,
    /// The row's own event count (sum of periods).
    pub period: u64,
    /// With `--children`: the event count of [`ReportRow::children`].
    pub children_period: Option<u64>,
    /// `comm`: the thread's comm at the sample; `pid`: the thread's last comm.
    pub comm: Option<String>,
    /// `pid`: the thread id.
    pub pid: Option<u32>,
    /// `cpu`: the sample's CPU (-1 when not recorded).
    pub cpu: Option<i32>,
    /// `dso`: the shared object's short name (`[kernel.kallsyms]`, `libc.so.6`, `[unknown]`).
    pub dso: Option<String>,
    /// `sym`: a kernel address (`[k]`), else user (`[.]`).
    pub kernel: Option<bool>,
    /// `sym`: the symbol (`name (inlined)` for an inlined function), or the address perf prints
    /// for an unresolved one (the sample's ip map-relative, a callchain entry's as it is).
    pub symbol: Option<String>,
    /// `sym`: for an unresolved symbol, the address [`ReportRow::symbol`] shows.
    pub address: Option<u64>,
    /// `srcline`: the source line as perf prints it (`spin.c:31`, `clear_page_erms+7`,
    /// `libc.so.6[2b48]`, `??:0`).
    pub srcline: Option<String>,
    /// How wide this row makes perf's `Source:Line` column: the length of
    /// [`ReportRow::srcline`] when perf had looked it up by the time it laid the row out, else 0
    /// (perf reads source lines lazily, when a comparison of entries needs them, and sizes the
    /// column by those it has, cutting longer ones; [`report_text`] does the same).
    pub srcline_width: usize,
    /// `parent`: the parent function, `None` for perf's `[other]`.
    pub parent: Option<String>,
    /// `trace`: the tracepoint sample's text as `perf script` prints it (`None` for the samples
    /// of other events, which perf shows as `N/A`).
    pub trace: Option<String>,
    /// How wide this row makes perf's `Command` column: the length of the last comm of the
    /// thread whose sample made the row (perf sizes the column by each entry's thread as it is
    /// when the table is laid out, then cuts longer comms to that width; [`report_text`] does
    /// the same).
    pub comm_width: usize,
    /// With [`ReportOptions::call_graph`]: the paths of the samples the row counts (its own
    /// samples' whole callchains, and with `--children` the part from this function on of the
    /// samples through it), merged into perf's tree; empty otherwise.
    pub call_graph: Vec<CallNode>,
    /// Branch mode: the branch's source (with `dso_from` or `symbol_from` a key).
    pub from: Option<BranchEnd>,
    /// Branch mode: the branch's target (with `dso_to` or `symbol_to` a key).
    pub to: Option<BranchEnd>,
    /// Branch mode, `cycles`: the cycles recorded with the branch (0: none recorded).
    pub cycles: Option<u16>,
    /// perf's group view ([`report_group_view`]), in a group leader's report: the row's share of
    /// each other member of the group, in the group's order (zero where the member has no such
    /// row); empty otherwise.
    pub group: Vec<GroupShare>,
}

/// A group member's part of a row of its leader's report ([`ReportRow::group`]): what
/// [`ReportRow`]'s fields of the same names are for the leader, of the member's samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupShare {
    /// Share of the member's event count in the row's own samples, %.
    pub overhead: f64,
    /// With `--children`: the share of the member's samples through the row's function, %.
    pub children: Option<f64>,
    /// The member's samples in the row.
    pub samples: u64,
    /// The member's event count in the row.
    pub period: u64,
    /// With `--children`: the event count of [`GroupShare::children`].
    pub children_period: Option<u64>,
}

/// One end of a branch as perf resolves it (`ip__resolve_ams`): the map of the process, else the
/// kernel's, else none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchEnd {
    /// The shared object's short name (`[unknown]` without a map).
    pub dso: String,
    /// perf's level: `.` (a map of the process), `k` (the kernel's), `H` (no map).
    pub level: char,
    /// The symbol's name, `None` when unresolved.
    pub symbol: Option<String>,
    /// The address perf prints when unresolved: relative to its map, as it is without one.
    pub address: u64,
}

impl BranchEnd {
    /// The symbol as perf's column prints it: `[.] name`, `[k] 0xffffffff81000000`,
    /// `[H] 0000000000000000` (perf's `%#x` has no `0x` for zero).
    pub fn symbol_text(&self) -> String {
        match &self.symbol {
            Some(n) => format!("[{}] {n}", self.level),
            None if self.address == 0 => format!("[{}] {:016x}", self.level, 0),
            None => format!("[{}] {:#018x}", self.level, self.address),
        }
    }
}

/// A branch end in a histogram entry: the shared object, the symbol (an unresolved one by its
/// recorded address, which perf compares), the level and the printed address.
#[derive(Clone)]
struct End {
    dso: Option<Rc<str>>,
    sym: Sym,
    level: char,
    address: u64,
}

/// A symbol as perf's histogram compares it (`_sort__sym_cmp`): named, with the addresses of the
/// symbol holding it (an inlined function gets those of the symbol it is inlined in) and whether
/// it is an inlined function; or an unresolved address.
#[derive(Clone)]
enum Sym {
    Named { name: Rc<str>, start: u64, end: u64, inlined: bool },
    Addr(u64),
}

/// A histogram entry's identity (perf's `struct hist_entry` as `hist_entry__cmp` sees it): the
/// values of the sort keys (`None`: not a key), and the shared object and symbol, which the
/// symbol key compares together.
#[derive(Clone)]
struct Key {
    comm: Option<Rc<str>>,
    tid: Option<u32>,
    cpu: Option<i32>,
    /// The shared object's short name; `None`: no map.
    dso: Option<Rc<str>>,
    sym: Sym,
    /// The source line, when a key.
    srcline: Option<Rc<str>>,
    /// Whether perf would have looked the source line up by now (a comparison reached it).
    srcline_seen: std::cell::Cell<bool>,
    /// The parent function's name, when `parent` is a key (`None`: `[other]`).
    parent: Option<Rc<str>>,
    /// The tracepoint text, when `trace` is a key (`None`: not a tracepoint's sample).
    trace: Option<Rc<str>>,
    /// Branch mode: the branch's source and target, and its cycles.
    from: Option<End>,
    to: Option<End>,
    cycles: Option<u16>,
}

impl Key {
    /// This key with the shared object and symbol of an address.
    fn with(&self, dso: Option<Rc<str>>, sym: Sym, srcline: Option<Rc<str>>) -> Key {
        Key { dso, sym, srcline, srcline_seen: std::cell::Cell::new(false), ..self.clone() }
    }
}

#[derive(Default)]
struct Acc {
    samples: u64,
    period: u64,
    children: u64,
    /// The `[k]`/`[.]` level of the first entry of the group.
    kernel: bool,
    /// The thread of the sample that made the entry.
    tid: u32,
    /// The entry's callchain tree, when call graphs are gathered.
    tree: Option<Box<callchain::Tree>>,
    /// Whether the source line counted for the column's width ([`ReportRow::srcline_width`]).
    srcline_counted: bool,
    /// perf's group view, a leader's entry: what each other member's entry of the same key holds
    /// (perf's pairs); empty otherwise.
    group: Vec<Member>,
}

/// A group member's entry as its leader's entry sees it ([`Acc::group`]).
#[derive(Clone, Copy, Default)]
struct Member {
    samples: u64,
    period: u64,
    children: u64,
}

impl Member {
    fn of(a: &Acc) -> Member {
        Member { samples: a.samples, period: a.period, children: a.children }
    }
}

/// perf's short name of a shared object; `None` for `[unknown]` (no map). `kernel`: mapped in
/// the kernel's address space, where a file is a module, named as perf names modules
/// (`kmod_path__parse_name`: `[name]`).
fn short_dso(dso: &str, kernel: bool) -> Option<Rc<str>> {
    match dso {
        "[unknown]" => None,
        d if d.starts_with('[') => Some(d.into()),
        d if kernel => Some(perfdata_symbolize::kmod::kmod_name(d).0.into()),
        // A perf map is `[JIT] tid PID` (`dso__set_basename`), another file its last component.
        d => Some(perfdata_symbolize::srcline::short_name(d).into()),
    }
}

/// A symbol as perf names and compares it: the C string of a kallsyms module symbol; a symbol
/// without known addresses at 0.
fn named(sym: &str, start: Option<u64>, end: Option<u64>, inlined: bool) -> Sym {
    let name = sym.split('\0').next().unwrap_or(sym).into();
    let start = start.unwrap_or(0);
    Sym::Named { name, start, end: end.unwrap_or(start), inlined }
}

/// The sign of a C `int64_t` difference, as perf's comparators return it.
fn sign(d: i64) -> Ordering {
    d.cmp(&0)
}

/// perf's `sort__dso_cmp(left, right)`: names compared right to left, no map first.
fn dso_cmp(l: &Key, r: &Key) -> Ordering {
    match (&l.dso, &r.dso) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(a), Some(b)) => names_cmp(b, a),
    }
}

/// `strcmp(a, b)`; one string (the interned names of [`Names`]) is equal without a look.
fn names_cmp(a: &Rc<str>, b: &Rc<str>) -> Ordering {
    if Rc::ptr_eq(a, b) {
        Ordering::Equal
    } else {
        a.as_bytes().cmp(b.as_bytes())
    }
}

/// A symbolizer's dso name (kept) and the short name an entry shows.
type DsoNames = (Rc<str>, Option<Rc<str>>);

/// The comms and shared objects of the entries, one `Rc` per name: most comparisons of
/// [`entry_cmp`] are between equal names, which are then told equal by pointer.
#[derive(Default)]
struct Names {
    /// A thread's comm as last seen.
    comms: HashMap<u32, Rc<str>, ahash::RandomState>,
    /// Short names by the symbolizer's dso name (kept, so that its address stays its own) and
    /// address space (kernel or not).
    dsos: HashMap<(usize, bool), DsoNames, ahash::RandomState>,
    /// The short names, each once.
    shorts: std::collections::HashSet<Rc<str>>,
}

impl Names {
    fn comm(&mut self, tid: u32, comm: &str) -> Rc<str> {
        match self.comms.get(&tid) {
            Some(c) if **c == *comm => c.clone(),
            _ => {
                let c: Rc<str> = comm.into();
                self.comms.insert(tid, c.clone());
                c
            }
        }
    }

    /// perf's `comm__override`: the first COMM of a thread that had only its `:TID` placeholder
    /// renames that comm in place, so the entries made under it show the new name. The
    /// placeholder's `Rc` and the new name's, when entries may hold the placeholder.
    fn rename(&mut self, tid: u32, comm: &str) -> Option<(Rc<str>, Rc<str>)> {
        let old = self.comms.get(&tid).filter(|c| ***c == *format!(":{}", tid as i32))?.clone();
        let new: Rc<str> = comm.into();
        self.comms.insert(tid, new.clone());
        Some((old, new))
    }

    /// The short name of `dso`, a module's when `kernel` ([`short_dso`]).
    fn dso(&mut self, dso: &Rc<str>, kernel: bool) -> Option<Rc<str>> {
        let shorts = &mut self.shorts;
        let (_, short) = self.dsos.entry((Rc::as_ptr(dso).cast::<u8>() as usize, kernel)).or_insert_with(|| {
            // One `Rc` per short name, also for two files of one name ([`EntryCache::group`]).
            let short = short_dso(dso, kernel).map(|s| match shorts.get(&s) {
                Some(known) => known.clone(),
                None => {
                    shorts.insert(s.clone());
                    s
                }
            });
            (dso.clone(), short)
        });
        short.clone()
    }
}

/// perf's `sort__sym_cmp(left, right)`: two unresolved addresses by their difference; else the
/// shared objects, then `_sort__sym_cmp`: an inlined function by name and, of one name,
/// overlapping symbols are one; other symbols by start, then end. (Not a total order: names
/// decide between an inlined function and a symbol, addresses between symbols, so what a search
/// of perf's tree finds depends on the tree's shape — see [`Hist`].)
fn sym_cmp(l: &Key, r: &Key) -> Ordering {
    if let (Sym::Addr(a), Sym::Addr(b)) = (&l.sym, &r.sym) {
        return sign(b.wrapping_sub(*a) as i64);
    }
    let d = dso_cmp(l, r);
    if d.is_ne() {
        return d;
    }
    match (&l.sym, &r.sym) {
        (
            Sym::Named { name: ln, start: ls, end: le, inlined: li },
            Sym::Named { name: rn, start: rs, end: re, inlined: ri },
        ) => {
            if *li || *ri {
                let o = ln.as_bytes().cmp(rn.as_bytes());
                if o.is_ne() {
                    return o;
                }
                if ls <= re && le >= rs {
                    return Ordering::Equal;
                }
            }
            if ls != rs {
                return sign(rs.wrapping_sub(*ls) as i64);
            }
            sign(re.wrapping_sub(*le) as i64)
        }
        (Sym::Addr(_), _) => Ordering::Less,
        (_, Sym::Addr(_)) => Ordering::Greater,
    }
}

/// perf's `hist_entry__cmp(left, right)` over the sort keys: comm (`strcmp(right, left)`), thread
/// and CPU (`right - left` in C `int`), shared object, symbol.
fn entry_cmp(sort: &[SortKey], l: &Key, r: &Key) -> Ordering {
    for k in sort {
        let o = match k {
            SortKey::Comm => match (&r.comm, &l.comm) {
                (Some(a), Some(b)) => names_cmp(a, b),
                (a, b) => a.is_some().cmp(&b.is_some()),
            },
            SortKey::Pid => sign(i64::from((r.tid.unwrap_or(0) as i32).wrapping_sub(l.tid.unwrap_or(0) as i32))),
            SortKey::Cpu => sign(i64::from(r.cpu.unwrap_or(0).wrapping_sub(l.cpu.unwrap_or(0)))),
            SortKey::Dso => dso_cmp(l, r),
            SortKey::Sym => sym_cmp(l, r),
            // `strcmp(right, left)` of the source lines, which the comparison looks up.
            SortKey::Srcline => {
                l.srcline_seen.set(true);
                r.srcline_seen.set(true);
                match (&r.srcline, &l.srcline) {
                    (Some(a), Some(b)) => names_cmp(a, b),
                    (a, b) => a.is_some().cmp(&b.is_some()),
                }
            }
            // `strcmp(right, left)` of the texts; nothing to compare for other events.
            SortKey::Trace => match (&r.trace, &l.trace) {
                (Some(a), Some(b)) => names_cmp(a, b),
                _ => Ordering::Equal,
            },
            // `cmp_null(left, right)` (no parent first), else `strcmp(right, left)`.
            SortKey::Parent => match (&l.parent, &r.parent) {
                (Some(a), Some(b)) => names_cmp(b, a),
                (a, b) => a.is_some().cmp(&b.is_some()),
            },
            SortKey::DsoFrom => end_dso_cmp(l.from.as_ref(), r.from.as_ref()),
            SortKey::DsoTo => end_dso_cmp(l.to.as_ref(), r.to.as_ref()),
            SortKey::SymFrom => end_sym_cmp(l.from.as_ref(), r.from.as_ref()),
            SortKey::SymTo => end_sym_cmp(l.to.as_ref(), r.to.as_ref()),
            // `left - right` of the cycles.
            SortKey::Cycles => l.cycles.unwrap_or(0).cmp(&r.cycles.unwrap_or(0)),
        };
        if o.is_ne() {
            return o;
        }
    }
    Ordering::Equal
}

/// perf's `_sort__dso_cmp(left, right)` of two branch ends' maps: `strcmp` of the short names,
/// a missing map after any (`cmp_null(right, left)`).
fn end_dso_cmp(l: Option<&End>, r: Option<&End>) -> Ordering {
    match (l.and_then(|e| e.dso.as_ref()), r.and_then(|e| e.dso.as_ref())) {
        (None, None) => Ordering::Equal,
        (_, None) => Ordering::Less,
        (None, _) => Ordering::Greater,
        (Some(a), Some(b)) => names_cmp(a, b),
    }
}

/// perf's `sort__sym_from_cmp`/`sort__sym_to_cmp(left, right)`: two unresolved ends by their
/// recorded addresses (`right - left`), else `_sort__sym_cmp`: no symbol first, then by start and
/// end (`right - left`); the shared objects are not compared.
fn end_sym_cmp(l: Option<&End>, r: Option<&End>) -> Ordering {
    let (Some(l), Some(r)) = (l, r) else { return l.is_some().cmp(&r.is_some()) };
    match (&l.sym, &r.sym) {
        (Sym::Addr(a), Sym::Addr(b)) => sign(b.wrapping_sub(*a) as i64),
        (Sym::Addr(_), _) => Ordering::Less,
        (_, Sym::Addr(_)) => Ordering::Greater,
        (Sym::Named { start: ls, end: le, .. }, Sym::Named { start: rs, end: re, .. }) => {
            if ls != rs {
                sign(rs.wrapping_sub(*ls) as i64)
            } else {
                sign(re.wrapping_sub(*le) as i64)
            }
        }
    }
}

/// perf's `hist_entry__sort(a, b)` for the output order: Children, then Self (more first), then
/// the keys' sort functions (comm and shared object by name, symbols by name after unresolved
/// ones, thread and CPU ascending). `Greater`: `a` goes first. With call graphs (`order`), equal
/// Children of one thread's entries put the caller first (`__hpp__sort_acc`): the longer
/// longest path caller-first, the shorter callee-first.
fn entry_sort(
    sort: &[SortKey],
    children: bool,
    order: Option<ChainOrder>,
    (ka, a): &(Key, Acc),
    (kb, b): &(Key, Acc),
) -> Ordering {
    let mut o = if children { a.children.cmp(&b.children) } else { Ordering::Equal };
    if let (true, Ordering::Equal, Some(order)) = (children && a.tid == b.tid, o, order) {
        let depth = |x: &Acc| x.tree.as_ref().map_or(0, |t| t.max_depth());
        o = depth(a).cmp(&depth(b));
        if order == ChainOrder::Callee {
            o = o.reverse();
        }
    }
    o = o.then(a.period.cmp(&b.period));
    // perf's group view (`__hpp__sort`): then the other members' periods, in the group's order.
    o = o.then_with(|| a.group.iter().map(|m| m.period).cmp(b.group.iter().map(|m| m.period)));
    for k in sort {
        o = o.then_with(|| match k {
            SortKey::Sym => match (&ka.sym, &kb.sym) {
                (Sym::Named { name: an, .. }, Sym::Named { name: bn, .. }) => bn.as_bytes().cmp(an.as_bytes()),
                (Sym::Addr(_), Sym::Addr(_)) => Ordering::Equal,
                (Sym::Addr(_), _) => Ordering::Less,
                (_, Sym::Addr(_)) => Ordering::Greater,
            },
            _ => entry_cmp(std::slice::from_ref(k), ka, kb),
        });
    }
    o
}

/// perf's histogram of one report: entries found or added in a red-black tree searched with
/// [`entry_cmp`] (`hists__findnew_entry`), as perf's tree is, node for node. Because that
/// comparison is not a total order when inlined functions are entries (`--children` with inline
/// frames), a search can miss an equal entry in another subtree and perf then shows one symbol
/// in two rows; the same tree here makes the same rows.
struct Hist<'a> {
    sort: &'a [SortKey],
    tree: Entries,
    /// The entries of each comm (by the address of its `Rc`), for [`Hist::rename_comm`].
    by_comm: HashMap<usize, Vec<usize>>,
}

impl Hist<'_> {
    /// The entry equal to `key`, added (with the level `kernel`) if the search finds none.
    fn entry(&mut self, key: Key, kernel: bool, tid: u32) -> usize {
        let sort = self.sort;
        let found = self
            .tree
            .insert_by(|(k, _)| dir(entry_cmp(sort, k, &key)), || (key.clone(), Acc { kernel, tid, ..Acc::default() }));
        if let (Ok(i), Some(c)) = (found, &key.comm) {
            self.by_comm.entry(Rc::as_ptr(c).cast::<u8>() as usize).or_default().push(i);
        }
        found.unwrap_or_else(|i| i)
    }

    /// Every entry whose comm is `old` now has `new`, where it lies in the tree (perf renames the
    /// comm the entries point to; its tree is not re-sorted, and the searches that meet such an
    /// entry compare the new name).
    fn rename_comm(&mut self, old: &Rc<str>, new: &Rc<str>) {
        let Some(entries) = self.by_comm.remove(&(Rc::as_ptr(old).cast::<u8>() as usize)) else { return };
        for &i in &entries {
            if let Some((k, _)) = self.tree.get_mut(i) {
                k.comm = Some(new.clone());
            }
        }
        self.by_comm.entry(Rc::as_ptr(new).cast::<u8>() as usize).or_default().extend(entries);
    }

    fn acc(&mut self, i: usize) -> Option<&mut Acc> {
        self.tree.get_mut(i).map(|(_, a)| a)
    }

    fn key(&self, i: usize) -> Option<&Key> {
        self.tree.get(i).map(|(k, _)| k)
    }

    /// perf's `hists__collapse_resort`: the entries merged again, in tree order, into a second
    /// tree when the comm is a key (perf collapses only then); else the tree as it is.
    /// `frames`: the call graphs' frames.
    fn collapse(self, frames: &callchain::Frames) -> Entries {
        let sort = self.sort;
        let mut tree = self.tree;
        if !sort.contains(&SortKey::Comm) {
            return tree;
        }
        let order = tree.in_order();
        let mut take = |i: usize| tree.get_mut(i).map(|(k, a)| (k.clone(), std::mem::take(a)));
        let mut collapsed: Entries = RbTree::default();
        for (key, acc) in order.into_iter().filter_map(&mut take) {
            let mut new = Some(acc);
            let found = collapsed
                .insert_by(|(k, _)| dir(entry_cmp(sort, k, &key)), || (key.clone(), new.take().unwrap_or_default()));
            match (found, new) {
                (Ok(_), _) | (_, None) => {}
                (Err(i), Some(acc)) => {
                    if let Some((_, a)) = collapsed.get_mut(i) {
                        a.samples += acc.samples;
                        a.period = a.period.saturating_add(acc.period);
                        a.children = a.children.saturating_add(acc.children);
                        if let (Some(dst), Some(src)) = (&mut a.tree, &acc.tree) {
                            dst.merge(frames, src);
                        }
                    }
                }
            }
        }
        collapsed
    }
}

/// The entries of a collapsed histogram ([`Hist::collapse`]) in perf's output order
/// (`hists__output_resort`: a stable sort by [`entry_sort`]).
fn output_order(
    sort: &[SortKey],
    mut tree: Entries,
    children: bool,
    chain_order: Option<ChainOrder>,
) -> Vec<(Key, Acc)> {
    let entries: Vec<(Key, Acc)> = tree
        .in_order()
        .into_iter()
        .filter_map(|i| tree.get_mut(i).map(|(k, a)| (k.clone(), std::mem::take(a))))
        .collect();
    // `__hists__insert_output_entry`: each entry in turn down perf's output tree, left when it
    // sorts before the node (ties go right). A stable sort when `entry_sort` is a total
    // order; it is not with call graphs (its depth rule holds only within one thread), and
    // the tree then places entries as perf's does.
    // perf sizes the columns by each entry right after inserting it (`hists__calc_col_len`):
    // its source line counts if a comparison has looked it up by then.
    let mut out: RbTree<usize> = RbTree::default();
    let mut counted = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let _ = out.insert_by(|&n| entries.get(n).map(|m| entry_sort(sort, children, chain_order, e, m).is_gt()), || i);
        counted.push(e.0.srcline_seen.get());
    }
    let mut entries: Vec<Option<(Key, Acc)>> = entries
        .into_iter()
        .zip(counted)
        .map(|((k, mut a), c)| {
            a.srcline_counted = c;
            Some((k, a))
        })
        .collect();
    out.iter().filter_map(|&i| entries.get_mut(i).and_then(Option::take)).collect()
}

/// The event groups of `file` as (leader's index, events in the group), from its GROUP_DESC
/// feature; without groups, one group of every event (perf's `evlist__force_leader`).
pub(crate) fn groups(file: &PerfFile) -> Vec<(usize, usize)> {
    let recorded: Vec<(usize, usize)> = file
        .features()
        .group_desc()
        .and_then(Result::ok)
        .unwrap_or_default()
        .iter()
        .map(|g| (g.leader_idx as usize, g.nr_members as usize))
        .filter(|&(_, n)| n > 1)
        .collect();
    if recorded.is_empty() {
        vec![(0, file.events().len())]
    } else {
        recorded
    }
}

/// A histogram's entries in perf's tree.
type Entries = RbTree<(Key, Acc)>;

/// perf's group view (`hists__match` and `hists__link`, member by member in the group's order):
/// each entry of the `leader`'s collapsed histogram is given the values of the entry of the same
/// key in each of the `members`' (searched in its tree as perf searches), and a member's entry
/// no leader's entry matched becomes an empty entry of the leader's, placed in its tree as perf
/// places it.
fn link_group(sort: &[SortKey], leader: &mut Entries, members: &[&Entries]) {
    for i in leader.in_order() {
        if let Some((_, a)) = leader.get_mut(i) {
            a.group = vec![Member::default(); members.len()];
        }
    }
    for (m, member) in members.iter().enumerate() {
        // The member's entries paired with a leader's (`hist_entry__has_pairs`).
        let mut paired = std::collections::HashSet::new();
        for i in leader.in_order() {
            let Some((key, _)) = leader.get(i) else { continue };
            let Some(j) = member.find_index_by(|(k, _)| dir(entry_cmp(sort, k, key))) else { continue };
            paired.insert(j);
            let values = member.get(j).map(|(_, p)| Member::of(p)).unwrap_or_default();
            if let Some(slot) = leader.get_mut(i).and_then(|(_, a)| a.group.get_mut(m)) {
                *slot = values;
            }
        }
        for j in member.in_order() {
            let Some((key, p)) = member.get(j) else { continue };
            if paired.contains(&j) {
                continue;
            }
            let mut group = vec![Member::default(); members.len()];
            if let Some(slot) = group.get_mut(m) {
                *slot = Member::of(p);
            }
            let found = leader.insert_by(
                |(k, _)| dir(entry_cmp(sort, k, key)),
                || (key.clone(), Acc { kernel: p.kernel, tid: p.tid, group, ..Acc::default() }),
            );
            // A search that meets an equal entry pairs with it (`hists__add_dummy_entry`).
            if let Err(i) = found {
                if let Some(slot) = leader.get_mut(i).and_then(|(_, a)| a.group.get_mut(m)) {
                    *slot = Member::of(p);
                }
            }
        }
    }
}

/// What a histogram key's symbol is, for [`EntryCache::id`]: a symbol (its start and end, as
/// [`named`] takes them) or an unresolved address.
#[derive(Clone, Copy)]
enum SymId {
    Named(u64, u64),
    Addr(u64),
}

impl SymId {
    fn of(symbol: Option<&str>, start: Option<u64>, end: Option<u64>, addr: u64) -> SymId {
        match symbol {
            Some(_) => {
                let start = start.unwrap_or(0);
                SymId::Named(start, end.unwrap_or(start))
            }
            None => SymId::Addr(addr),
        }
    }
}

/// The results of [`Hist::entry`]'s searches, by the identity of the key searched for: a frame
/// met again is found without a search and without building its key. Only where the search's
/// answer cannot depend on the tree's shape. The sort keys must be among comm, pid, cpu, dso, sym
/// and parent, whose comparison [`entry_cmp`] is then a total order over the keys remembered
/// here: symbols not inlined, and unresolved addresses only while those compared with each other
/// (of one shared object when it is compared first, else all) are in one half of the address
/// space, since `sym_cmp` orders two addresses by the sign of their wrapping difference (and
/// threads and CPUs only while they lie between -1 and 2^30, for the same reason). Its
/// answer for a key is then the one entry equal to it, the same at every search. Once an inlined
/// function is among the entries (its comparison by name can make a symbol equal to it), or a
/// group of addresses spans both halves, those keys are searched for again, as perf searches.
#[derive(Default)]
struct EntryCache {
    on: bool,
    /// Unresolved addresses are compared after the shared object.
    addr_ok: bool,
    /// Which halves of the address space (bit 0 below 2^63, bit 1 above) each group of
    /// unresolved addresses ([`EntryCache::group`]) has been in.
    halves: HashMap<u64, u8, ahash::RandomState>,
    /// How many times a group came to be in both halves.
    mixings: u64,
    /// A key of the sample being added was an unresolved address of a group in both halves, or
    /// a comm within [`EntryCache::renames`] (cleared by the caller): the sample is no plan for
    /// others ([`Repeats`]), since perf searches for that key again and may find another entry.
    touched_mixed: bool,
    /// The span of the comms renamed where their entries lie in the tree ([`Hist::rename_comm`]):
    /// the lowest and the highest of their old and new names. A search for a comm between a
    /// rename's two names may meet such an entry and turn the other way than its place in the
    /// tree says, so its answer can change as the tree does: it is not remembered. One span over
    /// all renames (the `:TID` names all sort first, so theirs overlap anyway) keeps that check
    /// one comparison however many threads are renamed; a key outside it compares the same with
    /// every old and new name, and the tree is in order for it.
    renames: Option<(Rc<str>, Rc<str>)>,
    by_id: HashMap<[u64; 8], usize, ahash::RandomState>,
    /// The names whose addresses identities hold, kept so that no other name takes an address.
    held: HashMap<usize, Rc<str>, ahash::RandomState>,
}

impl EntryCache {
    fn new(opts: &ReportOptions, lazy_srcline: bool) -> EntryCache {
        let sort = &opts.sort;
        let simple = sort.iter().all(|k| {
            matches!(k, SortKey::Comm | SortKey::Pid | SortKey::Cpu | SortKey::Dso | SortKey::Sym | SortKey::Parent)
        });
        let pos = |want: SortKey| sort.iter().position(|k| *k == want);
        let addr_ok = match (pos(SortKey::Dso), pos(SortKey::Sym)) {
            (_, None) => true,
            (Some(d), Some(s)) => d < s,
            (None, Some(_)) => false,
        };
        EntryCache { on: simple && !opts.branch && !lazy_srcline, addr_ok, ..EntryCache::default() }
    }

    /// Stop remembering (an inlined function is about to be searched for).
    fn off(&mut self) {
        self.on = false;
    }

    /// Entries of comm `old` are now of `new` ([`EntryCache::renames`]); what was remembered is
    /// forgotten.
    fn renamed(&mut self, old: &Rc<str>, new: &Rc<str>) {
        let (mut lo, mut hi) = if old.as_bytes() <= new.as_bytes() { (old, new) } else { (new, old) };
        if let Some((l, h)) = &self.renames {
            lo = if l.as_bytes() < lo.as_bytes() { l } else { lo };
            hi = if h.as_bytes() > hi.as_bytes() { h } else { hi };
        }
        self.renames = Some((lo.clone(), hi.clone()));
        self.by_id.clear();
    }

    fn hold(&mut self, name: Option<&Rc<str>>) -> u64 {
        let Some(name) = name else { return 0 };
        let at = Rc::as_ptr(name).cast::<u8>() as usize;
        self.held.entry(at).or_insert_with(|| name.clone());
        at as u64
    }

    /// The unresolved addresses compared with each other: those of one shared object when it is
    /// compared before them, else all.
    fn group(&self, dso: u64) -> u64 {
        if self.addr_ok {
            dso
        } else {
            0
        }
    }

    /// The identity of `base`'s key with the shared object `dso` (one of [`Names`]' short names,
    /// which it keeps) and the symbol `sym`; `None` where the answer is not remembered.
    fn id(&mut self, base: &Key, dso: Option<&Rc<str>>, sym: SymId) -> Option<[u64; 8]> {
        if let Some(c) = &base.comm {
            let c = c.as_bytes();
            if self.renames.as_ref().is_some_and(|(lo, hi)| lo.as_bytes() <= c && c <= hi.as_bytes()) {
                self.touched_mixed = true;
                return None;
            }
        }
        let dso = dso.map_or(0, |d| Rc::as_ptr(d).cast::<u8>() as u64);
        if let SymId::Addr(a) = sym {
            let half = 1u8 << (a >> 63);
            let seen = self.halves.entry(self.group(dso)).or_insert(half);
            if *seen != *seen | half {
                *seen |= half;
                self.mixings += 1;
            }
            if *seen == 3 {
                self.touched_mixed = true;
                return None;
            }
        }
        // perf compares threads and CPUs by their `int` difference: an order while they span less
        // than 2^31 (pids and CPUs do; a value from a damaged file may not).
        let small = |v: i32| (-1..1 << 30).contains(&v);
        if base.tid.is_some_and(|t| !small(t as i32)) || base.cpu.is_some_and(|c| !small(c)) {
            return None;
        }
        let (tag, a, b) = match sym {
            _ if !self.on => return None,
            SymId::Named(start, end) => (1, start, end),
            SymId::Addr(_) if !self.addr_ok => return None,
            SymId::Addr(a) => (2, a, 0),
        };
        let tid = base.tid.map_or(u64::MAX, u64::from);
        let cpu = base.cpu.map_or(u64::MAX, |c| u64::from(c as u32));
        Some([self.hold(base.comm.as_ref()), tid, cpu, self.hold(base.parent.as_ref()), dso, tag, a, b])
    }

    fn get(&self, id: Option<&[u64; 8]>) -> Option<usize> {
        id.and_then(|id| self.by_id.get(id).copied())
    }

    fn remember(&mut self, id: Option<[u64; 8]>, entry: usize) {
        if let (Some(id), true) = (id, self.on) {
            self.by_id.insert(id, entry);
        }
    }
}

/// The descent of perf's tree searches for `cmp(node, new)`: left when below, right when above.
fn dir(cmp: Ordering) -> Option<bool> {
    match cmp {
        Ordering::Equal => None,
        o => Some(o.is_lt()),
    }
}

/// The report of `file`'s samples (all events together, or [`ReportOptions::event`]'s), rows most
/// first as perf orders them, and the total event count ([`Report`]). The fold options' time ranges drop samples before anything counts them;
/// its pid, tid and comm filters keep only those threads' samples in the rows while the total (the
/// percentages' base) counts every sample, as perf report's default `--percentage absolute`. (perf
/// 6.1 itself merges the samples of every thread into an entry and shows the entry when its first
/// sample's thread passes the filter; that differs from this where two threads of one command
/// share a function, e.g. `--pid` of a multi-threaded process.)
pub fn report(file: &PerfFile, opts: &ReportOptions) -> Result<Report> {
    let mut reports = build(file, opts, false, false)?;
    Ok(reports.pop().unwrap_or_else(|| Report {
        rows: Vec::new(),
        total: 0,
        samples: 0,
        lost_samples: 0,
        diagnostics: Vec::new(),
    }))
}

/// The report of each event of `file` ([`PerfFile::events`], in that order), as [`report`] makes
/// it with [`ReportOptions::event`] that event's index (which is ignored here), from one read of
/// the file: perf report's tables of a recording with several events. Each report has the whole
/// read's [`Report::lost_samples`] and [`Report::diagnostics`].
pub fn report_per_event(file: &PerfFile, opts: &ReportOptions) -> Result<Vec<Report>> {
    build(file, opts, true, false)
}

/// [`report_per_event`] with perf's group view (`perf report`'s default for a recording whose
/// events were recorded in groups, its HEADER_GROUP_DESC feature; a recording without groups is
/// one group of all its events, as with `perf report --group`): the report of each group's
/// leader also holds each other member's share of its rows ([`ReportRow::group`]), has a row
/// for every key a member has (empty for the leader), and orders its rows by the leader's and
/// then each member's event count before the keys. perf shows only the leaders' reports then;
/// the members' are as [`report_per_event`] makes them.
pub fn report_group_view(file: &PerfFile, opts: &ReportOptions) -> Result<Vec<Report>> {
    build(file, opts, true, true)
}

/// One event's histogram being built, with what its samples add up to.
struct EventHist<'a> {
    hist: Hist<'a>,
    repeats: Repeats,
    cache: EntryCache,
    total: u64,
    samples: u64,
}

/// [`report`] (one report: every event's samples, or [`ReportOptions::event`]'s) or, with
/// `per_event`, [`report_per_event`] (one per event of the file), with `group_view`
/// [`report_group_view`].
fn build(file: &PerfFile, opts: &ReportOptions, per_event: bool, group_view: bool) -> Result<Vec<Report>> {
    let mut folder = StackFolder::new(file, &opts.fold);
    let has = |k: SortKey| opts.sort.contains(&k);
    let slots = if per_event { file.events().len() } else { 1 };
    let mut hists: Vec<EventHist<'_>> = (0..slots)
        .map(|_| EventHist {
            hist: Hist { sort: &opts.sort, tree: RbTree::default(), by_comm: HashMap::default() },
            repeats: Repeats::default(),
            cache: EntryCache::new(opts, has(SortKey::Srcline)),
            total: 0,
            samples: 0,
        })
        .collect();
    let mut names = Names::default();
    // The call graphs' frames, numbered once for every tree of every histogram.
    let mut frames = callchain::Frames::default();
    let mut lost_samples = 0u64;
    let mut chain: Vec<ChainEntry> = Vec::new();
    // With `srcline` and `--children`: the chain's entries' source lines, and whether perf has
    // them from the start ([`StackFolder::chain_srclines`]).
    let mut chain_lines: Vec<(String, bool)> = Vec::new();
    // perf's callchain cursor as the last sample with a callchain left it (`last`, with its source
    // lines): perf 6.1 resets it only when it resolves a callchain, so with `--children` a sample
    // of an event without callchains adds the cumulative entries of that cursor (the previous
    // callchain's functions, under this sample's thread), and their paths to the entries' call
    // graphs, which order the rows but are not shown (the event has no callchains).
    let mut last: Vec<ChainEntry> = Vec::new();
    let mut last_lines: Vec<(String, bool)> = Vec::new();
    // Only one event reported: the others' callchains still move the cursor when that event has
    // none.
    let others_move_cursor = opts.children
        && !opts.branch
        && !per_event
        && opts
            .event
            .and_then(|i| file.events().get(i))
            .is_some_and(|e| e.attr.sample_type & perfdata_core::abi::sample_type::CALLCHAIN == 0);
    // The entries a sample has added to (perf's `he_cache`: a function counts once per sample).
    let mut seen: Vec<usize> = Vec::new();
    // The samples each record delivers (an id read by a PERF_SAMPLE_READ sample, or none: the
    // sample's own event) with their periods, and each counter's last value read.
    let mut deliveries: Vec<(Option<u64>, u64)> = Vec::new();
    let mut read_last: HashMap<u64, u64> = HashMap::new();
    // perf report's --time drops the other samples before anything counts them; --pid, --tid
    // and --comms hide the other threads' samples after they are resolved and counted in the
    // total (perf's default `--percentage absolute`).
    let ranges = crate::stacks::time_ranges(file, &opts.fold)?;
    let filter = &opts.fold;
    // The cursor's order: perf walks a sample's callchain (its cumulative entries, the paths it
    // appends) from the root unless the call graph is callee-first.
    let order = opts.call_graph.unwrap_or(ChainOrder::Caller);
    let mut ranks = DsoRanks::new(file);
    // perf's parent pattern, compiled only when the key asks for it (as perf resolves parents).
    let parent_re = if has(SortKey::Parent) {
        Some(
            regex::Regex::new(&opts.parent)
                .map_err(|e| crate::Error::Options(format!("--parent `{}': {e}", opts.parent)))?,
        )
    } else {
        None
    };
    // perf looks a source line up when a comparison needs it, and sizes its column by those
    // looked up: every sample's search of the histogram counts, so none is skipped as a repeat.
    let lazy_srcline = has(SortKey::Srcline);
    // The tracepoints' formats, when their text is a key (a pipe carries them in a record).
    let mut diagnostics = Vec::new();
    let mut tps = has(SortKey::Trace).then(|| crate::script::TpState::new(file, &mut |w| diagnostics.push(w)));
    let outside = |k: &&SortKey| {
        if opts.branch {
            matches!(k, SortKey::Dso | SortKey::Sym | SortKey::Srcline | SortKey::Parent | SortKey::Trace)
        } else {
            k.is_branch()
        }
    };
    if let Some(k) = opts.sort.iter().find(outside) {
        let k = k.name();
        return Err(crate::Error::Options(if opts.branch {
            format!("sort key {k} is not one of branch mode's (comm, pid, cpu, dso_from, dso_to, symbol_from, symbol_to, cycles)")
        } else {
            format!("sort key {k} needs branch mode (-b, samples with branch stacks)")
        }));
    }
    for r in file.records(Order::Time)? {
        let Ok(r) = r else { continue };
        // A thread nothing named yet (its FORK was not recorded) has perf's `:TID`; its first
        // COMM renames the entries made under it.
        let unnamed = match &r.kind {
            RecordKind::Comm(c) if !folder.comm_set(c.tid) => Some(c.tid),
            _ => None,
        };
        folder.record(&r);
        if let Some((old, new)) = unnamed.and_then(|tid| names.rename(tid, folder.comm_ref(tid)?)) {
            for h in &mut hists {
                h.hist.rename_comm(&old, &new);
                // Searches that meet a renamed entry may now end elsewhere, as perf's do.
                h.cache.renamed(&old, &new);
                h.repeats.forget();
            }
        }
        if let Some(t) = tps.as_mut() {
            t.observe(&r, &mut |w| diagnostics.push(w));
        }
        if r.kind.mapping().is_some() {
            // Named as perf names the map's file (JIT code's `/tmp/perf-PID.map`).
            if let Some(MachineEvent::Map { map, .. } | MachineEvent::KernelMap { map, .. }) =
                MachineEvent::from_record(&r)
            {
                ranks.mapped(map.filename.as_bytes());
            }
        }
        if let RecordKind::LostSamples(l) = &r.kind {
            lost_samples = lost_samples.saturating_add(l.lost);
        }
        let RecordKind::Sample(s) = &r.kind else { continue };
        let Some(sampled) = r.event else { continue };
        if !in_ranges(&ranges, s.time().unwrap_or(0)) {
            continue;
        }
        // perf delivers a sample that reads counters (PERF_SAMPLE_READ) as one sample per counter
        // read, of that counter's event, its period the counter's change since its last read
        // (none when unchanged: `deliver_sample_value`); another sample as it is.
        deliveries.clear();
        match s.read().filter(|_| sampled.attr.sample_type & perfdata_core::abi::sample_type::READ != 0) {
            Some(read) => {
                for v in read.values() {
                    let Some(id) = v.id else { continue };
                    let last = read_last.insert(id, v.value).unwrap_or(0);
                    let period = v.value.wrapping_sub(last);
                    if period != 0 {
                        deliveries.push((Some(id), period));
                    }
                }
            }
            None => deliveries.push((None, s.period_or_attr())),
        }
        for &(id, period) in &deliveries {
            let event = match id {
                Some(id) => match r.events.by_id(id) {
                    Some(e) => e,
                    None => continue,
                },
                None => sampled,
            };
            let own_chain = event.attr.sample_type & perfdata_core::abi::sample_type::CALLCHAIN != 0;
            if !per_event && opts.event.is_some_and(|want| want != event.index) {
                if others_move_cursor && own_chain {
                    let pid = s.pid().unwrap_or(u32::MAX);
                    cursor(&mut folder, (&r, s, pid), lazy_srcline, order, &mut last, &mut last_lines);
                }
                continue;
            }
            let Some(EventHist { hist, repeats, cache, total, samples }) =
                hists.get_mut(if per_event { event.index } else { 0 })
            else {
                continue;
            };
            let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
            if opts.branch {
                // perf's branch iterator: each entry of the stack is an entry of its own, period 1.
                let Some(b) = s.branch_stack() else { continue };
                let hidden = filter.pid.is_some_and(|p| p != pid)
                    || filter.tid.is_some_and(|t| t != tid)
                    || filter.comm.as_ref().is_some_and(|c| *c != folder.comm(tid));
                for e in b.entries() {
                    *total = total.saturating_add(1);
                    *samples += 1;
                    if hidden {
                        continue;
                    }
                    let key = Key {
                        comm: has(SortKey::Comm).then(|| {
                            names
                                .comm(tid, &folder.comm_ref(tid).map_or_else(|| folder.comm(tid).into(), Cow::Borrowed))
                        }),
                        tid: has(SortKey::Pid).then_some(tid),
                        cpu: has(SortKey::Cpu).then(|| s.cpu().map_or(-1, |c| c as i32)),
                        dso: None,
                        sym: Sym::Addr(0),
                        srcline: None,
                        srcline_seen: std::cell::Cell::new(false),
                        parent: None,
                        trace: None,
                        from: Some(branch_end(&mut folder, &mut names, pid, e.from)),
                        to: Some(branch_end(&mut folder, &mut names, pid, e.to)),
                        cycles: Some(e.cycles()),
                    };
                    let i = hist.entry(key, false, tid);
                    if let Some(a) = hist.acc(i) {
                        a.samples += 1;
                        a.period = a.period.saturating_add(1);
                    }
                }
                continue;
            }
            let kernel = r.header.cpumode() == CpuMode::Kernel;
            let ip = s.ip().unwrap_or(0);
            let f = folder.locate_remembered(pid, kernel, ip);
            *total = total.saturating_add(period);
            *samples += 1;
            if filter.pid.is_some_and(|p| p != pid)
                || filter.tid.is_some_and(|t| t != tid)
                || filter.comm.as_ref().is_some_and(|c| *c != folder.comm(tid))
            {
                continue;
            }
            let walk = opts.children || opts.call_graph.is_some();
            if walk || parent_re.is_some() {
                let lines = lazy_srcline && opts.children;
                cursor(
                    &mut folder,
                    (&r, s, pid),
                    lines,
                    if walk { order } else { ChainOrder::Callee },
                    &mut chain,
                    &mut chain_lines,
                );
            }
            // The sample's own callchain becomes the cursor; a sample without one walks the cursor as
            // it is, with `--children` (`last`).
            let stale = opts.children && !own_chain;
            if own_chain && walk {
                std::mem::swap(&mut chain, &mut last);
                std::mem::swap(&mut chain_lines, &mut last_lines);
            }
            let fresh: &[ChainEntry] = if own_chain && walk { &last } else { &chain };
            let (walked, walked_lines): (&[ChainEntry], &[(String, bool)]) =
                if stale || own_chain && walk { (&last, &last_lines) } else { (&chain, &chain_lines) };
            let graph = opts.call_graph.is_some();
            // The parent: the first function of the recorded callchain, in the cursor's order, whose
            // name matches (perf looks neither at inline frames nor at frames unwound from a stack
            // dump).
            let parent: Option<Rc<str>> = parent_re.as_ref().and_then(|re| {
                fresh
                    .iter()
                    .filter(|c| !c.inlined && !c.unwound)
                    .filter_map(|c| c.symbol.as_ref())
                    .find(|n| re.is_match(n.split('\0').next().unwrap_or(n)))
                    .cloned()
            });
            if opts.exclude_other && parent.is_none() {
                continue;
            }
            // A sample like one seen before counts as that one did, with nothing looked up again.
            let leaf_addr = if f.symbol.is_some() { 0 } else { folder.map_ip(pid, kernel, ip) };
            let comm =
                has(SortKey::Comm).then(|| folder.comm_ref(tid).map_or_else(|| folder.comm(tid).into(), Cow::Borrowed));
            let keys = (has(SortKey::Pid), has(SortKey::Cpu));
            // Samples with the same fields but other tracepoint data are not repeats.
            let key = if lazy_srcline || tps.is_some() {
                None
            } else {
                repeats.key(s, &r, &f, leaf_addr, comm, keys, (walk || parent_re.is_some()).then_some(walked))
            };
            if let Some(plan) = key.and_then(|k| repeats.hit(k)) {
                plan.period = plan.period.saturating_add(period);
                plan.count += 1;
                continue;
            }
            let mut plan = Plan::default();
            cache.touched_mixed = false;
            let mixings = cache.mixings;
            'work: {
                let sym = match f.symbol.as_deref() {
                    Some(n) => named(n, f.start, f.end, false),
                    None => Sym::Addr(leaf_addr),
                };
                let base = Key {
                    comm: has(SortKey::Comm).then(|| {
                        names.comm(tid, &folder.comm_ref(tid).map_or_else(|| folder.comm(tid).into(), Cow::Borrowed))
                    }),
                    tid: has(SortKey::Pid).then_some(tid),
                    cpu: has(SortKey::Cpu).then(|| s.cpu().map_or(-1, |c| c as i32)),
                    dso: names.dso(&f.dso, kernel),
                    sym,
                    srcline: lazy_srcline.then(|| {
                        Rc::from(folder.report_srcline(pid, kernel, ip, f.symbol.as_deref(), f.start, &f.dso))
                    }),
                    srcline_seen: std::cell::Cell::new(false),
                    parent: parent.clone(),
                    trace: tps.as_ref().and_then(|t| {
                        let (fmt, raw) = t.format_of(&r)?;
                        Some(Rc::from(String::from_utf8_lossy(&t.get()?.render_bytes(fmt, raw)).as_ref()))
                    }),
                    from: None,
                    to: None,
                    cycles: None,
                };
                let id = cache.id(&base, base.dso.as_ref(), SymId::of(f.symbol.as_deref(), f.start, f.end, leaf_addr));
                let i = match cache.get(id.as_ref()) {
                    Some(i) => i,
                    None => {
                        let i = hist.entry(base.clone(), kernel, tid);
                        cache.remember(id, i);
                        i
                    }
                };
                plan.entry = Some(i);
                if let Some(e) = hist.acc(i) {
                    e.samples += 1;
                    e.period = e.period.saturating_add(period);
                    if opts.children {
                        e.children = e.children.saturating_add(period);
                    }
                }
                if !walk {
                    break 'work;
                }
                if graph {
                    plan.frames.extend(walked.iter().map(|c| {
                        frames.id(callchain::Frame {
                            dso: ranks.rank(&c.dso),
                            ip: c.addr,
                            name: c.symbol.clone(),
                            start: c.start.unwrap_or(0),
                            inlined: c.inlined,
                        })
                    }));
                    // perf adds a sample's path to its own entry only when the sample has a callchain
                    // (`hist_entry__append_callchain`), the cursor's to the cumulative entries.
                    plan.stale = stale;
                    if let (Some(e), false) = (hist.acc(i), stale) {
                        e.tree.get_or_insert_default().append(&frames, &plan.frames, period, 1);
                    }
                }
                if !opts.children {
                    break 'work;
                }
                seen.clear();
                seen.push(i);
                // perf walks the chain in the cursor's order; an entry it finds no map for keeps the
                // level of the one walked before (`fill_callchain_info` leaves the reused
                // addr_location's level as it was), the sample's for the first.
                let mut level = kernel;
                if walked.iter().any(|c| c.inlined) {
                    cache.off();
                }
                for (at, c) in walked.iter().enumerate() {
                    let dso = names.dso(&c.dso, c.kernel);
                    if c.symbol.is_some() || dso.is_some() {
                        level = c.kernel;
                    }
                    let line = walked_lines.get(at);
                    let id = cache.id(&base, dso.as_ref(), SymId::of(c.symbol.as_deref(), c.start, c.end, c.addr));
                    // A frame met before: its entry without a search (equal keys are one entry).
                    let j = match cache.get(id.as_ref()) {
                        Some(j) if seen.contains(&j) => continue,
                        Some(j) => j,
                        None => {
                            let sym =
                                c.symbol.as_deref().map_or(Sym::Addr(c.addr), |n| named(n, c.start, c.end, c.inlined));
                            let key = base.with(dso, sym, line.map(|(l, _)| Rc::from(l.as_str())));
                            key.srcline_seen.set(line.is_some_and(|(_, known)| *known));
                            if seen.iter().any(|&j| hist.key(j).is_some_and(|k| entry_cmp(&opts.sort, k, &key).is_eq()))
                            {
                                continue;
                            }
                            let j = hist.entry(key, level, tid);
                            cache.remember(id, j);
                            j
                        }
                    };
                    if let Some(e) = hist.acc(j) {
                        e.children = e.children.saturating_add(period);
                        if graph {
                            e.tree.get_or_insert_default().append(
                                &frames,
                                plan.frames.get(at..).unwrap_or_default(),
                                period,
                                1,
                            );
                        }
                    }
                    seen.push(j);
                    plan.cumulative.push((j, at));
                }
            }
            if cache.mixings != mixings {
                // perf's searches for the plans' unresolved addresses may now end elsewhere.
                repeats.forget();
            }
            if key.is_some() && !cache.touched_mixed {
                repeats.insert(plan, &f, walked);
            }
        }
    }
    diagnostics.extend(folder.diagnostics());
    // perf shows no call graphs for an event without callchains.
    let chains = |i: usize| {
        file.events().get(i).is_none_or(|e| e.attr.sample_type & perfdata_core::abi::sample_type::CALLCHAIN != 0)
    };
    // Each histogram collapsed, with its event count and samples.
    let mut collapsed: Vec<(Entries, u64, u64)> = hists
        .into_iter()
        .map(|mut h| {
            add_repeats(&mut h.hist, &h.repeats, opts, &frames);
            (h.hist.collapse(&frames), h.total, h.samples)
        })
        .collect();
    let mut member_totals: Vec<Vec<u64>> = vec![Vec::new(); collapsed.len()];
    if per_event && group_view {
        for (leader, n) in groups(file) {
            let Some(end) = leader.checked_add(n).filter(|&e| n > 1 && e <= collapsed.len()) else { continue };
            let (head, tail) = collapsed.split_at_mut(leader + 1);
            let (Some(lead), Some(members)) = (head.last_mut(), tail.get(..end - leader - 1)) else { continue };
            link_group(&opts.sort, &mut lead.0, &members.iter().map(|m| &m.0).collect::<Vec<_>>());
            if let Some(t) = member_totals.get_mut(leader) {
                *t = members.iter().map(|m| m.1).collect();
            }
        }
    }
    Ok(collapsed
        .into_iter()
        .zip(member_totals)
        .enumerate()
        .map(|(i, ((tree, total, samples), member_totals))| Report {
            rows: rows(
                output_order(&opts.sort, tree, opts.children, opts.call_graph),
                (total, &member_totals),
                opts,
                &folder,
                &frames,
                if per_event { chains(i) } else { opts.event.is_none_or(chains) },
            ),
            total,
            samples,
            lost_samples,
            diagnostics: diagnostics.clone(),
        })
        .collect())
}

/// perf's callchain cursor for sample `s` of record `r` (of process `pid`) into `chain`: its
/// entries in `order`, and with `lines` their source lines into `lines_out`.
fn cursor(
    folder: &mut StackFolder<'_>,
    (r, s, pid): (&Record<'_>, &Sample<'_>, u32),
    lines: bool,
    order: ChainOrder,
    chain: &mut Vec<ChainEntry>,
    lines_out: &mut Vec<(String, bool)>,
) {
    // perf resolves the addresses in the cursor's order (which decides when symbols load).
    folder.chain_ordered(r, s, order == ChainOrder::Caller, chain);
    if lines {
        folder.chain_srclines(pid, chain, lines_out);
    }
    if order == ChainOrder::Caller {
        chain.reverse();
        lines_out.reverse();
    }
}

/// Add `repeats`' samples to `hist`.
fn add_repeats(hist: &mut Hist<'_>, repeats: &Repeats, opts: &ReportOptions, frames: &callchain::Frames) {
    // The repeats, added as perf adds each sample (sums, so the order does not matter: a path
    // seen before only adds to the nodes its first sample made or split).
    for plan in repeats.plans() {
        let (Some(i), true) = (plan.entry, plan.count > 0) else { continue };
        let (period, count) = (plan.period, plan.count);
        if let Some(e) = hist.acc(i) {
            e.samples += count;
            e.period = e.period.saturating_add(period);
            if opts.children {
                e.children = e.children.saturating_add(period);
            }
            if let (Some(t), false) = (e.tree.as_mut(), plan.stale) {
                t.append(frames, &plan.frames, period, count);
            }
        }
        for &(j, at) in &plan.cumulative {
            if let Some(e) = hist.acc(j) {
                e.children = e.children.saturating_add(period);
                if let Some(t) = e.tree.as_mut() {
                    t.append(frames, plan.frames.get(at..).unwrap_or_default(), period, count);
                }
            }
        }
    }
}

/// One histogram's rows: its `entries` in perf's order ([`output_order`]) with their
/// percentages of `total` (a group leader's members' of `member_totals`), with their call graphs
/// if `graphs`.
fn rows(
    entries: Vec<(Key, Acc)>,
    (total, member_totals): (u64, &[u64]),
    opts: &ReportOptions,
    folder: &StackFolder<'_>,
    frames: &callchain::Frames,
    graphs: bool,
) -> Vec<ReportRow> {
    let has = |k: SortKey| opts.sort.contains(&k);
    let pct_of = |p: u64, total: u64| if total > 0 { 100.0 * p as f64 / total as f64 } else { 0.0 };
    let pct = |p: u64| pct_of(p, total);
    entries
        .into_iter()
        .map(|(k, a)| ReportRow {
            group: a
                .group
                .iter()
                .zip(member_totals)
                .map(|(m, &t)| GroupShare {
                    overhead: pct_of(m.period, t),
                    children: opts.children.then(|| pct_of(m.children, t)),
                    samples: m.samples,
                    period: m.period,
                    children_period: opts.children.then_some(m.children),
                })
                .collect(),
            overhead: pct(a.period),
            children: opts.children.then(|| pct(a.children)),
            samples: a.samples,
            period: a.period,
            children_period: opts.children.then_some(a.children),
            comm: match (&k.comm, k.tid) {
                (Some(c), _) => Some(c.to_string()),
                (None, Some(tid)) => Some(folder.comm(tid)),
                (None, None) => None,
            },
            pid: k.tid,
            cpu: k.cpu,
            dso: has(SortKey::Dso).then(|| k.dso.as_deref().unwrap_or("[unknown]").to_string()),
            kernel: has(SortKey::Sym).then_some(a.kernel),
            address: match k.sym {
                Sym::Addr(a) if has(SortKey::Sym) => Some(a),
                _ => None,
            },
            symbol: has(SortKey::Sym).then(|| match k.sym {
                Sym::Named { name, inlined: false, .. } => name.to_string(),
                Sym::Named { name, inlined: true, .. } => format!("{name} (inlined)"),
                // perf's "%-#.*llx": no 0x for zero.
                Sym::Addr(0) => format!("{:016x}", 0),
                Sym::Addr(a) => format!("{a:#018x}"),
            }),
            srcline_width: if a.srcline_counted { k.srcline.as_deref().map_or(0, str::len) } else { 0 },
            srcline: k.srcline.as_deref().map(str::to_string),
            parent: k.parent.as_deref().map(|p| p.split('\0').next().unwrap_or(p).to_string()),
            trace: k.trace.as_deref().map(str::to_string),
            comm_width: folder.comm(a.tid).len(),
            call_graph: a.tree.filter(|_| graphs).map(|t| t.nodes(frames)).unwrap_or_default(),
            from: k.from.filter(|_| has(SortKey::DsoFrom) || has(SortKey::SymFrom)).map(end_row),
            to: k.to.filter(|_| has(SortKey::DsoTo) || has(SortKey::SymTo)).map(end_row),
            cycles: k.cycles.filter(|_| has(SortKey::Cycles)),
        })
        .collect()
}

/// A branch end resolved as perf resolves it ([`StackFolder::locate_any`]).
fn branch_end(folder: &mut StackFolder<'_>, names: &mut Names, pid: u32, ip: u64) -> End {
    let (f, level, address) = folder.locate_any(pid, ip);
    let sym = match f.symbol.as_deref() {
        Some(n) => named(n, f.start, f.end, false),
        None => Sym::Addr(ip),
    };
    let dso = names.dso(&f.dso, level == 'k');
    End { dso, sym, level, address }
}

/// The row's view of a branch end.
fn end_row(e: End) -> BranchEnd {
    BranchEnd {
        dso: e.dso.as_deref().unwrap_or("[unknown]").to_string(),
        level: e.level,
        symbol: match e.sym {
            Sym::Named { name, .. } => Some(name.to_string()),
            Sym::Addr(_) => None,
        },
        address: e.address,
    }
}

/// What a sample did to the histogram (its entry, the entries of its callchain with where their
/// path starts, the path), kept to count the samples that repeat it ([`Repeats`]).
#[derive(Default)]
struct Plan {
    /// The sample's own entry; `None`: a filter hid it.
    entry: Option<usize>,
    /// With `--children`: the callchain's entries and where their part of the path starts.
    cumulative: Vec<(usize, usize)>,
    /// With call graphs: the path, in the graph's order.
    frames: Vec<callchain::FrameId>,
    /// The path is perf's cursor as an earlier sample left it (the sample has no callchain): the
    /// sample's own entry's call graph gets nothing.
    stale: bool,
    /// The repeats' event count and number.
    period: u64,
    count: u64,
}

/// Samples that repeat one seen before: the same entries, resolved the same (see
/// [`Repeats::key`]). perf adds each sample to its histogram; a repeat here only
/// adds its period to its first sample's [`Plan`], and the sums go into the histogram at the end.
#[derive(Default)]
struct Repeats {
    plans: Vec<Plan>,
    index: HashMap<Box<[u64]>, usize, ahash::RandomState>,
    key: Vec<u64>,
    /// Each comm's number (comms are keyed by name: a thread's comm changes).
    comms: HashMap<String, u64, ahash::RandomState>,
    hits: u64,
    misses: u64,
    /// The names whose addresses keys hold, kept alive so no other name takes an address.
    names: Vec<Rc<str>>,
    held: std::collections::HashSet<usize>,
}

impl Repeats {
    /// The key of sample `s` (in `self.key`): what decides the histogram entries it adds to —
    /// the sort keys' values (the comm's name, the thread and CPU when keys), the event, the
    /// ip's shared object and symbol (the address in its map when unresolved) — and, when the
    /// callchain is walked, each entry's shared object, symbol and level (the address when
    /// unresolved). Names are compared by address (held by [`Repeats::insert`]). `None` (not
    /// keyed) when an entry is an inlined function: perf's histogram search for those depends on
    /// its tree's shape at the sample, so each such sample is added as perf adds it.
    #[allow(clippy::too_many_arguments)]
    fn key(
        &mut self,
        s: &Sample<'_>,
        r: &Record<'_>,
        f: &perfdata_symbolize::Frame,
        leaf_addr: u64,
        comm: Option<Cow<'_, str>>,
        keys: (bool, bool),
        chain: Option<&[ChainEntry]>,
    ) -> Option<()> {
        // Past the bound of [`Repeats::insert`], keying stops when few samples repeat.
        if self.plans.len() >= 4096 && self.hits.saturating_mul(4) < self.misses {
            return None;
        }
        if chain.is_some_and(|c| c.iter().any(|e| e.inlined)) {
            return None;
        }
        let (tid_key, cpu_key) = keys;
        let comm = match comm {
            Some(c) => match self.comms.get(c.as_ref()) {
                Some(n) => 1 + n,
                None => {
                    let n = self.comms.len() as u64;
                    self.comms.insert(c.into_owned(), n);
                    1 + n
                }
            },
            None => 0,
        };
        let k = &mut self.key;
        k.clear();
        k.push(comm);
        k.push(if tid_key { s.tid().map_or(u64::MAX, u64::from) } else { 0 });
        k.push(if cpu_key { s.cpu().map_or(u64::MAX, u64::from) } else { 0 });
        let event = r.event.map_or(u64::MAX, |e| e.index as u64);
        k.push(event << 8 | u64::from(r.header.cpumode() == CpuMode::Kernel));
        let ptr = |r: &Rc<str>| Rc::as_ptr(r).cast::<u8>() as u64;
        k.push(ptr(&f.dso));
        match &f.symbol {
            Some(sym) => k.extend([ptr(sym), f.start.unwrap_or(0), f.end.unwrap_or(0)]),
            None => k.extend([0, leaf_addr, 0]),
        }
        for e in chain.unwrap_or_default() {
            k.push(ptr(&e.dso) | u64::from(e.kernel));
            match &e.symbol {
                Some(sym) => k.extend([ptr(sym), e.start.unwrap_or(0), e.end.unwrap_or(0)]),
                None => k.extend([0, e.addr, 0]),
            }
        }
        Some(())
    }

    /// The plan of the sample whose key [`Repeats::key`] made, if one was seen before.
    fn hit(&mut self, _: ()) -> Option<&mut Plan> {
        let Some(&i) = self.index.get(self.key.as_slice()) else {
            self.misses += 1;
            return None;
        };
        self.hits += 1;
        self.plans.get_mut(i)
    }

    /// Keep the plan of the sample [`Repeats::key`] keyed last (`f`, `chain`: its ip's frame and
    /// its callchain, whose names are held so that the addresses in the key stay theirs).
    fn insert(&mut self, plan: Plan, f: &perfdata_symbolize::Frame, chain: &[ChainEntry]) {
        // Memory stays bounded where samples rarely repeat (e.g. most ips unresolved, each its
        // own entry): past a few thousand plans, new ones are kept only while repeats outnumber
        // the plans.
        if self.plans.len() >= 4096 && self.hits < self.plans.len() as u64 {
            return;
        }
        let names = [Some(&f.dso), f.symbol.as_ref()]
            .into_iter()
            .chain(chain.iter().flat_map(|e| [Some(&e.dso), e.symbol.as_ref()]));
        for n in names.flatten() {
            if self.held.insert(Rc::as_ptr(n).cast::<u8>() as usize) {
                self.names.push(n.clone());
            }
        }
        self.index.insert(self.key.as_slice().into(), self.plans.len());
        self.plans.push(plan);
    }

    /// No later sample repeats the plans kept so far (they keep what they counted).
    fn forget(&mut self) {
        self.index.clear();
    }

    fn plans(&self) -> &[Plan] {
        &self.plans
    }
}

/// perf's shared objects in the order it creates them (`struct dso`s, whose addresses order a
/// callchain node's children): those of the BUILD_ID feature in its order (perf creates them as it
/// reads the header), the kernel, then each other mapped file as the recording maps it (a name no
/// mapping gave, e.g. a module's `[name]`, when first met); 0 is no map.
#[derive(Default)]
struct DsoRanks {
    by_name: HashMap<Box<[u8]>, u32>,
    /// The symbolizer's names (one `Rc` per shared object), by address.
    by_rc: HashMap<usize, (Rc<str>, u32), ahash::RandomState>,
}

/// perf's name of the kernel's shared object.
const KERNEL: &[u8] = b"[kernel.kallsyms]";

impl DsoRanks {
    fn new(file: &PerfFile) -> DsoRanks {
        let mut r = DsoRanks::default();
        if let Some(Ok(ids)) = file.features().build_ids() {
            for e in &ids.entries {
                r.mapped(e.filename.as_bytes());
            }
        }
        r.mapped(KERNEL);
        r
    }

    /// A file perf makes a shared object of (a build id's, an MMAP record's).
    fn mapped(&mut self, name: &[u8]) {
        let name = if name.starts_with(KERNEL) { KERNEL } else { name };
        if !self.by_name.contains_key(name) {
            let n = 1 + self.by_name.len() as u32;
            self.by_name.insert(name.into(), n);
        }
    }

    /// The rank of the symbolizer's shared object `dso`.
    fn rank(&mut self, dso: &Rc<str>) -> u32 {
        let key = Rc::as_ptr(dso).cast::<u8>() as usize;
        if let Some((_, r)) = self.by_rc.get(&key) {
            return *r;
        }
        let r = if &**dso == "[unknown]" {
            0
        } else {
            self.mapped(dso.as_bytes());
            let name = if dso.as_bytes().starts_with(KERNEL) { KERNEL } else { dso.as_bytes() };
            self.by_name.get(name).copied().unwrap_or(0)
        };
        self.by_rc.insert(key, (dso.clone(), r));
        r
    }
}

/// How [`report_table`] lays out one event's table.
#[derive(Clone, Debug)]
pub struct TableOptions<'a> {
    /// The columns shown (the sort keys, less those perf elides, e.g. the command when one
    /// `--comms` names it).
    pub sort: &'a [SortKey],
    /// The `Samples` column (`-n`).
    pub samples: bool,
    /// Rows under this share (%) are not printed (the Children column with `--children`); they
    /// still size the columns, as in perf.
    pub percent_limit: f64,
    /// Each row's call graph after it, laid out so ([`ReportRow::call_graph`]).
    pub call_graph: Option<CallGraph>,
    /// A graph's single path leaves out its first frame, the row's own symbol (perf does so
    /// when the `--sort` given starts with `sym`).
    pub skip_first_frame: bool,
}

/// The rows as `perf report --stdio` lays them out for `sort` (columns as wide as their widest
/// value); `samples`: the `Samples` column (`-n`). The same as [`report_table`] without call
/// graphs or limit.
pub fn report_text(rows: &[ReportRow], sort: &[SortKey], samples: bool) -> String {
    let total = rows.iter().map(|r| r.period).sum();
    let t = TableOptions { sort, samples, percent_limit: 0.0, call_graph: None, skip_first_frame: false };
    report_table(rows, total, &t)
}

/// One event's table as `perf report --stdio` prints it: the column headers, each row and, with
/// [`TableOptions::call_graph`], its call graph. `total`: the event count the graphs' percentages
/// are of ([`Report::total`]).
pub fn report_table(rows: &[ReportRow], total: u64, t: &TableOptions<'_>) -> String {
    let sort = t.sort;
    let children = rows.first().is_some_and(|r| r.children.is_some());
    // perf's Command column: as wide as the rows' threads' comms are now ([`ReportRow::comm_width`]),
    // each comm cut to that width.
    let comm_width = rows.iter().map(|r| r.comm_width).max().unwrap_or(0).max(SortKey::Comm.header().len());
    // perf's Source:Line column: as wide as the source lines it had looked up when it laid the
    // rows out ([`ReportRow::srcline_width`]), each cut to that width.
    let srcline_width = rows.iter().map(|r| r.srcline_width).max().unwrap_or(0).max(SortKey::Srcline.header().len());
    // perf's branch shared object columns are as wide as their header (at least 16), each name
    // cut to that width.
    let branch_dso_width = SortKey::DsoFrom.header().len().max(16);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            sort.iter()
                .map(|k| match (k, cell(r, *k)) {
                    (SortKey::Comm, c) => crate::sched::timehist::truncate(c, comm_width),
                    (SortKey::Srcline, c) => crate::sched::timehist::truncate(c, srcline_width),
                    (SortKey::DsoFrom | SortKey::DsoTo, c) => crate::sched::timehist::truncate(c, branch_dso_width),
                    (_, c) => c,
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = sort
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            SortKey::Comm => comm_width,
            // perf's Pid:Command column: 8 wider than its Command column would be
            // (`hists__calc_col_len`: each entry's `thread__comm_len`, the length of the thread's
            // comm perf caches when it first lays a table out, i.e. its last), at least its header.
            SortKey::Pid => {
                rows.iter().map(|r| r.comm_width.saturating_add(8)).max().unwrap_or(0).max(k.header().len())
            }
            SortKey::Srcline => srcline_width,
            // perf's CPU column is as wide as its header (`-001` overflows it).
            SortKey::Cpu => k.header().len(),
            SortKey::DsoFrom | SortKey::DsoTo => branch_dso_width,
            // An unresolved symbol widens the shared object's column to 16 (perf's
            // `hists__set_unres_dso_col_len`).
            SortKey::Dso if sort.contains(&SortKey::Sym) && rows.iter().any(|r| r.address.is_some()) => {
                cells.iter().filter_map(|c| c.get(i)).map(|c| c.len()).max().unwrap_or(0).max(k.header().len()).max(16)
            }
            // perf sizes a branch symbol by its name, an unresolved one as 16 hex digits.
            SortKey::SymFrom | SortKey::SymTo => rows
                .iter()
                .map(|r| {
                    let e = if *k == SortKey::SymFrom { r.from.as_ref() } else { r.to.as_ref() };
                    e.map_or(0, |e| e.symbol.as_ref().map_or(22, |n| n.len() + 4))
                })
                .max()
                .unwrap_or(0)
                .max(k.header().len()),
            // perf sizes the symbol by its name (`sym->namelen`), not the ` (inlined)` it prints
            // after an inlined function's.
            SortKey::Sym => cells
                .iter()
                .filter_map(|c| c.get(i))
                .map(|c| c.strip_suffix(" (inlined)").unwrap_or(c).len())
                .max()
                .unwrap_or(0)
                .max(k.header().len()),
            _ => cells.iter().filter_map(|c| c.get(i)).map(|c| c.len()).max().unwrap_or(0).max(k.header().len()),
        })
        .collect();
    let mut o = String::new();
    // perf's group view: a value of each member of the group in each of these columns.
    let members = 1 + rows.first().map_or(0, |r| r.group.len());
    let (w, ws) = (8 * members, 12 * members);
    let (mut head, mut dots) = if children {
        (format!("# {:>w$}  {:>w$}", "Children", "Self"), format!("# {0}  {0}", ".".repeat(w)))
    } else {
        (format!("# {:>w$}", "Overhead"), format!("# {}", ".".repeat(w)))
    };
    if t.samples {
        let _ = write!(head, "  {:>ws$}", "Samples");
        let _ = write!(dots, "  {}", ".".repeat(ws));
    }
    for (k, w) in sort.iter().zip(&widths) {
        let _ = write!(head, "  {:<w$}", k.header());
        let _ = write!(dots, "  {}", ".".repeat(*w));
    }
    let _ = writeln!(o, "{head}\n{dots}\n#");
    for (r, c) in rows.iter().zip(&cells) {
        if r.children.unwrap_or(r.overhead) < t.percent_limit {
            continue;
        }
        if let Some(ch) = r.children {
            let _ = write!(o, "{ch:>9.2}%");
            for m in &r.group {
                let _ = write!(o, "{:>7.2}%", m.children.unwrap_or(0.0));
            }
            let _ = write!(o, "  {:>7.2}%", r.overhead);
        } else {
            let _ = write!(o, "{:>9.2}%", r.overhead);
        }
        for m in &r.group {
            let _ = write!(o, "{:>7.2}%", m.overhead);
        }
        if t.samples {
            let _ = write!(o, "  {:>12}", r.samples);
            for m in &r.group {
                let _ = write!(o, "{:>12}", m.samples);
            }
        }
        // Every column is padded to its width but a last symbol, source line or tracepoint text
        // (perf prints those with a precision only, and pads the columns before the last:
        // `hist_entry__snprintf_alignment`).
        for (i, ((v, w), k)) in c.iter().zip(&widths).zip(sort).enumerate() {
            match k {
                SortKey::Sym | SortKey::Srcline | SortKey::SymFrom | SortKey::SymTo | SortKey::Trace
                    if i + 1 == sort.len() =>
                {
                    let _ = write!(o, "  {v}");
                }
                _ => {
                    let _ = write!(o, "  {v:<w$}");
                }
            }
        }
        o.push('\n');
        if let Some(cg) = &t.call_graph {
            let entry = r.children_period.unwrap_or(r.period);
            write_call_graph(&mut o, &r.call_graph, cg, total, total, entry, t.skip_first_frame);
        }
    }
    o
}

/// The text of one column of a row.
fn cell(r: &ReportRow, k: SortKey) -> String {
    match k {
        SortKey::Comm => r.comm.clone().unwrap_or_default(),
        SortKey::Pid => format!("{:>7}:{}", r.pid.unwrap_or(0), r.comm.as_deref().unwrap_or("")),
        // perf's "%*.*d": -1 is -001.
        SortKey::Cpu => match r.cpu.unwrap_or(-1) {
            c if c < 0 => format!("-{:03}", c.unsigned_abs()),
            c => format!("{c:03}"),
        },
        SortKey::Dso => r.dso.clone().unwrap_or_default(),
        SortKey::Sym => {
            let mark = if r.kernel == Some(true) { "[k]" } else { "[.]" };
            format!("{mark} {}", r.symbol.as_deref().unwrap_or(""))
        }
        SortKey::Srcline => r.srcline.clone().unwrap_or_default(),
        SortKey::Parent => r.parent.clone().unwrap_or_else(|| "[other]".to_string()),
        // perf's text for the samples of other events.
        SortKey::Trace => r.trace.clone().unwrap_or_else(|| "N/A".to_string()),
        SortKey::DsoFrom => r.from.as_ref().map_or_else(String::new, |e| e.dso.clone()),
        SortKey::DsoTo => r.to.as_ref().map_or_else(String::new, |e| e.dso.clone()),
        SortKey::SymFrom => r.from.as_ref().map_or_else(String::new, BranchEnd::symbol_text),
        SortKey::SymTo => r.to.as_ref().map_or_else(String::new, BranchEnd::symbol_text),
        // perf's "%hd": the 16 bits signed.
        SortKey::Cycles => match r.cycles.unwrap_or(0) {
            0 => "-".to_string(),
            c => (c as i16).to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_ends_print_as_perf_prints_them() {
        let end = |level, symbol: Option<&str>, address| BranchEnd {
            dso: "[unknown]".into(),
            level,
            symbol: symbol.map(str::to_string),
            address,
        };
        assert_eq!(end('H', None, 0).symbol_text(), "[H] 0000000000000000");
        assert_eq!(end('k', None, 0xffffffff81000000).symbol_text(), "[k] 0xffffffff81000000");
        assert_eq!(end('.', None, 0x1a5c2).symbol_text(), "[.] 0x000000000001a5c2");
        assert_eq!(end('.', Some("main"), 0).symbol_text(), "[.] main");
    }

    #[test]
    fn shared_objects_are_named_as_perf_names_them() {
        let short = |d: &str, kernel: bool| short_dso(d, kernel).map(|s| s.to_string());
        assert_eq!(short("/lib/modules/6.1.0/kernel/ath9k.ko", true).as_deref(), Some("[ath9k]"));
        assert_eq!(short("/lib/modules/6.1.0/snd-hda.ko.xz", true).as_deref(), Some("[snd_hda]"));
        assert_eq!(short("/tmp/perf-1748.map", false).as_deref(), Some("[JIT] tid 1748"));
        assert_eq!(short("/usr/lib/x86_64-linux-gnu/libc.so.6", false).as_deref(), Some("libc.so.6"));
        assert_eq!(short("[kernel.kallsyms]", true).as_deref(), Some("[kernel.kallsyms]"));
        assert_eq!(short("/lib/modules/6.1.0/kmod-zst.ko.zst", true).as_deref(), Some("kmod_zst.ko.zst"));
        assert_eq!(short("[unknown]", false), None);
    }

    #[test]
    fn report_keys_of_branch_mode_parse() {
        assert_eq!(SortKey::parse_list("comm,dso_from,symbol_from,symbol_to,cycles").unwrap(), BRANCH_SORT.to_vec());
        assert!(SortKey::parse("sym_from").is_none());
        for k in BRANCH_SORT.iter().chain(&[SortKey::Sym, SortKey::Trace, SortKey::Parent]) {
            assert_eq!(SortKey::parse(k.name()), Some(*k));
        }
        assert!(SortKey::DsoTo.is_branch() && !SortKey::Dso.is_branch());
    }
}
