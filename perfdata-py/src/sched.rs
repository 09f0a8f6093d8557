//! The scheduler helpers: `PerfData.sched_latency/sched_map/sched_timehist/sched_timeline` and
//! their result objects (`AnalysisResult`, `SchedTimeline`).

use crate::arrow::ArrowTable;
use crate::kwargs::time_value;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use perfdata_analysis::sched::latency::{sched_latency, GroupBy, LatencyOptions, SortKey, DEFAULT_SORT};
use perfdata_analysis::sched::map::{sched_map_each, MapOptions};
use perfdata_analysis::sched::timehist::{sched_timehist_each, Row, SummaryMode, TimehistOptions, TimehistText};
use perfdata_analysis::sched::timeline::{sched_timeline, TimelineOptions};
use perfdata_analysis::sched::{Compat, Error};
use perfdata_core::PerfFile;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::Arc;

/// `compat=` of the `sched_*` call `call`: None (modern) or "perf-6.1" (a perf version, unlike
/// folded()'s compat: the message says so).
pub fn compat(call: &str, v: Option<&str>) -> PyResult<Compat> {
    v.map_or(Ok(Compat::Modern), |s| {
        s.parse().map_err(|_| {
            crate::kwargs::unknown_value(
                call,
                "compat",
                s,
                "None, 'modern' or 'perf-6.1'",
                crate::kwargs::SCHED_COMPAT_MEANING,
            )
        })
    })
}

/// The keywords of the `sched_*` calls, for [`reject_keywords`].
pub const LATENCY_KEYS: [&str; 4] = ["by", "sort", "compat", "cpu"];
/// `sched_map`'s keywords.
pub const MAP_KEYS: [&str; 3] = ["compact", "cpus", "compat"];
/// `sched_timehist`'s keywords.
pub const TIMEHIST_KEYS: [&str; 12] = [
    "wakeups",
    "migrations",
    "cpu_visual",
    "state",
    "next",
    "summary",
    "idle_hist",
    "pid",
    "tid",
    "cpu",
    "time",
    "compat",
];

/// The TypeError for the first keyword in `rest` (the keywords pyo3 did not match to a parameter
/// of `call`): it names the call and lists `accepted`.
pub fn reject_keywords(call: &str, rest: Option<&Bound<'_, PyDict>>, accepted: &[&str]) -> PyResult<()> {
    crate::kwargs::check_keywords(call, rest, &[accepted])
}

fn to_py(py: Python<'_>, e: Error, file: &PerfFile<'_>) -> PyErr {
    crate::error::analysis_to_py(py, e, file.path())
}

/// Columns → a named ArrowTable.
fn table(name: &str, cols: Vec<(&str, ArrayRef)>) -> PyResult<ArrowTable> {
    let batch = RecordBatch::try_from_iter(cols)
        .map_err(|e| PyRuntimeError::new_err(format!("building Arrow columns: {e}")))?;
    Ok(ArrowTable::new(name, batch.schema(), vec![batch]))
}

fn u64s(v: Vec<u64>) -> ArrayRef {
    Arc::new(UInt64Array::from(v))
}
fn u32s(v: Vec<u32>) -> ArrayRef {
    Arc::new(UInt32Array::from(v))
}
fn strs(v: Vec<String>) -> ArrayRef {
    Arc::new(StringArray::from(v))
}

/// The result of a scheduler analysis: its table (``to_arrow()``, ``to_pandas()``,
/// ``to_polars()``, or any Arrow consumer directly), the text ``perf sched`` prints
/// (``text()``, exactly what the ``perfdata sched`` command prints), and perf's anomaly counters
/// (``info``). Shows as a table in Jupyter.
#[pyclass(module = "perfdata", name = "AnalysisResult", frozen)]
pub struct AnalysisResult {
    kind: &'static str,
    table: Py<ArrowTable>,
    summary: Option<Py<ArrowTable>>,
    text: String,
    info: Vec<(&'static str, u64)>,
    diagnostics: Vec<String>,
    /// Latency analyses: one point per row, for hist(), heatmap(), percentiles().
    points: Option<Points>,
}

impl AnalysisResult {
    /// What the analysis noted while reading (for the file's diagnostics).
    pub fn diagnostic_list(&self) -> &[String] {
        &self.diagnostics
    }
}

/// The latencies of a latency analysis with what groups them.
pub struct Points {
    /// Latency, ns.
    latency_ns: Vec<u64>,
    /// When it ended (completion, switch-in), ns.
    time_ns: Vec<u64>,
    /// Per-disk group name (`MAJOR,MINOR`), block I/O only.
    disk: Vec<String>,
    /// Per-flag group name (rwbs), block I/O only.
    flags: Vec<String>,
}

impl AnalysisResult {
    fn points(&self) -> PyResult<&Points> {
        self.points.as_ref().ok_or_else(|| {
            PyValueError::new_err(format!("{} has no latencies (block_latency and wakeup_latency have)", self.kind))
        })
    }
}

/// A latency histogram: bcc's text (``print(h)``, ``h.text``) and a bar chart in Jupyter.
#[pyclass(module = "perfdata", name = "Histogram", frozen)]
pub struct Histogram {
    /// The text bcc's tools print.
    #[pyo3(get)]
    text: String,
    /// The chart (an SVG document).
    #[pyo3(get)]
    svg: String,
}

#[pymethods]
impl Histogram {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn _repr_svg_(&self) -> &str {
        &self.svg
    }

