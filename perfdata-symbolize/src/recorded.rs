//! Symbols a recording carries for itself: simpleperf's FILE / FILE2 feature stores, per DSO, the
//! symbols its samples hit, so an Android profile names its frames without the device's binaries.
//! Addresses map to a DSO's virtual addresses as simpleperf's `Dso::IpToVaddrInFile` does, and a
//! symbol is found as its `Dso::FindSymbol` finds it (the last one starting at or below the
//! address, if the address is before its end).

use perfdata_core::feature::simpleperf::dso_type;
use perfdata_core::feature::SimpleperfFile;
use perfdata_core::process::Map;
use std::collections::HashMap;
use std::rc::Rc;

/// One DSO's recorded symbols.
#[derive(Debug)]
pub struct RecordedDso {
    /// One of the ELF files simpleperf's JITDebugReader writes for JIT code: its maps
    /// (PROT_JIT_SYMFILE_MAP) take addresses as they are.
    jit_symfile: bool,
    file_type: u32,
    min_vaddr: u64,
    file_offset_of_min_vaddr: Option<u64>,
    /// (start, end, display name), sorted by start.
    symbols: Vec<(u64, u64, Rc<str>)>,
}

impl RecordedDso {
    /// From one FILE / FILE2 entry; names demangled as [`crate::demangle`] does, the dynamic
    /// linker's `__dl_` prefix shown as simpleperf shows it (`[linker]name`).
    pub fn new(f: &SimpleperfFile<'_>) -> RecordedDso {
        let mut symbols: Vec<(u64, u64, Rc<str>)> = f
            .symbols
            .iter()
            .map(|s| {
                let name = match s.name.strip_prefix("__dl_") {
                    Some(rest) => format!("[linker]{}", crate::demangle(rest)),
                    None => crate::demangle(&s.name),
                };
                (s.vaddr, s.vaddr.saturating_add(u64::from(s.len)), Rc::from(name))
            })
            .collect();
        symbols.sort_by_key(|s| s.0);
        // JITDebugReader::IsPathInJITSymFile.
        let jit_symfile = f.path.contains("_jit_app_cache:") || f.path.contains("_jit_zygote_cache:");
        RecordedDso {
            jit_symfile,
            file_type: f.file_type,
            min_vaddr: f.min_vaddr,
            file_offset_of_min_vaddr: f.file_offset_of_min_vaddr,
            symbols,
        }
    }

    /// The virtual address in the DSO of `addr` in `map` (simpleperf's `IpToVaddrInFile`): the
    /// address itself for the kernel; for an ELF file `addr - start + pgoff` moved from the file
    /// offset of `min_vaddr` to `min_vaddr` (`addr - start + min_vaddr` when that offset was not
    /// recorded); for a kernel module `addr - start - memory offset + min_vaddr`; else the file
    /// offset. JIT symbol files (`…_jit_app_cache:…`, `…_jit_zygote_cache:…`) hold the code's
    /// own addresses: the address itself (simpleperf's `ThreadTree::FindSymbol`).
    pub fn vaddr(&self, map: &Map, addr: u64) -> u64 {
        let rel = addr.wrapping_sub(map.start);
        match self.file_type {
            _ if self.jit_symfile => addr,
            dso_type::KERNEL => addr,
            dso_type::ELF_FILE => match self.file_offset_of_min_vaddr {
                Some(off) => rel.wrapping_add(map.pgoff).wrapping_sub(off).wrapping_add(self.min_vaddr),
                None => rel.wrapping_add(self.min_vaddr),
            },
            dso_type::KERNEL_MODULE => {
                rel.wrapping_sub(self.file_offset_of_min_vaddr.unwrap_or(0)).wrapping_add(self.min_vaddr)
            }
            _ => rel.wrapping_add(map.pgoff),
        }
    }

    /// The symbol holding virtual address `vaddr`.
    pub fn find(&self, vaddr: u64) -> Option<&Rc<str>> {
        let i = self.symbols.partition_point(|s| s.0 <= vaddr);
        let (_, end, name) = self.symbols.get(i.checked_sub(1)?)?;
        (vaddr < *end).then_some(name)
    }
}

/// The recorded symbols of a file, by DSO path (`[kernel.kallsyms]` for the kernel).
#[derive(Debug, Default)]
pub struct RecordedSymbols {
    dsos: HashMap<String, Rc<RecordedDso>>,
    /// The symbol map files (`perf-PID.map`, [`dso_type::SYMBOL_MAP_FILE`]) by pid: looked up
    /// for every address no map holds, which should not cost a formatted path each.
    symbol_maps: HashMap<u32, Rc<RecordedDso>>,
}

