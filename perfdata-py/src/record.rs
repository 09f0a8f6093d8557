//! `perfdata.Record` and `perfdata.Sample`: owned Python views of core records.

use crate::convert;
use crate::tracepoint::{self, TpRef};
use perfdata_core::json::{record_json, sample_fields};
use perfdata_core::record::CpuMode;
use perfdata_core::tracepoint::Tracepoints;
use perfdata_core::Record as CoreRecord;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;
use serde_json::Value;
use std::sync::Arc;

/// perf's word for the cpumode bits of `misc`.
pub fn cpumode_name(misc: u16) -> &'static str {
    match CpuMode::from_misc(misc) {
        CpuMode::Unknown => "unknown",
        CpuMode::Kernel => "kernel",
        CpuMode::User => "user",
        CpuMode::Hypervisor => "hypervisor",
        CpuMode::GuestKernel => "guest_kernel",
        CpuMode::GuestUser => "guest_user",
        CpuMode::Other(_) => "other",
    }
}

/// A record of any type other than SAMPLE. ``type`` is perf's name ('MMAP2', 'COMM', 'FORK', …);
/// every field of the record is an attribute (``rec.pid``, ``rec.filename``), and so are the fields
/// of its sample_id trailer when the record has no field of that name (``rec.time``, ``rec.cpu``).
/// ``to_dict()`` has them all.
#[pyclass(module = "perfdata", name = "Record", frozen)]
pub struct Record {
    type_name: String,
    offset: u64,
    time: Option<u64>,
    fields: Py<PyDict>,
}

impl Record {
    /// Convert a core record (through its JSON view, the one `perfdata dump --json` prints).
    pub fn from_core(py: Python<'_>, rec: &CoreRecord<'_>) -> PyResult<Record> {
        let mut v = record_json(rec);
        if let Value::Object(m) = &mut v {
            // Flatten the trailer: a COMM's time and cpu are as much its fields as its comm.
            if let Some(Value::Object(sid)) = m.get("sample_id").cloned() {
                for (k, x) in sid {
                    m.entry(k).or_insert(x);
                }
            }
            m.insert("type".into(), Value::String(rec.type_name().into_owned()));
        }
        let fields = match &v {
            Value::Object(m) => convert::dict(py, m)?,
            _ => PyDict::new(py),
        };
        Ok(Record {
            type_name: rec.type_name().into_owned(),
            offset: rec.pos.offset,
            time: rec.time(),
            fields: fields.unbind(),
        })
    }
}

#[pymethods]
impl Record {
    /// perf's name of the record type without ``PERF_RECORD_`` ('MMAP2', 'COMM', …; 'UNKNOWN_<n>').
    #[getter(r#type)]
    fn type_(&self) -> &str {
        &self.type_name
    }
    /// Byte offset of the record in the file (of its COMPRESSED record for decompressed ones).
    #[getter]
    fn offset(&self) -> u64 {
        self.offset
    }
    /// Timestamp (ns, perf's clock) from the record or its sample_id trailer; None if it has none.
    #[getter]
    fn time(&self) -> Option<u64> {
        self.time
    }
    /// The record's fields as a new dict.
    ///
    /// Example:
    ///     >>> r = next(r for r in perfdata.open("perf.data").records() if r.type == "COMM")
    ///     >>> r.to_dict()["comm"]
    ///     'perf-exec'
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.fields.bind(py).copy()
    }
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.fields.bind(py).get_item(name)? {
            Some(v) => Ok(v.unbind()),
            None => Err(PyAttributeError::new_err(format!("{} record has no field '{name}'", self.type_name))),
        }
    }
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let py = slf.py();
        let mut names: Vec<String> = slf.get_type().dir()?.iter().filter_map(|n| n.extract::<String>().ok()).collect();
        for k in slf.get().fields.bind(py).keys() {
            names.push(k.extract()?);
        }
        Ok(names)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for (k, v) in self.fields.bind(py).iter() {
            let k: String = k.extract()?;
            if matches!(k.as_str(), "type" | "type_id" | "misc" | "size" | "offset" | "sample_id") {
                continue;
            }
            parts.push(format!("{k}={}", v.repr()?));
        }
        Ok(format!("<perfdata.Record {} @{:#x} {}>", self.type_name, self.offset, parts.join(" ")))
    }
}