    fn __repr__(&self) -> String {
        format!("<perfdata.Histogram {} lines>", self.text.lines().count())
    }
}

/// A picture (an SVG document): inline in Jupyter, ``save(path)`` for a browser.
#[pyclass(module = "perfdata", name = "Picture", frozen)]
pub struct Picture {
    /// The SVG document.
    #[pyo3(get)]
    svg: String,
}

#[pymethods]
impl Picture {
    /// Write the SVG to ``path``.
    ///
    /// Example:
    ///     >>> perfdata.open("block.data").block_latency().heatmap().save("heat.svg")
    ///     >>> "<svg" in open("heat.svg").read()
    ///     True
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        crate::flamegraph::write_svg(py, &path, &self.svg)
    }

    fn _repr_svg_(&self) -> &str {
        &self.svg
    }

    fn __repr__(&self) -> String {
        format!("<perfdata.Picture {} bytes of SVG>", self.svg.len())
    }
}

/// A heat map's ``max_lat``/``min_lat``: a number of µs, or a string with a unit (``"2ms"``), in ns.
fn latency_arg(v: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<u64>> {
    use perfdata_analysis::latency::heatmap::parse_latency;
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    if v.is_instance_of::<PyString>() {
        let s: String = v.extract()?;
        return parse_latency(&s).map(Some).map_err(|e| PyValueError::new_err(format!("{name}: {e}")));
    }
    let us: f64 = v.extract().map_err(|_| {
        PyTypeError::new_err(format!("{name} must be a number of µs or a string such as '500us', '2ms'"))
    })?;
    let ns = (us * 1e3).round();
    if !ns.is_finite() || ns < 0.0 || ns >= u64::MAX as f64 {
        return Err(PyValueError::new_err(format!("{name}: {us} µs is out of range")));
    }
    Ok(Some(ns as u64))
}

/// Log2 buckets as horizontal bars, the bucket ranges on the left.
fn hist_svg(sections: &[(String, perfdata_analysis::latency::hist::Log2Hist)], label: &str) -> String {
    use std::fmt::Write;
    let rows: usize = sections.iter().map(|(_, h)| h.rows().len() + 1).sum();
    let (w, row_h) = (640u32, 16u32);
    let height = 30 + row_h * rows.max(1) as u32;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="{w}" height="{height}" xmlns="http://www.w3.org/2000/svg"><style>text {{ font-family: monospace; font-size: 12px; }}</style>
<text x="10" y="18">{label} : count</text>"#
    );
    let mut y = 30u32;
    for (name, h) in sections {
        if !name.is_empty() {
            let _ =
                writeln!(o, r#"<text x="10" y="{}" font-weight="bold">{}</text>"#, y + 12, crate::html::escape(name));
            y += row_h;
        }
        let max = h.rows().iter().map(|r| r.2).max().unwrap_or(0).max(1);
        for (lo, hi, n) in h.rows() {
            let bar = (u64::from(w - 260) * n / max) as u32;
            let _ = writeln!(
                o,
                r#"<text x="170" y="{ty}" text-anchor="end">{lo} -&gt; {hi}</text><rect x="180" y="{y}" width="{bar}" height="{bh}" fill="rgb(70,130,180)"><title>{n}</title></rect><text x="{tx}" y="{ty}">{n}</text>"#,
                ty = y + 12,
                bh = row_h - 3,
                tx = 184 + bar
            );
            y += row_h;
        }
    }
    o.push_str("</svg>\n");
    o
}

#[pymethods]
impl AnalysisResult {
    /// The latencies as bcc's log2 histogram (biolatency / runqlat layout).
    ///
    /// Args:
    ///     unit: ``"us"`` (usecs) or ``"ms"`` (msecs).
    ///     per: None, ``"disk"`` (biolatency ``-D``) or ``"flags"`` (``-F``); block I/O only.
    ///
    /// Returns:
    ///     Histogram: ``print(h)`` gives bcc's text; Jupyter shows bars.
    ///
    /// Example:
    ///     >>> print(perfdata.open("block.data").block_latency().hist(per="disk").text.splitlines()[1])
    ///     disk = 254,0
    #[pyo3(signature = (unit = "us", per = None))]
    fn hist(&self, unit: &str, per: Option<&str>) -> PyResult<Histogram> {
        use perfdata_analysis::latency::hist::{bcc_sections, Log2Hist};
        let p = self.points()?;
        let (div, label) = match unit {
            "us" | "usecs" => (1000, "usecs"),
            "ms" | "msecs" => (1_000_000, "msecs"),
            o => return Err(PyValueError::new_err(format!("unit must be 'us' or 'ms', not {o:?}"))),
        };
        let groups: Option<(&str, &Vec<String>)> = match per {
            None => None,
            Some("disk") => Some(("disk", &p.disk)),
            Some("flags") | Some("flag") => Some(("flags", &p.flags)),
            Some(o) => return Err(PyValueError::new_err(format!("per must be None, 'disk' or 'flags', not {o:?}"))),
        };
        let mut sections: Vec<(String, Log2Hist)> = Vec::new();
        match groups {
            None => {
                let mut h = Log2Hist::new();
                p.latency_ns.iter().for_each(|&l| h.add(l / div));
                sections.push((String::new(), h));
            }
            Some((_, names)) if names.len() != p.latency_ns.len() => {
                return Err(PyValueError::new_err(format!("{} rows have no {}", self.kind, per.unwrap_or(""))));
            }
            Some((_, names)) => {
                let mut by: std::collections::BTreeMap<&str, Log2Hist> = std::collections::BTreeMap::new();
                for (l, n) in p.latency_ns.iter().zip(names) {
                    by.entry(n.as_str()).or_default().add(l / div);
                }
                sections.extend(by.into_iter().map(|(n, h)| (n.to_string(), h)));
            }
        }
        let text = match groups {
            None => sections.first().map(|(_, h)| h.bcc_text(label)).unwrap_or_default(),
            Some((header, _)) => bcc_sections(header, label, sections.iter().map(|(n, h)| (n.as_str(), h))),
        };
        let named: Vec<(String, Log2Hist)> = match groups {
            None => sections,
            Some((header, _)) => sections.into_iter().map(|(n, h)| (format!("{header} = {n}"), h)).collect(),
        };
        Ok(Histogram { text, svg: hist_svg(&named, label) })
    }

    /// A latency heat map (time columns × latency rows, colour by count, a tooltip per cell), as
    /// Brendan Gregg's trace2heatmap.pl draws it. The latency axis ends at the 99.9th percentile
    /// unless ``max_lat`` says otherwise; what lies beyond either end of the axis is counted in a
    /// labelled row above (or below) it.
    ///
    /// Args:
    ///     column_ms: the width of a time column (default: about 100 columns over the recording).
    ///     rows: latency rows (1 to 1000).
    ///     max_lat: top of the latency axis: a number of µs or a string with a unit (``"500us"``,
    ///         ``"2ms"``, ``"1.5s"``); default the 99.9th percentile.
    ///     min_lat: bottom of the latency axis, as ``max_lat``; default 0 (with ``log``, the
    ///         smallest latency rounded down to 1, 2 or 5 × 10^k).
    ///     log: a logarithmic latency axis (rows in geometric progression).
    ///     width, height: the picture's size in pixels.
    ///     title: the title (default: what the latencies are).
    ///
    /// Returns:
    ///     Picture
    ///
    /// Example:
    ///     >>> perfdata.open("block.data").block_latency().heatmap(max_lat="150us", log=True).svg.count("<title>") > 10
    ///     True
    #[pyo3(signature = (column_ms = None, rows = 50, *, max_lat = None, min_lat = None, log = false, width = 1000, height = 500, title = None))]
    #[allow(clippy::too_many_arguments)]
    fn heatmap(
        &self,
        column_ms: Option<f64>,
        rows: u32,
        max_lat: Option<&Bound<'_, PyAny>>,
        min_lat: Option<&Bound<'_, PyAny>>,
        log: bool,
        width: u32,
        height: u32,
        title: Option<String>,
    ) -> PyResult<Picture> {
        use perfdata_analysis::latency::heatmap::{Heatmap, HeatmapOptions};
        let p = self.points()?;
        if !(1..=1000).contains(&rows) {
            return Err(PyValueError::new_err(format!("rows must be 1 to 1000, not {rows}")));
        }
        let (max_latency_ns, min_latency_ns) = (latency_arg(max_lat, "max_lat")?, latency_arg(min_lat, "min_lat")?);
        if let (Some(lo), Some(hi)) = (min_latency_ns, max_latency_ns) {
            if lo >= hi {
                return Err(PyValueError::new_err(format!("min_lat ({lo} ns) must be below max_lat ({hi} ns)")));
            }
        }
        let points: Vec<(u64, u64)> = p.time_ns.iter().copied().zip(p.latency_ns.iter().copied()).collect();
        let (default_title, what) = match self.kind {
            "block_latency" => ("Block I/O latency", "I/Os"),
            "wakeup_latency" => ("Wakeup latency", "waits"),
            _ => ("Latency", "events"),
        };
        let opts = HeatmapOptions {
            title: title.unwrap_or_else(|| default_title.to_string()),
            what: what.to_string(),
            rows,
            column_ns: column_ms.filter(|m| m.is_finite() && *m > 0.0).map(|m| (m * 1e6).max(1.0) as u64),
            min_latency_ns,
            max_latency_ns,
            log,
            width,
            height,
            ..Default::default()
        };
        Ok(Picture { svg: Heatmap::new(&points, &opts).svg(&opts) })
    }

    /// Latency percentiles (nearest rank), ns: ``count``, ``min``, ``avg``, ``p50``, ``p90``,
    /// ``p99``, ``p999``, ``max``.
    ///
    /// Example:
    ///     >>> p = perfdata.open("block.data").block_latency().percentiles()
    ///     >>> p["p50"] <= p["p99"] <= p["max"]
    ///     True
    fn percentiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use perfdata_analysis::latency::hist::Percentiles;
        let mut v = self.points()?.latency_ns.clone();
        let p = Percentiles::from_values(&mut v);
        let d = PyDict::new(py);
        for (k, v) in [
            ("count", p.count),
            ("min", p.min),
            ("avg", p.avg),
            ("p50", p.p50),
            ("p90", p.p90),
            ("p99", p.p99),
            ("p999", p.p999),
            ("max", p.max),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// What made it: ``"latency"``, ``"map"`` or ``"timehist"``.
    #[getter]
    fn kind(&self) -> &str {
        self.kind
    }

    /// perf's anomaly counters (context switch bugs, unordered timestamps, lost events…) and
    /// row counts, as a dict.
    ///
    /// Example:
    ///     >>> perfdata.open("sched.data").sched_latency().info["context_switch_bugs"] >= 0
    ///     True
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.info {
            d.set_item(*k, *v)?;
        }
        Ok(d)
    }

    /// Why reading stopped early, if it did (a truncated or damaged file: the rows before it
    /// are all there).
    #[getter]
    fn diagnostics(&self) -> Vec<String> {
        self.diagnostics.clone()
    }

    /// The text ``perf sched`` prints (with ``compat="perf-6.1"``: perf 6.1's, byte for byte).
    ///
    /// Example:
    ///     >>> print(perfdata.open("sched.data").sched_latency(compat="perf-6.1").text().splitlines()[2][:40])
    ///       Task                  |   Runtime ms
    fn text(&self) -> &str {
        &self.text
    }

    /// The rows as an ``ArrowTable`` (columns in snake_case, times in integer ns).
    ///
    /// Example:
    ///     >>> perfdata.open("sched.data").sched_map().to_arrow().column_names[:3]
    ///     ['time_ns', 'cpu', 'tid']
    fn to_arrow(&self, py: Python<'_>) -> Py<ArrowTable> {
        self.table.clone_ref(py)
    }

    /// The per-task summary of ``sched_timehist(summary=True)`` as an ``ArrowTable`` (None
    /// otherwise).
    ///
    /// Example:
    ///     >>> s = perfdata.open("sched.data").sched_timehist(summary=True).summary()
    ///     >>> s.column_names[:4]
    ///     ['comm', 'tid', 'pid', 'ppid']
    fn summary(&self, py: Python<'_>) -> Option<Py<ArrowTable>> {
        self.summary.as_ref().map(|s| s.clone_ref(py))
    }

    /// The rows as a pandas DataFrame (needs pandas and pyarrow); ``dtypes`` as
    /// ``ArrowTable.to_pandas``: ``"arrow"`` (strings Arrow-backed) or ``"object"``.
    ///
    /// Example:
    ///     >>> df = perfdata.open("sched.data").sched_latency(by="tid").to_pandas()
    ///     >>> list(df.columns[:3])
    ///     ['task', 'tid', 'tids']
    #[pyo3(signature = (*, dtypes = "arrow"))]
    fn to_pandas<'py>(&self, py: Python<'py>, dtypes: &str) -> PyResult<Bound<'py, PyAny>> {
        let kw = PyDict::new(py);
        kw.set_item("dtypes", dtypes)?;
        ArrowTable::convert_with(self.table.bind(py), "to_pandas", "pandas pyarrow", Some(&kw))
    }

    /// The rows as a polars DataFrame (needs polars).
    ///
    /// Example:
    ///     >>> perfdata.open("sched.data").sched_timehist().to_polars().height
    ///     117
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ArrowTable::convert_with(self.table.bind(py), "to_polars", "polars", None)
    }

    /// Export the rows as an Arrow C stream (the Arrow PyCapsule interface).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.table.bind(py).call_method1("__arrow_c_stream__", (requested_schema,))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.table.bind(py).len()
    }

    /// In Jupyter: the counters and the first rows.
    fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
        let info: Vec<(&str, Option<String>)> = self.info.iter().map(|(k, v)| (*k, Some(v.to_string()))).collect();
        let table: String = self.table.bind(py).call_method0("_repr_html_")?.extract()?;
        Ok(format!(
            "<div><b>perfdata.AnalysisResult</b> {}{}{}{}</div>",
            self.kind,
            crate::html::key_values(&info),
            table,
            crate::html::diagnostics(&self.diagnostics, 5)
        ))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<perfdata.AnalysisResult {} {} rows>", self.kind, self.table.bind(py).len()?))
    }
}

