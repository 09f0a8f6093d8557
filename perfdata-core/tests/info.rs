//! `HeaderInfo` against perf's own `perf report --header-only -I` output (the `.header` file beside
//! every committed recording, and testdata/corpus-perf/<sub>/<name>.header for the shared corpus):
//! first every value perf prints, parsed out of perf's text and compared field by field with the
//! decoded structure; then the whole text, line by line, with `HeaderInfo::perf_text`.

mod common;

use perfdata_core::header::feature as bit;
use perfdata_core::info::{EventInfo, HeaderInfo};
use perfdata_core::PerfFile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One file with perf's view of it.
struct Case {
    file: PathBuf,
    /// perf's `.header` text.
    perf: String,
}

impl Case {
    fn name(&self) -> String {
        self.file.display().to_string()
    }
}

/// Every committed recording and every shared-corpus file that perf could read (perf refused some:
/// their stored exit code is not 0 and their `.header` holds nothing to compare).
fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for f in common::testdata_files() {
        let mut h = f.clone().into_os_string();
        h.push(".header");
        if let Some(perf) = common::read_output(&PathBuf::from(h)) {
            v.push(Case { file: f, perf });
        }
    }
    for f in common::corpus_files() {
        let Some(perf) = common::read_output(&common::corpus_output_path(&f, "header")) else { continue };
        let rc = std::fs::read_to_string(common::corpus_output_path(&f, "rc")).unwrap_or_default();
        // "dump N header M": perf's exit code for the header output.
        let header_rc = rc.split_whitespace().skip_while(|w| *w != "header").nth(1).unwrap_or("0");
        if header_rc != "0" {
            // e.g. mslt/perf.data: perf 6.1 rejects its 136-byte attrs ("incompatible file format").
            assert!(!perf.contains("# hostname"), "{}: perf failed but printed a header", f.display());
            continue;
        }
        v.push(Case { file: f, perf });
    }
    v
}

/// perf's text, searchable by line prefix.
struct Perf<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Perf<'a> {
    fn new(text: &'a str) -> Self {
        Perf { lines: text.lines().collect() }
    }
    /// The rest of every line starting with `prefix`.
    fn all(&self, prefix: &str) -> Vec<&'a str> {
        self.lines.iter().filter_map(|l| l.strip_prefix(prefix)).collect()
    }
    /// The rest of the one line starting with `prefix`.
    fn one(&self, prefix: &str) -> Option<&'a str> {
        let v = self.all(prefix);
        assert!(v.len() <= 1, "more than one {prefix:?} line");
        v.first().copied()
    }
}

fn num<T: std::str::FromStr>(s: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    s.trim().parse().unwrap_or_else(|e| panic!("not a number: {s:?}: {e:?}"))
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap()
}

/// perf_event.h bit numbers of the names perf prints, written out here independently of the crate.
const SAMPLE_BITS: &[(&str, u32)] = &[
    ("IP", 0),
    ("TID", 1),
    ("TIME", 2),
    ("ADDR", 3),
    ("READ", 4),
    ("CALLCHAIN", 5),
    ("ID", 6),
    ("CPU", 7),
    ("PERIOD", 8),
    ("STREAM_ID", 9),
    ("RAW", 10),
    ("BRANCH_STACK", 11),
    ("REGS_USER", 12),
    ("STACK_USER", 13),
    ("WEIGHT", 14),
    ("DATA_SRC", 15),
    ("IDENTIFIER", 16),
    ("REGS_INTR", 18),
    ("PHYS_ADDR", 19),
    ("AUX", 20),
    ("CGROUP", 21),
    ("DATA_PAGE_SIZE", 22),
    ("CODE_PAGE_SIZE", 23),
    ("WEIGHT_STRUCT", 24),
];
const READ_BITS: &[(&str, u32)] =
    &[("TOTAL_TIME_ENABLED", 0), ("TOTAL_TIME_RUNNING", 1), ("ID", 2), ("GROUP", 3), ("LOST", 4)];
const BRANCH_BITS: &[(&str, u32)] = &[
    ("USER", 0),
    ("KERNEL", 1),
    ("HV", 2),
    ("ANY", 3),
    ("ANY_CALL", 4),
    ("ANY_RETURN", 5),
    ("IND_CALL", 6),
    ("ABORT_TX", 7),
    ("IN_TX", 8),
    ("NO_TX", 9),
    ("COND", 10),
    ("CALL_STACK", 11),
    ("IND_JUMP", 12),
    ("CALL", 13),
    ("NO_FLAGS", 14),
    ("NO_CYCLES", 15),
    ("TYPE_SAVE", 16),
    ("HW_INDEX", 17),
    ("PRIV_SAVE", 18),
];
/// The attr flags perf 6.1 prints (`perf_event_attr__fprintf`), disabled … sigtrap.
const FLAGS_61: &[&str] = &[
    "disabled",
    "inherit",
    "pinned",
    "exclusive",
    "exclude_user",
    "exclude_kernel",
    "exclude_hv",
    "exclude_idle",
    "mmap",
    "comm",
    "freq",
    "inherit_stat",
    "enable_on_exec",
    "task",
    "watermark",
    "precise_ip",
    "mmap_data",
    "sample_id_all",
    "exclude_host",
    "exclude_guest",
    "exclude_callchain_kernel",
    "exclude_callchain_user",
    "mmap2",
    "comm_exec",
    "use_clockid",
    "context_switch",
    "write_backward",
    "namespaces",
    "ksymbol",
    "bpf_event",
    "aux_output",
    "cgroup",
    "text_poke",
    "build_id",
    "inherit_thread",
    "remove_on_exec",
    "sigtrap",
];

