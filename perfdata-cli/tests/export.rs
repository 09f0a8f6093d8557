//! `perfdata export --format speedscope|chrome-trace`: the documents parse back, have the fields
//! their viewers require, and carry `perfdata folded`'s weights / the scheduler's slices.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

mod common;

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

/// The symbol options every folded test passes (see testdata/folded): names from the committed
/// binaries and kallsyms, not from this machine.
fn symbol_options() -> Vec<String> {
    common::symbol_args(&testdata("folded").join("root"))
}

/// `go tool pprof ARGS`, or `None` (with the reason printed) when `go` is not installed.
fn go_pprof(args: &[&str]) -> Option<String> {
    let out = match Command::new("go").arg("tool").arg("pprof").args(args).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("SKIPPED: `go` is not installed ({e}): apt-get install golang-go (.ci/run does)");
            return None;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "go tool pprof {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Some(text)
}

/// A sample as `go tool pprof -raw` prints it.
struct RawSample {
    values: Vec<i64>,
    locations: Vec<u64>,
    /// String labels line (`comm:[spin] event:[cpu-clock]`) and numeric labels line.
    labels: String,
    num_labels: String,
}

/// What `go tool pprof -raw` prints (pprof's `Profile.String`): the sample types, the samples,
/// and each location's function names (innermost first).
fn parse_raw(text: &str) -> (Vec<String>, Vec<RawSample>, BTreeMap<u64, Vec<String>>) {
    let mut lines = text.lines().skip_while(|l| *l != "Samples:");
    lines.next();
    let types: Vec<String> = lines.next().unwrap().split_whitespace().map(|t| t.replace("[dflt]", "")).collect();
    let numbers = |s: &str| s.split_whitespace().map(|v| v.parse::<i64>()).collect::<Result<Vec<_>, _>>().ok();
    // `  ID: 0xADDR M=MAPPING FIRST-LINE`: (id, first line).
    fn loc_line(l: &str) -> Option<(u64, &str)> {
        let (id, rest) = l.trim_start().split_once(": 0x")?;
        let id = id.parse::<u64>().ok()?;
        let rest = rest.split_once(' ').map_or("", |r| r.1);
        let rest = match rest.strip_prefix("M=") {
            Some(r) => r.split_once(' ').map_or("", |r| r.1),
            None => rest,
        };
        Some((id, rest))
    }
    // `  VALUE VALUE: LOC LOC `: (values, locations).
    let value_line = |l: &str| {
        let (v, locs) = l.split_once(": ")?;
        Some((numbers(v)?, numbers(locs)?))
    };
    let mut samples: Vec<RawSample> = Vec::new();
    let mut locations: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let mut current = 0;
    let mut in_locations = false;
    // Every function has file "", line 0 and no system name: a line reads `NAME :0 s=0()`.
    let name = |s: &str| s.strip_suffix(" :0 s=0()").unwrap_or_else(|| panic!("location line {s:?}")).to_string();
    for l in lines {
        if l == "Locations" {
            in_locations = true;
        } else if l == "Mappings" {
            break;
        } else if in_locations {
            if let Some((id, first)) = loc_line(l) {
                current = id;
                let lines = locations.entry(current).or_default();
                if !first.is_empty() {
                    lines.push(name(first));
                }
            } else {
                locations.get_mut(&current).unwrap().push(name(l.trim_start()));
            }
        } else if let Some((values, locs)) = value_line(l).filter(|_| !l.trim_start().starts_with("comm:")) {
            samples.push(RawSample {
                values,
                locations: locs.into_iter().map(|v| v as u64).collect(),
                labels: String::new(),
                num_labels: String::new(),
            });
        } else {
            let s = samples.last_mut().unwrap();
            let l = l.trim();
            if l.starts_with("comm:") {
                s.labels = l.to_string();
            } else {
                s.num_labels = l.to_string();
            }
        }
    }
    (types, samples, locations)
}

/// The value of label `key` in pprof's `key:[value]` (string) or `key:[value unit]` (numeric)
/// text.
fn label<'a>(labels: &'a str, key: &str) -> Option<&'a str> {
    let at = labels.find(&format!("{key}:["))? + key.len() + 2;
    let rest = &labels[at..];
    if key == "comm" {
        // comm comes first and may hold anything but `] event:[`.
        let end = rest.find("] event:[").or_else(|| rest.rfind(']'))?;
        return Some(&rest[..end]);
    }
    rest.split([' ', ']']).next()
}

/// Per folded stack (`comm;root;…;leaf`, or with `tid` `comm-PID/TID;…`), the sum of value
/// column `column` of the pprof samples whose event label is `event` (any without).
fn pprof_stacks(
    raw: &(Vec<String>, Vec<RawSample>, BTreeMap<u64, Vec<String>>),
    column: usize,
    tid: bool,
) -> BTreeMap<String, u64> {
    let (_, samples, locations) = raw;
    let mut out = BTreeMap::new();
    for s in samples {
        let comm = label(&s.labels, "comm").unwrap().replace(' ', "_");
        let mut frames = vec![if tid {
            let (pid, t) = (label(&s.num_labels, "pid").unwrap(), label(&s.num_labels, "tid").unwrap());
            format!("{comm}-{pid}/{t}")
        } else {
            comm
        }];
        // Leaf location first, each location's lines innermost first: reversed, root first.
        let mut leaf_first: Vec<&String> = Vec::new();
        for id in &s.locations {
            leaf_first.extend(&locations[id]);
        }
        frames.extend(leaf_first.into_iter().rev().cloned());
        if s.values[column] != 0 {
            *out.entry(frames.join(";")).or_default() += s.values[column] as u64;
        }
    }
    out
}

