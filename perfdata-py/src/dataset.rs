//! `perfdata.export_dataset`: many recordings into one Hive-partitioned Parquet dataset
//! (`perfdata_analysis::export::dataset`), and `perfdata.dataset_folded` /
//! `perfdata.dataset_flamegraph`: its stacks selected by a SQL predicate
//! (`perfdata_analysis::query`), without the GIL.

use crate::flamegraph as flame;
use perfdata_analysis::export::dataset::{export_dataset as export, DatasetOptions, Status};
use perfdata_analysis::export::parquet::ParquetOptions;
use perfdata_analysis::folded::FoldedStacks;
use perfdata_analysis::query::predicate::{Predicate, STACKS_COLUMNS};
use perfdata_analysis::query::{dataset_stacks, Error as QueryError};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::{Path, PathBuf};

/// Export perf.data files (and the recordings found in directories) into the Parquet dataset
/// ``dataset`` (created if missing): ``TABLE/host=H/date=D/part-HASH.parquet`` for every table of
/// ``PerfData.to_parquet()`` (with a ``file`` column) and the folded ``stacks`` (``comm``,
/// ``frames`` root first, ``weight``), plus ``recordings`` (one row per file: hash, host, date,
/// header fields, ``status``) and ``errors`` (the problems met). ``H`` is the HOSTNAME feature,
/// ``D`` the UTC date of the file's modification time (perf's "captured on"). Files are read in
/// parallel, ``jobs`` at once (0: one per core); a file whose content (XXH3-128) is already in
/// the dataset is skipped, and a damaged one keeps what could be read. Read it back with
/// :func:`dataset`, DuckDB or Dask.
///
/// Args:
///     paths: files or directories (searched for ``*.data``, ``perf.data*`` and files that start
///         with ``PERFILE2``).
///     dataset: the dataset's directory.
///     jobs: recordings read at once.
///     stacks: write the ``stacks`` table.
///     **options: ``folded()``'s options for the stacks.
///
/// Returns:
///     list[dict]: per input: ``file``, ``hash``, ``status`` (``"ok"``, ``"damaged"``,
///     ``"failed"``, ``"skipped"``), ``host``, ``date``, ``tables`` (name → rows) and ``errors``.
///
/// Warns:
///     PerfDataWarning: each of the ``errors`` of a damaged or failed recording, as
///     ``FILE: problem``, once.
///
/// Example:
///     >>> done = perfdata.export_dataset(["perf.data", "sched.data"], "fleet", jobs=2)
///     >>> [(d["status"], d["tables"]["samples"]) for d in done]
///     [('ok', 441), ('ok', 412)]
///     >>> [d["status"] for d in perfdata.export_dataset(["perf.data"], "fleet")]
///     ['skipped']
#[pyfunction]
#[pyo3(signature = (paths, dataset, *, jobs = 0, stacks = true, **options))]
pub fn export_dataset<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    dataset: PathBuf,
    jobs: usize,
    stacks: bool,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let fold = flame::check_keys(options, &[])
        .and_then(|()| flame::fold_options(options))
        .map_err(|e| crate::kwargs::in_call(py, "perfdata.export_dataset()", e))?
        .options;
    let o = DatasetOptions { parquet: ParquetOptions::default(), stacks: stacks.then_some(fold), jobs };
    let done = py.detach(|| export(&paths, &dataset, &o)).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let out = PyList::empty(py);
    let mut said = std::collections::HashSet::new();
    for e in &done {
        // A damaged or unreadable recording is damage, as the CLI's exit status 3 says.
        if matches!(e.status, Status::Damaged | Status::Failed) {
            for m in &e.errors {
                let message = format!("{}: {m}", e.file.display());
                if said.insert(message.clone()) {
                    crate::damage::warn(py, &message)?;
                }
            }
        }
    }
    for e in done {
        let d = PyDict::new(py);
        d.set_item("file", e.file.to_string_lossy())?;
        d.set_item("hash", &e.hash)?;
        d.set_item("status", e.status.name())?;
        d.set_item("host", &e.host)?;
        d.set_item("date", &e.date)?;
        let t = PyDict::new(py);
        for w in &e.tables {
            t.set_item(&w.name, w.rows)?;
        }
        d.set_item("tables", t)?;
        d.set_item("errors", &e.errors)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The stacks of the dataset's recordings that ``predicate`` selects, summed (see
/// [`dataset_folded`]); the unit of their weights as the export wrote it.
fn query(py: Python<'_>, dataset: &Path, predicate: Option<&str>) -> PyResult<(FoldedStacks, Option<String>)> {
    let p = predicate
        .map(|t| Predicate::parse(t, STACKS_COLUMNS))
        .transpose()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let got = py.detach(|| dataset_stacks(dataset, p.as_ref())).map_err(|e| match e {
        QueryError::Io { .. } | QueryError::NotADataset { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    })?;
    Ok((got.stacks, got.weight))
}

/// The folded stacks of a dataset's recordings (written by :func:`export_dataset`) that the SQL
/// predicate ``where`` selects, summed: stack (``comm;root;…;leaf``) → weight, the sum of
/// ``PerfData.folded()`` over those recordings as the export folded them, and what
/// ``SELECT comm, frames, sum(weight) FROM stacks WHERE …`` gives in DuckDB.
///
/// ``where`` is a SQL ``WHERE`` predicate over the ``stacks`` table's columns ``host`` and
/// ``date`` (the partitions: partitions it rules out are not read; ``date`` is
/// ``'YYYY-MM-DD'``), ``comm``, ``file`` and ``weight``: comparisons (``= != <> < <= > >=``),
/// ``[NOT] IN (…)``, ``[NOT] LIKE`` (``%``, ``_``), ``AND``, ``OR``, ``NOT``, parentheses,
/// ``'strings'`` and integers. A mistake raises ``ValueError`` saying where and what was
/// expected.
///
/// Args:
///     dataset: the dataset's directory.
///     where: the predicate (``None``: every recording).
///
/// Returns:
///     dict[str, int]
///
/// Example:
///     >>> _ = perfdata.export_dataset(["perf.data", "sched.data"], "fleet")
///     >>> stacks = perfdata.dataset_folded("fleet", "file = 'perf.data' AND comm = 'ls'")
///     >>> stacks == {s: w for s, w in perfdata.open("perf.data").folded().items() if s.startswith("ls;")}
///     True
#[pyfunction]
#[pyo3(signature = (dataset, r#where = None))]
pub fn dataset_folded<'py>(py: Python<'py>, dataset: PathBuf, r#where: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let (stacks, _) = query(py, &dataset, r#where)?;
    flame::stacks_dict(py, &stacks)
}

/// A flame graph of a dataset's recordings that the SQL predicate ``where`` selects (see
/// :func:`dataset_folded`), or with ``diff=(BEFORE, AFTER)`` the differential graph of two
/// selections, red where ``AFTER`` grew: ``perfdata flamegraph --from-dataset DATASET --where
/// …`` (``--diff --where BEFORE --where AFTER``).
///
/// Args:
///     dataset: the dataset's directory.
///     where: the predicate (``None``: every recording).
///     diff: two predicates, before and after (instead of ``where``).
///     normalize: with ``diff``, scale ``before``'s weights to ``after``'s total first.
///     negate: with ``diff``, size frames by ``before`` (flamegraph.pl ``--negate``).
///     **options: the look of ``PerfData.flamegraph`` (title, subtitle, colors, inverted, width).
///
/// Returns:
///     FlameGraph
///
/// Example:
///     >>> _ = perfdata.export_dataset(["perf.data", "sched.data"], "fleet")
///     >>> perfdata.dataset_flamegraph("fleet", "comm = 'ls'").total
///     3000000
///     >>> g = perfdata.dataset_flamegraph("fleet", diff=("comm = 'ls'", "comm = 'sh'"))
///     >>> g.save("diff.svg")
#[pyfunction]
#[pyo3(signature = (dataset, r#where = None, *, diff = None, normalize = false, negate = false, **options))]
pub fn dataset_flamegraph(
    py: Python<'_>,
    dataset: PathBuf,
    r#where: Option<&str>,
    diff: Option<(String, String)>,
    normalize: bool,
    negate: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<flame::FlameGraph> {
    let call = "perfdata.dataset_flamegraph()";
    flame::check_keys(options, &flame::GRAPH_KEYS).map_err(|e| crate::kwargs::in_call(py, call, e))?;
    let name = |p: &str| format!("{} where {p}", dataset.display());
    let unit = |u: Option<String>| u.unwrap_or_else(|| "period".to_string());
    match (r#where, diff) {
        (Some(_), Some(_)) => Err(PyValueError::new_err("give where= or diff=(BEFORE, AFTER), not both")),
        (None, Some((b, a))) => {
            let (before, ub) = query(py, &dataset, Some(&b))?;
            let (after, ua) = query(py, &dataset, Some(&a))?;
            if let (Some(x), Some(y)) = (&ub, &ua) {
                if x != y {
                    let m = format!("the stacks of BEFORE weigh by {x}, those of AFTER by {y}: nothing to compare");
                    return Err(PyValueError::new_err(m));
                }
            }
            let subtitle = format!("{} → {}: red grew, blue shrank", name(&b), name(&a));
            let g = flame::graph_options(options, &unit(ub.or(ua)), "Differential Flame Graph", Some(subtitle))
                .map_err(|e| crate::kwargs::in_call(py, call, e))?;
            flame::draw_diff(py, &before, &after, normalize, negate, &g)
        }
        (w, None) => {
            let (stacks, u) = query(py, &dataset, w)?;
            let subtitle = w.map_or_else(|| dataset.display().to_string(), name);
            let g = flame::graph_options(options, &unit(u), "Flame Graph", Some(subtitle))
                .map_err(|e| crate::kwargs::in_call(py, call, e))?;
            flame::draw(py, &stacks, &g)
        }
    }
}
