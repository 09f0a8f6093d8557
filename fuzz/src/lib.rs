//! The fuzz targets, one public function per target: `fuzz_targets/<name>.rs` only hands libFuzzer's
//! input to [`run`], and `perfdata-analysis/tests/fuzz_regressions.rs` includes this file as a
//! module to replay `fuzz/regressions/<target>/` through exactly the code the fuzzer ran.
//!
//! Each target drives the whole public API on the fuzzed bytes, not just the entry point: every
//! record in both orders with every field touched, every tracepoint sample decoded and rendered
//! (`perfdata script`), the header summary (`perfdata info`), folded stacks, the writer.

use perfdata_analysis::folded::{folded, Compat, EventFilter, FoldedOptions, Root, Unknown, Weight};
use perfdata_analysis::symbolize::{demangle, elf::ElfSymbols, kallsyms, kmod, perfmap, running_kernel_build_id};
use perfdata_analysis::symbolize::{jit, SymbolTable, SymbolizeOptions};
use perfdata_core::attr::{sample_type as st, EventAttr};
use perfdata_core::feature::{FeatureSection, Features};
use perfdata_core::header::{FileHeader, Format as FileFormat, Section};
use perfdata_core::jitdump::{JitDump, JitRecordKind};
use perfdata_core::process::JitSymbol;
use perfdata_core::reader::Reader;
use perfdata_core::record::RecordKind;
use perfdata_core::tracepoint::{Format, Tracepoints, TracingData, Value};
use perfdata_core::write::{conv_feature, write_file};
use perfdata_core::{Endian, HeaderInfo, Order, PerfFile, Position};
use std::path::PathBuf;

/// Every target, by the name of its `fuzz_targets/` file.
pub const TARGETS: [&str; 13] = [
    "file",
    "pipe",
    "sample",
    "features",
    "zstd",
    "roundtrip",
    "tracepoint",
    "symbols",
    "sched",
    "parse",
    "export_chrome",
    "export_speedscope",
    "report",
];

/// Run target `name` on `data`; false when there is no such target.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "file" => file(data),
        "pipe" => pipe(data),
        "sample" => sample(data),
        "features" => features(data),
        "zstd" => zstd(data),
        "roundtrip" => roundtrip(data),
        "tracepoint" => tracepoint(data),
        "symbols" => symbols(data),
        "sched" => sched(data),
        "parse" => parse(data),
        "export_chrome" => export_chrome(data),
        "export_speedscope" => export_speedscope(data),
        "report" => report(data),
        _ => return false,
    }
    true
}

/// `file`: the bytes as a perf.data file (either framing, either byte order): every record, the
/// tracepoint rendering of every sample, the header summary, and folded stacks.
pub fn file(data: &[u8]) {
    if let Ok(f) = PerfFile::from_bytes(data) {
        drive(&f);
        drive_folded(&f);
        ordered_par_agrees(&f);
    }
}

/// Before the first input (the `file` target's init): the main thread blocks on a channel while a
/// scoped thread runs, as `ordered_par` makes it do, so the thread-local state std keeps for that
/// exists before fuzzing starts. glibc records each thread-local destructor in a 32-byte node
/// (`__cxa_thread_atexit_impl`) that LeakSanitizer's per-input check reported once, as a leak,
/// when the main thread made it during an input (google/sanitizers#757 describes the family).
pub fn init_threads() {
    let (tx, rx) = std::sync::mpsc::sync_channel::<()>(0);
    std::thread::scope(|s| {
        let _ = std::thread::Builder::new().name("init".into()).spawn_scoped(s, move || {
            let _ = tx.send(());
        });
        let _ = rx.recv();
    });
}

/// Every record's (offset, type, time) and the diagnostics, in time order, the same whether read
/// on this thread or in 64-byte chunks on worker threads (`PerfFile::ordered_par`).
fn ordered_par_agrees(f: &PerfFile<'_>) {
    use perfdata_core::{Extract, ParExtract, Parallel, ReadOptions, RecordRef};
    struct Key;
    impl Extract<(u64, u32, Option<u64>)> for Key {
        fn extract(&mut self, r: &RecordRef<'_>) -> Option<(u64, u32, Option<u64>)> {
            Some((r.pos().offset, r.type_(), r.time()))
        }
    }
    impl ParExtract<(u64, u32, Option<u64>)> for Key {
        type Part = ();
        fn fork(&self) -> Self {
            Key
        }
        fn take_part(&mut self) {}
        fn join_part(&mut self, _: ()) {}
    }
    let opts = ReadOptions { window_records: 256, ..Default::default() };
    let read = |o: &mut perfdata_core::Ordered<'_, (u64, u32, Option<u64>), Key>| {
        let v: Vec<_> = o.by_ref().take(200_000).map(|r| r.map_err(|e| e.to_string())).collect();
        (v, o.diagnostics(), o.stats())
    };
    let Ok(mut one) = f.ordered(opts, Key) else { return };
    let want = read(&mut one);
    // Half the inputs with chunks that give up past 1 KiB (falling back midway).
    let max_chunk_bytes = if f.bytes().len().is_multiple_of(2) { usize::MAX } else { 1024 };
    let par = Parallel { threads: 2, chunk_bytes: 64, min_bytes: 0, max_chunk_bytes };
    let Ok(got) = f.ordered_par(opts, par, Key, read) else { panic!("ordered_par fails where ordered does not") };
    assert_eq!(want, got, "ordered_par differs from ordered");
}

/// `pipe`: the bytes as a pipe stream after a pipe header, from a slice and through `Read` (the
/// header summary both before any record was read, as `perfdata info -` does, and after all were).
pub fn pipe(data: &[u8]) {
    let mut bytes = b"PERFILE2".to_vec();
    bytes.extend_from_slice(&16u64.to_le_bytes());
    bytes.extend_from_slice(data);
    if let Ok(f) = PerfFile::from_bytes(&bytes) {
        drive(&f);
    }
    if let Ok(f) = PerfFile::from_reader(std::io::Cursor::new(bytes.clone())) {
        header_info(&f);
    }
    if let Ok(f) = PerfFile::from_reader(std::io::Cursor::new(bytes)) {
        drive(&f);
    }
}

