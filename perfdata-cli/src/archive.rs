//! `perfdata archive`: the files a recording's frames are named from, in one compressed file to
//! read anywhere with `--symbols` (docs/archive.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use perfdata_analysis::folded::EventFilter;
use perfdata_analysis::symbolize::archive::{self, ReadLog};
use perfdata_analysis::symbolize::reduce::Keep;
use perfdata_analysis::{folded, FoldedOptions};
use perfdata_core::abi::sample_type;

use crate::symbols::SymbolArgs;

/// `perfdata archive FILE`.
#[derive(Args)]
pub struct ArchiveArgs {
    /// perf.data file, directory, or - for stdin.
    pub file: String,
    /// Write the archive here (default: FILE.symbols).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also read the source lines while collecting (their files go in), and keep all of the
    /// binaries' DWARF, not only what names frames, inlined calls and lines.
    #[arg(long)]
    pub debug: bool,
    /// Store the binaries whole (what `annotate` needs, which disassembles their code). By
    /// default only what names frames is kept: symbol and unwind tables, notes, section and
    /// program headers, the DWARF of inlined calls and lines (with --debug all DWARF), and for a
    /// --call-graph dwarf recording the loaded sections, which unwinding reads.
    #[arg(long)]
    pub whole: bool,
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

/// Fold every sample of every event with a read log, then archive what was read.
pub fn run(a: &ArchiveArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let log = ReadLog::default();
    let mut symbolize = a.symbols.options(false)?;
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
    // Unwinding a stack copy (--call-graph dwarf) reads the binaries' loaded bytes where the
    // copy ends, as perf does: keep them for such recordings.
    let unwinds = file.events().iter().any(|e| e.attr.sample_type & sample_type::STACK_USER != 0);
    let keep = match (a.whole, a.debug, unwinds) {
        (true, _, _) | (false, true, true) => None,
        (false, true, false) => Some(Keep::Debug),
        (false, false, true) => Some(Keep::Loaded),
        (false, false, false) => Some(Keep::Names),
    };
    let stats = archive::write_reduced(&out, &log.files(), keep)?;
    for p in &stats.skipped {
        eprintln!("perfdata: {} has no build id: not archived", p.display());
    }
    let mb = |b: u64| b as f64 / 1e6;
    eprintln!(
        "perfdata: wrote {}: {} DSOs, {:.1} MB of binaries, {:.1} MB kept → {:.1} MB archive",
        out.display(),
        stats.binaries,
        mb(stats.input_bytes),
        mb(stats.stored_bytes),
        mb(stats.output_bytes)
    );
    Ok(ExitCode::SUCCESS)
}
