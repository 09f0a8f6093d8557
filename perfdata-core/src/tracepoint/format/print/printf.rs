//! C `printf` conversions as glibc writes them, for the conversions libtraceevent passes through.

/// Most bytes the text of one record grows to through padding: perf's buffer has no limit, but a
/// print fmt is input, and a few bytes of `%1000000d` must not cost a megabyte each.
pub(super) const MAX_OUTPUT: usize = 1 << 20;

/// A printf conversion specification, reimplemented with glibc's output rules.
#[derive(Debug, Default)]
pub(super) struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<i64>,
    width_star: bool,
    precision: Option<i64>,
    precision_star: bool,
    conv: u8,
}

impl Spec {
    pub(super) fn parse(spec: &str) -> Spec {
        let b = spec.as_bytes();
        let mut s = Spec::default();
        let mut i = usize::from(b.first() == Some(&b'%'));
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        let num = |i: &mut usize| -> Option<i64> {
            let start = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            std::str::from_utf8(b.get(start..*i)?).ok()?.parse::<i64>().ok().map(|v| v.min(1 << 20))
        };
        if b.get(i) == Some(&b'*') {
            s.width_star = true;
            i += 1;
        } else {
            s.width = num(&mut i);
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if b.get(i) == Some(&b'*') {
                s.precision_star = true;
            } else {
                s.precision = Some(num(&mut i).unwrap_or(0));
            }
        }
        s.conv = b.last().copied().unwrap_or(b'd');
        s
    }

    /// Width and precision, taking a `*` from `star` (a negative `*` width left-justifies).
    fn resolve(&self, star: Option<i32>) -> (bool, usize, Option<usize>) {
        let mut left = self.left;
        let mut width = self.width.unwrap_or(0);
        let mut precision = self.precision;
        if self.width_star {
            let w = i64::from(star.unwrap_or(0));
            if w < 0 {
                left = true;
            }
            width = w.abs();
        } else if self.precision_star {
            let p = i64::from(star.unwrap_or(0));
            precision = (p >= 0).then_some(p);
        }
        (left, width.clamp(0, 1 << 20) as usize, precision.map(|p| p.clamp(0, 1 << 20) as usize))
    }

    fn pad(out: &mut Vec<u8>, body: &[u8], width: usize, left: bool, fill: u8) {
        let padn = width.saturating_sub(body.len()).min(MAX_OUTPUT.saturating_sub(out.len()));
        if left {
            out.extend_from_slice(body);
            out.extend(std::iter::repeat_n(b' ', padn));
        } else {
            out.extend(std::iter::repeat_n(fill, padn));
            out.extend_from_slice(body);
        }
    }

    /// `%s`.
    pub(super) fn string(&self, out: &mut Vec<u8>, star: Option<i32>, s: &[u8]) {
        let (left, width, precision) = self.resolve(star);
        let s = match precision {
            Some(p) => s.get(..p.min(s.len())).unwrap_or(s),
            None => s,
        };
        Spec::pad(out, s, width, left, b' ');
    }

    /// An integer conversion of `val` as libtraceevent passes it: cast to `char`/`short`/`int`/
    /// `long`/`long long` by `ls`, then converted by the spec.
    pub(super) fn integer(&self, out: &mut Vec<u8>, star: Option<i32>, val: u64, ls: i32) {
        let bits = match ls {
            -2 => 8,
            -1 => 16,
            0 => 32,
            _ => 64,
        };
        let (left, width, precision) = self.resolve(star);
        let masked = if bits == 64 { val } else { val & ((1u64 << bits) - 1) };
        let signed = if bits == 64 { val as i64 } else { ((masked << (64 - bits)) as i64) >> (64 - bits) };
        if self.conv == b'c' {
            Spec::pad(out, &[val as u8], width, left, b' ');
            return;
        }
        let (neg, digits, prefix): (bool, String, &str) = match self.conv {
            b'd' | b'i' => (signed < 0, signed.unsigned_abs().to_string(), ""),
            b'u' => (false, masked.to_string(), ""),
            b'x' => (false, format!("{masked:x}"), if self.alt && masked != 0 { "0x" } else { "" }),
            b'X' => (false, format!("{masked:X}"), if self.alt && masked != 0 { "0X" } else { "" }),
            b'o' => (false, format!("{masked:o}"), ""),
            _ => (false, masked.to_string(), ""),
        };
        let mut digits = if precision == Some(0) && masked == 0 { String::new() } else { digits };
        if let Some(p) = precision {
            if digits.len() < p {
                digits = "0".repeat(p - digits.len()) + &digits;
            }
        }
        if self.conv == b'o' && self.alt && !digits.starts_with('0') {
            digits.insert(0, '0');
        }
        let sign = if neg {
            "-"
        } else if matches!(self.conv, b'd' | b'i') && self.plus {
            "+"
        } else if matches!(self.conv, b'd' | b'i') && self.space {
            " "
        } else {
            ""
        };
        let head = format!("{sign}{prefix}");
        if self.zero && !left && precision.is_none() {
            let zeros = width.saturating_sub(head.len() + digits.len()).min(MAX_OUTPUT.saturating_sub(out.len()));
            out.extend_from_slice(head.as_bytes());
            out.extend(std::iter::repeat_n(b'0', zeros));
            out.extend_from_slice(digits.as_bytes());
        } else {
            Spec::pad(out, format!("{head}{digits}").as_bytes(), width, left, b' ');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_like_glibc() {
        let f = |spec: &str, v: u64, ls: i32| {
            let mut o = Vec::new();
            Spec::parse(spec).integer(&mut o, None, v, ls);
            String::from_utf8(o).unwrap()
        };
        assert_eq!(f("%03d", 1, 0), "001");
        assert_eq!(f("%d", 0xffff_ff9c, 0), "-100");
        assert_eq!(f("%ld", 0xffff_ff9c, 1), "4294967196");
        assert_eq!(f("%08lx", 0xffff_ff9c, 1), "ffffff9c");
        assert_eq!(f("%-5d", 3, 0), "3    ");
        assert_eq!(f("%+.0d", 0, 0), "+");
        assert_eq!(f("%#x", 0, 0), "0");
        assert_eq!(f("%#5x", 255, 0), " 0xff");
        assert_eq!(f("%08.3d", (-7i64) as u64, 0), "    -007");
        assert_eq!(f("%hhd", 200, -2), "-56");
        assert_eq!(f("%hd", 70000, -1), "4464");
        assert_eq!(f("%#.3o", 8, 0), "010");
        let mut o = Vec::new();
        Spec::parse("%5.1s").string(&mut o, None, b"xyz");
        assert_eq!(o, b"    x");
    }
}
