//! `perfdata block latency --heatmap` and `perfdata sched wakeup-latency --heatmap`: the SVG read
//! back (axis range, tick labels, the outliers' row, rows, log rows, tooltips) against latencies
//! paired here, independently, from the fields `perf script` printed for the same recording
//! (`testdata/blockrw.data.trace`), or read from the CSV output for wakeups.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// `perfdata ARGS -o TMP` → the SVG written.
fn svg(args: &[&str]) -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("perfdata-heatmap-{}-{n}.svg", std::process::id()));
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-o", out.to_str().unwrap()]);
    let r = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(&all).output().unwrap();
    assert!(r.status.success(), "{args:?}: {}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    text
}

/// Issue→complete latencies (ns) of `blockrw.data`, keyed by dev and sector as perf script printed them.
fn block_latencies() -> Vec<u64> {
    let text = std::fs::read_to_string(testdata("blockrw.data.trace")).unwrap();
    let mut open: HashMap<(String, String), u64> = HashMap::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let (prefix, rest) = l.split_once(" block:").unwrap();
        let (secs, frac) = prefix.split_whitespace().last().unwrap().trim_end_matches(':').split_once('.').unwrap();
        let t = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
        let (event, fields) = rest.split_once(": ").unwrap();
        let dev = fields.split(' ').next().unwrap().to_string();
        let sector = fields.split_once(") ").unwrap().1.split(' ').next().unwrap().to_string();
        match event {
            "block_rq_issue" => {
                open.insert((dev, sector), t);
            }
            "block_rq_complete" => {
                if let Some(s) = open.remove(&(dev, sector)) {
                    out.push(t - s);
                }
            }
            _ => {}
        }
    }
    out
}

/// The nearest-rank 99.9th percentile.
fn p999(lat: &[u64]) -> u64 {
    let mut v = lat.to_vec();
    v.sort_unstable();
    v[(v.len() * 999).div_ceil(1000) - 1]
}

/// "20 µs", "1.5 ms", "0" → ns (as f64: labels are rounded).
fn parse_label(s: &str) -> f64 {
    if s == "0" {
        return 0.0;
    }
    let (num, unit) = s.split_once(' ').unwrap_or_else(|| panic!("no unit in {s:?}"));
    let scale = match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => panic!("unit {u:?} in {s:?}"),
    };
    num.parse::<f64>().unwrap() * scale
}

/// The texts of `<text class="CLASS" …>TEXT</text>`.
fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let tag = format!("<text class=\"{class}\"");
    svg.split(tag.as_str()).skip(1).map(|t| t.split_once('>').unwrap().1.split_once("</text>").unwrap().0).collect()
}

/// `data-NAME="…"` of the cells' group.
fn data(svg: &str, name: &str) -> u64 {
    let key = format!("data-{name}=\"");
    svg.split_once(key.as_str()).unwrap().1.split('"').next().unwrap().parse().unwrap()
}

