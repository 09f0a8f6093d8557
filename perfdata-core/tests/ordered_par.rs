//! Parallel time-ordered extraction (`PerfFile::ordered_par`) delivers what `PerfFile::ordered`
//! delivers: the same values in the same order, the same counters and diagnostics, and the
//! extractor's state joined chunk by chunk in file order — on every committed recording and every
//! corpus file, cut into chunks small enough that nearly every round is a chunk, and when a
//! chunk starts at bytes that only look like a round marker.

mod common;

use perfdata_core::{Extract, ParExtract, Parallel, PerfFile, ReadOptions, Record, RecordRef};
use std::path::Path;

fn text(r: &perfdata_core::Result<Record<'_>>) -> String {
    match r {
        Err(e) => format!("Err({e})"),
        Ok(r) => format!("{:?} {:?} {:?} {:?} {:?} {:?}", r.pos, r.header, r.event, r.sample_id, r.kind, r.bytes),
    }
}

/// Keeps every record (as text) and counts, per chunk, the records it saw: joined in file order,
/// the counts must add up to the records read, in the order of their offsets.
#[derive(Default)]
struct Texts {
    /// (offset of the first record, records) of each chunk this extractor saw or joined.
    parts: Vec<(u64, u64)>,
}

impl Extract<String> for Texts {
    fn extract(&mut self, r: &RecordRef<'_>) -> Option<String> {
        match self.parts.last_mut() {
            Some(p) => p.1 += 1,
            None => self.parts.push((r.pos().offset, 1)),
        }
        Some(text(&r.decode()))
    }
}

impl ParExtract<String> for Texts {
    type Part = Vec<(u64, u64)>;
    fn fork(&self) -> Self {
        Texts::default()
    }
    fn take_part(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.parts)
    }
    fn join_part(&mut self, part: Vec<(u64, u64)>) {
        self.parts.extend(part);
    }
}

/// Values, (out of order, early flushes, unknown ids), diagnostics, records the extractor
/// counted, and whether the read stayed parallel.
type Reading = (Vec<String>, (u64, u64, u64), Vec<String>, u64, bool);

fn read(file: &PerfFile<'_>, window: usize, par: Option<Parallel>) -> Option<Reading> {
    let opts = ReadOptions { window_records: window, ..Default::default() };
    let run = |ordered: &mut perfdata_core::Ordered<'_, String, Texts>| {
        let out: Vec<String> = ordered.by_ref().map(|v| v.unwrap_or_else(|e| format!("Err({e})"))).collect();
        let s = ordered.stats();
        let parts = &ordered.extractor().parts;
        assert!(parts.windows(2).all(|w| w[0].0 < w[1].0), "chunks joined out of file order: {parts:?}");
        let counted = parts.iter().map(|p| p.1).sum();
        (out, (s.out_of_order, s.early_flushes, s.unknown_id), ordered.diagnostics(), counted, ordered.is_parallel())
    };
    match par {
        None => Some(run(&mut file.ordered(opts, Texts::default()).ok()?)),
        Some(par) => file.ordered_par(opts, par, Texts::default(), run).ok(),
    }
}

fn same(want: &Reading, got: &Reading, what: &str) {
    if let Some((i, (w, g))) = want.0.iter().zip(&got.0).enumerate().find(|(_, (w, g))| w != g) {
        let short = |s: &str| s.chars().take(400).collect::<String>();
        panic!("{what}: value {i} differs:\n ordered:     {}\n ordered_par: {}", short(w), short(g));
    }
    assert_eq!(want.0.len(), got.0.len(), "{what}: value count");
    assert_eq!(want.1, got.1, "{what}: (out of order, early flushes, unknown ids)");
    assert_eq!(want.2, got.2, "{what}: diagnostics");
    assert_eq!(want.3, got.3, "{what}: records the joined extractor counted");
}

