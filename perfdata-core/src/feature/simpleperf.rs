//! simpleperf's own feature sections (ids 128 and up, simpleperf's record_file_format.h): FILE and
//! FILE2 (the DSOs samples hit, each with the symbols simpleperf resolved in them, so a profile
//! recorded on a device can be symbolized without its binaries), META_INFO (key/value strings) and
//! DEBUG_UNWIND (a protobuf list of files). FILE2 and DEBUG_UNWIND are protobuf messages
//! (record_file.proto), read by the small bounded reader [`Proto`].

use crate::error::{Error, Position, Result};
use crate::reader::{until_nul, Endian, Reader};
use std::borrow::Cow;

/// simpleperf's `DsoType` (dso.h), the `file_type` of a FILE entry and `dso_type` of a DSO record.
pub mod dso_type {
    #![allow(missing_docs)]
    pub const KERNEL: u32 = 0;
    pub const KERNEL_MODULE: u32 = 1;
    pub const ELF_FILE: u32 = 2;
    /// Files holding dex files (.vdex, .apk): symbols are Java methods.
    pub const DEX_FILE: u32 = 3;
    pub const SYMBOL_MAP_FILE: u32 = 4;
    pub const UNKNOWN_FILE: u32 = 5;

    /// simpleperf's name (`DsoTypeToString`), or `None` for values it does not define.
    pub fn name(t: u32) -> Option<&'static str> {
        Some(match t {
            KERNEL => "dso_kernel",
            KERNEL_MODULE => "dso_kernel_module",
            ELF_FILE => "dso_elf_file",
            DEX_FILE => "dso_dex_file",
            SYMBOL_MAP_FILE => "dso_symbol_map_file",
            UNKNOWN_FILE => "dso_unknown_file",
            _ => return None,
        })
    }
}

/// One symbol of a FILE entry: `[vaddr, vaddr + len)` in the file's own virtual addresses (for the
/// kernel: kernel addresses).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SimpleperfSymbol<'a> {
    /// Start address.
    pub vaddr: u64,
    /// Length in bytes.
    pub len: u32,
    /// The name as simpleperf stored it (demangled by simpleperf for C++).
    pub name: Cow<'a, str>,
}

/// One DSO of the FILE / FILE2 feature (`FileFeature` in simpleperf's record_file.h).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SimpleperfFile<'a> {
    /// The path as it was on the device (`[kernel.kallsyms]` for the kernel).
    pub path: Cow<'a, str>,
    /// [`dso_type`].
    pub file_type: u32,
    /// The lowest virtual address of the file's executable segments (ELF: of its text).
    pub min_vaddr: u64,
    /// The symbols samples hit, in stored order (sorted by address as simpleperf writes them).
    pub symbols: Vec<SimpleperfSymbol<'a>>,
    /// Offsets of the dex files inside a [`dso_type::DEX_FILE`].
    pub dex_file_offsets: Vec<u64>,
    /// ELF: the file offset of `min_vaddr`; kernel module: its memory offset. `None` when not
    /// stored (`u64::MAX` in simpleperf's reader).
    pub file_offset_of_min_vaddr: Option<u64>,
}

impl SimpleperfFile<'_> {
    /// The symbol containing `vaddr` (a virtual address of this file), as simpleperf's
    /// `Dso::FindSymbol` finds it: the last symbol starting at or below it, if `vaddr` is before its
    /// end. The symbols must be sorted by `vaddr` ([`SimpleperfFile::sort_symbols`]).
    pub fn find_symbol(&self, vaddr: u64) -> Option<&SimpleperfSymbol<'_>> {
        let i = self.symbols.partition_point(|s| s.vaddr <= vaddr);
        let s = self.symbols.get(i.checked_sub(1)?)?;
        (vaddr < s.vaddr.saturating_add(u64::from(s.len))).then_some(s)
    }

    /// Sort the symbols by address (simpleperf writes them sorted; damaged files may not be).
    pub fn sort_symbols(&mut self) {
        self.symbols.sort_by_key(|s| s.vaddr);
    }
}