/// The scheduler timeline picture: a lane per CPU coloured by task, run-queue waits in red.
/// Inline in Jupyter; ``save(path)`` for a browser (search, zoom).
#[pyclass(module = "perfdata", name = "SchedTimeline", frozen)]
pub struct SchedTimeline {
    /// The SVG document.
    #[pyo3(get)]
    svg: String,
    /// Context switches read.
    #[pyo3(get)]
    switches: u64,
}

#[pymethods]
impl SchedTimeline {
    /// Write the SVG to ``path``.
    ///
    /// Example:
    ///     >>> perfdata.open("sched.data").sched_timeline().save("sched.svg")
    ///     >>> open("sched.svg").read().startswith("<?xml")
    ///     True
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        crate::flamegraph::write_svg(py, &path, &self.svg)
    }

    fn _repr_svg_(&self) -> &str {
        &self.svg
    }

    /// The SVG in an ``<iframe>`` (its script runs apart from the notebook's page).
    fn _repr_html_(&self) -> String {
        crate::flamegraph::svg_iframe(&self.svg)
    }

    fn __repr__(&self) -> String {
        format!("<perfdata.SchedTimeline {} switches, {} bytes of SVG>", self.switches, self.svg.len())
    }
}

/// `PerfData.sched_latency`.
pub fn latency(
    py: Python<'_>,
    file: &PerfFile<'_>,
    by: &str,
    sort: Option<&Bound<'_, PyAny>>,
    compat_: Option<&str>,
    cpu: Option<u32>,
) -> PyResult<AnalysisResult> {
    const CALL: &str = "PerfData.sched_latency()";
    let by = match by {
        "comm" => GroupBy::Comm,
        "tid" => GroupBy::Tid,
        // perf's -p/--pids names the kernel's per-thread pid: one row per thread, as by="tid".
        "pid" => {
            return Err(PyValueError::new_err(format!(
                "{CALL}: by must be 'comm' (one row per command name, perf's default) or 'tid' (one row per \
                 thread), not 'pid': perf sched latency -p (--pids) groups by thread, which is by='tid'; \
                 there is no per-process grouping"
            )))
        }
        o => {
            return Err(PyValueError::new_err(format!(
                "{CALL}: by must be 'comm' (one row per command name, perf's default) or 'tid' (one row per \
                 thread, perf's -p), not {}",
                crate::kwargs::py_repr(o)
            )))
        }
    };
    let sort: Vec<SortKey> = match sort.filter(|s| !s.is_none()) {
        None => DEFAULT_SORT.to_vec(),
        Some(s) => {
            let keys: Vec<String> = if s.is_instance_of::<PyString>() {
                s.extract::<String>()?.split(',').map(str::to_string).collect()
            } else {
                s.extract()?
            };
            keys.iter()
                .map(|k| k.parse())
                .collect::<Result<_, String>>()
                .map_err(|e| PyValueError::new_err(format!("{CALL}: sort: {e}")))?
        }
    };
    let opts = LatencyOptions { by, sort, compat: compat(CALL, compat_)?, cpu };
    let lat = py.detach(|| sched_latency(file, &opts)).map_err(|e| to_py(py, e, file))?;
    let r = &lat.rows;
    let t = table(
        "sched_latency",
        vec![
            ("task", strs(r.iter().map(|r| r.task.clone()).collect())),
            ("tid", u32s(r.iter().map(|r| r.tid).collect())),
            ("tids", u32s(r.iter().map(|r| r.tids).collect())),
            ("runtime_ns", u64s(r.iter().map(|r| r.runtime_ns).collect())),
            ("switches", u64s(r.iter().map(|r| r.switches).collect())),
            ("total_delay_ns", u64s(r.iter().map(|r| r.total_delay_ns).collect())),
            ("avg_delay_ns", u64s(r.iter().map(|r| r.avg_delay_ns).collect())),
            ("max_delay_ns", u64s(r.iter().map(|r| r.max_delay_ns).collect())),
            ("max_delay_start_ns", u64s(r.iter().map(|r| r.max_delay_start_ns).collect())),
            ("max_delay_end_ns", u64s(r.iter().map(|r| r.max_delay_end_ns).collect())),
        ],
    )?;
    let i = lat.info;
    Ok(AnalysisResult {
        kind: "latency",
        table: Py::new(py, t)?,
        summary: None,
        text: lat.text(),
        info: vec![
            ("context_switch_bugs", i.context_switch_bugs),
            ("nr_timestamps", i.nr_timestamps),
            ("unordered_timestamps", i.unordered_timestamps),
            ("lost_events", i.lost_events),
            ("lost_chunks", i.lost_chunks),
            ("nr_events", i.nr_events),
            ("time_reversals", i.time_reversals),
        ],
        diagnostics: lat.diagnostics,
        points: None,
    })
}

