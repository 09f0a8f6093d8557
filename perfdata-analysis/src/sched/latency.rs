//! `perf sched latency`: per task, the run time and the scheduling delays (wakeup to switch-in).
//!
//! Per thread perf keeps a list of "atoms" (a switch-out and what followed); only the last one is
//! ever looked at, so this keeps one per thread: memory is bounded by the number of threads.
//!
//! * `sched_switch` at t on a CPU: a `prev` not current on that CPU counts a context-switch bug;
//!   `prev` gets a new atom (waiting for the CPU since t if its state is runnable, else
//!   sleeping); `next`, if never seen, gets a runnable atom at t; then if `next`'s last atom
//!   waits for the CPU, its delay t − wakeup ends there (an atom woken after t is dropped).
//! * a wakeup of a sleeping thread at t makes its last atom wait for the CPU from t (a wakeup
//!   before the thread's switch-out counts an unordered timestamp).
//! * `sched_stat_runtime` adds run time to the thread.
//!
//! [`Compat::Perf61`] reproduces perf 6.1 exactly: `sched_waking` is not a wakeup (6.1 only knows
//! `sched_wakeup` and `sched_wakeup_new`, and `perf sched record` stores `sched_waking` on every
//! kernel since 4.x, so only new tasks are ever woken), and only `prev_state == 0` is runnable
//! (a preempted task, `R+`, counts as sleeping). [`Compat::Modern`] (the default) takes
//! `sched_waking` as the wakeup (`sched_wakeup` only when the recording has no waking), and counts
//! preempted tasks as runnable, as perf does since 6.5; the header says `Count`, not `Switches`.

use super::events::{drive, secs_usec, At, Ev, Handler, PerCpu, WakeKind};
use super::state::{perf61_latency_letter, TaskStates};
use super::Compat;
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::PerfFile;
use std::collections::HashMap;
use std::fmt::Write;

/// How rows are grouped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    /// One row per final comm (perf's default: `comm:(N)` for N threads).
    #[default]
    Comm,
    /// One row per thread (`-p/--pids`).
    Tid,
}

/// A `-s/--sort` key; each sorts descending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// Thread id.
    Pid,
    /// Average delay.
    Avg,
    /// Largest delay.
    Max,
    /// Number of delays (`Switches` / `Count`).
    Switch,
    /// Run time.
    Runtime,
}

impl std::str::FromStr for SortKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim() {
            "pid" => SortKey::Pid,
            "avg" => SortKey::Avg,
            "max" => SortKey::Max,
            "switch" => SortKey::Switch,
            "runtime" => SortKey::Runtime,
            o => return Err(format!("unknown sort key {o:?} (pid, avg, max, switch, runtime)")),
        })
    }
}

/// Parse perf's `-s` list: `"max,runtime"`.
pub fn parse_sort(s: &str) -> Result<Vec<SortKey>, String> {
    s.split(',').filter(|k| !k.trim().is_empty()).map(str::parse).collect()
}

/// perf's default sort: `avg, max, switch, runtime`.
pub const DEFAULT_SORT: [SortKey; 4] = [SortKey::Avg, SortKey::Max, SortKey::Switch, SortKey::Runtime];

/// Options of [`sched_latency`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyOptions {
    /// Grouping.
    pub by: GroupBy,
    /// Sort keys, first decides (perf's default when empty).
    pub sort: Vec<SortKey>,
    /// Semantics.
    pub compat: Compat,
    /// `-C CPU`: perf's profile-CPU mode (wakeups of running tasks count, migrations move
    /// atoms); it does not restrict the rows to that CPU.
    pub cpu: Option<u32>,
}

