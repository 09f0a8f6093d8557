//! `perfdata export --format perfetto`: the trace decodes back (with the minimal protobuf reader
//! below, written from Perfetto's field numbers), its slices pair up per track, the threads'
//! running time equals the Chrome trace's, its samples are the recording's, and each sample's
//! interned callstack spells the stack `perfdata folded` gives it.

use perfdata_core::{Order, PerfFile, RecordKind};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// (status, stdout bytes, stderr) of `perfdata ARGS`.
fn perfdata(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A protobuf field's value: a varint or a length-delimited payload (the only wire types the
/// trace uses; anything else fails the test).
#[derive(Clone, Debug)]
enum Value<'a> {
    Int(u64),
    Bytes(&'a [u8]),
}

fn varint(b: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = b[*at];
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return v;
        }
    }
    panic!("varint too long at {at}");
}

/// The fields of message `b`, in order.
fn fields(b: &[u8]) -> Vec<(u64, Value<'_>)> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < b.len() {
        let key = varint(b, &mut at);
        let v = match key & 7 {
            0 => Value::Int(varint(b, &mut at)),
            2 => {
                let n = varint(b, &mut at) as usize;
                let v = &b[at..at + n];
                at += n;
                Value::Bytes(v)
            }
            w => panic!("wire type {w} at {at}"),
        };
        out.push((key >> 3, v));
    }
    out
}

fn int(f: &[(u64, Value<'_>)], n: u64) -> Option<u64> {
    f.iter().find_map(|(k, v)| match v {
        Value::Int(i) if *k == n => Some(*i),
        _ => None,
    })
}

fn msg<'a>(f: &[(u64, Value<'a>)], n: u64) -> Option<&'a [u8]> {
    f.iter().find_map(|(k, v)| match v {
        Value::Bytes(b) if *k == n => Some(*b),
        _ => None,
    })
}

fn all<'a>(f: &[(u64, Value<'a>)], n: u64) -> Vec<&'a [u8]> {
    f.iter()
        .filter_map(|(k, v)| match v {
            Value::Bytes(b) if *k == n => Some(*b),
            _ => None,
        })
        .collect()
}

