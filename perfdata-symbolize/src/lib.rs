//! # perfdata-symbolize
//!
//! Address → function name, the way perf resolves them: ELF symbol tables found like perf finds
//! binaries (in perf's order: the file `.gnu_debuglink` names, the build-id cache, the Fedora and
//! Ubuntu `/usr/lib/debug` layouts, `/usr/lib/debug/.build-id`, the path itself, all under
//! `--symfs`, build ids checked), kernel symbols from a
//! kallsyms file matching the kernel's build id, kernel modules from their files and kallsyms
//! ([`kmod`]), and for JIT code `/tmp/perf-PID.map` files and the functions of jitdump files (the
//! maps [`jit::JitInjector`] makes, as `perf inject --jit`); on request, inline frames and source
//! lines from the DWARF of the symbol files ([`Symbolizer::inlines`], [`Symbolizer::srcline`]).
//! Results for user binaries are cached per (binary, address).
//!
//! Why a frame has no name is an [`Error`]: [`Symbolizer::try_resolve`] and its siblings return
//! it, and [`Symbolizer::unnamed`] sums up, after a run, what could not be named in each DSO and
//! why.

#![warn(missing_docs, unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod archive;
pub mod binary;
#[cfg(all(feature = "debuginfod", not(target_arch = "wasm32")))]
mod debuginfod;
/// Without the `debuginfod` feature (and in WebAssembly): no server is ever asked.
#[cfg(not(all(feature = "debuginfod", not(target_arch = "wasm32"))))]
mod debuginfod {
    /// Which file of a build id is asked for.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub(crate) enum Kind {
        /// The binary with its code.
        Executable,
        /// Its separate debug file.
        Debuginfo,
    }

    /// Never a file: the client is compiled out.
    pub(crate) fn fetch(_: &[u8], _: Kind) -> Option<Result<std::path::PathBuf, String>> {
        None
    }
}
mod demangle;
pub mod elf;
mod error;
pub mod files;
pub mod inline;
pub mod jit;
pub mod kallsyms;
pub mod kmod;
pub mod perfmap;
pub mod rbtree;
pub mod recorded;
pub mod reduce;
pub mod srcline;
pub mod unwind;
mod vdso;

pub use binary::Binary;
pub use demangle::{demangle, DEMANGLER, DEMANGLES_LIKE_PERF};
pub use error::{Error, Result, Unnamed};
pub use inline::InlineFrame;
pub use srcline::SrcLine;

use files::{Fs, MemFiles};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use perfdata_core::feature::BuildId;
use perfdata_core::process::{Machine, Map};

/// ELF symbol binding, used to choose among symbols starting at the same address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// STB_LOCAL
    Local,
    /// STB_GLOBAL
    Global,
    /// STB_WEAK
    Weak,
}

/// One function symbol, `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sym {
    /// First address.
    pub start: u64,
    /// One past the last address (perf's `end`, after its size-0 fix-up).
    pub end: u64,
    /// Mangled name as stored.
    pub name: String,
    /// Binding.
    pub binding: Binding,
}

/// Symbols sorted by start, one per start address, with perf's end fix-ups applied; or, for an
/// ELF file, perf's own symbol tree, whose shape decides what a lookup finds among symbols that
/// overlap (see [`rbtree`]).
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    repr: Repr,
}

/// How a [`SymbolTable`] holds its symbols.
#[derive(Clone, Debug)]
enum Repr {
    /// Sorted by start, one per start: a lookup finds the last symbol starting at or before the
    /// address.
    Sorted(Vec<Sym>),
    /// perf's red-black tree (`dso->symbols`) built as perf builds it: a lookup descends it as
    /// `symbols__find` does.
    Tree(rbtree::SymTree),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Sorted(Vec::new())
    }
}

fn underscores(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b'_').count()
}

/// The name as perf's C string functions see it: up to a NUL (kallsyms module symbols keep their
/// `\0[module]` tail, see [`kallsyms`]).
fn c_name(s: &str) -> &str {
    s.split('\0').next().unwrap_or(s)
}

/// `roundup(addr, 4096)`.
fn roundup_page(addr: u64) -> u64 {
    addr.checked_add(4095).map_or(addr, |a| a & !4095)
}

/// How perf stored the names it compares in `choose_best_symbol`.
#[derive(Clone, Copy, PartialEq)]
enum Stored {
    /// Demangled when read (`dso__load_sym`: a user-space ELF file's symbols).
    Demangled,
    /// As they are (kallsyms, kernel modules, perf maps: perf demangles none of them).
    AsIs,
}

/// What perf's `choose_best_symbol` looks at: a [`Sym`], or a kallsyms line not yet made one.
trait Ranked {
    /// The first address.
    fn start(&self) -> u64;
    /// Has a size (end past start), binding, stored name.
    fn rank(&self) -> (bool, Binding, &str);
}

impl Ranked for Sym {
    fn start(&self) -> u64 {
        self.start
    }

    fn rank(&self) -> (bool, Binding, &str) {
        (self.end > self.start, self.binding, &self.name)
    }
}

/// perf's `symbols__fixup_duplicate` over symbols sorted by start: of neighbours with one start,
/// the better one (`choose_best_symbol`) stays, in place.
fn keep_best<T: Ranked>(syms: &mut Vec<T>, stored: Stored) {
    syms.dedup_by(|s, last| {
        if last.start() != s.start() {
            return false;
        }
        if !better(&*last, &*s, stored) {
            std::mem::swap(last, s);
        }
        true
    });
}

/// perf's `choose_best_symbol`: true if `a` beats `b`.
fn better<T: Ranked>(a: &T, b: &T, stored: Stored) -> bool {
    better_ranked(a.rank(), b.rank(), stored)
}

/// [`better`] of two symbols' [`Ranked::rank`]s.
fn better_ranked((la, ba, a): (bool, Binding, &str), (lb, bb, b): (bool, Binding, &str), stored: Stored) -> bool {
    if la != lb {
        return la;
    }
    let (wa, wb) = (ba == Binding::Weak, bb == Binding::Weak);
    if wa != wb {
        return wb;
    }
    let (ga, gb) = (ba == Binding::Global, bb == Binding::Global);
    if ga != gb {
        return ga;
    }
    // perf compares the names it stored, from an ELF file demangled when it read them
    // (dso__load_sym): of `<u64 as Display>::fmt` and `<usize as Display>::fmt` merged at one
    // address (mangled names of equal length) it keeps the longer demangled one. Demangled only
    // here, for the rare symbols that share an address and tie on everything before.
    let (na, nb) = match stored {
        Stored::Demangled => (demangle(c_name(a)).into(), demangle(c_name(b)).into()),
        Stored::AsIs => (std::borrow::Cow::Borrowed(c_name(a)), std::borrow::Cow::Borrowed(c_name(b))),
    };
    let (ua, ub) = (underscores(&na), underscores(&nb));
    if ua != ub {
        return ua < ub;
    }
    na.len() >= nb.len()
}

impl SymbolTable {
    /// Build from unsorted symbols the way perf does, in its order: sort by start (symbols with
    /// equal starts keep their input order), give size-0 symbols the next symbol's start as end
    /// (`symbols__fixup_end`: the last one ends a page after its start rounded up to a page), then
    /// keep the best symbol per start (`symbols__fixup_duplicate` with perf's `choose_best_symbol`). So of
    /// kallsyms aliases (`memset`, `__memset`, `__pi_memset` at one address) the last one is the
    /// only one with a size, and wins. Names that tie are compared as they are (perf demangles
    /// no kallsyms or perf map name); see [`SymbolTable::new_demangled`] for ELF files.
    pub fn new(syms: Vec<Sym>) -> SymbolTable {
        Self::build(syms, Stored::AsIs)
    }

    /// [`SymbolTable::new`] for a user-space ELF file's symbols, whose names perf compares
    /// demangled (it demangles them as it reads them).
    pub fn new_demangled(syms: Vec<Sym>) -> SymbolTable {
        Self::build(syms, Stored::Demangled)
    }

    fn build(mut syms: Vec<Sym>, stored: Stored) -> SymbolTable {
        syms.sort_by_key(|s| s.start);
        let mut next = None;
        for s in syms.iter_mut().rev() {
            if s.end == s.start {
                s.end = next.unwrap_or_else(|| roundup_page(s.start).saturating_add(4096));
            }
            next = Some(s.start);
        }
        keep_best(&mut syms, stored);
        SymbolTable { repr: Repr::Sorted(syms) }
    }

    /// perf 6.1's `dso__load_sym` for a user-space ELF file: each pass (the symbols of `.symtab`,
    /// then those of `.dynsym`, each in the file's order) is inserted into one tree, then, if the
    /// pass inserted any, `symbols__fixup_end` and `symbols__fixup_duplicate` run over the whole
    /// tree. The PLT symbols perf synthesizes after are added with [`SymbolTable::insert_sized`].
    pub(crate) fn perf_tree(passes: impl IntoIterator<Item = Vec<Sym>>) -> SymbolTable {
        let mut tree = rbtree::SymTree::default();
        for pass in passes {
            if pass.is_empty() {
                continue;
            }
            for s in pass {
                tree.insert(s);
            }
            tree.fixup_end();
            tree.fixup_duplicate_as(Stored::Demangled);
        }
        SymbolTable { repr: Repr::Tree(tree) }
    }

    /// Add symbols with their own sizes after the fix-ups (perf inserts PLT symbols this way). In
    /// a sorted table a symbol at an address already taken is dropped; perf's tree (an ELF
    /// file's) takes them all, and its shape decides which of two overlapping symbols a lookup
    /// finds.
    pub fn insert_sized(&mut self, syms: Vec<Sym>) {
        match &mut self.repr {
            Repr::Sorted(v) => {
                let before = v.len();
                for s in syms {
                    let taken =
                        v.get(..before).is_some_and(|old| old.binary_search_by_key(&s.start, |x| x.start).is_ok());
                    if !taken {
                        v.push(s);
                    }
                }
                v.sort_by_key(|s| s.start);
                v.dedup_by_key(|s| s.start);
            }
            Repr::Tree(t) => {
                for s in syms {
                    t.insert(s);
                }
            }
        }
    }

    /// The first symbol.
    pub fn first(&self) -> Option<&Sym> {
        self.iter().next()
    }

    /// The last symbol.
    pub fn last(&self) -> Option<&Sym> {
        match &self.repr {
            Repr::Sorted(v) => v.last(),
            Repr::Tree(t) => t.iter().last(),
        }
    }

