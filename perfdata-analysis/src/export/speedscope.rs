//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>), two ways:
//!
//! - [`write_speedscope`], the default: one `evented` profile per thread (and per event when the
//!   recording has several), its samples in time order. Each sample opens its stack's frames for
//!   its weight (`perfdata folded`'s: the period or 1) where the previous sample's stack differs,
//!   so speedscope's Time Order view shows what the thread ran, in order, and its Left Heavy and
//!   Sandwich views the same per-stack weights as `perfdata folded --tid`. Written with memory
//!   bounded by the distinct stacks and threads: the profiles' events are spilled to a temporary
//!   file and copied out profile by profile at the end.
//! - [`speedscope`]: one aggregated `sampled` profile per root frame of the folded stacks (per
//!   comm, or per process/thread with `Root::Pid`/`Root::CommPidTid`), each distinct stack one
//!   sample weighted by its folded weight; no time order.
//!
//! Both open in speedscope.app (drag the file in).

use super::push_json_str;
use crate::options::{FoldedOptions, Root, Weight};
use crate::stacks::{FoldedStacks, StackFolder, StackId};
use crate::Error;
use perfdata_core::record::RecordKind;
use perfdata_core::{Order, PerfFile};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, Write};
use std::path::PathBuf;

/// What a weight counts, as speedscope's `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Sample counts or periods of a non-time event.
    None,
    /// Periods of a clock event (cpu-clock, task-clock) or off-CPU time.
    Nanoseconds,
}

impl Unit {
    fn as_str(self) -> &'static str {
        match self {
            Unit::None => "none",
            Unit::Nanoseconds => "nanoseconds",
        }
    }
}

/// The speedscope JSON document of `stacks` (`comm;frame;…;leaf` → weight). `name` names the
/// file in speedscope's title bar. With `root` true the first frame of each stack is the root
/// (comm, `comm-PID/TID`) and becomes the profile, else all stacks make one profile.
pub fn speedscope(stacks: &FoldedStacks, name: &str, unit: Unit, root: bool) -> serde_json::Value {
    use serde_json::json;
    let mut frames: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // profile name → (samples, weights)
    let mut profiles: BTreeMap<&str, (Vec<Vec<usize>>, Vec<u64>)> = BTreeMap::new();
    for (stack, &w) in &stacks.stacks {
        let mut parts = stack.split(';');
        let profile = if root { parts.next().unwrap_or("") } else { name };
        let ids: Vec<usize> = parts
            .map(|f| {
                *index.entry(f).or_insert_with(|| {
                    frames.push(f);
                    frames.len() - 1
                })
            })
            .collect();
        let p = profiles.entry(profile).or_default();
        p.0.push(ids);
        p.1.push(w);
    }
    let profiles: Vec<serde_json::Value> = profiles
        .into_iter()
        .map(|(n, (samples, weights))| {
            let total: u64 = weights.iter().sum();
            json!({
                "type": "sampled",
                "name": n,
                "unit": unit.as_str(),
                "startValue": 0,
                "endValue": total,
                "samples": samples,
                "weights": weights,
            })
        })
        .collect();
    json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": { "frames": frames.iter().map(|f| json!({ "name": f })).collect::<Vec<_>>() },
        "profiles": profiles,
        "name": name,
        "activeProfileIndex": 0,
        "exporter": concat!("perfdata ", env!("CARGO_PKG_VERSION")),
    })
}

/// Options of [`write_speedscope`].
#[derive(Clone, Debug, Default)]
pub struct SpeedscopeOptions {
    /// How stacks are folded and weighed, and which samples: as `perfdata folded`, except that
    /// every event is taken unless [`FoldedOptions::event_filter`] names one (a profile per event),
    /// and the root frame (the comm) is left out of the stacks (the profile names the thread).
    pub fold: FoldedOptions,
    /// The document's name (speedscope's title bar), and the file's in the error without samples.
    pub name: String,
    /// Bytes of profile events held in memory before they are spilled to a temporary file in
    /// [`std::env::temp_dir`] (removed at the end); 0: 8 MiB.
    pub memory: usize,
}

/// What [`write_speedscope`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpeedscopeSummary {
    /// Profiles (threads × events).
    pub profiles: u64,
    /// Samples in them.
    pub samples: u64,
    /// Entries of `shared.frames`.
    pub frames: u64,
    /// Frame open and close events.
    pub events: u64,
    /// Bytes of events that went through the temporary file (0: all fit in memory).
    pub spilled: u64,
    /// What went wrong on the way without stopping it (reading stopped early, a jitdump missing).
    pub diagnostics: Vec<String>,
}

/// Bytes of profile events held in memory before they are spilled to the temporary file, by
/// default.
const SPILL_AT: usize = 8 << 20;

