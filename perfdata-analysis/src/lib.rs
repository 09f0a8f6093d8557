//! # perfdata-analysis
//!
//! Analyses over the records that `perfdata-core` reads: the scheduler analyses (`sched`), latency
//! analyses (`latency`) and exports to other tools' formats (`export`).
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod export;
pub mod latency;
pub mod sched;
