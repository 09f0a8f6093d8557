//! Record counts per type and sample counts per event equal `perf report --stats` (stored as
//! testdata/*.data.stats) on every committed recording perf could read.

mod common;

use common::{parse_stats, perf_name};
use perfdata_core::{Order, PerfFile, ReadOptions, RecordKind};
use std::collections::BTreeMap;

#[test]
fn counts_equal_perf_report_stats() {
    let mut checked = 0;
    for f in common::testdata_files() {
        let base = f.display().to_string();
        if std::path::Path::new(&format!("{base}.stats.err")).exists() {
            continue; // perf failed on this file (see testdata/README.md)
        }
        let Ok(text) = std::fs::read_to_string(format!("{base}.stats")) else { continue };
        let (want_types, want_events) = parse_stats(&text);
        assert!(!want_types.is_empty(), "{base}: no counts in perf's output");
        let file = PerfFile::open(&f).unwrap();
        let mut recs = file
            .records_with(ReadOptions { order: Order::File, include_compressed: true, ..Default::default() })
            .unwrap();
        let (mut types, mut events) = (BTreeMap::new(), BTreeMap::<String, u64>::new());
        while let Some(r) = recs.next_record() {
            let r = r.unwrap_or_else(|e| panic!("{base}: {e}"));
            *types.entry(perf_name(&r.type_name())).or_insert(0u64) += 1;
            if let RecordKind::Sample(s) = &r.kind {
                for name in perfdata_core::sample::sample_event_names(s, r.event.unwrap(), r.events) {
                    *events.entry(name).or_default() += 1;
                }
            }
        }
        assert_eq!(types, want_types, "{base}: records per type");
        assert_eq!(events, want_events, "{base}: samples per event");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} recordings compared");
}
