//! `/proc/kallsyms`-format files (`ADDR TYPE NAME[\t[MODULE]]`), read the way perf 6.1 loads them
//! for the kernel dso: `kallsyms__parse`, `symbols__fixup_end` with its kallsyms rule,
//! `symbols__fixup_duplicate`, then the module symbols set apart for `maps__split_kallsyms`
//! (see [`super::kmod`]).

use super::{Binding, Sym, SymbolTable};

/// perf 6.1's `KSYM_NAME_LEN`: a name is read up to this many bytes plus one.
const KSYM_NAME_LEN: usize = 512;

/// One module symbol of a kallsyms file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleSym {
    /// The module as written after the tab (`[name]`).
    pub module: String,
    /// The symbol, at its kallsyms address, with the end perf gives it. Its name keeps the
    /// module after a NUL (`name\0[module]`): perf cuts the tab to a NUL but keeps the name's
    /// length, so its C strings stop at the NUL and its Python binding shows both parts.
    pub sym: Sym,
    /// The symbol before it (by address) is a kernel symbol or another module's: perf looks the
    /// module's map up again here (and drops this symbol if the module is already loaded).
    pub run_start: bool,
}

/// The symbols of a kallsyms file.
#[derive(Clone, Debug, Default)]
pub struct Kallsyms {
    /// The kernel's own symbols.
    pub kernel: SymbolTable,
    /// Module symbols by address.
    pub modules: Vec<ModuleSym>,
}

impl Kallsyms {
    /// Where perf's kernel map lies once these symbols are loaded (`map__fixup_start` and
    /// `map__fixup_end`): from the first kernel symbol to the end of the last. `None` without
    /// kernel symbols (perf then keeps the map the MMAP record gave).
    pub fn kernel_extent(&self) -> Option<(u64, u64)> {
        Some((self.kernel.first()?.start, self.kernel.last()?.end))
    }
}

/// perf's `kallsyms__parse` over `text`: (address, type, name) per line. Its quirks are kept: the
/// address is hex digits up to the first other character, which must be a space; after the type
/// another space; the name runs to the end of the line (at most `KSYM_NAME_LEN + 1` bytes, the
/// rest of a longer line then parses as a line of its own). A line that does not fit is skipped
/// to its end, and a line that is empty (or starts with no hex digit) takes the next line with it.
/// Each name comes with whether it holds a `[` (a module symbol's, see [`parse`]) or a tab.
fn lines(bytes: &[u8]) -> impl Iterator<Item = Line<'_>> {
    // A text valid as a whole (a real kallsyms file is ASCII) has valid names wherever they are
    // cut at character boundaries: checked once here, not per name.
    let whole = std::str::from_utf8(bytes).ok();
    let mut i = 0;
    // Past the next newline (or to the end).
    let to_eol =
        move |i: usize| bytes.get(i..).and_then(|rest| memchr::memchr(b'\n', rest)).map_or(bytes.len(), |n| i + n + 1);
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let mut addr = 0u64;
            let mut digits = 0;
            let after = loop {
                let Some(&c) = bytes.get(i) else { break None };
                i += 1;
                let digit = match c {
                    b'0'..=b'9' => Some(c - b'0'),
                    b'a'..=b'f' => Some(c - b'a' + 10),
                    b'A'..=b'F' => Some(c - b'A' + 10),
                    _ => None,
                };
                match digit {
                    Some(d) => {
                        addr = (addr << 4) | u64::from(d);
                        digits += 1;
                    }
                    // perf's io__get_hex: no digit at all is an error (the character is used up).
                    None if digits == 0 => break None,
                    None => break Some(c),
                }
            };
            if after != Some(b' ') {
                i = to_eol(i);
                continue;
            }
            let ty = bytes.get(i).copied().unwrap_or(0);
            let sep = bytes.get(i + 1).copied();
            i += 2;
            if sep != Some(b' ') {
                i = to_eol(i);
                continue;
            }
            let start = i.min(bytes.len());
            let limit = start.saturating_add(KSYM_NAME_LEN + 1).min(bytes.len());
            let window = bytes.get(start..limit).unwrap_or(&[]);
            // One pass to the line's end, noting a `[` and the first tab on the way.
            let (mut end, mut module, mut tab) = (limit, false, None);
            for n in memchr::memchr3_iter(b'\n', b'[', b'\t', window) {
                match window.get(n) {
                    Some(b'\n') => {
                        end = start + n;
                        break;
                    }
                    Some(b'[') => module = true,
                    _ => {
                        tab.get_or_insert(n);
                    }
                }
            }
            let raw = bytes.get(start..end).unwrap_or(&[]);
            let name = match whole.and_then(|t| t.get(start..end)) {
                Some(n) => Ok(n),
                None => std::str::from_utf8(raw).map_err(|_| raw),
            };
            i = if bytes.get(end) == Some(&b'\n') { end + 1 } else { end };
            return Some(Line { addr, ty, at: start, name, module, tab: tab.is_some() });
        }
        None
    })
}

