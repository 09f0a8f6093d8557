//! Block I/O latency: `block:block_rq_issue` (or `block:block_rq_insert`, for queued latency) paired
//! with `block:block_rq_complete` by `(dev, sector)`, the recipe of the classic `perf script | awk`
//! pipeline and of perf-tools iolatency (analysis-semantics §3).
//!
//! A start stores `start[(dev, sector)]`; a complete with that key closes the I/O and removes the
//! key; a complete without one is an unmatched complete; a second start with the same key
//! overwrites the first (counted); starts still open at the end are unmatched starts. Flush
//! requests have sector 0 (their completes report sector `u64::MAX` on this kernel), so they pair
//! as the recipe pairs them.

use super::tp::{has_event, Loc, TpExtractor, TpFields, MAX_ERRORS};
use super::{Error, ShortStr};
use perfdata_core::reader::Endian;
use perfdata_core::sample::Sample;
use perfdata_core::{Parallel, PerfFile, ReadOptions};
use std::collections::HashMap;

/// Which event starts an I/O.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// `block_rq_issue`: the request went to the device (device latency; biolatency's default).
    #[default]
    Issue,
    /// `block_rq_insert`: the request was queued (queued latency, `biolatency -Q`/`iolatency -Q`).
    Insert,
}

/// Which I/Os to keep. Every set condition must hold.
#[derive(Clone, Debug, Default)]
pub struct BlockFilter {
    /// Only this device (`major`, `minor`).
    pub dev: Option<(u32, u32)>,
    /// Only I/Os whose `rwbs` matches this glob (`*` any run, `?` one byte), e.g. `*R*` for reads,
    /// `W*` for writes, `*S*` for sync.
    pub rwbs: Option<String>,
    /// Only I/Os started by a task with this `comm` (the tracepoint's `comm` field at the start).
    pub comm: Option<String>,
    /// Only I/Os started by this process id (the sample's pid at the start).
    pub pid: Option<u32>,
    /// Only I/Os completed at or after this time (perf timestamp, ns).
    pub from_ns: Option<u64>,
    /// Only I/Os completed at or before this time (perf timestamp, ns).
    pub to_ns: Option<u64>,
}

impl BlockFilter {
    /// Whether `io` passes.
    pub fn matches(&self, io: &BlockIo) -> bool {
        self.dev.is_none_or(|d| d == (io.dev_major, io.dev_minor))
            && self.rwbs.as_deref().is_none_or(|g| glob(g.as_bytes(), io.rwbs.as_bytes()))
            && self.comm.as_deref().is_none_or(|c| c.as_bytes() == io.comm.as_bytes())
            && self.pid.is_none_or(|p| p == io.pid)
            && self.from_ns.is_none_or(|t| io.complete_ns >= t)
            && self.to_ns.is_none_or(|t| io.complete_ns <= t)
    }
}

/// What to pair.
#[derive(Clone, Debug, Default)]
pub struct BlockOptions {
    /// The starting event.
    pub start: Start,
    /// Which I/Os to keep.
    pub filter: BlockFilter,
}

/// One completed I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockIo {
    /// Device major number (`dev >> 20`, the kernel's internal dev_t).
    pub dev_major: u32,
    /// Device minor number (`dev & 0xfffff`).
    pub dev_minor: u32,
    /// First sector (512-byte units) as the start event reported it.
    pub sector: u64,
    /// Sectors, from the start event.
    pub nr_sector: u32,
    /// Bytes, from the start event (`bytes` field; 0 if the format has none).
    pub bytes: u32,
    /// The request's `rwbs` flags at the start (`WS`, `RA`, `FF`, …).
    pub rwbs: ShortStr,
    /// `comm` field of the issue event (of the insert when the issue was not recorded).
    pub comm: ShortStr,
    /// Process id of the sample of the issue (of the insert when the issue was not recorded).
    pub pid: u32,
    /// Thread id of that sample.
    pub tid: u32,
    /// CPU of that sample.
    pub cpu: u32,
    /// Time of the start event (issue, or insert with [`Start::Insert`]), ns.
    pub start_ns: u64,
    /// Time of the complete, ns.
    pub complete_ns: u64,
    /// `complete_ns - start_ns`.
    pub latency_ns: u64,
    /// Issue time minus insert time, when both were recorded for this I/O.
    pub queue_ns: Option<u64>,
    /// The complete's `error` field.
    pub error: i32,
}

