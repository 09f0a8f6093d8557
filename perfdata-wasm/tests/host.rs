//! The bindings called as plain Rust on the host: each view of a committed recording equals what
//! perf 6.1 printed for it, with the frames named only from files handed over as bytes.

use std::path::{Path, PathBuf};

use perfdata_wasm::{Loader, Recording};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn open(name: &str) -> Recording {
    Recording::new(std::fs::read(testdata().join(name)).unwrap()).unwrap()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(testdata().join(name)).unwrap()
}

/// Every regular file under `dir`.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// fp.data with its binaries (testdata/folded/root: spin, libc, ld.so) and the recording
/// kernel's kallsyms handed over as bytes, as the page's user drops them.
fn fp_with_files() -> Recording {
    let mut rec = open("fp.data");
    let mut files = Vec::new();
    files_under(&testdata().join("folded/root"), &mut files);
    let mut placed = 0;
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if let Ok(at) = rec.add_binary(&name, std::fs::read(&f).unwrap()) {
            assert!(!at.is_empty());
            placed += 1;
        }
    }
    assert!(placed >= 3, "spin, libc and ld.so are ELF files with build ids");
    rec.add_kallsyms(
        std::fs::read(testdata().join("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")).unwrap(),
    );
    rec
}

/// Lines in any order (folded output is a set of stacks).
fn sorted(text: &str) -> Vec<&str> {
    let mut l: Vec<&str> = text.lines().collect();
    l.sort_unstable();
    l
}

#[test]
fn folded_from_handed_over_files_equals_perfs() {
    let rec = fp_with_files();
    for (compat, suffix) in
        [("stackcollapse-pl", "folded-stackcollapse-pl"), ("perf-script-py", "folded-perf-script-py")]
    {
        let ours = rec.folded(compat).unwrap();
        assert_eq!(sorted(&ours), sorted(&read(&format!("fp.data.{suffix}"))), "{compat}");
    }
}

#[test]
fn without_files_frames_are_unnamed_and_nothing_is_read_from_this_machine() {
    // The symbolizer reads only the handed-over files: this machine's build-id cache and paths
    // are never looked at, so without files no user frame of spin is named.
    let rec = open("fp.data");
    let folded = rec.folded("stackcollapse-pl").unwrap();
    assert!(!folded.contains("__libc_start_call_main;main;run"), "{folded}");
    assert!(folded.contains("[unknown]"));
    assert!(fp_with_files().folded("stackcollapse-pl").unwrap().contains("__libc_start_call_main;main;run"));
}

#[test]
fn a_file_that_is_not_elf_or_not_mapped_is_refused_with_a_reason() {
    let mut rec = open("fp.data");
    let e = rec.add_binary("notes.txt", b"hello".to_vec()).err().unwrap();
    assert!(e.0.contains("not an ELF file"), "{e}");
    // An ELF file without a build id (its GNU note's name overwritten) that fp.data maps under
    // no such name cannot be placed.
    let mut spin = std::fs::read(testdata().join("bin/spin")).unwrap();
    let note = b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00";
    let at = spin.windows(note.len()).position(|w| w == note).unwrap();
    spin[at + 12..at + 15].copy_from_slice(b"XYZ");
    let e = rec.add_binary("other", spin.clone()).err().unwrap();
    assert!(e.0.contains("no build id, and the recording maps no file of that name"), "{e}");
    // Under the name fp.data maps, it goes to the recorded path.
    assert_eq!(rec.add_binary("spin", spin).unwrap(), "/work/main/testdata/bin/spin\n");
    assert!(Recording::new(b"PERFILE2 but short".to_vec()).is_err());
}

#[test]
fn the_flame_graph_is_an_svg_with_the_named_frames() {
    let svg = fp_with_files().flamegraph("fp", "").unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("<svg"), "{}", &svg[..100.min(svg.len())]);
    assert!(svg.contains("<title>__libc_start_call_main (") && svg.contains(">fp<"));
}

