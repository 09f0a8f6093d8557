//! Iterating the records of a file in file order or in perf's time order.
//!
//! Time order follows perf's ordered-events rules (reference §7.2): user records (type ≥ 64) are
//! delivered at their stream position; kernel records with a timestamp are queued; FINISHED_ROUND
//! releases everything up to the largest timestamp seen before the previous round; records with no
//! timestamp (or 0) bypass the queue; ties keep file order. Unlike perf, the queue is bounded: when
//! it holds more than [`ReadOptions::window_records`] records the oldest half is released early, so
//! memory does not grow with the file even without round markers.

use crate::error::{Position, Result};
use crate::event::{Event, EventList, Resolution};
use crate::reader::Endian;
use crate::record::{decode, decode_counting, record_type as rt, EventUpdate, Record, RecordKind};
use crate::stream::{Frame, Frames};

/// The order records are delivered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// As stored (decompressed records in place of their COMPRESSED record).
    File,
    /// By timestamp, the way `perf report`/`perf script` deliver them.
    #[default]
    Time,
}

/// Options for reading records.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// File or time order.
    pub order: Order,
    /// Also yield COMPRESSED records themselves (before the records they carry).
    pub include_compressed: bool,
    /// Most records held for time ordering before the oldest half is released early (default
    /// 4 Mi). perf's own queue is unbounded and releases only at round markers, and one round
    /// holds what a pass over every CPU's ring buffer found: up to the buffer size (`-m`; 16 MiB
    /// per CPU with `-m 4096`, ~150 K block or sched records each) times the CPUs. A window smaller
    /// than a round delivers records out of order (counted in [`ReadStats::out_of_order`]); the
    /// queue holds 32-byte keys into the mapped file (values, for [`crate::Ordered`]), so the
    /// default costs at most 128 MiB of keys on a file without round markers.
    pub window_records: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { order: Order::Time, include_compressed: false, window_records: 1 << 22 }
    }
}

/// A queued kernel record: 32 bytes of key and location; the bytes stay in the file or the arena.
/// Arrival order needs no field: the queue is only ever sorted stably by timestamp.
#[derive(Clone, Copy)]
struct Queued {
    ts: u64,
    /// Offset of the record (or of its COMPRESSED carrier).
    offset: u64,
    /// Where the bytes are: an offset in the input slice `file`, or in the arena when `arena`.
    start: usize,
    file: u16,
    arena: bool,
    /// Index among decompressed records, `u32::MAX` for none.
    index: u32,
}

impl Queued {
    fn pos(&self) -> Position {
        Position {
            offset: self.offset,
            index: (self.index != u32::MAX).then_some(self.index),
            file: u32::from(self.file),
        }
    }
}

/// Counters of what happened while reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Records delivered after a record with a larger timestamp had already been delivered.
    pub out_of_order: u64,
    /// Times the ordering window overflowed and released records before a round marker said so.
    pub early_flushes: u64,
    /// Records that carried an id matching no event.
    pub unknown_id: u64,
}

enum Current {
    None,
    Frame,
    Queued(Queued),
}

