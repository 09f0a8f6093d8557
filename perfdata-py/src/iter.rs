//! Streaming iteration from Python: `PerfData.records()` and `PerfData.samples()`.
//!
//! The core's record iterator is lending: `Records<'f>` borrows its `PerfFile`. A Python iterator must
//! own both, so [`RecordsCell`] keeps an `Arc<PerfFile>` and the `Records` borrowing from it in one
//! value. It is built with the `self_cell` crate (no proc macros, no dependencies, no unsafe code on
//! our side; widely used and audited), which ties the dependent's lifetime to the owner for us.
//! Records are converted to owned Python objects one at a time, so memory does not grow with the file.

use crate::damage::Damage;
use crate::error;
use crate::event::Event;
use crate::record;
use crate::tracepoint;
use perfdata_core::tracepoint::Tracepoints;
use perfdata_core::{Order, PerfFile, ReadOptions, RecordKind, Records};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

self_cell::self_cell!(
    /// A `PerfFile` and a record iterator borrowing from it.
    pub struct RecordsCell {
        owner: Arc<PerfFile<'static>>,
        #[not_covariant]
        dependent: Records,
    }
);

impl RecordsCell {
    /// Start iterating `file` in `order`.
    pub fn start(file: Arc<PerfFile<'static>>, order: Order) -> perfdata_core::Result<RecordsCell> {
        RecordsCell::try_new(file, |f| f.records_with(ReadOptions { order, ..ReadOptions::default() }))
    }
}

/// Most diagnostics kept; a damaged file can produce one per record.
const MAX_DIAGNOSTICS: usize = 1000;

/// What a `PerfData` and its iterators learn while reading: diagnostics, the sample count and (for
/// pipe data) events and tracing data announced in the stream.
#[derive(Default)]
pub struct Shared {
    diagnostics: Mutex<Diagnostics>,
    sample_count: Mutex<Option<(u64, Vec<u64>)>>,
    events: Mutex<Vec<Py<Event>>>,
    tracepoints: Mutex<TpCache>,
}

/// The tracing data, parsed once per file.
#[derive(Default)]
struct TpCache {
    /// The file was looked at (its tracing data parsed, if it has any).
    looked: bool,
    tp: Option<Arc<Tracepoints>>,
}

#[derive(Default)]
struct Diagnostics {
    list: Vec<String>,
    seen: HashSet<String>,
    dropped: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a panic elsewhere while holding it; the data is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// A new shared state with the events known at open.
    pub fn new(events: Vec<Py<Event>>) -> Shared {
        Shared { events: Mutex::new(events), ..Shared::default() }
    }

    /// Add diagnostics (duplicates are dropped, the list is capped).
    pub fn note(&self, msgs: impl IntoIterator<Item = String>) {
        let mut d = lock(&self.diagnostics);
        for m in msgs {
            if d.seen.contains(&m) {
                continue;
            }
            if d.list.len() >= MAX_DIAGNOSTICS {
                d.dropped += 1;
                continue;
            }
            d.seen.insert(m.clone());
            d.list.push(m);
        }
    }

    /// The diagnostics so far.
    pub fn diagnostics(&self) -> Vec<String> {
        let d = lock(&self.diagnostics);
        let mut v = d.list.clone();
        if d.dropped > 0 {
            v.push(format!("… and {} more problems", d.dropped));
        }
        v
    }

    /// Remember the number of samples of a complete pass, in all and per event index.
    pub fn set_sample_count(&self, n: u64, per_event: Vec<u64>) {
        *lock(&self.sample_count) = Some((n, per_event));
    }

    /// The sample count, if a complete pass has counted it.
    pub fn sample_count(&self) -> Option<u64> {
        lock(&self.sample_count).as_ref().map(|c| c.0)
    }

    /// Samples per event index, if a complete pass has counted them.
    pub fn sample_counts_by_event(&self) -> Option<Vec<u64>> {
        lock(&self.sample_count).as_ref().map(|c| c.1.clone())
    }

    /// The events (those known at open, or more learned from a pipe stream).
    pub fn events(&self, py: Python<'_>) -> Vec<Py<Event>> {
        lock(&self.events).iter().map(|e| e.clone_ref(py)).collect()
    }

