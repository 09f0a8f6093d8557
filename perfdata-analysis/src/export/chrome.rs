//! Chrome Trace Event JSON (the format Perfetto UI and `chrome://tracing` open): complete events
//! (`ph: "X"`) for what ran on each CPU (one track per CPU, from `sched_switch` when recorded)
//! and on each thread (one track per thread), instant events (`ph: "i"`) for the samples, each
//! with its stack as an `sf` id into the top-level `stackFrames` dictionary, and a counter
//! (`ph: "C"`) of lost events. Times are µs with the ns in three decimals.
//!
//! [`write_chrome_trace`] writes the document as it reads the recording: each scheduler slice
//! when the `sched_switch` that ends it comes, each sample when it is read. What it keeps is what
//! is live: the reader's time-order window, the running task and the waiting ones per CPU, the
//! threads named so far, and the distinct stacks with their frames (the `stackFrames` trie,
//! written after `traceEvents` once all are known).

use super::{push_json_str, push_us};
use crate::latency::tp::{has_event, TpSource};
use crate::options::FoldedOptions;
use crate::sched::events::{drive, At, Ev, Handler, PerCpu, SWITCH};
use crate::sched::state::TaskStates;
use crate::sched::timeline::Runs;
use crate::stacks::{StackFolder, StackId};
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::{Order, PerfFile, RecordKind};
use std::collections::{HashMap, HashSet};
use std::io::Write;

/// What to put in the trace.
#[derive(Clone, Debug, Default)]
pub struct ChromeOptions {
    /// How sample stacks are folded (frames as `perfdata folded` writes them).
    pub fold: FoldedOptions,
    /// Leave the samples out (scheduler slices only).
    pub no_samples: bool,
}

/// What [`write_chrome_trace`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChromeSummary {
    /// Entries of `traceEvents`.
    pub events: u64,
    /// Scheduler runs (each is two complete events: on its CPU's track and on its thread's).
    pub runs: u64,
    /// Run-queue waits.
    pub waits: u64,
    /// Sample instant events.
    pub samples: u64,
    /// Entries of `stackFrames`.
    pub stack_frames: u64,
    /// Why reading stopped early, if it did (every complete record before was written).
    pub diagnostics: Vec<String>,
}

/// Most reading errors kept for [`ChromeSummary::diagnostics`].
const MAX_DIAGNOSTICS: usize = 100;

/// Pid of the CPU tracks (a process of its own in the viewer).
const CPUS_PID: u32 = u32::MAX - 1;

