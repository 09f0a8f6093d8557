//! Why a frame has no name: the crate's one error type, [`Error`].
//!
//! A cause that belongs to a whole file (not found, wrong build id, not ELF, no symbol table,
//! kallsyms hidden) is built once, when the [`Symbolizer`](crate::Symbolizer) first looks for the
//! file, and kept in its caches; the per-address causes ([`Error::NoMap`], [`Error::NoSymbol`])
//! carry only the address. Cloning an `Error` never allocates (its payloads are shared).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use perfdata_core::names::hex;

/// Why an address has no name, or why a symbol file or kallsyms could not be used.
///
/// Returned by [`Symbolizer::try_resolve`](crate::Symbolizer::try_resolve) and its siblings,
/// [`Binary::try_open`](crate::Binary::try_open), and kept per DSO in
/// [`Symbolizer::unnamed`](crate::Symbolizer::unnamed).
///
/// ```
/// use perfdata_symbolize::Error;
/// use std::error::Error as _;
///
/// let e = perfdata_symbolize::Binary::try_open("/nonexistent/libfoo.so".as_ref()).unwrap_err();
/// assert!(matches!(e, Error::Unreadable { .. }));
/// assert!(e.to_string().starts_with("cannot read /nonexistent/libfoo.so"));
/// assert!(e.source().is_some()); // the io::Error
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Error {
    /// No mapping of the process (or of the kernel) holds the address: perf's `[unknown]` dso.
    NoMap {
        /// The address.
        addr: u64,
    },
    /// The file was read, but none of its symbols covers the address (a gap between functions,
    /// or code past the last symbol, or a JIT code map past its function).
    NoSymbol {
        /// The address looked up, as sampled (not made file-relative).
        addr: u64,
    },
    /// The map is anonymous memory with no file behind it (`//anon` data, `[heap]`, `[stack]`).
    Anonymous {
        /// The map's name.
        dso: Arc<str>,
    },
    /// No file for the DSO was found at any of the places perf looks (`.gnu_debuglink` targets,
    /// the build-id cache `--buildid-dir`/`~/.debug`, `/usr/lib/debug`, the path itself, all
    /// under `--symfs`).
    NotFound {
        /// The DSO's name as recorded.
        dso: Arc<str>,
        /// Every path tried, in perf's order.
        tried: Arc<[PathBuf]>,
    },
    /// A symbol archive was given (`--symbols`) but holds nothing for the DSO's build id, and
    /// no file was found at the usual places either.
    NotInArchive {
        /// The DSO's name as recorded.
        dso: Arc<str>,
        /// The build id the recording names for it.
        build_id: Arc<[u8]>,
    },
    /// No file for the DSO's build id was found locally, and the debuginfod servers
    /// (`DEBUGINFOD_URLS`) had none either, or could not be asked.
    NotOnDebuginfod {
        /// The DSO's name as recorded.
        dso: Arc<str>,
        /// The build id the recording names for it.
        build_id: Arc<[u8]>,
        /// What the servers answered, in order (`debuginfod: 404`, `debuginfod: connection
        /// refused`).
        reason: Arc<str>,
    },
    /// A file was found, but its build id is not the one the recording names for the DSO (the
    /// binary was rebuilt or updated after the recording).
    BuildIdMismatch {
        /// The file found.
        path: Arc<Path>,
        /// The build id the recording names (MMAP2 record or BUILD_ID feature).
        expected: Arc<[u8]>,
        /// The file's build id.
        found: Arc<[u8]>,
    },
    /// The file exists but could not be opened, mapped or read.
    Unreadable {
        /// The file.
        path: Arc<Path>,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
    /// The file could be read but is not an ELF file `object` can parse (truncated, damaged, or
    /// another format).
    NotElf {
        /// The file.
        path: Arc<Path>,
        /// What `object` said; `None` for a well-formed file of another format.
        source: Option<object::Error>,
    },
    /// The ELF file has no function symbols: neither `.symtab` nor `.dynsym` names any (a
    /// stripped binary without dynamic symbols).
    NoSymbols {
        /// The file the symbols were to be read from.
        path: Arc<Path>,
    },
    /// The ELF file has no `.symtab` (it was stripped) and none of its dynamic symbols covers
    /// the address: its local functions have no name without its debug file.
    Stripped {
        /// The file the symbols were read from.
        path: Arc<Path>,
    },
    /// The perf map (`/tmp/perf-PID.map`, JIT symbols) of an executable anonymous map could not
    /// be read: the JIT wrote none, or it was not copied with the recording.
    PerfMapMissing {
        /// The map file's path (under `--symfs`).
        path: Arc<Path>,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
    /// The jitdump file a JIT's marker mmap names (`jit-PID.dump`) could not be read: its code
    /// is not named from it ([`JitInjector::errors`](crate::jit::JitInjector::errors)).
    JitdumpUnreadable {
        /// The dump's path (under `--symfs`).
        path: Arc<Path>,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
    /// The jitdump file was read but not used, as perf refuses it (damaged header, a version
    /// or flags perf does not know, timestamps of another clock than the recording's).
    JitdumpRefused {
        /// The dump's path.
        path: Arc<Path>,
        /// Why.
        reason: Arc<str>,
    },
    /// The kallsyms file (`--kallsyms`, the build-id cache's, or `/proc/kallsyms`) could not be
    /// read.
    KallsymsUnreadable {
        /// The file.
        path: Arc<Path>,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
    /// Every address in the kallsyms file is zero: the kernel hides them from this user
    /// (`kernel.kptr_restrict`; read it as root, or `sysctl kernel.kptr_restrict=0`).
    KernelAddressesHidden {
        /// The file.
        path: Arc<Path>,
    },
    /// No kallsyms of the recorded kernel: none in the build-id cache, and the running kernel
    /// is not the recorded one (pass `--kallsyms` to name its frames).
    NoKernelSymbols {
        /// The build-id cache's kallsyms path, when the recording names the kernel's build id.
        tried: Option<Arc<Path>>,
        /// Why the running kernel's `/proc/kallsyms` was not used.
        reason: &'static str,
    },
    /// DWARF unwinding stopped (no CFI for the address, unreadable memory, …); see
    /// [`Stop::Failed`](crate::unwind::Stop::Failed).
    Unwind(Fail),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// True for the causes that concern a whole file or DSO (every address in it is unnamed for
    /// the same reason), false for [`Error::NoMap`], [`Error::NoSymbol`] and [`Error::Unwind`].
    ///
    /// ```
    /// use perfdata_symbolize::Error;
    /// assert!(!Error::NoSymbol { addr: 0x1000 }.is_per_dso());
    /// assert!(Error::Anonymous { dso: "[heap]".into() }.is_per_dso());
    /// ```
    pub fn is_per_dso(&self) -> bool {
        !matches!(self, Error::NoMap { .. } | Error::NoSymbol { .. } | Error::Unwind(_))
    }

    /// An [`Error::Unreadable`] for `path`.
    pub(crate) fn unreadable(path: &Path, e: std::io::Error) -> Error {
        Error::Unreadable { path: Arc::from(path), source: Arc::new(e) }
    }

    /// True when the file simply is not there (as opposed to there but unusable).
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Error::Unreadable { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoMap { addr } => write!(f, "no mapping covers {addr:#x}"),
            Error::NoSymbol { addr } => write!(f, "no symbol covers {addr:#x}"),
            Error::Anonymous { dso } => write!(f, "{dso} is anonymous memory: no file to read symbols from"),
            Error::NotFound { dso, tried } => {
                write!(f, "no file found for {dso}")?;
                for (i, p) in tried.iter().enumerate() {
                    f.write_str(if i == 0 { " (tried " } else { ", " })?;
                    write!(f, "{}", p.display())?;
                }
                if !tried.is_empty() {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Error::NotInArchive { dso, build_id } => {
                write!(f, "not in the archive (no file for {dso} with build id {})", hex(build_id))
            }
            Error::NotOnDebuginfod { dso, build_id, reason } => {
                write!(f, "{reason} (no file for {dso} with build id {})", hex(build_id))
            }
            Error::BuildIdMismatch { path, expected, found } => {
                write!(f, "{} has build id {}, the recording expects {}", path.display(), hex(found), hex(expected))
            }
            Error::Unreadable { path, .. } => write!(f, "cannot read {}", path.display()),
            Error::NotElf { path, .. } => write!(f, "{} is not a readable ELF file", path.display()),
            Error::NoSymbols { path } => {
                write!(f, "{} has no function symbols (no .symtab or .dynsym)", path.display())
            }
            Error::Stripped { path } => write!(
                f,
                "{} is stripped: only its exported functions (.dynsym) have names; the others need its \
                 debug file (a -dbg/-dbgsym package, or in the build-id cache)",
                path.display()
            ),
            Error::PerfMapMissing { path, .. } => write!(f, "cannot read the perf map {}", path.display()),
            Error::JitdumpUnreadable { path, .. } => write!(f, "cannot read the jitdump {}", path.display()),
            Error::JitdumpRefused { path, reason } => write!(f, "jitdump {} not used: {reason}", path.display()),
            Error::KallsymsUnreadable { path, .. } => write!(f, "cannot read {}", path.display()),
            Error::KernelAddressesHidden { path } => {
                write!(f, "{} shows zero addresses (kptr_restrict)", path.display())
            }
            Error::NoKernelSymbols { tried, reason } => {
                write!(f, "no kallsyms for the recorded kernel: {reason}")?;
                if let Some(p) = tried {
                    write!(f, " (not in the build-id cache: {})", p.display())?;
                }
                Ok(())
            }
            Error::Unwind(fail) => write!(f, "DWARF unwinding failed: {fail}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Unreadable { source, .. }
            | Error::PerfMapMissing { source, .. }
            | Error::JitdumpUnreadable { source, .. }
            | Error::KallsymsUnreadable { source, .. } => Some(&**source),
            Error::NotElf { source: Some(e), .. } => Some(e),
            _ => None,
        }
    }
}

impl From<Fail> for Error {
    /// ```
    /// use perfdata_symbolize::{unwind::Fail, Error};
    /// let e = Error::from(Fail::NoInfo);
    /// assert_eq!(e.to_string(), "DWARF unwinding failed: no CFI for the address");
    /// ```
    fn from(fail: Fail) -> Error {
        Error::Unwind(fail)
    }
}

/// What could not be named in one DSO, for [`Symbolizer::unnamed`](crate::Symbolizer::unnamed).
///
/// ```
/// # use perfdata_symbolize::{Symbolizer, SymbolizeOptions};
/// let mut s = Symbolizer::new(SymbolizeOptions::default(), Default::default());
/// s.resolve(None, 0x1234);
/// let u = &s.unnamed()[0];
/// assert_eq!((&*u.dso, u.frames), ("[unknown]", 1));
/// assert_eq!(u.cause.to_string(), "no mapping covers 0x1234");
/// ```
#[derive(Clone, Debug)]
pub struct Unnamed {
    /// perf's dso name (`[kernel.kallsyms]`, a path, `[unknown]` for addresses without a map).
    pub dso: Arc<str>,
    /// Lookups that found no name (one per address the caller asked about; callers that cache
    /// frames ask once per distinct address).
    pub frames: u64,
    /// Why: the DSO's cause when the whole file was unusable, else the first address without a
    /// symbol.
    pub cause: Error,
}

impl fmt::Display for Unnamed {
    /// `DSO: N frames unnamed: CAUSE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.frames == 1 { "" } else { "s" };
        write!(f, "{}: {} frame{s} unnamed: {}", self.dso, self.frames, self.cause)
    }
}

/// Why a DWARF unwinding lookup or step failed (libunwind's negative return values); also
/// [`crate::unwind::Fail`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    /// `-UNW_ENOINFO`: no FDE covers the address.
    NoInfo,
    /// Any other failure: what failed.
    Other(&'static str),
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::NoInfo => f.write_str("no CFI for the address"),
            Fail::Other(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each cause from the situation that makes it: files built in a temporary directory from
    //! the fixtures of testdata/.
    use super::*;
    use crate::{Binary, SymbolizeOptions, Symbolizer};
    use perfdata_core::process::Map;
    use std::collections::HashMap;
    use std::error::Error as _;

    /// The recorded workload (testdata/README.md) and its build id.
    const SPIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/bin/spin");
    const SPIN_BUILD_ID: &str = "4019a4393ac48b472730234207e7f39e5272adc9";
    /// A kallsyms extract of the recording machine.
    const KALLSYMS: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9");

    /// A fresh temporary directory, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("perfdata-causes-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A symbolizer reading binaries from `dir` (as `--symfs`) with an empty build-id cache.
    fn symbolizer(dir: &Path, build_ids: HashMap<String, Vec<u8>>) -> Symbolizer {
        let opts = SymbolizeOptions {
            symfs: Some(dir.to_path_buf()),
            buildid_dir: Some(dir.join("buildid-cache")),
            ..Default::default()
        };
        Symbolizer::new(opts, build_ids)
    }

    /// A map of `filename` at 0x400000 from file offset 0.
    fn map(filename: &str) -> Map {
        Map::from_mmap(1, 0x40_0000, 0x10_0000, 0, filename.into(), 5, 2)
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// The address of `spin`'s function `name` in [`map`].
    fn spin_addr(name: &str) -> u64 {
        let b = Binary::open(Path::new(SPIN)).unwrap();
        let sym = b.symbols.table.iter().find(|s| s.name == name).unwrap();
        let seg = b.segments().iter().find(|s| s.vaddr <= sym.start && sym.start < s.vaddr + s.mem_size).unwrap();
        0x40_0000 + sym.start - seg.vaddr + seg.offset
    }

    #[test]
    fn named_frames_stay_named() {
        let dir = TempDir::new("named");
        std::fs::create_dir_all(dir.0.join("bin")).unwrap();
        std::fs::copy(SPIN, dir.0.join("bin/spin")).unwrap();
        let mut s = symbolizer(&dir.0, HashMap::new());
        let addr = spin_addr("leaf");
        let f = s.try_resolve(Some(&map("/bin/spin")), addr).unwrap();
        assert_eq!(f, s.resolve(Some(&map("/bin/spin")), addr));
        assert_eq!(f.symbol.as_deref(), Some("leaf"));
        assert!(s.unnamed().is_empty());
        // Offset 0 is the ELF header: no function there.
        let e = s.try_resolve(Some(&map("/bin/spin")), 0x40_0000).unwrap_err();
        assert!(matches!(e, Error::NoSymbol { addr: 0x40_0000 }), "{e}");
        assert!(!e.is_per_dso());
    }

    /// A library with exported functions (`.dynsym`) and no `.symtab`: an address between them
    /// is unnamed because the file was stripped, a cause of the whole file.
    #[test]
    fn stripped_file_with_dynamic_symbols() {
        let lib =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/cxx/root/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30");
        let dir = TempDir::new("dynsym");
        std::fs::create_dir_all(dir.0.join("lib")).unwrap();
        std::fs::copy(lib, dir.0.join("lib/libstdc++.so.6")).unwrap();
        let b = Binary::open(&dir.0.join("lib/libstdc++.so.6")).unwrap();
        assert!(!b.symbols.has_symtab && !b.symbols.table.is_empty());
        let mut s = symbolizer(&dir.0, HashMap::new());
        let m = map("/lib/libstdc++.so.6");
        // Offset 0 is the ELF header: no function there.
        let e = s.try_resolve(Some(&m), 0x40_0000).unwrap_err();
        let Error::Stripped { path } = &e else { panic!("{e}") };
        assert_eq!(&**path, dir.0.join("lib/libstdc++.so.6"));
        assert!(e.is_per_dso());
        assert!(e.to_string().ends_with("is stripped: only its exported functions (.dynsym) have names; the others need its debug file (a -dbg/-dbgsym package, or in the build-id cache)"), "{e}");
        s.resolve(Some(&m), 0x40_0008);
        let summary = s.unnamed_summary().unwrap();
        assert!(summary.starts_with("2 addresses unnamed in 1 DSO: /lib/libstdc++.so.6 (2): "), "{summary}");
    }

    #[test]
    fn missing_file_lists_the_paths_tried() {
        let dir = TempDir::new("missing");
        let bid = unhex(SPIN_BUILD_ID);
        let mut s = symbolizer(&dir.0, HashMap::from([("/usr/bin/gone".to_string(), bid)]));
        let e = s.try_resolve(Some(&map("/usr/bin/gone")), 0x40_1000).unwrap_err();
        let Error::NotFound { dso, tried } = &e else { panic!("{e}") };
        assert_eq!(&**dso, "/usr/bin/gone");
        let tried: Vec<String> = tried.iter().map(|p| p.strip_prefix(&dir.0).unwrap().display().to_string()).collect();
        let cache = format!("buildid-cache/.build-id/40/{}", &SPIN_BUILD_ID[2..]);
        assert_eq!(
            tried,
            [
                format!("{cache}/elf"),
                format!("{cache}/debug"),
                "usr/lib/debug/usr/bin/gone.debug".into(),
                "usr/lib/debug/usr/bin/gone".into(),
                format!("usr/lib/debug/.build-id/40/{}.debug", &SPIN_BUILD_ID[2..]),
                "usr/bin/gone".into(),
            ]
        );
        assert!(e.to_string().starts_with("no file found for /usr/bin/gone (tried "), "{e}");
        // The unwinder's lookup (the runtime file) says the same, with its own places.
        let Err(Error::NotFound { tried, .. }) = s.try_runtime_binary(&map("/usr/bin/gone")) else { panic!() };
        assert_eq!(tried.len(), 2);
    }

    #[test]
    fn cause_is_found_once_and_kept() {
        let dir = TempDir::new("once");
        let mut s = symbolizer(&dir.0, HashMap::new());
        let m = map("/usr/lib/libgone.so");
        let first = s.try_resolve(Some(&m), 0x40_1000).unwrap_err();
        for a in 0..100 {
            let again = s.try_resolve(Some(&m), 0x40_2000 + a).unwrap_err();
            let (Error::NotFound { tried: t1, .. }, Error::NotFound { tried: t2, .. }) = (&first, &again) else {
                panic!("{again}")
            };
            // The same cause, not a new search.
            assert!(Arc::ptr_eq(t1, t2));
        }
        s.resolve(Some(&m), 0x40_1000);
        let u = s.unnamed();
        assert_eq!(u.len(), 1);
        assert_eq!((&*u[0].dso, u[0].frames), ("/usr/lib/libgone.so", 102));
        assert!(matches!(u[0].cause, Error::NotFound { .. }));
    }

    #[test]
    fn wrong_build_id() {
        let dir = TempDir::new("buildid");
        std::fs::create_dir_all(dir.0.join("bin")).unwrap();
        std::fs::copy(SPIN, dir.0.join("bin/spin")).unwrap();
        let recorded = vec![0xab; 20];
        let mut s = symbolizer(&dir.0, HashMap::from([("/bin/spin".to_string(), recorded.clone())]));
        let e = s.try_resolve(Some(&map("/bin/spin")), spin_addr("leaf")).unwrap_err();
        let Error::BuildIdMismatch { path, expected, found } = &e else { panic!("{e}") };
        assert_eq!(&**path, dir.0.join("bin/spin"));
        assert_eq!((&**expected, &**found), (recorded.as_slice(), unhex(SPIN_BUILD_ID).as_slice()));
        assert!(e
            .to_string()
            .ends_with(&format!("has build id {SPIN_BUILD_ID}, the recording expects {}", "ab".repeat(20))));
        // No name, as before: perf rejects the file.
        assert_eq!(s.resolve(Some(&map("/bin/spin")), spin_addr("leaf")).symbol, None);
        assert!(matches!(s.try_runtime_binary(&map("/bin/spin")), Err(Error::BuildIdMismatch { .. })));
    }

    /// An ELF header and nothing else: what `strip` leaves of a static binary's symbols.
    fn stripped_elf() -> Vec<u8> {
        let mut h = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        h.extend(2u16.to_le_bytes()); // e_type: ET_EXEC
        h.extend(62u16.to_le_bytes()); // e_machine: x86_64
        h.extend(1u32.to_le_bytes()); // e_version
        h.extend([0; 24]); // e_entry, e_phoff, e_shoff
        h.extend(0u32.to_le_bytes()); // e_flags
        for half in [64u16, 56, 0, 64, 0, 0] {
            h.extend(half.to_le_bytes()); // e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
        }
        h
    }

    #[test]
    fn stripped_binary() {
        let dir = TempDir::new("stripped");
        std::fs::create_dir_all(dir.0.join("bin")).unwrap();
        std::fs::write(dir.0.join("bin/stripped"), stripped_elf()).unwrap();
        let mut s = symbolizer(&dir.0, HashMap::new());
        let e = s.try_resolve(Some(&map("/bin/stripped")), 0x40_0010).unwrap_err();
        let Error::NoSymbols { path } = &e else { panic!("{e}") };
        assert_eq!(&**path, dir.0.join("bin/stripped"));
        assert!(e.is_per_dso());
        assert!(e.to_string().ends_with("has no function symbols (no .symtab or .dynsym)"), "{e}");
    }

    #[test]
    fn truncated_and_foreign_files() {
        let dir = TempDir::new("truncated");
        std::fs::create_dir_all(dir.0.join("bin")).unwrap();
        let spin = std::fs::read(SPIN).unwrap();
        // Cut before its section headers.
        std::fs::write(dir.0.join("bin/spin"), &spin[..4096]).unwrap();
        std::fs::write(dir.0.join("bin/script"), b"#!/bin/sh\nexit 0\n").unwrap();
        let mut s = symbolizer(&dir.0, HashMap::new());
        for name in ["/bin/spin", "/bin/script"] {
            let e = s.try_resolve(Some(&map(name)), 0x40_1000).unwrap_err();
            let Error::NotElf { path, source } = &e else { panic!("{e}") };
            assert_eq!(&**path, dir.0.join(&name[1..]));
            assert!(source.is_some(), "object's error for {name}");
            assert!(e.source().is_some());
            assert!(e.to_string().ends_with("is not a readable ELF file"), "{e}");
        }
        // A directory where the file should be.
        std::fs::create_dir_all(dir.0.join("bin/dir")).unwrap();
        let e = Binary::try_open(&dir.0.join("bin/dir")).unwrap_err();
        assert!(matches!(&e, Error::Unreadable { source, .. } if source.kind() == std::io::ErrorKind::InvalidInput));
    }

    #[test]
    fn perf_map_missing() {
        let dir = TempDir::new("perfmap");
        let mut s = symbolizer(&dir.0, HashMap::new());
        // Executable anonymous memory is named after the process's perf map (perf's `map__new`).
        let jit = Map::from_mmap(4242, 0x7f00_0000, 0x1000, 0, "//anon".into(), 7, 0x22);
        let e = s.try_resolve(Some(&jit), 0x7f00_0010).unwrap_err();
        let Error::PerfMapMissing { path, source } = &e else { panic!("{e}") };
        assert_eq!(&**path, dir.0.join("tmp/perf-4242.map"));
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        // With the map: named, and a gap in it is a missing symbol.
        std::fs::create_dir_all(dir.0.join("tmp")).unwrap();
        std::fs::write(dir.0.join("tmp/perf-77.map"), "7f000000 10 jitted_fn\n").unwrap();
        let jit = Map::from_mmap(77, 0x7f00_0000, 0x1000, 0, "//anon".into(), 7, 0x22);
        assert_eq!(s.try_resolve(Some(&jit), 0x7f00_0008).unwrap().symbol.as_deref(), Some("jitted_fn"));
        assert!(matches!(s.try_resolve(Some(&jit), 0x7f00_0020), Err(Error::NoSymbol { addr: 0x7f00_0020 })));
        // Anonymous data memory has no file at all.
        let data = Map::from_mmap(77, 0x1000, 0x1000, 0, "//anon".into(), 3, 0x22);
        assert!(matches!(s.try_resolve(Some(&data), 0x1008), Err(Error::Anonymous { .. })));
    }

    /// The kernel image's map.
    fn kernel_map() -> Map {
        Map { start: 0xffff_ffff_8100_0000, end: !0, filename: "[kernel.kallsyms]_text".into(), ..map("") }
    }

    fn kernel(kallsyms: &Path) -> Symbolizer {
        let opts = SymbolizeOptions { kallsyms: Some(kallsyms.to_path_buf()), ..Default::default() };
        Symbolizer::new(opts, HashMap::new())
    }

    #[test]
    fn kallsyms_with_zero_addresses() {
        let dir = TempDir::new("kptr");
        // What /proc/kallsyms shows a user with kptr_restrict set: every address zero.
        let text = std::fs::read_to_string(KALLSYMS).unwrap();
        let zeroed: String = text.lines().map(|l| format!("{:016x}{}\n", 0, &l[16..])).collect();
        let path = dir.0.join("kallsyms");
        std::fs::write(&path, zeroed).unwrap();
        let first = u64::from_str_radix(&text[..16], 16).unwrap();
        // The real extract names the address.
        let mut real = kernel(Path::new(KALLSYMS));
        assert!(real.try_resolve(Some(&kernel_map()), first).unwrap().symbol.is_some());
        let mut s = kernel(&path);
        let e = s.try_resolve(Some(&kernel_map()), first).unwrap_err();
        assert!(matches!(&e, Error::KernelAddressesHidden { path: p } if **p == *path), "{e}");
        s.resolve(Some(&kernel_map()), first + 16);
        let u = s.unnamed();
        assert_eq!(
            format!("kernel frames unnamed: {}", u[0].cause),
            format!("kernel frames unnamed: {} shows zero addresses (kptr_restrict)", path.display())
        );
        assert_eq!((&*u[0].dso, u[0].frames), ("[kernel.kallsyms]", 2));
    }

    #[test]
    fn kallsyms_unreadable() {
        let dir = TempDir::new("nokallsyms");
        let mut s = kernel(&dir.0.join("kallsyms"));
        let e = s.try_resolve(Some(&kernel_map()), 0xffff_ffff_8100_0000).unwrap_err();
        let Error::KallsymsUnreadable { source, .. } = &e else { panic!("{e}") };
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        assert!(e.source().is_some());
    }

    #[test]
    fn running_kernel_is_not_the_recorded_one() {
        let dir = TempDir::new("otherkernel");
        let host = crate::Host {
            release: dir.0.join("osrelease"),
            notes: dir.0.join("notes"),
            kallsyms: PathBuf::from(KALLSYMS),
        };
        std::fs::write(&host.release, "6.1.0-running\n").unwrap();
        let opts = SymbolizeOptions { buildid_dir: Some(dir.0.join("cache")), ..Default::default() };
        let mut s = Symbolizer::new(opts.clone(), HashMap::new());
        s.host = host.clone();
        s.set_kernel_release(Some("6.1.0-recorded"));
        let e = s.try_resolve(Some(&kernel_map()), 0xffff_ffff_8100_0000).unwrap_err();
        assert!(
            matches!(e, Error::NoKernelSymbols { tried: None, reason: "the running kernel is another release" }),
            "{e}"
        );
        // With a build id: the build-id cache was tried; the running kernel's notes are missing.
        let bid = HashMap::from([("[kernel.kallsyms]".to_string(), vec![1, 2, 3, 4])]);
        let mut s = Symbolizer::new(opts, bid);
        s.host = host;
        let e = s.try_resolve(Some(&kernel_map()), 0xffff_ffff_8100_0000).unwrap_err();
        let Error::NoKernelSymbols { tried: Some(p), .. } = &e else { panic!("{e}") };
        assert_eq!(**p, dir.0.join("cache/[kernel.kallsyms]/01020304/kallsyms"));
        assert!(e.to_string().starts_with("no kallsyms for the recorded kernel: the running kernel's build id"), "{e}");
    }

    /// A kernel module: found under `--symfs` and named; missing; another build.
    #[test]
    fn kernel_module_files() {
        use perfdata_core::process::{Machine, MachineEvent};
        const DEMO: u64 = 0xffff_ffff_c0a0_0000;
        const KO: &str = "/lib/modules/6.18.44-fc-v669/kernel/drivers/misc/kmod-demo.ko";
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/kmod/root"));
        let dir = TempDir::new("kmod");
        let run = |symfs: &Path, build_id: Option<Vec<u8>>| {
            let opts = SymbolizeOptions {
                symfs: Some(symfs.to_path_buf()),
                buildid_dir: Some(dir.0.join("cache")),
                kallsyms: Some(KALLSYMS.into()),
                ..Default::default()
            };
            let mut s = Symbolizer::new(opts, HashMap::new());
            let mut m = Machine::new();
            for (start, len, name) in
                [(0xffff_ffff_8100_0000, 0x120_bb08, "[kernel.kallsyms]_text"), (DEMO, 0x4000, KO)]
            {
                let (kind, mut map) = Map::from_kernel_mmap(start, len, 0, name.into()).unwrap();
                map.build_id = build_id.clone().filter(|_| name == KO);
                m.apply(MachineEvent::KernelMap { kind, map });
            }
            (DEMO..DEMO + 0x1000).map(|a| s.try_resolve_kernel(&m, a)).collect::<Vec<_>>()
        };
        assert!(run(root, None).iter().any(|r| r.as_ref().is_ok_and(|f| f.symbol.is_some())));
        let missing = run(&dir.0, None);
        let Some(Err(Error::NotFound { dso, tried })) = missing.first() else { panic!("{:?}", missing.first()) };
        assert_eq!((&**dso, &**tried), ("[kmod_demo]", &[dir.0.join(&KO[1..])][..]));
        let other = run(root, Some(vec![0xab; 20]));
        assert!(other.iter().all(|r| matches!(r, Err(Error::BuildIdMismatch { .. }))), "{:?}", other.first());
    }

    #[test]
    fn summary_orders_and_prefers_the_dso_cause() {
        let dir = TempDir::new("summary");
        std::fs::create_dir_all(dir.0.join("bin")).unwrap();
        std::fs::copy(SPIN, dir.0.join("bin/spin")).unwrap();
        let mut s = symbolizer(&dir.0, HashMap::new());
        for a in 0..3 {
            s.resolve(Some(&map("/bin/spin")), 0x40_0000 + a);
        }
        s.resolve(Some(&map("/bin/spin")), spin_addr("leaf"));
        s.resolve(None, 0x10);
        s.resolve(Some(&map("/lib/gone.so")), 0x40_0000);
        let lines: Vec<String> = s.unnamed().iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "/bin/spin: 3 frames unnamed: no symbol covers 0x400000");
        assert!(lines[1].starts_with("/lib/gone.so: 1 frame unnamed: no file found for /lib/gone.so (tried "));
        assert_eq!(lines[2], "[unknown]: 1 frame unnamed: no mapping covers 0x10");
    }
}
