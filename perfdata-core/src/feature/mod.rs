//! Feature sections (perf's header.c `write_*`/`process_*`), one module per family.

pub mod strings;

use crate::attr::EventAttr;
use crate::error::{Position, Result};
use crate::reader::{Endian, Reader};

/// One EVENT_DESC entry: an attr, its name and ids.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDesc {
    /// The attr as stored in the section.
    pub attr: EventAttr,
    /// Event name, e.g. `cpu-clock` or `sched:sched_switch`.
    pub name: String,
    /// Ids of the event's counters.
    pub ids: Vec<u64>,
}

/// Parse HEADER_EVENT_DESC: `u32 nr; u32 attr_size;` nr × {attr; u32 nr_ids; string name; u64 ids[]}.
pub fn event_desc(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<EventDesc>> {
    let mut r = Reader::new(data, endian, pos, "EVENT_DESC");
    let nr = r.u32()?;
    let attr_size = r.u32()? as usize;
    if attr_size < 64 {
        return Err(r.malformed(format!("attr_size {attr_size} below 64")));
    }
    let mut out = Vec::with_capacity((nr as usize).min(r.remaining() / attr_size));
    for _ in 0..nr {
        let apos = r.position();
        let attr = EventAttr::parse(r.bytes(attr_size)?, endian, apos)?;
        let nr_ids = r.u32()?;
        let name = strings::header_string(&mut r)?;
        let ids = r.u64s(u64::from(nr_ids))?.to_vec();
        out.push(EventDesc { attr, name, ids });
    }
    Ok(out)
}

/// HEADER_COMPRESSED: the compression settings of the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Compressed {
    /// Format version (perf writes 0).
    pub version: u32,
    /// 1 = zstd.
    pub type_: u32,
    /// Compression level.
    pub level: u32,
    /// Compression ratio observed by perf.
    pub ratio: u32,
    /// Upper bound of one record's decompressed size.
    pub mmap_len: u32,
}

/// Parse HEADER_COMPRESSED.
pub fn compressed(data: &[u8], endian: Endian, pos: Position) -> Result<Compressed> {
    let mut r = Reader::new(data, endian, pos, "COMPRESSED feature");
    Ok(Compressed { version: r.u32()?, type_: r.u32()?, level: r.u32()?, ratio: r.u32()?, mmap_len: r.u32()? })
}
