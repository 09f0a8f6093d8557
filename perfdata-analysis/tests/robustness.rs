//! Damaged input never panics, and ends in data plus an error or diagnostic: truncation at record
//! boundaries and inside records, overwritten bytes and length fields, and the quipper fuzz
//! reproducers. Each case reads every record in file and time order and touches every field,
//! decodes and renders every tracepoint sample (`perfdata script`), builds the header summary
//! (`perfdata info`), folds the stacks (symbolized against an empty directory only) and, with the
//! `parquet` feature, writes the Parquet tables.

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

use perfdata_analysis::folded::{folded, Compat, FoldedOptions};
use perfdata_core::tracepoint::Tracepoints;
use perfdata_core::{HeaderInfo, Order, PerfFile, RecordKind};
use perfdata_symbolize::SymbolizeOptions;
use std::sync::atomic::Ordering::Relaxed;

/// The shared counting allocator: live heap bytes and the peak of a measured call (all tests of
/// this binary share it, so the bound checked below is only asserted while tests run one at a
/// time: see `checked`).
#[path = "../../perfdata-core/tests/common/counting.rs"]
mod counting;

/// Most heap a read of `len` input bytes may use: a small multiple of the input, plus the fixed
/// per-record decompression bound (16 MiB when the file does not give one) and the ordering window.
fn allowed(len: usize) -> usize {
    16 * len + (24 << 20)
}

/// Read everything; returns (records, errors). Checks the heap bound when this test runs alone.
fn drain(data: &[u8]) -> (usize, usize) {
    let (used, r) = counting::peak_during(|| drain_inner(data));
    if CHECK_ALLOC.load(Relaxed) {
        assert!(used <= allowed(data.len()), "{used} heap bytes for a {}-byte input", data.len());
    }
    r
}

static CHECK_ALLOC: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn drain_inner(data: &[u8]) -> (usize, usize) {
    let Ok(file) = PerfFile::from_bytes(data) else {
        return (0, 1);
    };
    let mut total = (0, 0);
    let tp_of_file = Tracepoints::from_file(&file).ok().flatten();
    for order in [Order::File, Order::Time] {
        let Ok(mut recs) = file.records(order) else {
            return (0, 1);
        };
        // A pipe's tracing data arrives as a record (as `perfdata script` picks it up).
        let mut tp = tp_of_file.clone();
        let mut guard = 0usize;
        while let Some(r) = recs.next_record() {
            guard += 1;
            assert!(guard < 10_000_000, "reader does not terminate");
            match r {
                Ok(r) => {
                    total.0 += 1;
                    // Touch the variable parts.
                    if let RecordKind::Sample(s) = &r.kind {
                        let _ = s.callchain().map(|c| c.iter().fold(0u64, |a, b| a ^ b));
                        let _ = s.read().map(|r| r.values().count());
                        let _ = s.branch_stack().map(|b| b.entries().map(|e| e.cycles() as u64).sum::<u64>());
                        let _ = s.regs_user().map(|r| r.iter().count());
                        let _ = s.callchain_contexts();
                    }
                    let _ = perfdata_core::json::record_json(&r);
                    if let (Some(learned), None) = (Tracepoints::carried_by(&r), &tp) {
                        tp = learned.ok();
                    }
                    if let (Some(tp), RecordKind::Sample(s), Some(ev)) = (&tp, &r.kind, r.event) {
                        if let (Some(fmt), Some(raw)) = (tp.format_for(&ev.attr), s.raw()) {
                            let _ = tp.render_bytes(fmt, raw);
                            let _ = fmt.decode(raw);
                            let _ = fmt.fields_json(raw);
                        }
                    }
                }
                Err(e) => {
                    total.1 += 1;
                    let _ = (e.position(), e.to_string());
                }
            }
        }
        let _ = recs.diagnostics();
    }
    let _ = HeaderInfo::new(&file).perf_text();
    let symbolize = SymbolizeOptions {
        symfs: Some(empty_dir()),
        buildid_dir: Some(empty_dir()),
        kallsyms: Some(empty_dir().join("kallsyms")),
        ..Default::default()
    };
    for compat in [Compat::StackcollapsePl, Compat::PerfScriptPy] {
        let opts = FoldedOptions { symbolize: symbolize.clone(), inline: true, ..FoldedOptions::compat(compat) };
        if let Ok(f) = folded(&file, &opts) {
            let _ = f.to_folded_string();
        }
    }
    #[cfg(feature = "parquet")]
    parquet_tables(&file);
    total
}

