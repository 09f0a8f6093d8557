//! `perf annotate --stdio`: each instruction of a symbol with its share of the symbol's samples,
//! disassembled by objdump run as perf 6.1 runs it, with the source lines objdump interleaves from
//! the binary's DWARF line tables.
//!
//! perf 6.1 counts every sample of an event in the symbol its ip resolves to, at the ip's offset
//! in the symbol; an instruction gets the samples from its address up to the next instruction's
//! (the symbol's end for the last). Its percentage is of the symbol's samples or event count
//! (`local`), or of the event's (`global`), by samples (`hits`) or event count (`period`), as
//! [`PercentType`] says. Kernel symbols are not annotated: perf needs a vmlinux for them.

use crate::options::{in_ranges, FoldedOptions};
use crate::stacks::StackFolder;
use crate::{Error, Result};
use perfdata_core::record::CpuMode;
use perfdata_core::{Order, PerfFile, RecordKind};
use perfdata_symbolize::inline::DebugInfo;
use perfdata_symbolize::{FastMap, SrcLine};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::PathBuf;
use std::rc::Rc;

/// What an instruction's percentage is of (perf's `--percent-type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PercentType {
    /// The symbol's event count (perf's default `local-period`).
    #[default]
    LocalPeriod,
    /// The event's count over all samples (`global-period`; with a symbol named, perf 6.1 keeps
    /// only that symbol's samples, so this equals `local-period`).
    GlobalPeriod,
    /// The symbol's samples (`local-hits`).
    LocalHits,
    /// The event's samples (`global-hits`). perf 6.1 counts none in `perf annotate` (its
    /// histogram's unfiltered sample count stays 0), so every instruction shows 0.00 — as here.
    GlobalHits,
}

impl PercentType {
    /// The type perf's `--percent-type` names (`local-period`, `global-period`, `local-hits`,
    /// `global-hits`; perf also takes the halves in the other order, e.g. `period-local`).
    pub fn parse(s: &str) -> Option<PercentType> {
        let mut parts: Vec<&str> = s.split('-').collect();
        parts.sort_unstable();
        Some(match parts.as_slice() {
            ["local", "period"] => PercentType::LocalPeriod,
            ["global", "period"] => PercentType::GlobalPeriod,
            ["hits", "local"] => PercentType::LocalHits,
            ["global", "hits"] => PercentType::GlobalHits,
            _ => return None,
        })
    }

    /// perf's words for it in the header (`local period`).
    pub fn name(self) -> &'static str {
        match self {
            PercentType::LocalPeriod => "local period",
            PercentType::GlobalPeriod => "global period",
            PercentType::LocalHits => "local hits",
            PercentType::GlobalHits => "global hits",
        }
    }
}

/// What [`annotate`] does.
#[derive(Clone, Debug)]
pub struct AnnotateOptions {
    /// Only the symbols of this name (perf's `SYMBOL` argument); `None`: every symbol with
    /// samples, hottest first.
    pub symbol: Option<String>,
    /// Where binaries are found (`fold.symbolize`) and which samples count (`fold.time`).
    pub fold: FoldedOptions,
    /// What the percentages are of.
    pub percent_type: PercentType,
    /// The objdump to run (perf's `--objdump`; default `objdump` from `PATH`).
    pub objdump: PathBuf,
    /// Prepended to the source files' paths objdump looks for (perf's `--prefix`).
    pub prefix: Option<String>,
    /// Leading directories taken off the source files' paths before the prefix (perf's
    /// `--prefix-strip`).
    pub prefix_strip: Option<u32>,
    /// Leave out the symbols whose share of their event's count is under this percentage
    /// (perf's `--percent-limit`; 0: none left out). With [`AnnotateOptions::symbol`] the share
    /// is of that symbol's samples only, as in perf 6.1: 100 for each symbol of that name alone.
    pub percent_limit: f32,
    /// objdump's disassembler options (perf's `-M`/`--disassembler-style`, e.g. `intel`),
    /// passed on as `-M STYLE`.
    pub disassembler_style: Option<String>,
    /// Each instruction's bytes before it (perf's `--asm-raw`: objdump without
    /// `--no-show-raw-insn`).
    pub asm_raw: bool,
    /// Give each instruction over 0.5 percent its source line ([`AnnotatedLine::srcline`],
    /// perf's `--print-line`).
    pub print_line: bool,
}

