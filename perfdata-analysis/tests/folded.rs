//! Folded stacks compared with perf's own output stored beside the recordings:
//! `F.folded-perf-script-py` = `perf script report stackcollapse -i F`,
//! `F.folded-stackcollapse-pl` = `perf script -i F | inferno-collapse-perf` (inferno 0.12.8).
//! Symbols come from testdata/folded (see make-extract.py there): a --symfs root with the symbol
//! tables perf used, reduced to the symbols it printed, and the kernel's kallsyms limited to the
//! symbols hit; the real ~/.debug is never consulted.

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;
mod symfs;

use std::path::PathBuf;

use perfdata_analysis::folded::{folded, Compat, EventFilter, FoldedOptions, Root, Unknown, Weight};
use perfdata_analysis::options::TimeRange;
use perfdata_core::PerfFile;
use perfdata_symbolize::SymbolizeOptions;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn check(name: &str, compat: Compat, suffix: &str) {
    check_with(name, FoldedOptions::compat(compat), suffix);
}

fn check_with(name: &str, opts: FoldedOptions, suffix: &str) {
    check_in(name, opts, suffix, &testdata().join("folded/root"));
}

/// `name` folded with `opts` against the symfs root `root`.
fn fold_in(name: &str, opts: FoldedOptions, root: &std::path::Path) -> String {
    let td = testdata();
    let dir = td.join("folded");
    let opts = FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(root.to_path_buf()),
            buildid_dir: Some(dir.join("no-buildid-cache")),
            kallsyms: Some(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
            ..Default::default()
        },
        ..opts
    };
    let file = PerfFile::open(td.join(name)).unwrap();
    folded(&file, &opts).unwrap().to_folded_string()
}

fn check_in(name: &str, opts: FoldedOptions, suffix: &str, root: &std::path::Path) {
    let td = testdata();
    let ours = fold_in(name, opts, root);
    let want = std::fs::read_to_string(td.join(format!("{name}.{suffix}"))).unwrap();
    common::assert_same_lines(&ours, &want, &format!("{name} {suffix}"));
}

#[test]
fn fp_perf_script_py() {
    check("fp.data", Compat::PerfScriptPy, "folded-perf-script-py");
}

#[test]
fn fp_stackcollapse_pl() {
    check("fp.data", Compat::StackcollapsePl, "folded-stackcollapse-pl");
}

/// C++ with frame pointers (testdata/cxx/work.cc, `-O2 -g -fno-omit-frame-pointer`, `-g`): names
/// demangled as perf's libiberty does (`work::literal<0u, -1l>`, `work::apply<&work::step>`,
/// lambdas, abi tags, packs, libstdc++'s `.dynsym` names), with the symbols of testdata/cxx/root.
#[test]
fn cxx_fp() {
    if !symfs::cxx_names_exact("cxx_fp") {
        return;
    }
    let root = testdata().join("cxx/root");
    check_in("cxx-fp.data", FoldedOptions::compat(Compat::PerfScriptPy), "folded-perf-script-py", &root);
    check_in("cxx-fp.data", FoldedOptions::compat(Compat::StackcollapsePl), "folded-stackcollapse-pl", &root);
}

/// A `perf record --off-cpu` recording (gen-offcpu-bpf.py): its offcpu-time samples weigh their
/// period, as stackcollapse-perf.pl / inferno weigh perf script's period column.
#[test]
fn off_cpu_bpf_stackcollapse_pl() {
    check("offcpu-bpf.data", Compat::StackcollapsePl, "folded-stackcollapse-pl");
}

