//! The scheduler event stream the analyses share: records in time order, the sched tracepoints
//! decoded by field name from the recording's own formats, and perf's thread table (comm, pid,
//! exit) kept up to date from COMM/FORK/EXIT records as perf's session does.

use super::state::TaskStates;
use crate::latency::tp::{has_event, Loc, PerEvent, TpSource};
use crate::latency::Error;
use perfdata_core::process::{Machine, MachineEvent};
use perfdata_core::{Order, PerfFile, ReadOptions, RecordKind};

/// One sched tracepoint sample, its fields read by name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev<'a> {
    /// `sched:sched_switch`.
    Switch { prev_pid: u32, prev_state: u64, next_pid: u32, next_comm: &'a [u8] },
    /// `sched:sched_waking` / `sched_wakeup` / `sched_wakeup_new`: `pid` becomes runnable.
    Wakeup { pid: u32, kind: WakeKind },
    /// `sched:sched_migrate_task`.
    Migrate { pid: u32, orig_cpu: u32, dest_cpu: u32 },
    /// `sched:sched_stat_runtime`.
    Runtime { pid: u32, runtime: u64 },
}

/// Which wakeup tracepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

/// The sample around an [`Ev`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub time: u64,
    pub cpu: u32,
    pub pid: u32,
    pub tid: u32,
    /// The recording has `sched:sched_waking` (timehist and the modern latency then ignore
    /// `sched_wakeup`).
    pub has_waking: bool,
}

