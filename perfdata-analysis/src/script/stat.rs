//! `perf stat record` files: perf script prints the counters at each STAT_ROUND (perf's
//! `__process_stat`): `CPU THREAD VAL ENA RUN TIME EVENT`, one row per event, CPU and thread.

use std::collections::HashMap;
use std::fmt::Write as _;

use perfdata_core::{Record, RecordKind};

/// The counters of a `perf stat record` file as its records arrive.
#[derive(Default)]
pub(super) struct StatTable {
    /// The CPU map's CPUs and the thread map's pids (perf's evsel cpus and threads).
    cpus: Vec<i32>,
    threads: Vec<i64>,
    /// (event index, CPU, thread index) → (val, ena, run).
    counts: HashMap<(usize, i32, u32), (u64, u64, u64)>,
    header: bool,
}

impl StatTable {
    /// Take in a record; at a STAT_ROUND, append perf's rows to `out`.
    pub(super) fn record(&mut self, r: &Record<'_>, out: &mut Vec<u8>) {
        match &r.kind {
            RecordKind::CpuMap(m) => self.cpus = m.data.cpus(),
            RecordKind::ThreadMap(t) => self.threads = t.entries().map(|(p, _)| p as i64).collect(),
            RecordKind::Stat(s) => {
                if let Some(ev) = r.events.events.iter().position(|e| e.ids.contains(&s.id)) {
                    self.counts.insert((ev, s.cpu as i32, s.thread), (s.val, s.ena, s.run));
                }
            }
            RecordKind::StatRound(round) => {
                let mut text = String::new();
                if !self.header {
                    self.header = true;
                    let _ = writeln!(
                        text,
                        "{:>3} {:>8} {:>15} {:>15} {:>15} {:>15} EVENT",
                        "CPU", "THREAD", "VAL", "ENA", "RUN", "TIME"
                    );
                }
                let nthreads = self.threads.len().max(1);
                for (e, ev) in r.events.events.iter().enumerate() {
                    let name = ev.display_name();
                    for thread in 0..nthreads {
                        let cpus: &[i32] = if self.cpus.is_empty() { &[-1] } else { &self.cpus };
                        for cpu in cpus {
                            let (val, ena, run) =
                                self.counts.get(&(e, *cpu, thread as u32)).copied().unwrap_or((0, 0, 0));
                            let pid = self.threads.get(thread).copied().unwrap_or(-1);
                            let _ =
                                writeln!(text, "{cpu:3} {pid:8} {val:15} {ena:15} {run:15} {:15} {name}", round.time);
                        }
                    }
                }
                out.extend_from_slice(text.as_bytes());
            }
            _ => {}
        }
    }
}