fn ints(f: &[(u64, Value<'_>)], n: u64) -> Vec<u64> {
    f.iter()
        .filter_map(|(k, v)| match v {
            Value::Int(i) if *k == n => Some(*i),
            _ => None,
        })
        .collect()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// What the test reads out of a trace.
#[derive(Default)]
struct Decoded {
    packets: usize,
    /// Slices per track: (name, begin, end).
    slices: BTreeMap<u64, Vec<(String, u64, u64)>>,
    /// Thread tracks: uuid → tid.
    threads: HashMap<u64, u64>,
    /// CPU tracks: uuid → name.
    cpus: HashMap<u64, String>,
    samples: u64,
    /// Folded stack (root first, `;`-joined) → samples.
    stacks: BTreeMap<String, u64>,
}

/// Decode a trace, checking the sequence rules and that every slice's end follows its begin on
/// the same track.
fn decode(trace: &[u8]) -> Decoded {
    let mut d = Decoded::default();
    let (mut names, mut frames, mut callstacks) = (HashMap::new(), HashMap::new(), HashMap::new());
    let mut open: HashMap<u64, Vec<(String, u64)>> = HashMap::new();
    let mut mappings = 0;
    for (k, p) in fields(trace) {
        assert_eq!(k, 1, "Trace has only packets");
        let Value::Bytes(p) = p else { panic!("a packet is a message") };
        let p = fields(p);
        assert_eq!(int(&p, 10), Some(1), "trusted_packet_sequence_id");
        let flags = int(&p, 13).unwrap();
        assert_eq!(flags, if d.packets == 0 { 1 } else { 2 }, "sequence_flags of packet {}", d.packets);
        d.packets += 1;
        if let Some(i) = msg(&p, 12) {
            let i = fields(i);
            for s in all(&i, 5) {
                let s = fields(s);
                assert!(names.insert(int(&s, 1).unwrap(), text(msg(&s, 2).unwrap())).is_none());
            }
            for f in all(&i, 6) {
                let f = fields(f);
                assert_eq!(int(&f, 3), Some(1), "frames are in the interned mapping");
                assert!(frames.insert(int(&f, 1).unwrap(), int(&f, 2).unwrap()).is_none());
            }
            for c in all(&i, 7) {
                let c = fields(c);
                assert!(callstacks.insert(int(&c, 1).unwrap(), ints(&c, 2)).is_none());
            }
            mappings += all(&i, 19).len();
        }
        if let Some(t) = msg(&p, 60) {
            let t = fields(t);
            let uuid = int(&t, 1).unwrap();
            if let Some(th) = msg(&t, 4) {
                let th = fields(th);
                assert!(msg(&th, 5).is_some(), "thread_name");
                d.threads.insert(uuid, int(&th, 2).unwrap());
            } else if let Some(name) = msg(&t, 2) {
                d.cpus.insert(uuid, text(name));
            } else {
                assert!(msg(&t, 3).is_some(), "a track is a CPU's, a thread's or a process's");
            }
        }
        if let Some(e) = msg(&p, 11) {
            let e = fields(e);
            let ts = int(&p, 8).unwrap();
            let track = int(&e, 11).unwrap();
            assert!(d.threads.contains_key(&track) || d.cpus.contains_key(&track), "track described first");
            match int(&e, 9) {
                Some(1) => open.entry(track).or_default().push((text(msg(&e, 23).unwrap()), ts)),
                Some(2) => {
                    let (name, begin) = open.get_mut(&track).and_then(|s| s.pop()).expect("END after BEGIN");
                    assert!(begin <= ts, "track {track}: END before BEGIN");
                    d.slices.entry(track).or_default().push((name, begin, ts));
                }
                t => panic!("event type {t:?}"),
            }
        }
        if let Some(s) = msg(&p, 66) {
            let s = fields(s);
            assert!(int(&p, 8).is_some() && int(&s, 2).is_some() && int(&s, 3).is_some());
            d.samples += 1;
            if let Some(c) = int(&s, 4) {
                let stack: Vec<&str> = callstacks[&c].iter().map(|f| names[&frames[f]].as_str()).collect();
                *d.stacks.entry(stack.join(";")).or_default() += 1;
            }
        }
    }
    assert_eq!(mappings, 1);
    assert!(open.values().all(Vec::is_empty), "every BEGIN has its END");
    d
}

/// The samples of a recording, read with perfdata-core.
fn samples(path: &std::path::Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let f = PerfFile::from_bytes(&bytes).unwrap();
    let mut n = 0;
    for r in f.records(Order::File).unwrap().flatten() {
        if matches!(r.kind, RecordKind::Sample(_)) {
            n += 1;
        }
    }
    n
}

fn folded(args: &[&str]) -> BTreeMap<String, u64> {
    let (code, out, err) = perfdata(args);
    assert_eq!(code, 0, "{err}");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, w) = l.rsplit_once(' ').unwrap();
            (k.to_string(), w.parse().unwrap())
        })
        .collect()
}

/// A file of this test run in the temporary directory (each test removes its own).
fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("perfdata-perfetto-{}-{name}", std::process::id()))
}

