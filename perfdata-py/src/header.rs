//! `perfdata.Header` and `perfdata.BuildId`: what the file says about the recording, from the core's
//! [`HeaderInfo`] (the structure `perfdata info` prints).
//!
//! The simple values are typed attributes; the feature sections with structure (topologies, caches,
//! PMUs, groups, clocks, BPF) are the JSON view of `perfdata info --json` as Python dicts and lists,
//! so `Header.to_dict()` is exactly that JSON.

use crate::convert;
use crate::record::cpumode_name;
use perfdata_core::feature::BuildId as CoreBuildId;
use perfdata_core::header::Format;
use perfdata_core::{HeaderInfo, PerfFile};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::{Map, Value};

/// The recording's metadata: the machine it was recorded on (perf's header features), how the file
/// is laid out, and every feature section, as ``perf report --header-only -I`` shows them.
/// Attributes are None when the file does not carry the feature.
///
/// ``to_dict()`` / ``to_json()`` give everything as ``perfdata info --json`` prints it;
/// ``perf_text()`` the text of ``perfdata info`` (= ``perf report --header-only -I``).
#[pyclass(module = "perfdata", name = "Header", frozen)]
pub struct Header {
    /// Host name (HOSTNAME feature).
    #[pyo3(get)]
    hostname: Option<String>,
    /// Kernel release, `uname -r` (OSRELEASE).
    #[pyo3(get)]
    os_release: Option<String>,
    /// Version of the perf that recorded (VERSION).
    #[pyo3(get)]
    perf_version: Option<String>,
    /// Machine architecture, `uname -m` (ARCH).
    #[pyo3(get)]
    arch: Option<String>,
    /// Online CPUs when recording (NRCPUS).
    #[pyo3(get)]
    nr_cpus_online: Option<u32>,
    /// Available (present) CPUs (NRCPUS).
    #[pyo3(get)]
    nr_cpus_available: Option<u32>,
    /// CPU model name (CPUDESC).
    #[pyo3(get)]
    cpu_desc: Option<String>,
    /// CPU identification string, vendor,family,model,stepping on x86 (CPUID).
    #[pyo3(get)]
    cpuid: Option<String>,
    /// Total memory in kB (TOTAL_MEM).
    #[pyo3(get)]
    total_mem_kb: Option<u64>,
    /// perf's command line, argv[0] first (CMDLINE).
    #[pyo3(get)]
    cmdline: Option<Vec<String>>,
    /// Names of the feature sections present (e.g. 'HOSTNAME', 'EVENT_DESC'; 'BIT_<n>' for bits perf
    /// does not define).
    #[pyo3(get)]
    features: Vec<String>,
    /// 'file', 'pipe' or 'directory'.
    #[pyo3(get)]
    format: &'static str,
    /// Byte order of the file: 'little' or 'big'.
    #[pyo3(get)]
    endian: &'static str,
    /// Offset of the data (record) section; for pipe data, of the first record.
    #[pyo3(get)]
    data_offset: u64,
    /// Size of the data section as the header states it (0 for an unfinished recording).
    #[pyo3(get)]
    data_size: u64,
    /// Modification time of the file in Unix seconds (perf's "captured on"); None for bytes and
    /// streams.
    #[pyo3(get)]
    captured_on: Option<i64>,
    /// Where the feature section table is (``data_offset + data_size``; 0 for pipe data).
    #[pyo3(get)]
    feat_offset: u64,
    /// BRANCH_STACK is set: the recording contains samples with branch stacks.
    #[pyo3(get)]
    branch_stack: bool,
    /// STAT is set: the recording holds ``perf stat record`` data.
    #[pyo3(get)]
    stat: bool,
    /// CLOCKID: resolution of the recording clock in ns (perf prints it as a frequency).
    #[pyo3(get)]
    clockid_res_ns: Option<u64>,
    /// DIR_FORMAT: version of the ``perf record --threads`` directory layout.
    #[pyo3(get)]
    dir_format: Option<u64>,
    /// BUILD_ID uses the old (pre-2010) layout without pids.
    #[pyo3(get)]
    build_ids_old_abi: bool,
    /// Size in bytes of the TRACING_DATA section (the tracepoint formats).
    #[pyo3(get)]
    tracing_data_size: Option<u64>,
    /// Names of the features perf 6.1 knows (bits 1–31) that the file does not have (file and
    /// directory format; perf prints no such line for pipe data).
    #[pyo3(get)]
    missing_features: Vec<String>,
    info: HeaderInfo,
    /// `info` as JSON (what `perfdata info --json` prints).
    json: Map<String, Value>,
}

