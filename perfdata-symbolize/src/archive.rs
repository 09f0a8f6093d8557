//! Symbol archives: the files a recording's symbolization read, keyed by build id, in one
//! zstd-compressed tar (`perfdata archive`), and their safe unpacking on another machine
//! (`--symbols`). The layout is perf's build-id cache (docs/archive.md):
//!
//! - `.build-id/xx/rest/elf`, `.build-id/xx/rest/debug`, `.build-id/xx/rest/vdso`: ELF files by
//!   build id (real directories, not perf's links to `PATH/BUILD_ID`);
//! - `[kernel.kallsyms]/BUILD_ID/kallsyms`: the recorded kernel's symbols;
//! - `perf-maps/perf-PID.map`: the `/tmp/perf-PID.map` files the recording used;
//! - `jitdump/jit-PID.dump`: the jitdump files whose JIT code the recording's frames are named from.
//!
//! `--symbols` also reads perf's own `perf archive` output (a bzip2-compressed tar of
//! `~/.debug`), rewriting its names into this layout ([`unpack_in`]).
//!
//! What goes in is what the symbolizer opened: a [`ReadLog`] given in
//! [`SymbolizeOptions::read_log`](crate::SymbolizeOptions::read_log) collects it during a run.

use std::fmt;
use std::io::{BufRead, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::files::MemFiles;
use crate::reduce::Keep;
use perfdata_core::names::hex;

/// The directory of perf-map copies in an archive.
pub const PERF_MAPS: &str = "perf-maps";

/// The archive's directory of jitdump files (`jitdump/jit-PID.dump`).
pub const JITDUMPS: &str = "jitdump";

/// The archive's index of DSO names: `BUILD_ID DSO` lines, so that a DSO the recording gives no
/// build id for (perf records them only for DSOs a sample's own address hit) is found by name.
pub const DSO_INDEX: &str = "perfdata-dsos.txt";

/// Where files of DSOs without any build id (neither recorded nor in the file) are kept, under
/// their recorded path.
pub const BY_PATH: &str = ".by-path";

/// `.by-path/PATH` for the DSO at the absolute `dso` path, `None` for a path that is not plainly
/// absolute (`..`, `.` components).
pub fn by_path(dso: &str) -> Option<PathBuf> {
    let rest = dso.strip_prefix('/')?;
    let rel = safe_relative(Path::new(rest)).ok()?;
    let plain = Path::new(rest).components().all(|c| matches!(c, Component::Normal(_)));
    plain.then(|| Path::new(BY_PATH).join(rel))
}

/// Read the [`DSO_INDEX`] of the unpacked archive `dir`: build ids by DSO name (empty when there
/// is none; lines that do not parse are left out).
pub fn read_dso_index(dir: &Path) -> std::collections::HashMap<String, Vec<u8>> {
    parse_dso_index(&std::fs::read_to_string(dir.join(DSO_INDEX)).unwrap_or_default())
}

/// The build ids by DSO name of a [`DSO_INDEX`]'s text.
pub fn parse_dso_index(text: &str) -> std::collections::HashMap<String, Vec<u8>> {
    text.lines()
        .filter_map(|l| {
            let (bid, dso) = l.split_once(' ')?;
            Some((dso.to_string(), parse_hex(bid)?))
        })
        .collect()
}

/// Bytes from hex digits (an even number of them).
fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i.checked_add(2)?)?, 16).ok()).collect()
}

/// What a file the symbolizer read is to it, which decides its name in the archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UsedKind {
    /// A binary with its code (a runtime image, or the file itself read for symbols): `elf`.
    Elf,
    /// A separate debug file (code sections without contents): `debug`.
    Debug,
    /// The vDSO image: `vdso`.
    Vdso,
    /// The kernel's kallsyms: `[kernel.kallsyms]/BUILD_ID/kallsyms`.
    Kallsyms,
    /// A `/tmp/perf-PID.map` file: `perf-maps/perf-PID.map`.
    PerfMap,
    /// A JIT's `jit-PID.dump` file: `jitdump/jit-PID.dump`.
    Jitdump,
}

/// One file the symbolizer read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UsedFile {
    /// What it is.
    pub kind: UsedKind,
    /// Where it was read.
    pub path: PathBuf,
    /// Its build id (the recorded kernel's for kallsyms), when known.
    pub build_id: Option<Vec<u8>>,
    /// The DSO it was read for, as the recording names it (for ELF files).
    pub dso: Option<String>,
}

