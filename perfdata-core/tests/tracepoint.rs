//! Tracepoints: the tracing-data blob, the format grammar, field decoding and perf-script rendering.
//!
//! Conformance: every tracepoint sample of each committed recording that has perf's `perf script`
//! output beside it (`testdata/F.script`) must render to exactly the text perf printed, with the
//! same tid, cpu, time and event name, and the values decoded by field name must agree with the
//! numbers and strings in perf's text. The other tests build tracing data by hand (both byte
//! orders) and check the expected values worked out from the format, never our own output.

mod common;

use perfdata_core::tracepoint::{Format, Tracepoints, Value};
use perfdata_core::{Endian, Order, PerfFile, Position, RecordKind};
use regex::Regex;
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------------
// Conformance with perf's stored output

/// One `perf script` line of a sample: (comm, tid, cpu, time, event, text after the event name).
struct PerfLine {
    tid: String,
    cpu: String,
    time: String,
    event: String,
    text: String,
}

fn parse_script(text: &str) -> Vec<PerfLine> {
    let re = Regex::new(r"^(.*?) +(-?\d+) +\[(\d{3})\] +(\d+\.\d{6}): +(?:\d+ +)?(\S+): ?(.*)$").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('\t') && !l.is_empty())
        .map(|l| {
            let c = re.captures(l).unwrap_or_else(|| panic!("unexpected perf script line {l:?}"));
            PerfLine {
                tid: c[2].to_string(),
                cpu: c[3].to_string(),
                time: c[4].to_string(),
                event: c[5].to_string(),
                text: c[6].to_string(),
            }
        })
        .collect()
}

/// `key=value` / `key: value` pairs of a rendered text.
fn pairs(text: &str) -> Vec<(String, String)> {
    let re = Regex::new(r"(\w+)(?:=|: )([^ ,]*)").unwrap();
    re.captures_iter(text).map(|c| (c[1].to_string(), c[2].to_string())).collect()
}

/// Does a printed value agree with a decoded one? Numbers in decimal or 0x-hex, strings as is.
fn agrees(printed: &str, v: &Value<'_>, size: u32) -> bool {
    if let Some(s) = v.as_str() {
        return s == printed;
    }
    if let Some(h) = printed.strip_prefix("0x") {
        let mask = if size >= 8 { u64::MAX } else { (1u64 << (8 * size)) - 1 };
        return u64::from_str_radix(h, 16).ok() == v.as_u64().map(|x| x & mask);
    }
    match printed.parse::<i64>() {
        Ok(n) => v.as_i64() == Some(n) || v.as_u64() == Some(n as u64),
        Err(_) => false,
    }
}