impl Default for AnnotateOptions {
    fn default() -> Self {
        AnnotateOptions {
            symbol: None,
            fold: FoldedOptions::default(),
            percent_type: PercentType::default(),
            objdump: PathBuf::from("objdump"),
            prefix: None,
            prefix_strip: None,
            percent_limit: 0.0,
            disassembler_style: None,
            asm_raw: false,
            print_line: false,
        }
    }
}

/// The samples of one symbol for one event: what [`disassemble`] annotates.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolSamples {
    /// The event's index in `PerfFile::events`.
    pub event: usize,
    /// The event's name (perf's `for cpu-clock`).
    pub event_name: String,
    /// perf's name of the shared object (its path, `[kernel.kallsyms]`).
    pub dso: String,
    /// The symbol's name.
    pub symbol: String,
    /// The symbol's first address, as objdump shows it (the ELF virtual address).
    pub start: u64,
    /// One past its last address.
    pub end: u64,
    /// The symbol's samples.
    pub samples: u64,
    /// Their event count.
    pub period: u64,
    /// Samples and event count by offset in the symbol.
    pub hits: BTreeMap<u64, (u64, u64)>,
    /// The event's samples and event count that global percentages are of (perf 6.1: every
    /// sample of the event, only the named symbol's with [`AnnotateOptions::symbol`]).
    pub event_total: (u64, u64),
    /// The file objdump reads, or why there is none (a kernel symbol, a binary not found).
    pub binary: std::result::Result<PathBuf, String>,
}

/// One line of an annotation: an instruction, or a line of objdump's other text (source lines,
/// labels, blank lines).
#[derive(Clone, Debug, PartialEq)]
pub struct AnnotatedLine {
    /// The instruction's address (objdump's); `None` for other text.
    pub address: Option<u64>,
    /// The instruction as objdump prints it (tabs expanded), or the text line.
    pub text: String,
    /// perf's line number column for text lines: the source line number of objdump's last
    /// `file:line` line, counted on by one per line since.
    pub line_nr: i64,
    /// The instruction's samples (those from its address to the next instruction's).
    pub samples: u64,
    /// Their event count.
    pub period: u64,
    /// The instruction's percentage ([`PercentType`]); 0 for text lines.
    pub percent: f64,
    /// The source file objdump named last before the instruction (`-l`).
    pub source_file: Option<String>,
    /// Its line number.
    pub source_line: Option<u32>,
    /// With [`AnnotateOptions::print_line`], for an instruction over 0.5 percent: its source
    /// line as perf's `--print-line` names it (`spin.c:31`: the first `addr2line -i` record's
    /// file name and line; `spin[1249]` when there is none).
    pub srcline: Option<String>,
}

/// A symbol's annotation: its samples and objdump's lines with their shares.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// The symbol and its samples.
    pub symbol: SymbolSamples,
    /// What the percentages are of.
    pub percent_type: PercentType,
    /// The lines, as objdump printed them (less its `file format` line and `file:line` lines).
    pub lines: Vec<AnnotatedLine>,
}

/// Identity of a symbol's histogram: event, shared object, symbol name, start, end.
type SymKey = (usize, Rc<str>, Rc<str>, u64, u64);

/// Remembered addresses before [`symbol_samples`] forgets them all (a long system-wide
/// recording's orphaned generations accumulate): about 60 bytes each.
const SEEN_MAX: usize = 1 << 20;

