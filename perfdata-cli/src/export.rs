//! `perfdata export --format speedscope|chrome-trace|pprof|perfetto FILE -o OUT`, `perfdata export --format
//! parquet FILE -o DIR`, `perfdata export --format parquet FILES_OR_DIRS… -o DATASET` (a
//! dataset of many recordings).

use crate::folded::FoldArgs;
use clap::{Args, ValueEnum};
use perfdata_analysis::core::Order;
use perfdata_analysis::export::chrome::{write_chrome_trace, ChromeOptions};
use perfdata_analysis::export::dataset::{export_dataset as export_dataset_files, DatasetOptions, Status};
use perfdata_analysis::export::parquet::{write_parquet, ParquetOptions};
use perfdata_analysis::export::perfetto::{write_perfetto_trace, PerfettoOptions};
use perfdata_analysis::export::pprof::pprof;
use perfdata_analysis::export::speedscope::{speedscope, write_speedscope, SpeedscopeOptions, Unit};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The formats.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// speedscope.app's JSON: an evented profile per thread (and per event with several), its
    /// samples in time order, each weighing what `perfdata folded` weighs it (--aggregate: a
    /// sampled profile per comm, or per process/thread with --pid/--tid, without time order).
    Speedscope,
    /// Chrome Trace Event JSON (Perfetto UI, chrome://tracing): a track per CPU and per thread
    /// with the scheduler's slices (from sched_switch), samples as instant events with their
    /// stacks (`sf` ids into `stackFrames`), lost events as a counter.
    ChromeTrace,
    /// A directory of Parquet files (zstd), one per table: samples.parquet (callchain as
    /// `list<uint64>`), mmaps, comms, tasks, lost, records (count per record type), and
    /// tp.SYSTEM.NAME.parquet per tracepoint event with a typed column per field; the columns of
    /// Python's to_arrow().
    Parquet,
    /// pprof's profile.proto, gzipped (`go tool pprof`): the samples of `perfdata folded` with
    /// their mappings, locations and inline frames; values sample counts and, per event, periods
    /// (ns for cpu-clock/task-clock, else count); labels comm, pid, tid, cpu (and event with
    /// several). Every event by default (--all-events, accepted, is the default here;
    /// --event-filter NAME keeps one); period type and period are the first event's (its fixed
    /// period, or in frequency mode its mean); mapping 1 (pprof's `File:`) is the profiled
    /// program.
    Pprof,
    /// Perfetto's protobuf trace (binary; Perfetto UI, ui.perfetto.dev, opens it): a track per CPU
    /// and per thread with the scheduler's slices (from sched_switch, as chrome-trace), and the
    /// samples as perf samples with interned callstacks, each frame named as `perfdata folded`
    /// names it. Times are the recording's perf clock in ns. Not written to a terminal.
    Perfetto,
}

/// Options of `perfdata export`.
#[derive(Args)]
pub struct ExportArgs {
    /// perf.data file, or - for stdin. parquet: several files or directories (searched for
    /// *.data, perf.data* and files starting with PERFILE2; a `perf record --threads` directory,
    /// data + data.N, is one recording) make a dataset (see --dataset).
    #[arg(required = true, num_args = 1..)]
    files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum)]
    format: Format,
    /// Write here (a temporary file renamed at the end: no partial file is left on an error);
    /// stdout without. parquet: the directory (created), required.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// chrome-trace, perfetto: scheduler slices only, no samples.
    #[arg(long)]
    no_samples: bool,
    /// speedscope: one sampled profile per root frame of the folded stacks (comm; process or
    /// thread with --pid/--tid), each distinct stack once with its folded weight: no time order.
    #[arg(long)]
    aggregate: bool,
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
    /// parquet: write a Hive-partitioned dataset of many recordings (implied by several inputs
    /// or a directory): TABLE/host=H/date=D/part-HASH.parquet per table (with a `file` column)
    /// and the folded `stacks` (comm, frames root first, weight), `recordings` (header fields,
    /// status) and `errors` (problems met) tables. Recordings already in the dataset (same
    /// content hash) are skipped; a damaged one keeps what could be read and its errors.
    #[arg(long)]
    dataset: bool,
    /// dataset: recordings read at once (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    jobs: usize,
    /// dataset: no stacks table (symbolizing every recording's stacks is the slowest part).
    #[arg(long)]
    no_stacks: bool,
    #[command(flatten)]
    fold: FoldArgs,
}

