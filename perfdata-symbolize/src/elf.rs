//! The symbols of an ELF file as perf 6.1 loads them (`dso__load_sym`, `dso__synthesize_plt_symbols`):
//! functions, objects and labels of `.symtab`, then of `.dynsym`, in perf's symbol tree with its
//! fix-ups (size-0 symbols end at the next symbol, one symbol per start address chosen like
//! perf's `choose_best_symbol`), then one `NAME@plt` symbol per PLT entry.

use object::read::elf::{ElfFile, FileHeader, Rel, Rela, SectionHeader, SectionTable, Sym as _};
use object::{Object, ObjectSegment};

use super::{Sym, SymbolTable};

/// What was read from one ELF file.
#[derive(Debug)]
pub struct ElfSymbols {
    /// The GNU build id note, when present and readable.
    pub build_id: Option<Vec<u8>>,
    /// True if `.symtab` gave symbols (perf prefers such a file).
    pub has_symtab: bool,
    /// perf's symbol tree of the file (functions, objects and labels, then its PLT symbols), by
    /// ELF virtual address.
    pub table: SymbolTable,
    /// The synthesized `NAME@plt` symbols (also in `table` if it has other symbols); empty when
    /// the file's PLT sections have no contents (debug files).
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
        let (table, plt, has_symtab) = match &file {
            object::File::Elf32(elf) => load(elf),
            object::File::Elf64(elf) => load(elf),
            _ => (SymbolTable::default(), Vec::new(), false),
        };
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

/// perf's table, the PLT symbols and whether `.symtab` gave a symbol. perf reads `.symtab` (if
/// the file has one), then `.dynsym`, each a pass of its own (`dso__load_sym`), and adds the PLT
/// symbols (of the runtime binary: a debug file has none) when the passes loaded a symbol
/// (`dso__load`).
fn load<Elf: FileHeader>(elf: &ElfFile<'_, Elf>) -> (SymbolTable, Vec<Sym>, bool) {
    let symtab = perf_symbols(elf, b".symtab", object::elf::SHT_SYMTAB);
    let dynsym = perf_symbols(elf, b".dynsym", object::elf::SHT_DYNSYM);
    let has_symtab = !symtab.is_empty();
    let mut table = SymbolTable::perf_tree([symtab, dynsym]);
    let plt = plt_symbols(elf);
    if !table.is_empty() {
        table.insert_sized(plt.clone());
    }
    (table, plt, has_symtab)
}

/// The symbols perf 6.1's `dso__load_sym_internal` inserts from the symbol table section named
/// `name` (of type `sh_type`, else none), in the table's order, at their ELF addresses: named
/// STT_FUNC, STT_GNU_IFUNC and STT_OBJECT symbols (`elf_sym__filter`) and STT_NOTYPE ones
/// (`elf_sym__is_label`) of a section whose name holds `text` or `data` (`elf_sec__filter`), all
/// of a section that takes memory (SHF_ALLOC); not absolute ones, nor ARM mapping symbols (`$a`,
/// `$d`, `$t`, `$x`, also with a `.` suffix). A Thumb function loses its address' low bit.
fn perf_symbols<Elf: FileHeader>(elf: &ElfFile<'_, Elf>, name: &[u8], sh_type: u32) -> Vec<Sym> {
    use object::elf;
    let (endian, data) = (elf.endian(), elf.data());
    let sections = elf.elf_section_table();
    let Some((index, header)) = sections.section_by_name(endian, name) else { return Vec::new() };
    if header.sh_type(endian) != sh_type {
        return Vec::new();
    }
    let Ok(table) = sections.symbol_table_by_index(endian, data, index) else { return Vec::new() };
    let machine = elf.elf_header().e_machine(endian);
    let arm = machine == elf::EM_ARM;
    let mut out = Vec::new();
    for sym in table.iter() {
        let (kind, shndx) = (sym.st_type(), sym.st_shndx(endian));
        let label = kind == elf::STT_NOTYPE;
        let wanted = label || matches!(kind, elf::STT_FUNC | elf::STT_GNU_IFUNC | elf::STT_OBJECT);
        if !wanted || sym.st_name(endian) == 0 || shndx == elf::SHN_UNDEF || shndx == elf::SHN_ABS {
            continue;
        }
        // Other reserved indexes (SHN_COMMON, SHN_XINDEX) name no section (perf gives up there).
        if shndx >= elf::SHN_LORESERVE {
            continue;
        }
        let Ok(sym_name) = table.symbol_name(endian, sym) else { continue };
        if (arm || machine == elf::EM_AARCH64) && is_mapping_symbol(sym_name) {
            continue;
        }
        let Ok(section) = sections.section(object::SectionIndex(shndx.into())) else { continue };
        let flags: u64 = section.sh_flags(endian).into();
        if flags & u64::from(elf::SHF_ALLOC) == 0 {
            continue;
        }
        if label && !text_or_data(sections, endian, section) {
            continue;
        }
        let mut start: u64 = sym.st_value(endian).into();
        if arm && kind == elf::STT_FUNC && start & 1 == 1 {
            start -= 1;
        }
        let binding = match sym.st_bind() {
            elf::STB_GLOBAL => Binding::Global,
            elf::STB_WEAK => Binding::Weak,
            _ => Binding::Local,
        };
        out.push(Sym {
            start,
            end: start.saturating_add(sym.st_size(endian).into()),
            name: String::from_utf8_lossy(sym_name).into_owned(),
            binding,
        });
    }
    out
}

/// An ARM ELF mapping symbol: `$a`, `$d`, `$t` or `$x`, alone or before a `.`.
fn is_mapping_symbol(name: &[u8]) -> bool {
    matches!(name, [b'$', b'a' | b'd' | b't' | b'x', rest @ ..] if rest.is_empty() || rest.first() == Some(&b'.'))
}

/// perf's `elf_sec__filter`: the section's name holds `text` or `data`.
fn text_or_data<Elf: FileHeader>(
    sections: &SectionTable<'_, Elf>,
    endian: Elf::Endian,
    section: &Elf::SectionHeader,
) -> bool {
    let name = sections.section_name(endian, section).unwrap_or_default();
    name.windows(4).any(|w| w == b"text" || w == b"data")
}

pub use super::Binding;

/// An ELF symbol's binding.
pub(crate) fn binding(s: &object::Symbol<'_, '_>) -> Binding {
    use object::ObjectSymbol;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn open(name: &str) -> ElfSymbols {
        let path = format!("{}/../testdata/plt/root/tmp/plt/{name}", env!("CARGO_MANIFEST_DIR"));
        ElfSymbols::parse(&std::fs::read(&path).unwrap()).unwrap()
    }

    fn name_at(e: &ElfSymbols, addr: u64) -> Option<&str> {
        e.table.find(addr).map(|s| s.name.as_str())
    }

    /// perf 6.1 (testdata/plt/*.script): `_init` (size 0) ends at `_start`, over `.plt`; the PLT
    /// symbols come after, and the tree's shape decides which of the two a lookup meets first.
    #[test]
    fn plt_entries_named_by_the_tree_shape() {
        let pie = open("plt-pie");
        assert_eq!(
            pie.plt.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["abs@plt", "strlen@plt", "memset@plt", "strtol@plt"]
        );
        assert_eq!(pie.plt.first().map(|s| (s.start, s.end)), Some((0x1030, 0x1040)));
        assert_eq!(name_at(&pie, 0x1030), Some("_init"));
        assert_eq!(name_at(&pie, 0x1040), Some("strlen@plt"));
        assert_eq!(name_at(&pie, 0x1050), Some("memset@plt"));
        let nopie = open("plt-nopie");
        for addr in [0x40_1030, 0x40_1040, 0x40_1050] {
            assert_eq!(name_at(&nopie, addr), Some("_init"), "{addr:#x}");
        }
    }

    /// Size-0 labels inside a function, and code past the last symbols (plt-edge).
    #[test]
    fn labels_and_code_past_the_symbols() {
        let edge = open("plt-edge");
        // inner_a and inner_b start there, but the descent meets labeled_loop first.
        assert_eq!(name_at(&edge, 0x90e), Some("labeled_loop"));
        assert_eq!(name_at(&edge, 0x912), Some("labeled_loop"));
        assert_eq!(name_at(&edge, 0x916), Some("inner_c"));
        // `.rodata` code after ro_marker: _fini ends at _IO_stdin_used, objects count.
        assert_eq!(name_at(&edge, 0x973), None);
        assert!(edge.table.iter().any(|s| s.name == "ro_marker"));
        // `.plt.sec`: perf names nothing there.
        assert_eq!(name_at(&edge, 0x6d0), None);
    }

    #[test]
    fn arm_mapping_symbols() {
        for (name, is) in
            [("$a", true), ("$x.12", true), ("$d", true), ("$t", true), ("$b", false), ("$xy", false), ("a", false)]
        {
            assert_eq!(is_mapping_symbol(name.as_bytes()), is, "{name}");
        }
    }
}
