//! `--symbols` with perf's own `perf archive` output (`FILE.tar.bz2`). perf's archive of a
//! recording holds its build-id cache entries as `~/.debug` has them (see `tar tjvf` of one):
//!
//! ```text
//! .build-id/40/19a4…adc9 -> ../../work/main/testdata/bin/spin/4019a4…adc9   (symlink)
//! work/main/testdata/bin/spin/4019a4…adc9/                                  (directory)
//! work/main/testdata/bin/spin/4019a4…adc9/elf
//! work/main/testdata/bin/spin/4019a4…adc9/probes                            (empty)
//! usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2/7ebc…/debug                (with its elf)
//! [kernel.kallsyms]/4a5a…/kallsyms
//! ```
//!
//! A real one holds the recording machine's libc and kallsyms (megabytes), so the tests build
//! one in that layout from the fixtures' files (those `perfdata archive` collects with the
//! testdata symbols), and read fp.data through it on a "machine" without them.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{report_rows as rows, stored, testdata};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("perf-archive", name, &["empty", "home"])
}

fn perfdata(args: &[&str], dir: &Path) -> Output {
    common::perfdata_elsewhere(dir).args(args).output().unwrap()
}

/// Archive names and bytes of files, and the DSO index's (build id, DSO) pairs.
type Fixture = (Vec<(String, Vec<u8>)>, Vec<(String, String)>);

