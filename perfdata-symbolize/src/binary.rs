//! One ELF file found on disk, mapped once and shared ([`Rc<Binary>`](std::rc::Rc)) by the
//! symbolizer (its symbol table) and the unwinder (its `.eh_frame_hdr`/`.eh_frame`/`.debug_frame`
//! bytes, its load segments, and the file bytes perf reads through a map).

use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSegment};

use super::elf::ElfSymbols;
use crate::Error;
use std::sync::Arc;

/// The bytes of a binary: mapped, owned (for an empty or unmappable file), or shared with the
/// in-memory files that hold them.
pub(crate) enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

/// The bytes of a file read whole (a kallsyms file) at `path`: a regular file with bytes is
/// mapped and populated (one call, not a page fault per few pages), others are read (procfs files
/// say they are empty).
pub(crate) fn try_file_bytes(path: &Path) -> std::io::Result<Bytes> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: a read-only map of a file nothing here writes (one truncated underneath us would
        // be a SIGBUS, as for perf's own maps).
        if let Ok(m) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            return Ok(Bytes::Mapped(m));
        }
    }
    std::fs::read(path).map(Bytes::Owned)
}

impl Bytes {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
            Bytes::Shared(v) => v,
        }
    }
}

/// A `PT_LOAD` program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// `p_offset`.
    pub offset: u64,
    /// `p_filesz`.
    pub file_size: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_memsz`.
    pub mem_size: u64,
}

/// A section whose contents are in the file (not `SHT_NOBITS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionData<'a> {
    /// `sh_addr`: where the section is loaded (0 for sections that are not).
    pub address: u64,
    /// The contents.
    pub data: &'a [u8],
}

#[derive(Clone, Debug)]
struct SectionInfo {
    name: String,
    address: u64,
    /// File range of the contents; `None` for `SHT_NOBITS` (and compressed sections).
    range: Option<(u64, u64)>,
    /// `sh_offset` (also of a `SHT_NOBITS` section).
    sh_offset: u64,
}

/// ELF machine numbers the unwinder knows (`e_machine`).
pub mod machine {
    /// `EM_X86_64`.
    pub const X86_64: u16 = 62;
    /// `EM_AARCH64`.
    pub const AARCH64: u16 = 183;
}

/// One ELF file: its bytes, symbols, segments and sections.
pub struct Binary {
    path: PathBuf,
    bytes: Bytes,
    /// Symbols and build id.
    pub symbols: ElfSymbols,
    segments: Vec<Segment>,
    sections: Vec<SectionInfo>,
    /// `e_machine`.
    pub machine: u16,
    /// `e_type == ET_EXEC`.
    pub is_exec: bool,
    /// Little-endian file.
    pub little_endian: bool,
    /// 64-bit file.
    pub is_64: bool,
}

impl std::fmt::Debug for Binary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binary")
            .field("path", &self.path)
            .field("len", &self.data().len())
            .field("build_id", &self.symbols.build_id)
            .field("machine", &self.machine)
            .finish_non_exhaustive()
    }
}

impl Binary {
    /// Map and parse the ELF file at `path`; `None` if it cannot be read or is not ELF
    /// ([`Binary::try_open`] says why).
    pub fn open(path: &Path) -> Option<Binary> {
        Binary::try_open(path).ok()
    }

