//! The single checked, endian-aware byte reader every parser goes through.
//!
//! Each read checks bounds once and returns an [`Error::Truncated`] naming what was being read and
//! where, so nothing above this module indexes raw slices.

use crate::error::{Error, Position, Result};
use byteorder::{BigEndian, ByteOrder, LittleEndian};

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
    pub fn run<T>(&mut self, parser: impl FnOnce(Reader<'a>) -> crate::parse::PResult<'a, T>) -> Result<T> {
        match parser(*self) {
            Ok((rest, v)) => {
                *self = rest;
                Ok(v)
            }
            Err(e) => Err(crate::parse::to_error(e)),
        }
    }

    /// Take the next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        self.run(crate::parse::take(n))
    }

    /// Take `n` bytes where `n` came from the input as a u64.
    pub fn bytes_u64(&mut self, n: u64) -> Result<&'a [u8]> {
        self.run(crate::parse::take_u64(n))
    }

    /// Skip `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Read a u8.
    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        self.run(crate::parse::u8)
    }
    /// Read a u16 in file byte order.
    #[inline]
    pub fn u16(&mut self) -> Result<u16> {
        self.run(crate::parse::u16)
    }
    /// Read a u32 in file byte order.
    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        self.run(crate::parse::u32)
    }
    /// Read a u64 in file byte order.
    #[inline]
    pub fn u64(&mut self) -> Result<u64> {
        self.run(crate::parse::u64)
    }
    /// Read an i32 in file byte order.
    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        self.run(crate::parse::i32)
    }

    /// Read `count` u64 values, borrowing them as a [`U64s`] view.
    #[inline]
    pub fn u64s(&mut self, count: u64) -> Result<U64s<'a>> {
        self.run(crate::parse::u64s(count))
    }

    /// Read a NUL-padded string occupying exactly `n` bytes; the value stops at the first NUL.
    pub fn fixed_str(&mut self, n: usize) -> Result<&'a [u8]> {
        self.run(crate::parse::fixed_str(n))
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
