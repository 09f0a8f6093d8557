//! Exports to the formats of other tools: [`speedscope`] (speedscope.app's JSON) and [`chrome`]
//! (Chrome Trace Event JSON for Perfetto UI and `chrome://tracing`), both from the folded stacks
//! and scheduler timeline the other modules compute. [`pprof`] writes pprof's
//! `profile.proto`. (Parquet is not written yet.)

#[cfg(feature = "symbolize")]
pub mod chrome;
#[cfg(feature = "pprof")]
pub mod pprof;
#[cfg(feature = "symbolize")]
pub mod speedscope;
