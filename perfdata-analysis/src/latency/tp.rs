//! Tracepoint field access for the latency analyses: each event's fields are located once (by
//! name, from the recording's own format) and then read per sample straight from its RAW bytes.

use perfdata_core::reader::Endian;
use perfdata_core::sample::Sample;
use perfdata_core::tracepoint::{Format, Tracepoints};
use perfdata_core::{Event, Extract, ParExtract, PerfFile, Record, RecordKind, RecordRef};

/// Where a fixed-size field sits in a tracepoint's RAW data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc {
    offset: u32,
    size: u32,
}

impl Loc {
    /// The field `name` of `fmt`, if it is a fixed-size (not `__data_loc`) field.
    pub(crate) fn of(fmt: &Format, name: &str) -> Option<Loc> {
        let f = fmt.field_def(name)?;
        (!f.is_dynamic).then_some(Loc { offset: f.offset, size: f.size })
    }

    /// The field's bytes.
    #[inline]
    pub(crate) fn bytes<'a>(&self, raw: &'a [u8]) -> Option<&'a [u8]> {
        let offset = self.offset as usize;
        raw.get(offset..offset.checked_add(self.size as usize)?)
    }

    /// The field as an unsigned integer (1, 2, 4 or 8 bytes; wider fields are not integers).
    #[inline]
    pub(crate) fn uint(&self, raw: &[u8], endian: Endian) -> Option<u64> {
        let b = self.bytes(raw)?;
        Some(match b.len() {
            1 => u64::from(*b.first()?),
            2 => u64::from(endian.u16(b)),
            4 => u64::from(endian.u32(b)),
            8 => endian.u64(b),
            _ => return None,
        })
    }

    /// The field as a signed integer (sign-extended from its size).
    #[inline]
    pub(crate) fn int(&self, raw: &[u8], endian: Endian) -> Option<i64> {
        let v = self.uint(raw, endian)?;
        Some(match self.size {
            1 => i64::from(v as u8 as i8),
            2 => i64::from(v as u16 as i16),
            4 => i64::from(v as u32 as i32),
            _ => v as i64,
        })
    }
}

/// The tracing data known so far while reading: a file's from the start, a pipe's from its
/// `HEADER_TRACING_DATA` record on. Unreadable tracing data counts as none.
#[derive(Clone)]
pub(crate) struct TpSource {
    /// Shared by the copies of an extractor that read chunks of a file on several threads.
    tp: Option<std::sync::Arc<Tracepoints>>,
}

impl TpSource {
    pub(crate) fn new(f: &PerfFile<'_>) -> TpSource {
        TpSource { tp: Tracepoints::from_file(f).ok().flatten().map(std::sync::Arc::new) }
    }

    /// Pick up a pipe's tracing data; true when it became known with this record.
    pub(crate) fn observe(&mut self, r: &Record<'_>) -> bool {
        if let (RecordKind::HeaderTracingData(t), None) = (&r.kind, &self.tp) {
            self.tp = Tracepoints::from_record(t, r.pos).ok().map(std::sync::Arc::new);
            return self.tp.is_some();
        }
        false
    }

    /// [`TpSource::observe`] for a record not decoded yet (decoded only when it is the tracing data).
    pub(crate) fn observe_ref(&mut self, r: &perfdata_core::RecordRef<'_>) -> bool {
        use perfdata_core::record::record_type as rt;
        if self.tp.is_some() || !matches!(r.type_(), rt::HEADER_TRACING_DATA | rt::SIMPLEPERF_TRACING_DATA) {
            return false;
        }
        r.decode().is_ok_and(|rec| self.observe(&rec))
    }

    pub(crate) fn get(&self) -> Option<&Tracepoints> {
        self.tp.as_deref()
    }
}

/// Most events a recording has that the per-event cache keeps (more are resolved per sample).
const MAX_CACHED_EVENTS: usize = 4096;

/// A per-event cache of what `resolve` made of an event's format (`None`: not an event the
/// analysis reads).
#[derive(Clone)]
pub(crate) struct PerEvent<R> {
    slots: Vec<Option<Option<R>>>,
    /// The last resolution of an event past the cache.
    uncached: Option<R>,
}

impl<R: Copy> PerEvent<R> {
    pub(crate) fn new() -> Self {
        PerEvent { slots: Vec::new(), uncached: None }
    }