/// Most reading errors kept for [`SpeedscopeSummary::diagnostics`].
const MAX_DIAGNOSTICS: usize = 100;

/// Write `file`'s samples as speedscope `evented` profiles, one per thread and event, in time
/// order (see the module's documentation).
///
/// A profile's `at` values are its thread's sample weights laid end to end in time order
/// (`startValue` 0, `endValue` their sum): a frame's total is the weight of the samples that
/// have it on their stack, as `perfdata folded --tid` weighs it, and the time the thread did not
/// run (no samples) takes no room. The unit is `nanoseconds` for the periods of a clock event
/// (`cpu-clock`, `task-clock`), else `none`.
///
/// Errors: [`Error::Missing`] when no sample has a stack to show (nothing would be written),
/// [`Error::Read`] when the file cannot be read, [`Error::Options`] for a `--time` that does not
/// resolve, [`Error::Io`] when the temporary file fails, [`Error::Output`] when writing fails.
pub fn write_speedscope(
    file: &PerfFile,
    opts: &SpeedscopeOptions,
    out: &mut dyn Write,
) -> Result<SpeedscopeSummary, Error> {
    let fold = &opts.fold;
    let mut filter = crate::stacks::SampleFilter::new(file, fold)?.every_event_unless_named();
    let mut folder = StackFolder::new(file, fold);
    let mut w = Profiles {
        profiles: Vec::new(),
        index: HashMap::default(),
        frames: Vec::new(),
        frame_index: HashMap::default(),
        stacks: HashMap::default(),
        buffered: 0,
        spill_at: if opts.memory == 0 { SPILL_AT } else { opts.memory },
        spill: None,
        frame_ids: Vec::new(),
        summary: SpeedscopeSummary::default(),
    };
    let mut records = file.records(Order::Time)?;
    for r in records.by_ref() {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                if w.summary.diagnostics.len() < MAX_DIAGNOSTICS {
                    w.summary.diagnostics.push(e.to_string());
                }
                continue;
            }
        };
        folder.record(&r);
        let RecordKind::Sample(s) = &r.kind else { continue };
        // The filters and weights `perfdata folded` applies, but every event.
        let Some(weight) = filter.weight(&r, s) else { continue };
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        let Some(id) = folder.stack(&r, s) else { continue };
        let event = r.event.map_or(0, |e| e.index);
        let root = w.stack(&folder, fold.root != Root::None, id).0;
        let p = w.profile(&folder, file, fold, (event, pid, tid, root));
        w.sample(p, id, weight)?;
    }
    w.summary.diagnostics.extend(records.diagnostics());
    drop(records);
    w.summary.diagnostics.extend(folder.diagnostics());
    if w.profiles.is_empty() {
        return Err(Error::Missing(format!(
            "no samples in {}: speedscope shows sampled stacks; record with perf record -g",
            opts.name
        )));
    }
    w.finish(&opts.name, out)
}

/// What makes a profile: (event index, pid, tid, root frame). The root frame (the comm, as the
/// folded stacks' first frame has it) splits a thread that `exec`s into the program before and
/// the one after, as `perfdata folded` does.
type Key = (usize, u32, u32, u32);

/// [`Key`]'s root frame when the stacks have none.
const NO_ROOT: u32 = u32::MAX;

/// A profile being written: one thread's samples of one event (and comm).
struct Profile {
    key: Key,
    /// `comm pid/tid` at its first sample.
    name: String,
    /// The event's name.
    event: String,
    unit: Unit,
    /// The frames open now (the last sample's stack), root first.
    open: Vec<u32>,
    /// The weight so far: where the next sample starts.
    at: u64,
    samples: u64,
    /// Events written (a comma goes before all but the first).
    events: u64,
    /// Its events not yet spilled.
    buf: Vec<u8>,
    /// Its events in the temporary file: (offset, length), in order.
    chunks: Vec<(u64, u64)>,
}

