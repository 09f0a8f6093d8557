//! The latency heat map's SVG read back, on latencies shaped like a real block device's: a bulk,
//! a second band an order of magnitude slower, and a few outliers far above both (the shape that
//! made a linear axis up to the largest latency put 99 % of the points in its bottom row).

use perfdata_analysis::latency::heatmap::{Heatmap, HeatmapOptions};

/// 3000 points over 3 s: 90 % at 40..=199 µs, the rest at 300..=499 µs, and two outliers at
/// 2 ms and 4.558 ms (a small deterministic generator: no dependency, the same points every run).
fn points() -> Vec<(u64, u64)> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut pts: Vec<(u64, u64)> = (0..3000u64)
        .map(|i| {
            let lat_us = if next() % 10 < 9 { 40 + next() % 160 } else { 300 + next() % 200 };
            (10_000_000_000 + i * 1_000_000, lat_us * 1000)
        })
        .collect();
    pts[1000].1 = 2_000_000;
    pts[2000].1 = 4_558_000;
    pts
}

fn p999(points: &[(u64, u64)]) -> u64 {
    let mut v: Vec<u64> = points.iter().map(|p| p.1).collect();
    v.sort_unstable();
    v[(v.len() * 999).div_ceil(1000) - 1]
}

/// The texts of `<text class="CLASS" …>TEXT</text>`.
fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let tag = format!("<text class=\"{class}\"");
    svg.split(tag.as_str()).skip(1).map(|t| t.split_once('>').unwrap().1.split_once("</text>").unwrap().0).collect()
}

/// "200 µs", "1.5 ms", "0" → ns.
fn ns(label: &str) -> u64 {
    if label == "0" {
        return 0;
    }
    let (num, unit) = label.split_once(' ').unwrap();
    let scale = match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => panic!("unit {u:?}"),
    };
    (num.parse::<f64>().unwrap() * scale).round() as u64
}

/// (latency range, count) of every tooltip.
fn tooltips(svg: &str) -> Vec<(String, u64)> {
    svg.split("<title>")
        .skip(1)
        .map(|t| {
            let (rest, n) = t.split_once("</title>").unwrap().0.rsplit_once(", count ").unwrap();
            (rest.split_once(", latency ").unwrap().1.to_string(), n.parse().unwrap())
        })
        .collect()
}

#[test]
fn by_default_the_bulk_fills_the_axis_and_the_outliers_get_a_row() {
    let pts = points();
    let p999 = p999(&pts);
    let max = pts.iter().map(|p| p.1).max().unwrap();
    assert!(p999 < max);
    let opts = HeatmapOptions { what: "I/Os".into(), ..Default::default() };
    let map = Heatmap::new(&pts, &opts);
    let svg = map.svg(&opts);
    assert_eq!(map.row_edges_ns.last(), Some(&p999));
    // Ticks: 0 and multiples of a 1-2-5 step up to at most p99.9, each with a unit.
    let ticks: Vec<u64> = texts(&svg, "lat-tick").iter().map(|t| ns(t)).collect();
    assert_eq!(ticks[0], 0);
    let step = ticks[1];
    let mantissa = (0..19).map(|k| 10u64.pow(k)).find(|p| step.is_multiple_of(*p) && step / p < 10).map(|p| step / p);
    assert!(matches!(mantissa, Some(1 | 2 | 5)), "{ticks:?}");
    assert!(ticks.iter().enumerate().all(|(i, &t)| t == i as u64 * step), "{ticks:?}");
    assert!(*ticks.last().unwrap() <= p999 && ticks.last().unwrap() + step > p999, "{ticks:?}");
    assert!(texts(&svg, "lat-tick").iter().skip(1).all(|t| t.ends_with("µs") || t.ends_with("ms")));
    // The outliers' row: every point above p99.9, labelled with the bound and the total.
    let above = pts.iter().filter(|p| p.1 > p999).count() as u64;
    assert!(above > 0);
    assert_eq!(texts(&svg, "above-label").len(), 1);
    assert!(ns(texts(&svg, "above-label")[0].trim_start_matches("&gt; ")).abs_diff(p999) <= p999 / 200);
    assert!(texts(&svg, "above-total")[0].starts_with(&format!("{above} I/Os (")));
    let tips = tooltips(&svg);
    assert_eq!(tips.iter().filter(|t| t.0.starts_with("&gt;")).map(|t| t.1).sum::<u64>(), above);
    assert_eq!(tips.iter().map(|t| t.1).sum::<u64>(), pts.len() as u64);
    // The bulk is no longer one row: below 200 µs it spreads over 18 or more of the 50.
    let bulk_rows = map.row_edges_ns.windows(2).filter(|w| w[0] < 200_000).count();
    assert!(bulk_rows >= 18, "{bulk_rows}");
}

#[test]
fn a_log_axis_shows_both_bands_with_125_ticks() {
    let pts = points();
    let opts = HeatmapOptions { log: true, rows: 60, max_latency_ns: Some(5_000_000), ..Default::default() };
    let map = Heatmap::new(&pts, &opts);
    let svg = map.svg(&opts);
    let lo = *map.row_edges_ns.first().unwrap();
    assert_eq!(lo, 20_000); // the smallest, 40 µs, rounded down to 1, 2 or 5 × 10^k
    let ratio = (5_000_000f64 / lo as f64).powf(1.0 / 60.0);
    for (r, e) in map.row_edges_ns.iter().enumerate() {
        let want = lo as f64 * ratio.powi(r as i32);
        assert!((*e as f64 - want).abs() <= 0.5, "edge {r}: {e} vs {want}");
    }
    let ticks: Vec<u64> = texts(&svg, "lat-tick").iter().map(|t| ns(t)).collect();
    assert_eq!(ticks, [20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000]);
    assert!(!svg.contains("class=\"above"), "nothing is above 5 ms");
    assert_eq!(tooltips(&svg).iter().map(|t| t.1).sum::<u64>(), pts.len() as u64);
}