/// A line of a kallsyms file ([`lines`]).
struct Line<'a> {
    addr: u64,
    ty: u8,
    /// Where the name starts in the text.
    at: usize,
    /// `Err` (its bytes) when not UTF-8 (or cut inside a character).
    name: std::result::Result<&'a str, &'a [u8]>,
    /// The name holds a `[`.
    module: bool,
    /// The name holds a tab (a module symbol's `name\t[module]`).
    tab: bool,
}

/// A symbol of a kallsyms file whose name stays in the text it was read from ([`Compact`]):
/// no `String` per symbol. A kernel has over 100 K symbols: for a 122 K-line file, making their
/// `String`s (and faulting in the fresh memory they took) was 29 M of the 99 M instructions of
/// reading it, and freeing them 19 M more.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u64,
    end: u64,
    /// Where the name is: in the text, or (`LOSSY`) in [`Compact::lossy`].
    name: usize,
    /// The name's length in bytes (at most `KSYM_NAME_LEN + 1` bytes of text, each at most 3 as
    /// `U+FFFD`).
    len: u16,
    binding: Binding,
    flags: u8,
}

/// [`Entry::flags`]: the name holds a `[` (a module symbol's, see [`parse`]).
const MODULE: u8 = 1;
/// [`Entry::flags`]: the name holds a tab (a module symbol's `name\t[module]`).
const TAB: u8 = 2;
/// [`Entry::flags`]: the name was not UTF-8 and is kept lossily in [`Compact::lossy`].
const LOSSY: u8 = 4;

impl Entry {
    /// The name, in `text` (the text parsed) or `lossy`.
    fn name<'t>(&self, text: &'t [u8], lossy: &'t str) -> &'t str {
        let range = self.name..self.name.saturating_add(usize::from(self.len));
        if self.flags & LOSSY != 0 {
            return lossy.get(range).unwrap_or("");
        }
        // Checked when the entry was made; checked again here only for the few names asked for.
        text.get(range).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("")
    }

    fn rank<'t>(&self, text: &'t [u8], lossy: &'t str) -> (bool, Binding, &'t str) {
        (self.end > self.start, self.binding, self.name(text, lossy))
    }
}

/// The symbols of a kallsyms text, with the kernel's names left in that text.
#[derive(Clone, Debug, Default)]
struct Compact {
    /// The kernel's own symbols by start, one per start.
    kernel: Vec<Entry>,
    /// The names that were not UTF-8, made valid (`U+FFFD` for each bad sequence).
    lossy: String,
    /// Module symbols by address.
    modules: Vec<ModuleSym>,
}