impl UsedFile {
    /// Its name in an archive, `None` when it cannot be keyed (an ELF file or kallsyms without
    /// a build id, a perf map without a file name).
    pub fn archive_name(&self) -> Option<String> {
        let bid = self.build_id.as_deref().map(hex);
        let by_id = |name: &str| match bid.as_deref() {
            Some(b) => Some(format!(".build-id/{}/{}/{name}", b.get(..2)?, b.get(2..).filter(|t| !t.is_empty())?)),
            None => Some(format!("{}/{name}", by_path(self.dso.as_deref()?)?.display())),
        };
        match self.kind {
            UsedKind::Elf => by_id("elf"),
            UsedKind::Debug => by_id("debug"),
            UsedKind::Vdso => by_id("vdso"),
            UsedKind::Kallsyms => bid.map(|b| format!("[kernel.kallsyms]/{b}/kallsyms")),
            UsedKind::PerfMap => {
                let name = self.path.file_name()?.to_str()?;
                Some(format!("{PERF_MAPS}/{name}"))
            }
            UsedKind::Jitdump => {
                let name = self.path.file_name()?.to_str()?;
                Some(format!("{JITDUMPS}/{name}"))
            }
        }
    }
}

/// The files symbolizers read, shared by every symbolizer made with the same options (the
/// unwinder's has its own).
#[derive(Clone, Default)]
pub struct ReadLog(Arc<Mutex<Vec<UsedFile>>>);

impl fmt::Debug for ReadLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReadLog")
    }
}

impl ReadLog {
    /// Note a file read.
    pub(crate) fn push(&self, file: UsedFile) {
        if let Ok(mut v) = self.0.lock() {
            if !v.contains(&file) {
                v.push(file);
            }
        }
    }

    /// The files noted so far, sorted, each once.
    pub fn files(&self) -> Vec<UsedFile> {
        let mut v = self.0.lock().map(|v| v.clone()).unwrap_or_default();
        v.sort();
        v.dedup();
        v
    }
}

/// Why an archive could not be written or read.
#[derive(Debug)]
pub struct ArchiveError {
    what: String,
    source: Option<std::io::Error>,
}

impl ArchiveError {
    fn io(what: String, source: std::io::Error) -> ArchiveError {
        ArchiveError { what, source: Some(source) }
    }

