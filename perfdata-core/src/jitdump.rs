//! jitdump files (`jit-PID.dump`): what a JIT compiler (V8's `--perf-prof`, perf's JVMTI agent, …)
//! writes about the code it generates, for `perf inject --jit` to turn into ELF files and MMAP2
//! records. A 40-byte header, then records, each starting with `id`, `total_size` and `timestamp`.
//! Layout: linux `tools/perf/Documentation/jitdump-specification.txt`, `tools/perf/util/jitdump.h`.
//!
//! ```no_run
//! use perfdata_core::jitdump::{JitDump, JitRecordKind};
//! let bytes = std::fs::read("jit-1234.dump")?;
//! let dump = JitDump::parse(&bytes)?;
//! for record in dump.records() {
//!     match record {
//!         Ok(r) => if let JitRecordKind::CodeLoad(load) = &r.kind {
//!             println!("{:#x} {}", load.code_addr, String::from_utf8_lossy(load.name));
//!         },
//!         Err(e) => eprintln!("{e}"),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Reading never trusts a size: a record whose frame is cut short or impossible ends the records
//! with an error (every complete record before it was delivered); a complete record whose body
//! does not parse gives an error for that record alone, and reading goes on after it.

use crate::error::{Error, Position, Result};
use crate::reader::{until_nul, Endian, Reader};

/// `JITHEADER_MAGIC`: the characters `JiTD` as a u32 in the writer's byte order (the file's byte
/// order is the one in which the first four bytes read as this value).
pub const MAGIC: u32 = 0x4A69_5444;

/// Size of the header perf knows (`struct jitheader`): the records start at the header's
/// `total_size`, which is at least this in every known writer.
pub const HEADER_SIZE: usize = 40;

/// Size of a record's prefix (`struct jr_prefix`: id, total_size, timestamp).
pub const PREFIX_SIZE: usize = 16;

/// Record ids (`enum jit_record_type`).
pub mod record_id {
    /// `JIT_CODE_LOAD`: code was generated.
    pub const CODE_LOAD: u32 = 0;
    /// `JIT_CODE_MOVE`: code moved.
    pub const CODE_MOVE: u32 = 1;
    /// `JIT_CODE_DEBUG_INFO`: source lines of the next loaded code.
    pub const CODE_DEBUG_INFO: u32 = 2;
    /// `JIT_CODE_CLOSE`: the writer closed the file.
    pub const CODE_CLOSE: u32 = 3;
    /// `JIT_CODE_UNWINDING_INFO`: `.eh_frame` data of the next loaded code.
    pub const CODE_UNWINDING_INFO: u32 = 4;
}

/// Header flags (`JITDUMP_FLAGS_*`).
pub mod flags {
    /// `JITDUMP_FLAGS_ARCH_TIMESTAMP`: timestamps are the CPU's counter (TSC), converted with the
    /// recording's TIME_CONV record; without it they are `CLOCK_MONOTONIC` ns.
    pub const ARCH_TIMESTAMP: u64 = 1;
    /// The bits perf 6.1 knows; a header with any other bit set is refused by `perf inject`.
    pub const KNOWN: u64 = ARCH_TIMESTAMP;
}

/// The file header (`struct jitheader`), every field as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitHeader {
    /// Byte order of the whole file, from the magic.
    pub endian: Endian,
    /// `version` (1 in every known writer; perf 6.1 refuses larger ones).
    pub version: u32,
    /// `total_size`: header size, where the first record starts.
    pub total_size: u32,
    /// `elf_mach`: ELF `e_machine` of the code (62 for x86-64).
    pub elf_mach: u32,
    /// `pad1`.
    pub pad1: u32,
    /// `pid` of the writer.
    pub pid: u32,
    /// `timestamp` when the file was written (not used by perf).
    pub timestamp: u64,
    /// `flags` ([`flags`]).
    pub flags: u64,
}

/// A record's prefix (`struct jr_prefix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitRecordHeader {
    /// `id` ([`record_id`]).
    pub id: u32,
    /// `total_size`, prefix included.
    pub total_size: u32,
    /// `timestamp` (ns of `CLOCK_MONOTONIC`, or the CPU counter with [`flags::ARCH_TIMESTAMP`]).
    pub timestamp: u64,
}

