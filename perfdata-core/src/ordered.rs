//! Time-ordered extraction: sort small values, not records.
//!
//! [`Ordered`] reads the records in file order, hands each one, framed and with its event
//! resolved but not decoded, to an extractor ([`Extract`]) that returns the few fields an analysis
//! needs as a small owned value (or nothing), and delivers those values in perf's time order by
//! the same rules as [`Records`] in [`crate::Order::Time`]: user records and records without a timestamp
//! at their stream position, timestamped kernel records held until a FINISHED_ROUND releases them,
//! ties in file order, a bounded window. Each record is touched once, while its bytes are in the
//! cache, and only records the extractor keeps are queued; the queue holds the values themselves,
//! so no mapped page has to stay resident for it.
//!
//! The extractor runs in file order: it must not depend on what earlier records in *time* order
//! did (keep that for the consumer of the values).
//!
//! ```no_run
//! # fn main() -> perfdata_core::Result<()> {
//! use perfdata_core::{PerfFile, ReadOptions};
//! let file = PerfFile::open("perf.data")?;
//! // (time, tid) of every sample, in time order.
//! let mut ordered = file.ordered(ReadOptions::default(), |r: &perfdata_core::RecordRef<'_>| {
//!     let s = r.sample()?.ok()?;
//!     Some((s.time()?, s.tid()?))
//! })?;
//! for item in ordered.by_ref() {
//!     let (time, tid) = item?;
//!     println!("{time} {tid}");
//! }
//! println!("{:?}", ordered.stats());
//! # Ok(()) }
//! ```

use crate::error::{Position, Result};
use crate::event::{Event, EventList, Resolution};
use crate::reader::Endian;
use crate::record::{decode, record_type as rt, Record, RecordHeader};
use crate::records::{frame_time_of, learn_from, Diagnostics, Order, ReadOptions, ReadStats, Records};
use crate::sample::Sample;
use crate::stream::Frame;

/// A record as an extractor sees it: framed, its event resolved, decoded only on request.
pub struct RecordRef<'a> {
    frame: &'a Frame<'a>,
    events: &'a EventList,
    endian: Endian,
    event: Option<&'a Event>,
    time: Option<u64>,
}

impl<'a> RecordRef<'a> {
    /// The record type (`PERF_RECORD_*`).
    #[inline]
    pub fn type_(&self) -> u32 {
        self.frame.header.type_
    }

    /// The record header.
    #[inline]
    pub fn header(&self) -> RecordHeader {
        self.frame.header
    }

    /// Where the record is.
    #[inline]
    pub fn pos(&self) -> Position {
        self.frame.pos
    }

    /// All bytes of the record, header included.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.frame.bytes
    }

    /// The event the record belongs to (perf's rules, as [`Record::event`]).
    #[inline]
    pub fn event(&self) -> Option<&'a Event> {
        self.event
    }

    /// The events known when the record was read.
    #[inline]
    pub fn events(&self) -> &'a EventList {
        self.events
    }

    /// The byte order of the file.
    #[inline]
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The timestamp the record is ordered by (`None`: delivered at its stream position).
    #[inline]
    pub fn time(&self) -> Option<u64> {
        self.time
    }

    /// The sample, when the record is a SAMPLE of a known event (an error when its fields do not
    /// fit its size), without decoding anything else.
    #[inline]
    pub fn sample(&self) -> Option<Result<Sample<'a>>> {
        if self.frame.header.type_ != rt::SAMPLE {
            return None;
        }
        let ev = self.event?;
        let pos = self.frame.pos;
        let body = self.frame.bytes.get(8..).unwrap_or(&[]);
        Some(
            Sample::parse_body(body, self.endian, ev, Position { offset: pos.offset.saturating_add(8), ..pos })
                .map_err(|e| e.in_record(pos, "SAMPLE")),
        )
    }

    /// The whole record, decoded.
    pub fn decode(&self) -> Result<Record<'a>> {
        decode(*self.frame, self.events, self.endian)
    }
}

/// What [`Ordered`] keeps of each record: a small owned value, or nothing.
pub trait Extract<T> {
    /// The value to deliver for `record` in time order, `None` to skip it.
    fn extract(&mut self, record: &RecordRef<'_>) -> Option<T>;
}

impl<T, F: FnMut(&RecordRef<'_>) -> Option<T>> Extract<T> for F {
    #[inline(always)]
    fn extract(&mut self, record: &RecordRef<'_>) -> Option<T> {
        self(record)
    }
}

/// Values extracted from the records of a file, delivered in perf's time order (see the module
/// docs). Made by [`crate::PerfFile::ordered`].
pub struct Ordered<'f, T, E> {
    src: Source<'f, T, E>,
    extract: E,
    /// Queued values in arrival order: `slab[i]` is the value of arrival number `base + i`, taken
    /// (None) once delivered; delivered values at the front are dropped as they come.
    slab: std::collections::VecDeque<Option<T>>,
    base: u64,
    /// Their keys, (timestamp, arrival number): the first `released` sorted by timestamp (stably,
    /// so ties keep arrival order) and released, delivered up to `next_key`; the rest wait for a
    /// round marker. 16 bytes each: the keys are sorted, the values never move.
    keys: Vec<(u64, u64)>,
    released: usize,
    next_key: usize,
    /// The value of a record delivered at its stream position (before anything it releases).
    immediate: Option<T>,
    window: usize,
    max_ts: u64,
    next_flush: u64,
    last_delivered_ts: u64,
    eof: bool,
    stats: ReadStats,
    /// A framing error to deliver once the steps of its chunk are (parallel reading).
    pending_error: Option<crate::Error>,
}