/// Decoded values checked against perf's text, per event kind. Returns how many values were checked.
fn check_fields(fmt: &Format, raw: &[u8], text: &str, ctx: &str) -> usize {
    let mut n = 0;
    let get = |name: &str| fmt.field(raw, name).unwrap_or_else(|| panic!("{ctx}: no field {name}"));
    match fmt.name.as_str() {
        "sched_switch" => {
            // prev_state: the letters perf printed are the format's __print_flags table.
            let state = get("prev_state").as_u64().unwrap();
            let re = Regex::new(r"prev_state=(\S+) ==>").unwrap();
            let letters = &re.captures(text).unwrap()[1];
            let (flags, preempted) = match letters.strip_suffix('+') {
                Some(l) => (l, true),
                None => (letters, false),
            };
            let table = [("S", 1u64), ("D", 2), ("T", 4), ("t", 8), ("X", 16), ("Z", 32), ("P", 64), ("I", 128)];
            let mut want = 0;
            if flags != "R" {
                for l in flags.split('|') {
                    want |= table.iter().find(|(n, _)| *n == l).unwrap_or_else(|| panic!("{ctx}: state {l}")).1;
                }
            }
            assert_eq!(state & 0xff, want, "{ctx}: prev_state {state:#x} printed as {letters}");
            assert_eq!(state & 0x100 != 0, preempted, "{ctx}: prev_state {state:#x} printed as {letters}");
            n += 1;
        }
        "block_rq_issue" | "block_rq_insert" | "block_rq_complete" => {
            let re = Regex::new(r"^(\d+),(\d+) (\S*) (?:(\d+) )?\((.*?)\) (\d+) \+ (\d+) (\S+),(\d+),(\d+) \[(.*)\]$")
                .unwrap();
            let c = re.captures(text).unwrap_or_else(|| panic!("{ctx}: block text {text:?}"));
            let dev = get("dev").as_u64().unwrap();
            assert_eq!((dev >> 20).to_string(), c[1], "{ctx}: major");
            assert_eq!((dev & 0xfffff).to_string(), c[2], "{ctx}: minor");
            assert_eq!(get("rwbs").as_str().unwrap(), c[3], "{ctx}: rwbs");
            if let Some(b) = c.get(4) {
                assert_eq!(get("bytes").as_u64().unwrap().to_string(), b.as_str(), "{ctx}: bytes");
            }
            assert_eq!(get("cmd").as_str().unwrap(), c[5], "{ctx}: cmd");
            assert_eq!(get("sector").as_u64().unwrap().to_string(), c[6], "{ctx}: sector");
            assert_eq!(get("nr_sector").as_u64().unwrap().to_string(), c[7], "{ctx}: nr_sector");
            let ioprio = get("ioprio").as_u64().unwrap();
            assert_eq!(format!("0x{:x}", (ioprio >> 13) & 7), c[8], "{ctx}: ioprio class");
            assert_eq!(((ioprio >> 3) & 0x3ff).to_string(), c[9], "{ctx}: ioprio hint");
            assert_eq!((ioprio & 7).to_string(), c[10], "{ctx}: ioprio level");
            let last = if fmt.name == "block_rq_complete" {
                get("error").as_i64().unwrap().to_string()
            } else {
                get("comm").as_str().unwrap().into_owned()
            };
            assert_eq!(last, c[11], "{ctx}: comm/error");
            n += 11;
        }
        name if name.starts_with("sys_exit") => {
            let ret = get("ret").as_u64().unwrap();
            assert_eq!(format!("0x{ret:x}"), text, "{ctx}: ret");
            n += 1;
        }
        _ => {}
    }
    // Every other `name=value` / `name: value` pair whose name is a field.
    for (k, v) in pairs(text) {
        let Some(def) = fmt.field_def(&k) else { continue };
        if k == "prev_state" {
            continue;
        }
        let value = get(&k);
        assert!(agrees(&v, &value, def.size), "{ctx}: field {k} decoded as {value:?}, perf printed {v:?}");
        n += 1;
    }
    n
}

/// Every tracepoint sample of `f` against perf's `perf script` lines: (samples, values) checked,
/// or None when the file has no tracing data.
fn check_against_script(name: &str, f: &PerfFile, script: &[u8]) -> Option<(usize, usize)> {
    let tp = Tracepoints::from_file(f).unwrap()?;
    let perf = parse_script(&String::from_utf8_lossy(script));
    let (mut samples, mut fields) = (0, 0);
    let mut recs = f.records(Order::Time).unwrap();
    let mut i = 0;
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { continue };
        let p = perf.get(i).unwrap_or_else(|| panic!("{name}: more samples than perf printed"));
        i += 1;
        let ctx = format!("{name} sample {i} ({})", p.event);
        assert_eq!(s.tid().map(|t| (t as i32).to_string()).as_deref(), Some(p.tid.as_str()), "{ctx}: tid");
        let t = s.time().unwrap();
        assert_eq!(format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000), p.time, "{ctx}: time");
        assert_eq!(format!("{:03}", s.cpu().unwrap()), p.cpu, "{ctx}: cpu");
        let Some(fmt) = tp.format_for(&ev.attr) else { continue };
        assert_eq!(ev.name.as_deref().unwrap_or(&fmt.full_name()), p.event, "{ctx}: event name");
        let raw = s.raw().unwrap();
        let ours = String::from_utf8_lossy(&tp.render_bytes(fmt, raw)).into_owned();
        assert_eq!(ours, p.text, "{ctx}: rendered text");
        fields += check_fields(fmt, raw, &p.text, &ctx);
        samples += 1;
    }
    assert_eq!(i, perf.len(), "{name}: perf printed more samples");
    Some((samples, fields))
}