impl Header {
    /// Read the header of an opened file. `stream`: a pipe read as it is iterated, whose leading
    /// records must be left for the record iterator (its header then has what was known at open).
    pub fn new(py: Python<'_>, file: &PerfFile<'_>, stream: bool) -> PyResult<Header> {
        let info = py.detach(|| {
            if stream {
                HeaderInfo::build(file.header(), &file.features(), file.events(), None)
            } else {
                HeaderInfo::new(file)
            }
        });
        let json = match serde_json::to_value(&info) {
            Ok(Value::Object(m)) => m,
            Ok(_) => Map::new(),
            Err(e) => return Err(PyRuntimeError::new_err(format!("header as JSON: {e}"))),
        };
        let h = file.header();
        Ok(Header {
            hostname: info.hostname.clone(),
            os_release: info.os_release.clone(),
            perf_version: info.perf_version.clone(),
            arch: info.arch.clone(),
            nr_cpus_online: info.nr_cpus_online,
            nr_cpus_available: info.nr_cpus_available,
            cpu_desc: info.cpu_desc.clone(),
            cpuid: info.cpuid.clone(),
            total_mem_kb: info.total_mem_kb,
            cmdline: info.cmdline.clone(),
            features: info.features.iter().map(|f| f.name.clone()).collect(),
            format: match h.format {
                Format::File => "file",
                Format::Pipe => "pipe",
                Format::Directory => "directory",
            },
            endian: match h.endian {
                perfdata_core::Endian::Little => "little",
                perfdata_core::Endian::Big => "big",
            },
            data_offset: h.data.offset,
            data_size: h.data.size,
            captured_on: info.captured_on,
            feat_offset: info.feat_offset,
            branch_stack: info.branch_stack,
            stat: info.stat,
            clockid_res_ns: info.clockid_res_ns,
            dir_format: info.dir_format,
            build_ids_old_abi: info.build_ids_old_abi,
            tracing_data_size: info.tracing_data_size,
            missing_features: info.missing_features.clone(),
            info,
            json,
        })
    }

    /// The key facts as an HTML table (also part of `PerfData._repr_html_`).
    pub fn html(&self) -> String {
        let cpus = match (self.nr_cpus_online, self.nr_cpus_available) {
            (Some(on), Some(av)) => Some(format!("{on} online of {av}")),
            (Some(on), None) => Some(on.to_string()),
            _ => None,
        };
        let span = self.info.sample_time.as_ref().map(|t| {
            let secs = t.last.saturating_sub(t.first) as f64 / 1e9;
            format!("{} – {} ({secs:.3} s)", crate::html::seconds(t.first), crate::html::seconds(t.last))
        });
        crate::html::key_values(&[
            ("host", self.hostname.clone()),
            ("captured on", self.captured_on.map(perfdata_core::info::ctime)),
            ("command", self.cmdline.as_ref().map(|c| c.join(" "))),
            ("perf version", self.perf_version.clone()),
            ("os release", self.os_release.clone()),
            ("arch", self.arch.clone()),
            ("cpu", self.cpu_desc.clone()),
            ("cpus", cpus),
            ("memory", self.total_mem_kb.map(|k| format!("{:.1} GiB", k as f64 / 1048576.0))),
            ("samples between", span),
            (
                "format",
                Some(format!("{}, {}-endian, {} feature sections", self.format, self.endian, self.features.len())),
            ),
        ])
    }

    /// 'file', 'pipe' or 'directory'.
    pub fn format_name(&self) -> &'static str {
        self.format
    }

    /// One key of the JSON view as a Python object (None when absent or null).
    fn json_field(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        match self.json.get(key) {
            Some(v) => convert::value(py, v),
            None => Ok(py.None()),
        }
    }
}

