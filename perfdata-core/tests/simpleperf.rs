//! Files other projects recorded (testdata/peer, see SOURCES.md there): AOSP simpleperf's test
//! recordings, read against what `simpleperf dump` (and its other commands) printed for them, and
//! perf where perf reads them (perf 6.1 rejects the tracepoint ones: "incompatible file format").

mod common;

use perfdata_core::tracepoint::{Tracepoints, Value};
use perfdata_core::{Order, PerfFile, RecordKind};
use std::path::PathBuf;

fn peer_dir() -> PathBuf {
    common::testdata().join("peer")
}

use common::peer_bytes;

fn peer_output(name: &str) -> String {
    common::read_output(&peer_dir().join(name)).unwrap_or_else(|| panic!("no stored output {name}"))
}

/// One record as `simpleperf dump` printed it.
#[derive(Debug, Default)]
struct SpRecord {
    name: String,
    type_: u32,
    misc: u16,
    size: usize,
    /// Sample fields: ip, pid, tid, time, id, cpu, period (as printed).
    sample: Vec<(String, String)>,
    /// `tracepoint fields:` of a sample, as printed.
    tracepoint: Vec<(String, String)>,
}

/// The records of a `simpleperf dump` text, in file order.
fn parse_simpleperf_dump(text: &str) -> Vec<SpRecord> {
    let mut out: Vec<SpRecord> = Vec::new();
    let mut in_record = false;
    let mut in_tp = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("record ") {
            // record sample: type 9, misc 0x1, size 64
            let (name, rest) = rest.split_once(": ").unwrap();
            let parts: Vec<&str> = rest.split(", ").collect();
            let type_ = parts[0].strip_prefix("type ").unwrap().parse().unwrap();
            let misc = u16::from_str_radix(parts[1].strip_prefix("misc 0x").unwrap(), 16).unwrap();
            let size = parts[2].strip_prefix("size ").unwrap().parse().unwrap();
            out.push(SpRecord { name: name.to_string(), type_, misc, size, ..SpRecord::default() });
            in_record = true;
            in_tp = false;
            continue;
        }
        if !line.starts_with(' ') {
            in_record = false;
            continue;
        }
        if !in_record {
            continue;
        }
        let rec = out.last_mut().unwrap();
        if rec.name != "sample" {
            continue;
        }
        if line == "  tracepoint fields:" {
            in_tp = true;
            continue;
        }
        if in_tp {
            if let Some((k, v)) = line.trim_start().split_once(": ") {
                rec.tracepoint.push((k.to_string(), v.to_string()));
            }
            continue;
        }
        let l = line.trim_start();
        let indent = line.len() - l.len();
        if indent != 2 {
            continue;
        }
        for part in l.split(", ") {
            if let Some((k, v)) = part.split_once(' ') {
                if ["ip", "pid", "tid", "time", "id", "cpu", "period"].contains(&k) {
                    rec.sample.push((k.to_string(), v.to_string()));
                }
            }
        }
    }
    out
}

/// Our reading of a tracepoint field as simpleperf's dump prints it: unsigned integers in hex,
/// signed ones in decimal, strings as they are.
fn simpleperf_text(v: &Value<'_>) -> String {
    match v {
        Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => format!("{:#x}", v.as_u64().unwrap()),
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => v.as_i64().unwrap().to_string(),
        Value::Str(_) => v.as_str().unwrap().into_owned(),
        other => format!("{other:?}"),
    }
}

/// Every record of `name` in file order equals simpleperf's dump: type, misc, size, the sample
/// fields, and the tracepoint fields decoded with the file's own tracing data. Returns the number
/// of tracepoint fields compared.
fn check_against_simpleperf_dump(name: &str) -> usize {
    let bytes = peer_bytes(name);
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let expected = parse_simpleperf_dump(&peer_output(&format!("{name}.simpleperf-dump")));
    let tp = Tracepoints::from_file(&file).unwrap().expect("the file carries tracing data");
    let mut n = 0;
    let mut tp_fields = 0;
    for (i, r) in file.records(Order::File).unwrap().enumerate() {
        let r = r.unwrap_or_else(|e| panic!("{name}: record {i}: {e}"));
        let want = expected.get(i).unwrap_or_else(|| panic!("{name}: record {i} at {} is extra", r.pos));
        let misc = if r.header.type_ >= 32768 { 0 } else { r.header.misc };
        assert_eq!(
            (r.header.type_, misc, r.header.record_size()),
            (want.type_, want.misc, want.size),
            "{name}: record {i} at {} ({})",
            r.pos,
            want.name
        );
        if let RecordKind::Sample(s) = &r.kind {
            let mut got = Vec::new();
            let put = |got: &mut Vec<(String, String)>, k: &str, v: String| got.push((k.to_string(), v));
            put(&mut got, "ip", format!("{:#x}", s.ip().unwrap()));
            put(&mut got, "pid", s.pid().unwrap().to_string());
            put(&mut got, "tid", s.tid().unwrap().to_string());
            put(&mut got, "time", s.time().unwrap().to_string());
            put(&mut got, "id", s.id().unwrap().to_string());
            put(&mut got, "cpu", s.cpu().unwrap().to_string());
            put(&mut got, "period", s.period().unwrap().to_string());
            assert_eq!(got, want.sample, "{name}: sample {i} at {}", r.pos);
            let event = r.event.unwrap();
            if let Some(fmt) = tp.format_for(&event.attr) {
                let raw = s.raw().unwrap();
                let mut ours: Vec<(String, String)> = Vec::new();
                for f in fmt.all_fields() {
                    ours.push((f.name.clone(), simpleperf_text(&fmt.field(raw, &f.name).unwrap())));
                }
                assert_eq!(ours, want.tracepoint, "{name}: tracepoint fields of sample {i} at {}", r.pos);
                tp_fields += ours.len();
            }
        }
        n += 1;
    }
    assert_eq!(n, expected.len(), "{name}: records read vs simpleperf dump");
    tp_fields
}

