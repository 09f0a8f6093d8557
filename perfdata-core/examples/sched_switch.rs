//! Decode the fields of every `sched:sched_switch` sample by name, from the recording's own format,
//! as `perf script` shows them.
//!
//! `cargo run --example sched_switch -- testdata/sched.data`
use perfdata_core::PerfFile;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes go through `?`: a closed pipe (`| head`) ends the program with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).unwrap_or_else(|| "testdata/sched.data".into());
    let file = PerfFile::open(&path)?;
    for switch in file.tracepoints("sched:sched_switch")? {
        let switch = switch?;
        let text = |name: &str| switch.field(name).and_then(|v| v.as_str().map(|s| s.into_owned())).unwrap_or_default();
        let int = |name: &str| switch.field(name).and_then(|v| v.as_i64()).unwrap_or(-1);
        let t = switch.sample.time().unwrap_or(0);
        writeln!(
            out,
            "[{:03}] {}.{:06}: {}:{} (state {}) ==> {}:{}",
            switch.sample.cpu().unwrap_or(0),
            t / 1_000_000_000,
            t % 1_000_000_000 / 1000,
            text("prev_comm"),
            int("prev_pid"),
            int("prev_state"),
            text("next_comm"),
            int("next_pid"),
        )?;
    }
    Ok(())
}
