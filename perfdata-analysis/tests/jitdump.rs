//! JIT code named by jitdump files, against perf (testdata/folded/jitdump, made by record.sh
//! there; testdata/README.md, "JIT code from jitdump files"). node ran work.js with `--perf-prof`
//! under `perf record -k mono -g` (rec.data): V8 wrote jit-PID.dump and mapped it, and its JIT
//! code lies in anonymous memory (and over node's embedded builtins). rec.jit.data is
//! `perf inject --jit` of it, whose `jitted-PID-N.so` files are in buildid/ (perf's build-id cache
//! layout). perf's folded stacks of both are stored beside them (`.zst`).
//!
//! The comparisons are exact: ours of rec.data read with the dump must be perf's of rec.jit.data,
//! module names included (`--all` marks `_[j]` the frames whose module is a `jitted-*.so`, which
//! only a dso named `DIR/jitted-PID-N.so`, as perf inject names them, gets); nothing is inherently
//! different. Symbols of node and libc come from root/ (reduced copies, see ../make-extract.py),
//! the dump from root/ at the path of its MMAP2.

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use perfdata_analysis::folded::{folded, Compat, FoldedOptions, FoldedStacks, Unknown};
use perfdata_core::PerfFile;
use perfdata_symbolize::SymbolizeOptions;

fn dir() -> PathBuf {
    common::repo().join("testdata/folded/jitdump")
}

/// The dump's path under the symfs root (the one jit-*.dump there).
fn dump_in(root: &Path) -> PathBuf {
    let d = root.join("tmp/perfdata-jitdump");
    let name = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("jit-") && n.ends_with(".dump"))
        .expect("a jit-PID.dump in root/tmp/perfdata-jitdump");
    d.join(name)
}

/// The three outputs perf's tools were asked for, as our options.
fn flavours() -> [(FoldedOptions, &'static str); 3] {
    [
        (FoldedOptions::compat(Compat::PerfScriptPy), "folded-perf-script-py"),
        (FoldedOptions::compat(Compat::StackcollapsePl), "folded-stackcollapse-pl"),
        (
            FoldedOptions {
                annotate_kernel: true,
                annotate_jit: true,
                ..FoldedOptions::compat(Compat::StackcollapsePl)
            },
            "folded-stackcollapse-pl-all",
        ),
    ]
}

/// `data` folded with `opts`, symbols from `root`, the build-id cache buildid/ when `cache`.
fn fold(data: &str, opts: &FoldedOptions, root: &Path, cache: bool, ignore_jitdump: bool) -> FoldedStacks {
    let opts = FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(root.to_path_buf()),
            buildid_dir: Some(dir().join(if cache { "buildid" } else { "no-buildid-cache" })),
            kallsyms: Some(dir().join("no-kallsyms")),
            ignore_jitdump,
            ..Default::default()
        },
        ..opts.clone()
    };
    let file = PerfFile::open(dir().join(data)).unwrap();
    folded(&file, &opts).unwrap()
}

fn perf_output(name: &str) -> String {
    common::read_output(&dir().join(name)).unwrap_or_else(|| panic!("{name}(.zst) missing"))
}

/// The recording as made, with the dump: perf's output after `perf inject --jit`.
#[test]
fn original_recording_with_the_dump_folds_as_perf_after_inject() {
    for (opts, suffix) in flavours() {
        let ours = fold("rec.data", &opts, &dir().join("root"), false, false);
        assert_eq!(ours.diagnostics, Vec::<String>::new());
        common::assert_same_lines(&ours.to_folded_string(), &perf_output(&format!("rec.jit.data.{suffix}")), suffix);
    }
    // Not vacuous: without inject perf names none of the JIT code.
    let plain = perf_output("rec.data.folded-stackcollapse-pl");
    assert!(plain.contains("[perf-") && !plain.contains("JS:*fib"));
}

/// The injected recording: its `jitted-*.so` come from the build-id cache like any binary.
#[test]
fn injected_recording_folds_as_perf() {
    for (opts, suffix) in flavours() {
        let ours = fold("rec.jit.data", &opts, &dir().join("root"), true, false);
        common::assert_same_lines(&ours.to_folded_string(), &perf_output(&format!("rec.jit.data.{suffix}")), suffix);
    }
    // Without the cache the jitted-*.so are nowhere: their frames stay unnamed, as for perf.
    let ours = fold("rec.jit.data", &flavours()[1].0, &dir().join("root"), false, false);
    assert!(ours.to_folded_string().contains(";[jitted-") && !ours.to_folded_string().contains("JS:*fib"));
}

/// `ignore_jitdump`: JIT code named as perf script names it without `perf inject --jit`.
#[test]
fn ignoring_the_dump_folds_as_perf_without_inject() {
    for (opts, suffix) in flavours().into_iter().take(2) {
        let ours = fold("rec.data", &opts, &dir().join("root"), false, true);
        common::assert_same_lines(&ours.to_folded_string(), &perf_output(&format!("rec.data.{suffix}")), suffix);
    }
}

