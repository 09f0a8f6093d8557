//! Demangles the symbol on each line of stdin as perf prints it (`perfdata_symbolize::demangle`),
//! one line out per line in: the input of bench/demangle-compare.sh. `--which` prints which
//! demangler this build uses (libiberty, or the pure-Rust fallback).
//!
//! ```text
//! echo _ZNSt6vectorIiSaIiEE9push_backERKi | cargo run --example demangle
//! std::vector<int, std::allocator<int> >::push_back
//! ```

use std::io::{BufRead, BufWriter, Write};

fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--which") {
        println!("{}", perfdata_symbolize::DEMANGLER);
        return Ok(());
    }
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        writeln!(out, "{}", perfdata_symbolize::demangle(&line?))?;
    }
    out.flush()
}
