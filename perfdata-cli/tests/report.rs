//! `perfdata report`: the rows of `perf report --stdio --no-children -g none --sort comm,dso,sym`
//! (stored as testdata/F.report), in perf's order, with the binaries' symbol extracts of
//! testdata/folded (as the folded tests use them).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// The table rows, runs of spaces collapsed (perf sizes its columns to the widest value).
fn rows(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains('%'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// `perfdata report FILE ARGS` with the symbol extracts perf's outputs were made with
/// (testdata/cxx/root for the C++ recordings, testdata/folded/root for the others).
fn ours(name: &str, args: &[&str]) -> Vec<String> {
    let root = if name.starts_with("cxx-") { testdata("cxx/root") } else { testdata("folded/root") };
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["report", testdata(name).to_str().unwrap()])
        .args(common::symbol_args(&root))
        // The tables without call graphs (`-g none`), own samples only unless asked.
        .args(if args.contains(&"--children") { &["-g", "none"][..] } else { &["--no-children", "-g", "none"][..] })
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    rows(&String::from_utf8(out.stdout).unwrap())
}

/// The recordings whose reports are compared: the C++ ones where this build names C++ as perf does.
fn recordings() -> Vec<&'static str> {
    let mut names = vec!["fp.data", "dwarf.data", "sysw.data"];
    if common::cxx_names_exact("the C++ reports") {
        names.extend(["cxx-fp.data", "cxx-dwarf.data"]);
    }
    names
}

fn perf(output: &str) -> Vec<String> {
    rows(&std::fs::read_to_string(testdata(output)).unwrap())
}

/// sysw.data's known differences (see `rows_equal_perf_report`), and for the outputs made by
/// gen-report.sh from the extracts, PyObject_Malloc@plt, which perf names only with the whole
/// libpython (it is 0xf83f0 in the sample, 0x7f2ea66f83f0 as a callchain entry).
fn known_sysw(row: &str) -> bool {
    ["0x00000000057b026a", "dtorck_constraint_for_ty_inner", "PyObject_Malloc@plt", "f83f0"]
        .iter()
        .any(|k| row.contains(k))
}

#[test]
fn rows_equal_perf_report() {
    for name in recordings() {
        let ours = ours(name, &[]);
        let perf = perf(&format!("{name}.report"));
        assert!(perf.len() > 10);
        if name == "sysw.data" {
            // Known difference: one address of librustc_driver that perf leaves unresolved
            // (0x57b026a) we name dtorck_constraint_for_ty_inner; every other row is perf's, in order.
            let strip = |v: &[String]| -> Vec<String> {
                v.iter()
                    .filter(|r| !r.contains("0x00000000057b026a") && !r.contains("dtorck_constraint_for_ty_inner"))
                    .cloned()
                    .collect()
            };
            assert_eq!(strip(&ours), strip(&perf));
            assert_eq!(ours.len(), perf.len());
        } else {
            assert_eq!(ours, perf, "{name}");
        }
    }
}

/// `--children`: every function on the callchains with its callees' share, perf's cumulative
/// entries (a function once per sample, the chain walked from the root for unresolved entries'
/// [k]/[.]), ordered by Children then Self then the keys; F.report-children from gen-report.sh.
/// On cxx-dwarf.data (inline frames as entries) perf shows `(anonymous namespace)::shapes` and
/// `_Map_base<…>::operator[]` in two rows each: its histogram tree is searched with a comparison
/// that is not a total order (inlined functions by name, other symbols by address), so a search
/// misses the equal entry; the emulated tree makes the same rows, also with `--sort sym`.
#[test]
fn children_equal_perf_report() {
    for name in recordings() {
        let mut ours = ours(name, &["--children"]);
        let mut perf = perf(&format!("{name}.report-children"));
        assert!(perf.len() > 30, "{name}");
        if name == "sysw.data" {
            ours.retain(|r| !known_sysw(r));
            perf.retain(|r| !known_sysw(r));
        }
        if name == "cxx-dwarf.data" {
            // The split rows are there, as perf has them.
            assert_eq!(ours.iter().filter(|r| r.ends_with("[.] (anonymous namespace)::shapes")).count(), 2);
        }
        assert_eq!(ours, perf, "{name}");
    }
    for name in ["cxx-fp.data", "cxx-dwarf.data"].into_iter().filter(|_| common::cxx_names_exact("the C++ reports")) {
        let ours = ours(name, &["--children", "--sort", "sym"]);
        let perf = perf(&format!("{name}.report-children-sort-sym"));
        assert!(perf.len() > 30, "{name}");
        assert_eq!(ours, perf, "{name} --sort sym");
    }
}

