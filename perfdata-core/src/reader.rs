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

/// A cursor over a byte slice that knows the byte order and the absolute position of its start.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    base: Position,
    endian: Endian,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, whose first byte is at `base` in the input; `what` names the structure for
    /// error messages.
    #[inline]
    pub fn new(data: &'a [u8], endian: Endian, base: Position, what: &'static str) -> Self {
        Reader { data, at: 0, base, endian, what }
    }

    /// The byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Change the structure name used in errors.
    pub fn context(mut self, what: &'static str) -> Self {
        self.what = what;
        self
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.at
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }

    /// The unread bytes.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.at..).unwrap_or(&[])
    }

    /// Position of the next unread byte in the input.
    pub fn position(&self) -> Position {
        let mut p = self.base;
        p.offset = p.offset.saturating_add(self.at as u64);
        p
    }

    fn truncated(&self, needed: u64) -> Error {
        Error::Truncated { pos: self.position(), what: self.what, needed, available: self.remaining() as u64 }
    }

    /// An error about a malformed value at the current position.
    pub fn malformed(&self, detail: impl Into<String>) -> Error {
        Error::malformed(self.position(), self.what, detail)
    }

    /// Take the next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).ok_or_else(|| self.truncated(n as u64))?;
        match self.data.get(self.at..end) {
            Some(s) => {
                self.at = end;
                Ok(s)
            }
            None => Err(self.truncated(n as u64)),
        }
    }

    /// Take `n` bytes where `n` came from the input as a u64.
    pub fn bytes_u64(&mut self, n: u64) -> Result<&'a [u8]> {
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => self.bytes(n),
            _ => Err(self.truncated(n)),
        }
    }

    /// Skip `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Read a u8.
    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        let b = self.bytes(1)?;
        b.first().copied().ok_or_else(|| self.truncated(1))
    }
    /// Read a u16 in file byte order.
    #[inline]
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(self.endian.u16(b))
    }
    /// Read a u32 in file byte order.
    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(self.endian.u32(b))
    }
    /// Read a u64 in file byte order.
    #[inline]
    pub fn u64(&mut self) -> Result<u64> {
        let b = self.bytes(8)?;
        Ok(self.endian.u64(b))
    }
    /// Read an i32 in file byte order.
    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        Ok(self.u32()? as i32)
    }

    /// Read `count` u64 values, borrowing them as a [`U64s`] view.
    #[inline]
    pub fn u64s(&mut self, count: u64) -> Result<U64s<'a>> {
        let n = count.checked_mul(8).ok_or_else(|| self.malformed(format!("array count {count} overflows")))?;
        let bytes = self.bytes_u64(n)?;
        Ok(U64s { bytes, endian: self.endian })
    }

    /// Read a NUL-padded string occupying exactly `n` bytes; the value stops at the first NUL.
    pub fn fixed_str(&mut self, n: usize) -> Result<&'a [u8]> {
        Ok(until_nul(self.bytes(n)?))
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
