//! `perfdata report` with call graphs: perf 6.1's whole `perf report --stdio` output for the
//! arguments of testdata/report-g.args (its default — children and the caller tree — and the -g
//! variants; the `srcline` and `parent` keys, `--parent`, `--exclude-other`), stored as
//! testdata/F.report-g-NAME by gen-report.sh, byte for byte. Two things are
//! left out of perf's text: the random tip it ends with, and the ` (inlined)` it sometimes adds to
//! fractal's `[...]` line (perf 6.1 reads an uninitialised flag there).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// perf's output less its closing `#`, `# (Tip: …)`, `#` lines.
fn perf(name: &str) -> String {
    let text = std::fs::read_to_string(testdata(name)).unwrap().replace("[...] (inlined)", "[...]");
    without_tip(&text, name)
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

/// Symbol arguments: files under `symfs`, an empty build-id cache, kernel symbols from `kallsyms`
/// (`/dev/null` for recordings whose stored perf text was made here without kallsyms for their
/// kernel, whose frames are then addresses).
fn symbols(symfs: &Path, kallsyms: &Path) -> Vec<String> {
    let path = |p: &Path| p.to_str().unwrap().to_string();
    vec![
        "--symfs".into(),
        path(symfs),
        "--buildid-dir".into(),
        path(&testdata("folded/no-buildid-cache")),
        "--kallsyms".into(),
        path(kallsyms),
    ]
}

/// The user files' extracts and no kernel symbols ([`symbols`]).
fn without_kernel_symbols() -> Vec<String> {
    symbols(&testdata("folded/root"), Path::new("/dev/null"))
}

/// `perfdata report FILE ARGS…` with `symbols`: its stdout, the command having succeeded.
fn report_text(file: &Path, args: &[&str], symbols: Vec<String>) -> String {
    let out =
        Command::new(env!("CARGO_BIN_EXE_perfdata")).arg("report").arg(file).args(args).args(symbols).output().unwrap();
    assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// perf's text less its closing tip, from `text` (see [`perf`]).
fn without_tip(text: &str, name: &str) -> String {
    assert!(text.contains("# (Tip:") || text.contains("# (Cannot load tips"), "{name}: no tip where expected");
    text.trim_end_matches('\n').rsplitn(4, '\n').nth(3).unwrap().to_string() + "\n"
}

/// JIT code named by perf maps: perf report names the map's shared object `[JIT] tid PID`, and
/// the order of equal call-graph branches depends on when perf made that object (at the first
/// executable anonymous map). testdata/script-rec's Java, node and CPython 3.12 recordings, whole
/// default text (testdata/script-rec/gen-report.sh).
#[test]
fn jit_recordings_equal_perf_report() {
    let dir = testdata("script-rec");
    for name in ["java.data", "node.data", "python312.data"] {
        let stored = std::fs::read(dir.join(format!("{name}.report.zst"))).unwrap();
        let want = without_tip(&String::from_utf8(zstd::decode_all(&stored[..]).unwrap()).unwrap(), name);
        assert!(want.contains("[JIT] tid "), "{name}: perf's text names no perf map");
        let kallsyms = dir.join("kallsyms-48dc540c8b76393804ca8088dbfa7d42911a9444");
        let ours = report_text(&dir.join(name), &[], symbols(&dir.join("root"), &kallsyms));
        assert_same_text(&ours, &want, name);
    }
}

/// Kernel modules: perf names a module's shared object `[name]` (`-` as `_`, `.ko` and a `.gz` or
/// `.xz` suffix left out), whether its file was found or not (testdata/kmod/gen-text.sh).
#[test]
fn module_names_equal_perf_report() {
    let name = "kmod/kmod-buildid.data.report-sort-comm,dso";
    let want = without_tip(&std::fs::read_to_string(testdata(name)).unwrap(), name);
    assert!(want.contains("[kmod_demo]") && want.contains("[kmod_nosyms]"), "{name}: not perf's module names");
    let ours = report_text(
        &testdata("kmod/kmod-buildid.data"),
        &["--no-children", "-g", "none", "--sort", "comm,dso"],
        symbols(&testdata("folded/root"), &testdata("kmod/kallsyms")),
    );
    assert_same_text(&ours, &want, name);
}

/// Call graphs through kernel modules named from kallsyms alone: perf resolves a callchain root
/// first (its caller order), so the kernel's symbols, and with them the modules' kallsyms
/// symbols, are loaded before a module's frames are looked up, except the first symbol of a
/// module looked up before that (`demo_read`). The whole default text equals perf's but for one
/// row, a sample in a data object, where perf prints `demo_data+0x3f600010` (docs/report.md).
#[test]
fn module_call_graphs_equal_perf_report() {
    let name = "kmod/kmod-buildid.data.report";
    let want = without_tip(&std::fs::read_to_string(testdata(name)).unwrap(), name);
    let ours = report_text(
        &testdata("kmod/kmod-buildid.data"),
        &[],
        symbols(&testdata("folded/root"), &testdata("kmod/kallsyms")),
    );
    assert!(want.contains("--demo_ioctl") && ours.contains("--demo_ioctl"), "{name}: no named module frame");
    let data_row = "[k] demo_data+0x3f600010";
    assert_eq!(want.matches(data_row).count(), 1, "{name}");
    assert_same_text(&ours, &want.replace(data_row, "[k] demo_data"), name);
}

/// Branch mode is perf's default only when the header says the samples have branch stacks
/// (HEADER_BRANCH_STACK): brstack.data's samples carry them, its header does not (made by
/// make-brstack.py), and perf prints the normal report (testdata/script-rec/gen-report.sh).
#[test]
fn branch_mode_needs_the_header_feature() {
    let dir = testdata("script-rec");
    let stored = std::fs::read(dir.join("brstack.data.report.zst")).unwrap();
    let want = without_tip(&String::from_utf8(zstd::decode_all(&stored[..]).unwrap()).unwrap(), "brstack.data");
    assert!(want.contains("# Children      Self"), "perf's text is not the normal report");
    let ours = report_text(&dir.join("brstack.data"), &[], without_kernel_symbols());
    assert_same_text(&ours, &want, "brstack.data");
}

/// An event group whose leader reads its members' counters (group.data, `{cpu-clock,task-clock}:S`):
/// perf counts such a sample once per counter, its period the counter's change since the last
/// read, so each event has its own event count. perfdata prints perf's group view by default (one
/// table for the group, a column of each member's shares: with call graphs, and flat with the
/// samples column) and a table per event with `--no-group`, as perf (testdata/gen-report.sh).
#[test]
fn group_read_samples_equal_perf_report() {
    for (stored, args) in [
        ("group.data.report-group", &[][..]),
        ("group.data.report-group-n", &["--no-children", "-n"][..]),
        ("group.data.report-no-group", &["--no-group"][..]),
        ("group.data.report-no-group-flat", &["--no-group", "--no-children", "-g", "none"][..]),
    ] {
        let want = without_tip(&std::fs::read_to_string(testdata(stored)).unwrap(), stored);
        if stored.contains("no-group") {
            assert!(want.contains("of events 'cpu-clock'") && want.contains("of event 'task-clock'"), "{stored}");
        } else {
            assert!(want.contains("of events 'anon group { cpu-clock, task-clock }'"), "{stored}");
            assert!(want.contains("Overhead") || want.contains("        Children"), "{stored}");
        }
        // The group view's outputs were made with the recording kernel's kallsyms (gen-report.sh's
        // build-id cache), the older ones without.
        let symbols = if stored.contains("no-group") {
            without_kernel_symbols()
        } else {
            symbols(&testdata("folded/root"), &testdata("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"))
        };
        let ours = report_text(&testdata("group.data"), args, symbols);
        assert_same_text(&ours, &want, stored);
    }
}