/// Compares on `path`; returns how many of the parallel reads stayed parallel.
fn check_bytes(bytes: &[u8], what: &str) -> (usize, usize) {
    let (mut runs, mut parallel) = (0, 0);
    let Ok(file) = PerfFile::from_bytes(bytes) else { return (0, 0) };
    for window in [1 << 16, 64] {
        let Some(want) = read(&file, window, None) else { continue };
        // 64-byte chunks: nearly every round is a chunk; 4 KiB chunks that give up past 8 KiB:
        // reads that fall back midway (rounds farther apart than that).
        for (threads, chunk_bytes, max_chunk_bytes) in
            [(2, 64, usize::MAX), (3, 4096, usize::MAX), (2, 4096, 8192), (2, 1 << 20, usize::MAX)]
        {
            let par = Parallel { threads, chunk_bytes, min_bytes: 0, max_chunk_bytes };
            let got = read(&file, window, Some(par)).expect("ordered_par fails where ordered does not");
            same(
                &want,
                &got,
                &format!(
                    "{what} (window {window}, {threads} threads, {chunk_bytes}-byte chunks up to {max_chunk_bytes})"
                ),
            );
            runs += 1;
            parallel += usize::from(got.4);
        }
    }
    (runs, parallel)
}

fn check(path: &Path) -> (usize, usize) {
    match std::fs::read(path) {
        Ok(bytes) if !path.is_dir() => check_bytes(&bytes, &path.display().to_string()),
        _ => (0, 0),
    }
}

#[test]
fn parallel_extraction_equals_extraction_on_every_testdata_file() {
    let (mut runs, mut parallel) = (0, 0);
    for f in common::testdata_files() {
        let (r, p) = check(&f);
        runs += r;
        parallel += p;
    }
    eprintln!("testdata: {runs} runs, {parallel} parallel");
    assert!(runs >= 200, "only {runs} parallel reads compared");
    // Most files have round markers: their reads stay parallel to the end.
    assert!(parallel * 2 > runs, "only {parallel} of {runs} reads stayed parallel");
}

#[test]
fn parallel_extraction_equals_extraction_on_the_shared_corpus() {
    let (mut runs, mut parallel) = (0, 0);
    for f in common::corpus_files() {
        let (r, p) = check(&f);
        runs += r;
        parallel += p;
    }
    if common::shared_corpus().is_some() {
        eprintln!("corpus: {runs} runs, {parallel} parallel");
        assert!(runs >= 300, "only {runs} parallel reads compared");
        assert!(parallel > 0, "no read stayed parallel");
    }
}

#[test]
fn a_round_marker_inside_a_record_makes_the_read_fall_back_to_one_thread() {
    // sched.data with a sample's first u64 (its ip) rewritten to a FINISHED_ROUND record's bytes:
    // a chunk starting there does not start where the chunk before it stopped.
    let mut bytes = std::fs::read(common::testdata().join("sched.data")).unwrap();
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let mut recs = file.records(perfdata_core::Order::File).unwrap();
    let mut samples = Vec::new();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if matches!(r.kind, perfdata_core::RecordKind::Sample(_)) {
            samples.push(r.pos.offset as usize);
        }
    }
    drop(recs);
    drop(file);
    let at = samples[samples.len() / 2] + 8;
    bytes[at..at + 8].copy_from_slice(&[68, 0, 0, 0, 0, 0, 8, 0]);
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let want = read(&file, 1 << 16, None).unwrap();
    let got =
        read(&file, 1 << 16, Some(Parallel { threads: 2, chunk_bytes: 64, min_bytes: 0, max_chunk_bytes: usize::MAX }))
            .unwrap();
    same(&want, &got, "sched.data with a marker inside a sample");
    assert!(!got.4, "the read did not fall back to one thread");
    // Unchanged, the same file is read in parallel to the end.
    let (_, parallel) = check(&common::testdata().join("sched.data"));
    assert!(parallel > 0);
}
