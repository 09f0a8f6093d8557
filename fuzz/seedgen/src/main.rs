//! `seedgen CORPUS_DIR FILE...`: seeds for the fuzz targets that take parts of recordings, cut out
//! of `FILE`s with the library (fuzz/seed.sh runs it on testdata and the shared corpus):
//!
//! - `tracepoint/`: each tracing-data blob (feature 1 of a file, the `HEADER_TRACING_DATA` record of
//!   a pipe) followed by the RAW data of the first sample of each tracepoint event (mode 0); each
//!   event's `format` text (mode 1) and its `print fmt` (mode 2), each followed by a NUL and a RAW
//!   sample; and hand-written print fmts that use every function and `%p` extension;
//! - `features/`: every feature section payload, after a byte with its bit.
//!
//! The input layouts are those documented in fuzz/fuzz_targets/{tracepoint,features}.rs.

use perfdata_core::record::RecordKind;
use perfdata_core::tracepoint::{TracingData, PERF_TYPE_TRACEPOINT};
use perfdata_core::{Order, PerfFile, Position};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Print fmts over the fields of the tracepoint target's fixed format (`PRINT_FMT_FIELDS`).
const PRINT_FMTS: &[&str] = &[
    r#""comm=%s pid=%d state=%s%s addr=%lx time=%Lu", REC->comm, REC->pid, REC->state & 0xff ? __print_flags(REC->state & 0xff, "|", { 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }) : "R", REC->state & 0x100 ? "+" : "", REC->addr, (unsigned long long)REC->time"#,
    r#""name=%s rname=%s level=%d flags=%s", __get_str(name), __get_rel_str(rname), REC->level, __print_symbolic(REC->flags, { 0, "NONE" }, { 1, "ONE" }, { HI_SOFTIRQ, "HI" }, { RCU_SOFTIRQ, "RCU" })"#,
    r#""mac=%pM %pm %pMR %pMF ip=%pI4 %pi4 %pI6 %pI6c %pi6 uuid=%pU %pUb %pUL %pUl", REC->mac, REC->mac, REC->mac, REC->mac, REC->saddr, REC->saddr, REC->saddr_v6, REC->saddr_v6, REC->saddr_v6, REC->uuid, REC->uuid, REC->uuid, REC->uuid"#,
    r#""sa=%pISpc %pISp %piS hex=%*phD %*phC %*phN %*ph", __get_dynamic_array(sockaddr), __get_dynamic_array(sockaddr), __get_dynamic_array(sockaddr), __get_dynamic_array_len(sockaddr), __get_dynamic_array(sockaddr), 4, __get_dynamic_array(sockaddr), 2, __get_dynamic_array(sockaddr), 3, __get_dynamic_array(sockaddr)"#,
    r#""hex=%s %s arr=%s stack=%s mask=%s", __print_hex(REC->mac, 6), __print_hex_str(__get_dynamic_array(ints), __get_dynamic_array_len(ints)), __print_array(REC->arr, 4, 4), __print_array(__get_dynamic_array(stack), __get_dynamic_array_len(stack) / 8, 8), __get_bitmask(mask)"#,
    r#""x=%d y=%u z=%08x w=%-5hhd v=%#o u=%.3s t=%*d s=%-*s p=%p q=%pS r=%pF", (REC->pid + 3) * 2 - 1, REC->pid >> 2 << 1, ~REC->pid ^ 5, -REC->level, !REC->flags, REC->comm, 4, REC->pid, 6, REC->comm, REC->addr, REC->addr, REC->str"#,
    r#""a=%d b=%d c=%d d=%s e=%d", REC->arr[2], ((int *)__get_dynamic_array(ints))[1], REC->pid == 1 || REC->pid != 2 && REC->pid <= 3, REC->str, __builtin_expect(REC->pid >= 4, 0) ? REC->pid % 7 : REC->pid / 0"#,
    r#""%s %s", "literal" "joined", 'c'"#,
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, files)) = args.split_first() else {
        eprintln!("usage: seedgen CORPUS_DIR FILE...");
        std::process::exit(2);
    };
    let out = Path::new(out);
    let mut seeds = Seeds::default();
    for (i, p) in PRINT_FMTS.iter().enumerate() {
        // Mode 2, RAW: the fixed format's 146 bytes with dynamic data after them.
        let mut raw: Vec<u8> = (0..146u32).map(|b| b as u8).collect();
        raw.extend_from_slice(b"dynamic data\0");
        let mut seed = vec![2u8];
        seed.extend_from_slice(p.as_bytes());
        seed.push(0);
        seed.extend_from_slice(&raw);
        seeds.add(out, "tracepoint", &format!("print-fmt-{i}"), &seed);
    }
    for f in files {
        let path = PathBuf::from(f);
        let Ok(file) = PerfFile::open(&path) else { continue };
        let stem = format!(
            "{}_{}",
            path.parent().and_then(Path::file_name).map(|s| s.to_string_lossy()).unwrap_or_default(),
            path.file_name().map(|s| s.to_string_lossy()).unwrap_or_default()
        );
        for bit in file.feature_bits() {
            if let Some((d, _)) = file.feature_data(bit) {
                let mut seed = vec![bit as u8];
                seed.extend_from_slice(d);
                seeds.add(out, "features", &format!("{stem}-{bit}"), &seed);
            }
        }
        tracepoint_seeds(&file, &stem, out, &mut seeds);
    }
    eprintln!("seedgen: {} seeds", seeds.seen.len());
}

