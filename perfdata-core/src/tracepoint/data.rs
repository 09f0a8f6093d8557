//! The tracing-data blob: feature 1 (`HEADER_TRACING_DATA`) of a file, or the payload of the
//! `PERF_RECORD_HEADER_TRACING_DATA` record (66) of a pipe (reference §8.1, §4.3.3).
//!
//! Written by perf's `trace-event-info.c` (`tracing_data_get`), read by `trace-event-read.c`
//! (`trace_report`). Every integer after the endianness byte uses the byte order that byte names,
//! not the perf.data header's. This module only frames the blob; the texts it carries are parsed by
//! [`super::format`] and [`super::Tracepoints`].

use crate::error::{Error, Position, Result};
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
fn atof(s: &[u8]) -> f64 {
    let end = s.iter().position(|c| !(c.is_ascii_digit() || *c == b'.')).unwrap_or(s.len());
    std::str::from_utf8(s.get(..end).unwrap_or(&[])).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
}

/// Read a NUL-terminated string (perf's `read_string`).
fn cstring<'a>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let rest = r.rest();
    match rest.iter().position(|&c| c == 0) {
        Some(n) => {
            let s = r.bytes(n)?;
            r.skip(1)?;
            Ok(s)
        }
        None => Err(r.malformed("string runs to the end of the tracing data without a NUL")),
    }
}

/// Expect exactly `tag` next.
fn expect(r: &mut Reader<'_>, tag: &[u8], what: &str) -> Result<()> {
    let pos = r.position();
    let got = r.bytes(tag.len())?;
    if got == tag {
        Ok(())
    } else {
        Err(Error::malformed(pos, "tracing data", format!("expected {what}, found {:?}", String::from_utf8_lossy(got))))
    }
}

/// A count-prefixed list bound: never reserve more entries than the bytes left could hold.
fn capacity(count: u32, remaining: usize, min_entry: usize) -> usize {
    (count as usize).min(remaining / min_entry.max(1))
}

impl<'a> TracingData<'a> {
    /// Frame the blob starting at the first byte of `data` (which may carry trailing padding);
    /// `pos` is where `data` starts in the input, for errors.
    pub fn parse(data: &'a [u8], pos: Position) -> Result<TracingData<'a>> {
        let mut r = Reader::new(data, Endian::Little, pos, "tracing data");
        let magic_pos = r.position();
        let magic = r.bytes(3)?;
        if magic != MAGIC {
            return Err(Error::malformed(
                magic_pos,
                "tracing data",
                format!("bad magic {magic:02x?}, expected 17 08 44"),
            ));
        }
        expect(&mut r, b"tracing", "the \"tracing\" tag")?;
        let version = cstring(&mut r)?;
        let endian = if r.u8()? != 0 { Endian::Big } else { Endian::Little };
        let long_size = r.u8()?;
        // The rest is in the blob's own byte order.
        let mut r = Reader::new(r.rest(), endian, r.position(), "tracing data");
        let page_size = r.u32()?;
        if page_size == 0 {
            // perf's trace_report gives up here too.
            return Err(r.malformed("page size is 0"));
        }
        expect(&mut r, b"header_page\0", "\"header_page\"")?;
        let n = r.u64()?;
        let header_page = r.bytes_u64(n)?;
        expect(&mut r, b"header_event\0", "\"header_event\"")?;
        let n = r.u64()?;
        let header_event = r.bytes_u64(n)?;

        let count = r.u32()?;
        let mut ftrace_formats = Vec::with_capacity(capacity(count, r.remaining(), 8));
        for _ in 0..count {
            let n = r.u64()?;
            ftrace_formats.push(r.bytes_u64(n)?);
        }

        let nr_systems = r.u32()?;
        let mut systems = Vec::with_capacity(capacity(nr_systems, r.remaining(), 5));
        for _ in 0..nr_systems {
            let name = cstring(&mut r)?;
            let count = r.u32()?;
            let mut formats = Vec::with_capacity(capacity(count, r.remaining(), 8));
            for _ in 0..count {
                let n = r.u64()?;
                formats.push(r.bytes_u64(n)?);
            }
            systems.push(EventSystem { name, formats });
        }

        let n = r.u32()?;
        let kallsyms = r.bytes(n as usize)?;
        let n = r.u32()?;
        let printk = r.bytes(n as usize)?;
        let saved_cmdlines = if atof(version) < 0.6 {
            None
        } else {
            let n = r.u64()?;
            Some(r.bytes_u64(n)?)
        };
        let size = data.len().saturating_sub(r.remaining());
        Ok(TracingData {
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
        })
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
