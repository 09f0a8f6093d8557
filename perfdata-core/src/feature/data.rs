//! Features describing the data section itself: AUXTRACE (index of AUX data), DIR_FORMAT,
//! COMPRESSED, and the flag-only BRANCH_STACK and STAT. TRACING_DATA stays raw here
//! ([`crate::tracepoint`] decodes it).

use crate::error::{Position, Result};
use crate::reader::Endian;

/// One AUXTRACE index entry: where a PERF_RECORD_AUXTRACE sits in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct AuxtraceIndexEntry {
    /// File offset of the AUXTRACE record.
    pub file_offset: u64,
    /// Its size (record plus AUX payload).
    pub size: u64,
}

/// Parse HEADER_AUXTRACE: `u64 nr;` nr × {u64 file_offset; u64 size} (auxtrace.c's disk format).
pub fn auxtrace(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<AuxtraceIndexEntry>> {
    super::run(data, endian, pos, parse::auxtrace)
}

/// Parse HEADER_DIR_FORMAT: `u64 version` (1) of the directory format.
pub fn dir_format(data: &[u8], endian: Endian, pos: Position) -> Result<u64> {
    super::run(data, endian, pos, parse::dir_format)
}

/// HEADER_COMPRESSED: the compression settings of the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Compressed {
    /// Format version (perf writes 0).
    pub version: u32,
    /// 1 = zstd.
    #[cfg_attr(feature = "json", serde(rename = "type"))]
    pub type_: u32,
    /// Compression level.
    pub level: u32,
    /// Compression ratio observed by perf.
    pub ratio: u32,
    /// Upper bound of one record's decompressed size.
    pub mmap_len: u32,
}

/// `PERF_COMP_ZSTD`.
pub const COMP_ZSTD: u32 = 1;

/// Parse HEADER_COMPRESSED: `u32 version, type, level, ratio, mmap_len`.
pub fn compressed(data: &[u8], endian: Endian, pos: Position) -> Result<Compressed> {
    super::run(data, endian, pos, parse::compressed)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::reader::{count, u32, u64};
    use crate::reader::{PResult, Reader};

    /// HEADER_AUXTRACE: `u64 nr;` nr × {u64 file_offset; u64 size}.
    pub fn auxtrace(input: Reader<'_>) -> PResult<'_, Vec<AuxtraceIndexEntry>> {
        let entry = |input| {
            let (input, file_offset) = u64(input)?;
            let (input, size) = u64(input)?;
            Ok((input, AuxtraceIndexEntry { file_offset, size }))
        };
        let (input, nr) = u64(input.context("AUXTRACE"))?;
        count(nr, 16, entry)(input)
    }

    /// HEADER_DIR_FORMAT: `u64 version`.
    pub fn dir_format(input: Reader<'_>) -> PResult<'_, u64> {
        u64(input.context("DIR_FORMAT"))
    }

    /// HEADER_COMPRESSED: `u32 version, type, level, ratio, mmap_len`.
    pub fn compressed(input: Reader<'_>) -> PResult<'_, Compressed> {
        let (input, version) = u32(input.context("COMPRESSED feature"))?;
        let (input, type_) = u32(input)?;
        let (input, level) = u32(input)?;
        let (input, ratio) = u32(input)?;
        let (input, mmap_len) = u32(input)?;
        Ok((input, Compressed { version, type_, level, ratio, mmap_len }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auxtrace_dir_compressed_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u64(&mut b, 2);
            for v in [0x1000u64, 0x48, 0x2000, 0x1048] {
                e.put_u64(&mut b, v);
            }
            let a = auxtrace(&b, e, Position::at(0)).unwrap();
            assert_eq!(a[1], AuxtraceIndexEntry { file_offset: 0x2000, size: 0x1048 });
            assert!(auxtrace(&b[..30], e, Position::at(0)).is_err());
            assert_eq!(dir_format(&b, e, Position::at(0)).unwrap(), 2);
            assert!(dir_format(&b[..3], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            for v in [0u32, 1, 1, 7, 528384] {
                e.put_u32(&mut b, v);
            }
            let c = compressed(&b, e, Position::at(0)).unwrap();
            assert_eq!((c.type_, c.ratio, c.mmap_len), (COMP_ZSTD, 7, 528384));
            assert!(compressed(&b[..19], e, Position::at(0)).is_err());
        }
        let mut b = Vec::new();
        Endian::Little.put_u64(&mut b, u64::MAX);
        assert!(auxtrace(&b, Endian::Little, Position::at(0)).is_err());
    }
}