/// `PerfData.sched_map`.
pub fn map(py: Python<'_>, file: &PerfFile<'_>, compact: bool, cpus: Option<Vec<u32>>) -> PyResult<AnalysisResult> {
    let opts = MapOptions { compact, cpus, nr_cpus: None };
    #[derive(Default)]
    struct Cols {
        time: Vec<u64>,
        cpu: Vec<u32>,
        tid: Vec<u32>,
        short: Vec<String>,
        comm: Vec<Option<String>>,
        columns: Vec<String>,
        text: String,
    }
    let built = py.detach(|| {
        let mut c = Cols::default();
        let s = sched_map_each(file, &opts, |r| {
            c.time.push(r.time_ns);
            c.cpu.push(r.cpu);
            c.tid.push(r.tid);
            let own = r.columns.iter().find(|(cpu, _)| *cpu == r.cpu).and_then(|(_, n)| *n);
            c.short.push(own.map(|n| n.as_str()).unwrap_or_default());
            c.comm.push(r.new_name.as_ref().map(|n| n.comm.clone()));
            let cols: Vec<String> =
                r.columns.iter().map(|(_, n)| n.map(|n| n.as_str()).unwrap_or_else(|| "-".into())).collect();
            c.columns.push(cols.join(" "));
            r.write_text(&mut c.text);
        })?;
        Ok::<_, Error>((c, s))
    });
    let (c, s) = built.map_err(|e| to_py(py, e, file))?;
    let t = table(
        "sched_map",
        vec![
            ("time_ns", u64s(c.time)),
            ("cpu", u32s(c.cpu)),
            ("tid", u32s(c.tid)),
            ("short_name", strs(c.short)),
            ("new_name_comm", Arc::new(StringArray::from(c.comm)) as ArrayRef),
            ("columns", strs(c.columns)),
        ],
    )?;
    Ok(AnalysisResult {
        kind: "map",
        table: Py::new(py, t)?,
        summary: None,
        text: c.text,
        info: vec![("rows", s.rows), ("tasks", s.tasks)],
        diagnostics: s.diagnostics,
        points: None,
    })
}