#[test]
fn tracepoint_samples_render_like_perf_script() {
    let mut files = 0;
    let mut samples = 0;
    let mut fields = 0;
    for path in common::testdata_files() {
        let Ok(script) = std::fs::read(path.with_extension("data.script")) else { continue };
        let f = PerfFile::open(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some((s, v)) = check_against_script(&name, &f, &script) else { continue };
        samples += s;
        fields += v;
        files += 1;
    }
    eprintln!("{files} files, {samples} tracepoint samples, {fields} decoded values checked");
    if files > 0 {
        assert!(samples >= files, "too few tracepoint samples");
        assert!(fields >= samples, "too few decoded values checked");
    }
}

/// The writer's big-endian copies of the tracepoint recordings decode and render to the very lines
/// perf printed for the originals (the tracing data keeps its own byte order, as perf writes it).
#[test]
fn big_endian_copies_render_like_perf_script() {
    for name in ["sched.data", "block.data", "syscalls.data"] {
        let path = common::repo().join("testdata").join(name);
        let script = std::fs::read(path.with_extension("data.script")).unwrap();
        let f = PerfFile::open(&path).unwrap();
        let be = PerfFile::from_vec(perfdata_core::write::write_file(&f, Endian::Big).unwrap()).unwrap();
        assert_eq!(be.endian(), Endian::Big);
        let (samples, fields) = check_against_script(&format!("{name} (big-endian copy)"), &be, &script).unwrap();
        assert!(samples >= 50 && fields > samples, "{name}: {samples} samples, {fields} values");
    }
}

/// The pipe recording's tracing data arrives as a record; reading it from the record or from the
/// in-memory file gives the same formats.
#[test]
fn pipe_tracing_data_from_record_and_from_file_agree() {
    let path = common::repo().join("testdata/pipe-tp.data");
    let Ok(f) = PerfFile::open(&path) else { return };
    let from_file = Tracepoints::from_file(&f).unwrap().expect("pipe-tp.data has tracing data");
    let mut recs = f.records(Order::File).unwrap();
    let mut from_record = None;
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if let RecordKind::HeaderTracingData(t) = &r.kind {
            // §4.3.3: the record's size is the blob rounded up to 8.
            let tp = Tracepoints::from_record(t, r.pos).unwrap();
            assert_eq!(t.size as usize, (tp.size + 7) & !7);
            from_record = Some(tp);
            break;
        }
    }
    let from_record = from_record.expect("a HEADER_TRACING_DATA record");
    assert_eq!(from_record.formats.len(), from_file.formats.len());
    let f1 = from_file.format_by_name("sched", "sched_switch").unwrap();
    let f2 = from_record.format_by_name("sched", "sched_switch").unwrap();
    assert_eq!(f1.id, 0x174, "the attr's config in pipe-tp.data.header");
    assert_eq!(f1.fields, f2.fields);
    assert!(f1.print_parsed());
}

// ---------------------------------------------------------------------------------------------
// Hand-built tracing data

const COMMON: &str = "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;
";

/// sched_switch as kernel 6.18 writes it (reference §8.4).
fn sched_switch_format(id: u32) -> String {
    format!(
        "name: sched_switch\nID: {id}\nformat:\n{COMMON}
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;

print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", {{ 0x00000001, \"S\" }}, {{ 0x00000002, \"D\" }}, {{ 0x00000004, \"T\" }}, {{ 0x00000008, \"t\" }}, {{ 0x00000010, \"X\" }}, {{ 0x00000020, \"Z\" }}, {{ 0x00000040, \"P\" }}, {{ 0x00000080, \"I\" }}) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio
"
    )
}