/// Where [`Ordered`] gets its records: a reader in file order, or the chunks of worker threads
/// ([`crate::PerfFile::ordered_par`]).
// One per reading, read in place on every record: not boxed.
#[allow(clippy::large_enum_variant)]
enum Source<'f, T, E> {
    Seq(Records<'f>),
    Par(Par<'f, T, E>),
}

impl<'f, T, E: Extract<T>> Ordered<'f, T, E> {
    pub(crate) fn new(recs: Records<'f>, extract: E) -> Self {
        let window = recs.opts.window_records.max(2);
        Self::with_source(Source::Seq(recs), window, extract)
    }

    fn with_source(src: Source<'f, T, E>, window: usize, extract: E) -> Self {
        Ordered {
            src,
            extract,
            slab: std::collections::VecDeque::new(),
            base: 0,
            keys: Vec::new(),
            released: 0,
            next_key: 0,
            immediate: None,
            window,
            max_ts: 0,
            next_flush: 0,
            last_delivered_ts: 0,
            eof: false,
            stats: ReadStats::default(),
            pending_error: None,
        }
    }

    /// The extractor (to read what it learned while extracting).
    pub fn extractor(&self) -> &E {
        &self.extract
    }

    /// The extractor, mutably.
    pub fn extractor_mut(&mut self) -> &mut E {
        &mut self.extract
    }

    /// The events known at this point (pipe files learn them from HEADER_ATTR records).
    pub fn events(&self) -> &[Event] {
        match &self.src {
            Source::Seq(recs) => recs.events(),
            Source::Par(p) => p.events,
        }
    }

    /// What went wrong while reading so far ([`Records::diagnostics`]).
    pub fn diagnostics(&self) -> Vec<String> {
        self.diagnostic_parts().list()
    }

    fn diagnostic_parts(&self) -> Diagnostics {
        match &self.src {
            Source::Seq(recs) => recs.diagnostics_parts(),
            Source::Par(p) => {
                let mut d = Diagnostics { errors: p.note.iter().cloned().collect(), ..Default::default() };
                d.extend(Diagnostics {
                    framing: p.diagnostics.framing.clone(),
                    errors: p.diagnostics.errors.clone(),
                    unknown_ids: p.diagnostics.unknown_ids,
                });
                if let Some(recs) = &p.fallback {
                    d.extend(recs.diagnostics_parts());
                }
                d
            }
        }
    }

    /// Counters of what happened while reading so far: out-of-order deliveries and early flushes
    /// count the values queued (records the extractor kept), unknown ids every record.
    pub fn stats(&self) -> ReadStats {
        ReadStats { unknown_id: self.diagnostic_parts().unknown_ids, ..self.stats.clone() }
    }

    /// Whether the records are read by worker threads ([`crate::PerfFile::ordered_par`]; false once a
    /// parallel read fell back to reading in one thread).
    pub fn is_parallel(&self) -> bool {
        matches!(&self.src, Source::Par(p) if p.fallback.is_none())
    }

    /// Release queued values with a timestamp ≤ `upto`, in timestamp order (ties in arrival
    /// order). Called when everything released before has been delivered.
    fn flush_upto(&mut self, upto: u64) {
        self.sort_waiting();
        self.release_upto(upto);
    }

    /// Drop the keys of delivered values (all released ones must be delivered) and sort the keys
    /// still waiting by timestamp, stably.
    fn sort_waiting(&mut self) {
        self.keys.drain(..self.released.min(self.keys.len()));
        self.keys.sort_by_key(|k| k.0);
        self.released = 0;
        self.next_key = 0;
    }

    /// Release the sorted keys with a timestamp ≤ `upto`.
    fn release_upto(&mut self, upto: u64) {
        self.released = self.keys.partition_point(|k| k.0 <= upto);
        self.next_key = 0;
    }

    /// The next released value, if any.
    #[inline]
    fn next_released(&mut self) -> Option<(u64, T)> {
        while self.next_key < self.released {
            let (ts, seq) = *self.keys.get(self.next_key)?;
            self.next_key += 1;
            let i = seq.checked_sub(self.base).and_then(|i| usize::try_from(i).ok());
            let v = i.and_then(|i| self.slab.get_mut(i)).and_then(Option::take);
            while let Some(None) = self.slab.front() {
                self.slab.pop_front();
                self.base += 1;
            }
            if let Some(v) = v {
                return Some((ts, v));
            }
        }
        None
    }

    /// Drop the slots of delivered values a value still waiting keeps in the slab (one with a
    /// timestamp far ahead of the others): renumber what waits, so memory stays bounded by the
    /// values queued, not by those delivered since.
    #[cold]
    fn compact(&mut self) {
        let mut renumber = vec![u64::MAX; self.slab.len()];
        let mut kept = std::collections::VecDeque::with_capacity(self.keys.len());
        for (i, slot) in self.slab.iter_mut().enumerate() {
            if let Some(v) = slot.take() {
                if let Some(r) = renumber.get_mut(i) {
                    *r = kept.len() as u64;
                }
                kept.push_back(Some(v));
            }
        }
        for k in self.keys.iter_mut().skip(self.next_key) {
            let i = k.1.checked_sub(self.base).and_then(|i| usize::try_from(i).ok());
            k.1 = i.and_then(|i| renumber.get(i).copied()).unwrap_or(u64::MAX);
        }
        self.slab = kept;
        self.base = 0;
    }

    /// Queue `value` of a record with timestamp `ts`.
    #[inline(always)]
    fn queue(&mut self, ts: u64, value: T) {
        self.keys.push((ts, self.base + self.slab.len() as u64));
        self.slab.push_back(Some(value));
        if self.keys.len() - self.released > self.window {
            // Release the oldest half early (perf's HALF flush), keeping memory bounded.
            self.stats.early_flushes += 1;
            self.sort_waiting();
            let half = self.keys.get(self.keys.len() / 2).map_or(u64::MAX, |k| k.0);
            self.release_upto(half);
        }
        if self.slab.len() > 2 * self.keys.len() + 4096 {
            self.compact();
        }
    }

    /// A FINISHED_ROUND: release what the round before it saw.
    fn round(&mut self) {
        let upto = self.next_flush;
        self.next_flush = self.max_ts;
        self.flush_upto(upto);
    }

    /// Pull the next record and extract from it; `None` at the end of the input.
    #[inline(always)]
    fn pull(&mut self) -> Option<Result<()>> {
        let recs = match &mut self.src {
            Source::Seq(recs) => recs,
            Source::Par(p) => match &mut p.fallback {
                Some(recs) => recs,
                None => return self.pull_par(),
            },
        };
        recs.tick();
        // The frame is used where next_frame left it (by reference): moving it out first costs a
        // copy whose 16-byte loads stall on the narrower stores that just wrote it (perf annotate:
        // a fifth of this function's samples on one such load).
        let next = recs.frames.next_frame()?;
        let frame = match &next {
            Err(_) => {
                let e = next.err()?;
                recs.errors.push(e.to_string());
                // A framing error ends the stream; what is queued is still delivered after it.
                self.eof = true;
                return Some(Err(e));
            }
            Ok(frame) => frame,
        };
        learn_from(&mut recs.events, frame, recs.endian);
        // The value goes from the extractor to the queue directly (not through a `Step`: moving
        // values through one more enum cost the one-thread reading a tenth of its time).
        let r = record_ref(frame, &recs.events, &recs.unknown_ids, recs.endian);
        let (ty, time) = (r.type_(), r.time);
        let value = self.extract.extract(&r);
        match time {
            Some(ts) => {
                self.max_ts = self.max_ts.max(ts);
                if let Some(v) = value {
                    self.queue(ts, v);
                }
            }
            None => {
                self.immediate = value;
                if ty == rt::FINISHED_ROUND {
                    self.round();
                }
            }
        }
        Some(Ok(()))
    }

    /// [`Ordered::pull`] once a parallel read fell back to this thread.
    #[inline(never)]
    fn pull_fallback(&mut self) -> Option<Result<()>> {
        self.pull()
    }

    /// [`Ordered::pull`] from the chunks of the worker threads: one step of the current chunk,
    /// or the next chunk.
    #[inline(never)]
    fn pull_par(&mut self) -> Option<Result<()>> {
        let Source::Par(p) = &mut self.src else { return None };
        loop {
            if let Some(step) = p.steps.pop_front() {
                match step {
                    Step::Value(ts, v) => self.queue(ts, v),
                    // Chunks record the largest timestamp so far at each round and at their end.
                    Step::Timed(ts) => self.max_ts = self.max_ts.max(ts),
                    Step::Immediate(v) => self.immediate = Some(v),
                    Step::Untimed | Step::Stop(_) | Step::Unsupported => {}
                    Step::Round(max) => {
                        self.max_ts = self.max_ts.max(max);
                        self.round();
                    }
                    Step::RoundAfter(v) => {
                        self.immediate = Some(v);
                        self.round();
                    }
                }
                return Some(Ok(()));
            }
            if let Some(e) = self.pending_error.take() {
                self.eof = true;
                return Some(Err(e));
            }
            match p.next_chunk(&mut self.extract) {
                Next::Steps => {}
                Next::End => return None,
                Next::Error(e) => self.pending_error = Some(e),
                Next::Fallback(at) => {
                    match p.reopen.reopen(at, None) {
                        Ok(recs) => p.fallback = Some(recs),
                        Err(e) => {
                            self.eof = true;
                            return Some(Err(e));
                        }
                    }
                    return self.pull_fallback();
                }
            }
        }
    }
}

/// What one record adds to the ordering: the kept value of a timestamped record, or only its
/// timestamp; a value to deliver at the record's position; a round marker (with the largest
/// timestamp so far, in a chunk) and what the extractor kept of it.
enum Step<T> {
    Value(u64, T),
    Timed(u64),
    Immediate(T),
    Untimed,
    Round(u64),
    RoundAfter(T),
    /// (Chunks only.) A FINISHED_ROUND where the chunk ends, at this offset.
    Stop(u64),
    /// (Chunks only.) A record that changes what later records mean (events, tracing data):
    /// the reading goes on in one thread from the chunk's start.
    Unsupported,
}

/// Whether a record read in a chunk changes what later records mean: tracing data, or event
/// records that change the event list (a file's ID_INDEX repeats the ids its header has). Applies
/// what it says to `events`.
#[cold]
fn changes_meaning(events: &mut EventList, frame: &Frame<'_>, endian: Endian) -> bool {
    match frame.header.type_ {
        rt::HEADER_TRACING_DATA | rt::SIMPLEPERF_TRACING_DATA => true,
        rt::HEADER_ATTR | rt::EVENT_UPDATE | rt::ID_INDEX => {
            let before = events.clone();
            learn_from(events, frame, endian);
            *events != before
        }
        _ => false,
    }
}

/// The record `frame` as an extractor sees it: its event resolved (an unknown id counted in
/// `unknown_ids`) and its ordering timestamp read.
#[inline(always)]
fn record_ref<'a>(
    frame: &'a Frame<'a>,
    events: &'a EventList,
    unknown_ids: &std::cell::Cell<u64>,
    endian: Endian,
) -> RecordRef<'a> {
    let ty = frame.header.type_;
    let event = match events.resolve(ty, frame.bytes, endian) {
        Resolution::Event(i) => events.events.get(i),
        Resolution::UnknownId(_) => {
            if matches!(ty, rt::SAMPLE | rt::READ) {
                unknown_ids.set(unknown_ids.get().saturating_add(1));
            }
            None
        }
        Resolution::NoEvent => None,
    };
    let time = match ty {
        t if t >= rt::USER_START => None,
        // Ordered by the resolved event's layout, or the first event's (perf requires the
        // time position to agree), as `frame_time`.
        _ => event.or(events.events.first()).and_then(|ev| frame_time_of(frame, ev, endian)),
    }
    .filter(|&ts| ts != 0 && ts != u64::MAX);
    RecordRef { frame, events, endian, event, time }
}