/// `sample`: one SAMPLE record against an arbitrary sample layout: the first 40 bytes pick
/// sample_type, read_format, branch_sample_type and register masks, byte 40 the byte order; the
/// rest is the record body.
pub fn sample(data: &[u8]) {
    let (Some(head), Some(&order), Some(body)) = (data.get(..40), data.get(40), data.get(41..)) else { return };
    let attr = attr_from(head);
    let endian = if order & 1 == 0 { Endian::Little } else { Endian::Big };
    let body = body.get(..body.len().min(65535 - 8)).unwrap_or(body);
    let mut rec = Vec::new();
    endian.put_u32(&mut rec, 9);
    endian.put_u16(&mut rec, 1);
    endian.put_u16(&mut rec, (8 + body.len()) as u16);
    rec.extend_from_slice(body);
    let file = file_with(&attr, &rec, endian);
    if let Ok(f) = PerfFile::from_bytes(&file) {
        drive(&f);
    };
}

/// Feature bits perf 6.1 defines (1–31), CPU_DOMAIN_INFO (32), and unknown ones either side.
const FEATURE_BITS: std::ops::RangeInclusive<u32> = 0..=34;

/// `features`: every public feature-section parser on the bytes after the first, in both byte
/// orders: the payload as the section of every feature bit (so NRCPUS, which sizes the per-CPU
/// arrays of CPU_TOPOLOGY and CPU_DOMAIN_INFO, comes from the same bytes), each decoded by
/// `Features` and summarised by `HeaderInfo` (`perfdata info`, text and JSON, file and pipe
/// headers); plus the string parsers and the writer's converter of the feature the first byte picks.
pub fn features(data: &[u8]) {
    let Some((&bit, payload)) = data.split_first() else { return };
    for e in [Endian::Little, Endian::Big] {
        let sections: Vec<FeatureSection<'_>> = FEATURE_BITS
            .map(|bit| FeatureSection { bit, data: payload, pos: Position::at(u64::from(bit) << 20) })
            .collect();
        let features = Features::new(e, sections);
        for (_, f) in features.iter() {
            let _ = f.map(|f| format!("{f:?}"));
        }
        let _ = (features.cpu_topology(), features.cpu_domain_info(), features.build_ids(), features.tracing_data());
        for format in [FileFormat::File, FileFormat::Pipe] {
            let header = FileHeader {
                endian: e,
                format,
                size: 104,
                attr_size: 0,
                attrs: Section::default(),
                data: Section { offset: 104, size: 0 },
                event_types: Section::default(),
                features: [u64::MAX, 0, 0, 0],
            };
            let info = HeaderInfo::build(&header, &features, &[], None);
            let _ = info.perf_text();
            let _ = serde_json::to_string(&info);
        }
        let _ = perfdata_core::feature::event_desc(payload, e, Position::default());
        let _ = perfdata_core::feature::compressed(payload, e, Position::default());
        let mut r = Reader::new(payload, e, Position::default(), "fuzz");
        let _ = perfdata_core::feature::strings::string_list(&mut r);
        let mut r = Reader::new(payload, e, Position::default(), "fuzz");
        let _ = perfdata_core::feature::strings::header_string(&mut r);
        let mut out = Vec::new();
        let _ = conv_feature(u32::from(bit % 40), payload, e, e.swapped(), Position::default(), 4, &mut out);
        assert!(out.len() <= payload.len() + 64, "conversion output is not bounded by its input");
    }
}

/// `zstd`: a data section of COMPRESSED and COMPRESSED2 records built from the bytes after the
/// first: some payloads are the input raw (corrupt streams), some the input compressed (valid
/// frames of arbitrary records), as the bits of the first byte say.
pub fn zstd(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let e = Endian::Little;
    let attr = EventAttr {
        type_: 1,
        size: 136,
        sample_type: st::IP | st::TID | st::TIME | st::CALLCHAIN,
        flags: 1 << 18,
        ..Default::default()
    };
    let mut section = Vec::new();
    for (i, chunk) in rest.chunks(4096).enumerate() {
        let payload = if mode & (1 << (i % 8)) != 0 {
            zstd::bulk::compress(chunk, 1).unwrap_or_default()
        } else {
            chunk.to_vec()
        };
        let payload = payload.get(..payload.len().min(60000)).unwrap_or(&payload);
        if mode & 0x80 == 0 {
            e.put_u32(&mut section, 81);
            e.put_u16(&mut section, 0);
            e.put_u16(&mut section, (8 + payload.len()) as u16);
            section.extend_from_slice(payload);
        } else {
            let size = (16 + payload.len() + 7) & !7;
            e.put_u32(&mut section, 83);
            e.put_u16(&mut section, 0);
            e.put_u16(&mut section, size as u16);
            e.put_u64(&mut section, payload.len() as u64);
            section.extend_from_slice(payload);
            section.resize(section.len() + size - 16 - payload.len(), 0);
        }
    }
    let file = file_with(&attr, &section, e);
    if let Ok(f) = PerfFile::from_bytes(&file) {
        drive(&f);
    };
}

fn comparable_records(f: &PerfFile<'_>) -> Option<Vec<serde_json::Value>> {
    let mut recs = f.records(Order::File).ok()?;
    let mut out = Vec::new();
    while let Some(r) = recs.next_record() {
        let mut v = perfdata_core::json::record_json(&r.ok()?);
        if let Some(m) = v.as_object_mut() {
            for k in ["offset", "index", "file"] {
                m.remove(k);
            }
        }
        out.push(v);
    }
    recs.diagnostics().is_empty().then_some(out)
}

/// `roundtrip`: parse → write in the other byte order → parse must agree record by record (for
/// inputs that read without errors), and writing back must equal a same-order rewrite.
pub fn roundtrip(data: &[u8]) {
    let Ok(a) = PerfFile::from_bytes(data) else { return };
    if !a.diagnostics().is_empty() {
        return;
    }
    // A feature section that does not parse is copied unconverted, so only files whose sections all
    // convert can come back unchanged.
    for bit in a.feature_bits() {
        if let Some((d, pos)) = a.feature_data(bit) {
            let nr =
                a.feature_data(7).and_then(|(n, p)| Reader::new(n, a.endian(), p, "NRCPUS").u32().ok()).unwrap_or(0);
            let mut out = Vec::new();
            if conv_feature(bit, d, a.endian(), a.endian().swapped(), pos, nr, &mut out).is_err() {
                return;
            }
        }
    }
    let Some(ra) = comparable_records(&a) else { return };
    let Ok(swapped) = write_file(&a, a.endian().swapped()) else { return };
    let b = PerfFile::from_bytes(&swapped).expect("the writer's output reads back");
    let rb = comparable_records(&b).expect("the swapped copy reads without errors");
    assert_eq!(ra, rb, "records differ after a byte swap");
    let same = write_file(&a, a.endian()).expect("same-order rewrite");
    let back = write_file(&b, a.endian()).expect("swap back");
    assert!(same == back, "swapping twice is not the identity");
}