    fn refused(what: String) -> ArchiveError {
        ArchiveError { what, source: None }
    }
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        if let Some(e) = &self.source {
            write!(f, ": {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArchiveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

/// What [`write()`] put in an archive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveStats {
    /// Entries written.
    pub entries: usize,
    /// ELF files among them.
    pub binaries: usize,
    /// Bytes of the files read.
    pub input_bytes: u64,
    /// Bytes stored before compression: the files, ELF files reduced as [`write_reduced`] says.
    pub stored_bytes: u64,
    /// Bytes of the archive written.
    pub output_bytes: u64,
    /// Files that could not be keyed (no build id), by path.
    pub skipped: Vec<PathBuf>,
}

/// The most bytes of a text file (kallsyms, a perf map) taken into an archive.
const MAX_TEXT: u64 = 1 << 30;

/// zstd level of archives: most of the ratio of the high levels at a fraction of their time.
const LEVEL: i32 = 9;

/// Write `files` (as [`ReadLog::files`] gives them) into a zstd-compressed tar at `out`, each
/// under its [`UsedFile::archive_name`] (the first file of a name wins), with fixed modes and
/// times so the same inputs give the same archive. ELF files are stored whole.
pub fn write(out: &Path, files: &[UsedFile]) -> Result<ArchiveStats, ArchiveError> {
    write_reduced(out, files, None)
}

/// [`write()`], ELF files reduced to what `keep` says ([`crate::reduce`]) when given: their code
/// and data are left out, their symbols, unwind tables, section and program headers kept. A file
/// that cannot be reduced is stored whole.
pub fn write_reduced(out: &Path, files: &[UsedFile], keep: Option<Keep>) -> Result<ArchiveStats, ArchiveError> {
    let err = |e| ArchiveError::io(format!("cannot write {}", out.display()), e);
    let file = std::fs::File::create(out).map_err(err)?;
    let enc = zstd::Encoder::new(std::io::BufWriter::new(file), LEVEL).map_err(err)?;
    let mut tar = tar::Builder::new(enc);
    let mut stats = ArchiveStats::default();
    let mut names = std::collections::HashSet::new();
    for f in files {
        let Some(name) = f.archive_name() else {
            stats.skipped.push(f.path.clone());
            continue;
        };
        if !names.insert(name.clone()) {
            continue;
        }
        let read_err = |e| ArchiveError::io(format!("cannot read {}", f.path.display()), e);
        // This process's vDSO (crate::vdso) is no file: its image, read from memory.
        let image = if crate::vdso::is_running(&f.path) { Some(crate::vdso::image().map_err(read_err)?) } else { None };
        let (mut src, size): (Box<dyn Read>, u64) = match image {
            Some(image) => {
                let len = image.len() as u64;
                (Box::new(std::io::Cursor::new(image)), len)
            }
            None => {
                let file = std::fs::File::open(&f.path).map_err(read_err)?;
                let len = file.metadata().map_err(read_err)?.len();
                (Box::new(file), len)
            }
        };
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        let len = if matches!(f.kind, UsedKind::Kallsyms | UsedKind::PerfMap) {
            // procfs files say they are empty: read them whole (bounded).
            let mut text = Vec::new();
            (&mut src).take(MAX_TEXT).read_to_end(&mut text).map_err(read_err)?;
            let len = text.len() as u64;
            header.set_size(len);
            tar.append_data(&mut header, &name, text.as_slice()).map_err(err)?;
            stats.stored_bytes = stats.stored_bytes.saturating_add(len);
            len
        } else if let Some(keep) = keep.filter(|_| f.kind != UsedKind::Jitdump) {
            let mut whole = Vec::new();
            src.read_to_end(&mut whole).map_err(read_err)?;
            let small = crate::reduce::reduce(&whole, keep);
            let stored = small.as_deref().unwrap_or(&whole);
            header.set_size(stored.len() as u64);
            tar.append_data(&mut header, &name, stored).map_err(err)?;
            stats.stored_bytes = stats.stored_bytes.saturating_add(stored.len() as u64);
            whole.len() as u64
        } else {
            let len = size;
            header.set_size(len);
            tar.append_data(&mut header, &name, (&mut src).take(len)).map_err(err)?;
            stats.stored_bytes = stats.stored_bytes.saturating_add(len);
            len
        };
        stats.entries = stats.entries.saturating_add(1);
        if !matches!(f.kind, UsedKind::Kallsyms | UsedKind::PerfMap) {
            stats.binaries = stats.binaries.saturating_add(1);
        }
        stats.input_bytes = stats.input_bytes.saturating_add(len);
    }
    let mut index = String::new();
    let mut indexed = std::collections::HashSet::new();
    for f in files {
        if let (Some(dso), Some(bid), Some(_)) = (&f.dso, &f.build_id, f.archive_name()) {
            if !dso.contains('\n') && indexed.insert(dso.clone()) {
                index.push_str(&format!("{} {dso}\n", hex(bid)));
            }
        }
    }
    let mut header = tar::Header::new_gnu();
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_size(index.len() as u64);
    tar.append_data(&mut header, DSO_INDEX, index.as_bytes()).map_err(err)?;
    let enc = tar.into_inner().map_err(err)?;
    let mut w = enc.finish().map_err(err)?;
    w.flush().map_err(err)?;
    drop(w);
    stats.output_bytes = std::fs::metadata(out).map_err(err)?.len();
    Ok(stats)
}

/// Where archives are unpacked: `$XDG_CACHE_HOME/perfdata/archives`, else
/// `~/.cache/perfdata/archives`, else the temporary directory's `perfdata-archives`.
pub fn cache_root() -> PathBuf {
    let env = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("XDG_CACHE_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".cache")))
        .map(|c| c.join("perfdata").join("archives"))
        .unwrap_or_else(|| std::env::temp_dir().join("perfdata-archives"))
}

/// FNV-1a over the archive's bytes: the name of its unpacked directory.
fn content_hash(path: &Path) -> std::io::Result<u64> {
    let mut f = std::fs::File::open(path)?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else { break };
        for &b in chunk {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    Ok(h)
}

/// The most entries an archive may unpack to.
const MAX_ENTRIES: u64 = 1 << 20;

/// The most bytes an archive may unpack to (a 300 MB recording's binaries are a few GB at most).
const MAX_UNPACKED: u64 = 64 << 30;

/// The marker written last into an unpacked directory: its presence means complete.
const COMPLETE: &str = ".perfdata-complete";

/// Unpack the archive at `archive` under [`cache_root`] (a directory named by its contents'
/// hash, reused when complete) and return that directory, to give as
/// [`SymbolizeOptions::archive`](crate::SymbolizeOptions::archive).
pub fn unpack(archive: &Path) -> Result<PathBuf, ArchiveError> {
    unpack_in(archive, &cache_root())
}

/// [`unpack`] under `root`. Only regular files and directories are written, each strictly
/// inside the target directory: an entry with an absolute path, a `..` component, or of another
/// type (links, devices) refuses the whole archive, and a truncated or damaged archive is an
/// error; either way the partial directory is removed.
///
/// perf's own archive (`perf archive`'s `FILE.tar.bz2`, told apart by bzip2's magic `BZh`) is
/// read too: its `PATH/BUILD_ID/elf`, `debug` and `vdso` files are written where ours has them
/// (`.build-id/xx/yyy…/NAME`), its kallsyms as they are, and the paths go into the
/// [`DSO_INDEX`]; its `.build-id` links and `probes` files are left out (an entry with an
/// absolute path or a `..` component still refuses the archive).
pub fn unpack_in(archive: &Path, root: &Path) -> Result<PathBuf, ArchiveError> {
    let name = archive.display();
    let hash = content_hash(archive).map_err(|e| ArchiveError::io(format!("cannot read {name}"), e))?;
    let dir = root.join(format!("{hash:016x}"));
    if dir.join(COMPLETE).is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(root).map_err(|e| ArchiveError::io(format!("cannot create {}", root.display()), e))?;
    // Unique to this call: two threads may unpack the same archive at once (a dataset export
    // of recordings that share their binaries).
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = root.join(format!("{hash:016x}.tmp-{}-{call}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = extract(archive, &tmp);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let mark = std::fs::write(tmp.join(COMPLETE), b"");
    if let Err(e) = mark {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(ArchiveError::io(format!("cannot write {}", tmp.display()), e));
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process or thread unpacked it meanwhile: use theirs.
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join(COMPLETE).is_file() {
            return Err(ArchiveError::refused(format!("cannot move the unpacked {name} to {}", dir.display())));
        }
    }
    Ok(dir)
}

/// The relative path of an entry, or why it is refused.
fn safe_relative(path: &Path) -> Result<PathBuf, &'static str> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => return Err("a `..` component"),
            Component::RootDir | Component::Prefix(_) => return Err("an absolute path"),
        }
    }
    if out.as_os_str().is_empty() {
        return Err("an empty path");
    }
    Ok(out)
}

/// The archive `name` could not be read.
fn damaged(name: &str, e: std::io::Error) -> ArchiveError {
    ArchiveError::io(format!("{name} is not a readable symbol archive (truncated or damaged?)"), e)
}

/// One entry of an archive being read: a directory, or a file to read to its end.
enum Entry<'e> {
    Dir,
    File(&'e mut dyn Read),
}

/// The two kinds of archive `--symbols` reads, told apart by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `perfdata archive`'s: a zstd-compressed tar in the build-id cache's layout.
    Ours,
    /// `perf archive`'s: a bzip2-compressed tar of perf's build-id cache as it lies in `~/.debug`
    /// (`PATH/BUILD_ID/elf` files, `.build-id/xx/yyy…` links to their directories).
    Perf,
}

impl Format {
    /// The format of an archive starting with `head`: bzip2's `BZh` is perf's, anything else is
    /// read as ours (and refused as damaged when it is not).
    fn of(head: &[u8]) -> Format {
        if head.starts_with(b"BZh") {
            Format::Perf
        } else {
            Format::Ours
        }
    }
}

/// Where a file of a `perf archive` lies in our layout: `PATH/BUILD_ID/elf` (`debug`, `vdso`)
/// becomes `.build-id/xx/yyy…/elf`, `[kernel.kallsyms]/BUILD_ID/kallsyms` stays; other files
/// (`probes`, the links' targets seen again) are left out (`None`). `index` gets `BUILD_ID /PATH`
/// for the [`DSO_INDEX`], so a DSO the recording gives no build id for is found by its path.
fn perf_entry(rel: &Path, index: &mut String) -> Option<PathBuf> {
    let file = rel.file_name()?.to_str()?;
    let dir = rel.parent()?;
    let bid = dir.file_name()?.to_str()?;
    let dso = dir.parent()?.to_str()?;
    let valid = bid.len() >= 4 && bid.len() <= 128 && bid.len() % 2 == 0 && bid.bytes().all(|b| b.is_ascii_hexdigit());
    if !valid || dso.is_empty() {
        return None;
    }
    let bid = bid.to_ascii_lowercase();
    match file {
        "kallsyms" if dso == "[kernel.kallsyms]" => Some(rel.to_path_buf()),
        "elf" | "debug" | "vdso" => {
            if !dso.starts_with('[') && !dso.starts_with(".build-id") && !dso.contains('\n') {
                let line = format!("{bid} /{dso}\n");
                if !index.contains(&line) {
                    index.push_str(&line);
                }
            }
            let (head, tail) = (bid.get(..2)?, bid.get(2..)?);
            Some(Path::new(".build-id").join(head).join(tail).join(file))
        }
        _ => None,
    }
}

/// Read the archive `reader` named `name`, ours or `perf archive`'s ([`Format`]), handing each
/// entry's safe relative path in our layout to `put`; refuses what [`unpack_in`] refuses, and
/// more than `max_bytes` in all.
fn each_entry(
    mut reader: impl BufRead,
    name: &str,
    max_bytes: u64,
    mut put: impl FnMut(&Path, Entry<'_>) -> Result<(), ArchiveError>,
) -> Result<(), ArchiveError> {
    let damaged = |e| damaged(name, e);
    let format = Format::of(reader.fill_buf().map_err(damaged)?);
    let dec: Box<dyn Read + '_> = match format {
        Format::Ours => Box::new(zstd::Decoder::with_buffer(reader).map_err(damaged)?),
        Format::Perf => Box::new(bzip2::bufread::MultiBzDecoder::new(reader)),
    };
    let mut tar = tar::Archive::new(dec);
    let mut any = false;
    let mut index = String::new();
    let (mut entries, mut bytes) = (0u64, 0u64);
    for entry in tar.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        entries = entries.saturating_add(1);
        bytes = bytes.saturating_add(entry.size());
        if entries > MAX_ENTRIES || bytes > max_bytes {
            return Err(ArchiveError::refused(format!(
                "{name} unpacks to more than {MAX_ENTRIES} entries or {} MB: refused",
                max_bytes >> 20
            )));
        }
        let raw = entry.path_bytes().into_owned();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let rel = safe_relative(Path::new(&*shown))
            .map_err(|why| ArchiveError::refused(format!("{name}: entry {shown:?} refused: {why}")))?;
        let kind = entry.header().entry_type();
        if format == Format::Perf {
            // perf's links and directories are not needed: its files are put where our layout
            // has them, and nothing else is written.
            if let (tar::EntryType::Regular | tar::EntryType::Continuous, Some(to)) =
                (kind, perf_entry(&rel, &mut index))
            {
                put(&to, Entry::File(&mut entry))?;
                any = true;
            }
            continue;
        }
        match kind {
            tar::EntryType::Directory => put(&rel, Entry::Dir)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => put(&rel, Entry::File(&mut entry))?,
            other => {
                return Err(ArchiveError::refused(format!(
                    "{name}: entry {shown:?} refused: only files and directories are unpacked, not {other:?}"
                )))
            }
        }
        any = true;
    }
    if !any {
        return Err(ArchiveError::refused(format!("{name} holds no entries")));
    }
    if !index.is_empty() {
        put(Path::new(DSO_INDEX), Entry::File(&mut index.as_bytes()))?;
    }
    Ok(())
}

fn extract(archive: &Path, dest: &Path) -> Result<(), ArchiveError> {
    let name = archive.display().to_string();
    let file = std::fs::File::open(archive).map_err(|e| ArchiveError::io(format!("cannot read {name}"), e))?;
    let create = |d: &Path| {
        std::fs::create_dir_all(d).map_err(|e| ArchiveError::io(format!("cannot create {}", d.display()), e))
    };
    create(dest)?;
    each_entry(std::io::BufReader::new(file), &name, MAX_UNPACKED, |rel, entry| {
        let target = dest.join(rel);
        match entry {
            Entry::Dir => create(&target),
            Entry::File(data) => {
                if let Some(parent) = target.parent() {
                    create(parent)?;
                }
                let out_err = |e| ArchiveError::io(format!("cannot write {}", target.display()), e);
                let mut out = std::fs::File::create(&target).map_err(out_err)?;
                // A failed copy is the archive's (a truncated zstd stream) more often than the disk's.
                std::io::copy(data, &mut out).map_err(|e| damaged(&name, e))?;
                Ok(())
            }
        }
    })
}

/// Cap on what [`unpack_to_memory`] holds: a browser tab's memory, not a disk.
const MAX_IN_MEMORY: u64 = 2 << 30;

/// Unpack the archive `bytes` (named `name` in messages) into memory, its files under `root`,
/// for a symbolizer without a file system: give the result as
/// [`SymbolizeOptions::files`](crate::SymbolizeOptions::files) and `root` as
/// [`SymbolizeOptions::archive`](crate::SymbolizeOptions::archive). Refuses what [`unpack_in`]
/// refuses.
pub fn unpack_to_memory(bytes: &[u8], name: &str, root: &Path) -> Result<MemFiles, ArchiveError> {
    let mut files = MemFiles::new();
    each_entry(bytes, name, MAX_IN_MEMORY, |rel, entry| {
        if let Entry::File(data) = entry {
            let mut buf = Vec::new();
            data.read_to_end(&mut buf).map_err(|e| damaged(name, e))?;
            files.insert(root.join(rel), buf);
        }
        Ok(())
    })?;
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_paths() {
        assert!(safe_relative(Path::new("../x")).is_err());
        assert!(safe_relative(Path::new("a/../../x")).is_err());
        assert!(safe_relative(Path::new("/etc/x")).is_err());
        assert_eq!(safe_relative(Path::new("./a/b")).unwrap(), PathBuf::from("a/b"));
    }

    #[test]
    fn names_by_build_id() {
        let f =
            UsedFile { kind: UsedKind::Elf, path: "/bin/x".into(), build_id: Some(vec![0xab, 0xcd, 0x01]), dso: None };
        assert_eq!(parse_hex("ab01"), Some(vec![0xab, 1]));
        assert_eq!(parse_hex("ab0"), None);
        assert_eq!(f.archive_name().unwrap(), ".build-id/ab/cd01/elf");
        let k = UsedFile { kind: UsedKind::Kallsyms, build_id: Some(vec![1, 2]), ..f.clone() };
        assert_eq!(k.archive_name().unwrap(), "[kernel.kallsyms]/0102/kallsyms");
        assert_eq!(UsedFile { build_id: None, ..f.clone() }.archive_name(), None);
        let p = UsedFile { build_id: None, dso: Some("/usr/lib/x.so".into()), ..f.clone() };
        assert_eq!(p.archive_name().unwrap(), ".by-path/usr/lib/x.so/elf");
        assert_eq!(UsedFile { dso: Some("/a/../b".into()), ..p }.archive_name(), None);
    }

    #[test]
    fn threads_unpacking_one_archive_all_get_it() {
        let dir = std::env::temp_dir().join(format!("perfdata-unpack-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("bin");
        std::fs::write(&bin, vec![7u8; 1 << 20]).unwrap();
        let f = UsedFile { kind: UsedKind::Elf, path: bin, build_id: Some(vec![0xab; 20]), dso: Some("/x".into()) };
        let archive = dir.join("a.symbols");
        write(&archive, &[f]).unwrap();
        for round in 0..5 {
            let root = dir.join(format!("cache{round}"));
            let dirs: Vec<_> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..8).map(|_| s.spawn(|| unpack_in(&archive, &root))).collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for d in &dirs {
                let d = d.as_ref().unwrap_or_else(|e| panic!("round {round}: {e}"));
                assert_eq!(d, dirs[0].as_ref().unwrap());
                assert!(d.join(COMPLETE).is_file());
            }
            // Nothing half-done is left beside the unpacked directory.
            assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
