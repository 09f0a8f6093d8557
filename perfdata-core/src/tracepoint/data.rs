//! The tracing-data blob: feature 1 (`HEADER_TRACING_DATA`) of a file, or the payload of the
//! `PERF_RECORD_HEADER_TRACING_DATA` record (66) of a pipe (reference §8.1, §4.3.3).
//!
//! Written by perf's `trace-event-info.c` (`tracing_data_get`), read by `trace-event-read.c`
//! (`trace_report`). Every integer after the endianness byte uses the byte order that byte names,
//! not the perf.data header's. This module only frames the blob; the texts it carries are parsed by
//! [`super::format`] and [`super::Tracepoints`].

use crate::error::{Position, Result};
use crate::reader::{Endian, Reader};

/// The 3 magic bytes that start tracing data.
pub const MAGIC: [u8; 3] = [0x17, 0x08, 0x44];

/// One `events/<system>/` directory of the blob: the system name and the format text of each of its
/// recorded events (in the writer's readdir order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSystem<'a> {
    /// System name (e.g. `sched`).
    pub name: &'a [u8],
    /// The `format` file text of each event.
    pub formats: Vec<&'a [u8]>,
}

/// The framed tracing-data blob; every text borrows from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracingData<'a> {
    /// Version string (perf writes `0.6`).
    pub version: &'a [u8],
    /// Byte order of the writer (the `big_endian` byte); the byte order of every integer after it
    /// and of tracepoint RAW data.
    pub endian: Endian,
    /// `sizeof(long)` of the recording perf binary.
    pub long_size: u8,
    /// Page size of the recording machine.
    pub page_size: u32,
    /// Text of `events/header_page` (ring-buffer page header).
    pub header_page: &'a [u8],
    /// Text of `events/header_event` (unused by perf).
    pub header_event: &'a [u8],
    /// Format texts of the `ftrace` system events (normally none).
    pub ftrace_formats: Vec<&'a [u8]>,
    /// Event systems and their format texts.
    pub systems: Vec<EventSystem<'a>>,
    /// `/proc/kallsyms` text (empty with recent perf).
    pub kallsyms: &'a [u8],
    /// `printk_formats` text: lines `0xADDR : "string"`.
    pub printk: &'a [u8],
    /// `saved_cmdlines` text (`pid comm` lines), present from version 0.6 on.
    pub saved_cmdlines: Option<&'a [u8]>,
    /// Bytes the blob occupies (it is self-delimiting; a pipe record pads it to 8).
    pub size: usize,
}

/// C `atof` on the leading number of `s` (perf compares the version with `atof(version) < 0.6`).
pub(crate) fn atof(s: &[u8]) -> f64 {
    let end = s.iter().position(|c| !(c.is_ascii_digit() || *c == b'.')).unwrap_or(s.len());
    std::str::from_utf8(s.get(..end).unwrap_or(&[])).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
}

impl<'a> TracingData<'a> {
    /// Frame the blob starting at the first byte of `data` (which may carry trailing padding);
    /// `pos` is where `data` starts in the input, for errors. Runs [`crate::parse::tracing`].
    pub fn parse(data: &'a [u8], pos: Position) -> Result<TracingData<'a>> {
        Reader::new(data, Endian::Little, pos, "tracing data").run(crate::parse::tracing::tracing_data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atof_like_c() {
        assert_eq!(atof(b"0.6"), 0.6);
        assert_eq!(atof(b"0.5"), 0.5);
        assert_eq!(atof(b"x"), 0.0);
        assert_eq!(atof(b"1.0abc"), 1.0);
    }
}
