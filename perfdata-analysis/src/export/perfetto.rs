//! Perfetto's own protobuf trace format (what <https://ui.perfetto.dev> and `trace_processor`
//! open): a `Trace` of `TracePacket`s on one packet sequence. Scheduler slices (from
//! `sched_switch`, the runs and run-queue waits the Chrome trace has) are track events
//! (`TYPE_SLICE_BEGIN`/`TYPE_SLICE_END`) on a track per CPU (`CPU N`) and a track per thread
//! (under its process's track); samples are `PerfSample`s whose `callstack_iid` names an
//! interned callstack (`InternedData`: function names, frames, callstacks, one mapping), each
//! frame named as `perfdata folded` names it. Times are the recording's perf clock in ns, with
//! no `ClockSnapshot`: the importer takes them as its default trace clock.
//!
//! [`write_perfetto_trace`] writes each packet as it is made, like the Chrome export: what it
//! keeps is the reader's time-order window, the scheduler's per-CPU state, the tracks described
//! so far and the interning tables (distinct frame names and stacks).
//!
//! Field numbers are those of Perfetto's public protos (`protos/perfetto/trace/trace_packet.proto`,
//! `track_event/track_event.proto`, `track_event/track_descriptor.proto`,
//! `profiling/profile_packet.proto`, `profiling/profile_common.proto`,
//! `interned_data/interned_data.proto`); the messages below are written by hand with only the
//! fields perfdata writes, as the pprof export's are.

use crate::latency::tp::{has_event, TpSource};
use crate::options::FoldedOptions;
use crate::sched::events::{drive, At, Ev, Handler, PerCpu, SWITCH};
use crate::sched::state::TaskStates;
use crate::sched::timeline::Runs;
use crate::stacks::{StackFolder, StackId};
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::{Order, PerfFile, RecordKind};
use prost::Message;
use std::collections::{HashMap, HashSet};
use std::io::Write;

/// What to put in the trace.
#[derive(Clone, Debug, Default)]
pub struct PerfettoOptions {
    /// How sample stacks are folded (frames as `perfdata folded` writes them).
    pub fold: FoldedOptions,
    /// Leave the samples out (scheduler slices only).
    pub no_samples: bool,
}

/// What [`write_perfetto_trace`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PerfettoSummary {
    /// `TracePacket`s.
    pub packets: u64,
    /// Scheduler runs (each a slice on its CPU's track and one on its thread's).
    pub runs: u64,
    /// Run-queue waits (a slice on the thread's track).
    pub waits: u64,
    /// `PerfSample` packets.
    pub samples: u64,
    /// Interned callstacks.
    pub callstacks: u64,
    /// Interned frames (distinct frame names).
    pub frames: u64,
    /// Why reading stopped early, if it did (every complete record before was written).
    pub diagnostics: Vec<String>,
}

/// Most reading errors kept for [`PerfettoSummary::diagnostics`].
const MAX_DIAGNOSTICS: usize = 100;

/// The one packet sequence's `trusted_packet_sequence_id`.
const SEQUENCE: u32 = 1;
/// `TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED`.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE`.
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;
/// `TrackEvent.Type.TYPE_SLICE_BEGIN`.
const TYPE_SLICE_BEGIN: i32 = 1;
/// `TrackEvent.Type.TYPE_SLICE_END`.
const TYPE_SLICE_END: i32 = 2;
/// The interned mapping every frame is in (perf's folded frames carry no address).
const MAPPING_IID: u64 = 1;

/// Track uuids: a kind in the bits above 40, the pid, tid or CPU below.
fn uuid(kind: u64, id: u32) -> u64 {
    (kind << 40) | u64::from(id)
}
const PROCESS_TRACK: u64 = 1;
const THREAD_TRACK: u64 = 2;
const CPU_TRACK: u64 = 3;