    /// The tracepoint formats of `file` (parsed on first use; a pipe stream's once an iterator met
    /// its tracing data record). A damaged blob is noted in the diagnostics.
    pub fn tracepoints(&self, file: &PerfFile<'_>) -> Option<Arc<Tracepoints>> {
        let mut c = lock(&self.tracepoints);
        if !c.looked {
            c.looked = true;
            match tracepoint::from_file(file) {
                Ok(tp) => c.tp = tp.map(Arc::new),
                Err(e) => self.note([e]),
            }
        }
        c.tp.clone()
    }

    /// Keep the tracing data a pass over a pipe stream found.
    pub fn learn_tracepoints(&self, tp: &Arc<Tracepoints>) {
        let mut c = lock(&self.tracepoints);
        if c.tp.is_none() {
            c.tp = Some(tp.clone());
        }
    }

    /// Replace the events when reading learned more of them (pipe mode).
    pub fn learn_events(&self, py: Python<'_>, events: &[perfdata_core::Event]) -> PyResult<()> {
        let mut cur = lock(&self.events);
        if events.len() > cur.len() {
            *cur = events.iter().map(|e| Py::new(py, Event::new(e))).collect::<PyResult<_>>()?;
        }
        Ok(())
    }
}

/// Which samples `samples(event=…)` keeps.
pub enum EventFilter {
    /// Samples of the event with this name.
    Name(String),
    /// Samples of the event at this index.
    Index(usize),
}

/// What the iterator yields.
pub enum Yield {
    /// Every record (`Sample` objects for samples).
    Records,
    /// Samples only, optionally of one event.
    Samples(Option<EventFilter>),
}

struct State {
    cell: Option<RecordsCell>,
    shared: Arc<Shared>,
    what: Yield,
    strict: bool,
    /// Event names as Python strings, by event index (shared by all samples of an event).
    names: Vec<Option<Py<PyString>>>,
    /// Whether each event (by index) passes the filter, decided once per event.
    keep: Vec<Option<bool>>,
    samples: u64,
    /// Samples per event index.
    per_event: Vec<u64>,
    /// Tracepoint formats (a pipe stream's from its tracing data record on).
    tp: Option<Arc<Tracepoints>>,
    /// The file's damage policy: its problems are said (or raised) at the end of the iteration.
    damage: Arc<Damage>,
}

/// An iterator over records or samples, read from the file as it advances (one record in memory at
/// a time). Problems met on the way are skipped and added to ``PerfData.diagnostics``, unless the
/// iterator was created with ``strict=True``, which raises ``PerfDataError`` instead. At its end
/// (or when dropped before it) each new problem is said as a ``PerfDataWarning``; a file opened
/// with ``strict=True`` raises ``PerfDataError`` at the end instead.
#[pyclass(module = "perfdata", name = "RecordIterator", frozen)]
pub struct RecordIterator {
    state: Mutex<State>,
}

impl RecordIterator {
    /// A new iterator; `tp`: the tracepoint formats known before reading.
    pub fn new(
        cell: RecordsCell,
        shared: Arc<Shared>,
        what: Yield,
        strict: bool,
        tp: Option<Arc<Tracepoints>>,
        damage: Arc<Damage>,
    ) -> Self {
        RecordIterator {
            state: Mutex::new(State {
                cell: Some(cell),
                shared,
                what,
                strict,
                names: Vec::new(),
                keep: Vec::new(),
                samples: 0,
                per_event: Vec::new(),
                tp,
                damage,
            }),
        }
    }
}

enum Step {
    Item(Py<PyAny>),
    Skip,
    Failed(perfdata_core::Error),
    End(Vec<String>, Vec<perfdata_core::Event>),
}

