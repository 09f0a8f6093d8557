//! nom parsers of the on-disk format, public so that other tools can compose them (a perf.data
//! embedded in another container, a filter that rewrites records, a fuzzer that builds
//! structures).
//!
//! Every parser takes a [`Reader`] — the bytes, their absolute position in the input, the file's
//! byte order and the name of the structure being read — and returns the rest of the input and a
//! value that borrows from it. Numbers are read in the byte order the input carries, by nom's
//! endianness-aware number parsers; a short input is a [`ParseError::Truncated`] naming the
//! structure, the offset, the bytes needed and the bytes left, which [`to_error`] turns into the
//! crate's [`Error`](crate::Error) at the record boundary. [`ParseError`] is `Copy` and never allocates, so
//! combinators that backtrack (`alt`, `opt`) cost nothing on the hot path.
//!
//! Each parser lives next to the type it builds (gimli's way): the numbers, byte strings and
//! counted lists ([`count`], [`until_end`]) with [`Reader`] in `reader`; the file and pipe headers
//! and `perf_file_section` in `header`; `perf_event_attr` and the attrs-section entry
//! ([`file_attr`]) in `attr`; the record header, record bodies and `sample_id` trailer in `record`;
//! the sample body and `read_format` blocks in `sample`; each feature section in its `feature`
//! module; the tracing-data blob in `tracepoint::data`. This module only gathers them under one
//! public path: here the primitives, headers and attrs; in [`feature`] every feature section and
//! the feature table; in [`record`] every record body (kernel, perf's user records, simpleperf's),
//! the `sample_id` trailer, `read_format` blocks and the sample body; in [`tracing`] the
//! tracing-data blob.
//!
//! ```
//! use perfdata_core::parse::{self, Reader};
//! use perfdata_core::{Endian, Position};
//! let bytes = [1u8, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0];
//! let input = Reader::new(&bytes, Endian::Little, Position::at(0x200), "my structure");
//! let (rest, section) = parse::section(input).unwrap();
//! assert_eq!((section.offset, section.size), (1, 16));
//! assert_eq!(rest.position().offset, 0x210);
//! // One byte short: the error names the structure, where it stopped and what was missing.
//! let short = Reader::new(&bytes[..15], Endian::Little, Position::at(0x200), "my structure");
//! let err = parse::to_error(parse::section(short).unwrap_err());
//! assert_eq!(err.to_string(), "truncated input at 0x208: reading my structure, needed 8 bytes, 7 available");
//! ```

pub use crate::attr::{event_attr, file_attr};
pub use crate::header::{file_header, section};
pub use crate::reader::{count, fixed_str, i32, malformed, take, take_input, take_u64, to_error, u16, u32, u64, u64s};
pub use crate::reader::{u8, until_end, PResult, ParseError, Reader};
pub use crate::record::record_header;

