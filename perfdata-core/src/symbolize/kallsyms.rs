//! `/proc/kallsyms`-format files: `ADDR TYPE NAME [\tMODULE]`, as perf's `kallsyms__parse` reads them.

use super::{Binding, Sym, SymbolTable};

/// Parse a kallsyms text. Like perf, only text, weak, data and bss symbols (`T W D B`, either case)
/// are kept; every symbol ends where the next one starts.
pub fn parse(text: &str) -> SymbolTable {
    let mut syms = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
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
    }
    SymbolTable::new(syms)
}
