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

use super::{frame_time_of, learn_from, ReadStats, Records};
use crate::error::{Position, Result};
use crate::event::{Event, EventList, Resolution};
use crate::reader::Endian;
use crate::record::{decode, record_type as rt, Record, RecordHeader};
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
    recs: Records<'f>,
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
}

impl<'f, T, E: Extract<T>> Ordered<'f, T, E> {
    pub(crate) fn new(recs: Records<'f>, extract: E) -> Self {
        let window = recs.opts.window_records.max(2);
        Ordered {
            recs,
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
        self.recs.events()
    }

    /// What went wrong while reading so far ([`Records::diagnostics`]).
    pub fn diagnostics(&self) -> Vec<String> {
        self.recs.diagnostics()
    }

    /// Counters of what happened while reading so far: out-of-order deliveries and early flushes
    /// count the values queued (records the extractor kept), unknown ids every record.
    pub fn stats(&self) -> ReadStats {
        ReadStats { unknown_id: self.recs.unknown_ids.get(), ..self.stats.clone() }
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

    /// Pull the next record and extract from it; `None` at the end of the input.
    fn pull(&mut self) -> Option<Result<()>> {
        self.recs.tick();
        // The frame is used where next_frame left it (by reference): moving it out first costs a
        // copy whose 16-byte loads stall on the narrower stores that just wrote it (perf annotate:
        // a fifth of this function's samples on one such load).
        let next = self.recs.frames.next_frame()?;
        let frame = match &next {
            Err(_) => {
                // A framing error ends the stream; what is queued is still delivered after it.
                self.eof = true;
                let e = next.err()?;
                self.recs.errors.push(e.to_string());
                return Some(Err(e));
            }
            Ok(frame) => frame,
        };
        let (events, endian) = (&mut self.recs.events, self.recs.endian);
        learn_from(events, frame, endian);
        let events: &EventList = events;
        let ty = frame.header.type_;
        let resolution = events.resolve(ty, frame.bytes, endian);
        let event = match resolution {
            Resolution::Event(i) => events.events.get(i),
            Resolution::UnknownId(_) => {
                if matches!(ty, rt::SAMPLE | rt::READ) {
                    self.recs.unknown_ids.set(self.recs.unknown_ids.get().saturating_add(1));
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
        let r = RecordRef { frame, events, endian, event, time };
        let value = self.extract.extract(&r);
        match time {
            Some(ts) => {
                self.max_ts = self.max_ts.max(ts);
                if let Some(v) = value {
                    self.keys.push((ts, self.base + self.slab.len() as u64));
                    self.slab.push_back(Some(v));
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
            }
            None => {
                self.immediate = value;
                if ty == rt::FINISHED_ROUND {
                    let upto = self.next_flush;
                    self.next_flush = self.max_ts;
                    self.flush_upto(upto);
                }
            }
        }
        Some(Ok(()))
    }
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