/// The hand-made recording and dump of synth.py: a reload, a move, an unwinding `mapped_size`, an
/// anonymous mmap after the marker, JIT_CODE_CLOSE, addresses past code and maps. Ours of
/// synth.data with the dump, and of synth.jit.data (whose jitted-7-N.so have no build id: found by
/// path under the symfs root), are perf's of synth.jit.data; `--addrs` shows the addresses perf
/// prints for frames without a symbol (file offsets from the maps' pgoff 0x80).
#[test]
fn synthetic_dump_folds_as_perf_after_inject() {
    let mut all = flavours().to_vec();
    all.push((
        FoldedOptions { unknown: Unknown::Address, ..FoldedOptions::compat(Compat::StackcollapsePl) },
        "folded-stackcollapse-pl-addrs",
    ));
    let root = dir().join("root");
    for (opts, suffix) in all {
        let want = perf_output(&format!("synth.jit.data.{suffix}"));
        let ours = fold("synth.data", &opts, &root, false, false);
        assert_eq!(problems(&ours), Vec::<&String>::new());
        common::assert_same_lines(&ours.to_folded_string(), &want, &format!("synth.data {suffix}"));
        let injected = fold("synth.jit.data", &opts, &root, false, false);
        common::assert_same_lines(&injected.to_folded_string(), &want, &format!("synth.jit.data {suffix}"));
    }
    for (opts, suffix) in flavours().into_iter().take(2) {
        let ours = fold("synth.data", &opts, &root, false, true);
        common::assert_same_lines(&ours.to_folded_string(), &perf_output(&format!("synth.data.{suffix}")), suffix);
    }
}

/// The diagnostics (what could not be named is apart, in `unnamed`).
fn problems(f: &perfdata_analysis::folded::FoldedStacks) -> Vec<&String> {
    f.diagnostics.iter().collect()
}

/// A scratch copy of root/ whose dump is replaced by `dump` (`None`: removed).
struct Root(PathBuf);

