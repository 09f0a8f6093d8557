//! `perfdata folded` (Brendan Gregg's folded stacks) and `perfdata flamegraph` (SVG, differential).

use clap::{Args, ValueEnum};
use perfdata_analysis::flamegraph::{self, FlameGraphOptions};
use perfdata_analysis::folded::{folded, Compat, EventFilter, FoldedOptions, FoldedStacks, Root, Unknown, Weight};
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
    /// Inline frames from the binaries' DWARF debug info, as perf script adds them by default
    /// (perf's `--inline`; without it the output is perf script `--no-inline`'s).
    #[arg(long)]
    inline: bool,
    /// Append `_[i]` to inline frames (implies --inline).
    #[arg(long)]
    annotate_inline: bool,
    /// Source lines from the binaries' DWARF debug info, `func:file:line`
    /// (`perf script -F +srcline | stackcollapse-perf.pl --srcline`).
    #[arg(long)]
    srcline: bool,
    /// Only this event's samples (perf's name, e.g. `cycles:u`).
    #[arg(long, conflicts_with = "all_events")]
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
    /// Only samples in this time range, perf's `--time` syntax: `START,END` in seconds (either may
    /// be empty), e.g. `5123.25,5124`.
    #[arg(long, value_name = "START,END")]
    time: Option<String>,
    /// perf's build-id cache (default ~/.debug).
    #[arg(long, value_name = "DIR")]
    buildid_dir: Option<PathBuf>,
    /// Look for every binary under this root.
    #[arg(long, value_name = "DIR")]
    symfs: Option<PathBuf>,
    /// Kernel symbols from this kallsyms file.
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

/// perf's `--time START,END` (seconds, decimal) in ns.
pub(crate) fn parse_time(s: &str) -> Result<(u64, u64), String> {
    let secs = |v: &str, default: u64| -> Result<u64, String> {
        let v = v.trim();
        if v.is_empty() {
            return Ok(default);
        }
        let (int, frac) = v.split_once('.').unwrap_or((v, ""));
        let bad = || format!("--time: {v:?} is not a time in seconds");
        let int: u64 = int.parse().map_err(|_| bad())?;
        if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let frac: u64 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
        int.checked_mul(1_000_000_000).and_then(|n| n.checked_add(frac)).ok_or_else(bad)
    };
    let (a, b) = s.split_once(',').unwrap_or((s, ""));
    Ok((secs(a, 0)?, secs(b, u64::MAX)?))
}

impl FoldArgs {
    fn options(&self) -> Result<FoldedOptions, String> {
        let compat = match self.compat {
            CompatArg::StackcollapsePl => Compat::StackcollapsePl,
            CompatArg::PerfScriptPy => Compat::PerfScriptPy,
        };
        let mut o = FoldedOptions::compat(compat);
        if let Some(w) = self.weight {
            o.weight = match w {
                WeightArg::Samples => Weight::Samples,
                WeightArg::Period => Weight::Period,
            };
        }
        o.root = if self.no_comm {
            Root::None
        } else if self.tid {
            Root::CommPidTid
        } else if self.pid {
            Root::CommPid
        } else {
            Root::Comm
        };
        o.annotate_kernel = self.kernel || self.all;
        o.annotate_jit = self.jit || self.all;
        o.inline = self.inline || self.annotate_inline;
        o.annotate_inline = self.annotate_inline;
        o.srcline = self.srcline;
        if self.addrs {
            o.unknown = Unknown::Address;
        }
        if let Some(e) = &self.event_filter {
            o.event_filter = EventFilter::Name(e.clone());
        } else if self.all_events {
            o.event_filter = EventFilter::All;
        }
        if self.no_tidy {
            o.tidy_generic = false;
        }
        o.tidy_java = o.tidy_java || self.tidy_java;
        o.pid = self.filter_pid;
        o.tid = self.filter_tid;
        o.comm = self.filter_comm.clone();
        o.time = self.time.as_deref().map(parse_time).transpose()?;
        o.symbolize = SymbolizeOptions {
            symfs: self.symfs.clone(),
            buildid_dir: self.buildid_dir.clone(),
            kallsyms: self.kallsyms.clone(),
            ignore_jitdump: self.no_jitdump,
        };
        Ok(o)
    }

    fn fold(&self, path: &str) -> Result<FoldedStacks, Box<dyn std::error::Error>> {
        let file = crate::open(path)?;
        let stacks = folded(&file, &self.options()?)?;
        for d in file.diagnostics().iter().chain(&stacks.diagnostics) {
            eprintln!("perfdata: warning: {path}: {d}");
        }
        Ok(stacks)
    }

    fn count_name(&self) -> &'static str {
        match (self.weight, self.compat) {
            (Some(WeightArg::Samples), _) | (None, CompatArg::PerfScriptPy) => "samples",
            _ => "period",
        }
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

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn perf_time_ranges() {
        assert_eq!(parse_time("5123.25,5124"), Ok((5_123_250_000_000, 5_124_000_000_000)));
        assert_eq!(parse_time(",1.000000001"), Ok((0, 1_000_000_001)));
        assert_eq!(parse_time("7,"), Ok((7_000_000_000, u64::MAX)));
        assert!(parse_time("x,1").is_err() && parse_time("1.0000000001,").is_err());
    }
}
