//! The `perfdata` command: stdin pipes, exit codes, damaged input, JSON output.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

fn perfdata(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.map(<[u8]>::to_vec);
    let writer = std::thread::spawn(move || {
        if let Some(d) = data {
            let _ = input.write_all(&d);
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every command reads a pipe-format stream on stdin as it reads the same bytes from a file: the
/// header records (events, features) are read ahead and replayed, and the commands that read
/// their input twice (timeline, speedscope, Chrome trace) copy stdin to a temporary file first.
/// Only where the file's name or date is printed may the outputs differ.
#[test]
fn every_command_reads_a_pipe_stream_on_stdin_as_the_file() {
    let commands: &[&[&str]] = &[
        &["info"],
        &["stats"],
        &["script"],
        &["folded"],
        &["report"],
        &["offcpu"],
        &["export", "--format", "speedscope"],
        &["export", "--format", "chrome-trace"],
        &["sched", "latency"],
        &["sched", "map"],
        &["sched", "timehist"],
        &["sched", "timehist", "-s"],
        &["sched", "wakeup-latency"],
        &["sched", "timeline"],
    ];
    let mut compared = 0;
    for name in ["pipe.data", "pipe-z.data", "pipe-tp.data", "sched-pipe.data"] {
        let path = testdata(name);
        let p = path.to_str().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        for args in commands {
            let (code_f, out_f, _) = perfdata(&[*args, &[p]].concat(), None);
            let (code_s, out_s, err_s) = perfdata(&[*args, &["-"]].concat(), Some(&bytes));
            assert_eq!(code_s, code_f, "{name} {args:?}: {err_s}");
            assert!(!err_s.contains("read once"), "{name} {args:?}: {err_s}");
            // The file's name (or date) where the output shows it; `stdin` for the stream.
            let norm = |o: &str| {
                o.lines()
                    .filter(|l| !l.starts_with("# captured on"))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .replace(p, "stdin")
                    .replace("\"name\":\"stdin\"", "\"name\":\"NAME\"")
            };
            assert_eq!(norm(&out_s), norm(&out_f), "{name} {args:?}");
            compared += usize::from(!out_f.is_empty());
        }
    }
    // speedscope refuses the two recordings without callchains (pipe-tp, sched-pipe), from
    // the file and from stdin alike.
    assert!(compared >= 38, "{compared}");
}

#[test]
fn dump_json_from_stdin_equals_dump_of_the_file() {
    for name in ["pipe.data", "pipe-z.data", "pipe-tp.data"] {
        let path = testdata(name);
        let bytes = std::fs::read(&path).unwrap();
        let (rc1, from_file, _) = perfdata(&["dump", "--json", path.to_str().unwrap()], None);
        let (rc2, from_stdin, err) = perfdata(&["dump", "--json", "-"], Some(&bytes));
        assert_eq!((rc1, rc2), (0, 0), "{name}: {err}");
        assert!(from_file.lines().count() > 10);
        assert_eq!(from_file, from_stdin, "{name}: stdin and file readings differ");
        // Every line is a JSON object with the documented keys.
        for line in from_stdin.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            for k in ["type", "type_id", "misc", "size", "offset"] {
                assert!(v.get(k).is_some(), "{name}: {k} missing in {line}");
            }
        }
    }
}

#[test]
fn samples_in_json_carry_event_names_and_exact_integers() {
    let (rc, out, _) = perfdata(&["dump", "--json", testdata("fp.data").to_str().unwrap()], None);
    assert_eq!(rc, 0);
    let samples: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "SAMPLE")
        .collect();
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s["event"], "cpu-clock");
        // Kernel addresses exceed 2^53: they must survive as exact integers.
        let cc = s["callchain"].as_array().unwrap();
        assert!(cc.iter().all(|v| v.is_u64()));
    }
    assert!(samples.iter().any(|s| s["callchain"][0].as_u64() == Some(0xffff_ffff_ffff_ff80)
        || s["callchain"][0].as_u64() == Some(0xffff_ffff_ffff_fe00)));
}