    /// Forget everything (the tracing data became known).
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
    }

    /// The resolution of `ev`'s tracepoint format.
    pub(crate) fn get(
        &mut self,
        ev: &Event,
        tp: Option<&Tracepoints>,
        resolve: impl FnOnce(&Format) -> Option<R>,
    ) -> Option<R> {
        self.get_ref(ev, tp, resolve).copied()
    }

    /// [`PerEvent::get`] by reference (no copy of a large resolution per sample).
    #[inline]
    pub(crate) fn get_ref(
        &mut self,
        ev: &Event,
        tp: Option<&Tracepoints>,
        resolve: impl FnOnce(&Format) -> Option<R>,
    ) -> Option<&R> {
        if matches!(self.slots.get(ev.index), Some(Some(_))) {
            return self.slots.get(ev.index)?.as_ref()?.as_ref();
        }
        let r = tp?.format_for(&ev.attr).and_then(resolve);
        if ev.index >= MAX_CACHED_EVENTS {
            self.uncached = r;
            return self.uncached.as_ref();
        }
        if self.slots.len() <= ev.index {
            self.slots.resize(ev.index + 1, None);
        }
        let slot = self.slots.get_mut(ev.index)?;
        *slot = Some(r);
        slot.as_ref()?.as_ref()
    }
}

/// Whether the events (of a file, or seen in a stream) include the tracepoint `system:name`.
pub(crate) fn has_event(events: &[Event], tp: Option<&Tracepoints>, system: &str, name: &str) -> bool {
    let Some(tp) = tp else { return false };
    events.iter().any(|e| tp.format_for(&e.attr).is_some_and(|f| f.system == system && f.name == name))
}

/// Most sample errors an analysis collects before it gives up on a damaged file.
pub(crate) const MAX_ERRORS: usize = 1000;

/// The fields of the tracepoints an analysis reads, located in one event's format, and the value
/// it takes out of each of that event's samples ([`TpExtractor`]).
pub(crate) trait TpFields: Copy + Send {
    /// What one sample gives the analysis.
    type Item;
    /// The fields of format `fmt`; `None`: not an event the analysis reads.
    fn resolve(fmt: &Format) -> Option<Self>;
    /// The value of sample `s` (its RAW data `raw`, its time `time`, the file's byte order
    /// `endian`); `None` to skip it.
    fn read(&self, s: &Sample<'_>, raw: &[u8], time: u64, endian: Endian) -> Option<Self::Item>;
}

/// Takes an analysis's values out of the tracepoint samples, in file order (on worker threads,
/// a chunk each, with [`PerfFile::ordered_par`]): each event's fields are located once
/// ([`TpFields::resolve`]), each sample with a time and RAW data read by [`TpFields::read`];
/// samples that do not decode are kept in `errors` (at most [`MAX_ERRORS`] + 1: more stops the
/// analysis).
#[derive(Clone)]
pub(crate) struct TpExtractor<F> {
    /// The recording's tracepoint formats (pipe data learns them as it goes).
    pub(crate) tps: TpSource,
    fields: PerEvent<F>,
    /// Samples that could not be decoded.
    pub(crate) errors: Vec<String>,
}

impl<F: TpFields> TpExtractor<F> {
    /// An extractor for the samples of `file`.
    pub(crate) fn new(file: &PerfFile<'_>) -> Self {
        TpExtractor { tps: TpSource::new(file), fields: PerEvent::new(), errors: Vec::new() }
    }
}

impl<F: TpFields> Extract<F::Item> for TpExtractor<F> {
    #[inline]
    fn extract(&mut self, r: &RecordRef<'_>) -> Option<F::Item> {
        if self.tps.observe_ref(r) {
            self.fields.clear();
        }
        let ev = r.event()?;
        let s = match r.sample()? {
            Ok(s) => s,
            Err(e) => {
                if self.errors.len() <= MAX_ERRORS {
                    self.errors.push(e.to_string());
                }
                return None;
            }
        };
        let f = self.fields.get_ref(ev, self.tps.get(), F::resolve)?;
        f.read(&s, s.raw()?, s.time()?, r.endian())
    }
}

impl<F: TpFields> ParExtract<F::Item> for TpExtractor<F> {
    type Part = Vec<String>;

    fn fork(&self) -> Self {
        TpExtractor { tps: self.tps.clone(), fields: self.fields.clone(), errors: Vec::new() }
    }

    fn take_part(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    fn join_part(&mut self, errors: Vec<String>) {
        let room = (MAX_ERRORS + 1).saturating_sub(self.errors.len());
        self.errors.extend(errors.into_iter().take(room));
    }
}
