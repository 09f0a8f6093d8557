//! Off-CPU intervals and folded off-CPU stacks against an independent pairing of what perf 6.1
//! printed for the same file: `testdata/offcpu.data.trace-g` is `perf script -F
//! comm,pid,tid,cpu,time,event,trace,ip,sym,dso --ns` of a `perf record -a -e sched:sched_switch
//! -g` recording (switch-out lines with their stacks). The test pairs each switch-out of a task
//! with its next switch-in from that text and folds the printed stacks itself.

use perfdata_analysis::folded::FoldedOptions;
use perfdata_analysis::latency::offcpu::{off_cpu, off_cpu_folded, OffCpu, OffCpuOptions, OffCpuState};
use perfdata_analysis::latency::Error;
use perfdata_analysis::options::TimeRange;
use perfdata_core::PerfFile;
use std::collections::{BTreeMap, HashMap};

fn testdata(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// One switch line of the perf script text, with its stack (leaf first).
#[derive(Clone, Debug)]
struct Line {
    comm: String,
    pid: u32,
    time: u64,
    prev_comm: String,
    prev_pid: u32,
    prev_state: String,
    next_pid: u32,
    /// (address as printed, symbol, module)
    frames: Vec<(u64, String, String)>,
}

fn lines() -> Vec<Line> {
    lines_of("offcpu.data.trace-g")
}

fn lines_of(name: &str) -> Vec<Line> {
    let head = regex::Regex::new(
        r"^\s*(.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+sched:sched_switch:\s+prev_comm=(.*) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> next_comm=.* next_pid=(\d+) next_prio=-?\d+$",
    )
    .unwrap();
    // The module is a path or `[name]` (which may end in ` (deleted)`), or `inlined` for the
    // inline frames perf adds to DWARF-unwound stacks.
    let frame = regex::Regex::new(r"^\t\s*([0-9a-f]+) (.*?) \(([/\[].*|inlined)\)$").unwrap();
    let text = std::fs::read_to_string(testdata(name)).unwrap();
    let mut out: Vec<Line> = Vec::new();
    for l in text.lines() {
        if let Some(c) = head.captures(l) {
            out.push(Line {
                comm: c[1].to_string(),
                pid: c[2].parse().unwrap(),
                time: c[5].parse::<u64>().unwrap() * 1_000_000_000 + c[6].parse::<u64>().unwrap(),
                prev_comm: c[7].to_string(),
                prev_pid: c[8].parse().unwrap(),
                prev_state: c[9].to_string(),
                next_pid: c[10].parse().unwrap(),
                frames: Vec::new(),
            });
            assert_eq!(c[3].parse::<u32>().unwrap(), out.last().unwrap().prev_pid, "{l}");
        } else if let Some(c) = frame.captures(l) {
            let f = (u64::from_str_radix(&c[1], 16).unwrap(), c[2].to_string(), c[3].to_string());
            out.last_mut().unwrap().frames.push(f);
        } else {
            assert!(l.is_empty(), "unparsed line {l:?}");
        }
    }
    out
}

/// An interval paired from the text.
#[derive(Clone, Debug)]
struct Want {
    out: Line,
    end: u64,
}

impl Want {
    fn state(&self) -> OffCpuState {
        let s = &self.out.prev_state;
        if s.contains('D') {
            OffCpuState::D
        } else if s.contains('S') {
            OffCpuState::S
        } else {
            OffCpuState::Other
        }
    }

    fn duration(&self) -> u64 {
        self.end - self.out.time
    }
}

/// A task's last switch-out (`X`, `Z`): it never runs again, and its tid may be reused.
fn dead(prev_state: &str) -> bool {
    prev_state.contains(['X', 'Z'])
}

/// Each switch-out (prev_pid ≠ 0, not dead) paired with the next switch-in of that task, in
/// switch-in order.
fn pair(lines: &[Line]) -> Vec<Want> {
    let mut pending: HashMap<u32, Line> = HashMap::new();
    let mut out = Vec::new();
    for l in lines {
        if l.prev_pid != 0 && dead(&l.prev_state) {
            pending.remove(&l.prev_pid);
        } else if l.prev_pid != 0 {
            pending.insert(l.prev_pid, l.clone());
        }
        if l.next_pid != 0 {
            if let Some(o) = pending.remove(&l.next_pid) {
                out.push(Want { out: o, end: l.time });
            }
        }
    }
    out
}

fn open() -> PerfFile<'static> {
    PerfFile::open(testdata("offcpu.data")).unwrap()
}

