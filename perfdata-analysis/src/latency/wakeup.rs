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

use super::tp::{has_event, Loc, PerEvent, TpSource};
use super::{Error, ShortStr};
use perfdata_core::{Order, PerfFile, RecordKind};
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
    mut each: impl FnMut(&WakeupLatency),
) -> Result<Vec<String>, Error> {
    let mut tps = TpSource::new(file);
    let mut fields: PerEvent<Fields> = PerEvent::new();
    // tid → (runnable since, from a preemption)
    let mut ready: HashMap<u32, (u64, bool), ahash::RandomState> = HashMap::default();
    let mut has_waking: Option<bool> = None;
    let endian = file.endian();
    let mut recs = file.records(Order::Time)?;
    let mut diagnostics = Vec::new();
    while let Some(rec) = recs.next_record() {
        // After a bad record the reader still delivers what it had queued for time order.
        let r = match rec {
            Ok(r) => r,
            Err(e) => {
                diagnostics.push(e.to_string());
                if diagnostics.len() > 1000 {
                    break;
                }
                continue;
            }
        };
        if tps.observe(&r) {
            fields.clear();
            has_waking = None;
        }
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { continue };
        let Some(f) = fields.get(ev, tps.get(), resolve) else { continue };
        let (Some(raw), Some(time)) = (s.raw(), s.time()) else { continue };
        match f {
            Fields::Wake { pid, is_wakeup } => {
                if is_wakeup
                    && *has_waking
                        .get_or_insert_with(|| has_event(&r.events.events, tps.get(), "sched", "sched_waking"))
                {
                    continue;
                }
                let Some(tid) = pid.uint(raw, endian) else { continue };
                ready.entry(tid as u32).or_insert((time, false));
            }
            Fields::Switch { prev_pid, prev_state, next_pid, next_comm } => {
                let (Some(prev), Some(state), Some(next)) =
                    (prev_pid.uint(raw, endian), prev_state.uint(raw, endian), next_pid.uint(raw, endian))
                else {
                    continue;
                };
                let (prev, next) = (prev as u32, next as u32);
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
                        each(&WakeupLatency {
                            tid: next,
                            comm: ShortStr::new(next_comm.bytes(raw).unwrap_or(&[])),
                            wake_ns,
                            run_ns: time,
                            delay_ns,
                            cpu: s.cpu().unwrap_or(0),
                            preempted,
                        });
                    }
                }
            }
        }
    }
    let tp = tps.get();
    let events = recs.events();
    if !has_event(events, tp, "sched", "sched_switch") {
        return Err(Error::Missing("no sched:sched_switch event in this file".into()));
    }
    if !opts.preempted
        && !["sched_waking", "sched_wakeup", "sched_wakeup_new"].iter().any(|n| has_event(events, tp, "sched", n))
    {
        return Err(Error::Missing(
            "no sched:sched_waking, sched:sched_wakeup or sched:sched_wakeup_new event in this file".into(),
        ));
    }
    for d in recs.diagnostics() {
        if !diagnostics.contains(&d) {
            diagnostics.push(d);
        }
    }
    Ok(diagnostics)
}
