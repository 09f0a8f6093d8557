//! `perfdata.open()` and the `PerfData` object.

use crate::arrow::tables::{self, Table};
use crate::arrow::tracepoints as tp_table;
use crate::arrow::ArrowTable;
use crate::damage::Damage;
use crate::error;
use crate::event::Event;
use crate::flamegraph::{self as flame, FlameGraph, GRAPH_KEYS};
use crate::header::Header;
use crate::iter::{EventFilter, RecordIterator, RecordsCell, Shared, Yield};
use crate::kwargs::in_call;
use crate::source;
use perfdata_analysis::sched::timeline::TimelineOptions;
use perfdata_core::{Order, PerfFile};
use pyo3::exceptions::{PyImportError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use std::sync::{Arc, Mutex};

fn parse_order(order: &str) -> PyResult<Order> {
    match order {
        "time" => Ok(Order::Time),
        "file" => Ok(Order::File),
        o => Err(PyValueError::new_err(format!("order must be 'time' or 'file', not {o:?}"))),
    }
}

fn order_name(o: Order) -> &'static str {
    match o {
        Order::Time => "time",
        Order::File => "file",
    }
}

/// Open a perf.data recording.
///
/// Args:
///     source: a path (str or os.PathLike; a ``perf record --threads`` directory works too), the
///         file's bytes (bytes, bytearray, memoryview or any buffer), or a binary file object such as
///         ``sys.stdin.buffer`` carrying pipe-mode data (``perf record -o -``).
///     order: default record order of ``records()``, ``samples()`` and ``to_arrow()``: ``"time"``
///         (perf's order, as ``perf script`` prints) or ``"file"`` (as stored, faster).
///     stream: for a file object: read records from it as they are iterated instead of reading it
///         whole first. Memory stays small, but the records can be read only once and the header
///         and events are those announced before the first record.
///     strict: make damage an error (the CLI's ``--strict``): opening a file whose opening found
///         problems raises ``PerfDataError``, and so does every call that reads records (the
///         iterators at their end) once the file is known to be damaged, after it has run. By
///         default a damaged file is read as far as it can be, and each problem is said once per
///         ``PerfData`` as a ``PerfDataWarning`` after the call that met it (docs/damage.md).
///
/// Returns:
///     PerfData: also a context manager (``with perfdata.open(p) as f: ...``).
///
/// Raises:
///     PerfDataError: the input is not perf.data or its header is damaged; with ``strict``, the
///         opening found damage (the message: the first problem, and how many more).
///     OSError: the file cannot be read.
///
/// Warns:
///     PerfDataWarning: each problem the opening found (without ``strict``).
///
/// Example:
///     >>> f = perfdata.open("perf.data")
///     >>> f.header.hostname, [e.name for e in f.events]
///     ('vm', ['cpu-clock'])
///     >>> with open("perf.data", "rb") as fh:  # the bytes, or a file object with pipe data
///     ...     len(perfdata.open(fh.read()).to_arrow("samples"))
///     441
#[pyfunction]
#[pyo3(signature = (source, *, order = "time", stream = false, strict = false))]
pub fn open(py: Python<'_>, source: &Bound<'_, PyAny>, order: &str, stream: bool, strict: bool) -> PyResult<PerfData> {
    let order = parse_order(order)?;
    let opened = source::open(py, source, stream)?;
    let file = opened.file;
    let header = Py::new(py, Header::new(py, &file, opened.stream)?)?;
    let events = file.events().iter().map(|e| Py::new(py, Event::new(e))).collect::<PyResult<Vec<_>>>()?;
    let shared = Arc::new(Shared::new(events));
    shared.note(file.diagnostics().iter().cloned());
    let damage = Arc::new(Damage::new(file.problems(), opened.path.clone(), strict));
    damage.settle(py)?;
    Ok(PerfData {
        damage,
        file: Mutex::new(Some(Arc::new(file))),
        shared,
        order,
        path: opened.path,
        size: opened.size,
        stream: opened.stream,
        header,
    })
}

/// An opened perf.data recording: its header, events, and records as Python objects (``records()``,
/// ``samples()``) or as Arrow tables (``to_arrow()``, ``to_pandas()``, ``to_polars()``).
///
/// Damaged files are read as far as they are readable: what could not be read is listed in
/// ``diagnostics`` and said once as a ``PerfDataWarning`` after the call that met it (a
/// ``PerfDataError`` with ``open(..., strict=True)``).
#[pyclass(module = "perfdata", name = "PerfData", frozen)]
pub struct PerfData {
    /// The file's problem log (what every reading of it met, whichever call read it), what was
    /// said of it, and whether damage is an error.
    damage: Arc<Damage>,
    file: Mutex<Option<Arc<PerfFile<'static>>>>,
    shared: Arc<Shared>,
    order: Order,
    path: Option<String>,
    size: Option<u64>,
    stream: bool,
    header: Py<Header>,
}