/// Folding with the recording kernel's symbols (testdata/folded's kallsyms extract, which has
/// every kernel function of these recordings' stacks): without it they would come from the
/// running kernel's /proc/kallsyms, which is only this one when the machine runs it.
fn fold_opts() -> FoldedOptions {
    let mut o = FoldedOptions::default();
    o.symbolize.kallsyms = Some(testdata("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"));
    o
}

fn key(i: &OffCpu) -> (u32, u64, u64, OffCpuState) {
    (i.tid, i.start_ns, i.end_ns, i.state)
}

fn want_key(w: &Want) -> (u32, u64, u64, OffCpuState) {
    (w.out.prev_pid, w.out.time, w.end, w.state())
}

/// Per tid: (intervals, sum of durations).
fn per_tid<'a>(it: impl Iterator<Item = (u32, u64)> + 'a) -> BTreeMap<u32, (u64, u64)> {
    let mut m: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for (tid, d) in it {
        let e = m.entry(tid).or_default();
        e.0 += 1;
        e.1 += d;
    }
    m
}

#[test]
fn intervals_match_an_independent_pairing_of_perf_script() {
    let lines = lines();
    let want = pair(&lines);
    let (got, counts) = off_cpu(&open(), &OffCpuOptions::default()).unwrap();
    assert_eq!(got.len(), want.len());
    assert_eq!(counts.intervals, want.len() as u64);
    assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want.iter().map(want_key).collect::<Vec<_>>());
    assert_eq!(
        per_tid(got.iter().map(|i| (i.tid, i.duration_ns))),
        per_tid(want.iter().map(|w| (w.out.prev_pid, w.duration())))
    );
    // Every kind of state is there, and several tasks.
    for st in [OffCpuState::S, OffCpuState::D, OffCpuState::Other] {
        assert!(want.iter().filter(|w| w.state() == st).count() >= 5, "{st:?}");
    }
    assert!(per_tid(want.iter().map(|w| (w.out.prev_pid, 0))).len() >= 10);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.duration_ns, g.end_ns - g.start_ns);
        assert_eq!(g.comm.to_string(), w.out.prev_comm);
        assert_eq!(g.pid, Some(w.out.pid));
        // The callchain: the same number of frames, the kernel ones at the same addresses (perf
        // prints user addresses relative to their map).
        let frames = g.frames().unwrap();
        assert_eq!(frames.len(), w.out.frames.len(), "{g:?}");
        for ((kernel, ip), (printed, _, dso)) in frames.iter().zip(&w.out.frames) {
            assert_eq!(*kernel, dso == "[kernel.kallsyms]", "{g:?}");
            if *kernel {
                assert_eq!(ip, printed);
            }
        }
        assert!(g.callchain.first().is_some_and(|&m| m as i64 == -128), "PERF_CONTEXT_KERNEL first");
    }
    // A task switched out (not dead) but never back in is unfinished; one switched out twice in
    // a row (perf's first switch-out on CPU 0, then on CPU 1 after its migration: the switch-in
    // on CPU 1 happened before the event was enabled there) restarts.
    let mut last_out: HashMap<u32, (u64, bool)> = HashMap::new();
    let mut last_in: HashMap<u32, u64> = HashMap::new();
    let mut twice = 0;
    for l in &lines {
        if l.prev_pid != 0 {
            let before = last_out.insert(l.prev_pid, (l.time, dead(&l.prev_state)));
            let open = |(o, dead): (u64, bool)| !dead && last_in.get(&l.prev_pid).is_none_or(|i| *i < o);
            twice += u64::from(before.is_some_and(open));
        }
        last_in.insert(l.next_pid, l.time);
    }
    let unfinished = last_out.iter().filter(|(t, (o, dead))| !dead && last_in.get(t).is_none_or(|i| i < o)).count();
    assert_eq!(counts.unfinished, unfinished as u64);
    assert_eq!(counts.overwritten, twice);
    assert_eq!(twice, 1);
    // Exiting tasks' last switch-outs are there, and start nothing.
    assert!(lines.iter().filter(|l| dead(&l.prev_state)).count() >= 5);
    assert!(got.iter().all(|i| i.prev_state & 0x30 == 0));
}