/// Iterator over records (lending: each record borrows the iterator until the next call).
///
/// ```no_run
/// # fn main() -> perfdata_core::Result<()> {
/// let file = perfdata_core::PerfFile::open("perf.data")?;
/// let mut records = file.records(perfdata_core::Order::Time)?;
/// while let Some(record) = records.next_record() {
///     let record = record?;
///     if let perfdata_core::RecordKind::Sample(s) = &record.kind {
///         println!("{:?} {:?}", s.time(), s.ip());
///     }
/// }
/// # Ok(()) }
/// ```
pub struct Records<'f> {
    pub(crate) frames: Frames<'f>,
    slices: Vec<&'f [u8]>,
    pub(crate) events: EventList,
    pub(crate) endian: Endian,
    pub(crate) opts: ReadOptions,
    // time ordering: `queue` is sorted up to `sorted`, then unsorted appends of the current round.
    queue: Vec<Queued>,
    sorted: usize,
    arena: Vec<u8>,
    /// `queue[head..ready_end]` are released and delivered in order.
    head: usize,
    ready_end: usize,
    max_ts: u64,
    next_flush: u64,
    last_delivered_ts: u64,
    eof: bool,
    current: Current,
    stats: ReadStats,
    /// SAMPLE and READ records whose id matched no event (counted where decoding finds out).
    pub(crate) unknown_ids: std::cell::Cell<u64>,
    pub(crate) errors: Vec<String>,
    /// Records that were framed but could not be decoded.
    bad: BadRecords,
    /// The file's problem log, which [`Records::diagnostics`] join when the reading ends.
    problems: Option<crate::problems::Problems>,
    /// Memory maps behind `slices` (same index), whose consumed pages are released while reading.
    maps: Vec<Option<&'f memmap2::Mmap>>,
    /// Per input file: bytes before this offset were already released.
    released: Vec<usize>,
    /// Read position at which to look at releasing again.
    next_release_check: usize,
    /// Calls of next_record (the page release check runs every 1024).
    calls: u64,
    /// Where the progress of reading is published, and the offset of each input file's first
    /// byte in the sum of their sizes.
    progress: Option<(std::sync::Arc<ProgressCounter>, Vec<u64>)>,
    /// The file's storage for what records from the std [`Iterator`] borrow.
    store: &'f Store,
    /// The event list records from the std iterator refer to: the file's, or the last snapshot of
    /// `events` taken after a record changed it.
    events_f: &'f EventList,
    /// The last decompressed block copied to `store` (generation, bytes).
    block: Option<(u64, &'f [u8])>,
}

/// Storage owned by a [`crate::PerfFile`] for the bytes and event lists that records yielded by the
/// std [`Iterator`] of [`Records`] borrow for the file's lifetime: each decompressed block (copied
/// once), records copied out of a pipe's read buffer or the ordering arena, and the event lists
/// learned while reading (HEADER_ATTR, EVENT_UPDATE, ID_INDEX). Mapped and borrowed input is never
/// copied. [`Records::next_record`] (the lending form) stores nothing here.
#[derive(Default)]
pub(crate) struct Store {
    bytes: elsa::sync::FrozenVec<Box<[u8]>>,
    events: elsa::sync::FrozenVec<Box<EventList>>,
    tracepoints: elsa::sync::FrozenVec<Box<crate::tracepoint::Tracepoints>>,
}

impl Store {
    /// Keep an event list for the file's lifetime.
    pub(crate) fn keep_events(&self, events: EventList) -> &EventList {
        self.events.push_get(Box::new(events))
    }

    /// Keep parsed tracing data for the file's lifetime (typed tracepoint iterators borrow it).
    pub(crate) fn keep_tracepoints(&self, tp: crate::tracepoint::Tracepoints) -> &crate::tracepoint::Tracepoints {
        self.tracepoints.push_get(Box::new(tp))
    }
}

impl<'f> Records<'f> {
    pub(crate) fn new(
        frames: Frames<'f>,
        slices: Vec<&'f [u8]>,
        events: &'f EventList,
        store: &'f Store,
        endian: Endian,
        opts: ReadOptions,
    ) -> Self {
        let mut frames = frames;
        frames.yield_compressed = opts.include_compressed;
        Records {
            frames,
            slices,
            events: events.clone(),
            endian,
            opts,
            queue: Vec::new(),
            sorted: 0,
            arena: Vec::new(),
            head: 0,
            ready_end: 0,
            max_ts: 0,
            next_flush: 0,
            last_delivered_ts: 0,
            eof: false,
            current: Current::None,
            stats: ReadStats::default(),
            unknown_ids: std::cell::Cell::new(0),
            errors: Vec::new(),
            bad: BadRecords::default(),
            maps: Vec::new(),
            released: Vec::new(),
            next_release_check: RELEASE_STEP,
            progress: None,
            calls: 0,
            store,
            events_f: events,
            block: None,
            problems: None,
        }
    }

    /// The events known at this point (pipe files learn them from HEADER_ATTR records).
    pub fn events(&self) -> &[Event] {
        &self.events.events
    }

    /// The event list (id map included).
    pub fn event_list(&self) -> &EventList {
        &self.events
    }

    /// What went wrong while reading so far: framing errors, truncation, dropped data.
    pub fn diagnostics(&self) -> Vec<String> {
        self.diagnostics_parts().list()
    }

    /// Counters of what happened while reading so far.
    pub fn stats(&self) -> ReadStats {
        ReadStats { unknown_id: self.unknown_ids.get(), ..self.stats.clone() }
    }

