//! Conformance with perf: for every committed recording and every shared-corpus file that perf 6.1
//! reads, the records we deliver in time order equal what `perf report -D` printed (stored beside
//! the files): same sequence of offsets, types and sizes, the same raw bytes where the dump kept
//! them, and the same decoded sample, comm, fork/exit, mmap and trailer fields.

mod common;

use perfdata_core::attr::sample_type as st;
use perfdata_core::record::{Mmap2Id, RecordKind};
use perfdata_core::{Format, Order, PerfFile, ReadOptions};
use regex::Regex;
use std::path::Path;

/// One record as perf's dump shows it.
#[derive(Debug, Default)]
struct PerfRecord {
    offset: u64,
    size: u64,
    type_: u32,
    raw: Vec<u8>,
    /// Tokens printed before the offset on the summary line (cpu and/or time).
    prefix: Vec<String>,
    /// The summary after `PERF_RECORD_`.
    summary: String,
    callchain: Option<Vec<u64>>,
    /// Every line of the block after the summary line.
    details: Vec<String>,
}

/// The lines perf's `dump_sample` prints for the sample fields besides the summary and callchain
/// (perf 6.1 tools/perf/util/session.c), rendered from our decoding.
fn perf_detail_lines(s: &perfdata_core::Sample<'_>, ev: &perfdata_core::Event) -> Vec<String> {
    let mut out = Vec::new();
    let t = ev.attr.sample_type;
    if let Some(b) = &s.branch_stack() {
        out.push(format!("... branch stack: nr:{}", b.nr));
        for (i, e) in b.entries().enumerate() {
            let flag = |c: bool, ch: &str| if c { ch.to_string() } else { " ".to_string() };
            out.push(format!(
                "..... {:2}: {:016x} -> {:016x} {} cycles {}{}{}{} {:x}",
                i,
                e.from,
                e.to,
                e.cycles(),
                flag(e.mispred(), "M"),
                flag(e.predicted(), "P"),
                flag(e.abort(), "A"),
                flag(e.in_tx(), "T"),
                e.flags >> 33
            ));
        }
    }
    for (regs, what) in [(&s.regs_user(), "user"), (&s.regs_intr(), "intr")] {
        // perf prints registers only when they were taken (ABI not none: a kernel thread's
        // sample has no user registers).
        if let Some(r) = regs.as_ref().filter(|r| r.abi != 0) {
            let abi = match r.abi {
                0 => "none",
                1 => "32-bit",
                2 => "64-bit",
                _ => "unknown",
            };
            out.push(format!("... {what} regs: mask {:#x} ABI {abi}", r.mask));
            for (bit, v) in r.iter() {
                let name = perfdata_core::sample::x86_64_reg_name(bit).map(str::to_uppercase).unwrap_or_default();
                out.push(format!(".... {name:<5} 0x{v:016x}"));
            }
        }
    }
    if let Some(w) = s.weight() {
        if t & st::WEIGHT_STRUCT != 0 {
            let (a, b, c) = s.weight_struct().unwrap();
            out.push(format!("... weight: {a},{b:#x},{c:#x}").replace(",0x0", ",0x0"));
        } else {
            out.push(format!("... weight: {w}"));
        }
    }
    if let Some(d) = s.data_src() {
        out.push(format!(" . data_src: {d:#x}"));
    }
    if let Some(p) = s.phys_addr() {
        out.push(format!(" .. phys_addr: {p:#x}"));
    }
    if let Some(x) = s.transaction() {
        out.push(format!("... transaction: {x:x}"));
    }
    if let Some(r) = &s.read() {
        out.push("... sample_read:".to_string());
        if let Some(e) = r.time_enabled() {
            out.push(format!("...... time enabled {e:016x}"));
        }
        if let Some(e) = r.time_running() {
            out.push(format!("...... time running {e:016x}"));
        }
        if let Some(nr) = r.nr() {
            out.push(format!(".... group nr {nr}"));
        }
        for v in r.values() {
            let mut line = format!("..... id {:016x}, value {:016x}", v.id.unwrap_or(0), v.value);
            if let Some(l) = v.lost {
                line.push_str(&format!(", lost {l}"));
            }
            out.push(line);
        }
    }
    out
}

