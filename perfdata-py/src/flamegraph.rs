//! Folded stacks and flame graphs from Python: `PerfData.folded()` / `folded_text()` /
//! `write_folded()` / `flamegraph()` and the `FlameGraph` object (`perfdata.flamegraph_diff()`, which opens
//! recordings, is in perfdata.rs).
//!
//! The options are those of `perfdata folded` (perfdata-cli/src/folded.rs), taken as keyword
//! arguments and turned into `perfdata_analysis::folded::FoldedOptions`; the work
//! (`perfdata_analysis::folded::folded`, `perfdata_analysis::flamegraph`) runs without the GIL.

use crate::error;
use crate::event::Event;
use perfdata_analysis::flamegraph::{self, FlameGraphOptions};
use perfdata_analysis::folded::{folded, FoldedOptions, FoldedStacks, Root};
use perfdata_analysis::options::{FoldRequest, TimeRanges};
use perfdata_analysis::symbolize::{archive, SymbolizeOptions};
use perfdata_core::PerfFile;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;

/// The keyword arguments that say how stacks are folded.
pub const FOLD_KEYS: [&str; 24] = [
    "compat",
    "weight",
    "root",
    "kernel",
    "jit",
    "inline",
    "annotate_inline",
    "srcline",
    "plain_unwind",
    "max_stack",
    "addrs",
    "event",
    "all_events",
    "tidy",
    "tidy_java",
    "pid",
    "tid",
    "comm",
    "time",
    "symfs",
    "buildid_dir",
    "kallsyms",
    "symbols",
    "jitdump",
];

/// The palettes of `colors=` (flamegraph.pl's `--colors`, as inferno names them).
const COLORS: [&str; 16] = [
    "hot", "mem", "io", "java", "js", "perl", "python", "rust", "wakeup", "aqua", "blue", "green", "orange", "purple",
    "red", "yellow",
];

/// The keyword arguments that say how a graph looks.
pub const GRAPH_KEYS: [&str; 5] = ["title", "subtitle", "colors", "inverted", "width"];

/// How to fold, and what a unit of weight is called in the graph's tooltips.
pub struct Fold {
    /// The core's options.
    pub options: FoldedOptions,
    /// "samples" or "period".
    pub count_name: &'static str,
}

fn get<'py>(kw: Option<&Bound<'py, PyDict>>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    match kw {
        Some(d) => d.get_item(key),
        None => Ok(None),
    }
}

/// A keyword's value, None when absent or None.
fn opt<'py, T: FromPyObjectOwned<'py>>(kw: Option<&Bound<'py, PyDict>>, key: &str) -> PyResult<Option<T>> {
    match get(kw, key)? {
        Some(v) if !v.is_none() => match v.extract::<T>() {
            Ok(x) => Ok(Some(x)),
            Err(e) => Err(PyTypeError::new_err(format!("{key}: {}", Into::<PyErr>::into(e)))),
        },
        _ => Ok(None),
    }
}

fn flag(kw: Option<&Bound<'_, PyDict>>, key: &str) -> PyResult<bool> {
    Ok(opt::<bool>(kw, key)?.unwrap_or(false))
}

pub fn path(kw: Option<&Bound<'_, PyDict>>, key: &str) -> PyResult<Option<PathBuf>> {
    match get(kw, key)? {
        Some(v) if !v.is_none() => match v.extract::<PathBuf>() {
            Ok(p) => Ok(Some(p)),
            Err(_) => Err(PyTypeError::new_err(format!("{key} must be a path (str or os.PathLike)"))),
        },
        _ => Ok(None),
    }
}