#[test]
fn killed_recording_gives_records_and_a_diagnostic() {
    let (rc, out, err) = perfdata(&["stats", "--json", testdata("killed.data").to_str().unwrap()], None);
    // Output from a damaged input (an unfinished recording): status 3, the problem said once.
    assert_eq!(rc, 3, "{err}");
    assert_eq!(err.matches("data size is 0").count(), 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // testdata/README.md: walking the killed file gives 96 complete records, 77 samples.
    assert_eq!(v["records"], 96);
    assert_eq!(v["types"]["SAMPLE"], 77);
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(diags.iter().any(|d| d.as_str().unwrap().contains("data size is 0")), "{diags:?}");
}

#[test]
fn garbage_and_missing_files_exit_1_with_one_line() {
    let (rc, out, err) = perfdata(&["dump", "-"], Some(b"this is not a perf.data file at all"));
    assert_eq!(rc, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a perf.data file: it starts with b\"this is \" (74 68 69 73 20 69 73 20)"), "{err}");
    let (rc, _, err) = perfdata(&["stats", "/nonexistent/perf.data"], None);
    assert_eq!(rc, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn truncated_file_prints_complete_records_then_fails() {
    let bytes = std::fs::read(testdata("fp.data")).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let (rc, out, err) = perfdata(&["dump", "--json", "-"], Some(cut));
    assert!(out.lines().count() > 10, "complete records before the cut are printed");
    assert!(err.contains("truncated") || err.contains("warning"), "{err}");
    let _ = rc;
}

/// Run `perfdata ARGS`, read 16 bytes of its output and close the pipe (`… | head -c 16`).
fn read_a_little(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    use std::io::Read;
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn closing_the_pipe_early_is_not_an_error_message() {
    // `perfdata dump big | head -1`: stdout closes; we stop quietly.
    let out = read_a_little(&["dump", testdata("sysw.data").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("Broken pipe"), "{err}");
}

/// The symbol options every folded/flamegraph test passes (see testdata/folded).
fn symbols() -> Vec<String> {
    common::symbol_args(&testdata("folded").join("root"))
}

fn run_with_symbols(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let sym = symbols();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(sym.iter().map(String::as_str));
    perfdata(&all, stdin)
}

#[test]
fn folded_equals_the_standard_tools() {
    let fp = testdata("fp.data");
    let fp = fp.to_str().unwrap();
    let dwarf = testdata("dwarf.data");
    let dwarf = dwarf.to_str().unwrap();
    for (args, want) in [
        (vec!["folded", fp], "fp.data.folded-stackcollapse-pl"),
        (vec!["folded", fp, "--compat", "perf-script-py"], "fp.data.folded-perf-script-py"),
        (
            vec!["folded", fp, "--compat", "perf-script-py", "--kernel", "--include-pid", "--include-tid"],
            "fp.data.folded-perf-script-py-k-pid-tid",
        ),
        (vec!["folded", fp, "--all", "--tid"], "fp.data.folded-stackcollapse-pl-all-tid"),
        (vec!["folded", fp, "--time", "3094.54,3094.545"], "fp.data.folded-stackcollapse-pl-time"),
        // perf script's other --time forms: several ranges, slices of the recording's span.
        (
            vec!["folded", fp, "--time", "3094.537,3094.54 3094.545,3094.548"],
            "fp.data.folded-stackcollapse-pl-time-multi",
        ),
        (vec!["folded", fp, "--time", "10%/2"], "fp.data.folded-stackcollapse-pl-time-pct-slash"),
        (vec!["folded", fp, "--time", "0%-10%,30%-40%"], "fp.data.folded-stackcollapse-pl-time-pct-dash"),
        (vec!["folded", fp, "--time", "25%"], "fp.data.folded-stackcollapse-pl-time-pct"),
        (
            vec!["folded", fp, "--compat", "perf-script-py", "--time", "10%/3"],
            "fp.data.folded-perf-script-py-time-pct-slash3",
        ),
        // --call-graph dwarf: perf script adds inline frames by default, and so do we.
        (vec!["folded", dwarf], "dwarf.data.folded-stackcollapse-pl"),
        (vec!["folded", dwarf, "--compat", "perf-script-py"], "dwarf.data.folded-perf-script-py"),
        (vec!["folded", dwarf, "--no-inline"], "dwarf.data.folded-stackcollapse-pl-noinline"),
        (vec!["folded", dwarf, "--inline", "--no-inline"], "dwarf.data.folded-stackcollapse-pl-noinline"),
        (vec!["folded", dwarf, "--no-inline", "--inline"], "dwarf.data.folded-stackcollapse-pl"),
    ] {
        let (rc, out, err) = run_with_symbols(&args, None);
        assert_eq!(rc, 0, "{args:?}: {err}");
        assert_eq!(out, std::fs::read_to_string(testdata(want)).unwrap(), "{args:?}");
    }
    // C++ (testdata/cxx): `-g` and `--call-graph dwarf` recordings with their own symfs root.
    let cxx_fp = testdata("cxx-fp.data");
    let cxx_fp = cxx_fp.to_str().unwrap();
    let cxx_dwarf = testdata("cxx-dwarf.data");
    let cxx_dwarf = cxx_dwarf.to_str().unwrap();
    let root = testdata("cxx/root");
    let cache = testdata("folded/no-buildid-cache");
    let sym = ["--symfs", root.to_str().unwrap(), "--buildid-dir", cache.to_str().unwrap()];
    for (args, want) in [
        (vec!["folded", cxx_fp], "cxx-fp.data.folded-stackcollapse-pl"),
        (vec!["folded", cxx_fp, "--compat", "perf-script-py"], "cxx-fp.data.folded-perf-script-py"),
        (vec!["folded", cxx_dwarf], "cxx-dwarf.data.folded-stackcollapse-pl"),
        (vec!["folded", cxx_dwarf, "--compat", "perf-script-py"], "cxx-dwarf.data.folded-perf-script-py"),
        (vec!["folded", cxx_dwarf, "--no-inline"], "cxx-dwarf.data.folded-stackcollapse-pl-noinline"),
        (
            vec!["folded", cxx_dwarf, "--compat", "perf-script-py", "--no-inline"],
            "cxx-dwarf.data.folded-perf-script-py-noinline",
        ),
    ]
    .into_iter()
    .filter(|_| common::cxx_names_exact("the C++ recordings' folded stacks"))
    {
        let all: Vec<&str> = args.iter().chain(sym.iter()).copied().collect();
        let (rc, out, err) = perfdata(&all, None);
        assert_eq!(rc, 0, "{args:?}: {err}");
        assert_eq!(out, std::fs::read_to_string(testdata(want)).unwrap(), "{args:?}");
    }
    // A pipe-format stream on stdin folds like the file.
    let pipe = std::fs::read(testdata("pipe.data")).unwrap();
    let (rc, from_stdin, _) = run_with_symbols(&["folded", "-"], Some(&pipe));
    let (_, from_file, _) = run_with_symbols(&["folded", testdata("pipe.data").to_str().unwrap()], None);
    assert_eq!(rc, 0);
    assert!(from_stdin.contains("spin;") && from_stdin == from_file);
}

/// What perf script rejects as a `--time` (it prints "Invalid time string"), and percentages of a
/// recording without first/last sample times (a pipe recording: perf prints a hint and stops).
#[test]
fn folded_time_errors_like_perf() {
    let fp = testdata("fp.data");
    for (t, says) in [
        ("3094.55", "is not perf's --time"),
        ("5%-200%", "not within 0%-100%"),
        ("3094.54,3094.56 3094.55,3094.57", "overlap"),
        ("3094.56,3094.55", "ends before it starts"),
        ("0%/1", "is not perf's --time"),
        ("1.0000000001,", "is not perf's --time"),
    ] {
        let (rc, out, err) = perfdata(&["folded", fp.to_str().unwrap(), "--time", t], None);
        assert_eq!((rc, out.as_str()), (2, ""), "{t}: {err}");
        assert!(err.contains(says), "{t}: {err}");
    }
    let (rc, out, err) = perfdata(&["folded", testdata("pipe.data").to_str().unwrap(), "--time", "10%/2"], None);
    assert_eq!((rc, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("percentages need the recording's first and last sample times"), "{err}");
}

/// `--srcline`: the frames carry the lines perf printed under them (fp.data.script-srcline: `leaf+0x20`
/// at spin.c:31 called from `outer+0x37` at spin.c:53); without source lines the stacks are the
/// standard tools'. perfdata-core/tests/srcline.rs compares the whole output with perf's.
#[test]
fn folded_srcline() {
    let fp = testdata("fp.data");
    let (rc, out, err) = run_with_symbols(&["folded", fp.to_str().unwrap(), "--srcline"], None);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains(";outer:spin.c:53;leaf:spin.c:31 "), "{out}");
    let plain = std::fs::read_to_string(testdata("fp.data.folded-stackcollapse-pl")).unwrap();
    let total = |s: &str| s.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum::<u64>();
    assert_eq!(total(&out), total(&plain));
    assert_ne!(out, plain);
}

#[test]
fn flamegraph_svg_and_differential() {
    let dir = std::env::temp_dir().join(format!("perfdata-cli-fg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (fp, multi) = (testdata("fp.data"), testdata("multi-g.data"));
    let svg = dir.join("fp.svg");
    let (rc, _, err) = run_with_symbols(&["flamegraph", fp.to_str().unwrap(), "-o", svg.to_str().unwrap()], None);
    assert_eq!(rc, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("function search"));
    // Every frame of the folded output is drawn (inferno merges equal prefixes).
    let folded = std::fs::read_to_string(testdata("fp.data.folded-stackcollapse-pl")).unwrap();
    for frame in folded.lines().flat_map(|l| l.rsplit_once(' ').unwrap().0.split(';')) {
        assert!(text.contains(&format!("<title>{frame} (")), "{frame}");
    }
    let (rc, diff, err) =
        run_with_symbols(&["flamegraph", "--diff", fp.to_str().unwrap(), multi.to_str().unwrap()], None);
    assert_eq!(rc, 0, "{err}");
    assert!(diff.contains("Differential") && diff.contains("rgb(255,") && diff.contains("; +"));
    let (rc, _, err) = perfdata(&["flamegraph", fp.to_str().unwrap(), multi.to_str().unwrap()], None);
    assert_eq!((rc, err.trim()), (1, "perfdata: flamegraph takes one file (two with --diff)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `flamegraph --diff`'s colours are flamegraph.pl's for the same deltas (its `color_scale`: red or
/// blue with the other channels 210 × (1 − |delta| / largest |delta|), white for none): the fills
/// below are what `difffolded.pl fp.folded dwarf.folded | flamegraph.pl --countname period` (and
/// `difffolded.pl dwarf.folded fp.folded | flamegraph.pl --negate …`) gave for these frames.
#[test]
fn flamegraph_differential_colours_are_flamegraph_pl_s() {
    let (fp, dwarf) = (testdata("fp.data"), testdata("dwarf.data"));
    let fill = |svg: &str, title: &str| -> String {
        let at = svg.find(&format!("<title>{title}</title><rect")).unwrap_or_else(|| panic!("{title}"));
        svg[at..].split("fill=\"").nth(1).unwrap().split('"').next().unwrap().to_string()
    };
    let (fp, dwarf) = (fp.to_str().unwrap(), dwarf.to_str().unwrap());
    let plain: &[(&str, &str)] = &[
        ("all (6,400,000 period, 100%)", "rgb(255,255,255)"),
        ("leaf (3,200,000 period, 50.00%; +50.00%)", "rgb(255,145,145)"),
        ("outer (3,600,000 period, 56.25%; -4.69%)", "rgb(203,203,255)"),
        ("__alloc_frozen_pages_noprof (400,000 period, 6.25%; +3.12%)", "rgb(255,205,205)"),
    ];
    let negated: &[(&str, &str)] = &[
        // The largest change: the full blue.
        ("leaf (10,600,000 period, 69.74%; -68.42%)", "rgb(0,0,255)"),
        ("outer (11,300,000 period, 74.34%; -1.97%)", "rgb(203,203,255)"),
        ("clear_page_erms (300,000 period, 1.97%; -1.97%)", "rgb(203,203,255)"),
        ("io_work (400,000 period, 2.63%; -0.66%)", "rgb(207,207,255)"),
        ("alloc_pages_mpol (300,000 period, 1.97%; 0.00%)", "rgb(255,255,255)"),
    ];
    for (args, fills) in [
        (vec!["flamegraph", "--diff", fp, dwarf], plain),
        (vec!["flamegraph", "--diff", "--negate", fp, dwarf], negated),
    ] {
        let (rc, svg, err) = run_with_symbols(&args, None);
        assert_eq!(rc, 0, "{err}");
        for (title, want) in fills {
            assert_eq!(fill(&svg, title), *want, "{args:?}: {title}");
        }
    }
}

/// `perfdata CMD` run on a pseudo-terminal by util-linux `script` (stdout to /dev/null, stderr on
/// the terminal): what the terminal showed.
fn on_a_terminal(cmd: &str) -> String {
    let out = std::process::Command::new("script")
        .args(["-qec", &format!("{} {cmd} > /dev/null", env!("CARGO_BIN_EXE_perfdata")), "/dev/null"])
        .env("PERFDATA_PROGRESS_DELAY_MS", "0")
        .output()
        .expect("util-linux script (Debian's bsdutils) runs the command on a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The progress bar: on a terminal's stderr it shows the file and its size (cleared at the end);
/// not with --quiet, not when stderr is a pipe.
#[test]
fn progress_bar_only_on_a_terminal() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/offcpu-dwarf.data");
    let file = file.to_str().unwrap();
    let shown = on_a_terminal(&format!("folded {file}"));
    assert!(shown.contains("offcpu-dwarf.data") && shown.contains("730.71 KiB"), "{shown:?}");
    // --quiet: the warning that frames have no name (no kallsyms here), and no bar.
    let quiet = on_a_terminal(&format!("folded --quiet {file}"));
    assert!(quiet.starts_with("perfdata: warning: ") && !quiet.contains("KiB"), "{quiet:?}");
    assert_eq!(quiet.matches('\r').count(), 1, "{quiet:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["folded", file])
        .env("PERFDATA_PROGRESS_DELAY_MS", "0")
        .output()
        .unwrap();
    assert!(out.status.success());
    // Only the line saying which frames have no name (no kallsyms here), and no bar.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("perfdata: warning: ") && err.contains(" addresses unnamed in "), "{err}");
    assert!(!err.contains("KiB") && !err.contains('\r') && err.lines().count() == 1, "{err:?}");
}

#[test]
fn script_into_a_closed_pipe_ends_quietly_with_status_0() {
    // `perfdata script big | head -1`: perf, coreutils and ripgrep stop quietly, status 0.
    let out = read_a_little(&["script", testdata("jit.data").to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn script_writes_perf_script_text_with_symbols() {
    let fp = testdata("fp.data");
    let (rc, out, err) = run_with_symbols(&["script", fp.to_str().unwrap()], None);
    // The frames perf shows as `[unknown]` too, counted by cause on stderr: addresses no mapping
    // covers (a frame-pointer walk through libc code built without them), and the stand-in
    // taskset, which has no symbols.
    let said = format!(
        "perfdata: warning: {}: 12 addresses unnamed in 2 DSOs: [unknown] (11): no mapping covers \
         0x7fe7a9ef2ad7; /usr/bin/taskset (1): {}/usr/bin/taskset has no function symbols (no .symtab \
         or .dynsym)\n",
        fp.display(),
        testdata("folded").join("root").display()
    );
    assert_eq!((rc, err.as_str()), (0, said.as_str()));
    assert_eq!(out, std::fs::read_to_string(testdata("fp.data.script")).unwrap());
}

#[test]
fn dash_i_names_the_input_as_in_perf() {
    let fp = testdata("fp.data");
    let fp = fp.to_str().unwrap();
    let (rc, by_flag, _) = run_with_symbols(&["script", "-i", fp], None);
    let (_, by_arg, _) = run_with_symbols(&["script", fp], None);
    assert_eq!(rc, 0);
    assert_eq!(by_flag, by_arg);
    let (rc, stats, _) = perfdata(&["stats", "--input", fp], None);
    assert_eq!(rc, 0, "{stats}");
    let (rc, stats2, _) = perfdata(&["stats", &format!("--input={fp}")], None);
    assert_eq!((rc, stats2), (0, stats));
    // `perfdata block latency`'s -i is the rwbs glob: a file there is refused with the reason.
    let (rc, _, err) = perfdata(&["block", "latency", "-i", fp], None);
    assert_eq!(rc, 2);
    assert!(err.contains("rwbs"), "{err}");
}

#[test]
fn script_options_are_checked_as_perf_checks_them() {
    let fp = testdata("fp.data");
    let (rc, _, err) = perfdata(&["script", "-F", "+addr", fp.to_str().unwrap()], None);
    assert_eq!(rc, 1);
    assert!(err.contains("do not have ADDR attribute set"), "{err}");
}

/// `perfdata stats` counts each event's samples as `perf report --stats` does (stored as
/// testdata/F.stats), group-read samples once per member (group.data's `{cpu-clock,task-clock}:S`).
#[test]
fn stats_samples_per_event_equal_perf() {
    for name in ["group.data", "multi.data", "sched.data", "multi-g.data"] {
        let file = testdata(name);
        let (rc, out, err) = perfdata(&["stats", "--json", file.to_str().unwrap()], None);
        assert_eq!(rc, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let ours: std::collections::BTreeMap<String, u64> =
            serde_json::from_value(v["samples_by_event"].clone()).unwrap();
        let text = std::fs::read_to_string(testdata(&format!("{name}.stats"))).unwrap();
        let (mut perf, mut section) = (std::collections::BTreeMap::new(), None);
        for line in text.lines().map(str::trim) {
            if let Some(ev) = line.strip_suffix(" stats:") {
                section = (ev != "Aggregated").then(|| ev.to_string());
            } else if let (Some(ev), Some(n)) = (&section, line.strip_prefix("SAMPLE events:")) {
                perf.insert(ev.clone(), n.split_whitespace().next().unwrap().parse::<u64>().unwrap());
            }
        }
        assert!(!perf.is_empty(), "{name}: no per-event counts in perf's output");
        assert_eq!(ours, perf, "{name}");
    }
}