/// Seeds written so far, by content.
#[derive(Default)]
struct Seeds {
    seen: HashSet<Vec<u8>>,
}

impl Seeds {
    fn add(&mut self, out: &Path, target: &str, name: &str, seed: &[u8]) {
        if self.seen.insert(seed.to_vec()) {
            let dir = out.join(target);
            let _ = std::fs::create_dir_all(&dir);
            let name: String =
                name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
            if let Err(e) = std::fs::write(dir.join(name), seed) {
                eprintln!("seedgen: {e}");
            }
        }
    }
}

fn tracepoint_seeds(file: &PerfFile<'_>, stem: &str, out: &Path, seeds: &mut Seeds) {
    let mut blob = file.feature_data(1).map(|(d, _)| d.to_vec());
    // The first RAW sample of each tracepoint event (by format ID).
    let mut raws: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let Ok(mut recs) = file.records(Order::File) else { return };
    while let Some(r) = recs.next_record() {
        let Ok(r) = r else { continue };
        match &r.kind {
            RecordKind::HeaderTracingData(t) if blob.is_none() => blob = Some(t.data.to_vec()),
            RecordKind::Sample(s) => {
                if let (Some(ev), Some(raw)) = (r.event, s.raw()) {
                    if ev.attr.type_ == PERF_TYPE_TRACEPOINT {
                        raws.entry(ev.attr.config as u32).or_insert_with(|| raw.to_vec());
                    }
                }
            }
            _ => {}
        }
    }
    let Some(blob) = blob else { return };
    let Ok(td) = TracingData::parse(&blob, Position::default()) else { return };
    let blob = blob.get(..td.size).unwrap_or(&blob);
    let any_raw = raws.values().next().cloned().unwrap_or_default();
    for (id, raw) in raws.iter().map(|(k, v)| (Some(*k), v.as_slice())).chain([(None, &[][..])]) {
        let mut seed = vec![0u8];
        seed.extend_from_slice(blob);
        seed.extend_from_slice(raw);
        seeds.add(out, "tracepoint", &format!("{stem}-blob-{}", id.map_or("noraw".into(), |i| i.to_string())), &seed);
    }
    for (k, text) in td.systems.iter().flat_map(|s| s.formats.iter()).chain(td.ftrace_formats.iter()).enumerate() {
        // The RAW sample of this format's event when there is one.
        let id = perfdata_core::tracepoint::Format::parse(text, "x", td.endian, td.long_size).map(|f| f.id).ok();
        let raw = id.and_then(|i| raws.get(&i)).unwrap_or(&any_raw);
        let mut seed = vec![1u8];
        seed.extend_from_slice(text);
        seed.push(0);
        seed.extend_from_slice(raw);
        seeds.add(out, "tracepoint", &format!("{stem}-format-{k}"), &seed);
        let s = String::from_utf8_lossy(text);
        if let Some(p) = s.lines().find_map(|l| l.strip_prefix("print fmt: ")) {
            let mut seed = vec![2u8];
            seed.extend_from_slice(p.as_bytes());
            seed.push(0);
            seed.extend_from_slice(raw);
            seeds.add(out, "tracepoint", &format!("{stem}-print-{k}"), &seed);
        }
    }
}
