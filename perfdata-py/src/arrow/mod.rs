//! Arrow tables: built in Rust without the GIL ([`tables`]) and handed to Python through the Arrow
//! PyCapsule interface (`__arrow_c_stream__`), so pyarrow, polars, pandas and DuckDB import the
//! columns without copying them and without perfdata depending on any of them.

mod preview;
// The tables are built in perfdata-analysis (`export::arrow`), which the Parquet export shares.
pub use perfdata_analysis::export::arrow::{tables, tracepoints};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// A table of columns from a perf.data file, ready to be read by any Arrow consumer:
/// ``pyarrow.table(t)``, ``polars.DataFrame(t)``, ``duckdb.sql("select … from t")``; or use the
/// shortcuts ``to_pyarrow()``, ``to_pandas()``, ``to_polars()``. Exporting does not copy the data and
/// can be done any number of times.
#[pyclass(module = "perfdata", name = "ArrowTable", frozen)]
pub struct ArrowTable {
    name: String,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowTable {
    /// A table named `name`.
    pub fn new(name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowTable {
        ArrowTable { name: name.to_string(), schema, batches }
    }

    fn convert<'py>(slf: &Bound<'py, Self>, func: &str, needs: &str) -> PyResult<Bound<'py, PyAny>> {
        Self::convert_with(slf, func, needs, None)
    }

    /// `perfdata._convert.<func>(table, **kwargs)`, with an error naming the packages it needs.
    pub fn convert_with<'py>(
        slf: &Bound<'py, Self>,
        func: &str,
        needs: &str,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let conv = py.import("perfdata._convert")?;
        conv.call_method(func, (slf,), kwargs).map_err(|e| {
            if e.is_instance_of::<PyImportError>(py) {
                PyImportError::new_err(format!("this needs {needs}: pip install {needs} ({e})"))
            } else {
                e
            }
        })
    }
}

#[pymethods]
impl ArrowTable {
    /// Export as an Arrow C stream (the Arrow PyCapsule interface). ``requested_schema`` is ignored:
    /// the columns are always given in their own types.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(self.batches.clone().into_iter().map(Ok), self.schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The consumer moves the stream out of the capsule (leaving `release` null); if it never does,
        // dropping the boxed stream releases it.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// Which table this is ('samples', 'mmaps', 'comms', 'tasks', 'lost' or 'records').
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Number of columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.schema.fields().len()
    }

    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Columns as (name, Arrow type) pairs, the type as Arrow's own display string.
    #[getter]
    fn schema(&self) -> Vec<(String, String)> {
        self.schema.fields().iter().map(|f| (f.name().clone(), f.data_type().to_string())).collect()
    }

    /// Bytes held by the columns.
    #[getter]
    fn nbytes(&self) -> usize {
        self.batches.iter().map(RecordBatch::get_array_memory_size).sum()
    }

    /// As a ``pyarrow.Table`` (requires pyarrow).
    ///
    /// Example:
    ///     >>> t = perfdata.open("perf.data").to_arrow("comms").to_pyarrow()
    ///     >>> t.column("comm").to_pylist()
    ///     ['perf-exec', 'sh', 'ls']
    fn to_pyarrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::convert(slf, "to_pyarrow", "pyarrow")
    }

    /// As a ``pandas.DataFrame`` (requires pandas and pyarrow). Integer columns use pandas' nullable
    /// integer types, so 64-bit addresses stay exact even where a column has missing values.
    ///
    /// Args:
    ///     dtypes: ``"arrow"`` (default): list, string and binary columns stay Arrow-backed
    ///         (``pd.ArrowDtype``), which converts a million callchains in milliseconds;
    ///         ``"object"``: those columns as Python objects, as ``pyarrow.Table.to_pandas()``.
    ///
    /// Example:
    ///     >>> df = perfdata.open("perf.data").to_arrow("samples").to_pandas()
    ///     >>> int(df["callchain"].list.len().max())
    ///     26
    #[pyo3(signature = (*, dtypes = "arrow"))]
    fn to_pandas<'py>(slf: &Bound<'py, Self>, dtypes: &str) -> PyResult<Bound<'py, PyAny>> {
        let kw = pyo3::types::PyDict::new(slf.py());
        kw.set_item("dtypes", dtypes)?;
        Self::convert_with(slf, "to_pandas", "pandas pyarrow", Some(&kw))
    }

    /// As a ``polars.DataFrame`` (requires polars).
    ///
    /// Example:
    ///     >>> df = perfdata.open("perf.data").to_arrow("samples").to_polars()
    ///     >>> df.group_by("tid").len().height
    ///     2
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::convert(slf, "to_polars", "polars")
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    /// In Jupyter: the table's name and size, and its first 10 rows.
    fn _repr_html_(&self) -> String {
        let head: Vec<&str> = self.schema.fields().iter().map(|f| f.name().as_str()).collect();
        let rows = preview::rows(&self.batches, 10);
        let shown = if rows.len() < self.num_rows() { format!(" (first {})", rows.len()) } else { String::new() };
        format!(
            "<div><b>perfdata.ArrowTable</b> {}: {} rows × {} columns{shown}{}</div>",
            crate::html::escape(&self.name),
            self.num_rows(),
            self.num_columns(),
            crate::html::table(&head, &rows)
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<perfdata.ArrowTable {} {} rows × {} columns: {}>",
            self.name,
            self.num_rows(),
            self.num_columns(),
            self.column_names().join(", ")
        )
    }
}