/// perf sizes the Command column by each entry's thread's comm when it lays the table out (the
/// thread's last comm) and cuts longer comms to that width: comm-width.data's thread ran as
/// `a-very-long-com`, then exec'd `sleep`, so its rows say `a-very-` (F.report[-children]-sort-KEYS).
#[test]
fn comm_column_is_cut_as_perf_cuts_it() {
    for keys in ["comm", "comm,dso"] {
        for children in [false, true] {
            let args: &[&str] = if children { &["--children", "--sort", keys] } else { &["--sort", keys] };
            let stored = if children { "report-children-sort" } else { "report-sort" };
            let ours = ours("comm-width.data", args);
            let perf = perf(&format!("comm-width.data.{stored}-{keys}"));
            assert!(perf.iter().any(|r| r.contains(" a-very- ") || r.ends_with(" a-very-")), "{perf:?}");
            assert_eq!(ours, perf, "{keys} children {children}");
        }
    }
}

/// perf report's filters: `--time` drops samples before they count (percentages of the rest);
/// `--comms` and `--pid` hide the other threads' samples, percentages of all of them (perf's
/// default `--percentage absolute`), and one `--comms` leaves out the Command column.
#[test]
fn filters_equal_perf_report() {
    for (name, args, output) in [
        ("fp.data", &["--time", "10%/2"][..], "fp.data.report-time-10pct-2"),
        ("sysw.data", &["--comms", "dd"], "sysw.data.report-comms-dd"),
        ("sysw.data", &["--comms", "rustc"], "sysw.data.report-comms-rustc"),
        ("sysw.data", &["--pid", "1838"], "sysw.data.report-pid-1838"),
    ] {
        let mut ours = ours(name, args);
        let mut perf = perf(output);
        ours.retain(|r| !known_sysw(r));
        perf.retain(|r| !known_sysw(r));
        assert!(perf.len() > 5, "{output}");
        assert_eq!(ours, perf, "{name} {args:?}");
    }
}

/// `--sort` with other keys, and `-n`: F.report-n-sort-KEYS from gen-report.sh.
#[test]
fn sort_keys_equal_perf_report() {
    for name in recordings() {
        for keys in ["pid,sym", "dso,sym", "sym", "comm", "dso", "cpu,comm"] {
            let mut ours = ours(name, &["-n", "--sort", keys]);
            let mut perf = perf(&format!("{name}.report-n-sort-{keys}"));
            assert!(!perf.is_empty(), "{name} {keys}");
            if name == "sysw.data" {
                ours.retain(|r| !known_sysw(r));
                perf.retain(|r| !known_sysw(r));
            }
            if name == "sysw.data" && keys == "sym" {
                // With only `sym`, perf's entry tree compares unresolved addresses by address but
                // named and unnamed entries by shared object first, which is no total order: its
                // unresolved rows of equal overhead come out in an order of the tree's shape. The
                // rows are perf's; only the order of those ties is not compared.
                ours.sort();
                perf.sort();
            }
            assert_eq!(ours, perf, "{name} --sort {keys}");
        }
    }
}

