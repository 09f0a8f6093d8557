//! Inline frames from DWARF, as perf 6.1 adds them to `--call-graph dwarf` stacks by default
//! (`perf script --inline`). Only frames perf unwinds itself get them (`unwind_entry` calls
//! `append_inlines`; `-g` callchain entries do not, in 6.1). perf's list for an address replaces
//! the frame: innermost first, a name equal to the frame's symbol printed as the symbol, any
//! other as `NAME (inlined)` (no module: the collapsers see the bare name).
//!
//! perf (built without libbfd, as Debian's) asks `addr2line -i -f -e FILE` about the address,
//! where FILE is the file its symbols came from (`dso__name`: the build-id cache's `debug`, the
//! binary itself, …). Each record addr2line prints, innermost function first, becomes one frame
//! (`inline_list__append_record`): named like the frame's symbol it *is* that symbol, otherwise a
//! fake symbol marked inlined, printed `NAME+off (inlined)`. No record (`??:0`): the plain frame.
//!
//! addr2line's names: the DWARF function (`DW_AT_linkage_name`, else `DW_AT_name`, through
//! `DW_AT_abstract_origin`/`DW_AT_specification`) for every level; when no DWARF function holds
//! the address, the innermost name comes from the ELF symbol table the way binutils'
//! `elf_find_function` picks it (the closest start at or below, then the first in table order
//! among equals), so glibc's assembler syscalls show their hidden aliases (`__GI_execve`).
//! This is the `addr2line` crate (gimli) rather than binutils; the tests compare the result with
//! perf's stored output.
//!
//! binutils 2.40 (`_bfd_dwarf2_find_nearest_line_with_alt`) names the innermost function from the
//! ELF symbol table when its DWARF name is not a linkage name (a `DW_AT_name` in a C++ unit: a
//! lambda's `operator()`, `_FUN`, a function in an anonymous namespace, a template's inlined
//! `sort<…>`): addr2line prints the name of the symbol holding the address (`main` for a lambda
//! inlined into it). It does so once per DWARF function, and remembers it: a function whose
//! first range starts at that symbol takes the symbol's name for good (also where it is an
//! outer, calling frame later), any other keeps its DWARF name for later lookups. perf 6.1 keeps
//! one addr2line process per DSO for the whole run, so these names depend on the order of the
//! addresses asked: [`DebugInfo`] replays that state in the order it is asked (perf's: samples in
//! time order, frames innermost first, each address once).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use gimli::Reader as _;
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind, SymbolSection};

use super::Binary;

/// perf's `MAX_INLINE_NEST`: records read after the first.
pub const MAX_INLINE_NEST: usize = 1024;

/// One frame of perf's inline list for an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineFrame {
    /// The name perf prints (demangled).
    pub name: Rc<str>,
    /// perf marks the frame inlined (`(inlined)` in `perf script`): its name is not the symbol's.
    pub inlined: bool,
}

/// One record `addr2line -i -f` prints for an address: a function and a position in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The function name as addr2line prints it (raw, not demangled; `??` when unknown).
    pub function: String,
    /// The source file (`None`: addr2line prints `??`). The innermost record has the file of the
    /// line-table row holding the address, else (no row) the `STT_FILE` symbol binutils pairs
    /// with the function's ELF symbol; the others the file of their call site.
    pub file: Option<String>,
    /// The line; 0 where addr2line prints `?`.
    pub line: u32,
}

type Slice = gimli::EndianRcSlice<gimli::RunTimeEndian>;

/// A function symbol as binutils sees it (`elf_find_function`).
#[derive(Debug)]
struct FnSym {
    start: u64,
    /// `st_size`, 1 when 0 (binutils' `_bfd_elf_maybe_function_sym`).
    size: u64,
    /// STT_FUNC (or IFUNC), not NOTYPE.
    func: bool,
    section: usize,
    name: Rc<str>,
    /// The source file binutils names with the symbol (see [`fn_symbols`]).
    file: Option<Rc<str>>,
}

