//! Block I/O pairing checked against an independent pairing of the field values that
//! `perf script -F comm,pid,tid,cpu,time,event,trace --ns` printed for the same recordings
//! (`testdata/*.data.trace`).

use perfdata_analysis::latency::block::{block_latency, BlockFilter, BlockOptions, Start};
use perfdata_analysis::latency::Error;
use perfdata_core::PerfFile;
use std::collections::HashMap;

fn testdata(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// One block event as perf printed it.
#[derive(Clone, Debug)]
struct Line {
    pid: u32,
    tid: u32,
    cpu: u32,
    time_ns: u64,
    event: String,
    dev: (u32, u32),
    rwbs: String,
    bytes: Option<u32>,
    sector: u64,
    nr_sector: u32,
    /// `[comm]` of insert/issue, `[error]` of complete.
    last: String,
}

fn parse_line(l: &str) -> Line {
    let (prefix, rest) = l.split_once(" block:").unwrap();
    let mut p = prefix.split_whitespace().rev();
    let time = p.next().unwrap().trim_end_matches(':');
    let cpu = p.next().unwrap().trim_matches(['[', ']']).parse().unwrap();
    let (pid, tid) = p.next().unwrap().split_once('/').unwrap();
    let (secs, frac) = time.split_once('.').unwrap();
    assert_eq!(frac.len(), 9, "{l}");
    let time_ns = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
    let (event, fields) = rest.split_once(": ").unwrap();
    let (before, after) = fields.split_once(" (").unwrap();
    let after = after.split_once(") ").unwrap().1;
    let b: Vec<&str> = before.split(' ').collect();
    let a: Vec<&str> = after.split(' ').collect();
    let (maj, min) = b[0].split_once(',').unwrap();
    assert_eq!(a[1], "+");
    Line {
        pid: pid.parse().unwrap(),
        tid: tid.parse().unwrap(),
        cpu,
        time_ns,
        event: event.trim().to_string(),
        dev: (maj.parse().unwrap(), min.parse().unwrap()),
        rwbs: b[1].to_string(),
        bytes: b.get(2).map(|s| s.parse().unwrap()),
        sector: a[0].parse().unwrap(),
        nr_sector: a[2].parse().unwrap(),
        last: after.rsplit_once('[').unwrap().1.trim_end_matches(']').to_string(),
    }
}

fn lines(name: &str) -> Vec<Line> {
    let text = std::fs::read_to_string(testdata(name)).unwrap();
    text.lines().filter(|l| l.contains(" block:")).map(parse_line).collect()
}

#[derive(Clone, Debug, PartialEq)]
struct Io {
    dev: (u32, u32),
    sector: u64,
    nr_sector: u32,
    bytes: u32,
    rwbs: String,
    comm: String,
    pid: u32,
    tid: u32,
    cpu: u32,
    start: u64,
    complete: u64,
    queue: Option<u64>,
    error: i32,
}

/// The dev+sector recipe, written out independently over perf's text.
fn pair(lines: &[Line], queued: bool) -> (Vec<Io>, [u64; 4]) {
    let start_ev = if queued { "block_rq_insert" } else { "block_rq_issue" };
    // key -> (start line, insert time, issue line seen after an insert start)
    type Open = (Line, Option<u64>, Option<Line>);
    let mut open: HashMap<((u32, u32), u64), Open> = HashMap::new();
    let mut inserted: HashMap<((u32, u32), u64), u64> = HashMap::new();
    let (mut unmatched, mut overwritten) = (0, 0);
    let mut out = Vec::new();
    for l in lines {
        let key = (l.dev, l.sector);
        match l.event.as_str() {
            e if e == start_ev => {
                let ins = if queued { Some(l.time_ns) } else { inserted.remove(&key) };
                if open.insert(key, (l.clone(), ins, None)).is_some() {
                    overwritten += 1;
                }
            }
            "block_rq_insert" => {
                inserted.insert(key, l.time_ns);
            }
            "block_rq_issue" => {
                if let Some(o) = open.get_mut(&key) {
                    o.2 = Some(l.clone());
                }
            }
            "block_rq_complete" => match open.remove(&key) {
                Some((s, ins, issue)) => {
                    let who = issue.clone().unwrap_or_else(|| s.clone());
                    let issue_t = if queued { issue.map(|i| i.time_ns) } else { Some(s.time_ns) };
                    out.push(Io {
                        dev: l.dev,
                        sector: l.sector,
                        nr_sector: s.nr_sector,
                        bytes: s.bytes.unwrap(),
                        rwbs: s.rwbs.clone(),
                        comm: who.last.clone(),
                        pid: who.pid,
                        tid: who.tid,
                        cpu: who.cpu,
                        start: s.time_ns,
                        complete: l.time_ns,
                        queue: issue_t.zip(ins).map(|(i, q)| i - q),
                        error: l.last.parse().unwrap(),
                    });
                }
                None => unmatched += 1,
            },
            other => panic!("{other}"),
        }
    }
    let paired = out.len() as u64;
    (out, [paired, unmatched, open.len() as u64, overwritten])
}

fn ours(name: &str, opts: &BlockOptions) -> (Vec<Io>, [u64; 4]) {
    let f = PerfFile::open(testdata(name)).unwrap();
    let r = block_latency(&f, opts).unwrap();
    let ios = r
        .ios
        .iter()
        .map(|io| {
            assert_eq!(io.latency_ns, io.complete_ns - io.start_ns);
            Io {
                dev: (io.dev_major, io.dev_minor),
                sector: io.sector,
                nr_sector: io.nr_sector,
                bytes: io.bytes,
                rwbs: io.rwbs.to_string(),
                comm: io.comm.to_string(),
                pid: io.pid,
                tid: io.tid,
                cpu: io.cpu,
                start: io.start_ns,
                complete: io.complete_ns,
                queue: io.queue_ns,
                error: io.error,
            }
        })
        .collect();
    let c = r.counts;
    (ios, [c.paired, c.unmatched_completes, c.unmatched_starts, c.overwritten_starts])
}

#[test]
fn pairing_matches_perf_script_fields() {
    for name in ["block.data", "blockrw.data"] {
        let l = lines(&format!("{name}.trace"));
        for queued in [false, true] {
            let start = if queued { Start::Insert } else { Start::Issue };
            let want = pair(&l, queued);
            let got = ours(name, &BlockOptions { start, ..Default::default() });
            assert_eq!(got.1, want.1, "{name} queued={queued}: counts");
            assert_eq!(got.0, want.0, "{name} queued={queued}");
            assert!(want.0.len() > 40, "{name}: the recording pairs I/Os");
        }
    }
    // blockrw.data has reads, writes, a flush, and a queue time for the I/Os that were inserted.
    let (ios, _) = pair(&lines("blockrw.data.trace"), false);
    for kind in ["R", "W", "FF"] {
        assert!(ios.iter().any(|io| io.rwbs.starts_with(kind)), "{kind}");
    }
    assert!(ios.iter().any(|io| io.queue.is_some()) && ios.iter().any(|io| io.queue.is_none()));
}

#[test]
fn filters_match_an_independent_selection() {
    let l = lines("blockrw.data.trace");
    let (all, _) = pair(&l, false);
    let check = |filter: BlockFilter, keep: &dyn Fn(&Io) -> bool| {
        let want: Vec<Io> = all.iter().filter(|io| keep(io)).cloned().collect();
        let (got, counts) = ours("blockrw.data", &BlockOptions { start: Start::Issue, filter });
        assert!(!want.is_empty() && want.len() < all.len());
        assert_eq!(got, want);
        assert_eq!(counts[0], all.len() as u64, "paired counts before filtering");
    };
    check(BlockFilter { rwbs: Some("*R*".into()), ..Default::default() }, &|io| io.rwbs.contains('R'));
    check(BlockFilter { comm: Some("dd".into()), ..Default::default() }, &|io| io.comm == "dd");
    let pid = all.iter().find(|io| io.comm == "dd").unwrap().pid;
    check(BlockFilter { pid: Some(pid), ..Default::default() }, &|io| io.pid == pid);
    let mid = all[all.len() / 2].complete;
    check(BlockFilter { from_ns: Some(mid), ..Default::default() }, &|io| io.complete >= mid);
    check(BlockFilter { to_ns: Some(mid), ..Default::default() }, &|io| io.complete <= mid);
    let (got, _) = ours(
        "blockrw.data",
        &BlockOptions { filter: BlockFilter { dev: Some((254, 1)), ..Default::default() }, ..Default::default() },
    );
    assert!(got.is_empty());
}

#[test]
fn missing_events_are_named() {
    let f = PerfFile::open(testdata("sched.data")).unwrap();
    match block_latency(&f, &BlockOptions::default()) {
        Err(Error::Missing(m)) => assert_eq!(
            m,
            "no block:block_rq_complete event in this file; record it with `perf record -e block:block_rq_issue \
             -e block:block_rq_complete -a`"
        ),
        other => panic!("{other:?}"),
    }
}