/// Read the next record of a chunk (`recs`) and extract from it; a FINISHED_ROUND at offset
/// `stop_at` or later is not extracted but reported as [`Step::Stop`] (where the chunk ends).
#[inline(always)]
fn read_step<T, E: Extract<T>>(recs: &mut Records<'_>, extract: &mut E, stop_at: usize) -> Option<Result<Step<T>>> {
    recs.tick();
    // The frame is used where next_frame left it (by reference): moving it out first costs a
    // copy whose 16-byte loads stall on the narrower stores that just wrote it (perf annotate:
    // a fifth of this function's samples on one such load).
    let next = recs.frames.next_frame()?;
    let frame = match &next {
        Err(_) => {
            let e = next.err()?;
            recs.errors.push(e.to_string());
            return Some(Err(e));
        }
        Ok(frame) => frame,
    };
    let ty = frame.header.type_;
    if ty == rt::FINISHED_ROUND && frame.pos.offset >= stop_at as u64 {
        return Some(Ok(Step::Stop(frame.pos.offset)));
    }
    let (events, endian) = (&mut recs.events, recs.endian);
    if matches!(
        ty,
        rt::HEADER_TRACING_DATA | rt::SIMPLEPERF_TRACING_DATA | rt::HEADER_ATTR | rt::EVENT_UPDATE | rt::ID_INDEX
    ) && changes_meaning(events, frame, endian)
    {
        return Some(Ok(Step::Unsupported));
    }
    let r = record_ref(frame, events, &recs.unknown_ids, endian);
    let time = r.time;
    let value = extract.extract(&r);
    Some(Ok(match (time, value) {
        (Some(ts), Some(v)) => Step::Value(ts, v),
        (Some(ts), None) => Step::Timed(ts),
        (None, v) if ty == rt::FINISHED_ROUND => match v {
            Some(v) => Step::RoundAfter(v),
            None => Step::Round(0),
        },
        (None, Some(v)) => Step::Immediate(v),
        (None, None) => Step::Untimed,
    }))
}

