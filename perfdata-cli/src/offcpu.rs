//! `perfdata offcpu` (off-CPU time from `perf record -e sched:sched_switch -g`: folded stacks
//! weighted by ns, an off-CPU flame graph, or one JSON object per interval).

use crate::folded::output;
use clap::{Args, ValueEnum};
use perfdata_analysis::flamegraph::{self, FlameGraphOptions};
use perfdata_analysis::folded::FoldedOptions;
use perfdata_analysis::latency::offcpu::{off_cpu_each, off_cpu_folded, OffCpuCounts, OffCpuOptions, OffCpuState};
use perfdata_analysis::options::TimeRange;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    /// Interruptible sleep only.
    #[value(name = "S", alias = "s")]
    S,
    /// Uninterruptible sleep (mostly I/O) only.
    #[value(name = "D", alias = "d")]
    D,
    /// Every other state only: preempted (R, R+), idle (I), stopped, parked.
    Other,
    /// Every interval.
    All,
}

/// Options of `perfdata offcpu`.
#[derive(Args)]
pub struct OffCpuArgs {
    /// perf.data file recorded with `perf record -e sched:sched_switch -g` (add -a for every
    /// task), or - for stdin.
    file: String,
    /// Only intervals in this state (the task's prev_state at the switch-out).
    #[arg(long, value_enum, default_value = "all")]
    state: StateArg,
    /// Only intervals at least this long, µs.
    #[arg(long, value_name = "US", default_value_t = 0)]
    min_us: u64,
    /// Only intervals starting (switched out) in START,END: seconds, perf's --time syntax (either
    /// side may be empty).
    #[arg(long, value_name = "START,END")]
    time: Option<TimeRange>,
    /// Only this process id.
    #[arg(short, long)]
    pid: Option<u32>,
    /// Only this thread id.
    #[arg(short, long)]
    tid: Option<u32>,
    /// One JSON object per interval (tid, pid, comm, start_ns, end_ns, duration_ns, state,
    /// prev_state, cpu, callchain: the switch-out sample's addresses with perf's context markers).
    #[arg(long, conflicts_with = "flamegraph")]
    json: bool,
    /// Draw an off-CPU flame graph SVG instead of printing folded stacks.
    #[arg(long)]
    flamegraph: bool,
    /// Flame graph palette (see `perfdata flamegraph --help`).
    #[arg(long, default_value = "io", requires = "flamegraph")]
    colors: String,
    /// Flame graph width in pixels.
    #[arg(long, requires = "flamegraph")]
    width: Option<usize>,
    #[command(flatten)]
    symbols: crate::symbols::SymbolArgs,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

impl OffCpuArgs {
    fn options(&self) -> OffCpuOptions {
        OffCpuOptions {
            state: match self.state {
                StateArg::S => Some(OffCpuState::S),
                StateArg::D => Some(OffCpuState::D),
                StateArg::Other => Some(OffCpuState::Other),
                StateArg::All => None,
            },
            min_ns: self.min_us.saturating_mul(1000),
            time: self.time,
            pid: self.pid,
            tid: self.tid,
        }
    }
}

/// What the analysis could not pair, on stderr when it is not nothing.
fn report(counts: &OffCpuCounts) {
    if counts.overwritten > 0 {
        crate::warn(format!(
            "warning: {} switch-outs of a task already off-CPU (its switch-in was not recorded)",
            counts.overwritten
        ));
    }
}

/// `perfdata offcpu`.
pub fn run(a: &OffCpuArgs) -> CliResult {
    let file = crate::open(&a.file)?;
    for d in file.diagnostics() {
        crate::damage::warn_in(crate::shown(&a.file), d);
    }
    let opts = a.options();
    if a.json {
        let mut sink: Box<dyn Write> = match &a.output {
            Some(p) => Box::new(std::fs::File::create(p)?),
            None => Box::new(std::io::stdout().lock()),
        };
        let mut out = std::io::BufWriter::new(&mut sink);
        let mut err: Option<std::io::Error> = None;
        let counts = off_cpu_each(&file, &opts, |i| {
            if err.is_some() {
                return;
            }
            // Keys in the order of the struct (serde_json's maps would sort them).
            let comm = serde_json::Value::from(i.comm.to_str_lossy().into_owned());
            let pid = i.pid.map_or("null".to_string(), |p| p.to_string());
            let chain: Vec<String> = i.callchain.iter().map(u64::to_string).collect();
            let v = format!(
                "{{\"tid\":{},\"pid\":{pid},\"comm\":{comm},\"start_ns\":{},\"end_ns\":{},\"duration_ns\":{},\
                 \"state\":\"{}\",\"prev_state\":{},\"cpu\":{},\"callchain\":[{}]}}",
                i.tid,
                i.start_ns,
                i.end_ns,
                i.duration_ns,
                i.state.as_str(),
                i.prev_state,
                i.cpu,
                chain.join(",")
            );
            if let Err(e) = writeln!(out, "{v}") {
                err = Some(e);
            }
        })?;
        if let Some(e) = err {
            return Err(e.into());
        }
        out.flush()?;
        report(&counts);
        return Ok(ExitCode::SUCCESS);
    }
    let fold = FoldedOptions { symbolize: a.symbols.options(false)?, ..FoldedOptions::default() };
    let (stacks, counts) = off_cpu_folded(&file, &opts, &fold)?;
    for d in stacks.diagnostics.iter().chain(&stacks.unnamed) {
        crate::damage::warn_in(crate::shown(&a.file), d);
    }
    report(&counts);
    if a.flamegraph {
        let o = FlameGraphOptions {
            title: "Off-CPU Time Flame Graph".into(),
            subtitle: Some(a.file.clone()),
            colors: a.colors.clone(),
            width: a.width,
            count_name: "ns".into(),
            ..Default::default()
        };
        output(a.output.as_ref(), &flamegraph::svg(&stacks, &o)?)?;
    } else {
        output(a.output.as_ref(), &stacks.to_folded_string())?;
    }
    Ok(ExitCode::SUCCESS)
}
