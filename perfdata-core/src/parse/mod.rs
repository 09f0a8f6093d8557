//! nom parsers of the on-disk format, public so that other tools can compose them (a perf.data
//! embedded in another container, a filter that rewrites records, a fuzzer that builds
//! structures).
//!
//! Every parser takes a [`Reader`] — the bytes, their absolute position in the input, the file's
//! byte order and the name of the structure being read — and returns the rest of the input and a
//! value that borrows from it. Numbers are read in the byte order the input carries, by nom's
//! endianness-aware number parsers; a short input is a [`ParseError::Truncated`] naming the
//! structure, the offset, the bytes needed and the bytes left, which [`to_error`] turns into the
//! crate's [`Error`] at the record boundary. [`ParseError`] is `Copy` and never allocates, so
//! combinators that backtrack (`alt`, `opt`) cost nothing on the hot path.
//!
//! Here: the numbers, byte strings and counted lists ([`count`], [`until_end`]), the file and
//! pipe headers, `perf_file_section`, `perf_event_attr` and the attrs-section entry
//! ([`file_attr`]), the record header. In [`feature`]: every feature section and the feature
//! table. In [`record`]: every record body (kernel, perf's user records, simpleperf's), the
//! `sample_id` trailer, `read_format` blocks and the sample body. In [`tracing`]: the
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

use crate::attr::{EventAttr, ATTR_SIZE_KNOWN};
use crate::error::{Error, Position};
use crate::header::{FileHeader, Format, Section, FILE_HEADER_SIZE, MAGIC_BE, MAGIC_LE, PIPE_HEADER_SIZE};
pub use crate::reader::Reader;
use crate::reader::{until_nul, U64s};
use crate::record::RecordHeader;
use crate::Endian;
use nom::error::ErrorKind;
use nom::number::Endianness;

pub mod feature;
pub mod record;
pub mod tracing;

/// What every parser returns: the rest of the input and the value, or where and why it stopped.
pub type PResult<'a, T> = nom::IResult<Reader<'a>, T, ParseError>;

/// Why a parser stopped. `Copy` and allocation-free; [`to_error`] makes the crate's [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The input ended inside a value.
    Truncated {
        /// Where the value starts.
        pos: Position,
        /// The structure being read.
        what: &'static str,
        /// The bytes the value needs.
        needed: u64,
        /// The bytes that were left.
        available: u64,
    },
    /// A value that makes the structure impossible to read: `detail` with each `{}` replaced by
    /// the next of `values` in decimal (`{x}`: in hex) when the error is turned into text.
    Malformed {
        /// Where the value is.
        pos: Position,
        /// The structure being read.
        what: &'static str,
        /// What was wrong (`{}` where a value goes).
        detail: &'static str,
        /// The offending values.
        values: [u64; 2],
    },
    /// A nom combinator failed (no alternative matched, a `verify` rejected a value).
    Kind {
        /// Where.
        pos: Position,
        /// The structure being read.
        what: &'static str,
        /// nom's name for the combinator.
        kind: ErrorKind,
    },
}

impl ParseError {
    /// `input` holds fewer than `needed` bytes.
    #[inline]
    pub fn truncated(input: &Reader<'_>, needed: u64) -> ParseError {
        ParseError::Truncated { pos: input.position(), what: input.what(), needed, available: input.remaining() as u64 }
    }

    /// A malformed value at `input` (`detail`'s `{}` are filled with `values` when printed).
    pub fn malformed(input: &Reader<'_>, detail: &'static str, values: [u64; 2]) -> ParseError {
        ParseError::Malformed { pos: input.position(), what: input.what(), detail, values }
    }
}