    /// The next record, `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next_record(&mut self) -> Option<Result<Record<'_>>> {
        self.tick();
        match self.opts.order {
            // The frame is used where next_frame left it: moving it out first costs a copy that
            // stalls on the stores that just wrote it.
            Order::File => match self.frames.next_frame() {
                None => None,
                Some(Err(e)) => Some(Err(e)),
                Some(Ok(ref frame)) => {
                    learn_from(&mut self.events, frame, self.endian);
                    Some(self.bad.check(decode_counting(frame, &self.events, self.endian, &self.unknown_ids)))
                }
            },
            Order::Time => self.next_ordered(),
        }
    }

    /// Publish how far reading has got to `counter` ([`crate::PerfFile::progress`]).
    pub(crate) fn with_progress(mut self, counter: std::sync::Arc<ProgressCounter>) -> Self {
        let mut base = 0u64;
        let starts = self
            .slices
            .iter()
            .map(|s| {
                let at = base;
                base = base.saturating_add(s.len() as u64);
                at
            })
            .collect();
        self.progress = Some((counter, starts));
        self
    }

    /// Where this reading's diagnostics go when it is dropped: its file's problem log.
    pub(crate) fn with_problems(mut self, problems: crate::problems::Problems) -> Self {
        self.problems = Some(problems);
        self
    }

    /// Count a call and, every 1024, publish the progress and drop the resident pages of mapped
    /// input already read.
    #[inline(always)]
    pub(crate) fn tick(&mut self) {
        self.calls = self.calls.wrapping_add(1);
        if !self.calls.is_multiple_of(1024) {
            return;
        }
        self.publish_progress();
        if !self.maps.is_empty() {
            let (file, at) = self.frames.input_position();
            if at >= self.next_release_check || at < self.next_release_check.saturating_sub(RELEASE_STEP) {
                self.next_release_check = at.saturating_add(RELEASE_STEP);
                self.release_pages(file, at);
            }
        }
    }

    #[cold]
    fn publish_progress(&self) {
        let Some((counter, starts)) = &self.progress else { return };
        let (file, at) = self.frames.input_position();
        if let Some(start) = starts.get(file) {
            counter.bytes.fetch_max(start.saturating_add(at as u64), std::sync::atomic::Ordering::Relaxed);
        }
        counter.records.fetch_max(self.calls, std::sync::atomic::Ordering::Relaxed);
    }

    fn next_ordered(&mut self) -> Option<Result<Record<'_>>> {
        match self.position_ordered()? {
            Err(e) => Some(Err(e)),
            Ok(true) => self.frames_current(),
            Ok(false) => self.queued_current(),
        }
    }

    /// Move to the next record in time order: `Ok(true)` when it is the frame reader's current
    /// frame, `Ok(false)` when it is `self.current`'s queued record.
    #[inline(always)]
    fn position_ordered(&mut self) -> Option<Result<bool>> {
        let deliver_frame = loop {
            if self.head < self.ready_end {
                let Some(&q) = self.queue.get(self.head) else { break false };
                self.head += 1;
                self.current = Current::Queued(q);
                break false;
            }
            if self.eof {
                if !self.flush_upto(u64::MAX) {
                    return None;
                }
                continue;
            }
            // Pull the next frame and decide: deliver now, or queue.
            let (_, queued, is_round) = match self.frames.next_frame() {
                None => {
                    self.eof = true;
                    continue;
                }
                Some(Err(e)) => {
                    // A framing error ends the stream; what is queued is still delivered after it.
                    self.eof = true;
                    self.errors.push(e.to_string());
                    return Some(Err(e));
                }
                Some(Ok(frame)) => {
                    let ty = frame.header.type_;
                    if ty >= rt::USER_START {
                        (0, None, ty == rt::FINISHED_ROUND)
                    } else {
                        match frame_time(&frame, &self.events, self.endian) {
                            Some(ts) if ts != 0 && ts != u64::MAX => {
                                (ts, Some(own(&self.slices, &mut self.arena, ts, frame)), false)
                            }
                            _ => (0, None, false),
                        }
                    }
                }
            };
            match queued {
                Some(q) => self.enqueue(q),
                None => {
                    if is_round {
                        // perf hands the round to the tool, which flushes; the round record itself is
                        // seen before the records it releases.
                        let upto = self.next_flush;
                        self.next_flush = self.max_ts;
                        self.flush_upto(upto);
                        self.compact_arena();
                    }
                    break true;
                }
            }
        };
        if deliver_frame {
            self.current = Current::Frame;
        }
        Some(Ok(deliver_frame))
    }

    fn frames_current(&mut self) -> Option<Result<Record<'_>>> {
        let frame = self.frames.current_frame()?;
        learn_from(&mut self.events, &frame, self.endian);
        Some(self.bad.check(decode_counting(&frame, &self.events, self.endian, &self.unknown_ids)))
    }

    fn queued_current(&mut self) -> Option<Result<Record<'_>>> {
        let q = self.deliver_queued()?;
        let src: &[u8] = if q.arena { &self.arena } else { self.slices.get(usize::from(q.file))? };
        let frame = queued_at(src, q, self.endian)?;
        Some(self.bad.check(decode_counting(&frame, &self.events, self.endian, &self.unknown_ids)))
    }

    /// `self.current`'s queued record, counted as delivered.
    fn deliver_queued(&mut self) -> Option<Queued> {
        let Current::Queued(q) = self.current else {
            return None;
        };
        // A queued record's key is its timestamp (`frame_time`).
        if q.ts < self.last_delivered_ts {
            self.stats.out_of_order += 1;
        }
        self.last_delivered_ts = self.last_delivered_ts.max(q.ts);
        Some(q)
    }
}