/// `perfdata export`.
pub fn run(a: &ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dataset = a.format == Format::Parquet
        && (a.dataset || a.files.len() > 1 || a.files.iter().any(|f| std::path::Path::new(f).is_dir()));
    if dataset {
        return export_dataset(a);
    }
    let [file] = a.files.as_slice() else {
        return Err("this format takes one input file (only --format parquet takes several)".into());
    };
    // The Chrome trace (scheduler pass, samples pass) and the aggregated speedscope (fold, then
    // the event list) read the input more than once: stdin becomes a copy on disk.
    let (spooled, _spool) = match a.format {
        Format::Speedscope | Format::ChromeTrace | Format::Perfetto => crate::spooled(file)?,
        _ => (file.clone(), None),
    };
    let (name, file) = (crate::shown(file), &spooled);
    match a.format {
        Format::Parquet => parquet(a, file),
        Format::Speedscope if a.aggregate => {
            let stacks = a.fold.fold(file)?;
            let f = crate::open(file)?;
            // Periods of a clock event are ns; sample counts and other periods have no unit.
            let clock = f.events().first().is_some_and(|e| {
                let n = e.display_name();
                n.starts_with("cpu-clock") || n.starts_with("task-clock")
            });
            let unit = if a.fold.count_name() == "period" && clock { Unit::Nanoseconds } else { Unit::None };
            let root = a.fold.options()?.root != perfdata_analysis::folded::Root::None;
            let doc = speedscope(&stacks, name, unit, root);
            write_with(a.output.as_deref(), |out| Ok(serde_json::to_writer(out, &doc)?))?;
            Ok(ExitCode::SUCCESS)
        }
        Format::Speedscope => {
            let f = crate::open(file)?;
            let o = SpeedscopeOptions { fold: a.fold.options()?, name: name.to_string(), memory: 0 };
            let done = write_with(a.output.as_deref(), |out| Ok(write_speedscope(&f, &o, out)?))?;
            warn(file, f.diagnostics().iter().chain(&done.diagnostics));
            Ok(ExitCode::SUCCESS)
        }
        Format::ChromeTrace => {
            let f = crate::open(file)?;
            let o = ChromeOptions { fold: a.fold.options()?, no_samples: a.no_samples };
            let done = write_with(a.output.as_deref(), |out| Ok(write_chrome_trace(&f, &o, out)?))?;
            warn(file, f.diagnostics().iter().chain(&done.diagnostics));
            Ok(ExitCode::SUCCESS)
        }
        Format::Perfetto => {
            if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                return Err("the Perfetto trace is binary: give -o FILE or redirect stdout".into());
            }
            let f = crate::open(file)?;
            let o = PerfettoOptions { fold: a.fold.options()?, no_samples: a.no_samples };
            let done = write_with(a.output.as_deref(), |out| Ok(write_perfetto_trace(&f, &o, out)?))?;
            warn(file, f.diagnostics().iter().chain(&done.diagnostics));
            Ok(ExitCode::SUCCESS)
        }
        Format::Pprof => {
            let f = crate::open(file)?;
            let p = pprof(&f, &a.fold.options()?)?;
            warn(file, f.diagnostics().iter().chain(&p.diagnostics));
            write_with(a.output.as_deref(), |out| Ok(out.write_all(&p.gzipped)?))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The reading problems met, as warnings on stderr (each once: [`crate::damage`]).
fn warn<'a>(file: &str, diagnostics: impl Iterator<Item = &'a String>) {
    for d in diagnostics {
        crate::damage::warn_in(crate::shown(file), d);
    }
}

/// `perfdata export --format parquet FILE -o DIR`: one line per table written (`NAME ROWS PATH`)
/// on stderr, and the reading problems met.
fn parquet(a: &ExportArgs, file: &str) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dir = a.output.as_ref().ok_or("--format parquet needs -o DIR (the directory of the tables)")?;
    let f = crate::open(file)?;
    let o = parquet_options(a)?;
    let written = write_parquet(&f, dir, &o)?;
    warn(file, written.diagnostics.iter());
    for t in &written.tables {
        eprintln!("{} {} {}", t.name, t.rows, t.path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The Parquet options of the arguments.
fn parquet_options(a: &ExportArgs) -> Result<ParquetOptions, Box<dyn std::error::Error>> {
    Ok(ParquetOptions {
        order: if a.file_order { Order::File } else { Order::Time },
        symbolize: if a.symbolize { Some(a.fold.options()?) } else { None },
        common: a.common,
        ..ParquetOptions::default()
    })
}

/// `perfdata export --format parquet FILES_OR_DIRS… -o DATASET`: one line per recording on
/// stderr (`STATUS HOST DATE FILE`, then its problems); exit status 3 (crate::damage) when a
/// recording was damaged or could not be read and the others were exported all the same, 1 when
/// none could be.
fn export_dataset(a: &ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dir = a.output.as_ref().ok_or("--format parquet needs -o DATASET (the dataset's directory)")?;
    let o = DatasetOptions {
        parquet: parquet_options(a)?,
        stacks: if a.no_stacks { None } else { Some(a.fold.options()?) },
        jobs: a.jobs,
    };
    let inputs: Vec<PathBuf> = a.files.iter().map(PathBuf::from).collect();
    let done = export_dataset_files(&inputs, dir, &o)?;
    let (mut new, mut skipped, mut damaged, mut failed) = (0usize, 0usize, 0usize, 0usize);
    for e in &done {
        match e.status {
            Status::Skipped => skipped += 1,
            Status::Ok => new += 1,
            Status::Damaged => (new, damaged) = (new + 1, damaged + 1),
            Status::Failed => (new, failed) = (new + 1, failed + 1),
        }
        if e.status != Status::Skipped {
            eprintln!("{} {} {} {}", e.status.name(), e.host, e.date, e.file.display());
        }
        for m in &e.errors {
            eprintln!("  {m}");
        }
    }
    eprintln!("{new} recordings exported, {skipped} skipped (already in {})", dir.display());
    Ok(if failed > 0 && failed == new {
        ExitCode::from(1)
    } else if damaged + failed > 0 {
        ExitCode::from(crate::damage::DAMAGED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Let `write` write to `path` through a temporary file renamed at the end (no partial file is
/// left on an error), or to stdout.
fn write_with<T>(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> Result<T, Box<dyn std::error::Error>>,
) -> Result<T, Box<dyn std::error::Error>> {
    match path {
        Some(p) => {
            let tmp = p.with_extension(format!("{}.tmp", std::process::id()));
            let done = (|| {
                let mut out = std::fs::File::create(&tmp)?;
                let t = write(&mut out)?;
                out.flush()?;
                drop(out);
                std::fs::rename(&tmp, p)?;
                Ok(t)
            })();
            if done.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            done
        }
        None => {
            let mut out = std::io::stdout().lock();
            let t = write(&mut out)?;
            out.flush()?;
            Ok(t)
        }
    }
}
