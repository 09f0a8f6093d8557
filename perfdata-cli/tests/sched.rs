//! `perfdata sched latency|map|timehist|timeline`: perf's option names give perf 6.1's stored
//! outputs with --compat perf-6.1, from a file or stdin; --json rows; clear errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// Run `perfdata ARGS`, stdin from the file `stdin` (or nothing): (exit code, stdout, stderr).
fn perfdata(args: &[&str], stdin: Option<&Path>) -> (i32, String, String) {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).stdin(input).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn perf_options_give_perf61_output() {
    let f = testdata("sched-mix.data");
    let f = f.to_str().unwrap();
    for (args, stored) in [
        (vec!["latency"], "sched-latency"),
        (vec!["latency", "-p"], "sched-latency-p"),
        (vec!["latency", "-s", "max,runtime"], "sched-latency-s-max-runtime"),
        (vec!["map"], "sched-map"),
        (vec!["map", "--compact"], "sched-map-compact"),
        (vec!["timehist"], "sched-timehist"),
        (vec!["timehist", "-w", "-M", "-V", "--state", "-n"], "sched-timehist-wMVstate-n"),
        (vec!["timehist", "-s"], "sched-timehist-s"),
        (vec!["timehist", "-S", "--state"], "sched-timehist-S-state"),
        (vec!["timehist", "-I", "-s"], "sched-timehist-I-s"),
    ] {
        let mut a = vec!["sched"];
        a.extend(&args);
        a.extend(["--compat", "perf-6.1", f]);
        let (code, out, err) = perfdata(&a, None);
        assert_eq!(code, 0, "{args:?}: {err}");
        let want = std::fs::read_to_string(testdata(&format!("sched-mix.data.{stored}"))).unwrap();
        assert!(out == want, "{args:?} differs from perf's {stored}");
    }
    // From stdin.
    let (code, out, _) = perfdata(&["sched", "map", "-"], Some(&testdata("sched-mix.data")));
    assert_eq!(code, 0);
    assert_eq!(out, std::fs::read_to_string(testdata("sched-mix.data.sched-map")).unwrap());
}

#[test]
fn filters_and_modern_header() {
    let f = testdata("sched-mix.data");
    let f = f.to_str().unwrap();
    let (_, out, _) = perfdata(&["sched", "latency", f], None);
    assert!(out.contains("| Count    |"), "{out}");
    // -C 0: only CPU 0's rows; -p PID: only that process's rows.
    let (_, out, _) = perfdata(&["sched", "timehist", "-C", "0", f], None);
    let rows: Vec<&str> = out.lines().skip(3).collect();
    assert!(rows.len() > 100 && rows.iter().all(|l| l.contains(" [0000] ")), "{}", rows.len());
    let (_, out, _) = perfdata(&["sched", "timehist", "-p", "18669", f], None);
    let rows: Vec<&str> = out.lines().skip(3).collect();
    assert!(!rows.is_empty() && rows.iter().all(|l| l.contains("sh[18669]")), "{rows:?}");
    // --time: rows inside the window only.
    let (_, out, _) = perfdata(&["sched", "timehist", "--time", "37551.5,37551.52", f], None);
    for l in out.lines().skip(3) {
        let t: f64 = l.split_whitespace().next().unwrap().parse().unwrap();
        assert!((37551.5..=37551.52).contains(&t), "{l}");
    }
    // --cpus 0 on the map: CPU 1's lines keep only the columns.
    let (_, out, _) = perfdata(&["sched", "map", "--cpus", "0", f], None);
    assert!(out.lines().any(|l| !l.contains("secs")) && out.lines().any(|l| l.contains("secs")));
}