/// The frame of a queued record whose bytes start at `q.start` of `src`.
fn queued_at(src: &[u8], q: Queued, e: Endian) -> Option<Frame<'_>> {
    let rest = src.get(q.start..)?;
    let header = crate::record::RecordHeader {
        type_: e.u32(rest.get(..4)?),
        misc: e.u16(rest.get(4..6)?),
        size: e.u16(rest.get(6..8)?),
    };
    let bytes = rest.get(..header.record_size())?;
    Some(Frame { pos: q.pos(), header, bytes, payload: &[] })
}

/// Records as a std [`Iterator`]: each record borrows the file (`'f`), not the iterator, so records
/// can be kept, collected or sent along while iteration goes on.
///
/// ```no_run
/// # fn main() -> perfdata_core::Result<()> {
/// let file = perfdata_core::PerfFile::open("perf.data")?;
/// let mut samples = 0;
/// for record in file.records(perfdata_core::Order::Time)? {
///     let record = record?;
///     if let perfdata_core::RecordKind::Sample(_) = record.kind {
///         samples += 1;
///     }
/// }
/// # Ok(()) }
/// ```
///
/// Mapped and borrowed input (files, byte slices, directories) is never copied. Bytes that only
/// live in the reader's buffers are kept in the file's storage for its lifetime: each decompressed
/// block of a `-z` recording (once), and the records of a pipe stream read with
/// [`crate::PerfFile::from_reader`]. For those two, [`Records::next_record`] (which lends each
/// record until the next call) keeps memory bounded by the ordering window instead.
impl<'f> Iterator for Records<'f> {
    type Item = Result<Record<'f>>;

    fn next(&mut self) -> Option<Result<Record<'f>>> {
        self.tick();
        let frame: Frame<'f> = match self.opts.order {
            Order::File => {
                if let Err(e) = self.frames.next_frame()? {
                    return Some(Err(e));
                }
                let frame = self.frames.current_frame()?;
                let learned = learn_from(&mut self.events, &frame, self.endian);
                let frame = rebase(frame, &self.slices, self.frames.decompressed_block(), &mut self.block, self.store);
                if learned {
                    self.events_f = self.store.keep_events(self.events.clone());
                }
                frame
            }
            Order::Time => match self.position_ordered()? {
                Err(e) => return Some(Err(e)),
                Ok(true) => {
                    let frame = self.frames.current_frame()?;
                    let learned = learn_from(&mut self.events, &frame, self.endian);
                    let frame =
                        rebase(frame, &self.slices, self.frames.decompressed_block(), &mut self.block, self.store);
                    if learned {
                        self.events_f = self.store.keep_events(self.events.clone());
                    }
                    frame
                }
                Ok(false) => {
                    let q = self.deliver_queued()?;
                    if !q.arena {
                        // In a mapped or borrowed slice: borrow it for 'f.
                        let src: &'f [u8] = self.slices.get(usize::from(q.file)).copied()?;
                        queued_at(src, q, self.endian)?
                    } else {
                        let frame = queued_at(&self.arena, q, self.endian)?;
                        let bytes: &'f [u8] = self.store.bytes.push_get(frame.bytes.into());
                        Frame { pos: frame.pos, header: frame.header, bytes, payload: &[] }
                    }
                }
            },
        };
        Some(self.bad.check(decode_counting(&frame, self.events_f, self.endian, &self.unknown_ids)))
    }
}

