//! The vDSO of this process, as perf reads its own (`vdso__findnew`, which copies it out of its
//! memory): the image that names a recording's `[vdso]` frames when no file of the recorded build
//! id was found, provided the build ids agree (a recording made on this machine since its kernel
//! booted).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The path [`crate::Symbolizer`] gives this process's vDSO among its candidate files (it is no
/// file: [`image`] reads the memory).
pub(crate) const RUNNING: &str = "[vdso] of this process";

/// Whether `path` stands for this process's vDSO.
pub(crate) fn is_running(path: &Path) -> bool {
    path.as_os_str() == RUNNING
}

/// This process's vDSO image: the `[vdso]` mapping of /proc/self/maps, read from /proc/self/mem.
/// `None` where there is none (not Linux, no /proc, no vDSO).
pub(crate) fn image() -> std::io::Result<Vec<u8>> {
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    let (start, end) = maps
        .lines()
        .find_map(vdso_range)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "this process has no [vdso] mapping"))?;
    // A vDSO is a few pages; anything larger is not one.
    let len = end.checked_sub(start).filter(|&n| n > 0 && n <= 1 << 20).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "the [vdso] mapping has an implausible size")
    })?;
    let mut mem = std::fs::File::open("/proc/self/mem")?;
    mem.seek(SeekFrom::Start(start))?;
    let mut image = vec![0; usize::try_from(len).unwrap_or(0)];
    mem.read_exact(&mut image)?;
    Ok(image)
}

/// The address range of a /proc/PID/maps line, if it is the `[vdso]` one.
fn vdso_range(line: &str) -> Option<(u64, u64)> {
    if line.split_whitespace().nth(5) != Some("[vdso]") {
        return None;
    }
    let (start, end) = line.split_whitespace().next()?.split_once('-')?;
    Some((u64::from_str_radix(start, 16).ok()?, u64::from_str_radix(end, 16).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_vdso_line() {
        let line = "7ffd1c5f3000-7ffd1c5f5000 r-xp 00000000 00:00 0                          [vdso]";
        assert_eq!(vdso_range(line), Some((0x7ffd_1c5f_3000, 0x7ffd_1c5f_5000)));
        assert_eq!(vdso_range("7ffd1c5ef000-7ffd1c5f3000 r--p 00000000 00:00 0   [vvar]"), None);
        assert_eq!(vdso_range("zz-1 r-xp 0 0:0 0 [vdso]"), None);
    }

    /// On Linux x86-64 this process has a vDSO, an ELF image that names `__vdso_clock_gettime`.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn reads_this_process_vdso() {
        let image = image().unwrap();
        let b = crate::Binary::from_vec(RUNNING.into(), image).unwrap();
        assert!(b.symbols.build_id.is_some());
        assert!(b.symbols.table.iter().any(|s| s.name.contains("clock_gettime")), "no clock_gettime");
    }

    /// A `[vdso]` map with this machine's vDSO build id is named from this process's vDSO when the
    /// build-id cache and the symfs have nothing; one of another build id stays unnamed.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn names_this_machine_vdso_frames_without_a_cache() {
        use perfdata_core::process::Map;
        let b = crate::Binary::from_vec(RUNNING.into(), image().unwrap()).unwrap();
        let own = b.symbols.build_id.clone().unwrap();
        let sym = b.symbols.table.iter().find(|s| s.name.contains("clock_gettime")).unwrap().clone();
        let empty = std::env::temp_dir().join(format!("perfdata-vdso-test-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let opts = crate::SymbolizeOptions {
            symfs: Some(empty.clone()),
            buildid_dir: Some(empty.clone()),
            ..Default::default()
        };
        // The vDSO is linked at 0: its ELF addresses are offsets into the map.
        let base = 0x7fff_0000_0000;
        for (build_id, named) in [(own.clone(), true), (vec![0xab; own.len()], false)] {
            let mut map = Map::from_mmap(7, base, 0x2000, 0, "[vdso]".into(), 4, 0);
            map.build_id = Some(build_id);
            let mut s = crate::Symbolizer::new(opts.clone(), Default::default());
            let f = s.resolve(Some(&map), base + sym.start + 4);
            assert_eq!(f.symbol.as_deref() == Some(sym.name.as_str()), named, "{:?}", f.symbol);
        }
        std::fs::remove_dir_all(&empty).unwrap();
    }
}
