//! `perfdata export --format speedscope|chrome-trace|pprof FILE -o OUT`.

use crate::folded::FoldArgs;
use clap::{Args, ValueEnum};
use perfdata_analysis::export::chrome::{chrome_trace, ChromeOptions};
use perfdata_analysis::export::pprof::pprof;
use perfdata_analysis::export::speedscope::{speedscope, Unit};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The formats.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// speedscope.app's JSON: a sampled profile per comm (or per process/thread with --root),
    /// weights as `perfdata folded`'s.
    Speedscope,
    /// Chrome Trace Event JSON (Perfetto UI, chrome://tracing): a track per CPU and per thread
    /// with the scheduler's slices (from sched_switch), samples as instant events with their
    /// stacks, lost events as a counter.
    ChromeTrace,
    /// pprof's profile.proto, gzipped (`go tool pprof`): the samples of `perfdata folded` with
    /// their mappings, locations and inline frames; values sample counts and periods; labels
    /// comm, pid, tid, cpu (and event with several).
    Pprof,
}

/// Options of `perfdata export`.
#[derive(Args)]
pub struct ExportArgs {
    /// perf.data file, or - for stdin.
    file: String,
    /// Output format.
    #[arg(long, value_enum)]
    format: Format,
    /// Write here (a temporary file renamed at the end: no partial file is left on an error);
    /// stdout without.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// chrome-trace: scheduler slices only, no samples.
    #[arg(long)]
    no_samples: bool,
    #[command(flatten)]
    fold: FoldArgs,
}

/// `perfdata export`.
pub fn run(a: &ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let doc = match a.format {
        Format::Speedscope => {
            let stacks = a.fold.fold(&a.file)?;
            let f = crate::open(&a.file)?;
            // Periods of a clock event are ns; sample counts and other periods have no unit.
            let clock = f.events().first().is_some_and(|e| {
                let n = e.display_name();
                n.starts_with("cpu-clock") || n.starts_with("task-clock")
            });
            let unit = if a.fold.count_name() == "period" && clock { Unit::Nanoseconds } else { Unit::None };
            let root = a.fold.options()?.root != perfdata_analysis::folded::Root::None;
            speedscope(&stacks, &a.file, unit, root)
        }
        Format::ChromeTrace => {
            let f = crate::open(&a.file)?;
            chrome_trace(&f, &ChromeOptions { fold: a.fold.options()?, no_samples: a.no_samples })?
        }
        Format::Pprof => {
            let f = crate::open(&a.file)?;
            let p = pprof(&f, &a.fold.options()?)?;
            for d in f.diagnostics().iter().chain(&p.diagnostics) {
                eprintln!("perfdata: warning: {}: {d}", a.file);
            }
            write(a.output.as_deref(), &p.gzipped)?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let text = serde_json::to_string(&doc)?;
    write(a.output.as_deref(), text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Write `bytes` to `path` through a temporary file renamed at the end (no partial file is left
/// on an error), or to stdout.
fn write(path: Option<&Path>, bytes: &[u8]) -> std::io::Result<()> {
    match path {
        Some(p) => {
            let tmp = p.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, p)).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        }
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
    }
}