/// Write the Perfetto trace of `file` to `out`.
///
/// Two passes over the records, as [`write_chrome_trace`](super::chrome::write_chrome_trace):
/// the scheduler's (when the file has `sched:sched_switch`), then the samples. Memory does not
/// grow with the number of events (see the module's documentation).
///
/// Errors: [`Error::Read`] when the file cannot be read at all, [`Error::Output`] when writing
/// fails; a file without `sched_switch` has no slices, one without samples no `PerfSample`s.
pub fn write_perfetto_trace(
    file: &PerfFile,
    opts: &PerfettoOptions,
    out: &mut dyn Write,
) -> Result<PerfettoSummary, Error> {
    let mut trace = Trace {
        out: std::io::BufWriter::with_capacity(1 << 16, out),
        buf: Vec::new(),
        packets: 0,
        err: None,
        tracks: HashSet::default(),
    };
    let mut summary = PerfettoSummary::default();
    // The first packet clears the sequence's incremental state and interns the one mapping.
    trace.packet(TracePacket {
        interned_data: Some(InternedData {
            mapping_paths: vec![InternedString { iid: Some(1), str: Some(b"[perfdata]".to_vec()) }],
            mappings: vec![Mapping { iid: Some(MAPPING_IID), path_string_ids: vec![1], ..Mapping::default() }],
            ..InternedData::default()
        }),
        ..TracePacket::default()
    });
    if has_event(file.events(), TpSource::new(file).get(), "sched", SWITCH) {
        let mut sched =
            Sched { trace: &mut trace, runs: Runs::default(), first: None, count: (0, 0), cpus: PerCpu::default() };
        match drive(file, &mut sched) {
            Ok(info) => summary.diagnostics.extend(info.diagnostics),
            Err(Error::Missing(_)) => {}
            Err(e) => return Err(e),
        }
        (summary.runs, summary.waits) = sched.count;
    }
    if !opts.no_samples {
        let mut folder = StackFolder::new(file, &opts.fold);
        let mut interned = Interned::default();
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
            folder.record(&r);
            let RecordKind::Sample(s) = &r.kind else { continue };
            let Some(t) = s.time() else { continue };
            let mut data = InternedData::default();
            let callstack = folder.stack(&r, s).map(|id| interned.stack(&folder, id, &mut data));
            let has_data = !data.callstacks.is_empty();
            trace.packet(TracePacket {
                timestamp: Some(t),
                interned_data: has_data.then_some(data),
                perf_sample: Some(PerfSample { cpu: s.cpu(), pid: s.pid(), tid: s.tid(), callstack_iid: callstack }),
                ..TracePacket::default()
            });
            summary.samples += 1;
        }
        summary.diagnostics.extend(records.diagnostics());
        summary.diagnostics.extend(folder.diagnostics());
        summary.callstacks = interned.stacks.len() as u64;
        summary.frames = interned.frames.len() as u64;
    }
    summary.packets = trace.packets;
    let Trace { out, err, .. } = trace;
    let flushed = match err {
        Some(e) => Err(e),
        None => out.into_inner().map(|_| ()).map_err(|e| e.into_error()),
    };
    flushed.map_err(|source| Error::Output { what: "the Perfetto trace", source })?;
    Ok(summary)
}

/// The output: packets written one at a time, each as a `Trace.packet` field (1,
/// length-delimited); the first write error is kept and ends the writing.
struct Trace<'w> {
    out: std::io::BufWriter<&'w mut dyn Write>,
    /// One packet's bytes.
    buf: Vec<u8>,
    packets: u64,
    err: Option<std::io::Error>,
    /// Track uuids described so far.
    tracks: HashSet<u64, ahash::RandomState>,
}