/// One PERF_RECORD_SAMPLE. Every PERF_SAMPLE_* field is an attribute, None when the event does not
/// sample it. ``callchain`` includes perf's context markers (PERF_CONTEXT_KERNEL = 2**64-128, …) as
/// stored; ``raw`` is the tracepoint/raw payload as bytes.
#[pyclass(module = "perfdata", name = "Sample", frozen)]
pub struct Sample {
    /// Byte offset of the record in the file.
    #[pyo3(get)]
    offset: u64,
    /// The record header's ``misc`` bits.
    #[pyo3(get)]
    misc: u16,
    /// Size of the record in bytes (header included).
    #[pyo3(get)]
    size: u16,
    /// Timestamp in ns (PERF_SAMPLE_TIME).
    #[pyo3(get)]
    time: Option<u64>,
    /// Process id (PERF_SAMPLE_TID).
    #[pyo3(get)]
    pid: Option<u32>,
    /// Thread id (PERF_SAMPLE_TID).
    #[pyo3(get)]
    tid: Option<u32>,
    /// CPU (PERF_SAMPLE_CPU).
    #[pyo3(get)]
    cpu: Option<u32>,
    /// Instruction pointer (PERF_SAMPLE_IP).
    #[pyo3(get)]
    ip: Option<u64>,
    /// Period: PERF_SAMPLE_PERIOD, or the event's fixed ``sample_period`` when the event does not
    /// sample it (as perf reports it).
    #[pyo3(get)]
    period: Option<u64>,
    /// Data address (PERF_SAMPLE_ADDR).
    #[pyo3(get)]
    addr: Option<u64>,
    /// Counter id (PERF_SAMPLE_ID).
    #[pyo3(get)]
    id: Option<u64>,
    /// Stream id (PERF_SAMPLE_STREAM_ID).
    #[pyo3(get)]
    stream_id: Option<u64>,
    /// Identifier (PERF_SAMPLE_IDENTIFIER).
    #[pyo3(get)]
    identifier: Option<u64>,
    /// Weight (PERF_SAMPLE_WEIGHT, or the u64 of PERF_SAMPLE_WEIGHT_STRUCT).
    #[pyo3(get)]
    weight: Option<u64>,
    /// Data source (PERF_SAMPLE_DATA_SRC).
    #[pyo3(get)]
    data_src: Option<u64>,
    /// Transaction flags (PERF_SAMPLE_TRANSACTION).
    #[pyo3(get)]
    transaction: Option<u64>,
    /// Physical address (PERF_SAMPLE_PHYS_ADDR).
    #[pyo3(get)]
    phys_addr: Option<u64>,
    /// Cgroup id (PERF_SAMPLE_CGROUP).
    #[pyo3(get)]
    cgroup: Option<u64>,
    /// Data page size (PERF_SAMPLE_DATA_PAGE_SIZE).
    #[pyo3(get)]
    data_page_size: Option<u64>,
    /// Code page size (PERF_SAMPLE_CODE_PAGE_SIZE).
    #[pyo3(get)]
    code_page_size: Option<u64>,
    /// Index of the event in ``PerfData.events`` (None when the sample matched no event).
    #[pyo3(get)]
    event_index: Option<usize>,
    event: Option<Py<PyString>>,
    callchain: Option<Vec<u64>>,
    raw: Option<Vec<u8>>,
    aux: Option<Vec<u8>>,
    stack_user: Option<(u64, Option<u64>, Vec<u8>)>,
    /// read / branch_stack / regs_user / regs_intr in their JSON form.
    complex: Option<serde_json::Map<String, Value>>,
    /// The tracing data and format of a tracepoint sample (decoded on access).
    tracepoint: Option<TpRef>,
}

