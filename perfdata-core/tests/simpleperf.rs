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
    /// Every line printed under the record header (the indentation kept).
    body: Vec<String>,
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
        if !line.starts_with(' ') && !line.is_empty() {
            // A kallsyms text goes on at column 0 until the next record.
            if let (true, Some(r)) = (in_record, out.last_mut()) {
                if r.name == "kernel_symbol" {
                    r.body.push(line.to_string());
                    continue;
                }
            }
            in_record = false;
            continue;
        }
        if !in_record {
            continue;
        }
        let rec = out.last_mut().unwrap();
        rec.body.push(line.to_string());
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
    let tp = Tracepoints::from_file(&file).unwrap().unwrap_or_default();
    let mut n = 0;
    let mut tp_fields = 0;
    let mut simpleperf_records = 0;
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
        if let Some(lines) = simpleperf_record_lines(&r.kind) {
            // simpleperf prints only the registers it has names for on the ABI: left out here.
            let norm = |l: &str| (!l.starts_with("    reg (")).then(|| l.to_string());
            let theirs: Vec<String> =
                want.body.iter().map(String::as_str).take_while(|l| *l != "  callchain:").filter_map(norm).collect();
            let ours: Vec<String> = lines.iter().filter_map(|l| norm(l)).collect();
            for (j, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(a, b, "{name}: record {i} at {} ({}), line {j}", r.pos, want.name);
            }
            assert_eq!(ours.len(), theirs.len(), "{name}: record {i} at {} ({}): lines", r.pos, want.name);
            simpleperf_records += 1;
        }
        if let RecordKind::Sample(s) = &r.kind {
            let mut got = Vec::new();
            let mut put = |k: &str, v: Option<String>| {
                if let Some(v) = v {
                    got.push((k.to_string(), v));
                }
            };
            put("ip", s.ip().map(|v| format!("{v:#x}")));
            put("pid", s.pid().map(|v| v.to_string()));
            put("tid", s.tid().map(|v| v.to_string()));
            put("time", s.time().map(|v| v.to_string()));
            put("id", s.id().map(|v| v.to_string()));
            put("cpu", s.cpu().map(|v| v.to_string()));
            put("period", s.period().map(|v| v.to_string()));
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
    check_features_against_simpleperf_dump(name, &file);
    SIMPLEPERF_RECORDS.fetch_add(simpleperf_records, std::sync::atomic::Ordering::Relaxed);
    tp_fields
}

