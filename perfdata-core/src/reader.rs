//! The single checked, endian-aware byte reader every parser goes through, and the primitive nom
//! parsers over it (numbers, byte strings, counted lists) with their error, [`ParseError`].
//!
//! Each read checks bounds once and returns an [`Error::Truncated`] naming what was being read and
//! where, so nothing above this module indexes raw slices. The bottom of the crate: it imports
//! only `error`; every structure's parser is built from these (see [`crate::parse`]).

use crate::error::{Error, Position, Result};
use byteorder::{BigEndian, ByteOrder, LittleEndian};
use nom::error::ErrorKind;
use nom::number::Endianness;

/// Byte order of a perf.data file, detected from its magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub enum Endian {
    /// `PERFILE2` as bytes: written by a little-endian machine.
    Little,
    /// `2ELIFREP` as bytes: written by a big-endian machine.
    Big,
}

impl Endian {
    /// The byte order of the machine running this code.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") { Endian::Big } else { Endian::Little };

    /// The other byte order.
    pub fn swapped(self) -> Endian {
        match self {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        }
    }

    /// Decode a u16 from exactly two bytes.
    #[inline]
    pub fn u16(self, b: &[u8]) -> u16 {
        match self {
            Endian::Little => LittleEndian::read_u16(b),
            Endian::Big => BigEndian::read_u16(b),
        }
    }
    /// Decode a u32 from exactly four bytes.
    #[inline]
    pub fn u32(self, b: &[u8]) -> u32 {
        match self {
            Endian::Little => LittleEndian::read_u32(b),
            Endian::Big => BigEndian::read_u32(b),
        }
    }
    /// Decode a u64 from exactly eight bytes.
    #[inline]
    pub fn u64(self, b: &[u8]) -> u64 {
        match self {
            Endian::Little => LittleEndian::read_u64(b),
            Endian::Big => BigEndian::read_u64(b),
        }
    }
    /// Encode a u16.
    pub fn put_u16(self, out: &mut Vec<u8>, v: u16) {
        out.extend_from_slice(&match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }
    /// Encode a u32.
    pub fn put_u32(self, out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }
    /// Encode a u64.
    pub fn put_u64(self, out: &mut Vec<u8>, v: u64) {
        out.extend_from_slice(&match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }
}

/// The input of every parser of the format: a byte slice that knows its byte order, the absolute
/// position of its first byte and the name of the structure being read (for errors).
///
/// It is the input type of the nom parsers in [`crate::parse`] (it implements [`nom::Input`], so
/// nom's combinators and number parsers run on it and every sub-slice keeps its absolute offset),
/// and a cursor: the methods below (`u64()`, `bytes(n)`, …) run those parsers and advance past
/// what they read, turning a parse error into the crate's [`Error`].
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    /// The unread bytes.
    data: &'a [u8],
    /// Where `data[0]` is in the input.
    pos: Position,
    /// The offset this reader started at ([`Reader::consumed`]).
    start: u64,
    endian: Endian,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, whose first byte is at `base` in the input; `what` names the structure for
    /// error messages.
    #[inline]
    pub fn new(data: &'a [u8], endian: Endian, base: Position, what: &'static str) -> Self {
        Reader { data, pos: base, start: base.offset, endian, what }
    }

    /// The byte order.
    #[inline]
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The name of the structure being read, used in errors.
    #[inline]
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// Change the structure name used in errors.
    pub fn context(mut self, what: &'static str) -> Self {
        self.what = what;
        self
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.pos.offset.saturating_sub(self.start) as usize
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len()
    }

    /// The unread bytes.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.data
    }

    /// Position of the next unread byte in the input.
    #[inline]
    pub fn position(&self) -> Position {
        self.pos
    }

    /// An error about a malformed value at the current position.
    pub fn malformed(&self, detail: impl Into<String>) -> Error {
        Error::malformed(self.position(), self.what, detail)
    }

    /// The reader after its first `n` bytes (`n` at most [`Reader::remaining`]).
    #[inline]
    pub(crate) fn advanced(&self, n: usize) -> Reader<'a> {
        let mut r = *self;
        r.data = self.data.get(n..).unwrap_or(&[]);
        r.pos.offset = self.pos.offset.saturating_add(n.min(self.data.len()) as u64);
        r
    }

    /// The reader cut to its first `n` bytes.
    #[inline]
    pub(crate) fn limited(&self, n: usize) -> Reader<'a> {
        let mut r = *self;
        r.data = self.data.get(..n).unwrap_or(self.data);
        r
    }

    /// Run a parser of [`crate::parse`] and advance past what it read.
    #[inline]
    pub fn run<T>(&mut self, parser: impl FnOnce(Reader<'a>) -> PResult<'a, T>) -> Result<T> {
        match parser(*self) {
            Ok((rest, v)) => {
                *self = rest;
                Ok(v)
            }
            Err(e) => Err(to_error(e)),
        }
    }

    /// Take the next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        self.run(take(n))
    }

    /// Take `n` bytes where `n` came from the input as a u64.
    pub fn bytes_u64(&mut self, n: u64) -> Result<&'a [u8]> {
        self.run(take_u64(n))
    }

    /// Skip `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Read a u8.
    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        self.run(u8)
    }
    /// Read a u16 in file byte order.
    #[inline]
    pub fn u16(&mut self) -> Result<u16> {
        self.run(u16)
    }
    /// Read a u32 in file byte order.
    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        self.run(u32)
    }
    /// Read a u64 in file byte order.
    #[inline]
    pub fn u64(&mut self) -> Result<u64> {
        self.run(u64)
    }
    /// Read an i32 in file byte order.
    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        self.run(i32)
    }

    /// Read `count` u64 values, borrowing them as a [`U64s`] view.
    #[inline]
    pub fn u64s(&mut self, count: u64) -> Result<U64s<'a>> {
        self.run(u64s(count))
    }

    /// Read a NUL-padded string occupying exactly `n` bytes; the value stops at the first NUL.
    pub fn fixed_str(&mut self, n: usize) -> Result<&'a [u8]> {
        self.run(fixed_str(n))
    }
}