pub mod feature;
pub mod record;
pub mod tracing;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::attr::{EventAttr, ATTR_SIZE_KNOWN};
    use crate::error::{Error, Position};
    use crate::header::{FileHeader, Format, Section, FILE_HEADER_SIZE, MAGIC_LE, PIPE_HEADER_SIZE};
    use crate::record::RecordHeader;
    use crate::Endian;

    /// What a parser left and its value as text (values may borrow from the input, and tests
    /// compare values read in different byte orders).
    pub(crate) type Parsed = std::result::Result<(usize, String), nom::Err<ParseError>>;

    /// A parser's result as [`Parsed`].
    pub(crate) fn shown<T: std::fmt::Debug>(r: PResult<'_, T>) -> Parsed {
        r.map(|(rest, v)| (rest.remaining(), format!("{v:?}")))
    }

    fn input(b: &[u8], e: Endian) -> Reader<'_> {
        Reader::new(b, e, Position::at(100), "test")
    }

    #[test]
    fn numbers_in_both_orders() {
        let b = [1u8, 0, 0, 0, 0, 0, 0, 2, 9];
        let (rest, v) = u64(input(&b, Endian::Little)).unwrap();
        assert_eq!((v, rest.position().offset, rest.remaining()), (0x0200_0000_0000_0001, 108, 1));
        assert_eq!(u64(input(&b, Endian::Big)).unwrap().1, 0x0100_0000_0000_0002);
        assert_eq!(u32(input(&b, Endian::Big)).unwrap().1, 0x0100_0000);
        assert_eq!(u16(input(&b, Endian::Little)).unwrap().1, 1);
        assert_eq!(i32(input(&[0xff; 4], Endian::Big)).unwrap().1, -1);
    }

    #[test]
    fn every_truncation_names_the_structure_and_the_offset() {
        let b = [0u8; 16];
        for cut in 0..16 {
            let e = section(input(&b[..cut], Endian::Little)).unwrap_err();
            let (at, needed, available) = if cut < 8 { (100, 8, cut) } else { (108, 8, cut - 8) };
            assert_eq!(
                to_error(e).to_string(),
                format!("truncated input at {at:#x}: reading test, needed {needed} bytes, {available} available")
            );
        }
        assert!(take_u64(u64::MAX)(input(&b, Endian::Little)).is_err());
        assert!(u64s(u64::MAX / 4)(input(&b, Endian::Little)).is_err());
    }

    #[test]
    fn context_names_the_structure() {
        use nom::error::context;
        use nom::Parser;
        let e = context("perf_file_section", section).parse(input(&[0; 3], Endian::Little)).unwrap_err();
        assert!(to_error(e).to_string().contains("reading perf_file_section"));
    }

    #[test]
    fn malformed_details_are_filled_in() {
        let e = ParseError::malformed(&input(&[], Endian::Little), "size {} below {}", [3, 8]);
        assert_eq!(Error::from(e).to_string(), "malformed test at 0x64: size 3 below 8");
    }

    #[test]
    fn file_headers_round_trip_and_every_cut_names_the_header() {
        for e in [Endian::Little, Endian::Big] {
            let h = FileHeader {
                endian: e,
                format: Format::File,
                size: FILE_HEADER_SIZE,
                attr_size: 136,
                attrs: Section { offset: 104, size: 136 },
                data: Section { offset: 240, size: 4096 },
                event_types: Section::default(),
                features: [0x1_0000_000c, 0, 0, 1 << 63],
            };
            let mut b = Vec::new();
            h.write(e, &mut b);
            let (rest, got) = file_header(Reader::new(&b, e, Position::at(0), "perf_file_header")).unwrap();
            assert_eq!((got, rest.position().offset), (h.clone(), 104));
            assert_eq!(FileHeader::parse(&b).unwrap(), h);
            for cut in 0..b.len() {
                let r = Reader::new(&b[..cut], e, Position::at(0), "perf_file_header");
                let err = to_error(file_header(r).unwrap_err());
                let at = if cut < 8 { 0 } else { cut - cut % 8 };
                match err {
                    Error::Truncated { what: "perf_file_header", pos, needed: 8, .. } => {
                        assert_eq!(pos.offset, at as u64, "cut {cut}")
                    }
                    e => panic!("cut {cut}: {e}"),
                }
            }
            // The pipe header: its data is the rest of the input.
            let mut p = Vec::new();
            FileHeader { format: Format::Pipe, size: PIPE_HEADER_SIZE, ..h.clone() }.write(e, &mut p);
            p.extend_from_slice(&[0; 24]);
            let (_, got) = file_header(Reader::new(&p, e, Position::at(0), "perf_pipe_file_header")).unwrap();
            assert_eq!((got.format, got.data), (Format::Pipe, Section { offset: 16, size: 24 }));
        }
        let mut bad = MAGIC_LE.to_vec();
        bad.extend_from_slice(&99u64.to_le_bytes());
        bad.resize(104, 0);
        let err =
            to_error(file_header(Reader::new(&bad, Endian::Little, Position::at(0), "perf_file_header")).unwrap_err());
        assert_eq!(
            err.to_string(),
            "malformed perf_file_header at 0x8: header size 99, expected 104 (file), 72 (old file) or 16 (pipe)"
        );
    }

    #[test]
    fn attrs_of_every_abi_size_round_trip_in_both_orders() {
        // PERF_ATTR_SIZE_VER0..VER8 and beyond what this crate knows.
        for size in [64u32, 72, 80, 96, 104, 112, 120, 128, 136, 144, 160] {
            let a = EventAttr {
                type_: 2,
                size,
                config: 0x174,
                sample_period: 4000,
                sample_type: 0x10087,
                flags: 0x140003 | (1 << 15),
                sample_regs_user: if size >= 96 { 0xff } else { 0 },
                sample_max_stack: if size >= 112 { 127 } else { 0 },
                config3: if size >= 136 { 7 } else { 0 },
                config4: if size >= 144 { 9 } else { 0 },
                extra: vec![0xab; (size as usize).saturating_sub(ATTR_SIZE_KNOWN)],
                ..Default::default()
            };
            for e in [Endian::Little, Endian::Big] {
                let mut b = Vec::new();
                a.write(e, &mut b);
                assert_eq!(b.len(), size as usize);
                b.extend_from_slice(&[0xee; 8]);
                let (rest, got) = event_attr(Reader::new(&b, e, Position::at(0), "perf_event_attr")).unwrap();
                assert_eq!((&got, rest.remaining()), (&a, 8), "size {size}");
                for cut in 0..8 {
                    let err = to_error(
                        event_attr(Reader::new(&b[..cut], e, Position::at(0), "perf_event_attr")).unwrap_err(),
                    );
                    assert!(matches!(err, Error::Truncated { what: "perf_event_attr", .. }), "{err}");
                }
            }
        }
    }

    #[test]
    fn file_attrs_in_both_orders_and_every_cut() {
        let a = EventAttr { type_: 1, size: 136, config: 9, sample_type: 0x107, ..Default::default() };
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            a.write(e, &mut b);
            e.put_u64(&mut b, 0x2000);
            e.put_u64(&mut b, 16);
            let (rest, (got, ids)) = file_attr(152)(input(&b, e)).unwrap();
            assert_eq!((rest.remaining(), got, ids), (0, a.clone(), Section { offset: 0x2000, size: 16 }));
            for cut in 0..b.len() {
                let err = to_error(file_attr(152)(input(&b[..cut], e)).unwrap_err());
                let what = if cut < 136 { "perf_event_attr" } else { "attr ids section" };
                assert!(matches!(err, Error::Truncated { what: w, .. } if w == what), "cut {cut}: {err}");
            }
        }
        let err = to_error(file_attr(8)(input(&[0; 8], Endian::Little)).unwrap_err());
        assert_eq!(err.to_string(), "malformed test at 0x64: attr_size 8 is below its 16-byte ids section");
    }

    #[test]
    fn record_headers_in_both_orders() {
        let h = RecordHeader { type_: 9, misc: 0x4002, size: 48 };
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            h.write(e, &mut b);
            assert_eq!(record_header(Reader::new(&b, e, Position::at(0), "perf_event_header")).unwrap().1, h);
            for cut in 0..8 {
                let err = to_error(
                    record_header(Reader::new(&b[..cut], e, Position::at(64), "perf_event_header")).unwrap_err(),
                );
                assert_eq!(
                    err.to_string(),
                    format!("truncated input at 0x40: reading perf_event_header, needed 8 bytes, {cut} available")
                );
            }
        }
    }
}
