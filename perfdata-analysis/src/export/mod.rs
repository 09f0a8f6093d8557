//! Exports to the formats of other tools (pprof, speedscope, Chrome trace, Parquet).