impl<T, E: Extract<T>> Iterator for Ordered<'_, T, E> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if let Some(v) = self.immediate.take() {
                return Some(Ok(v));
            }
            if let Some((ts, v)) = self.next_released() {
                if ts < self.last_delivered_ts {
                    self.stats.out_of_order += 1;
                }
                self.last_delivered_ts = self.last_delivered_ts.max(ts);
                return Some(Ok(v));
            }
            if self.eof {
                if self.keys.len() == self.released {
                    return None;
                }
                self.flush_upto(u64::MAX);
                continue;
            }
            match self.pull() {
                None => self.eof = true,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(())) => {}
            }
        }
    }
}

/// An extractor that can run on several threads at once ([`crate::PerfFile::ordered_par`]): each
/// worker thread extracts from the records of its chunks of the file with a copy
/// ([`ParExtract::fork`]); what a copy learned from a chunk besides the values (errors, counts)
/// is taken out after the chunk ([`ParExtract::take_part`]) and handed, in file order, to the
/// extractor the caller sees ([`ParExtract::join_part`]).
///
/// A chunk's extractor sees only the records of that chunk: what it returns for a record must
/// depend on that record and the file's header alone, not on records before it.
pub trait ParExtract<T>: Extract<T> + Send + Sized {
    /// What a copy learned from one chunk.
    type Part: Send;
    /// A copy for a worker thread (before it reads anything).
    fn fork(&self) -> Self;
    /// What this copy learned since the last call.
    fn take_part(&mut self) -> Self::Part;
    /// Take in what a copy learned from the next chunk (in file order).
    fn join_part(&mut self, part: Self::Part);
}