fn parse_dump(text: &str) -> Vec<PerfRecord> {
    let head = Regex::new(r"^(0x[0-9a-f]+|0)@\S+ \[(0x[0-9a-f]+)\]: event: (\d+)$").unwrap();
    let summ = Regex::new(r"^(.*?)(0x[0-9a-f]+|0) \[(0x[0-9a-f]+)\]: PERF_RECORD_(.*)$").unwrap();
    let raw = Regex::new(r"^\.  [0-9a-f]{4}:  ((?:[0-9a-f]{2} )+)").unwrap();
    let chain_entry = Regex::new(r"^\.\.\.\.\.\s+\d+: ([0-9a-f]+)").unwrap();
    let mut out: Vec<PerfRecord> = Vec::new();
    let mut in_chain = false;
    for line in text.lines() {
        if let Some(c) = head.captures(line) {
            out.push(PerfRecord {
                offset: u64::from_str_radix(c[1].trim_start_matches("0x"), 16).unwrap(),
                size: u64::from_str_radix(&c[2][2..], 16).unwrap(),
                type_: c[3].parse().unwrap(),
                ..Default::default()
            });
            in_chain = false;
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        if !cur.summary.is_empty() {
            cur.details.push(line.trim_end().to_string());
        }
        if let Some(c) = raw.captures(line) {
            cur.raw.extend(c[1].split_whitespace().map(|h| u8::from_str_radix(h, 16).unwrap()));
        } else if cur.summary.is_empty() && line.contains("PERF_RECORD_") {
            if let Some(c) = summ.captures(line) {
                cur.prefix = c[1].split_whitespace().map(str::to_string).collect();
                cur.summary = c[4].to_string();
            }
        } else if let Some(rest) = line.strip_prefix("... FP chain: nr:") {
            let _ = rest;
            cur.callchain = Some(Vec::new());
            in_chain = true;
        } else if in_chain {
            match chain_entry.captures(line) {
                Some(c) => cur.callchain.as_mut().unwrap().push(u64::from_str_radix(&c[1], 16).unwrap()),
                None => in_chain = false,
            }
        }
    }
    out
}

fn hexnum(s: &str) -> u64 {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse::<i64>().map(|v| v as u64).unwrap_or_else(|_| s.parse::<u64>().unwrap()),
    }
}