/// Write the trace of `file` to `out`: `{"traceEvents": [...], "displayTimeUnit": "ns",
/// "otherData": {...}, "stackFrames": {...}}`, one event per line.
///
/// Two passes over the records: the scheduler's (when the file has `sched:sched_switch`), then
/// the samples and lost events. Memory does not grow with the number of events (see the
/// module's documentation).
///
/// Errors: [`Error::Read`] when the file cannot be read at all, [`Error::Output`] when writing
/// fails; a file without `sched_switch` has no scheduler slices, one without samples no instant
/// events.
pub fn write_chrome_trace(file: &PerfFile, opts: &ChromeOptions, out: &mut dyn Write) -> Result<ChromeSummary, Error> {
    let mut trace =
        Trace { out: std::io::BufWriter::with_capacity(1 << 16, out), buf: Vec::new(), events: 0, err: None };
    let mut summary = ChromeSummary::default();
    trace.raw(b"{\"traceEvents\":[");
    trace.event(|b| meta(b, CPUS_PID, None, "process_name", "CPUs"));
    let mut named: HashSet<(u32, u32), ahash::RandomState> = HashSet::default();
    // Scheduler slices, one per run, written when the switch that ends it is read.
    if has_event(file.events(), TpSource::new(file).get(), "sched", SWITCH) {
        let mut sched = Sched {
            trace: &mut trace,
            named: &mut named,
            runs: Runs::default(),
            cpus: PerCpu::default(),
            first: None,
            count: (0, 0),
        };
        match drive(file, &mut sched) {
            Ok(info) => summary.diagnostics.extend(info.diagnostics),
            Err(Error::Missing(_)) => {}
            Err(e) => return Err(e),
        }
        (summary.runs, summary.waits) = sched.count;
    }
    // Samples, lost events, thread names.
    let mut folder = (!opts.no_samples).then(|| StackFolder::new(file, &opts.fold));
    let mut frames = Frames::default();
    let mut lost_total = 0u64;
    let mut records = file.records(Order::Time)?;
    for r in records.by_ref() {
        if trace.err.is_some() {
            break;
        }
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                if summary.diagnostics.len() < MAX_DIAGNOSTICS {
                    summary.diagnostics.push(e.to_string());
                }
                continue;
            }
        };
        if let Some(f) = folder.as_mut() {
            f.record(&r);
        }
        match &r.kind {
            RecordKind::Sample(s) => {
                let (Some(f), Some(t)) = (folder.as_mut(), s.time()) else { continue };
                let (pid, tid) = (s.pid().unwrap_or(0), s.tid().unwrap_or(0));
                if named.insert((pid, tid)) {
                    let comm = f.comm(tid);
                    trace.event(|b| meta(b, pid, Some(tid), "thread_name", &comm));
                }
                let sf = f.stack(&r, s).map(|id| frames.stack(f, id));
                let leaf = sf.and_then(|sf| frames.nodes.get(sf as usize)).map_or("sample", |n| &n.name);
                let event = r.event.map(|e| e.display_name()).unwrap_or_default();
                let cpu = s.cpu();
                trace.event(|b| {
                    b.extend_from_slice(b"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\",\"name\":");
                    push_json_str(b, leaf);
                    b.extend_from_slice(b",\"ts\":");
                    push_us(b, t);
                    let _ = write!(b, ",\"pid\":{pid},\"tid\":{tid}");
                    if let Some(sf) = sf {
                        let _ = write!(b, ",\"sf\":{sf}");
                    }
                    b.extend_from_slice(b",\"args\":{\"event\":");
                    push_json_str(b, &event);
                    match cpu {
                        Some(c) => {
                            let _ = write!(b, ",\"cpu\":{c}}}}}");
                        }
                        None => b.extend_from_slice(b",\"cpu\":null}}"),
                    }
                });
                summary.samples += 1;
            }
            RecordKind::Lost(l) => {
                lost_total = lost_total.saturating_add(l.lost);
                let t = r.time().unwrap_or(0);
                trace.event(|b| {
                    b.extend_from_slice(b"{\"ph\":\"C\",\"name\":\"lost events\",\"ts\":");
                    push_us(b, t);
                    let _ = write!(b, ",\"pid\":{CPUS_PID},\"args\":{{\"lost\":{lost_total}}}}}");
                });
            }
            _ => {}
        }
    }
    summary.diagnostics.extend(records.diagnostics());
    if let Some(f) = &folder {
        summary.diagnostics.extend(f.diagnostics());
    }
    summary.events = trace.events;
    trace.raw(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":");
    let mut b = Vec::new();
    push_json_str(&mut b, concat!("perfdata ", env!("CARGO_PKG_VERSION")));
    b.extend_from_slice(b"},\"stackFrames\":{");
    trace.raw(&b);
    for (id, n) in frames.nodes.iter().enumerate() {
        b.clear();
        if id > 0 {
            b.push(b',');
        }
        let _ = write!(b, "\n\"{id}\":{{\"name\":");
        push_json_str(&mut b, &n.name);
        b.extend_from_slice(b",\"category\":\"perf\"");
        if let Some(p) = n.parent {
            let _ = write!(b, ",\"parent\":\"{p}\"");
        }
        b.push(b'}');
        trace.raw(&b);
    }
    trace.raw(b"\n}}\n");
    summary.stack_frames = frames.nodes.len() as u64;
    let Trace { out, err, .. } = trace;
    let flushed = match err {
        Some(e) => Err(e),
        None => out.into_inner().map(|_| ()).map_err(|e| e.into_error()),
    };
    flushed.map_err(|source| Error::Output { what: "the Chrome trace", source })?;
    Ok(summary)
}

/// The output: events written one at a time through a buffer; the first write error is kept
/// (and ends the writing), the handler of the scheduler pass having no way to return it.
struct Trace<'w> {
    out: std::io::BufWriter<&'w mut dyn Write>,
    /// One event's text.
    buf: Vec<u8>,
    events: u64,
    err: Option<std::io::Error>,
}

impl Trace<'_> {
    /// Write one element of `traceEvents`, made by `f`.
    fn event(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        if self.err.is_some() {
            return;
        }
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        if self.events > 0 {
            b.push(b',');
        }
        b.push(b'\n');
        f(&mut b);
        self.raw(&b);
        self.buf = b;
        self.events += 1;
    }

    /// Write `bytes` as they are.
    fn raw(&mut self, bytes: &[u8]) {
        if self.err.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.err = Some(e);
            }
        }
    }
}

/// A metadata event (`ph: "M"`) naming a process (`tid` `None`) or thread.
fn meta(b: &mut Vec<u8>, pid: u32, tid: Option<u32>, what: &str, name: &str) {
    b.extend_from_slice(b"{\"ph\":\"M\",\"name\":");
    push_json_str(b, what);
    let _ = write!(b, ",\"pid\":{pid}");
    if let Some(t) = tid {
        let _ = write!(b, ",\"tid\":{t}");
    }
    b.extend_from_slice(b",\"args\":{\"name\":");
    push_json_str(b, name);
    b.extend_from_slice(b"}}");
}

/// The scheduler pass: each run written when the switch that ends it is read, on its CPU's
/// track and on its thread's, and each wait on the run queue when the switch-in ends it.
struct Sched<'t, 'w> {
    trace: &'t mut Trace<'w>,
    named: &'t mut HashSet<(u32, u32), ahash::RandomState>,
    runs: Runs,
    /// CPUs whose track is named.
    cpus: PerCpu<bool>,
    /// The first switch's time: waits start no earlier (the timeline's window).
    first: Option<u64>,
    /// Runs and waits written.
    count: (u64, u64),
}