impl Default for LatencyOptions {
    fn default() -> Self {
        LatencyOptions { by: GroupBy::Comm, sort: DEFAULT_SORT.to_vec(), compat: Compat::Modern, cpu: None }
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyRow {
    /// The task's final comm (`:TID` for a thread nothing named).
    pub task: String,
    /// The thread id (grouped by comm: the thread whose numbers perf kept, the highest tid).
    pub tid: u32,
    /// Threads in the row (1 with [`GroupBy::Tid`]).
    pub tids: u32,
    /// Run time from `sched_stat_runtime`, ns.
    pub runtime_ns: u64,
    /// Delays measured (perf's `Switches` column; newer perf's `Count`).
    pub switches: u64,
    /// Sum of the delays, ns.
    pub total_delay_ns: u64,
    /// `total_delay_ns / switches` (integer ns, as perf).
    pub avg_delay_ns: u64,
    /// Largest delay, ns.
    pub max_delay_ns: u64,
    /// When the largest delay started (the wakeup), ns; 0 if none.
    pub max_delay_start_ns: u64,
    /// When it ended (the switch-in), ns; 0 if none.
    pub max_delay_end_ns: u64,
}

/// perf's anomaly counters (the `INFO:` lines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatencyInfo {
    /// Switch-outs of a task that was not the CPU's current one.
    pub context_switch_bugs: u64,
    /// Wakeups looked at (the denominator of the unordered and context-switch-bug lines).
    pub nr_timestamps: u64,
    /// Wakeups earlier than the task's switch-out.
    pub unordered_timestamps: u64,
    /// Events lost (LOST records).
    pub lost_events: u64,
    /// LOST records.
    pub lost_chunks: u64,
    /// Records read (the denominator of the lost line).
    pub nr_events: u64,
    /// Switches whose time went back on their CPU (perf stops there; these are skipped).
    pub time_reversals: u64,
}

/// The result of [`sched_latency`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Latency {
    /// Rows in output order.
    pub rows: Vec<LatencyRow>,
    /// Anomaly counters.
    pub info: LatencyInfo,
    /// The semantics used (decides the header).
    pub compat: Compat,
    /// Why reading stopped early, if it did (every complete record before was analysed).
    pub diagnostics: Vec<String>,
}

impl Latency {
    /// Sum of the rows' run time, ns (`TOTAL:`).
    pub fn total_runtime_ns(&self) -> u64 {
        self.rows.iter().map(|r| r.runtime_ns).fold(0, u64::saturating_add)
    }

    /// Sum of the rows' delays counted.
    pub fn total_switches(&self) -> u64 {
        self.rows.iter().map(|r| r.switches).fold(0, u64::saturating_add)
    }