/// How [`crate::PerfFile::ordered_par`] splits the reading.
#[derive(Clone, Copy, Debug)]
pub struct Parallel {
    /// Worker threads reading chunks (0: one per available core, at most 8; at most 64 in any
    /// case). With fewer than 2 the records are read on the calling thread.
    pub threads: usize,
    /// Bytes of the data section per chunk: a chunk starts at its first round marker
    /// (FINISHED_ROUND) and ends at the next chunk's.
    pub chunk_bytes: usize,
    /// Data sections smaller than this are read on the calling thread.
    pub min_bytes: usize,
    /// Most bytes a chunk reads looking for the round marker that ends it: past them (rounds far
    /// apart, or none at all) it gives up and the calling thread reads on, its memory bounded by
    /// the ordering window, instead of one chunk holding the values of much of the file.
    pub max_chunk_bytes: usize,
}

impl Default for Parallel {
    fn default() -> Self {
        Parallel { threads: 0, chunk_bytes: 8 << 20, min_bytes: 32 << 20, max_chunk_bytes: 32 << 20 }
    }
}

/// Step queues per worker thread of a parallel read: one it fills while the other waits in the
/// channel or is read by the ordering thread.
const QUEUES: usize = 2;

/// How a parallel read splits the data section.
#[derive(Clone, Copy)]
struct Plan {
    start: usize,
    end: usize,
    chunk: usize,
    /// [`Parallel::max_chunk_bytes`].
    max_chunk: usize,
    chunks: usize,
    threads: usize,
    /// A FINISHED_ROUND record's 8 bytes in the file's byte order.
    marker: u64,
}

impl Plan {
    /// The nominal first byte of chunk `k`.
    fn nominal(&self, k: usize) -> usize {
        self.start.saturating_add(k.saturating_mul(self.chunk)).min(self.end)
    }

    /// The first offset in `[from, to)` on the data section's 8-byte grid where a FINISHED_ROUND
    /// record's bytes are: where chunk reading can start (checked against where the previous
    /// chunk's reading ended, as the bytes could be inside another record). The scan is bound by
    /// memory, not by the compare: ~3 % of a parallel read's CPU on the sched bench file, half a
    /// round's bytes per chunk.
    fn marker_in(&self, data: &[u8], from: usize, to: usize) -> Option<usize> {
        let first = from.checked_add((8 - from.checked_sub(self.start)? % 8) % 8)?;
        let lim = self.end.min(to.saturating_add(7));
        let bytes = data.get(first..lim)?;
        let i = bytes
            .chunks_exact(8)
            .position(|c| c.first_chunk::<8>().map(|b| u64::from_ne_bytes(*b)) == Some(self.marker))?;
        first.checked_add(i.checked_mul(8)?)
    }
}

