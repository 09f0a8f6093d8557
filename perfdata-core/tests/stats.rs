//! Record counts per type and sample counts per event equal `perf report --stats` (stored as
//! testdata/*.data.stats) on every committed recording perf could read.

mod common;

use perfdata_core::{Order, PerfFile, ReadOptions, RecordKind};
use std::collections::BTreeMap;

/// perf's aggregated counts by perf's type name, and SAMPLE counts by event name.
fn parse_stats(text: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let (mut types, mut events) = (BTreeMap::new(), BTreeMap::new());
    let mut section: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_suffix(" stats:") {
            if name != "Aggregated" {
                section = Some(name.to_string());
            }
            continue;
        }
        let Some((name, rest)) = t.split_once(" events:") else { continue };
        let n: u64 = rest.split_whitespace().next().unwrap().parse().unwrap();
        match &section {
            None if name != "TOTAL" => {
                types.insert(name.to_string(), n);
            }
            Some(ev) if name == "SAMPLE" => {
                events.insert(ev.clone(), n);
            }
            _ => {}
        }
    }
    (types, events)
}

/// perf's short names of user record types (`perf_event__name`).
fn perf_name(ours: &str) -> String {
    match ours {
        "HEADER_ATTR" => "ATTR".into(),
        "HEADER_EVENT_TYPE" => "EVENT_TYPE".into(),
        "HEADER_TRACING_DATA" => "TRACING_DATA".into(),
        "HEADER_BUILD_ID" => "BUILD_ID".into(),
        "HEADER_FEATURE" => "FEATURE".into(),
        n => n.into(),
    }
}

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
                for name in perfdata_core::event::sample_event_names(s, r.event.unwrap(), r.events) {
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