impl PerfData {
    /// The opened file (an error once closed).
    pub fn file_arc(&self) -> PyResult<Arc<PerfFile<'static>>> {
        self.file()
    }

    /// The path the file was opened from.
    pub fn source_path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// Fold the stacks with the options of the keyword arguments (`also`: other keywords allowed;
    /// `call`: the method, as argument errors name it).
    fn fold(
        &self,
        py: Python<'_>,
        call: &str,
        options: Option<&Bound<'_, PyDict>>,
        also: &[&str],
    ) -> PyResult<(perfdata_analysis::folded::FoldedStacks, flame::Fold)> {
        let (progress, fold) = (|| {
            let progress = crate::progress::take(options)?;
            flame::check_keys(options, &[also, &["progress"]].concat())?;
            Ok((progress, flame::fold_options(options)?))
        })()
        .map_err(|e| in_call(py, call, e))?;
        let file = self.file()?;
        let bar = crate::progress::Bar::start(py, &file, progress)?;
        let stacks = flame::fold(py, &file, &fold.options)?;
        if let Some(bar) = bar {
            bar.finish(py)?;
        }
        self.shared.note(stacks.diagnostics.iter().chain(&stacks.unnamed).cloned());
        Ok((stacks, fold))
    }

    /// An analysis's result, its diagnostics noted (those that are damage join the problem log).
    fn noted(&self, r: PyResult<crate::sched::AnalysisResult>) -> PyResult<crate::sched::AnalysisResult> {
        if let Ok(r) = &r {
            self.shared.note(r.diagnostic_list().iter().cloned());
        }
        r
    }

    /// The folding options of `to_arrow(symbolize=True, **options)` (None without symbolize);
    /// errors name `call`.
    fn symbolize_options(
        &self,
        py: Python<'_>,
        call: &str,
        table: &str,
        symbolize: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Option<perfdata_analysis::folded::FoldedOptions>> {
        self.symbolize_options_of(table, symbolize, options).map_err(|e| in_call(py, call, e))
    }

    fn symbolize_options_of(
        &self,
        table: &str,
        symbolize: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Option<perfdata_analysis::folded::FoldedOptions>> {
        if !symbolize {
            if options.is_some_and(|o| !o.is_empty()) {
                return Err(PyTypeError::new_err("folding options need symbolize=True"));
            }
            return Ok(None);
        }
        if table != "samples" {
            return Err(PyValueError::new_err(format!("symbolize=True is for the samples table, not {table:?}")));
        }
        flame::check_keys(options, &["progress"])?;
        Ok(Some(flame::fold_options(options)?.options))
    }

    /// `to_arrow()` and the calls built on it (`call` names the one for argument errors).
    #[allow(clippy::too_many_arguments)]
    fn arrow_table(
        &self,
        py: Python<'_>,
        call: &str,
        table: &str,
        order: Option<&str>,
        stack_data: bool,
        symbolize: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ArrowTable> {
        let progress = crate::progress::take(options)?;
        let fold = self.symbolize_options(py, call, table, symbolize, options)?;
        let built = self.build(py, table, order, stack_data, fold, progress)?;
        Ok(ArrowTable::new(table, built.schema, built.batches))
    }

    fn file(&self) -> PyResult<Arc<PerfFile<'static>>> {
        self.file
            .lock()
            .map_err(|_| PyRuntimeError::new_err("PerfData lock poisoned"))?
            .clone()
            .ok_or_else(source::closed)
    }

    fn order_or_default(&self, order: Option<&str>) -> PyResult<Order> {
        order.map_or(Ok(self.order), parse_order)
    }

    fn iterator(&self, py: Python<'_>, order: Order, what: Yield, strict: bool) -> PyResult<RecordIterator> {
        let file = self.file()?;
        let tp = self.shared.tracepoints(&file);
        let path = file.path().map(std::path::Path::to_path_buf);
        let cell = RecordsCell::start(file, order).map_err(|e| error::to_py(py, e, path.as_deref()))?;
        Ok(RecordIterator::new(cell, self.shared.clone(), what, strict, tp, self.damage.clone()))
    }

    fn build(
        &self,
        py: Python<'_>,
        table: &str,
        order: Option<&str>,
        stack_data: bool,
        symbolize: Option<perfdata_analysis::folded::FoldedOptions>,
        progress: bool,
    ) -> PyResult<tables::Built> {
        let which = Table::parse(table).ok_or_else(|| {
            let names: Vec<&str> = Table::ALL.iter().map(|(n, _)| *n).collect();
            PyValueError::new_err(format!("table must be one of {}, not {table:?}", names.join(", ")))
        })?;
        let opts = tables::Options { order: self.order_or_default(order)?, stack_data, symbolize };
        let file = self.file()?;
        let bar = crate::progress::Bar::start(py, &file, progress)?;
        let built = py.detach(|| tables::build(&file, which, opts)).map_err(|e| match e {
            perfdata_analysis::Error::Read(e) => error::to_py(py, e, file.path()),
            e => PyRuntimeError::new_err(e.to_string()),
        })?;
        if let Some(bar) = bar {
            bar.finish(py)?;
        }
        self.shared.note(built.diagnostics.iter().cloned());
        self.shared.learn_events(py, &built.events)?;
        self.shared.set_sample_count(built.samples, built.per_event.clone());
        Ok(built)
    }
}

#[pymethods]
impl PerfData {
    /// The path the file was opened from (None for bytes or a file object).
    #[getter]
    fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// Size of the input in bytes (None for a stream).
    #[getter]
    fn size(&self) -> Option<u64> {
        self.size
    }

    /// The default record order: 'time' or 'file'.
    #[getter]
    fn order(&self) -> &'static str {
        order_name(self.order)
    }

    /// The recording's metadata (host, kernel, perf version, CPUs, command line, …).
    #[getter]
    fn header(&self, py: Python<'_>) -> Py<Header> {
        self.header.clone_ref(py)
    }

    /// The events of the recording, in attr order.
    #[getter]
    fn events(&self, py: Python<'_>) -> Vec<Py<Event>> {
        self.shared.events(py)
    }

    /// Problems found in the file so far (at open, and during every pass over the records), as
    /// messages with byte offsets. Empty for a healthy file.
    #[getter]
    fn diagnostics(&self) -> Vec<String> {
        // What the calls noted, then what any reading met that they did not (each once).
        let mut all = self.shared.diagnostics();
        let more: Vec<String> = self.damage.problems().list().into_iter().filter(|p| !all.contains(p)).collect();
        all.extend(more);
        all
    }

    /// Number of samples, once a complete pass over the records has counted them (else None).
    #[getter]
    fn sample_count(&self) -> Option<u64> {
        self.shared.sample_count()
    }

    /// True after ``close()``.
    #[getter]
    fn closed(&self) -> bool {
        self.file.lock().map_or(true, |f| f.is_none())
    }

    /// Iterate over every record: ``Sample`` objects for samples, ``Record`` objects for the rest.
    ///
    /// Args:
    ///     order: 'time' or 'file' (default: the order given to ``open``).
    ///     strict: raise ``PerfDataError`` at the first unreadable record instead of skipping it
    ///         (skipped records are listed in ``diagnostics``).
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> [r.type for r in f.records() if r.type in ("COMM", "EXIT")]
    ///     ['COMM', 'COMM', 'COMM', 'EXIT', 'EXIT']
    #[pyo3(signature = (order = None, *, strict = false))]
    fn records(&self, py: Python<'_>, order: Option<&str>, strict: bool) -> PyResult<RecordIterator> {
        let order = self.order_or_default(order)?;
        self.iterator(py, order, Yield::Records, strict)
    }

    /// Iterate over the samples, optionally of one event.
    ///
    /// Args:
    ///     event: an event name (``"cycles"``), an ``Event`` from ``events``, or an event index;
    ///         None for all samples.
    ///     order: 'time' or 'file' (default: the order given to ``open``).
    ///     strict: raise ``PerfDataError`` at the first unreadable record instead of skipping it.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> s = next(iter(f.samples()))
    ///     >>> s.event, s.pid, s.period, len(s.callchain)
    ///     ('cpu-clock', 10335, 200000, 9)
    #[pyo3(signature = (event = None, *, order = None, strict = false))]
    fn samples(
        &self,
        py: Python<'_>,
        event: Option<&Bound<'_, PyAny>>,
        order: Option<&str>,
        strict: bool,
    ) -> PyResult<RecordIterator> {
        let filter = match event {
            None => None,
            Some(e) => Some(if let Ok(ev) = e.cast::<Event>() {
                EventFilter::Index(ev.get().index())
            } else if e.is_instance_of::<PyString>() {
                EventFilter::Name(e.extract()?)
            } else if e.is_instance_of::<PyInt>() {
                EventFilter::Index(e.extract()?)
            } else {
                return Err(PyTypeError::new_err("event must be an event name, a perfdata.Event or an event index"));
            }),
        };
        let order = self.order_or_default(order)?;
        self.iterator(py, order, Yield::Samples(filter), strict)
    }

    /// Count the records of each type in one pass (without the GIL).
    ///
    /// Returns:
    ///     dict: record type name → count, e.g. ``{'SAMPLE': 441, 'MMAP2': 12, ...}``.
    ///
    /// Example:
    ///     >>> perfdata.open("perf.data").record_counts()["SAMPLE"]
    ///     441
    fn record_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let done = (|| -> PyResult<Bound<'py, PyDict>> {
            let built = self.build(py, "records", Some("file"), false, None, false)?;
            let d = PyDict::new(py);
            for batch in &built.batches {
                let names = batch.column(0).as_any().downcast_ref::<arrow_array::StringArray>();
                let counts = batch.column(2).as_any().downcast_ref::<arrow_array::UInt64Array>();
                if let (Some(names), Some(counts)) = (names, counts) {
                    for (n, c) in names.iter().zip(counts.iter()) {
                        if let (Some(n), Some(c)) = (n, c) {
                            d.set_item(n, c)?;
                        }
                    }
                }
            }
            Ok(d)
        })();
        self.damage.after(py, done)
    }

    /// Build an Arrow table from the records (in one pass, without the GIL).
    ///
    /// Args:
    ///     table: ``"samples"`` (one row per sample: time, pid, tid, cpu, ip, period, addr, event,
    ///         callchain, cpumode, then every other sample field the events have), ``"mmaps"``,
    ///         ``"comms"``, ``"tasks"`` (fork/exit), ``"lost"`` or ``"records"`` (count and bytes per
    ///         record type).
    ///     order: 'time' or 'file' (default: the order given to ``open``).
    ///     stack_data: samples table only: add the user stack bytes (PERF_SAMPLE_STACK_USER) as a
    ///         ``stack_user`` column (large: off by default).
    ///     symbolize: samples table only: add ``comm`` (the thread's comm at the sample), ``dso``
    ///         and ``symbol`` (of the sample's ip, as perf names them) and ``frames`` (the stack as
    ///         ``folded()`` writes it, leaf first, without the comm; null where ``folded()`` drops
    ///         the sample), dictionary-encoded.
    ///     **options: ``progress=True``: show the progress of reading the file on stderr (a tqdm
    ///         bar when tqdm is installed); with ``symbolize``, ``folded()``'s frame options
    ///         (``compat``, ``inline``, ``kernel``, ``jit``, ``srcline``, ``plain_unwind``, ``addrs``,
    ///         ``symfs``, ``buildid_dir``, ``kallsyms``…).
    ///
    /// Returns:
    ///     ArrowTable: implements ``__arrow_c_stream__``: pass it to ``pyarrow.table()``,
    ///     ``polars.DataFrame()``, DuckDB, or call its ``to_pandas()``.
    ///
    /// Example:
    ///     >>> t = perfdata.open("perf.data").to_arrow("samples")
    ///     >>> t.num_rows, t.column_names[:4]
    ///     (441, ['time', 'pid', 'tid', 'cpu'])
    ///     >>> t.to_pyarrow().column("period").to_pylist()[0]
    ///     200000
    #[pyo3(signature = (table = "samples", *, order = None, stack_data = false, symbolize = false, **options))]
    fn to_arrow(
        &self,
        py: Python<'_>,
        table: &str,
        order: Option<&str>,
        stack_data: bool,
        symbolize: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ArrowTable> {
        let done = self.arrow_table(py, "PerfData.to_arrow()", table, order, stack_data, symbolize, options);
        self.damage.after(py, done)
    }

    /// ``to_arrow(...)`` as a ``pandas.DataFrame`` (requires pandas and pyarrow). Integer columns use
    /// pandas' nullable integer types, so 64-bit addresses stay exact; list and string columns stay
    /// Arrow-backed (``pd.ArrowDtype``) unless ``dtypes="object"``.
    ///
    /// Args:
    ///     table, order, stack_data, symbolize: as ``to_arrow()``.
    ///     dtypes: ``"arrow"`` (list and string columns as ``pd.ArrowDtype``) or ``"object"``
    ///         (Python objects).
    ///     **options: as ``to_arrow()``: ``progress=True`` (a progress bar on stderr) and, with
    ///         ``symbolize``, ``folded()``'s frame options.
    ///
    /// Example:
    ///     >>> df = perfdata.open("perf.data").to_pandas("samples")
    ///     >>> int(df["period"].sum()), str(df["callchain"].dtype)
    ///     (88200000, 'large_list<item: uint64>[pyarrow]')
    ///     >>> sym = perfdata.open("perf.data").to_pandas(symbolize=True)
    ///     >>> sorted(sym.groupby("comm").size().to_dict().items())
    ///     [('ls', 15), ('sh', 426)]
    #[pyo3(signature = (table = "samples", *, order = None, stack_data = false, dtypes = "arrow", symbolize = false, **options))]
    #[allow(clippy::too_many_arguments)]
    fn to_pandas<'py>(
        &self,
        py: Python<'py>,
        table: &str,
        order: Option<&str>,
        stack_data: bool,
        dtypes: &str,
        symbolize: bool,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let done = (|| -> PyResult<Bound<'py, PyAny>> {
            require(py, &["pandas", "pyarrow"])?;
            let call = "PerfData.to_pandas()";
            let t = Bound::new(py, self.arrow_table(py, call, table, order, stack_data, symbolize, options)?)?;
            let kw = pyo3::types::PyDict::new(py);
            kw.set_item("dtypes", dtypes)?;
            t.call_method("to_pandas", (), Some(&kw))
        })();
        self.damage.after(py, done)
    }

    /// ``to_arrow(...)`` as a ``polars.DataFrame`` (requires polars).
    ///
    /// Args:
    ///     table, order, stack_data, symbolize: as ``to_arrow()``.
    ///     **options: as ``to_arrow()``: ``progress=True`` (a progress bar on stderr) and, with
    ///         ``symbolize``, ``folded()``'s frame options.
    ///
    /// Example:
    ///     >>> df = perfdata.open("perf.data").to_polars("samples")
    ///     >>> df.shape, int(df["period"].sum())
    ///     ((441, 10), 88200000)
    #[pyo3(signature = (table = "samples", *, order = None, stack_data = false, symbolize = false, **options))]
    fn to_polars<'py>(
        &self,
        py: Python<'py>,
        table: &str,
        order: Option<&str>,
        stack_data: bool,
        symbolize: bool,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let done = (|| -> PyResult<Bound<'py, PyAny>> {
            require(py, &["polars"])?;
            let call = "PerfData.to_polars()";
            let t = Bound::new(py, self.arrow_table(py, call, table, order, stack_data, symbolize, options)?)?;
            t.call_method0("to_polars")
        })();
        self.damage.after(py, done)
    }

    /// One row per sample of a tracepoint event, one typed column per field of its format (in one
    /// pass, without the GIL).
    ///
    /// Columns: ``time``, ``cpu``, ``pid``, ``tid`` of the sample, then the event's fields in format
    /// order: integers keep their width and signedness (``pid_t`` → int32), ``char[]`` and
    /// ``__data_loc char[]`` fields are strings, other arrays lists of integers. A field named like
    /// one of the sample columns (``pid``) keeps its name, and the sample column becomes
    /// ``sample_pid``.
    ///
    /// Args:
    ///     event: the tracepoint, ``"sched:sched_switch"`` (or ``"sched_switch"``, or an ``Event``).
    ///     order: 'time' or 'file' (default: the order given to ``open``).
    ///     common: also the ``common_*`` fields (common_type, common_flags, common_preempt_count,
    ///         common_pid).
    ///
    /// Returns:
    ///     ArrowTable: named after the event; ``.to_pandas()``, ``.to_polars()``, ``pyarrow.table()``.
    ///
    /// Raises:
    ///     ValueError: the recording has no such tracepoint event (the message lists those it has).
    ///
    /// Example:
    ///     >>> t = perfdata.open("sched.data").tracepoint_table("sched:sched_switch")
    ///     >>> t.num_rows, t.column_names[4:8]
    ///     (117, ['prev_comm', 'prev_pid', 'prev_prio', 'prev_state'])
    #[pyo3(signature = (event, *, order = None, common = false))]
    fn tracepoint_table(
        &self,
        py: Python<'_>,
        event: &Bound<'_, PyAny>,
        order: Option<&str>,
        common: bool,
    ) -> PyResult<ArrowTable> {
        let done = (|| -> PyResult<ArrowTable> {
            let name: String = match event.cast::<Event>() {
                Ok(ev) => ev.get().name().to_string(),
                Err(_) => event.extract().map_err(|_| PyTypeError::new_err("event must be a name or an Event"))?,
            };
            let order = self.order_or_default(order)?;
            let file = self.file()?;
            let tp = self.shared.tracepoints(&file);
            let built = py.detach(|| tp_table::build(&file, &name, tp, order, common));
            let (built, tp) = built.map_err(|e| match e {
                perfdata_analysis::Error::Read(e) => error::to_py(py, e, file.path()),
                perfdata_analysis::Error::NoSuchTracepoint(names) if names.is_empty() => {
                    PyValueError::new_err(format!("no tracepoint event {name:?}: the recording has no tracepoint formats (no tracing data, or see diagnostics)"))
                }
                perfdata_analysis::Error::NoSuchTracepoint(names) => {
                    PyValueError::new_err(format!("no tracepoint event {name:?}; the recording has {}", names.join(", ")))
                }
                e => PyRuntimeError::new_err(e.to_string()),
            })?;
            if let Some(tp) = &tp {
                self.shared.learn_tracepoints(tp);
            }
            self.shared.note(built.diagnostics.iter().cloned());
            self.shared.learn_events(py, &built.events)?;
            self.shared.set_sample_count(built.samples, built.per_event.clone());
            Ok(ArrowTable::new(&name, built.schema, built.batches))
        })();
        self.damage.after(py, done)
    }

    /// ``perf sched latency``: per task, run time, the number of scheduling delays (wakeup to
    /// switch-in) and their average and largest, in one pass without the GIL.
    ///
    /// Args:
    ///     by: ``"comm"`` (perf's default: one row per final comm, ``tids`` threads merged) or
    ///         ``"tid"`` (one row per thread: ``perf sched latency -p``, whose "pid" is the
    ///         kernel's per-thread id). ``"pid"`` is refused with that explanation: there is no
    ///         per-process grouping.
    ///     sort: keys, descending, first decides: ``"pid"``, ``"avg"``, ``"max"``, ``"switch"``,
    ///         ``"runtime"`` (a list or perf's ``"max,runtime"``; default perf's
    ///         ``avg,max,switch,runtime``).
    ///     compat: the perf version to reproduce (unlike ``folded()``'s compat, an output tool):
    ///         None (correct on current kernels: ``sched_waking`` wakes, preempted tasks are
    ///         runnable) or ``"perf-6.1"`` (perf 6.1's numbers and text byte for byte, quirks
    ///         included).
    ///     cpu: perf's ``-C``: profile-CPU mode (does not restrict the rows).
    ///
    /// Returns:
    ///     AnalysisResult: columns ``task``, ``tid``, ``tids``, ``runtime_ns``, ``switches``,
    ///     ``total_delay_ns``, ``avg_delay_ns``, ``max_delay_ns``, ``max_delay_start_ns``,
    ///     ``max_delay_end_ns``; ``.text()``; ``.info`` (context switch bugs, unordered
    ///     timestamps, lost events).
    ///
    /// Raises:
    ///     ValueError: the recording has no ``sched:sched_switch`` (or no tracing data).
    ///
    /// Example:
    ///     >>> lat = perfdata.open("sched.data").sched_latency(compat="perf-6.1")
    ///     >>> lat.to_arrow().num_rows, lat.info["context_switch_bugs"]
    ///     (11, 0)
    #[pyo3(signature = (*, by = "comm", sort = None, compat = None, cpu = None, **rest))]
    #[pyo3(text_signature = "($self, *, by='comm', sort=None, compat=None, cpu=None)")]
    fn sched_latency(
        &self,
        py: Python<'_>,
        by: &str,
        sort: Option<&Bound<'_, PyAny>>,
        compat: Option<&str>,
        cpu: Option<u32>,
        rest: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::sched::AnalysisResult> {
        let done = (|| -> PyResult<crate::sched::AnalysisResult> {
            crate::sched::reject_keywords("PerfData.sched_latency()", rest, &crate::sched::LATENCY_KEYS)?;
            crate::sched::latency(py, &*self.file()?, by, sort, compat, cpu)
        })();
        self.damage.after(py, self.noted(done))
    }

    /// ``perf sched map``: one row per context switch with the short name of the task each CPU
    /// runs (``A0``, ``B0``…, ``.`` for idle).
    ///
    /// Args:
    ///     compact: columns only for the CPUs that switched so far (``--compact``).
    ///     cpus: only these CPUs (an int, a list, or ``"0-3,7"``).
    ///     compat: accepted for symmetry; both semantics print the same map.
    ///
    /// Returns:
    ///     AnalysisResult: columns ``time_ns``, ``cpu``, ``tid``, ``short_name``, ``new_name_comm``
    ///     (set where perf announces ``A0 => comm:tid``), ``columns`` (the short names of every
    ///     column); ``.text()`` is perf's map.
    ///
    /// Example:
    ///     >>> m = perfdata.open("sched.data").sched_map()
    ///     >>> m.text().splitlines()[0]
    ///     '  *A0        3117.201023 secs A0 => migration/0:18'
    #[pyo3(signature = (*, compact = false, cpus = None, compat = None, **rest))]
    #[pyo3(text_signature = "($self, *, compact=False, cpus=None, compat=None)")]
    fn sched_map(
        &self,
        py: Python<'_>,
        compact: bool,
        cpus: Option<&Bound<'_, PyAny>>,
        compat: Option<&str>,
        rest: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::sched::AnalysisResult> {
        let done = (|| -> PyResult<crate::sched::AnalysisResult> {
            const CALL: &str = "PerfData.sched_map()";
            crate::sched::reject_keywords(CALL, rest, &crate::sched::MAP_KEYS)?;
            crate::sched::compat(CALL, compat)?;
            let cpus = crate::kwargs::int_list(cpus, "cpus").map_err(|e| in_call(py, CALL, e))?;
            crate::sched::map(py, &*self.file()?, compact, cpus)
        })();
        self.damage.after(py, self.noted(done))
    }

    /// ``perf sched timehist``: one row per context switch for the task switched out: its wait
    /// before it ran (sleep, iowait, preempt), its scheduling delay and its run time.
    ///
    /// Args:
    ///     wakeups, migrations, cpu_visual, state, next: perf's ``-w``, ``-M``, ``-V``,
    ///         ``--state``, ``-n`` (they shape ``text()``; ``migrations`` also counts them in the
    ///         summary).
    ///     summary: also the per-task summary (``-S``; ``.summary()`` gives it as a table).
    ///     idle_hist: perf's ``-I``.
    ///     pid, tid, cpu: only these processes, threads, CPUs (int, list, or ``"0-3"``).
    ///     time: perf's ``"START,END"`` in seconds, or a ``(start_ns, end_ns)`` tuple.
    ///     compat: None or ``"perf-6.1"`` (6.1's state letters; a preempted task's wait is sleep).
    ///
    /// Returns:
    ///     AnalysisResult: columns ``time_ns``, ``cpu``, ``tid``, ``pid``, ``comm``, ``wait_ns``,
    ///     ``sleep_ns``, ``iowait_ns``, ``preempt_ns``, ``delay_ns``, ``run_ns``, ``state``,
    ///     ``state_label``, ``next_comm``, ``next_pid``, ``idle``.
    ///
    /// Example:
    ///     >>> th = perfdata.open("sched.data").sched_timehist(summary=True)
    ///     >>> df = th.to_pandas()
    ///     >>> int(df.run_ns.sum()) > 0, th.info["switches"]
    ///     (True, 117)
    #[pyo3(signature = (*, wakeups = false, migrations = false, cpu_visual = false, state = false, next = false,
                        summary = false, idle_hist = false, pid = None, tid = None, cpu = None, time = None, compat = None,
                        **rest))]
    #[pyo3(text_signature = "($self, *, wakeups=False, migrations=False, cpu_visual=False, state=False, next=False, \
                             summary=False, idle_hist=False, pid=None, tid=None, cpu=None, time=None, compat=None)")]
    #[allow(clippy::too_many_arguments)]
    fn sched_timehist(
        &self,
        py: Python<'_>,
        wakeups: bool,
        migrations: bool,
        cpu_visual: bool,
        state: bool,
        next: bool,
        summary: bool,
        idle_hist: bool,
        pid: Option<&Bound<'_, PyAny>>,
        tid: Option<&Bound<'_, PyAny>>,
        cpu: Option<&Bound<'_, PyAny>>,
        time: Option<&Bound<'_, PyAny>>,
        compat: Option<&str>,
        rest: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::sched::AnalysisResult> {
        let done = (|| -> PyResult<crate::sched::AnalysisResult> {
            use perfdata_analysis::sched::timehist::{SummaryMode, TimehistOptions};
            const CALL: &str = "PerfData.sched_timehist()";
            crate::sched::reject_keywords(CALL, rest, &crate::sched::TIMEHIST_KEYS)?;
            let lists = |v, what| crate::kwargs::int_list(v, what).map_err(|e| in_call(py, CALL, e));
            let opts = TimehistOptions {
                compat: crate::sched::compat(CALL, compat)?,
                wakeups,
                migrations,
                cpu_visual,
                state,
                next,
                summary: if summary { SummaryMode::With } else { SummaryMode::None },
                idle_hist,
                pids: lists(pid, "pid")?,
                tids: lists(tid, "tid")?,
                cpus: lists(cpu, "cpu")?,
                time: crate::kwargs::time_value(time).map_err(|e| in_call(py, CALL, e))?,
            };
            crate::sched::timehist(py, &*self.file()?, crate::sched::TimehistArgs { opts })
        })();
        self.damage.after(py, self.noted(done))
    }

    /// The scheduler timeline picture: one lane per CPU coloured by task (idle blank), or one
    /// per task coloured by CPU; run-queue waits (wakeup or preemption to switch-in) in red under
    /// the lane; time relative to the first switch in round steps; tooltips, search (Ctrl-F) and
    /// zoom (wheel, click, drag to pan; the axis follows). It is as wide as the cell. Runs
    /// narrower than a pixel are merged, so the SVG stays small on any recording.
    ///
    /// Args:
    ///     width: pixels of the time axis (the merging's resolution; the picture scales).
    ///     time: perf's ``"START,END"`` in seconds, or a ``(start_ns, end_ns)`` tuple.
    ///     title: the title.
    ///     rows: ``"cpu"`` (a lane per CPU) or ``"task"`` (a lane per task, perf timechart's
    ///         view).
    ///     tasks: with ``rows="task"``, the tasks longest running or waiting, at most this many
    ///         (0: all).
    ///
    /// Returns:
    ///     SchedTimeline: shows inline in Jupyter; ``save(path)``.
    ///
    /// Example:
    ///     >>> tl = perfdata.open("sched.data").sched_timeline(width=800)
    ///     >>> tl.switches, tl.svg.count('class="lane"')
    ///     (117, 2)
    #[pyo3(signature = (*, width = 1600, time = None, title = None, rows = "cpu", tasks = 40))]
    fn sched_timeline(
        &self,
        py: Python<'_>,
        width: u32,
        time: Option<&Bound<'_, PyAny>>,
        title: Option<String>,
        rows: &str,
        tasks: usize,
    ) -> PyResult<crate::sched::SchedTimeline> {
        let done = (|| -> PyResult<crate::sched::SchedTimeline> {
            let title = title.unwrap_or_else(|| {
                format!("Scheduler timeline{}", self.path.as_deref().map(|p| format!(": {p}")).unwrap_or_default())
            });
            let rows = rows.parse().map_err(pyo3::exceptions::PyValueError::new_err)?;
            let time = crate::kwargs::time_value(time)?;
            let opts = TimelineOptions { time, width, title, rows, tasks };
            crate::sched::timeline(py, &*self.file()?, &self.shared, &opts)
        })();
        self.damage.after(py, done)
    }

    /// Block I/O latency: ``block_rq_issue`` (or ``block_rq_insert``, ``start="insert"``) paired with
    /// ``block_rq_complete`` by (dev, sector), fields read by name from the recording's formats.
    ///
    /// Args:
    ///     start: ``"issue"`` (device time, biolatency's default) or ``"insert"`` (queue + device
    ///         time from ``block_rq_insert``, ``biolatency -Q``).
    ///     dev: only this ``(major, minor)``.
    ///     rwbs: only I/Os whose rwbs matches this glob (``"*R*"`` reads, ``"W*"`` writes).
    ///     comm, pid: only I/Os started by this command or process.
    ///     time: only I/Os completed in perf's ``"START,END"`` (seconds) or ``(start_ns, end_ns)``.
    ///     msecs: ``text()``'s histogram in milliseconds.
    ///
    /// Returns:
    ///     AnalysisResult: one row per I/O (``dev_major``, ``dev_minor``, ``sector``, ``nr_sector``,
    ///     ``bytes``, ``rwbs``, ``comm``, ``pid``, ``start_ns``, ``complete_ns``, ``latency_ns``,
    ///     ``queue_ns``…); ``text()`` is bcc biolatency's histogram; ``info`` the pairing counts
    ///     (unmatched completes and starts, overwritten starts) and percentiles (``p50_ns``…);
    ///     ``.hist(unit="us", per="disk")``, ``.heatmap()``, ``.percentiles()``.
    ///
    /// Example:
    ///     >>> io = perfdata.open("block.data").block_latency()
    ///     >>> io.info["paired"] == len(io.to_arrow()), "usecs" in io.text()
    ///     (True, True)
    #[pyo3(signature = (*, start = "issue", dev = None, rwbs = None, comm = None, pid = None, time = None, msecs = false))]
    #[allow(clippy::too_many_arguments)]
    fn block_latency(
        &self,
        py: Python<'_>,
        start: &str,
        dev: Option<(u32, u32)>,
        rwbs: Option<String>,
        comm: Option<String>,
        pid: Option<u32>,
        time: Option<&Bound<'_, PyAny>>,
        msecs: bool,
    ) -> PyResult<crate::sched::AnalysisResult> {
        let done = (|| -> PyResult<crate::sched::AnalysisResult> {
            let time = crate::kwargs::time_value(time)?;
            let filter = perfdata_analysis::latency::block::BlockFilter {
                dev,
                rwbs,
                comm,
                pid,
                from_ns: time.map(|t| t.start),
                to_ns: time.map(|t| t.end),
            };
            crate::sched::block_latency(py, &*self.file()?, start, filter, msecs)
        })();
        self.damage.after(py, self.noted(done))
    }

    /// Run-queue (wakeup) latency from a ``perf sched record`` file: the time from a task
    /// becoming runnable (``sched_waking``/``sched_wakeup_new``, or, with ``preempted``, a
    /// switch-out while runnable, as bcc runqlat) to its next switch-in.
    ///
    /// Args:
    ///     preempted: count preemptions too (bcc runqlat; default). False: wakeups only (perf 6.1
    ///         timehist's ``sch delay``).
    ///     msecs: ``text()``'s histogram in milliseconds.
    ///
    /// Returns:
    ///     AnalysisResult: one row per wait (``tid``, ``comm``, ``cpu``, ``wake_ns``, ``run_ns``,
    ///     ``delay_ns``, ``preempted``); ``text()`` is runqlat's histogram; ``info`` percentiles.
    ///
    /// Example:
    ///     >>> w = perfdata.open("sched.data").wakeup_latency()
    ///     >>> w.info["waits"] == len(w.to_arrow()) > 0
    ///     True
    #[pyo3(signature = (*, preempted = true, msecs = false))]
    fn wakeup_latency(&self, py: Python<'_>, preempted: bool, msecs: bool) -> PyResult<crate::sched::AnalysisResult> {
        let done = (|| -> PyResult<crate::sched::AnalysisResult> {
            crate::sched::wakeup_latency(py, &*self.file()?, preempted, msecs)
        })();
        self.damage.after(py, self.noted(done))
    }

    /// Off-CPU time from a ``perf record -e sched:sched_switch -g`` recording: each task's time
    /// from its switch-out (with that sample's stack) to its next switch-in, folded by stack and
    /// weighted in ns, ready for a flame graph (``off_cpu_flamegraph``).
    /// A ``perf record --off-cpu`` recording works too: its ``offcpu-time`` samples (off-CPU time
    /// per thread and stack, summed by perf's BPF program) weighted by their period in ns; it has
    /// no task states or times, so ``state`` and ``time`` raise ValueError there.
    ///
    /// Args:
    ///     state: only ``"S"`` (sleeping), ``"D"`` (uninterruptible, usually I/O) or ``"other"``
    ///         time (default: all).
    ///     min_us: only intervals at least this long.
    ///     pid, tid, time: only intervals of this process or thread, or starting in this range.
    ///     **options: the frame options of ``folded()`` (``root``, ``kernel``, ``inline``,
    ///         ``addrs``, ``symfs``, ``kallsyms``…).
    ///
    /// Returns:
    ///     dict: ``"comm;root;…;leaf"`` → ns off the CPU.
    ///
    /// Raises:
    ///     ValueError: no ``sched:sched_switch``, or recorded without ``-g``.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> try:
    ///     ...     f.off_cpu()
    ///     ... except ValueError as e:
    ///     ...     print(str(e).split(":")[0])
    ///     no sched
    #[pyo3(signature = (**options))]
    fn off_cpu<'py>(&self, py: Python<'py>, options: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
        let done = (|| -> PyResult<Bound<'py, PyDict>> {
            let stacks = crate::sched::off_cpu(py, "PerfData.off_cpu()", &*self.file()?, options, &[])?;
            self.shared.note(stacks.diagnostics.iter().chain(&stacks.unnamed).cloned());
            flame::stacks_dict(py, &stacks)
        })();
        self.damage.after(py, done)
    }

    /// The off-CPU flame graph (``off_cpu()``'s stacks, widths in ns): the options of
    /// ``off_cpu()`` and the look of ``flamegraph()`` (title, subtitle, colors, inverted, width).
    ///
    /// Returns:
    ///     FlameGraph
    ///
    /// Example:
    ///     >>> "off_cpu_flamegraph" in dir(perfdata.PerfData)
    ///     True
    #[pyo3(signature = (**options))]
    fn off_cpu_flamegraph(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<FlameGraph> {
        let done = (|| -> PyResult<FlameGraph> {
            let call = "PerfData.off_cpu_flamegraph()";
            let stacks = crate::sched::off_cpu(py, call, &*self.file()?, options, &GRAPH_KEYS)?;
            self.shared.note(stacks.diagnostics.iter().chain(&stacks.unnamed).cloned());
            let mut g = flame::graph_options(options, "ns", "Off-CPU Time Flame Graph", self.path.clone())
                .map_err(|e| in_call(py, call, e))?;
            if options.and_then(|o| o.get_item("colors").ok().flatten()).is_none() {
                g.colors = "io".to_string();
            }
            flame::draw(py, &stacks, &g)
        })();
        self.damage.after(py, done)
    }

    /// ``perf report --stdio -g none`` as a pandas DataFrame: the share of the event count per
    /// group of samples (by default per command, shared object and symbol of the samples' ips),
    /// most first, in perf's order (needs pandas and pyarrow).
    ///
    /// Args:
    ///     sort: perf's ``--sort`` keys, a list or a comma-separated string of ``comm``, ``pid``,
    ///         ``dso``, ``sym``, ``cpu``, ``srcline``, ``parent``, ``trace`` (default
    ///         ``["comm", "dso", "sym"]``, or ``["trace"]`` when every event is a tracepoint, as
    ///         in perf).
    ///     parent: the functions the ``parent`` key looks for on the callchains, a regular
    ///         expression (perf's ``-p``; default ``^sys_|^do_page_fault``); giving it adds the
    ///         ``parent`` key, as perf does.
    ///     exclude_other: only the rows with a parent (perf's ``-x``).
    ///     children: also count every function on the samples' callchains with its callees'
    ///         samples (``perf report --children``); rows then go by ``children``.
    ///     call_graph: each row's call graph as perf report's ``-g`` builds it, in a
    ///         ``call_graph`` column: ``"caller"`` or ``"callee"`` (the order of the paths' frames),
    ///         or a ``-g`` string with that order (``"graph,0.5,callee"``; only the order counts
    ///         here: the tree holds every path). ``None``: no column.
    ///     **options: ``progress=True`` (a progress bar on stderr, tqdm when installed) and
    ///         ``folded()``'s symbol options (``symfs``, ``kallsyms``, ``buildid_dir``…).
    ///
    /// Returns:
    ///     pandas.DataFrame: ``overhead`` (% of the event count in the row's own samples; perf's
    ///     ``Self`` with ``children``), with ``children=True`` ``children`` (%) and
    ///     ``children_period``, ``samples``, ``period``, then the columns of the keys: ``comm``,
    ///     ``pid``, ``cpu``, ``dso``, ``kernel`` (bool) and ``symbol`` for ``sym``, ``srcline``,
    ///     ``parent`` (None for perf's ``[other]``), ``trace`` (a tracepoint sample's text, None
    ///     for other events); with
    ///     ``call_graph``, ``call_graph``: the row's paths merged into perf's tree, a list of nodes
    ///     ``{"frames", "period", "total_period", "samples", "total_samples", "children"}``
    ///     (``period``: the samples' count ending in the node, ``total_period``: through it).
    ///
    /// Example:
    ///     >>> r = perfdata.open("perf.data").report()
    ///     >>> round(float(r.overhead.sum()))
    ///     100
    ///     >>> list(perfdata.open("perf.data").report(sort="comm", children=True).columns)
    ///     ['overhead', 'children', 'samples', 'period', 'children_period', 'comm']
    #[pyo3(signature = (*, sort=None, parent=None, exclude_other=false, children=false, call_graph=None, **options))]
    #[allow(clippy::too_many_arguments)]
    fn report<'py>(
        &self,
        py: Python<'py>,
        sort: Option<&Bound<'py, PyAny>>,
        parent: Option<String>,
        exclude_other: bool,
        children: bool,
        call_graph: Option<String>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let done = (|| -> PyResult<Bound<'py, PyAny>> {
            use arrow_array::{
                ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch, StringArray, UInt32Array,
            };
            use perfdata_analysis::report::{CallGraph, ChainOrder, ReportOptions, ReportRow, SortKey};
            use std::sync::Arc;
            require(py, &["pandas", "pyarrow"])?;
            let (progress, keys, fold, order) = (|| {
                let progress = crate::progress::take(options)?;
                flame::check_keys(options, &["sort", "parent", "exclude_other", "children", "call_graph", "progress"])?;
                let mut keys = match sort {
                    // perf's default: the tracepoint text when every event is a tracepoint.
                    None => perfdata_analysis::report::default_sort(&*self.file()?),
                    Some(s) => {
                        let list = match s.extract::<String>() {
                            Ok(one) => one,
                            Err(_) => s.extract::<Vec<String>>()?.join(","),
                        };
                        SortKey::parse_list(&list).map_err(pyo3::exceptions::PyValueError::new_err)?
                    }
                };
                // perf adds the parent key when a pattern is given.
                if parent.is_some() && !keys.contains(&SortKey::Parent) {
                    keys.push(SortKey::Parent);
                }
                let order = match call_graph.as_deref() {
                    None => None,
                    Some(spec) => CallGraph::parse(spec)
                        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("call_graph: {e}")))?
                        .map(|g| g.order.unwrap_or(ChainOrder::Caller)),
                };
                Ok((progress, keys, flame::fold_options(options)?, order))
            })()
            .map_err(|e| in_call(py, "PerfData.report()", e))?;
            let opts = ReportOptions {
                sort: keys.clone(),
                children,
                fold: fold.options,
                event: None,
                call_graph: order,
                parent: parent.unwrap_or_else(|| perfdata_analysis::report::DEFAULT_PARENT.to_string()),
                exclude_other,
                branch: false,
            };
            let file = self.file()?;
            let bar = crate::progress::Bar::start(py, &file, progress)?;
            let done = py
                .detach(|| perfdata_analysis::report::report(&file, &opts))
                .map_err(|e| error::analysis_to_py(py, e, file.path()))?;
            self.shared.note(done.diagnostics.iter().cloned());
            let rows = done.rows;
            if let Some(bar) = bar {
                bar.finish(py)?;
            }
            let f64s =
                |f: fn(&ReportRow) -> f64| -> ArrayRef { Arc::new(Float64Array::from_iter_values(rows.iter().map(f))) };
            let u64s = |f: fn(&ReportRow) -> u64| -> ArrayRef {
                Arc::new(arrow_array::UInt64Array::from_iter_values(rows.iter().map(f)))
            };
            let strs = |f: fn(&ReportRow) -> Option<String>| -> ArrayRef {
                Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
            };
            let mut cols: Vec<(&str, ArrayRef)> = vec![("overhead", f64s(|r| r.overhead))];
            if children {
                cols.push(("children", f64s(|r| r.children.unwrap_or(0.0))));
            }
            cols.push(("samples", u64s(|r| r.samples)));
            cols.push(("period", u64s(|r| r.period)));
            if children {
                cols.push(("children_period", u64s(|r| r.children_period.unwrap_or(0))));
            }
            if keys.contains(&SortKey::Comm) || keys.contains(&SortKey::Pid) {
                cols.push(("comm", strs(|r| r.comm.clone())));
            }
            if keys.contains(&SortKey::Pid) {
                cols.push(("pid", Arc::new(UInt32Array::from(rows.iter().map(|r| r.pid).collect::<Vec<_>>()))));
            }
            if keys.contains(&SortKey::Cpu) {
                cols.push(("cpu", Arc::new(Int32Array::from(rows.iter().map(|r| r.cpu).collect::<Vec<_>>()))));
            }
            if keys.contains(&SortKey::Dso) || keys.contains(&SortKey::Sym) {
                cols.push(("dso", strs(|r| r.dso.clone())));
            }
            if keys.contains(&SortKey::Sym) {
                cols.push(("kernel", Arc::new(BooleanArray::from(rows.iter().map(|r| r.kernel).collect::<Vec<_>>()))));
                cols.push(("symbol", strs(|r| r.symbol.clone())));
            }
            if keys.contains(&SortKey::Srcline) {
                cols.push(("srcline", strs(|r| r.srcline.clone())));
            }
            if keys.contains(&SortKey::Parent) {
                cols.push(("parent", strs(|r| r.parent.clone())));
            }
            if keys.contains(&SortKey::Trace) {
                cols.push(("trace", strs(|r| r.trace.clone())));
            }
            let batch = RecordBatch::try_from_iter(cols)
                .map_err(|e| PyRuntimeError::new_err(format!("building Arrow columns: {e}")))?;
            let t = Bound::new(py, ArrowTable::new("report", batch.schema(), vec![batch]))?;
            let df = t.call_method0("to_pandas")?;
            if order.is_some() {
                let graphs = pyo3::types::PyList::empty(py);
                for r in &rows {
                    graphs.append(call_nodes(py, &r.call_graph)?)?;
                }
                df.set_item("call_graph", graphs)?;
            }
            Ok(df)
        })();
        self.damage.after(py, done)
    }

    /// ``perf annotate --stdio`` as a pandas DataFrame: every instruction of a symbol (of every
    /// symbol with samples when none is named, hottest first) with its share of the samples,
    /// disassembled by objdump run as perf 6.1 runs it (binutils' ``objdump`` on ``PATH``); the
    /// percentages are perf's for each address (needs pandas and pyarrow).
    ///
    /// Args:
    ///     symbol: the function to annotate (perf's ``SYMBOL``); None: every one with samples.
    ///     percent_type: what the percentages are of, perf's ``--percent-type``:
    ///         ``"local-period"`` (default), ``"global-period"``, ``"local-hits"``,
    ///         ``"global-hits"``.
    ///     percent_limit: leave out the symbols whose share of their event's count (in percent)
    ///         is under this, perf's ``--percent-limit`` (0, the default: none left out; not
    ///         negative). With ``symbol`` the share is of that symbol's samples only, as in perf
    ///         6.1, so only a limit over 100 leaves it out (an empty DataFrame, not an error).
    ///     disassembler_style: objdump's disassembler options, perf's ``-M``/
    ///         ``--disassembler-style`` (e.g. ``"intel"``), passed on as ``objdump -M STYLE``;
    ///         None (default): objdump's own (AT&T on x86).
    ///     asm_raw: each instruction's bytes before it in ``instruction``, as perf's
    ///         ``--asm-raw`` prints them (objdump without ``--no-show-raw-insn``); the further
    ///         bytes of a long instruction are a row of their own at their address, as perf
    ///         prints them on a line of their own. Default False.
    ///     print_line: add a ``srcline`` column, perf's ``-l``/``--print-line``: for each
    ///         instruction over 0.5 percent its source line as perf names it (``spin.c:31``,
    ///         the file's last component and the line, from the binary's DWARF; ``spin[1249]``
    ///         without line information), None for the others. perf's text shows it only where
    ///         it changes; ``df.groupby("srcline").percent.sum()`` is perf's sorted summary.
    ///         Default False.
    ///     objdump: the objdump to run, perf's ``--objdump`` (a path; None, the default:
    ///         ``objdump`` on ``PATH``). One that cannot be run is an OSError.
    ///     prefix: prepended to the source files' paths objdump reads source lines from, perf's
    ///         ``--prefix`` (``source_file`` names the file so found). Default None.
    ///     prefix_strip: leading directories taken off those paths before ``prefix``, perf's
    ///         ``--prefix-strip`` (a non-negative int; as in perf, more than 0 needs ``prefix``).
    ///         Default None.
    ///     **options: ``folded()``'s symbol options (``symfs``, ``kallsyms``, ``buildid_dir``,
    ///         ``symbols``…) and ``time``.
    ///
    /// Returns:
    ///     pandas.DataFrame: one row per instruction: ``event``, ``dso``, ``symbol``, ``address``
    ///     (objdump's), ``instruction`` (objdump's text as perf prints it after the address:
    ///     with ``asm_raw`` the bytes first), ``samples``, ``period``, ``percent``,
    ///     ``source_file`` and ``source_line`` (the last source line objdump named before it;
    ///     None without line information), and with ``print_line`` ``srcline``. A symbol that
    ///     cannot be annotated (its binary not found, a kernel symbol) is left out and said in
    ///     ``diagnostics``; a named one is a ValueError.
    ///
    /// Example:
    ///     >>> a = perfdata.open("perf.data").annotate()
    ///     >>> list(a.columns)[:5]
    ///     ['event', 'dso', 'symbol', 'address', 'instruction']
    ///     >>> a = perfdata.open("perf.data").annotate(print_line=True, disassembler_style="intel")
    ///     >>> list(a.columns)[-3:]
    ///     ['source_file', 'source_line', 'srcline']
    #[pyo3(signature = (symbol=None, *, percent_type="local-period", percent_limit=0.0, disassembler_style=None,
                        asm_raw=false, print_line=false, objdump=None, prefix=None, prefix_strip=None, **options))]
    #[allow(clippy::too_many_arguments)]
    fn annotate<'py>(
        &self,
        py: Python<'py>,
        symbol: Option<String>,
        percent_type: &str,
        percent_limit: f64,
        disassembler_style: Option<String>,
        asm_raw: bool,
        print_line: bool,
        objdump: Option<std::path::PathBuf>,
        prefix: Option<std::path::PathBuf>,
        prefix_strip: Option<i64>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let done = (|| -> PyResult<Bound<'py, PyAny>> {
            use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
            use perfdata_analysis::annotate::{annotate, AnnotateOptions, PercentType};
            require(py, &["pandas", "pyarrow"])?;
            let call = "PerfData.annotate()";
            let opts = (|| {
                flame::check_keys(options, &ANNOTATE_KEYS)?;
                let percent_type = PercentType::parse(percent_type).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "percent_type: unknown type {percent_type:?} (local-period, global-period, local-hits, \
                         global-hits)"
                    ))
                })?;
                let fold = flame::fold_options(options)?.options;
                Ok(AnnotateOptions {
                    symbol: symbol.clone(),
                    fold,
                    percent_type,
                    percent_limit: annotate_percent_limit(percent_limit)?,
                    disassembler_style: annotate_text("disassembler_style", disassembler_style)?,
                    asm_raw,
                    print_line,
                    objdump: match objdump {
                        Some(p) => std::path::PathBuf::from(annotate_path("objdump", p)?),
                        None => AnnotateOptions::default().objdump,
                    },
                    prefix_strip: annotate_prefix_strip(prefix_strip, prefix.is_some())?,
                    prefix: prefix.map(|p| annotate_path("prefix", p)).transpose()?,
                })
            })()
            .map_err(|e| in_call(py, call, e))?;
            let file = self.file()?;
            let done = py.detach(|| annotate(&file, &opts)).map_err(|e| error::analysis_to_py(py, e, file.path()))?;
            let mut annotations = Vec::new();
            for a in done {
                match a {
                    Ok(a) => annotations.push(a),
                    // Without objdump nothing can be annotated (as the CLI, not one note per binary).
                    Err(perfdata_analysis::Error::Io { path, source }) => {
                        let m = format!("{call}: cannot run objdump {}: {source}", path.display());
                        return Err(match source.raw_os_error() {
                            Some(errno) => pyo3::exceptions::PyOSError::new_err((errno, m)),
                            None => pyo3::exceptions::PyOSError::new_err(m),
                        });
                    }
                    Err(e) if symbol.is_some() => return Err(in_call(py, call, PyValueError::new_err(e.to_string()))),
                    Err(e) => self.shared.note(std::iter::once(e.to_string())),
                }
            }
            // A symbol left out by percent_limit is not an error: perf prints nothing either.
            if let (Some(name), true, true) = (&symbol, annotations.is_empty(), opts.percent_limit == 0.0) {
                return Err(in_call(py, call, PyValueError::new_err(format!("{name}: no samples of this symbol"))));
            }
            let rows: Vec<(
                &perfdata_analysis::annotate::Annotation,
                &perfdata_analysis::annotate::AnnotatedLine,
                u64,
            )> =
                annotations.iter().flat_map(|a| a.lines.iter().filter_map(move |l| Some((a, l, l.address?)))).collect();
            let strs = |v: Vec<Option<String>>| -> ArrayRef { Arc::new(StringArray::from(v)) };
            let mut cols: Vec<(&str, ArrayRef)> = vec![
                ("event", strs(rows.iter().map(|r| Some(r.0.symbol.event_name.clone())).collect())),
                ("dso", strs(rows.iter().map(|r| Some(r.0.symbol.dso.clone())).collect())),
                ("symbol", strs(rows.iter().map(|r| Some(r.0.symbol.symbol.clone())).collect())),
                ("address", Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.2)))),
                ("instruction", strs(rows.iter().map(|r| Some(r.1.text.trim().to_string())).collect())),
                ("samples", Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.1.samples)))),
                ("period", Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.1.period)))),
                ("percent", Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.1.percent)))),
                ("source_file", strs(rows.iter().map(|r| r.1.source_file.clone()).collect())),
                ("source_line", Arc::new(UInt32Array::from(rows.iter().map(|r| r.1.source_line).collect::<Vec<_>>()))),
            ];
            if print_line {
                cols.push(("srcline", strs(rows.iter().map(|r| r.1.srcline.clone()).collect())));
            }
            let batch = RecordBatch::try_from_iter(cols)
                .map_err(|e| PyRuntimeError::new_err(format!("building Arrow columns: {e}")))?;
            let t = Bound::new(py, ArrowTable::new("annotate", batch.schema(), vec![batch]))?;
            t.call_method0("to_pandas")
        })();
        self.damage.after(py, done)
    }

    /// Write the recording in another tool's format.
    ///
    /// Args:
    ///     path: the file to write (written under a temporary name and renamed at the end, so a
    ///         failure leaves nothing behind).
    ///     format: ``"speedscope"`` (speedscope.app's JSON: an evented profile per thread, and per
    ///         event with several, its samples in time order, each stack weighing what
    ///         ``folded()`` weighs it; with ``aggregate=True`` a sampled profile per comm, or per
    ///         thread with ``root="tid"``, without time order; a recording without stacks is an
    ///         error) or ``"chrome-trace"`` (Chrome Trace Event JSON for Perfetto UI: scheduler
    ///         slices per CPU and thread from ``sched_switch``, samples as instant events with
    ///         their stacks in ``stackFrames``), ``"pprof"`` (pprof's gzipped profile.proto for
    ///         ``go tool pprof``: ``folded()``'s samples with their mappings, addresses and inline
    ///         frames, values sample counts and per event periods (nanoseconds for
    ///         cpu-clock/task-clock, else count), labels comm, pid, tid, cpu and, with several
    ///         events, event; every event unless ``event=`` names one; period type and period
    ///         the first event's (its fixed period, or in frequency mode its mean); mapping 1,
    ///         pprof's ``File:``, the profiled program) or ``"parquet"`` (``path`` is a directory:
    ///         ``to_parquet(path, **options)``). speedscope and Chrome trace are written as the
    ///         recording is read, in memory that does not grow with it.
    ///     **options: ``folded()``'s options (how stacks are folded); ``aggregate`` for
    ///         ``"speedscope"``; for ``"parquet"``, ``to_parquet()``'s.
    ///
    /// Example:
    ///     >>> perfdata.open("perf.data").export("perf.speedscope.json", format="speedscope")
    ///     >>> import json; json.load(open("perf.speedscope.json"))["profiles"][0]["type"]
    ///     'evented'
    ///     >>> perfdata.open("perf.data").export("perf.pb.gz", format="pprof")
    ///     >>> open("perf.pb.gz", "rb").read(2)  # gzip's magic
    ///     b'\x1f\x8b'
    #[pyo3(signature = (path, *, format, **options))]
    fn export(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        path: std::path::PathBuf,
        format: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let done = (|| -> PyResult<()> {
            use perfdata_analysis::export::{chrome, speedscope};
            use std::io::Write;
            if format == "parquet" {
                slf.call_method("to_parquet", (path,), options)?;
                return Ok(());
            }
            let this = slf.borrow();
            let fold = flame::fold_options(options)?;
            let aggregate = match options.map(|o| o.get_item("aggregate")).transpose()?.flatten() {
                Some(v) if format == "speedscope" => v.extract::<bool>()?,
                _ => false,
            };
            flame::check_keys(options, if format == "speedscope" { &["aggregate"] } else { &[] })?;
            let file = this.file()?;
            let name = this.path.clone().unwrap_or_else(|| "perf.data".into());
            let os_err = |e: std::io::Error| {
                pyo3::exceptions::PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string()))
            };
            // Written straight to a temporary file next to `path`, renamed at the end.
            let streamed = |py: Python<'_>,
                            write: &(dyn Fn(&mut dyn Write) -> Result<(), perfdata_analysis::Error> + Sync)|
             -> PyResult<()> {
                let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
                let done = py.detach(|| -> Result<Result<(), perfdata_analysis::Error>, std::io::Error> {
                    let mut out = std::fs::File::create(&tmp)?;
                    if let Err(e) = write(&mut out) {
                        return Ok(Err(e));
                    }
                    out.flush()?;
                    drop(out);
                    std::fs::rename(&tmp, &path)?;
                    Ok(Ok(()))
                });
                if !matches!(done, Ok(Ok(()))) {
                    let _ = std::fs::remove_file(&tmp);
                }
                done.map_err(os_err)?.map_err(|e| error::analysis_to_py(py, e, file.path()))
            };
            let bytes = match format {
                "speedscope" if aggregate => {
                    let stacks = flame::fold(py, &file, &fold.options)?;
                    let clock = file.events().first().is_some_and(|e| {
                        let n = e.display_name();
                        n.starts_with("cpu-clock") || n.starts_with("task-clock")
                    });
                    let unit = if fold.count_name == "period" && clock {
                        speedscope::Unit::Nanoseconds
                    } else {
                        speedscope::Unit::None
                    };
                    let root = fold.options.root != perfdata_analysis::folded::Root::None;
                    speedscope::speedscope(&stacks, &name, unit, root).to_string().into_bytes()
                }
                "speedscope" => {
                    let o = speedscope::SpeedscopeOptions { fold: fold.options, name, memory: 0 };
                    return streamed(py, &|out| speedscope::write_speedscope(&file, &o, out).map(|_| ()));
                }
                "chrome-trace" => {
                    let o = chrome::ChromeOptions { fold: fold.options, no_samples: false };
                    return streamed(py, &|out| chrome::write_chrome_trace(&file, &o, out).map(|_| ()));
                }
                "pprof" => {
                    let p = py.detach(|| perfdata_analysis::export::pprof::pprof(&file, &fold.options));
                    p.map_err(|e| error::analysis_to_py(py, e, file.path()))?.gzipped
                }
                o => {
                    return Err(PyValueError::new_err(format!(
                        "format must be 'speedscope', 'chrome-trace', 'pprof' or 'parquet', not {o:?}"
                    )))
                }
            };
            write_whole(py, &path, &bytes)
        })();
        slf.get().damage.after(py, done)
    }

    /// Write the recording as a perf.data file again (perfdata's writer: every record, decompressed,
    /// and every feature section, in little-endian file format; pipe data stays a pipe stream), with
    /// the HOSTNAME and CMDLINE header features replaced when given: a copy to share without the
    /// machine's name, or recordings made for a test (``examples/fleet.ipynb`` makes a fleet of
    /// hosts so). The file is written under a temporary name and renamed at the end.
    ///
    /// Args:
    ///     path: the file to write.
    ///     hostname: the new HOSTNAME (perf's ``hostname :`` line, the dataset's ``host=``).
    ///     cmdline: the new CMDLINE, a list of arguments (perf's ``cmdline :`` line).
    ///
    /// Raises:
    ///     ValueError: ``hostname`` or ``cmdline`` given for a recording without that feature
    ///         section (pipe data carries its features as records, which are copied unchanged).
    ///     PerfDataError: a record or section the writer cannot re-encode.
    ///
    /// Example:
    ///     >>> perfdata.open("perf.data").write("copy.data", hostname="web1", cmdline=["perf", "record"])
    ///     >>> g = perfdata.open("copy.data")
    ///     >>> g.header.hostname, g.header.cmdline, len(g.to_arrow())
    ///     ('web1', ['perf', 'record'], 441)
    #[pyo3(signature = (path, *, hostname = None, cmdline = None))]
    fn write(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        hostname: Option<String>,
        cmdline: Option<Vec<String>>,
    ) -> PyResult<()> {
        let done = (|| -> PyResult<()> {
            let file = self.file()?;
            let mut edit = HeaderEdit { hostname, cmdline, seen: Vec::new() };
            let written =
                py.detach(|| perfdata_core::write::write_file_edited(&file, perfdata_core::Endian::Little, &mut edit));
            let bytes = written.map_err(|e| error::to_py(py, e, file.path()))?;
            for (name, bit, given) in [
                ("hostname", perfdata_core::header::feature::HOSTNAME, edit.hostname.is_some()),
                ("cmdline", perfdata_core::header::feature::CMDLINE, edit.cmdline.is_some()),
            ] {
                if given && !edit.seen.contains(&bit) {
                    return Err(PyValueError::new_err(format!(
                        "{name}: the recording has no {} feature section to replace",
                        name.to_uppercase()
                    )));
                }
            }
            write_whole(py, &path, &bytes)
        })();
        self.damage.after(py, done)
    }

    /// Write every table as a Parquet file (zstd) into the directory ``dir`` (created if
    /// missing), in one pass without the GIL: ``samples.parquet``, ``mmaps.parquet``,
    /// ``comms.parquet``, ``tasks.parquet``, ``lost.parquet``, ``records.parquet`` (the columns
    /// of ``to_arrow()``'s tables, the same names and types) and ``tp.SYSTEM.NAME.parquet`` per
    /// tracepoint event (``tracepoint_table()``'s columns). Each file is written under a
    /// temporary name and renamed once every table is complete: on an error none is left.
    ///
    /// Args:
    ///     dir: the directory.
    ///     symbolize: add ``comm``, ``dso``, ``symbol`` and ``frames`` to the samples table, as
    ///         ``to_arrow(symbolize=True)``.
    ///     order: 'time' or 'file' (default: the order given to ``open``).
    ///     stack_data: add the user stack bytes as a ``stack_user`` column.
    ///     common: tracepoint tables: also the ``common_*`` fields.
    ///     **options: ``progress=True`` (a progress bar on stderr); with ``symbolize``,
    ///         ``folded()``'s frame options.
    ///
    /// Returns:
    ///     dict: table name → path of its file.
    ///
    /// Example:
    ///     >>> paths = perfdata.open("sched.data").to_parquet("sched-tables")
    ///     >>> import pyarrow.parquet as pq
    ///     >>> pq.read_table(paths["tp.sched.sched_switch"]).num_rows
    ///     117
    #[pyo3(signature = (dir, *, symbolize = false, order = None, stack_data = false, common = false, **options))]
    #[allow(clippy::too_many_arguments)]
    fn to_parquet<'py>(
        &self,
        py: Python<'py>,
        dir: std::path::PathBuf,
        symbolize: bool,
        order: Option<&str>,
        stack_data: bool,
        common: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let done = (|| -> PyResult<Bound<'py, PyDict>> {
            use perfdata_analysis::export::parquet::{write_parquet, Error, ParquetOptions};
            let progress = crate::progress::take(options)?;
            let symbolize = self.symbolize_options(py, "PerfData.to_parquet()", "samples", symbolize, options)?;
            let o = ParquetOptions {
                order: self.order_or_default(order)?,
                symbolize,
                stack_data,
                common,
                ..Default::default()
            };
            let file = self.file()?;
            let bar = crate::progress::Bar::start(py, &file, progress)?;
            let written = py.detach(|| write_parquet(&file, &dir, &o));
            if let Some(bar) = bar {
                bar.finish(py)?;
            }
            let written = written.map_err(|e| match e {
                Error::Read(e) => error::to_py(py, e, file.path()),
                Error::Io { source, path } => pyo3::exceptions::PyOSError::new_err((
                    source.raw_os_error().unwrap_or(0),
                    format!("{}: {source}", path.display()),
                )),
                e => PyRuntimeError::new_err(e.to_string()),
            })?;
            self.shared.note(written.diagnostics.iter().cloned());
            let d = PyDict::new(py);
            for t in &written.tables {
                d.set_item(&t.name, t.path.to_string_lossy())?;
            }
            Ok(d)
        })();
        self.damage.after(py, done)
    }

    /// Folded stacks, as ``perf script | stackcollapse-perf.pl`` (or ``inferno-collapse-perf``) or
    /// ``perf script report stackcollapse`` print them: stack → weight, computed in one pass
    /// (without the GIL) with symbols resolved like perf.
    ///
    /// Args:
    ///     compat: the output tool to reproduce (not a perf version, unlike the ``sched_*`` calls'
    ///         compat), whose defaults the other options follow:
    ///         ``"stackcollapse-pl"`` (period weights, ``[module]`` for unresolved frames, tidied
    ///         names, the first event only) or ``"perf-script-py"`` (sample counts, ``[unknown]``,
    ///         every event, names as perf prints them).
    ///     weight: ``"samples"`` or ``"period"`` (default: the tool's).
    ///     root: the first frame: ``"comm"``, ``"pid"`` (``comm-PID``), ``"tid"``
    ///         (``comm-PID/TID``) or None (no process frame).
    ///     kernel: append ``_[k]`` to kernel frames.
    ///     jit: append ``_[j]`` to JIT frames (``/tmp/perf-PID.map``, ``jitted-*.so``).
    ///     inline: add inline frames from the binaries' DWARF debug info to the stacks perf unwinds
    ///         (``--call-graph dwarf``), as ``perf script`` does by default (default True, in both
    ///         presets); False: its ``--no-inline`` output.
    ///     annotate_inline: append ``_[i]`` to inline frames (implies ``inline``).
    ///     srcline: append the source line perf prints under each frame (from the binaries' DWARF
    ///         debug info) as ``func:file:line``, as ``perf script -F +srcline |
    ///         stackcollapse-perf.pl --srcline`` does (``[module]:module`` where perf knows no line,
    ///         nothing for kernel frames).
    ///     plain_unwind: unwind ``--call-graph dwarf`` stacks with each binary's own CFI
    ///         (``.eh_frame`` without ``.eh_frame_hdr``, ``.debug_frame``) as perfparser does, not
    ///         with perf 6.1's lookup rules: static binaries without ``.eh_frame_hdr`` unwind past
    ///         the leaf frame, where perf stops.
    ///     addrs: unresolved frames as ``[module <ADDR>]``.
    ///     event: only this event's samples (a name such as ``"cycles:u"``, or an ``Event``).
    ///     all_events: every event's samples (the default of perf-script-py).
    ///     tidy: cut argument lists and turn ``;`` into ``:`` in names (default: the tool's).
    ///     tidy_java: tidy Java names (default: the tool's).
    ///     pid, tid, comm: only samples of this process, thread or command.
    ///     time: only samples in these ranges, perf script's ``--time``: ``"START,END"`` in seconds
    ///         (either end may be empty), several separated by spaces, or slices of the recording
    ///         (``"10%/2"``, ``"0%-10%,30%-40%"``, ``"25%"``); or a ``(start_ns, end_ns)`` tuple
    ///         (None for an open end).
    ///     symfs: look for every binary under this root (perf's ``--symfs``).
    ///     buildid_dir: perf's build-id cache (default ``$PERF_BUILDID_DIR``, else ``~/.debug``).
    ///     kallsyms: kernel symbols from this file (default: ``/proc/kallsyms`` when the recording's
    ///         kernel is the running one).
    ///     symbols: a symbol archive made by ``perfdata archive`` on the recording machine: for a
    ///         build id it holds, its files come first (the CLI's ``--symbols``).
    ///     jitdump: name JIT code from the ``jit-PID.dump`` file a JIT agent wrote (V8's
    ///         ``--perf-prof``, perf's JVMTI agent; recorded with ``-k mono``), read at the path of
    ///         its MMAP record (under ``symfs``), as after ``perf inject --jit`` (default True);
    ///         False: as ``perf script`` names it without that step.
    ///     progress: show the progress of reading the file on stderr (a tqdm bar when tqdm is
    ///         installed).
    ///
    /// Returns:
    ///     dict: ``"comm;root;…;leaf"`` → weight, in the tools' (byte) order.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> stacks = f.folded()  # stackcollapse-perf.pl: weights are periods (ns for cpu-clock)
    ///     >>> sum(stacks.values())
    ///     88200000
    ///     >>> sum(f.folded(compat="perf-script-py").values())  # sample counts
    ///     441
    ///     >>> all(s.startswith(("ls;", "sh;")) for s in f.folded(pid=10335))
    ///     True
    #[pyo3(signature = (**options))]
    #[pyo3(
        text_signature = "($self, *, compat='stackcollapse-pl', weight=None, root='comm', kernel=False, jit=False, \
                          inline=True, annotate_inline=False, srcline=False, plain_unwind=False, max_stack=None, \
                          addrs=False, event=None, all_events=False, tidy=None, tidy_java=None, pid=None, tid=None, \
                          comm=None, time=None, symfs=None, buildid_dir=None, kallsyms=None, symbols=None, \
                          jitdump=True, progress=False)"
    )]
    fn folded<'py>(&self, py: Python<'py>, options: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
        let done = (|| -> PyResult<Bound<'py, PyDict>> {
            let (stacks, _) = self.fold(py, "PerfData.folded()", options, &[])?;
            flame::stacks_dict(py, &stacks)
        })();
        self.damage.after(py, done)
    }

    /// ``folded(...)`` as the tools' text: one ``stack weight`` line per stack. Takes the options of
    /// ``folded``.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> text = f.folded_text()
    ///     >>> text.count("\n") == len(f.folded())
    ///     True
    #[pyo3(signature = (**options))]
    #[pyo3(text_signature = "($self, **options)")]
    fn folded_text(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
        let done = (|| -> PyResult<String> {
            let (stacks, _) = self.fold(py, "PerfData.folded_text()", options, &[])?;
            Ok(stacks.to_folded_string())
        })();
        self.damage.after(py, done)
    }

    /// Write ``folded_text(...)`` to ``path`` (the input of flamegraph.pl, speedscope, …). Takes the
    /// options of ``folded``.
    ///
    /// Example:
    ///     >>> perfdata.open("perf.data").write_folded("perf.folded")
    ///     >>> open("perf.folded").read() == perfdata.open("perf.data").folded_text()
    ///     True
    #[pyo3(signature = (path, **options))]
    #[pyo3(text_signature = "($self, path, **options)")]
    fn write_folded(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let done = (|| -> PyResult<()> {
            let (stacks, _) = self.fold(py, "PerfData.write_folded()", options, &[])?;
            let text = stacks.to_folded_string();
            py.detach(|| std::fs::write(&path, text))
                .map_err(|e| pyo3::exceptions::PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string())))
        })();
        self.damage.after(py, done)
    }

    /// The lines ``perf script`` prints (perf 6.1's fields, widths and symbol names), produced as
    /// they are iterated: a writer thread runs at most a few 64 KiB blocks ahead, so memory does
    /// not grow with the recording. Tracepoint samples print their ``print fmt`` text, ``perf stat
    /// record`` files perf's counter table.
    ///
    /// Each line comes without its newline: ``"".join(line + "\n" for line in f.script())`` is
    /// perf's text (``write_script`` writes it to a file). Bytes that are not UTF-8 (perf copies
    /// tracepoint strings as recorded) are decoded with ``errors="surrogateescape"``, so
    /// ``line.encode("utf-8", "surrogateescape")`` gives perf's bytes back. Records that cannot be
    /// read are skipped, and they and the other problems perf warns about on stderr (symbol files
    /// that cannot be read, a field not valid for some event type) are added to ``diagnostics``
    /// as the iteration meets them. Breaking out of the loop (or ``close()``) stops the writer.
    ///
    /// Args:
    ///     fields: perf's ``-F``: ``"comm,tid,ip,sym"`` (these fields), ``"+addr,-period"``
    ///         (changes to perf's defaults), ``"trace:comm,event,trace"`` (one event type: hw,
    ///         sw, trace, raw, break, synth); or a list of names, joined with ``,`` (an item
    ///         with a type, ``"sw:comm,tid"``, starts another ``-F``).
    ///     ns: times with nanoseconds (``--ns``).
    ///     hide_call_graph: no callchains, each sample's ip on its line (``-G``).
    ///     max_stack: callchain entries printed per sample (default 127, as perf).
    ///     inline: functions inlined at frames unwound from ``--call-graph dwarf`` stacks, from
    ///         DWARF (default True, as perf; False: ``--no-inline``).
    ///     show_task_events, show_mmap_events, show_switch_events: also print COMM/FORK/EXIT,
    ///         MMAP/MMAP2, context-switch records (perf's ``--show-*-events``).
    ///     time: only samples in these ranges, perf's ``--time``: ``"START,END"`` in seconds
    ///         (either end may be empty), several separated by spaces, or slices of the recording
    ///         (``"10%/2"``, ``"0%-10%,30%-40%"``); or a ``(start_ns, end_ns)`` tuple (None for an
    ///         open end).
    ///     cpu: only samples of these CPUs: an int, a list of ints or perf's ``"0-2,5"``.
    ///     pid, tid: only samples of these processes, threads (an int or a list of ints).
    ///     comms: only samples of threads with these comms (a list, or perf's ``"sh,ls"``).
    ///     symfs: look for every binary under this root (perf's ``--symfs``).
    ///     kallsyms: kernel symbols from this file (default: the build-id cache, else
    ///         ``/proc/kallsyms`` when the recording's kernel is the running one).
    ///     symbols: a symbol archive made by ``perfdata archive`` (the CLI's ``--symbols``).
    ///     buildid_dir: perf's build-id cache (default ``$PERF_BUILDID_DIR``, else ``~/.debug``).
    ///     jitdump: name JIT code from the ``jit-PID.dump`` files the recording mmapped, as after
    ///         ``perf inject --jit`` (default False: as ``perf script`` names it, from
    ///         ``/tmp/perf-PID.map``).
    ///
    /// Returns:
    ///     ScriptIterator: of ``str``; its ``summary`` (samples printed, records skipped) once
    ///     read to the end.
    ///
    /// Raises:
    ///     ValueError: an option perf refuses (``"Invalid field requested: 'x'"``, a field the
    ///         events do not record), raised by this call.
    ///     TypeError: an unknown keyword argument.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> next(f.script(hide_call_graph=True, fields="comm,tid,time,event"))
    ///     '              sh 10335  1872.563561: cpu-clock: '
    ///     >>> lines = list(f.script(max_stack=3))  # per sample: its line, 3 frames, a blank line
    ///     >>> lines[0], len(lines)
    ///     ('sh 10335  1872.563561:     200000 cpu-clock: ', 1782)
    #[pyo3(signature = (**options))]
    #[pyo3(text_signature = "($self, *, fields=None, ns=False, hide_call_graph=False, max_stack=127, inline=True, \
                          show_task_events=False, show_mmap_events=False, show_switch_events=False, time=None, \
                          cpu=None, pid=None, tid=None, comms=None, symfs=None, kallsyms=None, buildid_dir=None, \
                          symbols=None, jitdump=False)")]
    fn script(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<crate::script::ScriptIterator> {
        let opts = crate::script::options(options).map_err(|e| in_call(py, "PerfData.script()", e))?;
        crate::script::lines(py, self.file()?, self.shared.clone(), self.damage.clone(), opts)
    }

    /// Write ``perf script``'s text to ``path`` (what ``script()`` yields, each line with its
    /// newline; the bytes as perf writes them), in one pass without the GIL. The file is written
    /// under a temporary name and renamed at the end. Takes the options of ``script``.
    ///
    /// Returns:
    ///     dict: ``{"samples": printed, "damaged": records that could not be read (skipped, and
    ///     listed in diagnostics)}``.
    ///
    /// Raises:
    ///     ValueError: an option perf refuses.
    ///     OSError: the file cannot be written.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> f.write_script("perf.script", max_stack=3)
    ///     {'samples': 441, 'damaged': 0}
    ///     >>> open("perf.script").read().splitlines() == list(f.script(max_stack=3))
    ///     True
    #[pyo3(signature = (path, **options))]
    #[pyo3(text_signature = "($self, path, *, fields=None, ns=False, hide_call_graph=False, max_stack=127, \
                          inline=True, show_task_events=False, show_mmap_events=False, show_switch_events=False, \
                          time=None, cpu=None, pid=None, tid=None, comms=None, symfs=None, kallsyms=None, \
                          buildid_dir=None, symbols=None, jitdump=False)")]
    fn write_script<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let done = (|| -> PyResult<Bound<'py, PyDict>> {
            let opts = crate::script::options(options).map_err(|e| in_call(py, "PerfData.write_script()", e))?;
            crate::script::write_file(py, &*self.file()?, &self.shared, &path, &opts)
        })();
        self.damage.after(py, done)
    }

    /// A flame graph of the folded stacks (drawn by inferno, the Rust flamegraph.pl): shows inline in
    /// Jupyter, ``.svg`` is the document, ``.save(path)`` writes it.
    ///
    /// Args:
    ///     title: the title (default "Flame Graph", "Icicle Graph" when inverted).
    ///     subtitle: the line under it (default: the file's path).
    ///     colors: flamegraph.pl's palette: hot, mem, io, java, js, perl, python, rust, wakeup, aqua,
    ///         blue, green, orange, purple, red, yellow.
    ///     inverted: an icicle graph (roots at the top).
    ///     width: image width in pixels (default 1200).
    ///     **options: how stacks are folded: the options of ``folded`` (``compat``, ``weight``,
    ///         ``root``, ``kernel``, ``jit``, ``addrs``, ``inline``, ``plain_unwind``, ``event``,
    ///         ``pid``, ``time``, ``symfs``…), and ``progress=True`` (a progress bar on stderr,
    ///         tqdm when installed).
    ///
    /// Returns:
    ///     FlameGraph
    ///
    /// Example:
    ///     >>> g = perfdata.open("perf.data").flamegraph(title="sh -c loop; ls")
    ///     >>> g.total
    ///     88200000
    ///     >>> g.save("perf.svg")
    ///     >>> g.svg.startswith("<?xml")
    ///     True
    #[pyo3(signature = (**options))]
    #[pyo3(
        text_signature = "($self, *, title=None, subtitle=None, colors='hot', inverted=False, width=None, **options)"
    )]
    fn flamegraph(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<FlameGraph> {
        let done = (|| -> PyResult<FlameGraph> {
            let call = "PerfData.flamegraph()";
            let (stacks, fold) = self.fold(py, call, options, &GRAPH_KEYS)?;
            let g = flame::graph_options(options, fold.count_name, "Flame Graph", self.path.clone())
                .map_err(|e| in_call(py, call, e))?;
            flame::draw(py, &stacks, &g)
        })();
        self.damage.after(py, done)
    }

    /// Release the file (unmap it). Iterators already started keep it alive until they finish.
    ///
    /// Example:
    ///     >>> f = perfdata.open("perf.data")
    ///     >>> f.close()
    ///     >>> f.closed
    ///     True
    fn close(&self) {
        if let Ok(mut f) = self.file.lock() {
            *f = None;
        }
    }

    /// ``with perfdata.open(...) as f:`` gives the PerfData itself.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Leaving the ``with`` block closes the file; exceptions propagate.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    /// In Jupyter: what the file is (path, size, format), the header's key facts, the events (with
    /// their sample counts once a pass has counted them), and the diagnostics.
    fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
        let title = match (&self.path, self.stream) {
            (Some(p), _) => p.clone(),
            (None, true) => "<stream>".to_string(),
            (None, false) => "<bytes>".to_string(),
        };
        let size = self.size.map(|n| format!(", {}", human_size(n))).unwrap_or_default();
        let mut out = format!(
            "<div><b>perfdata.PerfData</b> {}{}, {} format{}",
            crate::html::escape(&title),
            size,
            self.header.get().format_name(),
            if self.closed() { ", closed" } else { "" }
        );
        out.push_str(&self.header.get().html());
        let events = self.shared.events(py);
        let counts = self.shared.sample_counts_by_event();
        let rows: Vec<Vec<String>> = events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                // Counted by event index; an event no sample named has 0.
                let n = counts.as_ref().map(|c| c.get(i).copied().unwrap_or(0));
                vec![e.get().name().to_string(), n.map_or_else(|| "(not counted yet)".to_string(), |n| n.to_string())]
            })
            .collect();
        out.push_str(&crate::html::table(&["event", "samples"], &rows));
        if let Some(n) = self.shared.sample_count() {
            out.push_str(&format!("<p>{n} samples</p>"));
        }
        out.push_str(&crate::html::diagnostics(&self.shared.diagnostics(), 20));
        out.push_str("</div>");
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut s = String::from("<perfdata.PerfData");
        match &self.path {
            Some(p) => s.push_str(&format!(" {p:?}")),
            None if self.stream => s.push_str(" <stream>"),
            None => s.push_str(" <bytes>"),
        }
        if let Some(n) = self.size {
            s.push_str(&format!(" {}", human_size(n)));
        }
        s.push_str(&format!(" {}", self.header.get().format_name()));
        let events = self.shared.events(py);
        let names: Vec<String> = events.iter().map(|e| e.get().name().to_string()).collect();
        s.push_str(&format!(", {} event{}", names.len(), if names.len() == 1 { "" } else { "s" }));
        if !names.is_empty() {
            let shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
            s.push_str(&format!(" ({}{})", shown.join(", "), if names.len() > 4 { ", …" } else { "" }));
        }
        if let Some(n) = self.shared.sample_count() {
            s.push_str(&format!(", {n} samples"));
        }
        let diagnostics = self.shared.diagnostics();
        if self.closed() {
            s.push_str(", closed");
        }
        // What was salvaged, in one line: the first diagnostic (up to its first colon), the count.
        if let Some(first) = diagnostics.first() {
            let summary = first.split(':').next().unwrap_or(first);
            let n = diagnostics.len();
            let more = if n > 1 { format!(" (+{} more)", n - 1) } else { String::new() };
            s.push_str(&format!("; {n} diagnostic{}: {summary}{more}", if n == 1 { "" } else { "s" }));
        }
        s.push('>');
        Ok(s)
    }
}