/// [`parse`]'s work, over the text's bytes: the kernel's symbols are [`Entry`]s naming their
/// names in `text`.
fn compact(text: &[u8]) -> Compact {
    let mut syms: Vec<Entry> = Vec::with_capacity(text.len() / 40);
    let mut lossy = String::new();
    for Line { addr: start, ty, at, name, module, tab } in lines(text) {
        let first = match name {
            Ok(n) => n.as_bytes().first(),
            Err(b) => b.first(),
        };
        if !matches!(ty.to_ascii_uppercase(), b'T' | b'W' | b'D' | b'B') || first == Some(&b'$') {
            continue;
        }
        let binding = if ty == b'W' {
            Binding::Weak
        } else if ty.is_ascii_uppercase() {
            Binding::Global
        } else {
            Binding::Local
        };
        let mut flags = if module { MODULE } else { 0 } | if tab { TAB } else { 0 };
        let (at, len) = match name {
            Ok(n) => (at, n.len()),
            Err(raw) => {
                flags |= LOSSY;
                let at = lossy.len();
                lossy.push_str(&String::from_utf8_lossy(raw));
                (at, lossy.len() - at)
            }
        };
        let len = u16::try_from(len).unwrap_or(u16::MAX);
        syms.push(Entry { start, end: start, name: at, len, binding, flags });
    }
    // perf's tree: by start, equal starts in file order. Then the ends (from the last symbol
    // back, each seeing the next one's start), then one symbol per start — all in place.
    syms.sort_by_key(|s| s.start);
    let mut next: Option<(u64, bool)> = None;
    for s in syms.iter_mut().rev() {
        let module = s.flags & MODULE != 0;
        if s.end == s.start {
            s.end = match next {
                Some((_, m)) if m != module => roundup(s.end.saturating_add(4096)),
                Some((start, _)) => start,
                None => roundup(s.start).saturating_add(4096),
            };
        }
        next = Some((s.start, module));
    }
    // symbols__fixup_duplicate.
    syms.dedup_by(|s, last| {
        if last.start != s.start {
            return false;
        }
        if !super::better_ranked(last.rank(text, &lossy), s.rank(text, &lossy), super::Stored::AsIs) {
            std::mem::swap(last, s);
        }
        true
    });
    let mut modules: Vec<ModuleSym> = Vec::new();
    // The module of the symbol before, if that was a module symbol.
    let mut prev_module: Option<String> = None;
    syms.retain(|s| {
        let split = (s.flags & TAB != 0).then(|| s.name(text, &lossy).split_once('\t')).flatten();
        let Some((name, module)) = split else {
            prev_module = None;
            return true;
        };
        let run_start = prev_module.as_deref() != Some(module);
        if run_start {
            prev_module = Some(module.to_owned());
        }
        let sym = Sym { start: s.start, end: s.end, name: format!("{name}\0{module}"), binding: s.binding };
        modules.push(ModuleSym { module: module.to_owned(), sym, run_start });
        false
    });
    Compact { kernel: syms, lossy, modules }
}

/// Parse a kallsyms text like perf 6.1's `__dso__load_kallsyms`. Only text, weak, data and bss
/// symbols (`T W D B`, either case) are kept, and none whose name starts with `$`; `W` is weak,
/// other capitals global, the rest local. Every symbol ends where the next one starts, except that
/// the last symbol before a change between kernel and module symbols (a `[` in the name) ends a
/// page after its page, as does the very last one. Of symbols at one address, perf's best one
/// stays. Nothing is demangled (perf demangles no kernel symbol by default).
pub fn parse(text: &str) -> Kallsyms {
    parse_bytes(text.as_bytes())
}

/// [`parse`] of a file's bytes, which need not be UTF-8 (perf reads C strings): a name that is
/// not is kept lossily (`U+FFFD` for each bad sequence).
pub fn parse_bytes(text: &[u8]) -> Kallsyms {
    let Compact { kernel, lossy, modules } = compact(text);
    let kernel = kernel
        .iter()
        .map(|s| Sym { start: s.start, end: s.end, name: s.name(text, &lossy).to_owned(), binding: s.binding })
        .collect();
    // Already sorted, one per start, with perf's ends: nothing for `SymbolTable::new` to change.
    Kallsyms { kernel: SymbolTable::new(kernel), modules }
}

