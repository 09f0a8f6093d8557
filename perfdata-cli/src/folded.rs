//! `perfdata folded` (Brendan Gregg's folded stacks) and `perfdata flamegraph` (SVG, differential).

use clap::{Args, ValueEnum};
use perfdata_analysis::flamegraph::{self, FlameGraphOptions};
use perfdata_analysis::folded::{folded, Compat, FoldedOptions, FoldedStacks, Root, Weight};
use perfdata_analysis::options::{FoldRequest, TimeRanges};
use perfdata_analysis::query::dataset_stacks;
use perfdata_analysis::query::predicate::{Predicate, STACKS_COLUMNS};
use perfdata_analysis::symbolize::SymbolizeOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum CompatArg {
    /// `perf script | stackcollapse-perf.pl`: period weights, `[module]` frames, tidy names,
    /// first event only.
    StackcollapsePl,
    /// `perf script report stackcollapse`: sample counts, `[unknown]`, every event.
    PerfScriptPy,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum WeightArg {
    /// 1 per sample.
    Samples,
    /// The sample period (ns for cpu-clock, events for hardware counters).
    Period,
}

/// How stacks are folded: the options of stackcollapse-perf.pl and stackcollapse.py.
#[derive(Args)]
pub struct FoldArgs {
    /// Reproduce this tool's output (the default options below follow it).
    #[arg(long, value_enum, default_value = "stackcollapse-pl")]
    compat: CompatArg,
    /// Weight per sample (default: period for stackcollapse-pl, samples for perf-script-py).
    #[arg(long, value_enum)]
    weight: Option<WeightArg>,
    /// Root frame `comm-PID` (stackcollapse-perf.pl --pid, stackcollapse.py --include-pid).
    #[arg(long, alias = "include-pid")]
    pid: bool,
    /// Root frame `comm-PID/TID` (stackcollapse-perf.pl --tid, stackcollapse.py --include-tid).
    #[arg(long, alias = "include-tid")]
    tid: bool,
    /// No process frame at the root.
    #[arg(long)]
    no_comm: bool,
    /// Append `_[k]` to kernel frames.
    #[arg(long)]
    kernel: bool,
    /// Append `_[j]` to JIT frames (`/tmp/perf-PID.map`, `jitted-*.so`).
    #[arg(long)]
    jit: bool,
    /// --kernel and --jit.
    #[arg(long)]
    all: bool,
    /// Unresolved frames as `[module <ADDR>]`.
    #[arg(long)]
    addrs: bool,
    /// Inline frames from the binaries' DWARF debug info on stacks unwound from `--call-graph
    /// dwarf` stack dumps: on by default, as perf script adds them (perf's `--inline`).
    #[arg(long, overrides_with = "no_inline")]
    inline: bool,
    /// No inline frames (perf script `--no-inline`'s output).
    #[arg(long, overrides_with = "inline")]
    no_inline: bool,
    /// Append `_[i]` to inline frames (implies --inline).
    #[arg(long)]
    annotate_inline: bool,
    /// Source lines from the binaries' DWARF debug info, `func:file:line`
    /// (`perf script -F +srcline | stackcollapse-perf.pl --srcline`).
    #[arg(long)]
    srcline: bool,
    /// Unwind `--call-graph dwarf` stacks with each binary's own CFI (`.eh_frame` without
    /// `.eh_frame_hdr`, `.debug_frame`) as perfparser does, not with perf 6.1's lookup rules: static
    /// binaries without `.eh_frame_hdr` unwind past the leaf frame, where perf stops.
    #[arg(long)]
    plain_unwind: bool,
    /// Callchain entries kept per sample (perf script's default 127; as many unwound frames).
    #[arg(long, value_name = "N")]
    max_stack: Option<usize>,
    /// Only this event's samples (perf's name, e.g. `cycles:u`).
    #[arg(long, alias = "event", conflicts_with = "all_events")]
    event_filter: Option<String>,
    /// Samples of every event (default for perf-script-py).
    #[arg(long)]
    all_events: bool,
    /// Keep names as perf prints them (no argument-list cutting).
    #[arg(long)]
    no_tidy: bool,
    /// Tidy Java names.
    #[arg(long)]
    tidy_java: bool,
    /// Only samples of this process id.
    #[arg(long, value_name = "PID")]
    filter_pid: Option<u32>,
    /// Only samples of this thread id.
    #[arg(long, value_name = "TID")]
    filter_tid: Option<u32>,
    /// Only samples of threads with this comm.
    #[arg(long, value_name = "COMM")]
    filter_comm: Option<String>,
    /// Only samples in these time ranges, perf script's `--time`: `START,END` in seconds (either
    /// may be empty), e.g. `5123.25,5124`; several separated by spaces (`"5123,5124 5130,"`); or
    /// slices of the recording: `10%/2` (the second tenth), `0%-10%,30%-40%`, `25%` (the first
    /// quarter).
    #[arg(long, value_name = "START,END")]
    time: Option<TimeRanges>,
    #[command(flatten)]
    symbols: crate::symbols::SymbolArgs,
    /// Ignore jitdump files. By default, when the recording holds the MMAP of a JIT agent's
    /// `jit-PID.dump` (V8's --perf-prof, perf's JVMTI agent; record with -k mono), the dump is read
    /// at that path (under --symfs) and its functions name the JIT code, as after
    /// `perf inject --jit` (frames in `DIR/jitted-PID-N.so`); with this option JIT code is
    /// named as `perf script` names it without the inject step (/tmp/perf-PID.map only).
    #[arg(long)]
    no_jitdump: bool,
}

impl FoldArgs {
    /// The request these flags state (the same type `PerfData.folded(...)`'s keywords parse into),
    /// with `symbolize` for where symbols come from.
    fn request(&self, symbolize: SymbolizeOptions) -> FoldRequest {
        FoldRequest {
            compat: Some(match self.compat {
                CompatArg::StackcollapsePl => Compat::StackcollapsePl,
                CompatArg::PerfScriptPy => Compat::PerfScriptPy,
            }),
            weight: self.weight.map(|w| match w {
                WeightArg::Samples => Weight::Samples,
                WeightArg::Period => Weight::Period,
            }),
            root: Some(if self.no_comm {
                Root::None
            } else if self.tid {
                Root::CommPidTid
            } else if self.pid {
                Root::CommPid
            } else {
                Root::Comm
            }),
            kernel: self.kernel || self.all,
            jit: self.jit || self.all,
            inline: if self.no_inline { Some(false) } else { self.inline.then_some(true) },
            annotate_inline: self.annotate_inline,
            srcline: self.srcline,
            plain_unwind: self.plain_unwind,
            max_stack: self.max_stack,
            addrs: self.addrs,
            event: self.event_filter.clone(),
            all_events: self.all_events,
            tidy: self.no_tidy.then_some(false),
            tidy_java: self.tidy_java.then_some(true),
            pid: self.filter_pid,
            tid: self.filter_tid,
            comm: self.filter_comm.clone(),
            time: self.time.clone(),
            symbolize,
        }
    }

    /// The analysis crate's folding options these flags say.
    pub fn options(&self) -> Result<FoldedOptions, String> {
        self.request(self.symbols.options(self.no_jitdump)?).options()
    }

    /// Fold the stacks of the file at `path` (warnings on stderr).
    pub fn fold(&self, path: &str) -> Result<FoldedStacks, Box<dyn std::error::Error>> {
        let file = crate::open(path)?;
        let stacks = folded(&file, &self.options()?)?;
        for d in file.diagnostics().iter().chain(&stacks.diagnostics).chain(&stacks.unnamed) {
            crate::damage::warn_in(crate::shown(path), d);
        }
        Ok(stacks)
    }

    /// "samples" or "period".
    pub fn count_name(&self) -> &'static str {
        // Where symbols come from does not change it: no archive is unpacked for it.
        self.request(SymbolizeOptions::default()).count_name()
    }
}