fn text(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// FILE (128): `file_struct`s back to back, each `u32 size` then that many bytes: the path
/// (NUL-terminated), `u32 file_type`, `u64 min_vaddr`, `u32 symbol_count`, per symbol `u64 vaddr,
/// u32 len, name NUL`; then for dex files `u32 count, u64 offsets[count]`, for ELF files and kernel
/// modules (when bytes remain) `u64 file_offset_of_min_vaddr`.
pub fn file_v1(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<SimpleperfFile<'_>>> {
    let mut r = Reader::new(data, endian, pos, "SIMPLEPERF_FILE");
    let mut files = Vec::new();
    while r.remaining() > 0 {
        let size = r.u32()?;
        let mut e = Reader::new(r.bytes(size as usize)?, endian, r.position(), "SIMPLEPERF_FILE entry");
        let path = nul_str(&mut e)?;
        let file_type = e.u32()?;
        let min_vaddr = e.u64()?;
        let count = e.u32()?;
        // Each symbol takes at least 13 bytes: never reserve more than the entry can hold.
        let mut symbols = Vec::with_capacity((count as usize).min(e.remaining() / 13));
        for _ in 0..count {
            let vaddr = e.u64()?;
            let len = e.u32()?;
            symbols.push(SimpleperfSymbol { vaddr, len, name: nul_str(&mut e)? });
        }
        let mut dex_file_offsets = Vec::new();
        if file_type == dso_type::DEX_FILE {
            let n = e.u32()?;
            dex_file_offsets = e.u64s(u64::from(n))?.to_vec();
        }
        let mut file_offset_of_min_vaddr = None;
        if (file_type == dso_type::ELF_FILE || file_type == dso_type::KERNEL_MODULE) && e.remaining() > 0 {
            file_offset_of_min_vaddr = Some(e.u64()?);
        }
        if e.remaining() != 0 {
            return Err(e.malformed(format!("{} bytes after the entry of {path}", e.remaining())));
        }
        files.push(SimpleperfFile { path, file_type, min_vaddr, symbols, dex_file_offsets, file_offset_of_min_vaddr });
    }
    Ok(files)
}

/// A NUL-terminated string (the NUL consumed).
fn nul_str<'a>(r: &mut Reader<'a>) -> Result<Cow<'a, str>> {
    let rest = r.rest();
    let s = until_nul(rest);
    if s.len() == rest.len() {
        return Err(r.malformed("string without its NUL"));
    }
    r.skip(s.len() + 1)?;
    Ok(text(s))
}

/// FILE2 (132): `u32 size` + a `FileFeature` protobuf message (record_file.proto), repeated.
pub fn file_v2(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<SimpleperfFile<'_>>> {
    let mut r = Reader::new(data, endian, pos, "SIMPLEPERF_FILE2");
    let mut files = Vec::new();
    while r.remaining() > 0 {
        let size = r.u32()?;
        let at = r.position();
        files.push(file_message(Proto::new(r.bytes(size as usize)?, at, "FileFeature"))?);
    }
    Ok(files)
}

