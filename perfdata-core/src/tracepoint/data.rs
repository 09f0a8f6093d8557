//! The tracing-data blob: feature 1 (`HEADER_TRACING_DATA`) of a file, or the payload of the
//! `PERF_RECORD_HEADER_TRACING_DATA` record (66) of a pipe (reference §8.1, §4.3.3).
//!
//! Written by perf's `trace-event-info.c` (`tracing_data_get`), read by `trace-event-read.c`
//! (`trace_report`). Every integer after the endianness byte uses the byte order that byte names,
//! not the perf.data header's. This module only frames the blob; the texts it carries are parsed by
//! [`super::format`] and [`super::Tracepoints`].

use crate::error::{Position, Result};
use crate::reader::{count, malformed, take, take_u64, u32, u64, u8, PResult};
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
        Reader::new(data, Endian::Little, pos, "tracing data").run(tracing_data)
    }
}

// The nom parser of the blob (public as [`crate::parse::tracing`]).

/// A NUL-terminated string, the NUL consumed (perf's `read_string`).
fn cstring(input: Reader<'_>) -> PResult<'_, &[u8]> {
    match input.rest().iter().position(|&c| c == 0) {
        Some(n) => {
            let (rest, s) = take(n)(input)?;
            Ok((rest.advanced(1), s))
        }
        None => malformed(&input, "string runs to the end of the tracing data without a NUL", [0; 2]),
    }
}

/// Exactly `tag` next; else malformed with `detail`.
fn tag<'a>(tag: &'static [u8], detail: &'static str) -> impl Fn(Reader<'a>) -> PResult<'a, ()> {
    move |input: Reader<'a>| {
        let (rest, got) = take(tag.len())(input)?;
        if got != tag {
            return malformed(&input, detail, [0; 2]);
        }
        Ok((rest, ()))
    }
}

/// `u64 size` then that many bytes (a file of the blob).
fn sized_text(input: Reader<'_>) -> PResult<'_, &[u8]> {
    let (input, n) = u64(input)?;
    take_u64(n)(input)
}

/// `u32 count`, then `count` [`sized_text`]s.
fn texts(input: Reader<'_>) -> PResult<'_, Vec<&[u8]>> {
    let (input, n) = u32(input)?;
    count(n.into(), 8, sized_text)(input)
}

/// One `events/<system>/` directory: its name, then its format files.
fn system(input: Reader<'_>) -> PResult<'_, EventSystem<'_>> {
    let (input, name) = cstring(input)?;
    let (input, formats) = texts(input)?;
    Ok((input, EventSystem { name, formats }))
}

/// The tracing-data blob, from its first byte; the input may go on after it (a pipe record pads
/// it to 8 bytes: [`TracingData::size`] says where it ends). Every text borrows from the input.
pub fn tracing_data(input: Reader<'_>) -> PResult<'_, TracingData<'_>> {
    let start = input.context("tracing data");
    let (input, magic) = take(3)(start)?;
    if magic != MAGIC {
        let m = magic.iter().fold(0u64, |v, &b| v << 8 | u64::from(b));
        return malformed(&start, "bad magic {x}, expected 170844", [m, 0]);
    }
    let (input, ()) = tag(b"tracing", "expected the \"tracing\" tag")(input)?;
    let (input, version) = cstring(input)?;
    let (input, big) = u8(input)?;
    let (input, long_size) = u8(input)?;
    let endian = if big != 0 { Endian::Big } else { Endian::Little };
    // The rest is in the blob's own byte order.
    let input = Reader::new(input.rest(), endian, input.position(), "tracing data");
    let (input, page_size) = u32(input)?;
    if page_size == 0 {
        // perf's trace_report gives up here too.
        return malformed(&input, "page size is 0", [0; 2]);
    }
    let (input, ()) = tag(b"header_page\0", "expected \"header_page\"")(input)?;
    let (input, header_page) = sized_text(input)?;
    let (input, ()) = tag(b"header_event\0", "expected \"header_event\"")(input)?;
    let (input, header_event) = sized_text(input)?;
    let (input, ftrace_formats) = texts(input)?;
    let (input, nr_systems) = u32(input)?;
    let (input, systems) = count(nr_systems.into(), 5, system)(input)?;
    let (input, n) = u32(input)?;
    let (input, kallsyms) = take(n as usize)(input)?;
    let (input, n) = u32(input)?;
    let (input, printk) = take(n as usize)(input)?;
    let (input, saved_cmdlines) = if atof(version) < 0.6 {
        (input, None)
    } else {
        let (input, s) = sized_text(input)?;
        (input, Some(s))
    };
    let size = start.remaining().saturating_sub(input.remaining());
    let t = TracingData {
        version,
        endian,
        long_size,
        page_size,
        header_page,
        header_event,
        ftrace_formats,
        systems,
        kallsyms,
        printk,
        saved_cmdlines,
        size,
    };
    Ok((input, t))
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
