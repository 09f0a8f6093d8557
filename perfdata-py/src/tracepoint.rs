//! Tracepoint samples in Python: the core's decoded fields (`perfdata_core::tracepoint`) as Python
//! values, and the tracing data a `PerfData` shares with its iterators and tables.

use perfdata_core::tracepoint::{Format, Tracepoints, Value};
use perfdata_core::{Event, PerfFile, Record};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use pyo3::IntoPyObjectExt;
use std::sync::Arc;

/// A decoded field value as a Python object: integers → int (signed fields negative), strings →
/// str (invalid UTF-8 replaced), integer arrays → list of int, other bytes → bytes, and a field
/// that lies outside the record → None.
pub fn value(py: Python<'_>, v: &Value<'_>) -> PyResult<Py<PyAny>> {
    match v {
        Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => v.as_u64().into_py_any(py),
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => v.as_i64().into_py_any(py),
        Value::Str(s) => String::from_utf8_lossy(s).into_py_any(py),
        Value::Array(a) => {
            let items = a.iter().map(|x| value(py, &x)).collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any().unbind())
        }
        Value::Bytes(b) => Ok(PyBytes::new(py, b).into_any().unbind()),
        _ => Ok(py.None()),
    }
}

/// Every field of a tracepoint record (the `common_*` ones first), name → value.
pub fn fields<'py>(py: Python<'py>, fmt: &Format, raw: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, v) in fmt.decode_common(raw).into_iter().chain(fmt.decode(raw)) {
        d.set_item(name, value(py, &v)?)?;
    }
    Ok(d)
}

/// The tracing data a sample's fields are decoded with, and its format's ID.
#[derive(Clone)]
pub struct TpRef {
    tp: Arc<Tracepoints>,
    id: u32,
}

impl TpRef {
    /// The format of a tracepoint event, if the tracing data has it.
    pub fn for_event(tp: Option<&Arc<Tracepoints>>, ev: &Event) -> Option<TpRef> {
        let tp = tp?;
        let fmt = tp.format_for(&ev.attr)?;
        Some(TpRef { tp: tp.clone(), id: fmt.id })
    }

    /// The tracing data.
    pub fn tracepoints(&self) -> &Tracepoints {
        &self.tp
    }

    /// The event's format.
    pub fn format(&self) -> Option<&Format> {
        self.tp.format_by_id(self.id)
    }
}

/// The tracing data of a pipe stream, from its `HEADER_TRACING_DATA` record (None for other
/// records). A damaged blob gives an error message instead.
pub fn from_record(rec: &Record<'_>) -> Option<Result<Tracepoints, String>> {
    Tracepoints::carried_by(rec).map(|r| r.map_err(|e| format!("tracing data: {e}")))
}

/// The tracing data of a file known before its records are read (a file's TRACING_DATA feature,
/// or the record among the leading records of pipe data in memory).
pub fn from_file(file: &PerfFile<'_>) -> Result<Option<Tracepoints>, String> {
    Tracepoints::from_file(file).map_err(|e| format!("tracing data: {e}"))
}