/// A DWARF function as binutils keeps it (`struct funcinfo`): its unit's and its DIE's offsets.
type FuncKey = (usize, usize);

/// What one long-running binutils addr2line process has learnt about the functions it was asked
/// about (see the module documentation).
#[derive(Default)]
struct Addr2lineState {
    /// Functions named after their ELF symbol from now on.
    renamed: HashMap<FuncKey, Rc<str>>,
    /// Functions whose symbol was looked up once (binutils sets their `is_linkage`).
    looked_up: HashSet<FuncKey>,
    /// The function names answered for each address, innermost first: an address asked again
    /// (for its source lines) gets the answer of its first query.
    answered: HashMap<u64, Rc<[String]>>,
}

/// The DWARF of one file, parsed once, and its symbol table in file order.
pub struct DebugInfo {
    context: Option<addr2line::Context<Slice>>,
    /// Line tables of the units asked about, by unit offset (`None`: no line program).
    lines: RefCell<HashMap<usize, Option<Rc<UnitLines>>>>,
    /// The names binutils' addr2line gives after the queries so far.
    state: RefCell<Addr2lineState>,
    symbols: Vec<FnSym>,
    /// Allocated sections as (index, address, size): the section an address is in.
    sections: Vec<(usize, u64, u64)>,
}

impl std::fmt::Debug for DebugInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebugInfo")
            .field("dwarf", &self.context.is_some())
            .field("symbols", &self.symbols.len())
            .finish_non_exhaustive()
    }
}

/// One unit's line table as binutils 2.40 (Debian 12's, which perf 6.1 runs as addr2line) reads
/// it. In DWARF 5 it starts each sequence with file entry 0 where the standard (and the addr2line
/// crate) says file 1 (binutils 2.41 fixed that); a `DW_LNS_set_file` or `DW_AT_call_file`
/// number is the entry. GCC's entries 0 and 1 are usually the same file, not always: code of
/// `libc_start_call_main.h` (entry 1) comes out as `libc-start.c` (entry 0).
struct UnitLines {
    /// Sequences by start address: (start, end, rows by address), the last row of those at one
    /// address kept (as binutils and the addr2line crate do).
    sequences: Vec<(u64, u64, Vec<LineRow>)>,
    /// The path of each entry of the file table.
    files: Vec<String>,
    /// DWARF 5: file numbers are entries (before, file `n` is entry `n - 1`).
    version5: bool,
}

/// A line-table row: address, file entry, line.
type LineRow = (u64, Option<u64>, u32);

impl UnitLines {
    fn parse(unit: gimli::UnitRef<'_, Slice>) -> Option<UnitLines> {
        let mut program = unit.line_program.clone()?;
        let version5 = program.header().version() >= 5;
        let address_size = program.header().address_size();
        let tombstone = u64::MAX >> (64 - 8 * u32::from(address_size.clamp(1, 8)));
        let mut instructions = program.header().instructions();
        let mut row = gimli::LineRow::new(program.header());
        // Whether the sequence has set its file, and whether its address is a tombstone (code
        // the linker dropped: gimli skips those rows).
        let (mut file_set, mut dropped) = (false, false);
        let mut sequences = Vec::new();
        let mut current: Vec<LineRow> = Vec::new();
        while let Ok(Some(instruction)) = instructions.next_instruction(program.header()) {
            match instruction {
                gimli::LineInstruction::SetFile(_) => file_set = true,
                gimli::LineInstruction::SetAddress(a) => dropped = a < row.address() || a == tombstone,
                _ => {}
            }
            if !row.execute(instruction, &mut program).unwrap_or(false) {
                continue;
            }
            if row.end_sequence() {
                if let (false, Some(&(start, _, _))) = (dropped, current.first()) {
                    sequences.push((start, row.address(), std::mem::take(&mut current)));
                }
                current.clear();
                (file_set, dropped) = (false, false);
            } else if !dropped {
                let entry = match (version5, file_set) {
                    (true, false) => Some(0),
                    (true, true) => Some(row.file_index()),
                    (false, _) => row.file_index().checked_sub(1),
                };
                let line = u32::try_from(row.line().map_or(0, |l| l.get())).unwrap_or(u32::MAX);
                match current.last_mut() {
                    Some(last) if last.0 == row.address() => *last = (row.address(), entry, line),
                    _ => current.push((row.address(), entry, line)),
                }
            }
            row.reset(program.header());
        }
        sequences.sort_by_key(|s| s.0);
        let header = program.header();
        let string = |v| -> Option<String> {
            unit.attr_string(v).ok().and_then(|s| s.to_string_lossy().ok().map(Cow::into_owned))
        };
        let comp_dir = unit.comp_dir.as_ref().and_then(|d| d.to_string_lossy().ok().map(Cow::into_owned));
        let files = header
            .file_names()
            .iter()
            .map(|f| {
                let mut path = comp_dir.clone().unwrap_or_default();
                if let Some(dir) = f.directory(header).and_then(string) {
                    path_push(&mut path, &dir);
                }
                path_push(&mut path, &string(f.path_name()).unwrap_or_default());
                path
            })
            .collect();
        Some(UnitLines { sequences, files, version5 })
    }

