//! `perfdata export --format speedscope|chrome-trace|pprof FILE -o OUT`, `perfdata export --format
//! parquet FILE -o DIR`.

use crate::folded::FoldArgs;
use clap::{Args, ValueEnum};
use perfdata_analysis::core::Order;
use perfdata_analysis::export::chrome::{chrome_trace, ChromeOptions};
use perfdata_analysis::export::parquet::{write_parquet, ParquetOptions};
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
    /// A directory of Parquet files (zstd), one per table: samples.parquet (callchain as
    /// `list<uint64>`), mmaps, comms, tasks, lost, records (count per record type), and
    /// tp.SYSTEM.NAME.parquet per tracepoint event with a typed column per field; the columns of
    /// Python's to_arrow().
    Parquet,
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
    /// stdout without. parquet: the directory (created), required.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// chrome-trace: scheduler slices only, no samples.
    #[arg(long)]
    no_samples: bool,
    /// parquet: add comm, dso, symbol and frames (`list<string>`, leaf first, folded with the
    /// options below) to the samples table.
    #[arg(long)]
    symbolize: bool,
    /// parquet: also the tracepoints' common_* fields.
    #[arg(long)]
    common: bool,
    /// parquet: rows in file order rather than perf's time order.
    #[arg(long)]
    file_order: bool,
    #[command(flatten)]
    fold: FoldArgs,
}

/// `perfdata export`.
pub fn run(a: &ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let doc = match a.format {
        Format::Parquet => return parquet(a),
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

/// `perfdata export --format parquet FILE -o DIR`: one line per table written (`NAME ROWS PATH`)
/// on stderr, and the reading problems met.
fn parquet(a: &ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dir = a.output.as_ref().ok_or("--format parquet needs -o DIR (the directory of the tables)")?;
    let f = crate::open(&a.file)?;
    let o = ParquetOptions {
        order: if a.file_order { Order::File } else { Order::Time },
        symbolize: if a.symbolize { Some(a.fold.options()?) } else { None },
        common: a.common,
        ..ParquetOptions::default()
    };
    let written = write_parquet(&f, dir, &o)?;
    for d in &written.diagnostics {
        eprintln!("warning: {d}");
    }
    for t in &written.tables {
        eprintln!("{} {} {}", t.name, t.rows, t.path.display());
    }
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
