//! `perfdata script` compared with perf 6.1's `perf script`, line for line and byte for byte.
//!
//! The oracle:
//! * `F.script`: `perf script -i F` on the recording machine, with its binaries and kernel
//!   (testdata/gen-outputs.sh). Where the committed symbol fixtures hold every symbol perf named
//!   (testdata/folded: a `--symfs` root of reduced binaries and a kallsyms extract), our output
//!   must equal it exactly: the recordings in [`COMPLETE`].

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

use std::path::PathBuf;

use perfdata_analysis::script::{write_script_with, ScriptOptions};
use perfdata_core::PerfFile;
use perfdata_symbolize::SymbolizeOptions;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

const KALLSYMS: &str = "folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9";

/// The fixtures a recording's symbols come from: its `--symfs` root.
fn root(name: &str) -> PathBuf {
    let td = testdata();
    if name.starts_with("cxx") {
        td.join("cxx/root")
    } else {
        td.join("folded/root")
    }
}

/// What `perfdata script` prints for `name` with `opts` against the fixtures; also the warnings.
fn script(name: &str, mut opts: ScriptOptions) -> (Vec<u8>, Vec<String>) {
    let td = testdata();
    opts.symbolize = SymbolizeOptions {
        symfs: Some(root(name)),
        buildid_dir: Some(td.join("folded/no-buildid-cache")),
        kallsyms: Some(td.join(KALLSYMS)),
        ignore_jitdump: true,
    };
    let f = PerfFile::open(td.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    write_script_with(&f, &opts, &mut out, &mut |w| warnings.push(w)).unwrap_or_else(|e| panic!("{name}: {e}"));
    (out, warnings)
}

/// Byte-for-byte equality, reporting the first differing lines.
fn assert_same(ours: &[u8], want: &[u8], what: &str) {
    if ours == want {
        return;
    }
    let (o, w): (Vec<&[u8]>, Vec<&[u8]>) =
        (ours.split(|&c| c == b'\n').collect(), want.split(|&c| c == b'\n').collect());
    let mut shown = 0;
    for (i, (a, b)) in o.iter().zip(&w).enumerate() {
        if a != b && shown < 8 {
            eprintln!(
                "line {}:\n  perf: {}\n  ours: {}",
                i + 1,
                String::from_utf8_lossy(b),
                String::from_utf8_lossy(a)
            );
            shown += 1;
        }
    }
    panic!("{what}: differs from perf ({} lines ours, {} perf's)", o.len(), w.len());
}

/// The recordings whose committed fixtures hold every symbol perf named on the recording machine.
const COMPLETE: &[&str] = &[
    "fp.data",
    "dwarf.data",
    "cxx-fp.data",
    "cxx-dwarf.data",
    "jit.data",
    "multi-g.data",
    "sched.data",
    "sched-mix.data",
    "sched-pipe.data",
    "block.data",
    "blockrw.data",
    "syscalls.data",
    "offcpu-bpf.data",
    "stat.data",
];

#[test]
fn equals_perf_script_on_the_recording_machine() {
    for name in COMPLETE {
        let want = std::fs::read(testdata().join(format!("{name}.script"))).unwrap();
        let (ours, _) = script(name, ScriptOptions::default());
        assert_same(&ours, &want, name);
    }
}

#[test]
fn perf_stat_record_prints_the_counter_table() {
    let want = std::fs::read(testdata().join("stat.data.script")).unwrap();
    let (ours, _) = script("stat.data", ScriptOptions::default());
    assert_same(&ours, &want, "stat.data");
    assert!(ours.starts_with(b"CPU   THREAD             VAL"));
}

#[test]
fn max_stack_cuts_callchains() {
    // fp.data's deepest callchain has more than 3 frames; every sample keeps at most 3.
    let (ours, _) = script("fp.data", ScriptOptions { max_stack: 3, ..ScriptOptions::default() });
    let text = String::from_utf8(ours).unwrap();
    let mut run = 0;
    let mut longest = 0;
    for l in text.lines() {
        if l.starts_with('\t') {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    assert_eq!(longest, 3);
}

#[test]
fn hide_call_graph_prints_the_ip_on_the_sample_line() {
    let (ours, _) = script("fp.data", ScriptOptions { hide_call_graph: true, ..ScriptOptions::default() });
    let text = String::from_utf8(ours).unwrap();
    assert!(!text.contains('\t'));
    let first = text.lines().next().unwrap();
    // -G: comm padded to 16, as for samples without callchains.
    assert!(first.starts_with("         taskset   754  3094.536040:     100000 cpu-clock:  ffffffff81b9764c iowrite16+0xc ([kernel.kallsyms])"), "{first}");
}

#[test]
fn fields_perf_refuses_are_refused() {
    let f = PerfFile::open(testdata().join("fp.data")).unwrap();
    for (fields, msg) in
        [("comm,+tid", "Cannot mix"), ("nosuch", "Invalid field"), ("+addr", "do not have ADDR attribute set")]
    {
        let opts = ScriptOptions { fields: vec![fields.into()], ..ScriptOptions::default() };
        let err = write_script_with(&f, &opts, &mut Vec::new(), &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains(msg), "{fields}: {err}");
    }
}
