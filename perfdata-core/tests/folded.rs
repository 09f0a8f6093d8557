//! Folded stacks compared with perf's own output stored beside the recordings:
//! `F.folded-perf-script-py` = `perf script report stackcollapse -i F`,
//! `F.folded-stackcollapse-pl` = `perf script -i F | inferno-collapse-perf` (inferno 0.12.8).
//! Symbols come from testdata/folded (see make-extract.sh there): a --symfs root with the symbol
//! tables perf used, reduced to the symbols it printed, and the kernel's kallsyms limited to the
//! symbols hit; the real ~/.debug is never consulted.

use std::path::PathBuf;

use perfdata_core::folded::{folded, Compat, FoldedOptions};
use perfdata_core::symbolize::SymbolizeOptions;
use perfdata_core::PerfFile;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn check(name: &str, compat: Compat, suffix: &str) {
    let td = testdata();
    let dir = td.join("folded");
    let opts = FoldedOptions {
        compat,
        symbolize: SymbolizeOptions {
            symfs: Some(dir.join("root")),
            buildid_dir: Some(dir.join("no-buildid-cache")),
            kallsyms: Some(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
        },
        ..Default::default()
    };
    let file = PerfFile::open(td.join(name)).unwrap();
    let ours = folded(&file, &opts).unwrap().to_folded_string();
    let want = std::fs::read_to_string(td.join(format!("{name}.{suffix}"))).unwrap();
    if ours != want {
        let o: Vec<_> = ours.lines().collect();
        let w: Vec<_> = want.lines().collect();
        for l in &w {
            if !o.contains(l) {
                eprintln!("perf only: {l}");
            }
        }
        for l in &o {
            if !w.contains(l) {
                eprintln!("ours only: {l}");
            }
        }
        panic!("{name} {suffix} differs");
    }
}

#[test]
fn fp_perf_script_py() {
    check("fp.data", Compat::PerfScriptPy, "folded-perf-script-py");
}

#[test]
fn fp_stackcollapse_pl() {
    check("fp.data", Compat::StackcollapsePl, "folded-stackcollapse-pl");
}
