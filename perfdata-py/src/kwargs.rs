//! Keyword values that several analyses take (`time=`, `cpu=`/`pid=`/`tid=` lists), converted to
//! the analysis crate's option types.

use perfdata_analysis::options::TimeRange;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A CPU, pid or tid list: an int or a sequence of ints.
pub fn int_list(v: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u32>>> {
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    if let Ok(n) = v.extract::<u32>() {
        return Ok(Some(vec![n]));
    }
    if v.is_instance_of::<PyString>() {
        let s: String = v.extract()?;
        return perfdata_core::feature::topology::parse_cpu_list(&s)
            .filter(|l| l.iter().all(|&c| c >= 0))
            .map(|l| Some(l.into_iter().map(|c| c as u32).collect()))
            .ok_or_else(|| PyValueError::new_err(format!("bad {what} list {s:?} (like '0-3,7')")));
    }
    v.extract::<Vec<u32>>()
        .map(Some)
        .map_err(|_| PyTypeError::new_err(format!("{what} must be an int, a list of ints or a '0-3,7' string")))
}

/// `time=`: perf's "START,END" in seconds or a (start_ns, end_ns) tuple (None: open end).
pub fn time_value(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TimeRange>> {
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    if v.is_instance_of::<PyString>() {
        let t: TimeRange = v.extract::<String>()?.parse().map_err(PyValueError::new_err)?;
        return Ok(Some(t));
    }
    if let Ok((a, b)) = v.extract::<(Option<u64>, Option<u64>)>() {
        return Ok(Some(TimeRange { start: a.unwrap_or(0), end: b.unwrap_or(u64::MAX) }));
    }
    Err(PyTypeError::new_err("time must be perf's 'START,END' in seconds or a (start_ns, end_ns) tuple"))
}