/// The real consumer: `go tool pprof -raw` of the exported profile gives, per stack, the weights
/// of `perfdata folded` on the same file and options: periods (the default sample type) and
/// sample counts, for frame-pointer, DWARF (inline frames as pprof `Line`s) and system-wide
/// recordings and, with several events, per event.
#[test]
fn pprof_opens_in_go_tool_pprof_with_folded_weights() {
    let dir = std::env::temp_dir().join(format!("perfdata-export-pprof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sym = symbol_options();
    let sym: Vec<&str> = sym.iter().map(String::as_str).collect();
    let cases: [(&str, Vec<&str>); 5] = [
        ("fp.data", vec![]),
        ("dwarf.data", vec![]),
        ("dwarf.data", vec!["--no-inline", "--no-tidy"]),
        ("sysw.data", vec!["--tid"]),
        ("multi-g.data", vec!["--all-events"]),
    ];
    for (name, extra) in cases {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let out = dir.join(format!("{name}.pb.gz"));
        let mut args = vec!["export", "--format", "pprof", f, "-o", out.to_str().unwrap()];
        args.extend(&extra);
        args.extend(&sym);
        let (ok, _, err) = run(&args);
        assert!(ok, "{err}");
        let Some(text) = go_pprof(&["-raw", out.to_str().unwrap()]) else { return };
        let raw = parse_raw(&text);
        let tid = extra.contains(&"--tid");
        let fold = |more: &[&str]| {
            let mut a = vec!["folded", f];
            a.extend(&extra);
            a.extend(&sym);
            a.extend(more);
            folded(&a)
        };
        assert_eq!(raw.0[0], "samples/count", "{name}");
        if name == "multi-g.data" {
            // A column per event (its periods), labels `event`.
            // perf's event names (`page-faults/period=20/`), units after a `/`.
            assert_eq!(raw.0[1..], ["cpu-clock/nanoseconds", "page-faults/period=20//count"], "{name}");
            for (i, event) in ["cpu-clock", "page-faults/period=20/"].iter().enumerate() {
                let mut args = vec!["folded", f, "--event-filter", event, "--weight", "period"];
                args.extend(&sym);
                assert_eq!(pprof_stacks(&raw, i + 1, tid), folded(&args), "{name} {event} periods");
            }
            assert!(raw.1.iter().all(|s| label(&s.labels, "event").is_some()), "{name}: event labels");
            assert_eq!(pprof_stacks(&raw, 0, tid), fold(&["--weight", "samples"]), "{name} samples");
            continue;
        }
        assert_eq!(raw.0.len(), 2, "{name}: {:?}", raw.0);
        assert_eq!(pprof_stacks(&raw, 1, tid), fold(&["--weight", "period"]), "{name} periods");
        assert_eq!(pprof_stacks(&raw, 0, tid), fold(&["--weight", "samples"]), "{name} samples");
        assert!(raw.1.iter().all(|s| s.num_labels.contains("pid:[") && s.num_labels.contains("tid:[")));
        if name == "dwarf.data" && extra.is_empty() {
            // Inline frames are extra lines of one location.
            assert!(raw.2.values().any(|lines| lines.len() > 1), "{name}: no inline frames");
        }
    }
    // The other reports run on it, and show the labels.
    let out = dir.join("sysw.data.pb.gz");
    let out = out.to_str().unwrap();
    let top = go_pprof(&["-top", out]).unwrap();
    assert!(top.contains("flat%") && top.contains("Type: cpu-clock"), "{top}");
    let traces = go_pprof(&["-traces", out]).unwrap();
    assert!(traces.contains("comm:") && traces.contains("cpu:") && traces.contains("-----------+"), "{traces}");
    let tags = go_pprof(&["-tags", out]).unwrap();
    // Every sample has each label (cpu 0 and pid 0 too: pprof drops a numeric 0 without unit).
    let totals: Vec<&str> = tags.lines().filter(|l| l.contains(": Total ")).collect();
    assert_eq!(totals.len(), 4, "{tags}");
    for (t, key) in totals.iter().zip(["comm:", "cpu:", "pid:", "tid:"]) {
        assert!(t.trim_start().starts_with(key), "{key} in {tags}");
        assert_eq!(t.split_once(" Total ").unwrap().1, totals[0].split_once(" Total ").unwrap().1, "{tags}");
    }
    assert!(tags.contains("): 0\n"), "cpu 0 in {tags}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that is not perf.data: a clear error, and neither the output nor its temporary file.
#[test]
fn pprof_of_bad_input_leaves_no_file() {
    let dir = std::env::temp_dir().join(format!("perfdata-export-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.data");
    std::fs::write(&bad, b"PERFILE2 but nothing after it").unwrap();
    let out = dir.join("out.pb.gz");
    let (ok, _, err) = run(&["export", "--format", "pprof", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("malformed perf_file_header at 0x8"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("bad.data")]);
    std::fs::remove_dir_all(&dir).unwrap();
}