/// Where a sample's address lands for perf annotate.
#[derive(Clone, Copy)]
enum Landing {
    /// In no named symbol.
    Unnamed,
    /// In a symbol of another name than the one asked for.
    Other,
    /// In the symbol of histogram number `at`: counted when `inside` it, at offset `off` from
    /// its start (`None`: its binary could not be read, so there are no per-instruction hits).
    Symbol { at: usize, inside: bool, off: Option<u64> },
}

/// Resolve address `ip` of process `pid` (`kernel`: a kernel address), sampled by event
/// `event`, for [`symbol_samples`]: the histogram it counts in (made in `syms` the first time,
/// numbered in order of appearance, its number kept by key), if any.
#[allow(clippy::too_many_arguments)]
fn land(
    folder: &mut StackFolder<'_>,
    (syms, by_key): (&mut Vec<SymbolSamples>, &mut HashMap<SymKey, usize>),
    opts: &AnnotateOptions,
    names: &[String],
    event: usize,
    pid: u32,
    kernel: bool,
    ip: u64,
) -> Landing {
    let f = folder.locate(pid, kernel, ip);
    let (Some(name), Some(start), Some(end)) = (f.symbol.as_deref(), f.start, f.end) else {
        return Landing::Unnamed;
    };
    let name: Rc<str> = name.split('\0').next().unwrap_or(name).into();
    if opts.symbol.as_deref().is_some_and(|want| want != &*name) {
        return Landing::Other;
    }
    // The sample's address as objdump shows it: the ELF virtual address for a binary, the
    // address itself in the kernel.
    let (addr, binary) = if kernel {
        (ip, Err("a kernel symbol: perf annotates it only from a vmlinux".to_string()))
    } else {
        match folder.binary_at(pid, ip) {
            Some((Ok(b), off)) => (b.offset_to_vaddr(off), Ok(b.path().to_path_buf())),
            Some((Err(e), _)) => (u64::MAX, Err(e.to_string())),
            None => (u64::MAX, Err("no map".to_string())),
        }
    };
    let at = *by_key.entry((event, f.dso.clone(), name.clone(), start, end)).or_insert_with(|| {
        let at = syms.len();
        syms.push(SymbolSamples {
            event,
            event_name: names.get(event).cloned().unwrap_or_default(),
            dso: f.dso.to_string(),
            symbol: name.to_string(),
            start,
            end,
            samples: 0,
            period: 0,
            hits: BTreeMap::new(),
            event_total: (0, 0),
            binary,
        });
        at
    });
    let readable = syms.get(at).is_some_and(|e| e.binary.is_ok());
    Landing::Symbol {
        at,
        inside: (start..end).contains(&addr) || !readable,
        off: addr.checked_sub(start).filter(|_| readable),
    }
}

