//! `perfdata annotate`: perf 6.1's `perf annotate --stdio` text for the lines of
//! testdata/annotate.args, stored by testdata/gen-annotate.sh as testdata/F.annotate-NAME, byte
//! for byte (each instruction's percentage and objdump's text). objdump (binutils) must be on
//! PATH; spin.c's source lines come from testdata through --prefix, as the stored outputs did.

use std::path::PathBuf;
use std::process::{Command, Output};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// A build-id cache holding the committed spin binary (bin/spin), as perf's cache held it; the
/// other binaries are not found (an empty --symfs root).
struct Cache(PathBuf);

impl Cache {
    fn new(tag: &str) -> Cache {
        let dir = std::env::temp_dir().join(format!("perfdata-annotate-{tag}-{}", std::process::id()));
        let spin = dir.join("debug/.build-id/40/19a4393ac48b472730234207e7f39e5272adc9");
        std::fs::create_dir_all(&spin).unwrap();
        std::fs::create_dir_all(dir.join("symfs")).unwrap();
        std::fs::copy(testdata("bin/spin"), spin.join("elf")).unwrap();
        Cache(dir)
    }

    fn args(&self) -> Vec<String> {
        let td = testdata("");
        vec![
            "--buildid-dir".into(),
            self.0.join("debug").display().to_string(),
            "--symfs".into(),
            self.0.join("symfs").display().to_string(),
            "--kallsyms".into(),
            td.join("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9").display().to_string(),
            "--prefix".into(),
            td.canonicalize().unwrap().display().to_string(),
            "--prefix-strip".into(),
            "3".into(),
        ]
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(file: &str, args: &[&str], cache: &Cache) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["annotate", testdata(file).to_str().unwrap()])
        .args(cache.args())
        .args(args)
        .output()
        .unwrap()
}

/// The lines of annotate.args: name, recording, perf's arguments.
fn cases() -> Vec<(String, String, Vec<String>)> {
    std::fs::read_to_string(testdata("annotate.args"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(String::from);
            let name = w.next().unwrap();
            let file = w.next().unwrap();
            (name, file, w.collect())
        })
        .collect()
}

/// perf's blocks, one per annotated symbol: (the symbol's `<name>:` line, the block's text).
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in text.split_inclusive('\n') {
        if l.starts_with(" Percent ") || l.starts_with(" Samples ") {
            out.push((String::new(), String::new()));
        }
        let Some(b) = out.last_mut() else { panic!("text before the first header: {l:?}") };
        if b.0.is_empty() && l.trim_end().ends_with(">:") {
            b.0 = l.trim().to_string();
        }
        b.1.push_str(l);
    }
    out
}

#[test]
fn named_symbols_equal_perf_annotate() {
    let cache = Cache::new("named");
    let mut compared = 0;
    for (name, file, args) in cases().into_iter().filter(|(_, _, a)| !a.is_empty()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&file, &args, &cache);
        assert!(out.status.success(), "{file} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let ours = String::from_utf8(out.stdout).unwrap();
        let perf = std::fs::read_to_string(testdata(&format!("{file}.annotate-{name}"))).unwrap();
        // (perf 6.1 shows 0.00 for every instruction with global-hits.)
        let global_hits = args.contains(&"global-hits");
        assert!(
            global_hits || perf.lines().any(|l| l.contains(" : ") && !l.contains("0.00 :")),
            "{name}: no sampled instruction"
        );
        assert_eq!(ours, perf, "{file} {args:?}");
        compared += 1;
    }
    assert!(compared >= 8, "{compared} cases");
}

/// Without a symbol: every symbol with samples, hottest first. The binaries other than spin are
/// not given, so those symbols are left out (said on stderr); spin's come in perf's order, each
/// block as perf's.
#[test]
fn every_symbol_hottest_first() {
    let cache = Cache::new("all");
    let out = run("fp.data", &[], &cache);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ours = blocks(&String::from_utf8(out.stdout).unwrap());
    let perf = blocks(&std::fs::read_to_string(testdata("fp.data.annotate-all")).unwrap());
    let spin: Vec<&(String, String)> = perf.iter().filter(|(_, b)| b.contains("Disassembly of spin ")).collect();
    let names = |b: &[&(String, String)]| b.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ours.iter().collect::<Vec<_>>()), names(&spin));
    assert_eq!(names(&spin).len(), 3, "leaf, outer, io_work");
    for ((_, o), (_, p)) in ours.iter().zip(&spin) {
        assert_eq!(o, p);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot annotate clear_page_erms in [kernel.kallsyms]"), "{err}");
}

#[test]
fn failures_are_errors_with_status_1() {
    let cache = Cache::new("fail");
    let check = |args: &[&str], says: &str| {
        let out = run("fp.data", args, &cache);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    check(&["no_such_symbol"], "no samples in a symbol named no_such_symbol");
    check(&["clear_page_erms"], "cannot annotate clear_page_erms in [kernel.kallsyms]: a kernel symbol");
    // ld.so is not given: its symbols are not known.
    check(&["do_lookup_x"], "no samples in a symbol named do_lookup_x");
    check(&["--objdump", "/nonexistent/objdump", "leaf"], "cannot run objdump: /nonexistent/objdump");
    let out = run("fp.data", &["--percent-type", "local-ticks", "leaf"], &cache);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--percent-type: unknown type"));
}

#[test]
fn samples_outside_the_named_symbol_are_not_counted() {
    // perf 6.1 drops the other symbols' samples when one is named: global-period equals local.
    let cache = Cache::new("global");
    let local = run("fp.data", &["outer"], &cache);
    let global = run("fp.data", &["--percent-type", "global-period", "outer"], &cache);
    assert!(local.status.success() && global.status.success());
    // The instructions' lines, less the header and its dashes (one longer for "global").
    let body = |o: &Output| String::from_utf8_lossy(&o.stdout).lines().skip(2).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&local), body(&global));
    assert!(String::from_utf8_lossy(&global.stdout).contains("percent: global period"));
}

#[test]
fn percent_limit_leaving_out_everything_prints_nothing() {
    // perf 6.1 prints nothing for a symbol under the limit (with SYMBOL, its share is 100).
    let cache = Cache::new("limit");
    for args in [&["--percent-limit", "100.5", "leaf"][..], &["--percent-limit", "90"]] {
        let out = run("fp.data", args, &cache);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
