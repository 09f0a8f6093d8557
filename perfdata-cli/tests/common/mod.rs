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