#[pymethods]
impl Header {
    /// The feature sections in file order: dicts with 'bit', 'name', 'offset' (None for pipe data)
    /// and 'size'.
    #[getter]
    fn feature_sections(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "features")
    }
    /// The events as perf's header lists them (from EVENT_DESC when present, else the attrs): dicts
    /// with 'index', 'name', 'ids' and every attr field (``PerfData.events`` has them as ``Event``
    /// objects).
    #[getter]
    fn events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "events")
    }
    /// simpleperf's META_INFO (recordings made by Android's simpleperf): dict of its key/value
    /// strings (simpleperf_version, event_type_info, product_props, …), None without it.
    #[getter]
    fn simpleperf_meta_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "simpleperf_meta_info")
    }
    /// simpleperf's FILE/FILE2 (recordings made by Android's simpleperf): list of dicts with
    /// 'path', 'file_type' (simpleperf's name, e.g. 'dso_elf_file'), 'min_vaddr', 'symbols' (how
    /// many it stores), 'file_offset_of_min_vaddr', 'dex_files' and 'feature' (128 or 132); None
    /// without it. Frames in those files are named from these tables.
    #[getter]
    fn simpleperf_files(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "simpleperf_files")
    }
    /// CPU_TOPOLOGY: dict with 'package_cpus', 'core_cpus' (sibling lists such as '0-1'), 'cpus'
    /// (per CPU: 'core_id', 'socket_id', 'die_id') and 'die_cpus'.
    #[getter]
    fn cpu_topology(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "cpu_topology")
    }
    /// NUMA_TOPOLOGY: list of dicts with 'node', 'mem_total_kb', 'mem_free_kb' and 'cpus'.
    #[getter]
    fn numa_topology(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "numa_topology")
    }
    /// CACHE: list of dicts with 'level', 'line_size', 'sets', 'ways', 'type', 'size' and 'map'.
    #[getter]
    fn cache(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "cache")
    }
    /// PMU_MAPPINGS: list of dicts with 'type' (the ``attr.type`` number) and 'name'.
    #[getter]
    fn pmu_mappings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "pmu_mappings")
    }
    /// GROUP_DESC: list of dicts with 'name' (None for an anonymous group), 'leader_idx',
    /// 'nr_members' and 'members' (event names, leader first).
    #[getter]
    fn group_desc(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "group_desc")
    }
    /// AUXTRACE: the AUX area index (list of dicts with 'file_offset' and 'size'); not None when the
    /// file contains AUX area data (e.g. an instruction trace).
    #[getter]
    fn auxtrace(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "auxtrace")
    }
    /// SAMPLE_TIME: dict with 'first' and 'last', the times of the first and last sample (ns).
    #[getter]
    fn sample_time(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "sample_time")
    }
    /// MEM_TOPOLOGY: dict with 'block_size' and 'nodes' (dicts with 'node', 'block_count',
    /// 'bytes' and 'blocks', the block indexes as ranges like '0-23,32-199').
    #[getter]
    fn mem_topology(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "mem_topology")
    }
    /// BPF_PROG_INFO, summarized: list of dicts with 'id', 'prog_type', 'name', 'tag',
    /// 'jited_prog_len', 'btf_id', 'info_len' and 'data_len'.
    #[getter]
    fn bpf_prog_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "bpf_prog_info")
    }
    /// BPF_BTF, summarized: list of dicts with 'id' and 'size'.
    #[getter]
    fn bpf_btf(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "bpf_btf")
    }
    /// COMPRESSED: dict with 'version', 'type' (1 = zstd), 'level', 'ratio' and 'mmap_len'.
    #[getter]
    fn compressed(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "compressed")
    }
    /// CPU_PMU_CAPS: list of dicts with 'name' and 'value' (the cpu PMU's capabilities).
    #[getter]
    fn cpu_pmu_caps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "cpu_pmu_caps")
    }
    /// CLOCK_DATA: dict with 'version', 'clockid', 'tod_ns' (wall-clock time) and 'clockid_ns' (the
    /// recording clock at that moment): converts sample times to wall-clock time.
    #[getter]
    fn clock_data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "clock_data")
    }
    /// HYBRID_TOPOLOGY: list of dicts with 'pmu_name' and 'cpus'.
    #[getter]
    fn hybrid_topology(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "hybrid_topology")
    }
    /// PMU_CAPS: list of dicts with 'pmu_name' and 'caps' (dicts with 'name' and 'value').
    #[getter]
    fn pmu_caps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "pmu_caps")
    }
    /// CPU_DOMAIN_INFO: dict with 'schedstat_version', 'max_sched_domains' and 'cpus' (per CPU its
    /// scheduler domains).
    #[getter]
    fn cpu_domain_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "cpu_domain_info")
    }
    /// Feature sections that could not be decoded: dicts with 'bit', 'feature' and 'error' (what was
    /// wrong, with its offset). perf stops reading sections at the first one it cannot read.
    #[getter]
    fn errors(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.json_field(py, "errors")
    }
    /// BUILD_ID: the build ids of the binaries that had samples, as ``BuildId`` objects in file
    /// order (what ``perf buildid-list`` lists).
    #[getter]
    fn build_ids(&self) -> Option<Vec<BuildId>> {
        self.info.build_ids.as_ref().map(|ids| ids.iter().map(BuildId::new).collect())
    }

    /// Everything as a dict: the JSON object ``perfdata info --json`` prints (note that its
    /// 'features' are the ``feature_sections`` dicts, its 'build_ids' carry the ids as hex, and its
    /// 'data_offset' is 0 for pipe data, as perf prints it).
    ///
    /// Example:
    ///     >>> h = perfdata.open("perf.data").header.to_dict()
    ///     >>> h["hostname"], h["cmdline"][:3]
    ///     ('vm', ['/usr/bin/perf', 'record', '-q'])
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        convert::dict(py, &self.json)
    }

    /// ``to_dict()`` as JSON text; with the default indent, the exact text ``perfdata info --json``
    /// prints (without its final newline).
    ///
    /// Args:
    ///     indent: spaces per level (None: one line).
    ///
    /// Example:
    ///     >>> import json
    ///     >>> h = json.loads(perfdata.open("perf.data").header.to_json())
    ///     >>> h["hostname"], h["nr_cpus_online"]
    ///     ('vm', 2)
    #[pyo3(signature = (indent = Some(2)), text_signature = "($self, indent=2)")]
    fn to_json(&self, indent: Option<usize>) -> PyResult<String> {
        let err = |e: serde_json::Error| PyRuntimeError::new_err(format!("header as JSON: {e}"));
        let Some(n) = indent else {
            return serde_json::to_string(&self.info).map_err(err);
        };
        let pad = vec![b' '; n];
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(&pad));
        serde::Serialize::serialize(&self.info, &mut ser).map_err(err)?;
        String::from_utf8(out).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The header as ``perf report --header-only -I`` prints it (perf 6.1, line for line), which
    /// is what ``perfdata info`` prints.
    ///
    /// Example:
    ///     >>> text = perfdata.open("perf.data").header.perf_text()
    ///     >>> [l for l in text.splitlines() if l.startswith("# hostname")]
    ///     ['# hostname : vm']
    fn perf_text(&self) -> String {
        self.info.perf_text()
    }

    /// The header as an HTML table in Jupyter: host, machine, perf version, command line, time span.
    fn _repr_html_(&self) -> String {
        self.html()
    }

    fn __repr__(&self) -> String {
        let opt = |v: &Option<String>| v.as_deref().unwrap_or("?").to_string();
        format!(
            "<perfdata.Header {} {}-endian, host {:?}, {} {}, perf {}, {} cpus>",
            self.format,
            self.endian,
            opt(&self.hostname),
            opt(&self.arch),
            opt(&self.os_release),
            opt(&self.perf_version),
            self.nr_cpus_online.map_or_else(|| "?".to_string(), |n| n.to_string()),
        )
    }
}