/// `tracepoint`: tracepoint parsing and rendering. The first byte picks what the rest is:
///
/// - `% 3 == 0`: a tracing-data blob (in its own byte order) followed by RAW bytes; every format
///   it carries is parsed again in the other byte order and the other `long` size, and every
///   format decodes and renders the RAW bytes (what `perfdata script` does for each sample);
/// - `% 3 == 1`: one `format` file text, a NUL, then RAW bytes;
/// - `% 3 == 2`: a `print fmt` text, a NUL, then RAW bytes, under [`PRINT_FMT_FIELDS`].
///
/// Bits 2–4 of the first byte choose, for the last two, big-endian RAW data, a 4-byte `long` and
/// the `ftrace` system (whose formats follow older rules).
pub fn tracepoint(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let endian = if mode & 4 == 0 { Endian::Little } else { Endian::Big };
    let long_size = if mode & 8 == 0 { 8 } else { 4 };
    let system = if mode & 16 == 0 { "fuzz" } else { "ftrace" };
    match mode % 3 {
        0 => {
            let Ok(td) = TracingData::parse(rest, Position::default()) else { return };
            let raw = rest.get(td.size..).unwrap_or(&[]);
            let tp = Tracepoints::from_data(&td);
            touch_tracepoints(&tp, raw);
            let texts = td.ftrace_formats.iter().map(|t| ("ftrace".to_string(), *t)).chain(
                td.systems.iter().flat_map(|s| s.formats.iter().map(|t| (String::from_utf8_lossy(s.name).into(), *t))),
            );
            let other_long = if tp.long_size == 4 { 8 } else { 4 };
            for (system, text) in texts {
                for (e, l) in [(td.endian.swapped(), tp.long_size), (td.endian, other_long)] {
                    if let Ok(f) = Format::parse(text, &system, e, l) {
                        touch_format(&tp, &f, raw);
                    }
                }
            }
        }
        1 => {
            let (text, raw) = split_nul(rest);
            if let Ok(f) = Format::parse(text, system, endian, long_size) {
                touch_format(&Tracepoints::default(), &f, raw);
            }
        }
        _ => {
            let (print, raw) = split_nul(rest);
            let mut text = PRINT_FMT_FIELDS.as_bytes().to_vec();
            text.extend_from_slice(b"print fmt: ");
            text.extend_from_slice(print);
            if let Ok(f) = Format::parse(&text, system, endian, long_size) {
                touch_format(&Tracepoints::default(), &f, raw);
            }
        }
    }
}

/// The bytes before the first NUL and those after it.
fn split_nul(b: &[u8]) -> (&[u8], &[u8]) {
    match b.iter().position(|&c| c == 0) {
        Some(i) => (b.get(..i).unwrap_or(b), b.get(i + 1..).unwrap_or(&[])),
        None => (b, &[]),
    }
}

/// `symbols`: the symbol-source parsers on the bytes: as a kallsyms text, a perf-PID.map text, an
/// ELF file (via `object`), a `/sys/kernel/notes` blob and a jitdump file; every symbol table is
/// then queried at addresses taken from the input and the names found are demangled, as the
/// symbolizer does.
pub fn symbols(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // Addresses to look up: the input's first 64 words, and each line's first field ±1.
    let mut addrs: Vec<u64> =
        data.chunks_exact(8).take(64).map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8]))).collect();
    for line in text.lines().take(256) {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Ok(a) = u64::from_str_radix(first.trim_start_matches("0x"), 16) {
            addrs.extend([a, a.wrapping_add(1), a.wrapping_sub(1)]);
        }
    }
    // The bytes as a kallsyms file (names need not be UTF-8), then as text.
    look_up(&kallsyms::parse_bytes(data).kernel, &addrs);
    let ks = kallsyms::parse(&text);
    look_up(&ks.kernel, &addrs);
    let _ = ks.kernel_extent();
    // The module symbols into one module's tree, as perf's split does, then the input read as
    // that module's file; lookups at map starts 0 and the first address.
    let mut module = kmod::ModuleDso::new("[m]".into(), "/m.ko".into(), None);
    for m in ks.modules.iter().take(4096) {
        module.tree.insert(m.sym.clone());
    }
    module.tree.fixup_end();
    module.tree.fixup_duplicate();
    let _ = module.add_file(data);
    for &a in &addrs {
        for start in [0, addrs.first().copied().unwrap_or(0)] {
            if let Some(s) = module.find(start, a) {
                let _ = demangle(&s.name);
            }
        }
    }
    for line in text.lines().take(64) {
        let _ = kmod::kmod_name(line);
    }
    look_up(&perfmap::parse(&text), &addrs);
    if let Some(elf) = ElfSymbols::parse(data) {
        let _ = (&elf.build_id, elf.has_symtab);
        let vaddrs: Vec<u64> = addrs.iter().map(|&a| elf.offset_to_vaddr(a)).collect();
        look_up(&elf.table, &vaddrs);
        look_up(&elf.table, &addrs);
    }
    let _ = running_kernel_build_id(data);
    jitdump(data, &text);
    // The demanglers on every line (the names of a perf map can be anything).
    for line in text.lines().take(64) {
        let _ = demangle(line);
    }
}

/// The bytes as a jitdump file (every record and debug entry read, the names as JIT symbols
/// looked up), and the text's lines as marker file names.
fn jitdump(data: &[u8], text: &str) {
    if let Ok(dump) = JitDump::parse(data) {
        let mut records = dump.records();
        for r in records.by_ref().take(1 << 16) {
            let Ok(r) = r else { continue };
            match r.kind {
                JitRecordKind::CodeLoad(l) => {
                    let sym = JitSymbol { name: String::from_utf8_lossy(l.name).into_owned(), size: l.code_size };
                    for off in [0, jit::ELF_TEXT_OFFSET, l.code_size, l.code_size.wrapping_add(jit::ELF_TEXT_OFFSET)] {
                        let _ = jit::symbol_at(&sym, off);
                    }
                    assert_eq!(l.code.len() as u64, l.code_size, "the code is code_size bytes");
                }
                JitRecordKind::DebugInfo(d) => d.entries().take(1 << 16).for_each(drop),
                _ => {}
            }
        }
        assert!(records.offset() <= data.len(), "records end inside the file");
    }
    for line in text.lines().take(64) {
        let _ = jit::marker_pid(line);
    }
}

