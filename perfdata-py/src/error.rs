//! `perfdata.PerfDataError` and the conversion of core and analysis errors to Python exceptions.

use perfdata_analysis::Error as AnalysisError;
use perfdata_core::Error;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    perfdata,
    PerfDataError,
    PyValueError,
    "The input is not readable perf.data, or a part of it is damaged.\n\n\
     Attributes:\n    offset: byte offset of the damaged structure in the file (None when unknown).\n    \
     record_type: perf's name of the record being read (e.g. 'SAMPLE'), or None.\n    \
     path: the file being read (None for bytes and streams); the message starts with it."
);

pyo3::create_exception!(
    perfdata,
    PerfDataWarning,
    pyo3::exceptions::PyUserWarning,
    "A problem of a damaged recording (cut short, or with damaged records), said once per file\n\
     object after the call that met it: the call's results come from the records that could be\n\
     read. The message is ``PATH: problem`` (the problem alone for bytes and streams), as the\n\
     CLI's warnings. ``perfdata.open(..., strict=True)`` raises ``PerfDataError`` instead."
);

/// A core error as a Python exception: I/O errors become `OSError` (with errno, so a missing file is
/// a `FileNotFoundError`), everything else `PerfDataError` with `offset` and `record_type` set.
/// `path`: the file the error is about, when known (the message then starts with it).
pub fn to_py(py: Python<'_>, e: Error, path: Option<&std::path::Path>) -> PyErr {
    match e {
        Error::Io { what, source } => match source.raw_os_error() {
            Some(errno) => PyOSError::new_err((errno, source.to_string(), what)),
            None => PyOSError::new_err(format!("{what}: {source}")),
        },
        e => {
            let path = path.map(|p| p.display().to_string());
            let message = match &path {
                Some(p) => format!("{p}: {e}"),
                None => e.to_string(),
            };
            let err = perfdata_error(py, message, e.position().map(|p| p.offset), e.record_type());
            let _ = err.value(py).setattr("path", path);
            err
        }
    }
}

/// A `PerfDataError` with its attributes.
pub fn perfdata_error(py: Python<'_>, message: String, offset: Option<u64>, record_type: Option<&str>) -> PyErr {
    let err = PerfDataError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it did, the
    // exception would still carry the class-level defaults (None).
    let _ = value.setattr("offset", offset);
    let _ = value.setattr("record_type", record_type);
    let _ = value.setattr("path", None::<String>);
    err
}

/// An analysis error as a Python exception: a read error as [`to_py`] makes it; a missing event,
/// a bad option or predicate and a dataset whose parts disagree a `ValueError`; a file or
/// directory that cannot be read or written an `OSError` (with errno, so a missing file is a
/// `FileNotFoundError`); a bug (Arrow, a thread) a `RuntimeError`.
pub fn analysis_to_py(py: Python<'_>, e: AnalysisError, path: Option<&std::path::Path>) -> PyErr {
    match e {
        AnalysisError::Read(e) => to_py(py, e, path),
        AnalysisError::Missing(_)
        | AnalysisError::Options(_)
        | AnalysisError::Where { .. }
        | AnalysisError::NoSuchTracepoint(_)
        | AnalysisError::Render(_)
        | AnalysisError::Part { .. }
        | AnalysisError::MixedWeights { .. }
        | AnalysisError::Overflow(_) => PyValueError::new_err(e.to_string()),
        AnalysisError::Io { ref source, .. } => match source.raw_os_error() {
            Some(errno) => PyOSError::new_err((errno, e.to_string())),
            None => PyOSError::new_err(e.to_string()),
        },
        AnalysisError::NotADataset { .. } => PyOSError::new_err(e.to_string()),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}