/// Counts of what the pairing did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockCounts {
    /// Start events (issue, or insert with [`Start::Insert`]) read.
    pub starts: u64,
    /// Complete events read.
    pub completes: u64,
    /// Completes that closed a start (before filtering).
    pub paired: u64,
    /// Paired I/Os the filter dropped.
    pub filtered: u64,
    /// Completes with no open start for their `(dev, sector)`.
    pub unmatched_completes: u64,
    /// Starts still open at the end of the recording.
    pub unmatched_starts: u64,
    /// Starts that replaced an open start with the same `(dev, sector)`.
    pub overwritten_starts: u64,
    /// Why reading stopped early, if it did (a truncated or damaged file: every I/O completed
    /// before the damage was paired).
    pub diagnostics: Vec<String>,
}

/// The I/Os of a recording and the pairing counts.
#[derive(Clone, Debug, Default)]
pub struct BlockLatency {
    /// Completed I/Os that pass the filter, in completion order.
    pub ios: Vec<BlockIo>,
    /// What the pairing did.
    pub counts: BlockCounts,
}

/// Pair the block events of `file` and collect the I/Os (see [`block_latency_each`] to stream).
pub fn block_latency(file: &PerfFile, opts: &BlockOptions) -> Result<BlockLatency, Error> {
    let mut ios = Vec::new();
    let counts = block_latency_each(file, opts, |io| ios.push(*io))?;
    Ok(BlockLatency { ios, counts })
}

#[derive(Clone, Copy)]
enum Kind {
    Insert,
    Issue,
    Complete,
}

#[derive(Clone, Copy)]
struct BlockFields {
    kind: Kind,
    dev: Loc,
    sector: Loc,
    nr_sector: Loc,
    bytes: Option<Loc>,
    rwbs: Loc,
    comm: Option<Loc>,
    error: Option<Loc>,
}

impl TpFields for BlockFields {
    type Item = BlockEvent;

    fn resolve(fmt: &perfdata_core::tracepoint::Format) -> Option<BlockFields> {
        if fmt.system != "block" {
            return None;
        }
        let kind = match fmt.name.as_str() {
            "block_rq_insert" => Kind::Insert,
            "block_rq_issue" => Kind::Issue,
            "block_rq_complete" => Kind::Complete,
            _ => return None,
        };
        Some(BlockFields {
            kind,
            dev: Loc::of(fmt, "dev")?,
            sector: Loc::of(fmt, "sector")?,
            nr_sector: Loc::of(fmt, "nr_sector")?,
            bytes: Loc::of(fmt, "bytes"),
            rwbs: Loc::of(fmt, "rwbs")?,
            comm: Loc::of(fmt, "comm"),
            error: Loc::of(fmt, "error"),
        })
    }

    fn read(&self, s: &Sample<'_>, raw: &[u8], time: u64, endian: Endian) -> Option<BlockEvent> {
        let (dev, sector) = (self.dev.uint(raw, endian)?, self.sector.uint(raw, endian)?);
        let starts = !matches!(self.kind, Kind::Complete);
        Some(BlockEvent {
            kind: self.kind,
            dev: dev as u32,
            sector,
            time,
            nr_sector: self.nr_sector.uint(raw, endian).unwrap_or(0) as u32,
            bytes: self.bytes.and_then(|b| b.uint(raw, endian)).unwrap_or(0) as u32,
            error: self.error.and_then(|e| e.int(raw, endian)).unwrap_or(0) as i32,
            pid: s.pid().unwrap_or(0),
            tid: s.tid().unwrap_or(0),
            cpu: s.cpu().unwrap_or(0),
            rwbs: ShortStr::new(self.rwbs.bytes(raw).unwrap_or(&[])),
            comm: if starts {
                ShortStr::new(self.comm.and_then(|c| c.bytes(raw)).unwrap_or(&[]))
            } else {
                ShortStr::EMPTY
            },
        })
    }
}

