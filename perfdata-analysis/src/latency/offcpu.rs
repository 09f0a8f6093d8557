//! Off-CPU time from `perf record -e sched:sched_switch -g` recordings (analysis-semantics §4):
//! the time from a task's switch-out, with the stack it left the CPU with, to its next switch-in.
//!
//! Each `sched_switch` with `prev_pid` ≠ 0 starts an interval for `prev_pid` with that sample's
//! callchain and its `prev_state`, classified with the state bits of the recording's own print
//! format (`{ 0x1, "S" }`, `{ 0x2, "D" }`): [`OffCpuState::D`] when the D bit is set, else
//! [`OffCpuState::S`] when the S bit is, else [`OffCpuState::Other`] (preempted while runnable,
//! `R`/`R+`, and the idle, stopped and parked states). The next `sched_switch` with
//! `next_pid` = the task ends it. A second switch-out before a switch-in (an event lost) restarts
//! the interval and is counted ([`OffCpuCounts::overwritten`]); tasks still off-CPU when the
//! recording ends are counted, not emitted ([`OffCpuCounts::unfinished`]). A task's last
//! switch-out, dead (`X`, `Z`, or `x` on old kernels), starts nothing: it never runs again, and
//! its tid may be reused by a new task whose first switch-in is not the end of its sleep.
//!
//! `perf record --off-cpu` recordings (perf's BPF program sums the off-CPU time per thread and
//! user stack and writes one `offcpu-time` sample of each at the end, period = the time in ns)
//! give one interval per such sample: its duration is the period, its stack the sample's; they
//! have no task state or time, so only the pid, tid and minimum-duration filters apply.
//!
//! ```no_run
//! use perfdata_analysis::latency::offcpu::{off_cpu_each, OffCpuOptions, OffCpuState};
//! let file = perfdata_core::PerfFile::open("offcpu.data")?;
//! let opts = OffCpuOptions { state: Some(OffCpuState::D), min_ns: 1_000_000, ..Default::default() };
//! off_cpu_each(&file, &opts, |i| println!("{} {} {} ns", i.tid, i.comm, i.duration_ns))?;
//! # Ok::<(), perfdata_analysis::latency::Error>(())
//! ```

use super::tp::{has_event, Loc, PerEvent, TpSource};
use super::{Error, ShortStr};
use crate::options::TimeRange;
use perfdata_core::record::CpuMode;
use perfdata_core::tracepoint::Format;
use perfdata_core::{Order, PerfFile, Record, RecordKind, Sample};
use std::collections::HashMap;

/// The state a task left the CPU in, from its `prev_state` at the switch-out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OffCpuState {
    /// `S`: interruptible sleep (waiting for an event: a timer, a pipe, a futex, …).
    S,
    /// `D`: uninterruptible sleep (usually waiting for I/O).
    D,
    /// Anything else: preempted while runnable (`R`, `R+`), idle kernel threads (`I`), stopped,
    /// traced or parked (`T`, `t`, `P`).
    Other,
}

impl OffCpuState {
    /// `"S"`, `"D"` or `"other"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            OffCpuState::S => "S",
            OffCpuState::D => "D",
            OffCpuState::Other => "other",
        }
    }
}

impl std::str::FromStr for OffCpuState {
    type Err = String;

    /// `S`, `D` or `other` (any case).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "s" => Ok(OffCpuState::S),
            "d" => Ok(OffCpuState::D),
            "other" => Ok(OffCpuState::Other),
            _ => Err(format!("unknown off-CPU state {s:?} (S, D or other)")),
        }
    }
}

/// Which intervals [`off_cpu_each`] reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OffCpuOptions {
    /// Only intervals in this state (`None`: all).
    pub state: Option<OffCpuState>,
    /// Only intervals at least this long, ns.
    pub min_ns: u64,
    /// Only intervals that start (the switch-out sample, as perf's `--time` selects it) in this
    /// range.
    pub time: Option<TimeRange>,
    /// Only this process (the switch-out sample's pid).
    pub pid: Option<u32>,
    /// Only this thread.
    pub tid: Option<u32>,
}

