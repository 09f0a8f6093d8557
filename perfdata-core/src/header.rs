//! `struct perf_file_header` (perf's header.h), the pipe header, and the feature section table.

pub use crate::abi::feature;
use crate::error::{Error, Position, Result};
use crate::reader::Endian;
use crate::reader::{sized, u32, u64, PResult, ParseError, Reader};

/// Magic of a perf.data v2 file as it appears in a little-endian file.
pub const MAGIC_LE: &[u8; 8] = b"PERFILE2";
/// Magic as it appears in a big-endian file.
pub const MAGIC_BE: &[u8; 8] = b"2ELIFREP";
/// The legacy magic (perf's `__perf_magic1`), written by older perfs before "PERFILE2" replaced
/// it: the same header and attr layout, but the magic does not tell the byte order — `attr_size`
/// does ([`FileHeader::detect`]).
pub const MAGIC_V1: &[u8; 8] = b"PERFFILE";
/// The `attr_size` values by which perf tells a [`MAGIC_V1`] file's byte order: the attr sizes it
/// knew when the magic changed (`PERF_ATTR_SIZE_VER0`..`VER4`: 64, 72, 80, 96, 104 bytes) plus the
/// 16-byte ids section (perf's `try_all_file_abis`). A legacy file with another `attr_size` is
/// refused, by perf and by this crate.
pub const V1_ATTR_SIZES: [u64; 5] = [80, 88, 96, 112, 120];
/// `sizeof(struct perf_file_header)`.
pub const FILE_HEADER_SIZE: u64 = 104;
/// `sizeof(struct perf_pipe_file_header)`.
pub const PIPE_HEADER_SIZE: u64 = 16;

/// `struct perf_file_section`: where a part of the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Section {
    /// Byte offset from the start of the file.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// What a file that is not perf.data starts with, as text and hex, and what was expected:
/// `it starts with b"root:x:0" (72 6f 6f 74 3a 78 3a 30), not PERFILE2 (or 2ELIFREP, big-endian)`.
fn bad_magic(magic: &[u8]) -> String {
    let text: String = magic
        .iter()
        .map(|&b| match b {
            b'"' => "\\\"".to_string(),
            b'\\' => "\\\\".to_string(),
            0x20..=0x7e => char::from(b).to_string(),
            b'\n' => "\\n".to_string(),
            b'\t' => "\\t".to_string(),
            b'\r' => "\\r".to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect();
    let hex: Vec<String> = magic.iter().map(|b| format!("{b:02x}")).collect();
    format!("it starts with b\"{text}\" ({}), not PERFILE2 (or 2ELIFREP, big-endian)", hex.join(" "))
}

/// [`FileHeader::detect`] for a [`MAGIC_V1`] header (`prefix` starts with it). The pipe test uses
/// this machine's byte order, as perf's `try_all_pipe_abis` does. No value of [`V1_ATTR_SIZES`]
/// byte-swapped is another, so at most one byte order matches and the answer does not depend on
/// the machine, although perf tries its own order first (`try_all_file_abis`).
fn detect_v1(prefix: &[u8]) -> Result<(Endian, u64)> {
    let word = |at: usize, e: Endian| prefix.get(at..at.checked_add(8)?).map(|b| e.u64(b));
    let Some(size) = word(8, Endian::NATIVE) else {
        return Err(Error::NotPerfData(format!("{} bytes is too short for a header", prefix.len())));
    };
    if size == PIPE_HEADER_SIZE {
        return Ok((Endian::NATIVE, size));
    }
    let by = |at: usize, allowed: &[u64]| {
        [Endian::NATIVE, Endian::NATIVE.swapped()]
            .into_iter()
            .find_map(|e| word(at, e).filter(|v| allowed.contains(v)).map(|_| e))
    };
    let endian = match word(16, Endian::NATIVE) {
        Some(attr_size) => by(16, &V1_ATTR_SIZES).ok_or_else(|| {
            Error::Unsupported(format!(
                "a legacy 'PERFFILE' header whose attr_size ({attr_size:#x} read in this machine's byte order) \
                 is not {} in either byte order, so its byte order cannot be told (perf refuses it too)",
                join_sizes()
            ))
        })?,
        None => by(8, &[FILE_HEADER_SIZE, 72]).ok_or_else(|| {
            Error::Unsupported(format!(
                "a legacy 'PERFFILE' header whose size ({size:#x}) is not 104, 72 or 16 in either byte order"
            ))
        })?,
    };
    let size = word(8, endian).unwrap_or(size);
    Ok((endian, size))
}

/// [`V1_ATTR_SIZES`] as text: "80, 88, 96, 112 or 120".
fn join_sizes() -> String {
    let all: Vec<String> = V1_ATTR_SIZES.iter().map(u64::to_string).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => all.join(""),
    }
}

impl Section {
    /// `offset + size`, or `None` on overflow.
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }

    /// The bytes of this section in `data`, checked.
    pub fn slice<'a>(&self, data: &'a [u8], what: &'static str) -> Result<&'a [u8]> {
        let start = usize::try_from(self.offset).ok();
        let end = self.end().and_then(|e| usize::try_from(e).ok());
        match (start, end) {
            (Some(s), Some(e)) if e <= data.len() => {
                data.get(s..e).ok_or_else(|| Error::malformed(Position::at(self.offset), what, "bad range"))
            }
            _ => Err(Error::Truncated {
                pos: Position::at(self.offset),
                what,
                needed: self.size,
                available: (data.len() as u64).saturating_sub(self.offset),
            }),
        }
    }
}