/// Drop the resident pages of `len` bytes of `map` from `from` (`MADV_DONTNEED`); a later access
/// reads them back from the file. Other targets than Unix (wasm32) have no page advice, and no
/// mapped files: nothing to do there.
fn dont_need(map: &memmap2::Mmap, from: usize, len: usize) {
    // SAFETY: the map is read-only and file-backed (MAP_SHARED, PROT_READ): MADV_DONTNEED only
    // drops our resident pages, which a later access reads back from the unchanged file (the map
    // is never written, so DONTNEED cannot zero them). The callers hold no reference that needs
    // the old pages resident.
    #[cfg(unix)]
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, len) };
    #[cfg(not(unix))]
    let _ = (map, from, len);
}

/// `inner`'s offset in `outer` when `inner` lies within it.
fn offset_in(outer: &[u8], inner: &[u8]) -> Option<usize> {
    let (o, i) = (outer.as_ptr() as usize, inner.as_ptr() as usize);
    let off = i.checked_sub(o)?;
    (off.checked_add(inner.len())? <= outer.len()).then_some(off)
}

/// `frame` with its bytes borrowed for `'f`: from the input slice holding them, from the stored
/// copy of the current decompressed block (copied once per block), or copied into the store.
fn rebase<'f>(
    frame: Frame<'_>,
    slices: &[&'f [u8]],
    (dbuf, generation): (&[u8], u64),
    block: &mut Option<(u64, &'f [u8])>,
    store: &'f Store,
) -> Frame<'f> {
    let Frame { pos, header, bytes, payload } = frame;
    let lookup = |src: &'f [u8], part: &[u8]| -> Option<&'f [u8]> {
        if part.is_empty() {
            return Some(&[]);
        }
        let off = offset_in(src, part)?;
        src.get(off..off + part.len())
    };
    for &s in slices {
        if let (Some(b), Some(p)) = (lookup(s, bytes), lookup(s, payload)) {
            return Frame { pos, header, bytes: b, payload: p };
        }
    }
    if let (true, Some(off)) = (payload.is_empty(), offset_in(dbuf, bytes)) {
        let stored = match *block {
            Some((g, stored)) if g == generation => stored,
            _ => {
                let stored: &'f [u8] = store.bytes.push_get(dbuf.into());
                *block = Some((generation, stored));
                stored
            }
        };
        if let Some(b) = stored.get(off..off + bytes.len()) {
            return Frame { pos, header, bytes: b, payload: &[] };
        }
    }
    // A pipe stream's buffer: keep a copy of the record and its payload.
    let mut copy = Vec::with_capacity(bytes.len() + payload.len());
    copy.extend_from_slice(bytes);
    copy.extend_from_slice(payload);
    let all: &'f [u8] = store.bytes.push_get(copy.into_boxed_slice());
    let (b, p) = all.split_at(bytes.len().min(all.len()));
    Frame { pos, header, bytes: b, payload: p }
}

fn own(slices: &[&[u8]], arena: &mut Vec<u8>, ts: u64, frame: Frame<'_>) -> Queued {
    let p = frame.pos;
    let mapped = p.index.is_none()
        && slices
            .get(p.file as usize)
            .is_some_and(|s| std::ptr::eq(s.as_ptr().wrapping_add(p.offset as usize), frame.bytes.as_ptr()));
    let (start, in_arena) = if mapped {
        (p.offset as usize, false)
    } else {
        arena.extend_from_slice(frame.bytes);
        (arena.len() - frame.bytes.len(), true)
    };
    Queued { ts, offset: p.offset, start, file: p.file as u16, arena: in_arena, index: p.index.unwrap_or(u32::MAX) }
}

