//! What several of the CLI's test files share.

use std::path::{Path, PathBuf};

/// The symbol options the tests pass (see testdata/folded): binaries under `root` (the committed
/// extracts), no build-id cache, the committed kallsyms: names from the repository, never from
/// this machine.
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