fn look_up(t: &SymbolTable, addrs: &[u64]) {
    let _ = (t.len(), t.is_empty());
    for &a in addrs {
        if let Some(s) = t.find(a) {
            assert!(s.start <= a && a < s.end, "find returned a symbol that does not hold the address");
            let _ = demangle(&s.name);
        }
    }
}

/// Read everything of `file`; returns the number of records read.
pub fn drive(file: &PerfFile<'_>) -> usize {
    let mut n = 0;
    for bit in file.feature_bits() {
        let _ = file.feature_data(bit);
    }
    let _ = file.compression();
    for (_, f) in file.features().iter() {
        let _ = f.map(|f| format!("{f:?}"));
    }
    // What `perfdata script` does: the file's tracing data, or a pipe's from its record on.
    let from_file = Tracepoints::from_file(file);
    for order in [Order::File, Order::Time] {
        let mut tp = from_file.as_ref().ok().and_then(Option::as_ref).cloned();
        let Ok(mut recs) = file.records(order) else { break };
        let mut guard = 0usize;
        while let Some(r) = recs.next_record() {
            guard += 1;
            if guard > 5_000_000 {
                panic!("reader does not terminate");
            }
            match r {
                Ok(r) => {
                    n += 1;
                    touch(&r);
                    if let (Some(learned), None) = (Tracepoints::carried_by(&r), &tp) {
                        tp = learned.ok();
                    }
                    if let (Some(tp), RecordKind::Sample(s), Some(ev)) = (&tp, &r.kind, r.event) {
                        let _ = tp.format_by_id(ev.attr.config as u32);
                        if let (Some(fmt), Some(raw)) = (tp.format_for(&ev.attr), s.raw()) {
                            touch_format(tp, fmt, raw);
                        }
                    }
                }
                Err(e) => {
                    let _ = (e.to_string(), e.position(), e.record_type());
                }
            }
        }
        let _ = recs.diagnostics();
    }
    header_info(file);
    n
}

/// `perfdata info` and `perfdata info --json`.
pub fn header_info(file: &PerfFile<'_>) {
    let info = HeaderInfo::new(file);
    let _ = info.perf_text();
    let _ = serde_json::to_string(&info);
}

/// An empty directory for the symbolizer's `--symfs`, build-id cache and kallsyms path, so that
/// folding never reads the host's binaries or kernel symbols.
pub fn empty_dir() -> &'static PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join("perfdata-fuzz-empty");
        std::fs::create_dir_all(&d).expect("create the empty symfs directory");
        let entries = std::fs::read_dir(&d).map(|r| r.count()).unwrap_or(0);
        assert_eq!(entries, 0, "{} must be empty", d.display());
        d
    })
}

/// Folded stacks of `file` in both flavours, symbolized against [`empty_dir`] only.
pub fn drive_folded(file: &PerfFile<'_>) {
    let dir = empty_dir();
    let symbolize = SymbolizeOptions {
        symfs: Some(dir.clone()),
        buildid_dir: Some(dir.clone()),
        kallsyms: Some(dir.join("kallsyms")),
        ..Default::default()
    };
    let presets = [Compat::StackcollapsePl, Compat::PerfScriptPy]
        .map(|compat| FoldedOptions { symbolize: symbolize.clone(), ..FoldedOptions::compat(compat) });
    // Every option that changes how a frame or a root is written, and the filters (with a time
    // range reversed on purpose).
    let variants = [
        FoldedOptions {
            root: Root::CommPidTid,
            unknown: Unknown::Address,
            annotate_kernel: true,
            annotate_jit: true,
            inline: true,
            annotate_inline: true,
            srcline: true,
            tidy_java: true,
            weight: Weight::Samples,
            event_filter: EventFilter::All,
            ..presets[0].clone()
        },
        FoldedOptions {
            root: Root::None,
            unknown: Unknown::Unknown,
            tidy_generic: false,
            event_filter: EventFilter::Name("cycles".into()),
            pid: Some(1),
            tid: Some(1),
            comm: Some("perf".into()),
            // Percentages resolved against the input's SAMPLE_TIME feature.
            time: Some(perfdata_analysis::options::TimeRanges::Percent(vec![(0.1, 0.2), (0.5, 1.0)])),
            ..presets[1].clone()
        },
    ];
    for opts in presets.iter().chain(&variants) {
        if let Ok(f) = folded(file, opts) {
            let _ = f.to_folded_string();
        }
    }
    // The pprof export folds on its own path (raw keys made and numbered on the reading thread,
    // the first sample of each number kept on the folding one, the profile encoded and gzipped
    // on three more threads): with perf script's defaults, and with inline frames, source lines
    // and every event kept.
    for opts in [&presets[1], &variants[0]] {
        let _ = perfdata_analysis::export::pprof::pprof(file, opts);
    }
    let _ = perfdata_analysis::folded::feature_build_ids(file);
}

/// Off-CPU intervals of `file` (every state, and the filters with a time range reversed on
/// purpose) and its folded off-CPU stacks, symbolized against [`empty_dir`] only.
pub fn drive_offcpu(file: &PerfFile<'_>) {
    use perfdata_analysis::latency::offcpu::{off_cpu_each, off_cpu_folded, OffCpuOptions, OffCpuState};
    use perfdata_analysis::options::TimeRange;
    let filtered = OffCpuOptions {
        state: Some(OffCpuState::D),
        min_ns: 1,
        time: Some(TimeRange { start: u64::MAX, end: 0 }),
        pid: Some(1),
        tid: Some(1),
    };
    for opts in [OffCpuOptions::default(), filtered] {
        let _ = off_cpu_each(file, &opts, |i| {
            let _ = (i.frames(), i.state.as_str(), i.comm.to_str_lossy());
        });
    }
    let dir = empty_dir();
    let fold = FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(dir.clone()),
            buildid_dir: Some(dir.clone()),
            kallsyms: Some(dir.join("kallsyms")),
            ..Default::default()
        },
        ..FoldedOptions::default()
    };
    if let Ok((stacks, _)) = off_cpu_folded(file, &OffCpuOptions::default(), &fold) {
        let _ = stacks.to_folded_string();
    }
}

