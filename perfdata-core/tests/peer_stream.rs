//! KDAB perfparser's `probe.data.stream` (testdata/peer, GPL-3.0, see SOURCES.md): a pipe stream
//! written by an older perf (12-byte HEADER_TRACING_DATA record, 3-field TIME_CONV) of one uprobe
//! hit. perf 6.1's `perf report --stats` stops after 2 records with "unexpected end of event
//! stream"; its `perf report -D` reads all 128. We read the 128, per type as perf -D counts them,
//! from the mapped file and from a stream: a case where we do better than one of perf's commands.

mod common;

use perfdata_core::{Order, PerfFile, RecordKind};
use std::collections::BTreeMap;

fn counts(file: &PerfFile<'_>) -> (BTreeMap<String, u64>, u64) {
    let mut types = BTreeMap::new();
    let mut samples = 0;
    let mut recs = file.records(Order::File).unwrap();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        *types.entry(common::perf_name(&r.type_name())).or_insert(0u64) += 1;
        if let RecordKind::Sample(_) = r.kind {
            samples += 1;
        }
    }
    (types, samples)
}

#[test]
fn probe_stream_reads_all_128_records_perf_report_stats_stops_after_2() {
    let dir = common::testdata().join("peer");
    let stats = std::fs::read_to_string(dir.join("probe.data.stream.stats")).unwrap();
    let err = std::fs::read_to_string(dir.join("probe.data.stream.stats.err")).unwrap();
    assert!(err.contains("unexpected end of event stream"), "{err}");
    let (perf_stats, _) = common::parse_stats(&stats);
    assert_eq!(perf_stats.values().sum::<u64>(), 2, "perf report --stats");
    let dump = common::read_output(&dir.join("probe.data.stream.dump")).unwrap();
    let (want, _) = common::parse_stats(&dump);
    assert_eq!(want.values().sum::<u64>(), 128, "perf report -D");

    let bytes = common::peer_bytes("probe.data.stream");
    let (mapped, samples) = counts(&PerfFile::from_bytes(&bytes).unwrap());
    assert_eq!(mapped, want);
    assert_eq!(samples, 1);
    let stream = PerfFile::from_reader(std::io::Cursor::new(bytes.clone())).unwrap();
    assert_eq!(counts(&stream).0, want, "read as a stream");

    // The one sample is perf script's line: probe_untitled1:main of untitled1 30603 on CPU 5.
    let script = std::fs::read_to_string(dir.join("probe.data.stream.script")).unwrap();
    assert!(script.contains("untitled1 30603 [005] 13780.586519: probe_untitled1:main:"), "{script}");
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let s: Vec<_> = file.tracepoints("probe_untitled1:main").unwrap().map(Result::unwrap).collect();
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].sample.pid(), s[0].sample.tid(), s[0].sample.cpu()), (Some(30603), Some(30603), Some(5)));
    assert_eq!(s[0].sample.time().map(|t| t / 1000), Some(13_780_586_519));
}
