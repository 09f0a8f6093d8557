//! `--call-graph dwarf` recordings folded with the user stacks unwound from REGS_USER +
//! STACK_USER, compared with perf 6.1's own output stored beside them (testdata/gen-outputs.sh):
//!
//! * `F.folded-perf-script-py-noinline` (`perf script --no-inline -s stackcollapse.py`) and
//!   `F.folded-stackcollapse-pl-noinline` (`perf script --no-inline | inferno-collapse-perf`):
//!   must be byte-equal;
//! * `F.folded-perf-script-py` / `F.folded-stackcollapse-pl`, the same commands with perf's default
//!   `--inline`: perf then rewrites the user frames it unwound with what `addr2line -i -f` says
//!   about them (inlined callers, and DWARF names instead of symbol-table names:
//!   `__libc_start_main_impl` for `__libc_start_main@@GLIBC_2.34`): byte-equal with
//!   [`FoldedOptions::inline`]. The DWARF is libc's and ld.so's debug files (Debian's libc6-dbg),
//!   reduced to the compilation units of the sampled addresses (testdata/folded/reduce-debug.py)
//!   and checked to answer addr2line like the originals perf read (verify-inline-extract.py).
//!
//! `dwarf.data` is `taskset -c 0 ./bin/spin` under `--call-graph dwarf,2048`: after the exec,
//! taskset's libc and ld.so maps stay in perf's map list below the new ones, so perf's libunwind
//! places `.eh_frame_hdr` wrongly and finds no CFI in those two files: every walk through them
//! falls back to libunwind's frame-pointer guess (and `__libc_start_call_main` ends the spin
//! stacks). `python.data` is the Python interpreter (`-z`, `--call-graph dwarf,8192`), whose
//! stacks are unwound by CFI down to `_start`, some cut by the 8 KiB dump.
//!
//! Binaries come from testdata/folded (make-extract.py): stand-ins with the real program headers,
//! `.eh_frame_hdr` and `.eh_frame`, and the symbols perf printed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use perfdata_analysis::folded::{folded, Compat, FoldedOptions};
use perfdata_core::process::Machine;
use perfdata_core::record::RecordKind;
use perfdata_core::sample::{Regs, StackUser};
use perfdata_core::{Order, PerfFile};
use perfdata_symbolize::unwind::{Arch, ModuleCache, ProcessSpace, UnwindOptions, Unwinder};
use perfdata_symbolize::Symbolizer;

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;
mod symfs;

use common::testdata;
use symfs::{folded_symbols as symbolize, symbols_for};

fn ours(name: &str, compat: Compat, inline: bool) -> String {
    let opts = FoldedOptions { symbolize: symbols_for(name), inline, ..FoldedOptions::compat(compat) };
    let file = PerfFile::open(testdata().join(name)).unwrap();
    folded(&file, &opts).unwrap().to_folded_string()
}

fn parse(text: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let (stack, w) = l.rsplit_once(' ').unwrap();
        *m.entry(stack.to_string()).or_insert(0) += w.parse::<u64>().unwrap();
    }
    m
}

fn suffix(compat: Compat) -> &'static str {
    match compat {
        Compat::PerfScriptPy => "folded-perf-script-py",
        Compat::StackcollapsePl => "folded-stackcollapse-pl",
    }
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Panic (listing the stacks that differ) unless `got` is `want`.
fn assert_same(got: &str, want: &str, what: &str) {
    if got != want {
        let (g, w) = (parse(got), parse(want));
        for (s, n) in &w {
            if g.get(s) != Some(n) {
                eprintln!("perf: {s} {n} / ours: {:?}", g.get(s));
            }
        }
        for (s, n) in &g {
            if !w.contains_key(s) {
                eprintln!("ours only: {s} {n}");
            }
        }
        panic!("{what}");
    }
}

/// Byte-equal to perf's `--no-inline` output.
fn check_noinline(name: &str, compat: Compat) {
    let want = read(testdata().join(format!("{name}.{}-noinline", suffix(compat))));
    assert_same(&ours(name, compat, false), &want, &format!("{name} {compat:?}: differs from perf --no-inline"));
}

