//! Tracepoints: the tracing data of a recording (reference §8), the event formats it carries, the
//! decoding of a sample's RAW data into named values, and its rendering as `perf script` prints it.
//!
//! ```no_run
//! use perfdata_core::{tracepoint::Tracepoints, Order, PerfFile, RecordKind};
//! # fn main() -> perfdata_core::Result<()> {
//! let file = PerfFile::open("perf.data")?;
//! let tp = Tracepoints::from_file(&file)?.unwrap_or_default();
//! let mut records = file.records(Order::Time)?;
//! while let Some(r) = records.next_record() {
//!     let r = r?;
//!     if let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) {
//!         if let (Some(fmt), Some(raw)) = (tp.format_for(&ev.attr), s.raw()) {
//!             println!("{}: {}", fmt.full_name(), tp.render(fmt, raw));
//!             println!("prev_pid = {:?}", fmt.field(raw, "prev_pid"));
//!         }
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Layout: [`data`] frames the blob, [`format`](mod@format) parses the ftrace format grammar,
//! [`fields`] decodes RAW data by field name, `print` evaluates `print fmt` like perf 6.1's
//! libtraceevent.

pub mod data;
pub mod fields;
pub mod format;

pub use data::{EventSystem, TracingData};
pub use fields::{IntArray, Value};
pub use format::{Field, Format};

use crate::attr::EventAttr;
use crate::error::{Position, Result};
use crate::reader::Endian;
use crate::record::TracingDataRecord;
use std::collections::{BTreeMap, HashMap};

/// `PERF_TYPE_TRACEPOINT`.
pub const PERF_TYPE_TRACEPOINT: u32 = 2;

/// The parsed tracing data of a recording: every event format, the kernel `long` size, printk
/// strings and saved command lines.
#[derive(Clone, Debug)]
pub struct Tracepoints {
    /// Version string of the tracing data (perf writes `0.6`).
    pub version: String,
    /// Byte order of the tracing data and of RAW records.
    pub endian: Endian,
    /// The kernel's `long` size: the `commit` field of `header_page` when present (as perf), else
    /// the size stored in the header.
    pub long_size: u8,
    /// Page size of the recording machine.
    pub page_size: u32,
    /// Every event format, in blob order (ftrace formats first).
    pub formats: Vec<Format>,
    /// `printk_formats`: string address → string (what `%s` of a pointer field prints).
    pub printk: BTreeMap<u64, String>,
    /// `saved_cmdlines`: pid → comm.
    pub cmdlines: BTreeMap<i32, String>,
    /// Formats that could not be read at all (no name or ID), with the reason.
    pub errors: Vec<String>,
    /// Bytes the tracing data occupies.
    pub size: usize,
    by_id: HashMap<u32, usize>,
}

impl Default for Tracepoints {
    /// No formats (a recording without tracing data).
    fn default() -> Self {
        Tracepoints {
            version: String::new(),
            endian: Endian::NATIVE,
            long_size: 8,
            page_size: 0,
            formats: Vec::new(),
            printk: BTreeMap::new(),
            cmdlines: BTreeMap::new(),
            errors: Vec::new(),
            size: 0,
            by_id: HashMap::new(),
        }
    }
}

impl Tracepoints {
    /// Parse a tracing-data blob (trailing padding allowed); `pos` locates it for errors.
    pub fn parse(blob: &[u8], pos: Position) -> Result<Tracepoints> {
        let td = TracingData::parse(blob, pos)?;
        Ok(Tracepoints::from_data(&td))
    }

    /// Build from framed tracing data.
    pub fn from_data(td: &TracingData<'_>) -> Tracepoints {
        let long_size = format::header_page_long_size(td.header_page).unwrap_or(td.long_size);
        let mut tp = Tracepoints {
            version: String::from_utf8_lossy(td.version).into_owned(),
            endian: td.endian,
            long_size,
            page_size: td.page_size,
            size: td.size,
            ..Tracepoints::default()
        };
        let texts =
            td.ftrace_formats.iter().map(|t| ("ftrace".to_string(), *t)).chain(td.systems.iter().flat_map(|s| {
                let name = String::from_utf8_lossy(s.name).into_owned();
                s.formats.iter().map(move |t| (name.clone(), *t))
            }));
        for (system, text) in texts {
            match Format::parse(text, &system, td.endian, long_size) {
                Ok(f) => {
                    // The first format with an ID wins, as libtraceevent's lookup does.
                    tp.by_id.entry(f.id).or_insert(tp.formats.len());
                    tp.formats.push(f);
                }
                Err(e) => tp.errors.push(format!("a format of system {system}: {e}")),
            }
        }
        tp.printk = parse_printk(td.printk);
        tp.cmdlines = td.saved_cmdlines.map(parse_cmdlines).unwrap_or_default();
        tp
    }

