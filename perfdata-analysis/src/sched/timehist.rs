//! `perf sched timehist`: one row per context switch, for the task switched out: how long it
//! waited off the CPU before it last ran (split into sleep, iowait and preempted time), its
//! scheduling delay (wakeup to switch-in) and how long it ran; optional wakeup and migration
//! rows; a per-task run-time summary with idle statistics.
//!
//! Rules (perf 6.1, checked row by row): the task of a switch is the CPU's idle task when
//! `prev_pid` is 0, else the sample's thread. `tprev` is the time of the previous switch on the
//! same CPU. At a switch at t: run = t − tprev; delay = tprev − wakeup (if woken before
//! tprev); wait = tprev − the task's previous switch-out, counted as preempt if that switch-out
//! left it runnable, iowait if `D`, else sleep. The first wakeup after a switch-out counts;
//! `sched_waking` is the wakeup when recorded (`sched_wakeup` is then ignored), and
//! `sched_wakeup_new` too.
//!
//! [`Compat::Perf61`] keeps perf 6.1's reading of `prev_state`: only 0 is runnable, so a
//! preempted task (`R+`) has its wait counted as sleep, and its state letter is
//! `"RSDTtZXxKWP"[ffs(state)]` (preempted prints `W`, dead `Z`, zombie `X` on current kernels).
//! [`Compat::Modern`] reads the states from the recording's format (preempted is `R`, its wait
//! is preempt time) and, as a preempted task is runnable from its switch-out, its scheduling
//! delay runs from there (perf 6.1 has no delay for it).

use super::events::{drive, pad, push_secs_usec, push_uint, sched_time, At, Ev, Handler, PerCpu, WakeKind};
use super::state::{perf61_timehist_letter, TaskStates};
use super::Compat;
use crate::options::TimeRange;
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::{HeaderInfo, PerfFile};
use std::collections::HashMap;
use std::fmt::Write;

/// Which summary to make.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SummaryMode {
    /// Rows only.
    #[default]
    None,
    /// Rows and the summary (`-S`).
    With,
    /// The summary only (`-s`).
    Only,
}

/// Options of [`sched_timehist_each`], named after perf's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimehistOptions {
    /// Semantics.
    pub compat: Compat,
    /// `-w`: wakeup rows.
    pub wakeups: bool,
    /// `-M`: migration rows (and the migrations column of the summary).
    pub migrations: bool,
    /// `-V`: a column per CPU marking the switching one.
    pub cpu_visual: bool,
    /// `--state`: the switched-out task's state; with a summary, the wait-time summary.
    pub state: bool,
    /// `-n`: the task switched in.
    pub next: bool,
    /// `-s` / `-S`.
    pub summary: SummaryMode,
    /// `-I`: idle histogram (only switches to or from idle; idle time per task).
    pub idle_hist: bool,
    /// `-p`: only these processes.
    pub pids: Option<Vec<u32>>,
    /// `-t`: only these threads.
    pub tids: Option<Vec<u32>>,
    /// `-C`: only these CPUs.
    pub cpus: Option<Vec<u32>>,
    /// `--time`.
    pub time: Option<TimeRange>,
}

/// A context switch, for the task switched out.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchRow<'a> {
    /// Time, ns (the end of the `--time` window when the switch is past it).
    pub time_ns: u64,
    /// CPU.
    pub cpu: u32,
    /// Thread (0 for the idle task).
    pub tid: u32,
    /// Process (0 for the idle task).
    pub pid: u32,
    /// Comm (`<idle>` for the idle task).
    pub comm: &'a str,
    /// The idle task of the CPU.
    pub idle: bool,
    /// Off the CPU before this run: sleep + iowait + preempt, ns.
    pub wait_ns: u64,
    /// Of which asleep, ns.
    pub sleep_ns: u64,
    /// Of which in `D` (uninterruptible) state, ns.
    pub iowait_ns: u64,
    /// Of which runnable (preempted), ns.
    pub preempt_ns: u64,
    /// Scheduling delay: wakeup to switch-in, ns.
    pub delay_ns: u64,
    /// Time on the CPU, ns.
    pub run_ns: u64,
    /// State letter at switch-out (per the semantics; `I` for idle).
    pub state: char,
    /// `prev_state` as recorded.
    pub prev_state: u64,
    /// `prev_state` as the tracepoint prints it (`R+`, `S`, `D`…).
    pub state_label: &'a str,
    /// Comm of the task switched in (`next_comm`).
    pub next_comm: &'a str,
    /// Its pid (`next_pid`).
    pub next_pid: u32,
    /// perf's CPU count for `-V` at this row.
    pub ncpus: u32,
}