/// The Parquet export of a damaged file: every table it reports written is a file, and an error
/// leaves no directory (nor temporary file) behind. Done for every 8th input: writing a dozen
/// files for each of the thousands of inputs more than doubled the test's time.
#[cfg(feature = "parquet")]
fn parquet_tables(file: &PerfFile<'_>) {
    use perfdata_analysis::export::parquet::{write_parquet, ParquetOptions};
    use std::sync::atomic::AtomicUsize;
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Relaxed);
    if !n.is_multiple_of(8) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("perfdata-robustness-parquet-{}-{n}", std::process::id()));
    match write_parquet(file, &dir, &ParquetOptions { batch_rows: 64, ..Default::default() }) {
        Ok(w) => {
            let files = std::fs::read_dir(&dir).unwrap().count();
            assert_eq!(files, w.tables.len(), "{}", dir.display());
            assert!(w.tables.iter().all(|t| t.path.is_file()));
            std::fs::remove_dir_all(&dir).unwrap();
        }
        Err(e) => {
            let _ = e.to_string();
            assert!(!dir.exists(), "{} left after {e}", dir.display());
        }
    }
}

/// An empty directory as symfs, build-id cache and kallsyms path: folding must not read the host's
/// binaries or kernel symbols.
fn empty_dir() -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join("perfdata-robustness-empty");
        std::fs::create_dir_all(&d).unwrap();
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "{} must be empty", d.display());
        d
    })
    .clone()
}

/// Offsets of the records of a file, in file order.
fn boundaries(data: &[u8]) -> Vec<u64> {
    let Ok(file) = PerfFile::from_bytes(data) else {
        return Vec::new();
    };
    let Ok(mut recs) = file.records(Order::File) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    while let Some(Ok(r)) = recs.next_record() {
        if r.pos.index.is_none() {
            v.push(r.pos.offset);
        }
    }
    v
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for p in common::testdata_files().into_iter().chain(common::corpus_files()) {
        if p.is_file() {
            if let Ok(b) = std::fs::read(&p) {
                v.push((p.display().to_string(), b));
            }
        }
    }
    // Other projects' recordings: simpleperf's own records (32-bit sizes, SPLIT parts, tracing
    // data inside the record) and feature sections.
    v.extend(common::peer_files().into_iter().filter(|(_, b)| b.len() <= 128 << 10));
    v
}

#[test]
fn truncation_at_every_record_boundary_keeps_the_records_before_it() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (name, data) in inputs() {
        if data.len() > 4 << 20 {
            continue;
        }
        let b = boundaries(&data);
        let (full, _) = drain(&data);
        let step = (b.len() / 12).max(1);
        for (k, &off) in b.iter().enumerate().step_by(step) {
            let cut = &data[..off as usize];
            let (n, _errs) = drain(cut);
            assert!(n <= full, "{name}: cut at {off} gave more records than the whole file");
            // Every record stored before the cut is still read, in file order.
            let direct = PerfFile::from_bytes(cut).map(|f| boundaries(f.bytes()).len()).unwrap_or(0);
            assert_eq!(direct, k, "{name}: cut at {off}: {direct} records read, {k} stored before the cut");
            // Cut inside the record too.
            let inside = (off as usize + 5).min(data.len());
            drain(&data[..inside]);
        }
    }
}

#[test]
fn random_overwrites_never_panic() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for (_name, data) in inputs() {
        if data.len() > 2 << 20 {
            continue;
        }
        for _ in 0..25 {
            let mut d = data.clone();
            let at = rng.below(d.len());
            match rng.below(6) {
                0 => d[at] = rng.next() as u8,
                1 if at + 2 <= d.len() => d[at..at + 2].copy_from_slice(&(rng.next() as u16).to_le_bytes()),
                2 if at + 4 <= d.len() => d[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes()),
                3 if at + 8 <= d.len() => d[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes()),
                4 if at + 8 <= d.len() => d[at..at + 8].copy_from_slice(&0u64.to_le_bytes()),
                _ => {
                    let cut = rng.below(d.len());
                    d.truncate(cut);
                }
            }
            drain(&d);
        }
    }
}