/// Compare one file with perf's dump; returns the number of records compared.
/// `perf_failed`: perf stopped with an error part-way (its dump is a prefix of the file).
fn check_file(path: &Path, dump: &str, perf_failed: bool) -> usize {
    let name = path.display().to_string();
    let perf = parse_dump(dump);
    assert!(!perf.is_empty(), "{name}: empty perf dump");
    let file = PerfFile::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let pipe = file.header().format == Format::Pipe;
    let combined: u64 = file.events().iter().fold(0, |a, e| a | e.attr.sample_type);
    let sample_id_all = file.events().first().is_some_and(|e| e.attr.sample_id_all());
    let mut recs =
        file.records_with(ReadOptions { order: Order::Time, include_compressed: false, ..Default::default() }).unwrap();
    let sample_re = Regex::new(
        r"^SAMPLE\(IP, (0x[0-9a-f]+)\): (-?\d+)/(-?\d+): (0x[0-9a-f]+|0) period: (\d+) addr: (0x[0-9a-f]+|0)",
    )
    .unwrap();
    let comm_re = Regex::new(r"^COMM(?: exec)?: (.*):(-?\d+)/(-?\d+)$").unwrap();
    let task_re = Regex::new(r"^(FORK|EXIT)\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)$").unwrap();
    // perf prints `%#x`, which gives a bare 0 for zero.
    let mmap_re =
        Regex::new(r"^MMAP2? (-?\d+)/(-?\d+): \[(0x[0-9a-f]+|0)\((0x[0-9a-f]+|0)\) @ (0x[0-9a-f]+|0)").unwrap();
    let mut n = 0;
    for (i, p) in perf.iter().enumerate() {
        let r = match recs.next_record() {
            Some(Ok(r)) => r,
            Some(Err(e)) => panic!("{name}: record {i} (perf: {:#x} type {}): our error {e}", p.offset, p.type_),
            None => panic!("{name}: we ended after {i} records, perf has {} (next at {:#x})", perf.len(), p.offset),
        };
        let ctx = format!("{name}: record {i} at {:#x} ({})", p.offset, r.type_name());
        let our_off = if pipe { r.pos.offset - 16 } else { r.pos.offset };
        assert_eq!(
            (our_off, u64::from(r.header.size), r.header.type_),
            (p.offset, p.size, p.type_),
            "{ctx}: offset/size/type"
        );
        if !p.raw.is_empty() {
            assert_eq!(r.bytes, &p.raw[..], "{ctx}: raw bytes");
        }
        // cpu/time printed before the offset, when perf knows them.
        let (cpu, time) = match &r.kind {
            RecordKind::Sample(s) => (s.cpu(), s.time()),
            _ => (r.sample_id.and_then(|s| s.cpu()), r.sample_id.and_then(|s| s.time())),
        };
        if r.header.type_ < 64 && (r.header.type_ == 9 || sample_id_all) && !p.prefix.is_empty() && p.prefix[0] != "-1"
        {
            let mut toks = p.prefix.iter();
            if combined & st::CPU != 0 {
                let t = toks.next().unwrap();
                if let Some(c) = cpu {
                    assert_eq!(hexnum(t), u64::from(c), "{ctx}: cpu");
                }
            }
            if combined & st::TIME != 0 {
                let t = toks.next().unwrap();
                if let Some(tm) = time {
                    assert_eq!(hexnum(t), tm, "{ctx}: time");
                }
            }
        }
        match &r.kind {
            RecordKind::Sample(s) => {
                let c = sample_re.captures(&p.summary).unwrap_or_else(|| panic!("{ctx}: perf summary {:?}", p.summary));
                let ev = r.event.unwrap();
                assert_eq!(hexnum(&c[1]), u64::from(r.header.misc), "{ctx}: misc");
                if let (Some(pid), Some(tid)) = (s.pid(), s.tid()) {
                    assert_eq!((hexnum(&c[2]) as u32, hexnum(&c[3]) as u32), (pid, tid), "{ctx}: pid/tid");
                }
                assert_eq!(hexnum(&c[4]), s.ip().unwrap_or(0), "{ctx}: ip");
                let period = s.period().unwrap_or(ev.attr.sample_period);
                assert_eq!(hexnum(&c[5]), period, "{ctx}: period");
                assert_eq!(hexnum(&c[6]), s.addr().unwrap_or(0), "{ctx}: addr");
                for want in perf_detail_lines(s, ev) {
                    let want = want.trim_end().to_string();
                    assert!(
                        p.details.contains(&want),
                        "{ctx}: perf did not print {want:?}; it printed {:#?}",
                        &p.details[..p.details.len().min(12)]
                    );
                }
                if let Some(pc) = &p.callchain {
                    let ours: Vec<u64> = s.callchain().map(|c| c.to_vec()).unwrap_or_default();
                    assert_eq!(&ours, pc, "{ctx}: callchain");
                }
            }
            RecordKind::Comm(c) => {
                let m = comm_re.captures(&p.summary).unwrap_or_else(|| panic!("{ctx}: perf summary {:?}", p.summary));
                assert_eq!(&m[1], String::from_utf8_lossy(c.comm), "{ctx}: comm");
                assert_eq!((hexnum(&m[2]) as u32, hexnum(&m[3]) as u32), (c.pid, c.tid), "{ctx}: pid/tid");
                assert_eq!(p.summary.starts_with("COMM exec"), c.exec, "{ctx}: exec");
            }
            RecordKind::Fork(t) | RecordKind::Exit(t) => {
                let m = task_re.captures(&p.summary).unwrap_or_else(|| panic!("{ctx}: perf summary {:?}", p.summary));
                let got = [t.pid, t.tid, t.ppid, t.ptid];
                let want = [2, 3, 4, 5].map(|k| hexnum(&m[k]) as u32);
                assert_eq!(got, want, "{ctx}: pid:tid ppid:ptid");
            }
            RecordKind::Mmap(mm) => {
                let m = mmap_re.captures(&p.summary).unwrap_or_else(|| panic!("{ctx}: perf summary {:?}", p.summary));
                assert_eq!(
                    (hexnum(&m[1]) as u32, hexnum(&m[2]) as u32, hexnum(&m[3]), hexnum(&m[4]), hexnum(&m[5])),
                    (mm.pid, mm.tid, mm.addr, mm.len, mm.pgoff),
                    "{ctx}"
                );
                assert!(p.summary.ends_with(&*String::from_utf8_lossy(mm.filename)), "{ctx}: filename");
            }
            RecordKind::Mmap2(mm) => {
                let m = mmap_re.captures(&p.summary).unwrap_or_else(|| panic!("{ctx}: perf summary {:?}", p.summary));
                assert_eq!(
                    (hexnum(&m[1]) as u32, hexnum(&m[2]) as u32, hexnum(&m[3]), hexnum(&m[4]), hexnum(&m[5])),
                    (mm.pid, mm.tid, mm.addr, mm.len, mm.pgoff),
                    "{ctx}"
                );
                assert!(p.summary.ends_with(&*String::from_utf8_lossy(mm.filename)), "{ctx}: filename {:?}", p.summary);
                match mm.id {
                    Mmap2Id::Inode { maj, min, ino, ino_generation } => {
                        let want = format!(" {:02x}:{:02x} {} {}]", maj, min, ino, ino_generation);
                        assert!(p.summary.contains(&want), "{ctx}: {want:?} not in {:?}", p.summary);
                    }
                    Mmap2Id::BuildId { build_id, .. } => {
                        let hex: String = build_id.iter().map(|b| format!("{b:02x}")).collect();
                        assert!(p.summary.contains(&hex), "{ctx}: build id {hex} not in {:?}", p.summary);
                    }
                }
            }
            _ => {}
        }
        n += 1;
    }
    if let (Some(Ok(r)), false) = (recs.next_record(), perf_failed) {
        panic!("{name}: perf's dump ended but we have more records (next at {} type {})", r.pos, r.type_name());
    }
    n
}

