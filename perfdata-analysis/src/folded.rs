//! Folded stacks (`comm;root;…;leaf WEIGHT`), as `perf script | stackcollapse-perf.pl` (or
//! `inferno-collapse-perf`) and `perf script report stackcollapse` print them, computed in-process:
//! samples in time order, threads and maps from [`Machine`](perfdata_core::process::Machine),
//! symbols from [`Symbolizer`](crate::symbolize::Symbolizer). Semantics: analysis-semantics.md §1.
//!
//! ```no_run
//! use perfdata_analysis::folded::{folded, FoldedOptions};
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let stacks = folded(&file, &FoldedOptions::default())?;
//! print!("{}", stacks.to_folded_string());
//! # Ok::<(), perfdata_analysis::Error>(())
//! ```
//!
//! Each distinct (address space, address) is symbolized and formatted once; a sample then costs a
//! lookup per frame and one hash of its frame ids. The folding itself is the crate's stack engine
//! (shared with `report`, the off-CPU analysis and the exports); the options live in
//! [`options`](crate::options) and are re-exported here.

use crate::Result;
use perfdata_core::file::PerfFile;

pub use crate::options::{Compat, EventFilter, FoldedOptions, Root, Unknown, Weight};
pub use crate::stacks::{feature_build_ids, ChainEntry, FoldedStacks, StackFolder, StackId};

/// Fold the samples of `file`. Records are read and decoded on a second thread while this one
/// resolves and counts the stacks.
pub fn folded(file: &PerfFile, opts: &FoldedOptions) -> Result<FoldedStacks> {
    crate::stacks::fold_all(file, opts)
}