/// Each tooltip: (latency range text, count).
fn tooltips(svg: &str) -> Vec<(String, u64)> {
    svg.split("<title>")
        .skip(1)
        .map(|t| {
            let t = t.split_once("</title>").unwrap().0;
            let (rest, n) = t.rsplit_once(", count ").unwrap();
            let (time, lat) = rest.split_once(", latency ").unwrap();
            assert!(time.starts_with("time ") && time.ends_with(" s"), "{t}");
            (lat.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// Is `v` 1, 2 or 5 × 10^k (ns)?
fn is_125(v: u64) -> bool {
    let mut m = v;
    while m >= 10 && m.is_multiple_of(10) {
        m /= 10;
    }
    v > 0 && matches!(m, 1 | 2 | 5)
}

/// Linear latency ticks: the same 1-2-5 step between each, every label with a unit, the ticks
/// inside `lo..=hi`; returns the tick values.
fn check_linear_ticks(svg: &str, lo: u64, hi: u64) -> Vec<u64> {
    let ticks: Vec<u64> = texts(svg, "lat-tick").iter().map(|l| parse_label(l).round() as u64).collect();
    assert!(ticks.len() >= 4, "{ticks:?}");
    let step = ticks[1] - ticks[0];
    assert!(is_125(step), "step {step} of {ticks:?}");
    for w in ticks.windows(2) {
        assert_eq!(w[1] - w[0], step, "{ticks:?}");
    }
    assert!(ticks.iter().all(|t| t % step == 0 && (lo..=hi).contains(t)), "{ticks:?} in {lo}..={hi}");
    // Every tick of that step inside the axis is there.
    assert!(ticks[0] < lo + step && *ticks.last().unwrap() + step > hi, "{ticks:?} in {lo}..={hi}");
    ticks
}

#[test]
fn default_axis_ends_at_p999_with_round_ticks_and_every_io_in_a_tooltip() {
    let lat = block_latencies();
    let file = testdata("blockrw.data");
    let s = svg(&["block", "latency", "--heatmap", file.to_str().unwrap()]);
    let (lo, hi) = (data(&s, "min-latency-ns"), data(&s, "max-latency-ns"));
    assert_eq!((lo, hi), (0, p999(&lat)));
    let ticks = check_linear_ticks(&s, lo, hi);
    assert!(*ticks.last().unwrap() <= p999(&lat));
    assert_eq!(data(&s, "rows"), 50);
    // Nothing is above the p99.9 of 459 I/Os (it is their maximum): no outliers' row.
    assert_eq!(lat.iter().filter(|&&l| l > hi).count(), 0);
    assert!(!s.contains("class=\"above"));
    let tips = tooltips(&s);
    assert_eq!(tips.iter().map(|t| t.1).sum::<u64>(), lat.len() as u64);
    // Time ticks: 0 then multiples of one 1-2-5 step, in seconds.
    let times: Vec<f64> = texts(&s, "time-tick").iter().map(|t| t.parse().unwrap()).collect();
    assert_eq!(times[0], 0.0);
    let step_ns = (times[1] * 1e9).round() as u64;
    assert!(is_125(step_ns) && times.len() >= 4, "{times:?}");
    for (i, t) in times.iter().enumerate() {
        assert!((t * 1e9 - (i as u64 * step_ns) as f64).abs() < 1.0, "{times:?}");
    }
}

#[test]
fn max_lat_counts_the_outliers_in_a_labelled_row() {
    let lat = block_latencies();
    let file = testdata("blockrw.data");
    let p = file.to_str().unwrap();
    for (arg, ns) in [("100us", 100_000u64), ("0.1ms", 100_000), ("250", 250_000)] {
        let s = svg(&["block", "latency", "--heatmap", "--max-lat", arg, p]);
        assert_eq!(data(&s, "max-latency-ns"), ns);
        let above = lat.iter().filter(|&&l| l > ns).count() as u64;
        assert!(above > 0, "the recording has I/Os above {arg}");
        let label = texts(&s, "above-label");
        assert_eq!(label.len(), 1);
        assert_eq!(parse_label(label[0].trim_start_matches("&gt; ")), ns as f64);
        let total = texts(&s, "above-total");
        assert!(total[0].starts_with(&format!("{above} I/Os (")), "{total:?}");
        let tips = tooltips(&s);
        let in_row: u64 = tips.iter().filter(|t| t.0.starts_with("&gt; ")).map(|t| t.1).sum();
        assert_eq!(in_row, above);
        assert_eq!(tips.iter().map(|t| t.1).sum::<u64>(), lat.len() as u64);
        // The axis now ends above its p99.9 (the I/Os' maximum here is above `ns`... and the ticks
        // follow the new top).
        let ticks = check_linear_ticks(&s, 0, ns);
        assert!(*ticks.last().unwrap() <= ns);
    }
    // Above p99.9: the top tick goes past it.
    let s = svg(&["block", "latency", "--heatmap", "--max-lat", "1ms", p]);
    let ticks = check_linear_ticks(&s, 0, 1_000_000);
    assert!(*ticks.last().unwrap() > p999(&lat));
    assert!(!s.contains("class=\"above"));
}

#[test]
fn rows_and_min_lat_shape_the_rows() {
    let lat = block_latencies();
    let file = testdata("blockrw.data");
    let (lo, hi, rows) = (25_000u64, 300_000u64, 11u64);
    let s = svg(&[
        "block",
        "latency",
        "--heatmap",
        "--min-lat",
        "25us",
        "--max-lat",
        "300us",
        "--rows",
        "11",
        file.to_str().unwrap(),
    ]);
    assert_eq!((data(&s, "rows"), data(&s, "min-latency-ns"), data(&s, "max-latency-ns")), (rows, lo, hi));
    let step = (hi - lo) as f64 / rows as f64;
    let mut seen_rows = std::collections::BTreeSet::new();
    for (range, _) in tooltips(&s).iter().filter(|t| t.0.contains(" .. ")) {
        let (a, b) = range.split_once(" .. ").unwrap();
        let (a, b) = (parse_label(a), parse_label(b));
        // Each row is (hi - lo) / rows high and starts on a multiple of that from lo.
        assert!(((b - a) - step).abs() <= step * 0.02 + 600.0, "{range}");
        let r = (a - lo as f64) / step;
        assert!((r - r.round()).abs() < 0.02, "{range}: row {r}");
        seen_rows.insert(r.round() as i64);
    }
    assert!(seen_rows.len() > 3 && seen_rows.iter().all(|r| (0..rows as i64).contains(r)), "{seen_rows:?}");
    let below = lat.iter().filter(|&&l| l < lo).count() as u64;
    let above = lat.iter().filter(|&&l| l > hi).count() as u64;
    assert!(below > 0 && above > 0);
    let tips = tooltips(&s);
    assert_eq!(tips.iter().filter(|t| t.0.starts_with("&lt; ")).map(|t| t.1).sum::<u64>(), below);
    assert_eq!(tips.iter().filter(|t| t.0.starts_with("&gt; ")).map(|t| t.1).sum::<u64>(), above);
    assert!(texts(&s, "below-total")[0].starts_with(&format!("{below} I/Os")));
    // --min-lat not below --max-lat, a bad unit, --rows 0: errors, not pictures.
    for bad in [&["--min-lat", "2ms", "--max-lat", "1ms"][..], &["--max-lat", "5 parsecs"], &["--rows", "0"]] {
        let mut args = vec!["block", "latency", "--heatmap"];
        args.extend(bad);
        args.push(file.to_str().unwrap());
        let r = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(&args).output().unwrap();
        assert!(!r.status.success(), "{bad:?}");
    }
}

#[test]
fn log_axis_has_geometric_rows_and_125_ticks() {
    // Wakeup latencies from the CSV output (tid,comm,cpu,wake_ns,run_ns,delay_ns,preempted).
    let file = testdata("sched-mix.data");
    let p = file.to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(["sched", "wakeup-latency", "--format", "csv", p])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let lat: Vec<u64> = csv.lines().skip(1).map(|l| l.rsplit(',').nth(1).unwrap().parse().unwrap()).collect();
    let min = *lat.iter().min().unwrap();
    let s = svg(&["sched", "wakeup-latency", "--heatmap", "--log", "--rows", "40", p]);
    let (lo, hi) = (data(&s, "min-latency-ns"), data(&s, "max-latency-ns"));
    // The axis bottom: the smallest wait rounded down to 1, 2 or 5 × 10^k; the top: p99.9.
    assert!(is_125(lo) && lo <= min && min < lo * 5 / 2 + 1, "{lo} for {min}");
    assert_eq!((hi, data(&s, "rows")), (p999(&lat), 40));
    let ratio = (hi as f64 / lo as f64).powf(1.0 / 40.0);
    let tips = tooltips(&s);
    assert_eq!(tips.iter().map(|t| t.1).sum::<u64>(), lat.len() as u64);
    let cells: Vec<_> = tips.iter().filter(|t| t.0.contains(" .. ")).collect();
    assert!(cells.len() > 40, "{}", cells.len());
    for (range, _) in cells {
        let (a, b) = range.split_once(" .. ").unwrap();
        let (a, b) = (parse_label(a), parse_label(b));
        // Every row is the same ratio high, and starts on a power of that ratio from lo.
        assert!((b / a / ratio - 1.0).abs() < 0.015, "{range}: {} vs {ratio}", b / a);
        let r = (a / lo as f64).ln() / ratio.ln();
        assert!((r - r.round()).abs() < 0.1, "{range}: row {r}");
    }
    let ticks: Vec<u64> = texts(&s, "lat-tick").iter().map(|l| parse_label(l).round() as u64).collect();
    assert!(ticks.len() >= 3 && ticks.iter().all(|&t| is_125(t) && (lo..=hi).contains(&t)), "{ticks:?}");
    assert!(ticks.windows(2).all(|w| w[0] < w[1]));
}