/// `S.UUU…` in units of its last decimal.
fn fixed(s: &str) -> u64 {
    let (a, b) = s.split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 10u64.pow(b.len() as u32) + b.parse::<u64>().unwrap()
}

/// perf sched timehist prints, at each switch-out of a task, its `wait time`: from its previous
/// switch-out to the previous sched_switch on this CPU (its switch-in), truncated to µs. Per
/// task, the sum of those equals the sum of our intervals (each truncated to µs) that ended by
/// the task's last printed switch-out.
#[test]
fn wait_times_per_task_equal_perf_sched_timehist() {
    let text = std::fs::read_to_string(testdata("offcpu.data.sched-timehist")).unwrap();
    // tid → (sum of wait time µs, last row's time µs)
    let mut th: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for l in text.lines().skip(3) {
        let t: Vec<&str> = l.split_whitespace().collect();
        // time [cpu] task… wait sch-delay run-time stack…
        let n = t.iter().skip(2).position(|w| fixed_ok(w)).unwrap();
        let task = t[2..2 + n].join(" ");
        if task == "<idle>" {
            continue;
        }
        let tid: u32 =
            task.rsplit_once('[').unwrap().1.trim_end_matches(']').split('/').next().unwrap().parse().unwrap();
        let e = th.entry(tid).or_default();
        e.0 += fixed(t[2 + n]);
        e.1 = e.1.max(fixed(t[0]));
    }
    let (got, _) = off_cpu(&open(), &OffCpuOptions::default()).unwrap();
    let mut ours: BTreeMap<u32, u64> = BTreeMap::new();
    for i in &got {
        if th.get(&i.tid).is_some_and(|t| i.end_ns / 1000 <= t.1) {
            *ours.entry(i.tid).or_default() += i.duration_ns / 1000;
        }
    }
    ours.retain(|_, v| *v > 0);
    let want: BTreeMap<u32, u64> = th.iter().filter(|(_, v)| v.0 > 0).map(|(k, v)| (*k, v.0)).collect();
    assert_eq!(ours, want);
    assert!(want.len() >= 8, "{want:?}");
}

/// A `N.NNN` column of timehist.
fn fixed_ok(w: &str) -> bool {
    w.split_once('.').is_some_and(|(a, b)| b.len() == 3 && [a, b].iter().all(|p| p.bytes().all(|c| c.is_ascii_digit())))
}

/// stackcollapse-perf.pl's frame name for a printed frame.
fn frame_name(sym: &str, dso: &str) -> String {
    if sym != "[unknown]" {
        return sym.to_string();
    }
    match dso {
        "[unknown]" => "[unknown]".into(),
        d => format!("[{}]", d.rsplit('/').next().unwrap()),
    }
}

