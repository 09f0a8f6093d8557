//! printf's integer conversions into a byte buffer, through `itoa` rather than `core::fmt` (perf
//! script's sample lines are mostly numbers; formatting them through `fmt` cost a third of the
//! run).

/// `%*lu` (`left`: `%-*lu`).
pub(super) fn dec(out: &mut Vec<u8>, v: u64, width: usize, left: bool) {
    let mut b = itoa::Buffer::new();
    pad(out, b.format(v).as_bytes(), width, left, b' ');
}

/// `%*d` of a signed value (`left`: `%-*d`).
pub(super) fn signed(out: &mut Vec<u8>, v: i64, width: usize, left: bool) {
    let mut b = itoa::Buffer::new();
    pad(out, b.format(v).as_bytes(), width, left, b' ');
}

/// `%0*lu`.
pub(super) fn zero(out: &mut Vec<u8>, v: u64, width: usize) {
    let mut b = itoa::Buffer::new();
    pad(out, b.format(v).as_bytes(), width, false, b'0');
}

/// `%*lx`.
#[cfg(test)]
pub(super) fn hex(out: &mut Vec<u8>, mut v: u64, width: usize) {
    let mut b = [0u8; 16];
    let mut i = b.len();
    while let Some(d) = i.checked_sub(1).and_then(|j| b.get_mut(j)) {
        *d = b"0123456789abcdef".get((v & 15) as usize).copied().unwrap_or(b'0');
        i -= 1;
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    pad(out, b.get(i..).unwrap_or(&[]), width, false, b' ');
}

/// C's `%#x` (also `%#lx`): `0x`-prefixed hex, but a bare `0` for zero.
pub(super) fn alt_hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// `s` padded to `width` with `fill` (on the right when `left`).
pub(super) fn pad(out: &mut Vec<u8>, s: &[u8], width: usize, left: bool, fill: u8) {
    let n = width.saturating_sub(s.len());
    if left {
        out.extend_from_slice(s);
        out.resize(out.len() + n, fill);
    } else {
        out.resize(out.len() + n, fill);
        out.extend_from_slice(s);
    }
}

/// perf's sample time: `%12s` of `SEC.USEC` (`timestamp__scnprintf_usec`), or with `ns`
/// `%5lu.%09llu`; then `: `.
pub(super) fn time(out: &mut Vec<u8>, t: u64, ns: bool) {
    let (s, frac) = (t / 1_000_000_000, t % 1_000_000_000);
    if ns {
        dec(out, s, 5, false);
        out.push(b'.');
        zero(out, frac, 9);
    } else {
        let mut b = itoa::Buffer::new();
        let secs = b.format(s).as_bytes();
        // SEC + '.' + 6 digits, right-aligned in 12.
        let len = secs.len() + 7;
        out.resize(out.len() + 12usize.saturating_sub(len), b' ');
        out.extend_from_slice(secs);
        out.push(b'.');
        zero(out, frac / 1000, 6);
    }
    out.extend_from_slice(b": ");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn like_printf() {
        assert_eq!(s(|o| dec(o, 42, 5, false)), "   42");
        assert_eq!(s(|o| dec(o, 42, 5, true)), "42   ");
        assert_eq!(s(|o| dec(o, 123_456, 3, false)), "123456");
        assert_eq!(s(|o| dec(o, u64::MAX, 0, false)), u64::MAX.to_string());
        assert_eq!(s(|o| signed(o, -1, 5, false)), "   -1");
        assert_eq!(s(|o| signed(o, -1, 5, true)), "-1   ");
        assert_eq!(s(|o| signed(o, i64::MIN, 0, false)), i64::MIN.to_string());
        assert_eq!(s(|o| zero(o, 7, 3)), "007");
        assert_eq!(s(|o| hex(o, 0x7fe7a9ef2ad7, 16)), "    7fe7a9ef2ad7");
        assert_eq!(s(|o| hex(o, 0, 16)), "               0");
        assert_eq!(s(|o| hex(o, u64::MAX, 16)), "ffffffffffffffff");
        assert_eq!(s(|o| time(o, 3_094_536_040_123, false)), " 3094.536040: ");
        assert_eq!(alt_hex(0), "0");
        assert_eq!(alt_hex(0x1f), "0x1f");
        assert_eq!(s(|o| time(o, 3_094_536_040_123, true)), " 3094.536040123: ");
        assert_eq!(s(|o| time(o, 18_446_744_069_414_584_320, false)), "18446744069.414584: ");
    }
}
