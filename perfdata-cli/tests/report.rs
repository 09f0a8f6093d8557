//! `perfdata report`: the rows of `perf report --stdio --no-children -g none --sort comm,dso,sym`
//! (stored as testdata/F.report), in perf's order, with the binaries' symbol extracts of
//! testdata/folded (as the folded tests use them).

use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// The table rows, runs of spaces collapsed (perf sizes its columns to the widest value).
fn rows(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains('%'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn rows_equal_perf_report() {
    let dir = testdata("folded");
    for name in ["fp.data", "dwarf.data", "sysw.data"] {
        let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
            .args(["report", testdata(name).to_str().unwrap(), "--symfs"])
            .arg(dir.join("root"))
            .arg("--buildid-dir")
            .arg(dir.join("no-buildid-cache"))
            .arg("--kallsyms")
            .arg(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ours = rows(&String::from_utf8(out.stdout).unwrap());
        let perf = rows(&std::fs::read_to_string(testdata(&format!("{name}.report"))).unwrap());
        assert!(perf.len() > 10);
        if name == "sysw.data" {
            // Known difference: one address of librustc_driver that perf leaves unresolved
            // (0x57b026a) we name dtorck_constraint_for_ty_inner; every other row is perf's, in order.
            let strip = |v: &[String]| -> Vec<String> {
                v.iter()
                    .filter(|r| !r.contains("0x00000000057b026a") && !r.contains("dtorck_constraint_for_ty_inner"))
                    .cloned()
                    .collect()
            };
            assert_eq!(strip(&ours), strip(&perf));
            assert_eq!(ours.len(), perf.len());
        } else {
            assert_eq!(ours, perf, "{name}");
        }
    }
}