impl Records<'_> {
    // Inlined into position_ordered as it was before the std iterator shared that function:
    // callgrind on a 72 MB -g file, time order, 649 M instructions with a call, 599 M without.
    #[inline(always)]
    fn enqueue(&mut self, q: Queued) {
        self.max_ts = self.max_ts.max(q.ts);
        self.queue.push(q);
        if self.queue.len() - self.head > self.opts.window_records {
            // Release the oldest half early (perf's HALF flush), keeping memory bounded.
            self.stats.early_flushes += 1;
            self.sort_queue();
            let mid = self.head + (self.queue.len() - self.head) / 2;
            let half = self.queue.get(mid).map_or(u64::MAX, |q| q.ts);
            self.flush_upto(half);
            self.compact_arena();
        }
    }

    /// Sort the unreleased part by timestamp, stably (ties keep file order). The sorted prefix plus
    /// the per-CPU runs appended since make this close to a linear merge.
    fn sort_queue(&mut self) {
        if self.sorted < self.queue.len() {
            if let Some(tail) = self.queue.get_mut(self.ready_end..) {
                tail.sort_by_key(|q| q.ts);
            }
            self.sorted = self.queue.len();
        }
    }

    /// Release queued records with ts ≤ `upto`; false when nothing was queued.
    fn flush_upto(&mut self, upto: u64) -> bool {
        // Forget what was delivered.
        // (Amortised: only once the delivered prefix is at least half the queue.)
        if self.head > 0 && self.head == self.ready_end && self.head * 2 >= self.queue.len() {
            self.queue.drain(..self.head);
            self.sorted -= self.head.min(self.sorted);
            self.head = 0;
            self.ready_end = 0;
        }
        if self.queue.len() == self.ready_end {
            if self.head == self.queue.len() {
                self.arena.clear();
                self.queue.clear();
                self.head = 0;
                self.ready_end = 0;
                self.sorted = 0;
            }
            return false;
        }
        self.sort_queue();
        let n = self.queue.get(self.ready_end..).map_or(0, |t| t.partition_point(|q| q.ts <= upto));
        self.ready_end += n;
        true
    }

    /// Rebuild the arena from the records still queued once it holds more than twice their bytes
    /// (a copying collection: stragglers cannot pin it, and its size stays within twice the window).
    fn compact_arena(&mut self) {
        let endian = self.endian;
        let size_at =
            |arena: &[u8], start: usize| arena.get(start + 6..start + 8).map_or(0, |b| usize::from(endian.u16(b)));
        let live: usize =
            self.queue.iter().skip(self.head).filter(|q| q.arena).map(|q| size_at(&self.arena, q.start)).sum();
        if self.arena.len() <= (1 << 20).max(2 * live) {
            return;
        }
        let mut fresh = Vec::with_capacity(live);
        for q in self.queue.iter_mut().skip(self.head).filter(|q| q.arena) {
            let size = size_at(&self.arena, q.start);
            let start = fresh.len();
            fresh.extend_from_slice(self.arena.get(q.start..q.start + size).unwrap_or(&[]));
            q.start = start;
        }
        self.arena = fresh;
    }
}

/// Update the event list from records that define events (pipe mode) or name them, before the
/// record itself is decoded against it.
#[inline]
/// Learn from a record that describes events; true when it was one.
pub(crate) fn learn_from(events: &mut EventList, frame: &Frame<'_>, endian: Endian) -> bool {
    let learns = matches!(frame.header.type_, rt::HEADER_ATTR | rt::EVENT_UPDATE | rt::ID_INDEX);
    if learns {
        learn_from_frame(events, *frame, endian);
    }
    learns
}

#[inline(never)]
fn learn_from_frame(events: &mut EventList, frame: Frame<'_>, endian: Endian) {
    let empty = EventList::default();
    let Ok(rec) = decode(frame, &empty, endian) else {
        return;
    };
    learn(events, &rec);
}