/// A made-up event exercising dynamic fields: `__data_loc` and `__rel_loc` strings, a dynamic u32
/// array, a fixed int array, a pointer and an unsigned long.
fn dyn_format(id: u32) -> String {
    format!(
        "name: dyn_test\nID: {id}\nformat:\n{COMMON}
\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;
\tfield:__data_loc u32[] vals;\toffset:16;\tsize:4;\tsigned:0;
\tfield:int arr[2];\toffset:20;\tsize:8;\tsigned:1;
\tfield:void * ptr;\toffset:32;\tsize:8;\tsigned:0;
\tfield:unsigned long ul;\toffset:40;\tsize:8;\tsigned:0;

print fmt: \"name=%s rel=%s vals=%s arr0=%d ptr=%p ul=%lu\", __get_str(name), __get_rel_str(rel), __print_array(__get_dynamic_array(vals), 2, 4), REC->arr[0], REC->ptr, REC->ul
"
    )
}

/// Build a tracing-data blob (reference §8.1) in byte order `e`.
fn blob(e: Endian, long_size: u8, header_page: &str, systems: &[(&str, Vec<String>)], printk: &str) -> Vec<u8> {
    let mut b = vec![0x17, 0x08, 0x44];
    b.extend_from_slice(b"tracing0.6\0");
    b.push(u8::from(e == Endian::Big));
    b.push(long_size);
    e.put_u32(&mut b, 4096);
    b.extend_from_slice(b"header_page\0");
    e.put_u64(&mut b, header_page.len() as u64);
    b.extend_from_slice(header_page.as_bytes());
    b.extend_from_slice(b"header_event\0");
    e.put_u64(&mut b, 0);
    e.put_u32(&mut b, 0); // ftrace formats
    e.put_u32(&mut b, systems.len() as u32);
    for (name, formats) in systems {
        b.extend_from_slice(name.as_bytes());
        b.push(0);
        e.put_u32(&mut b, formats.len() as u32);
        for f in formats {
            e.put_u64(&mut b, f.len() as u64);
            b.extend_from_slice(f.as_bytes());
        }
    }
    e.put_u32(&mut b, 0); // kallsyms
    e.put_u32(&mut b, printk.len() as u32);
    b.extend_from_slice(printk.as_bytes());
    let cmdlines = "1593 perf\n";
    e.put_u64(&mut b, cmdlines.len() as u64);
    b.extend_from_slice(cmdlines.as_bytes());
    b
}

const HEADER_PAGE: &str = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
";

fn put_str(raw: &mut [u8], at: usize, s: &str) {
    raw[at..at + s.len()].copy_from_slice(s.as_bytes());
}

/// A sched_switch raw record in byte order `e`.
fn switch_raw(e: Endian, id: u16, prev: (&str, i32, i32, u64), next: (&str, i32, i32)) -> Vec<u8> {
    let mut raw = Vec::new();
    e.put_u16(&mut raw, id);
    raw.extend_from_slice(&[1, 2]);
    e.put_u32(&mut raw, prev.1 as u32);
    raw.resize(64, 0);
    put_str(&mut raw, 8, prev.0);
    let mut w = Vec::new();
    e.put_u32(&mut w, prev.1 as u32);
    e.put_u32(&mut w, prev.2 as u32);
    e.put_u64(&mut w, prev.3);
    raw[24..40].copy_from_slice(&w);
    put_str(&mut raw, 40, next.0);
    let mut w = Vec::new();
    e.put_u32(&mut w, next.1 as u32);
    e.put_u32(&mut w, next.2 as u32);
    raw[56..64].copy_from_slice(&w);
    raw.extend_from_slice(&[0; 4]); // RAW padding
    raw
}

