//! Name the leaf of every sample (`symbol (dso)`), as `perf script -F ip,sym,dso`
//! does: records in time order keep the thread and map timeline, the symbolizer reads the ELF
//! symbols of each mapped file (or kallsyms for the kernel); on stderr, per DSO, how many
//! frames stayed unnamed and why.
//!
//! `cargo run --example symbolize -- testdata/fp.data`
use perfdata_core::process::Machine;
use perfdata_core::{Order, PerfFile, RecordKind};
use perfdata_symbolize::{SymbolizeOptions, Symbolizer};
use std::collections::HashMap;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes go through `?`: a closed pipe (`| head`) ends the program with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).unwrap_or_else(|| "testdata/fp.data".into());
    let file = PerfFile::open(&path)?;
    let build_ids: HashMap<String, Vec<u8>> = match file.features().build_ids() {
        Some(Ok(ids)) => ids.entries.into_iter().map(|e| (e.filename, e.build_id)).collect(),
        _ => HashMap::new(),
    };
    let mut symbolizer = Symbolizer::new(SymbolizeOptions::default(), build_ids);
    let mut machine = Machine::new();
    for record in file.records(Order::Time)? {
        let record = record?;
        machine.update(&record);
        let RecordKind::Sample(s) = &record.kind else { continue };
        let (Some(ip), Some(pid)) = (s.ip(), s.pid()) else { continue };
        let kernel = record.header.cpumode() == perfdata_core::record::CpuMode::Kernel;
        let frame = if kernel {
            symbolizer.resolve_kernel(&machine, ip)
        } else {
            symbolizer.resolve(machine.find_map(pid, ip, false), ip)
        };
        writeln!(out, "{ip:16x} {} ({})", frame.symbol.as_deref().unwrap_or("[unknown]"), frame.dso)?;
    }
    // What could not be named, and why (one line per DSO).
    for u in symbolizer.unnamed() {
        eprintln!("{u}");
    }
    Ok(())
}
