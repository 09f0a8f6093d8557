//! `runs::compare` on synthetic runs made from fp.data by perfdata-core's writer: each run drops
//! a different pseudo-random 5 % of the samples (run-to-run noise); the "new" side also drops
//! every kernel-mode sample (the injected change: the user functions' shares grow, the kernel's
//! shrink). The change must be found, significant, and past a `delta > 2%` gate; two sides of
//! noise alone must mark nothing and cross no gate.

use perfdata_analysis::options::FoldedOptions;
use perfdata_analysis::runs::{compare, compare_text, CompareOptions, Threshold};
use perfdata_analysis::symbolize::SymbolizeOptions;
use perfdata_core::record::CpuMode;
use perfdata_core::write::{write_file_edited, Edit};
use perfdata_core::{Endian, PerfFile, RecordKind};
use std::path::PathBuf;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Drops samples: a pseudo-random share (by a hash of the seed and the record's offset), and
/// every kernel-mode one when `kernel` is set.
struct Drop {
    seed: u64,
    percent: u64,
    kernel: bool,
}

impl Edit for Drop {
    fn record(&mut self, r: &perfdata_core::Record<'_>, bytes: &mut Vec<u8>) {
        if !matches!(r.kind, RecordKind::Sample(_)) {
            return;
        }
        let mut h = (r.pos.offset ^ self.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        if h % 100 < self.percent || (self.kernel && r.header.cpumode() == CpuMode::Kernel) {
            bytes.clear();
        }
    }
}

fn runs(first_seed: u64, n: u64, kernel: bool) -> Vec<Vec<u8>> {
    let file = PerfFile::open(testdata().join("fp.data")).unwrap();
    (first_seed..first_seed + n)
        .map(|seed| write_file_edited(&file, Endian::Little, &mut Drop { seed, percent: 5, kernel }).unwrap())
        .collect()
}

fn options() -> CompareOptions {
    let dir = testdata().join("folded");
    CompareOptions {
        fold: FoldedOptions {
            symbolize: SymbolizeOptions {
                symfs: Some(dir.join("root")),
                buildid_dir: Some(dir.join("no-buildid-cache")),
                kallsyms: Some(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
                ..Default::default()
            },
            ..FoldedOptions::default()
        },
        ..CompareOptions::default()
    }
}

fn open(v: &[Vec<u8>]) -> Vec<PerfFile<'_>> {
    v.iter().map(|b| PerfFile::from_bytes(b).unwrap()).collect()
}

fn compared(base: &[Vec<u8>], new: &[Vec<u8>]) -> perfdata_analysis::runs::Comparison {
    let (a, b) = (open(base), open(new));
    compare(&a.iter().collect::<Vec<_>>(), &b.iter().collect::<Vec<_>>(), &options()).unwrap()
}

#[test]
fn an_injected_change_is_found_and_gated() {
    let c = compared(&runs(1, 12, false), &runs(100, 12, true));
    let text = compare_text(&c);
    let leaf = c.rows.iter().find(|r| r.symbol.as_deref() == Some("leaf")).unwrap();
    // leaf holds 104 of fp.data's 152 samples (68.42 %); without the kernel-mode samples, 104 of
    // the rest (the random 5 % drops change both sides alike, on average).
    let file = PerfFile::open(testdata().join("fp.data")).unwrap();
    let kernel_samples = file
        .records(perfdata_core::Order::File)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|r| matches!(r.kind, RecordKind::Sample(_)) && r.header.cpumode() == CpuMode::Kernel)
        .count() as f64;
    let expected = 100.0 * 104.0 / (152.0 - kernel_samples) - 100.0 * 104.0 / 152.0;
    assert!(kernel_samples > 10.0 && (leaf.delta - expected).abs() < 1.5, "{expected}\n{text}");
    assert!(leaf.significant, "{text}");
    let (lo, hi) = leaf.interval.unwrap();
    assert!(lo > 2.0 && lo < leaf.delta && leaf.delta < hi, "{text}");
    assert!(text.lines().any(|l| l.contains("[.] leaf") && l.contains('*')), "{text}");
    // Every kernel row lost its share: none grew, and the largest is marked.
    let kernel: Vec<_> = c.rows.iter().filter(|r| r.kernel == Some(true)).collect();
    assert!(!kernel.is_empty() && kernel.iter().all(|r| r.new_mean == 0.0 && r.delta <= 0.0));
    let gate: Threshold = "delta > 2%".parse().unwrap();
    let crossed: Vec<_> = c.rows.iter().filter(|r| gate.crossed(r)).collect();
    assert_eq!(crossed.len(), 1, "{text}");
    // A gate past the interval's low end is not crossed.
    let beyond = format!("delta > {}%", lo.ceil());
    assert!(!beyond.parse::<Threshold>().unwrap().crossed(leaf), "{beyond}");
    assert!("ratio > 1.05".parse::<Threshold>().unwrap().crossed(leaf));
}

#[test]
fn noise_alone_marks_nothing() {
    let c = compared(&runs(1, 12, false), &runs(100, 12, false));
    let text = compare_text(&c);
    assert!(c.rows.len() > 20, "{text}");
    assert!(c.rows.iter().all(|r| !r.significant), "{text}");
    for gate in ["delta > 1%", "delta < -1%", "ratio > 1.5"] {
        let g: Threshold = gate.parse().unwrap();
        assert!(c.rows.iter().all(|r| !g.crossed(r)), "{gate}\n{text}");
    }
    // The same runs on both sides: every change is 0, with an interval of width 0.
    let same = runs(1, 3, false);
    let c = compared(&same, &same);
    assert!(c.rows.iter().all(|r| r.delta == 0.0 && !r.significant));
}

#[test]
fn thresholds_parse() {
    let t: Threshold = "delta >= -1.5%".parse().unwrap();
    assert_eq!(t, Threshold { delta: true, above: true, inclusive: true, value: -1.5 });
    assert_eq!(t.to_string(), "delta >= -1.5%");
    assert!("ratio<0.9".parse::<Threshold>().is_ok());
    for bad in ["delta 2%", "speed > 1", "delta > x%", "ratio > inf"] {
        assert!(bad.parse::<Threshold>().is_err(), "{bad}");
    }
}