#[test]
fn both_byte_orders_decode_and_render_alike() {
    for e in [Endian::Little, Endian::Big] {
        let b = blob(e, 8, HEADER_PAGE, &[("sched", vec![sched_switch_format(372)])], "");
        let tp = Tracepoints::parse(&b, Position::at(0)).unwrap();
        assert_eq!(tp.endian, e);
        assert_eq!(tp.size, b.len());
        assert_eq!(tp.cmdlines.get(&1593).map(String::as_str), Some("perf"));
        let f = tp.format_by_id(372).unwrap();
        assert_eq!((f.system.as_str(), f.name.as_str()), ("sched", "sched_switch"));
        let raw = switch_raw(e, 372, ("perf", 1593, 120, 2), ("swapper/1", 0, 120));
        assert_eq!(
            tp.render(f, &raw),
            "prev_comm=perf prev_pid=1593 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120",
            "{e:?}"
        );
        // 0x101: S, plus the preempted bit (TASK_REPORT_MAX) → "S+"; 0 → "R"; two flags joined by '|'.
        let raw = switch_raw(e, 372, ("a", -5, 99, 0x101), ("b", 7, 1));
        assert_eq!(
            tp.render(f, &raw),
            "prev_comm=a prev_pid=-5 prev_prio=99 prev_state=S+ ==> next_comm=b next_pid=7 next_prio=1"
        );
        let raw = switch_raw(e, 372, ("a", 1, 2, 0), ("b", 3, 4));
        assert!(tp.render(f, &raw).contains("prev_state=R ==>"));
        let raw = switch_raw(e, 372, ("a", 1, 2, 0x82), ("b", 3, 4));
        assert!(tp.render(f, &raw).contains("prev_state=D|I ==>"));

        let raw = switch_raw(e, 372, ("kworker/0:1", -5, 99, 0x101), ("b", 7, 1));
        assert_eq!(f.field(&raw, "prev_comm"), Some(Value::Str(b"kworker/0:1")));
        assert_eq!(f.field(&raw, "prev_pid"), Some(Value::I32(-5)));
        assert_eq!(f.field(&raw, "prev_state"), Some(Value::I64(0x101)));
        assert_eq!(f.field(&raw, "common_type"), Some(Value::U16(372)));
        assert_eq!(f.field(&raw, "common_pid"), Some(Value::I32(-5)));
        assert_eq!(f.field(&raw, "nope"), None);
        let names: Vec<&str> = f.decode(&raw).iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"]);
        // A record cut short: fields beyond it are Missing, rendering reads them as 0 / empty.
        let short = &raw[..30];
        assert_eq!(f.field(short, "prev_prio"), Some(Value::Missing));
        assert_eq!(f.field(short, "prev_pid"), Some(Value::I32(-5)));
        assert_eq!(
            tp.render(f, short),
            "prev_comm=kworker/0:1 prev_pid=-5 prev_prio=0 prev_state=R ==> next_comm= next_pid=0 next_prio=0"
        );
    }
}

#[test]
fn dynamic_fields_and_arrays() {
    for e in [Endian::Little, Endian::Big] {
        let b = blob(e, 8, HEADER_PAGE, &[("test", vec![dyn_format(7)])], "");
        let tp = Tracepoints::parse(&b, Position::at(0)).unwrap();
        let f = tp.format_by_id(7).unwrap();
        let by = |n: &str| f.field_def(n).unwrap();
        assert!(by("name").is_dynamic && by("name").is_string && !by("name").is_relative);
        assert!(by("rel").is_dynamic && by("rel").is_relative);
        assert_eq!(by("vals").type_name, "__data_loc u32[]");
        assert_eq!(by("vals").element_size, 4);
        assert_eq!((by("arr").array_len, by("arr").element_size, by("arr").type_name.as_str()), (2, 4, "int[2]"));
        assert!(by("ptr").is_pointer);
        assert!(by("ul").is_long);
        // Layout: fixed part 48 bytes, then "abc\0" at 48, "xy\0" at 52, two u32 at 56.
        let mut raw = vec![0u8; 64];
        let mut w = Vec::new();
        e.put_u16(&mut w, 7);
        raw[0..2].copy_from_slice(&w);
        let put32 = |raw: &mut Vec<u8>, at: usize, v: u32| {
            let mut w = Vec::new();
            e.put_u32(&mut w, v);
            raw[at..at + 4].copy_from_slice(&w);
        };
        put32(&mut raw, 8, (4 << 16) | 48);
        put32(&mut raw, 12, (3 << 16) | (52 - 16)); // relative to the end of the descriptor (12 + 4)
        put32(&mut raw, 16, (8 << 16) | 56);
        put32(&mut raw, 20, (-3i32) as u32);
        put32(&mut raw, 24, 9);
        put32(&mut raw, 56, 10);
        put32(&mut raw, 60, 0xdead_beef);
        let mut w = Vec::new();
        e.put_u64(&mut w, 0xffff_8880_0000_1000);
        e.put_u64(&mut w, 42);
        raw[32..48].copy_from_slice(&w);
        raw[48..52].copy_from_slice(b"abc\0");
        raw[52..55].copy_from_slice(b"xy\0");
        assert_eq!(f.field(&raw, "name"), Some(Value::Str(b"abc")));
        assert_eq!(f.field(&raw, "rel"), Some(Value::Str(b"xy")));
        let Some(Value::Array(vals)) = f.field(&raw, "vals") else { panic!("vals") };
        assert_eq!(vals.iter().collect::<Vec<_>>(), [Value::U32(10), Value::U32(0xdead_beef)]);
        let Some(Value::Array(arr)) = f.field(&raw, "arr") else { panic!("arr") };
        assert_eq!(arr.iter().collect::<Vec<_>>(), [Value::I32(-3), Value::I32(9)]);
        assert_eq!(f.field(&raw, "ptr").and_then(|v| v.as_u64()), Some(0xffff_8880_0000_1000));
        assert_eq!(f.field(&raw, "ul"), Some(Value::U64(42)));
        // perf 6.1's __print_array: decimal elements separated by spaces.
        assert_eq!(tp.render(f, &raw), "name=abc rel=xy vals=10 3735928559 arr0=-3 ptr=0xffff888000001000 ul=42");
        // A descriptor pointing past the record: Missing, and nothing printed for it.
        put32(&mut raw, 8, (4 << 16) | 200);
        assert_eq!(f.field(&raw, "name"), Some(Value::Missing));
        assert!(tp.render(f, &raw).starts_with("name= rel=xy"));
    }
}