    /// The symbols by start.
    pub fn iter(&self) -> impl Iterator<Item = &Sym> {
        let (sorted, tree) = match &self.repr {
            Repr::Sorted(v) => (Some(v.iter()), None),
            Repr::Tree(t) => (None, Some(t.iter())),
        };
        sorted.into_iter().flatten().chain(tree.into_iter().flatten())
    }

    /// The symbol whose `[start, end)` holds `addr` (in perf's tree: the one its descent meets
    /// first, none if it misses them all).
    pub fn find(&self, addr: u64) -> Option<&Sym> {
        match &self.repr {
            Repr::Sorted(v) => {
                let i = v.partition_point(|s| s.start <= addr);
                let s = v.get(i.checked_sub(1)?)?;
                (addr < s.end).then_some(s)
            }
            Repr::Tree(t) => t.find(addr),
        }
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sorted(v) => v.len(),
            Repr::Tree(t) => t.len(),
        }
    }

    /// True if there are no symbols.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where to look for binaries and kernel symbols.
#[derive(Clone, Debug, Default)]
pub struct SymbolizeOptions {
    /// Root prepended to every binary path (`--symfs`).
    pub symfs: Option<PathBuf>,
    /// perf's build-id cache (`--buildid-dir`); when `None`, `$PERF_BUILDID_DIR` as perf reads it,
    /// else `~/.debug`.
    pub buildid_dir: Option<PathBuf>,
    /// A kallsyms file for the kernel (`--kallsyms`), used without build-id check.
    pub kallsyms: Option<PathBuf>,
    /// Leave `jit-PID.dump` files alone: JIT code keeps the names perf gives it without
    /// `perf inject --jit` (see [`jit`]).
    pub ignore_jitdump: bool,
    /// An unpacked symbol archive ([`archive::unpack`], `--symbols`): for a build id it holds,
    /// its files come first (before `.gnu_debuglink` targets, the build-id cache and the recorded
    /// paths; after `--kallsyms` for the kernel); its perf maps before `/tmp/perf-PID.map`.
    pub archive: Option<PathBuf>,
    /// Where to note every file the symbolizer reads for names and unwinding (what
    /// `perfdata archive` collects).
    pub read_log: Option<archive::ReadLog>,
    /// Files held in memory to read instead of the file system (a browser page's, see
    /// [`files`]): with them, nothing is read from the machine this runs on.
    pub files: Option<Arc<MemFiles>>,
}

/// A resolved frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Demangled symbol name (kernel names as they are), `None` when unresolved. A kallsyms
    /// module symbol keeps its module after a NUL (see [`kallsyms::ModuleSym::sym`]).
    pub symbol: Option<Rc<str>>,
    /// perf's dso name for the map (`[kernel.kallsyms]`, a path, `[unknown]` without a map).
    pub dso: Rc<str>,
    /// The symbol's first address (an ELF virtual address in a binary, absolute for the kernel's
    /// and a perf map's symbols; `None` when unresolved or for a symbol a recording carries):
    /// `perf report` tells apart symbols of one name (C++ overloads without their parameters) by
    /// it.
    pub start: Option<u64>,
    /// One past the symbol's last address (perf's `end`, after its fix-ups), where
    /// [`Frame::start`] is known.
    pub end: Option<u64>,
}

/// A symbol found for an address: its name, first address and end.
type Found = Option<(Rc<str>, u64, u64)>;

/// The one `Rc` of symbol `name` starting at `start` in `dso` ([`Symbolizer`]'s `names`).
fn interned(
    names: &mut HashMap<(Rc<str>, u64), Rc<str>, ahash::RandomState>,
    dso: &Rc<str>,
    start: u64,
    name: &str,
) -> Rc<str> {
    match names.get(&(dso.clone(), start)) {
        Some(n) if **n == *name => n.clone(),
        _ => {
            let n: Rc<str> = Rc::from(name);
            names.insert((dso.clone(), start), n.clone());
            n
        }
    }
}

impl Frame {
    /// A frame of `dso` with its symbol's name and first address, if found.
    fn of(found: Found, dso: Rc<str>) -> Frame {
        let (symbol, start, end) = found.map_or((None, None, None), |(n, a, e)| (Some(n), Some(a), Some(e)));
        Frame { symbol, dso, start, end }
    }
}

enum Source {
    /// An ELF file; when it has no PLT symbols (a debug file), its table with those of its
    /// runtime binary added, which lookups use instead; [`Error::NoSymbols`] when it has no
    /// symbol.
    Elf(Rc<Binary>, Option<SymbolTable>, Option<Error>),
    Absolute(SymbolTable),
    /// No symbols, and why.
    None(Error),
}

/// The kernel's and its modules' symbols, as perf's kernel dso and module dsos hold them over
/// time (see [`kmod`]).
#[derive(Default)]
struct KernelState {
    /// The kallsyms file, read once (`Some(Err)`: none, and why).
    kallsyms: Option<Result<Rc<kallsyms::KernelSyms>>>,
    /// [`Error::KernelAddressesHidden`] when the kallsyms file read shows only zero addresses.
    hidden: Option<Error>,
    /// Why a module's file was not found (its symbols then come from kallsyms alone), by name.
    module_causes: HashMap<String, Error>,
    /// perf has loaded the kernel dso (an address was looked up in the kernel map): the module
    /// symbols went to their modules, and the map spans the kernel's symbols.
    loaded: bool,
    /// Module dsos by name (`[name]`).
    modules: HashMap<String, kmod::ModuleDso>,
    /// Kernel-mode BUILD_ID entries of modules, in file order: (dso name, file name, build id).
    module_build_ids: Vec<(String, String, Vec<u8>)>,
    /// Changes whenever a kernel address may resolve differently than before.
    generation: u64,
}

/// The symbolizer with its caches.
pub struct Symbolizer {
    opts: SymbolizeOptions,
    build_ids: HashMap<String, Vec<u8>>,
    kernel_build_id: Option<Vec<u8>>,
    sources: HashMap<String, Rc<Source>, ahash::RandomState>,
    kernel: KernelState,
    /// What each address of a file (by dso name, the address in the file; the kernel's as it is)
    /// resolved to.
    cache: HashMap<(Rc<str>, u64), Found, ahash::RandomState>,
    /// What each kallsyms address resolved to, with the kernel's dso name: a callchain's kernel
    /// frames are looked up here, keyed by the address alone.
    kallsyms_cache: (Option<Rc<str>>, HashMap<u64, Found, ahash::RandomState>),
    /// The symbols' names, one `Rc` per (dso, start) ([`interned`]): the frames of one symbol
    /// compare equal by pointer (report's repeats key them so), and a name is allocated once.
    names: HashMap<(Rc<str>, u64), Rc<str>, ahash::RandomState>,
    dso_names: HashMap<String, Rc<str>, ahash::RandomState>,
    /// Every file opened, by path (`Err`: not a readable ELF file, and why), so each is mapped
    /// once.
    binaries: HashMap<PathBuf, Result<Rc<Binary>>>,
    /// The runtime image of each mapped file name (see [`Symbolizer::runtime_binary`]).
    runtimes: HashMap<String, Result<Rc<Binary>>>,
    /// The DWARF of each symbol file, by path.
    debug_info: HashMap<PathBuf, Rc<inline::DebugInfo>>,
    /// Inline lists by (dso, file offset).
    inlines: HashMap<(Rc<str>, u64), Rc<[InlineFrame]>>,
    /// What addr2line says with the source positions (for source lines), by (dso, file offset).
    records: HashMap<(Rc<str>, u64), Rc<[inline::Record]>, ahash::RandomState>,
    /// Source lines by (dso, file offset).
    srclines: HashMap<(Rc<str>, u64), Option<SrcLine>, ahash::RandomState>,
    /// Source lines of inline lists by (dso, file offset).
    inline_srclines: HashMap<(Rc<str>, u64), Rc<[SrcLine]>, ahash::RandomState>,
    /// Symbols the recording carries (simpleperf's FILE/FILE2), preferred to the binaries.
    recorded: recorded::RecordedSymbols,
    /// The recorded kernel's release (OSRELEASE), for recordings without a kernel build id.
    kernel_release: Option<String>,
    /// Where the running kernel describes itself.
    host: Host,
    /// Lookups without a name, by dso: how many, and why ([`Symbolizer::unnamed`]).
    unnamed: HashMap<Rc<str>, (u64, Error), ahash::RandomState>,
    /// Build ids by DSO name from the symbol archive's index ([`archive::read_dso_index`]).
    archive_dsos: HashMap<String, Vec<u8>>,
    /// Why debuginfod gave no file, by build id ([`debuginfod::fetch`]).
    debuginfod_misses: HashMap<Vec<u8>, Arc<str>>,
}

/// The running kernel's release, build id and symbols, as files (tests point them elsewhere).
#[derive(Clone, Debug)]
struct Host {
    release: PathBuf,
    notes: PathBuf,
    kallsyms: PathBuf,
}

impl Default for Host {
    fn default() -> Self {
        Host {
            release: "/proc/sys/kernel/osrelease".into(),
            notes: "/sys/kernel/notes".into(),
            kallsyms: "/proc/kallsyms".into(),
        }
    }
}

/// Where perf looks for the file a `.gnu_debuglink` names (`DSO_BINARY_TYPE__DEBUGLINK`, its
/// `debuglink_paths`): beside the binary (`binary` is its path under the symfs root), in a `.debug`
/// directory there, and under `/usr/lib/debug` followed by that directory (perf does not put the
/// last one under the symfs root). perf also tries the bare name relative to its working
/// directory; that is left out, so a file in the current directory is never picked up by accident.
fn debuglink_paths(binary: &Path, link: Option<&str>) -> Vec<PathBuf> {
    let (Some(link), Some(dir)) = (link, binary.parent()) else { return Vec::new() };
    // The name is a file name; one with a directory part would escape the places perf looks.
    if link.contains('/') {
        return Vec::new();
    }
    let mut under_debug = PathBuf::from("/usr/lib/debug");
    under_debug.push(dir.strip_prefix("/").unwrap_or(dir));
    vec![dir.join(link), dir.join(".debug").join(link), under_debug.join(link)]
}

use perfdata_core::names::hex;

/// A fast hash map for integer keys (aHash: SipHash, the std default, took a third of the run
/// time of folding stacks). Used by the unwinder's caches and by the analyses.
pub type FastMap<K, V> = HashMap<K, V, ahash::RandomState>;