/// One BUILD_ID entry: a binary (or the kernel, a module, the vdso) and its build id, exactly as
/// stored.
#[pyclass(module = "perfdata", name = "BuildId", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub struct BuildId {
    /// Machine pid: -1 for the host (perf's HOST_KERNEL_ID), else a guest's pid (0 = the default
    /// guest).
    #[pyo3(get)]
    pid: i32,
    /// The entry's ``misc`` bits: the cpumode of the binary in bits 0–2, bit 15 when the entry
    /// states the id's size.
    #[pyo3(get)]
    misc: u16,
    /// Path of the binary, or '[kernel.kallsyms]', '[vdso]', a kernel module name…
    #[pyo3(get)]
    filename: String,
    build_id: Vec<u8>,
}

impl BuildId {
    fn new(b: &CoreBuildId) -> BuildId {
        BuildId { pid: b.pid, misc: b.misc, filename: b.filename.clone(), build_id: b.build_id.clone() }
    }
}

#[pymethods]
impl BuildId {
    /// The build id bytes, as long as the entry says (20 for a SHA-1 id).
    #[getter]
    fn build_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.build_id)
    }
    /// The build id as lowercase hex, as perf prints it.
    #[getter]
    fn hex(&self) -> String {
        self.build_id.iter().map(|b| format!("{b:02x}")).collect()
    }
    /// Where the binary ran: 'kernel', 'user', 'guest_kernel', 'guest_user', … (the cpumode bits of
    /// ``misc``).
    #[getter]
    fn cpumode(&self) -> &'static str {
        cpumode_name(self.misc)
    }
    /// As a dict: pid, misc, cpumode, build_id (bytes), hex and filename.
    ///
    /// Example:
    ///     >>> b = perfdata.open("perf.data").header.build_ids[0].to_dict()
    ///     >>> b["filename"], b["hex"][:8]
    ///     ('[kernel.kallsyms]', '4a5a9b0a')
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("pid", self.pid)?;
        d.set_item("misc", self.misc)?;
        d.set_item("cpumode", self.cpumode())?;
        d.set_item("build_id", self.build_id(py))?;
        d.set_item("hex", self.hex())?;
        d.set_item("filename", &self.filename)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!("<perfdata.BuildId {} {:?} pid={} {}>", self.hex(), self.filename, self.pid, self.cpumode())
    }
}
