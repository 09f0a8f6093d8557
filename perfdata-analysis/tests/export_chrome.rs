//! The streamed Chrome trace ([`write_chrome_trace`]) against what it replaced: its scheduler
//! slices are the timeline's runs and waits at full resolution (`sched_timeline` with a
//! nanosecond per pixel), which the in-memory exporter wrote, on every committed sched recording.

use perfdata_analysis::export::chrome::{write_chrome_trace, ChromeOptions};
use perfdata_analysis::sched::timeline::{sched_timeline, Item, TimelineOptions};
use perfdata_core::PerfFile;
use std::collections::BTreeSet;

fn testdata(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// (cpu, start ns, end ns, tid, name) of a run or a wait.
type Slice = (u64, u64, u64, u64, String);

/// ns from the trace's `µs.nnn` (three decimals; serde_json's f64 prints them back without the
/// trailing zeros).
fn ns(v: &serde_json::Value) -> u64 {
    let s = v.to_string();
    let (us, frac) = s.split_once('.').unwrap_or((&s, ""));
    assert!(frac.len() <= 3, "{s}");
    us.parse::<u64>().unwrap() * 1000 + format!("{frac:0<3}").parse::<u64>().unwrap()
}

/// The trace's runs (CPU tracks) and waits.
fn trace_slices(doc: &serde_json::Value) -> (Vec<Slice>, Vec<Slice>) {
    let (mut runs, mut waits) = (Vec::new(), Vec::new());
    for e in doc["traceEvents"].as_array().unwrap() {
        if e["ph"] != "X" {
            continue;
        }
        let (start, dur) = (ns(&e["ts"]), ns(&e["dur"]));
        let name = e["name"].as_str().unwrap().to_string();
        if e["pid"] == u64::from(u32::MAX - 1) {
            let tid = e["args"]["tid"].as_u64().unwrap();
            assert_eq!(e["args"]["comm"], name.as_str());
            runs.push((e["tid"].as_u64().unwrap(), start, start + dur, tid, name));
        } else if name == "runnable (waiting for a CPU)" {
            let cpu = e["args"]["cpu"].as_u64().unwrap();
            waits.push((cpu, start, start + dur, e["tid"].as_u64().unwrap(), String::new()));
        }
    }
    (runs, waits)
}

#[test]
fn scheduler_slices_are_the_timelines_at_full_resolution() {
    // (file, runs, waits, first run, last run).
    type Run = (u64, u64, u64, u64, &'static str);
    let expected: [(&str, u64, u64, Run, Run); 3] = [
        (
            "sched.data",
            110,
            105,
            (0, 3117201023941, 3117201077331, 18, "migration/0"),
            (1, 3117278039586, 3117281197041, 1543, "sh"),
        ),
        (
            "sched-mix.data",
            300,
            299,
            (0, 37551455637987, 37551455667881, 18, "migration/0"),
            (1, 37551567105326, 37551567144434, 12688, "kworker/1:0-eve"),
        ),
        (
            "sched-pipe.data",
            270,
            270,
            (0, 37553123567866, 37553123607405, 18, "migration/0"),
            (1, 37553247027153, 37553250884739, 18732, "sh"),
        ),
    ];
    for (name, n_runs, n_waits, first, last) in expected {
        let file = PerfFile::open(testdata(name)).unwrap();
        let mut out = Vec::new();
        let summary = write_chrome_trace(&file, &ChromeOptions::default(), &mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let (mut runs, mut waits) = trace_slices(&doc);
        let tl = sched_timeline(&file, &TimelineOptions { width: u32::MAX, ..Default::default() }).unwrap();
        let mut tl_runs: Vec<Slice> = tl
            .items
            .iter()
            .map(|it| match it {
                Item::Run(s) => (u64::from(s.cpu), s.start_ns, s.end_ns, u64::from(s.tid), s.comm.clone()),
                Item::Mixed { .. } => panic!("{name}: a run merged at a nanosecond per pixel"),
            })
            .collect();
        let mut tl_waits: Vec<Slice> = tl
            .waits
            .iter()
            .map(|w| (u64::from(w.cpu), w.start_ns, w.end_ns, u64::from(w.tid), String::new()))
            .collect();
        for v in [&mut runs, &mut waits, &mut tl_runs, &mut tl_waits] {
            v.sort();
        }
        assert_eq!(runs, tl_runs, "{name}: runs");
        assert_eq!(waits, tl_waits, "{name}: waits");
        assert_eq!(tl.small_waits, 0, "{name}");
        assert_eq!((summary.runs, summary.waits), (runs.len() as u64, waits.len() as u64), "{name}");
        // Each run is on its CPU's track and on its thread's.
        let on_threads = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"].as_str().is_some_and(|n| n.starts_with("running on CPU ")))
            .count();
        assert_eq!(on_threads, runs.len(), "{name}");
        // The CPU tracks are named, one each.
        let cpus: BTreeSet<u64> = runs.iter().map(|r| r.0).collect();
        let named: BTreeSet<u64> = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "M" && e["pid"] == u64::from(u32::MAX - 1) && e["tid"].is_u64())
            .map(|e| e["tid"].as_u64().unwrap())
            .collect();
        assert_eq!(cpus, named, "{name}");
        // Hard numbers: what the in-memory exporter this one replaced wrote (runs × 2 + waits
        // complete events: 325, 899 and 810).
        let show = |r: &Slice| (r.0, r.1, r.2, r.3, r.4.clone());
        assert_eq!((runs.len() as u64, waits.len() as u64), (n_runs, n_waits), "{name}");
        assert_eq!(show(&runs[0]), (first.0, first.1, first.2, first.3, first.4.to_string()), "{name}");
        assert_eq!(show(runs.last().unwrap()), (last.0, last.1, last.2, last.3, last.4.to_string()), "{name}");
    }
}
