//! What several of the CLI's test files share.

use std::path::{Path, PathBuf};

/// The symbol options the tests pass (see testdata/folded): binaries under `root` (the committed
/// extracts), no build-id cache, the committed kallsyms: names from the repository, never from
/// this machine.
#[allow(dead_code)] // in the tests that name frames from the committed extracts
pub fn symbol_args(root: &Path) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/folded");
    vec![
        "--symfs".into(),
        root.display().to_string(),
        "--buildid-dir".into(),
        dir.join("no-buildid-cache").display().to_string(),
        "--kallsyms".into(),
        dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9").display().to_string(),
    ]
}

/// Whether the C++ recordings' names can equal perf's: only in a build that links libiberty, the
/// demangler perf links (docs/demangling.md). Without it, prints that `what` is skipped.
#[allow(dead_code)] // in the test files that compare the C++ recordings
pub fn cxx_names_exact(what: &str) -> bool {
    let exact = perfdata_analysis::symbolize::DEMANGLES_LIKE_PERF;
    if !exact {
        // Past the test harness's capture, so that a passing run shows it.
        let note = format!(
            "NOTE: {what} skipped: perf's C++ names need libiberty-dev ({})\n",
            perfdata_analysis::symbolize::DEMANGLER
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
    }
    exact
}

/// The committed test file `name` (under testdata/).
#[allow(dead_code)] // in the tests that read testdata by name
pub fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// The text of the committed file `name` (perf's stored outputs).
#[allow(dead_code)] // in the tests of symbols read on another machine
pub fn stored(name: &str) -> String {
    std::fs::read_to_string(testdata(name)).unwrap()
}

/// A report's table rows, runs of spaces collapsed (as tests/report.rs compares them).
#[allow(dead_code)] // in the tests of symbols read on another machine
pub fn report_rows(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains('%'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// A fresh directory `perfdata-TEST-NAME-PID` for one test, with the subdirectories `subs`.
#[allow(dead_code)] // in the tests of symbols read on another machine
pub fn scratch(test: &str, name: &str, subs: &[&str]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perfdata-{test}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    for sub in subs {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    d
}

/// `perfdata` as on another machine whose home is `dir/home` and cache `dir/cache`: no
/// build-id cache from the environment, and no debuginfod server (Debian's debuginfod package
/// sets `DEBUGINFOD_URLS` in login shells).
#[allow(dead_code)] // in the tests of symbols read on another machine
pub fn perfdata_elsewhere(dir: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_perfdata"));
    c.env("HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env_remove("PERF_BUILDID_DIR")
        .env_remove("DEBUGINFOD_URLS");
    c
}