/// The symbols with samples, per event in the file's order, hottest first within an event (perf
/// annotate's order: event count, then shared object and symbol name); only those named
/// [`AnnotateOptions::symbol`] when it is set. Unresolved addresses are left out.
pub fn symbol_samples(file: &PerfFile, opts: &AnnotateOptions) -> Result<Vec<SymbolSamples>> {
    let mut folder = StackFolder::new(file, &opts.fold);
    let ranges = crate::stacks::time_ranges(file, &opts.fold)?;
    // The histograms in order of appearance, and their numbers by symbol.
    let mut syms: Vec<SymbolSamples> = Vec::new();
    let mut by_key: HashMap<SymKey, usize> = HashMap::new();
    let mut totals: HashMap<usize, (u64, u64)> = HashMap::new();
    let names: Vec<String> = file.events().iter().map(|e| e.display_name()).collect();
    // What each address came to, by address space, its generation and the address: most
    // samples repeat an address seen before, and resolving one again would give the same.
    let mut seen: FastMap<(u32, u32, usize, u64), Landing> = FastMap::default();
    for r in file.records(Order::Time)? {
        let Ok(r) = r else { continue };
        folder.record(&r);
        let RecordKind::Sample(s) = &r.kind else { continue };
        let Some(ev) = r.event else { continue };
        if !in_ranges(&ranges, s.time().unwrap_or(0)) {
            continue;
        }
        let period = s.period_or_attr();
        let pid = s.pid().unwrap_or(u32::MAX);
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let ip = s.ip().unwrap_or(0);
        let (space, generation) = folder.space_key(pid, kernel);
        let key = (space, generation, ev.index, ip);
        let landing = match seen.get(&key) {
            Some(&l) => l,
            None => {
                if seen.len() >= SEEN_MAX {
                    seen.clear();
                }
                let l = land(&mut folder, (&mut syms, &mut by_key), opts, &names, ev.index, pid, kernel, ip);
                seen.insert(key, l);
                l
            }
        };
        match landing {
            // perf 6.1 drops a sample outside the named symbol before it counts it.
            Landing::Unnamed if opts.symbol.is_none() => add(totals.entry(ev.index).or_default(), period),
            Landing::Unnamed | Landing::Other => {}
            Landing::Symbol { at, inside, off } => {
                add(totals.entry(ev.index).or_default(), period);
                // perf's histogram takes only addresses inside the symbol.
                if let (true, Some(e)) = (inside, syms.get_mut(at)) {
                    e.samples += 1;
                    e.period = e.period.saturating_add(period);
                    if let Some(off) = off {
                        let h = e.hits.entry(off).or_default();
                        h.0 += 1;
                        h.1 = h.1.saturating_add(period);
                    }
                }
            }
        }
    }
    for s in &mut syms {
        s.event_total = totals.get(&s.event).copied().unwrap_or_default();
    }
    let short = |d: &str| d.rsplit('/').next().unwrap_or(d).to_string();
    // A stable sort: ties stay in order of appearance.
    syms.sort_by(|a, b| {
        a.event
            .cmp(&b.event)
            .then(b.period.cmp(&a.period))
            .then_with(|| short(&a.dso).cmp(&short(&b.dso)))
            .then_with(|| a.symbol.cmp(&b.symbol))
    });
    Ok(syms)
}

/// Add one sample of `period` to a (samples, event count) pair.
fn add(t: &mut (u64, u64), period: u64) {
    t.0 += 1;
    t.1 = t.1.saturating_add(period);
}

/// The arguments perf 6.1 gives objdump for a symbol's addresses in `binary` (`-M STYLE` first;
/// `--no-show-raw-insn` unless [`AnnotateOptions::asm_raw`]).
pub fn objdump_args(sym: &SymbolSamples, binary: &std::path::Path, opts: &AnnotateOptions) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    if let Some(style) = &opts.disassembler_style {
        args.push("-M".into());
        args.push(style.into());
    }
    args.push(format!("--start-address=0x{:016x}", sym.start).into());
    args.push(format!("--stop-address=0x{:016x}", sym.end).into());
    args.push("-l".into());
    args.push("-d".into());
    if !opts.asm_raw {
        args.push("--no-show-raw-insn".into());
    }
    args.push("-S".into());
    if let Some(p) = &opts.prefix {
        args.push("--prefix".into());
        args.push(p.into());
    }
    if let Some(n) = opts.prefix_strip {
        args.push(format!("--prefix-strip={n}").into());
    }
    args.push("-C".into());
    args.push(binary.into());
    args
}

/// Run objdump on `sym`'s binary and lay its samples onto the instructions. Errors: the symbol
/// has no binary ([`Error::Missing`]), objdump cannot be started ([`Error::Io`] with its path) or
/// prints no line ([`Error::Disassembly`]).
pub fn disassemble(sym: &SymbolSamples, opts: &AnnotateOptions) -> Result<Annotation> {
    disassemble_with(sym, opts, &mut HashMap::new())
}