/// `JIT_CODE_LOAD` (`struct jr_code_load`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeLoad<'a> {
    /// Process.
    pub pid: u32,
    /// Thread.
    pub tid: u32,
    /// `vma`: virtual address of the code (usually `code_addr`).
    pub vma: u64,
    /// Where the code is.
    pub code_addr: u64,
    /// Its size in bytes.
    pub code_size: u64,
    /// `code_index`: unique per load; perf inject names the ELF file `jitted-PID-INDEX.so`.
    pub code_index: u64,
    /// The function name (the NUL-terminated string after the fixed fields, without the NUL).
    pub name: &'a [u8],
    /// The code: the last `code_size` bytes of the record (where perf takes them from).
    pub code: &'a [u8],
}

/// `JIT_CODE_MOVE` (`struct jr_code_move`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeMove {
    /// Process.
    pub pid: u32,
    /// Thread.
    pub tid: u32,
    /// `vma`.
    pub vma: u64,
    /// Where the code was.
    pub old_code_addr: u64,
    /// Where it is now.
    pub new_code_addr: u64,
    /// Its size.
    pub code_size: u64,
    /// The `code_index` of the load that created it.
    pub code_index: u64,
}

/// `JIT_CODE_DEBUG_INFO` (`struct jr_code_debug_info`): source positions of the code loaded next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DebugInfo<'a> {
    /// Address of the code the entries describe.
    pub code_addr: u64,
    /// `nr_entry`, as stored (the entries are read from the record's bytes, bounded by them).
    pub nr_entry: u64,
    /// The entries' bytes; [`DebugInfo::entries`] decodes them.
    pub entries: &'a [u8],
    endian: Endian,
    pos: Position,
}

/// One `struct debug_entry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DebugEntry<'a> {
    /// Code address.
    pub addr: u64,
    /// Source line (from 1).
    pub lineno: i32,
    /// Column discriminator (0 by default).
    pub discrim: i32,
    /// File name, without its NUL; `b"\xff"` means "the previous entry's".
    pub name: &'a [u8],
}

impl<'a> DebugInfo<'a> {
    /// The entries: at most `nr_entry`, as many as the record's bytes hold; an entry cut short
    /// ends them with an error.
    pub fn entries(&self) -> impl Iterator<Item = Result<DebugEntry<'a>>> + 'a {
        let mut r = Reader::new(self.entries, self.endian, self.pos, "jitdump debug_entry");
        let mut left = self.nr_entry;
        std::iter::from_fn(move || {
            if left == 0 || r.remaining() == 0 {
                return None;
            }
            left -= 1;
            let entry = (|| {
                let (addr, lineno, discrim) = (r.u64()?, r.i32()?, r.i32()?);
                let rest = r.rest();
                let name = until_nul(rest);
                if name.len() == rest.len() {
                    return Err(r.malformed("file name without its NUL"));
                }
                r.skip(name.len().saturating_add(1))?;
                Ok(DebugEntry { addr, lineno, discrim, name })
            })();
            if entry.is_err() {
                left = 0;
            }
            Some(entry)
        })
    }
}

/// `JIT_CODE_UNWINDING_INFO` (`struct jr_code_unwinding_info`): `.eh_frame_hdr` and `.eh_frame`
/// of the code loaded next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnwindingInfo<'a> {
    /// `unwinding_size`: bytes of unwinding data (`.eh_frame_hdr` + `.eh_frame`).
    pub unwinding_size: u64,
    /// `eh_frame_hdr_size`.
    pub eh_frame_hdr_size: u64,
    /// `mapped_size`: bytes of it mapped after the code (perf inject's MMAP2 then covers
    /// `ALIGN_8(code_size) + mapped_size`).
    pub mapped_size: u64,
    /// The data (the rest of the record).
    pub data: &'a [u8],
}

