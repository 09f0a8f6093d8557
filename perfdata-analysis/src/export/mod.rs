//! Exports to the formats of other tools: [`speedscope`] (speedscope.app's JSON) and [`chrome`]
//! (Chrome Trace Event JSON for Perfetto UI and `chrome://tracing`), both from the folded stacks
//! and scheduler timeline the other modules compute. [`pprof`] writes pprof's `profile.proto`;
//! `arrow` (feature `arrow`: the records as Arrow tables) and `parquet` (feature `parquet`: those
//! tables as Parquet files), `dataset` (feature `dataset`: many recordings as one Hive-partitioned
//! Parquet dataset).

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "symbolize")]
pub mod chrome;
#[cfg(feature = "dataset")]
pub mod dataset;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "pprof")]
pub mod pprof;
#[cfg(feature = "symbolize")]
pub mod speedscope;