#[test]
fn json_rows() {
    let f = testdata("sched-mix.data");
    let f = f.to_str().unwrap();
    let (code, out, _) = perfdata(&["sched", "timehist", "--json", "-w", "-M", "-S", f], None);
    assert_eq!(code, 0);
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let switches: Vec<&serde_json::Value> = rows.iter().filter(|r| r["kind"] == "switch").collect();
    assert_eq!(switches.len(), 319);
    for r in &switches {
        let parts = ["sleep_ns", "iowait_ns", "preempt_ns"].map(|k| r[k].as_u64().unwrap());
        assert_eq!(r["wait_ns"].as_u64().unwrap(), parts.iter().sum::<u64>());
        assert!(r["time_ns"].as_u64().unwrap() > 37_551_000_000_000);
    }
    assert!(rows.iter().any(|r| r["kind"] == "wakeup") && rows.iter().any(|r| r["kind"] == "migration"));
    assert!(rows.iter().any(|r| r.get("summary").is_some()) && rows.iter().any(|r| r.get("totals").is_some()));
    let (_, out, _) = perfdata(&["sched", "latency", "--json", "-p", f], None);
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let sh = rows.iter().find(|r| r["tid"] == 18669).unwrap();
    assert_eq!(sh["task"], "sh");
    assert!(sh["max_delay_ns"].as_u64().unwrap() > 12_000_000);
    assert!(rows.last().unwrap().get("info").is_some());
    let (_, out, _) = perfdata(&["sched", "map", "--json", f], None);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["new_name"]["comm"], "migration/0");
}

#[test]
fn missing_events_are_named() {
    let (code, _, err) = perfdata(&["sched", "latency", testdata("fp.data").to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(err.contains("no sched:sched_switch event") && err.contains("perf sched record"), "{err}");
}

/// The texts of `<text …>LABEL</text>` elements whose opening tag contains `attr`.
fn texts<'a>(svg: &'a str, attr: &str) -> Vec<&'a str> {
    svg.split("<text ")
        .skip(1)
        .filter(|t| t.split('>').next().is_some_and(|tag| tag.contains(attr)))
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest.split('<').next().unwrap_or("")))
        .collect()
}

#[test]
fn timeline_svg() {
    let dir = std::env::temp_dir().join(format!("perfdata-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("sched.svg");
    let mix = testdata("sched-mix.data");
    let (code, _, err) = perfdata(&["sched", "timeline", mix.to_str().unwrap(), "-o", svg.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<?xml") && s.trim_end().ends_with("</svg>"));
    // As wide as the window; a lane per CPU; tooltips on runs and waits.
    assert!(s.contains(r#"width="100%""#) && s.contains("viewBox="));
    assert_eq!(texts(&s, r#"class="lane""#), ["CPU 0", "CPU 1"]);
    assert!(s.contains("gzip[18688] on CPU") && s.contains("waited"));
    // Time from the first switch (perf script's first sched_switch, 37551.455637 s, 111.5 ms
    // before the last) in round steps with a unit: 0, 10 ms, …, 110 ms.
    assert!(s.contains("t = 0 at 37551.455637 s, 111.5 ms long"), "{}", &s[..1500]);
    let ticks = texts(&s, r#"text-anchor="middle">"#.trim_end_matches('>'));
    let want: Vec<String> = (0..=11).map(|i| if i == 0 { "0".into() } else { format!("{} ms", 10 * i) }).collect();
    assert_eq!(ticks.iter().skip(1).copied().collect::<Vec<_>>(), want, "the title, then the ticks");
    // A lane per task: the five longest running or waiting, by thread id, the rest counted.
    let (code, out, err) =
        perfdata(&["sched", "timeline", mix.to_str().unwrap(), "--rows", "task", "--tasks", "5"], None);
    assert_eq!(code, 0, "{err}");
    let lanes = texts(&out, r#"class="lane""#);
    assert_eq!(lanes.len(), 5, "{lanes:?}");
    assert!(lanes.contains(&"sh[18669]") && lanes.contains(&"spin[18674]"), "{lanes:?}");
    assert!(out.contains("5 tasks, those longest running or waiting (63 more tasks ran"), "{}", &out[..1500]);
    // Runs coloured by CPU, with the CPUs in the legend; waits in the task's lane.
    assert!(out.contains(">CPU 0 ") && out.contains(">CPU 1 "));
    let (code, _, err) = perfdata(&["sched", "timeline", mix.to_str().unwrap(), "--rows", "tasks"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cpu or task"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