/// `IP|TID|TIME` → bits, and the mask of all bits the table can name.
fn bits(names: &str, table: &[(&str, u32)]) -> (u64, u64) {
    let mask = table.iter().fold(0u64, |m, (_, b)| m | 1 << b);
    let v = names.split('|').fold(0u64, |v, n| {
        let b = table.iter().find(|(t, _)| *t == n).unwrap_or_else(|| panic!("unknown bit name {n}")).1;
        v | 1 << b
    });
    (v, mask)
}

/// Split `a = 1, { x, y } = 2, id = { 1, 2 }` at the commas outside braces into (key, value).
fn fields(s: &str) -> Vec<(String, String)> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0usize);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 && b.get(i + 1) == Some(&b' ') => {
                out.push(&s[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out.into_iter()
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (k, v) = t.split_once(" = ").unwrap_or_else(|| panic!("no ' = ' in {t:?}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// Compare one `# event : …` line of perf with our event: every field perf prints, and no field of
/// ours that perf would print is missing from its line.
fn check_event(case: &str, line: &str, e: &EventInfo) {
    let rest = line.strip_prefix("name = ").unwrap();
    let (name, rest) = rest.split_once(", ").unwrap();
    assert_eq!(name, e.name, "{case}: event name");
    let mut seen = BTreeSet::new();
    for (k, v) in fields(rest) {
        let ok = match k.as_str() {
            "id" => {
                let ids: Vec<u64> = v.trim_matches(|c| c == '{' || c == '}').split(',').map(num).collect();
                ids == e.ids
            }
            "type" => num::<u32>(&v) == e.type_,
            "size" => num::<u32>(&v) == e.size,
            "config" => hex(&v) == e.config,
            "{ sample_period, sample_freq }" => Some(num::<u64>(&v)) == e.sample_period.or(e.sample_freq),
            "sample_type" => {
                let (b, mask) = bits(&v, SAMPLE_BITS);
                b == e.sample_type & mask
            }
            "read_format" => {
                let (b, mask) = bits(&v, READ_BITS);
                b == e.read_format & mask
            }
            "branch_sample_type" => {
                let (b, mask) = bits(&v, BRANCH_BITS);
                b == e.branch_sample_type & mask
            }
            "{ wakeup_events, wakeup_watermark }" => num::<u32>(&v) == e.wakeup_events,
            "bp_type" => num::<u32>(&v) == e.bp_type,
            "{ bp_addr, config1 }" => hex(&v) == e.config1,
            "{ bp_len, config2 }" => hex(&v) == e.config2,
            "sample_regs_user" => hex(&v) == e.sample_regs_user,
            "sample_stack_user" => num::<u32>(&v) == e.sample_stack_user,
            "clockid" => num::<i32>(&v) == e.clockid,
            "sample_regs_intr" => hex(&v) == e.sample_regs_intr,
            "aux_watermark" => num::<u32>(&v) == e.aux_watermark,
            "sample_max_stack" => num::<u16>(&v) == e.sample_max_stack,
            "aux_sample_size" => num::<u32>(&v) == e.aux_sample_size,
            "sig_data" => num::<u64>(&v) == e.sig_data,
            flag if FLAGS_61.contains(&flag) => e.flags.iter().any(|(n, x)| n == flag && *x == num::<u64>(&v)),
            other => panic!("{case}: perf prints an attr field this test does not know: {other}"),
        };
        assert!(ok, "{case}: event {name}: perf says {k} = {v}, we have {e:?}");
        seen.insert(k);
    }
    // What perf would have printed from our values (it prints every non-zero field it knows).
    let mut ours: BTreeSet<String> = BTreeSet::new();
    let mut add = |k: &str, nonzero: bool| {
        if nonzero {
            ours.insert(k.to_string());
        }
    };
    add("id", !e.ids.is_empty());
    add("type", e.type_ != 0);
    add("size", e.size != 0);
    add("config", e.config != 0);
    add("{ sample_period, sample_freq }", e.sample_period.or(e.sample_freq).unwrap_or(0) != 0);
    add("sample_type", e.sample_type != 0);
    add("read_format", e.read_format != 0);
    add("branch_sample_type", e.branch_sample_type != 0);
    add("{ wakeup_events, wakeup_watermark }", e.wakeup_events != 0);
    add("bp_type", e.bp_type != 0);
    add("{ bp_addr, config1 }", e.config1 != 0);
    add("{ bp_len, config2 }", e.config2 != 0);
    add("sample_regs_user", e.sample_regs_user != 0);
    add("sample_stack_user", e.sample_stack_user != 0);
    add("clockid", e.clockid != 0);
    add("sample_regs_intr", e.sample_regs_intr != 0);
    add("aux_watermark", e.aux_watermark != 0);
    add("sample_max_stack", e.sample_max_stack != 0);
    add("aux_sample_size", e.aux_sample_size != 0);
    add("sig_data", e.sig_data != 0);
    for (n, _) in &e.flags {
        add(n, FLAGS_61.contains(&n.as_str()));
    }
    assert_eq!(seen, ours, "{case}: event {name}: fields perf prints vs our non-zero fields");
}

/// CPU numbers of a CPU list ("0-3,8").
fn cpu_set(s: &str) -> BTreeSet<u64> {
    let mut v = BTreeSet::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => v.extend(num::<u64>(a)..=num::<u64>(b)),
            None => {
                v.insert(num(part));
            }
        }
    }
    v
}

/// The first section (in order) whose reader fails in perf too, after which perf prints every
/// section from its empty defaults: perf stops reading sections at the first failure (EVENT_DESC and
/// BUILD_ID readers never fail).
fn first_unread(info: &HeaderInfo) -> Option<u32> {
    info.features
        .iter()
        .map(|f| f.bit)
        .find(|b| *b != bit::EVENT_DESC && *b != bit::BUILD_ID && info.errors.iter().any(|e| e.bit == *b))
}

fn check_fields(case: &Case, info: &HeaderInfo) {
    let name = case.name();
    let name = name.as_str();
    let p = Perf::new(&case.perf);
    let pipe = info.format == "pipe";

    // The header block.
    assert_eq!(p.one("# header version : ").map(num::<u32>), Some(info.header_version), "{name}");
    assert_eq!(p.one("# data offset    : ").map(num::<u64>), Some(info.data_offset), "{name}");
    assert_eq!(p.one("# data size      : ").map(num::<u64>), Some(info.data_size), "{name}");
    assert_eq!(p.one("# feat offset    : ").map(num::<u64>), Some(info.feat_offset), "{name}");
    // "captured on" is the file's mtime: it matched when the outputs were stored, but a checkout or
    // copy changes it, so it is not compared.

    let unread = first_unread(info);
    let has = |b: u32| info.features.iter().any(|f| f.bit == b);
    // perf read this section (else it prints its empty defaults, or nothing in a pipe).
    let read = |b: u32| has(b) && unread.is_none_or(|u| b < u);
    if let Some(u) = unread {
        eprintln!("{name}: perf stops reading sections at bit {u}: {:?}", info.errors);
    }

    let strings: [(u32, &str, &Option<String>); 6] = [
        (bit::HOSTNAME, "# hostname : ", &info.hostname),
        (bit::OSRELEASE, "# os release : ", &info.os_release),
        (bit::VERSION, "# perf version : ", &info.perf_version),
        (bit::ARCH, "# arch : ", &info.arch),
        (bit::CPUDESC, "# cpudesc : ", &info.cpu_desc),
        (bit::CPUID, "# cpuid : ", &info.cpuid),
    ];
    for (b, prefix, ours) in strings {
        match (read(b), p.one(prefix)) {
            (true, perf) => assert_eq!(perf, ours.as_deref(), "{name}: {prefix}"),
            (false, Some(perf)) => assert!(has(b) && perf == "(null)", "{name}: {prefix}{perf}"),
            (false, None) => assert!(!has(b) || pipe, "{name}: perf prints no {prefix}"),
        }
    }

    let online = p.one("# nrcpus online : ").map(num::<u32>);
    let avail = p.one("# nrcpus avail : ").map(num::<u32>);
    if read(bit::NRCPUS) {
        assert_eq!((online, avail), (info.nr_cpus_online, info.nr_cpus_available), "{name}: nrcpus");
    } else {
        assert!(online.unwrap_or(0) == 0 && avail.unwrap_or(0) == 0, "{name}");
    }

    let mem = p.one("# total memory : ").map(|m| num::<u64>(m.strip_suffix(" kB").unwrap()));
    assert_eq!(mem, if read(bit::TOTAL_MEM) { info.total_mem_kb } else { mem.filter(|m| *m == 0) }, "{name}");

    // perf prints each argument followed by a space, with ' as \'.
    // An argument may hold newlines: the value runs to the next line that starts with "# ".
    let cmdline = case.perf.split_once("# cmdline : ").map(|(_, r)| r.split_once("\n# ").map_or(r, |(c, _)| c));
    if read(bit::CMDLINE) {
        let ours: Option<String> =
            info.cmdline.as_ref().map(|c| c.iter().map(|a| a.replace('\'', "\\'") + " ").collect());
        assert_eq!(cmdline, ours.as_deref(), "{name}: cmdline");
    } else {
        assert!(cmdline.is_none_or(str::is_empty), "{name}");
    }

    // Events: perf prints EVENT_DESC (re-reading it from the file even after a failure).
    let events = p.all("# event : ");
    if has(bit::EVENT_DESC) {
        assert_eq!(events.len(), info.events.len(), "{name}: number of events");
        for (line, e) in events.iter().zip(&info.events) {
            check_event(name, line, e);
        }
    } else {
        assert!(events.is_empty(), "{name}");
    }

    check_topology(name, &p, info, read(bit::CPU_TOPOLOGY), read(bit::NUMA_TOPOLOGY));

    let pmu = p.one("# pmu mappings: ");
    match (read(bit::PMU_MAPPINGS), pmu) {
        (true, Some("not available")) => assert_eq!(info.pmu_mappings.as_ref().map(Vec::len), Some(0), "{name}"),
        (true, Some(list)) => {
            let perf: Vec<(String, u32)> = list
                .split(", ")
                .map(|m| {
                    let (n, t) = m.rsplit_once(" = ").unwrap();
                    (n.to_string(), num(t))
                })
                .collect();
            let ours: Vec<(String, u32)> =
                info.pmu_mappings.iter().flatten().map(|m| (m.name.clone(), m.type_)).collect();
            assert_eq!(perf, ours, "{name}: pmu mappings");
        }
        (false, perf) => assert!(perf.is_none_or(|m| m == "not available"), "{name}"),
        (true, None) => panic!("{name}: perf prints no pmu mappings"),
    }

    // Groups: "# group: NAME{a,b}".
    let groups: Vec<(String, Vec<String>)> = p
        .all("# group: ")
        .iter()
        .map(|g| {
            let (n, m) = g.split_once('{').unwrap();
            (n.to_string(), m.trim_end_matches('}').split(',').map(str::to_string).collect())
        })
        .collect();
    let ours: Vec<(String, Vec<String>)> = info
        .group_desc
        .iter()
        .flatten()
        .filter(|g| g.nr_members > 1 && read(bit::GROUP_DESC))
        .map(|g| (g.name.clone().unwrap_or_default(), g.members.clone()))
        .collect();
    assert_eq!(groups, ours, "{name}: groups");

    // CACHE: "#  L1 Data                 32K [0]".
    let cache: Vec<(u32, String, String, String)> = p
        .all("#  L")
        .iter()
        .map(|l| {
            let (level, rest) = l.split_once(' ').unwrap();
            let (rest, map) = rest.rsplit_once(" [").unwrap();
            let mut words: Vec<&str> = rest.split_whitespace().collect();
            let size = words.pop().unwrap().to_string();
            (num(level), words.join(" "), size, map.trim_end_matches(']').to_string())
        })
        .collect();
    let ours: Vec<(u32, String, String, String)> = info
        .cache
        .iter()
        .flatten()
        .filter(|_| read(bit::CACHE))
        .map(|c| (c.level, c.type_.clone(), c.size.clone(), c.map.clone()))
        .collect();
    assert_eq!(cache, ours, "{name}: cache");
    assert_eq!(p.one("# CPU cache info:").is_some(), has(bit::CACHE) && !pipe || read(bit::CACHE), "{name}");

    // SAMPLE_TIME: seconds with 6 decimals (truncated to µs), duration in ms with 3 decimals.
    if let (Some(first), Some(last)) = (p.one("# time of first sample : "), p.one("# time of last sample : ")) {
        let t = info.sample_time.filter(|_| read(bit::SAMPLE_TIME)).map_or((0, 0), |t| (t.first, t.last));
        let us = |ns: u64| format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
        assert_eq!((first, last), (us(t.0).as_str(), us(t.1).as_str()), "{name}: sample time");
        let d: f64 = num(p.one("# sample duration : ").unwrap().trim_end_matches(" ms"));
        assert!((d - t.1.wrapping_sub(t.0) as f64 / 1e6).abs() < 0.0006, "{name}: duration {d}");
    } else {
        assert!(!has(bit::SAMPLE_TIME), "{name}");
    }

    check_memory(name, &p, info, read(bit::MEM_TOPOLOGY));

    // Missing features (files only): the clear bits 1..=31 by name.
    match p.one("# missing features: ") {
        Some(m) => {
            let perf: Vec<&str> = m.split_whitespace().collect();
            assert_eq!(perf, info.missing_features, "{name}: missing features");
        }
        None => assert!(pipe, "{name}: perf prints missing features for files"),
    }

    // The smaller features.
    let clock = p.one("# clockid frequency: ").map(|f| num::<u64>(f.trim_end_matches(" MHz")));
    assert_eq!(
        clock,
        has(bit::CLOCKID).then(|| info.clockid_res_ns.filter(|_| read(bit::CLOCKID)).unwrap_or(0) * 1000)
    );
    let comp = p.one("# compressed : ");
    let ours =
        info.compressed.filter(|_| read(bit::COMPRESSED)).map_or("Unknown, level = 0, ratio = 0".to_string(), |c| {
            format!("{}, level = {}, ratio = {}", if c.type_ == 1 { "Zstd" } else { "Unknown" }, c.level, c.ratio)
        });
    assert_eq!(comp, has(bit::COMPRESSED).then_some(ours.as_str()), "{name}: compressed");
    match (p.one("# clockid: "), p.one("# reference time: ")) {
        (Some(id), Some(reference)) => {
            let c = info.clock_data.expect("perf prints clock data we have");
            let (cname, num_id) = id.split_once(" (").unwrap();
            assert_eq!(num::<u32>(num_id.trim_end_matches(')')), c.clockid, "{name}");
            // "DATE TIME.usec = sec.usec (TOD) = sec.nsec (clock)": the date is in perf's local time
            // zone, so only the numbers after it are compared.
            let parts: Vec<&str> = reference.split(" = ").collect();
            let tod = format!("{}.{:06} (TOD)", c.tod_ns / 1_000_000_000, c.tod_ns % 1_000_000_000 / 1000);
            let clk = format!("{}.{:09} ({cname})", c.clockid_ns / 1_000_000_000, c.clockid_ns % 1_000_000_000);
            assert_eq!(&parts[1..], [tod.as_str(), clk.as_str()], "{name}: reference time");
        }
        (None, None) => assert!(!read(bit::CLOCK_DATA), "{name}: perf prints no clock data"),
        other => panic!("{name}: {other:?}"),
    }
    assert_eq!(
        p.one("# directory data version : ").map(num::<u64>),
        has(bit::DIR_FORMAT).then(|| info.dir_format.filter(|_| read(bit::DIR_FORMAT)).unwrap_or(0)),
        "{name}"
    );
    assert_eq!(p.one("# contains samples with branch stack").is_some(), info.branch_stack, "{name}");
    assert_eq!(p.one("# contains stat data").is_some(), info.stat, "{name}");
    assert_eq!(p.one("# contains AUX area data (e.g. instruction trace)").is_some(), has(bit::AUXTRACE), "{name}");

    check_pmu_caps(name, &p, info, read(bit::CPU_PMU_CAPS), read(bit::PMU_CAPS));

    // HYBRID_TOPOLOGY: "# hybrid cpu system:" then "# cpu_core cpu list : 0-3".
    let hybrid: Vec<(String, String)> = p
        .lines
        .iter()
        .filter(|l| l.contains(" cpu list : ") && !l.starts_with("# node"))
        .map(|l| {
            let (pmu, cpus) = l.trim_start_matches("# ").split_once(" cpu list : ").unwrap();
            (pmu.to_string(), cpus.to_string())
        })
        .collect();
    let ours: Vec<(String, String)> = info
        .hybrid_topology
        .iter()
        .flatten()
        .filter(|_| read(bit::HYBRID_TOPOLOGY))
        .map(|h| (h.pmu_name.clone(), h.cpus.clone()))
        .collect();
    assert_eq!(hybrid, ours, "{name}: hybrid topology");
    assert_eq!(p.one("# hybrid cpu system:").is_some(), has(bit::HYBRID_TOPOLOGY), "{name}");

    // BPF: "# btf info of id N", "# bpf_prog_info ID: bpf_prog_TAG_NAME addr 0x… size N".
    let btf: BTreeSet<u32> = p.all("# btf info of id ").into_iter().map(num).collect();
    let ours: BTreeSet<u32> = info.bpf_btf.iter().flatten().map(|b| b.id).collect();
    assert_eq!(btf, ours, "{name}: btf ids");
    for l in p.all("# bpf_prog_info ") {
        let (id, rest) = l.split_once(':').unwrap();
        let prog = info.bpf_prog_info.iter().flatten().find(|b| b.id == Some(num(id)));
        let prog = prog.unwrap_or_else(|| panic!("{name}: perf prints bpf prog {id} we do not have"));
        if let Some((what, size)) = rest.split_once(" size ") {
            // A program without sub-programs: its tag and code size.
            let tag = what.trim().strip_prefix("bpf_prog_").unwrap().split('_').next().unwrap();
            assert_eq!((Some(tag.to_string()), Some(num(size))), (prog.tag.clone(), prog.jited_prog_len), "{name}");
        }
    }
}

fn check_topology(name: &str, p: &Perf<'_>, info: &HeaderInfo, read_cpu: bool, read_numa: bool) {
    let sockets = p.all("# sibling sockets : ");
    let dies = p.all("# sibling dies    : ");
    let threads = p.all("# sibling threads : ");
    let cpu_lines = p.all("# CPU ");
    let t = info.cpu_topology.as_ref().filter(|_| read_cpu);
    match t {
        Some(t) => {
            assert_eq!(sockets, t.package_cpus, "{name}: sibling sockets");
            assert_eq!(threads, t.core_cpus, "{name}: sibling threads");
            if !dies.is_empty() {
                assert_eq!(Some(&dies.iter().map(|s| s.to_string()).collect()), t.die_cpus.as_ref(), "{name}");
            }
            let cpus = t.cpus.as_deref().unwrap_or_default();
            let perf_ids: Vec<&&str> = cpu_lines.iter().filter(|l| l.contains(": Core ID ")).collect();
            let not_available = p.lines.iter().any(|l| l.starts_with("# Core ID") && l.ends_with("is not available"));
            if t.cpus.is_none() {
                // The section stops after the lists (perf before 4.1).
                assert!(perf_ids.is_empty() && not_available, "{name}: CPU ids");
            } else if perf_ids.is_empty() && !cpus.is_empty() {
                // perf finds the per-CPU ids by comparing the section size with the size of the
                // lists *as perf pads strings* (to 64 bytes). Files rewritten with other padding
                // (quipper's) have the ids, but perf does not see them; check that this is the case.
                let padded: u64 = 8 + t
                    .package_cpus
                    .iter()
                    .chain(&t.core_cpus)
                    .map(|s| (s.len() as u64 + 1).div_ceil(64) * 64 + 4)
                    .sum::<u64>();
                let size = info.features.iter().find(|f| f.bit == bit::CPU_TOPOLOGY).unwrap().size;
                assert!(size <= padded, "{name}: perf shows no CPU ids although the section has room for them");
                assert!(p.one("# Core ID and Socket ID information is not available").is_some(), "{name}");
            } else {
                assert_eq!(perf_ids.len(), cpus.len(), "{name}: CPU lines");
                assert_eq!(cpus.len(), info.nr_cpus_available.unwrap_or(0) as usize, "{name}");
                for (i, (l, c)) in perf_ids.iter().zip(cpus).enumerate() {
                    let (n, rest) = l.split_once(": ").unwrap();
                    assert_eq!(num::<usize>(n), i, "{name}");
                    let ids: BTreeMap<&str, i32> = rest
                        .split(", ")
                        .map(|kv| {
                            let (k, v) = kv.rsplit_once(' ').unwrap();
                            (k, num(v))
                        })
                        .collect();
                    assert_eq!(ids.get("Core ID"), Some(&c.core_id), "{name}: CPU {i}");
                    assert_eq!(ids.get("Socket ID"), Some(&c.socket_id), "{name}: CPU {i}");
                    assert_eq!(ids.get("Die ID").copied(), if dies.is_empty() { None } else { c.die_id }, "{name}");
                }
            }
        }
        None => {
            assert!(sockets.is_empty() && threads.is_empty() && dies.is_empty(), "{name}");
        }
    }

    // NUMA: "# node0 meminfo  : total = N kB, free = N kB" and "# node0 cpu list : 0-1".
    let mem: Vec<&str> =
        p.lines.iter().filter(|l| l.starts_with("# node") && l.contains(" meminfo  : ")).copied().collect();
    let cpus: Vec<&str> =
        p.lines.iter().filter(|l| l.starts_with("# node") && l.contains(" cpu list : ")).copied().collect();
    let nodes = info.numa_topology.as_deref().filter(|_| read_numa).unwrap_or_default();
    assert_eq!((mem.len(), cpus.len()), (nodes.len(), nodes.len()), "{name}: numa nodes");
    for ((m, c), n) in mem.iter().zip(&cpus).zip(nodes) {
        let (node, rest) = m.trim_start_matches("# node").split_once(" meminfo  : total = ").unwrap();
        let (total, free) = rest.split_once(" kB, free = ").unwrap();
        assert_eq!(
            (num::<u32>(node), num::<u64>(total), num::<u64>(free.trim_end_matches(" kB"))),
            (n.node, n.mem_total_kb, n.mem_free_kb),
            "{name}: numa"
        );
        let list = c.split_once(" cpu list : ").unwrap().1;
        // perf re-prints the list from its parsed CPU map.
        assert_eq!(cpu_set(list), cpu_set(&n.cpus), "{name}: numa node {} cpus", n.node);
    }
}

fn check_memory(name: &str, p: &Perf<'_>, info: &HeaderInfo, read: bool) {
    let Some(head) = p.one("# memory nodes (nr ") else {
        assert!(info.mem_topology.is_none() || info.format == "pipe" && !read, "{name}");
        return;
    };
    let (nr, bsize) = head.trim_end_matches("):").split_once(", block size ").unwrap();
    let m = info.mem_topology.as_ref().filter(|_| read);
    let (nodes, block_size) = m.map_or((&[][..], 0), |m| (&m.nodes[..], m.block_size));
    assert_eq!((num::<usize>(nr), hex(bsize)), (nodes.len(), block_size), "{name}: memory nodes");
    // "#  %3d [SIZE]: blocks"
    let lines: Vec<&str> = p
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix("#  "))
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(" ["))
        .collect();
    assert_eq!(lines.len(), nodes.len(), "{name}");
    for (l, n) in lines.iter().zip(nodes) {
        let (node, rest) = l.trim_start().split_once(" [").unwrap();
        let (size, blocks) = rest.split_once("]: ").unwrap();
        assert_eq!(num::<u64>(node), n.node, "{name}");
        // perf's unit_number: the size divided by 1024 per unit step (B, K, M, G).
        let (digits, unit) = size.split_at(size.len() - 1);
        let shift = 10 * "BKMG".find(unit).unwrap() as u32;
        assert_eq!(n.bytes >> shift, num::<u64>(digits), "{name}: memory node size {size}");
        // perf prints the block list into a 100-byte buffer: a 99-byte list may be cut.
        if blocks.len() < 99 {
            assert_eq!(cpu_set(blocks), cpu_set(&n.blocks), "{name}: memory blocks");
        } else {
            assert!(n.blocks.starts_with(blocks), "{name}: memory blocks");
        }
    }
}

fn check_pmu_caps(name: &str, p: &Perf<'_>, info: &HeaderInfo, read_cpu: bool, read_pmu: bool) {
    // "# <pmu> pmu capabilities: a=1, b=2" or "…: not available".
    let perf: Vec<(String, String)> = p
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix("# ")?.split_once(" pmu capabilities: "))
        .map(|(pmu, caps)| (pmu.to_string(), caps.to_string()))
        .collect();
    let list = |caps: &[perfdata_core::feature::PmuCap]| {
        if caps.is_empty() {
            "not available".to_string()
        } else {
            caps.iter().map(|c| format!("{}={}", c.name, c.value)).collect::<Vec<_>>().join(", ")
        }
    };
    let mut ours = Vec::new();
    if let Some(c) = info.cpu_pmu_caps.as_ref().filter(|_| read_cpu) {
        ours.push(("cpu".to_string(), list(c)));
    }
    if read_pmu {
        for pmu in info.pmu_caps.iter().flatten() {
            ours.push((pmu.pmu_name.clone(), list(&pmu.caps)));
        }
    }
    // An unread CPU_PMU_CAPS prints as "not available" (PMU_CAPS prints nothing).
    if !read_cpu && info.features.iter().any(|f| f.bit == bit::CPU_PMU_CAPS) {
        ours.insert(0, ("cpu".to_string(), "not available".to_string()));
    }
    assert_eq!(perf, ours, "{name}: pmu capabilities");
}