/// A binary stripped of its symbols whose `.gnu_debuglink` names a debug file in a `.debug`
/// directory beside it (testdata/folded/debuglink: `objcopy --only-keep-debug` and `objcopy
/// --strip-all --add-gnu-debuglink` of testdata/bin/spin). perf 6.1 reads the symbols from the
/// debug file (`perf --buildid-dir EMPTY script --symfs ROOT` on this layout prints the same
/// leaf/outer/run/main/io_work frames, and `[unknown]` once the debug file is removed); so must
/// we: fp.data folds exactly as perf printed it with the original binary.
#[test]
fn separate_debug_files_are_found_where_perf_looks() {
    let td = testdata();
    let root = std::env::temp_dir().join(format!("perfdata-debuglink-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    common::copy_tree(&td.join("folded/root"), &root);
    // Without spin's build-id debug file (the source-line tests' copy of the same file), so that
    // only the layouts under test can supply the symbols.
    std::fs::remove_dir_all(root.join("usr/lib/debug/.build-id/40")).unwrap();
    let bin = root.join("work/main/testdata/bin");
    std::fs::copy(td.join("folded/debuglink/spin"), bin.join("spin")).unwrap();
    std::fs::create_dir_all(bin.join(".debug")).unwrap();
    std::fs::copy(td.join("folded/debuglink/spin.debug"), bin.join(".debug/spin.debug")).unwrap();
    check_in("fp.data", FoldedOptions::compat(Compat::StackcollapsePl), "folded-stackcollapse-pl", &root);
    // Without the debug file the stripped binary has no symbols for these frames.
    std::fs::remove_file(bin.join(".debug/spin.debug")).unwrap();
    let ours = fold_in("fp.data", FoldedOptions::compat(Compat::StackcollapsePl), &root);
    assert!(ours.contains(";[spin]") && !ours.contains(";leaf"), "{ours}");
    // perf's FEDORA_DEBUGINFO (/usr/lib/debug/PATH.debug) and UBUNTU_DEBUGINFO (/usr/lib/debug/PATH)
    // layouts under the symfs root: perf found the symbols in both (same check as above).
    let debug_dir = root.join("usr/lib/debug/work/main/testdata/bin");
    std::fs::create_dir_all(&debug_dir).unwrap();
    for layout in ["spin.debug", "spin"] {
        std::fs::copy(td.join("folded/debuglink/spin.debug"), debug_dir.join(layout)).unwrap();
        check_in("fp.data", FoldedOptions::compat(Compat::StackcollapsePl), "folded-stackcollapse-pl", &root);
        std::fs::remove_file(debug_dir.join(layout)).unwrap();
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// Recordings without callchains: perf's stackcollapse.py counts every sample under its comm.
#[test]
fn no_callchain_perf_script_py() {
    check("clock-mono.data", Compat::PerfScriptPy, "folded-perf-script-py");
    check("cgroup.data", Compat::PerfScriptPy, "folded-perf-script-py");
}

#[test]
fn sysw_perf_script_py() {
    check("sysw.data", Compat::PerfScriptPy, "folded-perf-script-py");
}

#[test]
fn sysw_stackcollapse_pl() {
    check("sysw.data", Compat::StackcollapsePl, "folded-stackcollapse-pl");
}

/// `perf script report stackcollapse -- --kernel --include-pid --include-tid`.
#[test]
fn perf_script_py_kernel_pid_tid() {
    for f in ["fp.data", "sysw.data"] {
        let o = FoldedOptions {
            annotate_kernel: true,
            root: Root::CommPidTid,
            ..FoldedOptions::compat(Compat::PerfScriptPy)
        };
        check_with(f, o, "folded-perf-script-py-k-pid-tid");
    }
}

/// `perf script -F +pid | inferno-collapse-perf --all --tid` (`+pid`: without it the text has no
/// pid and the tools print `comm-?/TID`).
#[test]
fn stackcollapse_pl_all_tid() {
    for f in ["fp.data", "sysw.data"] {
        let o = FoldedOptions {
            annotate_kernel: true,
            annotate_jit: true,
            root: Root::CommPidTid,
            ..FoldedOptions::compat(Compat::StackcollapsePl)
        };
        check_with(f, o, "folded-stackcollapse-pl-all-tid");
    }
}

/// `inferno-collapse-perf --addrs`: unresolved frames keep their address.
#[test]
fn stackcollapse_pl_addrs() {
    for f in ["fp.data", "sysw.data"] {
        let o = FoldedOptions { unknown: Unknown::Address, ..FoldedOptions::compat(Compat::StackcollapsePl) };
        check_with(f, o, "folded-stackcollapse-pl-addrs");
    }
}

/// Two events, both with callchains. stackcollapse-pl keeps the first one seen (cpu-clock); perf
/// pads the event names of a multi-event file (`200000              cpu-clock:`), where inferno finds
/// no period and counts samples (analysis-semantics.md §1.2), so that output is compared with
/// sample weights.
#[test]
fn several_events() {
    let o = FoldedOptions { weight: Weight::Samples, ..FoldedOptions::compat(Compat::StackcollapsePl) };
    check_with("multi-g.data", o, "folded-stackcollapse-pl");
    check("multi-g.data", Compat::PerfScriptPy, "folded-perf-script-py");
    // `--event-filter page-faults/period=20/`: that line reads `20 page-faults…`, one space: periods.
    let o = FoldedOptions {
        event_filter: EventFilter::Name("page-faults/period=20/".into()),
        ..FoldedOptions::compat(Compat::StackcollapsePl)
    };
    check_with("multi-g.data", o, "folded-stackcollapse-pl-ev-page-faults");
}

/// Filters against perf script's own: `--comms dd`, `--time 3094.54,3094.545`.
#[test]
fn filters() {
    let o = FoldedOptions { comm: Some("dd".into()), ..FoldedOptions::compat(Compat::StackcollapsePl) };
    check_with("sysw.data", o, "folded-stackcollapse-pl-comm-dd");
    let o = FoldedOptions {
        time: Some(TimeRange { start: 3_094_540_000_000, end: 3_094_545_000_000 }.into()),
        ..FoldedOptions::compat(Compat::StackcollapsePl)
    };
    check_with("fp.data", o, "folded-stackcollapse-pl-time");
}

/// The sum of weights is the selected samples' count or period (analysis-semantics.md §1.5).
#[test]
fn weights_add_up_to_the_samples() {
    let file = PerfFile::open(testdata().join("sysw.data")).unwrap();
    let (mut n, mut period) = (0u64, 0u64);
    let mut recs = file.records(perfdata_core::Order::File).unwrap();
    while let Some(r) = recs.next_record() {
        if let perfdata_core::RecordKind::Sample(s) = &r.unwrap().kind {
            n += 1;
            period += s.period_or_attr();
        }
    }
    let opts = |c| FoldedOptions {
        symbolize: SymbolizeOptions { symfs: Some(testdata().join("folded/root")), ..Default::default() },
        ..FoldedOptions::compat(c)
    };
    assert_eq!(folded(&file, &opts(Compat::PerfScriptPy)).unwrap().total(), n);
    assert_eq!(folded(&file, &opts(Compat::StackcollapsePl)).unwrap().total(), period);
}

/// JIT code: anonymous executable memory becomes `/tmp/perf-PID.map` (kept under the symfs root),
/// whose symbols name the frames; `--all` marks them `_[j]`.
#[test]
fn jit_perf_map() {
    check("jit.data", Compat::PerfScriptPy, "folded-perf-script-py");
    check("jit.data", Compat::StackcollapsePl, "folded-stackcollapse-pl");
    let o =
        FoldedOptions { annotate_kernel: true, annotate_jit: true, ..FoldedOptions::compat(Compat::StackcollapsePl) };
    check_with("jit.data", o, "folded-stackcollapse-pl-all");
}

/// perf 6.1 adds inline frames only to stacks it unwinds itself (`--call-graph dwarf`), never to
/// `-g` callchains: with `inline` on, the `-g` recordings still give perf's default output, even
/// where the libc frames have DWARF in the symfs root (`__GI___libc_open` in fp.data would be
/// `__libc_open64` from it).
#[test]
fn no_inline_frames_in_callchains() {
    for (f, weight) in
        [("fp.data", None), ("sysw.data", None), ("multi-g.data", Some(Weight::Samples)), ("jit.data", None)]
    {
        for compat in [Compat::StackcollapsePl, Compat::PerfScriptPy] {
            let mut o = FoldedOptions { inline: true, ..FoldedOptions::compat(compat) };
            if compat == Compat::StackcollapsePl {
                o.weight = weight.unwrap_or(o.weight);
            }
            let suffix =
                if compat == Compat::StackcollapsePl { "folded-stackcollapse-pl" } else { "folded-perf-script-py" };
            check_with(f, o, suffix);
        }
    }
}

/// testdata/script-rec: JIT code named by perf maps (Java's `-XX:+DumpPerfMapAtExit`, Node's
/// `--perf-basic-prof`, CPython 3.12's `-X perf`) and by perf inject's ELF files, callchains cut
/// at perf's 127 frames (deep), tracepoint samples (block-g, none of which stackcollapse.py
/// folds), each against `perf script report stackcollapse` run where they were recorded.
#[test]
fn script_rec_perf_script_py() {
    let td = testdata();
    let dir = td.join("script-rec");
    for name in ["java.data", "node.data", "python312.data", "inject-jit.data", "deep.data", "block-g.data"] {
        let opts = FoldedOptions {
            symbolize: SymbolizeOptions {
                symfs: Some(dir.join("root")),
                buildid_dir: Some(td.join("folded/no-buildid-cache")),
                kallsyms: Some(dir.join("kallsyms-48dc540c8b76393804ca8088dbfa7d42911a9444")),
                ..Default::default()
            },
            ..FoldedOptions::compat(Compat::PerfScriptPy)
        };
        let file = PerfFile::open(dir.join(name)).unwrap();
        let ours = folded(&file, &opts).unwrap().to_folded_string();
        let want = std::fs::read_to_string(dir.join(format!("{name}.folded-perf-script-py"))).unwrap();
        common::assert_same_lines(&ours, &want, &format!("script-rec/{name}"));
    }
}