/// A wakeup (`-w`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WakeupRow<'a> {
    /// Time, ns.
    pub time_ns: u64,
    /// CPU of the waker.
    pub cpu: u32,
    /// Waker thread, process, comm.
    pub tid: u32,
    /// Waker process.
    pub pid: u32,
    /// Waker comm.
    pub comm: &'a str,
    /// Woken thread.
    pub wakee_tid: u32,
    /// Woken thread's process as perf knows it (0 when unknown).
    pub wakee_pid: u32,
    /// Woken thread's comm.
    pub wakee_comm: &'a str,
    /// perf's CPU count for `-V` at this row.
    pub ncpus: u32,
}

/// A migration (`-M`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrationRow<'a> {
    /// Time, ns.
    pub time_ns: u64,
    /// CPU that reported it.
    pub cpu: u32,
    /// Thread that caused it.
    pub tid: u32,
    /// Its process.
    pub pid: u32,
    /// Its comm.
    pub comm: &'a str,
    /// Migrated thread.
    pub task_tid: u32,
    /// Its process as perf knows it (0 when unknown).
    pub task_pid: u32,
    /// Its comm.
    pub task_comm: &'a str,
    /// From CPU.
    pub orig_cpu: u32,
    /// To CPU.
    pub dest_cpu: u32,
    /// perf's CPU count for `-V` at this row.
    pub ncpus: u32,
}

/// One row of the time history.
#[derive(Clone, Debug, PartialEq)]
pub enum Row<'a> {
    /// A context switch.
    Switch(SwitchRow<'a>),
    /// A wakeup (`-w`).
    Wakeup(WakeupRow<'a>),
    /// A migration (`-M`).
    Migration(MigrationRow<'a>),
}

/// A task of the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSummary {
    /// Final comm.
    pub comm: String,
    /// Thread.
    pub tid: u32,
    /// Process (0 when perf knows none).
    pub pid: u32,
    /// Parent thread (perf's `ppid`: the forking thread), -1 when unknown.
    pub ppid: i64,
    /// It exited (perf lists it under `Terminated tasks:`).
    pub terminated: bool,
    /// Switch rows (perf's `sched-in` count; `sched-out` with `-I`).
    pub count: u64,
    /// Total run time (idle time with `-I`), ns.
    pub run_ns: u64,
    /// Shortest run, ns.
    pub min_run_ns: u64,
    /// Mean run (perf's running mean, truncated), ns.
    pub avg_run_ns: u64,
    /// Longest run, ns.
    pub max_run_ns: u64,
    /// Relative standard deviation of the mean, % (perf's `stddev`).
    pub stddev_pct: f64,
    /// Migrations (counted only with `-M`).
    pub migrations: u64,
    /// Total sleep, ns.
    pub sleep_ns: u64,
    /// Total iowait, ns.
    pub iowait_ns: u64,
    /// Total preempted, ns.
    pub preempt_ns: u64,
    /// Total scheduling delay, ns.
    pub delay_ns: u64,
}

/// Idle time of a CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdleStat {
    /// CPU.
    pub cpu: u32,
    /// Idle time, ns; `None`: the idle task never switched out (idle the entire window, or
    /// the recording lost its events).
    pub idle_ns: Option<u64>,
    /// Share of the window, %.
    pub pct: f64,
}

/// The summary (`-s`, `-S`).
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Tasks with at least one switch row, running ones first, in perf's order.
    pub tasks: Vec<TaskSummary>,
    /// Per-CPU idle statistics; `None` when a filter skipped samples (perf then omits them).
    pub idle: Option<Vec<IdleStat>>,
    /// Tasks listed.
    pub total_tasks: u64,
    /// Switch rows of the tasks and of the idle tasks.
    pub total_switches: u64,
    /// Run time of the tasks, ns.
    pub total_run_ns: u64,
    /// First to last switch, ns.
    pub window_ns: u64,
    /// perf's CPU count (`x N`).
    pub nr_cpus: u32,
}

/// What [`sched_timehist_each`] returns besides the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Timehist {
    /// The summary, when asked for.
    pub summary: Option<Summary>,
    /// Switch rows made.
    pub switches: u64,
    /// Why reading stopped early, if it did.
    pub diagnostics: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
struct Stats {
    n: u64,
    mean: f64,
    m2: f64,
    min: u64,
    max: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats { n: 0, mean: 0.0, m2: 0.0, min: u64::MAX, max: 0 }
    }
}

