//! `perfdata.Event`: one event of the recording (its `perf_event_attr`, ids and name).

use perfdata_core::attr::{bit_names, branch_sample_type, read_format, sample_type, EventAttr, EventType, FLAG_NAMES};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet};

/// One event of the recording: its name, the kernel ids of its counters and every field of its
/// ``perf_event_attr``. Bit sets (``sample_type``, ``read_format``, ``branch_sample_type``) are
/// frozensets of perf's flag names (the raw integers are the ``*_value`` attributes); each attr flag
/// bit (``disabled``, ``inherit``, ``freq``, ``precise_ip``, ``sample_id_all``, …) is an int attribute.
#[pyclass(module = "perfdata", name = "Event", frozen)]
pub struct Event {
    /// Position in the file's attr list (perf's evsel index).
    #[pyo3(get)]
    index: usize,
    /// Event name (from EVENT_DESC / EVENT_UPDATE, else built from type and config as perf does).
    #[pyo3(get)]
    name: String,
    /// Kernel-assigned ids of the event's counters (one per cpu × thread).
    #[pyo3(get)]
    ids: Vec<u64>,
    attr: EventAttr,
}

impl Event {
    /// Wrap a core event.
    pub fn new(e: &perfdata_core::Event) -> Event {
        Event { index: e.index, name: e.display_name(), ids: e.ids.clone(), attr: e.attr.clone() }
    }

    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The event's index.
    pub fn index(&self) -> usize {
        self.index
    }

    fn names<'py>(py: Python<'py>, value: u64, names: &[&str]) -> PyResult<Bound<'py, PyFrozenSet>> {
        let s = bit_names(value, names);
        let parts: Vec<&str> = s.split('|').filter(|p| !p.is_empty()).collect();
        PyFrozenSet::new(py, &parts)
    }
}

