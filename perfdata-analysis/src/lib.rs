//! # perfdata-analysis
//!
//! Analyses over the records that `perfdata-core` reads: the scheduler analyses (`sched`), latency
//! analyses (`latency`) and exports to other tools' formats (`export`).
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod export;
#[cfg(feature = "flamegraph")]
pub mod flamegraph;
#[cfg(feature = "symbolize")]
pub mod folded;
pub mod latency;
pub mod options;
pub mod sched;
pub mod script;

/// The format crate, re-exported so that one dependency is enough.
pub use perfdata_core as core;
/// Symbolization and unwinding ([`perfdata_symbolize`]), re-exported for the analyses' options.
#[cfg(feature = "symbolize")]
pub use perfdata_symbolize as symbolize;
