//! `perfdata archive` and `--symbols`: an archive made with the test fixtures' symbols (the
//! extracts of testdata/folded, the committed kallsyms) names the committed recordings' frames
//! on a "machine" with none of them (an empty `--symfs` and build-id cache, an empty HOME, no
//! kallsyms) exactly as perf's stored outputs do; bad archives are refused.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{report_rows as rows, stored, testdata};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("archive", name, &["empty", "home"])
}

fn perfdata(args: &[&str], dir: &Path) -> Output {
    common::perfdata_elsewhere(dir).args(args).output().unwrap()
}

/// `perfdata archive NAME` with the fixtures' symbols, into `dir`.
fn archive(name: &str, dir: &Path) -> PathBuf {
    let out = dir.join(format!("{name}.symbols"));
    let data = testdata(name);
    let mut args = vec!["archive", data.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let sym = common::symbol_args(&testdata("folded/root"));
    args.extend(sym.iter().map(String::as_str));
    let o = perfdata(&args, dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("DSOs,") && err.contains("MB archive"), "{err}");
    out
}

/// `perfdata CMD NAME ARGS` on the other machine, with `--symbols ARCHIVE` when given.
fn elsewhere(cmd: &str, name: &str, args: &[&str], symbols: Option<&Path>, dir: &Path) -> (String, String) {
    let data = testdata(name);
    let empty = dir.join("empty");
    let mut all = vec![cmd, data.to_str().unwrap(), "--symfs", empty.to_str().unwrap()];
    all.extend(["--buildid-dir", empty.to_str().unwrap()]);
    all.extend(args);
    if let Some(s) = symbols {
        all.extend(["--symbols", s.to_str().unwrap()]);
    }
    let o = perfdata(&all, dir);
    assert!(o.status.success(), "{all:?}: {}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

#[test]
fn an_archive_names_frames_on_another_machine() {
    let dir = scratch("other");
    for name in ["fp.data", "dwarf.data", "sysw.data"] {
        let a = archive(name, &dir);
        let (folded, _) = elsewhere("folded", name, &[], Some(&a), &dir);
        assert_eq!(folded, stored(&format!("{name}.folded-stackcollapse-pl")), "{name} folded");
        let (without, warn) = elsewhere("folded", name, &[], None, &dir);
        assert_ne!(without, folded, "{name}: named without the archive");
        assert!(warn.contains("unnamed"), "{warn}");
        let (script, _) = elsewhere("script", name, &[], Some(&a), &dir);
        assert_eq!(script, stored(&format!("{name}.script")), "{name} script");
        let (report, _) = elsewhere("report", name, &["--no-children", "-g", "none"], Some(&a), &dir);
        let want = rows(&stored(&format!("{name}.report")));
        assert!(want.len() > 10);
        if name == "sysw.data" {
            // tests/report.rs's known difference: one address perf leaves unresolved we name.
            let strip = |v: Vec<String>| -> Vec<String> {
                v.into_iter()
                    .filter(|r| !r.contains("0x00000000057b026a") && !r.contains("dtorck_constraint_for_ty_inner"))
                    .collect()
            };
            assert_eq!(strip(rows(&report)), strip(want.clone()), "{name} report");
        } else {
            assert_eq!(rows(&report), want, "{name} report");
        }
        let (plain, _) = elsewhere("report", name, &["--no-children", "-g", "none"], None, &dir);
        assert_ne!(rows(&plain), want, "{name}: report named without the archive");
    }
    // The archives were unpacked into the cache directory, one directory per content (fp.data's
    // and dwarf.data's may be the same), and nowhere else.
    let unpacked: Vec<String> = std::fs::read_dir(dir.join("cache/perfdata/archives"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!unpacked.is_empty() && unpacked.len() <= 3, "{unpacked:?}");
    assert!(unpacked.iter().all(|n| n.len() == 16 && n.bytes().all(|b| b.is_ascii_hexdigit())), "{unpacked:?}");
    assert_eq!(std::fs::read_dir(dir.join("home")).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_archive_is_an_error() {
    let dir = scratch("truncated");
    let a = archive("fp.data", &dir);
    let bytes = std::fs::read(&a).unwrap();
    let cut = dir.join("cut.symbols");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let data = testdata("fp.data");
    let o = perfdata(&["folded", data.to_str().unwrap(), "--symbols", cut.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--symbols") && err.contains("truncated or damaged"), "{err}");
    // Nothing left behind in the cache.
    let left = std::fs::read_dir(dir.join("cache/perfdata/archives")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A zstd tar with one entry whose name is written raw (the tar crate refuses to write `..`).
fn evil_archive(path: &Path, entry: &str) {
    let mut header = tar::Header::new_old();
    let name = &mut header.as_old_mut().name;
    name[..entry.len()].copy_from_slice(entry.as_bytes());
    header.set_size(5);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_cksum();
    let mut b = tar::Builder::new(zstd::Encoder::new(std::fs::File::create(path).unwrap(), 3).unwrap());
    b.append(&header, &b"evil\n"[..]).unwrap();
    b.into_inner().unwrap().finish().unwrap();
}

#[test]
fn entries_outside_the_directory_are_refused() {
    let dir = scratch("evil");
    let data = testdata("fp.data");
    for (entry, why) in [("../../escaped", "`..`"), ("/tmp/perfdata-archive-escaped", "absolute")] {
        let a = dir.join("evil.symbols");
        evil_archive(&a, entry);
        let o = perfdata(&["folded", data.to_str().unwrap(), "--symbols", a.to_str().unwrap()], &dir);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("refused") && err.contains(why), "{err}");
    }
    assert!(!dir.join("cache/escaped").exists() && !dir.join("escaped").exists());
    assert!(!Path::new("/tmp/perfdata-archive-escaped").exists());
    let left = std::fs::read_dir(dir.join("cache/perfdata/archives")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_recordings_archive_says_not_in_the_archive() {
    let dir = scratch("wrong");
    // sysw.data's archive has none of fp.data's binaries but the same kernel.
    let a = archive("sysw.data", &dir);
    let (folded, warn) = elsewhere("folded", "fp.data", &[], Some(&a), &dir);
    assert_ne!(folded, stored("fp.data.folded-stackcollapse-pl"));
    assert!(warn.contains("not in the archive"), "{warn}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording whose JIT code a jitdump names (testdata/folded/jitdump: node with --perf-prof):
/// the dump goes into the archive (`jitdump/jit-PID.dump`), and on a machine without it the
/// archive names the JIT frames as the recording machine did.
#[test]
fn jitdump_files_travel_in_the_archive() {
    let dir = scratch("jitdump");
    let jit = testdata("folded/jitdump");
    let arg = |p: PathBuf| p.to_str().unwrap().to_string();
    let (data, root, none) = (arg(jit.join("rec.data")), arg(jit.join("root")), arg(jit.join("no-kallsyms")));
    let cache = arg(jit.join("no-buildid-cache"));
    let a = arg(dir.join("rec.symbols"));
    let here = ["--symfs", &root, "--buildid-dir", &cache, "--kallsyms", &none];
    let run = |args: &[&str]| {
        let o = perfdata(args, &dir);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    run(&[&["archive", &data, "-o", &a][..], &here].concat());
    let mut tar = tar::Archive::new(zstd::Decoder::new(std::fs::File::open(&a).unwrap()).unwrap());
    let listing: Vec<String> =
        tar.entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect();
    assert!(listing.iter().any(|l| l.starts_with("jitdump/jit-") && l.ends_with(".dump")), "{listing:?}");
    let local = run(&[&["folded", &data][..], &here].concat());
    let empty = arg(dir.join("empty"));
    let far = ["folded", &data, "--symfs", &empty, "--buildid-dir", &empty, "--kallsyms", &none];
    assert_eq!(run(&[&far[..], &["--symbols", &a]].concat()), local);
    // Without the archive the JIT frames are not named.
    assert_ne!(run(&far), local);
    assert!(local.contains("work.js:"), "{local}");
    let _ = std::fs::remove_dir_all(&dir);
}
