//! `perfdata._perfdata`: the native half of the `perfdata` Python package.
//!
//! A thin layer over `perfdata-core`: argument handling and conversion to Python objects or Arrow
//! columns, no parsing of its own. One module per Python-visible concept:
//! - [`source`]: what `perfdata.open` accepts (path, bytes, file object) → a `PerfFile`;
//! - [`perfdata`]: the `PerfData` object;
//! - [`header`] / [`event`]: the `Header` and `Event` objects;
//! - [`record`]: `Record` and `Sample` objects built from core records;
//! - [`flamegraph`]: folded stacks, flame graphs and the `FlameGraph` object;
//! - [`iter`]: the streaming record/sample iterators (a self-referencing holder of file + iterator);
//! - [`arrow`]: Arrow tables (built without the GIL) exported through the Arrow PyCapsule interface;
//! - [`dataset`]: `export_dataset`, many recordings into one Parquet dataset; `dataset_folded`,
//!   `dataset_flamegraph`, its stacks selected by a SQL predicate;
//! - [`error`]: `PerfDataError`, `PerfDataWarning` and the mapping of core errors;
//! - [`damage`]: the damage policy: each problem of a file warned about once, or an error with
//!   `strict=True`;
//! - [`convert`]: JSON views of the core (`perfdata_core::json`) → Python objects;
//! - [`script`]: `perf script`'s text (`PerfData.script()`, a lazy iterator over its lines fed by a
//!   writer thread through a bounded channel, and `write_script()`);
//! - [`sched`]: the scheduler helpers (`sched_latency`, `sched_map`, `sched_timehist`,
//!   `sched_timeline`) and their result objects;
//! - [`tracepoint`]: decoded tracepoint fields → Python values, the tracing data shared by a file's
//!   iterators.
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod arrow;
mod convert;
mod damage;
mod dataset;
mod error;
mod event;
mod flamegraph;
mod header;
mod html;
mod iter;
mod kwargs;
mod perfdata;
mod progress;
mod record;
mod sched;
mod script;
mod source;
mod tracepoint;

use pyo3::prelude::*;

/// The `perfdata._perfdata` extension module.
#[pymodule]
fn _perfdata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let err = py.get_type::<error::PerfDataError>();
    // Class-level defaults, so instances raised by Python code also have the attributes.
    err.setattr("offset", py.None())?;
    err.setattr("record_type", py.None())?;
    m.add("PerfDataError", err)?;
    m.add("PerfDataWarning", py.get_type::<error::PerfDataWarning>())?;
    m.add_function(wrap_pyfunction!(perfdata::open, m)?)?;
    m.add_function(wrap_pyfunction!(perfdata::flamegraph_diff, m)?)?;
    m.add_function(wrap_pyfunction!(perfdata::diff, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::export_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::dataset_folded, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::dataset_flamegraph, m)?)?;
    m.add_class::<flamegraph::FlameGraph>()?;
    m.add_class::<perfdata::PerfData>()?;
    m.add_class::<header::Header>()?;
    m.add_class::<header::BuildId>()?;
    m.add_class::<event::Event>()?;
    m.add_class::<record::Record>()?;
    m.add_class::<record::Sample>()?;
    m.add_class::<iter::RecordIterator>()?;
    m.add_class::<script::ScriptIterator>()?;
    m.add_class::<arrow::ArrowTable>()?;
    m.add_class::<sched::AnalysisResult>()?;
    m.add_class::<sched::SchedTimeline>()?;
    m.add_class::<sched::Histogram>()?;
    m.add_class::<sched::Picture>()?;
    Ok(())
}
