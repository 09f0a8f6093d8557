//! The scheduler analyses against perf 6.1's own output on the same files (testdata/*.sched-*):
//! `perf sched map`, `latency` and `timehist` (every option set stored) line for line.

use perfdata_analysis::sched::latency::{parse_sort, sched_latency, GroupBy, LatencyOptions};
use perfdata_analysis::sched::map::{sched_map_text, MapOptions};
use perfdata_analysis::sched::timehist::{sched_timehist_text, SummaryMode, TimehistOptions};
use perfdata_analysis::sched::Compat;
use perfdata_core::PerfFile;
use std::path::PathBuf;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(testdata(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compare line by line; on a difference show the first few.
fn same(name: &str, ours: &str, perf: &str) {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), perf.lines().collect());
    let diffs: Vec<String> = a
        .iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .take(5)
        .map(|(i, (x, y))| format!("line {}:\n ours {x:?}\n perf {y:?}", i + 1))
        .collect();
    assert!(diffs.is_empty() && a.len() == b.len(), "{name}: {} vs {} lines\n{}", a.len(), b.len(), diffs.join("\n"));
}

const FILES: [&str; 2] = ["sched.data", "sched-mix.data"];

#[test]
fn latency_matches_perf61() {
    for f in FILES {
        let file = PerfFile::open(testdata(f)).unwrap();
        for (suffix, by, sort) in [
            ("sched-latency", GroupBy::Comm, ""),
            ("sched-latency-p", GroupBy::Tid, ""),
            ("sched-latency-s-max-runtime", GroupBy::Comm, "max,runtime"),
        ] {
            let mut o = LatencyOptions { by, compat: Compat::Perf61, ..Default::default() };
            if !sort.is_empty() {
                o.sort = parse_sort(sort).unwrap();
            }
            let lat = sched_latency(&file, &o).unwrap();
            same(&format!("{f}.{suffix}"), &lat.text(), &expected(&format!("{f}.{suffix}")));
        }
    }
}

#[test]
fn map_matches_perf61() {
    for f in FILES {
        let file = PerfFile::open(testdata(f)).unwrap();
        for (suffix, compact) in [("sched-map", false), ("sched-map-compact", true)] {
            let (text, _) = sched_map_text(&file, &MapOptions { compact, ..Default::default() }).unwrap();
            same(&format!("{f}.{suffix}"), &text, &expected(&format!("{f}.{suffix}")));
        }
    }
}

#[test]
fn timehist_matches_perf61() {
    for f in FILES {
        let file = PerfFile::open(testdata(f)).unwrap();
        let base = TimehistOptions { compat: Compat::Perf61, ..Default::default() };
        for (suffix, o) in [
            ("sched-timehist", base.clone()),
            (
                "sched-timehist-wMVstate-n",
                TimehistOptions {
                    wakeups: true,
                    migrations: true,
                    cpu_visual: true,
                    state: true,
                    next: true,
                    ..base.clone()
                },
            ),
            ("sched-timehist-s", TimehistOptions { summary: SummaryMode::Only, ..base.clone() }),
            ("sched-timehist-S-state", TimehistOptions { summary: SummaryMode::With, state: true, ..base.clone() }),
            ("sched-timehist-I-s", TimehistOptions { summary: SummaryMode::Only, idle_hist: true, ..base.clone() }),
        ] {
            let (text, _) = sched_timehist_text(&file, &o).unwrap();
            let name = format!("{f}.{suffix}");
            let perf = expected(&name);
            same(&name, &text, &perf);
        }
    }
}