/// One `FileFeature` message.
fn file_message<'a>(mut p: Proto<'a>) -> Result<SimpleperfFile<'a>> {
    let mut f = SimpleperfFile {
        path: Cow::Borrowed(""),
        file_type: 0,
        min_vaddr: 0,
        symbols: Vec::new(),
        dex_file_offsets: Vec::new(),
        file_offset_of_min_vaddr: None,
    };
    while let Some((field, v)) = p.next()? {
        match (field, v) {
            (1, Wire::Bytes(b)) => f.path = text(b),
            (2, Wire::Varint(t)) => f.file_type = t as u32,
            (3, Wire::Varint(m)) => f.min_vaddr = m,
            (4, Wire::Bytes(b)) => {
                let mut s = SimpleperfSymbol { vaddr: 0, len: 0, name: Cow::Borrowed("") };
                let mut sp = p.sub(b, "FileFeature.Symbol");
                while let Some((field, v)) = sp.next()? {
                    match (field, v) {
                        (1, Wire::Varint(a)) => s.vaddr = a,
                        (2, Wire::Varint(l)) => s.len = l as u32,
                        (3, Wire::Bytes(n)) => s.name = text(n),
                        _ => {}
                    }
                }
                f.symbols.push(s);
            }
            (5, Wire::Bytes(b)) => {
                let mut dp = p.sub(b, "FileFeature.DexFile");
                while let Some((field, v)) = dp.next()? {
                    match (field, v) {
                        (1, Wire::Varint(o)) => f.dex_file_offsets.push(o),
                        // proto3 packs repeated scalars.
                        (1, Wire::Bytes(packed)) => {
                            let mut pp = dp.sub(packed, "FileFeature.DexFile.dex_file_offset");
                            while pp.remaining() > 0 {
                                f.dex_file_offsets.push(pp.varint()?);
                            }
                        }
                        _ => {}
                    }
                }
            }
            (6 | 7, Wire::Bytes(b)) => {
                let mut ep = p.sub(b, "FileFeature.ElfFile");
                f.file_offset_of_min_vaddr = Some(0);
                while let Some((field, v)) = ep.next()? {
                    if let (1, Wire::Varint(o)) = (field, v) {
                        f.file_offset_of_min_vaddr = Some(o);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(f)
}

/// META_INFO (129): NUL-terminated key and value strings, alternating.
pub fn meta_info(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<(Cow<'_, str>, Cow<'_, str>)>> {
    let mut r = Reader::new(data, endian, pos, "SIMPLEPERF_META_INFO");
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let k = nul_str(&mut r)?;
        let v = nul_str(&mut r)?;
        out.push((k, v));
    }
    Ok(out)
}

/// One file of DEBUG_UNWIND: its path and size (its bytes are in DEBUG_UNWIND_FILE, in order).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct DebugUnwindFile<'a> {
    /// The path on the device.
    pub path: Cow<'a, str>,
    /// Bytes of it in DEBUG_UNWIND_FILE.
    pub size: u64,
}

/// DEBUG_UNWIND (130): a `DebugUnwindFeature` protobuf message.
pub fn debug_unwind(data: &[u8], _endian: Endian, pos: Position) -> Result<Vec<DebugUnwindFile<'_>>> {
    let mut p = Proto::new(data, pos, "DebugUnwindFeature");
    let mut out = Vec::new();
    while let Some((field, v)) = p.next()? {
        if let (1, Wire::Bytes(b)) = (field, v) {
            let mut f = DebugUnwindFile { path: Cow::Borrowed(""), size: 0 };
            let mut fp = p.sub(b, "DebugUnwindFeature.File");
            while let Some((field, v)) = fp.next()? {
                match (field, v) {
                    (1, Wire::Bytes(s)) => f.path = text(s),
                    (2, Wire::Varint(n)) => f.size = n,
                    _ => {}
                }
            }
            out.push(f);
        }
    }
    Ok(out)
}

/// A protobuf wire value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1 (little endian).
    Fixed64(u64),
    /// Wire type 2: a string, bytes, a sub-message or a packed array.
    Bytes(&'a [u8]),
    /// Wire type 5 (little endian).
    Fixed32(u32),
}

/// A bounded protobuf reader: fields in order, every length checked against the bytes left, errors
/// with the offset. Groups (wire types 3, 4) are rejected.
#[derive(Clone, Debug)]
pub struct Proto<'a> {
    data: &'a [u8],
    at: usize,
    pos: Position,
    what: &'static str,
}

impl<'a> Proto<'a> {
    /// Read `data`, found at `pos`, a message of type `what` (for errors).
    pub fn new(data: &'a [u8], pos: Position, what: &'static str) -> Self {
        Proto { data, at: 0, pos, what }
    }

    /// A reader of `inner`, a slice of this reader's data (a sub-message).
    pub fn sub(&self, inner: &'a [u8], what: &'static str) -> Proto<'a> {
        let off = (inner.as_ptr() as usize).saturating_sub(self.data.as_ptr() as usize) as u64;
        let pos = Position { offset: self.pos.offset.saturating_add(off), ..self.pos };
        Proto { data: inner, at: 0, pos, what }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }

    fn error(&self, detail: impl Into<String>) -> Error {
        let pos = Position { offset: self.pos.offset.saturating_add(self.at as u64), ..self.pos };
        Error::malformed(pos, self.what, detail)
    }

    /// One varint.
    pub fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let Some(&b) = self.data.get(self.at) else {
                return Err(self.error("varint runs past the end"));
            };
            self.at += 1;
            if shift == 63 && b > 1 {
                return Err(self.error("varint over 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.error("varint over 10 bytes"))
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let end = usize::try_from(n).ok().and_then(|n| self.at.checked_add(n));
        match end.and_then(|e| self.data.get(self.at..e).map(|b| (b, e))) {
            Some((b, e)) => {
                self.at = e;
                Ok(b)
            }
            None => Err(self.error(format!("{n} bytes wanted, {} left", self.remaining()))),
        }
    }

    /// The next field number and value, `None` at the end.
    #[allow(clippy::should_implement_trait)] // fallible: not an Iterator
    pub fn next(&mut self) -> Result<Option<(u64, Wire<'a>)>> {
        if self.remaining() == 0 {
            return Ok(None);
        }
        let key = self.varint()?;
        let v = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(Endian::Little.u64(self.take(8)?)),
            2 => {
                let n = self.varint()?;
                Wire::Bytes(self.take(n)?)
            }
            5 => Wire::Fixed32(Endian::Little.u32(self.take(4)?)),
            w => return Err(self.error(format!("wire type {w} of field {}", key >> 3))),
        };
        Ok(Some((key >> 3, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(out: &mut Vec<u8>, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn field_bytes(out: &mut Vec<u8>, f: u64, b: &[u8]) {
        varint(out, f << 3 | 2);
        varint(out, b.len() as u64);
        out.extend_from_slice(b);
    }

    fn field_varint(out: &mut Vec<u8>, f: u64, v: u64) {
        varint(out, f << 3);
        varint(out, v);
    }

    #[test]
    fn file2_message_and_damage() {
        let mut sym = Vec::new();
        field_varint(&mut sym, 1, 0x1000);
        field_varint(&mut sym, 2, 0x20);
        field_bytes(&mut sym, 3, b"main");
        let mut elf = Vec::new();
        field_varint(&mut elf, 1, 0x400);
        let mut msg = Vec::new();
        field_bytes(&mut msg, 1, b"/system/bin/app");
        field_varint(&mut msg, 2, u64::from(dso_type::ELF_FILE));
        field_varint(&mut msg, 3, 0x1000);
        field_bytes(&mut msg, 4, &sym);
        field_bytes(&mut msg, 6, &elf);
        let mut sec = Vec::new();
        Endian::Big.put_u32(&mut sec, msg.len() as u32);
        sec.extend_from_slice(&msg);
        let files = file_v2(&sec, Endian::Big, Position::at(0)).unwrap();
        assert_eq!(files.len(), 1);
        let f = &files[0];
        assert_eq!((f.path.as_ref(), f.file_type, f.min_vaddr), ("/system/bin/app", 2, 0x1000));
        assert_eq!(f.file_offset_of_min_vaddr, Some(0x400));
        assert_eq!(f.find_symbol(0x101f).map(|s| s.name.as_ref()), Some("main"));
        assert_eq!(f.find_symbol(0x1020), None);
        assert_eq!(f.find_symbol(0xfff), None);
        // Every truncation is an error or a shorter reading, never a panic.
        for n in 0..sec.len() {
            let _ = file_v2(&sec[..n], Endian::Big, Position::at(0));
        }
        // A length past the end.
        let bad = [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(Proto::new(&bad, Position::at(0), "x").next().is_err());
        // An 11-byte varint.
        let bad = [0x80u8; 11];
        assert!(Proto::new(&bad, Position::at(0), "x").varint().is_err());
    }

    #[test]
    fn file_v1_and_meta_info() {
        let e = Endian::Little;
        let mut entry = Vec::new();
        entry.extend_from_slice(b"[kernel.kallsyms]\0");
        e.put_u32(&mut entry, dso_type::KERNEL);
        e.put_u64(&mut entry, 0);
        e.put_u32(&mut entry, 2);
        for (a, l, n) in [(0x100u64, 0x10u32, "a"), (0x110, 0x8, "b")] {
            e.put_u64(&mut entry, a);
            e.put_u32(&mut entry, l);
            entry.extend_from_slice(n.as_bytes());
            entry.push(0);
        }
        let mut sec = Vec::new();
        e.put_u32(&mut sec, entry.len() as u32);
        sec.extend_from_slice(&entry);
        let files = file_v1(&sec, e, Position::at(0)).unwrap();
        assert_eq!(files[0].symbols.len(), 2);
        assert_eq!(files[0].find_symbol(0x117).unwrap().name, "b");
        for n in 0..sec.len() {
            assert!(file_v1(&sec[..n], e, Position::at(0)).is_err() || n == 0);
        }
        let m = meta_info(b"a\0b\0clockid\0perf\0", e, Position::at(0)).unwrap();
        assert_eq!(m[1], (Cow::Borrowed("clockid"), Cow::Borrowed("perf")));
        assert!(meta_info(b"a\0b", e, Position::at(0)).is_err());
    }
}