/// Every tracepoint format of `tp` over `raw`, and the lookups by id and name.
pub fn touch_tracepoints(tp: &Tracepoints, raw: &[u8]) {
    let _ = (tp.printk.len(), tp.cmdlines.len(), tp.errors.len(), &tp.version);
    for f in &tp.formats {
        let _ = tp.format_by_id(f.id);
        let _ = tp.format_by_name(&f.system, &f.name);
        touch_format(tp, f, raw);
    }
}

/// Decode every field of `f` from `raw` (by list and by name) and render its print fmt, as
/// `perfdata script` and `dump --json` do.
pub fn touch_format(tp: &Tracepoints, f: &Format, raw: &[u8]) {
    let _ = (f.full_name(), f.print_parsed(), &f.print_fmt, &f.parse_error);
    // Converting every value costs fields × record bytes when a crafted format's fields overlap;
    // like fields_json, convert at most the record's worth of strings and arrays.
    let mut budget = raw.len();
    for (_, v) in f.decode(raw).iter().chain(f.decode_common(raw).iter()) {
        let len = match v {
            Value::Str(b) | Value::Bytes(b) => b.len(),
            Value::Array(a) => a.bytes.len(),
            _ => 0,
        };
        match budget.checked_sub(len) {
            Some(rest) => {
                budget = rest;
                touch_value(v);
            }
            None => {
                let _ = v.as_u64();
            }
        }
    }
    for field in f.all_fields() {
        let _ = (field.is_signed(), field.element_type());
        let _ = f.field_def(&field.name);
        let _ = f.field(raw, &field.name).map(|v| v.as_u64());
    }
    let _ = f.fields_json(raw).to_string();
    let _ = tp.render_bytes(f, raw);
    let _ = tp.render(f, raw);
}

fn touch_value(v: &Value<'_>) {
    let _ = (v.as_u64(), v.as_i64(), v.as_str(), v.to_json(), v.to_string());
    if let Value::Array(a) = v {
        let _ = (a.len(), a.is_empty(), a.get(a.len().wrapping_sub(1)), a.iter().count());
    }
}

/// The fields of the fixed format a fuzzed `print fmt` is parsed under: every field kind
/// libtraceevent distinguishes (common fields, a char array, signed and unsigned scalars, a kernel
/// `long`, a pointer, `__data_loc` and `__rel_loc` strings and arrays, byte arrays sized for MAC,
/// IPv4, IPv6 and UUID conversions, an int array), up to the `print fmt:` line.
pub const PRINT_FMT_FIELDS: &str = "name: fuzz
ID: 1
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:u16 flags;\toffset:28;\tsize:2;\tsigned:0;
\tfield:s8 level;\toffset:30;\tsize:1;\tsigned:1;
\tfield:long state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;
\tfield:__rel_loc char[] rname;\toffset:44;\tsize:4;\tsigned:0;
\tfield:unsigned long addr;\toffset:48;\tsize:8;\tsigned:0;
\tfield:__data_loc unsigned long[] stack;\toffset:56;\tsize:4;\tsigned:0;
\tfield:u8 mac[6];\toffset:60;\tsize:6;\tsigned:0;
\tfield:__u8 saddr[4];\toffset:66;\tsize:4;\tsigned:0;
\tfield:__u8 saddr_v6[16];\toffset:70;\tsize:16;\tsigned:0;
\tfield:u8 uuid[16];\toffset:86;\tsize:16;\tsigned:0;
\tfield:__data_loc u8[] sockaddr;\toffset:102;\tsize:4;\tsigned:0;
\tfield:int arr[4];\toffset:106;\tsize:16;\tsigned:1;
\tfield:const char * str;\toffset:122;\tsize:8;\tsigned:0;
\tfield:__data_loc unsigned long[] mask;\toffset:130;\tsize:4;\tsigned:0;
\tfield:__data_loc int[] ints;\toffset:134;\tsize:4;\tsigned:1;
\tfield:unsigned long long time;\toffset:138;\tsize:8;\tsigned:0;

";

fn touch(r: &perfdata_core::Record<'_>) {
    let _ = perfdata_core::json::record_json(r);
    let _ = r.time();
    if let Some(sid) = r.sample_id {
        let _ = (sid.pid(), sid.tid(), sid.time(), sid.id(), sid.stream_id(), sid.cpu(), sid.res(), sid.identifier());
    }
    match &r.kind {
        RecordKind::Sample(s) => {
            let _ = (s.identifier(), s.ip(), s.pid(), s.tid(), s.time(), s.addr(), s.id(), s.stream_id());
            let _ = (s.cpu(), s.cpu_res(), s.period_or_attr(), s.weight_struct(), s.transaction(), s.phys_addr());
            let _ = (s.cgroup(), s.data_page_size(), s.code_page_size(), s.aux().map(<[u8]>::len), s.trailing().len());
            let _ =
                s.data_src_decoded().map(|d| (d.op_names(), d.lvl_names(), d.snoop_names(), d.dtlb_names(), d.hops()));
            let _ = s.read().map(|r| (r.nr(), r.time_enabled(), r.time_running(), r.values().count()));
            let _ = s.callchain().map(|c| c.iter().fold(0u64, |a, b| a ^ b));
            let _ = s.callchain_contexts();
            let _ = s.raw().map(<[u8]>::len);
            let _ = s.branch_stack().map(|b| {
                b.entries().fold(0usize, |n, e| {
                    let _ = (e.cycles(), e.branch_type(), e.spec(), e.priv_(), e.new_type());
                    n + 1
                }) + b.counters.map_or(0, |c| c.len())
            });
            for regs in [s.regs_user(), s.regs_intr()].into_iter().flatten() {
                let _ = regs.iter().count();
                let _ = regs.get(7);
            }
            let _ = s.stack_user().map(|u| (u.size, u.data.len(), u.dyn_size));
            if let Some(ev) = r.event {
                let _ = perfdata_core::sample::sample_event_names(s, ev, r.events);
            }
        }
        RecordKind::ThreadMap(t) => {
            let _ = t.entries().count();
        }
        RecordKind::CpuMap(c) => {
            let _ = c.data.cpus().len();
        }
        RecordKind::IdIndex(i) => {
            let _ = i.entries().count();
        }
        RecordKind::StatConfig(c) => {
            let _ = c.entries().count();
        }
        RecordKind::BpfMetadata(b) => {
            let _ = b.entries().count();
        }
        RecordKind::Namespaces(ns) => {
            let _ = ns.namespace(3);
        }
        _ => {}
    }
}

