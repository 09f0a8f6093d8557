//! `perfdata export --format speedscope|chrome-trace`: the documents parse back, have the fields
//! their viewers require, and carry `perfdata folded`'s weights / the scheduler's slices.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn folded(args: &[&str]) -> BTreeMap<String, u64> {
    let (ok, out, err) = run(args);
    assert!(ok, "{err}");
    out.lines()
        .map(|l| {
            let (k, w) = l.rsplit_once(' ').unwrap();
            (k.to_string(), w.parse().unwrap())
        })
        .collect()
}

/// The fields of speedscope's file-format schema (speedscope's `file-format-spec.ts`).
#[test]
fn speedscope_profiles_weigh_what_folded_weighs() {
    for (name, extra) in
        [("fp.data", vec![]), ("dwarf.data", vec!["--compat", "perf-script-py"]), ("sysw.data", vec!["--tid"])]
    {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let mut args = vec!["export", "--format", "speedscope", f];
        args.extend(&extra);
        let (ok, out, err) = run(&args);
        assert!(ok, "{err}");
        let d: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(d["$schema"], "https://www.speedscope.app/file-format-schema.json");
        let frames = d["shared"]["frames"].as_array().unwrap();
        assert!(frames.iter().all(|f| f["name"].is_string()));
        let mut got: BTreeMap<String, u64> = BTreeMap::new();
        for p in d["profiles"].as_array().unwrap() {
            assert_eq!(p["type"], "sampled");
            assert!(["none", "nanoseconds"].contains(&p["unit"].as_str().unwrap()));
            let (samples, weights) = (p["samples"].as_array().unwrap(), p["weights"].as_array().unwrap());
            assert_eq!(samples.len(), weights.len());
            let total: u64 = weights.iter().map(|w| w.as_u64().unwrap()).sum();
            assert_eq!(p["startValue"], 0);
            assert_eq!(p["endValue"].as_u64().unwrap(), total);
            for (s, w) in samples.iter().zip(weights) {
                let mut stack = vec![p["name"].as_str().unwrap().to_string()];
                for i in s.as_array().unwrap() {
                    let i = i.as_u64().unwrap() as usize;
                    assert!(i < frames.len());
                    stack.push(frames[i]["name"].as_str().unwrap().to_string());
                }
                *got.entry(stack.join(";")).or_default() += w.as_u64().unwrap();
            }
        }
        let mut fold = vec!["folded", f];
        fold.extend(&extra);
        assert_eq!(got, folded(&fold), "{name}");
    }
}

/// The fields Perfetto's JSON importer reads: `ph`, `ts` (µs), `pid`, `tid`, `name`; `dur` for
/// complete events, `s` for instant ones, `args.name` for metadata.
#[test]
fn chrome_trace_has_the_scheduler_slices_and_samples() {
    let f = testdata("sched-mix.data");
    let dir = std::env::temp_dir().join(format!("perfdata-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("mix.json");
    let (ok, _, err) = run(&["export", "--format", "chrome-trace", f.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    let d: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let events = d["traceEvents"].as_array().unwrap();
    let mut per_cpu: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    let mut samples = 0;
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        assert!(e["pid"].is_u64() && e["name"].is_string(), "{e}");
        match ph {
            "M" => assert!(e["args"]["name"].is_string()),
            "X" => {
                let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                assert!(ts > 0.0 && dur >= 0.0 && e["tid"].is_u64());
                if e["pid"] == u64::from(u32::MAX - 1) {
                    per_cpu.entry(e["tid"].as_u64().unwrap()).or_default().push((ts, ts + dur));
                }
            }
            "i" => {
                assert_eq!(e["s"], "t");
                assert!(e["ts"].as_f64().unwrap() > 0.0 && e["tid"].is_u64());
                samples += 1;
            }
            "C" => assert!(e["args"]["lost"].is_u64()),
            o => panic!("unexpected phase {o}"),
        }
    }
    assert_eq!(samples, 1133, "every sample of the file");
    assert_eq!(per_cpu.keys().copied().collect::<Vec<_>>(), [0, 1]);
    // A CPU runs one task at a time: its slices do not overlap.
    for (cpu, mut s) in per_cpu {
        s.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(s.windows(2).all(|w| w[0].1 <= w[1].0 + 1e-3), "CPU {cpu}");
        assert!(s.len() > 50);
    }
    // Bad input leaves no file behind.
    let bad = dir.join("bad.json");
    let (ok, _, err) = run(&["export", "--format", "speedscope", "/nonexistent.data", "-o", bad.to_str().unwrap()]);
    assert!(!ok && !err.is_empty() && !bad.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
