//! `perfdata folded` (Brendan Gregg's folded stacks) and `perfdata flamegraph` (SVG, differential).

use clap::{Args, ValueEnum};
use perfdata_analysis::flamegraph::{self, FlameGraphOptions};
use perfdata_analysis::folded::{folded, Compat, FoldedOptions, FoldedStacks, Root, Weight};
use perfdata_analysis::options::{FoldRequest, TimeRanges};
use perfdata_analysis::symbolize::SymbolizeOptions;
use std::io::Write;
use std::path::PathBuf;
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
    /// perf's build-id cache (default ~/.debug).
    #[arg(long, value_name = "DIR")]
    buildid_dir: Option<PathBuf>,
    /// Look for every binary under this root.
    #[arg(long, value_name = "DIR")]
    symfs: Option<PathBuf>,
    /// Kernel symbols from this kallsyms file. Without it they come from the build-id cache
    /// (`[kernel.kallsyms]/BUILD_ID/kallsyms`), else from the running kernel's /proc/kallsyms when
    /// it is the recorded kernel: the same build id or, for a recording without one (`perf record
    /// -o -`), the same release (perf uses the running kernel's symbols for any kernel).
    #[arg(long, value_name = "FILE")]
    kallsyms: Option<PathBuf>,
    /// Ignore jitdump files. By default, when the recording holds the MMAP of a JIT agent's
    /// `jit-PID.dump` (V8's --perf-prof, perf's JVMTI agent; record with -k mono), the dump is read
    /// at that path (under --symfs) and its functions name the JIT code, as after
    /// `perf inject --jit` (frames in `DIR/jitted-PID-N.so`); with this option JIT code is
    /// named as `perf script` names it without the inject step (/tmp/perf-PID.map only).
    #[arg(long)]
    no_jitdump: bool,
}

impl FoldArgs {
    /// The request these flags state (the same type `PerfData.folded(...)`'s keywords parse into).
    fn request(&self) -> FoldRequest {
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
            addrs: self.addrs,
            event: self.event_filter.clone(),
            all_events: self.all_events,
            tidy: self.no_tidy.then_some(false),
            tidy_java: self.tidy_java.then_some(true),
            pid: self.filter_pid,
            tid: self.filter_tid,
            comm: self.filter_comm.clone(),
            time: self.time.clone(),
            symbolize: SymbolizeOptions {
                symfs: self.symfs.clone(),
                buildid_dir: self.buildid_dir.clone(),
                kallsyms: self.kallsyms.clone(),
                ignore_jitdump: self.no_jitdump,
            },
        }
    }

    /// The analysis crate's folding options these flags say.
    pub fn options(&self) -> Result<FoldedOptions, String> {
        self.request().options()
    }

    /// Fold the stacks of the file at `path` (warnings on stderr).
    pub fn fold(&self, path: &str) -> Result<FoldedStacks, Box<dyn std::error::Error>> {
        let file = crate::open(path)?;
        let stacks = folded(&file, &self.options()?)?;
        for d in file.diagnostics().iter().chain(&stacks.diagnostics) {
            eprintln!("perfdata: warning: {path}: {d}");
        }
        Ok(stacks)
    }

    /// "samples" or "period".
    pub fn count_name(&self) -> &'static str {
        self.request().count_name()
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
}

/// `perfdata flamegraph`.
pub fn run_flamegraph(
    files: &[String],
    fold: &FoldArgs,
    graph: &GraphArgs,
    out: Option<&PathBuf>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut o = FlameGraphOptions {
        colors: graph.colors.clone(),
        inverted: graph.inverted,
        width: graph.width,
        count_name: fold.count_name().into(),
        ..Default::default()
    };
    let svg = match (graph.diff, files) {
        (false, [one]) => {
            o.title = graph.title.clone().unwrap_or_else(|| "Flame Graph".into());
            o.subtitle = Some(one.clone());
            flamegraph::svg(&fold.fold(one)?, &o)?
        }
        (true, [before, after]) => {
            o.title = graph.title.clone().unwrap_or_else(|| "Differential Flame Graph".into());
            o.subtitle = Some(format!("{before} → {after}: red grew, blue shrank"));
            flamegraph::diff_svg(&fold.fold(before)?, &fold.fold(after)?, graph.normalize, graph.negate, &o)?
        }
        (false, _) => return Err("flamegraph takes one file (two with --diff)".into()),
        (true, _) => return Err("--diff takes two files: BEFORE AFTER".into()),
    };
    output(out, &svg)?;
    Ok(ExitCode::SUCCESS)
}