// ---------------------------------------------------------------------------------------------
// The format grammar

fn parse(text: &str) -> Format {
    Format::parse(text.as_bytes(), "sys", Endian::Little, 8).unwrap()
}

#[test]
fn format_grammar_variants() {
    // Old kernels: no `signed:`, array lengths given by a macro name, `__attribute__` in a type.
    let f = parse(
        "name: old\nID: 12\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n\n\
         \tfield:char comm[TASK_COMM_LEN];\toffset:8;\tsize:16;\n\
         \tfield:pid_t pid;\toffset:24;\tsize:4;\n\
         \tfield:const char __attribute__((user)) * name;\toffset:32;\tsize:8;\tsigned:0;\n\
         \tfield:unsigned int bytes[4];\toffset:40;\tsize:16;\tsigned:0;\n\
         \tfield:__data_loc char[] old;\toffset:56;\tsize:2;\n\n\
         print fmt: \"%s %d\", REC->comm, REC->pid\n",
    );
    assert_eq!(f.id, 12);
    assert!(f.parse_error.is_none(), "{:?}", f.parse_error);
    assert_eq!(f.common_fields.len(), 1);
    let by = |n: &str| f.field_def(n).unwrap();
    assert_eq!(by("common_type").signed, None);
    assert!(!by("common_type").is_signed(), "unsigned short");
    assert!(by("pid").is_signed(), "pid_t without signed: is signed");
    let comm = by("comm");
    assert!(comm.is_array && comm.is_string);
    assert_eq!((comm.array_len, comm.element_size, comm.size), (0, 1, 16));
    let name = by("name");
    assert!(name.is_pointer);
    assert!(name.type_name.contains("__attribute__"), "{}", name.type_name);
    assert_eq!((by("bytes").array_len, by("bytes").element_size), (4, 4));
    // A 2-byte __data_loc (pre-2.6.32 kernels): a bare offset, the string runs to the record's end.
    let old = by("old");
    assert!(old.is_dynamic && old.is_string && old.size == 2);
    let mut raw = vec![0u8; 64];
    raw[8..12].copy_from_slice(b"init");
    raw[56..58].copy_from_slice(&58u16.to_le_bytes());
    raw[58..61].copy_from_slice(b"hi\0");
    assert_eq!(f.field(&raw, "old"), Some(Value::Str(b"hi")));
    assert_eq!(f.field(&raw, "comm"), Some(Value::Str(b"init")));
    assert_eq!(f.print_fmt.as_deref(), Some("\"%s %d\", REC->comm, REC->pid"));
}

