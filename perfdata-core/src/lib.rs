//! # perfdata-core
//!
//! A complete, exact, zero-copy reader of Linux `perf.data` files: file, pipe, directory and
//! compressed data, either byte order, every record type and sample field.
//!
//! ```no_run
//! use perfdata_core::{PerfFile, Order, RecordKind};
//! # fn main() -> perfdata_core::Result<()> {
//! let file = PerfFile::open("perf.data")?;
//! for event in file.events() {
//!     println!("{}: sample_type {:#x}", event.display_name(), event.attr.sample_type);
//! }
//! let mut records = file.records(Order::Time)?;
//! while let Some(record) = records.next_record() {
//!     match record {
//!         Ok(r) => if let RecordKind::Sample(s) = &r.kind {
//!             println!("{:?} {:?} {:?}", s.time(), s.tid(), s.ip());
//!         },
//!         Err(e) => eprintln!("{e}"),
//!     }
//! }
//! # Ok(()) }
//! ```
#![warn(missing_docs)]
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
pub mod process;
pub mod reader;
pub mod record;
pub mod records;
pub mod sample;
pub mod stream;
pub mod tracepoint;
#[cfg(feature = "write")]
pub mod write;

pub use attr::{EventAttr, SampleLayout};
pub use error::{Error, Position, Result};
pub use event::{Event, EventList};
pub use file::PerfFile;
pub use header::{FileHeader, Format, Section};
pub use info::HeaderInfo;
pub use reader::Endian;
pub use record::{Record, RecordHeader, RecordKind};
pub use records::{Order, ReadOptions, Records};
pub use sample::Sample;
