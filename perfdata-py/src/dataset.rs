//! `perfdata.export_dataset`: many recordings into one Hive-partitioned Parquet dataset
//! (`perfdata_analysis::export::dataset`), without the GIL.

use crate::flamegraph as flame;
use perfdata_analysis::export::dataset::{export_dataset as export, DatasetOptions};
use perfdata_analysis::export::parquet::ParquetOptions;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

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
    let fold = flame::fold_options(options)?.options;
    let o = DatasetOptions { parquet: ParquetOptions::default(), stacks: stacks.then_some(fold), jobs };
    let done = py.detach(|| export(&paths, &dataset, &o)).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let out = PyList::empty(py);
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