    /// (file entry, line) of the row holding `addr`.
    fn find(&self, addr: u64) -> Option<(Option<u64>, u32)> {
        let i = self.sequences.partition_point(|s| s.0 <= addr).checked_sub(1)?;
        let (_, end, rows) = self.sequences.get(i)?;
        if addr >= *end {
            return None;
        }
        let j = rows.partition_point(|r| r.0 <= addr).checked_sub(1)?;
        rows.get(j).map(|r| (r.1, r.2))
    }

    /// The entry a `DW_AT_call_file` number names.
    fn call_entry(&self, n: u64) -> Option<u64> {
        if self.version5 {
            Some(n)
        } else {
            n.checked_sub(1)
        }
    }

    /// The path of file entry `entry` (`<unknown>` when there is none, as binutils).
    fn file(&self, entry: Option<u64>) -> &str {
        entry.and_then(|i| usize::try_from(i).ok()).and_then(|i| self.files.get(i)).map_or("<unknown>", String::as_str)
    }
}

/// `dir/p`, or `p` when absolute.
fn path_push(path: &mut String, p: &str) {
    if p.starts_with('/') || path.is_empty() {
        *path = p.to_string();
    } else {
        if !path.ends_with('/') {
            path.push('/');
        }
        path.push_str(p);
    }
}

/// The `DW_AT_call_file` of the inlined subroutine at `die`.
fn call_file(unit: gimli::UnitRef<'_, Slice>, die: gimli::UnitOffset<usize>) -> Option<u64> {
    let entry = unit.entry(die).ok()?;
    match entry.attr_value(gimli::DW_AT_call_file).ok()?? {
        gimli::AttributeValue::FileIndex(n) => Some(n),
        v => v.udata_value(),
    }
}

/// A compressed section claiming more than this ratio over its compressed size is malformed
/// (zlib's maximum is about 1032:1; zstd's can be higher, but not for DWARF).
const MAX_RATIO: u64 = 2048;

/// The uncompressed contents of section `name` (empty when absent or unreadable); compressed
/// sections are inflated only to the size their bytes can justify.
fn section_bytes(file: &object::File<'_>, name: &str) -> Rc<[u8]> {
    let Some(s) = file.section_by_name(name) else { return Rc::from(&[][..]) };
    let ok = s
        .compressed_data()
        .is_ok_and(|c| c.uncompressed_size <= (c.data.len() as u64).saturating_mul(MAX_RATIO).saturating_add(4096));
    if !ok {
        return Rc::from(&[][..]);
    }
    match s.uncompressed_data() {
        Ok(Cow::Borrowed(b)) => Rc::from(b),
        Ok(Cow::Owned(v)) => Rc::from(v),
        Err(_) => Rc::from(&[][..]),
    }
}