pub(crate) fn output(path: Option<&PathBuf>, text: &str) -> std::io::Result<()> {
    match path {
        Some(p) => std::fs::write(p, text),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()
        }
    }
}

/// `perfdata folded`.
pub fn run_folded(path: &str, args: &FoldArgs, out: Option<&PathBuf>) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let stacks = args.fold(path)?;
    output(out, &stacks.to_folded_string())?;
    Ok(ExitCode::SUCCESS)
}

/// How the SVG looks.
#[derive(Args)]
pub struct GraphArgs {
    /// Title.
    #[arg(long)]
    title: Option<String>,
    /// Palette (hot, mem, io, java, js, perl, python, rust, wakeup, aqua, blue, green, orange,
    /// purple, red, yellow).
    #[arg(long, default_value = "hot")]
    colors: String,
    /// Icicle graph: roots at the top.
    #[arg(long)]
    inverted: bool,
    /// Image width in pixels.
    #[arg(long)]
    width: Option<usize>,
    /// Differential graph of two files: `--diff BEFORE AFTER`, red where AFTER grew.
    #[arg(long)]
    diff: bool,
    /// --diff: scale BEFORE to AFTER's total first.
    #[arg(long, requires = "diff")]
    normalize: bool,
    /// --diff: size frames by BEFORE, so what vanished still shows (flamegraph.pl --negate).
    #[arg(long, requires = "diff")]
    negate: bool,
    /// Write the folded stacks the graph is drawn from (`stack weight` lines, as `perfdata
    /// folded`; with --diff difffolded.pl's `stack before after`, or `stack after before` with
    /// --negate) instead of the SVG.
    #[arg(long)]
    folded: bool,
}