/// Reopens the file's records at a record boundary (a chunk's first record, or where a parallel
/// read falls back to one thread).
pub(crate) trait Reopen<'f>: Sync {
    /// The records from `at`, up to `limit` at most.
    fn reopen(&self, at: usize, limit: Option<usize>) -> Result<Records<'f>>;
}

struct FileAt<'a, 'd> {
    file: &'a crate::PerfFile<'d>,
    opts: crate::ReadOptions,
}

impl<'f, 'a: 'f, 'd> Reopen<'f> for FileAt<'a, 'd> {
    fn reopen(&self, at: usize, limit: Option<usize>) -> Result<Records<'f>> {
        self.file.records_from(self.opts, Some(at), limit)
    }
}

/// Hands what a chunk's extractor learned to the extractor the caller sees.
type Join<'f, E> = Box<dyn FnOnce(&mut E) + Send + 'f>;

/// What a worker read of one chunk.
struct Chunk<'f, T, E> {
    /// Where it started: `None` when no round marker lies in its bytes (the chunk before reads them).
    start: Option<usize>,
    /// Where it stopped: the offset of the round marker that starts the next chunk, or the end.
    stop: usize,
    steps: std::collections::VecDeque<Step<T>>,
    join: Option<Join<'f, E>>,
    diagnostics: Diagnostics,
    /// The framing error that ended it.
    error: Option<crate::Error>,
    /// It met compressed records or records that change what later ones mean, or found no round
    /// marker to end it in [`Parallel::max_chunk_bytes`] (read on one thread instead).
    unsupported: bool,
}

/// The parallel source of [`Ordered`]: the workers' chunks, taken in file order, each checked to
/// start where the one before it stopped.
struct Par<'f, T, E> {
    rx: Vec<std::sync::mpsc::Receiver<Chunk<'f, T, E>>>,
    /// Emptied step queues back to their worker.
    spent: Vec<std::sync::mpsc::SyncSender<std::collections::VecDeque<Step<T>>>>,
    next: usize,
    chunks: usize,
    /// The worker whose queue `steps` is.
    owner: Option<usize>,
    /// Where the next chunk must start: the end of what was read so far.
    verified: usize,
    end: usize,
    steps: std::collections::VecDeque<Step<T>>,
    /// What the chunks' readers said.
    diagnostics: Diagnostics,
    /// What the file's header says of a data section cut short.
    note: Option<String>,
    /// The one-thread reader that took over (a chunk that did not start where the one before it
    /// stopped, or compressed records).
    fallback: Option<Records<'f>>,
    reopen: &'f dyn Reopen<'f>,
    events: &'f [Event],
}

enum Next {
    Steps,
    End,
    Error(crate::Error),
    Fallback(usize),
}

impl<T, E> Par<'_, T, E> {
    /// Take the next chunk's steps (joining what its extractor learned into `extract`).
    fn next_chunk(&mut self, extract: &mut E) -> Next {
        loop {
            if self.verified >= self.end {
                return Next::End;
            }
            if self.next >= self.chunks {
                // Bytes left that no chunk started in (a round marker off the 8-byte grid).
                return self.fall_back();
            }
            let k = self.next;
            self.next += 1;
            let n = self.rx.len().max(1);
            let Some(chunk) = self.rx.get(k % n).and_then(|rx| rx.recv().ok()) else {
                return self.fall_back();
            };
            let Some(start) = chunk.start else {
                // No round marker in its bytes (the chunk before read them): its queue goes back.
                if let Some(tx) = self.spent.get(k % n) {
                    let _ = tx.try_send(chunk.steps);
                }
                continue;
            };
            if start != self.verified || chunk.unsupported {
                return self.fall_back();
            }
            if let Some(join) = chunk.join {
                join(extract);
            }
            self.diagnostics.extend(chunk.diagnostics);
            self.verified = chunk.stop;
            // The emptied queue of the chunk before goes back to its worker.
            let spent = std::mem::replace(&mut self.steps, chunk.steps);
            if let Some(tx) = self.owner.and_then(|w| self.spent.get(w)) {
                let _ = tx.try_send(spent);
            }
            self.owner = Some(k % n);
            if let Some(e) = chunk.error {
                self.verified = self.end;
                return Next::Error(e);
            }
            return Next::Steps;
        }
    }

    /// Stop the workers and read on from the last checked position on this thread.
    fn fall_back(&mut self) -> Next {
        self.rx.clear();
        self.spent.clear();
        Next::Fallback(self.verified)
    }
}

