//! `perfdata block latency`: its outputs against latencies paired independently here from the
//! fields `perf script -F …,trace --ns` printed for the same recording (`testdata/*.data.trace`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// Run `perfdata ARGS`, stdin from the file `stdin` (or nothing): (exit code, stdout, stderr).
fn perfdata(args: &[&str], stdin: Option<&std::path::Path>) -> (i32, String, String) {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).stdin(input).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// (complete_ns, latency_ns, dev) of issue→complete pairs keyed by the printed dev and sector.
fn perf_pairs(trace: &str) -> Vec<(u64, u64, String)> {
    let text = std::fs::read_to_string(testdata(trace)).unwrap();
    let mut open: HashMap<(String, String), u64> = HashMap::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let (prefix, rest) = l.split_once(" block:").unwrap();
        let (secs, frac) = prefix.split_whitespace().last().unwrap().trim_end_matches(':').split_once('.').unwrap();
        let t = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
        let (event, fields) = rest.split_once(": ").unwrap();
        let dev = fields.split(' ').next().unwrap().to_string();
        let sector = fields.split_once(") ").unwrap().1.split(' ').next().unwrap().to_string();
        match event {
            "block_rq_issue" => {
                open.insert((dev, sector), t);
            }
            "block_rq_complete" => {
                if let Some(s) = open.remove(&(dev.clone(), sector)) {
                    out.push((t, t - s, dev));
                }
            }
            _ => {}
        }
    }
    out
}

/// The count column of histogram rows `A -> B : COUNT |…|`, keyed by (A, B).
fn rows(text: &str) -> Vec<((u64, u64), u64)> {
    text.lines()
        .filter(|l| l.contains(" -> "))
        .map(|l| {
            let (range, rest) = l.split_once(':').unwrap();
            let (a, b) = range.split_once("->").unwrap();
            let n = rest.split('|').next().unwrap().trim().parse().unwrap();
            ((a.trim().parse().unwrap(), b.trim().parse().unwrap()), n)
        })
        .collect()
}

#[test]
fn histograms_count_what_perf_printed() {
    for name in ["block.data", "blockrw.data"] {
        let pairs = perf_pairs(&format!("{name}.trace"));
        let path = testdata(name);
        let (rc, out, err) = perfdata(&["block", "latency", path.to_str().unwrap()], None);
        assert_eq!(rc, 0, "{err}");
        assert!(out.starts_with("     usecs               : count     distribution\n"), "{out}");
        assert!(err.contains(&format!("{} I/Os paired", pairs.len())), "{err}");
        // bcc rows: 0 -> 1 holds exactly 1 us; 2^(i-1) -> 2^i - 1 otherwise.
        for ((lo, hi), n) in rows(&out) {
            let lo = if hi == 1 { 1 } else { lo };
            let want = pairs.iter().filter(|p| (lo..=hi).contains(&(p.1 / 1000))).count() as u64;
            assert_eq!(n, want, "{name} {lo}..{hi}");
        }
        // iolatency rows: (from, to] ms, the first [0, 1].
        let (rc, out, _) = perfdata(&["block", "latency", "--format", "iolatency", path.to_str().unwrap()], None);
        assert_eq!(rc, 0);
        assert!(out.starts_with("  >=(ms) .. <(ms)   : I/O      |Distribution                          |\n"));
        let r = rows(&out);
        assert_eq!(r.iter().map(|x| x.1).sum::<u64>(), pairs.len() as u64);
        for ((from, to), n) in r {
            let want =
                pairs.iter().filter(|p| (from == 0 || p.1 > from * 1_000_000) && p.1 <= to * 1_000_000).count() as u64;
            assert_eq!(n, want, "{name} iolatency {from}..{to}");
        }
    }
}

#[test]
fn heatmap_input_and_stdin() {
    let pairs = perf_pairs("blockrw.data.trace");
    let want: String = pairs.iter().map(|(t, l, _)| format!("{} {}\n", t / 1000, l / 1000)).collect();
    let path = testdata("blockrw.data");
    let (rc, out, _) = perfdata(&["block", "latency", "--format", "heatmap", path.to_str().unwrap()], None);
    assert_eq!((rc, out.as_str()), (0, want.as_str()));
    let (rc, piped, _) = perfdata(&["block", "latency", "--format", "heatmap", "-"], Some(&path));
    assert_eq!((rc, piped), (0, want));
}

