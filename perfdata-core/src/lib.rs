//! # perfdata-core
//!
//! A complete, exact, zero-copy reader of Linux `perf.data` files: file, pipe, directory and
//! compressed data, either byte order, every record type and sample field. The format only:
//! symbolization and unwinding are in `perfdata-symbolize`, folded stacks, flame graphs and the
//! scheduler/latency analyses in `perfdata-analysis`.
//!
//! ```no_run
//! use perfdata_core::{Order, PerfFile, RecordKind};
//! # fn main() -> perfdata_core::Result<()> {
//! let file = PerfFile::open("perf.data")?;
//! for event in file.events() {
//!     println!("{}: sample_type {:#x}", event.display_name(), event.attr.sample_type);
//! }
//! for record in file.records(Order::Time)? {
//!     let record = record?;
//!     if let RecordKind::Sample(s) = &record.kind {
//!         println!("{:?} {:?} {:?}", s.time(), s.tid(), s.ip());
//!     }
//! }
//! // Typed: one tracepoint's samples with their fields, on CPU 0.
//! for switch in file.tracepoints("sched:sched_switch")?.cpu(0) {
//!     let switch = switch?;
//!     println!("{:?} next_pid={:?}", switch.sample.time(), switch.field("next_pid"));
//! }
//! # Ok(()) }
//! ```
//!
//! ## Map of the modules
//!
//! A stack, its bottom first: a module imports only from the rows before its own and from the
//! modules before it in its own row (`tools/module-graph.py --check` finds no cycle). Each
//! structure's nom parser is next to its type.
//!
//! | Layer | Modules |
//! |---|---|
//! | Leaves (import nothing) | [`abi`] — record types, `misc` bits, `sample_type`, `read_format`, feature ids, register names; [`error`] |
//! | Input | [`reader`] ([`Reader`](reader::Reader): bytes, byte order, absolute offset; the primitive nom parsers and [`ParseError`](reader::ParseError)) |
//! | Structures and their parsers | [`header`] (file/pipe header, feature table), [`compress`] (zstd of `perf record -z`), [`attr`] (`perf_event_attr` at every ABI size, the sample layout and plan computed once per attr), [`names`], [`event`] (attrs, ids, names), [`sample`] (sample fields by the attr's layout), [`record`] (every kernel and user record, the record header, `decode`), [`feature`] (every feature section), [`tracepoint`] (tracing data, formats, fields, print fmt rendering) |
//! | Framing | [`stream`] (records out of mapped, streamed and decompressed input) |
//! | Iteration | [`records`] ([`Records`]: file or time order, std [`Iterator`] and lending form), [`file`](mod@file) ([`PerfFile`]) |
//! | On top: analyses-facing helpers, views and output | [`ordered`] ([`Ordered`]: a few fields of many records, in time order), [`typed`] (samples, tracepoints, filters), [`process`] (threads, comms and maps over time), [`info`] ([`HeaderInfo`], `perf report --header-only`), [`jitdump`] (`jit-PID.dump`), `json` (feature `json`), `write` (feature `write`: perf.data from records) |
//! | Façade | [`parse`]: every parser of the format under one public path (it only re-exports) |
//!
//! Features: `json` (serde JSON views), `zstd` (compressed records; without it they give an error
//! naming the feature), `write` (the writer). All are on by default; with none, the dependencies
//! are byteorder, elsa, memmap2, nom and thiserror.
#![warn(missing_docs, unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod abi;
pub mod attr;
pub mod compress;
pub mod error;
pub mod event;
pub mod feature;
pub mod file;
pub mod header;
pub mod info;
pub mod jitdump;
#[cfg(feature = "json")]
pub mod json;
pub mod names;
pub mod ordered;
pub mod parse;
pub mod problems;
pub mod process;
pub mod reader;
pub mod record;
pub mod records;
pub mod sample;
pub mod stream;
pub mod tracepoint;
pub mod typed;
#[cfg(feature = "write")]
pub mod write;

pub use attr::{EventAttr, SampleLayout};
pub use error::{Error, Position, Result};
pub use event::{Event, EventList};
pub use file::PerfFile;
pub use header::{FileHeader, Format, Section};
pub use info::HeaderInfo;
pub use ordered::{Extract, Ordered, ParExtract, Parallel, RecordRef};
pub use problems::Problems;
pub use reader::Endian;
pub use record::{Record, RecordHeader, RecordKind};
pub use records::{Order, Progress, ReadOptions, Records};
pub use sample::Sample;
pub use typed::{SampleRecord, Samples, TracepointSample, TracepointSamples};