impl Sched<'_, '_> {
    /// Name thread `tid`'s track (its process's, as the samples' tracks are).
    fn name_thread(&mut self, pid: u32, tid: u32, m: &Machine) {
        if self.named.insert((pid, tid)) {
            let comm = m.comm(tid);
            self.trace.event(|b| meta(b, pid, Some(tid), "thread_name", &comm));
        }
    }
}

impl Handler for Sched<'_, '_> {
    fn event(&mut self, at: &At, ev: Ev<'_>, m: &Machine, states: &TaskStates) {
        let Ev::Switch { prev_pid, prev_state, next_pid, .. } = ev else {
            if let Ev::Wakeup { pid, kind } = ev {
                self.runs.wakeup(at, pid, kind);
            }
            return;
        };
        let (t, cpu) = (at.time, at.cpu);
        let lo = *self.first.get_or_insert(t);
        let Some(sw) = self.runs.switch(at, prev_pid, prev_state, next_pid, states) else { return };
        if let Some(named) = self.cpus.get_mut(cpu) {
            if !*named {
                *named = true;
                self.trace.event(|b| meta(b, CPUS_PID, Some(cpu), "thread_name", &format!("CPU {cpu}")));
            }
        }
        let pid_of = |tid: u32| m.thread(tid).map_or(tid, |th| th.pid);
        if t > sw.since && prev_pid != 0 {
            let (start, dur) = (sw.since, t - sw.since);
            let comm = m.comm(prev_pid);
            let pid = pid_of(prev_pid);
            self.name_thread(pid, prev_pid, m);
            self.trace.event(|b| {
                b.extend_from_slice(b"{\"ph\":\"X\",\"cat\":\"sched\",\"name\":");
                push_json_str(b, &comm);
                times(b, start, dur);
                let _ = write!(b, ",\"pid\":{CPUS_PID},\"tid\":{cpu},\"args\":{{\"tid\":{prev_pid},\"comm\":");
                push_json_str(b, &comm);
                b.extend_from_slice(b"}}");
            });
            self.trace.event(|b| {
                let _ = write!(b, "{{\"ph\":\"X\",\"cat\":\"sched\",\"name\":\"running on CPU {cpu}\"");
                times(b, start, dur);
                let _ = write!(b, ",\"pid\":{pid},\"tid\":{prev_pid},\"args\":{{\"cpu\":{cpu}}}}}");
            });
            self.count.0 += 1;
        }
        if let Some(w) = sw.waited_since.filter(|&w| t > w) {
            let start = w.max(lo);
            let pid = pid_of(next_pid);
            self.name_thread(pid, next_pid, m);
            self.trace.event(|b| {
                b.extend_from_slice(b"{\"ph\":\"X\",\"cat\":\"sched\",\"name\":\"runnable (waiting for a CPU)\"");
                times(b, start, t.saturating_sub(start));
                let _ = write!(b, ",\"pid\":{pid},\"tid\":{next_pid},\"args\":{{\"cpu\":{cpu}}}}}");
            });
            self.count.1 += 1;
        }
    }
}

/// `,"ts":…,"dur":…` in µs.
fn times(b: &mut Vec<u8>, start: u64, dur: u64) {
    b.extend_from_slice(b",\"ts\":");
    push_us(b, start);
    b.extend_from_slice(b",\"dur\":");
    push_us(b, dur);
}

/// One `stackFrames` entry: a frame under its caller's entry.
struct Node {
    name: String,
    parent: Option<u32>,
}

/// The `stackFrames` dictionary as a trie of stack prefixes: an entry per distinct
/// (caller's entry, frame name), so each stack is the id of its leaf's entry.
#[derive(Default)]
struct Frames {
    nodes: Vec<Node>,
    children: HashMap<(u32, String), u32, ahash::RandomState>,
    /// Folded stack → its leaf's entry.
    stacks: HashMap<StackId, u32, ahash::RandomState>,
}

/// The parent key of a root frame in [`Frames::children`].
const NO_PARENT: u32 = u32::MAX;

impl Frames {
    /// The entry of the leaf of stack `id`, added (with its callers) if new. An empty stack is
    /// one entry named `[unknown]`.
    fn stack(&mut self, f: &StackFolder<'_>, id: StackId) -> u32 {
        if let Some(&sf) = self.stacks.get(&id) {
            return sf;
        }
        let mut at = NO_PARENT;
        let mut frames = f.frames(id).peekable();
        if frames.peek().is_none() {
            at = self.child(NO_PARENT, "[unknown]");
        }
        for name in frames {
            at = self.child(at, name);
        }
        self.stacks.insert(id, at);
        at
    }

    fn child(&mut self, parent: u32, name: &str) -> u32 {
        let key = (parent, name.to_string());
        if let Some(&n) = self.children.get(&key) {
            return n;
        }
        let n = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(Node { name: key.1.clone(), parent: (parent != NO_PARENT).then_some(parent) });
        self.children.insert(key, n);
        n
    }
}