/// Why no candidate file of a DSO was taken, gathered while trying them: the first build-id
/// mismatch, else the first file that was there but unusable, else nothing was there.
#[derive(Default)]
struct Miss {
    mismatch: Option<Error>,
    unusable: Option<Error>,
}

impl Miss {
    /// `b` was found but has another build id than `expected`.
    fn mismatch(&mut self, b: &Binary, expected: Option<&[u8]>) {
        if let (None, Some(want), Some(got)) = (&self.mismatch, expected, b.symbols.build_id.as_deref()) {
            self.mismatch =
                Some(Error::BuildIdMismatch { path: Arc::from(b.path()), expected: want.into(), found: got.into() });
        }
    }

    /// A candidate could not be opened as an ELF file.
    fn error(&mut self, e: Error) {
        if self.unusable.is_none() && !e.is_absent() {
            self.unusable = Some(e);
        }
    }

    /// The cause for `dso`, having tried `tried`.
    fn cause(self, dso: &str, tried: Vec<PathBuf>) -> Error {
        self.mismatch.or(self.unusable).unwrap_or_else(|| {
            if is_anonymous(dso) {
                Error::Anonymous { dso: dso.into() }
            } else {
                Error::NotFound { dso: dso.into(), tried: tried.into() }
            }
        })
    }
}

/// Memory perf has no file for: anonymous maps that are not JIT code (those are named
/// `/tmp/perf-PID.map` by perfdata-core, as perf names them), heap and stack.
fn is_anonymous(dso: &str) -> bool {
    ["//anon", "[heap]", "[stack", "[anon:", "/anon_hugepage", "/dev/zero", "/SYSV"].iter().any(|p| dso.starts_with(p))
}

impl Symbolizer {
    /// A symbolizer; `build_ids` maps file names to build ids (the BUILD_ID feature).
    pub fn new(opts: SymbolizeOptions, build_ids: HashMap<String, Vec<u8>>) -> Symbolizer {
        let kernel_build_id = build_ids.get("[kernel.kallsyms]").cloned();
        let opts_archive_dsos = match (opts.archive.as_deref(), opts.files.as_deref()) {
            (Some(dir), Some(files)) => archive::parse_dso_index(
                &Fs(Some(files)).read_to_string(&dir.join(archive::DSO_INDEX)).unwrap_or_default(),
            ),
            (Some(dir), None) => archive::read_dso_index(dir),
            (None, _) => Default::default(),
        };
        Symbolizer {
            opts,
            build_ids,
            kernel_build_id,
            sources: HashMap::default(),
            kernel: KernelState::default(),
            cache: HashMap::default(),
            kallsyms_cache: Default::default(),
            names: HashMap::default(),
            dso_names: HashMap::default(),
            binaries: HashMap::new(),
            runtimes: HashMap::new(),
            debug_info: HashMap::new(),
            inlines: HashMap::new(),
            records: HashMap::default(),
            srclines: HashMap::default(),
            inline_srclines: HashMap::default(),
            recorded: recorded::RecordedSymbols::default(),
            kernel_release: None,
            host: Host::default(),
            unnamed: HashMap::default(),
            archive_dsos: opts_archive_dsos,
            debuginfod_misses: HashMap::new(),
        }
    }

    /// Use the symbols a recording carries for itself (simpleperf's FILE/FILE2 feature:
    /// [`recorded::RecordedSymbols::new`]): a DSO listed there is named from its table first, as
    /// simpleperf does, so no binary is needed; addresses its table does not cover fall back to
    /// the binaries.
    pub fn set_recorded_symbols(&mut self, recorded: recorded::RecordedSymbols) {
        self.recorded = recorded;
    }

    /// The kernel's recorded symbol of `addr`, when the recording carries a kernel table.
    fn recorded_kernel(&self, addr: u64) -> Option<Rc<str>> {
        let d = self.recorded.dso("[kernel.kallsyms]")?;
        d.find(addr).cloned()
    }

    /// The ELF file at `path`, mapped and parsed once.
    fn binary(&mut self, path: &Path) -> Option<Rc<Binary>> {
        self.try_binary(path).ok()
    }

    /// [`Symbolizer::binary`], or why not ([`Binary::try_open`]), kept with the file.
    fn try_binary(&mut self, path: &Path) -> Result<Rc<Binary>> {
        if let Some(b) = self.binaries.get(path) {
            return b.clone();
        }
        let b = if vdso::is_running(path) && self.opts.files.is_none() {
            vdso::image()
                .map_err(|e| Error::unreadable(path, e))
                .and_then(|image| Binary::from_bytes(path.to_path_buf(), binary::Bytes::Owned(image)))
        } else {
            self.fs().binary(path)
        }
        .map(Rc::new);
        self.binaries.insert(path.to_path_buf(), b.clone());
        b
    }