/// Per tid (delays, sum of delays in µs, largest in µs), computed from perf's own `perf script`
/// text of the file: a task is runnable from its first wakeup (`sched_waking`, `sched_wakeup_new`)
/// while asleep, or from a switch-out in state `R`/`R+`, until its next switch-in; a task first
/// seen switching in waited 0, one first seen in its `sched_stat_runtime` is runnable from there
/// (perf's rules for tasks it meets mid-run). perf script prints µs, so sums carry one µs of
/// rounding per delay.
fn independent_delays(script: &str) -> std::collections::HashMap<u32, (u64, u64, u64)> {
    use std::collections::HashMap;
    let field = |l: &str, k: &str| -> Option<String> {
        let i = l.find(&format!(" {k}="))? + k.len() + 2;
        Some(l[i..].split(' ').next()?.to_string())
    };
    let mut ready: HashMap<u32, u64> = HashMap::new();
    let mut running: HashMap<u32, bool> = HashMap::new();
    let mut out: HashMap<u32, (u64, u64, u64)> = HashMap::new();
    let mut seen: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for l in script.lines() {
        let Some(at) = l.find(" sched:sched_") else { continue };
        let t = l[..at].trim_end().trim_end_matches(':').rsplit(' ').next().unwrap();
        let (s, us) = t.split_once('.').unwrap();
        let t_us: u64 = s.parse::<u64>().unwrap() * 1_000_000 + us.parse::<u64>().unwrap();
        if l.contains("sched:sched_stat_runtime:") {
            let pid: u32 = field(l, "pid").unwrap().parse().unwrap();
            if seen.insert(pid) {
                ready.insert(pid, t_us);
            }
        } else if l.contains("sched:sched_waking:") || l.contains("sched:sched_wakeup_new:") {
            let pid: u32 = field(l, "pid").unwrap().parse().unwrap();
            seen.insert(pid);
            if !running.get(&pid).copied().unwrap_or(false) {
                ready.entry(pid).or_insert(t_us);
            }
        } else if l.contains("sched:sched_switch:") {
            let prev: u32 = field(l, "prev_pid").unwrap().parse().unwrap();
            let next: u32 = field(l, "next_pid").unwrap().parse().unwrap();
            let state = field(l, "prev_state").unwrap();
            running.insert(prev, false);
            seen.insert(prev);
            if seen.insert(next) {
                ready.insert(next, t_us);
            }
            if prev != 0 && (state == "R" || state == "R+") {
                ready.insert(prev, t_us);
            } else {
                ready.remove(&prev);
            }
            running.insert(next, true);
            if let Some(w) = ready.remove(&next) {
                if next != 0 {
                    let e = out.entry(next).or_default();
                    e.0 += 1;
                    e.1 += t_us - w;
                    e.2 = e.2.max(t_us - w);
                }
            }
        }
    }
    out
}

#[test]
fn modern_delays_match_an_independent_computation() {
    for f in ["sched.data", "sched-mix.data", "sched-pipe.data"] {
        let file = PerfFile::open(testdata(f)).unwrap();
        let want = independent_delays(&expected(&format!("{f}.script")));
        let lat = sched_latency(&file, &LatencyOptions { by: GroupBy::Tid, ..Default::default() }).unwrap();
        let mut checked = 0;
        for r in &lat.rows {
            let (n, sum_us, max_us) = want.get(&r.tid).copied().unwrap_or_default();
            assert_eq!(r.switches, n, "{f} {}:{}: delays", r.task, r.tid);
            let tol = r.switches;
            assert!(
                (r.total_delay_ns / 1000).abs_diff(sum_us) <= tol,
                "{f} {}:{}: total {} µs, independent {sum_us} µs",
                r.task,
                r.tid,
                r.total_delay_ns / 1000
            );
            assert!((r.max_delay_ns / 1000).abs_diff(max_us) <= 1, "{f} {}: max", r.tid);
            checked += n;
        }
        // Every task with delays has its row (perf prints none for the idle task).
        let with_delays = want.iter().filter(|(tid, v)| **tid != 0 && v.0 > 0).count();
        assert_eq!(lat.rows.len(), with_delays, "{f}: rows");
        assert!(checked > 50, "{f}: only {checked} delays checked");
        // timehist's scheduling delays, modern: the same per-task sums, except where timehist
        // cannot see the switch-in (it measures to the CPU's previous switch: none for a CPU's
        // first switch, and the wrong one where this VM lost CPU 1's idle switches).
        let opts = TimehistOptions { summary: SummaryMode::Only, ..Default::default() };
        let (_, th) = sched_timehist_text(&file, &opts).unwrap();
        let tasks = th.summary.unwrap().tasks;
        let off: Vec<String> = tasks
            .iter()
            .filter_map(|t| {
                let (n, sum_us, _) = want.get(&t.tid).copied().unwrap_or_default();
                ((t.delay_ns / 1000).abs_diff(sum_us) > n + 1)
                    .then(|| format!("{}[{}] {} vs {sum_us} µs", t.comm, t.tid, t.delay_ns / 1000))
            })
            .collect();
        assert!(
            off.len() * 10 <= tasks.len(),
            "{f}: timehist delays differ for {} of {} tasks: {off:?}",
            off.len(),
            tasks.len()
        );
    }
}

