//! Chrome Trace Event JSON (the format Perfetto UI and `chrome://tracing` open): complete events
//! (`ph: "X"`) for what ran on each CPU (one track per CPU, from `sched_switch` when recorded)
//! and on each thread (one track per thread), instant events (`ph: "i"`) for the samples with
//! their folded stacks, and a counter (`ph: "C"`) of lost events. Times are µs (floats, ns kept
//! in the fraction).

use crate::options::FoldedOptions;
use crate::sched::timeline::{sched_timeline, Item, TimelineOptions};
use crate::stacks::StackFolder;
use crate::Error;
use perfdata_core::{Order, PerfFile, RecordKind};
use serde_json::{json, Value};

/// What to put in the trace.
#[derive(Clone, Debug, Default)]
pub struct ChromeOptions {
    /// How sample stacks are folded (frames as `perfdata folded` writes them).
    pub fold: FoldedOptions,
    /// Leave the samples out (scheduler slices only).
    pub no_samples: bool,
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Pid of the CPU tracks (a process of its own in the viewer).
const CPUS_PID: u32 = u32::MAX - 1;

/// The trace of `file`: `{"traceEvents": [...], "displayTimeUnit": "ns"}`.
///
/// Errors: only when the file cannot be read at all; a file without `sched_switch` has no
/// scheduler slices, one without samples no instant events.
pub fn chrome_trace(file: &PerfFile, opts: &ChromeOptions) -> Result<Value, Error> {
    let mut events: Vec<Value> = Vec::new();
    let meta = |pid: u32, tid: Option<u32>, what: &str, name: &str| match tid {
        Some(t) => json!({"ph": "M", "name": what, "pid": pid, "tid": t, "args": {"name": name}}),
        None => json!({"ph": "M", "name": what, "pid": pid, "args": {"name": name}}),
    };
    events.push(meta(CPUS_PID, None, "process_name", "CPUs"));
    // Scheduler slices, one per run (no merging: the width is as fine as a nanosecond).
    match sched_timeline(file, &TimelineOptions { width: u32::MAX, ..Default::default() }) {
        Ok(tl) => {
            for cpu in &tl.cpus {
                events.push(meta(CPUS_PID, Some(*cpu), "thread_name", &format!("CPU {cpu}")));
            }
            for it in &tl.items {
                if let Item::Run(s) = it {
                    let (ts, dur) = (us(s.start_ns), us(s.end_ns - s.start_ns));
                    let args = json!({"tid": s.tid, "comm": s.comm});
                    events.push(json!({"ph": "X", "cat": "sched", "name": s.comm, "ts": ts, "dur": dur,
                        "pid": CPUS_PID, "tid": s.cpu, "args": args}));
                    events.push(json!({"ph": "X", "cat": "sched", "name": format!("running on CPU {}", s.cpu),
                        "ts": ts, "dur": dur, "pid": s.tid, "tid": s.tid, "args": {"cpu": s.cpu}}));
                }
            }
            for w in &tl.waits {
                events.push(json!({"ph": "X", "cat": "sched", "name": "runnable (waiting for a CPU)",
                    "ts": us(w.start_ns), "dur": us(w.end_ns - w.start_ns), "pid": w.tid, "tid": w.tid,
                    "args": {"cpu": w.cpu}}));
            }
        }
        Err(Error::Missing(_)) => {}
        Err(e) => return Err(e),
    }
    // Samples, lost events, thread names.
    let mut folder = (!opts.no_samples).then(|| StackFolder::new(file, &opts.fold));
    let mut named = std::collections::HashSet::new();
    let mut lost_total = 0u64;
    for r in file.records(Order::Time)? {
        let Ok(r) = r else { continue };
        if let Some(f) = folder.as_mut() {
            f.record(&r);
        }
        match &r.kind {
            RecordKind::Sample(s) => {
                let (Some(f), Some(t)) = (folder.as_mut(), s.time()) else { continue };
                let (pid, tid) = (s.pid().unwrap_or(0), s.tid().unwrap_or(0));
                if named.insert(tid) {
                    events.push(meta(pid, Some(tid), "thread_name", &f.comm(tid)));
                }
                let stack: Option<String> = f.stack(&r, s).map(|id| f.frames(id).collect::<Vec<_>>().join(";"));
                let leaf = stack.as_deref().and_then(|s| s.rsplit(';').next()).unwrap_or("sample").to_string();
                let event = r.event.map(|e| e.display_name()).unwrap_or_default();
                events.push(json!({"ph": "i", "s": "t", "cat": "sample", "name": leaf, "ts": us(t),
                    "pid": pid, "tid": tid, "args": {"stack": stack, "event": event, "cpu": s.cpu()}}));
            }
            RecordKind::Lost(l) => {
                lost_total = lost_total.saturating_add(l.lost);
                let t = r.time().unwrap_or(0);
                events.push(json!({"ph": "C", "name": "lost events", "ts": us(t), "pid": CPUS_PID,
                    "args": {"lost": lost_total}}));
            }
            _ => {}
        }
    }
    Ok(json!({"traceEvents": events, "displayTimeUnit": "ns",
        "otherData": {"exporter": concat!("perfdata ", env!("CARGO_PKG_VERSION"))}}))
}