/// [`disassemble`], with the debug info of the binaries read so far (for `print_line`).
fn disassemble_with(sym: &SymbolSamples, opts: &AnnotateOptions, debug: &mut DebugCache) -> Result<Annotation> {
    let binary = sym
        .binary
        .as_ref()
        .map_err(|why| Error::Missing(format!("cannot annotate {} in {}: {why}", sym.symbol, sym.dso)))?;
    let out = std::process::Command::new(&opts.objdump)
        .args(objdump_args(sym, binary, opts))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|source| Error::Io { path: opts.objdump.clone(), source })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let lines = parse_objdump(&text, &binary.to_string_lossy(), sym);
    if lines.is_empty() {
        return Err(Error::Disassembly(format!(
            "no output from {} for {} in {} ({})",
            opts.objdump.display(),
            sym.symbol,
            binary.display(),
            out.status
        )));
    }
    let mut a = Annotation { symbol: sym.clone(), percent_type: opts.percent_type, lines };
    shares(&mut a);
    if opts.print_line {
        let info = debug
            .entry(binary.clone())
            .or_insert_with(|| Rc::new(perfdata_symbolize::Binary::open(binary).map(|b| DebugInfo::load(&b))));
        source_lines(&mut a, info.as_ref().as_ref());
    }
    Ok(a)
}

/// The debug info of each binary read for source lines (`None`: it could not be read).
type DebugCache = HashMap<PathBuf, Rc<Option<DebugInfo>>>;

/// perf's `--print-line` source line of each instruction over 0.5 percent: what its
/// `get_srcline` gives for the instruction's address, the first `addr2line -i` record's
/// `FILE:LINE` (the file's last component), else `MODULE[ADDRESS]`. Read from the binary
/// objdump disassembles.
fn source_lines(a: &mut Annotation, debug: Option<&DebugInfo>) {
    let module: Rc<str> = perfdata_symbolize::srcline::short_name(&a.symbol.dso).into();
    for l in &mut a.lines {
        let Some(addr) = l.address.filter(|_| l.percent > 0.5) else { continue };
        let records = debug.map(|d| d.addr2line(addr)).unwrap_or_default();
        let line = match records.first() {
            Some(r) => SrcLine::from_record(r),
            None => SrcLine::Address { module: module.clone(), addr },
        };
        l.srcline = Some(line.to_string());
    }
}

/// perf's `--print-line` summary, printed before the symbol's annotation: the source lines of
/// [`AnnotatedLine::srcline`], each with the sum of its instructions' percentages, highest first
/// (equal sums in descending byte order of the line, as perf's tree leaves them).
pub fn source_line_summary(a: &Annotation) -> String {
    let mut sums: Vec<(&str, f64)> = Vec::new();
    for l in &a.lines {
        let Some(path) = l.srcline.as_deref() else { continue };
        match sums.iter_mut().find(|(p, _)| *p == path) {
            Some((_, sum)) => *sum += l.percent,
            None => sums.push((path, l.percent)),
        }
    }
    sums.sort_by(|x, y| y.0.cmp(x.0));
    sums.sort_by(|x, y| y.1.total_cmp(&x.1));
    let mut o = format!("\nSorted summary for file {}\n{}\n\n", a.symbol.dso, "-".repeat(46));
    if sums.is_empty() {
        o.push_str(" Nothing higher than 0.5%\n");
    }
    for (path, sum) in sums {
        let _ = writeln!(o, " {sum:7.2} {path}");
    }
    o
}

/// The symbol's share of its event's count in percent, as perf 6.1 compares it with
/// `--percent-limit` (in single precision; 0 when the event counted nothing).
pub fn overhead(sym: &SymbolSamples) -> f32 {
    if sym.event_total.1 == 0 {
        return 0.0;
    }
    (100.0 * sym.period as f64 / sym.event_total.1 as f64) as f32
}

/// Every symbol of [`symbol_samples`] not under [`AnnotateOptions::percent_limit`], each
/// annotated or with why it could not be (perf prints that and goes on with the next; after a
/// shared object's failure, as perf, its other symbols are left out).
pub fn annotate(file: &PerfFile, opts: &AnnotateOptions) -> Result<Vec<std::result::Result<Annotation, Error>>> {
    let mut failed: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut debug = DebugCache::new();
    for sym in symbol_samples(file, opts)? {
        if failed.contains(&sym.dso) {
            continue;
        }
        if opts.percent_limit != 0.0 && overhead(&sym) < opts.percent_limit {
            continue;
        }
        let a = disassemble_with(&sym, opts, &mut debug);
        if a.is_err() {
            failed.push(sym.dso.clone());
        }
        out.push(a);
    }
    Ok(out)
}

