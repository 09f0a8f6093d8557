//! The std `Iterator` of `Records` (records borrow the file) yields exactly what the lending
//! `next_record` yields — same records, same errors, same order — on every committed recording and
//! every corpus file, in file and time order, for mapped files, byte slices and pipe streams read with
//! `from_reader` (including `perf record -z` blocks and pipe-mode compressed data).

mod common;

use perfdata_core::{Order, PerfFile, Record};
use std::path::Path;

/// A record (or error) as text: every field, the event list by its length (its id map's Debug
/// order is a HashMap's).
fn text(r: &perfdata_core::Result<Record<'_>>) -> String {
    match r {
        Err(e) => format!("Err({e})"),
        Ok(r) => format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {}",
            r.pos,
            r.header,
            r.event,
            r.sample_id,
            r.kind,
            r.bytes,
            r.events.events.len()
        ),
    }
}

/// Each record (or error) as text, through the lending form.
fn lending(file: &PerfFile<'_>, order: Order) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(mut recs) = file.records(order) else { return vec!["records() failed".into()] };
    while let Some(r) = recs.next_record() {
        out.push(text(&r));
    }
    out
}

/// The same through `for record in file.records(order)?`, keeping every record alive until the end
/// (which the lending form cannot do) to show that none is invalidated by later reads.
fn iterated(file: &PerfFile<'_>, order: Order) -> Vec<String> {
    let Ok(recs) = file.records(order) else { return vec!["records() failed".into()] };
    let kept: Vec<perfdata_core::Result<Record<'_>>> = recs.collect();
    kept.iter().map(text).collect()
}

/// The first difference, shortened (a record's Debug text carries its whole event list).
fn same(want: &[String], got: &[String], what: &str) {
    if let Some((i, (w, g))) = want.iter().zip(got).enumerate().find(|(_, (w, g))| w != g) {
        let at = w.bytes().zip(g.bytes()).take_while(|(a, b)| a == b).count().saturating_sub(100);
        let short = |s: &str| s.get(at..).unwrap_or("").chars().take(300).collect::<String>();
        panic!("{what}: record {i} differs at char {at}:\n lending: {}\n for:     {}", short(w), short(g));
    }
    assert_eq!(want.len(), got.len(), "{what}: record count");
}

fn check(path: &Path, checked: &mut usize) {
    for order in [Order::File, Order::Time] {
        let mapped = PerfFile::open(path).map(|f| (lending(&f, order), iterated(&f, order)));
        let Ok((want, got)) = mapped else { continue };
        same(&want, &got, &format!("{}: {order:?}", path.display()));
        *checked += 1;
        if path.is_dir() {
            continue; // a perf.data directory (perf record --threaded): mapped only
        }
        let bytes = std::fs::read(path).unwrap();
        let from_bytes = PerfFile::from_bytes(&bytes).unwrap();
        same(&want, &iterated(&from_bytes, order), &format!("{}: from_bytes {order:?}", path.display()));
        // A stream read once: open it twice.
        let streamed = |f: fn(&PerfFile<'_>, Order) -> Vec<String>| {
            let reader = std::io::BufReader::new(std::fs::File::open(path).unwrap());
            PerfFile::from_reader(reader).map(|file| f(&file, order)).ok()
        };
        if let (Some(w), Some(g)) = (streamed(lending), streamed(iterated)) {
            same(&w, &g, &format!("{}: from_reader {order:?}", path.display()));
        }
    }
}

#[test]
fn the_for_loop_equals_the_lending_form_on_every_testdata_file() {
    let mut checked = 0;
    for f in common::testdata_files() {
        check(&f, &mut checked);
    }
    assert!(checked >= 60, "only {checked} (file, order) pairs read");
}

#[test]
fn the_for_loop_equals_the_lending_form_on_the_shared_corpus() {
    let mut checked = 0;
    for f in common::corpus_files() {
        check(&f, &mut checked);
    }
    if common::shared_corpus().is_some() {
        assert!(checked >= 100, "only {checked} (file, order) pairs read");
    }
}

#[test]
fn records_outlive_the_iterator() {
    let file = PerfFile::open(common::testdata().join("comp.data")).unwrap();
    let kept: Vec<Record<'_>> = {
        let recs = file.records(Order::Time).unwrap();
        recs.filter_map(Result::ok).collect()
    };
    let mut recs = file.records(Order::Time).unwrap();
    let mut n = 0;
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        assert_eq!(kept.get(n).map(|k| text(&Ok(k.clone()))), Some(text(&Ok(r))));
        n += 1;
    }
    assert_eq!(n, kept.len());
    assert!(n > 100, "comp.data has {n} records");
}