static SIMPLEPERF_RECORDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The lines `simpleperf dump` prints under one of its own records, from our decoding (the
/// CALLCHAIN's symbolized `callchain:` part left out), `None` for other records.
fn simpleperf_record_lines(kind: &RecordKind<'_>) -> Option<Vec<String>> {
    let mut v = Vec::new();
    match kind {
        RecordKind::SimpleperfKernelSymbol(k) => {
            let text = String::from_utf8_lossy(k.kallsyms);
            let mut lines = text.split('\n');
            v.push(format!("  kallsyms: {}", lines.next().unwrap_or("")));
            v.extend(lines.map(str::to_string));
            // printf of the text and its "\n": the last (empty) piece is not a line.
            if v.last().is_some_and(String::is_empty) {
                v.pop();
            }
        }
        RecordKind::SimpleperfCallChain(c) => {
            let ty = ["ORIGINAL_OFFLINE", "ORIGINAL_REMOTE", "JOINED_OFFLINE", "JOINED_REMOTE"];
            v.push(format!("  pid {}", c.pid));
            v.push(format!("  tid {}", c.tid));
            v.push(format!("  chain_type {}", ty.get(c.chain_type as usize).unwrap_or(&"")));
            v.push(format!("  time {}", c.time));
            v.push(format!("  ip_nr {}", c.ips.len()));
            for (ip, sp) in c.ips.iter().zip(c.sps.iter()) {
                v.push(format!("    ip {ip:#x}, sp {sp:#x}"));
            }
        }
        RecordKind::SimpleperfUnwindingResult(u) => {
            v.push(format!("  time {}", u.time));
            v.push(format!("  used_time {}", u.used_time));
            v.push(format!("  error_code {}", u.error_code));
            v.push(format!("  error_addr {:#x}", u.error_addr));
            v.push(format!("  stack_start {:#x}", u.stack_start));
            v.push(format!("  stack_end {:#x}", u.stack_end));
            if !u.regs.is_empty() {
                v.push(format!("  user regs: abi={}", u.regs_abi));
                assert_eq!(u.regs.len(), u.regs_mask.count_ones() as usize);
            }
            if !u.stack.is_empty() {
                v.push(format!("  user stack: size {} dyn_size {}", u.stack.len(), u.dyn_size));
                let words: Vec<u64> =
                    u.stack.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
                for row in words.chunks(4) {
                    let mut l = "    ".to_string();
                    for w in row {
                        l.push_str(&format!(" {w:016x}"));
                    }
                    v.push(l);
                }
                v.push(String::new());
            }
            if !u.ips.is_empty() {
                v.push(format!("  callchain length={}:", u.ips.len()));
                for (i, (ip, sp)) in u.ips.iter().zip(u.sps.iter()).enumerate() {
                    v.push(format!("    ip_{}: {ip:#x}", i + 1));
                    v.push(format!("    sp_{}: {sp:#x}", i + 1));
                }
            }
        }
        RecordKind::SimpleperfDso(d) => {
            let name = perfdata_core::feature::simpleperf::dso_type::name(d.dso_type as u32).unwrap_or("unknown");
            v.push(format!("  dso_type: {name}({})", d.dso_type));
            v.push(format!("  dso_id: {}", d.dso_id));
            v.push(format!("  min_vaddr: {:#x}", d.min_vaddr));
            v.push(format!("  dso_name: {}", String::from_utf8_lossy(d.name)));
        }
        RecordKind::SimpleperfSymbol(s) => {
            v.push(format!("  name: {}", String::from_utf8_lossy(s.name)));
            v.push(format!("  addr: {:#x}", s.addr));
            v.push(format!("  len: {:#x}", s.len));
            v.push(format!("  dso_id: {}", s.dso_id));
        }
        RecordKind::SimpleperfEventId(e) => {
            v.push(format!("  count: {}", e.count));
            for (i, (a, id)) in e.pairs().enumerate() {
                v.push(format!("  attr_id[{i}]: {a}"));
                v.push(format!("  event_id[{i}]: {id}"));
            }
        }
        RecordKind::SimpleperfDebug(d) => v.push(format!("  s {}", String::from_utf8_lossy(d.message))),
        _ => return None,
    }
    Some(v)
}

/// simpleperf's feature sections (FILE/FILE2, META_INFO, DEBUG_UNWIND) of `file` equal what
/// `simpleperf dump` printed for them.
fn check_features_against_simpleperf_dump(name: &str, file: &PerfFile<'_>) {
    use perfdata_core::feature::simpleperf::dso_type;
    let text = peer_output(&format!("{name}.simpleperf-dump"));
    let features = file.features();
    // FILE / FILE2: the "file:" blocks.
    let mut theirs: Vec<String> = Vec::new();
    let mut meta_theirs: Vec<String> = Vec::new();
    let mut unwind_theirs: Vec<String> = Vec::new();
    let mut section = "";
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("feature section for ") {
            section = rest.split(':').next().unwrap();
            continue;
        }
        if line.starts_with("record ") {
            section = "";
        }
        match section {
            "file" | "file2" if line != "  file:" && line != "    symbols:" => theirs.push(line.trim().to_string()),
            "meta_info" if line != "  meta_info:" => {
                if let Some(kv) = line.strip_prefix("    ") {
                    meta_theirs.push(kv.to_string());
                } else if let Some(last) = meta_theirs.last_mut() {
                    last.push('\n');
                    last.push_str(line);
                }
            }
            "debug_unwind" if line != "  debug_unwind:" => unwind_theirs.push(line.trim().to_string()),
            _ => {}
        }
    }
    let mut ours: Vec<String> = Vec::new();
    // simpleperf's reader leaves the offset at u64::MAX for FILE entries without one, at 0 for FILE2.
    let no_offset = if features.has(128) { u64::MAX } else { 0 };
    if let Some(files) = features.simpleperf_files() {
        for f in files.unwrap_or_else(|e| panic!("{name}: {e}")) {
            ours.push(format!("file_path {}", f.path));
            ours.push(format!("file_type {}", dso_type::name(f.file_type).unwrap_or("unknown")));
            ours.push(format!("min_vaddr {:#x}", f.min_vaddr));
            ours.push(format!("file_offset_of_min_vaddr {:#x}", f.file_offset_of_min_vaddr.unwrap_or(no_offset)));
            for s in &f.symbols {
                ours.push(format!("{} [{:#x}-{:#x}]", s.name, s.vaddr, s.vaddr + u64::from(s.len)));
            }
            if f.file_type == dso_type::DEX_FILE {
                ours.push("dex_file_offsets:".into());
                ours.extend(f.dex_file_offsets.iter().map(|o| format!("{o:#x}")));
            }
        }
    }
    // simpleperf prints the stored names demangled (with parameters); we keep them as stored: a
    // mangled name of ours is compared by its address range only.
    assert_eq!(ours.len(), theirs.len(), "{name}: FILE/FILE2 lines");
    for (a, b) in ours.iter().zip(&theirs) {
        // The dynamic linker's symbols are stored with a `__dl_` prefix and shown as `[linker]`.
        let a = &match a.strip_prefix("__dl_") {
            Some(rest) => format!("[linker]{rest}"),
            None => a.clone(),
        };
        if (a.starts_with("_Z") || a.starts_with("[linker]_Z")) && a != b {
            let range = |l: &str| l.rsplit_once(" [").map(|(_, r)| r.to_string());
            assert_eq!(range(a), range(b), "{name}: FILE/FILE2 symbol {a} vs {b}");
            MANGLED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else {
            assert_eq!(a, b, "{name}: FILE/FILE2");
        }
    }
    let mut meta_ours: Vec<String> = features
        .simpleperf_meta_info()
        .map(|m| m.unwrap().into_iter().map(|(k, v)| format!("{k} = {v}")).collect())
        .unwrap_or_default();
    meta_ours.sort();
    meta_theirs.sort();
    assert_eq!(meta_ours, meta_theirs, "{name}: META_INFO");
    let unwind_ours: Vec<String> = features
        .simpleperf_debug_unwind()
        .map(|d| {
            d.unwrap().into_iter().flat_map(|f| [format!("path: {}", f.path), format!("size: {}", f.size)]).collect()
        })
        .unwrap_or_default();
    assert_eq!(unwind_ours, unwind_theirs, "{name}: DEBUG_UNWIND");
    FEATURE_FILES.fetch_add(usize::from(!ours.is_empty()), std::sync::atomic::Ordering::Relaxed);
}

static MANGLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static FEATURE_FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Every peer file simpleperf reads: all records equal `simpleperf dump`'s, in order.
#[test]
fn every_peer_file_equals_simpleperf_dump() {
    let mut n = 0;
    for (name, _) in common::peer_files() {
        let out = peer_dir().join(format!("{name}.simpleperf-dump"));
        if peer_dir().join(format!("{name}.simpleperf-dump.rc")).exists() {
            continue;
        }
        if common::read_output(&out).is_none() {
            continue;
        }
        check_against_simpleperf_dump(&name);
        n += 1;
    }
    assert!(n >= 40, "{n} files compared");
    let records = SIMPLEPERF_RECORDS.load(std::sync::atomic::Ordering::Relaxed);
    let with_files = FEATURE_FILES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(records >= 20, "{records} simpleperf records compared");
    assert!(with_files >= 20, "{with_files} files with FILE/FILE2 compared");
}

/// Every peer file perf reads without complaint: records per type equal `perf report --stats`.
#[test]
fn peer_counts_equal_perf_report_stats() {
    use std::collections::BTreeMap;
    let mut n = 0;
    for (name, bytes) in common::peer_files() {
        if peer_dir().join(format!("{name}.stats.err")).exists() {
            continue;
        }
        let Some(text) = common::read_output(&peer_dir().join(format!("{name}.stats"))) else { continue };
        let (want, _) = common::parse_stats(&text);
        let file = PerfFile::from_bytes(&bytes).unwrap();
        let mut types = BTreeMap::new();
        let opts = perfdata_core::ReadOptions { order: Order::File, include_compressed: true, ..Default::default() };
        for r in file.records_with(opts).unwrap() {
            let r = r.unwrap_or_else(|e| panic!("{name}: {e}"));
            *types.entry(common::perf_name(&r.type_name())).or_insert(0u64) += 1;
        }
        assert_eq!(types, want, "{name}: records per type");
        n += 1;
    }
    assert!(n >= 25, "{n} files compared");
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

/// simpleperf's feature sections read the same after the writer swapped the file's byte order.
#[test]
fn simpleperf_features_survive_a_byte_swap() {
    let mut n = 0;
    for (name, bytes) in common::peer_files() {
        let Ok(a) = PerfFile::from_bytes(&bytes) else { continue };
        let (fa, ma) = (a.features().simpleperf_files(), a.features().simpleperf_meta_info());
        if fa.is_none() && ma.is_none() {
            continue;
        }
        let swapped = perfdata_core::write::write_file(&a, a.endian().swapped()).unwrap();
        let b = PerfFile::from_bytes(&swapped).unwrap();
        assert_eq!(b.features().simpleperf_files().map(Result::unwrap), fa.map(Result::unwrap), "{name}");
        assert_eq!(b.features().simpleperf_meta_info().map(Result::unwrap), ma.map(Result::unwrap), "{name}");
        n += 1;
    }
    assert!(n >= 30, "{n}");
}