#[test]
fn pipe_file_rows_follow_perf_script() {
    // perf 6.1's perf sched reads no pipe file; its perf script does: one map line and one
    // timehist row per sched_switch line, at the same time and CPU.
    let file = PerfFile::open(testdata("sched-pipe.data")).unwrap();
    let script = expected("sched-pipe.data.script");
    let switches: Vec<(String, String)> = script
        .lines()
        .filter(|l| l.contains(" sched:sched_switch:"))
        .map(|l| {
            let head: Vec<&str> = l[..l.find(" sched:sched_switch:").unwrap()].split_whitespace().collect();
            let n = head.len();
            (head[n - 2].trim_matches(['[', ']']).to_string(), head[n - 1].trim_end_matches(':').to_string())
        })
        .collect();
    assert!(switches.len() > 200);
    let (map, s) = sched_map_text(&file, &MapOptions::default()).unwrap();
    assert_eq!(s.rows as usize, switches.len());
    for (line, (_, time)) in map.lines().zip(&switches) {
        assert!(line.contains(&format!("{time} secs")), "{line:?} at {time}");
    }
    let o = TimehistOptions { compat: Compat::Perf61, ..Default::default() };
    let (text, th) = sched_timehist_text(&file, &o).unwrap();
    assert_eq!(th.switches as usize, switches.len());
    for (line, (cpu, time)) in text.lines().skip(3).zip(&switches) {
        let cpu: u32 = cpu.parse().unwrap();
        assert!(line.starts_with(&format!("{time:>15} [{cpu:04}]")), "{line:?} vs {time} {cpu}");
    }
}

#[test]
fn files_without_sched_events_are_a_clear_error() {
    for f in ["fp.data", "syscalls.data", "pipe.data"] {
        let file = PerfFile::open(testdata(f)).unwrap();
        let e = sched_latency(&file, &LatencyOptions::default()).unwrap_err().to_string();
        assert!(e.contains("no sched:sched_switch event"), "{f}: {e}");
        if f != "syscalls.data" {
            assert!(e.contains("(it recorded no tracepoint)"), "{f}: {e}");
        }
        assert!(e.contains("record it with `perf sched record`"), "{f}: {e}");
        assert!(sched_map_text(&file, &MapOptions::default()).is_err());
        assert!(sched_timehist_text(&file, &TimehistOptions::default()).is_err());
    }
}

/// Truncated at many places and with bytes flipped: rows up to the damage, a diagnostic, never
/// a panic. (A truncated file-format recording loses its tracing data, which sits after the
/// records; a pipe-format one keeps it at the start, so its rows stop where the cut is.)
#[test]
fn damaged_files_never_panic() {
    for name in ["sched-pipe.data", "sched-mix.data"] {
        let bytes = std::fs::read(testdata(name)).unwrap();
        let whole = PerfFile::from_vec(bytes.clone()).unwrap();
        let full = sched_timehist_text(&whole, &TimehistOptions::default()).unwrap().1.switches;
        let mut partial = 0;
        // Records are 8-byte aligned: a cut at 8k + 3 is never a clean end.
        for cut in (0..bytes.len()).step_by(bytes.len() / 97).map(|c| (c | 3).min(bytes.len())) {
            let Ok(f) = PerfFile::from_vec(bytes[..cut].to_vec()) else { continue };
            if let Ok((_, th)) = sched_timehist_text(&f, &TimehistOptions::default()) {
                assert!(th.switches <= full);
                if th.switches > 0 && th.switches < full {
                    partial += 1;
                    assert!(!th.diagnostics.is_empty(), "{name} cut at {cut}: no diagnostic");
                }
            }
            let _ = sched_latency(&f, &LatencyOptions::default());
            let _ = sched_map_text(&f, &MapOptions { compact: true, ..Default::default() });
        }
        if name == "sched-pipe.data" {
            assert!(partial > 50, "{name}: only {partial} truncations gave part of the rows");
        }
        fuzz(&bytes);
    }
}