/// Apply what a record says about events.
pub(crate) fn learn(events: &mut EventList, rec: &Record<'_>) {
    match &rec.kind {
        RecordKind::HeaderAttr(h) => {
            let ids = h.ids.to_vec();
            if ids.iter().any(|id| events.index_of_id(*id).is_some()) && !ids.is_empty() {
                return;
            }
            events.push(Event::new(0, h.attr(), ids));
        }
        RecordKind::EventUpdate(u) => {
            if let EventUpdate::Name(n) = u.update {
                if let Some(i) = events.index_of_id(u.id) {
                    if let Some(e) = events.events.get_mut(i) {
                        e.name = Some(String::from_utf8_lossy(n).into_owned());
                    }
                }
            }
        }
        RecordKind::IdIndex(ix) => {
            for e in ix.entries() {
                if let Ok(i) = usize::try_from(e.idx) {
                    if events.index_of_id(e.id).is_none() {
                        events.add_id(e.id, i);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The timestamp perf orders a kernel record by (`evlist__parse_sample_timestamp`).
#[inline(always)]
fn frame_time(frame: &Frame<'_>, events: &EventList, endian: Endian) -> Option<u64> {
    // All events share the id position and (perf requires it) the time position; only the trailer
    // size can differ between events.
    let ev = match events.events.len() {
        1 => events.events.first()?,
        _ => match events.resolve(frame.header.type_, frame.bytes, endian) {
            Resolution::Event(i) => events.events.get(i)?,
            _ => events.events.first()?,
        },
    };
    frame_time_of(frame, ev, endian)
}

/// The timestamp of a kernel record of event `ev`.
#[inline(always)]
pub(crate) fn frame_time_of(frame: &Frame<'_>, ev: &Event, endian: Endian) -> Option<u64> {
    let l = &ev.layout;
    if frame.header.type_ == rt::SAMPLE {
        let off = 8 + l.time_offset?;
        frame.bytes.get(off..off + 8).map(|b| endian.u64(b))
    } else {
        let from_end = l.trailer_time_from_end?;
        let off = frame.bytes.len().checked_sub(from_end)?;
        if off < 8 {
            return None;
        }
        frame.bytes.get(off..off + 8).map(|b| endian.u64(b))
    }
}

/// Release mapped pages in steps of this many bytes.
const RELEASE_STEP: usize = 16 << 20;

impl<'f> Records<'f> {
    /// Attach the memory maps of the inputs so pages already read can be dropped from memory
    /// (those of the main file from `from` on: a chunk reader leaves the pages before its chunk to
    /// the reader of that chunk).
    pub(crate) fn with_maps(mut self, maps: Vec<Option<&'f memmap2::Mmap>>, from: usize) -> Self {
        self.released = vec![0; maps.len()];
        if let Some(r) = self.released.first_mut() {
            *r = from.saturating_add(4095) & !4095;
        }
        self.maps = maps;
        self
    }

    /// Drop resident pages of mapped input more than one step behind the read position. Queued
    /// records still in that range (stragglers with late timestamps) are copied to the arena first.
    /// The file's pages stay in the page cache; only this process's resident set shrinks, so peak
    /// memory follows the ordering window instead of the file size.
    fn release_pages(&mut self, file: usize, upto: usize) {
        let Some(Some(map)) = self.maps.get(file) else { return };
        let Some(done) = self.released.get(file).copied() else { return };
        let end = upto.saturating_sub(RELEASE_STEP) & !4095;
        if end <= done {
            return;
        }
        let Some(src) = self.slices.get(file).copied() else { return };
        let endian = self.endian;
        for q in self.queue.iter_mut().skip(self.head) {
            if q.arena || usize::from(q.file) != file || q.start >= end {
                continue;
            }
            let size = src.get(q.start + 6..q.start + 8).map_or(0, |b| usize::from(endian.u16(b)));
            if let Some(bytes) = src.get(q.start..q.start + size) {
                self.arena.extend_from_slice(bytes);
                q.start = self.arena.len() - size;
                q.arena = true;
            }
        }
        // No reference into [done, end) needs the old contents kept resident: queued records there
        // were just moved to the arena, the lending iterator ends each record's borrow before the
        // next call, and records from the std iterator that still borrow the range stay valid
        // because the pages are re-read from the unchanged file on access.
        dont_need(map, done, end - done);
        if let Some(r) = self.released.get_mut(file) {
            *r = end;
        }
    }

    /// Drop the resident pages of the main file from `from` (rounded up to a page) up to `to`:
    /// a chunk reader at the end of its chunk, for the bytes it read or searched for the chunk's
    /// start (not read again by anyone).
    pub(crate) fn release_range(&mut self, from: usize, to: usize) {
        if let Some(r) = self.released.first_mut() {
            *r = from.saturating_add(4095) & !4095;
        }
        self.release_pages(0, to.saturating_add(RELEASE_STEP));
    }

    /// What went wrong while reading, in parts to be put together over the chunks of a parallel
    /// read: the framing's diagnostics, the errors, and the count of unknown ids.
    pub(crate) fn diagnostics_parts(&self) -> Diagnostics {
        Diagnostics {
            framing: self.frames.diagnostics.clone(),
            errors: self.errors.iter().cloned().chain(self.bad.list()).collect(),
            unknown_ids: self.unknown_ids.get(),
        }
    }

    /// The underlying frame reader.
    pub fn into_frames(mut self) -> Frames<'f> {
        self.problems = None;
        std::mem::replace(&mut self.frames, Frames::new(Vec::new(), self.endian, 0))
    }

    pub(crate) fn note(&mut self, msg: String) {
        self.errors.push(msg);
    }
}

impl Drop for Records<'_> {
    /// What this reading met goes into its file's problem log ([`crate::PerfFile::problems`]).
    fn drop(&mut self) {
        if let Some(p) = self.problems.take() {
            for d in self.diagnostics() {
                p.add(d);
            }
        }
    }
}

/// Records that were framed but could not be decoded (a damaged body: a callchain longer than
/// its record, an unknown id's layout…): the first [`BadRecords::KEPT`] errors, and how many in
/// all, for [`Records::diagnostics`] and so the file's problem log.
#[derive(Default)]
struct BadRecords {
    first: std::cell::RefCell<Vec<String>>,
    count: std::cell::Cell<u64>,
}

impl BadRecords {
    /// Errors kept as text; the others are counted.
    const KEPT: usize = 100;

    /// `r`, its error noted.
    fn check<'a>(&self, r: Result<Record<'a>>) -> Result<Record<'a>> {
        if let Err(e) = &r {
            self.count.set(self.count.get().saturating_add(1));
            let mut first = self.first.borrow_mut();
            if first.len() < Self::KEPT {
                first.push(e.to_string());
            }
        }
        r
    }

    /// The errors kept, then a line counting the others.
    fn list(&self) -> Vec<String> {
        let mut v = self.first.borrow().clone();
        let more = self.count.get().saturating_sub(v.len() as u64);
        if more > 0 {
            v.push(format!("{more} more records could not be decoded"));
        }
        v
    }
}

/// [`Records::diagnostics`] in parts.
#[derive(Default)]
pub(crate) struct Diagnostics {
    pub(crate) framing: Vec<String>,
    pub(crate) errors: Vec<String>,
    pub(crate) unknown_ids: u64,
}

impl Diagnostics {
    /// Add what the reading of the next chunk said.
    pub(crate) fn extend(&mut self, more: Diagnostics) {
        self.framing.extend(more.framing);
        self.errors.extend(more.errors);
        self.unknown_ids = self.unknown_ids.saturating_add(more.unknown_ids);
    }

    /// As [`Records::diagnostics`] lists them: the framing's, then the errors, then the count of
    /// unknown ids.
    pub(crate) fn list(self) -> Vec<String> {
        let mut d = self.framing;
        d.extend(self.errors);
        if self.unknown_ids > 0 {
            d.push(format!("{} records carried an id that matches no event", self.unknown_ids));
        }
        d
    }
}

/// Where [`Records`] publish how far they have read (shared with [`crate::PerfFile::progress`]).
#[derive(Debug, Default)]
pub(crate) struct ProgressCounter {
    bytes: std::sync::atomic::AtomicU64,
    records: std::sync::atomic::AtomicU64,
}

impl ProgressCounter {
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn records(&self) -> u64 {
        self.records.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// How far reading a file has got ([`crate::PerfFile::progress`]): a handle that another thread
/// can poll while an analysis reads the file (a progress bar), without access to the file.
#[derive(Clone, Debug)]
pub struct Progress {
    pub(crate) counter: std::sync::Arc<ProgressCounter>,
    pub(crate) total_bytes: Option<u64>,
}

impl Progress {
    /// Input bytes read so far by the file's record iterators (the furthest of them, published
    /// every 1024 records; 0 for a stream).
    pub fn bytes(&self) -> u64 {
        self.counter.bytes()
    }

    /// Records read so far by the furthest iterator (published every 1024).
    pub fn records(&self) -> u64 {
        self.counter.records()
    }

    /// The bytes there are to read (the file's size), `None` for a stream.
    pub fn total_bytes(&self) -> Option<u64> {
        self.total_bytes
    }
}
