//! `/proc/kallsyms`-format files: `ADDR TYPE NAME [\tMODULE]`, as perf's `kallsyms__parse` reads them.

use super::{Binding, Sym, SymbolTable};

/// Parse a kallsyms text. Like perf, only text, weak, data and bss symbols (`T W D B`, either case)
/// are kept; every symbol ends where the next one starts, except that the last symbol before a
/// change between kernel and module symbols (`\t[module]`) ends a page later (perf's
/// `symbols__fixup_end` for kallsyms).
pub fn parse(text: &str) -> SymbolTable {
    let mut syms = Vec::new();
    let mut module = Vec::new();
    for line in text.lines() {
        // kallsyms is ASCII (perf splits on spaces and tabs).
        let mut it = line.split_ascii_whitespace();
        let (Some(addr), Some(ty), Some(name)) = (it.next(), it.next(), it.next()) else { continue };
        let Ok(start) = u64::from_str_radix(addr, 16) else { continue };
        let t = ty.chars().next().unwrap_or(' ');
        if !matches!(t.to_ascii_uppercase(), 'T' | 'W' | 'D' | 'B') {
            continue;
        }
        let binding = if t == 'W' || t == 'w' {
            Binding::Weak
        } else if t.is_ascii_uppercase() {
            Binding::Global
        } else {
            Binding::Local
        };
        syms.push(Sym { start, end: start, name: name.to_string(), binding });
        module.push(it.next().is_some_and(|m| m.starts_with('[')));
    }
    let mut order: Vec<usize> = (0..syms.len()).collect();
    order.sort_by_key(|&i| syms.get(i).map_or(0, |s| s.start));
    for w in order.windows(2) {
        if let [a, b] = *w {
            if module.get(a) != module.get(b) {
                if let Some(s) = syms.get_mut(a) {
                    s.end = s.start.saturating_add(4096).checked_add(4095).map_or(s.start, |e| e & !4095);
                }
            }
        }
    }
    SymbolTable::new(syms)
}

#[cfg(test)]
mod tests {
    #[test]
    fn aliases_and_module_boundaries_like_perf() {
        let t = super::parse(
            "ffffffff821f67c0 T memset\nffffffff821f67c0 T __memset\nffffffff821f67c0 T __pi_memset\n\
             ffffffff821f6800 t next\nffffffffc0001000 t modfn\t[mod]\n",
        );
        // Only the last alias gets a size, so it wins (perf prints __pi_memset).
        assert_eq!(t.find(0xffffffff821f67c4).map(|s| s.name.as_str()), Some("__pi_memset"));
        // `next` ends a page after its start, not at the module symbol.
        assert_eq!(t.find(0xffffffff821f7800).map(|s| s.name.as_str()), Some("next"));
        assert_eq!(t.find(0xffffffff821f8000), None);
        assert_eq!(t.find(0xffffffffc0001010).map(|s| s.name.as_str()), Some("modfn"));
    }
}