impl Sample {
    /// Convert a core sample; `event` is the sample's event (index, name), `tracepoint` its format
    /// when it is a tracepoint event.
    pub fn from_core(
        rec: &CoreRecord<'_>,
        s: &perfdata_core::Sample<'_>,
        event: Option<(usize, Py<PyString>)>,
        tracepoint: Option<TpRef>,
    ) -> Sample {
        let complex =
            if s.read().is_some() || s.branch_stack().is_some() || s.regs_user().is_some() || s.regs_intr().is_some() {
                let mut m = serde_json::Map::new();
                sample_fields(s, &mut m);
                m.retain(|k, _| matches!(k.as_str(), "read" | "branch_stack" | "regs_user" | "regs_intr"));
                Some(m)
            } else {
                None
            };
        let (event_index, event) = match event {
            Some((i, n)) => (Some(i), Some(n)),
            None => (None, None),
        };
        Sample {
            offset: rec.pos.offset,
            misc: rec.header.misc,
            size: rec.header.size,
            time: s.time(),
            pid: s.pid(),
            tid: s.tid(),
            cpu: s.cpu(),
            ip: s.ip(),
            period: Some(s.period_or_attr()),
            addr: s.addr(),
            id: s.id(),
            stream_id: s.stream_id(),
            identifier: s.identifier(),
            weight: s.weight(),
            data_src: s.data_src(),
            transaction: s.transaction(),
            phys_addr: s.phys_addr(),
            cgroup: s.cgroup(),
            data_page_size: s.data_page_size(),
            code_page_size: s.code_page_size(),
            event_index,
            event,
            callchain: s.callchain().map(|c| c.to_vec()),
            raw: s.raw().map(<[u8]>::to_vec),
            aux: s.aux().map(<[u8]>::to_vec),
            stack_user: s.stack_user().map(|st| (st.size, st.dyn_size, st.data.to_vec())),
            complex,
            tracepoint,
        }
    }

    fn complex_field(&self, py: Python<'_>, key: &str) -> PyResult<Option<Py<PyAny>>> {
        match self.complex.as_ref().and_then(|m| m.get(key)) {
            Some(v) => Ok(Some(convert::value(py, v)?)),
            None => Ok(None),
        }
    }
}

