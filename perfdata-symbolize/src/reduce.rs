//! ELF files reduced to what naming frames needs, for symbol archives: the symbol tables, the
//! unwind tables, the notes (build id), `.dynamic`, the PLT's relocations, symbol versions and
//! the DWARF that names inlined frames and source lines (perf prints inlined frames by default,
//! so a file's DWARF changes its names). Every other section keeps its header (name, address,
//! size, flags) as `SHT_NOBITS`, as `objcopy --only-keep-debug` leaves them, and the program
//! headers are kept as they were: addresses and file offsets map to each other as in the
//! original, only the bytes of code and data (and of the DWARF nothing here reads) are gone.

/// Which DWARF [`reduce`] keeps besides the symbol and unwind tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The DWARF of frame names, inlined calls and source lines: `.debug_info`, `.debug_abbrev`,
    /// `.debug_line`, the string, range and address sections (and `.zdebug_` forms); not
    /// location lists, macros, type units or name indexes.
    Names,
    /// Every DWARF section (`.debug_*`, `.zdebug_*`).
    Debug,
    /// [`Keep::Names`] and every section loaded at run time (`SHF_ALLOC`: code, data): what
    /// unwinding a stack copy reads, as perf does, from the file where the copy ends.
    Loaded,
}

/// The DWARF sections [`Keep::Names`] keeps, without their `.debug_`/`.zdebug_` prefix.
const NAME_DWARF: [&[u8]; 10] =
    [b"info", b"abbrev", b"line", b"line_str", b"str", b"str_offsets", b"ranges", b"rnglists", b"addr", b"aranges"];

/// Whether section `name` is DWARF that `keep` keeps.
fn dwarf_kept(name: &[u8], keep: Keep) -> bool {
    let Some(rest) = name.strip_prefix(b".debug_").or_else(|| name.strip_prefix(b".zdebug_")) else { return false };
    keep == Keep::Debug || NAME_DWARF.contains(&rest)
}

const SHT_NOBITS: u32 = 8;
const SHT_NULL: u32 = 0;
const SHF_ALLOC: u64 = 2;
/// Section types always kept: SYMTAB, STRTAB, DYNAMIC, NOTE, DYNSYM and GNU's version sections.
const KEPT_TYPES: [u32; 8] = [2, 3, 6, 7, 11, 0x6fff_fffd, 0x6fff_fffe, 0x6fff_ffff];
/// Sections kept by name: unwinding and the PLT's names (ARM's unwind tables, PowerPC's
/// function descriptors).
const KEPT_NAMES: [&[u8]; 9] = [
    b".eh_frame",
    b".eh_frame_hdr",
    b".debug_frame",
    b".gnu_debuglink",
    b".gnu_debugaltlink",
    b".rela.plt",
    b".rel.plt",
    b".ARM.exidx",
    b".opd",
];

/// The layout of one ELF class and byte order.
struct Layout {
    wide: bool,
    little: bool,
}

impl Layout {
    fn get(&self, d: &[u8], off: usize, len: usize) -> Option<u64> {
        let b = d.get(off..off.checked_add(len)?)?;
        let push = |v: u64, byte: &u8| (v << 8) | u64::from(*byte);
        Some(if self.little { b.iter().rev().fold(0, push) } else { b.iter().fold(0, push) })
    }

    fn put(&self, d: &mut [u8], off: usize, len: usize, v: u64) -> Option<()> {
        let b = d.get_mut(off..off.checked_add(len)?)?;
        let set = |(i, x): (usize, &mut u8)| *x = (v >> (8 * i)) as u8;
        if self.little {
            b.iter_mut().enumerate().for_each(set);
        } else {
            b.iter_mut().rev().enumerate().for_each(set);
        }
        Some(())
    }

    /// A word of the class: 8 bytes in ELF64, 4 in ELF32.
    fn word(&self) -> usize {
        if self.wide {
            8
        } else {
            4
        }
    }

    // ELF header fields.
    fn phoff(&self) -> usize {
        if self.wide {
            0x20
        } else {
            0x1c
        }
    }
    fn shoff(&self) -> usize {
        self.phoff() + self.word()
    }
    fn ehsize(&self) -> usize {
        self.shoff() + self.word() + 4
    }

    // Section header fields.
    fn sh_offset(&self) -> usize {
        if self.wide {
            24
        } else {
            16
        }
    }
    fn sh_size(&self) -> usize {
        self.sh_offset() + self.word()
    }
    fn sh_addralign(&self) -> usize {
        if self.wide {
            48
        } else {
            32
        }
    }
}