/// Read chunk `k` of `plan` with `ex`.
fn read_chunk<'f, T, E: ParExtract<T>>(
    plan: &Plan,
    k: usize,
    ex: &mut E,
    reopen: &dyn Reopen<'f>,
    data: &[u8],
    mut steps: std::collections::VecDeque<Step<T>>,
) -> Chunk<'f, T, E>
where
    E::Part: 'f,
{
    let (nominal, next) = (plan.nominal(k), plan.nominal(k.saturating_add(1)));
    let start = if k == 0 { Some(plan.start) } else { plan.marker_in(data, nominal, next) };
    steps.clear();
    let mut chunk = Chunk {
        start,
        stop: plan.end,
        steps: std::collections::VecDeque::new(),
        join: None,
        diagnostics: Diagnostics::default(),
        error: None,
        unsupported: false,
    };
    let Some(start) = start else {
        chunk.steps = steps;
        return chunk;
    };
    let stop_at = if k.saturating_add(1) < plan.chunks { next } else { usize::MAX };
    // Rounds far apart (or none at all) would make one chunk hold the values of much of the file:
    // its reading ends at `limit`, and a chunk that got there without finding its end gives up.
    let limit = start.saturating_add(plan.max_chunk);
    let mut recs = match reopen.reopen(start, Some(limit)) {
        Ok(recs) => recs,
        Err(e) => {
            chunk.error = Some(e);
            chunk.steps = steps;
            return chunk;
        }
    };
    let mut max = 0u64;
    let mut stopped = false;
    while let Some(step) = read_step(&mut recs, ex, stop_at) {
        match step {
            Err(e) => {
                chunk.error = Some(e);
                break;
            }
            Ok(Step::Stop(at)) => {
                chunk.stop = usize::try_from(at).unwrap_or(usize::MAX);
                stopped = true;
                break;
            }
            Ok(Step::Value(ts, v)) => {
                max = max.max(ts);
                steps.push_back(Step::Value(ts, v));
            }
            Ok(Step::Timed(ts)) => max = max.max(ts),
            Ok(Step::Untimed) => {}
            Ok(Step::Unsupported) => {
                chunk.unsupported = true;
                break;
            }
            Ok(Step::Immediate(v)) => steps.push_back(Step::Immediate(v)),
            Ok(Step::Round(_)) => steps.push_back(Step::Round(max)),
            Ok(Step::RoundAfter(v)) => {
                steps.push_back(Step::Immediate(v));
                steps.push_back(Step::Round(max));
            }
        }
    }
    if !stopped && limit < plan.end {
        // Cut short at the limit (an error there is the cut record's): read again on one thread.
        chunk.unsupported = true;
        chunk.error = None;
    }
    if max > 0 {
        steps.push_back(Step::Timed(max));
    }
    chunk.steps = steps;
    chunk.unsupported |= recs.frames.decompressed_block().1 > 0;
    // From the nominal start: the bytes searched for the marker, which the reader of the chunk
    // before may have released already.
    recs.release_range(nominal, chunk.stop.min(limit));
    chunk.diagnostics = recs.diagnostics_parts();
    let part = ex.take_part();
    chunk.join = Some(Box::new(move |e: &mut E| e.join_part(part)));
    chunk
}

