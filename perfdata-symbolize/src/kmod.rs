//! Kernel modules the way perf 6.1 resolves their addresses.
//!
//! A kernel MMAP record whose file name starts with `/`, or with `[` without being the kernel's
//! (`[kernel.kallsyms]…`), maps a module (`machine__process_kernel_mmap_event`). Its dso is named
//! by [`kmod_name`] (`/lib/modules/…/foo-bar.ko` → `[foo_bar]`), unless a kernel entry of the
//! BUILD_ID feature with that name came first: perf then prints that entry's file name.
//!
//! Its symbols come from two places, in an order set by the samples:
//! - the module's file (`dso__load`, at the first address looked up in the module): the build-id
//!   cache's `elf` or `debug` by the module's build id, then the file name under `--symfs`; its
//!   `.text` symbols count, placed where perf's `.ko` loading puts them (`.text` at the module's
//!   start, the map's page offset set to `.text`'s file offset);
//! - kallsyms (`maps__split_kallsyms`, when the kernel's own symbols are loaded at the first
//!   address looked up in the kernel): each module symbol moves into the module of its name, if
//!   that module has a map then. Of a module already loaded, the first symbol of each run (see
//!   [`super::kallsyms::ModuleSym::run_start`]) is dropped instead, the rest still move in.
//!
//! Both go into one tree per module (`SymTree`, a red-black tree), where a `.ko` loaded first keeps its symbols
//! beside the kallsyms ones, and kallsyms symbols moved in before the `.ko` was read sit at
//! offsets that ignore its `.text` offset; lookups then depend on the tree's shape, reproduced.

use std::rc::Rc;

use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind, SymbolSection};

use super::rbtree::SymTree;
use super::Sym;

/// perf's `kmod_path__parse_name` (`__kmod_path__parse` with a name): the dso name of a kernel
/// map's file and whether it is a module. `[name]` stays as it is (a module unless it is the
/// kernel's, the vdso's or vsyscall's); a path's base name without `.ko` (and a compression
/// suffix perf 6.1 knows: `.gz`, `.xz`) becomes `[name]`, other base names stay; `-` becomes `_`
/// in both.
pub fn kmod_name(path: &str) -> (String, bool) {
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    let name = path.get(name_at..).unwrap_or("");
    if name.starts_with('[') {
        let kernel = ["[kernel.kallsyms]", "[guest.kernel.kallsyms", "[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]"];
        return (name.to_string(), !kernel.iter().any(|k| name.starts_with(k)));
    }
    // perf's `ext` is the last `.` of the whole path, which may lie in a directory name.
    let Some(dot) = path.rfind('.') else { return (name.to_string(), false) };
    let mut ext = i64::try_from(dot).unwrap_or(i64::MAX);
    if matches!(path.get(dot + 1..), Some("gz" | "xz")) {
        ext -= 3;
    }
    let name_at = i64::try_from(name_at).unwrap_or(i64::MAX);
    let ko = |at: i64| usize::try_from(at).ok().and_then(|at| path.get(at..)).is_some_and(|e| e.starts_with(".ko"));
    let kmod = ext > name_at && ko(ext);
    let out = match (kmod, usize::try_from(name_at), usize::try_from(ext)) {
        (true, Ok(from), Ok(to)) => format!("[{}]", path.get(from..to).unwrap_or("")),
        _ => name.to_string(),
    };
    (out.replace('-', "_"), kmod)
}

/// One module as perf's dso for it.
#[derive(Debug)]
pub struct ModuleDso {
    /// The name perf prints (`[name]`, or the BUILD_ID entry's file name).
    pub name: Rc<str>,
    /// The file perf looks for under `--symfs` (perf's `long_name`).
    pub long_name: String,
    /// From the BUILD_ID feature.
    pub build_id: Option<Vec<u8>>,
    /// perf's `dso__load` ran (whether or not it found a file).
    pub loaded: bool,
    /// The symbols, at offsets from the module's start plus [`ModuleDso::text_offset`].
    pub tree: SymTree,
    /// The map's page offset: `.text`'s file offset once a `.ko` was read, else 0.
    pub text_offset: u64,
}

impl ModuleDso {
    /// A module not loaded yet.
    pub fn new(name: Rc<str>, long_name: String, build_id: Option<Vec<u8>>) -> ModuleDso {
        ModuleDso { name, long_name, build_id, loaded: false, tree: SymTree::default(), text_offset: 0 }
    }

