//! `progress=True` on the long calls: a tqdm bar (a plain line on stderr without tqdm) fed by a
//! thread that polls how far the file has been read while the call runs without the GIL.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Take `progress=` out of a call's keyword options (before their names are checked).
pub fn take(options: Option<&Bound<'_, PyDict>>) -> PyResult<bool> {
    let Some(o) = options else { return Ok(false) };
    match o.get_item("progress")? {
        None => Ok(false),
        Some(v) => {
            o.del_item("progress")?;
            v.is_truthy()
        }
    }
}

/// A progress bar on the reading of a file, until [`Bar::finish`].
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    bar: Py<PyAny>,
}

/// The bar's object: `tqdm.tqdm` when installed, else a line on stderr (`_convert._Progress`).
fn new_bar(py: Python<'_>, total: Option<u64>, name: &str) -> PyResult<Py<PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("total", total)?;
    kwargs.set_item("desc", name)?;
    let bar = match py.import("tqdm") {
        Ok(tqdm) => {
            kwargs.set_item("unit", if total.is_some() { "B" } else { "records" })?;
            kwargs.set_item("unit_scale", true)?;
            tqdm.getattr("tqdm")?.call((), Some(&kwargs))?
        }
        Err(_) => py.import("perfdata._convert")?.getattr("_Progress")?.call((), Some(&kwargs))?,
    };
    Ok(bar.unbind())
}

impl Bar {
    /// Start a bar on `file` when `wanted`.
    pub fn start(py: Python<'_>, file: &perfdata_core::PerfFile<'_>, wanted: bool) -> PyResult<Option<Bar>> {
        if !wanted {
            return Ok(None);
        }
        let progress = file.progress();
        let name = file.path().map_or_else(|| "perf.data".to_string(), |p| p.display().to_string());
        let bar = new_bar(py, progress.total_bytes(), &name)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (stopped, shown) = (stop.clone(), bar.clone_ref(py));
        let thread = std::thread::spawn(move || {
            let mut at = 0u64;
            while !stopped.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let now = if progress.total_bytes().is_some() { progress.bytes() } else { progress.records() };
                if now > at && !stopped.load(Ordering::Relaxed) {
                    Python::attach(|py| {
                        let _ = shown.call_method1(py, "update", (now - at,));
                    });
                    at = now;
                }
            }
        });
        Ok(Some(Bar { stop, thread: Some(thread), bar }))
    }

    /// Stop polling (waiting for the thread without the GIL) and close the bar at its end.
    pub fn finish(mut self, py: Python<'_>) -> PyResult<()> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            py.detach(|| {
                let _ = t.join();
            });
        }
        let bar = self.bar.bind(py);
        if let Ok(total) = bar.getattr("total").and_then(|t| t.extract::<Option<u64>>()) {
            let n = bar.getattr("n").and_then(|n| n.extract::<u64>()).unwrap_or(0);
            if let Some(total) = total.filter(|t| *t > n) {
                bar.call_method1("update", (total - n,))?;
            }
        }
        bar.call_method0("close")?;
        Ok(())
    }
}

impl Drop for Bar {
    /// On an error: the thread ends at its next poll (joining here could wait for the GIL this
    /// thread holds).
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
