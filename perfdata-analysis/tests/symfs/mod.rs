//! The symbol sources of the folded-stack, unwinding and source-line tests //! perfdata-symbolize and perfdata-analysis tests through `#[path]`).
#![allow(dead_code)]

use super::common::testdata;

/// Where the folded-stack, unwinding and source-line tests find binaries and kernel symbols
/// (testdata/folded: a `--symfs` root of stand-ins and debug files, no build-id cache, the
/// recording kernel's kallsyms), never this machine's.
pub fn folded_symbols() -> perfdata_symbolize::SymbolizeOptions {
    let dir = testdata().join("folded");
    perfdata_symbolize::SymbolizeOptions {
        symfs: Some(dir.join("root")),
        buildid_dir: Some(dir.join("no-buildid-cache")),
        kallsyms: Some(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
        ..Default::default()
    }
}

/// The symbol sources of the C++ recordings (`cxx-*.data`): testdata/cxx/root, the --symfs root
/// cxx/record.sh made from their own build-id cache (user-mode recordings: no kernel symbols).
pub fn cxx_symbols() -> perfdata_symbolize::SymbolizeOptions {
    perfdata_symbolize::SymbolizeOptions {
        symfs: Some(testdata().join("cxx/root")),
        buildid_dir: Some(testdata().join("folded/no-buildid-cache")),
        ..Default::default()
    }
}

/// The symbol sources of the recording `name` (testdata/`name`).
pub fn symbols_for(name: &str) -> perfdata_symbolize::SymbolizeOptions {
    if name.starts_with("cxx-") {
        cxx_symbols()
    } else {
        folded_symbols()
    }
}

/// Whether the C++ recordings' names can equal perf's: only in a build that links libiberty, the
/// demangler perf links (docs/demangling.md). Without it, prints that `test` is skipped.
pub fn cxx_names_exact(test: &str) -> bool {
    if !perfdata_symbolize::DEMANGLES_LIKE_PERF {
        // Past the test harness's capture, so that a passing run shows it.
        let note =
            format!("NOTE: {test} skipped: perf's C++ names need libiberty-dev ({})\n", perfdata_symbolize::DEMANGLER);
        let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
    }
    perfdata_symbolize::DEMANGLES_LIKE_PERF
}