#[test]
fn print_fmt_that_perf_cannot_parse_falls_back_to_fields() {
    let f = parse(&format!(
        "name: x\nID: 3\nformat:\n{COMMON}\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\
         \tfield:char s[4];\toffset:12;\tsize:4;\tsigned:0;\n\tfield:unsigned long l;\toffset:16;\tsize:8;\tsigned:0;\n\n\
         print fmt: \"a=%d\", some_function(REC->a)\n"
    ));
    assert!(!f.print_parsed());
    let tp = Tracepoints::default();
    let mut raw = vec![0u8; 24];
    raw[8..12].copy_from_slice(&(-7i32).to_le_bytes());
    raw[12..15].copy_from_slice(b"ab\0");
    raw[16..24].copy_from_slice(&255u64.to_le_bytes());
    // libtraceevent's fallback: signed ints in decimal, longs in hex, strings as text.
    assert_eq!(tp.render(&f, &raw), "[FAILED TO PARSE] a=-7 s=ab l=0xff");
}

#[test]
fn header_page_commit_size_is_the_kernel_long_size() {
    // A 64-bit perf recording a 32-bit kernel: header long size 8, `commit` 4 bytes.
    let page = HEADER_PAGE.replace("local_t commit;\toffset:8;\tsize:8;", "local_t commit;\toffset:8;\tsize:4;");
    let tp = Tracepoints::parse(&blob(Endian::Little, 8, &page, &[], ""), Position::at(0)).unwrap();
    assert_eq!(tp.long_size, 4);
    let tp = Tracepoints::parse(&blob(Endian::Little, 8, HEADER_PAGE, &[], ""), Position::at(0)).unwrap();
    assert_eq!(tp.long_size, 8);
    // No header_page text at all (old kernels): the header's size stands.
    let tp = Tracepoints::parse(&blob(Endian::Little, 4, "", &[], ""), Position::at(0)).unwrap();
    assert_eq!(tp.long_size, 4);
}

#[test]
fn printk_strings_resolve_pointer_fields() {
    let fmt = format!(
        "name: msg\nID: 9\nformat:\n{COMMON}\n\tfield:const char * text;\toffset:8;\tsize:8;\tsigned:0;\n\n\
         print fmt: \"%s\", REC->text\n"
    );
    let b = blob(Endian::Little, 8, HEADER_PAGE, &[("s", vec![fmt])], "0xffffffff81000010 : \"hello world\\n\"\n");
    let tp = Tracepoints::parse(&b, Position::at(0)).unwrap();
    let f = tp.format_by_id(9).unwrap();
    let mut raw = vec![0u8; 16];
    raw[8..16].copy_from_slice(&0xffff_ffff_8100_0010u64.to_le_bytes());
    assert_eq!(tp.render(f, &raw), "hello world");
    raw[8..16].copy_from_slice(&0x1234u64.to_le_bytes());
    assert_eq!(tp.render(f, &raw), "1234", "unknown address: hex without 0x, as libtraceevent");
}

// ---------------------------------------------------------------------------------------------
// Robustness: tracing data is input too

fn real_blob() -> Option<Vec<u8>> {
    let f = PerfFile::open(common::repo().join("testdata/sched.data")).ok()?;
    f.feature_data(1).map(|(d, _)| d.to_vec())
}

#[test]
fn truncated_tracing_data_is_an_error_not_a_panic() {
    let b = real_blob()
        .unwrap_or_else(|| blob(Endian::Big, 8, HEADER_PAGE, &[("sched", vec![sched_switch_format(1)])], ""));
    let full = Tracepoints::parse(&b, Position::at(0)).unwrap();
    assert_eq!(full.size, b.len(), "the blob is self-delimiting");
    for n in 0..b.len() {
        let e = Tracepoints::parse(&b[..n], Position::at(100));
        assert!(e.is_err(), "prefix of {n} bytes parsed");
    }
    let mut bad = b.clone();
    bad[0] = 0;
    let e = Tracepoints::parse(&bad, Position::at(100)).unwrap_err().to_string();
    assert!(e.contains("magic") && e.contains("0x64"), "{e}");
}