/// `symbols=`: a symbol archive (`perfdata archive`), unpacked into the user's cache as the
/// CLI's `--symbols` does; its directory for [`SymbolizeOptions::archive`].
pub fn symbol_archive(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Option<PathBuf>> {
    path(kw, "symbols")?
        .map(|a| archive::unpack(&a).map_err(|e| PyValueError::new_err(format!("symbols: {e}"))))
        .transpose()
}

/// Reject keyword arguments that are neither folding nor `also` options: a TypeError listing the
/// accepted keywords, without the call ([`crate::kwargs::in_call`] adds it).
pub fn check_keys(kw: Option<&Bound<'_, PyDict>>, also: &[&str]) -> PyResult<()> {
    crate::kwargs::check_keywords("", kw, &[&FOLD_KEYS, also])
}

/// `compat=` of the folding calls: the output tool to follow.
fn fold_compat(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Option<perfdata_analysis::folded::Compat>> {
    const NAMES: [&str; 2] = ["stackcollapse-pl", "perf-script-py"];
    let Some(v) = opt::<String>(kw, "compat")? else { return Ok(None) };
    v.parse().map(Some).map_err(|_| {
        crate::kwargs::unknown_value(
            "",
            "compat",
            &v,
            &crate::kwargs::one_of(&NAMES),
            crate::kwargs::FOLD_COMPAT_MEANING,
        )
    })
}

/// `time=`: perf script's `--time` (ranges in seconds or percentages), or a (start_ns, end_ns)
/// tuple with None for an open end.
fn time_range(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Option<TimeRanges>> {
    let v = get(kw, "time")?;
    if let Some(s) = v.as_ref().filter(|v| v.is_instance_of::<PyString>()) {
        return s.extract::<String>()?.parse().map(Some).map_err(PyValueError::new_err);
    }
    Ok(crate::kwargs::time_value(v.as_ref())?.map(TimeRanges::from))
}

/// A keyword parsed by the analysis crate's `FromStr` (the words the CLI accepts).
fn parsed<T: std::str::FromStr<Err = String>>(kw: Option<&Bound<'_, PyDict>>, key: &str) -> PyResult<Option<T>> {
    opt::<String>(kw, key)?.map(|v| v.parse().map_err(PyValueError::new_err)).transpose()
}

/// The folding options of the keyword arguments (see `PerfData.folded`).
pub fn fold_options(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Fold> {
    let root = match get(kw, "root")? {
        None => None,
        Some(r) if r.is_none() => Some(Root::None),
        Some(_) => parsed::<Root>(kw, "root")?,
    };
    let event = match get(kw, "event")?.filter(|e| !e.is_none()) {
        None => None,
        Some(e) => Some(match e.cast::<Event>() {
            Ok(ev) => ev.get().name().to_string(),
            Err(_) => e.extract::<String>().map_err(|_| PyTypeError::new_err("event must be a name or an Event"))?,
        }),
    };
    let request = FoldRequest {
        compat: fold_compat(kw)?,
        weight: parsed(kw, "weight")?,
        root,
        kernel: flag(kw, "kernel")?,
        jit: flag(kw, "jit")?,
        inline: opt(kw, "inline")?,
        annotate_inline: flag(kw, "annotate_inline")?,
        srcline: flag(kw, "srcline")?,
        plain_unwind: flag(kw, "plain_unwind")?,
        max_stack: opt(kw, "max_stack")?,
        addrs: flag(kw, "addrs")?,
        event,
        all_events: flag(kw, "all_events")?,
        tidy: opt(kw, "tidy")?,
        tidy_java: opt(kw, "tidy_java")?,
        pid: opt(kw, "pid")?,
        tid: opt(kw, "tid")?,
        comm: opt(kw, "comm")?,
        time: time_range(kw)?,
        symbolize: SymbolizeOptions {
            symfs: path(kw, "symfs")?,
            buildid_dir: path(kw, "buildid_dir")?,
            kallsyms: path(kw, "kallsyms")?,
            archive: symbol_archive(kw)?,
            ignore_jitdump: !opt::<bool>(kw, "jitdump")?.unwrap_or(true),
            ..SymbolizeOptions::default()
        },
    };
    let options = request.options().map_err(PyValueError::new_err)?;
    Ok(Fold { options, count_name: request.count_name() })
}

/// The graph options of the keyword arguments; `title` and `subtitle` when not given.
pub fn graph_options(
    kw: Option<&Bound<'_, PyDict>>,
    count_name: &str,
    title: &str,
    subtitle: Option<String>,
) -> PyResult<FlameGraphOptions> {
    let colors: String = opt(kw, "colors")?.unwrap_or_else(|| "hot".to_string());
    if !COLORS.contains(&colors.as_str()) {
        let accepted = crate::kwargs::one_of(&COLORS);
        return Err(crate::kwargs::unknown_value(
            "",
            "colors",
            &colors,
            &accepted,
            "colors names a flamegraph.pl palette",
        ));
    }
    Ok(FlameGraphOptions {
        title: opt(kw, "title")?.unwrap_or_else(|| title.to_string()),
        subtitle: opt(kw, "subtitle")?.or(subtitle),
        count_name: count_name.to_string(),
        colors,
        inverted: flag(kw, "inverted")?,
        width: opt(kw, "width")?,
        ..FlameGraphOptions::default()
    })
}

/// Fold the stacks of `file` without the GIL.
pub fn fold(py: Python<'_>, file: &PerfFile<'static>, options: &FoldedOptions) -> PyResult<FoldedStacks> {
    py.detach(|| folded(file, options)).map_err(|e| error::analysis_to_py(py, e, file.path()))
}

/// Folded stacks as a dict, stack → weight, in the tools' (byte) order.
pub fn stacks_dict<'py>(py: Python<'py>, stacks: &FoldedStacks) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (s, w) in &stacks.stacks {
        d.set_item(s, w)?;
    }
    Ok(d)
}

/// A drawing error (bad palette name, …) as a ValueError.
pub fn graph_error(e: perfdata_analysis::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The SVG of `stacks`, drawn without the GIL.
pub fn draw(py: Python<'_>, stacks: &FoldedStacks, o: &FlameGraphOptions) -> PyResult<FlameGraph> {
    let svg = py.detach(|| flamegraph::svg(stacks, o)).map_err(graph_error)?;
    Ok(FlameGraph { svg, stacks: stacks.stacks.len(), total: stacks.total() })
}

/// The differential SVG of two profiles, drawn without the GIL.
pub fn draw_diff(
    py: Python<'_>,
    before: &FoldedStacks,
    after: &FoldedStacks,
    normalize: bool,
    negate: bool,
    o: &FlameGraphOptions,
) -> PyResult<FlameGraph> {
    let svg = py.detach(|| flamegraph::diff_svg(before, after, normalize, negate, o)).map_err(graph_error)?;
    let shown = if negate { before } else { after };
    Ok(FlameGraph { svg, stacks: shown.stacks.len(), total: shown.total() })
}

/// A flame graph: an interactive SVG (search, zoom, tooltips) drawn by inferno, the Rust port of
/// flamegraph.pl. In Jupyter it shows inline; ``save(path)`` writes the file for a browser.
#[pyclass(module = "perfdata", name = "FlameGraph", frozen)]
pub struct FlameGraph {
    /// The SVG document.
    #[pyo3(get)]
    svg: String,
    /// Number of distinct stacks drawn.
    #[pyo3(get)]
    stacks: usize,
    /// Sum of the stacks' weights (samples or period).
    #[pyo3(get)]
    total: u64,
}

/// `&`, `"`, `<`, `>` escaped for an HTML attribute.
fn html_attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The value of `name="…"` in the SVG's root element.
fn svg_attr<'a>(svg: &'a str, name: &str) -> Option<&'a str> {
    let root = svg.get(svg.find("<svg")?..)?;
    let root = root.get(..root.find('>')?)?;
    let (_, value) = root.split_once(&format!(" {name}=\""))?;
    value.split('"').next()
}

/// Write an SVG document to `path` (without the GIL), an OSError when that fails.
pub(crate) fn write_svg(py: Python<'_>, path: &std::path::Path, svg: &str) -> PyResult<()> {
    py.detach(|| std::fs::write(path, svg))
        .map_err(|e| PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string())))
}

