//! JIT symbol files `/tmp/perf-PID.map`: lines `START SIZE NAME` (hex start and size).

use super::{Binding, Sym, SymbolTable};

/// Parse a perf map text (absolute addresses).
pub fn parse(text: &str) -> SymbolTable {
    let mut syms = Vec::new();
    for line in text.lines() {
        let mut it = line.splitn(3, ' ');
        let (Some(a), Some(s), Some(name)) = (it.next(), it.next(), it.next()) else { continue };
        let a = a.trim_start_matches("0x");
        let s = s.trim_start_matches("0x");
        let (Ok(start), Ok(size)) = (u64::from_str_radix(a, 16), u64::from_str_radix(s, 16)) else { continue };
        syms.push(Sym { start, end: start.saturating_add(size), name: name.to_string(), binding: Binding::Global });
    }
    SymbolTable::new(syms)
}