/// What the stream tells an analysis.
pub(crate) trait Handler {
    /// A sched tracepoint sample. `states` describes the `prev_state` bits of the recording.
    fn event(&mut self, at: &At, ev: Ev<'_>, machine: &Machine, states: &TaskStates);
    /// A COMM record named `tid` (after the thread table took it).
    fn comm(&mut self, _tid: u32) {}
    /// A FORK record: `tid` was created by thread `ptid` (perf's `thread->ppid`).
    fn fork(&mut self, _tid: u32, _ptid: u32) {}
    /// A LOST record.
    fn lost(&mut self, _lost: u64) {}
}

/// What the stream saw besides the events.
#[derive(Clone, Debug, Default)]
pub(crate) struct StreamInfo {
    /// Every record (perf's `nr_events`, the denominator of the lost-events line).
    pub records: u64,
    /// Events lost (LOST records' counts).
    pub lost_events: u64,
    /// LOST records.
    pub lost_chunks: u64,
    /// The recording has `sched:sched_waking`.
    pub has_waking: bool,
    /// Why reading stopped early (a truncated or corrupt file), if it did: every complete record
    /// before it was analysed.
    pub diagnostics: Vec<String>,
    /// The final thread table.
    pub machine: Machine,
}

#[derive(Clone, Copy)]
enum Fields {
    Switch { prev_pid: Loc, prev_state: Loc, next_pid: Loc, next_comm: Loc, states: StatesIdx },
    Wake { pid: Loc, kind: WakeKind },
    Migrate { pid: Loc, orig_cpu: Loc, dest_cpu: Loc },
    Runtime { pid: Loc, runtime: Loc },
}

/// Index into the list of state tables (one per sched_switch format; a file has one).
type StatesIdx = usize;

/// Records held for time ordering. `perf sched record` uses 4 MiB buffers per CPU (`-m 1024`),
/// more with `-m`, so one round between markers can hold far more than the reader's default
/// window; perf's own queue is unbounded. 4 Mi records keep perf's order on such files (the queue
/// holds small keys into the mapped file, not copies of the records).
const WINDOW: usize = 1 << 22;

/// Tracepoints the analyses need, for the error when one is missing.
pub(crate) const SWITCH: &str = "sched_switch";

/// Feed `h` every sched event of `file` in time order. Fails only when the file cannot be opened
/// for reading or lacks `sched:sched_switch`; a corrupt record ends the stream with a diagnostic.
pub(crate) fn drive(file: &PerfFile, h: &mut impl Handler) -> Result<StreamInfo, Error> {
    let mut tps = TpSource::new(file);
    let mut fields: PerEvent<Fields> = PerEvent::new();
    let mut tables: Vec<TaskStates> = Vec::new();
    let mut info = StreamInfo { machine: Machine::new(), ..Default::default() };
    let endian = file.endian();
    let mut recs =
        file.records_with(ReadOptions { order: Order::Time, window_records: WINDOW, ..Default::default() })?;
    let mut waking_known = false;
    for rec in recs.by_ref() {
        let r = match rec {
            Ok(r) => r,
            // The reader goes on after a bad record where it can (records queued for time
            // order come after the error); it ends the stream itself when it cannot.
            Err(e) => {
                info.diagnostics.push(e.to_string());
                if info.diagnostics.len() > 1000 {
                    break;
                }
                continue;
            }
        };
        info.records += 1;
        if tps.observe(&r) {
            fields.clear();
            waking_known = false;
        }
        match &r.kind {
            RecordKind::Sample(s) => {
                let Some(ev) = r.event else { continue };
                let f = fields.get(ev, tps.get(), |fmt| resolve(fmt, &mut tables));
                let Some(f) = f else { continue };
                let (Some(raw), Some(time)) = (s.raw(), s.time()) else { continue };
                if !waking_known {
                    info.has_waking = has_event(&r.events.events, tps.get(), "sched", "sched_waking");
                    waking_known = true;
                }
                let at = At {
                    time,
                    cpu: s.cpu().unwrap_or(0),
                    pid: s.pid().unwrap_or(0),
                    tid: s.tid().unwrap_or(0),
                    has_waking: info.has_waking,
                };
                let u32_of = |l: Loc| l.uint(raw, endian).map(|v| v as u32);
                let ev = match f {
                    Fields::Switch { prev_pid, prev_state, next_pid, next_comm, .. } => {
                        let (Some(prev_pid), Some(prev_state), Some(next_pid)) =
                            (u32_of(prev_pid), prev_state.uint(raw, endian), u32_of(next_pid))
                        else {
                            continue;
                        };
                        let next_comm = next_comm.bytes(raw).unwrap_or(&[]);
                        let next_comm = next_comm.split(|&b| b == 0).next().unwrap_or(&[]);
                        Ev::Switch { prev_pid, prev_state, next_pid, next_comm }
                    }
                    Fields::Wake { pid, kind } => {
                        let Some(pid) = u32_of(pid) else { continue };
                        Ev::Wakeup { pid, kind }
                    }
                    Fields::Migrate { pid, orig_cpu, dest_cpu } => {
                        let (Some(pid), Some(orig_cpu), Some(dest_cpu)) =
                            (u32_of(pid), u32_of(orig_cpu), u32_of(dest_cpu))
                        else {
                            continue;
                        };
                        Ev::Migrate { pid, orig_cpu, dest_cpu }
                    }
                    Fields::Runtime { pid, runtime } => {
                        let (Some(pid), Some(runtime)) = (u32_of(pid), runtime.uint(raw, endian)) else { continue };
                        Ev::Runtime { pid, runtime }
                    }
                };
                let states = match f {
                    Fields::Switch { states, .. } => tables.get(states),
                    _ => tables.first(),
                };
                let default_states;
                let states = match states {
                    Some(s) => s,
                    None => {
                        default_states = TaskStates::default();
                        &default_states
                    }
                };
                h.event(&at, ev, &info.machine, states);
            }
            RecordKind::Comm(c) => {
                let tid = c.tid;
                if let Some(e) = MachineEvent::from_record(&r) {
                    info.machine.apply(e);
                }
                h.comm(tid);
            }
            RecordKind::Fork(f) => {
                let (tid, ptid) = (f.tid, f.ptid);
                if let Some(e) = MachineEvent::from_record(&r) {
                    info.machine.apply(e);
                }
                h.fork(tid, ptid);
            }
            RecordKind::Exit(_) => {
                if let Some(e) = MachineEvent::from_record(&r) {
                    info.machine.apply(e);
                }
            }
            RecordKind::Lost(l) => {
                info.lost_events = info.lost_events.saturating_add(l.lost);
                info.lost_chunks += 1;
                h.lost(l.lost);
            }
            _ => {}
        }
    }
    info.diagnostics.extend(recs.diagnostics());
    let mut seen = std::collections::HashSet::new();
    info.diagnostics.retain(|d| seen.insert(d.clone()));
    if !has_event(recs.events(), tps.get(), "sched", SWITCH) {
        let why = if tps.get().is_none() { " (the file has no tracing data)" } else { "" };
        return Err(Error::Missing(format!(
            "no sched:sched_switch event in this file{why}: record it with `perf sched record` \
             (or perf record -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new \
             -e sched:sched_migrate_task -e sched:sched_stat_runtime -a)"
        )));
    }
    Ok(info)
}

fn resolve(fmt: &perfdata_core::tracepoint::Format, tables: &mut Vec<TaskStates>) -> Option<Fields> {
    if fmt.system != "sched" {
        return None;
    }
    match fmt.name.as_str() {
        SWITCH => {
            tables.push(TaskStates::from_format(fmt));
            Some(Fields::Switch {
                prev_pid: Loc::of(fmt, "prev_pid")?,
                prev_state: Loc::of(fmt, "prev_state")?,
                next_pid: Loc::of(fmt, "next_pid")?,
                next_comm: Loc::of(fmt, "next_comm")?,
                states: tables.len() - 1,
            })
        }
        "sched_waking" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::Waking }),
        "sched_wakeup" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::Wakeup }),
        "sched_wakeup_new" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::WakeupNew }),
        "sched_migrate_task" => Some(Fields::Migrate {
            pid: Loc::of(fmt, "pid")?,
            orig_cpu: Loc::of(fmt, "orig_cpu")?,
            dest_cpu: Loc::of(fmt, "dest_cpu")?,
        }),
        "sched_stat_runtime" => Some(Fields::Runtime { pid: Loc::of(fmt, "pid")?, runtime: Loc::of(fmt, "runtime")? }),
        _ => None,
    }
}