impl<'a> nom::error::ParseError<Reader<'a>> for ParseError {
    fn from_error_kind(input: Reader<'a>, kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Eof => ParseError::truncated(&input, input.remaining() as u64 + 1),
            kind => ParseError::Kind { pos: input.position(), what: input.what(), kind },
        }
    }

    fn append(_: Reader<'a>, _: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> nom::error::ContextError<Reader<'a>> for ParseError {
    /// `context("name", parser)`: the error names the structure `name`.
    fn add_context(_: Reader<'a>, ctx: &'static str, mut other: Self) -> Self {
        match &mut other {
            ParseError::Truncated { what, .. } | ParseError::Malformed { what, .. } | ParseError::Kind { what, .. } => {
                *what = ctx
            }
        }
        other
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        match e {
            ParseError::Truncated { pos, what, needed, available } => Error::Truncated { pos, what, needed, available },
            ParseError::Malformed { pos, what, detail, values } => {
                let mut text = String::with_capacity(detail.len() + 16);
                let mut values = values.iter();
                let mut rest = detail;
                // `{}` is the next value in decimal, `{x}` in hex.
                while let Some(at) = rest.find('{') {
                    let (before, after) = rest.split_at(at);
                    text.push_str(before);
                    let mut next = || values.next().copied().unwrap_or(0);
                    if let Some(after) = after.strip_prefix("{}") {
                        text.push_str(&next().to_string());
                        rest = after;
                    } else if let Some(after) = after.strip_prefix("{x}") {
                        text.push_str(&format!("{:x}", next()));
                        rest = after;
                    } else {
                        text.push('{');
                        rest = after.get(1..).unwrap_or_default();
                    }
                }
                text.push_str(rest);
                Error::malformed(pos, what, text)
            }
            ParseError::Kind { pos, what, kind } => Error::malformed(pos, what, format!("{kind:?} failed")),
        }
    }
}

/// The crate's [`Error`] for a parser's error.
pub fn to_error(e: nom::Err<ParseError>) -> Error {
    match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => e.into(),
        // Every parser here is a complete one: the input is all there is.
        nom::Err::Incomplete(n) => Error::Unsupported(format!("a streaming parser asked for more input ({n:?})")),
    }
}

/// nom's endianness for the input's byte order.
#[inline]
fn endianness(input: &Reader<'_>) -> Endianness {
    match input.endian() {
        crate::Endian::Little => Endianness::Little,
        crate::Endian::Big => Endianness::Big,
    }
}

/// Run a parser that reads `needed` bytes; a short input is [`ParseError::Truncated`] for all of
/// them, at the parser's start.
#[inline(always)]
fn sized<'a, T>(input: Reader<'a>, needed: u64, parser: impl FnOnce(Reader<'a>) -> PResult<'a, T>) -> PResult<'a, T> {
    if (input.remaining() as u64) < needed {
        return Err(nom::Err::Error(ParseError::truncated(&input, needed)));
    }
    parser(input)
}

/// The next `n` bytes.
#[inline]
pub fn take<'a>(n: usize) -> impl Fn(Reader<'a>) -> PResult<'a, &'a [u8]> {
    move |input: Reader<'a>| {
        sized(input, n as u64, |i| {
            nom::bytes::complete::take(n)(i).map(|(rest, taken): (_, Reader<'a>)| (rest, taken.rest()))
        })
    }
}

/// The next `n` bytes, `n` a count read from the input (any u64).
#[inline]
pub fn take_u64<'a>(n: u64) -> impl Fn(Reader<'a>) -> PResult<'a, &'a [u8]> {
    move |input: Reader<'a>| match usize::try_from(n) {
        Ok(k) if k <= input.remaining() => take(k)(input),
        _ => Err(nom::Err::Error(ParseError::truncated(&input, n))),
    }
}

/// A byte.
#[inline]
pub fn u8(input: Reader<'_>) -> PResult<'_, u8> {
    sized(input, 1, nom::number::complete::u8)
}

/// A u16 in the input's byte order.
#[inline]
pub fn u16(input: Reader<'_>) -> PResult<'_, u16> {
    let e = endianness(&input);
    sized(input, 2, nom::number::complete::u16(e))
}

/// A u32 in the input's byte order.
#[inline]
pub fn u32(input: Reader<'_>) -> PResult<'_, u32> {
    let e = endianness(&input);
    sized(input, 4, nom::number::complete::u32(e))
}

/// An i32 in the input's byte order.
#[inline]
pub fn i32(input: Reader<'_>) -> PResult<'_, i32> {
    let e = endianness(&input);
    sized(input, 4, nom::number::complete::i32(e))
}

/// A u64 in the input's byte order.
#[inline]
pub fn u64(input: Reader<'_>) -> PResult<'_, u64> {
    let e = endianness(&input);
    sized(input, 8, nom::number::complete::u64(e))
}

/// `count` u64 values in the input's byte order, borrowed (callchains, ids, registers).
#[inline]
pub fn u64s<'a>(count: u64) -> impl Fn(Reader<'a>) -> PResult<'a, U64s<'a>> {
    move |input: Reader<'a>| {
        let Some(n) = count.checked_mul(8) else {
            return Err(nom::Err::Error(ParseError::malformed(&input, "array count {} overflows", [count, 0])));
        };
        let endian = input.endian();
        take_u64(n)(input).map(|(rest, b)| (rest, U64s::new(b, endian)))
    }
}

/// A NUL-padded string of exactly `n` bytes; the value stops at the first NUL.
#[inline]
pub fn fixed_str<'a>(n: usize) -> impl Fn(Reader<'a>) -> PResult<'a, &'a [u8]> {
    move |input: Reader<'a>| take(n)(input).map(|(rest, b)| (rest, until_nul(b)))
}

/// The next `n` bytes as an input of their own (a structure framed by a size field), with the
/// same byte order, name and absolute offsets.
#[inline]
pub fn take_input<'a>(n: usize) -> impl Fn(Reader<'a>) -> PResult<'a, Reader<'a>> {
    move |input: Reader<'a>| {
        if input.remaining() < n {
            return Err(nom::Err::Error(ParseError::truncated(&input, n as u64)));
        }
        Ok((input.advanced(n), input.limited(n)))
    }
}

