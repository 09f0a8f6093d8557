//! `perfdata dump --json --symbolize`: the samples' comm, dso, symbol and frames; grouping the
//! frames by sample gives `perfdata folded --weight samples`'s output on the same file.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn symbolized_samples_fold_like_folded() {
    for (name, extra) in [("fp.data", vec![]), ("dwarf.data", vec!["--no-inline"]), ("sysw.data", vec!["--kernel"])] {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let mut args = vec!["dump", "--json", "--symbolize"];
        args.extend(&extra);
        args.push(f);
        let mut mine: BTreeMap<String, u64> = BTreeMap::new();
        for line in run(&args).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["type"] != "SAMPLE" {
                continue;
            }
            assert!(v["comm"].is_string() && v["dso"].is_string(), "{line}");
            let Some(frames) = v["frames"].as_array() else { continue };
            let mut key = vec![v["comm"].as_str().unwrap().to_string()];
            key.extend(frames.iter().rev().map(|f| f.as_str().unwrap().to_string()));
            *mine.entry(key.join(";")).or_default() += 1;
        }
        let mut fold = vec!["folded", "--weight", "samples"];
        fold.extend(&extra);
        fold.push(f);
        let want: BTreeMap<String, u64> = run(&fold)
            .lines()
            .map(|l| {
                let (k, w) = l.rsplit_once(' ').unwrap();
                (k.to_string(), w.parse().unwrap())
            })
            .collect();
        assert!(!want.is_empty());
        assert_eq!(mine, want, "{name}");
    }
}
