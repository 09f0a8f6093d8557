//! `perfdata offcpu`: its folded, JSON and flame graph outputs against off-CPU intervals paired
//! independently here from the fields perf script printed for the same recording
//! (`testdata/offcpu.data.trace-g`: switch-out lines, each followed by its stack).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// `perfdata ARGS` with stdin from `stdin` (or nothing): (exit code, stdout, stderr).
fn run(args: &[&str], stdin: Option<PathBuf>) -> (i32, String, String) {
    let input = stdin.map_or_else(Stdio::null, |p| Stdio::from(std::fs::File::open(p).unwrap()));
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).stdin(input).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A `key=value` field of a sched_switch line.
fn field<'a>(fields: &'a str, key: &str) -> &'a str {
    let at = fields.find(&format!(" {key}=")).map(|i| i + 1).or(fields.starts_with(key).then_some(0)).unwrap();
    fields[at + key.len() + 1..].split(' ').next().unwrap()
}

/// (tid, state letter S/D/o, duration ns, stack depth) of each switch-out paired with the task's
/// next switch-in, from the printed fields.
fn intervals() -> Vec<(u32, char, u64, usize)> {
    let text = std::fs::read_to_string(testdata("offcpu.data.trace-g")).unwrap();
    let mut open: HashMap<u32, (u64, char, usize)> = HashMap::new();
    let mut out = Vec::new();
    let mut last: Option<u32> = None;
    for l in text.lines() {
        if l.starts_with('\t') {
            if let Some(o) = last.and_then(|t| open.get_mut(&t)) {
                o.2 += 1;
            }
            continue;
        }
        let Some((head, fields)) = l.split_once(" sched:sched_switch: ") else { continue };
        let (secs, ns) = head.split_whitespace().last().unwrap().trim_end_matches(':').split_once('.').unwrap();
        let t = secs.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        let (prev, next) = (field(fields, "prev_pid").parse().unwrap(), field(fields, "next_pid").parse().unwrap());
        let st = field(fields, "prev_state");
        let state = if st.contains('D') {
            'D'
        } else if st.contains('S') {
            'S'
        } else {
            'o'
        };
        last = None;
        // A dead task's last switch-out (X, Z) starts nothing.
        if prev != 0 && st.contains(['X', 'Z']) {
            open.remove(&prev);
        } else if prev != 0 {
            open.insert(prev, (t, state, 0));
            last = Some(prev);
        }
        if next != 0 {
            if let Some((s, state, depth)) = open.remove(&next) {
                out.push((next, state, t - s, depth));
            }
        }
    }
    out
}

/// The weights of folded lines.
fn folded_weights(text: &str) -> Vec<u64> {
    text.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse().unwrap()).collect()
}

#[test]
fn folded_weights_add_up_to_the_off_cpu_time() {
    let want = intervals();
    let file = testdata("offcpu.data");
    let file = file.to_str().unwrap();
    for (state, letter) in [("all", None), ("S", Some('S')), ("D", Some('D')), ("other", Some('o'))] {
        let (code, out, err) = run(&["offcpu", file, "--state", state], None);
        assert_eq!(code, 0, "{err}");
        let total: u64 = want.iter().filter(|w| letter.is_none_or(|l| l == w.1)).map(|w| w.2).sum();
        assert!(total > 0);
        assert_eq!(folded_weights(&out).iter().sum::<u64>(), total, "--state {state}");
    }
    // Stdin, and --min-us (with the recording kernel's symbols: without them they would come
    // from the running kernel's /proc/kallsyms, only right on a machine that runs it).
    let kallsyms = testdata("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9");
    let kallsyms = kallsyms.to_str().unwrap();
    let (code, out, _) =
        run(&["offcpu", "-", "--min-us", "1000", "--kallsyms", kallsyms], Some(testdata("offcpu.data")));
    assert_eq!(code, 0);
    let long: u64 = want.iter().filter(|w| w.2 >= 1_000_000).map(|w| w.2).sum();
    assert_eq!(folded_weights(&out).iter().sum::<u64>(), long);
    assert!(out.lines().all(|l| l.contains(";schedule;__schedule ")), "{out}");
}

