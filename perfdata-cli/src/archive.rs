//! `perfdata archive`: the files a recording's frames are named from, in one compressed file to
//! read anywhere with `--symbols` (docs/archive.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use perfdata_analysis::folded::EventFilter;
use perfdata_analysis::symbolize::archive::{self, ReadLog};
use perfdata_analysis::{folded, FoldedOptions};

use crate::symbols::SymbolArgs;

/// `perfdata archive FILE`.
#[derive(Args)]
pub struct ArchiveArgs {
    /// perf.data file, directory, or - for stdin.
    pub file: String,
    /// Write the archive here (default: FILE.symbols).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also read the source lines while collecting (the files are archived whole, so their
    /// DWARF goes in wherever they hold it).
    #[arg(long)]
    pub debug: bool,
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

/// Fold every sample of every event with a read log, then archive what was read.
pub fn run(a: &ArchiveArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let log = ReadLog::default();
    let mut symbolize = a.symbols.options(false);
    symbolize.read_log = Some(log.clone());
    let opts = FoldedOptions {
        event_filter: EventFilter::All,
        // Every callchain entry perf could show (`--max-stack` up to its limit).
        max_stack: 1024,
        inline: true,
        srcline: a.debug,
        symbolize,
        ..FoldedOptions::default()
    };
    let file = crate::open(&a.file)?;
    let stacks = folded(&file, &opts)?;
    for d in file.diagnostics().iter().chain(&stacks.diagnostics).chain(&stacks.unnamed) {
        crate::damage::warn_in(crate::shown(&a.file), d);
    }
    let out = a.output.clone().unwrap_or_else(|| {
        let base = if a.file == "-" { "stdin" } else { a.file.trim_end_matches('/') };
        PathBuf::from(format!("{base}.symbols"))
    });
    let stats = archive::write(&out, &log.files())?;
    for p in &stats.skipped {
        eprintln!("perfdata: {} has no build id: not archived", p.display());
    }
    let mb = |b: u64| b as f64 / 1e6;
    eprintln!(
        "perfdata: wrote {}: {} DSOs, {:.1} MB of binaries → {:.1} MB archive",
        out.display(),
        stats.binaries,
        mb(stats.input_bytes),
        mb(stats.output_bytes)
    );
    Ok(ExitCode::SUCCESS)
}