/// The ids of [`FoldArgs`]: a dataset's stacks are folded already.
const FOLD_ARGS: [&str; 28] = [
    "compat",
    "weight",
    "pid",
    "tid",
    "no_comm",
    "kernel",
    "jit",
    "all",
    "addrs",
    "inline",
    "no_inline",
    "annotate_inline",
    "srcline",
    "plain_unwind",
    "max_stack",
    "event_filter",
    "all_events",
    "no_tidy",
    "tidy_java",
    "filter_pid",
    "filter_tid",
    "filter_comm",
    "time",
    "buildid_dir",
    "symfs",
    "kallsyms",
    "symbols",
    "no_jitdump",
];

/// Where the stacks come from when they come from a dataset.
#[derive(Args)]
pub struct QueryArgs {
    /// Draw the folded stacks of a dataset (written by `perfdata export --format parquet FILES…
    /// -o DATASET`) instead of a file's: the sum of its recordings' stacks, those --where selects.
    ///
    /// The stacks were folded by the export (its folding options, e.g. --weight, are the ones that
    /// count, so they cannot be given here); the root frame is the comm.
    #[arg(long, value_name = "DATASET", conflicts_with_all = FOLD_ARGS)]
    from_dataset: Option<PathBuf>,
    /// --from-dataset: the recordings' stacks to draw, a SQL WHERE predicate (DuckDB's answer to
    /// `SELECT … FROM stacks WHERE PREDICATE`); with --diff give it twice: BEFORE, then AFTER.
    ///
    /// Columns: host and date (the Hive partitions; date is the recording's UTC day,
    /// 'YYYY-MM-DD'; partitions ruled out are not read), comm and file (strings), weight
    /// (integer: a folded stack's weight in one recording). Operators: = != <> < <= > >=,
    /// IN ('a', 'b') and NOT IN, LIKE 'pat%' (% any run of characters, _ one) and NOT LIKE, AND,
    /// OR, NOT, parentheses; 'strings' ('' for a quote) and integers; keywords and column names
    /// in any case. Strings compare byte by byte.
    ///   --where "host IN ('web1', 'web2') AND date >= '2026-11-24'"
    ///   --where "comm NOT LIKE 'kworker/%' AND NOT host = 'db1'"
    #[arg(long = "where", value_name = "PREDICATE", requires = "from_dataset", verbatim_doc_comment)]
    predicates: Vec<String>,
}