/// C's `isspace` in the C locale.
fn c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Tabs to spaces, stops every 8 bytes (perf counts bytes, not characters).
fn expand_tabs(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\t' {
            o.push(' ');
            while !o.len().is_multiple_of(8) {
                o.push(' ');
            }
        } else {
            o.push(c);
        }
    }
    o
}

/// A `/path:NUMBER` line of objdump's `-l`: the number (perf's `^/[^:]+:([0-9]+)`).
fn file_line(line: &str) -> Option<i64> {
    let rest = line.strip_prefix('/')?;
    let colon = rest.find(':').filter(|&i| i > 0)?;
    let digits: &str = rest.get(colon + 1..)?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    // C's atoi of the digits (wrapped into an int, as it overflows there).
    Some(digits.get(..n)?.bytes().fold(0i32, |a, d| a.wrapping_mul(10).wrapping_add(i32::from(d - b'0'))).into())
}

/// C's `strtoull(s, &end, 16)`: the value (saturated) and the bytes read (0: none).
fn hex_prefix(s: &str) -> (u64, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+')) {
        i = 1;
    }
    let digits = |from: usize| b.get(from..).map_or(0, |r| r.iter().take_while(|c| c.is_ascii_hexdigit()).count());
    if b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X')) && digits(i + 2) > 0 {
        i += 2;
    }
    let n = digits(i);
    if n == 0 {
        return (0, 0);
    }
    let v = b.get(i..i + n).unwrap_or_default().iter().fold(0u64, |a, &c| {
        let d = (c as char).to_digit(16).unwrap_or(0);
        a.checked_mul(16).and_then(|a| a.checked_add(u64::from(d))).unwrap_or(u64::MAX)
    });
    (v, i + n)
}

/// objdump's output as perf 6.1 reads it: the line naming the file (`PATH:     file format …`)
/// dropped, each line trimmed and its tabs expanded, `/file:line` lines taken as the source
/// position of what follows, an `ADDRESS:` line inside the symbol an instruction.
fn parse_objdump(text: &str, path: &str, sym: &SymbolSamples) -> Vec<AnnotatedLine> {
    let mut lines = Vec::new();
    let mut line_nr: i64 = 0;
    let mut fileloc: Option<(String, u32)> = None;
    let needle = format!("{path}:");
    for raw in text.split_inclusive('\n') {
        if raw.contains(&needle) {
            continue;
        }
        let line = expand_tabs(raw.trim_matches(c_space));
        if let Some(n) = file_line(&line) {
            line_nr = n;
            let file = line.split(':').next().unwrap_or_default().to_string();
            fileloc = Some((file, u32::try_from(n).unwrap_or(0)));
            continue;
        }
        let (ip, len) = hex_prefix(&line);
        let rest = line.get(len..).unwrap_or_default();
        let mut address = None;
        let mut text = line.as_str();
        if len > 0 && rest.starts_with(':') && rest.len() > 1 && (sym.start..sym.end).contains(&ip) {
            address = Some(ip);
            text = rest.get(1..).unwrap_or_default();
        }
        lines.push(AnnotatedLine {
            address,
            text: text.to_string(),
            line_nr,
            samples: 0,
            period: 0,
            percent: 0.0,
            source_file: address.and(fileloc.as_ref().map(|f| f.0.clone())),
            source_line: address.and(fileloc.as_ref().map(|f| f.1)),
            srcline: None,
        });
        line_nr += 1;
    }
    lines
}