/// A record's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitRecordKind<'a> {
    /// `JIT_CODE_LOAD`.
    CodeLoad(CodeLoad<'a>),
    /// `JIT_CODE_MOVE`.
    CodeMove(CodeMove),
    /// `JIT_CODE_DEBUG_INFO`.
    DebugInfo(DebugInfo<'a>),
    /// `JIT_CODE_CLOSE` (perf goes on reading after it).
    Close,
    /// `JIT_CODE_UNWINDING_INFO`.
    UnwindingInfo(UnwindingInfo<'a>),
    /// An id this reader does not know: the body after the prefix, raw (perf skips it by size).
    Unknown(&'a [u8]),
}

/// A record: where it is, its prefix and its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitRecord<'a> {
    /// Offset of the record in the file.
    pub pos: Position,
    /// The prefix.
    pub header: JitRecordHeader,
    /// The body.
    pub kind: JitRecordKind<'a>,
}

/// A jitdump file: its header, and its records through [`JitDump::records`].
#[derive(Clone, Copy, Debug)]
pub struct JitDump<'a> {
    /// The header.
    pub header: JitHeader,
    data: &'a [u8],
}

impl<'a> JitDump<'a> {
    /// Read the header of `data` (the whole file). Fails when the file is shorter than the header
    /// or its magic is `JiTD` in neither byte order.
    pub fn parse(data: &'a [u8]) -> Result<JitDump<'a>> {
        let magic = Reader::new(data, Endian::Little, Position::at(0), "jitdump header").u32()?;
        let endian = if magic == MAGIC {
            Endian::Little
        } else if magic.swap_bytes() == MAGIC {
            Endian::Big
        } else {
            return Err(Error::malformed(
                Position::at(0),
                "jitdump header",
                format!("magic {magic:#010x} is not JiTD"),
            ));
        };
        let mut r = Reader::new(data, endian, Position::at(0), "jitdump header");
        r.skip(4)?;
        let header = JitHeader {
            endian,
            version: r.u32()?,
            total_size: r.u32()?,
            elf_mach: r.u32()?,
            pad1: r.u32()?,
            pid: r.u32()?,
            timestamp: r.u64()?,
            flags: r.u64()?,
        };
        Ok(JitDump { header, data })
    }

    /// The records, in file order. They start at the header's `total_size` (the specification's
    /// rule; perf 6.1 reads them from byte 40 whatever the size says, which only matters for a
    /// header larger than any writer makes), never before byte 40.
    pub fn records(&self) -> JitRecords<'a> {
        let start = usize::try_from(self.header.total_size).unwrap_or(usize::MAX).max(HEADER_SIZE);
        JitRecords { data: self.data, at: start.min(self.data.len()), endian: self.header.endian, done: false }
    }
}

/// The records of a [`JitDump`]; after an error in the framing (a record cut short, or a size
/// smaller than its prefix) there are no more.
#[derive(Clone, Debug)]
pub struct JitRecords<'a> {
    data: &'a [u8],
    at: usize,
    endian: Endian,
    done: bool,
}

impl<'a> JitRecords<'a> {
    /// The offset of the next record (the end of the complete records read so far).
    pub fn offset(&self) -> usize {
        self.at
    }
}

impl<'a> Iterator for JitRecords<'a> {
    type Item = Result<JitRecord<'a>>;

    fn next(&mut self) -> Option<Result<JitRecord<'a>>> {
        if self.done {
            return None;
        }
        let rest = self.data.get(self.at..).unwrap_or(&[]);
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let pos = Position::at(self.at as u64);
        // Framing errors name the record's start, whichever of its fields is missing.
        let cut = |needed: usize| Error::Truncated {
            pos,
            what: "jitdump record",
            needed: needed as u64,
            available: rest.len() as u64,
        };
        let framed = (|| {
            let mut r = Reader::new(rest, self.endian, pos, "jitdump record prefix");
            let prefix = r.bytes(PREFIX_SIZE).map_err(|_| cut(PREFIX_SIZE))?;
            let mut p = Reader::new(prefix, self.endian, pos, "jitdump record prefix");
            let header = JitRecordHeader { id: p.u32()?, total_size: p.u32()?, timestamp: p.u64()? };
            let size = header.total_size as usize;
            if size < PREFIX_SIZE {
                return Err(Error::malformed(pos, "jitdump record prefix", format!("total_size {size} < 16")));
            }
            let body = r.bytes(size - PREFIX_SIZE).map_err(|_| cut(size))?;
            Ok((header, body, size))
        })();
        let (header, body, size) = match framed {
            Ok(f) => f,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.at = self.at.saturating_add(size);
        let body_pos = Position::at(pos.offset.saturating_add(PREFIX_SIZE as u64));
        Some(parse_body(header, body, self.endian, body_pos).map(|kind| JitRecord { pos, header, kind }))
    }
}