/// The kernel's symbols as [`crate::Symbolizer`] keeps them: [`parse_bytes`]'s, with the kernel's
/// names left in the text they were read from.
pub(crate) struct KernelSyms {
    text: crate::binary::Bytes,
    table: Compact,
}

impl KernelSyms {
    /// Parse `text` ([`parse_bytes`]).
    pub(crate) fn parse(text: crate::binary::Bytes) -> KernelSyms {
        let table = compact(text.as_slice());
        KernelSyms { text, table }
    }

    /// The kernel symbol whose `[start, end)` holds `addr`: name, start, end.
    pub(crate) fn find(&self, addr: u64) -> Option<(&str, u64, u64)> {
        let syms = &self.table.kernel;
        let i = syms.partition_point(|s| s.start <= addr);
        let s = syms.get(i.checked_sub(1)?)?;
        (addr < s.end).then(|| (s.name(self.text.as_slice(), &self.table.lossy), s.start, s.end))
    }

    /// Every address is zero: the kernel hid them (`kptr_restrict`) from whoever read the file.
    pub(crate) fn addresses_hidden(&self) -> bool {
        let (kernel, modules) = (&self.table.kernel, &self.table.modules);
        (!kernel.is_empty() || !modules.is_empty())
            && kernel.iter().all(|s| s.start == 0)
            && modules.iter().all(|m| m.sym.start == 0)
    }

    /// The module symbols ([`Kallsyms::modules`]).
    pub(crate) fn modules(&self) -> &[ModuleSym] {
        &self.table.modules
    }

    /// [`Kallsyms::kernel_extent`].
    pub(crate) fn kernel_extent(&self) -> Option<(u64, u64)> {
        Some((self.table.kernel.first()?.start, self.table.kernel.last()?.end))
    }

    /// The kernel symbols' names, by start.
    #[cfg(test)]
    pub(crate) fn names(&self) -> Vec<String> {
        self.table.kernel.iter().map(|s| s.name(self.text.as_slice(), &self.table.lossy).to_owned()).collect()
    }
}

/// `roundup(addr, 4096)`.
fn roundup(addr: u64) -> u64 {
    super::roundup_page(addr)
}

#[cfg(test)]
mod tests {
    fn names(k: &super::Kallsyms) -> Vec<(String, u64, u64, bool)> {
        k.modules.iter().map(|m| (m.sym.name.clone(), m.sym.start, m.sym.end, m.run_start)).collect()
    }

    #[test]
    fn aliases_and_module_boundaries_like_perf() {
        let k = super::parse(
            "ffffffff821f67c0 T memset\nffffffff821f67c0 T __memset\nffffffff821f67c0 T __pi_memset\n\
             ffffffff821f6800 t next\nffffffffc0001000 t modfn\t[mod]\n",
        );
        let t = &k.kernel;
        // Only the last alias gets a size, so it wins (perf prints __pi_memset).
        assert_eq!(t.find(0xffffffff821f67c4).map(|s| s.name.as_str()), Some("__pi_memset"));
        // `next` ends a page after its start, not at the module symbol.
        assert_eq!(t.find(0xffffffff821f7800).map(|s| s.name.as_str()), Some("next"));
        assert_eq!(t.find(0xffffffff821f8000), None);
        // Module symbols are not the kernel's; the last one ends a page after its page.
        assert_eq!(t.find(0xffffffffc0001010), None);
        assert_eq!(names(&k), vec![("modfn\0[mod]".into(), 0xffffffffc0001000, 0xffffffffc0002000, true)]);
        assert_eq!(k.kernel_extent(), Some((0xffffffff821f67c0, 0xffffffff821f8000)));
    }