impl Trace<'_> {
    /// Write `p` on the sequence: the first packet clears the incremental state, the others
    /// use it.
    fn packet(&mut self, mut p: TracePacket) {
        if self.err.is_some() {
            return;
        }
        p.trusted_packet_sequence_id = Some(SEQUENCE);
        p.sequence_flags =
            Some(if self.packets == 0 { SEQ_INCREMENTAL_STATE_CLEARED } else { SEQ_NEEDS_INCREMENTAL_STATE });
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        b.push(0x0a); // field 1, wire type 2
        prost::encoding::encode_varint(p.encoded_len() as u64, &mut b);
        // Encoding into a Vec cannot run out of room.
        let _ = p.encode(&mut b);
        if let Err(e) = self.out.write_all(&b) {
            self.err = Some(e);
        }
        self.buf = b;
        self.packets += 1;
    }

    /// Describe a track the first time it is used.
    fn describe(&mut self, d: TrackDescriptor) {
        if let Some(u) = d.uuid {
            if self.tracks.insert(u) {
                self.packet(TracePacket { track_descriptor: Some(d), ..TracePacket::default() });
            }
        }
    }

    /// Thread `tid`'s track (under its process `pid`'s), described if new.
    fn thread_track(&mut self, pid: u32, tid: u32, m: &Machine) -> u64 {
        let (p, t) = (uuid(PROCESS_TRACK, pid), uuid(THREAD_TRACK, tid));
        if !self.tracks.contains(&t) {
            self.describe(TrackDescriptor {
                uuid: Some(p),
                process: Some(ProcessDescriptor { pid: i32::try_from(pid).ok(), process_name: Some(m.comm(pid)) }),
                ..TrackDescriptor::default()
            });
            self.describe(TrackDescriptor {
                uuid: Some(t),
                parent_uuid: Some(p),
                thread: Some(ThreadDescriptor {
                    pid: i32::try_from(pid).ok(),
                    tid: i32::try_from(tid).ok(),
                    thread_name: Some(m.comm(tid)),
                }),
                ..TrackDescriptor::default()
            });
        }
        t
    }

    /// A slice `[start, end]` named `name` on `track`: its begin and end events.
    fn slice(&mut self, track: u64, name: String, start: u64, end: u64) {
        self.packet(TracePacket {
            timestamp: Some(start),
            track_event: Some(TrackEvent { r#type: Some(TYPE_SLICE_BEGIN), track_uuid: Some(track), name: Some(name) }),
            ..TracePacket::default()
        });
        self.packet(TracePacket {
            timestamp: Some(end),
            track_event: Some(TrackEvent { r#type: Some(TYPE_SLICE_END), track_uuid: Some(track), name: None }),
            ..TracePacket::default()
        });
    }
}

/// The scheduler pass: each run written when the switch that ends it is read, on its CPU's
/// track and its thread's, and each run-queue wait when the switch-in ends it (the Chrome
/// export's slices, from the same [`Runs`] timeline).
struct Sched<'t, 'w> {
    trace: &'t mut Trace<'w>,
    runs: Runs,
    /// The first switch's time: waits start no earlier (the timeline's window).
    first: Option<u64>,
    /// Runs and waits written.
    count: (u64, u64),
    /// CPUs whose track is described.
    cpus: PerCpu<bool>,
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
        let cpu_track = uuid(CPU_TRACK, cpu);
        if let Some(described) = self.cpus.get_mut(cpu) {
            if !*described {
                *described = true;
                self.trace.describe(TrackDescriptor {
                    uuid: Some(cpu_track),
                    name: Some(format!("CPU {cpu}")),
                    ..TrackDescriptor::default()
                });
            }
        }
        let pid_of = |tid: u32| m.thread(tid).map_or(tid, |th| th.pid);
        if t > sw.since && prev_pid != 0 {
            let track = self.trace.thread_track(pid_of(prev_pid), prev_pid, m);
            if self.trace.tracks.contains(&cpu_track) {
                self.trace.slice(cpu_track, m.comm(prev_pid), sw.since, t);
            }
            self.trace.slice(track, format!("running on CPU {cpu}"), sw.since, t);
            self.count.0 += 1;
        }
        if let Some(w) = sw.waited_since.filter(|&w| t > w) {
            let track = self.trace.thread_track(pid_of(next_pid), next_pid, m);
            self.trace.slice(track, "runnable (waiting for a CPU)".to_string(), w.max(lo), t);
            self.count.1 += 1;
        }
    }
}

/// The interning tables: an iid per distinct frame name (its function name and frame share
/// it) and per folded stack.
#[derive(Default)]
struct Interned {
    frames: HashMap<String, u64, ahash::RandomState>,
    stacks: HashMap<StackId, u64, ahash::RandomState>,
}

impl Interned {
    /// The callstack iid of folded stack `id`, its new names, frames and the callstack itself
    /// added to `data` when it is new. An empty stack is the one frame `[unknown]`.
    fn stack(&mut self, f: &StackFolder<'_>, id: StackId, data: &mut InternedData) -> u64 {
        if let Some(&iid) = self.stacks.get(&id) {
            return iid;
        }
        let mut frame_ids = Vec::new();
        let mut names = f.frames(id).peekable();
        let unknown = names.peek().is_none().then_some("[unknown]");
        for name in unknown.into_iter().chain(names) {
            let next = self.frames.len() as u64 + 1;
            let iid = *self.frames.entry(name.to_string()).or_insert_with(|| {
                data.function_names.push(InternedString { iid: Some(next), str: Some(name.as_bytes().to_vec()) });
                // rel_pc = iid keeps frames distinct for importers that key frames by address.
                data.frames.push(Frame {
                    iid: Some(next),
                    function_name_id: Some(next),
                    mapping_id: Some(MAPPING_IID),
                    rel_pc: Some(next),
                });
                next
            });
            frame_ids.push(iid);
        }
        let iid = self.stacks.len() as u64 + 1;
        self.stacks.insert(id, iid);
        data.callstacks.push(Callstack { iid: Some(iid), frame_ids });
        iid
    }
}

/// `TracePacket` (trace_packet.proto): one timestamped event or description on a sequence.
#[derive(Clone, PartialEq, Message)]
struct TracePacket {
    /// Time, ns, in the trace's clock.
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    /// The sequence the packet is on (incremental state is per sequence).
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    /// A track event.
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    /// Data interned for this and the following packets of the sequence.
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    /// `SequenceFlags` bits.
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    /// A track's description.
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    /// A perf sample.
    #[prost(message, optional, tag = "66")]
    pub perf_sample: Option<PerfSample>,
}

/// `TrackEvent` (track_event.proto): a slice begin/end or instant on a track.
#[derive(Clone, PartialEq, Message)]
struct TrackEvent {
    /// `TrackEvent.Type`: 1 slice begin, 2 slice end, 3 instant.
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    /// The track's uuid.
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// The event's name (not interned).
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
}

/// `TrackDescriptor` (track_descriptor.proto).
#[derive(Clone, PartialEq, Message)]
struct TrackDescriptor {
    /// The track's id, unique in the trace.
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    /// The track's name.
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// A process track.
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    /// A thread track.
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    /// The enclosing track.
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
}

/// `ProcessDescriptor` (process_descriptor.proto).
#[derive(Clone, PartialEq, Message)]
struct ProcessDescriptor {
    /// Process id.
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// Process name.
    #[prost(string, optional, tag = "6")]
    pub process_name: Option<String>,
}

/// `ThreadDescriptor` (thread_descriptor.proto).
#[derive(Clone, PartialEq, Message)]
struct ThreadDescriptor {
    /// Process id.
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// Thread id.
    #[prost(int32, optional, tag = "2")]
    pub tid: Option<i32>,
    /// Thread name.
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
}

/// `PerfSample` (profile_packet.proto).
#[derive(Clone, PartialEq, Message)]
struct PerfSample {
    /// CPU.
    #[prost(uint32, optional, tag = "1")]
    pub cpu: Option<u32>,
    /// Process id.
    #[prost(uint32, optional, tag = "2")]
    pub pid: Option<u32>,
    /// Thread id.
    #[prost(uint32, optional, tag = "3")]
    pub tid: Option<u32>,
    /// Interned `Callstack`.
    #[prost(uint64, optional, tag = "4")]
    pub callstack_iid: Option<u64>,
}

/// `InternedData` (interned_data.proto): the tables perfdata fills.
#[derive(Clone, PartialEq, Message)]
struct InternedData {
    /// Function names of frames.
    #[prost(message, repeated, tag = "5")]
    pub function_names: Vec<InternedString>,
    /// Frames.
    #[prost(message, repeated, tag = "6")]
    pub frames: Vec<Frame>,
    /// Callstacks.
    #[prost(message, repeated, tag = "7")]
    pub callstacks: Vec<Callstack>,
    /// Paths of mappings.
    #[prost(message, repeated, tag = "17")]
    pub mapping_paths: Vec<InternedString>,
    /// Mappings.
    #[prost(message, repeated, tag = "19")]
    pub mappings: Vec<Mapping>,
}

/// `InternedString`.
#[derive(Clone, PartialEq, Message)]
struct InternedString {
    /// Id.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// The bytes.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub str: Option<Vec<u8>>,
}

/// `Frame` (profile_common.proto).
#[derive(Clone, PartialEq, Message)]
struct Frame {
    /// Id.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// Interned function name.
    #[prost(uint64, optional, tag = "2")]
    pub function_name_id: Option<u64>,
    /// Interned mapping.
    #[prost(uint64, optional, tag = "3")]
    pub mapping_id: Option<u64>,
    /// Address relative to the mapping.
    #[prost(uint64, optional, tag = "4")]
    pub rel_pc: Option<u64>,
}

/// `Callstack` (profile_common.proto): frames, root ("bottom") first.
#[derive(Clone, PartialEq, Message)]
struct Callstack {
    /// Id.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// Interned frames, root first.
    #[prost(uint64, repeated, packed = "false", tag = "2")]
    pub frame_ids: Vec<u64>,
}

/// `Mapping` (profile_common.proto).
#[derive(Clone, PartialEq, Message)]
struct Mapping {
    /// Id.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// Start address.
    #[prost(uint64, optional, tag = "4")]
    pub start: Option<u64>,
    /// End address.
    #[prost(uint64, optional, tag = "5")]
    pub end: Option<u64>,
    /// Interned path components.
    #[prost(uint64, repeated, packed = "false", tag = "7")]
    pub path_string_ids: Vec<u64>,
}
