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
