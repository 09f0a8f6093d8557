//! Time-ordered extraction (`PerfFile::ordered`) delivers what `Records` in time order delivers:
//! with an extractor that keeps every record (decoded through `RecordRef::decode`), the same
//! records, errors and counters in the same order, on every committed recording and every corpus
//! file, mapped and as pipe streams, with the default window and with a small one that overflows.

mod common;

use perfdata_core::{Order, PerfFile, ReadOptions, Record, RecordRef};
use std::path::Path;

fn text(r: &perfdata_core::Result<Record<'_>>) -> String {
    match r {
        Err(e) => format!("Err({e})"),
        Ok(r) => format!("{:?} {:?} {:?} {:?} {:?} {:?}", r.pos, r.header, r.event, r.sample_id, r.kind, r.bytes),
    }
}

type Counters = (u64, u64, u64);
/// The records (as text) and counters a reading gives.
type Reading = Option<(Vec<String>, Counters)>;

fn by_records(file: &PerfFile<'_>, window: usize) -> Reading {
    let mut recs =
        file.records_with(ReadOptions { order: Order::Time, window_records: window, ..Default::default() }).ok()?;
    let mut out = Vec::new();
    while let Some(r) = recs.next_record() {
        out.push(text(&r));
    }
    let s = recs.stats();
    Some((out, (s.out_of_order, s.early_flushes, s.unknown_id)))
}

fn by_extraction(file: &PerfFile<'_>, window: usize) -> Reading {
    let opts = ReadOptions { window_records: window, ..Default::default() };
    let mut ordered = file.ordered(opts, |r: &RecordRef<'_>| Some(text(&r.decode()))).ok()?;
    let out = ordered.by_ref().map(|v| v.unwrap_or_else(|e| format!("Err({e})"))).collect();
    let s = ordered.stats();
    Some((out, (s.out_of_order, s.early_flushes, s.unknown_id)))
}

fn same(want: &(Vec<String>, Counters), got: &(Vec<String>, Counters), what: &str) {
    if let Some((i, (w, g))) = want.0.iter().zip(&got.0).enumerate().find(|(_, (w, g))| w != g) {
        let short = |s: &str| s.chars().take(400).collect::<String>();
        panic!("{what}: record {i} differs:\n records: {}\n ordered: {}", short(w), short(g));
    }
    assert_eq!(want.0.len(), got.0.len(), "{what}: record count");
    assert_eq!(want.1, got.1, "{what}: (out of order, early flushes, unknown ids)");
}

fn check(path: &Path, checked: &mut usize, flushed: &mut usize) {
    for window in [1 << 16, 64] {
        let Ok(file) = PerfFile::open(path) else { continue };
        let (Some(want), Some(got)) = (by_records(&file, window), by_extraction(&file, window)) else { continue };
        same(&want, &got, &format!("{} (window {window})", path.display()));
        *checked += 1;
        *flushed += usize::from(want.1 .1 > 0);
        if path.is_dir() {
            continue;
        }
        let streamed = |f: fn(&PerfFile<'_>, usize) -> Reading| {
            let reader = std::io::BufReader::new(std::fs::File::open(path).ok()?);
            PerfFile::from_reader(reader).ok().and_then(|file| f(&file, window))
        };
        if let (Some(w), Some(g)) = (streamed(by_records), streamed(by_extraction)) {
            same(&w, &g, &format!("{}: from_reader (window {window})", path.display()));
        }
    }
}

#[test]
fn extraction_delivers_the_time_order_of_records_on_every_testdata_file() {
    let (mut checked, mut flushed) = (0, 0);
    for f in common::testdata_files() {
        check(&f, &mut checked, &mut flushed);
    }
    assert!(checked >= 60, "only {checked} (file, window) pairs read");
    // The small window overflows on the larger recordings: early flushes are compared too.
    assert!(flushed >= 10, "only {flushed} runs flushed early");
}

#[test]
fn extraction_delivers_the_time_order_of_records_on_the_shared_corpus() {
    let (mut checked, mut flushed) = (0, 0);
    for f in common::corpus_files() {
        check(&f, &mut checked, &mut flushed);
    }
    if common::shared_corpus().is_some() {
        assert!(checked >= 100, "only {checked} (file, window) pairs read");
    }
}

#[test]
fn only_kept_values_are_queued() {
    // sched.data: keep the samples' (time, tid) only; they come out sorted by time, as many as
    // the records have samples.
    let file = PerfFile::open(common::testdata().join("sched.data")).unwrap();
    let mut ordered = file
        .ordered(ReadOptions::default(), |r: &RecordRef<'_>| {
            let s = r.sample()?.ok()?;
            Some((s.time()?, s.tid()?))
        })
        .unwrap();
    let got: Vec<(u64, u32)> = ordered.by_ref().map(Result::unwrap).collect();
    let mut want = Vec::new();
    let mut recs = file.records(Order::Time).unwrap();
    while let Some(r) = recs.next_record() {
        if let perfdata_core::RecordKind::Sample(s) = r.unwrap().kind {
            want.push((s.time().unwrap(), s.tid().unwrap()));
        }
    }
    assert!(want.len() > 400, "sched.data has {} samples", want.len());
    assert_eq!(got, want);
    assert_eq!(ordered.stats().out_of_order, 0);
}