impl<'a> nom::Input for Reader<'a> {
    type Item = u8;
    type Iter = std::iter::Copied<std::slice::Iter<'a, u8>>;
    type IterIndices = std::iter::Enumerate<Self::Iter>;

    #[inline]
    fn input_len(&self) -> usize {
        self.data.len()
    }

    #[inline]
    fn take(&self, index: usize) -> Self {
        self.limited(index)
    }

    #[inline]
    fn take_from(&self, index: usize) -> Self {
        self.advanced(index)
    }

    #[inline]
    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.advanced(index), self.limited(index))
    }

    #[inline]
    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.data.iter().position(|b| predicate(*b))
    }

    #[inline]
    fn iter_elements(&self) -> Self::Iter {
        self.data.iter().copied()
    }

    #[inline]
    fn iter_indices(&self) -> Self::IterIndices {
        self.iter_elements().enumerate()
    }

    #[inline]
    fn slice_index(&self, count: usize) -> std::result::Result<usize, nom::Needed> {
        if self.data.len() >= count {
            Ok(count)
        } else {
            Err(nom::Needed::new(count - self.data.len()))
        }
    }
}

impl<'b> nom::Compare<&'b [u8]> for Reader<'_> {
    #[inline]
    fn compare(&self, t: &'b [u8]) -> nom::CompareResult {
        self.data.compare(t)
    }

    #[inline]
    fn compare_no_case(&self, t: &'b [u8]) -> nom::CompareResult {
        self.data.compare_no_case(t)
    }
}

/// The bytes before the first NUL (all of them if there is none).
pub fn until_nul(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(i) => b.get(..i).unwrap_or(b),
        None => b,
    }
}

/// A borrowed array of u64 in file byte order (callchains, ids, registers).
#[derive(Clone, Copy)]
pub struct U64s<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> U64s<'a> {
    /// An empty array.
    pub const EMPTY: U64s<'static> = U64s { bytes: &[], endian: Endian::Little };

    /// Wrap bytes (length a multiple of 8; a trailing partial word is ignored).
    #[inline]
    pub fn new(bytes: &'a [u8], endian: Endian) -> Self {
        U64s { bytes, endian }
    }
    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }
    /// True when there are no values.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The value at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        let start = i.checked_mul(8)?;
        self.bytes.get(start..start.checked_add(8)?).map(|b| self.endian.u64(b))
    }
    /// Iterate the values.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + DoubleEndedIterator + 'a {
        let e = self.endian;
        self.bytes.chunks_exact(8).map(move |c| e.u64(c))
    }
    /// Copy into a vector.
    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }
    /// The underlying bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl std::fmt::Debug for U64s<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(|v| format!("{v:#x}"))).finish()
    }
}

impl PartialEq for U64s<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

// The primitive parsers: numbers, byte strings and counted lists, and their error.

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
        Endian::Little => Endianness::Little,
        Endian::Big => Endianness::Big,
    }
}

/// Run a parser that reads `needed` bytes; a short input is [`ParseError::Truncated`] for all of
/// them, at the parser's start.
#[inline(always)]
pub(crate) fn sized<'a, T>(
    input: Reader<'a>,
    needed: u64,
    parser: impl FnOnce(Reader<'a>) -> PResult<'a, T>,
) -> PResult<'a, T> {
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

/// The rest of the record as a string, cut at its first NUL (filenames, comms, paths).
pub(crate) fn str_to_end(input: Reader<'_>) -> PResult<'_, &[u8]> {
    let n = input.remaining();
    take(n)(input).map(|(rest, b)| (rest, until_nul(b)))
}

/// `count` × `per` u64 words: an overflowing count is malformed (`what` names it).
pub(crate) fn words<'a>(n: u64, per: u64, what: &'static str) -> impl Fn(Reader<'a>) -> PResult<'a, U64s<'a>> {
    move |input: Reader<'a>| match n.checked_mul(per) {
        Some(w) => u64s(w)(input),
        None => malformed(&input, what, [n, 0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_orders_and_reports_truncation() {
        let b = [1u8, 0, 0, 0, 0, 0, 0, 2, 9];
        let mut le = Reader::new(&b, Endian::Little, Position::at(100), "test");
        assert_eq!(le.u64().unwrap(), 0x0200_0000_0000_0001);
        let mut be = Reader::new(&b, Endian::Big, Position::at(100), "test");
        assert_eq!(be.u64().unwrap(), 0x0100_0000_0000_0002);
        let err = be.u16().unwrap_err();
        match err {
            Error::Truncated { pos, needed: 2, available: 1, what: "test" } => assert_eq!(pos.offset, 108),
            e => panic!("unexpected {e}"),
        }
        assert!(be.bytes_u64(u64::MAX).is_err());
        assert!(be.u64s(u64::MAX / 4).is_err());
    }
}