#[test]
fn sched_views_equal_perfs() {
    let rec = open("sched.data");
    assert_eq!(rec.sched_latency("perf-6.1").unwrap(), read("sched.data.sched-latency"));
    assert_ne!(rec.sched_latency("").unwrap(), read("sched.data.sched-latency"), "modern rules by default");
    assert_eq!(rec.sched_map().unwrap(), read("sched.data.sched-map"));
    let svg = rec.sched_timeline(1200, "cpu", 0).unwrap();
    assert!(svg.contains("<svg") && svg.contains("Scheduler timeline"));
    assert_eq!(svg.matches(r#"<text class="lane""#).count(), 2, "a lane per CPU");
    let svg = rec.sched_timeline(1200, "task", 3).unwrap();
    assert_eq!(svg.matches(r#"<text class="lane""#).count(), 3, "a lane per task, three of them");
    assert!(rec.sched_timeline(1200, "tasks", 3).is_err());
}

#[test]
fn header_equals_perfs_but_for_the_capture_time() {
    // Bytes carry no modification time: perf's `captured on` line is the file's. pipe-z.data is
    // a pipe's stream with zstd-compressed records (zstd's C code, also in the wasm32 build).
    let keep = |t: &str| t.lines().filter(|l| !l.starts_with("# captured on")).map(str::to_owned).collect::<Vec<_>>();
    for name in ["fp.data", "pipe-z.data"] {
        let ours = open(name).header();
        assert_eq!(keep(&ours), keep(&read(&format!("{name}.header"))), "{name}");
    }
    let v: serde_json::Value = serde_json::from_str(&open("pipe-z.data").stats().unwrap()).unwrap();
    assert!(v["types"]["COMPRESSED"].as_u64().unwrap() > 0, "{v}");
    assert!(v["samples_by_event"].as_object().unwrap().values().any(|n| n.as_u64() > Some(0)), "{v}");
}

#[test]
fn stats_count_perfs_records() {
    let v: serde_json::Value = serde_json::from_str(&open("fp.data").stats().unwrap()).unwrap();
    // perf report --stats: "TOTAL events: 173", and 152 samples (testdata/README.md).
    assert_eq!(v["records"], 173);
    assert_eq!(v["samples_by_event"]["cpu-clock"], 152);
}

#[test]
fn block_latency_and_heat_map() {
    let rec = open("block.data");
    let v: serde_json::Value = serde_json::from_str(&rec.block_latency().unwrap()).unwrap();
    let paired = v["paired"].as_u64().unwrap();
    assert!(paired > 0);
    assert_eq!(v["percentiles_ns"]["count"].as_u64(), Some(paired));
    let svg = rec.block_heatmap().unwrap();
    assert!(svg.contains("<svg") && svg.contains("Block I/O latency"));
}

#[test]
fn the_loader_takes_pieces_and_refuses_a_short_or_long_file() {
    let bytes = std::fs::read(testdata().join("fp.data")).unwrap();
    let mut l = Loader::new(bytes.len()).unwrap();
    for c in bytes.chunks(4096) {
        l.push(c).unwrap();
    }
    assert_eq!(l.received(), bytes.len());
    let rec = l.finish().unwrap();
    assert_eq!(rec.folded("").unwrap(), open("fp.data").folded("").unwrap());
    let mut short = Loader::new(bytes.len()).unwrap();
    short.push(&bytes[..100]).unwrap();
    assert!(short.finish().is_err());
    assert!(Loader::new(usize::MAX).is_err(), "an impossible size is an error, not an abort");
    let mut long = Loader::new(10).unwrap();
    assert!(long.push(&bytes[..11]).is_err());
    assert!(long.advance(11).is_err());
    // Written in place, as the page does.
    let mut l = Loader::new(bytes.len()).unwrap();
    for c in bytes.chunks(5000) {
        let at = l.next_at() as *mut u8;
        // SAFETY: next_at points at the loader's buffer with room for the rest of the file.
        unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), at, c.len()) };
        l.advance(c.len()).unwrap();
    }
    assert_eq!(l.finish().unwrap().stats().unwrap(), open("fp.data").stats().unwrap());
}

#[test]
fn a_symbol_archive_names_the_frames() {
    // The archive `perfdata archive` makes of fp.data on the recording machine (here: with
    // testdata's files), handed over as bytes: the same stacks as with the files themselves.
    use perfdata_analysis::symbolize::{archive, SymbolizeOptions};
    use perfdata_analysis::{folded, FoldedOptions};
    let td = testdata();
    let log = archive::ReadLog::default();
    let opts = FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(td.join("folded/root")),
            buildid_dir: Some(td.join("folded/no-buildid-cache")),
            kallsyms: Some(td.join("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
            read_log: Some(log.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    let file = perfdata_analysis::core::PerfFile::open(td.join("fp.data")).unwrap();
    folded(&file, &opts).unwrap();
    let out = std::env::temp_dir().join(format!("perfdata-wasm-fp-{}.symbols", std::process::id()));
    archive::write(&out, &log.files()).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let mut rec = open("fp.data");
    assert!(rec.add_archive(&bytes).unwrap() >= 3);
    let want = fp_with_files().folded("stackcollapse-pl").unwrap();
    assert!(want.contains("__libc_start_call_main;main;run"));
    assert_eq!(sorted(&rec.folded("stackcollapse-pl").unwrap()), sorted(&want));
    // A damaged archive is an error, not a panic.
    let mut rec = open("fp.data");
    let e = rec.add_archive(&bytes[..bytes.len() / 2]).err().unwrap();
    assert!(e.0.contains("truncated or damaged"), "{e}");
}