/// `PerfData.sched_timehist`'s options.
pub struct TimehistArgs {
    /// The options.
    pub opts: TimehistOptions,
}

/// `PerfData.sched_timehist`.
pub fn timehist(py: Python<'_>, file: &PerfFile<'_>, a: TimehistArgs) -> PyResult<AnalysisResult> {
    let opts = a.opts;
    #[derive(Default)]
    struct Cols {
        time: Vec<u64>,
        cpu: Vec<u32>,
        tid: Vec<u32>,
        pid: Vec<u32>,
        comm: Vec<String>,
        wait: Vec<u64>,
        sleep: Vec<u64>,
        iowait: Vec<u64>,
        preempt: Vec<u64>,
        delay: Vec<u64>,
        run: Vec<u64>,
        state: Vec<String>,
        label: Vec<String>,
        next_comm: Vec<String>,
        next_pid: Vec<u32>,
        idle: Vec<bool>,
        text: String,
    }
    let ncpus = perfdata_analysis::sched::timehist::header_cpus(file);
    let built = py.detach(|| {
        let mut c = Cols::default();
        let mut text = TimehistText::new(&opts);
        if opts.summary != SummaryMode::Only {
            c.text = text.header(ncpus + 1);
        }
        let th = sched_timehist_each(file, &opts, |r| {
            text.row(r, &mut c.text);
            if let Row::Switch(r) = r {
                c.time.push(r.time_ns);
                c.cpu.push(r.cpu);
                c.tid.push(r.tid);
                c.pid.push(r.pid);
                c.comm.push(r.comm.to_string());
                c.wait.push(r.wait_ns);
                c.sleep.push(r.sleep_ns);
                c.iowait.push(r.iowait_ns);
                c.preempt.push(r.preempt_ns);
                c.delay.push(r.delay_ns);
                c.run.push(r.run_ns);
                c.state.push(r.state.to_string());
                c.label.push(r.state_label.to_string());
                c.next_comm.push(r.next_comm.to_string());
                c.next_pid.push(r.next_pid);
                c.idle.push(r.idle);
            }
        })?;
        if let Some(s) = &th.summary {
            text.summary(s, &mut c.text);
        }
        Ok::<_, Error>((c, th))
    });
    let (c, th) = built.map_err(|e| to_py(py, e, file))?;
    let t = table(
        "sched_timehist",
        vec![
            ("time_ns", u64s(c.time)),
            ("cpu", u32s(c.cpu)),
            ("tid", u32s(c.tid)),
            ("pid", u32s(c.pid)),
            ("comm", strs(c.comm)),
            ("wait_ns", u64s(c.wait)),
            ("sleep_ns", u64s(c.sleep)),
            ("iowait_ns", u64s(c.iowait)),
            ("preempt_ns", u64s(c.preempt)),
            ("delay_ns", u64s(c.delay)),
            ("run_ns", u64s(c.run)),
            ("state", strs(c.state)),
            ("state_label", strs(c.label)),
            ("next_comm", strs(c.next_comm)),
            ("next_pid", u32s(c.next_pid)),
            ("idle", Arc::new(BooleanArray::from(c.idle)) as ArrayRef),
        ],
    )?;
    let summary = match &th.summary {
        None => None,
        Some(s) => {
            let ts = &s.tasks;
            let st = table(
                "sched_timehist_summary",
                vec![
                    ("comm", strs(ts.iter().map(|t| t.comm.clone()).collect())),
                    ("tid", u32s(ts.iter().map(|t| t.tid).collect())),
                    ("pid", u32s(ts.iter().map(|t| t.pid).collect())),
                    ("ppid", Arc::new(Int64Array::from(ts.iter().map(|t| t.ppid).collect::<Vec<_>>())) as ArrayRef),
                    ("terminated", Arc::new(BooleanArray::from(ts.iter().map(|t| t.terminated).collect::<Vec<_>>()))),
                    ("count", u64s(ts.iter().map(|t| t.count).collect())),
                    ("run_ns", u64s(ts.iter().map(|t| t.run_ns).collect())),
                    ("min_run_ns", u64s(ts.iter().map(|t| t.min_run_ns).collect())),
                    ("avg_run_ns", u64s(ts.iter().map(|t| t.avg_run_ns).collect())),
                    ("max_run_ns", u64s(ts.iter().map(|t| t.max_run_ns).collect())),
                    ("stddev_pct", Arc::new(Float64Array::from(ts.iter().map(|t| t.stddev_pct).collect::<Vec<_>>()))),
                    ("migrations", u64s(ts.iter().map(|t| t.migrations).collect())),
                    ("sleep_ns", u64s(ts.iter().map(|t| t.sleep_ns).collect())),
                    ("iowait_ns", u64s(ts.iter().map(|t| t.iowait_ns).collect())),
                    ("preempt_ns", u64s(ts.iter().map(|t| t.preempt_ns).collect())),
                    ("delay_ns", u64s(ts.iter().map(|t| t.delay_ns).collect())),
                ],
            )?;
            Some(Py::new(py, st)?)
        }
    };
    let mut info = vec![("switches", th.switches)];
    if let Some(s) = &th.summary {
        info.extend([
            ("tasks", s.total_tasks),
            ("total_switches", s.total_switches),
            ("total_run_ns", s.total_run_ns),
            ("window_ns", s.window_ns),
        ]);
    }
    Ok(AnalysisResult {
        kind: "timehist",
        table: Py::new(py, t)?,
        summary,
        text: c.text,
        info,
        diagnostics: th.diagnostics,
        points: None,
    })
}