impl RecordedSymbols {
    /// From a FILE / FILE2 feature (`PerfFile::features().simpleperf_files()`); a path listed
    /// twice keeps its first entry, as simpleperf's reader does.
    pub fn new(files: &[SimpleperfFile<'_>]) -> RecordedSymbols {
        let mut dsos = HashMap::new();
        for f in files {
            dsos.entry(f.path.to_string()).or_insert_with(|| Rc::new(RecordedDso::new(f)));
        }
        let symbol_maps = dsos
            .iter()
            .filter(|(_, d)| d.file_type == dso_type::SYMBOL_MAP_FILE)
            .filter_map(|(path, d)| Some((symbol_map_pid(path)?, d.clone())))
            .collect();
        RecordedSymbols { dsos, symbol_maps }
    }

    /// True when no DSO is recorded.
    pub fn is_empty(&self) -> bool {
        self.dsos.is_empty()
    }

    /// The recorded DSO of `path`.
    pub fn dso(&self, path: &str) -> Option<&Rc<RecordedDso>> {
        self.dsos.get(path)
    }

    /// The recorded symbol of `addr` of process `pid` where no map holds it: from the process's
    /// symbol map file (`perf-PID.map`, simpleperf's DSO_SYMBOL_MAP_FILE, absolute addresses), as
    /// simpleperf names JIT code it read from such a file. Its dso name with it.
    pub fn find_unmapped(&self, pid: u32, addr: u64) -> Option<(String, Rc<str>)> {
        let symbol = self.symbol_maps.get(&pid)?.find(addr)?.clone();
        Some((format!("perf-{pid}.map"), symbol))
    }

    /// The recorded symbol of `addr` in `map` (whose file name is the DSO path).
    pub fn find(&self, map: &Map, addr: u64) -> Option<Rc<str>> {
        let d = self.dsos.get(&map.filename)?;
        d.find(d.vaddr(map, addr)).cloned()
    }
}

/// The pid of a symbol map file's path, when it is exactly `perf-PID.map` as
/// [`RecordedSymbols::find_unmapped`] names it (decimal, no sign or leading zero).
fn symbol_map_pid(path: &str) -> Option<u32> {
    let digits = path.strip_prefix("perf-")?.strip_suffix(".map")?;
    let pid: u32 = digits.parse().ok()?;
    (pid.to_string() == digits).then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfdata_core::feature::SimpleperfSymbol;
    use std::borrow::Cow;

    fn file(file_type: u32, min_vaddr: u64, off: Option<u64>) -> SimpleperfFile<'static> {
        SimpleperfFile {
            path: Cow::Borrowed("/system/lib64/libc.so"),
            file_type,
            min_vaddr,
            symbols: vec![
                SimpleperfSymbol { vaddr: 0x3d100, len: 0x20, name: Cow::Borrowed("memcpy") },
                SimpleperfSymbol { vaddr: 0x3d000, len: 0x10, name: Cow::Borrowed("__dl__start") },
            ],
            dex_file_offsets: Vec::new(),
            file_offset_of_min_vaddr: off,
        }
    }

    fn map(start: u64, pgoff: u64) -> Map {
        Map {
            start,
            end: start + 0x100000,
            pgoff,
            filename: "/system/lib64/libc.so".into(),
            build_id: None,
            identity: false,
            jit: None,
        }
    }

    #[test]
    fn vaddr_and_lookup_as_simpleperf() {
        // Executable segment at file offset 0x3c000, vaddr 0x3d000, mapped at 0x7000000000.
        let d = RecordedDso::new(&file(dso_type::ELF_FILE, 0x3d000, Some(0x3c000)));
        let m = map(0x70_0000_0000, 0x3c000);
        assert_eq!(d.vaddr(&m, 0x70_0000_0110), 0x3d110);
        assert_eq!(d.find(0x3d110).map(|s| &**s), Some("memcpy"));
        assert_eq!(d.find(0x3d120), None);
        assert_eq!(d.find(0x3d00f).map(|s| &**s), Some("[linker]_start"));
        assert_eq!(d.find(0x3cfff), None);
        // Without the file offset: addr - start + min_vaddr.
        let d = RecordedDso::new(&file(dso_type::ELF_FILE, 0x3d000, None));
        assert_eq!(d.vaddr(&m, 0x70_0000_0110), 0x3d110);
        let k = RecordedDso::new(&file(dso_type::KERNEL, 0, None));
        assert_eq!(k.vaddr(&m, 0x3d101), 0x3d101);
    }

    /// An address no map holds finds its symbol in `perf-PID.map` of its process only: a symbol
    /// map file of exactly that name (first entry of a path listed twice), not another type's.
    #[test]
    fn unmapped_addresses_in_the_process_symbol_map() {
        let named = |path: &'static str, file_type: u32, name: &'static str| SimpleperfFile {
            path: Cow::Borrowed(path),
            symbols: vec![SimpleperfSymbol { vaddr: 0x1000, len: 0x10, name: Cow::Borrowed(name) }],
            ..file(file_type, 0, None)
        };
        let r = RecordedSymbols::new(&[
            named("perf-1234.map", dso_type::SYMBOL_MAP_FILE, "jitted"),
            named("perf-1234.map", dso_type::SYMBOL_MAP_FILE, "second entry"),
            named("perf-077.map", dso_type::SYMBOL_MAP_FILE, "leading zero"),
            named("perf-5.map", dso_type::ELF_FILE, "an elf"),
            named("perf-4294967296.map", dso_type::SYMBOL_MAP_FILE, "too large"),
            named("/tmp/perf-9.map", dso_type::SYMBOL_MAP_FILE, "a directory"),
        ]);
        let found = |pid, addr| r.find_unmapped(pid, addr).map(|(p, s)| (p, s.to_string()));
        assert_eq!(found(1234, 0x1008), Some(("perf-1234.map".into(), "jitted".into())));
        assert_eq!(found(1234, 0x1010), None);
        assert_eq!(found(77, 0x1008), None);
        assert_eq!(found(5, 0x1008), None);
        assert_eq!(found(0, 0x1008), None);
        assert_eq!(found(9, 0x1008), None);
        assert_eq!(symbol_map_pid("perf-0.map"), Some(0));
        assert_eq!(symbol_map_pid("perf-4294967295.map"), Some(u32::MAX));
        assert_eq!(symbol_map_pid("perf-+1.map"), None);
        assert_eq!(symbol_map_pid("perf-.map"), None);
    }
}
