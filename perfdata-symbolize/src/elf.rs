//! Function symbols of an ELF file (`.symtab`, else `.dynsym`) via the `object` crate, with
//! perf's rules: STT_FUNC/GNU_IFUNC in executable sections, size-0 symbols end at the next
//! symbol, one symbol per start address chosen like perf's `choose_best_symbol`.

use object::read::elf::{ElfFile, FileHeader, Rel, Rela, SectionHeader, Sym as _};
use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SectionFlags, SymbolKind, SymbolSection};

use super::{Sym, SymbolTable};

/// What was read from one ELF file.
#[derive(Debug)]
pub struct ElfSymbols {
    /// The GNU build id note, when present and readable.
    pub build_id: Option<Vec<u8>>,
    /// True if the table came from `.symtab` (perf prefers such a file).
    pub has_symtab: bool,
    /// Function symbols by ELF virtual address.
    pub table: SymbolTable,
    /// The synthesized `NAME@plt` symbols (also in `table`); empty when the file's PLT sections
    /// have no contents (debug files).
    pub plt: Vec<Sym>,
    /// The file name in `.gnu_debuglink` (where the separate debug file is), when present.
    pub debuglink: Option<String>,
    /// PT_LOAD segments as (file offset, file size, vaddr), to turn a file offset into an address.
    segments: Vec<(u64, u64, u64)>,
}

impl ElfSymbols {
    /// Parse `data`; `None` if it is not an ELF file `object` can read.
    pub fn parse(data: &[u8]) -> Option<ElfSymbols> {
        ElfSymbols::from_object(&object::File::parse(data).ok()?)
    }

    /// Read the symbols of an already parsed file.
    pub fn from_object(file: &object::File<'_>) -> Option<ElfSymbols> {
        let build_id = file.build_id().ok().flatten().map(<[u8]>::to_vec);
        // perf reads the name up to its NUL and ignores the CRC (`filename__read_debuglink`).
        let debuglink = file
            .gnu_debuglink()
            .ok()
            .flatten()
            .map(|(name, _crc)| String::from_utf8_lossy(name).into_owned())
            .filter(|n| !n.is_empty());
        let segments = file
            .segments()
            .map(|s| {
                let (off, size) = s.file_range();
                (off, size, s.address())
            })
            .collect();
        let mut has_symtab = true;
        let mut syms = collect(file, file.symbols());
        if syms.is_empty() {
            has_symtab = false;
            syms = collect(file, file.dynamic_symbols());
        }
        let plt = match &file {
            object::File::Elf32(elf) => plt_symbols(elf),
            object::File::Elf64(elf) => plt_symbols(elf),
            _ => Vec::new(),
        };
        let mut table = SymbolTable::new_demangled(syms);
        table.insert_sized(plt.clone());
        Some(ElfSymbols { build_id, has_symtab, table, plt, debuglink, segments })
    }

    /// perf's `map__rip_2objdump` for a file offset: the ELF virtual address it is loaded from.
    pub fn offset_to_vaddr(&self, off: u64) -> u64 {
        for &(o, size, vaddr) in &self.segments {
            if off >= o && off - o < size.max(1) {
                return vaddr.wrapping_add(off - o);
            }
        }
        off
    }
}

fn collect<'d, 'f>(file: &'f object::File<'d>, symbols: impl Iterator<Item = object::Symbol<'d, 'f>>) -> Vec<Sym> {
    let mut out = Vec::new();
    for s in symbols {
        // perf keeps STT_FUNC/GNU_IFUNC and size-0 STT_NOTYPE labels (`elf_sym__is_label`).
        let label = matches!(s.kind(), SymbolKind::Unknown | SymbolKind::Label) && s.size() == 0;
        if s.kind() != SymbolKind::Text && !label {
            continue;
        }
        let SymbolSection::Section(idx) = s.section() else { continue };
        let exec = match file.section_by_index(idx).map(|sec| sec.flags()) {
            Ok(SectionFlags::Elf { sh_flags }) => sh_flags & u64::from(object::elf::SHF_EXECINSTR) != 0,
            _ => false,
        };
        let Ok(name) = s.name() else { continue };
        if !exec || name.is_empty() {
            continue;
        }
        let binding = binding(&s);
        out.push(Sym {
            start: s.address(),
            end: s.address().saturating_add(s.size()),
            name: name.to_string(),
            binding,
        });
    }
    out
}

pub use super::Binding;

/// An ELF symbol's binding.
pub(crate) fn binding(s: &object::Symbol<'_, '_>) -> Binding {
    if s.is_weak() {
        Binding::Weak
    } else if s.is_global() {
        Binding::Global
    } else {
        Binding::Local
    }
}

/// perf 6.1's `dso__synthesize_plt_symbols`: one `NAME@plt` symbol per `.rela.plt`/`.rel.plt` entry
/// (in relocation order, names from the `.dynsym` it links to, demangled), laid out after the `.plt`
/// header; entry and header sizes are `.plt`'s `sh_entsize` (ARM 20/12, AArch64 32/16). Nothing when
/// a section is missing or stripped (`SHT_NOBITS` in debug-info files).
fn plt_symbols<'d, Elf: FileHeader>(elf: &ElfFile<'d, Elf>) -> Vec<Sym> {
    let (endian, data) = (elf.endian(), elf.data());
    let sections = elf.elf_section_table();
    let Some((_, plt)) = sections.section_by_name(endian, b".plt") else { return Vec::new() };
    let rel = sections.section_by_name(endian, b".rela.plt").or_else(|| sections.section_by_name(endian, b".rel.plt"));
    let Some((_, rel)) = rel else { return Vec::new() };
    let targets: Vec<u32> = if let Ok(Some((r, _))) = rel.rela(endian, data) {
        r.iter().map(|r| r.r_sym(endian, false)).collect()
    } else if let Ok(Some((r, _))) = rel.rel(endian, data) {
        r.iter().map(|r| r.r_sym(endian)).collect()
    } else {
        return Vec::new();
    };
    let Ok(dynsym) = sections.symbol_table_by_index(endian, data, rel.link(endian)) else { return Vec::new() };
    if dynsym.section().0 == 0 || dynsym.strings().get(0).is_err() {
        return Vec::new();
    }
    let entsize: u64 = plt.sh_entsize(endian).into();
    let (header, entry) = match elf.elf_header().e_machine(endian) {
        object::elf::EM_ARM => (20, 12),
        object::elf::EM_AARCH64 => (32, 16),
        _ => (entsize, entsize),
    };
    if entry == 0 {
        return Vec::new();
    }
    let mut addr = Into::<u64>::into(plt.sh_addr(endian)).saturating_add(header);
    let mut out = Vec::with_capacity(targets.len());
    for idx in targets {
        let name = dynsym
            .symbol(object::SymbolIndex(idx as usize))
            .ok()
            .and_then(|s| s.name(endian, dynsym.strings()).ok())
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        out.push(Sym {
            start: addr,
            end: addr.saturating_add(entry),
            name: format!("{}@plt", super::demangle(&name)),
            binding: Binding::Global,
        });
        addr = addr.saturating_add(entry);
    }
    out
}