/// `elf` reduced to what `keep` says, or `None` when it is not an ELF file this can rewrite
/// (then the whole file is the right thing to store). The result is never larger than `elf`:
/// when it would be (alignment padding, or sections whose bytes overlap, as a crafted file can
/// have thousands of), the whole file is the smaller thing to store and this says `None`.
pub fn reduce(elf: &[u8], keep: Keep) -> Option<Vec<u8>> {
    if elf.get(..4)? != b"\x7fELF" {
        return None;
    }
    let l = Layout {
        wide: match elf.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        },
        little: match elf.get(5)? {
            1 => true,
            2 => false,
            _ => return None,
        },
    };
    let w = l.word();
    let e = l.ehsize();
    let ehsize = usize::try_from(l.get(elf, e, 2)?).ok()?;
    let phoff = usize::try_from(l.get(elf, l.phoff(), w)?).ok()?;
    let shoff = usize::try_from(l.get(elf, l.shoff(), w)?).ok()?;
    let (phentsize, phnum) = (l.get(elf, e + 2, 2)? as usize, l.get(elf, e + 4, 2)? as usize);
    let (shentsize, shnum, shstrndx) =
        (l.get(elf, e + 6, 2)? as usize, l.get(elf, e + 8, 2)? as usize, l.get(elf, e + 10, 2)? as usize);
    // Extended numbering (counts in section 0) and odd layouts: store the file whole.
    let min_sh = if l.wide { 64 } else { 40 };
    if shoff == 0 || shnum == 0 || shstrndx >= shnum || shentsize < min_sh || ehsize > elf.len() {
        return None;
    }
    let sh = |i: usize| -> Option<&[u8]> {
        let at = shoff.checked_add(i.checked_mul(shentsize)?)?;
        elf.get(at..at.checked_add(shentsize)?)
    };
    let range = |h: &[u8]| -> Option<(usize, usize)> {
        let off = usize::try_from(l.get(h, l.sh_offset(), w)?).ok()?;
        let size = usize::try_from(l.get(h, l.sh_size(), w)?).ok()?;
        elf.get(off..off.checked_add(size)?)?;
        Some((off, size))
    };
    let strtab = sh(shstrndx)?;
    let (str_off, str_size) = range(strtab)?;
    let names = elf.get(str_off..str_off + str_size)?;
    let name = |h: &[u8]| -> &[u8] {
        let at = l.get(h, 0, 4).and_then(|v| usize::try_from(v).ok()).unwrap_or(usize::MAX);
        let s = names.get(at..).unwrap_or(&[]);
        s.split(|&b| b == 0).next().unwrap_or(&[])
    };
    // The ELF header, then the program headers, then each kept section, then the section headers.
    let phbytes = phnum.checked_mul(phentsize)?;
    let mut out = elf.get(..ehsize)?.to_vec();
    let new_phoff = if phnum > 0 { out.len() } else { 0 };
    out.extend_from_slice(elf.get(phoff..phoff.checked_add(phbytes)?)?);
    // Every header lies in the file (so the headers' copy below is no larger than the file).
    sh(shnum - 1)?;
    let mut headers = Vec::with_capacity(shnum.checked_mul(shentsize)?);
    for i in 0..shnum {
        let mut h = sh(i)?.to_vec();
        let ty = l.get(&h, 4, 4)? as u32;
        let n = name(&h);
        let kept = ty != SHT_NULL
            && ty != SHT_NOBITS
            && (KEPT_TYPES.contains(&ty)
                || KEPT_NAMES.contains(&n)
                || dwarf_kept(n, keep)
                || (keep == Keep::Loaded && l.get(&h, 8, w)? & SHF_ALLOC != 0));
        if kept {
            let (off, size) = range(&h)?;
            let align = usize::try_from(l.get(&h, l.sh_addralign(), w)?).ok()?.clamp(1, 4096);
            let at = out.len().checked_next_multiple_of(align)?;
            out.resize(at, 0);
            if at.checked_add(size)? > elf.len() {
                return None;
            }
            out.extend_from_slice(elf.get(off..off + size)?);
            l.put(&mut h, l.sh_offset(), w, at as u64)?;
        } else if ty != SHT_NULL && ty != SHT_NOBITS {
            // Its header stays (address, size, flags): its bytes go.
            l.put(&mut h, 4, 4, u64::from(SHT_NOBITS))?;
            let at = out.len() as u64;
            l.put(&mut h, l.sh_offset(), w, at)?;
        }
        headers.extend_from_slice(&h);
    }
    let at = out.len().checked_next_multiple_of(w)?;
    if at.checked_add(headers.len())? > elf.len() {
        return None;
    }
    out.resize(at, 0);
    out.extend_from_slice(&headers);
    l.put(&mut out, l.phoff(), w, new_phoff as u64)?;
    l.put(&mut out, l.shoff(), w, at as u64)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSection, ObjectSymbol};

    /// This test binary itself: a real ELF file with symbols, unwind tables and DWARF.
    fn me() -> Vec<u8> {
        std::fs::read(std::env::current_exe().unwrap()).unwrap()
    }

    #[test]
    fn keeps_symbols_unwind_tables_and_headers() {
        let whole = me();
        let small = reduce(&whole, Keep::Names).unwrap();
        let (a, b) = (object::File::parse(&*whole).unwrap(), object::File::parse(&*small).unwrap());
        // The code is gone (and more).
        let text = a.section_by_name(".text").unwrap().size() as usize;
        assert!(text > 100_000 && small.len() + text < whole.len(), "{} of {} bytes", small.len(), whole.len());
        assert_eq!(a.build_id().unwrap(), b.build_id().unwrap());
        let syms = |f: &object::File| -> Vec<(String, u64, u64)> {
            f.symbols().map(|s| (s.name().unwrap_or("").to_string(), s.address(), s.size())).collect()
        };
        assert_eq!(syms(&a), syms(&b));
        assert_eq!(a.dynamic_symbols().count(), b.dynamic_symbols().count());
        // Every section is still there, at its address and size; the kept ones with their bytes.
        assert_eq!(a.sections().count(), b.sections().count());
        for (x, y) in a.sections().zip(b.sections()) {
            assert_eq!((x.name().unwrap(), x.address(), x.size()), (y.name().unwrap(), y.address(), y.size()));
            let keep = [".eh_frame", ".eh_frame_hdr", ".symtab", ".strtab", ".dynsym", ".dynstr"];
            if keep.contains(&x.name().unwrap()) {
                assert_eq!(x.data().unwrap(), y.data().unwrap(), "{}", x.name().unwrap());
            }
        }
        let text = b.section_by_name(".text").unwrap();
        assert!(text.file_range().is_none(), ".text is NOBITS");
        for (x, y) in a.sections().zip(b.sections()) {
            let n = x.name().unwrap();
            if [".debug_info", ".debug_line", ".debug_abbrev", ".debug_str"].contains(&n) {
                assert_eq!(x.data().unwrap(), y.data().unwrap(), "{n}");
            }
            if [".debug_loc", ".debug_loclists", ".debug_pubnames", ".debug_pubtypes"].contains(&n) {
                assert!(y.file_range().is_none(), "{n} left out");
            }
        }
        // Program headers as they were.
        let segs = |f: &object::File| -> Vec<(u64, u64, (u64, u64))> {
            use object::ObjectSegment;
            f.segments().map(|s| (s.address(), s.size(), s.file_range())).collect()
        };
        assert_eq!(segs(&a), segs(&b));
        // Every DWARF section.
        let debug = reduce(&whole, Keep::Debug).unwrap();
        let d = object::File::parse(&*debug).unwrap();
        for (x, y) in a.sections().zip(d.sections()) {
            if x.name().unwrap().starts_with(".debug_") {
                assert_eq!(x.data().unwrap(), y.data().unwrap(), "{}", x.name().unwrap());
            }
        }
        assert!(debug.len() >= small.len());
        // What is loaded, too.
        let loaded = reduce(&whole, Keep::Loaded).unwrap();
        let l = object::File::parse(&*loaded).unwrap();
        assert_eq!(
            l.section_by_name(".text").unwrap().data().unwrap(),
            a.section_by_name(".text").unwrap().data().unwrap()
        );
        assert!(loaded.len() > small.len() && loaded.len() <= whole.len());
    }

    #[test]
    fn names_are_the_whole_files() {
        // The symbolizer's reading of the reduced file names every address as the whole file's.
        let bytes = me();
        let whole = crate::binary::Binary::from_vec("/me".into(), bytes.clone()).unwrap();
        let small = crate::binary::Binary::from_vec("/me".into(), reduce(&bytes, Keep::Names).unwrap()).unwrap();
        assert_eq!(whole.symbols.build_id, small.symbols.build_id);
        assert_eq!(whole.symbols.plt, small.symbols.plt);
        assert_eq!(whole.segments().len(), small.segments().len());
        let text = whole.section(".text").unwrap();
        let (start, len) = (text.address, text.data.len() as u64);
        let (a, b) = (crate::inline::DebugInfo::load(&whole), crate::inline::DebugInfo::load(&small));
        let mut named = 0;
        for vaddr in (start..start + len).step_by(97) {
            let name = |bin: &crate::binary::Binary| bin.symbols.table.find(vaddr).map(|s| s.name.clone());
            assert_eq!(name(&whole), name(&small), "{vaddr:#x}");
            named += usize::from(name(&whole).is_some());
            if vaddr % 7 == 0 {
                assert_eq!(a.addr2line(vaddr), b.addr2line(vaddr), "{vaddr:#x}");
            }
        }
        assert!(named > 1000, "{named}");
    }

    #[test]
    fn dwarf_sections() {
        assert!(dwarf_kept(b".debug_info", Keep::Names) && dwarf_kept(b".zdebug_line", Keep::Names));
        assert!(!dwarf_kept(b".debug_loclists", Keep::Names) && dwarf_kept(b".debug_loclists", Keep::Debug));
        assert!(!dwarf_kept(b".text", Keep::Debug) && !dwarf_kept(b".debug", Keep::Debug));
    }

    #[test]
    fn anything_else_is_not_reduced() {
        assert_eq!(reduce(b"", Keep::Names), None);
        assert_eq!(reduce(b"\x7fELF", Keep::Names), None);
        let whole = me();
        for cut in [16, 64, 200, whole.len() / 2] {
            let _ = reduce(&whole[..cut], Keep::Names);
        }
        let mut bad = whole.clone();
        bad[4] = 9;
        assert_eq!(reduce(&bad, Keep::Names), None);
    }

    /// Where a 64-bit little-endian ELF file keeps its section header table, their size and count.
    fn section_headers(elf: &[u8]) -> (usize, usize, usize) {
        let get = |at: usize, n: usize| elf[at..at + n].iter().rev().fold(0usize, |v, &b| v << 8 | usize::from(b));
        assert_eq!(&elf[4..6], &[2, 1], "a 64-bit little-endian test binary");
        (get(0x28, 8), get(0x3a, 2), get(0x3c, 2))
    }

    /// A committed debug file with DWARF (74 sections, the largest DWARF section 83 KB): the test
    /// binary itself has none when it is built without line tables.
    fn with_dwarf() -> Vec<u8> {
        let at = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/folded/root/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"
        );
        std::fs::read(at).unwrap()
    }

    #[test]
    fn never_larger_than_the_file() {
        // Every section made a copy of the largest DWARF section's header: the same bytes kept once per
        // section would be far more than the file (a crafted file can have 65,535 of them).
        let mut elf = with_dwarf();
        let (shoff, shentsize, shnum) = section_headers(&elf);
        let parsed = object::File::parse(&*elf).unwrap();
        let biggest = parsed
            .sections()
            .filter(|s| s.name().is_ok_and(|n| n.starts_with(".debug_")))
            .max_by_key(|s| s.size())
            .unwrap();
        let (kept, size) = (biggest.index().0, biggest.size() as usize);
        drop(parsed);
        assert!(size * (shnum - 2) > elf.len(), "the test needs {shnum} copies to outgrow the file");
        let header = elf[shoff + kept * shentsize..][..shentsize].to_vec();
        let shstrndx = usize::from(u16::from_le_bytes([elf[0x3e], elf[0x3f]]));
        for i in (1..shnum).filter(|&i| i != shstrndx) {
            elf[shoff + i * shentsize..][..shentsize].copy_from_slice(&header);
        }
        assert_eq!(reduce(&elf, Keep::Debug), None);
        // A section header table said to be larger than the file is refused before anything
        // is allocated for it.
        let mut elf = me();
        elf[0x3a..0x3c].copy_from_slice(&u16::MAX.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&u16::MAX.to_le_bytes());
        elf[0x3e..0x40].copy_from_slice(&0u16.to_le_bytes());
        assert_eq!(reduce(&elf, Keep::Names), None);
    }
}