    /// Take the symbols of the module's file as perf's `dso__load_sym` does for a kernel module:
    /// functions, objects and labels of the `.text` section (`SHF_ALLOC`, named, defined) at
    /// `st_value` less `.text`'s address plus its file offset (for relocatable and executable
    /// files), the map's page offset set to that file offset; then, if the file had any symbol,
    /// perf's end and duplicate fix-ups over the whole tree. The kallsyms symbols the module got
    /// before are gone afterwards in perf's output (with the file read after the kernel's
    /// symbols, only the file's symbols resolve), so they go here.
    pub fn add_file_symbols(&mut self, file: &object::File<'_>) {
        self.tree = SymTree::default();
        let adjust = matches!(file.kind(), object::ObjectKind::Relocatable | object::ObjectKind::Executable);
        let mut kept = 0usize;
        let mut remapped = false;
        for s in file.symbols() {
            let kind = s.kind();
            let Ok(name) = s.name() else { continue };
            if name.is_empty() || !matches!(kind, SymbolKind::Text | SymbolKind::Data | SymbolKind::Label) {
                continue;
            }
            let SymbolSection::Section(idx) = s.section() else { continue };
            let Ok(sec) = file.section_by_index(idx) else { continue };
            let SectionFlags::Elf { sh_flags } = sec.flags() else { continue };
            if sh_flags & u64::from(object::elf::SHF_ALLOC) == 0 {
                continue;
            }
            let sec_name = sec.name().unwrap_or("");
            // Labels only in sections whose name says text (perf's `elf_sec__filter`).
            if kind == SymbolKind::Label && !sec_name.contains("text") {
                continue;
            }
            kept += 1;
            // Symbols of other sections go to dsos of their own (`[name].init.text` …).
            if sec_name != ".text" {
                continue;
            }
            let offset = sec.file_range().map_or(0, |(off, _)| off);
            if !remapped {
                self.text_offset = offset;
                remapped = true;
            }
            let start = if adjust { s.address().wrapping_sub(sec.address()).wrapping_add(offset) } else { s.address() };
            let binding = super::elf::binding(&s);
            self.tree.insert(Sym { start, end: start.wrapping_add(s.size()), name: name.to_string(), binding });
        }
        if kept > 0 {
            self.tree.fixup_end();
            self.tree.fixup_duplicate();
        }
    }

    /// [`ModuleDso::add_file_symbols`] from a file's bytes; false (and nothing changed) if they
    /// are not an ELF file with a symbol table.
    pub fn add_file(&mut self, data: &[u8]) -> bool {
        match object::File::parse(data) {
            Ok(file) if file.format() == object::BinaryFormat::Elf && file.symbol_table().is_some() => {
                self.add_file_symbols(&file);
                true
            }
            _ => false,
        }
    }

    /// The symbol at `addr` in the map `[map_start, …)` (perf's `map__map_ip`, `symbols__find`).
    pub fn find(&self, map_start: u64, addr: u64) -> Option<&Sym> {
        self.tree.find(addr.wrapping_sub(map_start).wrapping_add(self.text_offset))
    }
}

#[cfg(test)]
mod tests {
    use super::kmod_name;

    #[test]
    fn names_like_kmod_path_parse() {
        let n = |p: &str| kmod_name(p);
        assert_eq!(n("/lib/modules/6.1/kernel/fs/foo-bar.ko"), ("[foo_bar]".into(), true));
        assert_eq!(n("/lib/modules/6.1/extra/x.ko.xz"), ("[x]".into(), true));
        assert_eq!(n("/lib/modules/6.1/extra/x.ko.gz"), ("[x]".into(), true));
        // perf 6.1 knows no zstd modules.
        assert_eq!(n("/lib/modules/6.1/extra/x-y.ko.zst"), ("x_y.ko.zst".into(), false));
        assert_eq!(n("[foo-bar]"), ("[foo-bar]".into(), true));
        assert_eq!(n("[kernel.kallsyms]_text"), ("[kernel.kallsyms]_text".into(), false));
        assert_eq!(n("[vdso]"), ("[vdso]".into(), false));
        // The last `.` of the path is in a directory name: no module, but `-` still goes.
        assert_eq!(n("/lib/modules/6.1.0-x/foo-bar"), ("foo_bar".into(), false));
        // No `.` at all: the base name as it is.
        assert_eq!(n("/lib/modules/foo-bar"), ("foo-bar".into(), false));
        assert_eq!(n("/a/.ko"), (".ko".into(), false));
        assert_eq!(n(""), ("".into(), false));
        assert_eq!(n("/"), ("".into(), false));
        assert_eq!(n(".gz"), (".gz".into(), false));
    }
}