#[test]
fn json_has_one_interval_per_line() {
    let want = intervals();
    let file = testdata("offcpu.data");
    let (code, out, err) = run(&["offcpu", file.to_str().unwrap(), "--json"], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), want.len());
    let mut got: BTreeMap<u32, u64> = BTreeMap::new();
    for (l, w) in out.lines().zip(&want) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let n = |k: &str| v[k].as_u64().unwrap();
        assert_eq!(n("end_ns") - n("start_ns"), n("duration_ns"));
        assert_eq!((n("tid") as u32, n("duration_ns")), (w.0, w.2));
        let state = v["state"].as_str().unwrap();
        assert_eq!(state.chars().next().unwrap(), w.1, "{l}");
        // The callchain: the printed frames plus the kernel and user context markers.
        let chain = v["callchain"].as_array().unwrap();
        let markers = chain.iter().filter(|c| c.as_u64().unwrap() >= (-4095i64) as u64).count();
        assert_eq!(chain.len() - markers, w.3, "{l}");
        *got.entry(w.0).or_default() += n("duration_ns");
    }
    let mut sums: BTreeMap<u32, u64> = BTreeMap::new();
    for w in &want {
        *sums.entry(w.0).or_default() += w.2;
    }
    assert_eq!(got, sums);
    let keys: Vec<String> = out
        .lines()
        .next()
        .map(|l| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(l).unwrap())
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for k in ["tid", "pid", "comm", "start_ns", "end_ns", "duration_ns", "state", "prev_state", "cpu", "callchain"] {
        assert!(keys.iter().any(|x| x == k), "{k} in {keys:?}");
    }
}

#[test]
fn flamegraph_is_an_off_cpu_graph_in_ns() {
    let dir = std::env::temp_dir().join(format!("perfdata-offcpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("off.svg");
    let file = testdata("offcpu.data");
    let (code, _, err) = run(&["offcpu", file.to_str().unwrap(), "--flamegraph", "-o", svg.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(text.contains("Off-CPU Time Flame Graph"));
    let total: u64 = intervals().iter().map(|w| w.2).sum();
    // The root frame's tooltip: every ns.
    let all = format!("<title>all ({} ns, 100%)</title>", thousands(total));
    assert!(text.contains(&all), "{all}");
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_file_without_sched_switch_is_a_clear_error() {
    let (code, out, err) = run(&["offcpu", testdata("fp.data").to_str().unwrap()], None);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err.trim(),
        "perfdata: no sched:sched_switch (nor offcpu-time) event in this file (it recorded no tracepoint); record it \
         with `perf record -e sched:sched_switch -g -a` or `perf record --off-cpu`"
    );
    let (code, _, err) = run(&["offcpu", testdata("sched.data").to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(err.contains("record it with -g"), "{err}");
}

/// A `perf record --off-cpu` recording (testdata/offcpu-bpf.data, laid out as perf's BPF off-CPU
/// writer lays them out, see gen-offcpu-bpf.py; perf 6.1 here cannot record one): its
/// `offcpu-time` samples are the intervals, weighted by their period in ns. The folded stacks are
/// perf script's stacks with their periods folded by inferno-collapse-perf (stored); the JSON rows
/// are perf script's samples; state and time filters, which such a file cannot satisfy, are a
/// clear error.
#[test]
fn perf_record_off_cpu_recordings_fold_their_offcpu_time_samples() {
    let file = testdata("offcpu-bpf.data");
    let file = file.to_str().unwrap();
    let root = testdata("folded/root");
    let root = root.to_str().unwrap();
    let (code, out, err) = run(&["offcpu", file, "--symfs", root], None);
    assert_eq!(code, 0, "{err}");
    let want = std::fs::read_to_string(testdata("offcpu-bpf.data.folded-stackcollapse-pl")).unwrap();
    assert_eq!(out, want);
    // The samples perf script printed: "spin   754/754   TIME:   PERIOD offcpu-time:".
    let script = std::fs::read_to_string(testdata("offcpu-bpf.data.script-period")).unwrap();
    let periods: Vec<u64> = script
        .lines()
        .filter(|l| l.ends_with("offcpu-time: "))
        .map(|l| l.split_whitespace().rev().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(periods.len(), 24);
    let (code, out, _) = run(&["offcpu", file, "--json"], None);
    assert_eq!(code, 0);
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ours: Vec<u64> = rows.iter().map(|r| r["duration_ns"].as_u64().unwrap()).collect();
    assert_eq!(ours, periods);
    assert!(rows.iter().all(|r| r["tid"] == 754 && r["comm"] == "spin"));
    let (_, out, _) = run(&["offcpu", file, "--json", "--min-us", "2000"], None);
    assert_eq!(out.lines().count(), periods.iter().filter(|p| **p >= 2_000_000).count());
    let (code, _, err) = run(&["offcpu", file, "--state", "D"], None);
    assert_ne!(code, 0);
    assert!(err.contains("no task states"), "{err}");
}
