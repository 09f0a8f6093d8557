//! docs/damage.md, for every command: a recording cut at record boundaries (the first and last
//! few, a seeded sample of the others) and in the middle of records gives the output of its
//! complete records, exit status 3, and each problem once on stderr; `--strict` turns that into
//! status 1.

use perfdata_core::{Order, PerfFile, RecordKind};
use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// (status, stdout, stderr) of `perfdata ARGS`.
fn perfdata(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// Where the records of `bytes`' data section end, in file order.
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let f = PerfFile::from_bytes(bytes).unwrap();
    let mut ends = Vec::new();
    let mut recs = f.records(Order::File).unwrap();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        ends.push(r.pos.offset as usize + r.header.record_size());
    }
    ends
}

/// The first and last four boundaries, eight others picked by a fixed LCG, and each of those
/// plus 3 bytes (inside the next record), all before the data section's end.
fn cuts(bytes: &[u8]) -> Vec<usize> {
    let ends = boundaries(bytes);
    let n = ends.len();
    let mut picked: Vec<usize> =
        ends.iter().take(4).chain(ends.iter().skip(n.saturating_sub(5)).take(4)).copied().collect();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..8 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        picked.push(ends[(x >> 33) as usize % n]);
    }
    let mut all: Vec<usize> = picked.iter().flat_map(|&c| [c, c + 3]).filter(|&c| c < bytes.len()).collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Complete samples of a cut file.
fn samples(bytes: &[u8]) -> usize {
    let f = PerfFile::from_bytes(bytes).unwrap();
    f.records(Order::File).unwrap().filter_map(Result::ok).filter(|r| matches!(r.kind, RecordKind::Sample(_))).count()
}

#[test]
fn every_command_writes_what_it_read_and_says_each_problem_once() {
    let dir = std::env::temp_dir().join(format!("perfdata-damage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, pb, json) = (dir.join("x.svg"), dir.join("x.pb"), dir.join("x.json"));
    let (svg, pb, json) = (svg.to_str().unwrap(), pb.to_str().unwrap(), json.to_str().unwrap());
    let mut runs = 0;
    for name in ["fp.data", "sched.data"] {
        let bytes = std::fs::read(testdata(name)).unwrap();
        let cut_list = cuts(&bytes);
        assert!(cut_list.len() >= 16, "{name}: {cut_list:?}");
        for cut in cut_list {
            let path = dir.join(format!("{name}-{cut}"));
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let p = path.to_str().unwrap();
            let n = samples(&bytes[..cut]);
            let commands: Vec<Vec<&str>> = vec![
                vec!["script", p],
                vec!["dump", p],
                vec!["stats", "--json", p],
                vec!["info", p],
                vec!["folded", p],
                vec!["report", p],
                vec!["flamegraph", p, "-o", svg],
                vec!["export", "--format", "pprof", p, "-o", pb],
                vec!["export", "--format", "chrome-trace", p, "-o", json],
            ];
            for args in &commands {
                let (code, out, err) = perfdata(args);
                runs += 1;
                assert_eq!(code, 3, "{args:?}: {err}");
                let lines: Vec<&str> = err.lines().collect();
                assert!(!lines.is_empty(), "{args:?}: the damage is said");
                for l in &lines {
                    assert!(l.starts_with("perfdata: warning: "), "{args:?}: {l}");
                    assert_eq!(lines.iter().filter(|m| *m == l).count(), 1, "{args:?}: said twice: {l}");
                }
                match args[0] {
                    "stats" => {
                        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                        let got: u64 =
                            v["samples_by_event"].as_object().unwrap().values().filter_map(|x| x.as_u64()).sum();
                        assert_eq!(got, n as u64, "{name} cut at {cut}: the complete samples");
                    }
                    // One block per sample (callchains: samples are separated by blank lines;
                    // tracepoints: one line each).
                    "script" if name == "fp.data" => {
                        assert_eq!(out.split("\n\n").filter(|b| !b.trim().is_empty()).count(), n, "{name} at {cut}")
                    }
                    "script" => assert_eq!(out.lines().count(), n, "{name} at {cut}"),
                    "folded" if name == "fp.data" && n > 0 => assert!(!out.is_empty(), "{name} at {cut}"),
                    _ => {}
                }
            }
            let (code, _, err) = perfdata(&["folded", "--strict", p]);
            assert_eq!(code, 1, "--strict: {err}");
            assert!(err.ends_with("--strict makes that an error\n"), "{err}");
        }
    }
    assert!(runs >= 250, "{runs}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sched_recording_cut_before_its_tracing_data_says_so() {
    let bytes = std::fs::read(testdata("sched.data")).unwrap();
    let f = PerfFile::from_bytes(&bytes).unwrap();
    let end = usize::try_from(f.header().data.end().unwrap()).unwrap();
    let path = std::env::temp_dir().join(format!("perfdata-damage-sched-{}.data", std::process::id()));
    std::fs::write(&path, &bytes[..end + 10]).unwrap();
    let (code, _, err) = perfdata(&["sched", "latency", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("warning: ") && err.contains("feature section table cut short"), "{err}");
    assert!(!err.contains("data section ends at"), "{err}");
    assert!(
        err.contains("no sched:sched_switch event can be named in this damaged file: its tracing data, which names the tracepoints, was lost"),
        "{err}"
    );
}

#[test]
fn a_directory_that_is_not_a_recording_is_named() {
    let (code, _, err) = perfdata(&["script", env!("CARGO_MANIFEST_DIR")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("is a directory, and not one `perf record --threads` writes (it has no file named data)"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}