/// `perfdata flamegraph`.
pub fn run_flamegraph(
    files: &[String],
    fold: &FoldArgs,
    graph: &GraphArgs,
    query: &QueryArgs,
    out: Option<&PathBuf>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    // The stacks drawn (one set, or BEFORE and AFTER), what they are called, and their unit.
    if query.from_dataset.is_none() && !query.predicates.is_empty() {
        return Err("--where selects recordings of a dataset: give it with --from-dataset DATASET".into());
    }
    let (sets, names, count_name) = match &query.from_dataset {
        Some(ds) => from_dataset(ds, &query.predicates, graph.diff, fold)?,
        None => {
            match (graph.diff, files) {
                (false, [_]) | (true, [_, _]) => {}
                (false, _) => return Err("flamegraph takes one file (two with --diff)".into()),
                (true, _) => return Err("--diff takes two files: BEFORE AFTER".into()),
            }
            let sets = files.iter().map(|f| fold.fold(f)).collect::<Result<Vec<_>, _>>()?;
            (sets, files.to_vec(), fold.count_name().to_string())
        }
    };
    let text = match (sets.as_slice(), names.as_slice()) {
        ([one], _) if graph.folded => one.to_folded_string(),
        ([before, after], _) if graph.folded => flamegraph::diff_lines(before, after, graph.normalize, graph.negate),
        ([one], [name]) => {
            let o = FlameGraphOptions {
                title: graph.title.clone().unwrap_or_else(|| "Flame Graph".into()),
                subtitle: Some(name.clone()),
                ..graph.options(count_name)
            };
            flamegraph::svg(one, &o)?
        }
        ([before, after], [b, a]) => {
            let o = FlameGraphOptions {
                title: graph.title.clone().unwrap_or_else(|| "Differential Flame Graph".into()),
                subtitle: Some(format!("{b} → {a}: red grew, blue shrank")),
                ..graph.options(count_name)
            };
            flamegraph::diff_svg(before, after, graph.normalize, graph.negate, &o)?
        }
        _ => return Err("flamegraph takes one selection (two with --diff)".into()),
    };
    output(out, &text)?;
    Ok(ExitCode::SUCCESS)
}

impl GraphArgs {
    /// The drawing options (title and subtitle left to the caller).
    fn options(&self, count_name: String) -> FlameGraphOptions {
        FlameGraphOptions {
            colors: self.colors.clone(),
            inverted: self.inverted,
            width: self.width,
            count_name,
            ..Default::default()
        }
    }
}

type Selection = (Vec<FoldedStacks>, Vec<String>, String);

/// `--from-dataset DS [--where P]` (`--diff --where BEFORE --where AFTER`): the stacks selected,
/// their names (`DS where P`), and what the weights count (the export's unit).
fn from_dataset(
    ds: &Path,
    predicates: &[String],
    diff: bool,
    fold: &FoldArgs,
) -> Result<Selection, Box<dyn std::error::Error>> {
    let wanted: Vec<Option<&String>> = match (diff, predicates) {
        (false, []) => vec![None],
        (false, [p]) => vec![Some(p)],
        (true, [b, a]) => vec![Some(b), Some(a)],
        (false, _) => return Err("--where is given once (twice with --diff: BEFORE, then AFTER)".into()),
        (true, _) => return Err("--diff with --from-dataset takes two --where predicates: BEFORE, then AFTER".into()),
    };
    let mut sets = Vec::new();
    let mut names = Vec::new();
    let mut unit: Option<String> = None;
    for text in wanted {
        let predicate = text.map(|t| Predicate::parse(t, STACKS_COLUMNS)).transpose()?;
        let got = dataset_stacks(ds, predicate.as_ref())?;
        let name = match text {
            Some(t) => format!("{} where {t}", ds.display()),
            None => ds.display().to_string(),
        };
        if got.parts_read == 0 {
            crate::damage::warn(format!("no recording of {name}"));
        }
        match (&unit, got.weight) {
            (Some(u), Some(w)) if *u != w => {
                return Err(
                    format!("the stacks of BEFORE weigh by {u}, those of AFTER by {w}: nothing to compare").into()
                )
            }
            (None, w) => unit = w,
            _ => {}
        }
        sets.push(got.stacks);
        names.push(name);
    }
    Ok((sets, names, unit.unwrap_or_else(|| fold.count_name().to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_dataset_conflicts_with_every_folding_option() {
        let cmd = FoldArgs::augment_args(clap::Command::new("t"));
        let mut ids: Vec<&str> = cmd.get_arguments().map(|a| a.get_id().as_str()).collect();
        ids.sort_unstable();
        let mut listed = FOLD_ARGS.to_vec();
        listed.sort_unstable();
        assert_eq!(ids, listed);
    }
}
