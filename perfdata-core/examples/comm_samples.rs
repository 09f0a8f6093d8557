//! Count the samples of each comm, as `perf report --sort comm -F overhead,sample,comm` does:
//! records in time order feed the thread timeline, so a sample gets the comm its thread had then.
//!
//! `cargo run --example comm_samples -- testdata/fp.data`
use perfdata_core::process::Machine;
use perfdata_core::{Order, PerfFile, RecordKind};
use std::collections::HashMap;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes go through `?`: a closed pipe (`| head`) ends the program with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).unwrap_or_else(|| "testdata/fp.data".into());
    let file = PerfFile::open(&path)?;
    let mut machine = Machine::new();
    let mut per_comm: HashMap<String, u64> = HashMap::new();
    for record in file.records(Order::Time)? {
        let record = record?;
        machine.update(&record);
        if let RecordKind::Sample(s) = &record.kind {
            *per_comm.entry(machine.comm(s.tid().unwrap_or(u32::MAX))).or_default() += 1;
        }
    }
    let total: u64 = per_comm.values().sum();
    let mut rows: Vec<_> = per_comm.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (comm, n) in rows {
        writeln!(out, "{:7.2}% {n:10} {comm}", 100.0 * n as f64 / total.max(1) as f64)?;
    }
    Ok(())
}