#[test]
fn per_disk_csv_json_and_svg() {
    let pairs = perf_pairs("blockrw.data.trace");
    let path = testdata("blockrw.data");
    let p = path.to_str().unwrap();
    let (rc, out, _) = perfdata(&["block", "latency", "-D", p], None);
    assert_eq!(rc, 0);
    assert!(out.starts_with("\ndisk = 254,0\n     usecs "), "{out}");
    let (rc, csv, _) = perfdata(&["block", "latency", "--format", "csv", p], None);
    assert_eq!(rc, 0);
    let lat: Vec<u64> = csv.lines().skip(1).map(|l| l.split(',').nth(12).unwrap().parse().unwrap()).collect();
    assert_eq!(lat, pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let (rc, json, _) = perfdata(&["block", "latency", "--format", "json", p], None);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut sorted: Vec<u64> = pairs.iter().map(|p| p.1).collect();
    sorted.sort();
    let n = sorted.len();
    assert_eq!(v["latency_ns"]["max"], sorted[n - 1]);
    assert_eq!(v["latency_ns"]["min"], sorted[0]);
    assert_eq!(v["latency_ns"]["p50"], sorted[n.div_ceil(2) - 1]);
    assert_eq!(v["counts"]["paired"], n);
    let svg = std::env::temp_dir().join(format!("perfdata-lat-{}.svg", std::process::id()));
    let (rc, _, _) = perfdata(&["block", "latency", "--heatmap", "-o", svg.to_str().unwrap(), p], None);
    assert_eq!(rc, 0);
    let text = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    let cells: u64 = text
        .split("<title>")
        .skip(1)
        .map(|t| t.split("count ").nth(1).unwrap().split('<').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(cells, n as u64, "every I/O is in one cell");
}

#[test]
fn a_file_without_block_events_says_what_is_missing() {
    let (rc, out, err) = perfdata(&["block", "latency", testdata("sched.data").to_str().unwrap()], None);
    assert_eq!((rc, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "perfdata: no block:block_rq_complete event in this file; record it with \
         `perf record -e block:block_rq_issue -e block:block_rq_complete -a`\n"
    );
    let (rc, _, err) = perfdata(&["block", "latency", "--queued", testdata("switch-cpu.data").to_str().unwrap()], None);
    assert_eq!(rc, 1);
    assert!(err.contains("no block:"), "{err}");
}

#[test]
fn wakeup_latency_histogram_counts_the_csv_rows() {
    let p = testdata("sched.data");
    let p = p.to_str().unwrap();
    let (rc, csv, _) = perfdata(&["wakeup-latency", "--format", "csv", p], None);
    assert_eq!(rc, 0);
    let delays: Vec<u64> = csv.lines().skip(1).map(|l| l.split(',').nth(5).unwrap().parse().unwrap()).collect();
    let (rc, out, _) = perfdata(&["wakeup-latency", p], None);
    assert_eq!(rc, 0);
    assert!(out.starts_with("     usecs               : count     distribution\n"));
    for ((lo, hi), n) in rows(&out) {
        let lo = if hi == 1 { 1 } else { lo };
        assert_eq!(n, delays.iter().filter(|d| (lo..=hi).contains(&(*d / 1000))).count() as u64);
    }
    let (rc, _, err) = perfdata(&["wakeup-latency", testdata("block.data").to_str().unwrap()], None);
    assert_eq!(
        (rc, err.as_str()),
        (
            1,
            "perfdata: no sched:sched_switch event in this file; record it with `perf sched record` (or `perf \
             record -e sched:sched_switch -e sched:sched_waking -a`)\n"
        )
    );
    // The histogram's output file is made only once there is a histogram.
    let path = std::env::temp_dir().join(format!("perfdata-wakeup-test-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let (rc, _, _) =
        perfdata(&["wakeup-latency", "-o", path.to_str().unwrap(), testdata("block.data").to_str().unwrap()], None);
    assert_eq!(rc, 1);
    assert!(!path.exists(), "{path:?} was made for a file without sched events");
    // The name for it, under `sched`: the same output.
    let (rc, sched, _) = perfdata(&["sched", "wakeup-latency", p], None);
    assert_eq!((rc, sched), (0, out));
}