/// Each instruction's samples (from its offset to the next instruction's, the symbol's size for
/// the last) and percentage.
fn shares(a: &mut Annotation) {
    let size = a.symbol.end.saturating_sub(a.symbol.start);
    let starts: Vec<Option<u64>> =
        a.lines.iter().map(|l| l.address.and_then(|x| x.checked_sub(a.symbol.start))).collect();
    let mut next = size;
    let mut ends = vec![size; starts.len()];
    for (i, s) in starts.iter().enumerate().rev() {
        if let Some(off) = s {
            if let Some(e) = ends.get_mut(i) {
                *e = next;
            }
            next = *off;
        }
    }
    let s = &a.symbol;
    for ((l, off), end) in a.lines.iter_mut().zip(&starts).zip(&ends) {
        let Some(off) = *off else { continue };
        if off < *end {
            for (_, (n, p)) in s.hits.range(off..*end) {
                l.samples += n;
                l.period = l.period.saturating_add(*p);
            }
        }
        let pct = |x: u64, of: u64| if of > 0 { 100.0 * x as f64 / of as f64 } else { 0.0 };
        l.percent = match a.percent_type {
            PercentType::LocalPeriod => pct(l.period, s.period),
            PercentType::GlobalPeriod => pct(l.period, s.event_total.1),
            PercentType::LocalHits => pct(l.samples, s.samples),
            // perf 6.1's base for these is 0 in perf annotate.
            PercentType::GlobalHits => 0.0,
        };
    }
}