/// `PerfData.sched_timeline`.
pub fn timeline(
    py: Python<'_>,
    file: &PerfFile<'_>,
    shared: &crate::iter::Shared,
    opts: &TimelineOptions,
) -> PyResult<SchedTimeline> {
    let tl = py.detach(|| sched_timeline(file, opts)).map_err(|e| to_py(py, e, file))?;
    shared.note(tl.diagnostics.iter().cloned());
    Ok(SchedTimeline { svg: tl.svg(), switches: tl.switches })
}

/// `PerfData.block_latency`.
pub fn block_latency(
    py: Python<'_>,
    file: &PerfFile<'_>,
    start: &str,
    filter: perfdata_analysis::latency::block::BlockFilter,
    msecs: bool,
) -> PyResult<AnalysisResult> {
    use perfdata_analysis::latency::block::{block_latency, BlockOptions, Start};
    let queued = match start {
        "issue" => false,
        "insert" => true,
        o => return Err(PyValueError::new_err(format!("start must be 'issue' or 'insert', not {o:?}"))),
    };
    use perfdata_analysis::latency::hist::{Log2Hist, Percentiles};
    let opts = BlockOptions { start: if queued { Start::Insert } else { Start::Issue }, filter };
    let r = py.detach(|| block_latency(file, &opts)).map_err(|e| to_py(py, e, file))?;
    let ios = &r.ios;
    let (div, label) = if msecs { (1_000_000, "msecs") } else { (1000, "usecs") };
    let mut h = Log2Hist::new();
    for io in ios {
        h.add(io.latency_ns / div);
    }
    let mut lat: Vec<u64> = ios.iter().map(|i| i.latency_ns).collect();
    let p = Percentiles::from_values(&mut lat);
    let t = table(
        "block_latency",
        vec![
            ("dev_major", u32s(ios.iter().map(|i| i.dev_major).collect())),
            ("dev_minor", u32s(ios.iter().map(|i| i.dev_minor).collect())),
            ("sector", u64s(ios.iter().map(|i| i.sector).collect())),
            ("nr_sector", u32s(ios.iter().map(|i| i.nr_sector).collect())),
            ("bytes", u32s(ios.iter().map(|i| i.bytes).collect())),
            ("rwbs", strs(ios.iter().map(|i| i.rwbs.to_str_lossy().into_owned()).collect())),
            ("comm", strs(ios.iter().map(|i| i.comm.to_str_lossy().into_owned()).collect())),
            ("pid", u32s(ios.iter().map(|i| i.pid).collect())),
            ("tid", u32s(ios.iter().map(|i| i.tid).collect())),
            ("cpu", u32s(ios.iter().map(|i| i.cpu).collect())),
            ("start_ns", u64s(ios.iter().map(|i| i.start_ns).collect())),
            ("complete_ns", u64s(ios.iter().map(|i| i.complete_ns).collect())),
            ("latency_ns", u64s(ios.iter().map(|i| i.latency_ns).collect())),
            ("queue_ns", Arc::new(UInt64Array::from(ios.iter().map(|i| i.queue_ns).collect::<Vec<_>>())) as ArrayRef),
        ],
    )?;
    let c = r.counts.clone();
    let points = Points {
        latency_ns: ios.iter().map(|i| i.latency_ns).collect(),
        time_ns: ios.iter().map(|i| i.complete_ns).collect(),
        disk: ios.iter().map(|i| format!("{},{}", i.dev_major, i.dev_minor)).collect(),
        flags: ios.iter().map(|i| i.rwbs.to_str_lossy().into_owned()).collect(),
    };
    Ok(AnalysisResult {
        points: Some(points),
        kind: "block_latency",
        table: Py::new(py, t)?,
        summary: None,
        text: h.bcc_text(label),
        info: vec![
            ("paired", c.paired),
            ("starts", c.starts),
            ("completes", c.completes),
            ("filtered", c.filtered),
            ("unmatched_completes", c.unmatched_completes),
            ("unmatched_starts", c.unmatched_starts),
            ("overwritten_starts", c.overwritten_starts),
            ("p50_ns", p.p50),
            ("p90_ns", p.p90),
            ("p99_ns", p.p99),
            ("p999_ns", p.p999),
            ("max_ns", p.max),
        ],
        diagnostics: c.diagnostics,
    })
}