#[test]
fn unknown_sort_key_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["report", testdata("fp.data").to_str().unwrap(), "--sort", "comm,nope"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown --sort key `nope'"), "{err}");
}

/// A recording of tracepoints only: perf's tracepoint sort mode, each sample's text as the key
/// (`Trace output`, padded only when a column follows), by default and with other keys (`pid`
/// after it: perf's `Pid:Command` column, at least as wide as its header, comms padded to it); on
/// a recording without tracepoints the key is `N/A`. Whole outputs of perf 6.1 (gen-report.sh)
/// less its closing tip.
#[test]
fn tracepoint_text_key_equals_perf_report() {
    let cases: [(&str, &[&str], &str); 5] = [
        ("syscalls.data", &[], "syscalls.data.report"),
        ("syscalls.data", &["--sort", "comm,trace"], "syscalls.data.report-sort-comm,trace"),
        ("syscalls.data", &["--sort", "sym,trace"], "syscalls.data.report-sort-sym,trace"),
        ("syscalls.data", &["--sort", "trace,pid"], "syscalls.data.report-sort-trace,pid"),
        ("multi.data", &["--sort", "trace"], "multi.data.report-sort-trace"),
    ];
    for (name, args, stored) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
            .args(["report", testdata(name).to_str().unwrap(), "--no-children", "-g", "none"])
            .args(common::symbol_args(&testdata("folded/root")))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(testdata(stored)).unwrap();
        assert!(text.contains("# (Tip:"), "{stored}");
        let expected = text.trim_end_matches('\n').rsplitn(4, '\n').nth(3).unwrap().to_string() + "\n";
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected, "{stored}");
    }
    let default = std::fs::read_to_string(testdata("syscalls.data.report")).unwrap();
    assert_eq!(default.matches("# Overhead  Trace output").count(), 4);
}

/// Recordings with several events (multi.data: cpu-clock, task-clock, page-faults with
/// callchains, context-switches; multi-g.data: cpu-clock and page-faults, both with callchains),
/// all tables made in one read: one per event, in the recording's order, as perf 6.1 prints them —
/// by default (`--children`, where perf walks the samples of the events without callchains along
/// the last callchain it resolved, and shows call graphs only for events with callchains) and
/// without children or graphs — and with `--group`, the events side by side as one group led by
/// the first (perf's forced leader: one table, a column of each event's shares, named by the
/// events alone). Whole outputs (gen-report.sh) less perf's closing tip, byte for byte. perf 6.1
/// could not read folded/root's reduced `[vdso]` (it crashes on it), so multi-g.data is read here
/// without that file too: its vDSO frame unnamed in both.
#[test]
fn several_events_equal_perf_report() {
    let novdso = std::env::temp_dir().join(format!("perfdata-report-novdso-{}", std::process::id()));
    copy_without_vdso(&testdata("folded/root"), &novdso);
    let plain: &[&str] = &["--no-children", "-g", "none", "--sort", "comm,dso,sym"];
    for (name, root, events) in [("multi.data", testdata("folded/root"), 4), ("multi-g.data", novdso.clone(), 2)] {
        for (args, stored, tables) in [
            (&[][..], "report-default", events),
            (plain, "report-no-children-sort-comm,dso,sym", events),
            (&["--group"][..], "report-group", 1),
        ] {
            let stored = format!("{name}.{stored}");
            let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
                .args(["report", testdata(name).to_str().unwrap()])
                .args(common::symbol_args(&root))
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = std::fs::read_to_string(testdata(&stored)).unwrap();
            assert!(text.contains("# (Tip:"), "{stored}");
            assert_eq!(text.matches("# Samples: ").count(), tables, "{stored}");
            let expected = text.trim_end_matches('\n').rsplitn(4, '\n').nth(3).unwrap().to_string() + "\n";
            assert_eq!(String::from_utf8(out.stdout).unwrap(), expected, "{stored}");
        }
    }
    let _ = std::fs::remove_dir_all(&novdso);
}

/// A thread perf saw no FORK of (testdata/comm-override.sh points it elsewhere, as if lost) is
/// `:TID` until its first COMM, which renames that comm in place: perf shows the samples from
/// before the COMM under the new name, merges their entries with the later ones, and orders rows
/// of equal Children by the longest path each entry appended itself (a merge adds none). perf
/// 6.1's default output and its plain table, byte for byte less the closing tip; nothing named
/// from this machine.
#[test]
fn comm_renamed_in_place_equals_perf_report() {
    let empty = std::env::temp_dir().join(format!("perfdata-comm-override-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    for (args, stored) in [(&[][..], "default"), (&["--no-children", "-g", "none"][..], "flat")] {
        let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
            .arg("report")
            .arg(testdata("comm-override.data"))
            .arg("--symfs")
            .arg(&empty)
            .arg("--buildid-dir")
            .arg(&empty)
            .args(["--kallsyms", "/dev/null"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(testdata(&format!("comm-override.data.report-{stored}"))).unwrap();
        assert!(text.contains("# (Tip:"), "{stored}");
        let expected = text.trim_end_matches('\n').rsplitn(4, '\n').nth(3).unwrap().to_string() + "\n";
        // The loop's samples, from before the COMM and in no map, are awk's; no `:TID` is left.
        assert!(expected.contains("awk      [unknown]"), "{stored}");
        assert!(!expected.contains("  :"), "{stored}");
        let got = String::from_utf8(out.stdout).unwrap();
        assert!(got == expected, "{stored}: differs from perf's\n{}", first_difference(&got, &expected));
    }
    let _ = std::fs::remove_dir(&empty);
}

/// A copy of the directory tree `from` at `to`, less its files named `[vdso]`.
fn copy_without_vdso(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_without_vdso(&src, &dst);
        } else if e.file_name() != "[vdso]" {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Branch mode on the corpus's branch-stack recordings (../shared/corpus, used when present):
/// the whole text equals perf 6.1's stored output (testdata/corpus-perf/generate.sh), byte for
/// byte — by default (branch mode: one entry per branch, default keys
/// comm,dso_from,symbol_from,symbol_to,cycles), with `--sort dso_from,dso_to`, and with
/// `--no-branch-stack` (the samples' own ips). Both get `--symfs` an empty directory and
/// `--kallsyms /dev/null`: the recordings' binaries and kernels are not on this machine, so
/// nothing is named and nothing of this machine's comes in. Left out: `--no-branch-stack` on
/// callgraph_and_branch-3.4, whose normal-mode report has two rows of callchain entries perf
/// leaves out (0.11 % and 0.08 % children of `chrome` in the `Compositor` thread).
#[test]
fn branch_mode_equals_perf_on_the_corpus() {
    let td = testdata("");
    let corpus = td.join("../../shared/corpus/quipper");
    if !corpus.is_dir() {
        eprintln!("NOTE: {} absent: branch mode not compared", corpus.display());
        return;
    }
    let empty = std::env::temp_dir().join(format!("perfdata-empty-symfs-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let runs: [(&str, &[&str]); 3] = [
        ("branch", &[]),
        ("branch-sort-dso_from,dso_to", &["--sort", "dso_from,dso_to"]),
        ("no-branch-stack", &["--no-branch-stack"]),
    ];
    for name in [
        "perf.data.branch-4.14",
        "perf.data.branch_stack_hw_index",
        "perf.data.branch_stack_spec",
        "perf.data.callgraph_and_branch-3.8",
        "perf.data.callgraph_and_branch-3.4",
    ] {
        for (suffix, args) in runs {
            if suffix == "no-branch-stack" && name == "perf.data.callgraph_and_branch-3.4" {
                continue;
            }
            let (got, want) = corpus_report(&corpus, name, suffix, args, &empty);
            if suffix != "no-branch-stack" {
                assert!(want.contains("Source Shared Object"), "{name}: perf's output is branch mode's");
            }
            assert!(got == want, "{name} {args:?}: differs from perf's\n{}", first_difference(&got, &want));
        }
    }
    let _ = std::fs::remove_dir(&empty);
}

/// perf's group view on the corpus's recordings of event groups (../shared/corpus, used when
/// present): a table for each group with a column of each member's shares, rows of keys only a
/// member has (empty for the leader), and the rows ordered by the leader's and then each member's
/// event count; by default (perf's), with the samples column and without call graphs, and a table
/// per event with `--no-group`. The whole text equals perf 6.1's stored output
/// (testdata/corpus-perf/generate.sh), nothing named, as in the branch mode test.
#[test]
fn group_view_equals_perf_on_the_corpus() {
    let td = testdata("");
    let corpus = td.join("../../shared/corpus/quipper");
    if !corpus.is_dir() {
        eprintln!("NOTE: {} absent: the group view not compared", corpus.display());
        return;
    }
    let empty = std::env::temp_dir().join(format!("perfdata-empty-symfs-group-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let runs: [(&str, &[&str]); 3] =
        [("group", &[]), ("group-n", &["-n", "--no-children", "-g", "none"]), ("no-group", &["--no-group"])];
    for name in
        ["perf.data.group_desc-4.14", "perf.data.lost_samples-4.4", "perf.data.piped.header_feautres_group_desc-6.8"]
    {
        for (suffix, args) in runs {
            let (got, want) = corpus_report(&corpus, name, suffix, args, &empty);
            assert_eq!(want.contains("of events 'anon group {"), suffix != "no-group", "{name} {suffix}: perf's text");
            assert!(got == want, "{name} {args:?}: differs from perf's\n{}", first_difference(&got, &want));
        }
    }
    let _ = std::fs::remove_dir(&empty);
}

/// `perfdata report` of the corpus's quipper recording `name` with `args`, nothing named (`--symfs`
/// the directory `empty`, no kallsyms), and perf's stored text of it
/// (testdata/corpus-perf/quipper/NAME.report-SUFFIX.zst): (ours, perf's).
fn corpus_report(corpus: &Path, name: &str, suffix: &str, args: &[&str], empty: &Path) -> (String, String) {
    let stored = std::fs::read(testdata(&format!("corpus-perf/quipper/{name}.report-{suffix}.zst"))).unwrap();
    let want = String::from_utf8(zstd::decode_all(&stored[..]).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .arg("report")
        .arg(corpus.join(name))
        .arg("--symfs")
        .arg(empty)
        .args(["--kallsyms", "/dev/null"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{name} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), want)
}

/// The first line where `got` and `want` differ, both shown.
fn first_difference(got: &str, want: &str) -> String {
    let (mut g, mut w) = (got.lines(), want.lines());
    for n in 1.. {
        match (g.next(), w.next()) {
            (None, None) => break,
            (a, b) if a != b => return format!("line {n}:\n ours: {a:?}\n perf: {b:?}"),
            _ => {}
        }
    }
    String::from("(equal lines; the ends differ)")
}

/// A recording without samples (`perf stat record`): perf prints its banner alone, exit status 0
/// (testdata/stat.data.report from gen-report.sh).
#[test]
fn no_samples_print_perf_banner() {
    let want = std::fs::read_to_string(testdata("stat.data.report")).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_perfdata")).args(["report"]).arg(testdata("stat.data")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no samples"));
}
