//! Fold the stacks of a `perf record -g` (or `--call-graph dwarf`) recording into the lines
//! `stackcollapse-perf.pl` prints, ready for `flamegraph.pl` or `perfdata flamegraph`.
//!
//! `cargo run --example fold -- testdata/fp.data`
use perfdata_analysis::core::PerfFile;
use perfdata_analysis::{folded, FoldRequest};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes go through `?`: a closed pipe (`| head`) ends the program with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).unwrap_or_else(|| "testdata/fp.data".into());
    let file = PerfFile::open(&path)?;
    let options = FoldRequest { kernel: true, ..Default::default() }.options()?;
    let stacks = folded(&file, &options)?;
    write!(out, "{}", stacks.to_folded_string())?;
    for d in &stacks.diagnostics {
        eprintln!("warning: {d}");
    }
    Ok(())
}
