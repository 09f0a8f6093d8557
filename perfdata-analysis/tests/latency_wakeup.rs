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
        Err(Error::Missing(m)) => assert_eq!(
            m,
            "no sched:sched_switch event in this file; record it with `perf sched record` (or `perf record -e \
             sched:sched_switch -e sched:sched_waking -a`)"
        ),
        other => panic!("{other:?}"),
    }
}

/// A truncated pipe-format recording (its tracing data comes first): the waits before the cut,
/// and a diagnostic saying where reading stopped; never an error or a panic.
#[test]
fn truncated_pipe_file_gives_the_waits_before_the_cut() {
    use perfdata_analysis::latency::wakeup::wakeup_latency_each;
    let bytes = std::fs::read(testdata("sched-pipe.data")).unwrap();
    let whole = PerfFile::from_vec(bytes.clone()).unwrap();
    let all = wakeup_latency(&whole, &WakeupOptions::default()).unwrap();
    let mut partial = 0;
    // Records are 8-byte aligned: a cut at 8k + 3 is never a clean end.
    for cut in (bytes.len() / 4..bytes.len()).step_by(bytes.len() / 23).map(|c| c | 3) {
        let f = PerfFile::from_vec(bytes[..cut.min(bytes.len())].to_vec()).unwrap();
        let mut got = Vec::new();
        let diagnostics = wakeup_latency_each(&f, &WakeupOptions::default(), |e| got.push(*e)).unwrap();
        assert!(!diagnostics.is_empty(), "cut at {cut}: no diagnostic");
        // The cut loses records of the last round, so a wait near it can differ; the others are
        // the whole file's.
        let same = got.iter().filter(|w| all.contains(w)).count();
        assert!(got.len() <= all.len() && same * 10 >= got.len() * 9, "cut at {cut}: {same} of {}", got.len());
        partial += usize::from(!got.is_empty() && got.len() < all.len());
    }
    assert!(partial > 15, "{partial}");
}