/// How the file is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub enum Format {
    /// A seekable perf.data file with attr and feature sections.
    File,
    /// The pipe format (`perf record -o -`): a 16-byte header and a record stream.
    Pipe,
    /// A directory (`perf record --threads`): `data` plus `data.N` record streams.
    Directory,
}

/// The file header of either format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// Byte order of the file.
    pub endian: Endian,
    /// File or pipe framing.
    pub format: Format,
    /// `size` field (104 for files, 16 for pipes; 72 for very old files).
    pub size: u64,
    /// `attr_size`: stride of one attr entry (sizeof(perf_event_attr) + 16).
    pub attr_size: u64,
    /// The attr entries.
    pub attrs: Section,
    /// The record stream.
    pub data: Section,
    /// `event_types` (unused, normally zero).
    pub event_types: Section,
    /// The 256-bit `adds_features` bitmap as 4 words.
    pub features: [u64; 4],
}

impl FileHeader {
    /// Detect the byte order and read the `size` field (16 for the pipe format) from the start of
    /// the file: 16 bytes suffice for the "PERFILE2" magic, whose bytes give the byte order. A
    /// legacy [`MAGIC_V1`] header is read as perf reads it (`check_magic_endian`): a pipe header
    /// when `size` is 16 in this machine's byte order, else the byte order in which `attr_size`
    /// (bytes 16..24) is one of [`V1_ATTR_SIZES`]. Given only 16 bytes of a legacy file header,
    /// the byte order is the one in which `size` is 104 or 72 (perf accepts no other), which
    /// [`FileHeader::parse`] then checks against `attr_size`.
    pub fn detect(prefix: &[u8]) -> Result<(Endian, u64)> {
        let magic = prefix
            .get(..8)
            .ok_or_else(|| Error::NotPerfData(format!("{} bytes is too short for a header", prefix.len())))?;
        let endian = if magic == MAGIC_LE {
            Endian::Little
        } else if magic == MAGIC_BE {
            Endian::Big
        } else if magic == MAGIC_V1 {
            return detect_v1(prefix);
        } else {
            return Err(Error::NotPerfData(bad_magic(magic)));
        };
        let mut r = Reader::new(prefix, endian, Position::at(0), "perf_file_header");
        r.skip(8)?;
        let size = r.u64()?;
        Ok((endian, size))
    }

    /// Parse the header at the start of `data` (file or pipe): its byte order from the magic,
    /// then [`crate::parse::file_header`], then checks that its sections are where a file can
    /// have them.
    pub fn parse(data: &[u8]) -> Result<FileHeader> {
        let (endian, _) = Self::detect(data.get(..24).unwrap_or(data))?;
        let h = Reader::new(data, endian, Position::at(0), "perf_file_header").run(file_header)?;
        if h.format == Format::File {
            h.validate()?;
        }
        Ok(h)
    }

