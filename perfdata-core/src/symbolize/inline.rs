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

use std::borrow::Cow;
use std::rc::Rc;

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
}

/// The DWARF of one file, parsed once, and its symbol table in file order.
pub struct DebugInfo {
    context: Option<addr2line::Context<Slice>>,
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
            return DebugInfo { context: None, symbols: Vec::new(), sections: Vec::new() };
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
        DebugInfo { context, symbols, sections }
    }

    /// What `addr2line -i -f` prints for the ELF virtual address `vaddr`: the function names,
    /// innermost first (`??` for a level without a name); empty when it prints `??:0`.
    pub fn records(&self, vaddr: u64) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(ctx) = &self.context {
            if let Ok(mut frames) = ctx.find_frames(vaddr).skip_all_loads() {
                while let Ok(Some(frame)) = frames.next() {
                    let name = frame.function.as_ref().and_then(|f| f.raw_name().ok()).map(|n| n.into_owned());
                    let name = match name {
                        Some(n) => n,
                        None if out.is_empty() => self.symbol_name(vaddr).unwrap_or_else(|| "??".to_string()),
                        None => "??".to_string(),
                    };
                    out.push(name);
                    if out.len() > MAX_INLINE_NEST {
                        break;
                    }
                }
            }
        }
        if out.is_empty() {
            // No DWARF for the address: binutils answers from the symbol table (its line is `??`,
            // not the `??:0` of an address it knows nothing about).
            out.extend(self.symbol_name(vaddr));
        }
        out
    }

    /// binutils' `elf_find_function`: among the function (or untyped) symbols of the section
    /// holding `vaddr` that start at or below it, the closest; among equal starts, one that
    /// covers `vaddr`, a function over an untyped one, the smaller, else the first in the table.
    fn symbol_name(&self, vaddr: u64) -> Option<String> {
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
        best.map(|s| s.name.to_string())
    }
}

fn fn_symbols<'d>(syms: impl Iterator<Item = impl ObjectSymbol<'d>>) -> Vec<FnSym> {
    syms.filter_map(|s| {
        let SymbolSection::Section(section) = s.section() else { return None };
        let func = match s.kind() {
            SymbolKind::Text => true,
            SymbolKind::Unknown | SymbolKind::Label => false,
            _ => return None,
        };
        let name = s.name().ok().filter(|n| !n.is_empty())?;
        Some(FnSym { start: s.address(), size: s.size().max(1), func, section: section.0, name: Rc::from(name) })
    })
    .collect()
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