/// A [`ParseError::Malformed`] at `input` as a parser's result.
#[inline]
pub fn malformed<'a, T>(input: &Reader<'a>, detail: &'static str, values: [u64; 2]) -> PResult<'a, T> {
    Err(nom::Err::Error(ParseError::malformed(input, detail, values)))
}

/// `n` values of `item`, `n` a count read from the input, each value at least `min_size` bytes:
/// the vector never reserves more than the input could hold, so a damaged count allocates
/// nothing. An item that reads nothing stops the loop with an error (`ErrorKind::Count`).
pub fn count<'a, T>(
    n: u64,
    min_size: usize,
    mut item: impl FnMut(Reader<'a>) -> PResult<'a, T>,
) -> impl FnMut(Reader<'a>) -> PResult<'a, Vec<T>> {
    move |mut input: Reader<'a>| {
        let cap = usize::try_from(n).unwrap_or(usize::MAX).min(input.remaining() / min_size.max(1));
        let mut out = Vec::with_capacity(cap);
        for _ in 0..n {
            let (rest, v) = item(input)?;
            if rest.remaining() == input.remaining() && n > 1 {
                return Err(nom::Err::Error(ParseError::Kind {
                    pos: input.position(),
                    what: input.what(),
                    kind: ErrorKind::Count,
                }));
            }
            out.push(v);
            input = rest;
        }
        Ok((input, out))
    }
}

/// `item` repeated until the input ends (a sequence of entries that fills a section); an entry
/// cut short is an error, not the end.
pub fn until_end<'a, T>(
    mut item: impl FnMut(Reader<'a>) -> PResult<'a, T>,
) -> impl FnMut(Reader<'a>) -> PResult<'a, Vec<T>> {
    move |mut input: Reader<'a>| {
        let mut out = Vec::new();
        while input.remaining() > 0 {
            let (rest, v) = item(input)?;
            if rest.remaining() == input.remaining() {
                return Err(nom::Err::Error(ParseError::Kind {
                    pos: input.position(),
                    what: input.what(),
                    kind: ErrorKind::Many0,
                }));
            }
            out.push(v);
            input = rest;
        }
        Ok((input, out))
    }
}

/// `struct perf_file_section`: offset and size, two u64.
pub fn section(input: Reader<'_>) -> PResult<'_, Section> {
    let (input, offset) = u64(input)?;
    let (input, size) = u64(input)?;
    Ok((input, Section { offset, size }))
}

/// `struct perf_event_header`: type (u32), misc (u16), size (u16).
///
/// The body is [`RecordHeader::from_bytes`], one 8-byte load with the fields cut from it, which
/// is also the framing loop's hot path (callgrind, `read_bench frames` on a 15 MB -g recording:
/// 13,394,575 instructions, 13,387,500 with the three-field decode it replaced).
#[inline]
pub fn record_header(input: Reader<'_>) -> PResult<'_, RecordHeader> {
    let endian = input.endian();
    let (rest, b) = take(8)(input)?;
    match b.first_chunk::<8>() {
        Some(h) => Ok((rest, RecordHeader::from_bytes(h, endian))),
        None => Err(nom::Err::Error(ParseError::truncated(&input, 8))),
    }
}

/// `struct perf_file_header` (104 bytes; 72 in files older than the feature bitmap) or
/// `struct perf_pipe_file_header` (16 bytes: magic and size), in the byte order of the input,
/// which must be the one its magic says ([`FileHeader::detect`]). A pipe header's data section
/// is the rest of the input. The 256-bit `adds_features` bitmap of a cross-endian file from a
/// 32-bit host, written as u32 words, is read as such. Not validated: see [`FileHeader::parse`].
pub fn file_header(input: Reader<'_>) -> PResult<'_, FileHeader> {
    use nom::bytes::complete::tag;
    let endian = input.endian();
    let magic: &[u8] = match endian {
        Endian::Little => MAGIC_LE,
        Endian::Big => MAGIC_BE,
    };
    let (input, _) = sized(input, 8, |i| {
        tag(magic)(i).map_err(|_: nom::Err<ParseError>| nom::Err::Error(ParseError::malformed(&i, "bad magic", [0; 2])))
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
            }
        }
    }
    Ok((input, FileHeader { endian, format: Format::File, size, attr_size, attrs, data, event_types, features }))
}

/// `struct perf_file_attr`, one entry of the attrs section: a `perf_event_attr` filling
/// `attr_size - 16` bytes (the header's `attr_size` is the entry's stride), then the
/// `perf_file_section` of the event's ids. Errors name `perf_event_attr` and `attr ids section`.
pub fn file_attr<'a>(attr_size: usize) -> impl Fn(Reader<'a>) -> PResult<'a, (EventAttr, Section)> {
    move |input: Reader<'a>| {
        let Some(n) = attr_size.checked_sub(16) else {
            return malformed(&input, "attr_size {} is below its 16-byte ids section", [attr_size as u64, 0]);
        };
        let (rest, attr) = take_input(n)(input.context("perf_event_attr"))?;
        let (_, attr) = event_attr(attr)?;
        let (rest, ids) = section(rest.context("attr ids section"))?;
        Ok((rest, (attr, ids)))
    }
}