impl DebugInfo {
    /// Read the DWARF sections (decompressing them) and the symbol table (`.symtab`, else
    /// `.dynsym`, as addr2line) of `binary`. Never fails: what cannot be read is left out.
    pub fn load(binary: &Binary) -> DebugInfo {
        let Ok(file) = object::File::parse(binary.data()) else {
            return DebugInfo {
                context: None,
                lines: RefCell::default(),
                state: RefCell::default(),
                symbols: Vec::new(),
                sections: Vec::new(),
            };
        };
        let endian = if file.is_little_endian() { gimli::RunTimeEndian::Little } else { gimli::RunTimeEndian::Big };
        let has_dwarf = file.section_by_name(".debug_info").is_some();
        let context = if has_dwarf {
            let dwarf = gimli::Dwarf::load(|id| -> Result<Slice, gimli::Error> {
                // Variable locations are never read for names: not decompressed (a sixth of
                // libc's DWARF).
                let skip = matches!(id, gimli::SectionId::DebugLoc | gimli::SectionId::DebugLocLists);
                let bytes = if skip { Rc::from(&[][..]) } else { section_bytes(&file, id.name()) };
                Ok(gimli::EndianRcSlice::new(bytes, endian))
            });
            dwarf.ok().and_then(|mut d| {
                // Units sharing an abbreviation table (dwz-processed distribution DWARF) parse it once.
                d.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
                addr2line::Context::from_dwarf(d).ok()
            })
        } else {
            None
        };
        let mut symbols = fn_symbols(file.symbols());
        if symbols.is_empty() {
            symbols = fn_symbols(file.dynamic_symbols());
        }
        let sections =
            file.sections().filter(|s| s.address() != 0).map(|s| (s.index().0, s.address(), s.size())).collect();
        DebugInfo { context, lines: RefCell::default(), state: RefCell::default(), symbols, sections }
    }

    /// What `addr2line -i -f` prints for the ELF virtual address `vaddr`: the function names,
    /// innermost first (`??` for a level without a name); empty when it prints `??:0`. Reads no
    /// line table of its own ([`DebugInfo::addr2line`] gives the positions too).
    pub fn records(&self, vaddr: u64) -> Vec<String> {
        self.query(vaddr, false).into_iter().map(|r| r.function).collect()
    }

    /// The records `addr2line -i -f` prints for the ELF virtual address `vaddr`, innermost first,
    /// with their source positions; empty when it prints `??:0`.
    pub fn addr2line(&self, vaddr: u64) -> Vec<Record> {
        self.query(vaddr, true)
    }