#[test]
fn committed_recordings_match_perf_dump() {
    let files = common::testdata_files();
    let mut checked = 0;
    for f in &files {
        let mut dump = f.clone().into_os_string();
        dump.push(".dump");
        let Some(text) = common::read_output(Path::new(&dump)) else {
            continue;
        };
        if text.lines().filter(|l| l.contains("@")).count() == 0 {
            continue; // perf could not read it (killed recording): covered by the damaged-input tests
        }
        let mut err = dump.clone();
        err.push(".err");
        let perf_failed = std::fs::read_to_string(&err).is_ok_and(|e| e.contains("Error"));
        let n = check_file(f, &text, perf_failed);
        assert!(n > 0);
        checked += 1;
    }
    if !files.is_empty() {
        assert!(checked >= files.len() / 2, "only {checked} of {} recordings had a perf dump", files.len());
    }
}

#[test]
fn shared_corpus_matches_perf_dump() {
    let files = common::corpus_files();
    if files.is_empty() {
        eprintln!("../shared/corpus absent: skipped");
        return;
    }
    let mut checked = 0;
    for f in files.iter().filter(|f| !f.to_string_lossy().contains("qfuzz")) {
        let Some(text) = common::read_output(&common::corpus_dump_path(f)) else {
            continue;
        };
        if !text.contains("PERF_RECORD_") {
            continue; // perf rejects this file; the robustness tests cover it
        }
        let err = std::fs::read_to_string(common::corpus_dump_path(f).with_extension("dump.err")).unwrap_or_default();
        check_file(f, &text, err.contains("Error"));
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} corpus files had a stored perf dump");
}
