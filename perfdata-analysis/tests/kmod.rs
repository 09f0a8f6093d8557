//! Kernel-module frames folded like perf 6.1 folds them, compared with perf's outputs stored in
//! testdata/kmod (made by make.sh there from recordings derived from sysw.data by
//! perfdata-core/examples/kmod_fixture.rs): module MMAP records, samples with module addresses, a
//! kallsyms with module symbols, and `kmod-demo.ko` found at its path or by its build id.
//! User frames come from testdata/folded's extract, as in tests/folded.rs.

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

use common::copy_tree;
use std::path::PathBuf;

use perfdata_analysis::folded::{folded, Compat, FoldedOptions, Root, Unknown};
use perfdata_analysis::script::{write_script_with, ScriptOptions};
use perfdata_core::process::{Machine, MachineEvent, Map};
use perfdata_core::PerfFile;
use perfdata_symbolize::{SymbolizeOptions, Symbolizer};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// How perf found (or not) `kmod-demo.ko`.
#[derive(Clone, Copy)]
enum Ko<'a> {
    /// Not at all: module symbols come from kallsyms alone.
    None,
    /// At its /lib/modules path under `--symfs` (this root, from [`symfs_with_ko`]).
    Path(&'a std::path::Path),
    /// In the build-id cache.
    BuildIdCache,
}

/// testdata/folded/root with testdata/kmod/root (the `.ko`) added, in a temporary directory.
fn symfs_with_ko() -> PathBuf {
    let root = std::env::temp_dir().join(format!("perfdata-kmod-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&testdata().join("folded/root"), &root);
    copy_tree(&testdata().join("kmod/root"), &root);
    root
}

fn fold(name: &str, ko: Ko<'_>, opts: FoldedOptions) -> String {
    let td = testdata();
    let (symfs, buildid_dir) = match ko {
        Ko::None => (td.join("folded/root"), td.join("folded/no-buildid-cache")),
        Ko::Path(root) => (root.to_path_buf(), td.join("folded/no-buildid-cache")),
        Ko::BuildIdCache => (td.join("folded/root"), td.join("kmod/buildid")),
    };
    let opts = FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(symfs),
            buildid_dir: Some(buildid_dir),
            kallsyms: Some(td.join("kmod/kallsyms")),
            ..Default::default()
        },
        ..opts
    };
    let file = PerfFile::open(td.join("kmod").join(name)).unwrap();
    folded(&file, &opts).unwrap().to_folded_string()
}

fn check(name: &str, ko: Ko<'_>, opts: FoldedOptions, output: &str) {
    let ours = fold(name, ko, opts);
    let want = std::fs::read_to_string(testdata().join("kmod").join(output)).unwrap();
    common::assert_same_lines(&ours, &want, output);
}

fn py() -> FoldedOptions {
    FoldedOptions::compat(Compat::PerfScriptPy)
}

fn pl() -> FoldedOptions {
    FoldedOptions::compat(Compat::StackcollapsePl)
}

/// `perf script report stackcollapse -- --kernel --include-pid --include-tid`.
fn py_k_pid_tid() -> FoldedOptions {
    FoldedOptions { annotate_kernel: true, root: Root::CommPidTid, ..py() }
}

/// `perf script -F +pid | inferno-collapse-perf --all --tid`.
fn pl_all_tid() -> FoldedOptions {
    FoldedOptions { annotate_kernel: true, annotate_jit: true, root: Root::CommPidTid, ..pl() }
}

/// `inferno-collapse-perf --addrs`.
fn pl_addrs() -> FoldedOptions {
    FoldedOptions { unknown: Unknown::Address, ..pl() }
}

/// Module symbols from kallsyms alone. kmod.data's first kernel-mode sample is in kmod-demo, so
/// perf loads that module (finding no file) before the kernel; its first kallsyms symbol
/// (`demo_read`) is then dropped, the others still move in. stackcollapse.py shows kallsyms
/// module names with their `\0[module]` tail; perf script cuts them there.
#[test]
fn kallsyms_module_symbols() {
    let name = "kmod.data";
    check(name, Ko::None, py(), &format!("{name}.folded-perf-script-py"));
    check(name, Ko::None, py_k_pid_tid(), &format!("{name}.folded-perf-script-py-k-pid-tid"));
    check(name, Ko::None, pl(), &format!("{name}.folded-stackcollapse-pl"));
    check(name, Ko::None, pl_all_tid(), &format!("{name}.folded-stackcollapse-pl-all-tid"));
    check(name, Ko::None, pl_addrs(), &format!("{name}.folded-stackcollapse-pl-addrs"));
    // With a BUILD_ID entry for kmod-demo.ko, perf prints its path as the dso.
    let name = "kmod-buildid.data";
    check(name, Ko::None, py(), &format!("{name}.folded-perf-script-py"));
    check(name, Ko::None, pl(), &format!("{name}.folded-stackcollapse-pl"));
}

