//! Typed iterators over a recording: its samples ([`PerfFile::samples`]) and the samples of one
//! tracepoint event with their fields decoded from the recording's own format
//! ([`PerfFile::tracepoints`]), in time order, with event, time, pid, tid and CPU filters.
//!
//! ```no_run
//! # fn main() -> perfdata_core::Result<()> {
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! for switch in file.tracepoints("sched:sched_switch")?.cpu(0) {
//!     let switch = switch?;
//!     let prev = switch.field("prev_comm").and_then(|v| v.as_str().map(|s| s.into_owned()));
//!     let next_pid = switch.field("next_pid").and_then(|v| v.as_i64());
//!     println!("{:?} {prev:?} -> {next_pid:?}", switch.sample.time());
//! }
//! # Ok(()) }
//! ```
//!
//! Both are std [`Iterator`]s over [`Records`]: items borrow the file, not the iterator.

use crate::error::{Error, Result};
use crate::file::PerfFile;
use crate::record::{Record, RecordKind};
use crate::records::{Order, Records, Store};
use crate::sample::Sample;
use crate::tracepoint::fields::Value;
use crate::tracepoint::{Format, Tracepoints, PERF_TYPE_TRACEPOINT};
use std::ops::{Bound, RangeBounds};

/// Which samples a typed iterator yields; every condition set must hold. A condition on a field
/// the sample does not carry (no `time`, `tid` or `cpu` in its sample_type) excludes it.
#[derive(Clone, Debug, Default)]
struct Filter {
    /// Event names (as [`crate::Event::display_name`] gives them); empty: every event.
    events: Vec<String>,
    /// Per event index, whether its name is in `events` (filled as events are met).
    event_ok: Vec<Option<bool>>,
    /// Time range (start, end bounds).
    time: Option<(Bound<u64>, Bound<u64>)>,
    pids: Vec<u32>,
    tids: Vec<u32>,
    cpus: Vec<u32>,
}

impl Filter {
    fn keeps(&mut self, s: &Sample<'_>, event: &crate::Event) -> bool {
        if !self.events.is_empty() {
            let i = event.index;
            if self.event_ok.len() <= i {
                self.event_ok.resize(i.saturating_add(1), None);
            }
            let ok = match self.event_ok.get(i).copied().flatten() {
                Some(ok) => ok,
                None => {
                    let name = event.display_name();
                    let ok = self.events.contains(&name);
                    if let Some(slot) = self.event_ok.get_mut(i) {
                        *slot = Some(ok);
                    }
                    ok
                }
            };
            if !ok {
                return false;
            }
        }
        if let Some(range) = self.time {
            match s.time() {
                Some(t) if range.contains(&t) => {}
                _ => return false,
            }
        }
        let listed = |list: &[u32], v: Option<u32>| list.is_empty() || v.is_some_and(|v| list.contains(&v));
        listed(&self.pids, s.pid()) && listed(&self.tids, s.tid()) && listed(&self.cpus, s.cpu())
    }
}

/// A sample and the record that carries it (position, header, `misc` cpumode bits, raw bytes).
#[derive(Clone, Debug)]
pub struct SampleRecord<'f> {
    /// The decoded sample.
    pub sample: Sample<'f>,
    /// The SAMPLE record it came from.
    pub record: Record<'f>,
}

/// The samples of a recording in time order ([`PerfFile::samples`]), narrowed by the builder
/// methods.
pub struct Samples<'f> {
    records: Records<'f>,
    filter: Filter,
}

macro_rules! filter_builders {
    ($($field:ident).+) => {
        /// Only samples of the event named `name` (`cycles`, `sched:sched_switch`, …); call again to
        /// allow several events.
        pub fn event(mut self, name: impl Into<String>) -> Self {
            self.$($field).+.events.push(name.into());
            self
        }

        /// Only samples whose time is in `range` (perf clock ns; `a..b`, `a..`, `..=b`, …).
        pub fn time(mut self, range: impl RangeBounds<u64>) -> Self {
            self.$($field).+.time = Some((range.start_bound().cloned(), range.end_bound().cloned()));
            self
        }

        /// Only samples of process `pid`; call again to allow several.
        pub fn pid(mut self, pid: u32) -> Self {
            self.$($field).+.pids.push(pid);
            self
        }

        /// Only samples of thread `tid`; call again to allow several.
        pub fn tid(mut self, tid: u32) -> Self {
            self.$($field).+.tids.push(tid);
            self
        }

        /// Only samples taken on `cpu`; call again to allow several.
        pub fn cpu(mut self, cpu: u32) -> Self {
            self.$($field).+.cpus.push(cpu);
            self
        }
    };
}

impl<'f> Samples<'f> {
    pub(crate) fn new(records: Records<'f>) -> Self {
        Samples { records, filter: Filter::default() }
    }

    filter_builders!(filter);

    /// The record iterator underneath (its statistics and diagnostics).
    pub fn records(&self) -> &Records<'f> {
        &self.records
    }
}

impl<'f> Iterator for Samples<'f> {
    type Item = Result<SampleRecord<'f>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let record = match self.records.next()? {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            if let RecordKind::Sample(sample) = record.kind {
                if let Some(event) = record.event {
                    if self.filter.keeps(&sample, event) {
                        return Some(Ok(SampleRecord { sample, record }));
                    }
                }
            }
        }
    }
}