/// simpleperf frames its HEADER_TRACING_DATA record with the data inside (size 12 + data padded
/// to 64): every record after it used to be lost. All 107 records (31 sched_switch samples with
/// their fields) equal simpleperf's dump.
#[test]
fn tracepoint_event_records_equal_simpleperf_dump() {
    let fields = check_against_simpleperf_dump("perf_with_tracepoint_event.data");
    assert_eq!(fields, 31 * 11, "sched_switch has 4 common + 7 fields");
}

/// Its own SIMPLEPERF_TRACING_DATA type (32777), a kprobe with a `__data_loc` string.
#[test]
fn tracepoint_dynamic_field_records_equal_simpleperf_dump() {
    let fields = check_against_simpleperf_dump("perf_with_tracepoint_event_dynamic_field.data");
    assert_eq!(fields, 10 * 7);
}

/// 17438 records, 2430 sched_stat_runtime samples; the framing defect stopped at 0x16fe after 1.
#[test]
fn sched_stat_runtime_records_equal_simpleperf_dump() {
    check_against_simpleperf_dump("perf_sched_stat_runtime.data");
}

/// simpleperf's own test data expectations (scripts/test/report_lib_test.py): a sched_switch of
/// pid 9896 to `swapper/4`, and the kprobe's dynamic `name` field.
#[test]
fn tracepoint_fields_simpleperf_report_lib_expects() {
    let bytes = peer_bytes("perf_with_tracepoint_event.data");
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let found = file.tracepoints("sched:sched_switch").unwrap().any(|s| {
        let s = s.unwrap();
        s.field("prev_pid").unwrap().as_i64() == Some(9896)
            && s.field("next_comm").unwrap().as_str().as_deref() == Some("swapper/4")
    });
    assert!(found);
    let bytes = peer_bytes("perf_with_tracepoint_event_dynamic_field.data");
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let found = file.tracepoints("kprobes:myopen").unwrap().any(|s| {
        s.unwrap().field("name").unwrap().as_str().as_deref()
            == Some("/sys/kernel/debug/tracing/events/kprobes/myopen/format")
    });
    assert!(found);
}

/// `simpleperf trace-sched --show-threads`: the runtime field of sched_stat_runtime summed per
/// sample tid, without the threads named `simpleperf` (a thread's name is the last of: its
/// samples' `comm` field, its COMM records, its parent's name at FORK, in file order), processes
/// and threads under 0.01% omitted: every thread line and the total equal simpleperf's.
#[test]
fn sched_stat_runtime_per_thread_equals_simpleperf_trace_sched() {
    use std::collections::BTreeMap;
    let bytes = peer_bytes("perf_sched_stat_runtime.data");
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let tp = Tracepoints::from_file(&file).unwrap().unwrap();
    let fmt = tp.format_by_name("sched", "sched_stat_runtime").unwrap();
    // tid -> (pid, name, runtime)
    let mut threads: BTreeMap<u32, (u32, String, u64)> = BTreeMap::new();
    let mut samples = 0;
    for r in file.records(Order::File).unwrap() {
        let r = r.unwrap();
        match &r.kind {
            RecordKind::Sample(s) => {
                let raw = s.raw().unwrap();
                let t = threads.entry(s.tid().unwrap()).or_default();
                t.0 = s.pid().unwrap();
                t.1 = fmt.field(raw, "comm").unwrap().as_str().unwrap().into_owned();
                t.2 += fmt.field(raw, "runtime").unwrap().as_u64().unwrap();
                samples += 1;
            }
            RecordKind::Comm(c) => {
                let t = threads.entry(c.tid).or_default();
                t.0 = c.pid;
                t.1 = String::from_utf8_lossy(c.comm).into_owned();
            }
            RecordKind::Fork(f) => {
                let parent = threads.entry(f.ptid).or_default();
                parent.0 = f.ppid;
                let name = parent.1.clone();
                let child = threads.entry(f.tid).or_default();
                child.0 = f.pid;
                child.1 = name;
            }
            _ => {}
        }
    }
    assert_eq!(samples, 2430);
    threads.retain(|_, t| t.1 != "simpleperf");
    let total: u64 = threads.values().map(|t| t.2).sum();
    let mut per_process: BTreeMap<u32, u64> = BTreeMap::new();
    for t in threads.values() {
        *per_process.entry(t.0).or_default() += t.2;
    }
    let pct = |v: u64| 100.0 * v as f64 / total as f64;
    let mut ours: Vec<String> = threads
        .iter()
        .filter(|(_, t)| pct(per_process[&t.0]) >= 0.01 && pct(t.2) >= 0.01)
        .map(|(tid, t)| format!("{:.3} {:.2}% {tid}", t.2 as f64 / 1e6, pct(t.2)))
        .collect();
    ours.sort();
    let text = peer_output("perf_sched_stat_runtime.data.simpleperf-trace-sched");
    assert_eq!(text.lines().next().unwrap(), format!("Total Runtime: {:.3} ms", total as f64 / 1e6));
    // Thread   3845.961 ms  94.90%      8615  BusyThread
    let mut theirs: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("Thread "))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            format!("{} {} {}", c[1], c[3], c[4])
        })
        .collect();
    theirs.sort();
    assert!(theirs.len() > 10, "{} thread lines", theirs.len());
    assert_eq!(ours, theirs);
}