/// The temporary file, removed when dropped.
struct Spill {
    path: PathBuf,
    file: std::fs::File,
    len: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

struct Profiles {
    profiles: Vec<Profile>,
    index: HashMap<Key, usize, ahash::RandomState>,
    /// `shared.frames`: the names, and name → index.
    frames: Vec<String>,
    frame_index: HashMap<String, u32, ahash::RandomState>,
    /// Folded stack → its root frame ([`NO_ROOT`] without) and its other frames (indices, root
    /// first).
    stacks: HashMap<StackId, (u32, Box<[u32]>), ahash::RandomState>,
    /// Bytes in the profiles' `buf`s.
    buffered: usize,
    /// When to spill them.
    spill_at: usize,
    spill: Option<Spill>,
    /// Scratch: the stack of the sample at hand.
    frame_ids: Vec<u32>,
    summary: SpeedscopeSummary,
}

impl Profiles {
    /// The index of the profile of `key`, made at its first sample.
    fn profile(&mut self, f: &StackFolder<'_>, file: &PerfFile, fold: &FoldedOptions, key: Key) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let (event, pid, tid, _) = key;
        let ev = file.events().get(event);
        let clock = ev.is_some_and(|e| {
            let n = e.display_name();
            n.starts_with("cpu-clock") || n.starts_with("task-clock")
        });
        let unit = if fold.weight == Weight::Period && clock { Unit::Nanoseconds } else { Unit::None };
        self.profiles.push(Profile {
            key,
            name: format!("{} {pid}/{tid}", f.comm(tid)),
            event: ev.map(|e| e.display_name()).unwrap_or_default(),
            unit,
            open: Vec::new(),
            at: 0,
            samples: 0,
            events: 0,
            buf: Vec::new(),
            chunks: Vec::new(),
        });
        let i = self.profiles.len() - 1;
        self.index.insert(key, i);
        i
    }

    /// Stack `id`'s root frame ([`NO_ROOT`] when `strip_root` is false) and its other frames, as
    /// `shared.frames` indices. A stack of the root frame alone keeps it (its weight shows).
    fn stack(&mut self, f: &StackFolder<'_>, strip_root: bool, id: StackId) -> &(u32, Box<[u32]>) {
        let (frames, index, ids) = (&mut self.frames, &mut self.frame_index, &mut self.frame_ids);
        self.stacks.entry(id).or_insert_with(|| {
            ids.clear();
            let mut names = f.frames(id);
            let root = if strip_root { names.next().map(|n| frame(frames, index, n)) } else { None };
            for name in names {
                ids.push(frame(frames, index, name));
            }
            if let (true, Some(root)) = (ids.is_empty(), root) {
                ids.push(root);
            }
            (root.unwrap_or(NO_ROOT), ids.as_slice().into())
        })
    }

    /// Profile `p`'s next sample: stack `id` (seen by [`Profiles::stack`]), weight `weight`.
    /// Closes the open frames the stack does not share (leaf first), opens its own beyond them.
    fn sample(&mut self, p: usize, id: StackId, weight: u64) -> Result<(), Error> {
        let Some((_, stack)) = self.stacks.get(&id) else { return Ok(()) };
        let Some(prof) = self.profiles.get_mut(p) else { return Ok(()) };
        let before = prof.buf.len();
        let same = prof.open.iter().zip(stack.iter()).take_while(|(a, b)| a == b).count();
        let at = prof.at;
        while prof.open.len() > same {
            if let Some(fr) = prof.open.pop() {
                prof.push_event(b'C', fr, at);
            }
        }
        for &fr in stack.get(same..).unwrap_or_default() {
            prof.open.push(fr);
            prof.push_event(b'O', fr, at);
        }
        prof.at = prof.at.saturating_add(weight);
        prof.samples += 1;
        self.summary.samples += 1;
        self.buffered = self.buffered.saturating_add(prof.buf.len().saturating_sub(before));
        if self.buffered >= self.spill_at {
            self.spill_all()?;
        }
        Ok(())
    }

    /// Move every profile's buffered events to the temporary file.
    fn spill_all(&mut self) -> Result<(), Error> {
        if self.spill.is_none() {
            let (path, file) = temp_file()?;
            self.spill = Some(Spill { path, file, len: 0 });
        }
        let Some(spill) = self.spill.as_mut() else { return Ok(()) };
        for prof in &mut self.profiles {
            if prof.buf.is_empty() {
                continue;
            }
            spill.file.write_all(&prof.buf).map_err(|source| Error::Io { path: spill.path.clone(), source })?;
            let len = prof.buf.len() as u64;
            prof.chunks.push((spill.len, len));
            spill.len = spill.len.saturating_add(len);
            prof.buf.clear();
        }
        self.summary.spilled = spill.len;
        self.buffered = 0;
        Ok(())
    }