/// Most CPUs the per-CPU tables hold (perf's `MAX_CPUS`); events on higher CPU numbers are
/// skipped (perf stops with a BUG_ON).
pub(crate) const MAX_CPUS: u32 = 4096;

/// A per-CPU table grown on demand up to [`MAX_CPUS`].
#[derive(Clone, Debug, Default)]
pub(crate) struct PerCpu<T> {
    v: Vec<T>,
}

impl<T: Default + Clone> PerCpu<T> {
    pub(crate) fn get_mut(&mut self, cpu: u32) -> Option<&mut T> {
        if cpu >= MAX_CPUS {
            return None;
        }
        let i = cpu as usize;
        if self.v.len() <= i {
            self.v.resize(i + 1, T::default());
        }
        self.v.get_mut(i)
    }

    pub(crate) fn get(&self, cpu: u32) -> Option<&T> {
        self.v.get(cpu as usize)
    }

    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }
}

/// perf's `timestamp__scnprintf_usec`: `sec.usec`, truncated.
pub(crate) fn secs_usec(ns: u64) -> String {
    let mut s = String::with_capacity(24);
    push_secs_usec(&mut s, ns, 0);
    s
}

/// Append `sec.usec` (truncated) right-aligned in `width`.
pub(crate) fn push_secs_usec(o: &mut String, ns: u64, width: usize) {
    let (sec, usec) = (ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
    let len = digits(sec) + 7;
    pad(o, width.saturating_sub(len));
    push_uint(o, sec, 0);
    o.push('.');
    push_uint(o, usec, 6);
}

/// perf's `print_sched_time(ns, width)`: `msec.usec` (truncated), the msec part right-aligned in
/// `width`, and a trailing space.
pub(crate) fn sched_time(o: &mut String, ns: u64, width: usize) {
    let (ms, us) = (ns / 1_000_000, ns % 1_000_000 / 1000);
    pad(o, width.saturating_sub(digits(ms)));
    push_uint(o, ms, 0);
    o.push('.');
    push_uint(o, us, 3);
    o.push(' ');
}

/// Append `n` spaces.
pub(crate) fn pad(o: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        o.push_str(SPACES.get(..k).unwrap_or(""));
        n -= k;
    }
}

/// Decimal digits of `v`.
pub(crate) fn digits(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Append `v` in decimal with at least `zeros` digits (zero-padded): what `{:0N}` prints, without
/// going through `core::fmt` (the rows of map and timehist are a million lines on big files).
pub(crate) fn push_uint(o: &mut String, v: u64, zeros: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        if let Some(b) = buf.get_mut(i) {
            *b = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let start = i.min(buf.len().saturating_sub(zeros));
    if let Ok(s) = std::str::from_utf8(buf.get(start..).unwrap_or(&[])) {
        o.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_printf() {
        for v in [0u64, 7, 10, 999, 1000, 123_456_789, u64::MAX] {
            for z in [0, 3, 6] {
                let mut s = String::new();
                push_uint(&mut s, v, z);
                assert_eq!(s, format!("{v:0z$}"));
            }
        }
        let mut s = String::new();
        push_secs_usec(&mut s, 3_117_201_023_941, 15);
        assert_eq!(s, "    3117.201023");
        s.clear();
        sched_time(&mut s, 5_899_999, 6);
        assert_eq!(s, "     5.899 ");
        s.clear();
        pad(&mut s, 100);
        assert_eq!(s.len(), 100);
    }
}