    fn validate(&self) -> Result<()> {
        let bad = |d: String| Err(Error::malformed(Position::at(0), "perf_file_header", d));
        if self.attrs.size > 0 && self.attr_size < 16 + 64 {
            return bad(format!(
                "attr_size {} is below the smallest attr (64) plus its 16-byte id section",
                self.attr_size
            ));
        }
        if self.attrs.size > 0 && self.attrs.offset < self.size {
            return bad(format!("attrs section at {} overlaps the header", self.attrs.offset));
        }
        if self.data.offset < self.size {
            return bad(format!("data section at {} overlaps the header", self.data.offset));
        }
        if self.attrs.end().is_none() || self.data.end().is_none() {
            return bad("section offset + size overflows".into());
        }
        Ok(())
    }

    /// True when feature bit `bit` is set.
    pub fn has_feature(&self, bit: u32) -> bool {
        let word = (bit / 64) as usize;
        self.features.get(word).is_some_and(|w| w & (1u64 << (bit % 64)) != 0)
    }

    /// Set feature bits in increasing order.
    pub fn feature_bits(&self) -> impl Iterator<Item = u32> + '_ {
        (0..256u32).filter(move |&b| self.has_feature(b))
    }

    /// Read the feature section table (one [`Section`] per set bit, in bit order) from `data`.
    /// A table that does not fit is cut to the entries that do; the error says what was lost.
    pub fn feature_sections(&self, data: &[u8]) -> (Vec<(u32, Section)>, Option<Error>) {
        if self.format != Format::File {
            return (Vec::new(), None);
        }
        let Some(start) = self.data.end() else {
            return (Vec::new(), None);
        };
        let rest = usize::try_from(start).ok().and_then(|s| data.get(s..)).unwrap_or(&[]);
        let r = Reader::new(rest, self.endian, Position::at(start), "feature section table");
        let bits: Vec<u32> = self.feature_bits().collect();
        let (fit, cut) = bits.split_at(bits.len().min(r.remaining() / 16));
        let out = match feature_table(fit)(r) {
            Ok((_, table)) => table,
            Err(e) => return (Vec::new(), Some(crate::reader::to_error(e))),
        };
        // A table that does not fit: the first entry missing says where and what.
        let err = feature_table(cut)(r.advanced(fit.len() * 16)).err().map(crate::reader::to_error);
        (out, err)
    }

    /// Encode as a 104-byte file header (or 16-byte pipe header) in `endian`.
    pub fn write(&self, endian: Endian, out: &mut Vec<u8>) {
        out.extend_from_slice(match endian {
            Endian::Little => MAGIC_LE,
            Endian::Big => MAGIC_BE,
        });
        endian.put_u64(out, self.size);
        if self.format == Format::Pipe {
            return;
        }
        endian.put_u64(out, self.attr_size);
        for s in [self.attrs, self.data, self.event_types] {
            endian.put_u64(out, s.offset);
            endian.put_u64(out, s.size);
        }
        if self.size == FILE_HEADER_SIZE {
            for w in self.features {
                endian.put_u64(out, w);
            }
        }
    }
}

// The nom parsers of the header's structures.