/// A one-attr perf.data file with the given attr and data section.
pub fn file_with(attr: &EventAttr, data: &[u8], endian: Endian) -> Vec<u8> {
    let mut out = vec![0u8; 104];
    let attrs_off = out.len() as u64;
    attr.write(endian, &mut out);
    endian.put_u64(&mut out, 0);
    endian.put_u64(&mut out, 0);
    let attr_size = out.len() as u64 - attrs_off;
    let data_off = out.len() as u64;
    out.extend_from_slice(data);
    let mut h = Vec::new();
    h.extend_from_slice(if endian == Endian::Little { b"PERFILE2" } else { b"2ELIFREP" });
    for v in [104u64, attr_size, attrs_off, attr_size, data_off, data.len() as u64, 0, 0, 0, 0, 0, 0] {
        endian.put_u64(&mut h, v);
    }
    if let Some(dst) = out.get_mut(..104) {
        dst.copy_from_slice(&h);
    }
    out
}

/// An attr whose sample layout comes from the first 40 bytes of `data` (sample_type, read_format,
/// branch_sample_type, regs masks), sampling everything the bytes ask for.
pub fn attr_from(data: &[u8]) -> EventAttr {
    let word = |i: usize| data.get(i * 8..i * 8 + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    EventAttr {
        type_: 1,
        size: 136,
        sample_type: word(0) & ((1 << 25) - 1) | st::TIME,
        read_format: word(1) & 0x1f,
        branch_sample_type: word(2),
        sample_regs_user: word(3),
        sample_regs_intr: word(4),
        flags: 1 << 18,
        ..Default::default()
    }
}

/// `sched`: the scheduler and latency analyses (perf sched latency/map/timehist with every
/// option, the timeline, block and wakeup latency, off-CPU time) on the bytes as a file, and as a
/// pipe stream after a pipe header (whose tracing data comes inline, so mutations reach the sched
/// fields).
pub fn sched(data: &[u8]) {
    let mut piped = b"PERFILE2".to_vec();
    piped.extend_from_slice(&16u64.to_le_bytes());
    piped.extend_from_slice(data);
    for bytes in [data, &piped[..]] {
        if let Ok(f) = PerfFile::from_bytes(bytes) {
            sched_all(&f);
        }
    }
}

fn sched_all(f: &PerfFile<'_>) {
    use perfdata_analysis::latency::{block, wakeup};
    use perfdata_analysis::sched::{latency, map, timehist, timeline, Compat};
    for compat in [Compat::Modern, Compat::Perf61] {
        for by in [latency::GroupBy::Comm, latency::GroupBy::Tid] {
            let o = latency::LatencyOptions {
                by,
                compat,
                cpu: (by == latency::GroupBy::Tid).then_some(0),
                ..Default::default()
            };
            if let Ok(l) = latency::sched_latency(f, &o) {
                let _ = l.text();
            }
        }
        let o = timehist::TimehistOptions {
            compat,
            wakeups: true,
            migrations: true,
            cpu_visual: true,
            state: true,
            next: true,
            summary: timehist::SummaryMode::With,
            ..Default::default()
        };
        let _ = timehist::sched_timehist_text(f, &o);
        let o = timehist::TimehistOptions {
            compat,
            idle_hist: true,
            summary: timehist::SummaryMode::Only,
            pids: Some(vec![1]),
            cpus: Some(vec![0]),
            time: Some(perfdata_analysis::TimeRange { start: 1, end: u64::MAX / 2 }),
            ..Default::default()
        };
        let _ = timehist::sched_timehist_text(f, &o);
    }
    let _ = map::sched_map_text(f, &map::MapOptions::default());
    let _ = map::sched_map_text(f, &map::MapOptions { compact: true, cpus: Some(vec![1]), nr_cpus: Some(3) });
    for rows in [timeline::Rows::Cpu, timeline::Rows::Task] {
        if let Ok(t) =
            timeline::sched_timeline(f, &timeline::TimelineOptions { width: 100, rows, ..Default::default() })
        {
            let _ = t.svg();
        }
    }
    let _ = wakeup::wakeup_latency(f, &wakeup::WakeupOptions::default());
    let _ = block::block_latency(f, &block::BlockOptions::default());
    drive_offcpu(f);
}

/// Run a parser of `perfdata_core::parse` over `input` (of `len` bytes): no panic, and what it
/// reports as read lies inside the input.
fn run_parser<'a, T>(
    input: perfdata_core::parse::Reader<'a>,
    len: usize,
    parser: impl FnOnce(perfdata_core::parse::Reader<'a>) -> perfdata_core::parse::PResult<'a, T>,
) {
    if let Ok((rest, _)) = parser(input) {
        assert!(rest.remaining() <= len);
    }
}

/// Every feature-section parser of `parse::feature` over `input` (of `len` bytes): no panic, and
/// what a parser reports as read lies inside the input.
fn parse_features(input: perfdata_core::parse::Reader<'_>, len: usize) {
    use perfdata_core::parse::feature as f;
    let n = input.rest().first().map_or(0, |b| u32::from(*b));
    run_parser(input, len, f::string);
    run_parser(input, len, f::nr_cpus);
    run_parser(input, len, f::total_mem);
    run_parser(input, len, f::cmdline);
    run_parser(input, len, f::build_ids);
    run_parser(input, len, f::event_desc);
    run_parser(input, len, f::cpu_topology(n));
    run_parser(input, len, f::numa_topology);
    run_parser(input, len, f::cache);
    run_parser(input, len, f::mem_topology);
    run_parser(input, len, f::hybrid_topology);
    run_parser(input, len, f::cpu_domain_info(n));
    run_parser(input, len, f::group_desc);
    run_parser(input, len, f::pmu_mappings);
    run_parser(input, len, f::cpu_pmu_caps);
    run_parser(input, len, f::pmu_caps);
    run_parser(input, len, f::sample_time);
    run_parser(input, len, f::clockid_res_ns);
    run_parser(input, len, f::clock_data);
    run_parser(input, len, f::auxtrace);
    run_parser(input, len, f::dir_format);
    run_parser(input, len, f::compressed);
    run_parser(input, len, f::bpf_prog_info);
    run_parser(input, len, f::bpf_btf);
    run_parser(input, len, f::simpleperf_file);
    run_parser(input, len, f::simpleperf_file2);
    run_parser(input, len, f::simpleperf_meta_info);
    run_parser(input, len, f::simpleperf_debug_unwind);
    run_parser(input, len, f::table(&[1, 2, 3, 200]));
}

/// Every record-body parser of `parse::record` over `input` (of `len` bytes), with the first byte
/// as `misc` and `read_format`: no panic, and what a parser reports as read lies inside the input.
fn parse_records(input: perfdata_core::parse::Reader<'_>, len: usize) {
    use perfdata_core::parse::record as r;
    use perfdata_core::record::{record_type as t, RecordHeader};
    let first = input.rest().first().map_or(0, |b| *b);
    let (misc, read_format) = (u16::from(first) << 8 | u16::from(first), u64::from(first) & 0x1f);
    run_parser(input, len, r::mmap);
    run_parser(input, len, r::mmap2(misc));
    run_parser(input, len, r::lost);
    run_parser(input, len, r::comm(misc));
    run_parser(input, len, r::task);
    run_parser(input, len, r::throttle);
    run_parser(input, len, r::read(read_format));
    run_parser(input, len, r::aux);
    run_parser(input, len, r::itrace_start);
    run_parser(input, len, r::lost_samples);
    run_parser(input, len, r::switch_cpu_wide);
    run_parser(input, len, r::namespaces);
    run_parser(input, len, r::ksymbol);
    run_parser(input, len, r::bpf_event);
    run_parser(input, len, r::cgroup);
    run_parser(input, len, r::text_poke);
    run_parser(input, len, r::aux_output_hw_id);
    run_parser(input, len, r::callchain_deferred);
    run_parser(input, len, r::sample_id(u64::from(first) << 1));
    run_parser(input, len, r::header_attr);
    run_parser(input, len, r::header_event_type);
    let h = RecordHeader { type_: t::HEADER_TRACING_DATA, misc: 0, size: 8 + u16::from(first) };
    run_parser(input, len, r::tracing_data(h, &[]));
    run_parser(input, len, r::build_id(misc));
    run_parser(input, len, r::id_index);
    run_parser(input, len, r::auxtrace_info);
    run_parser(input, len, r::auxtrace(&[]));
    run_parser(input, len, r::auxtrace_error);
    run_parser(input, len, r::thread_map);
    run_parser(input, len, r::cpu_map);
    run_parser(input, len, r::stat_config);
    run_parser(input, len, r::stat);
    run_parser(input, len, r::stat_round);
    run_parser(input, len, r::event_update);
    run_parser(input, len, r::time_conv);
    run_parser(input, len, r::header_feature);
    run_parser(input, len, r::compressed);
    run_parser(input, len, r::compressed2);
    run_parser(input, len, r::bpf_metadata);
    run_parser(input, len, r::schedstat(first & 1 != 0));
    run_parser(input, len, r::simpleperf_kernel_symbol);
    run_parser(input, len, r::simpleperf_dso);
    run_parser(input, len, r::simpleperf_symbol);
    run_parser(input, len, r::simpleperf_event_id);
    run_parser(input, len, r::simpleperf_callchain);
    run_parser(input, len, r::simpleperf_unwinding_result);
    run_parser(input, len, r::simpleperf_debug);
}

/// `parse`: the public nom parsers of `perfdata_core::parse` driven directly, at every offset of
/// the first 64 and in both byte orders: the file header, a perf_event_attr, a record header, a
/// section and a u64 array never panic, consume no more than the input, and what they decode
/// writes back to bytes that decode to the same value.
pub fn parse(data: &[u8]) {
    use perfdata_core::parse::{self as p, Reader};
    for endian in [Endian::Little, Endian::Big] {
        for start in 0..data.len().min(64) {
            let bytes = data.get(start..).unwrap_or(&[]);
            let input = || Reader::new(bytes, endian, Position::at(start as u64), "fuzz");
            let consumed = |rest: &Reader<'_>| bytes.len() - rest.remaining();
            if let Ok((rest, h)) = p::file_header(input()) {
                assert!(consumed(&rest) <= bytes.len());
                let mut out = Vec::new();
                h.write(endian, &mut out);
                let back = p::file_header(Reader::new(&out, endian, Position::at(0), "fuzz")).map(|(_, b)| b);
                if h.format == perfdata_core::header::Format::File {
                    assert_eq!(back.ok(), Some(h));
                }
            }
            // The sample parser, laid out by an attr read from the same bytes (first offsets only,
            // as the section and record parsers below).
            if let (true, Ok((_, a))) = (start < 4, p::event_attr(input())) {
                let ev = perfdata_core::event::Event::new(0, a, vec![]);
                run_parser(input(), bytes.len(), p::record::sample(&ev));
            }
            if let Ok((rest, a)) = p::event_attr(input()) {
                assert!(consumed(&rest) <= bytes.len());
                let mut out = Vec::new();
                a.write(endian, &mut out);
                let back = p::event_attr(Reader::new(&out, endian, Position::at(0), "fuzz")).map(|(_, b)| b);
                // Written at its declared size when the input held all of it.
                if consumed(&rest) == a.stored_size() && a.stored_size() >= 64 {
                    assert_eq!(back.ok(), Some(a));
                }
            }
            if let Ok((_, h)) = p::record_header(input()) {
                let mut out = Vec::new();
                h.write(endian, &mut out);
                assert_eq!(
                    p::record_header(Reader::new(&out, endian, Position::at(0), "fuzz")).ok().map(|r| r.1),
                    Some(h)
                );
            }
            let _ = p::section(input());
            // The ~90 section and record parsers at the first offsets only: at every one of 64 a
            // run took 18 ms (365 s for the smoke's 20,000 runs); the mutations vary the bytes anyway.
            if start < 4 {
                parse_features(input(), bytes.len());
                parse_records(input(), bytes.len());
                run_parser(input(), bytes.len(), p::tracing::tracing_data);
                run_parser(input(), bytes.len(), p::file_attr(usize::from(bytes.first().copied().unwrap_or(0)) + 64));
            }
            let count = bytes.first().map_or(0, |b| u64::from(*b));
            if let Ok((rest, v)) = p::u64s(count)(input()) {
                assert_eq!(v.len() as u64, count);
                assert_eq!(consumed(&rest) as u64, count * 8);
            }
        }
    }
}

/// `report`: perf report's tables of the bytes as a file and as a pipe stream (`perfdata report`):
/// every event's, with and without perf's group view, with the children and their call graphs
/// laid out, and the plain table of every event's samples; then `perfdata script`'s text. No
/// panic, no allocation beyond the fuzzer's limits.
pub fn report(data: &[u8]) {
    use perfdata_analysis::report::{
        report, report_group_view, report_per_event, report_table, CallGraph, ChainOrder, ReportOptions, TableOptions,
    };
    use perfdata_analysis::script::{write_script_with, ScriptOptions};
    for bytes in file_and_pipe(data) {
        let Ok(f) = PerfFile::from_bytes(&bytes) else { continue };
        let fold = fuzz_fold(Compat::PerfScriptPy);
        let graphs = ReportOptions {
            children: true,
            call_graph: Some(ChainOrder::Caller),
            fold: fold.clone(),
            ..ReportOptions::default()
        };
        let layout = CallGraph::parse("graph,0.5,caller").ok().flatten();
        for reports in [report_per_event(&f, &graphs), report_group_view(&f, &graphs)] {
            let Ok(reports) = reports else { continue };
            for r in &reports {
                let t = TableOptions {
                    sort: &graphs.sort,
                    samples: true,
                    percent_limit: 0.0,
                    call_graph: layout,
                    skip_first_frame: false,
                };
                let _ = report_table(&r.rows, r.total, &t);
            }
        }
        let plain = ReportOptions { fold: fold.clone(), ..ReportOptions::default() };
        if let Ok(r) = report(&f, &plain) {
            let t = TableOptions {
                sort: &plain.sort,
                samples: true,
                percent_limit: 0.0,
                call_graph: None,
                skip_first_frame: false,
            };
            let _ = report_table(&r.rows, r.total, &t);
        }
        let opts = ScriptOptions { symbolize: fold.symbolize.clone(), ..ScriptOptions::default() };
        let _ = write_script_with(&f, &opts, &mut std::io::sink(), &mut |_| {});
    }
}

/// The bytes as a file, and as a pipe stream after a pipe header.
fn file_and_pipe(data: &[u8]) -> [Vec<u8>; 2] {
    let mut piped = b"PERFILE2".to_vec();
    piped.extend_from_slice(&16u64.to_le_bytes());
    piped.extend_from_slice(data);
    [data.to_vec(), piped]
}

/// Folding options that read no host binary or kernel symbols (see [`empty_dir`]).
fn fuzz_fold(compat: Compat) -> FoldedOptions {
    let dir = empty_dir();
    let symbolize = SymbolizeOptions {
        symfs: Some(dir.clone()),
        buildid_dir: Some(dir.clone()),
        kallsyms: Some(dir.join("kallsyms")),
        ..Default::default()
    };
    FoldedOptions { symbolize, root: Root::CommPidTid, ..FoldedOptions::compat(compat) }
}

/// `export_chrome`: the streamed Chrome trace (with and without samples) of the bytes as a file
/// and as a pipe stream. When it succeeds the output is one JSON document, and every sample's
/// `sf` is a `stackFrames` entry whose parents are entries too.
pub fn export_chrome(data: &[u8]) {
    use perfdata_analysis::export::chrome::{write_chrome_trace, ChromeOptions};
    for bytes in file_and_pipe(data) {
        let Ok(f) = PerfFile::from_bytes(&bytes) else { continue };
        for no_samples in [false, true] {
            let o = ChromeOptions { fold: fuzz_fold(Compat::StackcollapsePl), no_samples };
            let mut out = Vec::new();
            if write_chrome_trace(&f, &o, &mut out).is_err() {
                continue;
            }
            let doc: serde_json::Value = serde_json::from_slice(&out).expect("the trace is JSON");
            let frames = doc["stackFrames"].as_object().expect("stackFrames");
            for e in doc["traceEvents"].as_array().expect("traceEvents") {
                assert!(e["ph"].is_string() && e["pid"].is_u64(), "{e}");
                if let Some(sf) = e.get("sf") {
                    assert!(!no_samples);
                    let mut id = sf.as_u64().expect("sf").to_string();
                    for _ in 0..=frames.len() {
                        match frames.get(&id).expect("sf in stackFrames")["parent"].as_str() {
                            Some(p) => id = p.to_string(),
                            None => break,
                        }
                    }
                }
            }
        }
    }
}

/// `export_speedscope`: the streamed speedscope profiles of the bytes as a file and as a pipe
/// stream, spilling to the temporary file every few hundred bytes. When it succeeds the output
/// is JSON, every profile's events are in time order within its values and nest properly.
pub fn export_speedscope(data: &[u8]) {
    use perfdata_analysis::export::speedscope::{write_speedscope, SpeedscopeOptions};
    for bytes in file_and_pipe(data) {
        let Ok(f) = PerfFile::from_bytes(&bytes) else { continue };
        for compat in [Compat::StackcollapsePl, Compat::PerfScriptPy] {
            let o = SpeedscopeOptions { fold: fuzz_fold(compat), name: "fuzz".into(), memory: 256 };
            let mut out = Vec::new();
            if write_speedscope(&f, &o, &mut out).is_err() {
                continue;
            }
            let doc: serde_json::Value = serde_json::from_slice(&out).expect("the profile is JSON");
            let frames = doc["shared"]["frames"].as_array().expect("frames").len() as u64;
            let profiles = doc["profiles"].as_array().expect("profiles");
            assert!(!profiles.is_empty());
            for p in profiles {
                let end = p["endValue"].as_u64().expect("endValue");
                let (mut open, mut last) = (Vec::new(), 0u64);
                for e in p["events"].as_array().expect("events") {
                    let (at, frame) = (e["at"].as_u64().expect("at"), e["frame"].as_u64().expect("frame"));
                    assert!(at >= last && at <= end && frame < frames, "{e}");
                    last = at;
                    match e["type"].as_str() {
                        Some("O") => open.push(frame),
                        Some("C") => assert_eq!(open.pop(), Some(frame)),
                        t => panic!("event type {t:?}"),
                    }
                }
                assert!(open.is_empty());
            }
        }
    }
}