#[test]
fn folded_stacks_match_an_independent_fold_weighted_by_ns() {
    let want = pair(&lines());
    let mut folded: BTreeMap<String, u64> = BTreeMap::new();
    for w in &want {
        let mut stack = vec![w.out.comm.replace(' ', "_")];
        stack.extend(w.out.frames.iter().rev().map(|(_, s, d)| frame_name(s, d)));
        *folded.entry(stack.join(";")).or_default() += w.duration();
    }
    let (got, counts) = off_cpu_folded(&open(), &OffCpuOptions::default(), &fold_opts()).unwrap();
    assert_eq!(counts.intervals, want.len() as u64);
    let total: u64 = want.iter().map(Want::duration).sum();
    assert_eq!(got.total(), total);
    assert_eq!(got.stacks, folded);
    // The heaviest stack.
    let top = folded.iter().max_by_key(|(_, w)| **w).unwrap();
    assert_eq!(got.stacks.get(top.0), Some(top.1));
    assert!(top.0.ends_with(";schedule;__schedule"), "{top:?}");
    let text = got.to_folded_string();
    assert_eq!(text.lines().count(), folded.len());
    assert!(text.lines().all(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().is_ok()));
}

/// `--call-graph dwarf,2048`: the user part of each stack is unwound from the switch-out sample's
/// stack dump (as `perfdata folded` unwinds it; where that unwinder stops earlier than perf's is
/// the unwinder's business, see tests/unwind.rs). The pairing, the weights and the kernel part of
/// every stack are checked against perf script's text: folded with kernel frames marked `_[k]`,
/// the stacks reduced to comm and kernel frames weigh what the independent fold's reduced stacks
/// weigh.
#[test]
fn dwarf_unwound_stacks_keep_the_pairing_and_kernel_frames() {
    let want = pair(&lines_of("offcpu-dwarf.data.trace-g"));
    let f = PerfFile::open(testdata("offcpu-dwarf.data")).unwrap();
    let (got, _) = off_cpu(&f, &OffCpuOptions::default()).unwrap();
    assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want.iter().map(want_key).collect::<Vec<_>>());
    // The python process of this recording ran perfdata's own Python extension, which is
    // rebuilt since (and absent on a fresh checkout): its user stacks depend on the machine, so
    // it is left out of the stack comparisons.
    let ours_python = |k: &str| k.starts_with("python;");
    let mut reduced_want: BTreeMap<String, u64> = BTreeMap::new();
    for w in want.iter().filter(|w| w.out.comm != "python") {
        let mut stack = vec![w.out.comm.replace(' ', "_")];
        stack.extend(w.out.frames.iter().rev().filter(|f| f.2 == "[kernel.kallsyms]").map(|f| f.1.clone()));
        *reduced_want.entry(stack.join(";")).or_default() += w.duration();
    }
    let fold = FoldedOptions { annotate_kernel: true, ..fold_opts() };
    let (stacks, _) = off_cpu_folded(&f, &OffCpuOptions::default(), &fold).unwrap();
    assert_eq!(stacks.total(), want.iter().map(Want::duration).sum::<u64>());
    let mut reduced: BTreeMap<String, u64> = BTreeMap::new();
    let mut user = 0;
    for (k, w) in stacks.stacks.iter().filter(|(k, _)| !ours_python(k)) {
        let frames: Vec<&str> = k.split(';').collect();
        let kernel: Vec<&str> = frames[1..].iter().filter_map(|f| f.strip_suffix("_[k]")).collect();
        user += usize::from(frames.len() > kernel.len() + 2);
        let stack = std::iter::once(frames[0]).chain(kernel).collect::<Vec<_>>().join(";");
        *reduced.entry(stack).or_default() += w;
    }
    assert_eq!(reduced, reduced_want);
    // User stacks were unwound: more than one user frame on many stacks (the callchain of a
    // dwarf recording holds one user address at most).
    assert!(user >= 10, "{user}");
    assert!(stacks.stacks.keys().any(|k| k.starts_with("sleep;[sleep];__libc_start_main_impl;")));
    // Whole stacks, user frames included, against the fold of perf's printed stacks: the shell's
    // children are unwound through dash into __libc_start_main_impl as perf does (they stopped
    // at the libc frame while the synthesized FORK records still cloned the parent's maps, whose
    // other libc mappings moved the .eh_frame_hdr base).
    let mut whole_want: BTreeMap<String, u64> = BTreeMap::new();
    for w in want.iter().filter(|w| w.out.comm != "python") {
        let mut stack = vec![w.out.comm.replace(' ', "_")];
        stack.extend(w.out.frames.iter().rev().map(|(_, s, d)| frame_name(s, d)));
        *whole_want.entry(stack.join(";")).or_default() += w.duration();
    }
    let (whole, _) = off_cpu_folded(&f, &OffCpuOptions::default(), &fold_opts()).unwrap();
    let same: u64 = whole_want.iter().map(|(k, w)| (*w).min(whole.stacks.get(k).copied().unwrap_or(0))).sum();
    let total: u64 = whole_want.values().sum();
    let differing: Vec<&String> = whole_want.keys().filter(|k| whole.stacks.get(*k) != whole_want.get(*k)).collect();
    assert!(
        same == total,
        "{:.2}% of the time on identical stacks; differing: {differing:#?}",
        100.0 * same as f64 / total as f64
    );
    assert!(whole
        .stacks
        .keys()
        .any(|k| k.starts_with("sh;[dash];__libc_start_main_impl;") && k.contains(";__GI___wait4;")));
}