/// `perf script`'s text, module symbols from kallsyms alone (testdata/kmod/gen-text.sh): printing
/// the first sample (a user one) loads the kernel's symbols, so the module frames after it are
/// named, and a module symbol's offset is the address's in the module (`demo_ioctl+0x24`).
#[test]
fn script_names_module_frames_as_perf_script_does() {
    let td = testdata();
    let opts = ScriptOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(td.join("folded/root")),
            buildid_dir: Some(td.join("folded/no-buildid-cache")),
            kallsyms: Some(td.join("kmod/kallsyms")),
            ..Default::default()
        },
        ..ScriptOptions::default()
    };
    for name in ["kmod.data", "kmod-buildid.data"] {
        let want = std::fs::read_to_string(td.join("kmod").join(format!("{name}.script"))).unwrap();
        assert!(want.contains("demo_ioctl+0x24 ("), "{name}: perf's text is not the expected one");
        let file = PerfFile::open(td.join("kmod").join(name)).unwrap();
        let mut out = Vec::new();
        write_script_with(&file, &opts, &mut out, &mut |_| {}).unwrap();
        common::assert_same_lines(&String::from_utf8(out).unwrap(), &want, name);
    }
}

/// `kmod-demo.ko` read first (its symbols, `.text` at the module's start), then the kallsyms
/// symbols after the first added to the same tree.
#[test]
fn module_file_at_its_path() {
    let root = symfs_with_ko();
    for name in ["kmod.data", "kmod-buildid.data"] {
        check(name, Ko::Path(&root), py(), &format!("{name}.ko.folded-perf-script-py"));
        check(name, Ko::Path(&root), pl(), &format!("{name}.ko.folded-stackcollapse-pl"));
    }
    check("kmod.data", Ko::Path(&root), pl_addrs(), "kmod.data.ko.folded-stackcollapse-pl-addrs");
    std::fs::remove_dir_all(&root).unwrap();
}

/// The BUILD_ID entry names the dso (perf prints the module's path) and finds its file in the
/// build-id cache.
#[test]
fn module_file_in_the_build_id_cache() {
    let name = "kmod-buildid.data";
    check(name, Ko::BuildIdCache, py(), &format!("{name}.bidcache.folded-perf-script-py"));
    check(name, Ko::BuildIdCache, pl(), &format!("{name}.bidcache.folded-stackcollapse-pl"));
}

/// Odd module records against the fixture's kallsyms (no perf output: perf's answer for maps
/// that overlap depends on the shape of its map tree). None panics; the kernel's symbols stay the
/// kernel's and a module's map answers for its range.
#[test]
fn odd_module_records_never_panic() {
    let opts = SymbolizeOptions { kallsyms: Some(testdata().join("kmod/kallsyms")), ..Default::default() };
    let mut sym = Symbolizer::new(opts, Default::default());
    let mut m = Machine::new();
    let add = |m: &mut Machine, start: u64, len: u64, name: &str| {
        if let Some((kind, map)) = Map::from_kernel_mmap(start, len, 0, name.into()) {
            m.apply(MachineEvent::KernelMap { kind, map });
        }
    };
    const KSYS_READ: u64 = 0xffff_ffff_816b_b886;
    const DEMO: u64 = 0xffff_ffff_c0a0_0000;
    add(&mut m, 0xffff_ffff_8100_0000, 0x120_bb08, "[kernel.kallsyms]_text");
    // Unnamed, zero-length, and a module overlapping the kernel's text.
    add(&mut m, KSYS_READ & !0xfff, 0x1000, "");
    add(&mut m, DEMO, 0, "/lib/modules/6.18.44-fc-v669/kernel/drivers/misc/kmod-demo.ko");
    add(&mut m, 0xffff_ffff_816b_0000, 0x1000, "[overlap]");
    add(&mut m, u64::MAX - 0xfff, 0x2000, "[wrap]");
    let frame = |sym: &mut Symbolizer, m: &Machine, a: u64| {
        let f = sym.resolve_kernel(m, a);
        (f.symbol.map(|s| s.to_string()), f.dso.to_string())
    };
    assert_eq!(frame(&mut sym, &m, KSYS_READ), (Some("ksys_read".into()), "[kernel.kallsyms]".into()));
    assert_eq!(frame(&mut sym, &m, 0xffff_ffff_816b_0010), (None, "[overlap]".into()));
    // kmod-demo's map holds nothing: its kallsyms symbols have nowhere to go.
    assert_eq!(frame(&mut sym, &m, DEMO + 0x10), (None, "[unknown]".into()));
    assert_eq!(frame(&mut sym, &m, u64::MAX), (None, "[unknown]".into()));
    for a in [0, 1, DEMO, u64::MAX - 0x1000, u64::MAX] {
        let _ = sym.resolve_kernel(&m, a);
        let _ = sym.resolve(m.find_map(0, a, true), a);
    }
}
