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
fn lines(text: &[u8]) -> Vec<(u64, u8, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    let to_eol = |i: &mut usize| {
        while let Some(&c) = text.get(*i) {
            *i += 1;
            if c == b'\n' {
                break;
            }
        }
    };
    while i < text.len() {
        let mut addr = 0u64;
        let mut digits = 0;
        let after = loop {
            let Some(&c) = text.get(i) else { break None };
            i += 1;
            match (c as char).to_digit(16) {
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
            to_eol(&mut i);
            continue;
        }
        let ty = text.get(i).copied().unwrap_or(0);
        i += 1;
        let sep = text.get(i).copied();
        i += 1;
        if sep != Some(b' ') {
            to_eol(&mut i);
            continue;
        }
        let start = i.min(text.len());
        while i < text.len() && i - start < KSYM_NAME_LEN + 1 {
            if text.get(i) == Some(&b'\n') {
                break;
            }
            i += 1;
        }
        let name = text.get(start..i).unwrap_or(&[]);
        if text.get(i) == Some(&b'\n') {
            i += 1;
        }
        out.push((addr, ty, name));
    }
    out
}

/// Parse a kallsyms text like perf 6.1's `__dso__load_kallsyms`. Only text, weak, data and bss
/// symbols (`T W D B`, either case) are kept, and none whose name starts with `$`; `W` is weak,
/// other capitals global, the rest local. Every symbol ends where the next one starts, except that
/// the last symbol before a change between kernel and module symbols (a `[` in the name) ends a
/// page after its page, as does the very last one. Of symbols at one address, perf's best one
/// stays. Nothing is demangled (perf demangles no kernel symbol by default).
pub fn parse(text: &str) -> Kallsyms {
    let lines = lines(text.as_bytes());
    let mut syms: Vec<Sym> = Vec::with_capacity(lines.len());
    for (start, ty, name) in lines {
        if !matches!(ty.to_ascii_uppercase(), b'T' | b'W' | b'D' | b'B') || name.first() == Some(&b'$') {
            continue;
        }
        let binding = if ty == b'W' {
            Binding::Weak
        } else if ty.is_ascii_uppercase() {
            Binding::Global
        } else {
            Binding::Local
        };
        syms.push(Sym { start, end: start, name: String::from_utf8_lossy(name).into_owned(), binding });
    }
    // perf's tree: by start, equal starts in file order. Then the ends (from the last symbol
    // back, each seeing the next one's start), then one symbol per start — all in place.
    syms.sort_by_key(|s| s.start);
    let mut next: Option<(u64, bool)> = None;
    for s in syms.iter_mut().rev() {
        let module = s.name.contains('[');
        if s.end == s.start {
            s.end = match next {
                Some((_, m)) if m != module => roundup(s.end.saturating_add(4096)),
                Some((start, _)) => start,
                None => roundup(s.start).saturating_add(4096),
            };
        }
        next = Some((s.start, module));
    }
    super::keep_best(&mut syms, super::Stored::AsIs);
    let mut modules: Vec<ModuleSym> = Vec::new();
    // The module of the symbol before, if that was a module symbol.
    let mut prev_module: Option<String> = None;
    syms.retain_mut(|s| {
        let Some((name, module)) = s.name.split_once('\t') else {
            prev_module = None;
            return true;
        };
        let run_start = prev_module.as_deref() != Some(module);
        if run_start {
            prev_module = Some(module.to_string());
        }
        let module = prev_module.clone().unwrap_or_default();
        let sym = Sym { start: s.start, end: s.end, name: format!("{name}\0{module}"), binding: s.binding };
        modules.push(ModuleSym { module, sym, run_start });
        false
    });
    Kallsyms { kernel: SymbolTable::new(syms), modules }
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
}