    /// The records for `vaddr`; without `positions`, their files and lines are left out.
    fn query(&self, vaddr: u64, positions: bool) -> Vec<Record> {
        let mut out = Vec::new();
        // (The addr2line crate looks up `vaddr + 1`: the last address is in no unit.)
        if let Some(ctx) = self.context.as_ref().filter(|_| vaddr != u64::MAX) {
            // The unit the frames come from, for the file numbers (see [`UnitLines`]) and for
            // binutils' naming.
            let unit = ctx.find_dwarf_and_unit(vaddr).skip_all_loads();
            let lines = unit.filter(|_| positions).and_then(|u| self.unit_lines(u));
            // Each level's DWARF function (unit and DIE offsets), for binutils' naming.
            let mut keys: Vec<Option<FuncKey>> = Vec::new();
            if let Ok(mut frames) = ctx.find_frames(vaddr).skip_all_loads() {
                let mut callee: Option<gimli::UnitOffset<usize>> = None;
                while let Ok(Some(frame)) = frames.next() {
                    let first = out.is_empty();
                    let dwarf_name = frame.function.as_ref().and_then(|f| f.raw_name().ok()).map(|n| n.into_owned());
                    let (file, line) = match (&lines, unit) {
                        (Some(lines), _) if first => match lines.find(vaddr) {
                            Some((file, line)) => (Some(lines.file(file).to_string()), line),
                            None => (self.unknown_row_file(vaddr, dwarf_name.as_deref()), 0),
                        },
                        // A caller's position is the call site of the function it called
                        // (`DW_AT_call_file`, `DW_AT_call_line` of that inlined subroutine).
                        (Some(lines), Some(unit)) => {
                            let number = callee.and_then(|die| call_file(unit, die));
                            let line = frame.location.as_ref().and_then(|l| l.line).unwrap_or(0);
                            (number.map(|n| lines.file(lines.call_entry(n)).to_string()), line)
                        }
                        _ if !positions => (None, 0),
                        // No line program: what the addr2line crate found.
                        _ => {
                            let line = frame.location.as_ref().and_then(|l| l.line).unwrap_or(0);
                            let file = match &frame.location {
                                Some(l) => l.file.map(str::to_string),
                                None if first => self.unknown_row_file(vaddr, dwarf_name.as_deref()),
                                None => None,
                            };
                            (file, line)
                        }
                    };
                    callee = frame.dw_die_offset;
                    let unit_offset = unit.and_then(|u| u.header.offset().as_debug_info_offset()).map(|o| o.0);
                    keys.push(unit_offset.zip(frame.dw_die_offset.map(|d| d.0)));
                    let function = match dwarf_name {
                        Some(n) => n,
                        None if first => {
                            self.elf_function(vaddr).map_or_else(|| "??".to_string(), |s| s.name.to_string())
                        }
                        None => "??".to_string(),
                    };
                    out.push(Record { function, file, line });
                    if out.len() > MAX_INLINE_NEST {
                        break;
                    }
                }
            }
            if let Some(unit) = unit.filter(|_| !out.is_empty()) {
                let names = self.binutils_names(vaddr, unit, &keys, &out);
                for (r, n) in out.iter_mut().zip(names.iter()) {
                    r.function.clone_from(n);
                }
            }
        }
        if out.is_empty() {
            // No DWARF for the address: binutils answers from the symbol table (line `?`, the
            // file of the symbol's `STT_FILE`, else `??`: not the `??:0` of an address it knows
            // nothing about).
            if let Some(s) = self.elf_function(vaddr) {
                let file = s.file.as_deref().filter(|_| positions).map(str::to_string);
                out.push(Record { function: s.name.to_string(), file, line: 0 });
            }
        }
        out
    }

    /// The function names binutils' long-running addr2line prints for `vaddr`, whose DWARF
    /// functions are `keys` and DWARF names (as [`DebugInfo::query`] found them) `records`,
    /// innermost first, after the queries so far; updates the state (module documentation).
    fn binutils_names(
        &self,
        vaddr: u64,
        unit: gimli::UnitRef<'_, Slice>,
        keys: &[Option<FuncKey>],
        records: &[Record],
    ) -> Rc<[String]> {
        let mut state = self.state.borrow_mut();
        if let Some(names) = state.answered.get(&vaddr) {
            return names.clone();
        }
        let mut names: Vec<String> = keys
            .iter()
            .zip(records)
            .map(|(k, r)| match k.and_then(|k| state.renamed.get(&k)) {
                Some(n) => n.to_string(),
                None => r.function.clone(),
            })
            .collect();
        // The innermost function, unless its DWARF name is a linkage name (binutils'
        // `is_linkage`: DW_AT_linkage_name, or any name in a language without mangling), or its
        // symbol was looked up before.
        if let (Some(Some(key)), Some(first)) = (keys.first(), records.first()) {
            let dwarf_named = first.function != "??";
            if dwarf_named && !is_linkage_name(&first.function) && mangles(unit) && state.looked_up.insert(*key) {
                if let Some(sym) = self.elf_function(vaddr) {
                    if let Some(n) = names.first_mut() {
                        *n = sym.name.to_string();
                    }
                    if first_range_start(unit, key.1) == Some(sym.start) {
                        state.renamed.insert(*key, sym.name.clone());
                    }
                }
            }
        }
        let names: Rc<[String]> = Rc::from(names);
        state.answered.insert(vaddr, names.clone());
        names
    }

