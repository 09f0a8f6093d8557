//! simpleperf's own feature sections (ids 128 and up, simpleperf's record_file_format.h): FILE and
//! FILE2 (the DSOs samples hit, each with the symbols simpleperf resolved in them, so a profile
//! recorded on a device can be symbolized without its binaries), META_INFO (key/value strings) and
//! DEBUG_UNWIND (a protobuf list of files). FILE2 and DEBUG_UNWIND are protobuf messages
//! (record_file.proto), read by the small bounded reader [`Proto`].

use crate::error::{Position, Result};
use crate::reader::{Endian, Reader};
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

/// FILE (128): `file_struct`s back to back, each `u32 size` then that many bytes: the path
/// (NUL-terminated), `u32 file_type`, `u64 min_vaddr`, `u32 symbol_count`, per symbol `u64 vaddr,
/// u32 len, name NUL`; then for dex files `u32 count, u64 offsets[count]`, for ELF files and kernel
/// modules (when bytes remain) `u64 file_offset_of_min_vaddr`.
pub fn file_v1(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<SimpleperfFile<'_>>> {
    super::run(data, endian, pos, parse::simpleperf_file)
}

/// FILE2 (132): `u32 size` + a `FileFeature` protobuf message (record_file.proto), repeated.
pub fn file_v2(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<SimpleperfFile<'_>>> {
    super::run(data, endian, pos, parse::simpleperf_file2)
}