#[test]
fn filters_select_what_an_independent_selection_selects() {
    let want = pair(&lines());
    let f = open();
    let check = |opts: OffCpuOptions, keep: &dyn Fn(&Want) -> bool| {
        let (got, _) = off_cpu(&f, &opts).unwrap();
        let sel: Vec<_> = want.iter().filter(|w| keep(w)).map(want_key).collect();
        assert!(!sel.is_empty(), "{opts:?}");
        assert_eq!(got.iter().map(key).collect::<Vec<_>>(), sel, "{opts:?}");
        let (stacks, _) = off_cpu_folded(&f, &opts, &fold_opts()).unwrap();
        assert_eq!(stacks.total(), want.iter().filter(|w| keep(w)).map(Want::duration).sum::<u64>());
    };
    for st in [OffCpuState::S, OffCpuState::D, OffCpuState::Other] {
        check(OffCpuOptions { state: Some(st), ..Default::default() }, &|w| w.state() == st);
    }
    check(OffCpuOptions { min_ns: 1_000_000, ..Default::default() }, &|w| w.duration() >= 1_000_000);
    let dd = want.iter().find(|w| w.out.prev_comm == "dd").unwrap().out.clone();
    check(OffCpuOptions { tid: Some(dd.prev_pid), ..Default::default() }, &|w| w.out.prev_pid == dd.prev_pid);
    check(OffCpuOptions { pid: Some(dd.pid), ..Default::default() }, &|w| w.out.pid == dd.pid);
    let mid = want[want.len() / 2].out.time;
    let range = TimeRange { start: mid, end: u64::MAX };
    check(OffCpuOptions { time: Some(range), ..Default::default() }, &|w| w.out.time >= mid);
    let range = TimeRange { start: 0, end: mid };
    check(OffCpuOptions { time: Some(range), state: Some(OffCpuState::D), ..Default::default() }, &|w| {
        w.out.time <= mid && w.state() == OffCpuState::D
    });
    // S + D + other = all.
    let all: u64 = want.iter().map(Want::duration).sum();
    let sum: u64 = [OffCpuState::S, OffCpuState::D, OffCpuState::Other]
        .iter()
        .map(|st| off_cpu(&f, &OffCpuOptions { state: Some(*st), ..Default::default() }).unwrap().0)
        .flat_map(|v| v.into_iter().map(|i| i.duration_ns))
        .sum();
    assert_eq!(sum, all);
    let (none, counts) = off_cpu(&f, &OffCpuOptions { min_ns: u64::MAX, ..Default::default() }).unwrap();
    assert!(none.is_empty());
    assert_eq!(counts.too_short, want.len() as u64);
}