impl Root {
    fn with_dump(tag: &str, dump: Option<&[u8]>) -> Root {
        let src = dir().join("root");
        let root = std::env::temp_dir().join(format!("perfdata-jitdump-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        common::copy_tree(&src, &root);
        let path = dump_in(&root);
        match dump {
            Some(d) => std::fs::write(&path, d).unwrap(),
            None => std::fs::remove_file(&path).unwrap(),
        }
        Root(root)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dump_bytes() -> Vec<u8> {
    std::fs::read(dump_in(&dir().join("root"))).unwrap()
}

/// Offsets of the records of a little-endian dump (read here from the specification's layout,
/// not with the crate's parser): header `total_size` at byte 8, record `total_size` at +4.
fn record_offsets(d: &[u8]) -> Vec<usize> {
    let u32_at = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap()) as usize;
    let mut at = u32_at(8);
    let mut out = Vec::new();
    while at + 16 <= d.len() {
        out.push(at);
        at += u32_at(at + 4);
    }
    assert_eq!(at, d.len(), "the committed dump is whole");
    out
}

/// A missing or unusable dump: what perf script shows without inject, and a diagnostic (perf
/// inject itself fails on a missing dump).
#[test]
fn missing_or_unusable_dump_leaves_the_jit_code_unnamed() {
    let want = perf_output("rec.data.folded-stackcollapse-pl");
    let opts = &flavours()[1].0;
    let mut bad_magic = dump_bytes();
    bad_magic[0] ^= 0xff;
    let mut version2 = dump_bytes();
    version2[4] = 2;
    let mut flags = dump_bytes();
    flags[32] = 2;
    for (tag, dump, says) in [
        ("missing", None, "No such file"),
        ("magic", Some(bad_magic), "magic"),
        ("version", Some(version2), "version 2"),
        ("flags", Some(flags), "unknown flags 0x2"),
    ] {
        let root = Root::with_dump(tag, dump.as_deref());
        let ours = fold("rec.data", opts, &root.0, false, false);
        common::assert_same_lines(&ours.to_folded_string(), &want, tag);
        let said = problems(&ours);
        assert_eq!(said.len(), 1, "{tag}: {:?}", ours.diagnostics);
        assert!(said[0].contains(says) && said[0].contains("jit-"), "{:?}", ours.diagnostics);
        // The JIT code's frames are counted unnamed, under perf's name for its map.
        let unnamed = ours.unnamed.as_deref().unwrap();
        assert!(
            unnamed.contains(" unnamed in 1 DSO: /tmp/perf-") && unnamed.contains("cannot read the perf map"),
            "{unnamed}"
        );
    }
}

/// A dump cut short: every complete record is used (the output is that of the dump cut at the
/// last record boundary) and the cut is reported; cut at a boundary, nothing is reported. And
/// every record boundary gives an output between "no JIT names" and the full one.
#[test]
fn truncated_dump_gives_the_complete_records() {
    let full = dump_bytes();
    let offsets = record_offsets(&full);
    let opts = &flavours()[0].0;
    let mut outputs = Vec::new();
    // A boundary in the first quarter, the middle, the last record; and one byte short of the end.
    let picks = [offsets.len() / 4, offsets.len() / 2, offsets.len() - 1];
    for &k in &picks {
        let boundary = offsets[k];
        let root = Root::with_dump("cut", Some(&full[..boundary]));
        let whole = fold("rec.data", opts, &root.0, false, false);
        assert_eq!(problems(&whole), Vec::<&String>::new());
        let next = offsets.get(k + 1).copied().unwrap_or(full.len());
        for cut in [boundary + 1, boundary + 15, boundary + 16, (boundary + next) / 2, next - 1] {
            let root = Root::with_dump("cut", Some(&full[..cut]));
            let part = fold("rec.data", opts, &root.0, false, false);
            common::assert_same_lines(&part.to_folded_string(), &whole.to_folded_string(), &format!("cut at {cut}"));
            let said = problems(&part);
            assert_eq!(said.len(), 1, "cut at {cut}: {:?}", part.diagnostics);
            assert!(said[0].contains(&format!("{boundary:#x}")), "{:?}", part.diagnostics);
        }
        outputs.push(whole.to_folded_string());
    }
    // Fewer records, fewer JIT names: the stacks named by the dump grow with it.
    let named = |s: &str| s.matches("JS:").count();
    let all = perf_output("rec.jit.data.folded-perf-script-py");
    assert!(named(&outputs[0]) <= named(&outputs[1]) && named(&outputs[1]) <= named(&outputs[2]));
    assert!(named(&outputs[2]) <= named(&all) && named(&outputs[1]) < named(&all));
}

/// The same dump written big-endian (magic read as 0x4454694A): the same stacks.
#[test]
fn big_endian_dump_folds_the_same() {
    let le = dump_bytes();
    let mut be = le.clone();
    let swap = |b: &mut [u8], at: usize, n: usize| b[at..at + n].reverse();
    for (at, n) in [(0, 4), (4, 4), (8, 4), (12, 4), (16, 4), (20, 4), (24, 8), (32, 8)] {
        swap(&mut be, at, n);
    }
    for at in record_offsets(&le) {
        let id = u32::from_le_bytes(le[at..at + 4].try_into().unwrap());
        let fields: &[usize] = match id {
            0 => &[4, 4, 8, 4, 4, 8, 8, 8, 8], // prefix, pid, tid, vma, addr, size, index
            2 => &[4, 4, 8, 8, 8],             // prefix, code_addr, nr_entry (entries kept LE)
            4 => &[4, 4, 8, 8, 8, 8],          // prefix, sizes
            _ => &[4, 4, 8],
        };
        let mut o = at;
        for &n in fields {
            swap(&mut be, o, n);
            o += n;
        }
    }
    let root = Root::with_dump("be", Some(&be));
    for (opts, suffix) in flavours() {
        let ours = fold("rec.data", &opts, &root.0, false, false);
        assert_eq!(ours.diagnostics, Vec::<String>::new());
        common::assert_same_lines(&ours.to_folded_string(), &perf_output(&format!("rec.jit.data.{suffix}")), suffix);
    }
}

/// Bytes of the dump damaged at random (a fixed seed): folding never fails or panics, and every
/// frame is one perf gives (with or without the dump) or a name from the damaged dump.
#[test]
fn damaged_dump_never_breaks_folding() {
    let intact = dump_bytes();
    let known: std::collections::HashSet<String> = perf_output("rec.jit.data.folded-perf-script-py")
        .lines()
        .chain(perf_output("rec.data.folded-perf-script-py").lines())
        .flat_map(|l| l.rsplit_once(' ').unwrap().0.split(';').map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let opts = &flavours()[0].0;
    let mut reported = 0;
    for round in 0..24 {
        let mut d = intact.clone();
        for _ in 0..(1 + round % 6) {
            let at = (next() % d.len() as u64) as usize;
            d[at] = next() as u8;
        }
        if round % 4 == 3 {
            d.truncate((next() % d.len() as u64) as usize);
        }
        let root = Root::with_dump("damaged", Some(&d));
        let ours = fold("rec.data", opts, &root.0, false, false);
        reported += ours.diagnostics.len();
        // (A `;` in a name is written `:`.)
        let in_dump = |name: &str| {
            d.windows(name.len()).any(|w| w.iter().zip(name.bytes()).all(|(&a, b)| a == b || (b == b':' && a == b';')))
        };
        for line in ours.to_folded_string().lines() {
            for frame in line.rsplit_once(' ').unwrap().0.split(';') {
                assert!(known.contains(frame) || in_dump(frame) || frame.contains('\u{fffd}'), "{frame}");
            }
        }
    }
    assert!(reported > 0, "some damage is reported");
}
