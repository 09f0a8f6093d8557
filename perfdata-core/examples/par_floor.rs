//! The floor of a time-ordered parallel reading (`PerfFile::ordered_par`): what an analysis that
//! needs its values in perf's time order pays before it does anything with them.
//!
//! `par_floor none FILE`: the worker threads frame every record and keep nothing (reading alone);
//! `par_floor ts FILE`: they keep every timestamped record's timestamp (8 bytes), which this
//! thread puts in time order and counts. Prints the count and the wall time from opening the file.
use perfdata_core::{Extract, ParExtract, Parallel, PerfFile, ReadOptions, RecordRef};

/// Keeps each record's timestamp (`true`) or nothing.
#[derive(Clone, Copy)]
struct Times(bool);

impl Extract<u64> for Times {
    fn extract(&mut self, r: &RecordRef<'_>) -> Option<u64> {
        if self.0 {
            r.time()
        } else {
            None
        }
    }
}

impl ParExtract<u64> for Times {
    type Part = ();
    fn fork(&self) -> Self {
        *self
    }
    fn take_part(&mut self) {}
    fn join_part(&mut self, _: ()) {}
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: par_floor none|ts FILE";
    let mut args = std::env::args().skip(1);
    let mode = args.next().ok_or(usage)?;
    let path = args.next().ok_or(usage)?;
    let keep = match mode.as_str() {
        "none" => false,
        "ts" => true,
        _ => return Err(usage.into()),
    };
    let t = std::time::Instant::now();
    let file = PerfFile::open(&path)?;
    let n = file.ordered_par(ReadOptions::default(), Parallel::default(), Times(keep), |o| o.by_ref().count())?;
    println!("{mode}: {n} values in time order, {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    Ok(())
}
