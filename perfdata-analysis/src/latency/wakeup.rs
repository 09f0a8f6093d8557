//! Wakeup (run-queue) latency from a `perf sched record` file: the time from a task becoming
//! runnable to its next switch-in (analysis-semantics §4).
//!
//! A task becomes runnable at `sched_waking` (or `sched_wakeup` when the recording has no
//! `sched_waking`, as `perf sched timehist` prefers it) and at `sched_wakeup_new`; the first such
//! event counts until the task runs. With [`WakeupOptions::preempted`] (bcc runqlat's rule, the
//! default) a task switched out while still runnable (`prev_state` R or R+) is runnable from that
//! switch-out. The delay ends at the next `sched_switch` with `next_pid` = the task; a switch-out
//! forgets a pending wakeup (a wakeup while the task was running). Without `preempted` the delays
//! are perf 6.1 `perf sched timehist`'s `sch delay`.

use super::tp::{has_event, Loc, TpExtractor, TpFields, MAX_ERRORS};
use super::{Error, ShortStr};
use perfdata_core::reader::Endian;
use perfdata_core::sample::Sample;
use perfdata_core::{Parallel, PerfFile, ReadOptions};
use std::collections::{BTreeMap, HashMap};

/// What counts as becoming runnable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeupOptions {
    /// A task switched out in state R is runnable from the switch-out (bcc runqlat); off: only
    /// wakeups count (perf 6.1 `perf sched timehist`).
    pub preempted: bool,
}

impl Default for WakeupOptions {
    fn default() -> Self {
        WakeupOptions { preempted: true }
    }
}

/// One wait on the run queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeupLatency {
    /// The task (thread id).
    pub tid: u32,
    /// Its comm at the switch-in (`next_comm`).
    pub comm: ShortStr,
    /// When it became runnable, ns.
    pub wake_ns: u64,
    /// When it was switched in, ns.
    pub run_ns: u64,
    /// `run_ns - wake_ns`.
    pub delay_ns: u64,
    /// The CPU it was switched in on.
    pub cpu: u32,
    /// Runnable from a preemption (switch-out in state R), not from a wakeup.
    pub preempted: bool,
}

/// Per-task totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSummary {
    /// The task's last comm.
    pub comm: ShortStr,
    /// Waits.
    pub count: u64,
    /// Sum of the delays, ns.
    pub total_ns: u64,
    /// Longest delay, ns.
    pub max_ns: u64,
}

impl TaskSummary {
    /// Count one wait of this task.
    pub fn add(&mut self, e: &WakeupLatency) {
        self.comm = e.comm;
        self.count = self.count.saturating_add(1);
        self.total_ns = self.total_ns.saturating_add(e.delay_ns);
        self.max_ns = self.max_ns.max(e.delay_ns);
    }
}

/// Per-task summaries of `events`, by tid.
pub fn summarize(events: &[WakeupLatency]) -> BTreeMap<u32, TaskSummary> {
    let mut m: BTreeMap<u32, TaskSummary> = BTreeMap::new();
    for e in events {
        m.entry(e.tid).or_default().add(e);
    }
    m
}

#[derive(Clone, Copy)]
enum Fields {
    Switch {
        prev_pid: Loc,
        prev_state: Loc,
        next_pid: Loc,
        next_comm: Loc,
    },
    /// sched_waking / sched_wakeup_new, and sched_wakeup (`is_wakeup`, ignored when the
    /// recording has sched_waking).
    Wake {
        pid: Loc,
        is_wakeup: bool,
    },
}

impl TpFields for Fields {
    type Item = Item;

    fn resolve(fmt: &perfdata_core::tracepoint::Format) -> Option<Fields> {
        if fmt.system != "sched" {
            return None;
        }
        match fmt.name.as_str() {
            "sched_switch" => Some(Fields::Switch {
                prev_pid: Loc::of(fmt, "prev_pid")?,
                prev_state: Loc::of(fmt, "prev_state")?,
                next_pid: Loc::of(fmt, "next_pid")?,
                next_comm: Loc::of(fmt, "next_comm")?,
            }),
            "sched_waking" | "sched_wakeup_new" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, is_wakeup: false }),
            "sched_wakeup" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, is_wakeup: true }),
            _ => None,
        }
    }

    fn read(&self, s: &Sample<'_>, raw: &[u8], time: u64, endian: Endian) -> Option<Item> {
        Some(match *self {
            Fields::Wake { pid, is_wakeup } => Item::Wake { tid: pid.uint(raw, endian)? as u32, is_wakeup, time },
            Fields::Switch { prev_pid, prev_state, next_pid, next_comm } => Item::Switch {
                prev: prev_pid.uint(raw, endian)? as u32,
                state: prev_state.uint(raw, endian)?,
                next: next_pid.uint(raw, endian)? as u32,
                comm: ShortStr::new(next_comm.bytes(raw).unwrap_or(&[])),
                time,
                cpu: s.cpu().unwrap_or(0),
            },
        })
    }
}

/// The run-queue waits of `file`, in switch-in order (of a damaged file, those before the
/// damage: [`wakeup_latency_each`] also says where reading stopped).
pub fn wakeup_latency(file: &PerfFile, opts: &WakeupOptions) -> Result<Vec<WakeupLatency>, Error> {
    let mut v = Vec::new();
    wakeup_latency_each(file, opts, |e| v.push(*e))?;
    Ok(v)
}

