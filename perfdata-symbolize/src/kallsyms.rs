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
            return Some(Line { addr, ty, name, module, tab: tab.is_some() });
        }
        None
    })
}

/// A line of a kallsyms file ([`lines`]).
struct Line<'a> {
    addr: u64,
    ty: u8,
    /// `Err` (its bytes) when not UTF-8 (or cut inside a character).
    name: std::result::Result<&'a str, &'a [u8]>,
    /// The name holds a `[`.
    module: bool,
    /// The name holds a tab (a module symbol's `name\t[module]`).
    tab: bool,
}

/// A symbol of a kallsyms file before it is kept ([`parse`]).
struct Candidate<'a> {
    start: u64,
    end: u64,
    name: std::borrow::Cow<'a, str>,
    binding: Binding,
    module: bool,
    tab: bool,
}

impl super::Ranked for Candidate<'_> {
    fn start(&self) -> u64 {
        self.start
    }

    fn rank(&self) -> (bool, Binding, &str) {
        (self.end > self.start, self.binding, &self.name)
    }
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
    let mut syms: Vec<Candidate<'_>> = Vec::with_capacity(text.len() / 40);
    for Line { addr: start, ty, name, module, tab } in lines(text) {
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
        // Lossy (`U+FFFD` for each bad sequence) when not UTF-8.
        let name = name.map_or_else(String::from_utf8_lossy, std::borrow::Cow::Borrowed);
        syms.push(Candidate { start, end: start, name, binding, module, tab });
    }
    // perf's tree: by start, equal starts in file order. Then the ends (from the last symbol
    // back, each seeing the next one's start), then one symbol per start — all in place.
    syms.sort_by_key(|s| s.start);
    let mut next: Option<(u64, bool)> = None;
    for s in syms.iter_mut().rev() {
        if s.end == s.start {
            s.end = match next {
                Some((_, m)) if m != s.module => roundup(s.end.saturating_add(4096)),
                Some((start, _)) => start,
                None => roundup(s.start).saturating_add(4096),
            };
        }
        next = Some((s.start, s.module));
    }
    // symbols__fixup_duplicate, before any String is made for the symbols it drops.
    super::keep_best(&mut syms, super::Stored::AsIs);
    let mut kernel: Vec<Sym> = Vec::with_capacity(syms.len());
    let mut modules: Vec<ModuleSym> = Vec::new();
    // The module of the symbol before, if that was a module symbol.
    let mut prev_module: Option<String> = None;
    for s in &syms {
        let Some((name, module)) = s.tab.then(|| s.name.split_once('\t')).flatten() else {
            prev_module = None;
            kernel.push(Sym { start: s.start, end: s.end, name: s.name.as_ref().to_owned(), binding: s.binding });
            continue;
        };
        let run_start = prev_module.as_deref() != Some(module);
        if run_start {
            prev_module = Some(module.to_owned());
        }
        let sym = Sym { start: s.start, end: s.end, name: format!("{name}\0{module}"), binding: s.binding };
        modules.push(ModuleSym { module: module.to_owned(), sym, run_start });
    }
    Kallsyms { kernel: SymbolTable::new(kernel), modules }
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
}