/// `PerfData.wakeup_latency`.
pub fn wakeup_latency(py: Python<'_>, file: &PerfFile<'_>, preempted: bool, msecs: bool) -> PyResult<AnalysisResult> {
    use perfdata_analysis::latency::hist::{Log2Hist, Percentiles};
    use perfdata_analysis::latency::wakeup::{wakeup_latency_each, WakeupOptions};
    let (ev, diagnostics) = py
        .detach(|| {
            let mut ev = Vec::new();
            wakeup_latency_each(file, &WakeupOptions { preempted }, |e| ev.push(*e)).map(|d| (ev, d))
        })
        .map_err(|e| to_py(py, e, file))?;
    let (div, label) = if msecs { (1_000_000, "msecs") } else { (1000, "usecs") };
    let mut h = Log2Hist::new();
    for e in &ev {
        h.add(e.delay_ns / div);
    }
    let mut d: Vec<u64> = ev.iter().map(|e| e.delay_ns).collect();
    let p = Percentiles::from_values(&mut d);
    let t = table(
        "wakeup_latency",
        vec![
            ("tid", u32s(ev.iter().map(|e| e.tid).collect())),
            ("comm", strs(ev.iter().map(|e| e.comm.to_str_lossy().into_owned()).collect())),
            ("cpu", u32s(ev.iter().map(|e| e.cpu).collect())),
            ("wake_ns", u64s(ev.iter().map(|e| e.wake_ns).collect())),
            ("run_ns", u64s(ev.iter().map(|e| e.run_ns).collect())),
            ("delay_ns", u64s(ev.iter().map(|e| e.delay_ns).collect())),
            ("preempted", Arc::new(BooleanArray::from(ev.iter().map(|e| e.preempted).collect::<Vec<_>>())) as ArrayRef),
        ],
    )?;
    let points = Points {
        latency_ns: ev.iter().map(|e| e.delay_ns).collect(),
        time_ns: ev.iter().map(|e| e.run_ns).collect(),
        disk: Vec::new(),
        flags: Vec::new(),
    };
    Ok(AnalysisResult {
        points: Some(points),
        kind: "wakeup_latency",
        table: Py::new(py, t)?,
        summary: None,
        text: h.bcc_text(label),
        info: vec![
            ("waits", ev.len() as u64),
            ("p50_ns", p.p50),
            ("p90_ns", p.p90),
            ("p99_ns", p.p99),
            ("p999_ns", p.p999),
            ("max_ns", p.max),
        ],
        diagnostics,
    })
}

