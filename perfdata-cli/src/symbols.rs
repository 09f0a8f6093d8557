//! Where every command that names frames looks for symbols: perf's options of the same names.

use clap::Args;
use perfdata_analysis::symbolize::{archive, SymbolizeOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

/// `--symfs`, `--kallsyms` and `--buildid-dir`, as perf has them, and `--symbols`.
#[derive(Args, Clone, Default)]
pub struct SymbolArgs {
    /// perf's build-id cache (default $PERF_BUILDID_DIR, else ~/.debug).
    #[arg(long, value_name = "DIR")]
    pub buildid_dir: Option<PathBuf>,
    /// Look for every binary under this root.
    #[arg(long, value_name = "DIR")]
    pub symfs: Option<PathBuf>,
    /// Kernel symbols from this kallsyms file. Without it they come from the build-id cache
    /// (`[kernel.kallsyms]/BUILD_ID/kallsyms`), else from the running kernel's /proc/kallsyms when
    /// it is the recorded kernel: the same build id or, for a recording without one (`perf record
    /// -o -`), the same release (perf uses the running kernel's symbols for any kernel).
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<PathBuf>,
    /// Symbols from this archive (`perfdata archive`'s, or perf's own `perf archive` .tar.bz2), unpacked into
    /// $XDG_CACHE_HOME/perfdata/archives: for a build id it holds, its files come first, then the
    /// usual places (docs/archive.md).
    #[arg(long, value_name = "ARCHIVE")]
    pub symbols: Option<PathBuf>,
    /// `--symbols`' archive once unpacked (or why it could not be): every command asks for its
    /// options more than once, the archive is read the first time only.
    #[arg(skip)]
    unpacked: OnceLock<Result<PathBuf, String>>,
}

impl SymbolArgs {
    /// The symbolizer's options these flags say; `ignore_jitdump` is each command's own choice.
    /// An archive that cannot be unpacked (`--symbols`) is an error naming the option and the
    /// reason; it is unpacked (or refused) at the first call only.
    pub fn options(&self, ignore_jitdump: bool) -> Result<SymbolizeOptions, String> {
        let archive = match self.symbols.as_deref() {
            Some(a) => {
                Some(self.unpacked.get_or_init(|| archive::unpack(a).map_err(|e| format!("--symbols: {e}"))).clone()?)
            }
            None => None,
        };
        Ok(SymbolizeOptions {
            symfs: self.symfs.clone(),
            buildid_dir: self.buildid_dir.clone(),
            kallsyms: self.kallsyms.clone(),
            ignore_jitdump,
            archive,
            read_log: None,
            files: None,
        })
    }
}
