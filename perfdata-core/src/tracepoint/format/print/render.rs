//! Rendering a raw record with a parsed print fmt (libtraceevent `eval_num_arg`, `print_str_arg`,
//! `print_arg_pointer`, `print_field_raw`). Values are unsigned 64-bit as in libtraceevent; every
//! read is bounded by the record (where perf would read past it, this reads nothing).

use super::printf::{Spec, MAX_OUTPUT};
use super::{eval_type_str, field_at, Arg, PrintFmt, SegKind};
use crate::tracepoint::format::{strtoull, Field, Format};

/// `eval_flag`: a flag table value (numbers, a few known kernel enum names, else -1).
fn eval_flag(s: &str) -> i64 {
    if s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return strtoull(s) as i64;
    }
    match s {
        "HI_SOFTIRQ" | "HRTIMER_NORESTART" => 0,
        "TIMER_SOFTIRQ" | "HRTIMER_RESTART" => 1,
        "NET_TX_SOFTIRQ" => 2,
        "NET_RX_SOFTIRQ" => 3,
        "BLOCK_SOFTIRQ" => 4,
        "IRQ_POLL_SOFTIRQ" => 5,
        "TASKLET_SOFTIRQ" => 6,
        "SCHED_SOFTIRQ" => 7,
        "HRTIMER_SOFTIRQ" => 8,
        "RCU_SOFTIRQ" => 9,
        _ => -1,
    }
}

/// A raw record being printed.
struct Ctx<'f, 'd> {
    fmt: &'f Format,
    data: &'d [u8],
    printk: &'f dyn Fn(u64) -> Option<&'f str>,
}

impl Ctx<'_, '_> {
    fn field(&self, i: Option<usize>, name: &str) -> Option<&Field> {
        match i {
            Some(i) => field_at(self.fmt, i),
            None => self.fmt.field_def(name),
        }
    }

