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

/// The aggregated layout (`--aggregate`): a sampled profile per root frame, each distinct stack
/// once with `perfdata folded`'s weight.
#[test]
fn speedscope_aggregated_profiles_weigh_what_folded_weighs() {
    for (name, extra) in
        [("fp.data", vec![]), ("dwarf.data", vec!["--compat", "perf-script-py"]), ("sysw.data", vec!["--tid"])]
    {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let mut args = vec!["export", "--format", "speedscope", "--aggregate", f];
        args.extend(&extra);
        let (ok, out, err) = run(&args);
        assert!(ok, "{err}");
        let d: serde_json::Value = serde_json::from_str(&out).unwrap();
        validate(&speedscope_schema(), &d).unwrap_or_else(|e| panic!("{name}: {e}"));
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

/// speedscope's file-format JSON Schema (testdata/speedscope, see testdata/README.md).
fn speedscope_schema() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(testdata("speedscope/file-format-schema.json")).unwrap()).unwrap()
}

/// Check `value` against `schema` (draft-07's keywords the speedscope schema uses: `$ref` into
/// `definitions`, `type`, `enum`, `properties`, `required`, `items`, `anyOf`).
fn validate(schema: &serde_json::Value, value: &serde_json::Value) -> Result<(), String> {
    fn check(root: &serde_json::Value, s: &serde_json::Value, v: &serde_json::Value, at: &str) -> Result<(), String> {
        if let Some(r) = s["$ref"].as_str() {
            let name = r.strip_prefix("#/definitions/").ok_or(format!("unsupported $ref {r}"))?;
            return check(root, &root["definitions"][name], v, at);
        }
        if let Some(any) = s["anyOf"].as_array() {
            let errs: Vec<String> = any.iter().filter_map(|a| check(root, a, v, at).err()).collect();
            return if errs.len() < any.len() { Ok(()) } else { Err(format!("{at}: none of anyOf: {errs:?}")) };
        }
        let ok = match s["type"].as_str() {
            Some("object") => v.is_object(),
            Some("array") => v.is_array(),
            Some("string") => v.is_string(),
            Some("number") => v.is_number(),
            Some(t) => return Err(format!("unsupported type {t}")),
            None => true,
        };
        if !ok {
            return Err(format!("{at}: {v} is not a {}", s["type"]));
        }
        if let Some(e) = s["enum"].as_array() {
            if !e.contains(v) {
                return Err(format!("{at}: {v} not in {e:?}"));
            }
        }
        for r in s["required"].as_array().into_iter().flatten() {
            if v.get(r.as_str().unwrap()).is_none() {
                return Err(format!("{at}: {r} missing"));
            }
        }
        for (k, ps) in s["properties"].as_object().into_iter().flatten() {
            if let Some(pv) = v.get(k) {
                check(root, ps, pv, &format!("{at}.{k}"))?;
            }
        }
        if let (Some(is), Some(items)) = (s.get("items"), v.as_array()) {
            for (i, item) in items.iter().enumerate() {
                check(root, is, item, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }
    check(schema, schema, value, "$")
}

/// The validator rejects what the schema rejects (it is not vacuous).
#[test]
fn the_schema_check_rejects_bad_documents() {
    let schema = speedscope_schema();
    let good = serde_json::json!({"$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "f"}]},
        "profiles": [{"type": "evented", "name": "t", "unit": "none", "startValue": 0, "endValue": 1,
            "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "C", "frame": 0, "at": 1}]}]});
    validate(&schema, &good).unwrap();
    for (path, bad) in [
        ("/profiles/0/unit", serde_json::json!("ms")),
        ("/profiles/0/events/0/type", serde_json::json!("X")),
        ("/profiles/0/endValue", serde_json::json!("1")),
        ("/shared/frames/0", serde_json::json!({"file": "x"})),
    ] {
        let mut d = good.clone();
        *d.pointer_mut(path).unwrap() = bad;
        assert!(validate(&schema, &d).is_err(), "{path}");
    }
    let mut d = good.clone();
    d.as_object_mut().unwrap().remove("shared");
    assert!(validate(&schema, &d).is_err());
}

/// One evented profile checked: its events in time order within [startValue, endValue], every
/// close matching the innermost open frame, all closed at the end. Returns the weight of each
/// stack (frame names root first) the profile shows, and its stacks in order (each change).
fn evented_stacks(
    p: &serde_json::Value,
    frames: &[serde_json::Value],
) -> (BTreeMap<Vec<String>, u64>, Vec<Vec<String>>) {
    assert_eq!(p["type"], "evented");
    let (start, end) = (p["startValue"].as_u64().unwrap(), p["endValue"].as_u64().unwrap());
    assert_eq!(start, 0);
    let mut open: Vec<u64> = Vec::new();
    let mut last = start;
    let mut weights: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    let mut order: Vec<Vec<String>> = Vec::new();
    let names = |open: &[u64]| -> Vec<String> {
        open.iter().map(|&i| frames[i as usize]["name"].as_str().unwrap().to_string()).collect()
    };
    for e in p["events"].as_array().unwrap() {
        let at = e["at"].as_u64().unwrap();
        assert!(at >= last && at <= end, "{} at {at} after {last} (end {end})", p["name"]);
        if at > last {
            assert!(!open.is_empty(), "{}: time passes with nothing open", p["name"]);
            let stack = names(&open);
            if order.last() != Some(&stack) {
                order.push(stack.clone());
            }
            *weights.entry(stack).or_default() += at - last;
        }
        last = at;
        let frame = e["frame"].as_u64().unwrap();
        assert!((frame as usize) < frames.len());
        match e["type"].as_str().unwrap() {
            "O" => open.push(frame),
            "C" => assert_eq!(open.pop(), Some(frame), "{}: close of a frame not innermost", p["name"]),
            t => panic!("event type {t}"),
        }
    }
    assert!(open.is_empty(), "{}: frames left open", p["name"]);
    assert_eq!(last, end, "{}: the last close is at endValue", p["name"]);
    (weights, order)
}

/// The default speedscope layout: an evented profile per thread (and event), valid against
/// speedscope's schema, events in time order and properly nested, each thread's stacks weighing
/// what `perfdata folded --tid` weighs them (per event with several), in the order the samples
/// came (the Chrome trace's samples of the thread, by time).
#[test]
fn speedscope_threads_in_time_order_weigh_what_folded_weighs() {
    let schema = speedscope_schema();
    let cases: [(&str, Vec<&str>, &[&str]); 4] = [
        ("fp.data", vec![], &[]),
        ("dwarf.data", vec!["--compat", "perf-script-py"], &[]),
        ("sysw.data", vec![], &[]),
        ("multi-g.data", vec![], &["cpu-clock", "page-faults/period=20/"]),
    ];
    for (name, extra, events) in cases {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let mut args = vec!["export", "--format", "speedscope", f, "--tid"];
        args.extend(&extra);
        let (ok, out, err) = run(&args);
        assert!(ok, "{err}");
        let d: serde_json::Value = serde_json::from_str(&out).unwrap();
        validate(&schema, &d).unwrap_or_else(|e| panic!("{name}: {e}"));
        let frames = d["shared"]["frames"].as_array().unwrap();
        let profiles = d["profiles"].as_array().unwrap();
        assert!(d["activeProfileIndex"].as_u64().unwrap() < profiles.len() as u64);
        // event ("" with one) → folded stack → weight.
        let mut got: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut seen = std::collections::BTreeSet::new();
        for p in profiles {
            // `comm pid/tid`, then ` event` with several events.
            let pname = p["name"].as_str().unwrap();
            let (thread, event) = if events.is_empty() { (pname, "") } else { pname.rsplit_once(' ').unwrap() };
            assert!(seen.insert(pname.to_string()), "{name}: two profiles {pname}");
            let (comm, ids) = thread.rsplit_once(' ').unwrap();
            assert!(ids.split_once('/').is_some_and(|(p, t)| p.parse::<u32>().is_ok() && t.parse::<u32>().is_ok()));
            let root = format!("{comm}-{ids}");
            let (weights, _) = evented_stacks(p, frames);
            for (stack, w) in weights {
                let mut full = stack;
                if full.first() != Some(&root) {
                    full.insert(0, root.clone());
                }
                *got.entry(event.to_string()).or_default().entry(full.join(";")).or_default() += w;
            }
        }
        let fold = |event: Option<&str>| {
            let mut a = vec!["folded", f, "--tid"];
            a.extend(&extra);
            if let Some(e) = event {
                a.extend(["--event-filter", e]);
            }
            let mut m = folded(&a);
            m.retain(|_, w| *w > 0);
            m
        };
        if events.is_empty() {
            assert_eq!(got.len(), 1, "{name}");
            assert_eq!(got[""], fold(None), "{name}");
        } else {
            assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), events, "{name}");
            for e in events {
                assert_eq!(got[*e], fold(Some(e)), "{name} {e}");
            }
        }
    }
    // Time order: each thread's stacks change as its samples in the Chrome trace do.
    let f = testdata("fp.data");
    let f = f.to_str().unwrap();
    let (ok, out, err) = run(&["export", "--format", "speedscope", f]);
    assert!(ok, "{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    let frames = d["shared"]["frames"].as_array().unwrap();
    let (ok, trace, err) = run(&["export", "--format", "chrome-trace", f]);
    assert!(ok, "{err}");
    let trace: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let sf = trace["stackFrames"].as_object().unwrap();
    // (tid, comm) → its samples' (time, stack).
    type Samples = Vec<(f64, Vec<String>)>;
    let mut by_thread: BTreeMap<(u64, String), Samples> = BTreeMap::new();
    for e in trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "i") {
        let Some(mut id) = e["sf"].as_u64().map(|i| i.to_string()) else { continue };
        let mut stack = Vec::new();
        loop {
            let fr = &sf[&id];
            stack.push(fr["name"].as_str().unwrap().to_string());
            match fr["parent"].as_str() {
                Some(p) => id = p.to_string(),
                None => break,
            }
        }
        stack.reverse();
        let comm = stack.remove(0); // the profile's name, not a frame
        let thread = (e["tid"].as_u64().unwrap(), comm);
        by_thread.entry(thread).or_default().push((e["ts"].as_f64().unwrap(), stack));
    }
    let profiles = d["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), by_thread.len());
    for p in profiles {
        let (comm, ids) = p["name"].as_str().unwrap().rsplit_once(' ').unwrap();
        let tid: u64 = ids.rsplit_once('/').unwrap().1.parse().unwrap();
        let mut samples = by_thread.remove(&(tid, comm.to_string())).unwrap();
        samples.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut expected: Vec<Vec<String>> = samples.into_iter().map(|s| s.1).collect();
        expected.dedup();
        let (_, order) = evented_stacks(p, frames);
        assert_eq!(order, expected, "{}", p["name"]);
    }
}

/// A recording without samples to show is an error naming the file, with no output left.
#[test]
fn speedscope_of_a_recording_without_stacks_is_an_error() {
    let dir = std::env::temp_dir().join(format!("perfdata-export-nostacks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.json");
    let f = testdata("sched.data");
    let (ok, stdout, err) =
        run(&["export", "--format", "speedscope", f.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!ok && stdout.is_empty());
    assert!(
        err.contains(&format!(
            "no samples in {}: speedscope shows sampled stacks; record with perf record -g",
            f.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no file left");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Chrome's `stackFrames`: every sample's `sf` is an entry, and the entries' parent chain spells
/// the sample's folded stack: the samples' stacks weigh what `perfdata folded --weight samples`
/// counts.
#[test]
fn chrome_trace_stack_frames_spell_the_folded_stacks() {
    for (name, extra) in [("fp.data", vec![]), ("dwarf.data", vec!["--tid"]), ("multi-g.data", vec!["--all-events"])] {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let mut args = vec!["export", "--format", "chrome-trace", f];
        args.extend(&extra);
        let (ok, out, err) = run(&args);
        assert!(ok, "{err}");
        let d: serde_json::Value = serde_json::from_str(&out).unwrap();
        let sf = d["stackFrames"].as_object().unwrap();
        for (id, fr) in sf {
            assert!(fr["name"].is_string() && fr["category"].is_string(), "{name} {id}");
            if let Some(p) = fr.get("parent") {
                let p = p.as_str().unwrap();
                assert!(sf.contains_key(p), "{name}: parent {p} of {id}");
                assert!(p.parse::<u64>().unwrap() < id.parse::<u64>().unwrap(), "{name}: parents come first");
            }
        }
        let mut got: BTreeMap<String, u64> = BTreeMap::new();
        for e in d["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "i") {
            let Some(id) = e["sf"].as_u64() else { continue };
            let mut id = id.to_string();
            let mut stack = Vec::new();
            loop {
                let fr = sf.get(&id).unwrap_or_else(|| panic!("{name}: sf {id} not in stackFrames"));
                stack.push(fr["name"].as_str().unwrap());
                match fr["parent"].as_str() {
                    Some(p) => id = p.to_string(),
                    None => break,
                }
            }
            assert_eq!(e["name"], stack[0], "{name}: the event is named by its leaf");
            stack.reverse();
            *got.entry(stack.join(";")).or_default() += 1;
        }
        let mut args = vec!["folded", f, "--weight", "samples"];
        args.extend(&extra);
        assert_eq!(got, folded(&args), "{name}");
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
/// recordings and, with several events, per event (every event by default, as with
/// `--all-events`; one with `--event-filter`).
#[test]
fn pprof_opens_in_go_tool_pprof_with_folded_weights() {
    let dir = std::env::temp_dir().join(format!("perfdata-export-pprof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sym = symbol_options();
    let sym: Vec<&str> = sym.iter().map(String::as_str).collect();
    let cases: [(&str, Vec<&str>); 7] = [
        ("fp.data", vec![]),
        ("dwarf.data", vec![]),
        ("dwarf.data", vec!["--no-inline", "--no-tidy"]),
        ("sysw.data", vec!["--tid"]),
        ("multi-g.data", vec![]),
        ("multi-g.data", vec!["--all-events"]),
        ("multi-g.data", vec!["--event-filter", "page-faults/period=20/"]),
    ];
    for (case, (name, extra)) in cases.into_iter().enumerate() {
        let f = testdata(name);
        let f = f.to_str().unwrap();
        let out = dir.join(format!("{case}-{name}.pb.gz"));
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
        if name != "sysw.data" {
            // The recorded program's mapping is the first, pprof's `File:`.
            assert!(text.contains("\nMappings\n1: ") && text.contains(" /work/main/testdata/bin/spin "), "{text}");
        }
        if name == "multi-g.data" && extra.is_empty() {
            // Both events and their fixed periods (-c): the first one's is the profile's.
            assert!(text.contains("PeriodType: cpu-clock nanoseconds\nPeriod: 200000\n"), "{text}");
        }
        if name == "multi-g.data" && !extra.is_empty() && extra[0] == "--event-filter" {
            assert_eq!(raw.0[1..], ["page-faults/period=20//count"], "{name}");
            assert!(text.contains("PeriodType: page-faults/period=20/ count\nPeriod: 20\n"), "{text}");
            assert_eq!(pprof_stacks(&raw, 1, tid), fold(&["--weight", "period"]), "{name} periods");
            assert_eq!(pprof_stacks(&raw, 0, tid), fold(&["--weight", "samples"]), "{name} samples");
            continue;
        }
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
            let mut args = vec!["folded", f, "--all-events", "--weight", "samples"];
            args.extend(&sym);
            assert_eq!(pprof_stacks(&raw, 0, tid), folded(&args), "{name} samples");
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
    let fp = dir.join("0-fp.data.pb.gz");
    let top = go_pprof(&["-top", fp.to_str().unwrap()]).unwrap();
    assert!(top.starts_with("File: spin\n") && top.contains("Type: cpu-clock\n"), "{top}");
    let out = dir.join("3-sysw.data.pb.gz");
    let out = out.to_str().unwrap();
    let top = go_pprof(&["-top", out]).unwrap();
    assert!(top.contains("flat%") && top.contains("Type: cpu-clock"), "{top}");
    // Frequency mode (-F 999): the mean period, about 1 s / 999.
    let raw = go_pprof(&["-raw", out]).unwrap();
    assert!(raw.contains("PeriodType: cpu-clock:ppp nanoseconds\nPeriod: 10010"), "{raw}");
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