/// A tiny deterministic generator (xorshift) for mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn garbage_tracing_data_and_raw_records_never_panic() {
    let mut bases = vec![
        blob(Endian::Big, 8, HEADER_PAGE, &[("sched", vec![sched_switch_format(1)]), ("t", vec![dyn_format(2)])], ""),
        blob(Endian::Little, 4, HEADER_PAGE, &[("t", vec![dyn_format(2)])], "0x10 : \"x\"\n"),
    ];
    bases.extend(real_blob());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    for base in &bases {
        for _ in 0..300 {
            let mut b = base.clone();
            for _ in 0..1 + rng.next() % 8 {
                let i = (rng.next() % b.len() as u64) as usize;
                b[i] = match rng.next() % 4 {
                    0 => rng.next() as u8,
                    1 => {
                        let punct = b"(){}[]\"',;:%*?->|&!~\n\t ";
                        punct[(rng.next() % punct.len() as u64) as usize]
                    }
                    2 => 0xff,
                    _ => 0,
                };
            }
            let Ok(tp) = Tracepoints::parse(&b, Position::at(0)) else { continue };
            parsed += 1;
            for f in &tp.formats {
                for len in [0usize, 3, 17, 64, 200] {
                    let raw: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                    let _ = tp.render_bytes(f, &raw);
                    let _ = f.decode(&raw);
                    let _ = f.decode_common(&raw);
                }
            }
        }
    }
    assert!(parsed > 100, "mutations should mostly keep the blob readable ({parsed})");
}

#[test]
fn hostile_print_fmts_are_rejected_or_rendered_without_panic() {
    let deep = format!("\"%d\", {}1{}", "(".repeat(5000), ")".repeat(5000));
    let chain = format!("\"%d\", {}", vec!["REC->a"; 3000].join(" - "));
    let many = format!("\"{}\", REC->a", "%d".repeat(4000));
    let star = "\"%*.*s|%.*d|%-*x\", REC->a, REC->a, REC->s, -1, REC->a, 1 << 62, REC->a".to_string();
    let hex = "\"%s\", __print_hex(REC->s, 4000000000)".to_string();
    let arr = "\"%s\", __print_array(REC->s, 4000000000, 3)".to_string();
    let idx = "\"%d %d\", REC->s[4000000000], REC->a[1 << 62]".to_string();
    let ops = "\"%d %d %d %d\", REC->a / 0, REC->a % 0, 1 << 999, REC->a ? : 1".to_string();
    for pf in [deep, chain, many, star, hex, arr, idx, ops] {
        let text = format!(
            "name: x\nID: 3\nformat:\n{COMMON}\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\
             \tfield:char s[4];\toffset:12;\tsize:4;\tsigned:0;\n\nprint fmt: {pf}\n"
        );
        let f = Format::parse(text.as_bytes(), "s", Endian::Little, 8).unwrap();
        let raw = [7u8; 16];
        let out = Tracepoints::default().render_bytes(&f, &raw);
        assert!(out.len() < 1 << 20, "output stays bounded");
    }
}

#[test]
fn json_fields_of_a_tracepoint_sample() {
    let b = blob(Endian::Little, 8, HEADER_PAGE, &[("sched", vec![sched_switch_format(372)])], "");
    let tp = Tracepoints::parse(&b, Position::at(0)).unwrap();
    let f = tp.format_by_id(372).unwrap();
    let raw = switch_raw(Endian::Little, 372, ("perf", 1593, 120, 2), ("swapper/1", 0, 120));
    let v = f.fields_json(&raw);
    let want: HashMap<&str, serde_json::Value> = [
        ("prev_comm", "perf".into()),
        ("prev_pid", 1593.into()),
        ("prev_state", 2.into()),
        ("next_comm", "swapper/1".into()),
        ("common_type", 372.into()),
        ("common_pid", 1593.into()),
    ]
    .into_iter()
    .collect();
    for (k, w) in want {
        assert_eq!(v[k], w, "{k}");
    }
}
