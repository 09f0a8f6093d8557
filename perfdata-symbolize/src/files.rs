//! Where the symbolizer's files come from: the file system, or a set of files held in memory.
//!
//! A page in a browser has no file system: the user hands it the recording's binaries, kallsyms
//! or symbol archive as bytes. [`MemFiles`] holds such bytes under the paths the symbolizer
//! looks for (the build-id cache's `.build-id/xx/yyy…/elf`, the recorded path, `--kallsyms`);
//! given one ([`SymbolizeOptions::files`](crate::SymbolizeOptions::files)), the symbolizer reads
//! only from it, never from the machine it runs on.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::binary::{Binary, Bytes};
use crate::Error;

/// Files by absolute path, held in memory and shared without copies.
///
/// ```
/// use perfdata_symbolize::files::MemFiles;
/// let mut files = MemFiles::new();
/// files.insert("/cache/.build-id/ab/cdef/elf", b"\x7fELF...".to_vec());
/// assert!(files.get("/cache/.build-id/ab/cdef/elf".as_ref()).is_some());
/// assert!(files.is_dir("/cache/.build-id/ab".as_ref()));
/// assert!(!files.is_dir("/cache/.build-id/ab/cdef/elf".as_ref()));
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemFiles {
    files: BTreeMap<PathBuf, Arc<[u8]>>,
}

impl MemFiles {
    /// No files.
    pub fn new() -> MemFiles {
        MemFiles::default()
    }

    /// Hold `bytes` as the file at `path` (replacing one there).
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Arc<[u8]>>) {
        self.files.insert(path.into(), bytes.into());
    }

    /// Hold `other`'s files too (replacing those at the same paths).
    pub fn extend(&mut self, other: MemFiles) {
        self.files.extend(other.files);
    }

    /// The file at `path`.
    pub fn get(&self, path: &Path) -> Option<Arc<[u8]>> {
        self.files.get(path).cloned()
    }

    /// Whether some file lies under `path` (a directory exists as its files' parent).
    pub fn is_dir(&self, path: &Path) -> bool {
        self.files.range(path.to_path_buf()..).next().is_some_and(|(p, _)| p != path && p.starts_with(path))
    }

    /// The paths held, in order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.keys().map(PathBuf::as_path)
    }

    /// How many files are held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The symbolizer's view of files: the held ones when it was given some, else the file system.
#[derive(Clone, Copy)]
pub(crate) struct Fs<'a>(pub(crate) Option<&'a MemFiles>);

fn not_held(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{} is not among the files given", path.display()))
}

impl Fs<'_> {
    /// The bytes of the file at `path`.
    pub(crate) fn read(self, path: &Path) -> io::Result<Bytes> {
        match self.0 {
            Some(m) => m.get(path).map(Bytes::Shared).ok_or_else(|| not_held(path)),
            None => crate::binary::try_file_bytes(path),
        }
    }

    /// The file at `path` as text (invalid UTF-8 is an error, as for [`std::fs::read_to_string`]).
    pub(crate) fn read_to_string(self, path: &Path) -> io::Result<String> {
        match self.0 {
            Some(m) => {
                let bytes = m.get(path).ok_or_else(|| not_held(path))?;
                String::from_utf8(bytes.to_vec()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
            }
            None => std::fs::read_to_string(path),
        }
    }

    /// The ELF file at `path` ([`Binary::try_open`] on the file system).
    pub(crate) fn binary(self, path: &Path) -> Result<Binary, Error> {
        match self.0 {
            None => Binary::try_open(path),
            Some(_) => Binary::from_bytes(path.to_path_buf(), self.read(path).map_err(|e| Error::unreadable(path, e))?),
        }
    }

    /// Whether `path` is a file.
    pub(crate) fn is_file(self, path: &Path) -> bool {
        match self.0 {
            Some(m) => m.files.contains_key(path),
            None => path.is_file(),
        }
    }

    /// Whether `path` is a directory.
    pub(crate) fn is_dir(self, path: &Path) -> bool {
        match self.0 {
            Some(m) => m.is_dir(path),
            None => path.is_dir(),
        }
    }
}