impl<'d> crate::PerfFile<'d> {
    /// Values extracted from each record, delivered in perf's time order: `extract` sees every
    /// record once, in file order, framed and with its event resolved
    /// ([`crate::RecordRef`]), and returns what to keep; only kept values are queued for ordering.
    /// `opts.order` is ignored (the values always come in time order); `opts.window_records`
    /// bounds the queue. See [`crate::Ordered`].
    pub fn ordered<T, E: crate::Extract<T>>(&self, opts: ReadOptions, extract: E) -> Result<crate::Ordered<'_, T, E>> {
        let recs = self.records_with(ReadOptions { order: Order::File, ..opts })?;
        Ok(crate::Ordered::new(recs, extract))
    }

    /// [`crate::PerfFile::ordered`] with the records read and extracted by worker threads, a
    /// chunk of the data section each, while this thread puts the values in time order and runs
    /// `f` over them. The values, their order, the extractor's state after each value (chunk by
    /// chunk) and the diagnostics are those of [`crate::PerfFile::ordered`]; memory holds the
    /// chunks in flight (two per worker) besides the ordering window.
    ///
    /// Chunks start at round markers (FINISHED_ROUND); each is checked to start where the one
    /// before it stopped, and where one does not (the marker's bytes were inside a record), finds
    /// no marker to end it within [`Parallel::max_chunk_bytes`], or meets compressed data, reading
    /// goes on in this thread. Pipes, directories, compressed
    /// data and data sections below [`Parallel::min_bytes`] are read in this thread throughout.
    ///
    /// ```no_run
    /// # fn main() -> perfdata_core::Result<()> {
    /// use perfdata_core::{Extract, ParExtract, Parallel, PerfFile, ReadOptions, RecordRef};
    /// /// The time of every sample.
    /// struct Times;
    /// impl Extract<u64> for Times {
    ///     fn extract(&mut self, r: &RecordRef<'_>) -> Option<u64> {
    ///         r.sample()?.ok()?.time()
    ///     }
    /// }
    /// impl ParExtract<u64> for Times {
    ///     type Part = ();
    ///     fn fork(&self) -> Self { Times }
    ///     fn take_part(&mut self) {}
    ///     fn join_part(&mut self, _: ()) {}
    /// }
    /// let file = PerfFile::open("perf.data")?;
    /// let last = file.ordered_par(ReadOptions::default(), Parallel::default(), Times, |times| {
    ///     times.by_ref().filter_map(|t| t.ok()).last()
    /// })?;
    /// println!("{last:?}");
    /// # Ok(()) }
    /// ```
    pub fn ordered_par<T, E, R>(
        &self,
        opts: crate::ReadOptions,
        par: Parallel,
        extract: E,
        f: impl FnOnce(&mut Ordered<'_, T, E>) -> R,
    ) -> Result<R>
    where
        T: Send,
        E: ParExtract<T>,
    {
        let threads = match par.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(8),
            n => n.min(64),
        };
        let plan = self
            .chunkable_data()
            .filter(|&(start, end, _)| threads >= 2 && par.chunk_bytes > 0 && end - start >= par.min_bytes.max(1));
        let Some((start, end, endian)) = plan else {
            let mut ordered = self.ordered(opts, extract)?;
            return Ok(f(&mut ordered));
        };
        let chunk = par.chunk_bytes.max(64);
        let chunks = (end - start).div_ceil(chunk);
        let mut marker = [0u8; 8];
        let (ty, size) = match endian {
            Endian::Little => (rt::FINISHED_ROUND.to_le_bytes(), 8u16.to_le_bytes()),
            Endian::Big => (rt::FINISHED_ROUND.to_be_bytes(), 8u16.to_be_bytes()),
        };
        marker[..4].copy_from_slice(&ty);
        marker[6..].copy_from_slice(&size);
        let plan = Plan {
            start,
            end,
            chunk,
            max_chunk: par.max_chunk_bytes,
            chunks,
            threads: threads.min(chunks),
            marker: u64::from_ne_bytes(marker),
        };
        let opts = crate::ReadOptions { order: crate::Order::File, ..opts };
        let file_at = FileAt { file: self, opts };
        let data = self.bytes();
        let window = opts.window_records.max(2);
        std::thread::scope(|scope| {
            let reopen: &dyn Reopen<'_> = &file_at;
            let (mut rx, mut spent, mut workers) = (Vec::new(), Vec::new(), Vec::new());
            for w in 0..plan.threads {
                let (tx, chunk_rx) = std::sync::mpsc::sync_channel(1);
                // A worker's step queues, reused: they stay allocated and mapped.
                let (spent_tx, spent_rx) = std::sync::mpsc::sync_channel(QUEUES);
                for _ in 0..QUEUES {
                    // Room for a chunk of 32-byte records (growing would touch new pages twice),
                    // at most 64 MiB of address space.
                    let room = (plan.chunk.min(end - start) / 32).min((64 << 20) / size_of::<Step<T>>().max(1));
                    let _ = spent_tx.try_send(std::collections::VecDeque::with_capacity(room));
                }
                let mut ex = extract.fork();
                let work = move || {
                    let mut k = w;
                    while k < plan.chunks {
                        let Ok(steps) = spent_rx.recv() else { return };
                        if tx.send(read_chunk(&plan, k, &mut ex, reopen, data, steps)).is_err() {
                            return;
                        }
                        k = k.saturating_add(plan.threads);
                    }
                };
                // A thread the system refuses leaves its chunks unread: the reading falls back to
                // this thread at the first of them.
                if let Ok(h) = std::thread::Builder::new().name("perfdata-read".into()).spawn_scoped(scope, work) {
                    workers.push(h);
                }
                rx.push(chunk_rx);
                spent.push(spent_tx);
            }
            let p = Par {
                rx,
                spent,
                next: 0,
                chunks: plan.chunks,
                owner: None,
                verified: plan.start,
                end: plan.end,
                steps: std::collections::VecDeque::new(),
                diagnostics: Diagnostics::default(),
                note: self.truncated_data_note(),
                fallback: None,
                reopen,
                events: self.events(),
            };
            let mut ordered = Ordered::with_source(Source::Par(p), window, extract);
            let r = f(&mut ordered);
            // Dropping the receivers stops the workers (each at the end of its chunk). Joined
            // here, not by the scope: the scope waits for their closures, a join for the threads
            // to be gone (with their thread-local data). A worker that panicked was already
            // replaced by reading on this thread.
            drop(ordered);
            for w in workers {
                let _ = w.join();
            }
            Ok(r)
        })
    }
}
