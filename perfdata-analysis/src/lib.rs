//! # perfdata-analysis
//!
//! Analyses over the records that `perfdata-core` reads, each a function of a [`core::PerfFile`]
//! and an options type, streaming records in time order:
//!
//! | Module | What | perf / tool it matches |
//! |---|---|---|
//! | `folded` (feature `symbolize`) | folded stacks, symbolized and unwound | `stackcollapse-perf.pl`, `perf script report stackcollapse` |
//! | `flamegraph` (feature `flamegraph`) | flame graph and differential SVGs | `flamegraph.pl`, `difffolded.pl` |
//! | [`script`] | `perf script`'s default lines | `perf script` |
//! | `annotate` (feature `symbolize`) | each instruction of a symbol with its share of the samples, objdump's text | `perf annotate --stdio` |
//! | `report` (feature `symbolize`) | overhead per comm, shared object, symbol | `perf report --no-children --sort comm,dso,sym` |
//! | [`sched`] | scheduler map, latency, time history | `perf sched map/latency/timehist` |
//! | [`latency`] | block I/O, wakeup and off-CPU latency, histograms | bcc `biolatency`/`runqlat`, perf-tools `iolatency` |
//! | [`stats`] | records by type, samples by event | `perf report --stats` |
//! | [`export`] | other tools' formats | pprof, speedscope, Chrome trace, Parquet |
//! | `query` (feature `dataset`) | a dataset's folded stacks selected by a SQL `WHERE` predicate | DuckDB over the dataset |
//! | [`options`] | the options as the CLI and Python state them (`--time`, fold knobs) | perf's option syntax |
//!
//! ```no_run
//! # #[cfg(feature = "symbolize")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use perfdata_analysis::{core::PerfFile, folded, FoldRequest};
//! let file = PerfFile::open("perf.data")?;
//! let options = FoldRequest { time: Some("5123.25,5124".parse()?), ..Default::default() }.options()?;
//! print!("{}", folded(&file, &options)?.to_folded_string());
//! # Ok(()) }
//! # #[cfg(not(feature = "symbolize"))]
//! # fn main() {}
//! ```
//!
//! The symbolizer and unwinder are `perfdata-symbolize`, re-exported as `symbolize`.
#![warn(missing_docs, unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

#[cfg(feature = "symbolize")]
pub mod annotate;
#[cfg(feature = "symbolize")]
mod arena;
/// `perf diff`: a baseline's report beside other recordings', entries paired by their keys.
#[cfg(feature = "symbolize")]
pub mod diff;
mod error;
pub mod export;
#[cfg(feature = "flamegraph")]
pub mod flamegraph;
#[cfg(feature = "symbolize")]
pub mod folded;
pub mod latency;
pub mod options;
#[cfg(feature = "dataset")]
pub mod query;
#[cfg(feature = "symbolize")]
pub mod report;
#[cfg(feature = "symbolize")]
pub mod runs;
pub mod sched;
pub mod script;
#[cfg(feature = "symbolize")]
mod stacks;
pub mod stats;
mod ticks;

pub use error::{Error, Result};
#[cfg(feature = "flamegraph")]
pub use flamegraph::{diff_svg, svg, FlameGraphOptions};
#[cfg(feature = "symbolize")]
pub use folded::{folded, FoldedOptions, FoldedStacks};
#[cfg(feature = "symbolize")]
pub use options::FoldRequest;
pub use options::TimeRange;

/// The format crate, re-exported so that one dependency is enough.
pub use perfdata_core as core;
/// Symbolization and unwinding ([`perfdata_symbolize`]), re-exported for the analyses' options.
#[cfg(feature = "symbolize")]
pub use perfdata_symbolize as symbolize;