/// META_INFO (129): NUL-terminated key and value strings, alternating.
pub fn meta_info(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<(Cow<'_, str>, Cow<'_, str>)>> {
    super::run(data, endian, pos, parse::simpleperf_meta_info)
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
pub fn debug_unwind(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<DebugUnwindFile<'_>>> {
    super::run(data, endian, pos, parse::simpleperf_debug_unwind)
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
/// with the offset. Groups (wire types 3, 4) are rejected. A cursor over
/// [`parse::proto_field`] and [`parse::varint`].
#[derive(Clone, Debug)]
pub struct Proto<'a> {
    r: Reader<'a>,
    /// The whole message and where it starts (for [`Proto::sub`]).
    data: &'a [u8],
    pos: Position,
}

impl<'a> Proto<'a> {
    /// Read `data`, found at `pos`, a message of type `what` (for errors).
    pub fn new(data: &'a [u8], pos: Position, what: &'static str) -> Self {
        Proto { r: Reader::new(data, Endian::Little, pos, what), data, pos }
    }

    /// A reader of `inner`, a slice of this reader's data (a sub-message).
    pub fn sub(&self, inner: &'a [u8], what: &'static str) -> Proto<'a> {
        let off = (inner.as_ptr() as usize).saturating_sub(self.data.as_ptr() as usize) as u64;
        Proto::new(inner, Position { offset: self.pos.offset.saturating_add(off), ..self.pos }, what)
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.r.remaining()
    }

    /// One varint.
    pub fn varint(&mut self) -> Result<u64> {
        self.r.run(parse::varint)
    }

    /// The next field number and value, `None` at the end.
    #[allow(clippy::should_implement_trait)] // fallible: not an Iterator
    pub fn next(&mut self) -> Result<Option<(u64, Wire<'a>)>> {
        if self.remaining() == 0 {
            return Ok(None);
        }
        self.r.run(parse::proto_field).map(Some)
    }
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::reader::{count, malformed, take, take_input, u32, u64, u64s, until_end};
    use crate::reader::{PResult, ParseError, Reader};
    use std::borrow::Cow;

    /// A NUL-terminated string (simpleperf's layout), the NUL consumed; borrowed when UTF-8.
    pub fn nul_str<'a>(input: Reader<'a>) -> PResult<'a, Cow<'a, str>> {
        use nom::bytes::complete::take_till;
        let (rest, s): (_, Reader<'a>) = take_till(|b| b == 0)(input)?;
        if rest.remaining() == 0 {
            return malformed(&input, "string without its NUL", [0; 2]);
        }
        Ok((rest.advanced(1), String::from_utf8_lossy(s.rest())))
    }

    /// simpleperf's FILE (128): `file_struct`s to the end, each `u32 size` then that many bytes: the
    /// path (NUL-terminated), `u32 file_type`, `u64 min_vaddr`, `u32 symbol_count`, per symbol `u64
    /// vaddr, u32 len, name NUL`; then for dex files `u32 count, u64 offsets[count]`, for ELF files
    /// and kernel modules (when bytes remain) `u64 file_offset_of_min_vaddr`.
    pub fn simpleperf_file(input: Reader<'_>) -> PResult<'_, Vec<SimpleperfFile<'_>>> {
        until_end(simpleperf_file_entry)(input.context("SIMPLEPERF_FILE"))
    }

    fn simpleperf_file_entry(input: Reader<'_>) -> PResult<'_, SimpleperfFile<'_>> {
        let symbol = |e| {
            let (e, vaddr) = u64(e)?;
            let (e, len) = u32(e)?;
            let (e, name) = nul_str(e)?;
            Ok((e, SimpleperfSymbol { vaddr, len, name }))
        };
        let (input, size) = u32(input)?;
        let (rest, e) = take_input(size as usize)(input)?;
        let e = e.context("SIMPLEPERF_FILE entry");
        let (e, path) = nul_str(e)?;
        let (e, file_type) = u32(e)?;
        let (e, min_vaddr) = u64(e)?;
        let (e, nr) = u32(e)?;
        // Each symbol takes at least 13 bytes.
        let (mut e, symbols) = count(nr.into(), 13, symbol)(e)?;
        let mut dex_file_offsets = Vec::new();
        if file_type == dso_type::DEX_FILE {
            let (r, n) = u32(e)?;
            let (r, offsets) = u64s(n.into())(r)?;
            dex_file_offsets = offsets.to_vec();
            e = r;
        }
        let mut file_offset_of_min_vaddr = None;
        if (file_type == dso_type::ELF_FILE || file_type == dso_type::KERNEL_MODULE) && e.remaining() > 0 {
            let (r, v) = u64(e)?;
            file_offset_of_min_vaddr = Some(v);
            e = r;
        }
        if e.remaining() != 0 {
            return malformed(&e, "{} bytes after the entry", [e.remaining() as u64, 0]);
        }
        Ok((rest, SimpleperfFile { path, file_type, min_vaddr, symbols, dex_file_offsets, file_offset_of_min_vaddr }))
    }

    /// simpleperf's META_INFO (129): NUL-terminated key and value strings, alternating, to the end.
    pub fn simpleperf_meta_info(input: Reader<'_>) -> PResult<'_, Vec<(Cow<'_, str>, Cow<'_, str>)>> {
        let pair = |input| {
            let (input, k) = nul_str(input)?;
            let (input, v) = nul_str(input)?;
            Ok((input, (k, v)))
        };
        until_end(pair)(input.context("SIMPLEPERF_META_INFO"))
    }

    /// simpleperf's FILE2 (132): `u32 size` + a `FileFeature` protobuf message (record_file.proto),
    /// to the end.
    pub fn simpleperf_file2(input: Reader<'_>) -> PResult<'_, Vec<SimpleperfFile<'_>>> {
        let message = |input| {
            let (input, size) = u32(input)?;
            let (rest, m) = take_input(size as usize)(input)?;
            let (_, f) = file_feature(m.context("FileFeature"))?;
            Ok((rest, f))
        };
        until_end(message)(input.context("SIMPLEPERF_FILE2"))
    }

    /// One `FileFeature` protobuf message (the whole input).
    pub fn file_feature(input: Reader<'_>) -> PResult<'_, SimpleperfFile<'_>> {
        let mut f = SimpleperfFile {
            path: Cow::Borrowed(""),
            file_type: 0,
            min_vaddr: 0,
            symbols: Vec::new(),
            dex_file_offsets: Vec::new(),
            file_offset_of_min_vaddr: None,
        };
        let text = String::from_utf8_lossy;
        let (rest, ()) = proto_fields(input, |field, v, sub| {
            match (field, v) {
                (1, Wire::Bytes(b)) => f.path = text(b),
                (2, Wire::Varint(t)) => f.file_type = t as u32,
                (3, Wire::Varint(m)) => f.min_vaddr = m,
                (4, Wire::Bytes(_)) => {
                    let mut s = SimpleperfSymbol { vaddr: 0, len: 0, name: Cow::Borrowed("") };
                    proto_fields(sub.context("FileFeature.Symbol"), |field, v, _| {
                        match (field, v) {
                            (1, Wire::Varint(a)) => s.vaddr = a,
                            (2, Wire::Varint(l)) => s.len = l as u32,
                            (3, Wire::Bytes(n)) => s.name = text(n),
                            _ => {}
                        }
                        Ok(())
                    })?;
                    f.symbols.push(s);
                }
                (5, Wire::Bytes(_)) => {
                    proto_fields(sub.context("FileFeature.DexFile"), |field, v, packed| {
                        match (field, v) {
                            (1, Wire::Varint(o)) => f.dex_file_offsets.push(o),
                            // proto3 packs repeated scalars.
                            (1, Wire::Bytes(_)) => {
                                let (_, offsets) =
                                    until_end(varint)(packed.context("FileFeature.DexFile.dex_file_offset"))?;
                                f.dex_file_offsets.extend(offsets);
                            }
                            _ => {}
                        }
                        Ok(())
                    })?;
                }
                (6 | 7, Wire::Bytes(_)) => {
                    f.file_offset_of_min_vaddr = Some(0);
                    proto_fields(sub.context("FileFeature.ElfFile"), |field, v, _| {
                        if let (1, Wire::Varint(o)) = (field, v) {
                            f.file_offset_of_min_vaddr = Some(o);
                        }
                        Ok(())
                    })?;
                }
                _ => {}
            }
            Ok(())
        })?;
        Ok((rest, f))
    }

    /// simpleperf's DEBUG_UNWIND (130): a `DebugUnwindFeature` protobuf message (the whole input).
    pub fn simpleperf_debug_unwind(input: Reader<'_>) -> PResult<'_, Vec<DebugUnwindFile<'_>>> {
        let mut out = Vec::new();
        let (rest, ()) = proto_fields(input.context("DebugUnwindFeature"), |field, v, sub| {
            if let (1, Wire::Bytes(_)) = (field, v) {
                let mut f = DebugUnwindFile { path: Cow::Borrowed(""), size: 0 };
                proto_fields(sub.context("DebugUnwindFeature.File"), |field, v, _| {
                    match (field, v) {
                        (1, Wire::Bytes(s)) => f.path = String::from_utf8_lossy(s),
                        (2, Wire::Varint(n)) => f.size = n,
                        _ => {}
                    }
                    Ok(())
                })?;
                out.push(f);
            }
            Ok(())
        })?;
        Ok((rest, out))
    }

    /// Every field of a protobuf message (the whole input), in order, given to `field` with the input
    /// of its bytes (a sub-message or a packed array; empty for the other wire types).
    pub fn proto_fields<'a>(
        mut input: Reader<'a>,
        mut field: impl FnMut(u64, Wire<'a>, Reader<'a>) -> Result<(), nom::Err<ParseError>>,
    ) -> PResult<'a, ()> {
        while input.remaining() > 0 {
            let (rest, (number, value)) = proto_field(input)?;
            let sub = match value {
                Wire::Bytes(b) => {
                    let at = rest.position();
                    let offset = at.offset.saturating_sub(b.len() as u64);
                    Reader::new(b, input.endian(), crate::Position { offset, ..at }, input.what())
                }
                _ => rest.limited(0),
            };
            field(number, value, sub)?;
            input = rest;
        }
        Ok((input, ()))
    }

    /// A protobuf varint (at most 10 bytes, at most 64 bits).
    pub fn varint(input: Reader<'_>) -> PResult<'_, u64> {
        let mut v = 0u64;
        let mut rest = input;
        for shift in (0..70).step_by(7) {
            let Some(&b) = rest.rest().first() else {
                return malformed(&rest, "varint runs past the end", [0; 2]);
            };
            if shift == 63 && b > 1 {
                return malformed(&rest, "varint over 64 bits", [0; 2]);
            }
            rest = rest.advanced(1);
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok((rest, v));
            }
        }
        malformed(&rest, "varint over 10 bytes", [0; 2])
    }

    /// One protobuf field: its number and value. Fixed-size values are little-endian whatever the
    /// input's byte order; groups (wire types 3, 4) are refused.
    pub fn proto_field<'a>(input: Reader<'a>) -> PResult<'a, (u64, Wire<'a>)> {
        let le = |n: usize, input: Reader<'a>| {
            take(n)(input).map_err(|_| {
                nom::Err::Error(ParseError::malformed(
                    &input,
                    "{} bytes wanted, {} left",
                    [n as u64, input.remaining() as u64],
                ))
            })
        };
        let (input, key) = varint(input)?;
        let (input, v) = match key & 7 {
            0 => varint(input).map(|(i, v)| (i, Wire::Varint(v)))?,
            1 => le(8, input).map(|(i, b)| (i, Wire::Fixed64(crate::Endian::Little.u64(b))))?,
            2 => {
                let (input, n) = varint(input)?;
                match usize::try_from(n) {
                    Ok(n) if n <= input.remaining() => le(n, input).map(|(i, b)| (i, Wire::Bytes(b)))?,
                    _ => return malformed(&input, "{} bytes wanted, {} left", [n, input.remaining() as u64]),
                }
            }
            5 => le(4, input).map(|(i, b)| (i, Wire::Fixed32(crate::Endian::Little.u32(b))))?,
            w => return malformed(&input, "wire type {} of field {}", [w, key >> 3]),
        };
        Ok((input, (key >> 3, v)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
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

    pub(crate) fn field_bytes(out: &mut Vec<u8>, f: u64, b: &[u8]) {
        varint(out, f << 3 | 2);
        varint(out, b.len() as u64);
        out.extend_from_slice(b);
    }

    pub(crate) fn field_varint(out: &mut Vec<u8>, f: u64, v: u64) {
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
        // A sub-message's errors say where in the input.
        let mut msg = Vec::new();
        field_bytes(&mut msg, 1, &[0x80]);
        let mut p = Proto::new(&msg, Position::at(100), "m");
        let Some((1, Wire::Bytes(b))) = p.next().unwrap() else { panic!("field 1") };
        let err = p.sub(b, "s").next().unwrap_err();
        assert_eq!(err.to_string(), "malformed s at 0x67: varint runs past the end");
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