/// One off-CPU interval of a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffCpu {
    /// The task (thread id, `prev_pid`).
    pub tid: u32,
    /// Its process id, from the switch-out sample (`None` when the sample has no TID field).
    pub pid: Option<u32>,
    /// Its comm at the switch-out (`prev_comm`).
    pub comm: ShortStr,
    /// The switch-out, ns.
    pub start_ns: u64,
    /// The next switch-in, ns.
    pub end_ns: u64,
    /// `end_ns - start_ns`.
    pub duration_ns: u64,
    /// The state it left the CPU in.
    pub state: OffCpuState,
    /// `prev_state` as recorded.
    pub prev_state: u64,
    /// The CPU it left.
    pub cpu: u32,
    /// The switch-out sample's callchain as recorded: addresses leaf first, with the
    /// `PERF_CONTEXT_*` markers (`PERF_CONTEXT_KERNEL`, `PERF_CONTEXT_USER`, …) where perf put
    /// them; empty without `-g`. With `--call-graph dwarf` it holds the kernel part and the
    /// user ip; the rest of the user stack is in the sample's stack dump, which
    /// [`off_cpu_folded`] unwinds.
    pub callchain: Vec<u64>,
    /// The switch-out sample's cpumode is kernel (addresses before the first marker are kernel
    /// addresses).
    pub kernel: bool,
}

impl OffCpu {
    /// The callchain's addresses, leaf first, each with whether it is a kernel address (from the
    /// context markers); `None` for a chain with a marker perf 6.1 does not know (perf drops all
    /// of such a chain).
    pub fn frames(&self) -> Option<Vec<(bool, u64)>> {
        let mut kernel = self.kernel;
        let mut out = Vec::with_capacity(self.callchain.len());
        for &ip in &self.callchain {
            if ip < perfdata_core::sample::PERF_CONTEXT_MAX {
                out.push((kernel, ip));
                continue;
            }
            match ip as i64 {
                // PERF_CONTEXT_KERNEL, GUEST_KERNEL.
                -128 | -2176 => kernel = true,
                // HV, USER, GUEST, GUEST_USER.
                -32 | -512 | -2048 | -2560 => kernel = false,
                _ => return None,
            }
        }
        Some(out)
    }
}

/// What happened besides the reported intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OffCpuCounts {
    /// Intervals reported.
    pub intervals: u64,
    /// Intervals that passed the state, pid, tid and time filters but were shorter than
    /// [`OffCpuOptions::min_ns`].
    pub too_short: u64,
    /// Switch-outs of a task already off-CPU (its switch-in was lost): the interval restarts.
    pub overwritten: u64,
    /// Tasks still off-CPU when the recording ends.
    pub unfinished: u64,
}

/// The `sched_switch` fields, and its state bits.
#[derive(Clone, Copy)]
struct Switch {
    prev_pid: Loc,
    prev_comm: Loc,
    prev_state: Loc,
    next_pid: Loc,
    bits: StateBits,
}

/// The `prev_state` bits of `S` and `D`, and those of the dead states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StateBits {
    s: u64,
    d: u64,
    dead: u64,
}

fn resolve(fmt: &Format) -> Option<Switch> {
    if fmt.system != "sched" || fmt.name != "sched_switch" {
        return None;
    }
    Some(Switch {
        prev_pid: Loc::of(fmt, "prev_pid")?,
        prev_comm: Loc::of(fmt, "prev_comm")?,
        prev_state: Loc::of(fmt, "prev_state")?,
        next_pid: Loc::of(fmt, "next_pid")?,
        bits: state_bits(fmt.print_fmt.as_deref().unwrap_or("")),
    })
}

/// The bits of `S` and `D` in the `__print_flags` table of a `sched_switch` print fmt
/// (`{ 0x00000001, "S" }, { 0x00000002, "D" }`), 1 and 2 (the kernel's values since 2.6) where
/// the table does not say; the dead states are those named `X`, `Z` and `x` (0x10 | 0x20, `X` and
/// `Z` since 2.6, where the table names none).
fn state_bits(print_fmt: &str) -> StateBits {
    let (mut s, mut d, mut dead) = (None, None, 0);
    for entry in print_fmt.split('{').skip(1) {
        let Some((value, rest)) = entry.split_once(',') else { continue };
        let Some(name) = rest.split('}').next() else { continue };
        let value = value.trim();
        let bits = match value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        };
        match (name.trim(), bits) {
            ("\"S\"", Some(b)) if b != 0 => s = s.or(Some(b)),
            ("\"D\"", Some(b)) if b != 0 => d = d.or(Some(b)),
            ("\"X\"" | "\"Z\"" | "\"x\"", Some(b)) => dead |= b,
            _ => {}
        }
    }
    StateBits { s: s.unwrap_or(1), d: d.unwrap_or(2), dead: if dead == 0 { 0x30 } else { dead } }
}