/// `PerfData.off_cpu`: the keyword arguments `state`, `min_us` and `folded()`'s (its `pid`,
/// `tid`, `time` select intervals); `also`: other keywords allowed; `call`: the method, as argument
/// errors name it.
pub fn off_cpu(
    py: Python<'_>,
    call: &str,
    file: &PerfFile<'_>,
    kw: Option<&Bound<'_, PyDict>>,
    also: &[&str],
) -> PyResult<perfdata_analysis::folded::FoldedStacks> {
    use perfdata_analysis::latency::offcpu::{off_cpu_folded, OffCpuOptions, OffCpuState};
    let (opts, fold) = (|| {
        let mut allowed = vec!["state", "min_us"];
        allowed.extend_from_slice(also);
        crate::flamegraph::check_keys(kw, &allowed)?;
        let item = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            Ok(match kw {
                Some(d) => d.get_item(k)?.filter(|v| !v.is_none()),
                None => None,
            })
        };
        let state: Option<OffCpuState> = match item("state")? {
            None => None,
            Some(s) => {
                let s: String = s.extract()?;
                if s == "all" {
                    None
                } else {
                    Some(s.parse().map_err(PyValueError::new_err)?)
                }
            }
        };
        let min_us: f64 = item("min_us")?.map(|v| v.extract()).transpose()?.unwrap_or(0.0);
        let opts = OffCpuOptions {
            state,
            min_ns: (min_us.max(0.0) * 1000.0) as u64,
            time: time_value(item("time")?.as_ref())?,
            pid: item("pid")?.map(|v| v.extract()).transpose()?,
            tid: item("tid")?.map(|v| v.extract()).transpose()?,
        };
        // The frame options of folded(); its filters are the intervals' here.
        let fold = crate::flamegraph::fold_options(kw)?.options;
        Ok((opts, perfdata_analysis::folded::FoldedOptions { pid: None, tid: None, time: None, ..fold }))
    })()
    .map_err(|e| crate::kwargs::in_call(py, call, e))?;
    let (stacks, _) = py.detach(|| off_cpu_folded(file, &opts, &fold)).map_err(|e| to_py(py, e, file))?;
    Ok(stacks)
}
