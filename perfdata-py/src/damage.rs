//! perfdata's policy for damaged input (docs/damage.md), in Python: every complete record is read;
//! after each call that read records, each problem of the file not said yet is said once, as a
//! `perfdata.PerfDataWarning` (`FILE: problem`, as the CLI's `perfdata: warning: FILE: problem`);
//! with `open(..., strict=True)` damage is a `PerfDataError` instead.
//!
//! A file's damage is what its problem log holds ([`perfdata_core::PerfFile::problems`]): the
//! opening's diagnostics and every record iterator's (records that could not be decoded
//! included), whichever call read the file. The analyses' other notes (events lost
//! while recording, unnamed frames) are not damage, as in the CLI: they stay in
//! `PerfData.diagnostics` and warn nothing.

use crate::error::{self, PerfDataWarning};
use perfdata_core::Problems;
use pyo3::prelude::*;
use std::collections::HashSet;
use std::sync::Mutex;

/// One opened file's damage: its problem log, what was said of it, and whether damage is an error.
pub struct Damage {
    problems: Problems,
    /// The path the file was opened from (the prefix of the messages).
    path: Option<String>,
    strict: bool,
    /// The problems warned about already.
    said: Mutex<HashSet<String>>,
}

impl Damage {
    /// The damage policy of the file whose log is `problems`.
    pub fn new(problems: Problems, path: Option<String>, strict: bool) -> Damage {
        Damage { problems, path, strict, said: Mutex::new(HashSet::new()) }
    }

    /// The file's problem log.
    pub fn problems(&self) -> &Problems {
        &self.problems
    }

    fn message(&self, problem: &str) -> String {
        match &self.path {
            Some(p) => format!("{p}: {problem}"),
            None => problem.to_string(),
        }
    }

    /// A `PerfDataWarning` for each problem not warned about yet (an `Err` when warnings are
    /// errors: the problems after it are said at the next call).
    pub fn warn_new(&self, py: Python<'_>) -> PyResult<()> {
        for problem in self.problems.list() {
            if !self.said.lock().unwrap_or_else(|e| e.into_inner()).insert(problem.clone()) {
                continue;
            }
            warn(py, &self.message(&problem))?;
        }
        Ok(())
    }

    /// With `strict`: the `PerfDataError` of a damaged file (its first problem, and how many more).
    pub fn strict_error(&self, py: Python<'_>) -> Option<PyErr> {
        if !self.strict {
            return None;
        }
        let list = self.problems.list();
        let first = list.first()?;
        let more = self.problems.len().saturating_sub(1);
        let more = match more {
            0 => String::new(),
            1 => " (and 1 more problem)".to_string(),
            n => format!(" (and {n} more problems)"),
        };
        let message = format!("{}{more}; strict=True makes damage an error", self.message(first));
        let err = error::perfdata_error(py, message, None, None);
        let _ = err.value(py).setattr("path", self.path.clone());
        Some(err)
    }

    /// After a call that read records: a strict file's damage is an error (every call on a damaged
    /// file raises, its results coming from the same damage); otherwise the new problems are
    /// warned about.
    pub fn settle(&self, py: Python<'_>) -> PyResult<()> {
        match self.strict_error(py) {
            Some(e) => Err(e),
            None => self.warn_new(py),
        }
    }

    /// [`Damage::settle`] after a call's `result`; a call that failed keeps its error, and the
    /// problems met on the way are warned about (the error may say "see the warnings").
    pub fn after<T>(&self, py: Python<'_>, result: PyResult<T>) -> PyResult<T> {
        match result {
            Ok(v) => self.settle(py).map(|()| v),
            Err(e) => {
                // With warnings as errors, the call's own error is still the one raised.
                let _ = self.warn_new(py);
                Err(e)
            }
        }
    }

    /// An iterator dropped before its end: nothing can be raised there, so the new problems are
    /// warned about, strict or not.
    pub fn dropped(&self) {
        Python::attach(|py| {
            // A drop can happen while an exception propagates (the iterator raised and its frame
            // is being cleared): the warnings machinery must not run with it set, and it must
            // survive.
            let pending = PyErr::take(py);
            if let Err(e) = self.warn_new(py) {
                e.write_unraisable(py, None);
            }
            if let Some(e) = pending {
                e.restore(py);
            }
        });
    }
}

/// `warnings.warn(message, PerfDataWarning)`, pointing at the caller's line.
pub fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let text = std::ffi::CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<PerfDataWarning>(), &text, 1)
}