fn fuzz(bytes: &[u8]) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..60 {
        let mut b = bytes.to_vec();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed % b.len() as u64) as usize;
            b[i] = (seed >> 32) as u8;
        }
        let Ok(f) = PerfFile::from_vec(b) else { continue };
        let o = TimehistOptions { wakeups: true, migrations: true, summary: SummaryMode::With, ..Default::default() };
        let _ = sched_timehist_text(&f, &o);
        let _ = sched_latency(&f, &LatencyOptions { by: GroupBy::Tid, ..Default::default() });
        let _ = sched_map_text(&f, &MapOptions::default());
        let _ = perfdata_analysis::sched::timeline::sched_timeline(&f, &Default::default());
    }
}

/// Per thread, the sums of a timehist text's "sch delay" and "run time" columns in ns (each
/// value is truncated to a microsecond), and the number of lines summed.
fn timehist_sums(text: &str) -> std::collections::HashMap<u32, (u64, u64, u64)> {
    let mut sums = std::collections::HashMap::new();
    for line in text.lines().skip(3) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() < 6 || line.contains("<idle>") {
            continue;
        }
        let task = cols[2..cols.len() - 3].join(" ");
        let Some((_, id)) = task.rsplit_once('[') else { continue };
        let tid: u32 = id.trim_end_matches(']').split('/').next().unwrap().parse().unwrap();
        let ns = |ms: &str| (ms.parse::<f64>().unwrap() * 1e6).round() as u64;
        let e: &mut (u64, u64, u64) = sums.entry(tid).or_default();
        e.0 += ns(cols[cols.len() - 2]);
        e.1 += ns(cols[cols.len() - 1]);
        e.2 += 1;
    }
    sums
}

#[test]
fn timeline_task_lanes_sum_as_timehist() {
    use perfdata_analysis::sched::timeline::{sched_timeline, Item, Rows, TimelineOptions};
    for f in FILES {
        let file = PerfFile::open(testdata(f)).unwrap();
        // A nanosecond per pixel: every run and wait drawn.
        let opts = TimelineOptions { rows: Rows::Task, tasks: 0, width: u32::MAX, ..Default::default() };
        let tl = sched_timeline(&file, &opts).unwrap();
        assert_eq!(tl.small_waits, 0);
        // Run time per task equals perf 6.1's timehist run time column summed. Waits equal the
        // modern timehist's scheduling delay (a preempted task waits too) summed, but for a wait
        // whose run has not ended when the recording does (timehist prints a line per run), and
        // for the few tasks woken before the first switch (time 0: their wait is cut there).
        let perf = timehist_sums(&expected(&format!("{f}.sched-timehist")));
        let modern = sched_timehist_text(&file, &TimehistOptions::default()).unwrap().0;
        let modern = timehist_sums(&modern);
        let ran: Vec<u32> = perf.iter().filter(|(_, s)| s.1 > 0).map(|(&t, _)| t).collect();
        let mut cut = 0;
        for tid in &ran {
            let lane = tl.lanes.iter().find(|l| l.key == *tid).unwrap_or_else(|| panic!("{f}: no lane for {tid}"));
            let (_, run, lines) = perf[tid];
            let diff = lane.run_ns.abs_diff(run);
            assert!(diff < lines * 1000, "{f}: {}: ran {} ns, perf {run} ns", lane.label, lane.run_ns);
            let waits: Vec<_> = tl.waits.iter().filter(|w| w.tid == *tid).collect();
            assert_eq!(lane.wait_ns, waits.iter().map(|w| w.end_ns - w.start_ns).sum::<u64>());
            let ended = |w: &&&perfdata_analysis::sched::timeline::Wait| {
                tl.items.iter().any(|it| matches!(it, Item::Run(s) if s.tid == *tid && s.start_ns == w.end_ns))
            };
            let waited: u64 = waits.iter().filter(ended).map(|w| w.end_ns - w.start_ns).sum();
            if waits.iter().any(|w| w.start_ns == tl.start_ns) {
                cut += 1;
                continue;
            }
            let (delay, _, lines) = modern[tid];
            assert!(
                waited.abs_diff(delay) < lines * 1000,
                "{f}: {}: waited {waited} ns, timehist {delay} ns",
                lane.label
            );
        }
        assert!(cut <= 2, "{f}: {cut} tasks waited before the first switch");
        // Lanes by thread id; every run and wait in its task's lane.
        assert!(tl.lanes.windows(2).all(|w| w[0].key < w[1].key));
        assert!(tl.lanes.len() >= ran.len() && tl.hidden_tasks == (0, 0));
        let keys: std::collections::HashSet<u32> = tl.lanes.iter().map(|l| l.key).collect();
        assert!(tl.items.iter().all(|it| keys.contains(&it.lane(Rows::Task))));
        assert!(tl.items.iter().all(|it| match it {
            Item::Run(s) => s.tid == it.lane(Rows::Task),
            Item::Mixed { top, .. } => top.iter().all(|t| t.0.starts_with("CPU ")),
        }));
        assert!(tl.waits.iter().all(|w| keys.contains(&w.tid)));
        // The colours are the CPUs, with the lanes' time on each.
        assert!(tl.colours.iter().all(|c| c.0.starts_with("CPU ")));
        let on_cpus: u64 = tl.colours.iter().map(|c| c.1).sum();
        assert_eq!(on_cpus, tl.lanes.iter().map(|l| l.run_ns).sum::<u64>(), "{f}");
        // At most N tasks: the N longest running or waiting; the others counted.
        let three = sched_timeline(&file, &TimelineOptions { tasks: 3, ..opts.clone() }).unwrap();
        let mut busiest: Vec<(u64, u32)> = tl.lanes.iter().map(|l| (l.run_ns + l.wait_ns, l.key)).collect();
        busiest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut want: Vec<u32> = busiest[..3].iter().map(|b| b.1).collect();
        want.sort_unstable();
        assert_eq!(three.lanes.iter().map(|l| l.key).collect::<Vec<_>>(), want, "{f}");
        let rest: Vec<u64> =
            busiest[3..].iter().map(|b| tl.lanes.iter().find(|l| l.key == b.1).unwrap().run_ns).collect();
        let ran = rest.iter().filter(|&&ns| ns > 0).count() as u64;
        assert_eq!(three.hidden_tasks, (ran, rest.iter().sum()), "{f}: tasks left out, and their run time");
    }
}