/// The files of `name`'s symbols (`perfdata archive` with the fixtures' symbols): archive name
/// and bytes, and its DSO index.
fn fixture_files(name: &str, dir: &Path) -> Fixture {
    let out = dir.join(format!("{name}.symbols"));
    let data = testdata(name);
    let mut args = vec!["archive", data.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let sym = common::symbol_args(&testdata("folded/root"));
    args.extend(sym.iter().map(String::as_str));
    let o = perfdata(&args, dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut files = Vec::new();
    let mut tar = tar::Archive::new(zstd::Decoder::new(std::fs::File::open(&out).unwrap()).unwrap());
    for e in tar.entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        e.read_to_end(&mut bytes).unwrap();
        files.push((path, bytes));
    }
    let index = files.iter().find(|(p, _)| p == "perfdata-dsos.txt").unwrap();
    let index = String::from_utf8(index.1.clone()).unwrap();
    let index = index.lines().map(|l| l.split_once(' ').unwrap()).map(|(b, d)| (b.into(), d.into())).collect();
    (files, index)
}

fn header(kind: tar::EntryType, mode: u32, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_size(size);
    h.set_mtime(1_700_000_000);
    h
}

/// `name`'s symbols as `perf archive` lays them out, bzip2-compressed, at `out`.
fn perf_archive(name: &str, dir: &Path, out: &Path) {
    let (files, index) = fixture_files(name, dir);
    let mut b = tar::Builder::new(bzip2::write::BzEncoder::new(
        std::fs::File::create(out).unwrap(),
        bzip2::Compression::best(),
    ));
    let mut linked = std::collections::HashSet::new();
    for (path, bytes) in &files {
        let parts: Vec<&str> = path.split('/').collect();
        let (bid, dso_dir, file) = match parts.as_slice() {
            [".build-id", head, tail, file] => {
                let bid = format!("{head}{tail}");
                let dso = index.iter().find(|(b, _)| *b == bid).map(|(_, d)| d.clone()).unwrap();
                let dso_dir = dso.trim_start_matches('/').to_string();
                (bid, dso_dir, *file)
            }
            ["[kernel.kallsyms]", bid, "kallsyms"] => (bid.to_string(), "[kernel.kallsyms]".into(), "kallsyms"),
            _ => continue,
        };
        let entry_dir = format!("{dso_dir}/{bid}");
        if linked.insert(bid.clone()) {
            let mut h = header(tar::EntryType::Symlink, 0o777, 0);
            b.append_link(&mut h, format!(".build-id/{}/{}", &bid[..2], &bid[2..]), format!("../../{entry_dir}"))
                .unwrap();
            let mut h = header(tar::EntryType::Directory, 0o755, 0);
            b.append_data(&mut h, format!("{entry_dir}/"), &[][..]).unwrap();
            if file != "kallsyms" {
                let mut h = header(tar::EntryType::Regular, 0o644, 0);
                b.append_data(&mut h, format!("{entry_dir}/probes"), &[][..]).unwrap();
            }
        }
        let mut h = header(tar::EntryType::Regular, 0o755, bytes.len() as u64);
        b.append_data(&mut h, format!("{entry_dir}/{file}"), bytes.as_slice()).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap();
}

/// `perfdata CMD NAME ARGS --symbols ARCHIVE` on the other machine.
fn elsewhere(cmd: &str, name: &str, args: &[&str], symbols: &Path, dir: &Path) -> Output {
    let data = testdata(name);
    let empty = dir.join("empty");
    let mut all = vec![cmd, data.to_str().unwrap(), "--symfs", empty.to_str().unwrap()];
    all.extend(["--buildid-dir", empty.to_str().unwrap()]);
    all.extend(args);
    all.extend(["--symbols", symbols.to_str().unwrap()]);
    perfdata(&all, dir)
}

#[test]
fn perfs_archive_names_frames_on_another_machine() {
    let dir = scratch("other");
    let a = dir.join("fp.data.tar.bz2");
    perf_archive("fp.data", &dir, &a);
    assert_eq!(&std::fs::read(&a).unwrap()[..3], b"BZh");
    let ok = |o: Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let folded = ok(elsewhere("folded", "fp.data", &[], &a, &dir));
    assert_eq!(folded, stored("fp.data.folded-stackcollapse-pl"));
    let script = ok(elsewhere("script", "fp.data", &[], &a, &dir));
    assert_eq!(script, stored("fp.data.script"));
    let report = ok(elsewhere("report", "fp.data", &["--no-children", "-g", "none"], &a, &dir));
    let want = rows(&stored("fp.data.report"));
    assert!(want.len() > 10);
    assert_eq!(rows(&report), want);
    // Unpacked once, into the cache directory only, with nothing but regular files and
    // directories (perf's links left out).
    let root = dir.join("cache/perfdata/archives");
    let unpacked: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(unpacked.len(), 1, "{unpacked:?}");
    let mut stack = unpacked.clone();
    while let Some(p) = stack.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(m.is_file() || m.is_dir(), "{}", p.display());
        if m.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
    }
    assert!(unpacked[0].join(".build-id/40/19a4393ac48b472730234207e7f39e5272adc9/elf").is_file());
    assert_eq!(std::fs::read_dir(dir.join("home")).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_perf_archive_is_an_error() {
    let dir = scratch("truncated");
    let a = dir.join("fp.data.tar.bz2");
    perf_archive("fp.data", &dir, &a);
    let bytes = std::fs::read(&a).unwrap();
    let cut = dir.join("cut.tar.bz2");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = elsewhere("folded", "fp.data", &[], &cut, &dir);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--symbols") && err.contains("truncated or damaged"), "{err}");
    let left = std::fs::read_dir(dir.join("cache/perfdata/archives")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_perf_archive_entry_outside_the_directory_is_refused() {
    let dir = scratch("evil");
    for entry in ["../../escaped/4019a4393ac48b472730234207e7f39e5272adc9/elf", "a/../../escaped"] {
        let a = dir.join("evil.tar.bz2");
        // The name written raw: the tar crate refuses to write `..`.
        let mut h = tar::Header::new_old();
        h.as_old_mut().name[..entry.len()].copy_from_slice(entry.as_bytes());
        h.set_size(5);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_cksum();
        let mut b = tar::Builder::new(bzip2::write::BzEncoder::new(
            std::fs::File::create(&a).unwrap(),
            bzip2::Compression::default(),
        ));
        b.append(&h, &b"evil\n"[..]).unwrap();
        b.into_inner().unwrap().finish().unwrap();
        let o = elsewhere("folded", "fp.data", &[], &a, &dir);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("refused") && err.contains("`..`"), "{err}");
    }
    assert!(!dir.join("escaped").exists() && !dir.join("cache/escaped").exists());
    assert!(!std::env::temp_dir().join("escaped").exists());
    let left = std::fs::read_dir(dir.join("cache/perfdata/archives")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0);
    let _ = std::fs::remove_dir_all(&dir);
}
