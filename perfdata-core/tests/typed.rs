//! The typed iterators: `file.samples()` counts what `perf report --stats` counts, and
//! `file.tracepoints("sched:sched_switch")` gives the field values `perf script` printed for the
//! same file (stored beside it), with the filters narrowing the same set as perf's lines do.

mod common;

use perfdata_core::{Error, PerfFile};
use std::path::Path;

/// (time in µs, cpu, prev_comm, prev_pid, next_comm, next_pid) of each sched_switch line perf
/// printed.
fn perf_switches(script: &Path) -> Vec<(u64, u32, String, i64, String, i64)> {
    let text = std::fs::read_to_string(script).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.contains("sched:sched_switch:")) {
        let cpu: u32 = line.split_once('[').unwrap().1.split_once(']').unwrap().0.parse().unwrap();
        let ts = line.split_once("] ").unwrap().1.trim_start().split_once(':').unwrap().0;
        let (s, us) = ts.split_once('.').unwrap();
        let time_us = s.parse::<u64>().unwrap() * 1_000_000 + us.parse::<u64>().unwrap();
        let field = |name: &str| {
            let at = line.find(&format!(" {name}=")).unwrap() + name.len() + 2;
            line[at..].split(' ').next().unwrap().to_string()
        };
        out.push((
            time_us,
            cpu,
            field("prev_comm"),
            field("prev_pid").parse().unwrap(),
            field("next_comm"),
            field("next_pid").parse().unwrap(),
        ));
    }
    out
}

fn ours(file: &PerfFile<'_>, cpu: Option<u32>) -> Vec<(u64, u32, String, i64, String, i64)> {
    let mut it = file.tracepoints("sched:sched_switch").unwrap();
    if let Some(c) = cpu {
        it = it.cpu(c);
    }
    it.map(|s| {
        let s = s.unwrap();
        let text = |n: &str| s.field(n).unwrap().as_str().unwrap().into_owned();
        let int = |n: &str| s.field(n).unwrap().as_i64().unwrap();
        (
            s.sample.time().unwrap() / 1000,
            s.sample.cpu().unwrap(),
            text("prev_comm"),
            int("prev_pid"),
            text("next_comm"),
            int("next_pid"),
        )
    })
    .collect()
}

#[test]
fn sched_switch_fields_equal_perf_script() {
    for name in ["sched.data", "pipe-tp.data"] {
        let path = common::testdata().join(name);
        let want = perf_switches(&path.with_extension("data.script"));
        assert!(want.len() > 50, "{name}: {} switches in perf's output", want.len());
        let file = PerfFile::open(&path).unwrap();
        assert_eq!(ours(&file, None), want, "{name}");
        // CPU filter: the lines perf printed for CPU 0.
        let cpu0: Vec<_> = want.iter().filter(|w| w.1 == 0).cloned().collect();
        assert!(!cpu0.is_empty() && cpu0.len() < want.len());
        assert_eq!(ours(&file, Some(0)), cpu0, "{name}: cpu 0");
        // A pipe stream learns the format from its HEADER_TRACING_DATA record.
        let stream = PerfFile::from_reader(std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(ours(&stream, None), want, "{name}: from_reader");
    }
}

#[test]
fn time_pid_and_event_filters_narrow_like_perf_lines() {
    let path = common::testdata().join("sched.data");
    let want = perf_switches(&path.with_extension("data.script"));
    let file = PerfFile::open(&path).unwrap();
    let (a, b) = (want[10].0 * 1000, want[40].0 * 1000);
    // perf's µs times truncate: the ns range [a, b + 999] holds exactly the lines 10..=40's µs.
    let n = file.tracepoints("sched:sched_switch").unwrap().time(a..b + 1000).count();
    let perf_n = want.iter().filter(|w| w.0 * 1000 >= a && w.0 * 1000 <= b).count();
    assert_eq!(n, perf_n);
    let pid = want[0].3 as u32;
    let by_pid = file.samples().unwrap().event("sched:sched_switch").pid(pid).count();
    let perf_by_pid = want.iter().filter(|w| w.3 == i64::from(pid)).count();
    assert_eq!(by_pid, perf_by_pid, "switches out of pid {pid}");
    assert_eq!(file.samples().unwrap().event("no-such-event").count(), 0);
}

#[test]
fn samples_count_what_perf_report_stats_counts() {
    let mut checked = 0;
    for f in common::testdata_files() {
        let base = f.display().to_string();
        let Ok(stats) = std::fs::read_to_string(format!("{base}.stats")) else { continue };
        if Path::new(&format!("{base}.stats.err")).exists() {
            continue;
        }
        let Some(want) = stats
            .lines()
            .find(|l| l.trim_start().starts_with("SAMPLE events:"))
            .map(|l| l.split_whitespace().nth(2).unwrap().parse::<usize>().unwrap())
        else {
            continue;
        };
        let file = PerfFile::open(&f).unwrap();
        let got = file.samples().unwrap().filter(Result::is_ok).count();
        assert_eq!(got, want, "{base}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked} files checked");
}

#[test]
fn missing_tracing_data_or_event_is_a_clear_error() {
    let fp = PerfFile::open(common::testdata().join("fp.data")).unwrap();
    let Err(Error::Unsupported(m)) = fp.tracepoints("sched:sched_switch") else { panic!("fp.data") };
    assert_eq!(m, "no tracing data in this file: sched:sched_switch cannot be decoded");
    let block = PerfFile::open(common::testdata().join("block.data")).unwrap();
    let Err(Error::Unsupported(m)) = block.tracepoints("sched:sched_switch") else { panic!("block.data") };
    assert_eq!(m, "no sched:sched_switch event in this file");
    assert!(block.tracepoints("sched_switch").is_err());
}