    /// The table as `perf sched latency` prints it (perf 6.1's layout; [`Compat::Modern`] says
    /// `Count` where 6.1 says `Switches`).
    pub fn text(&self) -> String {
        let mut o = String::new();
        let dashes = "-".repeat(139);
        let col = if self.compat == Compat::Perf61 { "Switches" } else { "Count   " };
        let _ = writeln!(o, "\n {dashes}");
        let _ = writeln!(
            o,
            "  Task                  |   Runtime ms  | {col} | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |"
        );
        let _ = writeln!(o, " {dashes}");
        for r in &self.rows {
            let name =
                if r.tids > 1 { format!("  {}:({}) ", r.task, r.tids) } else { format!("  {}:{} ", r.task, r.tid) };
            let _ = writeln!(
                o,
                "{name:<24}|{:11.3} ms |{:9} | avg:{:8.3} ms | max:{:8.3} ms | max start: {:>12} s | max end: {:>12} s",
                r.runtime_ns as f64 / 1e6,
                r.switches,
                r.avg_delay_ns as f64 / 1e6,
                r.max_delay_ns as f64 / 1e6,
                secs_usec(r.max_delay_start_ns),
                secs_usec(r.max_delay_end_ns),
            );
        }
        let _ = writeln!(o, " {}", "-".repeat(113));
        let _ = writeln!(
            o,
            "  TOTAL:                |{:11.3} ms |{:9} |",
            self.total_runtime_ns() as f64 / 1e6,
            self.total_switches()
        );
        let _ = writeln!(o, " {}", "-".repeat(51));
        let i = &self.info;
        if i.unordered_timestamps > 0 && i.nr_timestamps > 0 {
            let _ = writeln!(
                o,
                "  INFO: {:.3}% unordered timestamps ({} out of {})",
                i.unordered_timestamps as f64 / i.nr_timestamps as f64 * 100.0,
                i.unordered_timestamps,
                i.nr_timestamps
            );
        }
        if i.lost_events > 0 && i.nr_events > 0 {
            let _ = writeln!(
                o,
                "  INFO: {:.3}% lost events ({} out of {}, in {} chunks)",
                i.lost_events as f64 / i.nr_events as f64 * 100.0,
                i.lost_events,
                i.nr_events,
                i.lost_chunks
            );
        }
        if i.context_switch_bugs > 0 && i.nr_timestamps > 0 {
            let _ = write!(
                o,
                "  INFO: {:.3}% context switch bugs ({} out of {})",
                i.context_switch_bugs as f64 / i.nr_timestamps as f64 * 100.0,
                i.context_switch_bugs,
                i.nr_timestamps
            );
            if i.lost_events > 0 {
                o.push_str(" (due to lost events?)");
            }
            o.push('\n');
        }
        o.push('\n');
        o
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomState {
    Sleeping,
    WaitCpu,
    SchedIn,
    Ignore,
}

#[derive(Clone, Copy, Debug)]
struct Atom {
    state: AtomState,
    sched_out: u64,
    wake: u64,
}

#[derive(Clone, Debug, Default)]
struct Work {
    last: Option<Atom>,
    total_runtime: u64,
    nb_atoms: u64,
    total_lat: u64,
    max_lat: u64,
    max_start: u64,
    max_end: u64,
}

impl Work {
    fn sched_out(&mut self, runnable: bool, t: u64) {
        let state = if runnable { AtomState::WaitCpu } else { AtomState::Sleeping };
        self.last = Some(Atom { state, sched_out: t, wake: if runnable { t } else { 0 } });
    }

    fn sched_in(&mut self, t: u64) {
        let Some(a) = self.last.as_mut() else { return };
        if a.state != AtomState::WaitCpu {
            return;
        }
        if t < a.wake {
            a.state = AtomState::Ignore;
            return;
        }
        a.state = AtomState::SchedIn;
        let delta = t - a.wake;
        self.total_lat = self.total_lat.saturating_add(delta);
        if delta > self.max_lat {
            self.max_lat = delta;
            self.max_start = a.wake;
            self.max_end = t;
        }
        self.nb_atoms += 1;
    }
}

struct Lat {
    compat: Compat,
    cpu: Option<u32>,
    works: HashMap<u32, Work, ahash::RandomState>,
    curr_pid: PerCpu<Option<u32>>,
    last_switch: PerCpu<u64>,
    info: LatencyInfo,
}

impl Lat {
    fn work(&mut self, tid: u32, new_atom: impl FnOnce(&mut Work)) -> &mut Work {
        work(&mut self.works, tid, new_atom)
    }

    fn runnable(&self, state: u64, states: &TaskStates) -> bool {
        match self.compat {
            Compat::Perf61 => perf61_latency_letter(state) == 'R',
            Compat::Modern => states.is_runnable(state),
        }
    }
}

/// The thread's work, a new one starting with `new_atom`.
fn work(works: &mut HashMap<u32, Work, ahash::RandomState>, tid: u32, new_atom: impl FnOnce(&mut Work)) -> &mut Work {
    let w = works.entry(tid).or_default();
    if w.last.is_none() {
        new_atom(w);
    }
    w
}

impl Handler for Lat {
    fn event(&mut self, at: &At, ev: Ev<'_>, _m: &Machine, states: &TaskStates) {
        let t = at.time;
        match ev {
            Ev::Switch { prev_pid, prev_state, next_pid, .. } => {
                let Some(curr) = self.curr_pid.get_mut(at.cpu) else { return };
                if curr.is_some_and(|c| c != prev_pid) {
                    self.info.context_switch_bugs += 1;
                }
                *curr = Some(next_pid);
                let Some(last) = self.last_switch.get_mut(at.cpu) else { return };
                if *last != 0 && t < *last {
                    self.info.time_reversals += 1;
                    return;
                }
                *last = t;
                let runnable = self.runnable(prev_state, states);
                self.works.entry(prev_pid).or_default().sched_out(runnable, t);
                let w = self.work(next_pid, |w| w.sched_out(true, t));
                w.sched_in(t);
            }
            Ev::Runtime { pid, runtime } => {
                let w = self.work(pid, |w| w.sched_out(true, t));
                w.total_runtime = w.total_runtime.saturating_add(runtime);
            }
            Ev::Wakeup { pid, kind } => {
                let handled = match self.compat {
                    Compat::Perf61 => kind != WakeKind::Waking,
                    Compat::Modern => kind != WakeKind::Wakeup || !at.has_waking,
                };
                if !handled {
                    return;
                }
                let profile = self.cpu.is_some();
                let w = work(&mut self.works, pid, |w| w.sched_out(false, t));
                let Some(a) = w.last.as_mut() else { return };
                if !profile && a.state != AtomState::Sleeping {
                    return;
                }
                self.info.nr_timestamps += 1;
                if a.sched_out > t {
                    self.info.unordered_timestamps += 1;
                    return;
                }
                a.state = AtomState::WaitCpu;
                a.wake = t;
            }
            Ev::Migrate { pid, .. } => {
                // Only in perf's profile-CPU mode (-C): the task's last atom restarts here.
                if self.cpu.is_none() {
                    return;
                }
                let Some(w) = self.works.get_mut(&pid) else { return };
                let Some(a) = w.last.as_mut() else { return };
                self.info.nr_timestamps += 1;
                a.sched_out = t;
                a.wake = t;
            }
        }
    }
}

/// `perf sched latency` of `file`.
///
/// Errors: [`Error::Missing`] when the file has no `sched:sched_switch` event (or no tracing
/// data), [`Error::Read`] when it cannot be read at all. A corrupt record stops the analysis
/// there with a diagnostic in [`Latency::diagnostics`].
pub fn sched_latency(file: &PerfFile, opts: &LatencyOptions) -> Result<Latency, Error> {
    let mut lat = Lat {
        compat: opts.compat,
        cpu: opts.cpu,
        works: HashMap::default(),
        curr_pid: PerCpu::default(),
        last_switch: PerCpu::default(),
        info: LatencyInfo::default(),
    };
    let stream = drive(file, &mut lat)?;
    lat.info.lost_events = stream.lost_events;
    lat.info.lost_chunks = stream.lost_chunks;
    lat.info.nr_events = stream.records;
    let machine = &stream.machine;
    let comm = |tid: u32| machine.comm(tid);
    // perf walks its threads in descending tid order (the atom tree puts larger ones left).
    let mut works: Vec<(u32, Work)> = lat.works.into_iter().collect();
    works.sort_unstable_by_key(|w| std::cmp::Reverse(w.0));
    let mut rows: Vec<LatencyRow> = Vec::new();
    let row = |tid: u32, w: &Work, task: String| LatencyRow {
        task,
        tid,
        tids: 1,
        runtime_ns: w.total_runtime,
        switches: w.nb_atoms,
        total_delay_ns: w.total_lat,
        avg_delay_ns: 0,
        max_delay_ns: w.max_lat,
        max_delay_start_ns: w.max_start,
        max_delay_end_ns: w.max_end,
    };
    match opts.by {
        GroupBy::Tid => rows.extend(works.iter().map(|(tid, w)| row(*tid, w, comm(*tid)))),
        GroupBy::Comm => {
            // Merged by final comm, in descending comm order; a group's max is replaced only
            // by a strictly greater one, in descending tid order.
            let mut groups: std::collections::BTreeMap<String, LatencyRow> = std::collections::BTreeMap::new();
            for (tid, w) in &works {
                let c = comm(*tid);
                match groups.get_mut(&c) {
                    Some(g) => {
                        g.tids += 1;
                        g.runtime_ns = g.runtime_ns.saturating_add(w.total_runtime);
                        g.switches += w.nb_atoms;
                        g.total_delay_ns = g.total_delay_ns.saturating_add(w.total_lat);
                        if g.max_delay_ns < w.max_lat {
                            g.max_delay_ns = w.max_lat;
                            g.max_delay_start_ns = w.max_start;
                            g.max_delay_end_ns = w.max_end;
                        }
                    }
                    None => {
                        groups.insert(c.clone(), row(*tid, w, c));
                    }
                }
            }
            rows.extend(groups.into_values().rev());
        }
    }
    for r in &mut rows {
        r.avg_delay_ns = r.total_delay_ns.checked_div(r.switches).unwrap_or(0);
    }
    // perf skips rows without delays and the idle task.
    rows.retain(|r| r.switches > 0 && r.task != "swapper");
    let keys: &[SortKey] = if opts.sort.is_empty() { &DEFAULT_SORT } else { &opts.sort };
    rows.sort_by(|a, b| {
        keys.iter()
            .map(|k| match k {
                SortKey::Pid => b.tid.cmp(&a.tid),
                SortKey::Avg => b.avg_delay_ns.cmp(&a.avg_delay_ns),
                SortKey::Max => b.max_delay_ns.cmp(&a.max_delay_ns),
                SortKey::Switch => b.switches.cmp(&a.switches),
                SortKey::Runtime => b.runtime_ns.cmp(&a.runtime_ns),
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(Latency { rows, info: lat.info, compat: opts.compat, diagnostics: stream.diagnostics })
}