/// A sample of a tracepoint event with its fields, decoded by name from the recording's format.
#[derive(Clone, Debug)]
pub struct TracepointSample<'f> {
    /// The decoded sample.
    pub sample: Sample<'f>,
    /// The SAMPLE record it came from.
    pub record: Record<'f>,
    /// The event's format, from the recording's tracing data.
    pub format: &'f Format,
    /// The sample's RAW data (the tracepoint's fields).
    pub raw: &'f [u8],
}

impl<'f> TracepointSample<'f> {
    /// One field by name (`common_*` fields included); `None` when the format has no such field.
    /// To read a field of many samples, resolve it once with [`Format::field_def`] and decode with
    /// [`crate::tracepoint::fields::decode_field`].
    pub fn field(&self, name: &str) -> Option<Value<'f>> {
        self.format.field(self.raw, name)
    }

    /// The event's own fields (not the `common_*` ones), in format order.
    pub fn fields(&self) -> Vec<(&'f str, Value<'f>)> {
        self.format.decode(self.raw)
    }
}

/// The samples of one tracepoint event in time order ([`PerfFile::tracepoints`]), narrowed by the
/// builder methods.
pub struct TracepointSamples<'f> {
    samples: Samples<'f>,
    system: String,
    name: String,
    /// The tracing data: the file's, or learned from a pipe stream's HEADER_TRACING_DATA record.
    tracepoints: Option<&'f Tracepoints>,
    /// The format once known (and its ID, which the event's `attr.config` carries).
    format: Option<&'f Format>,
    store: &'f Store,
    /// Whether the format may still arrive in a record (pipe data without tracing data up front).
    deferred: bool,
    /// Whether a sample of the event was seen (else the end reports what was missing).
    seen: bool,
    done: bool,
}

impl<'f> TracepointSamples<'f> {
    pub(crate) fn new(file: &'f PerfFile<'_>, event: &str) -> Result<Self> {
        let Some((system, name)) = event.split_once(':') else {
            return Err(Error::Unsupported(format!("{event:?}: a tracepoint is named system:name")));
        };
        let store = file.store();
        let tracepoints = Tracepoints::from_file(file)?.map(|tp| store.keep_tracepoints(tp));
        let deferred = tracepoints.is_none() && file.header().format == crate::Format::Pipe;
        let mut it = TracepointSamples {
            samples: Samples::new(file.records(Order::Time)?),
            system: system.to_string(),
            name: name.to_string(),
            tracepoints,
            format: None,
            store,
            deferred,
            seen: false,
            done: false,
        };
        // A pipe stream's tracing data comes as a record; anything else must have it now.
        if !deferred {
            let format = it.resolve().ok_or_else(|| it.missing())?;
            let used = file.events().iter().any(|e| is_event_of(&e.attr, format));
            if !used {
                return Err(it.missing());
            }
        }
        Ok(it)
    }

    filter_builders!(samples.filter);

    fn resolve(&mut self) -> Option<&'f Format> {
        if self.format.is_none() {
            self.format = self.tracepoints?.format_by_name(&self.system, &self.name);
        }
        self.format
    }

    fn missing(&self) -> Error {
        let what = format!("{}:{}", self.system, self.name);
        if self.tracepoints.is_none() {
            Error::Unsupported(format!("no tracing data in this file: {what} cannot be decoded"))
        } else {
            Error::Unsupported(format!("no {what} event in this file"))
        }
    }
}

fn is_event_of(attr: &crate::EventAttr, format: &Format) -> bool {
    attr.type_ == PERF_TYPE_TRACEPOINT && attr.config as u32 == format.id
}

impl<'f> Iterator for TracepointSamples<'f> {
    type Item = Result<TracepointSample<'f>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            let record = match self.samples.records.next() {
                Some(Ok(r)) => r,
                Some(Err(e)) => return Some(Err(e)),
                None => {
                    self.done = true;
                    return (!self.seen && self.deferred).then(|| Err(self.missing()));
                }
            };
            if self.tracepoints.is_none() {
                match Tracepoints::carried_by(&record) {
                    Some(Ok(tp)) => self.tracepoints = Some(self.store.keep_tracepoints(tp)),
                    Some(Err(e)) => return Some(Err(e)),
                    None => {}
                }
            }
            let RecordKind::Sample(sample) = record.kind else { continue };
            let (Some(event), Some(format)) = (record.event, self.resolve()) else { continue };
            if !is_event_of(&event.attr, format) {
                continue;
            }
            self.seen = true;
            if !self.samples.filter.keeps(&sample, event) {
                continue;
            }
            let raw = sample.raw().unwrap_or(&[]);
            return Some(Ok(TracepointSample { sample, record, format, raw }));
        }
    }
}

impl<'d> PerfFile<'d> {
    /// The samples in time order, as a std iterator with event/time/pid/tid/CPU filters
    /// (see [`crate::typed`]).
    pub fn samples(&self) -> Result<Samples<'_>> {
        Ok(Samples::new(self.records(Order::Time)?))
    }

    /// The samples of the tracepoint event `event` (`"sched:sched_switch"`) in time order, with
    /// their fields decoded by name from the recording's own format (see [`crate::typed`]). An
    /// error names what is missing: the tracing data, or the event.
    pub fn tracepoints(&self, event: &str) -> Result<TracepointSamples<'_>> {
        TracepointSamples::new(self, event)
    }
}
