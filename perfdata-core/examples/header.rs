//! Print a recording's header as `perf report --header-only -I` does, then its events.
//!
//! `cargo run --example header -- testdata/fp.data`
use perfdata_core::{HeaderInfo, PerfFile};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes go through `?`: a closed pipe (`| head`) ends the program with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).unwrap_or_else(|| "testdata/fp.data".into());
    let file = PerfFile::open(&path)?;
    write!(out, "{}", HeaderInfo::new(&file).perf_text())?;
    for event in file.events() {
        writeln!(
            out,
            "event {}: {} ids, sample_type {:#x}",
            event.display_name(),
            event.ids.len(),
            event.attr.sample_type
        )?;
    }
    Ok(())
}