    /// Where files are read: the held ones, else the file system.
    fn fs(&self) -> Fs<'_> {
        Fs(self.opts.files.as_deref())
    }

    /// The build id perf expects for `map`'s file: from the MMAP2 record, else the BUILD_ID feature.
    /// For a DSO the recording has none for, the symbol archive's index names it.
    fn expected_build_id(&self, map: &Map) -> Option<Vec<u8>> {
        map.build_id
            .clone()
            .or_else(|| self.build_ids.get(map.filename.as_str()).cloned())
            .or_else(|| self.archive_dsos.get(map.filename.as_str()).cloned())
    }

    /// `.build-id/xx/yyy…/NAME` in the build-id cache.
    fn buildid_cache_file(&self, build_id: &[u8], name: &str) -> Option<PathBuf> {
        let b = hex(build_id);
        let (head, tail) = (b.get(..2)?, b.get(2..)?);
        Some(self.buildid_dir()?.join(".build-id").join(head).join(tail).join(name))
    }

    /// `.build-id/xx/yyy…/NAME` in the symbol archive, if one was given.
    fn archive_file(&self, build_id: &[u8], name: &str) -> Option<PathBuf> {
        let b = hex(build_id);
        let (head, tail) = (b.get(..2)?, b.get(2..)?);
        Some(self.opts.archive.as_ref()?.join(".build-id").join(head).join(tail).join(name))
    }

    /// The archive's directory for a DSO without build id ([`archive::by_path`]).
    fn archive_by_path(&self, dso: &str) -> Option<PathBuf> {
        Some(self.opts.archive.as_ref()?.join(archive::by_path(dso)?))
    }

    /// Note a file read, for `perfdata archive`.
    fn note_read(&self, kind: archive::UsedKind, path: &Path, build_id: Option<&[u8]>, dso: Option<&str>) {
        if let Some(log) = &self.opts.read_log {
            log.push(archive::UsedFile {
                kind,
                path: path.to_path_buf(),
                build_id: build_id.map(<[u8]>::to_vec),
                dso: dso.map(str::to_string),
            });
        }
    }

    /// Why no file of `dso` was used: [`Error::NotInArchive`] when an archive was given, it has
    /// nothing for the build id and nothing else was found; else [`Error::NotOnDebuginfod`] when
    /// the debuginfod servers were asked in vain; else `miss`'s cause.
    fn miss_cause(&self, miss: Miss, dso: &str, tried: Vec<PathBuf>, expected: Option<&[u8]>) -> Error {
        let cause = miss.cause(dso, tried);
        let in_archive = |b: &[u8]| self.archive_file(b, "").is_some_and(|d| self.fs().is_dir(&d));
        match (&cause, expected) {
            (Error::NotFound { .. }, Some(b)) if self.opts.archive.is_some() && !in_archive(b) => {
                Error::NotInArchive { dso: dso.into(), build_id: b.into() }
            }
            (Error::NotFound { .. }, Some(b)) => match self.debuginfod_misses.get(b) {
                Some(reason) => Error::NotOnDebuginfod { dso: dso.into(), build_id: b.into(), reason: reason.clone() },
                None => cause,
            },
            _ => cause,
        }
    }

    /// The file of `build_id` from the debuginfod servers (`DEBUGINFOD_URLS`, [`debuginfod`]),
    /// asked only when files come from the file system; a file with another build id is not
    /// used. Why none came is kept for [`Symbolizer::miss_cause`].
    fn debuginfod_binary(&mut self, build_id: &[u8], kind: debuginfod::Kind) -> Option<Rc<Binary>> {
        if self.opts.files.is_some() {
            return None;
        }
        match debuginfod::fetch(build_id, kind)? {
            Ok(path) => self.binary(&path).filter(|b| b.symbols.build_id.as_deref() == Some(build_id)),
            Err(reason) => {
                self.debuginfod_misses.entry(build_id.to_vec()).or_insert_with(|| Arc::from(reason));
                None
            }
        }
    }

    /// The files debuginfod has for `build_id`, as [`Symbolizer::load_elf`] chooses them: the
    /// executable when it has symbols, else the debug file (with the executable, for its PLT).
    fn debuginfod_files(&mut self, build_id: &[u8]) -> Option<(Rc<Binary>, Option<Rc<Binary>>)> {
        let exe = self.debuginfod_binary(build_id, debuginfod::Kind::Executable);
        if let Some(e) = exe.as_ref().filter(|e| e.symbols.has_symtab) {
            return Some((e.clone(), None));
        }
        match self.debuginfod_binary(build_id, debuginfod::Kind::Debuginfo) {
            Some(d) if d.symbols.has_symtab => Some((d, exe)),
            _ => exe.map(|e| (e, None)),
        }
    }

    /// The file perf reads `map`'s bytes from (its dso "data" file, used by the unwinder for
    /// `.eh_frame_hdr`/`.eh_frame` and for memory outside the stack dump): the build-id cache's
    /// `elf` (`vdso` for `[vdso]`) when the build id is known, else the path under `--symfs`.
    /// A file whose build id differs from the expected one is not used.
    pub fn runtime_binary(&mut self, map: &Map) -> Option<Rc<Binary>> {
        self.try_runtime_binary(map).ok()
    }

    /// [`Symbolizer::runtime_binary`], or why no file was used: [`Error::BuildIdMismatch`] when
    /// a file was found with another build id, [`Error::Unreadable`]/[`Error::NotElf`] when one
    /// was found but could not be read, else [`Error::NotFound`] with the paths tried
    /// ([`Error::Anonymous`] for anonymous memory). Kept per file name, so each is looked for once.
    ///
    /// ```
    /// use perfdata_core::process::Map;
    /// use perfdata_symbolize::{Error, SymbolizeOptions, Symbolizer};
    ///
    /// let opts = SymbolizeOptions { buildid_dir: Some("/nonexistent".into()), ..Default::default() };
    /// let mut s = Symbolizer::new(opts, Default::default());
    /// let map = Map::from_mmap(1, 0x1000, 0x1000, 0, "/nonexistent/bin/app".into(), 5, 2);
    /// let Err(Error::NotFound { tried, .. }) = s.try_runtime_binary(&map) else { panic!() };
    /// assert_eq!(tried.len(), 1);
    /// ```
    pub fn try_runtime_binary(&mut self, map: &Map) -> Result<Rc<Binary>> {
        if let Some(b) = self.runtimes.get(&map.filename) {
            return b.clone();
        }
        let expected = self.expected_build_id(map);
        let mut candidates = Vec::new();
        if let Some(bid) = &expected {
            let name = if map.filename == "[vdso]" { "vdso" } else { "elf" };
            candidates.extend(self.archive_file(bid, name));
            candidates.extend(self.buildid_cache_file(bid, name));
        } else if let Some(dir) = self.archive_by_path(&map.filename) {
            candidates.push(dir.join("elf"));
        }
        if !map.filename.starts_with('[') && !map.filename.starts_with("//") {
            candidates.push(self.under_symfs(&map.filename));
        }
        let mut found = None;
        let mut miss = Miss::default();
        for c in &candidates {
            match self.try_binary(c) {
                Ok(b) => {
                    if expected.is_none() || b.symbols.build_id.is_none() || b.symbols.build_id == expected {
                        found = Some(b);
                        break;
                    }
                    miss.mismatch(&b, expected.as_deref());
                }
                Err(e) => miss.error(e),
            }
        }
        if found.is_none() {
            // Last, for a build id no local place had: the debuginfod servers.
            if let Some(bid) = expected.as_deref() {
                found = self.debuginfod_binary(bid, debuginfod::Kind::Executable);
            }
        }
        if let Some(b) = &found {
            let kind = if map.filename == "[vdso]" { archive::UsedKind::Vdso } else { archive::UsedKind::Elf };
            self.note_read(kind, b.path(), b.symbols.build_id.as_deref().or(expected.as_deref()), Some(&map.filename));
        }
        let found = found.ok_or_else(|| self.miss_cause(miss, &map.filename, candidates, expected.as_deref()));
        self.runtimes.insert(map.filename.clone(), found.clone());
        found
    }

    /// perf's build-id cache: `--buildid-dir`, else `$PERF_BUILDID_DIR` (as perf reads it), else
    /// `~/.debug`.
    fn buildid_dir(&self) -> Option<PathBuf> {
        self.opts
            .buildid_dir
            .clone()
            .or_else(|| std::env::var_os("PERF_BUILDID_DIR").filter(|d| !d.is_empty()).map(PathBuf::from))
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".debug")))
    }

    fn under_symfs(&self, path: &str) -> PathBuf {
        match &self.opts.symfs {
            Some(root) => root.join(path.trim_start_matches('/')),
            None => PathBuf::from(path),
        }
    }

    /// The kernel's symbols and the file they came from: `--kallsyms`, else the build-id cache's
    /// copy for the recorded kernel, else the running kernel's when it is the recorded one.
    fn load_kernel(&self) -> Result<(kallsyms::KernelSyms, PathBuf)> {
        let read = |p: &Path| {
            self.fs()
                .read(p)
                .map(|t| (kallsyms::KernelSyms::parse(t), p.to_path_buf()))
                .map_err(|e| Error::KallsymsUnreadable { path: Arc::from(p), source: Arc::new(e) })
        };
        let loaded = self.load_kallsyms_file(read);
        if let Ok((_, p)) = &loaded {
            self.note_read(archive::UsedKind::Kallsyms, p, self.kernel_build_id.as_deref(), None);
        }
        loaded
    }

    /// [`Symbolizer::load_kernel`]'s search, reading with `read`.
    fn load_kallsyms_file(
        &self,
        read: impl Fn(&Path) -> Result<(kallsyms::KernelSyms, PathBuf)>,
    ) -> Result<(kallsyms::KernelSyms, PathBuf)> {
        if let Some(p) = &self.opts.kallsyms {
            return read(p);
        }
        let bid = self.kernel_build_id.as_deref().map(hex);
        let archived = match (&bid, &self.opts.archive) {
            (Some(b), Some(dir)) => Some(dir.join("[kernel.kallsyms]").join(b).join("kallsyms")),
            _ => None,
        };
        if let Some(Ok(k)) = archived.as_deref().filter(|p| self.fs().is_file(p)).map(&read) {
            return Ok(k);
        }
        let cached = match (&bid, self.buildid_dir()) {
            (Some(b), Some(dir)) => Some(dir.join("[kernel.kallsyms]").join(b).join("kallsyms")),
            _ => None,
        };
        if let Some(Ok(k)) = cached.as_deref().map(&read) {
            return Ok(k);
        }
        match self.running_kallsyms(bid.as_deref()) {
            Ok(()) => read(&self.host.kallsyms),
            Err(reason) => Err(Error::NoKernelSymbols { tried: cached.as_deref().map(Arc::from), reason }),
        }
    }

    /// The running kernel's kallsyms when it is the recorded kernel: the same build id, or, for a
    /// recording without a kernel build id (`perf record -o -` writes none), the same release.
    /// perf 6.1 reads the running kernel's symbols for such a recording whatever kernel it was
    /// made on, which names every kernel frame wrongly after a kernel update; those stay
    /// unresolved here (`--kallsyms` names them).
    /// `Ok` when the running kernel is the recorded one, else why it is not known to be.
    fn running_kallsyms(&self, bid: Option<&str>) -> std::result::Result<(), &'static str> {
        match bid {
            Some(bid) => {
                let notes =
                    self.fs().read(&self.host.notes).map_err(|_| "the running kernel's build id is unreadable")?;
                let running =
                    running_kernel_build_id(notes.as_slice()).ok_or("the running kernel's build id is unreadable")?;
                if hex(&running) != bid {
                    return Err("the running kernel is another build (build id)");
                }
            }
            None => {
                let running = self
                    .fs()
                    .read_to_string(&self.host.release)
                    .map_err(|_| "the running kernel's release is unreadable")?;
                match self.kernel_release.as_deref() {
                    None | Some("") => return Err("the recording names neither the kernel's build id nor its release"),
                    Some(r) if r != running.trim_end() => return Err("the running kernel is another release"),
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    fn load_elf(&mut self, map: &Map) -> Source {
        let path = map.filename.as_str();
        if path.starts_with("/tmp/perf-") && path.ends_with(".map") {
            let archived = self.opts.archive.as_ref().and_then(|a| {
                let f = a.join(archive::PERF_MAPS).join(Path::new(path).file_name()?);
                self.fs().is_file(&f).then_some(f)
            });
            let file = archived.unwrap_or_else(|| self.under_symfs(path));
            return match self.fs().read_to_string(&file) {
                Ok(t) => {
                    self.note_read(archive::UsedKind::PerfMap, &file, None, Some(path));
                    Source::Absolute(perfmap::parse(&t))
                }
                Err(e) => Source::None(Error::PerfMapMissing { path: Arc::from(file.as_path()), source: Arc::new(e) }),
            };
        }
        let direct = self.under_symfs(path);
        let own_result = self.try_binary(&direct);
        let own = own_result.as_ref().ok().cloned();
        let expected = self.expected_build_id(map).or_else(|| own.as_ref().and_then(|e| e.symbols.build_id.clone()));
        // perf's order (`binary_type_symtab`): DEBUGLINK, BUILD_ID_CACHE (+ its debug file),
        // FEDORA_DEBUGINFO, UBUNTU_DEBUGINFO, BUILDID_DEBUGINFO, then the file itself; each one
        // with a build id other than the expected one is rejected (`symsrc__init`).
        // The archive's files: a separate debug file first, as perf takes `.gnu_debuglink`'s
        // before the build-id cache's `elf`.
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(b) = expected.as_deref() {
            candidates.extend(self.archive_file(b, "debug"));
            candidates.extend(self.archive_file(b, "elf"));
            if path == "[vdso]" {
                candidates.extend(self.archive_file(b, "vdso"));
            }
        } else if let Some(dir) = self.archive_by_path(path) {
            candidates.extend([dir.join("debug"), dir.join("elf")]);
        }
        candidates.extend(debuglink_paths(&direct, own.as_ref().and_then(|b| b.symbols.debuglink.as_deref())));
        if let Some(b) = expected.as_deref() {
            let vdso = if path == "[vdso]" { self.buildid_cache_file(b, "vdso") } else { None };
            candidates.extend(self.buildid_cache_file(b, "elf"));
            candidates.extend(self.buildid_cache_file(b, "debug"));
            candidates.extend(vdso);
        }
        // perf names `[vdso]` frames with its own vDSO when it has no file of the recorded one:
        // ours, if it is the recorded build (a recording of this machine since its boot).
        if path == "[vdso]" && expected.is_some() {
            candidates.push(PathBuf::from(vdso::RUNNING));
        }
        if path.starts_with('/') {
            candidates.push(self.under_symfs(&format!("/usr/lib/debug{path}.debug")));
            candidates.push(self.under_symfs(&format!("/usr/lib/debug{path}")));
        }
        if let Some(b) = expected.as_deref() {
            let h = hex(b);
            if let (Some(head), Some(tail)) = (h.get(..2), h.get(2..)) {
                candidates.push(self.under_symfs(&format!("/usr/lib/debug/.build-id/{head}/{tail}.debug")));
            }
        }
        let ok = |e: &Binary| match (&expected, &e.symbols.build_id) {
            (Some(want), Some(got)) => want == got,
            _ => true,
        };
        let mut chosen = None;
        let mut fallback = None;
        let mut miss = Miss::default();
        for c in &candidates {
            match self.try_binary(c) {
                Ok(e) if ok(&e) => {
                    if e.symbols.has_symtab {
                        chosen = Some(e);
                        break;
                    }
                    fallback.get_or_insert(e);
                }
                Ok(e) => miss.mismatch(&e, expected.as_deref()),
                Err(e) => miss.error(e),
            }
        }
        let own = own.filter(|e| ok(e));
        let chosen = match (chosen, own) {
            (Some(e), own) => (e, own),
            (None, Some(e)) if e.symbols.has_symtab || fallback.is_none() => (e, None),
            (None, own) => match fallback {
                Some(e) => (e, own),
                // Last, for a build id no local place had: the debuginfod servers.
                None => match expected.as_deref().and_then(|b| self.debuginfod_files(b)) {
                    Some(found) => found,
                    None => {
                        // Only reached without a usable `own`: it was absent, unreadable or (with
                        // an expected build id from the recording) another build.
                        match own_result {
                            Ok(e) => miss.mismatch(&e, expected.as_deref()),
                            Err(e) => miss.error(e),
                        }
                        candidates.push(direct);
                        return Source::None(self.miss_cause(miss, path, candidates, expected.as_deref()));
                    }
                },
            },
        };
        // A debug file has no PLT contents: perf synthesizes the PLT symbols from the runtime
        // binary (the first one with them: the cached `elf`, else the file at the path) and
        // inserts them into the tree of the debug file's symbols, if it loaded any
        // (`dso__load`).
        let mut with_plt = None;
        if chosen.0.symbols.plt.is_empty() && !chosen.0.symbols.table.is_empty() {
            let runtime: Vec<Rc<Binary>> =
                candidates.iter().filter_map(|c| self.binary(c).filter(|e| ok(e))).chain(chosen.1).collect();
            if let Some(r) = runtime.iter().find(|e| !e.symbols.plt.is_empty()) {
                self.note_read(
                    archive::UsedKind::Elf,
                    r.path(),
                    r.symbols.build_id.as_deref().or(expected.as_deref()),
                    Some(path),
                );
                let mut t = chosen.0.symbols.table.clone();
                t.insert_sized(r.symbols.plt.clone());
                with_plt = Some(t);
            }
        }
        let kind = if path == "[vdso]" {
            archive::UsedKind::Vdso
        } else if chosen.0.section(".text").is_some() {
            archive::UsedKind::Elf
        } else {
            archive::UsedKind::Debug
        };
        self.note_read(kind, chosen.0.path(), chosen.0.symbols.build_id.as_deref().or(expected.as_deref()), Some(path));
        if self.opts.read_log.is_some() {
            // Script's symbol offsets read the runtime image even where nothing unwinds: note it.
            let _ = self.try_runtime_binary(map);
        }
        let empty = chosen.0.symbols.table.is_empty();
        let why = empty.then(|| Error::NoSymbols { path: Arc::from(chosen.0.path()) });
        Source::Elf(chosen.0, with_plt, why)
    }

    fn dso_name(&mut self, name: &str) -> Rc<str> {
        if let Some(n) = self.dso_names.get(name) {
            return n.clone();
        }
        let n: Rc<str> = Rc::from(name);
        self.dso_names.insert(name.to_string(), n.clone());
        n
    }

    /// The DWARF of `binary`, parsed at the first use.
    fn debug_info(&mut self, binary: &Binary) -> Rc<inline::DebugInfo> {
        self.debug_info
            .entry(binary.path().to_path_buf())
            .or_insert_with(|| Rc::new(inline::DebugInfo::load(binary)))
            .clone()
    }

    /// The records `addr2line -i -f` gives for file offset `off` of `dso`, with their source
    /// positions, asked of `binary` (the file its symbols came from, perf's `dso__name`) at the
    /// ELF address of `off`.
    fn addr2line(&mut self, dso: &Rc<str>, binary: &Binary, off: u64) -> Rc<[inline::Record]> {
        if let Some(r) = self.records.get(&(dso.clone(), off)) {
            return r.clone();
        }
        let r: Rc<[inline::Record]> = Rc::from(self.debug_info(binary).addr2line(binary.offset_to_vaddr(off)));
        self.records.insert((dso.clone(), off), r.clone());
        r
    }

    /// The ELF file `map`'s symbols are read from, loaded at the first call.
    fn symbol_file(&mut self, map: &Map) -> Option<Rc<Binary>> {
        match &*self.source(map) {
            Source::Elf(b, _, _) => Some(b.clone()),
            Source::Absolute(_) | Source::None(_) => None,
        }
    }

    /// perf's inline frames for `addr` in `map` (`append_inlines`), innermost first, when `addr`
    /// has the symbol `frame` (from [`Symbolizer::resolve`]); empty: perf keeps the plain frame.
    /// They come from the DWARF of the file the symbols were read from (perf's `dso__name`),
    /// never for kernel, `[…]` or `/tmp/perf-PID.map` files. No line table is read for them
    /// ([`Symbolizer::inline_srclines`] gives their source lines).
    pub fn inlines(&mut self, map: &Map, addr: u64, frame: &Frame) -> Rc<[InlineFrame]> {
        let Some(symbol) = frame.symbol.as_deref() else { return Rc::from(Vec::new()) };
        if map.is_kernel() || map.filename.starts_with('[') {
            return Rc::from(Vec::new());
        }
        let off = map.map_ip(addr);
        if let Some(l) = self.inlines.get(&(frame.dso.clone(), off)) {
            return l.clone();
        }
        let list: Rc<[InlineFrame]> = match self.symbol_file(map) {
            Some(b) => {
                let names = self.debug_info(&b).records(b.offset_to_vaddr(off));
                Rc::from(inline::inline_list(&names, symbol))
            }
            None => Rc::from(Vec::new()),
        };
        self.inlines.insert((frame.dso.clone(), off), list.clone());
        list
    }

    /// The source lines perf prints under the frames of [`Symbolizer::inlines`] (same arguments,
    /// same order; empty when that is): each record's `file:line` as it is, `??:0` included —
    /// where the address is for the innermost function, the call site for the others.
    pub fn inline_srclines(&mut self, map: &Map, addr: u64, frame: &Frame) -> Rc<[SrcLine]> {
        if self.inlines(map, addr, frame).is_empty() {
            return Rc::from(Vec::new());
        }
        let off = map.map_ip(addr);
        if let Some(l) = self.inline_srclines.get(&(frame.dso.clone(), off)) {
            return l.clone();
        }
        let lines: Rc<[SrcLine]> = match self.symbol_file(map) {
            Some(b) => self.addr2line(&frame.dso, &b, off).iter().map(SrcLine::from_record).collect(),
            None => Rc::from(Vec::new()),
        };
        self.inline_srclines.insert((frame.dso.clone(), off), lines.clone());
        lines
    }

    /// The source line perf prints under a frame at `addr` in `map` (`perf script -F +srcline`,
    /// `map__fprintf_srcline`; see [`srcline`] for the rules): `None` when perf prints none (no
    /// map, or `??:0`). A frame perf replaces by its inline list prints
    /// [`Symbolizer::inline_srclines`] instead. Only these two read line tables.
    pub fn srcline(&mut self, map: Option<&Map>, addr: u64) -> Option<SrcLine> {
        let map = map?;
        if map.is_kernel() {
            return Some(SrcLine::Address { module: self.dso_name("[kernel.kallsyms]"), addr });
        }
        let dso = self.dso_name(&map.filename);
        let off = map.map_ip(addr);
        if let Some(s) = self.srclines.get(&(dso.clone(), off)) {
            return s.clone();
        }
        let binary = self.symbol_file(map);
        // perf asks addr2line about the file its symbols came from, else the module's own name
        // (`dso__name`), unless that is `[…]` or a JIT map (which has no ELF file here); we ask
        // nothing of a file we did not find.
        let records = match &binary {
            Some(b) if !b.path().to_string_lossy().starts_with('[') => self.addr2line(&dso, b, off),
            _ => Rc::from(Vec::new()),
        };
        let line = match records.first() {
            Some(r) => Some(SrcLine::from_record(r)).filter(|s| !s.is_unknown()),
            None => {
                let addr = binary.as_ref().map_or(off, |b| b.offset_to_vaddr(off));
                Some(SrcLine::Address { module: Rc::from(srcline::short_name(&map.filename)), addr })
            }
        };
        self.srclines.insert((dso, off), line.clone());
        line
    }

    /// Read the kernel's symbols now rather than at the first kernel address.
    pub fn load_kernel_symbols(&mut self) {
        self.kallsyms();
    }

    fn kallsyms(&mut self) -> Option<Rc<kallsyms::KernelSyms>> {
        self.try_kallsyms().ok()
    }

    /// The kernel's symbols, read at the first call, or why there are none.
    fn try_kallsyms(&mut self) -> Result<Rc<kallsyms::KernelSyms>> {
        if let Some(k) = &self.kernel.kallsyms {
            return k.clone();
        }
        let k = self.load_kernel().map(|(k, path)| {
            if k.addresses_hidden() {
                self.kernel.hidden = Some(Error::KernelAddressesHidden { path: Arc::from(path.as_path()) });
            }
            Rc::new(k)
        });
        self.kernel.kallsyms = Some(k.clone());
        k
    }

    /// Why the kernel's symbols (kallsyms) name no symbol at `addr`.
    fn kernel_miss(&self, addr: u64) -> Error {
        match (&self.kernel.kallsyms, &self.kernel.hidden) {
            (Some(Err(e)), _) | (_, Some(e)) => e.clone(),
            _ => Error::NoSymbol { addr },
        }
    }

    /// The recorded kernel's release (the OSRELEASE feature, `uname -r`): a recording without a
    /// kernel build id (a pipe recording) takes its kernel symbols from the running kernel only
    /// when that is the release it was recorded on.
    pub fn set_kernel_release(&mut self, release: Option<&str>) {
        self.kernel_release = release.map(str::to_string);
    }

    /// Take the kernel-mode module entries of the BUILD_ID feature (host entries with the kernel's
    /// cpumode whose name is a module's): perf names such a module's dso by the entry's file name
    /// and checks its files against the entry's build id.
    pub fn set_kernel_build_ids(&mut self, entries: &[BuildId]) {
        for e in entries {
            let (name, module) = kmod::kmod_name(&e.filename);
            if e.pid == perfdata_core::feature::build_id::HOST_KERNEL_ID && matches!(e.cpumode(), 1 | 4) && module {
                self.kernel.module_build_ids.push((name, e.filename.clone(), e.build_id.clone()));
            }
        }
    }

    /// Where the symbols of the (user-space) `map` come from, loaded at the first call.
    fn source(&mut self, map: &Map) -> Rc<Source> {
        if let Some(s) = self.sources.get(&map.filename) {
            return s.clone();
        }
        let s = Rc::new(self.load_elf(map));
        self.sources.insert(map.filename.clone(), s.clone());
        s
    }

    /// Changes whenever a kernel address may resolve differently than before (perf loaded the
    /// kernel's or a module's symbols): results of [`Symbolizer::resolve_kernel`] can be kept
    /// while this stays the same.
    pub fn kernel_generation(&self) -> u64 {
        self.kernel.generation
    }

    /// Where perf's kernel map lies: as its MMAP record placed it until perf loads its symbols,
    /// then from the first kernel symbol to the end of the last (`map__fixup_start`/`_end`).
    fn in_kernel_map(&mut self, image: &Map, addr: u64) -> bool {
        let extent = if self.kernel.loaded { self.kallsyms().and_then(|k| k.kernel_extent()) } else { None };
        let (start, end) = extent.unwrap_or((image.start, image.end));
        start <= addr && addr < end
    }

    /// The module dso named `name` (`[name]`), made like perf's `machine__findnew_module_dso`
    /// (from the BUILD_ID entry of that name if any) for the map `map`.
    fn module_dso(&mut self, name: &str, map: &Map) -> &mut kmod::ModuleDso {
        let entries = &self.kernel.module_build_ids;
        self.kernel.modules.entry(name.to_string()).or_insert_with(|| {
            let entry = entries.iter().find(|(n, _, _)| n == name);
            let (printed, long) = match entry {
                Some((_, file, _)) => (file.clone(), file.clone()),
                None => (name.to_string(), map.filename.clone()),
            };
            let bid = map.build_id.clone().or_else(|| entry.map(|(_, _, b)| b.clone()));
            kmod::ModuleDso::new(Rc::from(printed), long, bid)
        })
    }

    /// perf's `dso__load` for a module: the first of the build-id cache's `elf` and `debug` (by
    /// its build id) and the file at its name under `--symfs` that is an ELF file with a symbol
    /// table (and the module's build id, when it has one).
    fn load_module(&mut self, name: &str) {
        let Some(dso) = self.kernel.modules.get(name) else { return };
        let (bid, long) = (dso.build_id.clone(), dso.long_name.clone());
        let mut candidates = Vec::new();
        if let Some(b) = &bid {
            candidates.extend(self.archive_file(b, "elf"));
            candidates.extend(self.archive_file(b, "debug"));
            candidates.extend(self.buildid_cache_file(b, "elf"));
            candidates.extend(self.buildid_cache_file(b, "debug"));
        }
        // perf decompresses `.gz`/`.xz` modules to read them; those are left out.
        if long.starts_with('/') && !long.ends_with(".gz") && !long.ends_with(".xz") {
            candidates.push(self.under_symfs(&long));
        }
        let mut found = None;
        let mut miss = Miss::default();
        for c in &candidates {
            let data = match self.fs().read(c) {
                Ok(data) => data,
                Err(e) => {
                    miss.error(Error::unreadable(c, e));
                    continue;
                }
            };
            let file = match object::File::parse(data.as_slice()) {
                Ok(file) => file,
                Err(e) => {
                    miss.error(Error::NotElf { path: Arc::from(c.as_path()), source: Some(e) });
                    continue;
                }
            };
            let file_bid = object::Object::build_id(&file).ok().flatten();
            let bid_ok = bid.is_none() || file_bid == bid.as_deref();
            if bid_ok && object::Object::symbol_table(&file).is_some() {
                let has_text = object::Object::section_by_name(&file, ".text")
                    .is_some_and(|t| object::ObjectSection::file_range(&t).is_some());
                let kind = if has_text { archive::UsedKind::Elf } else { archive::UsedKind::Debug };
                self.note_read(kind, c, file_bid.or(bid.as_deref()), None);
                found = Some(data);
                break;
            }
            match (bid_ok, &bid, file_bid) {
                (false, Some(want), Some(got)) if miss.mismatch.is_none() => {
                    let (expected, found) = (want.as_slice().into(), got.into());
                    miss.mismatch = Some(Error::BuildIdMismatch { path: Arc::from(c.as_path()), expected, found });
                }
                (true, _, _) => miss.error(Error::NoSymbols { path: Arc::from(c.as_path()) }),
                _ => {}
            }
        }
        if found.is_none() {
            let cause = self.miss_cause(miss, name, candidates, bid.as_deref());
            self.kernel.module_causes.insert(name.to_string(), cause);
        }
        if let Some(dso) = self.kernel.modules.get_mut(name) {
            dso.loaded = true;
            if let Some(data) = found {
                dso.add_file(data.as_slice());
            }
        }
        self.kernel.generation = self.kernel.generation.wrapping_add(1);
    }

    /// perf's `dso__load` of the kernel with a kallsyms file (`__dso__load_kallsyms`,
    /// `maps__split_kallsyms`): each module symbol moves into the module of its name if that has a
    /// map; if the module is loaded already, the first symbol of each run is dropped instead.
    fn load_kernel_dso(&mut self, machine: &Machine) {
        self.kernel.loaded = true;
        self.kernel.generation = self.kernel.generation.wrapping_add(1);
        let Some(ks) = self.kallsyms() else { return };
        // perf's `maps__find_by_name`: the first module map of that name by address.
        let mut current: Option<(String, Map)> = None;
        for ms in ks.modules() {
            if ms.run_start {
                current = None;
                let map = machine.kernel_maps().iter().find(|m| kmod::kmod_name(&m.filename).0 == ms.module).cloned();
                let Some(map) = map else { continue };
                let loaded = self.module_dso(&ms.module, &map).loaded;
                current = Some((ms.module.clone(), map));
                if loaded {
                    continue;
                }
            }
            let Some((name, map)) = &current else { continue };
            let dso = self.module_dso(name, map);
            let off = |a: u64| a.wrapping_sub(map.start).wrapping_add(dso.text_offset);
            let mut sym = ms.sym.clone();
            (sym.start, sym.end) = (off(sym.start), off(sym.end));
            dso.tree.insert(sym);
        }
    }

    /// What perf 6.1's `perf script` does for the kernel when it prints its first sample: it
    /// loads the kernel's symbols (splitting off the module symbols) if it has not yet. Its text
    /// output shows it (a module looked up first, at the first sample's ip, keeps its first
    /// kallsyms symbol when a user-mode sample came before), its Python scripts' does not; the
    /// call is presumably the check for a kernel address by which it prints frame addresses
    /// (`machine__kernel_ip`, which loads the kernel map to learn where the kernel starts).
    pub fn sample_printed(&mut self, machine: &Machine) {
        if !self.kernel.loaded && machine.kernel_image().is_some() {
            self.load_kernel_dso(machine);
        }
    }

    /// Resolve a kernel-mode address the way perf 6.1 does (`thread__find_map` with the kernel's
    /// maps, `map__load`, `map__find_symbol`): in a module's map, from the module's symbols; in
    /// the kernel map, from kallsyms; elsewhere `[unknown]`. The first address in a map loads its
    /// dso, which changes later answers ([`Symbolizer::kernel_generation`]). Kernel names are not
    /// demangled.
    pub fn resolve_kernel(&mut self, machine: &Machine, addr: u64) -> Frame {
        let r = self.lookup_kernel(machine, addr);
        self.frame(r)
    }

    /// Kernel address `addr` in the terms of the symbol [`Symbolizer::resolve_kernel`] names it
    /// with, whose [`Frame::start`] it is an offset from (perf's `al->addr - sym->start`): in a
    /// module, relative to the module's map and placed where its file's `.text` lies; in the
    /// kernel, the address itself.
    pub fn kernel_symbol_addr(&self, machine: &Machine, addr: u64) -> u64 {
        let Some(map) = machine.kernel_maps().find(addr) else { return addr };
        match self.kernel.modules.get(&kmod::kmod_name(&map.filename).0) {
            Some(dso) => addr.wrapping_sub(map.start).wrapping_add(dso.text_offset),
            None => addr,
        }
    }

    /// [`Symbolizer::resolve_kernel`], or why the address has no name: [`Error::NoMap`] outside
    /// the kernel's and modules' maps; for the kernel, why kallsyms could not be read
    /// ([`Error::KallsymsUnreadable`], [`Error::NoKernelSymbols`],
    /// [`Error::KernelAddressesHidden`]) or [`Error::NoSymbol`]; for a module without symbols,
    /// why its file was not found. Counted in [`Symbolizer::unnamed`] like `resolve_kernel`'s.
    ///
    /// ```
    /// use perfdata_core::process::Machine;
    /// use perfdata_symbolize::{Error, SymbolizeOptions, Symbolizer};
    ///
    /// let mut s = Symbolizer::new(SymbolizeOptions::default(), Default::default());
    /// // No kernel MMAP seen: no kernel map holds any address.
    /// let e = s.try_resolve_kernel(&Machine::new(), 0xffff_ffff_8100_0000).unwrap_err();
    /// assert!(matches!(e, Error::NoMap { .. }));
    /// ```
    pub fn try_resolve_kernel(&mut self, machine: &Machine, addr: u64) -> Result<Frame> {
        let r = self.lookup_kernel(machine, addr);
        self.named(r)
    }

    fn lookup_kernel(&mut self, machine: &Machine, addr: u64) -> Lookup {
        if let Some(symbol) = self.recorded_kernel(addr) {
            return Ok(Frame { symbol: Some(symbol), dso: self.dso_name("[kernel.kallsyms]"), start: None, end: None });
        }
        if let Some(map) = machine.kernel_maps().find(addr) {
            let name = kmod::kmod_name(&map.filename).0;
            if !self.module_dso(&name, map).loaded {
                self.load_module(&name);
            }
            let dso = self.module_dso(&name, map);
            let found = dso.find(map.start, addr).map(|s| (Rc::from(s.name.as_str()), s.start, s.end));
            let (empty, dso) = (dso.tree.is_empty(), dso.name.clone());
            return match found {
                Some(f) => Ok(Frame::of(Some(f), dso)),
                None => {
                    let cause = match (&self.kernel.hidden, self.kernel.module_causes.get(&name)) {
                        (Some(e), _) => e.clone(),
                        (None, Some(e)) if empty => e.clone(),
                        _ => Error::NoSymbol { addr },
                    };
                    Err(NoName::new(dso, cause))
                }
            };
        }
        let in_kernel = machine.kernel_image().is_some_and(|k| self.in_kernel_map(k, addr));
        if !in_kernel {
            return Err(NoName::new(self.dso_name("[unknown]"), Error::NoMap { addr }));
        }
        if !self.kernel.loaded {
            self.load_kernel_dso(machine);
        }
        self.lookup_kallsyms(addr)
    }

    /// `addr` in the kernel's own symbols (kallsyms).
    fn lookup_kallsyms(&mut self, addr: u64) -> Lookup {
        let dso = match &self.kallsyms_cache.0 {
            Some(d) => d.clone(),
            None => {
                let d = self.dso_name("[kernel.kallsyms]");
                self.kallsyms_cache.0 = Some(d.clone());
                d
            }
        };
        let found = match self.kallsyms_cache.1.get(&addr) {
            Some(f) => f.clone(),
            None => {
                let kallsyms = self.kallsyms();
                let names = &mut self.names;
                let f = kallsyms.and_then(|k| {
                    let (name, start, end) = k.find(addr)?;
                    Some((interned(names, &dso, start, name), start, end))
                });
                self.kallsyms_cache.1.insert(addr, f.clone());
                f
            }
        };
        match found {
            Some(f) => Ok(Frame::of(Some(f), dso)),
            None => Err(NoName::new(dso, self.kernel_miss(addr))),
        }
    }

    /// [`Symbolizer::resolve`] for an address of process `pid`: one that no map holds may still
    /// have a recorded symbol (simpleperf's `perf-PID.map` tables, [`recorded`]).
    pub fn resolve_in(&mut self, pid: u32, map: Option<&Map>, addr: u64) -> Frame {
        let r = self.lookup_in(pid, map, addr);
        self.frame(r)
    }

    /// [`Symbolizer::resolve_in`], or why the address has no name (see
    /// [`Symbolizer::try_resolve`]).
    ///
    /// ```
    /// use perfdata_symbolize::{Error, SymbolizeOptions, Symbolizer};
    /// let mut s = Symbolizer::new(SymbolizeOptions::default(), Default::default());
    /// assert!(matches!(s.try_resolve_in(7, None, 0x1000), Err(Error::NoMap { addr: 0x1000 })));
    /// ```
    pub fn try_resolve_in(&mut self, pid: u32, map: Option<&Map>, addr: u64) -> Result<Frame> {
        let r = self.lookup_in(pid, map, addr);
        self.named(r)
    }

    fn lookup_in(&mut self, pid: u32, map: Option<&Map>, addr: u64) -> Lookup {
        if map.is_none() {
            if let Some((dso, symbol)) = self.recorded.find_unmapped(pid, addr) {
                return Ok(Frame { symbol: Some(symbol), dso: self.dso_name(&dso), start: None, end: None });
            }
        }
        self.lookup(map, addr)
    }

    /// Resolve `addr` in the process map `map` (`None`: no map holds the address). Kernel-mode
    /// addresses go through [`Symbolizer::resolve_kernel`]; given the kernel image's map, this
    /// answers from kallsyms alone.
    pub fn resolve(&mut self, map: Option<&Map>, addr: u64) -> Frame {
        let r = self.lookup(map, addr);
        self.frame(r)
    }

    /// [`Symbolizer::resolve`], or why the address has no name: [`Error::NoMap`] without a map,
    /// the DSO's cause when no usable file was found for it (the same [`Error`] for every address
    /// of the DSO, found once: [`Error::NotFound`] with the paths tried,
    /// [`Error::BuildIdMismatch`], [`Error::Unreadable`], [`Error::NotElf`],
    /// [`Error::NoSymbols`], [`Error::PerfMapMissing`], [`Error::Anonymous`]), the kernel's (see
    /// [`Symbolizer::try_resolve_kernel`]), else [`Error::NoSymbol`]. The frame `resolve` gives
    /// for such an address is the DSO's name without a symbol; each one is counted in
    /// [`Symbolizer::unnamed`].
    ///
    /// ```
    /// use perfdata_core::process::Map;
    /// use perfdata_symbolize::{Error, SymbolizeOptions, Symbolizer};
    ///
    /// let opts = SymbolizeOptions { buildid_dir: Some("/nonexistent".into()), ..Default::default() };
    /// let mut s = Symbolizer::new(opts, Default::default());
    /// let map = Map::from_mmap(1, 0x1000, 0x1000, 0, "/nonexistent/libgone.so".into(), 5, 2);
    /// let e = s.try_resolve(Some(&map), 0x1010).unwrap_err();
    /// assert!(matches!(e, Error::NotFound { .. }), "{e}");
    /// assert!(e.to_string().starts_with("no file found for /nonexistent/libgone.so (tried "));
    /// // `resolve` gives the frame perf prints, without a symbol.
    /// let f = s.resolve(Some(&map), 0x1010);
    /// assert_eq!((f.symbol, &*f.dso), (None, "/nonexistent/libgone.so"));
    /// assert_eq!(s.unnamed()[0].frames, 2);
    /// ```
    pub fn try_resolve(&mut self, map: Option<&Map>, addr: u64) -> Result<Frame> {
        let r = self.lookup(map, addr);
        self.named(r)
    }

    fn lookup(&mut self, map: Option<&Map>, addr: u64) -> Lookup {
        let Some(map) = map else {
            return Err(NoName::new(self.dso_name("[unknown]"), Error::NoMap { addr }));
        };
        if map.is_kernel() {
            if let Some(symbol) = self.recorded_kernel(addr) {
                return Ok(Frame {
                    symbol: Some(symbol),
                    dso: self.dso_name("[kernel.kallsyms]"),
                    start: None,
                    end: None,
                });
            }
            return self.lookup_kallsyms(addr);
        }
        let dso = self.dso_name(&map.filename);
        if let Some(symbol) = self.recorded.find(map, addr) {
            return Ok(Frame { symbol: Some(symbol), dso, start: None, end: None });
        }
        let key = (dso.clone(), map.map_ip(addr));
        if let Some(s) = self.cache.get(&key) {
            return match s {
                Some(f) => Ok(Frame::of(Some(f.clone()), dso)),
                None => {
                    // A miss cached for its address is in a DSO already counted: count it here
                    // without looking for its cause again (the DSO's, or no symbol at `addr`).
                    if let Some((n, kept)) = self.unnamed.get_mut(&dso) {
                        *n = n.saturating_add(1);
                        let cause = if kept.is_per_dso() { kept.clone() } else { Error::NoSymbol { addr } };
                        return Err(NoName { dso, cause, counted: true });
                    }
                    let cause = self.miss(map, addr);
                    Err(NoName::new(dso, cause))
                }
            };
        }
        if let Some(code) = &map.jit {
            // (JIT code has one name per load: no two symbols to tell apart.)
            let found = jit::symbol_at(code, key.1).map(|n| (Rc::from(demangle(n)), 0, 0));
            self.cache.insert(key, found.clone());
            return found
                .map(|f| Frame::of(Some(f), dso.clone()))
                .ok_or_else(|| NoName::new(dso, Error::NoSymbol { addr }));
        }
        let source = self.source(map);
        let names = &mut self.names;
        let found: Found = match &*source {
            // perf demangles no perf map name (dso__load_perf_map keeps them as written).
            Source::Absolute(t) => t.find(addr).map(|s| (interned(names, &dso, s.start, &s.name), s.start, s.end)),
            Source::Elf(e, plt, _) => {
                let vaddr = e.offset_to_vaddr(key.1);
                plt.as_ref()
                    .unwrap_or(&e.symbols.table)
                    .find(vaddr)
                    .map(|s| (interned(names, &dso, s.start, &demangle(&s.name)), s.start, s.end))
            }
            Source::None(_) => None,
        };
        self.cache.insert(key, found.clone());
        match found {
            Some(f) => Ok(Frame::of(Some(f), dso)),
            None => Err(NoName::new(dso, source_miss(&source, addr))),
        }
    }

    /// Why an address of the user-space `map` whose lookup is cached as unnamed has no name.
    fn miss(&self, map: &Map, addr: u64) -> Error {
        match self.sources.get(&map.filename) {
            Some(source) if map.jit.is_none() => source_miss(source, addr),
            _ => Error::NoSymbol { addr },
        }
    }

    /// The frame [`Symbolizer::resolve`] gives for a lookup: unnamed ones are counted.
    fn frame(&mut self, r: Lookup) -> Frame {
        match r {
            Ok(f) => f,
            Err(miss) => {
                if !miss.counted {
                    self.note(&miss.dso, miss.cause);
                }
                Frame::of(None, miss.dso)
            }
        }
    }

    /// [`Symbolizer::frame`] for the `try_` functions.
    fn named(&mut self, r: Lookup) -> Result<Frame> {
        r.map_err(|miss| {
            if !miss.counted {
                self.note(&miss.dso, miss.cause.clone());
            }
            miss.cause
        })
    }

    /// Count an unnamed lookup in `dso`; a cause of the whole DSO replaces a per-address one.
    fn note(&mut self, dso: &Rc<str>, cause: Error) {
        match self.unnamed.get_mut(dso) {
            Some((n, kept)) => {
                *n = n.saturating_add(1);
                if cause.is_per_dso() && !kept.is_per_dso() {
                    *kept = cause;
                }
            }
            None => {
                self.unnamed.insert(dso.clone(), (1, cause));
            }
        }
    }

    /// What could not be named so far, per DSO (perf's dso name; `[unknown]` for addresses
    /// without a map), most unnamed lookups first: how many lookups of [`Symbolizer::resolve`],
    /// [`Symbolizer::resolve_in`], [`Symbolizer::resolve_kernel`] (and their `try_` forms) found
    /// no name, and why — the cause of the whole DSO when it had no usable file (reported once,
    /// however many addresses), else the first address without a symbol.
    ///
    /// ```
    /// use perfdata_core::process::Map;
    /// use perfdata_symbolize::{SymbolizeOptions, Symbolizer};
    ///
    /// let opts = SymbolizeOptions { buildid_dir: Some("/nonexistent".into()), ..Default::default() };
    /// let mut s = Symbolizer::new(opts, Default::default());
    /// let map = Map::from_mmap(1, 0x1000, 0x1000, 0, "[heap]".into(), 3, 2);
    /// for a in [0x1000, 0x1008, 0x1010] {
    ///     s.resolve(Some(&map), a);
    /// }
    /// s.resolve(None, 0x10);
    /// let lines: Vec<String> = s.unnamed().iter().map(|u| u.to_string()).collect();
    /// assert_eq!(lines, [
    ///     "[heap]: 3 frames unnamed: [heap] is anonymous memory: no file to read symbols from",
    ///     "[unknown]: 1 frame unnamed: no mapping covers 0x10",
    /// ]);
    /// ```
    pub fn unnamed(&self) -> Vec<Unnamed> {
        let mut v: Vec<Unnamed> = self
            .unnamed
            .iter()
            .map(|(dso, (frames, cause))| Unnamed { dso: Arc::from(&**dso), frames: *frames, cause: cause.clone() })
            .collect();
        v.sort_by(|a, b| b.frames.cmp(&a.frames).then_with(|| a.dso.cmp(&b.dso)));
        v
    }

    /// [`Symbolizer::unnamed`] in one line, `None` when every lookup found a name: how many
    /// addresses in how many DSOs, then the three DSOs with the most, each with its count and
    /// cause (`DSO (N): CAUSE`), and the rest counted together.
    ///
    /// ```
    /// use perfdata_core::process::Map;
    /// use perfdata_symbolize::{SymbolizeOptions, Symbolizer};
    ///
    /// let mut s = Symbolizer::new(SymbolizeOptions::default(), Default::default());
    /// assert_eq!(s.unnamed_summary(), None);
    /// let heap = Map::from_mmap(1, 0x1000, 0x1000, 0, "[heap]".into(), 3, 2);
    /// s.resolve(Some(&heap), 0x1000);
    /// s.resolve(Some(&heap), 0x1008);
    /// s.resolve(None, 0x10);
    /// assert_eq!(
    ///     s.unnamed_summary().unwrap(),
    ///     "3 addresses unnamed in 2 DSOs: [heap] (2): [heap] is anonymous memory: no file to read \
    ///      symbols from; [unknown] (1): no mapping covers 0x10"
    /// );
    /// ```
    pub fn unnamed_summary(&self) -> Option<String> {
        summarize_unnamed(&self.unnamed())
    }
}

/// The line of [`Symbolizer::unnamed_summary`] for a list as [`Symbolizer::unnamed`] gives it.
fn summarize_unnamed(unnamed: &[Unnamed]) -> Option<String> {
    /// DSOs named with their cause; the others are counted together.
    const SHOWN: usize = 3;
    if unnamed.is_empty() {
        return None;
    }
    let total = unnamed.iter().fold(0u64, |a, u| a.saturating_add(u.frames));
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = format!(
        "{} unnamed in {}: ",
        plural(total, "address", "addresses"),
        plural(unnamed.len() as u64, "DSO", "DSOs")
    );
    let parts: Vec<String> = unnamed
        .iter()
        .take(SHOWN)
        .map(|u| match &u.cause {
            // The places tried, counted: the full list is the error's own text.
            Error::NotFound { tried, .. } => format!(
                "{} ({}): no file found in the {} places perf looks (the build-id cache, /usr/lib/debug, \
                 the recorded path)",
                u.dso,
                u.frames,
                tried.len()
            ),
            cause => format!("{} ({}): {cause}", u.dso, u.frames),
        })
        .collect();
    line.push_str(&parts.join("; "));
    if let Some(rest) = unnamed.get(SHOWN..).filter(|r| !r.is_empty()) {
        let n = rest.iter().fold(0u64, |a, u| a.saturating_add(u.frames));
        line.push_str(&format!("; {} in {}", n, plural(rest.len() as u64, "other DSO", "other DSOs")));
    }
    Some(line)
}

/// A lookup's frame, or the dso perf names for it and why it has no symbol.
type Lookup = std::result::Result<Frame, NoName>;

/// A lookup that found no name: in which DSO, why, and whether [`Symbolizer::unnamed`] has
/// counted it already.
struct NoName {
    dso: Rc<str>,
    cause: Error,
    counted: bool,
}

impl NoName {
    fn new(dso: Rc<str>, cause: Error) -> NoName {
        NoName { dso, cause, counted: false }
    }
}

/// Why `source` names nothing at `addr`.
fn source_miss(source: &Source, addr: u64) -> Error {
    match source {
        Source::None(e) | Source::Elf(_, _, Some(e)) => e.clone(),
        Source::Elf(b, _, None) if !b.symbols.has_symtab => Error::Stripped { path: Arc::from(b.path()) },
        Source::Elf(_, _, None) | Source::Absolute(_) => Error::NoSymbol { addr },
    }
}

/// The GNU build id in `/sys/kernel/notes` (a sequence of ELF notes).
pub fn running_kernel_build_id(notes: &[u8]) -> Option<Vec<u8>> {
    let mut rest = notes;
    loop {
        let namesz = u32::from_le_bytes(rest.get(0..4)?.try_into().ok()?) as usize;
        let descsz = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
        let ty = u32::from_le_bytes(rest.get(8..12)?.try_into().ok()?);
        let name_end = 12usize.checked_add(namesz.checked_add(3)? & !3)?;
        let desc_end = name_end.checked_add(descsz.checked_add(3)? & !3)?;
        if ty == 3 && rest.get(12..12usize.checked_add(namesz)?)? == b"GNU\0" {
            return rest.get(name_end..name_end.checked_add(descsz)?).map(<[u8]>::to_vec);
        }
        rest = rest.get(desc_end..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording without a kernel build id (pipe mode) takes the running kernel's symbols only
    /// when it was recorded on the running kernel's release; one with a build id only when the
    /// build ids match; `--kallsyms` always wins.
    #[test]
    fn running_kernel_symbols_only_for_the_recorded_kernel() {
        let dir = std::env::temp_dir().join(format!("perfdata-host-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let host = Host { release: dir.join("osrelease"), notes: dir.join("notes"), kallsyms: dir.join("kallsyms") };
        std::fs::write(&host.release, "6.1.0-test\n").unwrap();
        std::fs::write(&host.kallsyms, "ffffffff81000000 T _text\nffffffff81000100 T do_work\n").unwrap();
        // /sys/kernel/notes: one GNU build-id note (namesz 4, descsz 4, type 3).
        let mut notes = Vec::new();
        for w in [4u32, 4, 3] {
            notes.extend(w.to_le_bytes());
        }
        notes.extend(b"GNU\0\xab\xcd\x01\x02");
        std::fs::write(&host.notes, notes).unwrap();
        let kernel = |build_id: Option<Vec<u8>>, release: Option<&str>, kallsyms: Option<PathBuf>| {
            let mut ids = HashMap::new();
            ids.extend(build_id.map(|b| ("[kernel.kallsyms]".to_string(), b)));
            let opts = SymbolizeOptions { buildid_dir: Some(dir.join("no-cache")), kallsyms, ..Default::default() };
            let mut s = Symbolizer::new(opts, ids);
            s.host = host.clone();
            s.set_kernel_release(release);
            s.load_kernel().ok().map(|(k, _)| k.names())
        };
        let named = Some(vec!["_text".to_string(), "do_work".to_string()]);
        assert_eq!(kernel(None, Some("6.1.0-test"), None), named);
        assert_eq!(kernel(None, Some("6.1.0-other"), None), None);
        assert_eq!(kernel(None, None, None), None);
        assert_eq!(kernel(Some(vec![0xab, 0xcd, 1, 2]), Some("6.1.0-other"), None), named);
        assert_eq!(kernel(Some(vec![0xab, 0xcd, 1, 3]), Some("6.1.0-test"), None), None);
        let other = dir.join("other-kallsyms");
        std::fs::write(&other, "ffffffff82000000 T elsewhere\n").unwrap();
        assert_eq!(kernel(None, Some("6.1.0-other"), Some(other)), Some(vec!["elsewhere".to_string()]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `c++filt -p` (libiberty without DMGL_PARAMS, as perf demangles): a template function's
    /// return type goes with its parameters, an empty trailing pack leaves no `, `.
    #[test]
    fn template_functions_without_return_types() {
        for (mangled, want) in [
            (
                "_ZN2v88internal12DeserializerINS0_7IsolateEE22ReadSingleBytecodeDataINS0_24SlotAccessorForRootSlotsEEEihT_",
                "v8::internal::Deserializer<v8::internal::Isolate>::ReadSingleBytecodeData<v8::internal::SlotAccessorForRootSlots>",
            ),
            (
                "_ZN2v88internal12_GLOBAL__N_119HandleApiCallHelperILb0EEENS0_11MaybeHandleINS0_6ObjectEEEPNS0_7IsolateENS0_6HandleINS0_10HeapObjectEEENS8_INS0_20FunctionTemplateInfoEEENS8_IS4_EEPmi",
                "v8::internal::(anonymous namespace)::HandleApiCallHelper<false>",
            ),
            ("_ZN4node5StartEiPPc", "node::Start"),
            (
                "_ZN2v88internal8compiler12PipelineImpl3RunINS1_17GraphBuilderPhaseEJEEEDaDpOT0_",
                "v8::internal::compiler::PipelineImpl::Run<v8::internal::compiler::GraphBuilderPhase>",
            ),
        ] {
            assert_eq!(demangle(mangled), want);
        }
    }

    /// Symbols at one address that tie on size, binding and underscores: perf keeps the one
    /// whose demangled name is longer (it compares the names it stored, demangled), whatever
    /// their order and mangled lengths.
    #[test]
    fn duplicates_keep_the_longer_demangled_name() {
        let sym = |name: &str| Sym { start: 0x1000, end: 0x1010, name: name.into(), binding: Binding::Global };
        // Both mangled names are 8 bytes; demangled "abc" and "a::b".
        for order in [["_ZN3abcE", "_ZN1a1bE"], ["_ZN1a1bE", "_ZN3abcE"]] {
            let t = SymbolTable::new_demangled(order.iter().map(|n| sym(n)).collect());
            assert_eq!(t.find(0x1004).map(|s| s.name.as_str()), Some("_ZN1a1bE"), "{order:?}");
        }
        // kallsyms and perf map names are compared as they are: the longer raw name wins
        // (`camlAAAA__b`, 11 bytes, though perf would demangle an ELF symbol so named to
        // `AAAA.b`).
        for order in [["camlAAAA__b", "xxxxxxxxxx"], ["xxxxxxxxxx", "camlAAAA__b"]] {
            let raw = SymbolTable::new(order.iter().map(|n| sym(n)).collect());
            assert_eq!(raw.find(0x1004).map(|s| s.name.as_str()), Some("camlAAAA__b"), "{order:?}");
            let elf = SymbolTable::new_demangled(order.iter().map(|n| sym(n)).collect());
            assert_eq!(elf.find(0x1004).map(|s| s.name.as_str()), Some("xxxxxxxxxx"), "{order:?}");
        }
    }
}