/// `annotate()`'s keywords besides `folded()`'s (named in the error of one it does not take).
const ANNOTATE_KEYS: [&str; 9] = [
    "symbol",
    "percent_type",
    "percent_limit",
    "disassembler_style",
    "asm_raw",
    "print_line",
    "objdump",
    "prefix",
    "prefix_strip",
];

/// `annotate(percent_limit=)`: a percentage, not negative nor NaN; perf compares it in single
/// precision.
fn annotate_percent_limit(limit: f64) -> PyResult<f32> {
    if limit.is_nan() || limit < 0.0 {
        return Err(PyValueError::new_err(format!(
            "percent_limit must be a percentage of 0 or more (0: no limit), not {limit}"
        )));
    }
    Ok(limit as f32)
}

/// A text argument of `annotate()` passed on to objdump: not empty, no NUL byte.
fn annotate_text(what: &str, v: Option<String>) -> PyResult<Option<String>> {
    match v {
        Some(s) if s.is_empty() => Err(PyValueError::new_err(format!("{what} must not be empty"))),
        Some(s) if s.contains('\0') => Err(PyValueError::new_err(format!("{what} must not contain a NUL character"))),
        v => Ok(v),
    }
}

/// A path argument of `annotate()` passed on to objdump: UTF-8 (perf's are C strings, and the
/// analysis takes text), not empty, no NUL byte.
fn annotate_path(what: &str, p: std::path::PathBuf) -> PyResult<String> {
    let s = p.into_os_string().into_string().map_err(|p| {
        PyValueError::new_err(format!("{what} must be a UTF-8 path, not {}", std::path::Path::new(&p).display()))
    })?;
    annotate_text(what, Some(s)).map(Option::unwrap_or_default)
}

