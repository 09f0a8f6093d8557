//! `perfdata report` with call graphs: perf 6.1's whole `perf report --stdio` output for the
//! arguments of testdata/report-g.args (its default — children and the caller tree — and the -g
//! variants; the `srcline` and `parent` keys, `--parent`, `--exclude-other`), stored as
//! testdata/F.report-g-NAME by gen-report.sh, byte for byte. Two things are
//! left out of perf's text: the random tip it ends with, and the ` (inlined)` it sometimes adds to
//! fractal's `[...]` line (perf 6.1 reads an uninitialised flag there).

use std::path::PathBuf;
use std::process::Command;

mod common;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// perf's output less its closing `#`, `# (Tip: …)`, `#` lines.
fn perf(name: &str) -> String {
    let text = std::fs::read_to_string(testdata(name)).unwrap().replace("[...] (inlined)", "[...]");
    let cut = text.trim_end_matches('\n').rsplitn(4, '\n').nth(3).unwrap().to_string();
    assert!(text.contains("# (Tip:"), "{name}: no tip where expected");
    cut + "\n"
}

/// Fails, saying where, unless `ours` is perf's `expected` text byte for byte (the texts are
/// too long for assert_eq's message).
fn assert_same_text(ours: &str, expected: &str, what: &str) {
    if ours != expected {
        let first = ours.lines().zip(expected.lines()).position(|(a, b)| a != b);
        panic!(
            "{what}: differs from perf's at line {first:?} ({} lines against perf's {})",
            ours.lines().count(),
            expected.lines().count()
        );
    }
}

#[test]
fn report_equals_perf_report_with_call_graphs() {
    let args = std::fs::read_to_string(testdata("report-g.args")).unwrap();
    let mut compared = 0;
    for line in args.lines() {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        let extra: Vec<&str> = words.collect();
        for file in ["fp.data", "dwarf.data"] {
            // fp-*: fp.data only (gen-report.sh says why).
            if name.starts_with("fp-") && file != "fp.data" {
                continue;
            }
            let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
                .args(["report", testdata(file).to_str().unwrap()])
                .args(common::symbol_args(&testdata("folded/root")))
                .args(&extra)
                .output()
                .unwrap();
            assert!(out.status.success(), "{file} {line}: {}", String::from_utf8_lossy(&out.stderr));
            let ours = String::from_utf8(out.stdout).unwrap();
            let expected = perf(&format!("{file}.report-g-{name}"));
            assert_same_text(&ours, &expected, &format!("{file} {line}"));
            compared += 1;
        }
    }
    assert_eq!(compared, 47);
}

/// A call graph with a branch in each of 70 levels (testdata/report-deep: every frame an
/// unresolved address, so no binary is needed): perf's bars for levels past 32 repeat those 32
/// levels up (its mask is an `int`), and nothing deep is left out.
#[test]
fn deep_call_graphs_equal_perf_report() {
    let dir = testdata("report-deep");
    let empty = std::env::temp_dir().join(format!("perfdata-report-deep-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let args = std::fs::read_to_string(dir.join("report.args")).unwrap();
    let mut compared = 0;
    for line in args.lines() {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        let extra: Vec<&str> = words.collect();
        let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
            .args(["report", dir.join("branches.data").to_str().unwrap(), "--no-children"])
            .args(&extra)
            .args(["--symfs", empty.to_str().unwrap(), "--buildid-dir", empty.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        let ours = String::from_utf8(out.stdout).unwrap();
        let stored = std::fs::read(dir.join(format!("branches.data.report-{name}.zst"))).unwrap();
        let expected = String::from_utf8(zstd::decode_all(&stored[..]).unwrap()).unwrap();
        // Branch levels nested past 60 (perfdata stopped there) and past 32 (the mask wraps).
        let deepest = expected.lines().map(|l| l.matches('|').count()).max().unwrap();
        assert!(deepest > 60, "{name}: {deepest} levels");
        assert_same_text(&ours, &expected, line);
        compared += 1;
    }
    assert_eq!(compared, 3);
    let _ = std::fs::remove_dir(&empty);
}

/// `-g` on samples without callchains is an error, as in perf; `-g none` is not.
#[test]
fn call_graph_needs_callchains() {
    let run = |g: &str| {
        Command::new(env!("CARGO_BIN_EXE_perfdata"))
            .args(["report", testdata("block.data").to_str().unwrap(), "-g", g])
            .output()
            .unwrap()
    };
    let out = run("graph");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no callchains"));
    assert!(run("none").status.success());
}

/// A `--parent` pattern that is no regular expression is an error naming it.
#[test]
fn bad_parent_pattern_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["report", testdata("fp.data").to_str().unwrap(), "--parent", "sys_(", "-g", "none"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--parent `sys_('"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