    /// The file binutils reports for an address its DWARF knows (a function) but no line-table
    /// row holds: the one it pairs with the ELF symbol it finds for the address, unless the
    /// DWARF gave a linkage name (then it does not look).
    fn unknown_row_file(&self, vaddr: u64, dwarf_name: Option<&str>) -> Option<String> {
        if dwarf_name.is_some_and(is_linkage_name) {
            return None;
        }
        self.elf_function(vaddr).and_then(|s| s.file.as_deref().map(str::to_string))
    }

    /// The line table of `unit`, read at the first use.
    fn unit_lines(&self, unit: gimli::UnitRef<'_, Slice>) -> Option<Rc<UnitLines>> {
        let key = unit.header.offset().as_debug_info_offset()?.0;
        if let Some(l) = self.lines.borrow().get(&key) {
            return l.clone();
        }
        let l = UnitLines::parse(unit).map(Rc::new);
        self.lines.borrow_mut().insert(key, l.clone());
        l
    }

    /// binutils' `elf_find_function`: among the function (or untyped) symbols of the section
    /// holding `vaddr` that start at or below it, the closest; among equal starts, one that
    /// covers `vaddr`, a function over an untyped one, the smaller, else the first in the table.
    fn elf_function(&self, vaddr: u64) -> Option<&FnSym> {
        let section = self.sections.iter().find(|(_, a, s)| vaddr >= *a && vaddr - *a < *s)?.0;
        let covers = |s: &FnSym| vaddr - s.start < s.size;
        let mut best: Option<&FnSym> = None;
        for s in self.symbols.iter().filter(|s| s.section == section && s.start <= vaddr) {
            let better = match best {
                None => true,
                Some(b) if s.start != b.start => s.start > b.start,
                Some(b) if !covers(b) => s.size > b.size,
                Some(_) if !covers(s) => false,
                Some(b) if b.func != s.func => s.func,
                Some(b) => s.size < b.size,
            };
            if better {
                best = Some(s);
            }
        }
        best
    }
}

/// Whether binutils takes a `DW_AT_name` of `unit` for a mangled language's (`mangle_style` not
/// 0: C++, Rust, D, Ada, Java, and any language it does not list), so not for a linkage name; a
/// unit without `DW_AT_language` counts as one (language 0 is not in binutils' list either).
fn mangles(unit: gimli::UnitRef<'_, Slice>) -> bool {
    let mut entries = unit.entries();
    let Ok(Some((_, root))) = entries.next_dfs() else { return true };
    let Ok(Some(gimli::AttributeValue::Language(lang))) = root.attr_value(gimli::DW_AT_language) else {
        return true;
    };
    // binutils 2.40's list; the vendor codes gimli does not name: DW_LANG_HP_Basic91 (0x8004),
    // DW_LANG_HP_IMacro (0x8006), DW_LANG_HP_Assembler (0x8007), DW_LANG_Upc (0x8765).
    !(matches!(
        lang,
        gimli::DW_LANG_C89
            | gimli::DW_LANG_C
            | gimli::DW_LANG_Cobol74
            | gimli::DW_LANG_Cobol85
            | gimli::DW_LANG_Fortran77
            | gimli::DW_LANG_Pascal83
            | gimli::DW_LANG_PLI
            | gimli::DW_LANG_C99
            | gimli::DW_LANG_UPC
            | gimli::DW_LANG_C11
            | gimli::DW_LANG_Mips_Assembler
    ) || matches!(lang.0, 0x8004 | 0x8006 | 0x8007 | 0x8765))
}