impl StateBits {
    fn state(&self, prev_state: u64) -> OffCpuState {
        if prev_state & self.d != 0 {
            OffCpuState::D
        } else if prev_state & self.s != 0 {
            OffCpuState::S
        } else {
            OffCpuState::Other
        }
    }
}

/// A task off-CPU: its interval so far, and what the caller attached at the switch-out.
struct Pending<T> {
    interval: OffCpu,
    tag: T,
}

/// The off-CPU intervals of `file`, in switch-in order.
pub fn off_cpu(file: &PerfFile, opts: &OffCpuOptions) -> Result<(Vec<OffCpu>, OffCpuCounts), Error> {
    let mut v = Vec::new();
    let counts = off_cpu_each(file, opts, |i| v.push(i.clone()))?;
    Ok((v, counts))
}

/// Stream the off-CPU intervals of `file` to `each`, in switch-in order. Memory is bounded by the
/// number of tasks off-CPU at a time (and their callchains).
///
/// Errors: [`Error::Missing`] without a `sched:sched_switch` event (or with one lacking the
/// `prev_pid`, `prev_comm`, `prev_state` or `next_pid` field).
pub fn off_cpu_each(
    file: &PerfFile,
    opts: &OffCpuOptions,
    mut each: impl FnMut(&OffCpu),
) -> Result<OffCpuCounts, Error> {
    stream(file, opts, |_| {}, |_, _| (), |i, ()| each(i))
}

/// Folded off-CPU stacks (`comm;frame;…;leaf NS`): each interval's switch-out sample folded as
/// [`crate::folded::folded`] folds a sample with `fold` (frame names, root frame, comm filter;
/// its weight, event, pid, tid and time options are not used: `opts` selects the intervals),
/// weighted by the interval's duration in ns. Intervals whose sample has no callchain are left
/// out, as the folded tools leave out such samples.
///
/// Errors: as [`off_cpu_each`], and [`Error::Missing`] when `sched:sched_switch` was recorded
/// without callchains (`-g`).
#[cfg(feature = "symbolize")]
pub fn off_cpu_folded(
    file: &PerfFile,
    opts: &OffCpuOptions,
    fold: &crate::options::FoldedOptions,
) -> Result<(crate::stacks::FoldedStacks, OffCpuCounts), Error> {
    use crate::stacks::StackFolder;
    let folder = std::cell::RefCell::new(StackFolder::new(file, fold));
    let mut callchains = false;
    let counts = stream(
        file,
        opts,
        |r| folder.borrow_mut().record(r),
        |r, s| {
            callchains |= s.callchain().is_some();
            folder.borrow_mut().stack(r, s)
        },
        |i, id| {
            if let Some(id) = id {
                folder.borrow_mut().add(id, i.duration_ns);
            }
        },
    )?;
    if !callchains && counts.intervals > 0 {
        return Err(Error::Missing("sched:sched_switch has no callchains (record it with -g)".into()));
    }
    let stacks = folder.into_inner().finish();
    Ok((stacks, counts))
}