#[pymethods]
impl Event {
    /// ``attr.type``: 0 hardware, 1 software, 2 tracepoint, 3 hw cache, 4 raw, 5 breakpoint, ≥6 a PMU.
    #[getter(r#type)]
    fn type_(&self) -> u32 {
        self.attr.type_
    }
    /// ``attr.type`` as a word: 'hardware', 'software', 'tracepoint', 'hw_cache', 'raw', 'breakpoint'
    /// or 'pmu' (a dynamic PMU type number; see the file's PMU mappings).
    #[getter]
    fn type_name(&self) -> &'static str {
        match self.attr.event_type() {
            EventType::Hardware => "hardware",
            EventType::Software => "software",
            EventType::Tracepoint => "tracepoint",
            EventType::HwCache => "hw_cache",
            EventType::Raw => "raw",
            EventType::Breakpoint => "breakpoint",
            EventType::Dynamic(_) => "pmu",
        }
    }
    /// ``attr.size`` as stored.
    #[getter]
    fn size(&self) -> u32 {
        self.attr.size
    }
    /// ``attr.config``.
    #[getter]
    fn config(&self) -> u64 {
        self.attr.config
    }
    /// ``attr.sample_period`` (holds the frequency when ``freq`` is set).
    #[getter]
    fn sample_period(&self) -> u64 {
        self.attr.sample_period
    }
    /// The sampling frequency in Hz when ``freq`` is set, else None.
    #[getter]
    fn sample_freq(&self) -> Option<u64> {
        self.attr.freq().then_some(self.attr.sample_period)
    }
    /// ``attr.sample_type`` as a frozenset of PERF_SAMPLE_* names ('IP', 'TID', 'TIME', …).
    #[getter]
    fn sample_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyFrozenSet>> {
        Self::names(py, self.attr.sample_type, &sample_type::NAMES)
    }
    /// ``attr.sample_type`` as an int.
    #[getter]
    fn sample_type_value(&self) -> u64 {
        self.attr.sample_type
    }
    /// ``attr.read_format`` as a frozenset of PERF_FORMAT_* names.
    #[getter]
    fn read_format<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyFrozenSet>> {
        Self::names(py, self.attr.read_format, &read_format::NAMES)
    }
    /// ``attr.read_format`` as an int.
    #[getter]
    fn read_format_value(&self) -> u64 {
        self.attr.read_format
    }
    /// ``attr.branch_sample_type`` as a frozenset of PERF_SAMPLE_BRANCH_* names.
    #[getter]
    fn branch_sample_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyFrozenSet>> {
        Self::names(py, self.attr.branch_sample_type, &branch_sample_type::NAMES)
    }
    /// ``attr.branch_sample_type`` as an int.
    #[getter]
    fn branch_sample_type_value(&self) -> u64 {
        self.attr.branch_sample_type
    }
    /// The set flag bits of the attr, name → value (``precise_ip`` can be 1–3).
    #[getter]
    fn flags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in self.attr.set_flags() {
            d.set_item(n, v)?;
        }
        Ok(d)
    }
    /// The attr flag word as an int (little-endian bit numbering).
    #[getter]
    fn flags_value(&self) -> u64 {
        self.attr.flags
    }
    /// ``attr.wakeup_events`` (or ``wakeup_watermark``).
    #[getter]
    fn wakeup_events(&self) -> u32 {
        self.attr.wakeup_events
    }
    /// ``attr.bp_type``.
    #[getter]
    fn bp_type(&self) -> u32 {
        self.attr.bp_type
    }
    /// ``attr.config1`` (``bp_addr``, ``kprobe_func``).
    #[getter]
    fn config1(&self) -> u64 {
        self.attr.config1
    }
    /// ``attr.config2`` (``bp_len``, ``kprobe_addr``).
    #[getter]
    fn config2(&self) -> u64 {
        self.attr.config2
    }
    /// ``attr.config3``.
    #[getter]
    fn config3(&self) -> u64 {
        self.attr.config3
    }
    /// ``attr.config4``.
    #[getter]
    fn config4(&self) -> u64 {
        self.attr.config4
    }
    /// ``attr.sample_regs_user`` (register mask).
    #[getter]
    fn sample_regs_user(&self) -> u64 {
        self.attr.sample_regs_user
    }
    /// ``attr.sample_stack_user`` (bytes of user stack to dump).
    #[getter]
    fn sample_stack_user(&self) -> u32 {
        self.attr.sample_stack_user
    }
    /// ``attr.clockid`` (meaningful when ``use_clockid`` is set).
    #[getter]
    fn clockid(&self) -> i32 {
        self.attr.clockid
    }
    /// ``attr.sample_regs_intr`` (register mask).
    #[getter]
    fn sample_regs_intr(&self) -> u64 {
        self.attr.sample_regs_intr
    }
    /// ``attr.aux_watermark``.
    #[getter]
    fn aux_watermark(&self) -> u32 {
        self.attr.aux_watermark
    }
    /// ``attr.sample_max_stack``.
    #[getter]
    fn sample_max_stack(&self) -> u16 {
        self.attr.sample_max_stack
    }
    /// ``attr.aux_sample_size``.
    #[getter]
    fn aux_sample_size(&self) -> u32 {
        self.attr.aux_sample_size
    }
    /// ``attr.aux_action``.
    #[getter]
    fn aux_action(&self) -> u32 {
        self.attr.aux_action
    }
    /// ``attr.sig_data``.
    #[getter]
    fn sig_data(&self) -> u64 {
        self.attr.sig_data
    }

    /// A flag bit of the attr by name (``event.disabled``, ``event.precise_ip``, …).
    fn __getattr__(&self, name: &str) -> PyResult<u64> {
        FLAG_NAMES
            .iter()
            .find(|(n, _, w)| *w > 0 && *n == name)
            .map(|&(_, lo, w)| self.attr.flag_bits(lo, w))
            .ok_or_else(|| PyAttributeError::new_err(format!("'perfdata.Event' object has no attribute '{name}'")))
    }

    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let mut names: Vec<String> = slf.get_type().dir()?.iter().filter_map(|n| n.extract::<String>().ok()).collect();
        names.extend(FLAG_NAMES.iter().filter(|(n, _, w)| *w > 0 && !n.is_empty()).map(|(n, _, _)| (*n).to_string()));
        Ok(names)
    }

    /// Every attribute as a dict (bit sets as sorted lists of names, flags as name → value).
    ///
    /// Example:
    ///     >>> d = perfdata.open("perf.data").events[0].to_dict()
    ///     >>> d["name"], d["sample_period"], d["sample_type"]
    ///     ('cpu-clock', 200000, ['IP', 'TID', 'TIME', 'CALLCHAIN'])
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let sorted = |v: u64, names: &[&str]| -> Vec<String> {
            bit_names(v, names).split('|').filter(|p| !p.is_empty()).map(str::to_string).collect()
        };
        let a = &self.attr;
        d.set_item("index", self.index)?;
        d.set_item("name", &self.name)?;
        d.set_item("ids", &self.ids)?;
        d.set_item("type", a.type_)?;
        d.set_item("type_name", self.type_name())?;
        d.set_item("size", a.size)?;
        d.set_item("config", a.config)?;
        d.set_item("sample_period", a.sample_period)?;
        d.set_item("sample_freq", self.sample_freq())?;
        d.set_item("sample_type", sorted(a.sample_type, &sample_type::NAMES))?;
        d.set_item("read_format", sorted(a.read_format, &read_format::NAMES))?;
        d.set_item("branch_sample_type", sorted(a.branch_sample_type, &branch_sample_type::NAMES))?;
        d.set_item("flags", self.flags(py)?)?;
        for (k, v) in [
            ("wakeup_events", u64::from(a.wakeup_events)),
            ("bp_type", u64::from(a.bp_type)),
            ("config1", a.config1),
            ("config2", a.config2),
            ("config3", a.config3),
            ("config4", a.config4),
            ("sample_regs_user", a.sample_regs_user),
            ("sample_stack_user", u64::from(a.sample_stack_user)),
            ("sample_regs_intr", a.sample_regs_intr),
            ("aux_watermark", u64::from(a.aux_watermark)),
            ("sample_max_stack", u64::from(a.sample_max_stack)),
            ("aux_sample_size", u64::from(a.aux_sample_size)),
            ("aux_action", u64::from(a.aux_action)),
            ("sig_data", a.sig_data),
        ] {
            d.set_item(k, v)?;
        }
        d.set_item("clockid", a.clockid)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<perfdata.Event {} {:?} type={} config={:#x} sample_type={} ids={}>",
            self.index,
            self.name,
            self.attr.type_,
            self.attr.config,
            bit_names(self.attr.sample_type, &sample_type::NAMES),
            self.ids.len()
        )
    }
}