    /// Close every profile's frames and write the document.
    fn finish(mut self, name: &str, out: &mut dyn Write) -> Result<SpeedscopeSummary, Error> {
        for prof in &mut self.profiles {
            let at = prof.at;
            while let Some(fr) = prof.open.pop() {
                prof.push_event(b'C', fr, at);
            }
        }
        let several_events = self.profiles.iter().any(|p| p.key.0 != self.profiles.first().map_or(0, |q| q.key.0));
        // Threads in pid/tid order, events of a thread together, its comms in the order they
        // came; the heaviest opens first.
        let mut order: Vec<usize> = (0..self.profiles.len()).collect();
        order.sort_by_key(|&i| self.profiles.get(i).map(|p| (p.key.1, p.key.2, p.key.0, i)));
        let active = order
            .iter()
            .enumerate()
            .max_by_key(|(_, &i)| self.profiles.get(i).map(|p| (p.unit == Unit::Nanoseconds, p.at)))
            .map_or(0, |(n, _)| n);
        let output = |source| Error::Output { what: "the speedscope profile", source };
        let mut o = std::io::BufWriter::with_capacity(1 << 16, out);
        let mut b = Vec::new();
        b.extend_from_slice(b"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
        push_json_str(&mut b, concat!("perfdata ", env!("CARGO_PKG_VERSION")));
        b.extend_from_slice(b",\"name\":");
        push_json_str(&mut b, name);
        b.extend_from_slice(format!(",\"activeProfileIndex\":{active},\"profiles\":[").as_bytes());
        o.write_all(&b).map_err(output)?;
        let mut chunk = Vec::new();
        for (n, &i) in order.iter().enumerate() {
            let Some(prof) = self.profiles.get(i) else { continue };
            b.clear();
            if n > 0 {
                b.push(b',');
            }
            b.extend_from_slice(b"\n{\"type\":\"evented\",\"name\":");
            if several_events {
                push_json_str(&mut b, &format!("{} {}", prof.name, prof.event));
            } else {
                push_json_str(&mut b, &prof.name);
            }
            b.extend_from_slice(
                format!(",\"unit\":\"{}\",\"startValue\":0,\"endValue\":{},\"events\":[", prof.unit.as_str(), prof.at)
                    .as_bytes(),
            );
            o.write_all(&b).map_err(output)?;
            if let Some(spill) = self.spill.as_mut() {
                for &(offset, len) in &prof.chunks {
                    let io = |source| Error::Io { path: spill.path.clone(), source };
                    spill.file.seek(std::io::SeekFrom::Start(offset)).map_err(io)?;
                    chunk.clear();
                    (&mut spill.file).take(len).read_to_end(&mut chunk).map_err(io)?;
                    o.write_all(&chunk).map_err(output)?;
                }
            }
            o.write_all(&prof.buf).map_err(output)?;
            o.write_all(b"]}").map_err(output)?;
            self.summary.events = self.summary.events.saturating_add(prof.events);
        }
        o.write_all(b"\n],\"shared\":{\"frames\":[").map_err(output)?;
        for (n, f) in self.frames.iter().enumerate() {
            b.clear();
            if n > 0 {
                b.push(b',');
            }
            b.extend_from_slice(b"\n{\"name\":");
            push_json_str(&mut b, f);
            b.push(b'}');
            o.write_all(&b).map_err(output)?;
        }
        o.write_all(b"\n]}}\n").map_err(output)?;
        o.into_inner().map_err(|e| output(e.into_error()))?.flush().map_err(output)?;
        self.summary.profiles = self.profiles.len() as u64;
        self.summary.frames = self.frames.len() as u64;
        Ok(std::mem::take(&mut self.summary))
    }
}

impl Profile {
    /// Append `{"type":"O","frame":F,"at":AT}` (or `C`).
    fn push_event(&mut self, kind: u8, frame: u32, at: u64) {
        if self.events > 0 {
            self.buf.push(b',');
        }
        self.buf.extend_from_slice(b"{\"type\":\"");
        self.buf.push(kind);
        self.buf.extend_from_slice(b"\",\"frame\":");
        self.buf.extend_from_slice(itoa::Buffer::new().format(frame).as_bytes());
        self.buf.extend_from_slice(b",\"at\":");
        self.buf.extend_from_slice(itoa::Buffer::new().format(at).as_bytes());
        self.buf.push(b'}');
        self.events += 1;
    }
}

/// The index of frame `name` in `shared.frames`, added if new.
fn frame(frames: &mut Vec<String>, index: &mut HashMap<String, u32, ahash::RandomState>, name: &str) -> u32 {
    if let Some(&i) = index.get(name) {
        return i;
    }
    let i = u32::try_from(frames.len()).unwrap_or(u32::MAX);
    frames.push(name.to_string());
    index.insert(name.to_string(), i);
    i
}

/// A new file in the temporary directory (`perfdata-speedscope-PID-N.tmp`), opened to write
/// and read back.
fn temp_file() -> Result<(PathBuf, std::fs::File), Error> {
    let dir = std::env::temp_dir();
    let mut last = None;
    for n in 0..100u32 {
        let path = dir.join(format!("perfdata-speedscope-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some((path, e)),
            Err(source) => return Err(Error::Io { path, source }),
        }
    }
    let (path, source) = last.unwrap_or_else(|| (dir, std::io::Error::other("no temporary file name left")));
    Err(Error::Io { path, source })
}
