//! The core's JSON views (`perfdata_core::json`) as Python objects: integers stay exact.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde_json::Value;

/// A JSON value as a Python object (objects → dict, arrays → list, integers → int).
pub fn value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py_any(py)?,
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_py_any(py)?
            } else if let Some(i) = n.as_i64() {
                i.into_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_py_any(py)?
            }
        }
        Value::String(s) => s.into_py_any(py)?,
        Value::Array(a) => {
            let items = a.iter().map(|x| value(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(m) => dict(py, m)?.into_any().unbind(),
    })
}

/// A JSON object as a dict.
pub fn dict<'py>(py: Python<'py>, m: &serde_json::Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in m {
        d.set_item(k, value(py, v)?)?;
    }
    Ok(d)
}
