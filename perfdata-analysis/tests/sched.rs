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
