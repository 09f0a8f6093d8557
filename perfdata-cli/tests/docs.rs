//! The documentation made from the clap definitions: docs/cli.md's command reference is what
//! `perfdata help-markdown` prints, the completion scripts and man pages name every subcommand (and
//! the pages render without a groff warning where groff is installed), and docs/rust.md's example
//! is the code compiled and run here.
//!
//! When a command or option changes, regenerate docs/cli.md's reference with
//! `UPDATE_DOCS=1 cargo test --release -p perfdata-cli --test docs`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run `perfdata ARGS` (with a narrow terminal width in the environment, which must not matter)
/// and return its stdout; it must succeed.
fn perfdata(args: &[&str]) -> String {
    let out =
        Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).env("COLUMNS", "40").output().expect("run perfdata");
    assert!(out.status.success(), "perfdata {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The subcommands `perfdata ARGS --help` lists (not `help`).
fn listed_subcommands(args: &[&str]) -> Vec<String> {
    let mut args = args.to_vec();
    args.push("--help");
    let help = perfdata(&args);
    let Some(list) = help.split("\nCommands:\n").nth(1) else { return Vec::new() };
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path, `["sched", "latency"]`, in `--help`'s order (parents before children).
fn command_paths() -> Vec<Vec<String>> {
    fn walk(path: Vec<String>, out: &mut Vec<Vec<String>>) {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        for sub in listed_subcommands(&args) {
            let mut p = path.clone();
            p.push(sub);
            out.push(p.clone());
            walk(p, out);
        }
    }
    let mut out = Vec::new();
    walk(Vec::new(), &mut out);
    out
}

#[test]
fn cli_md_reference_is_up_to_date() {
    let path = repo().join("docs/cli.md");
    let generated = perfdata(&["help-markdown"]);
    assert_eq!(generated, perfdata(&["help-markdown"]), "help-markdown is not deterministic");
    let marker = generated.lines().next().expect("a marker line");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let start = committed.find(marker);
    if start.is_some_and(|s| committed[s..] == generated) {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let guide = start.map_or(committed.as_str(), |s| &committed[..s]);
        std::fs::write(&path, format!("{guide}{generated}")).expect("write docs/cli.md");
        eprintln!("NOTE: docs/cli.md's command reference regenerated");
        return;
    }
    let first_difference = start
        .map(|s| {
            let (old, new) = (committed[s..].lines(), generated.lines());
            let n = old.zip(new).take_while(|(a, b)| a == b).count();
            let line = committed[..s].lines().count() + n + 1;
            format!(" (line {line}: {:?})", generated.lines().nth(n).unwrap_or("<end of file>"))
        })
        .unwrap_or_else(|| " (it has no marker line; the reference goes at its end)".into());
    panic!(
        "docs/cli.md's command reference is not what `perfdata help-markdown` prints{first_difference}. \
         Regenerate it: UPDATE_DOCS=1 cargo test --release -p perfdata-cli --test docs"
    );
}

#[test]
fn cli_md_documents_every_command_and_option() {
    let md = perfdata(&["help-markdown"]);
    let paths = command_paths();
    assert!(paths.len() >= 15, "{paths:?}");
    for path in &paths {
        let name = format!("perfdata {}", path.join(" "));
        assert!(md.contains(&format!("\n### `{name}`\n")), "no section for {name}");
        let args: Vec<&str> = path.iter().map(String::as_str).chain(["--help"]).collect();
        for long in perfdata(&args).split_whitespace().filter(|w| w.starts_with("--") && w.len() > 2) {
            let long = long.trim_end_matches([',', '.', ')']);
            assert!(md.contains(long), "{name}: {long} is not in the reference");
        }
    }
    for helper in ["completions", "man", "help-markdown"] {
        assert!(md.contains(&format!("\n### `perfdata {helper}`\n")), "no section for {helper}");
    }
}

#[test]
fn completions_name_every_subcommand() {
    let paths = command_paths();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = perfdata(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        for path in &paths {
            let name = path.last().expect("a name");
            assert!(script.contains(name.as_str()), "{shell}: no {name}");
        }
        assert!(script.contains("filter-comm") && script.contains("plain-unwind"), "{shell}: options");
    }
    // The scripts parse, where the shell is installed (bash always is on Debian).
    let dir = std::env::temp_dir().join(format!("perfdata-completions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (shell, check) in [("bash", ["-n"]), ("zsh", ["-n"]), ("fish", ["-n"])] {
        let file = dir.join(format!("perfdata.{shell}"));
        std::fs::write(&file, perfdata(&["completions", shell])).expect("write");
        match Command::new(shell).args(check).arg(&file).output() {
            Ok(out) => assert!(out.status.success(), "{shell} -n: {}", String::from_utf8_lossy(&out.stderr)),
            Err(_) => eprintln!("NOTE: {shell} is not installed: its completion script's syntax is not checked"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// groff's warnings on a page (`-ww`: all of them), or None without groff.
fn groff_warnings(page: &Path) -> Option<String> {
    let out = Command::new("groff").args(["-man", "-Tutf8", "-ww", "-z"]).arg(page).output().ok()?;
    assert!(out.status.success(), "groff {}", page.display());
    Some(String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn man_pages_render() {
    let root = perfdata(&["man"]);
    assert!(root.contains(".TH PERFDATA 1"), "{root}");
    let paths = command_paths();
    for path in paths.iter().filter(|p| p.len() == 1) {
        let page = format!("perfdata\\-{}(1)", path[0].replace('-', "\\-"));
        assert!(root.contains(&page), "perfdata.1 does not list {page}");
    }
    assert!(root.contains("perfdata completions"), "perfdata.1 does not tell of the completions");
    assert!(root.is_ascii(), "non-ASCII bytes in perfdata.1");

    let dir = std::env::temp_dir().join(format!("perfdata-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let listed = perfdata(&["man", "-o", dir.to_str().expect("UTF-8 temp dir")]);
    let mut expected: Vec<String> = vec!["perfdata.1".into()];
    expected.extend(paths.iter().map(|p| format!("perfdata-{}.1", p.join("-"))));
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .expect("man -o wrote a directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(written, want);
    assert_eq!(listed.lines().count(), expected.len(), "{listed}");
    assert_eq!(std::fs::read_to_string(dir.join("perfdata.1")).expect("perfdata.1"), root);
    let mut groff = true;
    for name in &expected {
        let file = dir.join(name);
        let page = std::fs::read_to_string(&file).expect("page");
        let title = name.trim_end_matches(".1").to_uppercase();
        assert!(page.contains(&format!(".TH {title} 1")), "{name}: no .TH {title}");
        assert!(page.is_ascii(), "{name}: non-ASCII bytes");
        match groff_warnings(&file) {
            Some(w) => assert!(w.is_empty(), "{name}: groff warns:\n{w}"),
            None => groff = false,
        }
    }
    if !groff {
        eprintln!("NOTE: groff is not installed: the man pages' rendering is not checked");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// docs/rust.md's example, as it stands there between the `docs/rust.md` marker comments (the page
/// shows these lines, dedented; `rust_md_shows_this_example` checks that): it opens `perf.data`,
/// which the test makes testdata/sched.data.
fn rust_md_example() -> Result<(), Box<dyn std::error::Error>> {
    use perfdata_core::{Order, PerfFile, RecordKind};
    // docs/rust.md example begins
    let file = PerfFile::open("perf.data")?;
    // A std Iterator; the records borrow the file.
    for record in file.records(Order::Time)? {
        let record = record?;
        if let RecordKind::Sample(s) = &record.kind {
            println!("{:?} {:?} {:#x?}", s.time(), s.tid(), s.ip());
        }
    }
    // Tracepoints' fields by name, with filters (here: CPU 0's).
    for switch in file.tracepoints("sched:sched_switch")?.cpu(0) {
        let switch = switch?;
        println!("{:?} -> {:?}", switch.field("prev_comm"), switch.field("next_comm"));
    }
    // A few fields of many records, in time order: taken out once in file order, the small values
    // (not the records) sorted — what the sched and block analyses use.
    let tids = file.ordered(Default::default(), |r: &perfdata_core::RecordRef<'_>| {
        let s = r.sample()?.ok()?;
        Some((s.time()?, s.tid()?))
    })?;
    for item in tids {
        let (time, tid) = item?;
        println!("{time} {tid}");
    }
    // The same on worker threads, a chunk of the file each, for extractors that implement
    // `ParExtract` (how a copy is made and what it learned is joined): `file.ordered_par(...)`.
    // docs/rust.md example ends
    Ok(())
}

#[test]
fn rust_md_example_runs() {
    // The example's relative path: the only test here that depends on the working directory.
    let dir = std::env::temp_dir().join(format!("perfdata-rust-md-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(repo().join("testdata/sched.data"), dir.join("perf.data")).expect("copy");
    std::env::set_current_dir(&dir).expect("cd");
    let result = rust_md_example();
    let _ = std::fs::remove_dir_all(&dir);
    result.expect("docs/rust.md's example");
}

#[test]
fn rust_md_shows_this_example() {
    let source = include_str!("docs.rs");
    let begin = "    // docs/rust.md example begins\n";
    let end = "    // docs/rust.md example ends\n";
    let start = source.find(begin).expect("begin marker") + begin.len();
    let stop = source[start..].find(end).expect("end marker") + start;
    let code: String =
        source[start..stop].lines().map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l))).collect();
    let page = std::fs::read_to_string(repo().join("docs/rust.md")).expect("docs/rust.md");
    let want = format!("```rust\nuse perfdata_core::{{Order, PerfFile, RecordKind}};\n\n{code}```\n");
    assert!(
        page.contains(&want),
        "docs/rust.md's first example is not the code of perfdata-cli/tests/docs.rs's rust_md_example (change both):\n{want}"
    );
}

/// Whether `program` runs here.
fn installed(program: &str) -> bool {
    Command::new(program).arg("version").output().is_ok()
}

#[test]
fn readme_recipes_run() {
    // The README's shell recipes (its third `sh` block), run from a directory where `testdata` is
    // the repository's, with this build first on PATH.
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let block = readme.split("```sh\n").nth(3).and_then(|b| b.split("```").next()).expect("a third sh block");
    assert!(block.contains("perfdata flamegraph") && block.contains("perfdata export"), "{block}");
    let go = installed("go");
    let script: String = block.lines().filter(|l| go || !l.starts_with("go ")).map(|l| format!("{l}\n")).collect();
    if !go {
        eprintln!("NOTE: go is not installed: the README's `go tool pprof` line is not run");
    }
    let dir = std::env::temp_dir().join(format!("perfdata-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::os::unix::fs::symlink(repo().join("testdata").canonicalize().expect("testdata"), dir.join("testdata"))
        .expect("symlink");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_perfdata"));
    let path = format!("{}:{}", bin.parent().expect("bin dir").display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh").args(["-euc", &script]).current_dir(&dir).env("PATH", path).output().expect("run sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "README recipes failed:\n{script}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Max delay ms") && stdout.contains("usecs"), "{stdout}");
    if go {
        assert!(stdout.contains("work::spin"), "go tool pprof -top: {stdout}");
    }
    for file in ["flame.svg", "io.svg", "cpu.pb.gz", "sh.svg"] {
        assert!(dir.join(file).metadata().is_ok_and(|m| m.len() > 1000), "{file}");
    }
    // The README's picture is the first recipe's output.
    assert_eq!(
        std::fs::read(dir.join("flame.svg")).expect("flame.svg"),
        std::fs::read(repo().join("docs/flamegraph.svg")).expect("docs/flamegraph.svg"),
        "docs/flamegraph.svg is not what the README's flame graph recipe draws: run it from the repository \
         root with -o docs/flamegraph.svg"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