/// One block event, its fields read by name: what the pairing needs, in time order.
#[derive(Clone, Copy)]
struct BlockEvent {
    kind: Kind,
    dev: u32,
    sector: u64,
    time: u64,
    nr_sector: u32,
    bytes: u32,
    error: i32,
    pid: u32,
    tid: u32,
    cpu: u32,
    rwbs: ShortStr,
    comm: ShortStr,
}

impl BlockEvent {
    /// The request this start opens.
    fn open(&self) -> Open {
        Open {
            start_ns: self.time,
            insert_ns: matches!(self.kind, Kind::Insert).then_some(self.time),
            issue_ns: matches!(self.kind, Kind::Issue).then_some(self.time),
            nr_sector: self.nr_sector,
            bytes: self.bytes,
            rwbs: self.rwbs,
            comm: self.comm,
            pid: self.pid,
            tid: self.tid,
            cpu: self.cpu,
        }
    }
}

/// An open request.
#[derive(Clone, Copy)]
struct Open {
    start_ns: u64,
    insert_ns: Option<u64>,
    issue_ns: Option<u64>,
    nr_sector: u32,
    bytes: u32,
    rwbs: ShortStr,
    comm: ShortStr,
    pid: u32,
    tid: u32,
    cpu: u32,
}

/// Pair the block events of `file` in time order, calling `each` for every completed I/O that
/// passes the filter. Memory is bounded by the number of open requests.
///
/// Errors: [`Error::Missing`] when the file has no `block:block_rq_complete` event or no start
/// event (`block:block_rq_issue`, or `block:block_rq_insert` with [`Start::Insert`]); a record
/// that does not decode ends the reading with [`Error::Read`].
pub fn block_latency_each(
    file: &PerfFile,
    opts: &BlockOptions,
    each: impl FnMut(&BlockIo),
) -> Result<BlockCounts, Error> {
    block_latency_par(file, opts, Parallel::default(), each)
}

