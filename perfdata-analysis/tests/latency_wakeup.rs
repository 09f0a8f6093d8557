//! Wakeup latency against perf 6.1's `perf sched timehist` of the same file
//! (`testdata/sched.data.sched-timehist`): per task, the sum of the printed `sch delay`s equals the
//! sum of our delays (each truncated to µs as timehist prints it) without the preemption rule.

use perfdata_analysis::latency::wakeup::{summarize, wakeup_latency, WakeupOptions};
use perfdata_analysis::latency::Error;
use perfdata_core::PerfFile;
use std::collections::BTreeMap;

fn testdata(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// `S.UUU` (seconds or ms with three or six decimals) in units of the last decimal.
fn fixed(s: &str) -> u64 {
    let (a, b) = s.split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 10u64.pow(b.len() as u32) + b.parse::<u64>().unwrap()
}

/// tid → (sum of sch delay in µs, time of the last line in µs, lines)
fn timehist() -> BTreeMap<u32, (u64, u64, u64)> {
    let text = std::fs::read_to_string(testdata("sched.data.sched-timehist")).unwrap();
    let mut m: BTreeMap<u32, (u64, u64, u64)> = BTreeMap::new();
    for l in text.lines().skip(3) {
        let t: Vec<&str> = l.split_whitespace().collect();
        let task = t[2..t.len() - 3].join(" ");
        if task == "<idle>" {
            continue;
        }
        let id = task.rsplit_once('[').unwrap().1.trim_end_matches(']');
        let tid: u32 = id.split('/').next().unwrap().parse().unwrap();
        let delay_us = fixed(t[t.len() - 2]);
        let e = m.entry(tid).or_default();
        e.0 += delay_us;
        e.1 = e.1.max(fixed(t[0]));
        e.2 += 1;
    }
    m
}

#[test]
fn sch_delay_sums_per_task_equal_timehist() {
    let f = PerfFile::open(testdata("sched.data")).unwrap();
    let ev = wakeup_latency(&f, &WakeupOptions { preempted: false }).unwrap();
    let th = timehist();
    let mut ours: BTreeMap<u32, u64> = BTreeMap::new();
    for e in &ev {
        assert_eq!(e.delay_ns, e.run_ns - e.wake_ns);
        assert!(!e.preempted);
        // timehist prints a task's delay at its next switch-out: leave out switch-ins after the
        // task's last printed line (still running at the end of the recording).
        if th.get(&e.tid).is_some_and(|t| e.run_ns / 1000 <= t.1) {
            *ours.entry(e.tid).or_default() += e.delay_ns / 1000;
        }
    }
    let want: BTreeMap<u32, u64> = th.iter().filter(|(_, v)| v.0 > 0).map(|(k, v)| (*k, v.0)).collect();
    ours.retain(|_, v| *v > 0);
    assert_eq!(ours, want);
    assert!(want.len() >= 10, "{want:?}");
}

#[test]
fn preempted_tasks_count_from_their_switch_out() {
    let f = PerfFile::open(testdata("sched.data")).unwrap();
    let with = wakeup_latency(&f, &WakeupOptions::default()).unwrap();
    let without = wakeup_latency(&f, &WakeupOptions { preempted: false }).unwrap();
    // Every wakeup-started wait is the same with the rule; the rule adds waits from preemption.
    let woken: Vec<_> = with.iter().filter(|e| !e.preempted).copied().collect();
    assert_eq!(woken, without);
    assert!(with.iter().any(|e| e.preempted));
    let s = summarize(&with);
    let total: u64 = s.values().map(|t| t.count).sum();
    assert_eq!(total, with.len() as u64);
    for (tid, t) in &s {
        let mine: Vec<u64> = with.iter().filter(|e| e.tid == *tid).map(|e| e.delay_ns).collect();
        assert_eq!((t.total_ns, t.max_ns), (mine.iter().sum(), *mine.iter().max().unwrap()));
    }
}

#[test]
fn a_file_without_sched_switch_says_so() {
    let f = PerfFile::open(testdata("block.data")).unwrap();
    match wakeup_latency(&f, &WakeupOptions::default()) {
        Err(Error::Missing(m)) => assert_eq!(m, "no sched:sched_switch event in this file"),
        other => panic!("{other:?}"),
    }
}