/// The names perf printed as `(inlined)` frames in `F.script`.
fn inlined_names(name: &str) -> BTreeSet<String> {
    read(testdata().join(format!("{name}.script")))
        .lines()
        .filter(|l| l.ends_with(" (inlined)"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|f| f.rsplit_once("+0x").map_or(f, |(n, _)| n).to_string())
        .collect()
}

/// The preset's defaults (inline frames on): byte-equal to perf's default output, which differs
/// from the `--no-inline` one (so the inline frames are really exercised).
fn check_inline(name: &str, compat: Compat) {
    let opts = FoldedOptions { symbolize: symbols_for(name), ..FoldedOptions::compat(compat) };
    let file = PerfFile::open(testdata().join(name)).unwrap();
    let got = folded(&file, &opts).unwrap().to_folded_string();
    let want = read(testdata().join(format!("{name}.{}", suffix(compat))));
    assert_ne!(want, read(testdata().join(format!("{name}.{}-noinline", suffix(compat)))));
    assert_same(&got, &want, &format!("{name} {compat:?}: differs from perf's default (--inline) output"));
}

#[test]
fn dwarf_perf_script_py() {
    check_noinline("dwarf.data", Compat::PerfScriptPy);
    // 9 of 32 samples (taskset and the start of spin, in ld.so and libc) carry inline frames.
    check_inline("dwarf.data", Compat::PerfScriptPy);
}

#[test]
fn dwarf_stackcollapse_pl() {
    check_noinline("dwarf.data", Compat::StackcollapsePl);
    check_inline("dwarf.data", Compat::StackcollapsePl);
}

#[test]
fn python_perf_script_py() {
    check_noinline("python.data", Compat::PerfScriptPy);
    // Nearly every stack passes through libc's __libc_start_main, which perf renames to its DWARF
    // name __libc_start_main_impl marked (inlined).
    check_inline("python.data", Compat::PerfScriptPy);
}

#[test]
fn python_stackcollapse_pl() {
    check_noinline("python.data", Compat::StackcollapsePl);
    check_inline("python.data", Compat::StackcollapsePl);
}

/// C++ (testdata/cxx/work.cc built `-O2 -g`, `--call-graph dwarf,4096`): templates, lambdas,
/// std::function, std::sort and the containers' code inlined into the binary. binutils' addr2line
/// names an innermost function without a linkage name (a lambda's `operator()`, `_FUN`, a
/// function in an anonymous namespace, `sort<…>`) after its ELF symbol the first time, and a
/// function starting at that symbol keeps the symbol's name for later addresses (the
/// `(anonymous namespace)::containers` callers): byte-equal only with that state replayed in
/// perf's order (50 stacks differed without it).
#[test]
fn cxx_perf_script_py() {
    if !symfs::cxx_names_exact("cxx_perf_script_py") {
        return;
    }
    check_noinline("cxx-dwarf.data", Compat::PerfScriptPy);
    check_inline("cxx-dwarf.data", Compat::PerfScriptPy);
}

#[test]
fn cxx_stackcollapse_pl() {
    if !symfs::cxx_names_exact("cxx_stackcollapse_pl") {
        return;
    }
    check_noinline("cxx-dwarf.data", Compat::StackcollapsePl);
    check_inline("cxx-dwarf.data", Compat::StackcollapsePl);
}

/// `annotate_inline`: exactly the frames perf printed `(inlined)` get `_[i]`; without the
/// suffix the output is perf's default output.
#[test]
fn inline_frames_annotated() {
    for name in ["dwarf.data", "python.data"] {
        let opts = FoldedOptions {
            inline: true,
            annotate_inline: true,
            symbolize: symbols_for(name),
            ..FoldedOptions::compat(Compat::StackcollapsePl)
        };
        let file = PerfFile::open(testdata().join(name)).unwrap();
        let got = folded(&file, &opts).unwrap().to_folded_string();
        let annotated: BTreeSet<String> = got
            .lines()
            .flat_map(|l| l.rsplit_once(' ').unwrap().0.split(';'))
            .filter_map(|f| f.strip_suffix("_[i]"))
            .map(str::to_string)
            .collect();
        assert_eq!(annotated, inlined_names(name), "{name}");
        let want = read(testdata().join(format!("{name}.folded-stackcollapse-pl")));
        assert_eq!(got.replace("_[i]", ""), want, "{name}");
    }
}

/// Every sample of the dwarf recordings, with its stack dump cut short, its registers replaced
/// by garbage or its stack bytes scrambled: the unwinder must return (no panic) with at most
/// `max_stack` frames, and an untouched sample must unwind the same twice.
#[test]
fn damaged_stacks_and_registers_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["dwarf.data", "python.data"] {
        let file = PerfFile::open(testdata().join(name)).unwrap();
        let mut sym = Symbolizer::new(symbolize(), perfdata_analysis::folded::feature_build_ids(&file));
        let opts = UnwindOptions { max_stack: 40, ..Default::default() };
        let mut unwinder = Unwinder::new(Arch::X86_64, true, opts);
        let mut machine = Machine::new();
        let mut modules = ModuleCache::default();
        let mut recs = file.records(Order::Time).unwrap();
        let mut n = 0;
        while let Some(r) = recs.next_record() {
            let r = r.unwrap();
            let RecordKind::Sample(s) = &r.kind else {
                machine.update(&r);
                continue;
            };
            let (Some(regs), Some(stack)) = (s.regs_user(), s.stack_user()) else { continue };
            let maps = machine.process_maps(s.pid().unwrap());
            let mut space = ProcessSpace { maps, symbolizer: &mut sym, modules: &mut modules };
            let first = unwinder.unwind(Some(regs), Some(stack), &mut space);
            assert_eq!(unwinder.unwind(Some(regs), Some(stack), &mut space), first);
            assert!(first.frames.len() <= 40);
            let dyn_size = stack.dyn_size.unwrap_or(0);
            for cut in [0, 1, 7, 8, 9, 16, 100, dyn_size / 2, dyn_size.saturating_sub(8), dyn_size + 64] {
                let st = StackUser { dyn_size: Some(cut), ..stack };
                assert!(unwinder.unwind(Some(regs), Some(st), &mut space).frames.len() <= 40);
            }
            let words: Vec<u8> = (0..regs.mask.count_ones()).flat_map(|_| rand().to_le_bytes()).collect();
            let bad = Regs { values: perfdata_core::reader::U64s::new(&words, perfdata_core::Endian::Little), ..regs };
            assert!(unwinder.unwind(Some(bad), Some(stack), &mut space).frames.len() <= 40);
            let mut bytes = stack.data.to_vec();
            for b in bytes.iter_mut().step_by(3) {
                *b = rand() as u8;
            }
            let scrambled = StackUser { data: &bytes, ..stack };
            assert!(unwinder.unwind(Some(regs), Some(scrambled), &mut space).frames.len() <= 40);
            n += 1;
        }
        assert!(n > 20, "{name}: {n} samples");
    }
}

