//! Latency heat maps: the input of Brendan Gregg's `trace2heatmap.pl` and an SVG drawn here (time
//! columns × latency rows, colour by count, a tooltip per cell), like trace2heatmap's output.
//!
//! The latency axis ends at the 99.9th percentile by default, not at the single largest latency:
//! one slow I/O would otherwise squeeze the bulk into the bottom row. What lies above the axis is
//! counted per column in a labelled row on top (and what lies below an explicit minimum, in a row
//! at the bottom), so no point is dropped. Rows are equal in latency, or, with
//! [`HeatmapOptions::log`], equal in ratio (geometric bounds), which shows bands a decade apart.
//!
//! ```
//! use perfdata_analysis::latency::heatmap::{parse_latency, Heatmap, HeatmapOptions};
//! let points: Vec<(u64, u64)> = (0..2000u64).map(|i| (i * 1_000_000, 20_000 + i % 7 * 1000)).collect();
//! let opts = HeatmapOptions { max_latency_ns: Some(parse_latency("25us")?), rows: 10, ..Default::default() };
//! let map = Heatmap::new(&points, &opts);
//! assert_eq!(map.above.iter().sum::<u64>(), points.iter().filter(|p| p.1 > 25_000).count() as u64);
//! assert!(map.svg(&opts).contains("<title>"));
//! # Ok::<(), String>(())
//! ```

use crate::ticks::{nice_floor, nice_step};
use std::fmt::Write as _;

/// One `trace2heatmap.pl` input line: `completion_time_us latency_us`, both truncated from ns
/// (time is the sample's perf timestamp).
pub fn heatmap_line(out: &mut String, complete_ns: u64, latency_ns: u64) {
    let mut buf = itoa::Buffer::new();
    out.push_str(buf.format(complete_ns / 1000));
    out.push(' ');
    out.push_str(buf.format(latency_ns / 1000));
    out.push('\n');
}