impl Stats {
    fn update(&mut self, v: u64) {
        self.n += 1;
        let delta = v as f64 - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (v as f64 - self.mean);
        self.max = self.max.max(v);
        self.min = self.min.min(v);
    }

    /// perf's `rel_stddev_stats(stddev_stats())`.
    fn rel_stddev(&self) -> f64 {
        if self.n < 2 || self.mean == 0.0 {
            return 0.0;
        }
        let variance = self.m2 / (self.n - 1) as f64;
        100.0 * (variance / self.n as f64).sqrt() / self.mean
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Runtime {
    last_time: u64,
    /// The previous switch-out left the task runnable / in D.
    last_runnable: bool,
    last_iowait: bool,
    ready_to_run: u64,
    dt: Dt,
    stats: Stats,
    total: Dt,
    migrations: u64,
    /// Idle tasks: the last task switched out on this CPU (`-I`).
    last_thread: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Dt {
    run: u64,
    delay: u64,
    sleep: u64,
    iowait: u64,
    preempt: u64,
}

impl Runtime {
    fn update(&mut self, t: u64, tprev: u64) {
        self.dt = Dt::default();
        if tprev != 0 {
            self.dt.run = t.saturating_sub(tprev);
            if self.ready_to_run != 0 && self.ready_to_run <= tprev {
                self.dt.delay = tprev - self.ready_to_run;
            }
            if self.last_time != 0 && self.last_time <= tprev {
                let wait = tprev - self.last_time;
                if self.last_runnable {
                    self.dt.preempt = wait;
                } else if self.last_iowait {
                    self.dt.iowait = wait;
                } else {
                    self.dt.sleep = wait;
                }
            }
        }
        self.stats.update(self.dt.run);
        let t = &mut self.total;
        t.run = t.run.saturating_add(self.dt.run);
        t.delay = t.delay.saturating_add(self.dt.delay);
        t.sleep = t.sleep.saturating_add(self.dt.sleep);
        t.iowait = t.iowait.saturating_add(self.dt.iowait);
        t.preempt = t.preempt.saturating_add(self.dt.preempt);
    }
}

struct Th<F> {
    o: TimehistOptions,
    max_cpu: u32,
    tasks: HashMap<u32, Runtime, ahash::RandomState>,
    /// First-seen process of threads perf's thread table does not know.
    pids: HashMap<u32, u32, ahash::RandomState>,
    ppids: HashMap<u32, u32, ahash::RandomState>,
    idle: PerCpu<Runtime>,
    last_switch: PerCpu<u64>,
    /// `prev_state` labels made so far (a handful of values per recording).
    labels: HashMap<u64, String, ahash::RandomState>,
    hist_start: u64,
    hist_end: u64,
    skipped: u64,
    switches: u64,
    each: F,
}

fn listed(list: &Option<Vec<u32>>, v: u32) -> bool {
    list.as_ref().is_none_or(|l| l.contains(&v))
}

impl<F: FnMut(&Row<'_>)> Th<F> {
    fn pid_of(&mut self, m: &Machine, tid: u32, first_seen: u32) -> u32 {
        match m.thread(tid) {
            Some(t) => t.pid,
            None => *self.pids.entry(tid).or_insert(first_seen),
        }
    }

    fn filtered(&self, pid: u32, tid: u32) -> bool {
        !listed(&self.o.pids, pid) || !listed(&self.o.tids, tid)
    }

    fn state_letter(&self, state: u64, idle: bool, states: &TaskStates) -> char {
        match self.o.compat {
            Compat::Perf61 => perf61_timehist_letter(state, idle),
            Compat::Modern if idle => 'I',
            Compat::Modern => states.letter(state),
        }
    }

    fn switch(&mut self, at: &At, ev: Ev<'_>, m: &Machine, states: &TaskStates) {
        let Ev::Switch { prev_pid, prev_state, next_pid, next_comm } = ev else { return };
        let cpu = at.cpu;
        let Some(&tprev_saved) = self.last_switch.get_mut(at.cpu).map(|v| &*v) else { return };
        let idle = prev_pid == 0;
        let (tid, pid) = if idle { (0, 0) } else { (at.tid, self.pid_of(m, at.tid, at.pid)) };
        let mut t = at.time;
        let (pstart, pend) = match self.o.time {
            Some(r) => (r.start, if r.end == u64::MAX { 0 } else { r.end }),
            None => (0, 0),
        };
        if self.o.idle_hist && !idle {
            if let Some(itr) = self.idle.get_mut(cpu) {
                itr.last_thread = Some(tid);
            }
        }
        let mut skip = !idle && self.filtered(pid, tid) || idle && self.filtered(0, 0);
        if skip {
            self.skipped += 1;
        }
        if self.o.idle_hist && prev_pid != 0 && next_pid != 0 {
            skip = true;
        }
        let (runnable, iowait) = match self.o.compat {
            Compat::Perf61 => (prev_state == 0, prev_state == 2),
            Compat::Modern => (states.is_runnable(prev_state), states.letter(prev_state) == 'D'),
        };
        let mut processed = false;
        'handle: {
            if skip {
                break 'handle;
            }
            processed = true;
            let mut tprev = tprev_saved;
            if pstart != 0 && pstart > t {
                break 'handle;
            }
            if tprev != 0 && pstart > tprev {
                tprev = pstart;
            }
            if pend != 0 {
                if tprev > pend {
                    break 'handle;
                }
                if t > pend {
                    t = pend;
                }
            }
            let cpu_ok = listed(&self.o.cpus, cpu);
            if !self.o.idle_hist || idle {
                let r = if idle { self.idle.get_mut(cpu) } else { Some(self.tasks.entry(tid).or_default()) };
                let Some(r) = r else { break 'handle };
                if cpu_ok {
                    r.update(t, tprev);
                }
                if self.o.idle_hist {
                    let last = r.last_thread.take();
                    if let Some(last) = last {
                        let lr = self.tasks.entry(last).or_default();
                        lr.update(t, tprev);
                        lr.dt = Dt::default();
                    }
                }
            }
            if self.o.summary != SummaryMode::Only && cpu_ok {
                let r = if idle { self.idle.get(cpu).copied() } else { self.tasks.get(&tid).copied() };
                let dt = r.map(|r| r.dt).unwrap_or_default();
                let placeholder;
                let comm: &str = match (idle, m.thread(tid)) {
                    (true, _) => "<idle>",
                    (false, Some(t)) => &t.comm,
                    (false, None) => {
                        placeholder = format!(":{}", tid as i32);
                        &placeholder
                    }
                };
                let label_key = if idle { u64::MAX } else { prev_state };
                if !self.labels.contains_key(&label_key) && self.labels.len() < 4096 {
                    let l = if idle { "I".to_string() } else { states.label(prev_state) };
                    self.labels.insert(label_key, l);
                }
                let fresh;
                let state_label: &str = match self.labels.get(&label_key) {
                    Some(l) => l,
                    None => {
                        fresh = states.label(prev_state);
                        &fresh
                    }
                };
                let next_comm = String::from_utf8_lossy(next_comm);
                let row = SwitchRow {
                    time_ns: t,
                    cpu,
                    tid,
                    pid,
                    comm,
                    idle,
                    wait_ns: dt.sleep + dt.iowait + dt.preempt,
                    sleep_ns: dt.sleep,
                    iowait_ns: dt.iowait,
                    preempt_ns: dt.preempt,
                    delay_ns: dt.delay,
                    run_ns: dt.run,
                    state: self.state_letter(prev_state, idle, states),
                    prev_state,
                    state_label,
                    next_comm: &next_comm,
                    next_pid,
                    ncpus: self.max_cpu + 1,
                };
                self.switches += 1;
                (self.each)(&Row::Switch(row));
            }
        }
        if self.hist_start == 0 && t >= pstart {
            self.hist_start = t;
        }
        if pend == 0 || t <= pend {
            self.hist_end = t;
        }
        if processed {
            let r = if idle { self.idle.get_mut(cpu) } else { Some(self.tasks.entry(tid).or_default()) };
            if let Some(r) = r {
                r.last_time = at.time;
                r.last_runnable = runnable;
                r.last_iowait = iowait;
                // perf 6.1 forgets any wakeup at a switch-out; a preempted task is runnable
                // from here on in the modern semantics.
                r.ready_to_run = if self.o.compat == Compat::Modern && runnable && !idle { at.time } else { 0 };
            }
        }
        if let Some(v) = self.last_switch.get_mut(cpu) {
            *v = at.time;
        }
    }
}

impl<F: FnMut(&Row<'_>)> Handler for Th<F> {
    fn event(&mut self, at: &At, ev: Ev<'_>, m: &Machine, states: &TaskStates) {
        if at.cpu >= super::events::MAX_CPUS {
            return;
        }
        if at.cpu > self.max_cpu {
            self.max_cpu = at.cpu;
        }
        match ev {
            Ev::Switch { .. } => self.switch(at, ev, m, states),
            Ev::Wakeup { pid, kind } => {
                if kind == WakeKind::Wakeup && at.has_waking {
                    return;
                }
                let wpid = self.pid_of(m, pid, 0);
                let r = self.tasks.entry(pid).or_default();
                if r.ready_to_run == 0 {
                    r.ready_to_run = at.time;
                }
                let in_time = self.o.time.is_none_or(|r| r.contains(at.time));
                if self.o.wakeups && in_time && self.o.summary != SummaryMode::Only {
                    let wtid = at.tid;
                    let waker_pid = if wtid == 0 && at.pid == 0 { 0 } else { self.pid_of(m, wtid, at.pid) };
                    if self.filtered(waker_pid, wtid) && self.filtered(wpid, pid) {
                        return;
                    }
                    let (comm, wakee_comm) = (m.comm(wtid), m.comm(pid));
                    (self.each)(&Row::Wakeup(WakeupRow {
                        time_ns: at.time,
                        cpu: at.cpu,
                        tid: wtid,
                        pid: waker_pid,
                        comm: &comm,
                        wakee_tid: pid,
                        wakee_pid: wpid,
                        wakee_comm: &wakee_comm,
                        ncpus: self.max_cpu + 1,
                    }));
                }
            }
            Ev::Migrate { pid, orig_cpu, dest_cpu } => {
                if !self.o.migrations {
                    return;
                }
                let mpid = self.pid_of(m, pid, 0);
                self.tasks.entry(pid).or_default().migrations += 1;
                if self.o.summary == SummaryMode::Only {
                    return;
                }
                let wtid = at.tid;
                let waker_pid = if wtid == 0 && at.pid == 0 { 0 } else { self.pid_of(m, wtid, at.pid) };
                if self.filtered(waker_pid, wtid) && self.filtered(mpid, pid) {
                    return;
                }
                let (comm, task_comm) = (m.comm(wtid), m.comm(pid));
                (self.each)(&Row::Migration(MigrationRow {
                    time_ns: at.time,
                    cpu: at.cpu,
                    tid: wtid,
                    pid: waker_pid,
                    comm: &comm,
                    task_tid: pid,
                    task_pid: mpid,
                    task_comm: &task_comm,
                    orig_cpu,
                    dest_cpu,
                    ncpus: self.max_cpu + 1,
                }));
            }
            Ev::Runtime { .. } => {}
        }
    }

    fn fork(&mut self, tid: u32, ptid: u32) {
        self.ppids.insert(tid, ptid);
    }
}

/// The number of CPUs perf 6.1's timehist starts from: the recording's online CPUs (4 when
/// the header does not say), at most 4096, perf's `MAX_CPUS` (the header is
/// input: a damaged one must not make every row billions of columns wide).
pub fn header_cpus(file: &PerfFile) -> u32 {
    HeaderInfo::new(file).nr_cpus_online.filter(|&n| n > 0).unwrap_or(4).min(super::events::MAX_CPUS)
}

/// Stream `perf sched timehist` rows of `file` to `each`; returns the summary when asked for.
/// Memory is bounded by the number of threads and CPUs.
///
/// Errors: [`Error::Missing`] without `sched:sched_switch` (or tracing data).
pub fn sched_timehist_each(
    file: &PerfFile,
    opts: &TimehistOptions,
    each: impl FnMut(&Row<'_>),
) -> Result<Timehist, Error> {
    let nr_cpus = header_cpus(file);
    let mut th = Th {
        o: opts.clone(),
        max_cpu: nr_cpus,
        tasks: HashMap::default(),
        pids: HashMap::default(),
        ppids: HashMap::default(),
        idle: PerCpu::default(),
        last_switch: PerCpu::default(),
        labels: HashMap::default(),
        hist_start: 0,
        hist_end: 0,
        skipped: 0,
        switches: 0,
        each,
    };
    // perf allocates the idle tasks of the header's CPUs up front.
    let _ = th.idle.get_mut(nr_cpus.saturating_sub(1));
    let stream = drive(file, &mut th)?;
    let summary = (opts.summary != SummaryMode::None).then(|| summarize(&th, &stream.machine));
    Ok(Timehist { summary, switches: th.switches, diagnostics: stream.diagnostics })
}

fn summarize<F>(th: &Th<F>, m: &Machine) -> Summary {
    let mut tasks: Vec<TaskSummary> = th
        .tasks
        .iter()
        .filter(|(_, r)| r.stats.n > 0)
        .filter_map(|(&tid, r)| {
            let pid = m.thread(tid).map(|t| t.pid).or_else(|| th.pids.get(&tid).copied()).unwrap_or(0);
            if !listed(&th.o.pids, pid) || !listed(&th.o.tids, tid) {
                return None;
            }
            Some(TaskSummary {
                comm: m.comm(tid),
                tid,
                pid,
                ppid: th.ppids.get(&tid).map_or(-1, |&p| i64::from(p as i32)),
                terminated: m.thread(tid).is_some_and(|t| t.exited),
                count: r.stats.n,
                run_ns: r.total.run,
                min_run_ns: r.stats.min,
                avg_run_ns: r.stats.mean as u64,
                max_run_ns: r.stats.max,
                stddev_pct: r.stats.rel_stddev(),
                migrations: r.migrations,
                sleep_ns: r.total.sleep,
                iowait_ns: r.total.iowait,
                preempt_ns: r.total.preempt,
                delay_ns: r.total.delay,
            })
        })
        .collect();
    // perf's thread table: 256 buckets by tid, each sorted by tid; running tasks, then the exited.
    tasks.sort_by_key(|t| (t.terminated, t.tid % 256, t.tid));
    let window = th.hist_end.saturating_sub(th.hist_start);
    let mut total_switches: u64 = tasks.iter().map(|t| t.count).sum();
    let idle = (th.skipped == 0 || th.o.idle_hist).then(|| {
        (0..th.idle.len() as u32)
            .filter(|c| listed(&th.o.cpus, *c))
            .map(|cpu| {
                let r = th.idle.get(cpu).copied().unwrap_or_default();
                if r.total.run > 0 {
                    total_switches += r.stats.n;
                }
                let idle_ns = (r.total.run > 0).then_some(r.total.run);
                let pct = if window > 0 { 100.0 * r.total.run as f64 / window as f64 } else { f64::NAN };
                IdleStat { cpu, idle_ns, pct }
            })
            .collect()
    });
    Summary {
        total_tasks: tasks.len() as u64,
        total_run_ns: tasks.iter().map(|t| t.run_ns).fold(0, u64::saturating_add),
        tasks,
        idle,
        total_switches,
        window_ns: window,
        nr_cpus: th.max_cpu,
    }
}

/// Renders rows and the summary as `perf sched timehist` prints them. The comm column widens
/// as longer names appear (perf's `comm_width`), so one renderer must see every row in order.
#[derive(Clone, Debug)]
pub struct TimehistText {
    o: TimehistOptions,
    comm_width: usize,
}

fn commstr(comm: &str, tid: u32, pid: u32) -> String {
    // perf prints them as ints: a sample's tid of u32::MAX is -1.
    let (t, p) = (tid as i32, pid as i32);
    let s = if pid == 0 {
        comm.to_string()
    } else if tid != pid {
        format!("{comm}[{t}/{p}]")
    } else {
        format!("{comm}[{t}]")
    };
    // perf formats into a 32-byte buffer.
    truncate(s, 31)
}

fn push_int(o: &mut String, v: i32) {
    if v < 0 {
        o.push('-');
    }
    push_uint(o, u64::from(v.unsigned_abs()), 0);
}

/// `s` cut to at most `n` bytes, at a character boundary (what perf's `%.*s` does to ASCII).
pub(crate) fn truncate(mut s: String, n: usize) -> String {
    if s.len() > n {
        let mut cut = n;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// `"%15s [%04d] "`: the time and CPU that start every row.
fn prefix(o: &mut String, time_ns: u64, cpu: u32) {
    push_secs_usec(o, time_ns, 15);
    o.push_str(" [");
    push_uint(o, u64::from(cpu), 4);
    o.push_str("] ");
}

impl TimehistText {
    /// perf's `%-*s` of the comm string (widening the column as perf does), without allocating.
    fn push_comm(&mut self, o: &mut String, comm: &str, tid: u32, pid: u32) {
        let start = o.len();
        if pid == 0 {
            o.push_str(comm);
        } else {
            o.push_str(comm);
            o.push('[');
            push_int(o, tid as i32);
            if tid != pid {
                o.push('/');
                push_int(o, pid as i32);
            }
            o.push(']');
        }
        // perf formats into a 32-byte buffer.
        if o.len() - start > 31 {
            let mut cut = start + 31;
            while !o.is_char_boundary(cut) {
                cut -= 1;
            }
            o.truncate(cut);
        }
        let n = o.len() - start;
        self.comm_width = self.comm_width.max(n);
        pad(o, self.comm_width - n);
    }

    /// A renderer for `opts`.
    pub fn new(opts: &TimehistOptions) -> Self {
        TimehistText { o: opts.clone(), comm_width: 30 }
    }

    fn commstr(&mut self, comm: &str, tid: u32, pid: u32) -> String {
        let s = commstr(comm, tid, pid);
        self.comm_width = self.comm_width.max(s.len());
        s
    }

    /// The three header lines (`ncpus`: the recording's online CPUs + 1).
    pub fn header(&self, ncpus: u32) -> String {
        let mut o = String::new();
        let w = self.comm_width;
        let dash = |n: usize| "-".repeat(n);
        let _ = write!(o, "{:>15} {:>6} ", "time", "cpu");
        if self.o.cpu_visual {
            o.push(' ');
            for i in 0..ncpus {
                let _ = write!(o, "{:x}", i % 16);
            }
            o.push(' ');
        }
        let _ = write!(o, " {:<w$}  {:>9}  {:>9}  {:>9}", "task name", "wait time", "sch delay", "run time");
        if self.o.state {
            o.push_str("  state");
        }
        o.push('\n');
        let _ = write!(o, "{:>15} {:<6} ", "", "");
        if self.o.cpu_visual {
            o.push(' ');
            pad(&mut o, ncpus as usize);
            o.push(' ');
        }
        let _ = write!(o, " {:<w$}  {:>9}  {:>9}  {:>9}", "[tid/pid]", "(msec)", "(msec)", "(msec)");
        if self.o.state {
            let _ = write!(o, "  {:5}", "");
        }
        o.push('\n');
        let _ = write!(o, "{} {} ", dash(15), dash(6));
        if self.o.cpu_visual {
            let _ = write!(o, " {} ", dash(ncpus as usize));
        }
        let _ = write!(o, " {}  {}  {}  {}", dash(w), dash(9), dash(9), dash(9));
        if self.o.state {
            let _ = write!(o, "  {}", dash(5));
        }
        o.push('\n');
        o
    }

    /// One row, with its newline.
    pub fn row(&mut self, row: &Row<'_>, o: &mut String) {
        match row {
            Row::Switch(r) => {
                prefix(o, r.time_ns, r.cpu);
                if self.o.cpu_visual {
                    o.push(' ');
                    for i in 0..r.ncpus {
                        o.push(if i == r.cpu {
                            if r.idle {
                                'i'
                            } else {
                                's'
                            }
                        } else {
                            ' '
                        });
                    }
                    o.push(' ');
                }
                o.push(' ');
                self.push_comm(o, r.comm, r.tid, r.pid);
                o.push(' ');
                sched_time(o, r.wait_ns, 6);
                sched_time(o, r.delay_ns, 6);
                sched_time(o, r.run_ns, 6);
                if self.o.state {
                    let _ = write!(o, " {:>5} ", r.state);
                }
                if self.o.next {
                    let n = truncate(format!("next: {}[{}]", r.next_comm, r.next_pid), 29);
                    let _ = write!(o, " {n:<w$}", w = self.comm_width);
                }
                if self.o.wakeups && !self.o.next {
                    let _ = write!(o, "  {:w$}", "", w = self.comm_width);
                }
            }
            Row::Wakeup(r) => {
                prefix(o, r.time_ns, r.cpu);
                if self.o.cpu_visual {
                    o.push(' ');
                    pad(o, r.ncpus as usize);
                    o.push(' ');
                }
                let c = self.commstr(r.comm, r.tid, r.pid);
                let _ = write!(o, " {c:<w$} ", w = self.comm_width);
                let _ = write!(o, "  {:9}  {:9}  {:9} ", "", "", "");
                let c = self.commstr(r.wakee_comm, r.wakee_tid, r.wakee_pid);
                let _ = write!(o, "awakened: {c}");
            }
            Row::Migration(r) => {
                prefix(o, r.time_ns, r.cpu);
                if self.o.cpu_visual {
                    o.push_str("  ");
                    for i in 0..r.ncpus {
                        o.push(if i == r.cpu { 'm' } else { ' ' });
                    }
                    o.push_str("  ");
                }
                let c = self.commstr(r.comm, r.tid, r.pid);
                let _ = write!(o, " {c:<w$} ", w = self.comm_width);
                let _ = write!(o, "  {:9}  {:9}  {:9} ", "", "", "");
                let c = self.commstr(r.task_comm, r.task_tid, r.task_pid);
                let _ = write!(o, "migrated: {c} cpu {} => {}", r.orig_cpu, r.dest_cpu);
            }
        }
        o.push('\n');
    }

    /// The summary as perf prints it.
    pub fn summary(&mut self, s: &Summary, o: &mut String) {
        let w = self.comm_width;
        if self.o.idle_hist {
            o.push_str("\nIdle-time summary\n");
            let _ = writeln!(
                o,
                "{:>w$}  parent  sched-out    idle-time   min-idle    avg-idle    max-idle  stddev  migrations",
                "comm"
            );
        } else if self.o.state {
            o.push_str("\nWait-time summary\n");
            let _ = writeln!(
                o,
                "{:>w$}  parent   sched-in     run-time      sleep      iowait     preempt       delay",
                "comm"
            );
        } else {
            o.push_str("\nRuntime summary\n");
            let _ = writeln!(
                o,
                "{:>w$}  parent   sched-in     run-time    min-run     avg-run     max-run  stddev  migrations",
                "comm"
            );
        }
        let _ = writeln!(
            o,
            "{:>w$}            (count)       (msec)     (msec)      (msec)      (msec)       {}",
            "",
            if self.o.state { "(msec)" } else { "%" }
        );
        let _ = writeln!(o, "{}", "-".repeat(117));
        let running = s.tasks.iter().filter(|t| !t.terminated).count();
        for t in s.tasks.iter().filter(|t| !t.terminated) {
            self.task_line(t, o);
        }
        if running == 0 {
            o.push_str("<no still running tasks>\n");
        }
        o.push_str("\nTerminated tasks:\n");
        for t in s.tasks.iter().filter(|t| t.terminated) {
            self.task_line(t, o);
        }
        if running == s.tasks.len() {
            o.push_str("<no terminated tasks>\n");
        }
        let Some(idle) = &s.idle else { return };
        o.push_str("\nIdle stats:\n");
        for i in idle {
            match i.idle_ns {
                Some(ns) => {
                    let _ = write!(o, "    CPU {:2} idle for ", i.cpu);
                    sched_time(o, ns, 6);
                    let _ = writeln!(o, " msec  ({:6.2}%)", i.pct);
                }
                None => {
                    let _ = writeln!(o, "    CPU {:2} idle entire time window", i.cpu);
                }
            }
        }
        let _ = write!(
            o,
            "\n    Total number of unique tasks: {}\nTotal number of context switches: {}\n           Total run time (msec): ",
            s.total_tasks, s.total_switches
        );
        sched_time(o, s.total_run_ns, 2);
        o.push_str("\n    Total scheduling time (msec): ");
        sched_time(o, s.window_ns, 2);
        let _ = writeln!(o, " (x {})", s.nr_cpus);
    }

    fn task_line(&mut self, t: &TaskSummary, o: &mut String) {
        let c = self.commstr(&t.comm, t.tid, t.pid);
        let _ = write!(o, "{c:>w$}   {:5}  {:9} ", t.ppid, t.count, w = self.comm_width);
        sched_time(o, t.run_ns, 8);
        if self.o.state {
            sched_time(o, t.sleep_ns, 6);
            o.push(' ');
            sched_time(o, t.iowait_ns, 6);
            o.push(' ');
            sched_time(o, t.preempt_ns, 6);
            o.push(' ');
            sched_time(o, t.delay_ns, 6);
        } else {
            sched_time(o, t.min_run_ns, 6);
            o.push(' ');
            sched_time(o, t.avg_run_ns, 6);
            o.push(' ');
            sched_time(o, t.max_run_ns, 6);
            let _ = write!(o, "  {:5.2}   {:5}", t.stddev_pct, t.migrations);
        }
        o.push('\n');
    }
}

/// The whole output of `perf sched timehist` with `opts`, and the result.
pub fn sched_timehist_text(file: &PerfFile, opts: &TimehistOptions) -> Result<(String, Timehist), Error> {
    let mut text = TimehistText::new(opts);
    let mut out = String::new();
    if opts.summary != SummaryMode::Only {
        out = text.header(header_cpus(file) + 1);
    }
    let mut rows = String::new();
    let th = sched_timehist_each(file, opts, |r| text.row(r, &mut rows))?;
    out.push_str(&rows);
    if let Some(s) = &th.summary {
        text.summary(s, &mut out);
    }
    Ok((out, th))
}