/// Damaged debug files: bytes scrambled anywhere (headers, compressed DWARF, symbol table) or the
/// file cut short must give fewer or no inline frames and source lines, never a panic.
#[test]
fn damaged_debug_info_never_panics() {
    use perfdata_symbolize::inline::DebugInfo;
    use perfdata_symbolize::Binary;
    let path = testdata().join("folded/root/usr/lib/debug/.build-id/7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug");
    let good = std::fs::read(&path).unwrap();
    let addrs = [0x1bccb_u64, 0x1a303, 0x148c8, 0x16231, 0, u64::MAX];
    let intact = DebugInfo::load(&Binary::from_vec(path.clone(), good.clone()).unwrap());
    assert_eq!(intact.records(0x1bccb), ["_dl_start_final", "_dl_start"]);
    // The lines perf printed under those two frames (dwarf.data.script-srcline).
    let lines: Vec<String> =
        intact.addr2line(0x1bccb).iter().map(|r| perfdata_symbolize::SrcLine::from_record(r).to_string()).collect();
    assert_eq!(lines, ["rtld.c:497", "rtld.c:584"]);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..60 {
        let mut bytes = good.clone();
        if round % 3 == 0 {
            bytes.truncate(bytes.len() * round / 60);
        } else {
            for _ in 0..(1 << (round % 8)) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed % bytes.len() as u64) as usize;
                bytes[i] = (seed >> 32) as u8;
            }
        }
        if let Some(b) = Binary::from_vec(path.clone(), bytes) {
            let info = DebugInfo::load(&b);
            for a in addrs {
                assert!(info.records(a).len() <= perfdata_symbolize::inline::MAX_INLINE_NEST + 1);
                assert!(info.addr2line(a).len() <= perfdata_symbolize::inline::MAX_INLINE_NEST + 1);
            }
        }
    }
}
