//! Arrow tables of a recording's records (feature `arrow`): [`tables`] (samples, mmaps, comms,
//! tasks, lost, record counts) and [`tracepoints`] (one table per tracepoint event, a typed column
//! per field). Python's `to_arrow` / `tracepoint_table` hand these to pyarrow, polars and DuckDB;
//! the Parquet export (`export::parquet`, feature `parquet`) writes the same columns, so both
//! front ends have one definition of every name, type and dictionary.

mod columns;
pub mod tables;
pub mod tracepoints;

pub use arrow_array;
pub use arrow_schema;