/// Files whose feature section table perf reads from garbage: `killed.data` has data size 0, so its
/// table would sit at the data offset, on top of the records. perf prints whatever those bytes
/// decode to ("(null)" strings, zero counts); we ignore the table (PerfFile's diagnostics say so).
fn garbage_table(info: &HeaderInfo) -> bool {
    info.format == "file" && info.data_size == 0
}

#[test]
fn every_value_perf_prints_matches() {
    let cases = cases();
    assert!(cases.len() >= 25, "only {} files with perf headers", cases.len());
    let mut checked = 0;
    for case in &cases {
        let file = PerfFile::open(&case.file).unwrap_or_else(|e| panic!("{}: {e}", case.name()));
        let info = HeaderInfo::new(&file);
        if garbage_table(&info) {
            let p = Perf::new(&case.perf);
            assert_eq!(p.one("# data size      : "), Some("0"));
            let perf: Vec<&str> = p.one("# missing features: ").unwrap().split_whitespace().collect();
            assert_eq!(perf, info.missing_features, "{}: missing features come from the bitmap", case.name());
            assert!(info.features.is_empty());
            continue;
        }
        check_fields(case, &info);
        checked += 1;
    }
    eprintln!("{checked} files compared field by field");
}

/// perf's text without the "captured on" line (the file's mtime, see `check_fields`).
fn without_mtime(s: &str) -> String {
    s.lines().filter(|l| !l.starts_with("# captured on")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_text_is_perfs_line_for_line() {
    let mut n = 0;
    for case in cases() {
        let file = PerfFile::open(&case.file).unwrap();
        let info = HeaderInfo::new(&file);
        let (ours, perf) = (without_mtime(&info.perf_text()), without_mtime(&case.perf));
        if garbage_table(&info) {
            // Only the header block and the missing features (see `garbage_table`).
            let keep = |s: &str| -> Vec<String> {
                s.lines()
                    .filter(|l| l.starts_with("# ====") || l.contains("  : ") || l.starts_with("# missing"))
                    .map(str::to_string)
                    .collect()
            };
            assert_eq!(keep(&ours), keep(&perf), "{}", case.name());
            continue;
        }
        if ours != perf {
            let diff: Vec<String> = perf
                .lines()
                .zip(ours.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .take(5)
                .map(|(i, (a, b))| format!("line {}:\n  perf: {a}\n  ours: {b}", i + 1))
                .collect();
            panic!(
                "{}: text differs ({} vs {} lines)\n{}",
                case.name(),
                perf.lines().count(),
                ours.lines().count(),
                diff.join("\n")
            );
        }
        n += 1;
    }
    assert!(n >= 25);
}

#[test]
fn a_pipe_stream_gives_the_same_header_as_the_file() {
    for name in ["pipe.data", "pipe-tp.data", "pipe-z.data"] {
        let path = common::repo().join("testdata").join(name);
        let perf = common::read_output(&path.with_extension("data.header")).unwrap();
        let stream = PerfFile::from_reader(std::fs::File::open(&path).unwrap()).unwrap();
        let info = HeaderInfo::new(&stream);
        assert_eq!(info.captured_on, None, "a stream has no mtime");
        assert_eq!(without_mtime(&info.perf_text()), without_mtime(&perf), "{name}");
        assert!(!info.events.is_empty() && info.hostname.is_some());
    }
}

#[test]
fn a_big_endian_copy_reads_the_same() {
    // The writer converts every feature to the other byte order; perf's view of the original must
    // come out of the big-endian copy unchanged.
    // (Not compressed or directory files: the writer stores their records decompressed or merged,
    // which changes the data size.)
    for name in ["fp.data", "group.data", "stat.data", "clock-mono.data", "sched.data", "syscalls.data"] {
        let path = common::repo().join("testdata").join(name);
        let perf = common::read_output(&path.with_extension("data.header")).unwrap();
        let file = PerfFile::open(&path).unwrap();
        let be = perfdata_core::write::write_file(&file, perfdata_core::Endian::Big).unwrap();
        let be = PerfFile::from_vec(be).unwrap();
        assert_eq!(be.endian(), perfdata_core::Endian::Big);
        let info = HeaderInfo::new(&be);
        assert!(info.errors.is_empty(), "{name}: {:?}", info.errors);
        assert_eq!(without_mtime(&info.perf_text()), without_mtime(&perf), "{name}");
    }
}

#[cfg(feature = "json")]
#[test]
fn json_uses_snake_case_keys() {
    let file = PerfFile::open(common::repo().join("testdata/group.data")).unwrap();
    let v = serde_json::to_value(HeaderInfo::new(&file)).unwrap();
    let perf = common::read_output(&common::repo().join("testdata/group.data.header")).unwrap();
    let p = Perf::new(&perf);
    assert_eq!(v["hostname"], p.one("# hostname : ").unwrap());
    assert_eq!(v["nr_cpus_online"], num::<u64>(p.one("# nrcpus online : ").unwrap()));
    assert_eq!(v["events"][1]["name"], "task-clock");
    assert_eq!(v["events"][0]["flags"]["disabled"], 1);
    assert_eq!(v["group_desc"][0]["members"][1], "task-clock");
    for k in [
        "os_release",
        "perf_version",
        "cpu_desc",
        "cpuid",
        "total_mem_kb",
        "cmdline",
        "cpu_topology",
        "numa_topology",
        "cache",
        "pmu_mappings",
        "build_ids",
        "sample_time",
        "mem_topology",
        "missing_features",
    ] {
        assert!(!v[k].is_null(), "{k}");
    }
}

#[test]
fn every_real_section_parses_and_its_truncations_fail_cleanly() {
    let mut files: Vec<PathBuf> =
        ["fp.data", "group.data", "stat.data", "clock-mono.data", "sched.data", "threads.data"]
            .iter()
            .map(|n| common::repo().join("testdata").join(n))
            .collect();
    // BPF sections with BTF, hybrid topology and PMU caps, an old 3.x layout.
    if let Some(c) = common::shared_corpus() {
        for n in ["branch_stack_spec", "hybrid_topology", "busy.0-3.4"] {
            files.push(c.join("quipper").join(format!("perf.data.{n}")));
        }
    }
    let mut sections = 0;
    for path in files {
        let file = PerfFile::open(&path).unwrap();
        let f = file.features();
        for s in f.sections() {
            assert!(f.decode(s).is_ok(), "{}: bit {}: {:?}", path.display(), s.bit, f.decode(s).err());
            sections += 1;
            // Every prefix of small sections, a sample of prefixes of big ones: errors, never panics.
            let step = (s.data.len() / 256).max(1);
            for cut in (0..s.data.len()).filter(|c| *c < 512 || c % step == 0) {
                let short = perfdata_core::feature::FeatureSection { data: &s.data[..cut], ..*s };
                let _ = f.decode(&short);
            }
        }
    }
    assert!(sections > 100);
}
