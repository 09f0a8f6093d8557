//! With perfdata-core's default features off, a `for` loop over `file.records(Order::File)?`
//! counts per record type and per event what `perf report --stats` counted (testdata/*.stats) on
//! every committed recording perf could read, except the `-z` ones (their COMPRESSED records need
//! the `zstd` feature: checked to give that error).

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

use perfdata_core::{Error, Order, PerfFile, RecordKind};
use std::collections::BTreeMap;

fn count(file: &PerfFile<'_>) -> perfdata_core::Result<(BTreeMap<String, u64>, BTreeMap<String, u64>)> {
    let (mut types, mut events) = (BTreeMap::new(), BTreeMap::<String, u64>::new());
    for record in file.records(Order::File)? {
        let record = record?;
        *types.entry(common::perf_name(&record.type_name())).or_insert(0u64) += 1;
        if let (RecordKind::Sample(s), Some(event)) = (&record.kind, record.event) {
            for name in perfdata_core::sample::sample_event_names(s, event, record.events) {
                *events.entry(name).or_default() += 1;
            }
        }
    }
    Ok((types, events))
}

#[test]
fn a_for_loop_counts_what_perf_report_stats_counts_without_default_features() {
    let (mut checked, mut compressed) = (0, 0);
    for f in common::testdata_files() {
        let base = f.display().to_string();
        if std::path::Path::new(&format!("{base}.stats.err")).exists() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(format!("{base}.stats")) else { continue };
        let (want_types, want_events) = common::parse_stats(&text);
        let file = PerfFile::open(&f).unwrap();
        match count(&file) {
            Err(Error::Unsupported(detail)) => {
                assert!(want_types.contains_key("COMPRESSED"), "{base}: {detail}");
                let why = "compressed records (perf record -z): perfdata-core was built without its `zstd` feature";
                assert_eq!(detail, why);
                compressed += 1;
            }
            Err(e) => panic!("{base}: {e}"),
            Ok((types, events)) => {
                assert_eq!(types, want_types, "{base}: records per type");
                assert_eq!(events, want_events, "{base}: samples per event");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20 && compressed >= 1, "{checked} recordings compared, {compressed} compressed");
}