/// The annotation as `perf annotate --stdio` prints it: the header, a line of dashes, then
/// each line (`samples`: the instructions' sample counts instead of percentages, perf's `-n`).
pub fn annotation_text(a: &Annotation, samples: bool) -> String {
    let s = &a.symbol;
    let dso = s.dso.rsplit('/').next().unwrap_or(&s.dso);
    let mut o = String::new();
    let head = format!(
        " {:<8}|\tSource code & Disassembly of {dso} for {} ({} samples, percent: {})\n",
        if samples { "Samples" } else { "Percent" },
        s.event_name,
        s.samples,
        a.percent_type.name()
    );
    o.push_str(&head);
    o.push_str(&"-".repeat(head.len() + 4));
    o.push('\n');
    let width = a.lines.iter().rev().find_map(|l| l.address).map_or(0, |x| format!("{x:x}").len());
    // perf names an instruction's source line (--print-line) only where it changes.
    let mut prev: Option<&str> = None;
    for l in &a.lines {
        match l.address {
            Some(addr) => {
                if samples {
                    let _ = write!(o, " {:>7} :   {addr:>width$x}:{}", l.samples, l.text);
                } else {
                    let _ = write!(o, " {:>7.2} :   {addr:>width$x}:{}", l.percent, l.text);
                }
                if let Some(path) = l.srcline.as_deref().filter(|p| prev != Some(*p)) {
                    let _ = write!(o, " // {path}");
                    prev = Some(path);
                }
                o.push('\n');
            }
            None if l.text.is_empty() => o.push_str("         :\n"),
            None => {
                let _ = writeln!(o, "         : {:<width$} {}", l.line_nr, l.text);
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objdump_lines_as_perf_reads_them() {
        assert_eq!(hex_prefix("1249:\tadd"), (0x1249, 4));
        assert_eq!(hex_prefix("0x10:"), (0x10, 4));
        assert_eq!(hex_prefix("leaf():"), (0, 0));
        assert_eq!(hex_prefix("ffffffffffffffffff:"), (u64::MAX, 18));
        assert_eq!(file_line("/src/spin.c:31 (discriminator 3)"), Some(31));
        assert_eq!(file_line("spin.c:31"), None);
        assert_eq!(file_line("/:31"), None);
        assert_eq!(file_line("/src/spin.c:x"), None);
        assert_eq!(expand_tabs("1249:\tadd\t%rcx"), "1249:   add     %rcx");
        assert_eq!(PercentType::parse("period-global"), Some(PercentType::GlobalPeriod));
        assert_eq!(PercentType::parse("local"), None);
    }

    #[test]
    fn shares_span_to_the_next_instruction() {
        let sym = SymbolSamples {
            event: 0,
            event_name: "cpu-clock".into(),
            dso: "/bin/x".into(),
            symbol: "f".into(),
            start: 0x100,
            end: 0x110,
            samples: 4,
            period: 40,
            hits: [(1, (1, 10)), (4, (2, 20)), (15, (1, 10))].into_iter().collect(),
            event_total: (8, 80),
            binary: Ok("/bin/x".into()),
        };
        let text = "\n/bin/x:     file format elf64-x86-64\n0000000000000100 <f>:\n/src/f.c:7\n\tint a;\n 100:\tnop\n 104:\tret\n 120:\tret\n";
        let lines = parse_objdump(text, "/bin/x", &sym);
        let texts: Vec<(Option<u64>, &str, i64)> =
            lines.iter().map(|l| (l.address, l.text.as_str(), l.line_nr)).collect();
        assert_eq!(
            texts,
            [
                (None, "", 0),
                (None, "0000000000000100 <f>:", 1),
                (None, "int a;", 7),
                (Some(0x100), "    nop", 8),
                (Some(0x104), "    ret", 9),
                (None, "120:    ret", 10)
            ]
        );
        let mut a = Annotation { symbol: sym, percent_type: PercentType::GlobalPeriod, lines };
        shares(&mut a);
        let got: Vec<(u64, f64)> =
            a.lines.iter().filter(|l| l.address.is_some()).map(|l| (l.samples, l.percent)).collect();
        assert_eq!(got, [(1, 12.5), (3, 37.5)]);
        assert_eq!(a.lines.get(3).and_then(|l| l.source_line), Some(7));
        let opts = AnnotateOptions { disassembler_style: Some("intel".into()), ..AnnotateOptions::default() };
        let args = objdump_args(&a.symbol, std::path::Path::new("/bin/x"), &opts);
        let args: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
        assert_eq!(
            args,
            [
                "-M",
                "intel",
                "--start-address=0x0000000000000100",
                "--stop-address=0x0000000000000110",
                "-l",
                "-d",
                "--no-show-raw-insn",
                "-S",
                "-C",
                "/bin/x"
            ]
        );
        // --print-line: a source line named where it changes; the summary sums each line's
        // percentages, highest first, equal ones in descending byte order.
        let mut b = a.clone();
        for (l, p) in b.lines.iter_mut().filter(|l| l.address.is_some()).zip(["x.c:2", "x.c:1"]) {
            l.srcline = Some(p.to_string());
        }
        b.lines.iter_mut().for_each(|l| l.percent = if l.address.is_some() { 50.0 } else { 0.0 });
        assert!(annotation_text(&b, false).contains("   50.00 :   100:    nop // x.c:2\n"));
        let summary = source_line_summary(&b);
        assert_eq!(summary, "\nSorted summary for file /bin/x\n----------------------------------------------\n\n   50.00 x.c:2\n   50.00 x.c:1\n");
        if let Some(l) = b.lines.get_mut(4) {
            l.srcline = Some("x.c:2".into());
        }
        assert!(annotation_text(&b, false).contains("   50.00 :   104:    ret\n"));
        assert!(source_line_summary(&b).ends_with("\n\n  100.00 x.c:2\n"));
        b.lines.iter_mut().for_each(|l| l.srcline = None);
        assert!(source_line_summary(&b).ends_with("\n\n Nothing higher than 0.5%\n"));
        let opts = AnnotateOptions { asm_raw: true, ..AnnotateOptions::default() };
        let args = objdump_args(&a.symbol, std::path::Path::new("/bin/x"), &opts);
        assert!(!args.iter().any(|a| a == "--no-show-raw-insn") && args.iter().any(|a| a == "-S"));
        let text = annotation_text(&a, false);
        assert!(text.contains("         : 7   int a;\n   12.50 :   100:    nop\n   37.50 :   104:    ret\n"), "{text}");
        assert!(text.starts_with(
            " Percent |\tSource code & Disassembly of x for cpu-clock (4 samples, percent: global period)\n"
        ));
    }
}