/// Pipe-format recordings (tracing data in a HEADER_TRACING_DATA record, formats known only from
/// there on), without -g: their intervals, at the µs perf script prints, pair as the printed
/// fields do.
#[test]
fn pipe_recordings_pair_like_their_perf_script_lines() {
    for name in ["pipe-tp.data", "sched-pipe.data"] {
        let text = std::fs::read_to_string(testdata(&format!("{name}.script"))).unwrap();
        let mut pending: HashMap<u32, (u64, OffCpuState)> = HashMap::new();
        let mut want = Vec::new();
        for l in text.lines() {
            let Some((head, fields)) = l.split_once("sched:sched_switch: ") else { continue };
            let t = fixed(head.split_whitespace().last().unwrap().trim_end_matches(':'));
            let get = |k: &str| fields.split(' ').find_map(|f| f.strip_prefix(k)).unwrap();
            let (prev, next): (u32, u32) = (get("prev_pid=").parse().unwrap(), get("next_pid=").parse().unwrap());
            let st = get("prev_state=");
            let state = if st.contains('D') {
                OffCpuState::D
            } else if st.contains('S') {
                OffCpuState::S
            } else {
                OffCpuState::Other
            };
            if prev != 0 && dead(st) {
                pending.remove(&prev);
            } else if prev != 0 {
                pending.insert(prev, (t, state));
            }
            if let Some((s, state)) = pending.remove(&next).filter(|_| next != 0) {
                want.push((next, s, t, state));
            }
        }
        let f = PerfFile::open(testdata(name)).unwrap();
        let (got, _) = off_cpu(&f, &OffCpuOptions::default()).unwrap();
        let got: Vec<_> = got.iter().map(|i| (i.tid, i.start_ns / 1000, i.end_ns / 1000, i.state)).collect();
        assert!(want.len() > 50, "{name}: {}", want.len());
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn missing_sched_switch_is_named() {
    let f = PerfFile::open(testdata("fp.data")).unwrap();
    let missing = "no sched:sched_switch (nor offcpu-time) event in this file (it recorded no tracepoint); record \
                   it with `perf record -e sched:sched_switch -g -a` or `perf record --off-cpu`";
    match off_cpu(&f, &OffCpuOptions::default()) {
        Err(Error::Missing(m)) => assert_eq!(m, missing),
        other => panic!("{other:?}"),
    }
    match off_cpu_folded(&f, &OffCpuOptions::default(), &FoldedOptions::default()) {
        Err(Error::Missing(m)) => assert_eq!(m, missing),
        other => panic!("{other:?}"),
    }
    // sched_switch without -g: intervals, but no stacks to fold.
    let f = PerfFile::open(testdata("sched.data")).unwrap();
    assert!(!off_cpu(&f, &OffCpuOptions::default()).unwrap().0.is_empty());
    match off_cpu_folded(&f, &OffCpuOptions::default(), &FoldedOptions::default()) {
        Err(Error::Missing(m)) => assert_eq!(m, "sched:sched_switch has no callchains (record it with -g)"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn truncated_and_mutated_files_never_panic() {
    let data = std::fs::read(testdata("offcpu.data")).unwrap();
    let full = off_cpu(&open(), &OffCpuOptions::default()).unwrap().0.len();
    let mut partial = 0;
    for len in (0..data.len()).step_by(331).chain([data.len() - 1, 4096, 8]) {
        let Ok(f) = PerfFile::from_vec(data[..len].to_vec()) else { continue };
        if let Ok((v, _)) = off_cpu(&f, &OffCpuOptions::default()) {
            assert!(v.len() <= full);
            partial += usize::from(!v.is_empty());
        }
        let _ = off_cpu_folded(&f, &OffCpuOptions::default(), &FoldedOptions::default());
    }
    assert!(partial > 0);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..100 {
        let mut d = data.clone();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % d.len() as u64) as usize;
            d[at] = (seed >> 32) as u8;
        }
        let Ok(f) = PerfFile::from_vec(d) else { continue };
        let _ = off_cpu(&f, &OffCpuOptions::default());
        let _ = off_cpu_folded(&f, &OffCpuOptions::default(), &FoldedOptions::default());
    }
}
