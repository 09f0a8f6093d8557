//! What `perfdata.open` accepts: a path, bytes-like data, or a binary file object.

use crate::error;
use perfdata_core::PerfFile;
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use std::io::Read;
use std::path::Path;

/// An opened input and how to describe it.
pub struct Opened {
    /// The file.
    pub file: PerfFile<'static>,
    /// The path, when opened from one.
    pub path: Option<String>,
    /// Input size in bytes (`None` for a stream read as it is iterated).
    pub size: Option<u64>,
    /// Records are read from a Python file object as they are iterated (one pass only).
    pub stream: bool,
}

/// Open `source`; `stream` asks for a file object to be read lazily instead of whole.
pub fn open(py: Python<'_>, source: &Bound<'_, PyAny>, stream: bool) -> PyResult<Opened> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return from_vec(py, b.as_bytes().to_vec());
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return from_vec(py, b.to_vec());
    }
    if source.cast::<PyString>().is_ok() || source.hasattr("__fspath__")? {
        let os = py.import("os")?;
        let p = os.call_method1("fsdecode", (os.call_method1("fspath", (source,))?,))?;
        let path: String = p.extract()?;
        let size = input_size(Path::new(&path));
        let file = py.detach(|| PerfFile::open(&path)).map_err(|e| error::to_py(py, e, Some(Path::new(&path))))?;
        return Ok(Opened { file, path: Some(path), size, stream: false });
    }
    if source.hasattr("read")? {
        if stream {
            let reader = PyReader { obj: source.clone().unbind() };
            let file = py.detach(|| PerfFile::from_reader(reader)).map_err(|e| error::to_py(py, e, None))?;
            return Ok(Opened { file, path: None, size: None, stream: true });
        }
        let data = source.call_method0("read")?;
        return match data.cast::<PyBytes>() {
            Ok(b) => from_vec(py, b.as_bytes().to_vec()),
            Err(_) => Err(PyTypeError::new_err(format!(
                "the file object's read() returned {}, not bytes: open the file in binary mode ('rb')",
                data.get_type().name()?
            ))),
        };
    }
    // Any other buffer (memoryview, array.array, mmap, numpy bytes): copied through memoryview.
    if let Ok(view) = py.import("builtins")?.getattr("memoryview")?.call1((source,)) {
        let b = view.call_method0("tobytes")?;
        if let Ok(b) = b.cast::<PyBytes>() {
            return from_vec(py, b.as_bytes().to_vec());
        }
    }
    Err(PyTypeError::new_err(format!(
        "perfdata.open() takes a path, bytes, a memoryview or a binary file object, not {}",
        source.get_type().name()?
    )))
}

/// Bytes of a file, or of the files of a `perf record --threads` directory.
fn input_size(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return Some(meta.len());
    }
    let entries = std::fs::read_dir(path).ok()?;
    Some(entries.filter_map(|e| e.ok()?.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum())
}

fn from_vec(py: Python<'_>, data: Vec<u8>) -> PyResult<Opened> {
    let size = Some(data.len() as u64);
    let file = py.detach(|| PerfFile::from_vec(data)).map_err(|e| error::to_py(py, e, None))?;
    Ok(Opened { file, path: None, size, stream: false })
}

/// `std::io::Read` over a Python binary file object (`read(n)`); attaches to the interpreter for each
/// call, so it also works while the reading thread has released the GIL.
struct PyReader {
    obj: Py<PyAny>,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let got =
                self.obj.call_method1(py, "read", (buf.len(),)).map_err(|e| std::io::Error::other(e.to_string()))?;
            if got.is_none(py) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    "the file object is non-blocking and has no data",
                ));
            }
            let b = got
                .cast_bound::<PyBytes>(py)
                .map_err(|_| std::io::Error::other("the file object's read() did not return bytes"))?;
            let b = b.as_bytes();
            let n = b.len().min(buf.len());
            if let (Some(dst), Some(src)) = (buf.get_mut(..n), b.get(..n)) {
                dst.copy_from_slice(src);
            }
            Ok(n)
        })
    }
}

/// `OSError` for a closed `PerfData`.
pub fn closed() -> PyErr {
    PyOSError::new_err("I/O operation on a closed PerfData")
}