#[test]
fn timeline_cpu_lanes_and_window() {
    use perfdata_analysis::sched::timeline::{sched_timeline, Rows, TimelineOptions};
    use perfdata_analysis::TimeRange;
    let file = PerfFile::open(testdata("sched-mix.data")).unwrap();
    let tl = sched_timeline(&file, &TimelineOptions::default()).unwrap();
    assert_eq!(tl.lanes.iter().map(|l| l.label.as_str()).collect::<Vec<_>>(), ["CPU 0", "CPU 1"]);
    // The colours are the comms, longest first, and share the lanes' time on a CPU.
    assert_eq!(tl.colours[0].0, "sh");
    assert!(tl.colours.windows(2).all(|w| w[0].1 >= w[1].1));
    let by_comm: u64 = tl.colours.iter().map(|c| c.1).sum();
    assert_eq!(by_comm, tl.lanes.iter().map(|l| l.run_ns).sum::<u64>());
    // Time 0 is the first switch: perf script's first sched_switch line.
    let script = expected("sched-mix.data.script");
    let first = script.lines().find(|l| l.contains("sched:sched_switch")).unwrap();
    let t = first.split_whitespace().find(|w| w.ends_with(':') && w.contains('.')).unwrap();
    assert_eq!(format!("{}.{:06}:", tl.start_ns / 1_000_000_000, tl.start_ns % 1_000_000_000 / 1000), t);
    // A window: everything inside it.
    let (a, b) = (tl.start_ns + 20_000_000, tl.start_ns + 30_000_000);
    let w =
        sched_timeline(&file, &TimelineOptions { time: Some(TimeRange { start: a, end: b }), ..Default::default() })
            .unwrap();
    assert!(w.start_ns >= a && w.end_ns <= b);
    assert!(w.items.iter().all(|it| matches!(it, perfdata_analysis::sched::timeline::Item::Run(s) if s.start_ns >= a && s.end_ns <= b)
        || matches!(it, perfdata_analysis::sched::timeline::Item::Mixed { start_ns, end_ns, .. } if *start_ns >= a && *end_ns <= b)));
    assert!(w.waits.iter().all(|x| x.start_ns >= a && x.end_ns <= b));
    assert_eq!(w.rows, Rows::Cpu);
}
