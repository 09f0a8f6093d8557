//! docs/damage.md, in the library: every committed recording cut at each of its record
//! boundaries, and inside records, gives every complete record before the cut, in file order and
//! in time order, and its problem log says the cut once — plus, for a cut inside a record, that
//! record, once. (32 recordings, 46,845 cuts: 8 s.)

mod common;

use perfdata_core::{Order, PerfFile};

/// Where each record stored in the file (not inside a compressed one) ends, in file order.
fn record_ends(f: &PerfFile<'_>) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut recs = f.records(Order::File).unwrap();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if r.pos.index.is_none() {
            ends.push(r.pos.offset as usize + r.header.record_size());
        }
    }
    ends
}

/// (complete records, errors) read in `order`, counting the records inside compressed ones.
fn read(f: &PerfFile<'_>, order: Order) -> (usize, usize) {
    let (mut ok, mut bad) = (0, 0);
    let mut recs = f.records(order).unwrap();
    while let Some(r) = recs.next_record() {
        match r {
            Ok(_) => ok += 1,
            Err(_) => bad += 1,
        }
    }
    (ok, bad)
}

/// The boundaries to cut at: all of them up to `ALL`, else the first and last 50 and an even
/// spread of the others (the work grows with the square of the records cut at).
fn picks(n: usize) -> Vec<usize> {
    const ALL: usize = 3000;
    if n <= ALL {
        return (0..n).collect();
    }
    let spread = ALL - 100;
    let mut v: Vec<usize> = (0..50).chain((0..spread).map(|i| 50 + i * (n - 100) / spread)).chain(n - 50..n).collect();
    v.dedup();
    v
}

#[test]
fn every_cut_gives_the_complete_records_and_says_so_once() {
    let mut files = 0;
    let mut cuts = 0;
    for path in common::testdata_files() {
        if !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let whole = PerfFile::from_bytes(&bytes).unwrap();
        if !whole.diagnostics().is_empty() || whole.header().format != perfdata_core::header::Format::File {
            // Damaged on purpose, or a pipe stream (which may end anywhere).
            continue;
        }
        let ends = record_ends(&whole);
        // The offset of every record's stored frame (a compressed frame's for the records in it).
        let mut stored_at = Vec::new();
        {
            let mut recs = whole.records(Order::File).unwrap();
            while let Some(r) = recs.next_record() {
                stored_at.push(r.unwrap().pos.offset as usize);
            }
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data_end = whole.header().data.end().unwrap() as usize;
        files += 1;
        for k in picks(ends.len()) {
            let end = ends[k];
            if end >= data_end {
                continue; // the whole data section: nothing is cut
            }
            // Records complete at this boundary (stored ones, and those of compressed frames).
            let complete = stored_at.partition_point(|&at| at < end);
            let next = ends.get(k + 1).copied().unwrap_or(data_end);
            for (cut, inside) in [(end, false), (end + 3, true), ((end + next) / 2, true)] {
                if inside && cut >= next {
                    continue;
                }
                cuts += 1;
                let part = &bytes[..cut];
                let f = PerfFile::from_bytes(part).unwrap_or_else(|e| panic!("{name} cut at {cut}: {e}"));
                for order in [Order::File, Order::Time] {
                    let (ok, bad) = read(&f, order);
                    assert_eq!((ok, bad), (complete, usize::from(inside)), "{name} cut at {cut} ({order:?})");
                }
                let problems = f.problems().list();
                let want = 1 + usize::from(inside);
                assert_eq!(problems.len(), want, "{name} cut at {cut}: {problems:#?}");
                let note = format!("data section ends at {data_end} but the file has only {cut} bytes");
                let (notes, others): (Vec<&String>, Vec<&String>) = problems.iter().partition(|p| p.starts_with(&note));
                assert_eq!(notes.len(), 1, "{name} cut at {cut}: {problems:#?}");
                // The incomplete record, by its offset.
                assert!(others.iter().all(|p| p.contains(&format!("{end:#x}"))), "{name} cut at {cut}: {problems:#?}");
            }
        }
    }
    assert!(files >= 30 && cuts >= 10_000, "{files} files, {cuts} cuts");
}
