//! `perfdata.Header`: what the file says about the recording (file header and feature sections).

use perfdata_core::header::{feature as feat, Format};
use perfdata_core::{Endian, PerfFile};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The recording's metadata: the machine it was recorded on (perf's header features) and how the
/// file is laid out. Attributes are None when the file does not carry the feature.
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
    /// Names of the feature sections present (e.g. 'HOSTNAME', 'EVENT_DESC').
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
}

impl Header {
    /// Read the header of an opened file.
    pub fn new(file: &PerfFile<'_>) -> Header {
        let h = file.header();
        let nrcpus = simple::nrcpus(file);
        Header {
            hostname: simple::string(file, feat::HOSTNAME),
            os_release: simple::string(file, feat::OSRELEASE),
            perf_version: simple::string(file, feat::VERSION),
            arch: simple::string(file, feat::ARCH),
            nr_cpus_online: nrcpus.map(|(_, online)| online),
            nr_cpus_available: nrcpus.map(|(avail, _)| avail),
            cpu_desc: simple::string(file, feat::CPUDESC),
            cpuid: simple::string(file, feat::CPUID),
            total_mem_kb: simple::total_mem(file),
            cmdline: simple::cmdline(file),
            features: file
                .feature_bits()
                .into_iter()
                .map(|b| feat::name(b).map_or_else(|| format!("FEATURE_{b}"), str::to_string))
                .collect(),
            format: match h.format {
                Format::File => "file",
                Format::Pipe => "pipe",
                Format::Directory => "directory",
            },
            endian: match h.endian {
                Endian::Little => "little",
                Endian::Big => "big",
            },
            data_offset: h.data.offset,
            data_size: h.data.size,
        }
    }

    /// 'file', 'pipe' or 'directory'.
    pub fn format_name(&self) -> &'static str {
        self.format
    }

    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("hostname", &self.hostname)?;
        d.set_item("os_release", &self.os_release)?;
        d.set_item("perf_version", &self.perf_version)?;
        d.set_item("arch", &self.arch)?;
        d.set_item("nr_cpus_online", self.nr_cpus_online)?;
        d.set_item("nr_cpus_available", self.nr_cpus_available)?;
        d.set_item("cpu_desc", &self.cpu_desc)?;
        d.set_item("cpuid", &self.cpuid)?;
        d.set_item("total_mem_kb", self.total_mem_kb)?;
        d.set_item("cmdline", &self.cmdline)?;
        d.set_item("features", &self.features)?;
        d.set_item("format", self.format)?;
        d.set_item("endian", self.endian)?;
        d.set_item("data_offset", self.data_offset)?;
        d.set_item("data_size", self.data_size)?;
        Ok(d)
    }
}

#[pymethods]
impl Header {
    /// All attributes as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)
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

/// The simple feature sections (strings, NRCPUS, TOTAL_MEM, CMDLINE), read here until perfdata-core
/// offers typed feature sections; then this module is replaced by a conversion of those.
mod simple {
    use perfdata_core::feature::strings::{header_string, string_list};
    use perfdata_core::header::feature as feat;
    use perfdata_core::reader::Reader;
    use perfdata_core::PerfFile;

    fn reader<'a>(file: &'a PerfFile<'_>, bit: u32, what: &'static str) -> Option<Reader<'a>> {
        let (data, pos) = file.feature_data(bit)?;
        Some(Reader::new(data, file.endian(), pos, what))
    }

    /// A `perf_header_string` feature.
    pub fn string(file: &PerfFile<'_>, bit: u32) -> Option<String> {
        header_string(&mut reader(file, bit, "string feature")?).ok()
    }

    /// NRCPUS: (available, online).
    pub fn nrcpus(file: &PerfFile<'_>) -> Option<(u32, u32)> {
        let mut r = reader(file, feat::NRCPUS, "NRCPUS")?;
        Some((r.u32().ok()?, r.u32().ok()?))
    }

    /// TOTAL_MEM in kB.
    pub fn total_mem(file: &PerfFile<'_>) -> Option<u64> {
        reader(file, feat::TOTAL_MEM, "TOTAL_MEM")?.u64().ok()
    }

    /// CMDLINE as argv.
    pub fn cmdline(file: &PerfFile<'_>) -> Option<Vec<String>> {
        string_list(&mut reader(file, feat::CMDLINE, "CMDLINE")?).ok()
    }
}