/// `struct perf_file_section`: offset and size, two u64.
pub fn section(input: Reader<'_>) -> PResult<'_, Section> {
    let (input, offset) = u64(input)?;
    let (input, size) = u64(input)?;
    Ok((input, Section { offset, size }))
}
/// `struct perf_file_header` (104 bytes; 72 in files older than the feature bitmap) or
/// `struct perf_pipe_file_header` (16 bytes: magic and size), in the byte order of the input,
/// which must be the one [`FileHeader::detect`] found (the legacy [`MAGIC_V1`] is accepted in
/// either order). A pipe header's data section is the rest of the input. The 256-bit
/// `adds_features` bitmap of a cross-endian file is read as perf reads it (reference §6.3): as u64
/// words when that sets HOSTNAME, else as the u32 words of a 32-bit host when that does, else (a
/// legacy file; perf does it for any) as BUILD_ID alone. Not validated: see [`FileHeader::parse`].
pub fn file_header(input: Reader<'_>) -> PResult<'_, FileHeader> {
    use nom::bytes::complete::tag;
    let endian = input.endian();
    let magic: &[u8] = match endian {
        Endian::Little => MAGIC_LE,
        Endian::Big => MAGIC_BE,
    };
    let legacy = input.rest().get(..8) == Some(&MAGIC_V1[..]);
    let (input, _) = sized(input, 8, |i| {
        tag(if legacy { &MAGIC_V1[..] } else { magic })(i)
            .map_err(|_: nom::Err<ParseError>| nom::Err::Error(ParseError::malformed(&i, "bad magic", [0; 2])))
    })?;
    let at_size = input;
    let (input, size) = u64(input)?;
    if size == PIPE_HEADER_SIZE {
        let data = Section { offset: PIPE_HEADER_SIZE, size: input.remaining() as u64 };
        let h = FileHeader {
            endian,
            format: Format::Pipe,
            size,
            attr_size: 0,
            attrs: Section::default(),
            data,
            event_types: Section::default(),
            features: [0; 4],
        };
        return Ok((input, h));
    }
    if size != FILE_HEADER_SIZE && size != 72 {
        let e = ParseError::malformed(
            &at_size,
            "header size {}, expected 104 (file), 72 (old file) or 16 (pipe)",
            [size, 0],
        );
        return Err(nom::Err::Failure(e));
    }
    let (input, attr_size) = u64(input)?;
    let (input, attrs) = section(input)?;
    let (input, data) = section(input)?;
    let (mut input, event_types) = section(input)?;
    let mut features = [0u64; 4];
    if size == FILE_HEADER_SIZE {
        let at_features = input;
        for w in features.iter_mut() {
            (input, *w) = u64(input)?;
        }
        if endian != Endian::NATIVE && features[0] & (1 << 3) == 0 {
            // adds_features was written as unsigned long[]: a cross-endian file from a 32-bit host
            // has u32 words (reference §6.3). Read again as 8 u32 words.
            let mut words = at_features.context("adds_features");
            let mut f = [0u64; 4];
            for w in f.iter_mut() {
                let (rest, lo) = u32(words)?;
                let (rest, hi) = u32(rest)?;
                words = rest;
                *w = u64::from(lo) | (u64::from(hi) << 32);
            }
            if f[0] & (1 << 3) != 0 {
                features = f;
            } else if legacy {
                // Neither reading has HOSTNAME (always set since perf 3.x): perf takes the file for
                // an older one whose only feature is BUILD_ID (perf_file_header__read). Only for the
                // legacy magic here: a PERFILE2 file without HOSTNAME (simpleperf's) keeps its bits.
                features = [1 << feature::BUILD_ID, 0, 0, 0];
            }
        }
    }
    Ok((input, FileHeader { endian, format: Format::File, size, attr_size, attrs, data, event_types, features }))
}
/// The feature section table after the data section: one `perf_file_section` per set feature
/// bit, in bit order (`bits`, as [`crate::header::FileHeader::feature_bits`] gives them).
pub fn feature_table<'a>(bits: &[u32]) -> impl Fn(Reader<'a>) -> PResult<'a, Vec<(u32, Section)>> + '_ {
    move |input: Reader<'a>| {
        let mut input = input.context("feature section table");
        let mut out = Vec::with_capacity(bits.len().min(input.remaining() / 16));
        for &bit in bits {
            let (rest, s) = section(input)?;
            out.push((bit, s));
            input = rest;
        }
        Ok((input, out))
    }
}

#[cfg(test)]
mod tests {
    use super::bad_magic;

    #[test]
    fn a_bad_magic_shows_the_bytes_as_text_and_hex() {
        assert_eq!(
            bad_magic(b"root:x:0"),
            "it starts with b\"root:x:0\" (72 6f 6f 74 3a 78 3a 30), not PERFILE2 (or 2ELIFREP, big-endian)"
        );
        assert_eq!(
            bad_magic(b"\x7fELF\x02\x01\"\\"),
            "it starts with b\"\\x7fELF\\x02\\x01\\\"\\\\\" (7f 45 4c 46 02 01 22 5c), not PERFILE2 (or 2ELIFREP, big-endian)"
        );
    }
}