/// `annotate(prefix_strip=)`: not negative, at most `u32::MAX`, and (as perf's `--prefix-strip
/// requires --prefix`) more than 0 only with `prefix`.
fn annotate_prefix_strip(n: Option<i64>, prefix: bool) -> PyResult<Option<u32>> {
    let Some(n) = n else { return Ok(None) };
    let n = u32::try_from(n).map_err(|_| {
        PyValueError::new_err(format!("prefix_strip must be a number of directories (0 or more), not {n}"))
    })?;
    if n > 0 && !prefix {
        return Err(PyValueError::new_err("prefix_strip needs prefix (perf's --prefix-strip requires --prefix)"));
    }
    Ok(Some(n))
}

fn require(py: Python<'_>, modules: &[&str]) -> PyResult<()> {
    for m in modules {
        if let Err(e) = py.import(*m) {
            return Err(PyImportError::new_err(format!(
                "this needs {}: pip install {} ({e})",
                modules.join(" and "),
                modules.join(" ")
            )));
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` under a temporary name, renamed at the end, so that a failure leaves
/// no partial file (the exports and `PerfData.write`); without the GIL.
fn write_whole(py: Python<'_>, path: &std::path::Path, bytes: &[u8]) -> PyResult<()> {
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    py.detach(|| {
        std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    })
    .map_err(|e| pyo3::exceptions::PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string())))
}

fn human_size(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    match (u, UNITS.get(u)) {
        (0, _) => format!("{n} B"),
        (_, Some(unit)) => format!("{v:.1} {unit}"),
        _ => format!("{n} B"),
    }
}

/// The changes of `PerfData.write`: HOSTNAME and CMDLINE replaced (sections re-encoded by the
/// core's writer, in the output's byte order: little-endian), and the feature bits met on the way.
struct HeaderEdit {
    hostname: Option<String>,
    cmdline: Option<Vec<String>>,
    seen: Vec<u32>,
}

impl perfdata_core::write::Edit for HeaderEdit {
    fn feature(&mut self, bit: u32, payload: &mut Vec<u8>) {
        use perfdata_core::header::feature;
        use perfdata_core::write::header_string;
        use perfdata_core::Endian;
        self.seen.push(bit);
        if bit == feature::HOSTNAME {
            if let Some(h) = &self.hostname {
                payload.clear();
                header_string(h, Endian::Little, payload);
            }
        } else if bit == feature::CMDLINE {
            if let Some(args) = &self.cmdline {
                // u32 nr, then nr strings.
                payload.clear();
                payload.extend_from_slice(&u32::try_from(args.len()).unwrap_or(u32::MAX).to_le_bytes());
                for a in args {
                    header_string(a, Endian::Little, payload);
                }
            }
        }
    }
}

/// A differential flame graph of two recordings: frames sized by ``after`` (by ``before`` with
/// ``negate=True``, so that what vanished still shows), red where ``after`` grew, blue where it
/// shrank (difffolded.pl + flamegraph.pl).
///
/// Args:
///     before, after: ``PerfData`` objects (each says its problems, or raises with ``strict``, as
///         its own calls do), or anything ``perfdata.open`` takes.
///     normalize: scale ``before``'s weights to ``after``'s total first.
///     negate: size frames by ``before`` (flamegraph.pl ``--negate``).
///     **options: the folding options of ``PerfData.folded`` and the look of
///         ``PerfData.flamegraph`` (title, subtitle, colors, inverted, width).
///
/// Returns:
///     FlameGraph
///
/// Example:
///     >>> g = perfdata.flamegraph_diff("perf.data", "perf.data", title="no change")
///     >>> g.total
///     88200000
///     >>> g.save("diff.svg")
#[pyfunction]
#[pyo3(signature = (before, after, *, normalize = false, negate = false, **options))]
pub fn flamegraph_diff(
    py: Python<'_>,
    before: &Bound<'_, PyAny>,
    after: &Bound<'_, PyAny>,
    normalize: bool,
    negate: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<FlameGraph> {
    let call = "perfdata.flamegraph_diff()";
    flame::check_keys(options, &GRAPH_KEYS).map_err(|e| in_call(py, call, e))?;
    let fold_opts = flame::fold_options(options).map_err(|e| in_call(py, call, e))?;
    let mut datas = Vec::new();
    for src in [before, after] {
        datas.push(match src.cast::<PerfData>() {
            Ok(d) => d.clone(),
            Err(_) => Bound::new(py, open(py, src, "time", false, false)?)?,
        });
    }
    let mut done = (|| -> PyResult<FlameGraph> {
        let mut stacks = Vec::new();
        let mut names = Vec::new();
        for data in &datas {
            let d = data.get();
            names.push(d.source_path().map_or_else(|| "<bytes>".to_string(), str::to_string));
            stacks.push(flame::fold(py, &*d.file_arc()?, &fold_opts.options)?);
        }
        let (Some(b), Some(a)) = (stacks.first(), stacks.get(1)) else {
            return Err(PyValueError::new_err("two profiles are needed"));
        };
        let subtitle =
            format!("{} → {}: red grew, blue shrank", names.first().map_or("", |s| s), names.get(1).map_or("", |s| s));
        let g = flame::graph_options(options, fold_opts.count_name, "Differential Flame Graph", Some(subtitle))
            .map_err(|e| in_call(py, call, e))?;
        flame::draw_diff(py, b, a, normalize, negate, &g)
    })();
    // Each recording's problems, said (or raised) as its own calls say them.
    for data in &datas {
        done = data.get().damage.after(py, done);
    }
    done
}

/// What changed between runs: each symbol's share of the event count in every baseline run and
/// every new run, the change of the mean share with a confidence interval from the run-to-run
/// variation, as ``perfdata diff --baseline … --new …`` prints it (docs/diff.md).
///
/// Args:
///     baseline, new: a recording (a ``PerfData`` or anything ``perfdata.open`` takes) or a list
///         of them: the runs of each side.
///     sort: perf's ``--sort`` keys the rows go by (default ``"dso,sym"``).
///     confidence: for all rows together (Bonferroni: each row's interval is at
///         ``1 - (1 - confidence) / rows``).
///     **options: ``folded()``'s options: ``event`` (the event compared, perf's name; default
///         the first baseline run's first) and the symbol options (``symfs``, ``kallsyms``…).
///
/// Returns:
///     pandas.DataFrame, one row per key, largest change first: ``dso``, ``kernel``, ``symbol``
///     (and ``comm`` with that key), ``baseline`` and ``new`` (mean share, %), ``delta``
///     (percentage points), ``ratio``, ``low`` and ``high`` (the interval; NaN with one run on a
///     side), ``significant``, ``baseline_runs`` and ``new_runs`` (each run's share).
///
/// Example:
///     >>> d = perfdata.diff(["perf.data", "perf.data"], ["perf.data", "perf.data"])
///     >>> float(d.delta.abs().max()), bool(d.significant.any())  # the same runs: no change
///     (0.0, False)
///     >>> grew = d[d.significant & (d.low > 2)]  # more than 2 points beyond the noise
#[pyfunction]
#[pyo3(signature = (baseline, new, *, sort = None, confidence = 0.95, **options))]
pub fn diff<'py>(
    py: Python<'py>,
    baseline: &Bound<'py, PyAny>,
    new: &Bound<'py, PyAny>,
    sort: Option<String>,
    confidence: f64,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    use perfdata_analysis::report::SortKey;
    use perfdata_analysis::runs::{compare, CompareOptions};
    let call = "perfdata.diff()";
    require(py, &["pandas"])?;
    flame::check_keys(options, &[]).map_err(|e| in_call(py, call, e))?;
    let fold = flame::fold_options(options).map_err(|e| in_call(py, call, e))?;
    let event = match &fold.options.event_filter {
        perfdata_analysis::options::EventFilter::Name(n) => Some(n.clone()),
        _ => None,
    };
    let sort = SortKey::parse_list(sort.as_deref().unwrap_or("dso,sym"))
        .map_err(|e| in_call(py, call, PyValueError::new_err(e)))?;
    // Each side: one recording or a list of them.
    let side = |v: &Bound<'py, PyAny>| -> PyResult<Vec<Bound<'py, PerfData>>> {
        let items: Vec<Bound<'py, PyAny>> =
            if v.is_instance_of::<pyo3::types::PyList>() || v.is_instance_of::<pyo3::types::PyTuple>() {
                v.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![v.clone()]
            };
        items
            .iter()
            .map(|src| match src.cast::<PerfData>() {
                Ok(d) => Ok(d.clone()),
                Err(_) => Bound::new(py, open(py, src, "time", false, false)?),
            })
            .collect()
    };
    let (base, news) = (side(baseline)?, side(new)?);
    let opts = CompareOptions { sort, fold: fold.options, event, confidence };
    let mut done = (|| -> PyResult<Bound<'py, PyAny>> {
        let files = base.iter().chain(&news).map(|d| d.get().file_arc()).collect::<PyResult<Vec<_>>>()?;
        let refs: Vec<_> = files.iter().map(|f| &**f).collect();
        let (a, b) = refs.split_at(base.len());
        let c = py.detach(|| compare(a, b, &opts)).map_err(|e| error::analysis_to_py(py, e, None))?;
        let cols = PyDict::new(py);
        let rows = &c.rows;
        let strs =
            |f: fn(&perfdata_analysis::runs::CompareRow) -> Option<String>| rows.iter().map(f).collect::<Vec<_>>();
        if rows.iter().any(|r| r.comm.is_some()) {
            cols.set_item("comm", strs(|r| r.comm.clone()))?;
        }
        if rows.iter().any(|r| r.dso.is_some()) {
            cols.set_item("dso", strs(|r| r.dso.clone()))?;
        }
        if rows.iter().any(|r| r.symbol.is_some()) {
            cols.set_item("kernel", rows.iter().map(|r| r.kernel).collect::<Vec<_>>())?;
            cols.set_item("symbol", strs(|r| r.symbol.clone()))?;
        }
        cols.set_item("baseline", rows.iter().map(|r| r.baseline_mean).collect::<Vec<_>>())?;
        cols.set_item("new", rows.iter().map(|r| r.new_mean).collect::<Vec<_>>())?;
        cols.set_item("delta", rows.iter().map(|r| r.delta).collect::<Vec<_>>())?;
        cols.set_item("ratio", rows.iter().map(|r| r.ratio).collect::<Vec<_>>())?;
        cols.set_item("low", rows.iter().map(|r| r.interval.map_or(f64::NAN, |i| i.0)).collect::<Vec<_>>())?;
        cols.set_item("high", rows.iter().map(|r| r.interval.map_or(f64::NAN, |i| i.1)).collect::<Vec<_>>())?;
        cols.set_item("significant", rows.iter().map(|r| r.significant).collect::<Vec<_>>())?;
        cols.set_item("baseline_runs", rows.iter().map(|r| r.baseline.clone()).collect::<Vec<_>>())?;
        cols.set_item("new_runs", rows.iter().map(|r| r.new.clone()).collect::<Vec<_>>())?;
        let df = py.import("pandas")?.getattr("DataFrame")?.call1((cols,))?;
        df.getattr("attrs")?.set_item("event", &c.event)?;
        df.getattr("attrs")?.set_item("row_confidence", c.row_confidence)?;
        for (i, d) in &c.diagnostics {
            if let Some(data) = base.iter().chain(&news).nth(*i) {
                data.get().shared.note([d.clone()]);
            }
        }
        Ok(df)
    })();
    for data in base.iter().chain(&news) {
        done = data.get().damage.after(py, done);
    }
    done
}

/// A call graph's nodes as Python dicts (`PerfData.report(call_graph=...)`).
fn call_nodes<'py>(
    py: Python<'py>,
    nodes: &[perfdata_analysis::report::CallNode],
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let list = pyo3::types::PyList::empty(py);
    for n in nodes {
        let d = PyDict::new(py);
        d.set_item("frames", &n.frames)?;
        d.set_item("period", n.period)?;
        d.set_item("total_period", n.total_period)?;
        d.set_item("samples", n.samples)?;
        d.set_item("total_samples", n.total_samples)?;
        d.set_item("children", call_nodes(py, &n.children)?)?;
        list.append(d)?;
    }
    Ok(list)
}