/// `struct perf_event_attr` at any ABI size: `type`, then `size` (0 is the first ABI's 64 bytes),
/// then the fields that size covers. Reads `size` bytes, or what is left when the input is
/// shorter; fields beyond them are 0, bytes beyond the 144 this crate knows are kept in
/// [`EventAttr::extra`]. The flag word of a big-endian file is renumbered to the little-endian
/// bit order of [`crate::attr::FLAG_NAMES`].
pub fn event_attr(input: Reader<'_>) -> PResult<'_, EventAttr> {
    let endian = input.endian();
    let (_, type_) = u32(input)?;
    let (_, size) = u32(input.advanced(4))?;
    let declared = if size == 0 { 64 } else { size as usize };
    let (rest, bytes) = take(declared.min(input.remaining()))(input)?;
    // Zero-padded to the known size: the fields past `size` read as 0.
    let mut buf = [0u8; ATTR_SIZE_KNOWN];
    let known = bytes.len().min(ATTR_SIZE_KNOWN);
    if let (Some(dst), Some(src)) = (buf.get_mut(..known), bytes.get(..known)) {
        dst.copy_from_slice(src);
    }
    let extra = bytes.get(ATTR_SIZE_KNOWN..).unwrap_or_default().to_vec();
    let f = Reader::new(&buf, endian, input.position(), input.what()).advanced(8);
    let (f, config) = u64(f)?;
    let (f, sample_period) = u64(f)?;
    let (f, sample_type) = u64(f)?;
    let (f, read_format) = u64(f)?;
    let (f, raw_flags) = u64(f)?;
    let (f, wakeup_events) = u32(f)?;
    let (f, bp_type) = u32(f)?;
    let (f, config1) = u64(f)?;
    let (f, config2) = u64(f)?;
    let (f, branch_sample_type) = u64(f)?;
    let (f, sample_regs_user) = u64(f)?;
    let (f, sample_stack_user) = u32(f)?;
    let (f, clockid) = i32(f)?;
    let (f, sample_regs_intr) = u64(f)?;
    let (f, aux_watermark) = u32(f)?;
    let (f, sample_max_stack) = u16(f)?;
    let (f, reserved_2) = u16(f)?;
    let (f, aux_sample_size) = u32(f)?;
    let (f, aux_action) = u32(f)?;
    let (f, sig_data) = u64(f)?;
    let (f, config3) = u64(f)?;
    let (_, config4) = u64(f)?;
    let flags = match endian {
        Endian::Little => raw_flags,
        Endian::Big => crate::attr::flag_word_from_be(raw_flags),
    };
    let attr = EventAttr {
        type_,
        size,
        config,
        sample_period,
        sample_type,
        read_format,
        flags,
        wakeup_events,
        bp_type,
        config1,
        config2,
        branch_sample_type,
        sample_regs_user,
        sample_stack_user,
        clockid,
        sample_regs_intr,
        aux_watermark,
        sample_max_stack,
        reserved_2,
        aux_sample_size,
        aux_action,
        sig_data,
        config3,
        config4,
        extra,
    };
    Ok((rest, attr))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
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