/// The start of the first address range binutils records for the function DIE at `die`
/// (`arange_add` over its ranges in order: empty ones skipped, one that ends where the first
/// starts extends it downwards).
fn first_range_start(unit: gimli::UnitRef<'_, Slice>, die: usize) -> Option<u64> {
    let entry = unit.entry(gimli::UnitOffset(die)).ok()?;
    let mut ranges = unit.die_ranges(&entry).ok()?;
    let mut first: Option<(u64, u64)> = None;
    while let Ok(Some(r)) = ranges.next() {
        match &mut first {
            _ if r.begin >= r.end => {}
            None => first = Some((r.begin, r.end)),
            Some((lo, hi)) if r.begin == *hi => *hi = r.end,
            Some((lo, _)) if r.end == *lo => *lo = r.begin,
            Some(_) => {}
        }
    }
    first.map(|(lo, _)| lo)
}

/// A DWARF function name that is a linkage name (`DW_AT_linkage_name`: mangled): binutils then
/// does not consult the ELF symbols for the name or the file.
fn is_linkage_name(name: &str) -> bool {
    name.starts_with("_Z") || name.starts_with("_R")
}

/// The function (or untyped) symbols binutils' `elf_find_function` considers, in table order,
/// each with the source file it reports for it: the last `STT_FILE` symbol before it, for a local
/// symbol, or for any while no `STT_FILE` has come after another symbol (past that, global
/// symbols are not attributed to a file).
fn fn_symbols<'d>(syms: impl Iterator<Item = impl ObjectSymbol<'d>>) -> Vec<FnSym> {
    let mut file: Option<Rc<str>> = None;
    let (mut symbol_seen, mut file_after_symbol) = (false, false);
    let mut out = Vec::new();
    for s in syms {
        if s.kind() == SymbolKind::File {
            file = Some(Rc::from(s.name().unwrap_or("")));
            file_after_symbol |= symbol_seen;
            continue;
        }
        symbol_seen = true;
        let SymbolSection::Section(section) = s.section() else { continue };
        let func = match s.kind() {
            SymbolKind::Text => true,
            SymbolKind::Unknown | SymbolKind::Label => false,
            _ => continue,
        };
        let Some(name) = s.name().ok().filter(|n| !n.is_empty()) else { continue };
        let file = file.clone().filter(|_| s.is_local() || !file_after_symbol);
        out.push(FnSym {
            start: s.address(),
            size: s.size().max(1),
            func,
            section: section.0,
            name: Rc::from(name),
            file,
        });
    }
    out
}

/// perf's inline list from addr2line's records (innermost first) for a frame whose symbol is
/// `symbol` (`new_inline_sym`): each name demangled; one equal to `symbol` is the symbol itself,
/// any other a fake symbol marked inlined.
pub fn inline_list(records: &[String], symbol: &str) -> Vec<InlineFrame> {
    records
        .iter()
        .map(|r| {
            let name = super::demangle(r);
            let inlined = name != symbol;
            InlineFrame { name: Rc::from(name), inlined }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_like_perf() {
        // `_dl_start_final` inlined into `_dl_start` (ld.so): the outer record is the symbol.
        let l = inline_list(&["_dl_start_final".into(), "_dl_start".into()], "_dl_start");
        assert_eq!(
            l,
            vec![
                InlineFrame { name: "_dl_start_final".into(), inlined: true },
                InlineFrame { name: "_dl_start".into(), inlined: false },
            ]
        );
        // One record whose DWARF name differs from perf's symbol: the frame is renamed and
        // marked inlined (`__libc_start_main_impl` for `__libc_start_main@@GLIBC_2.34`).
        let l = inline_list(&["__libc_start_main_impl".into()], "__libc_start_main@@GLIBC_2.34");
        assert_eq!(l, vec![InlineFrame { name: "__libc_start_main_impl".into(), inlined: true }]);
        // Mangled linkage names are demangled as perf does (no parameter list).
        let l = inline_list(&["_ZN3foo3barEv".into()], "foo::bar");
        assert_eq!(l, vec![InlineFrame { name: "foo::bar".into(), inlined: false }]);
        assert!(inline_list(&[], "f").is_empty());
    }
}