    #[test]
    fn module_runs_and_types() {
        let k = super::parse(
            "c000 t a\t[m1]\nc100 r ro\t[m1]\nc200 w weak\t[m1]\nc300 t b\t[m2]\nc400 T $x\t[m2]\nc500 t c\t[m1]\n",
        );
        assert_eq!(
            names(&k),
            vec![
                ("a\0[m1]".into(), 0xc000, 0xc200, true),
                ("weak\0[m1]".into(), 0xc200, 0xc300, false),
                ("b\0[m2]".into(), 0xc300, 0xc500, true),
                ("c\0[m1]".into(), 0xc500, 0xe000, true),
            ]
        );
        // Lowercase `w` is local to perf.
        assert_eq!(k.modules.get(1).map(|m| m.sym.binding), Some(super::Binding::Local));
    }

    /// perf's reader: an empty line swallows the next one; a line whose address is not followed
    /// by a space is skipped; a name may contain spaces.
    #[test]
    fn line_quirks_like_kallsyms_parse() {
        let k = super::parse("ffff0000 T a\n\nffff0010 T lost\nffff0020\tT tab\nffff0030 T with space\n");
        let names: Vec<&str> = k.kernel.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "with space"]);
        let long = format!("ffff0000 T {}\n", "x".repeat(600));
        let k = super::parse(&long);
        assert_eq!(k.kernel.iter().map(|s| s.name.len()).collect::<Vec<_>>(), [513]);
    }

    /// A name cut at perf's length inside a character is kept as its bytes (lossily), and the
    /// line's rest is read as a line of its own; a `[` without a tab makes a symbol end as a
    /// module symbol's neighbour does, and a tab without a `[` still splits a module symbol off.
    #[test]
    fn cut_characters_brackets_and_tabs() {
        // 512 ASCII bytes, then `é` (2 bytes): byte 513 is its first half.
        let text =
            format!("ffff0000 T {}é\nffff1000 T arr[2]\nffff1010 T next\nffff2000 t odd\tname\n", "x".repeat(512));
        let k = super::parse(&text);
        let kernel: Vec<(String, u64, u64)> = k.kernel.iter().map(|s| (s.name.clone(), s.start, s.end)).collect();
        assert_eq!(
            kernel,
            [
                (format!("{}\u{fffd}", "x".repeat(512)), 0xffff0000, 0xffff1000),
                // `arr[2]` reads as a module symbol's name: it ends a page past its page, not at
                // the start of the kernel symbol after it, as the one before it does.
                ("arr[2]".into(), 0xffff1000, 0xffff2000),
                ("next".into(), 0xffff1010, 0xffff2000),
            ]
        );
        // The cut's other half (`\xa9`) is a line with no address: skipped.
        assert_eq!(names(&k), [("odd\0name".into(), 0xffff2000, 0xffff3000, true)]);
    }

    /// The symbolizer's table (names left in the text, lossy ones apart) answers as the
    /// [`super::Kallsyms`] of the same text, at every start, end and address between.
    #[test]
    fn kernel_table_finds_what_parse_finds() {
        // A name cut inside `é` at perf's length (lossy), one with bytes that are no UTF-8.
        let mut text = format!("ffff0000 T {}é\n", "x".repeat(512)).into_bytes();
        text.extend_from_slice(b"ffff1000 T arr[2]\nffff1010 t bad\xff\xfename\nffff1010 T alias\nffff1020 W w\n");
        text.extend_from_slice(b"ffff1030 T \nffff2000 t odd\tname\nffff3000 T after_module\n");
        let k = super::parse_bytes(&text);
        let table = super::KernelSyms::parse(crate::binary::Bytes::Owned(text));
        assert_eq!(table.names(), k.kernel.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
        assert!(table.names().iter().any(|n| n.contains('\u{fffd}')), "{:?}", table.names());
        assert_eq!(table.kernel_extent(), k.kernel_extent());
        assert_eq!(table.modules(), &k.modules[..]);
        for s in k.kernel.iter() {
            for addr in [s.start.wrapping_sub(1), s.start, s.start + 1, s.end - 1, s.end] {
                let want = k.kernel.find(addr).map(|s| (s.name.as_str(), s.start, s.end));
                assert_eq!(table.find(addr), want, "{addr:#x}");
            }
        }
    }
}
