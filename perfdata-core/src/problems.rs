//! What was wrong with a file, each problem once: the file-level diagnostics found when it was
//! opened and everything its record iterators met (damaged records, a data section cut short,
//! records of no known event), whichever analysis read it.
//!
//! Every [`Records`](crate::Records) of a [`PerfFile`](crate::PerfFile) adds its
//! [`diagnostics`](crate::Records::diagnostics) to the file's log when it is dropped, so a tool
//! that hands the file to an analysis it did not write can still say, after it, what the input
//! lacked:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/fp.data"))?;
//! let cut = &bytes[..bytes.len() * 2 / 3];
//! let f = perfdata_core::PerfFile::from_bytes(cut)?;
//! let samples = f.records(perfdata_core::Order::Time)?.filter_map(Result::ok).count();
//! assert!(samples > 0);
//! // The cut: said once, however many passes met it.
//! let _ = f.records(perfdata_core::Order::File)?.count();
//! assert!(!f.problems().is_empty());
//! for p in f.problems().list() {
//!     eprintln!("warning: {p}");
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// At most this many distinct problems are kept (then only counted): a file with a million
/// damaged records gives a bounded list.
pub const MAX_PROBLEMS: usize = 100;

/// A shared, de-duplicated log of a file's problems ([`crate::PerfFile::problems`]). Cloning
/// gives another handle on the same log.
#[derive(Clone, Debug, Default)]
pub struct Problems(Arc<Mutex<Log>>);

#[derive(Debug, Default)]
struct Log {
    list: Vec<String>,
    seen: HashSet<String>,
    /// Distinct problems past [`MAX_PROBLEMS`].
    more: u64,
}

impl Problems {
    /// Record `problem` unless the log already has it.
    pub fn add(&self, problem: impl Into<String>) {
        let problem = problem.into();
        let Ok(mut log) = self.0.lock() else { return };
        if log.seen.contains(&problem) {
            return;
        }
        if log.list.len() >= MAX_PROBLEMS {
            log.more = log.more.saturating_add(1);
            return;
        }
        log.seen.insert(problem.clone());
        log.list.push(problem);
    }

    /// Every distinct problem in the order first met; past [`MAX_PROBLEMS`], a last line counting
    /// the others.
    pub fn list(&self) -> Vec<String> {
        let Ok(log) = self.0.lock() else { return Vec::new() };
        let mut out = log.list.clone();
        if log.more > 0 {
            out.push(format!("{} more problems (only the first {MAX_PROBLEMS} are listed)", log.more));
        }
        out
    }

    /// Distinct problems recorded (counted past [`MAX_PROBLEMS`] too).
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |log| log.list.len().saturating_add(usize::try_from(log.more).unwrap_or(usize::MAX)))
    }

    /// True when nothing was wrong (so far).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_once_and_the_list_bounded() {
        let p = Problems::default();
        let q = p.clone();
        p.add("cut at 0x10");
        q.add("cut at 0x10");
        assert_eq!(p.list(), ["cut at 0x10"]);
        for i in 0..MAX_PROBLEMS + 5 {
            p.add(format!("bad record {i}"));
        }
        assert_eq!(p.len(), MAX_PROBLEMS + 6);
        let list = q.list();
        assert_eq!(list.len(), MAX_PROBLEMS + 1);
        assert_eq!(list.last().map(String::as_str), Some("6 more problems (only the first 100 are listed)"));
    }
}