/// The interval tracker: `observe` sees every record (in time order), `start` each switch-out
/// that starts a reported interval (its result is handed back with the interval to `each`).
fn stream<T>(
    file: &PerfFile,
    opts: &OffCpuOptions,
    mut observe: impl FnMut(&Record<'_>),
    mut start: impl FnMut(&Record<'_>, &Sample<'_>) -> T,
    mut each: impl FnMut(&OffCpu, T),
) -> Result<OffCpuCounts, Error> {
    let mut tps = TpSource::new(file);
    let mut fields: PerEvent<Switch> = PerEvent::new();
    let mut pending: HashMap<u32, Pending<T>, ahash::RandomState> = HashMap::default();
    // Callchain buffers of ended intervals, for the next ones.
    let mut spare: Vec<Vec<u64>> = Vec::new();
    let mut counts = OffCpuCounts::default();
    let mut resolved = false;
    // `perf record --off-cpu`: offcpu-time samples seen, and the comms of their threads.
    let mut bpf_seen = false;
    let mut comms: HashMap<u32, ShortStr, ahash::RandomState> = HashMap::default();
    let endian = file.endian();
    let mut recs = file.records(Order::Time)?;
    while let Some(rec) = recs.next_record() {
        // A damaged record is skipped: the file's problem log has it.
        let Ok(r) = rec else { continue };
        if tps.observe(&r) {
            fields.clear();
        }
        observe(&r);
        if let RecordKind::Comm(c) = &r.kind {
            comms.insert(c.tid, ShortStr::new(c.comm));
        }
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { continue };
        let Some(f) = fields.get(ev, tps.get(), resolve) else {
            // A perf record --off-cpu recording: unless sched_switch gave the intervals already
            // (BPF writes its samples last, with a timestamp past every other record).
            if !resolved && ev.name.as_deref() == Some(BPF_EVENT) {
                bpf_seen = true;
                if let Some(interval) = bpf_interval(&r, s, opts, &comms, &mut counts)? {
                    let tag = start(&r, s);
                    each(&interval, tag);
                }
            }
            continue;
        };
        resolved = true;
        let (Some(raw), Some(time)) = (s.raw(), s.time()) else { continue };
        let (Some(prev), Some(prev_state), Some(next)) =
            (f.prev_pid.uint(raw, endian), f.prev_state.uint(raw, endian), f.next_pid.uint(raw, endian))
        else {
            continue;
        };
        let (prev, next) = (prev as u32, next as u32);
        if prev != 0 {
            let state = f.bits.state(prev_state);
            // The sample is taken in the context of the task leaving.
            let pid = s.pid().filter(|_| s.tid() == Some(prev));
            let keep = prev_state & f.bits.dead == 0
                && opts.state.is_none_or(|w| w == state)
                && opts.tid.is_none_or(|t| t == prev)
                && opts.pid.is_none_or(|p| pid == Some(p))
                && opts.time.is_none_or(|t| t.contains(time));
            let old = if keep {
                let mut callchain = spare.pop().unwrap_or_default();
                callchain.clear();
                if let Some(c) = s.callchain() {
                    callchain.extend(c.iter());
                }
                let interval = OffCpu {
                    tid: prev,
                    pid,
                    comm: ShortStr::new(f.prev_comm.bytes(raw).unwrap_or(&[])),
                    start_ns: time,
                    end_ns: time,
                    duration_ns: 0,
                    state,
                    prev_state,
                    cpu: s.cpu().unwrap_or(0),
                    callchain,
                    kernel: r.header.cpumode() == CpuMode::Kernel,
                };
                pending.insert(prev, Pending { interval, tag: start(&r, s) })
            } else {
                pending.remove(&prev)
            };
            if let Some(old) = old {
                counts.overwritten = counts.overwritten.saturating_add(1);
                spare.push(old.interval.callchain);
            }
        }
        if next == 0 {
            continue;
        }
        if let Some(Pending { mut interval, tag }) = pending.remove(&next) {
            if let Some(d) = time.checked_sub(interval.start_ns) {
                interval.end_ns = time;
                interval.duration_ns = d;
                if d >= opts.min_ns {
                    counts.intervals = counts.intervals.saturating_add(1);
                    each(&interval, tag);
                } else {
                    counts.too_short = counts.too_short.saturating_add(1);
                }
            }
            spare.push(interval.callchain);
        }
    }
    counts.unfinished = pending.len() as u64;
    if bpf_seen && !resolved {
        return Ok(counts);
    }
    if !resolved && !has_event(recs.events(), tps.get(), "sched", "sched_switch") {
        let damaged = !file.diagnostics().is_empty() || !recs.diagnostics().is_empty();
        return Err(crate::error::missing_event(
            file,
            "sched:sched_switch (nor offcpu-time)",
            damaged,
            tps.get().is_none(),
            "`perf record -e sched:sched_switch -g -a` or `perf record --off-cpu`",
        ));
    }
    if !resolved {
        let ok = tps.get().and_then(|t| t.format_by_name("sched", "sched_switch")).and_then(resolve).is_some();
        if !ok {
            return Err(Error::Missing(
                "sched:sched_switch lacks a prev_pid, prev_comm, prev_state or next_pid field".into(),
            ));
        }
    }
    Ok(counts)
}

/// The event of `perf record --off-cpu` (perf's `OFFCPU_EVENT`).
const BPF_EVENT: &str = "offcpu-time";

/// The interval an `offcpu-time` sample of `perf record --off-cpu` stands for, if `opts` keep it.
/// perf's BPF program sums the off-CPU time per thread and stack and writes one sample of each at
/// the end of the recording (`off_cpu_write`): the period is the time in ns, the callchain the
/// user stack; the sample's time is a marker (`OFF_CPU_TIMESTAMP`), and no task state is
/// recorded, so `opts.state` and `opts.time` cannot select these samples (an error says so).
fn bpf_interval(
    r: &Record<'_>,
    s: &Sample<'_>,
    opts: &OffCpuOptions,
    comms: &HashMap<u32, ShortStr, ahash::RandomState>,
    counts: &mut OffCpuCounts,
) -> Result<Option<OffCpu>, Error> {
    if opts.state.is_some() || opts.time.is_some() {
        return Err(Error::Missing(
            "a perf record --off-cpu recording sums the off-CPU time per thread and stack: it has no task states \
             or times to select by (--state, --time)"
                .into(),
        ));
    }
    let (tid, pid) = (s.tid().unwrap_or(u32::MAX), s.pid());
    if opts.tid.is_some_and(|t| t != tid) || opts.pid.is_some_and(|p| pid != Some(p)) {
        return Ok(None);
    }
    let duration_ns = s.period().unwrap_or(0);
    if duration_ns < opts.min_ns {
        counts.too_short = counts.too_short.saturating_add(1);
        return Ok(None);
    }
    counts.intervals = counts.intervals.saturating_add(1);
    let time = s.time().unwrap_or(0);
    Ok(Some(OffCpu {
        tid,
        pid,
        comm: comms.get(&tid).copied().unwrap_or_else(|| ShortStr::new(format!(":{tid}").as_bytes())),
        start_ns: time,
        end_ns: time,
        duration_ns,
        state: OffCpuState::Other,
        prev_state: 0,
        cpu: s.cpu().unwrap_or(0),
        callchain: s.callchain().map(|c| c.to_vec()).unwrap_or_default(),
        kernel: r.header.cpumode() == CpuMode::Kernel,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_bits_from_the_print_flags() {
        let k618 = r#""prev_state=%s%s", (REC->prev_state & 255) ? __print_flags(REC->prev_state & 255, "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }) : "R""#;
        let bits = |s, d| StateBits { s, d, dead: 0x30 };
        assert_eq!(state_bits(k618), bits(1, 2));
        assert_eq!(state_bits(r#"__print_flags(x, "|", { 8, "S" }, { 16, "D" })"#), bits(8, 16));
        assert_eq!(state_bits(r#"__print_flags(x, "|", { 0x40, "D" })"#), bits(1, 0x40));
        assert_eq!(state_bits(""), bits(1, 2));
        assert_eq!(state_bits("{ nonsense, \"S\" } { 0x, \"D\" } {"), bits(1, 2));
        // 4.14+ and the 2.6–4.13 table (x = TASK_DEAD, 64).
        let k618_full = r#"{ 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }, { 0x08, "t" }, { 0x10, "X" }, { 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" }"#;
        assert_eq!(state_bits(k618_full).dead, 0x30);
        let k4 =
            r#"{ 1, "S" }, { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "X" }, { 32, "Z" }, { 64, "x" }, { 128, "K" }"#;
        assert_eq!(state_bits(k4).dead, 0x70);
        let sw = bits(1, 2);
        assert_eq!(sw.state(1), OffCpuState::S);
        assert_eq!(sw.state(2), OffCpuState::D);
        // Killable (D|K on old kernels) is D; R, R+ (0x100), I (0x80), Z (0x20) are other.
        assert_eq!(sw.state(2 | 128), OffCpuState::D);
        for st in [0, 0x100, 0x80, 0x20] {
            assert_eq!(sw.state(st), OffCpuState::Other);
        }
    }

    #[test]
    fn frames_follow_the_context_markers() {
        let i = OffCpu {
            tid: 1,
            pid: None,
            comm: ShortStr::default(),
            start_ns: 0,
            end_ns: 0,
            duration_ns: 0,
            state: OffCpuState::S,
            prev_state: 1,
            cpu: 0,
            callchain: vec![-128i64 as u64, 10, 11, -512i64 as u64, 20],
            kernel: false,
        };
        assert_eq!(i.frames(), Some(vec![(true, 10), (true, 11), (false, 20)]));
        let bad = OffCpu { callchain: vec![-1i64 as u64, 5], ..i };
        assert_eq!(bad.frames(), None);
    }
}