    /// Map and parse the ELF file at `path`, or say why not: [`Error::Unreadable`] (with the io
    /// error) or [`Error::NotElf`] (with `object`'s error for a damaged or truncated file).
    ///
    /// ```
    /// use perfdata_symbolize::{Binary, Error};
    /// let dir = std::env::temp_dir().join(format!("perfdata-doc-binary-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("not-elf");
    /// std::fs::write(&path, b"#!/bin/sh\n")?;
    /// assert!(matches!(Binary::try_open(&path), Err(Error::NotElf { .. })));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_open(path: &Path) -> Result<Binary, Error> {
        let file = std::fs::File::open(path).map_err(|e| Error::unreadable(path, e))?;
        let meta = file.metadata().map_err(|e| Error::unreadable(path, e))?;
        if !meta.is_file() {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
            return Err(Error::unreadable(path, e));
        }
        // SAFETY: read-only map of a binary that is not modified while we read it (a file
        // truncated underneath us would be a SIGBUS, as for perf's own mmap of it).
        let bytes = match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => Bytes::Mapped(m),
            Err(_) => Bytes::Owned(std::fs::read(path).map_err(|e| Error::unreadable(path, e))?),
        };
        Binary::from_bytes(path.to_path_buf(), bytes)
    }

    /// Parse owned bytes (tests, and files that cannot be mapped).
    pub fn from_vec(path: PathBuf, data: Vec<u8>) -> Option<Binary> {
        Binary::from_bytes(path, Bytes::Owned(data)).ok()
    }

    pub(crate) fn from_bytes(path: PathBuf, bytes: Bytes) -> Result<Binary, Error> {
        let data = bytes.as_slice();
        let not_elf = |source| Error::NotElf { path: Arc::from(path.as_path()), source };
        let file = object::File::parse(data).map_err(|e| not_elf(Some(e)))?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(not_elf(None));
        }
        let segments = file
            .segments()
            .map(|s| {
                let (offset, file_size) = s.file_range();
                Segment { offset, file_size, vaddr: s.address(), mem_size: s.size() }
            })
            .collect();
        let sh_offset = |i: object::SectionIndex| -> u64 {
            use object::read::elf::SectionHeader;
            match &file {
                object::File::Elf64(f) => f.elf_section_table().section(i).map_or(0, |h| h.sh_offset(f.endian())),
                object::File::Elf32(f) => {
                    f.elf_section_table().section(i).map_or(0, |h| u64::from(h.sh_offset(f.endian())))
                }
                _ => 0,
            }
        };
        let sections = file
            .sections()
            .map(|s| SectionInfo {
                sh_offset: sh_offset(s.index()),
                name: s.name().unwrap_or("").to_string(),
                address: s.address(),
                range: s
                    .file_range()
                    .filter(|_| s.compressed_file_range().is_ok_and(|c| c.format == object::CompressionFormat::None)),
            })
            .collect();
        let (machine, is_exec) = elf_header(data, file.is_little_endian());
        let symbols = ElfSymbols::from_object(&file).ok_or_else(|| not_elf(None))?;
        let (little_endian, is_64) = (file.is_little_endian(), file.is_64());
        Ok(Binary { path, symbols, segments, sections, machine, is_exec, little_endian, is_64, bytes })
    }

    /// Where the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file.
    pub fn data(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The `PT_LOAD` segments, in file order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The contents of section `name`, if it is in the file.
    pub fn section(&self, name: &str) -> Option<SectionData<'_>> {
        let s = self.sections.iter().find(|s| s.name == name)?;
        let (off, len) = s.range?;
        let data = self.data().get(usize::try_from(off).ok()?..usize::try_from(off.checked_add(len)?).ok()?)?;
        Some(SectionData { address: s.address, data })
    }

    /// perf's `dso->text_offset`: `.text`'s `sh_addr` less its `sh_offset` (what `map__rip_2objdump`
    /// adds to an address of a user module), 0 without `.text`.
    pub fn text_offset(&self) -> u64 {
        self.sections.iter().find(|s| s.name == ".text").map_or(0, |s| s.address.wrapping_sub(s.sh_offset))
    }

    /// `sh_addr` of section `name`, whether or not its contents are in the file.
    pub fn section_address(&self, name: &str) -> Option<u64> {
        self.sections.iter().find(|s| s.name == name).map(|s| s.address)
    }

    /// perf's `map__rip_2objdump` for a file offset: the ELF virtual address it is loaded from
    /// (the offset itself when no segment holds it).
    pub fn offset_to_vaddr(&self, off: u64) -> u64 {
        self.symbols.offset_to_vaddr(off)
    }

    /// perf's `elf_base_address`: the first `PT_LOAD`'s `p_vaddr` rounded down to the page.
    pub fn base_vaddr(&self) -> u64 {
        self.segments.first().map_or(0, |s| s.vaddr & !0xfff)
    }

    /// `len` bytes at virtual address `vaddr`, from a section whose contents are in the file.
    pub fn read_vaddr(&self, vaddr: u64, len: u64) -> Option<&[u8]> {
        for s in &self.sections {
            let Some((off, size)) = s.range else { continue };
            if s.address == 0 || vaddr < s.address {
                continue;
            }
            let rel = vaddr - s.address;
            if rel.checked_add(len)? <= size {
                let start = usize::try_from(off.checked_add(rel)?).ok()?;
                return self.data().get(start..start.checked_add(usize::try_from(len).ok()?)?);
            }
        }
        None
    }

    /// What perf reads at file offset `off` (`dso__data_read_offset`, 8 bytes): `Some(Some(v))`
    /// with the bytes, `Some(None)` when the original file holds bytes there that this copy does
    /// not keep (a reduced extract), `None` when the read would fail (past the end of the file).
    pub fn read_file_u64(&self, off: u64) -> Option<Option<u64>> {
        let end = off.checked_add(8)?;
        let loaded_end = self.segments.iter().map(|s| s.offset.saturating_add(s.file_size)).max().unwrap_or(0);
        let len = self.data().len() as u64;
        if end > len.max(loaded_end) {
            return None;
        }
        let word = |b: &[u8]| -> Option<u64> {
            let a: [u8; 8] = b.try_into().ok()?;
            Some(if self.little_endian { u64::from_le_bytes(a) } else { u64::from_be_bytes(a) })
        };
        if len >= loaded_end {
            return Some(self.data().get(usize::try_from(off).ok()?..usize::try_from(end).ok()?).and_then(word));
        }
        // A reduced copy (shorter than its segments say): read by address through the sections
        // it kept, which may have moved in the file.
        let vaddr = self
            .segments
            .iter()
            .find(|s| off >= s.offset && off - s.offset < s.file_size)
            .map(|s| s.vaddr.wrapping_add(off - s.offset));
        let bytes = vaddr.and_then(|v| self.read_vaddr(v, 8));
        Some(bytes.and_then(word))
    }
}

/// `(e_machine, e_type == ET_EXEC)` from the ELF header.
fn elf_header(data: &[u8], little: bool) -> (u16, bool) {
    let u16_at = |o: usize| {
        data.get(o..o + 2).and_then(|b| b.try_into().ok()).map(|a: [u8; 2]| {
            if little {
                u16::from_le_bytes(a)
            } else {
                u16::from_be_bytes(a)
            }
        })
    };
    (u16_at(18).unwrap_or(0), u16_at(16) == Some(2))
}