fn parse_body<'a>(h: JitRecordHeader, body: &'a [u8], endian: Endian, pos: Position) -> Result<JitRecordKind<'a>> {
    use record_id::*;
    let name = match h.id {
        CODE_LOAD => "JIT_CODE_LOAD record",
        CODE_MOVE => "JIT_CODE_MOVE record",
        CODE_DEBUG_INFO => "JIT_CODE_DEBUG_INFO record",
        CODE_UNWINDING_INFO => "JIT_CODE_UNWINDING_INFO record",
        CODE_CLOSE => return Ok(JitRecordKind::Close),
        _ => return Ok(JitRecordKind::Unknown(body)),
    };
    let mut r = Reader::new(body, endian, pos, name);
    Ok(match h.id {
        CODE_LOAD => {
            let (pid, tid, vma, code_addr, code_size, code_index) =
                (r.u32()?, r.u32()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?);
            let rest = r.rest();
            let text_len = usize::try_from(code_size)
                .ok()
                .and_then(|c| rest.len().checked_sub(c))
                .ok_or_else(|| r.malformed(format!("code_size {code_size} > the {} bytes left", rest.len())))?;
            let (text, code) = rest.split_at(text_len);
            let name = until_nul(text);
            if name.len() == text.len() {
                return Err(r.malformed("no NUL-terminated name before the code"));
            }
            JitRecordKind::CodeLoad(CodeLoad { pid, tid, vma, code_addr, code_size, code_index, name, code })
        }
        CODE_MOVE => JitRecordKind::CodeMove(CodeMove {
            pid: r.u32()?,
            tid: r.u32()?,
            vma: r.u64()?,
            old_code_addr: r.u64()?,
            new_code_addr: r.u64()?,
            code_size: r.u64()?,
            code_index: r.u64()?,
        }),
        CODE_DEBUG_INFO => {
            let (code_addr, nr_entry) = (r.u64()?, r.u64()?);
            let entries_pos = r.position();
            JitRecordKind::DebugInfo(DebugInfo { code_addr, nr_entry, entries: r.rest(), endian, pos: entries_pos })
        }
        _ => JitRecordKind::UnwindingInfo(UnwindingInfo {
            unwinding_size: r.u64()?,
            eh_frame_hdr_size: r.u64()?,
            mapped_size: r.u64()?,
            data: r.rest(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little- or big-endian dump: the header, then the given records (id, timestamp, body).
    pub(crate) fn dump(endian: Endian, records: &[(u32, u64, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        endian.put_u32(&mut out, MAGIC);
        for v in [1u32, 40, 62, 0, 77] {
            endian.put_u32(&mut out, v);
        }
        endian.put_u64(&mut out, 5);
        endian.put_u64(&mut out, 0);
        for (id, ts, body) in records {
            endian.put_u32(&mut out, *id);
            endian.put_u32(&mut out, (body.len() + 16) as u32);
            endian.put_u64(&mut out, *ts);
            out.extend_from_slice(body);
        }
        out
    }

    pub(crate) fn load_body(endian: Endian, addr: u64, size: u64, index: u64, name: &str) -> Vec<u8> {
        let mut b = Vec::new();
        endian.put_u32(&mut b, 77);
        endian.put_u32(&mut b, 78);
        for v in [addr, addr, size, index] {
            endian.put_u64(&mut b, v);
        }
        b.extend_from_slice(name.as_bytes());
        b.push(0);
        b.extend(vec![0xcc; size as usize]);
        b
    }

    #[test]
    fn both_byte_orders() {
        for endian in [Endian::Little, Endian::Big] {
            let mut info = Vec::new();
            for v in [0x1000u64, 2, 0x1000] {
                endian.put_u64(&mut info, v);
            }
            endian.put_u32(&mut info, 7);
            endian.put_u32(&mut info, 0);
            info.extend_from_slice(b"a.js\0");
            endian.put_u64(&mut info, 0x1004);
            endian.put_u32(&mut info, 8);
            endian.put_u32(&mut info, 1);
            info.extend_from_slice(b"\xff\0");
            let data = dump(
                endian,
                &[
                    (record_id::CODE_DEBUG_INFO, 9, info),
                    (record_id::CODE_LOAD, 10, load_body(endian, 0x1000, 4, 3, "f")),
                    (record_id::CODE_CLOSE, 11, Vec::new()),
                    (99, 12, vec![1, 2, 3]),
                ],
            );
            let d = JitDump::parse(&data).unwrap();
            assert_eq!((d.header.endian, d.header.pid, d.header.total_size, d.header.elf_mach), (endian, 77, 40, 62));
            let recs: Vec<_> = d.records().map(|r| r.unwrap()).collect();
            assert_eq!(recs.len(), 4);
            let JitRecordKind::DebugInfo(di) = recs[0].kind else { panic!() };
            let entries: Vec<_> = di.entries().map(|e| e.unwrap()).collect();
            assert_eq!((entries[0].lineno, entries[0].name, entries[1].name), (7, &b"a.js"[..], &b"\xff"[..]));
            let JitRecordKind::CodeLoad(l) = recs[1].kind else { panic!() };
            assert_eq!(
                (l.code_addr, l.code_size, l.code_index, l.name, l.code),
                (0x1000, 4, 3, &b"f"[..], &[0xcc; 4][..])
            );
            assert_eq!(recs[1].header.timestamp, 10);
            assert_eq!(recs[2].kind, JitRecordKind::Close);
            assert_eq!(recs[3].kind, JitRecordKind::Unknown(&[1, 2, 3]));
        }
    }

    #[test]
    fn damage_is_reported_where_it_is() {
        let e = Endian::Little;
        assert!(JitDump::parse(b"JiTD").is_err());
        assert!(JitDump::parse(&[0; 40]).is_err());
        let good = dump(e, &[(0, 1, load_body(e, 0x10, 2, 0, "a")), (0, 2, load_body(e, 0x20, 2, 1, "b"))]);
        // Cut anywhere in the second record: the first still comes, then one error, then nothing.
        let second = 40 + 16 + 40 + 2 + 2;
        for cut in second..good.len() {
            let d = JitDump::parse(&good[..cut]).unwrap();
            let recs: Vec<_> = d.records().collect();
            assert!(recs[0].is_ok(), "cut {cut}");
            if cut > second {
                assert_eq!(recs.len(), 2, "cut {cut}");
                assert_eq!(recs[1].as_ref().unwrap_err().position(), Some(Position::at(second as u64)));
            }
        }
        // A code_size larger than the record: that record is an error, the next one is read.
        let mut bad = load_body(e, 0x10, 2, 0, "a");
        bad[24..32].copy_from_slice(&1000u64.to_le_bytes());
        let data = dump(e, &[(0, 1, bad), (0, 2, load_body(e, 0x20, 2, 1, "b"))]);
        let recs: Vec<_> = JitDump::parse(&data).unwrap().records().collect();
        assert!(recs[0].is_err() && recs[1].is_ok());
        // A total_size below the prefix ends the records.
        let mut data = dump(e, &[(0, 1, load_body(e, 0x10, 2, 0, "a"))]);
        data[44..48].copy_from_slice(&8u32.to_le_bytes());
        let recs: Vec<_> = JitDump::parse(&data).unwrap().records().collect();
        assert_eq!(recs.len(), 1);
        assert!(recs[0].is_err());
    }
}