    /// `tep_read_number`: 1/2/4/8 bytes in the tracing data's byte order; 0 for other sizes or
    /// when out of the record.
    fn number(&self, offset: u64, size: u64) -> u64 {
        let Some(b) = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, n)| self.data.get(o..o.checked_add(n)?))
        else {
            return 0;
        };
        let e = self.fmt.endian;
        match b.len() {
            1 => u64::from(b.first().copied().unwrap_or(0)),
            2 => u64::from(e.u16(b)),
            4 => u64::from(e.u32(b)),
            8 => e.u64(b),
            _ => 0,
        }
    }

    /// `dynamic_offset_field`: (offset, length) of a dynamic field's data, zeroed when the
    /// descriptor is out of the record.
    fn dynamic(&self, f: &Field) -> (u32, u32) {
        let size = self.data.len() as u64;
        if u64::from(f.offset) + u64::from(f.size) > size {
            return (0, 0);
        }
        let val = self.number(u64::from(f.offset), u64::from(f.size));
        let size = size as u32;
        let o = (val & 0xffff) as u32;
        let l = if f.size == 2 { size.wrapping_sub(o) } else { ((val >> 16) & 0xffff) as u32 };
        let mut off = if o > size { 0 } else { o };
        let len = if o.wrapping_add(l) > size { 0 } else { l };
        if f.is_relative {
            off = off.wrapping_add(f.offset).wrapping_add(f.size);
        }
        (off, len)
    }

    fn bytes(&self, offset: u64, len: u64) -> &[u8] {
        let Ok(o) = usize::try_from(offset) else {
            return &[];
        };
        let rest = self.data.get(o..).unwrap_or(&[]);
        rest.get(..usize::try_from(len).unwrap_or(usize::MAX).min(rest.len())).unwrap_or(rest)
    }

    /// A C string starting at `offset` (to the first NUL or the end of the record).
    fn cstr(&self, offset: u64) -> &[u8] {
        crate::reader::until_nul(self.bytes(offset, u64::MAX))
    }

    /// `eval_num_arg`.
    fn eval(&self, arg: &Arg) -> u64 {
        match arg {
            // A symbol name would be looked up in kallsyms, which perf no longer loads: 0.
            Arg::Atom(a) => strtoull(a),
            Arg::Field { name, field } => match self.field(*field, name) {
                Some(f) if u64::from(f.offset) + u64::from(f.size) <= self.data.len() as u64 => {
                    self.number(u64::from(f.offset), u64::from(f.size))
                }
                _ => 0,
            },
            Arg::Type { ty, item } => eval_type_str(self.eval(item), ty, false),
            Arg::Op { op, left, right, .. } => self.eval_op(op, left.as_deref(), right.as_deref()),
            Arg::DynArrayLen(i) => field_at(self.fmt, *i).map_or(0, |f| u64::from(self.dynamic(f).1)),
            // libtraceevent yields a host pointer to the data; the offset is the stable part of it.
            Arg::DynArray(i) => field_at(self.fmt, *i).map_or(0, |f| u64::from(self.dynamic(f).0)),
            _ => 0,
        }
    }

    fn eval_op(&self, op: &str, left: Option<&Arg>, right: Option<&Arg>) -> u64 {
        let ev = |a: Option<&Arg>| a.map_or(0, |a| self.eval(a));
        if op == "[" {
            let idx = ev(right);
            let mut larg = left;
            let mut typearg = None;
            while let Some(Arg::Type { ty, item }) = larg {
                typearg.get_or_insert(ty.as_str());
                larg = Some(item);
            }
            let mut field_size = u64::from(self.fmt.long_size);
            let offset = match larg {
                Some(Arg::DynArray(i)) => {
                    let Some(f) = field_at(self.fmt, *i) else { return 0 };
                    if f.element_size != 0 {
                        field_size = u64::from(f.element_size);
                    }
                    u64::from(self.dynamic(f).0).wrapping_add(idx)
                }
                Some(Arg::Field { name, field }) => {
                    let Some(f) = self.field(*field, name) else { return 0 };
                    field_size = u64::from(f.element_size);
                    u64::from(f.offset).wrapping_add(idx.wrapping_mul(u64::from(f.element_size)))
                }
                // "oops, all bets off": a plain binary '[' is not an operator libtraceevent knows.
                _ => return 0,
            };
            if offset.checked_add(field_size).is_none_or(|e| e > self.data.len() as u64) {
                return 0;
            }
            let v = self.number(offset, field_size);
            return match typearg {
                Some(t) => eval_type_str(v, t, true),
                None => v,
            };
        }
        if op == "?" {
            let cond = ev(left);
            return match right {
                Some(Arg::Op { left: l, right: r, .. }) => {
                    if cond != 0 {
                        ev(l.as_deref())
                    } else {
                        ev(r.as_deref())
                    }
                }
                _ => 0,
            };
        }
        let (l, r) = (ev(left), ev(right));
        let b = op.as_bytes();
        let second = b.get(1).copied().unwrap_or(0);
        match b.first() {
            Some(b'!') => match second {
                0 => u64::from(r == 0),
                b'=' => u64::from(l != r),
                _ => 0,
            },
            Some(b'~') => !r,
            Some(b'|') => {
                if second != 0 {
                    u64::from(l != 0 || r != 0)
                } else {
                    l | r
                }
            }
            Some(b'&') => {
                if second != 0 {
                    u64::from(l != 0 && r != 0)
                } else {
                    l & r
                }
            }
            Some(b'<') => match second {
                0 => u64::from(l < r),
                b'<' => l.wrapping_shl((r & 63) as u32),
                b'=' => u64::from(l <= r),
                _ => 0,
            },
            Some(b'>') => match second {
                0 => u64::from(l > r),
                b'>' => l.wrapping_shr((r & 63) as u32),
                b'=' => u64::from(l >= r),
                _ => 0,
            },
            Some(b'=') if second == b'=' => u64::from(l == r),
            Some(b'-') => l.wrapping_sub(r),
            Some(b'+') => l.wrapping_add(r),
            Some(b'/') => l.checked_div(r).unwrap_or(0),
            Some(b'%') => l.checked_rem(r).unwrap_or(0),
            Some(b'*') => l.wrapping_mul(r),
            // `^` and anything else: libtraceevent warns and yields 0.
            _ => 0,
        }
    }

    /// `print_str_arg`: an argument of a `%s` conversion.
    fn print_str(&self, out: &mut Vec<u8>, spec: &Spec, len_arg: Option<i32>, arg: &Arg) {
        match arg {
            Arg::Atom(a) => spec.string(out, len_arg, a.as_bytes()),
            Arg::Field { name, field } => {
                let Some(f) = self.field(*field, name) else { return };
                if !f.is_array && f.size == u32::from(self.fmt.long_size) {
                    // A pointer: a known printk string, else the address.
                    let addr = self.number(u64::from(f.offset), u64::from(f.size));
                    match (self.printk)(addr) {
                        Some(s) => out.extend_from_slice(s.as_bytes()),
                        None => out.extend_from_slice(format!("{addr:x}").as_bytes()),
                    }
                    return;
                }
                let len = if f.size != 0 {
                    u64::from(f.size)
                } else {
                    (self.data.len() as u64).wrapping_sub(u64::from(f.offset))
                };
                let s = crate::reader::until_nul(self.bytes(u64::from(f.offset), len));
                spec.string(out, len_arg, s);
            }
            Arg::Flags { field, delim, flags } => {
                let mut val = self.eval(field) as i64;
                let mut printed = false;
                for fl in flags {
                    let fval = eval_flag(&fl.value);
                    if val == 0 && fval < 0 {
                        spec.string(out, len_arg, fl.text.as_bytes());
                        break;
                    }
                    if fval > 0 && (val & fval) == fval {
                        if let (true, Some(d)) = (printed, delim) {
                            out.extend_from_slice(d.as_bytes());
                        }
                        spec.string(out, len_arg, fl.text.as_bytes());
                        printed = true;
                        val &= !fval;
                    }
                }
                if val != 0 {
                    if let (true, Some(d)) = (printed, delim) {
                        out.extend_from_slice(d.as_bytes());
                    }
                    out.extend_from_slice(format!("0x{:x}", val as u64).as_bytes());
                }
            }
            Arg::Symbol { field, symbols } => {
                let val = self.eval(field) as i64;
                match symbols.iter().find(|s| eval_flag(&s.value) == val) {
                    Some(s) => spec.string(out, len_arg, s.text.as_bytes()),
                    None => out.extend_from_slice(format!("0x{:x}", val as u64).as_bytes()),
                }
            }
            Arg::Hex { field, size, spaced } => {
                let Some(start) = self.array_start(field) else { return };
                let len = self.eval(size) as u32;
                let bytes = self.bytes(start, u64::from(len));
                for (i, b) in bytes.iter().enumerate() {
                    if i > 0 && *spaced {
                        out.push(b' ');
                    }
                    out.extend_from_slice(format!("{b:02x}").as_bytes());
                }
            }
            Arg::IntArray { field, count, el_size } => {
                let Some(start) = self.array_start(field) else { return };
                let count = self.eval(count) as u32;
                let mut el = self.eval(el_size) as i32;
                let mut at = start;
                // perf 6.1: decimal elements separated by spaces (newer libtraceevent: `{0x..,..}`).
                for i in 0..count {
                    if u64::from(i) > self.data.len() as u64 {
                        break;
                    }
                    if i > 0 {
                        out.push(b' ');
                    }
                    match el {
                        1 | 2 | 4 | 8 => {
                            let v = self.number(at, el as u64);
                            out.extend_from_slice(v.to_string().as_bytes());
                        }
                        _ => {
                            let v = self.number(at, 1);
                            out.extend_from_slice(format!("BAD SIZE:{el} 0x{v:x}").as_bytes());
                            el = 1;
                        }
                    }
                    at = at.wrapping_add(el as u64);
                }
            }
            Arg::Str(name) => {
                let Some(f) = self.fmt.field_def(name) else { return };
                let (off, len) = self.dynamic(f);
                if len == 0 {
                    return;
                }
                spec.string(out, len_arg, self.cstr(u64::from(off)));
            }
            Arg::Bitmask(name) => {
                let Some(f) = self.fmt.field_def(name) else { return };
                let (off, len) = self.dynamic(f);
                let s = bitmask_text(self.bytes(u64::from(off), u64::from(len)), self.fmt.endian);
                spec.string(out, len_arg, s.as_bytes());
            }
            Arg::Op { op, left, right, .. } if op.starts_with('?') => {
                let cond = left.as_deref().map_or(0, |a| self.eval(a));
                if let Some(Arg::Op { left: l, right: r, .. }) = right.as_deref() {
                    let pick = if cond != 0 { l } else { r };
                    if let Some(a) = pick.as_deref() {
                        self.print_str(out, spec, len_arg, a);
                    }
                }
            }
            // Casts, other operators and dynamic arrays print nothing under %s (as libtraceevent).
            _ => {}
        }
    }

    /// Start offset of the data of a `__print_hex`/`__print_array` first argument.
    fn array_start(&self, field: &Arg) -> Option<u64> {
        match field {
            Arg::DynArray(i) => field_at(self.fmt, *i).map(|f| u64::from(self.dynamic(f).0)),
            Arg::Field { name, field } => self.field(*field, name).map(|f| u64::from(f.offset)),
            _ => None,
        }
    }

    /// `print_arg_pointer`: `%p` and its extensions.
    fn print_pointer(&self, out: &mut Vec<u8>, spec: &str, plen: i32, arg: &Arg) {
        let ext = spec.split_once('p').map_or("", |(_, e)| e).as_bytes();
        let at = |k: usize| ext.get(k).copied().unwrap_or(0);
        match at(0) {
            // Symbols: perf 6.1 does not load kallsyms into libtraceevent, so never resolved.
            b'F' | b'f' | b'S' | b's' => out.extend_from_slice(format!("0x{:x}", self.eval(arg)).as_bytes()),
            b'M' | b'm' => {
                let Some(b) = self.pointer_field(out, arg, false) else { return };
                if b.len() != 6 {
                    out.extend_from_slice(b"INVALIDMAC");
                    return;
                }
                let sep = match (at(0), at(1)) {
                    (b'm', _) => "",
                    (_, b'F') => "-",
                    _ => ":",
                };
                let mut v = b.to_vec();
                if at(1) == b'R' {
                    v.reverse();
                }
                let parts: Vec<String> = v.iter().map(|x| format!("{x:02x}")).collect();
                out.extend_from_slice(parts.join(sep).as_bytes());
            }
            c @ (b'I' | b'i') => self.print_ip(out, c, ext.get(1..).unwrap_or(&[]), arg),
            b'U' => {
                let Some(b) = self.pointer_field(out, arg, false) else { return };
                if b.len() != 16 {
                    out.extend_from_slice(b"INVALIDUUID");
                    return;
                }
                let upper = matches!(at(1), b'L' | b'B');
                let guid = matches!(at(1), b'L' | b'l');
                const GUID: [usize; 16] = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];
                for i in 0..16usize {
                    let idx = if guid { GUID.get(i).copied().unwrap_or(i) } else { i };
                    let x = b.get(idx).copied().unwrap_or(0);
                    let s = if upper { format!("{x:02X}") } else { format!("{x:02x}") };
                    out.extend_from_slice(s.as_bytes());
                    if matches!(i, 3 | 5 | 7 | 9) {
                        out.push(b'-');
                    }
                }
            }
            b'h' => {
                let delim: &[u8] = match at(1) {
                    b'C' => b":",
                    b'D' => b"-",
                    b'N' => b"",
                    _ => b" ",
                };
                let Arg::DynArray(i) = arg else {
                    out.extend_from_slice(format!("ARG TYPE NOT FIELD BUT {}", arg.type_id()).as_bytes());
                    return;
                };
                let Some(f) = field_at(self.fmt, *i) else { return };
                let (off, len) = self.dynamic(f);
                // C compares the unsigned length with the int count.
                let n = if len < plen as u32 { len as i32 } else { plen };
                if n < 1 {
                    return;
                }
                for (k, b) in self.bytes(u64::from(off), n as u64).iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(delim);
                    }
                    out.extend_from_slice(format!("{b:02x}").as_bytes());
                }
            }
            _ => {
                let v = self.eval(arg);
                if v == 0 {
                    out.extend_from_slice(b"(nil)");
                } else {
                    out.extend_from_slice(format!("0x{v:x}").as_bytes());
                }
            }
        }
    }

    /// The bytes of the field a `%pM`/`%pI`/`%pU` argument names (casts skipped); prints libtraceevent's
    /// complaint and gives `None` when the argument is not a field (or a dynamic array, when allowed).
    fn pointer_field(&self, out: &mut Vec<u8>, arg: &Arg, dynamic_ok: bool) -> Option<&[u8]> {
        let mut a = arg;
        while let Arg::Type { item, .. } = a {
            a = item;
        }
        match a {
            Arg::Field { name, field } => {
                let f = self.field(*field, name)?;
                Some(self.bytes(u64::from(f.offset), u64::from(f.size)))
            }
            Arg::DynArray(i) if dynamic_ok => {
                let f = field_at(self.fmt, *i)?;
                let (off, len) = self.dynamic(f);
                Some(self.bytes(u64::from(off), u64::from(len)))
            }
            _ if dynamic_ok => {
                out.extend_from_slice(format!("ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE {}", a.type_id()).as_bytes());
                None
            }
            _ => {
                out.extend_from_slice(format!("ARG TYPE NOT FIELD BUT {}", a.type_id()).as_bytes());
                None
            }
        }
    }

    /// `%pI4`, `%pi4`, `%pI6`, `%pi6`, `%pI6c`, `%pIS…` (`print_ip_arg`); `rest` starts at the version.
    fn print_ip(&self, out: &mut Vec<u8>, i: u8, rest: &[u8], arg: &Arg) {
        let at = |k: usize| rest.get(k).copied().unwrap_or(0);
        // [hnbl]: host/network/big/little byte order of an IPv4 address.
        let reverse_of = |c: u8| match c {
            b'h' => self.fmt.endian == crate::reader::Endian::Little,
            b'l' => true,
            _ => false,
        };
        let ip4 = |out: &mut Vec<u8>, b: &[u8], reverse: bool| {
            let mut v = b.to_vec();
            if reverse {
                v.reverse();
            }
            let s: Vec<String> = v.iter().map(|x| if i == b'i' { format!("{x:03}") } else { x.to_string() }).collect();
            out.extend_from_slice(s.join(".").as_bytes());
        };
        let ip6 = |out: &mut Vec<u8>, b: &[u8], compressed: bool| {
            if compressed {
                out.extend_from_slice(ipv6_compressed(b).as_bytes());
                return;
            }
            for (k, pair) in b.chunks(2).enumerate() {
                for x in pair {
                    out.extend_from_slice(format!("{x:02x}").as_bytes());
                }
                if i == b'I' && k < 7 {
                    out.push(b':');
                }
            }
        };
        match at(0) {
            b'4' => {
                let Some(b) = self.pointer_field(out, arg, false) else { return };
                if b.len() != 4 {
                    out.extend_from_slice(b"INVALIDIPv4");
                    return;
                }
                ip4(out, b, reverse_of(at(1)));
            }
            b'6' => {
                let Some(b) = self.pointer_field(out, arg, false) else { return };
                if b.len() != 16 {
                    out.extend_from_slice(b"INVALIDIPv6");
                    return;
                }
                ip6(out, b, i == b'I' && at(1) == b'c');
            }
            b'S' => {
                let mut k = 1;
                let (mut have_p, mut have_c) = (false, false);
                if i == b'I' {
                    if at(k) == b'p' {
                        have_p = true;
                        k += 1;
                    }
                    if at(k) == b'c' {
                        have_c = true;
                        k += 1;
                    }
                }
                let reverse = reverse_of(at(k));
                let Some(b) = self.pointer_field(out, arg, true) else { return };
                // sockaddr: the family is read in the host's (x86: little-endian) order.
                let family = u16::from_le_bytes([b.first().copied().unwrap_or(0), b.get(1).copied().unwrap_or(0)]);
                let port = u16::from_be_bytes([b.get(2).copied().unwrap_or(0), b.get(3).copied().unwrap_or(0)]);
                match family {
                    2 => {
                        if b.len() < 16 {
                            out.extend_from_slice(b"INVALIDIPv4");
                            return;
                        }
                        ip4(out, b.get(4..8).unwrap_or(&[]), reverse);
                        if have_p {
                            out.extend_from_slice(format!(":{port}").as_bytes());
                        }
                    }
                    10 => {
                        if b.len() < 28 {
                            out.extend_from_slice(b"INVALIDIPv6");
                            return;
                        }
                        if have_p {
                            out.push(b'[');
                        }
                        ip6(out, b.get(8..24).unwrap_or(&[]), have_c);
                        if have_p {
                            out.extend_from_slice(format!("]:{port}").as_bytes());
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn render_into(&self, p: &PrintFmt, out: &mut Vec<u8>) {
        for seg in &p.segs {
            if out.len() >= MAX_OUTPUT {
                // Only crafted print fmts get here (thousands of wide conversions or huge arrays).
                break;
            }
            let arg = seg.arg.and_then(|i| p.args.get(i));
            let len_arg = seg.len_arg.and_then(|i| p.args.get(i)).map(|a| self.eval(a) as i32);
            match (&seg.kind, arg) {
                (SegKind::Literal(s), _) => out.extend_from_slice(s.as_bytes()),
                (SegKind::Digit { ls }, Some(a)) => {
                    let v = self.eval(a);
                    Spec::parse(&seg.spec).integer(out, len_arg, v, *ls);
                }
                (SegKind::Pointer, Some(a)) => self.print_pointer(out, &seg.spec, len_arg.unwrap_or(1), a),
                (SegKind::Str, Some(a)) => {
                    let mut tmp = Vec::new();
                    self.print_str(&mut tmp, &Spec::parse(&seg.spec), len_arg, a);
                    // trace_seq_puts: the piece ends at an embedded NUL.
                    out.extend_from_slice(crate::reader::until_nul(&tmp));
                }
                _ => {}
            }
        }
    }
}

/// `print_bitmask_to_seq`: hex, most significant byte first, a comma every 32 bits.
fn bitmask_text(b: &[u8], endian: crate::reader::Endian) -> String {
    let n = b.len();
    let mut groups: Vec<String> = Vec::new();
    let mut cur = String::new();
    // Walk bytes from least to most significant, building the text from the right.
    for k in 0..n {
        let idx = if endian == crate::reader::Endian::Big { n - 1 - k } else { k };
        cur.insert_str(0, &format!("{:02x}", b.get(idx).copied().unwrap_or(0)));
        if (k + 1) % 4 == 0 && k + 1 < n {
            groups.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    groups.reverse();
    groups.join(",")
}

/// `print_ip6c_addr`: RFC 5952-style compressed IPv6 (as libtraceevent writes it).
fn ipv6_compressed(b: &[u8]) -> String {
    let word =
        |i: usize| u16::from_be_bytes([b.get(2 * i).copied().unwrap_or(0), b.get(2 * i + 1).copied().unwrap_or(0)]);
    let v4mapped = (0..5).all(|i| word(i) == 0) && word(5) == 0xffff;
    let isatap = (word(4) | 0x0200) == 0x0200 && word(5) == 0x5efe;
    let use_v4 = v4mapped || isatap;
    let range = if use_v4 { 6 } else { 8 };
    let mut zerolen = [0u8; 8];
    for i in 0..range {
        for j in i..range {
            if word(j) != 0 {
                break;
            }
            if let Some(z) = zerolen.get_mut(i) {
                *z += 1;
            }
        }
    }
    let mut longest = 1u8;
    let mut colonpos: Option<usize> = None;
    for (i, z) in zerolen.iter().enumerate().take(range) {
        if *z > longest {
            longest = *z;
            colonpos = Some(i);
        }
    }
    let mut s = String::new();
    let mut needcolon = false;
    let mut i = 0;
    while i < range {
        if Some(i) == colonpos {
            if needcolon || i == 0 {
                s.push(':');
            }
            s.push(':');
            needcolon = false;
            i += usize::from(longest);
            continue;
        }
        if needcolon {
            s.push(':');
        }
        let w = word(i);
        let (hi, lo) = (w >> 8, w & 0xff);
        if hi != 0 {
            s.push_str(&format!("{hi:x}{lo:02x}"));
        } else {
            s.push_str(&format!("{lo:x}"));
        }
        needcolon = true;
        i += 1;
    }
    if use_v4 {
        if needcolon {
            s.push(':');
        }
        let v: Vec<String> = b.get(12..16).unwrap_or(&[]).iter().map(|x| x.to_string()).collect();
        s.push_str(&v.join("."));
    }
    s
}

/// `print_field_raw`: one field for the `[FAILED TO PARSE]` fallback.
fn field_raw(out: &mut Vec<u8>, ctx: &Ctx<'_, '_>, f: &Field) {
    if f.is_array {
        let (off, len) = if f.is_dynamic { ctx.dynamic(f) } else { (f.offset, f.size) };
        let bytes = ctx.bytes(u64::from(off), u64::from(len));
        let printable = bytes.iter().take_while(|&&c| c != 0).all(|&c| is_print(c) || is_space(c));
        if f.is_string && printable {
            out.extend_from_slice(ctx.cstr(u64::from(off)));
        } else {
            out.extend_from_slice(b"ARRAY[");
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(format!("{b:02x}").as_bytes());
            }
            out.push(b']');
        }
        return;
    }
    let val = ctx.number(u64::from(f.offset), u64::from(f.size));
    let s = if f.is_pointer {
        format!("0x{val:x}")
    } else if f.signed == Some(true) {
        match f.size {
            4 if f.is_long => format!("0x{:x}", val as u32),
            4 => (val as i32).to_string(),
            2 => format!("{:2}", val as i16),
            1 => (val as i8).to_string(),
            _ => (val as i64).to_string(),
        }
    } else if f.is_long {
        format!("0x{val:x}")
    } else {
        val.to_string()
    };
    out.extend_from_slice(s.as_bytes());
}

fn is_print(c: u8) -> bool {
    (0x20..=0x7e).contains(&c)
}

fn is_space(c: u8) -> bool {
    matches!(c, 0x20 | 0x09..=0x0d)
}

/// Render a raw record of `fmt` as `perf script` prints it (`event_format__fprintf`), as bytes
/// (strings from the record are copied unchanged, as perf does).
pub(crate) fn render<'f>(fmt: &'f Format, data: &[u8], printk: &'f dyn Fn(u64) -> Option<&'f str>) -> Vec<u8> {
    let ctx = Ctx { fmt, data, printk };
    let mut out = Vec::new();
    match &fmt.print {
        Some(p) if !p.failed && fmt.parse_error.is_none() => ctx.render_into(p, &mut out),
        _ => {
            out.extend_from_slice(b"[FAILED TO PARSE]");
            for f in &fmt.fields {
                if out.len() >= MAX_OUTPUT {
                    break;
                }
                out.push(b' ');
                out.extend_from_slice(f.name.as_bytes());
                out.push(b'=');
                field_raw(&mut out, &ctx, f);
            }
        }
    }
    // perf writes the buffer with "%.*s": output stops at an embedded NUL.
    let n = crate::reader::until_nul(&out).len();
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmask_and_ipv6() {
        use crate::reader::Endian;
        assert_eq!(bitmask_text(&[0x0f, 0, 0, 0, 1, 0, 0, 0], Endian::Little), "00000001,0000000f");
        assert_eq!(ipv6_compressed(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), "2001:db8::1");
    }

    /// fuzz/regressions/tracepoint/print-fmt-width-oom: 12 bytes of print fmt per megabyte of output.
    #[test]
    fn wide_conversions_are_bounded() {
        use crate::reader::Endian;
        let text = format!(
            "name: t\nID: 1\nformat:\n\tfield:int c;\toffset:0;\tsize:4;\tsigned:1;\n\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n\nprint fmt: \"{}\"{}\n",
            "%1000000d".repeat(100),
            ", REC->x".repeat(100)
        );
        let fmt = Format::parse(text.as_bytes(), "s", Endian::Little, 8).unwrap();
        assert!(fmt.print_parsed());
        let out = render(&fmt, &[1, 0, 0, 0], &|_| None);
        assert!(out.len() <= 2 * MAX_OUTPUT, "{} bytes", out.len());
        assert!(out.len() >= MAX_OUTPUT);
    }
}