#[test]
fn header_size_fields_set_to_extremes_never_panic() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (_name, data) in inputs().into_iter().take(20) {
        for field in [8usize, 16, 24, 32, 40, 48] {
            for v in [0u64, 1, 16, 104, u32::MAX as u64, u64::MAX, data.len() as u64] {
                let mut d = data.clone();
                if d.len() >= field + 8 {
                    d[field..field + 8].copy_from_slice(&v.to_le_bytes());
                    drain(&d);
                }
            }
        }
    }
}

#[test]
fn quipper_fuzz_reproducers_give_an_error_or_partial_result() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let files: Vec<_> = common::corpus_files().into_iter().filter(|p| p.to_string_lossy().contains("qfuzz")).collect();
    if common::shared_corpus().is_none() {
        eprintln!("../shared/corpus absent: skipped");
        return;
    }
    assert_eq!(files.len(), 28);
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let (n, errs) = drain(&data);
        let _ = (n, errs, f);
    }
}

#[test]
fn empty_and_tiny_inputs_are_clean_errors() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for n in 0..120 {
        let mut d = b"PERFILE2".to_vec();
        d.resize(n, 0);
        let _ = drain(&d);
    }
    assert!(PerfFile::from_bytes(&[]).is_err());
    assert!(matches!(
        PerfFile::from_bytes(b"PERFFILEsomething-longer-than-sixteen"),
        Err(perfdata_core::Error::Unsupported(_))
    ));
    assert!(matches!(PerfFile::from_bytes(b"not a perf file at all"), Err(perfdata_core::Error::NotPerfData(_))));
}

/// The heap bound on mutated inputs. Runs the overwrite and truncation mutations of every input while
/// holding a lock that the other tests also take, so the shared counter sees only this test.
#[test]
fn mutated_inputs_stay_within_a_small_multiple_of_their_size() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    CHECK_ALLOC.store(true, Relaxed);
    let mut rng = Rng(0x5eed);
    for (_name, data) in inputs() {
        if data.len() > 2 << 20 {
            continue;
        }
        for _ in 0..8 {
            let mut d = data.clone();
            let at = rng.below(d.len());
            if at + 8 <= d.len() {
                d[at..at + 8].copy_from_slice(&(rng.next() | 0xffff_0000).to_le_bytes());
            }
            drain(&d);
            drain(&d[..rng.below(d.len())]);
        }
    }
    CHECK_ALLOC.store(false, Relaxed);
}

/// The tracing data of the tracepoint recordings mutated where its texts and numbers are: digits of
/// the format texts turned into 9s (offsets, sizes, array lengths, printf widths grow), random
/// bytes and u32::MAX lengths, each read like every other input (fields decoded, print fmts
/// rendered) under the same heap bound.
#[test]
fn mutated_tracing_data_stays_within_the_same_bound() {
    let _g = counting::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    CHECK_ALLOC.store(true, Relaxed);
    let mut rng = Rng(0x7ace);
    let mut files = 0;
    for (_name, data) in inputs() {
        let blob = PerfFile::from_bytes(&data).ok().and_then(|f| f.feature_data(1).map(|(d, p)| (p.offset, d.len())));
        let Some((at, len)) = blob else { continue };
        let (start, end) = (at as usize, at as usize + len);
        files += 1;
        for _ in 0..40 {
            let mut d = data.clone();
            for _ in 0..3 {
                let at = start + rng.below(len);
                match rng.below(3) {
                    0 => {
                        if let Some(k) = (at..end.min(at + 256)).find(|&k| d[k].is_ascii_digit()) {
                            d[k] = b'9';
                        }
                    }
                    1 => d[at] = rng.next() as u8,
                    _ if at + 4 <= end => d[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes()),
                    _ => {}
                }
            }
            drain(&d);
        }
    }
    assert!(files >= 3, "only {files} recordings with tracing data");
    CHECK_ALLOC.store(false, Relaxed);
}