/// Stream the run-queue waits of `file` to `each`, in switch-in order. Memory is bounded by the
/// number of runnable tasks.
///
/// Returns why reading stopped early, if it did (a truncated or damaged file: every wait before
/// the damage was reported).
///
/// Errors: [`Error::Missing`] without a `sched:sched_switch` event, or without any of
/// `sched:sched_waking`, `sched:sched_wakeup`, `sched:sched_wakeup_new` when `preempted` is off.
pub fn wakeup_latency_each(
    file: &PerfFile,
    opts: &WakeupOptions,
    each: impl FnMut(&WakeupLatency),
) -> Result<Vec<String>, Error> {
    wakeup_latency_par(file, opts, Parallel::default(), each)
}

/// One sched sample, its fields read by name: what the waits need, in time order.
#[derive(Clone, Copy)]
enum Item {
    Wake { tid: u32, is_wakeup: bool, time: u64 },
    Switch { prev: u32, state: u64, next: u32, comm: ShortStr, time: u64, cpu: u32 },
}

/// [`wakeup_latency_each`] with the records read by worker threads as `par` says.
pub(crate) fn wakeup_latency_par(
    file: &PerfFile,
    opts: &WakeupOptions,
    par: Parallel,
    mut each: impl FnMut(&WakeupLatency),
) -> Result<Vec<String>, Error> {
    // The samples' fields are taken out in file order (by worker threads, a chunk of the file
    // each, on large files) and only those small values are put in time order.
    let extract = TpExtractor::<Fields>::new(file);
    file.ordered_par(ReadOptions::default(), par, extract, |recs| {
        // tid → (runnable since, from a preemption)
        let mut ready: HashMap<u32, (u64, bool), ahash::RandomState> = HashMap::default();
        let mut has_waking: Option<bool> = None;
        let mut diagnostics = Vec::new();
        while let Some(item) = recs.next() {
            // After a bad record the reader still delivers what it had queued for time order.
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    diagnostics.push(e.to_string());
                    continue;
                }
            };
            if recs.extractor().errors.len() > MAX_ERRORS {
                break;
            }
            match item {
                Item::Wake { tid, is_wakeup, time } => {
                    if is_wakeup
                        && *has_waking.get_or_insert_with(|| {
                            has_event(recs.events(), recs.extractor().tps.get(), "sched", "sched_waking")
                        })
                    {
                        continue;
                    }
                    ready.entry(tid).or_insert((time, false));
                }
                Item::Switch { prev, state, next, comm, time, cpu } => {
                    if prev != 0 {
                        // R (0) or R+ (TASK_REPORT_MAX, 0x100): still runnable.
                        if opts.preempted && state & 0xff == 0 {
                            ready.insert(prev, (time, true));
                        } else {
                            ready.remove(&prev);
                        }
                    }
                    if next == 0 {
                        continue;
                    }
                    if let Some((wake_ns, preempted)) = ready.remove(&next) {
                        if let Some(delay_ns) = time.checked_sub(wake_ns) {
                            each(&WakeupLatency { tid: next, comm, wake_ns, run_ns: time, delay_ns, cpu, preempted });
                        }
                    }
                }
            }
        }
        let tp = recs.extractor().tps.get();
        let events = recs.events();
        let damaged = !file.diagnostics().is_empty() || !diagnostics.is_empty() || !recs.diagnostics().is_empty();
        let record = "`perf sched record` (or `perf record -e sched:sched_switch -e sched:sched_waking -a`)";
        if !has_event(events, tp, "sched", "sched_switch") {
            return Err(crate::error::missing_event(file, "sched:sched_switch", damaged, tp.is_none(), record));
        }
        if !opts.preempted
            && !["sched_waking", "sched_wakeup", "sched_wakeup_new"].iter().any(|n| has_event(events, tp, "sched", n))
        {
            return Err(crate::error::missing_event(
                file,
                "sched:sched_waking, sched:sched_wakeup or sched:sched_wakeup_new",
                damaged,
                tp.is_none(),
                record,
            ));
        }
        diagnostics.extend(recs.extractor().errors.iter().cloned());
        for d in recs.diagnostics() {
            if !diagnostics.contains(&d) {
                diagnostics.push(d);
            }
        }
        Ok(diagnostics)
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_read_in_parallel_give_the_waits_one_thread_gives() {
        // Chunks of 256 bytes: nearly every round of the recordings is a chunk of its own.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        for name in ["sched.data", "sched-mix.data"] {
            let file = PerfFile::open(dir.join(name)).unwrap();
            for preempted in [true, false] {
                let opts = WakeupOptions { preempted };
                let run = |par: Parallel| {
                    let mut waits = Vec::new();
                    let diagnostics = wakeup_latency_par(&file, &opts, par, |w| waits.push(*w)).unwrap();
                    (waits, diagnostics)
                };
                let one = run(Parallel { threads: 1, ..Default::default() });
                let par = run(Parallel { threads: 2, chunk_bytes: 256, min_bytes: 0, max_chunk_bytes: usize::MAX });
                assert!(one.0.len() > 5, "{name}: {} waits", one.0.len());
                assert_eq!(one, par, "{name} (preempted: {preempted})");
            }
        }
    }
}