#[pymethods]
impl RecordIterator {
    /// The iterator itself.
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The next record (or sample); reads the file up to it.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut guard = self
            .state
            .try_lock()
            .map_err(|_| PyRuntimeError::new_err("this perfdata iterator is already running in another call"))?;
        let st = &mut *guard;
        loop {
            let Some(cell) = st.cell.as_mut() else {
                return Ok(None);
            };
            let (what, names, keep_cache, samples, per_event, tp) =
                (&st.what, &mut st.names, &mut st.keep, &mut st.samples, &mut st.per_event, &mut st.tp);
            let shared = &st.shared;
            let step = cell.with_dependent_mut(|_, recs| -> PyResult<Step> {
                let rec = match recs.next_record() {
                    None => return Ok(Step::End(recs.diagnostics(), recs.events().to_vec())),
                    Some(Err(e)) => return Ok(Step::Failed(e)),
                    Some(Ok(r)) => r,
                };
                if tp.is_none() {
                    match tracepoint::from_record(&rec) {
                        Some(Ok(t)) => {
                            let t = Arc::new(t);
                            shared.learn_tracepoints(&t);
                            *tp = Some(t);
                        }
                        Some(Err(e)) => shared.note([e]),
                        None => {}
                    }
                }
                let is_sample = matches!(rec.kind, RecordKind::Sample(_));
                if is_sample {
                    *samples += 1;
                    if let Some(e) = rec.event {
                        if per_event.len() <= e.index {
                            per_event.resize(e.index + 1, 0);
                        }
                        if let Some(n) = per_event.get_mut(e.index) {
                            *n += 1;
                        }
                    }
                }
                if let Yield::Samples(filter) = what {
                    if !is_sample {
                        return Ok(Step::Skip);
                    }
                    let keep = match (filter, rec.event) {
                        (None, _) => true,
                        (Some(_), None) => false,
                        (Some(f), Some(e)) => {
                            if keep_cache.len() <= e.index {
                                keep_cache.resize(e.index + 1, None);
                            }
                            let slot = keep_cache.get_mut(e.index);
                            match slot.as_deref().copied().flatten() {
                                Some(k) => k,
                                None => {
                                    let k = match f {
                                        EventFilter::Index(i) => e.index == *i,
                                        EventFilter::Name(n) => e.display_name() == *n,
                                    };
                                    if let Some(slot) = slot {
                                        *slot = Some(k);
                                    }
                                    k
                                }
                            }
                        }
                    };
                    if !keep {
                        return Ok(Step::Skip);
                    }
                }
                let item = record::to_object(py, &rec, tp.as_ref(), |e| {
                    if names.len() <= e.index {
                        names.resize_with(e.index + 1, || None);
                    }
                    match names.get_mut(e.index) {
                        Some(slot) => {
                            slot.get_or_insert_with(|| PyString::new(py, &e.display_name()).unbind()).clone_ref(py)
                        }
                        None => PyString::new(py, &e.display_name()).unbind(),
                    }
                })?;
                Ok(Step::Item(item))
            })?;
            match step {
                Step::Item(obj) => return Ok(Some(obj)),
                Step::Skip => {}
                Step::Failed(e) => {
                    st.shared.note([e.to_string()]);
                    if st.strict {
                        let path =
                            st.cell.as_ref().and_then(|c| c.borrow_owner().path().map(std::path::Path::to_path_buf));
                        return Err(error::to_py(py, e, path.as_deref()));
                    }
                }
                Step::End(diags, events) => {
                    st.shared.note(diags);
                    st.shared.learn_events(py, &events)?;
                    st.shared.set_sample_count(st.samples, std::mem::take(&mut st.per_event));
                    // Dropping the reader puts what it met into the file's problem log.
                    st.cell = None;
                    st.damage.settle(py)?;
                    return Ok(None);
                }
            }
        }
    }

    fn __repr__(&self) -> String {
        match self.state.try_lock() {
            Ok(st) => format!(
                "<perfdata.RecordIterator {} {}>",
                match st.what {
                    Yield::Records => "records",
                    Yield::Samples(_) => "samples",
                },
                if st.cell.is_some() { "running" } else { "exhausted" }
            ),
            Err(_) => "<perfdata.RecordIterator busy>".into(),
        }
    }
}

impl Drop for RecordIterator {
    /// Dropped before its end: what it read is said (nothing can be raised here).
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if st.cell.take().is_some() {
            st.damage.dropped();
        }
    }
}