#[pymethods]
impl Sample {
    /// Always 'SAMPLE' (records() yields Sample objects for samples).
    #[getter(r#type)]
    fn type_(&self) -> &'static str {
        "SAMPLE"
    }
    /// Name of the sample's event (None when it matched no event).
    #[getter]
    fn event(&self, py: Python<'_>) -> Option<Py<PyString>> {
        self.event.as_ref().map(|e| e.clone_ref(py))
    }
    /// Where the sample was taken: 'kernel', 'user', 'hypervisor', 'guest_kernel', 'guest_user' or
    /// 'unknown' (the cpumode bits of ``misc``).
    #[getter]
    fn cpumode(&self) -> &'static str {
        cpumode_name(self.misc)
    }
    /// The call chain as a list of ints, perf's context markers included (PERF_SAMPLE_CALLCHAIN).
    #[getter]
    fn callchain<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.callchain.as_ref().map(|c| PyList::new(py, c)).transpose()
    }
    /// The raw payload (PERF_SAMPLE_RAW; tracepoint data), padding included.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.raw.as_ref().map(|r| PyBytes::new(py, r))
    }
    /// The AUX area sample (PERF_SAMPLE_AUX).
    #[getter]
    fn aux<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.aux.as_ref().map(|r| PyBytes::new(py, r))
    }
    /// PERF_SAMPLE_READ values: dict with 'values' (list of {'value', 'id', 'lost'}) and the times.
    #[getter]
    fn read(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.complex_field(py, "read")
    }
    /// PERF_SAMPLE_BRANCH_STACK: dict with 'nr', 'entries' (from, to, flags and decoded flag
    /// fields), 'hw_idx' and 'counters' when present.
    #[getter]
    fn branch_stack(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.complex_field(py, "branch_stack")
    }
    /// PERF_SAMPLE_REGS_USER: dict with 'abi', 'mask' and 'regs' (values in mask bit order).
    #[getter]
    fn regs_user(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.complex_field(py, "regs_user")
    }
    /// PERF_SAMPLE_REGS_INTR: dict with 'abi', 'mask' and 'regs'.
    #[getter]
    fn regs_intr(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.complex_field(py, "regs_intr")
    }
    /// PERF_SAMPLE_STACK_USER: dict with 'size', 'dyn_size' and 'data' (bytes).
    #[getter]
    fn stack_user<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some((size, dyn_size, data)) = &self.stack_user else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("size", size)?;
        d.set_item("dyn_size", dyn_size)?;
        d.set_item("data", PyBytes::new(py, data))?;
        Ok(Some(d))
    }

    /// Tracepoint samples: every field of the tracepoint record decoded by name with the recording's
    /// format (the ``common_*`` fields first): int, str, bytes or a list of ints. None for other
    /// samples (and for tracepoints whose format the file lacks).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (Some(t), Some(raw)) = (&self.tracepoint, &self.raw) else { return Ok(None) };
        t.format().map(|fmt| tracepoint::fields(py, fmt, raw)).transpose()
    }
    /// Tracepoint samples: the text ``perf script`` prints after the event name, from the format's
    /// ``print fmt`` (e.g. ``prev_comm=perf prev_pid=1593 … ==> next_comm=…``). None for other samples.
    #[getter]
    fn trace_text(&self) -> Option<String> {
        let (t, raw) = (self.tracepoint.as_ref()?, self.raw.as_ref()?);
        Some(t.tracepoints().render(t.format()?, raw))
    }

    /// The sample as a dict: type, offset, misc, cpumode, event and every field the sample has.
    ///
    /// Example:
    ///     >>> d = next(iter(perfdata.open("perf.data").samples())).to_dict()
    ///     >>> d["cpumode"], d["period"], len(d["callchain"])
    ///     ('kernel', 200000, 9)
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("type", "SAMPLE")?;
        d.set_item("offset", self.offset)?;
        d.set_item("misc", self.misc)?;
        d.set_item("size", self.size)?;
        d.set_item("cpumode", self.cpumode())?;
        d.set_item("event", self.event(py))?;
        d.set_item("event_index", self.event_index)?;
        let ints: [(&str, Option<u64>); 17] = [
            ("identifier", self.identifier),
            ("ip", self.ip),
            ("pid", self.pid.map(u64::from)),
            ("tid", self.tid.map(u64::from)),
            ("time", self.time),
            ("addr", self.addr),
            ("id", self.id),
            ("stream_id", self.stream_id),
            ("cpu", self.cpu.map(u64::from)),
            ("period", self.period),
            ("weight", self.weight),
            ("data_src", self.data_src),
            ("transaction", self.transaction),
            ("phys_addr", self.phys_addr),
            ("cgroup", self.cgroup),
            ("data_page_size", self.data_page_size),
            ("code_page_size", self.code_page_size),
        ];
        for (k, v) in ints {
            if let Some(v) = v {
                d.set_item(k, v)?;
            }
        }
        if let Some(c) = self.callchain(py)? {
            d.set_item("callchain", c)?;
        }
        if let Some(r) = self.raw(py) {
            d.set_item("raw", r)?;
        }
        if let Some(a) = self.aux(py) {
            d.set_item("aux", a)?;
        }
        if let Some(m) = &self.complex {
            for (k, v) in m {
                d.set_item(k, convert::value(py, v)?)?;
            }
        }
        if let Some(st) = self.stack_user(py)? {
            d.set_item("stack_user", st)?;
        }
        if let Some(f) = self.fields(py)? {
            d.set_item("fields", f)?;
            d.set_item("trace_text", self.trace_text())?;
        }
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let ev = match &self.event {
            Some(e) => e.bind(py).extract::<String>()?,
            None => "?".into(),
        };
        let mut s = format!("<perfdata.Sample {ev}");
        if let Some(t) = self.time {
            s.push_str(&format!(" time={t}"));
        }
        if let (Some(p), Some(t)) = (self.pid, self.tid) {
            s.push_str(&format!(" pid={p} tid={t}"));
        }
        if let Some(c) = self.cpu {
            s.push_str(&format!(" cpu={c}"));
        }
        if let Some(ip) = self.ip {
            s.push_str(&format!(" ip={ip:#x}"));
        }
        if let Some(p) = self.period {
            s.push_str(&format!(" period={p}"));
        }
        if let Some(c) = &self.callchain {
            s.push_str(&format!(" callchain=[{} entries]", c.len()));
        }
        s.push('>');
        Ok(s)
    }
}

/// A core record as a Python object: a `Sample` for samples, a `Record` otherwise. `tp`: the
/// tracepoint formats known so far, which decode tracepoint samples.
pub fn to_object(
    py: Python<'_>,
    rec: &CoreRecord<'_>,
    tp: Option<&Arc<Tracepoints>>,
    event_name: impl FnOnce(&perfdata_core::Event) -> Py<PyString>,
) -> PyResult<Py<PyAny>> {
    match &rec.kind {
        perfdata_core::RecordKind::Sample(s) => {
            let tracepoint = rec.event.and_then(|e| TpRef::for_event(tp, e));
            let ev = rec.event.map(|e| (e.index, event_name(e)));
            Sample::from_core(rec, s, ev, tracepoint).into_py_any(py)
        }
        _ => Record::from_core(py, rec)?.into_py_any(py),
    }
}