/// Slices pair up in time order per track, the threads' running time is the Chrome trace's, and
/// the CPU tracks' slices do not overlap.
#[test]
fn scheduler_slices_match_the_chrome_trace() {
    let f = testdata("sched-mix.data");
    let f = f.to_str().unwrap();
    let out = tmp("mix.perfetto-trace");
    let (code, _, err) = perfdata(&["export", "--format", "perfetto", f, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let d = decode(&std::fs::read(&out).unwrap());
    assert_eq!(d.samples, samples(&testdata("sched-mix.data")), "every sample of the file");
    let mut cpu_names: Vec<&str> = d.cpus.values().map(String::as_str).collect();
    cpu_names.sort();
    assert_eq!(cpu_names, ["CPU 0", "CPU 1"]);
    let mut perfetto: BTreeMap<u64, u64> = BTreeMap::new();
    let mut runs = 0;
    for (track, slices) in &d.slices {
        if let Some(tid) = d.threads.get(track) {
            for (name, b, e) in slices.iter().filter(|s| s.0.starts_with("running on CPU")) {
                assert!(name.len() > "running on CPU ".len());
                *perfetto.entry(*tid).or_default() += e - b;
                runs += 1;
            }
        } else {
            let mut s = slices.clone();
            s.sort_by_key(|s| s.1);
            assert!(s.windows(2).all(|w| w[0].2 <= w[1].1), "{}: one task at a time", d.cpus[track]);
        }
    }
    assert!(runs > 100, "{runs} runs");
    let (code, json, err) = perfdata(&["export", "--format", "chrome-trace", f]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let mut chrome: BTreeMap<u64, u64> = BTreeMap::new();
    for e in doc["traceEvents"].as_array().unwrap() {
        if e["ph"] == "X" && e["name"].as_str().unwrap().starts_with("running on CPU") {
            let ns = (e["dur"].as_f64().unwrap() * 1000.0).round() as u64;
            *chrome.entry(e["tid"].as_u64().unwrap()).or_default() += ns;
        }
    }
    assert_eq!(perfetto, chrome, "running time per thread, ns");
    let _ = std::fs::remove_file(&out);
}

/// Each sample's interned callstack spells what `perfdata folded --weight samples` folds it to.
#[test]
fn callstacks_spell_the_folded_stacks() {
    for (name, extra) in [("fp.data", vec![]), ("dwarf.data", vec!["--tid"])] {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let out = tmp(&format!("{name}.perfetto-trace"));
        let mut args = vec!["export", "--format", "perfetto", f, "-o", out.to_str().unwrap()];
        args.extend(&extra);
        let (code, _, err) = perfdata(&args);
        assert_eq!(code, 0, "{name}: {err}");
        let d = decode(&std::fs::read(&out).unwrap());
        assert_eq!(d.samples, samples(&testdata(name)), "{name}");
        let mut args = vec!["folded", f, "--weight", "samples"];
        args.extend(&extra);
        let want = folded(&args);
        assert!(!want.is_empty(), "{name}");
        assert_eq!(d.stacks, want, "{name}");
        let _ = std::fs::remove_file(&out);
    }
}

/// A recording cut inside a record: the complete records' packets, the problem said once,
/// exit status 3 (docs/damage.md).
#[test]
fn a_truncated_recording_gives_its_complete_packets() {
    let bytes = std::fs::read(testdata("sched.data")).unwrap();
    let ends: Vec<usize> = {
        let f = PerfFile::from_bytes(&bytes).unwrap();
        let mut recs = f.records(Order::File).unwrap();
        let mut ends = Vec::new();
        while let Some(r) = recs.next_record() {
            let r = r.unwrap();
            ends.push(r.pos.offset as usize + r.header.record_size());
        }
        ends
    };
    // Three bytes into the record after the middle one.
    let cut = ends[ends.len() / 2] + 3;
    let path = tmp("cut.data");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let out = tmp("cut.perfetto-trace");
    let (code, _, err) =
        perfdata(&["export", "--format", "perfetto", path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(l.starts_with("perfdata: warning: "), "{l}");
        assert_eq!(lines.iter().filter(|m| *m == l).count(), 1, "said twice: {l}");
    }
    let d = decode(&std::fs::read(&out).unwrap());
    // The cut loses the feature sections (tracepoint formats), so no scheduler slices, as in the
    // Chrome trace; the complete samples are all there.
    let n = samples(&path);
    assert!(n > 0);
    assert_eq!(d.samples, n);
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&path);
}