/// A latency written with a unit, in ns: `500us` (or `500µs`), `2ms`, `1.5s`, `800ns`; a plain
/// number is µs (the unit of trace2heatmap's input and of bcc's histograms).
///
/// ```
/// use perfdata_analysis::latency::heatmap::parse_latency;
/// assert_eq!(parse_latency("500us"), Ok(500_000));
/// assert_eq!(parse_latency("1.5s"), Ok(1_500_000_000));
/// assert_eq!(parse_latency("250"), Ok(250_000));
/// assert!(parse_latency("fast").is_err());
/// ```
pub fn parse_latency(s: &str) -> Result<u64, String> {
    let bad = || format!("{s:?} is not a latency: a number with a unit ns, us, ms or s (a plain number is µs)");
    let t = s.trim();
    let split = t.find(|c: char| c.is_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: f64 = match unit.trim() {
        "ns" => 1.0,
        "" | "us" | "µs" | "μs" | "usecs" => 1e3,
        "ms" | "msecs" => 1e6,
        "s" | "sec" | "secs" => 1e9,
        _ => return Err(bad()),
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    let ns = (v * scale).round();
    // u64::MAX as f64 rounds up to 2^64, itself out of range: stay strictly below it.
    if !ns.is_finite() || ns < 0.0 || ns >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(ns as u64)
}

/// How the SVG heat map is laid out.
#[derive(Clone, Debug)]
pub struct HeatmapOptions {
    /// Title at the top.
    pub title: String,
    /// What one point is, plural, for the labels (`"I/Os"`, `"wakeups"`).
    pub what: String,
    /// Latency rows (trace2heatmap's default: 50), 1 to 1000.
    pub rows: u32,
    /// Time columns at most (the column width is rounded up to 1, 2 or 5 × 10^k ns).
    pub max_columns: u32,
    /// Column width in ns; `None` chooses one from the time range and `max_columns`.
    pub column_ns: Option<u64>,
    /// Bottom of the latency axis, ns. `None`: 0, or with `log` the smallest latency rounded down
    /// to 1, 2 or 5 × 10^k. Points below it are counted in a row under the axis.
    pub min_latency_ns: Option<u64>,
    /// Top of the latency axis, ns. `None`: the 99.9th percentile (nearest rank). Points above
    /// it are counted in a row over the axis.
    pub max_latency_ns: Option<u64>,
    /// Logarithmic latency axis: row bounds in geometric progression.
    pub log: bool,
    /// Width of the picture in pixels (the plot fills what the labels leave).
    pub width: u32,
    /// Height of the picture in pixels.
    pub height: u32,
}

impl Default for HeatmapOptions {
    /// 50 rows, at most 100 columns, 1000 × 500 pixels: a full-width Jupyter cell (about 1000 px
    /// of a 1920-px screen) at a height that leaves the cell's code in view, with cells of about
    /// 8 × 7 px, trace2heatmap's size.
    fn default() -> Self {
        HeatmapOptions {
            title: "Latency Heat Map".into(),
            what: "events".into(),
            rows: 50,
            max_columns: 100,
            column_ns: None,
            min_latency_ns: None,
            max_latency_ns: None,
            log: false,
            width: 1000,
            height: 500,
        }
    }
}

/// Counts per (column, row) cell, built from `(time_ns, latency_ns)` points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heatmap {
    /// Time of column 0's left edge (the earliest point).
    pub origin_ns: u64,
    /// Column width, ns.
    pub column_ns: u64,
    /// Columns.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Row bounds, ns, `rows + 1` of them, ascending: row `r` holds latencies in
    /// `row_edges_ns[r] ..= row_edges_ns[r + 1]` (a latency on a bound goes to the upper row,
    /// the axis top to the top row). The first is the axis bottom, the last the axis top.
    pub row_edges_ns: Vec<u64>,
    /// Whether the rows are geometric (a logarithmic axis).
    pub log: bool,
    /// Counts, column-major: `counts[column * rows + row]`.
    pub counts: Vec<u64>,
    /// Per column, the points above the axis top.
    pub above: Vec<u64>,
    /// Per column, the points below the axis bottom.
    pub below: Vec<u64>,
    /// All points.
    pub total: u64,
    /// The largest latency, ns.
    pub max_seen_ns: u64,
    /// The 99.9th percentile latency (nearest rank), ns.
    pub p999_ns: u64,
}

/// `a * b / c` without overflow (`c` > 0), saturating at `u64::MAX`.
fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    let v = u128::from(a) * u128::from(b) / u128::from(c.max(1));
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// The most columns a heat map gets, whatever `column_ns` asks for (memory: columns × rows).
const MAX_COLUMNS: u64 = 2000;

impl Heatmap {
    /// Bin `points` (`(time_ns, latency_ns)`, in any order) into columns from the earliest time
    /// and rows from the axis bottom to its top (see [`HeatmapOptions`] for the defaults).
    pub fn new(points: &[(u64, u64)], opts: &HeatmapOptions) -> Heatmap {
        let origin = points.iter().map(|p| p.0).min().unwrap_or(0);
        let last = points.iter().map(|p| p.0).max().unwrap_or(origin);
        let mut lat: Vec<u64> = points.iter().map(|p| p.1).collect();
        let p = super::hist::Percentiles::from_values(&mut lat);
        drop(lat);
        let rows = opts.rows.clamp(1, 1000);
        let span = last.saturating_sub(origin);
        let max_columns = u64::from(opts.max_columns.clamp(1, MAX_COLUMNS as u32));
        let auto = nice_step(span / max_columns + 1).max(1);
        let mut column_ns = opts.column_ns.filter(|&c| c > 0).unwrap_or(auto);
        if span / column_ns >= MAX_COLUMNS {
            column_ns = nice_step(span / MAX_COLUMNS + 1);
        }
        let columns = (span / column_ns + 1).min(MAX_COLUMNS) as u32;

        let lo = match opts.min_latency_ns {
            Some(v) => v,
            None if opts.log => nice_floor(p.min),
            None => 0,
        };
        let lo = if opts.log { lo.max(1) } else { lo };
        let hi = opts.max_latency_ns.unwrap_or(if points.is_empty() { 1000 } else { p.p999 });
        // At least a ns per row on a linear axis, and top above bottom on a log one.
        let hi = hi.max(lo.saturating_add(if opts.log { 1 } else { u64::from(rows) }));
        let row_edges_ns = row_edges(lo, hi, rows, opts.log);

        let ncol = columns as usize;
        let mut counts = vec![0u64; ncol * rows as usize];
        let (mut above, mut below) = (vec![0u64; ncol], vec![0u64; ncol]);
        for &(t, l) in points {
            let c = ((t.saturating_sub(origin) / column_ns) as usize).min(ncol.saturating_sub(1));
            let cell = if l > hi {
                above.get_mut(c)
            } else if l < lo {
                below.get_mut(c)
            } else {
                // The last bound at or below l; the axis top belongs to the top row.
                let r = row_edges_ns.partition_point(|&e| e <= l).saturating_sub(1).min(rows as usize - 1);
                counts.get_mut(c * rows as usize + r)
            };
            if let Some(n) = cell {
                *n = n.saturating_add(1);
            }
        }
        Heatmap {
            origin_ns: origin,
            column_ns,
            columns,
            rows,
            row_edges_ns,
            log: opts.log,
            counts,
            above,
            below,
            total: points.len() as u64,
            max_seen_ns: p.max,
            p999_ns: p.p999,
        }
    }

    /// The count of one cell (0 outside the map).
    pub fn count(&self, column: u32, row: u32) -> u64 {
        if row >= self.rows {
            return 0;
        }
        let i = column as usize * self.rows as usize + row as usize;
        self.counts.get(i).copied().unwrap_or(0)
    }

    fn edge(&self, i: u32) -> u64 {
        self.row_edges_ns.get(i as usize).copied().unwrap_or(0)
    }

    /// The heat map as a standalone SVG of `opts.width` × `opts.height` pixels: a cell per
    /// (column, row) coloured from pale yellow (1) to dark red (the largest count), white when
    /// empty, each with a `<title>` tooltip (time range, latency range, count); the outliers'
    /// rows in grey-blue, labelled with their bound and total; latency ticks at 1, 2, 5 × 10^k
    /// with units, time ticks in seconds from the earliest point.
    pub fn svg(&self, opts: &HeatmapOptions) -> String {
        let width = f64::from(opts.width.clamp(300, 20_000));
        let height = f64::from(opts.height.clamp(200, 20_000));
        let (n_above, n_below) = (self.above.iter().sum::<u64>(), self.below.iter().sum::<u64>());
        let (left, right, top, bottom) = (84.0, 112.0, 58.0, 48.0);
        let extra_h = 16.0;
        let gap = 8.0;
        let above_h = if n_above > 0 { extra_h + gap } else { 0.0 };
        let below_h = if n_below > 0 { extra_h + gap } else { 0.0 };
        let plot_w = (width - left - right).max(50.0);
        let plot_top = top + above_h;
        let plot_h = (height - plot_top - bottom - below_h).max(40.0);
        let plot_bottom = plot_top + plot_h;
        let cw = plot_w / f64::from(self.columns.max(1));
        let ch = plot_h / f64::from(self.rows.max(1));
        let max = self.counts.iter().chain(&self.above).chain(&self.below).copied().max().unwrap_or(0);
        let (lo, hi) = (self.edge(0), self.edge(self.rows));
        let what = xml_escape(&opts.what);

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Verdana, DejaVu Sans, sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="22" text-anchor="middle" font-size="16">{}</text>"#,
            width / 2.0,
            xml_escape(&opts.title)
        );
        let axis_note = if opts.max_latency_ns.is_some() {
            String::new()
        } else if self.p999_ns >= self.max_seen_ns {
            " (p99.9 = max)".to_string()
        } else {
            " (p99.9)".to_string()
        };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="40" text-anchor="middle" fill="#555">{} {what} · max {} · axis {} – {}{axis_note}{} · columns of {}</text>"##,
            width / 2.0,
            self.total,
            duration(self.max_seen_ns),
            duration(lo),
            duration(hi),
            if self.log { ", log scale" } else { "" },
            duration(self.column_ns),
        );

        // The plot: a white field, cells, then the frame over them.
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{plot_top}" width="{plot_w:.1}" height="{plot_h:.1}" fill="#ffffff"/>"##
        );
        let _ = writeln!(
            s,
            r#"<g class="cells" data-rows="{}" data-columns="{}" data-min-latency-ns="{lo}" data-max-latency-ns="{hi}" shape-rendering="crispEdges">"#,
            self.rows, self.columns
        );
        for c in 0..self.columns {
            let x = left + f64::from(c) * cw;
            let t0 = u64::from(c).saturating_mul(self.column_ns);
            let t1 = t0.saturating_add(self.column_ns);
            let d = decimals(self.column_ns);
            let time = format!("time {} .. {} s", seconds(t0, d), seconds(t1, d));
            for r in 0..self.rows {
                let n = self.count(c, r);
                if n == 0 {
                    continue;
                }
                let y = plot_bottom - f64::from(r + 1) * ch;
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.2}" y="{y:.2}" width="{:.2}" height="{:.2}" fill="{}"><title>{time}, latency {} .. {}, count {n}</title></rect>"#,
                    cw + 0.3,
                    ch + 0.3,
                    colour(n, max),
                    duration(self.edge(r)),
                    duration(self.edge(r + 1)),
                );
            }
            for (n, y, range, class) in [
                (self.above.get(c as usize).copied().unwrap_or(0), top, format!("&gt; {}", duration(hi)), "above"),
                (
                    self.below.get(c as usize).copied().unwrap_or(0),
                    plot_bottom + gap,
                    format!("&lt; {}", duration(lo)),
                    "below",
                ),
            ] {
                if n > 0 {
                    let _ = writeln!(
                        s,
                        r#"<rect class="{class}" x="{x:.2}" y="{y:.2}" width="{:.2}" height="{extra_h}" fill="{}"><title>{time}, latency {range}, count {n}</title></rect>"#,
                        cw + 0.3,
                        outlier_colour(n, max),
                    );
                }
            }
        }
        s.push_str("</g>\n");
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{plot_top}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#888"/>"##
        );
        // The outliers' rows: a frame, the bound on the left, the total on the right.
        for (n, y, label, class) in [
            (n_above, top, format!("&gt; {}", duration(hi)), "above"),
            (n_below, plot_bottom + gap, format!("&lt; {}", duration(lo)), "below"),
        ] {
            if n == 0 {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<rect x="{left}" y="{y}" width="{plot_w:.1}" height="{extra_h}" fill="none" stroke="#888" stroke-dasharray="3,2"/>"##
            );
            let _ = writeln!(
                s,
                r#"<text class="{class}-label" x="{:.1}" y="{:.1}" text-anchor="end" font-weight="bold">{label}</text>"#,
                left - 6.0,
                y + 12.0
            );
            let pct = n as f64 * 100.0 / self.total.max(1) as f64;
            let _ = writeln!(
                s,
                r#"<text class="{class}-total" x="{:.1}" y="{:.1}">{n} {what} ({})</text>"#,
                left + plot_w + 6.0,
                y + 12.0,
                percent(pct)
            );
        }

        // Latency ticks with grid lines.
        for v in self.latency_ticks() {
            let y = plot_bottom - self.latency_fraction(v) * plot_h;
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{y:.1}" x2="{left}" y2="{y:.1}" stroke="#888"/><text class="lat-tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                left - 4.0,
                left - 6.0,
                y + 4.0,
                duration(v)
            );
        }
        // Time ticks: 1, 2 or 5 × 10^k seconds, about 10 over the plot.
        let span = u64::from(self.columns).saturating_mul(self.column_ns);
        let step = nice_step(span / 10 + 1);
        let d = decimals(step);
        let axis_y = plot_bottom + below_h;
        let mut t = 0u64;
        while t <= span {
            let x = left + plot_w * (t as f64 / span.max(1) as f64);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{axis_y:.1}" x2="{x:.1}" y2="{:.1}" stroke="#888"/><text class="time-tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                axis_y + 4.0,
                axis_y + 16.0,
                seconds(t, d)
            );
            match t.checked_add(step) {
                Some(n) => t = n,
                None => break,
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time (s) from the first of the {what}, at {} s</text>"#,
            left + plot_w / 2.0,
            axis_y + 36.0,
            seconds(self.origin_ns, 6)
        );
        let mid = plot_top + plot_h / 2.0;
        let _ = writeln!(
            s,
            r#"<text x="18" y="{mid:.1}" text-anchor="middle" transform="rotate(-90 18 {mid:.1})">latency{}</text>"#,
            if self.log { " (log scale)" } else { "" }
        );

        // Colour legend: ten boxes from 1 to the largest count.
        let lx = left + plot_w + 24.0;
        let bh = (plot_h / 12.0).clamp(4.0, 16.0);
        for i in 0..10u32 {
            let n = (u64::from(i) + 1).saturating_mul(max) / 10;
            let y = plot_bottom - f64::from(i + 1) * bh;
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.1}" y="{y:.1}" width="14" height="{bh:.1}" fill="{}"/>"#,
                colour(n.max(1), max.max(1))
            );
        }
        let legend_top = plot_bottom - 10.0 * bh;
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, lx + 18.0, legend_top + 10.0, max.max(1));
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">1</text>"#, lx + 18.0, plot_bottom - 2.0);
        let _ = writeln!(s, r#"<text x="{lx:.1}" y="{:.1}">{what}</text>"#, legend_top - 20.0);
        let _ = writeln!(s, r#"<text x="{lx:.1}" y="{:.1}">per cell</text>"#, legend_top - 7.0);
        s.push_str("</svg>\n");
        s
    }

    /// Where `v` sits on the latency axis, 0 (bottom) to 1 (top).
    fn latency_fraction(&self, v: u64) -> f64 {
        let (lo, hi) = (self.edge(0), self.edge(self.rows));
        let f = if self.log {
            let (lo, hi) = (lo.max(1) as f64, hi.max(2) as f64);
            (v.max(1) as f64 / lo).ln() / (hi / lo).ln()
        } else {
            v.saturating_sub(lo) as f64 / hi.saturating_sub(lo).max(1) as f64
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Latency tick values, ns: multiples of a 1-2-5 step (5 to 9 over the axis), or on a log
    /// axis the 1, 2, 5 × 10^k inside it (only 10^k when those are many).
    fn latency_ticks(&self) -> Vec<u64> {
        let (lo, hi) = (self.edge(0), self.edge(self.rows));
        let mut ticks = Vec::new();
        if self.log {
            for mantissas in [&[1u64, 2, 5][..], &[1][..]] {
                ticks.clear();
                let mut p: u64 = 1;
                'decades: loop {
                    for &m in mantissas {
                        let Some(v) = p.checked_mul(m) else { break 'decades };
                        if v > hi {
                            break 'decades;
                        }
                        if v >= lo {
                            ticks.push(v);
                        }
                    }
                    match p.checked_mul(10) {
                        Some(q) => p = q,
                        None => break,
                    }
                }
                if ticks.len() <= 12 {
                    break;
                }
            }
            // A narrow axis (less than a 1-2-5 step wide): its ends.
            if ticks.len() < 2 {
                ticks = vec![lo, hi];
            }
        } else {
            let step = nice_step(hi.saturating_sub(lo) / 8).max(1);
            let mut v = lo.div_ceil(step).saturating_mul(step);
            while v <= hi {
                ticks.push(v);
                match v.checked_add(step) {
                    Some(n) => v = n,
                    None => break,
                }
            }
        }
        ticks
    }
}

/// `rows + 1` bounds from `lo` to `hi`: equal steps, or (`log`) a geometric progression, each
/// rounded to a ns and kept ascending.
fn row_edges(lo: u64, hi: u64, rows: u32, log: bool) -> Vec<u64> {
    let n = u64::from(rows);
    let mut edges: Vec<u64> = (0..=n)
        .map(|i| {
            if log {
                let ratio = hi as f64 / lo.max(1) as f64;
                let v = (lo.max(1) as f64 * ratio.powf(i as f64 / n as f64)).round();
                if v.is_finite() && v >= 0.0 && v < u64::MAX as f64 {
                    v as u64
                } else {
                    hi
                }
            } else {
                lo.saturating_add(mul_div(hi.saturating_sub(lo), i, n))
            }
        })
        .collect();
    // Exact ends; rounding never makes a bound fall below the one before.
    if let Some(f) = edges.first_mut() {
        *f = lo;
    }
    if let Some(l) = edges.last_mut() {
        *l = hi;
    }
    for i in 1..edges.len() {
        let prev = edges.get(i - 1).copied().unwrap_or(0);
        if let Some(e) = edges.get_mut(i) {
            *e = (*e).clamp(prev, hi);
        }
    }
    edges
}

/// Pale yellow (1) to dark red (`max`); a single point stays visible.
fn colour(n: u64, max: u64) -> String {
    let f = if max == 0 { 0.0 } else { (n as f64 / max as f64).clamp(0.0, 1.0) };
    let f = 0.12 + 0.88 * f;
    // (255, 235, 150) → (220, 90, 20) → (150, 0, 0): yellow, orange, dark red.
    let (a, b, t) = if f < 0.5 {
        ([255.0, 235.0, 150.0], [235.0, 110.0, 30.0], f / 0.5)
    } else {
        ([235.0, 110.0, 30.0], [150.0, 0.0, 0.0], (f - 0.5) / 0.5)
    };
    let lerp = |i: usize| {
        let (x, y) = (a.get(i).copied().unwrap_or(0.0), b.get(i).copied().unwrap_or(0.0));
        (x + (y - x) * t).round().clamp(0.0, 255.0) as u8
    };
    format!("#{:02x}{:02x}{:02x}", lerp(0), lerp(1), lerp(2))
}

/// Light to dark grey-blue for the outliers' rows, on the same count scale as the cells.
fn outlier_colour(n: u64, max: u64) -> String {
    let f = if max == 0 { 0.0 } else { (n as f64 / max as f64).clamp(0.0, 1.0) };
    let f = 0.3 + 0.7 * f;
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", lerp(200.0, 40.0), lerp(210.0, 60.0), lerp(230.0, 120.0))
}

/// A latency with its unit: `0`, `800 ns`, `20 µs`, `1.5 ms`, `2 s` (three significant decimals
/// at most, trailing zeros dropped).
fn duration(ns: u64) -> String {
    if ns == 0 {
        return "0".into();
    }
    let (div, unit) = match ns {
        0..1_000 => (1, "ns"),
        1_000..1_000_000 => (1_000, "µs"),
        1_000_000..1_000_000_000 => (1_000_000, "ms"),
        _ => (1_000_000_000, "s"),
    };
    let v = ns as f64 / div as f64;
    // Three decimals under 10 of the unit, one under 100, none above.
    let text = match v {
        ..10.0 => format!("{v:.3}"),
        ..100.0 => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    };
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    format!("{text} {unit}")
}

/// How many decimals of a second show a multiple of `step_ns` exactly (0 to 9).
fn decimals(step_ns: u64) -> usize {
    let mut d = 9;
    let mut s = step_ns;
    while d > 0 && s.is_multiple_of(10) && s > 0 {
        s /= 10;
        d -= 1;
    }
    d
}

/// ns as seconds with `d` decimals (truncated).
fn seconds(ns: u64, d: usize) -> String {
    let whole = ns / 1_000_000_000;
    if d == 0 {
        return format!("{whole}");
    }
    let frac = format!("{:09}", ns % 1_000_000_000);
    format!("{whole}.{}", frac.get(..d.min(9)).unwrap_or(""))
}

/// A share in percent, with a decimal under 10 %.
fn percent(p: f64) -> String {
    if p < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_truncate_ns() {
        let mut s = String::new();
        heatmap_line(&mut s, 2_809_939_444_999, 144_999);
        assert_eq!(s, "2809939444 144\n");
    }

    #[test]
    fn binning() {
        let opts = HeatmapOptions { rows: 4, column_ns: Some(10), max_latency_ns: Some(40), ..Default::default() };
        let h = Heatmap::new(&[(100, 0), (105, 40), (121, 20), (130, 39), (131, 41)], &opts);
        assert_eq!((h.origin_ns, h.columns, h.rows), (100, 4, 4));
        assert_eq!(h.row_edges_ns, [0, 10, 20, 30, 40]);
        assert_eq!(h.count(0, 0), 1);
        assert_eq!(h.count(0, 3), 1); // the axis top goes to the top row
        assert_eq!(h.count(2, 2), 1); // a bound goes to the row above it
        assert_eq!(h.count(3, 3), 1);
        assert_eq!(h.above, [0, 0, 0, 1]);
        assert_eq!(h.counts.iter().sum::<u64>(), 4);
        let svg = h.svg(&opts);
        assert_eq!(svg.matches("<title>").count(), 5);
        assert!(svg.contains("latency 30 ns .. 40 ns, count 1"), "{svg}");
        assert!(svg.contains("latency &gt; 40 ns, count 1"), "{svg}");
    }

    #[test]
    fn default_axis_ends_at_p999_and_counts_the_rest_above() {
        // 2000 points: 1998 at 10..=19 µs, two at 5 ms. p99.9 (rank 1998) is 19 µs.
        let mut points: Vec<(u64, u64)> = (0..1998u64).map(|i| (i * 1000, 10_000 + i % 10 * 1000)).collect();
        points.push((5000, 5_000_000));
        points.push((1_000_000, 5_000_000));
        let opts = HeatmapOptions::default();
        let h = Heatmap::new(&points, &opts);
        assert_eq!(h.p999_ns, 19_000);
        assert_eq!(h.row_edges_ns.last(), Some(&19_000));
        assert_eq!(h.row_edges_ns.first(), Some(&0));
        assert_eq!(h.above.iter().sum::<u64>(), 2);
        assert_eq!(h.counts.iter().sum::<u64>(), 1998);
        assert!(h.svg(&opts).contains(">&gt; 19 µs</text>"));
    }

    #[test]
    fn log_rows_are_geometric() {
        let opts = HeatmapOptions {
            log: true,
            rows: 30,
            min_latency_ns: Some(10_000),
            max_latency_ns: Some(10_000_000),
            ..Default::default()
        };
        let h = Heatmap::new(&[(0, 10_000), (0, 10_000_000), (0, 9_999), (0, 316_228)], &opts);
        assert_eq!(h.row_edges_ns.len(), 31);
        for r in 0..=30u32 {
            let want = 10_000.0 * 1000f64.powf(f64::from(r) / 30.0);
            let got = h.row_edges_ns[r as usize] as f64;
            assert!((got - want).abs() <= 0.5, "edge {r}: {got} vs {want}");
        }
        // 10^5.5 ns sits halfway up: row 15.
        assert_eq!(h.count(0, 15), 1);
        assert_eq!((h.count(0, 0), h.count(0, 29), h.below.iter().sum::<u64>()), (1, 1, 1));
        assert_eq!(
            h.latency_ticks(),
            [10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000]
        );
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let opts = HeatmapOptions { rows: 0, max_columns: 0, width: 0, height: 0, ..Default::default() };
        for pts in [&[][..], &[(5, 0)][..], &[(u64::MAX, u64::MAX), (0, 0)][..], &[(1, 1), (1, 1)][..]] {
            for log in [false, true] {
                let o = HeatmapOptions { log, ..opts.clone() };
                let h = Heatmap::new(pts, &o);
                assert_eq!(
                    h.counts.iter().sum::<u64>() + h.above.iter().sum::<u64>() + h.below.iter().sum::<u64>(),
                    pts.len() as u64
                );
                assert!(h.svg(&o).ends_with("</svg>\n"));
            }
        }
    }

    #[test]
    fn latencies_parse_with_units() {
        assert_eq!(parse_latency("500us"), Ok(500_000));
        assert_eq!(parse_latency("500 µs"), Ok(500_000));
        assert_eq!(parse_latency("2ms"), Ok(2_000_000));
        assert_eq!(parse_latency("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_latency("800ns"), Ok(800));
        assert_eq!(parse_latency("0.5"), Ok(500));
        for bad in ["", "ms", "-1ms", "1 parsec", "1e30s", "NaN"] {
            assert!(parse_latency(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn units_and_steps() {
        assert_eq!(
            [duration(0), duration(800), duration(20_000), duration(1_500_000), duration(2_000_000_000)],
            ["0", "800 ns", "20 µs", "1.5 ms", "2 s"]
        );
        assert_eq!([duration(1_234_567), duration(12_345_678), duration(410_000)], ["1.235 ms", "12.3 ms", "410 µs"]);
        assert_eq!([nice_step(0), nice_step(1), nice_step(3), nice_step(7), nice_step(11)], [1, 1, 5, 10, 20]);
        assert_eq!(nice_step(u64::MAX), u64::MAX);
        assert_eq!(
            [nice_floor(0), nice_floor(21_000), nice_floor(3045), nice_floor(u64::MAX)],
            [1, 20_000, 2000, 10_000_000_000_000_000_000]
        );
        assert_eq!([decimals(1_000_000_000), decimals(5_000_000), decimals(1)], [0, 3, 9]);
        assert_eq!(seconds(12_345_000_000, 2), "12.34");
    }
}