    /// The tracing data `record` carries: `Some` for a pipe's `HEADER_TRACING_DATA` record (its
    /// blob parsed, or the error saying why not), `None` for every other record. What a reader of
    /// pipe data calls on each record until it knows the formats.
    pub fn carried_by(record: &crate::Record<'_>) -> Option<Result<Tracepoints>> {
        match &record.kind {
            crate::RecordKind::HeaderTracingData(t) => Some(Tracepoints::from_record(t, record.pos)),
            _ => None,
        }
    }

    /// Parse the tracing data of a `HEADER_TRACING_DATA` record (`pos`: where the record is).
    pub fn from_record(t: &TracingDataRecord<'_>, pos: Position) -> Result<Tracepoints> {
        let pos = Position { offset: pos.offset.saturating_add(t.data_offset()), ..pos };
        Tracepoints::parse(t.data, pos)
    }

    /// The format whose ID is `id`.
    pub fn format_by_id(&self, id: u32) -> Option<&Format> {
        self.by_id.get(&id).and_then(|&i| self.formats.get(i))
    }

    /// The format of a tracepoint event (`attr.type == 2`, `attr.config` = format ID; perf keeps the
    /// ID in an `int`, so only the low 32 bits of config count).
    pub fn format_for(&self, attr: &EventAttr) -> Option<&Format> {
        if attr.type_ != PERF_TYPE_TRACEPOINT {
            return None;
        }
        self.format_by_id(attr.config as u32)
    }

    /// A format by `system` and `name`.
    pub fn format_by_name(&self, system: &str, name: &str) -> Option<&Format> {
        self.formats.iter().find(|f| f.system == system && f.name == name)
    }

    /// Render `raw` (a sample's RAW data) the way `perf script` prints the tracepoint part of the
    /// line, by evaluating the format's `print fmt`; `[FAILED TO PARSE]` followed by `name=value`
    /// pairs when perf could not parse the print fmt either.
    ///
    /// Bytes copied from the record that are not UTF-8 are replaced (see [`Tracepoints::render_bytes`]).
    pub fn render(&self, fmt: &Format, raw: &[u8]) -> String {
        String::from_utf8_lossy(&self.render_bytes(fmt, raw)).into_owned()
    }

    /// [`Tracepoints::render`] as the exact bytes perf writes. The text of one record stops
    /// growing after about 1 MiB, where perf's would go on (only crafted print fmts get there).
    pub fn render_bytes(&self, fmt: &Format, raw: &[u8]) -> Vec<u8> {
        let lookup = |addr: u64| self.printk.get(&addr).map(String::as_str);
        format::print::render(fmt, raw, &lookup)
    }
}

/// `printk_formats` lines `0xADDR : "string"` (perf's `parse_ftrace_printk` +
/// `tep_register_print_string`: outer quotes and a trailing `\n` escape removed).
fn parse_printk(text: &[u8]) -> BTreeMap<u64, String> {
    let mut m = BTreeMap::new();
    for line in text.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_start_matches(':');
        let Some((addr, fmt)) = line.split_once(':') else { continue };
        let addr = u64::from_str_radix(addr.trim().trim_start_matches("0x").trim_start_matches("0X"), 16);
        let Ok(addr) = addr else { continue };
        // "fmt still has a space, skip it"
        let mut s = fmt.get(1..).unwrap_or("");
        s = s.strip_prefix('"').unwrap_or(s);
        if let Some(t) = s.strip_suffix('"') {
            s = t.strip_suffix("\\n").unwrap_or(t);
        }
        m.insert(addr, s.to_string());
    }
    m
}

/// `saved_cmdlines`: `pid comm` lines.
fn parse_cmdlines(text: &[u8]) -> BTreeMap<i32, String> {
    let mut m = BTreeMap::new();
    for line in text.split(|&c| c == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_start();
        let Some((pid, comm)) = line.split_once(' ') else { continue };
        if let (Ok(pid), false) = (pid.parse::<i32>(), comm.trim_start().is_empty()) {
            m.insert(pid, comm.trim_start().to_string());
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printk_and_cmdlines() {
        let p = parse_printk(b"0xffffffff82a0c2c0 : \"rcu_preempt\"\n0xffffffff82a0c2d0 : \"hello\\n\"\n\nbad\n");
        assert_eq!(p.get(&0xffff_ffff_82a0_c2c0).map(String::as_str), Some("rcu_preempt"));
        assert_eq!(p.get(&0xffff_ffff_82a0_c2d0).map(String::as_str), Some("hello"));
        let c = parse_cmdlines(b"12 kworker/0:1\n7 sh\n");
        assert_eq!(c.get(&12).map(String::as_str), Some("kworker/0:1"));
    }
}