/// [`block_latency_each`] with the records read by worker threads as `par` says.
pub(crate) fn block_latency_par(
    file: &PerfFile,
    opts: &BlockOptions,
    par: Parallel,
    mut each: impl FnMut(&BlockIo),
) -> Result<BlockCounts, Error> {
    // The block samples' fields are taken out in file order (by worker threads, a chunk of the
    // file each, on large files), while each record is in the cache, and only those small values
    // are put in time order (not the records).
    let extract = TpExtractor::<BlockFields>::new(file);
    file.ordered_par(ReadOptions::default(), par, extract, |recs| {
        let mut open: HashMap<(u32, u64), Open, ahash::RandomState> = HashMap::default();
        // Insert times by key, for the queue time of issue-started I/Os.
        let mut inserts: HashMap<(u32, u64), u64, ahash::RandomState> = HashMap::default();
        let mut counts = BlockCounts::default();
        while let Some(item) = recs.next() {
            // After a bad record the reader still delivers what it had queued for time order.
            let e = match item {
                Ok(e) => e,
                Err(e) => {
                    counts.diagnostics.push(e.to_string());
                    continue;
                }
            };
            if recs.extractor().errors.len() > MAX_ERRORS {
                break;
            }
            let (key, time) = ((e.dev, e.sector), e.time);
            match (e.kind, opts.start) {
                (Kind::Insert, Start::Issue) => {
                    inserts.insert(key, time);
                }
                (Kind::Issue, Start::Issue) | (Kind::Insert, Start::Insert) => {
                    counts.starts += 1;
                    let mut o = e.open();
                    if matches!(e.kind, Kind::Issue) {
                        o.insert_ns = inserts.remove(&key);
                    }
                    if open.insert(key, o).is_some() {
                        counts.overwritten_starts += 1;
                    }
                }
                (Kind::Issue, Start::Insert) => {
                    if let Some(o) = open.get_mut(&key) {
                        *o = Open { start_ns: o.start_ns, insert_ns: o.insert_ns, ..e.open() };
                    }
                }
                (Kind::Complete, _) => {
                    counts.completes += 1;
                    let Some(o) = open.remove(&key) else {
                        counts.unmatched_completes += 1;
                        continue;
                    };
                    let Some(latency_ns) = time.checked_sub(o.start_ns) else {
                        counts.unmatched_completes += 1;
                        continue;
                    };
                    counts.paired += 1;
                    let io = BlockIo {
                        dev_major: e.dev >> 20,
                        dev_minor: e.dev & 0xfffff,
                        sector: e.sector,
                        nr_sector: o.nr_sector,
                        bytes: o.bytes,
                        rwbs: o.rwbs,
                        comm: o.comm,
                        pid: o.pid,
                        tid: o.tid,
                        cpu: o.cpu,
                        start_ns: o.start_ns,
                        complete_ns: time,
                        latency_ns,
                        queue_ns: o.issue_ns.zip(o.insert_ns).and_then(|(i, q)| i.checked_sub(q)),
                        error: e.error,
                    };
                    if opts.filter.matches(&io) {
                        each(&io);
                    } else {
                        counts.filtered += 1;
                    }
                }
            }
        }
        let extract = recs.extractor();
        counts.diagnostics.extend(extract.errors.iter().cloned());
        let late = recs.stats().out_of_order;
        if late > 0 {
            counts.diagnostics.push(format!(
                "{late} block events came after a later one (the recording's rounds exceed the ordering window): \
                     their pairing may differ from perf's"
            ));
        }
        counts.unmatched_starts = open.len() as u64;
        for d in recs.diagnostics() {
            if !counts.diagnostics.contains(&d) {
                counts.diagnostics.push(d);
            }
        }
        let tp = extract.tps.get();
        let events = recs.events();
        let start = match opts.start {
            Start::Issue => "block_rq_issue",
            Start::Insert => "block_rq_insert",
        };
        let damaged = !file.diagnostics().is_empty() || !counts.diagnostics.is_empty();
        let record = format!("`perf record -e block:{start} -e block:block_rq_complete -a`");
        for needed in ["block_rq_complete", start] {
            if !has_event(events, tp, "block", needed) {
                return Err(crate::error::missing_event(
                    file,
                    &format!("block:{needed}"),
                    damaged,
                    tp.is_none(),
                    &record,
                ));
            }
        }
        Ok(counts)
    })?
}

/// Shell-style glob over bytes: `*` matches any run, `?` one byte, anything else itself.
pub fn glob(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matching with one backtrack point (the last `*`), linear in practice.
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || Some(&c) == text.get(t) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_read_in_parallel_pair_what_one_thread_pairs() {
        // Chunks of 256 bytes: nearly every round of the recordings is a chunk of its own.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        for name in ["block.data", "blockrw.data"] {
            let file = PerfFile::open(dir.join(name)).unwrap();
            for start in [Start::Issue, Start::Insert] {
                let opts = BlockOptions { start, ..Default::default() };
                let run = |par: Parallel| {
                    let mut ios = Vec::new();
                    let counts = block_latency_par(&file, &opts, par, |io| ios.push(*io)).unwrap();
                    (ios, counts)
                };
                let one = run(Parallel { threads: 1, ..Default::default() });
                let par = run(Parallel { threads: 2, chunk_bytes: 256, min_bytes: 0, max_chunk_bytes: usize::MAX });
                assert!(one.0.len() > 40, "{name} {start:?}: {} I/Os", one.0.len());
                assert_eq!(one, par, "{name}");
            }
        }
    }

    #[test]
    fn globs() {
        assert!(glob(b"*R*", b"RA"));
        assert!(glob(b"*R*", b"R"));
        assert!(!glob(b"*R*", b"WS"));
        assert!(glob(b"W*", b"WSM"));
        assert!(glob(b"?S", b"WS"));
        assert!(!glob(b"?S", b"WSM"));
        assert!(glob(b"*", b""));
        assert!(!glob(b"", b"W"));
        assert!(glob(b"*S*M", b"WSM"));
    }
}