/// An SVG in an ``<iframe>`` sized like the SVG, for Jupyter: its JavaScript (search, zoom) runs
/// in the frame, apart from the notebook's page and from other pictures.
pub(crate) fn svg_iframe(svg: &str) -> String {
    let width = svg_attr(svg, "width").unwrap_or("1200");
    let height = svg_attr(svg, "height").unwrap_or("600");
    format!(
        "<iframe srcdoc=\"{}\" width=\"{width}\" height=\"{height}\" style=\"border:none;max-width:100%\"></iframe>",
        html_attr(svg)
    )
}

#[pymethods]
impl FlameGraph {
    /// Write the SVG to ``path`` (open it in a browser for search and zoom).
    ///
    /// Example:
    ///     >>> perfdata.open("perf.data").flamegraph().save("perf.svg")
    ///     >>> open("perf.svg").read().count("<svg") >= 1
    ///     True
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        write_svg(py, &path, &self.svg)
    }

    /// The SVG, for Jupyter's image display.
    fn _repr_svg_(&self) -> &str {
        &self.svg
    }

    /// The SVG in an ``<iframe>``, for Jupyter's HTML display: its JavaScript (search, zoom) runs in
    /// the frame, apart from the notebook's page and from other graphs.
    fn _repr_html_(&self) -> String {
        svg_iframe(&self.svg)
    }

    fn __repr__(&self) -> String {
        format!("<perfdata.FlameGraph {} stacks, total {}, {} bytes of SVG>", self.stacks, self.total, self.svg.len())
    }
}
