//! Latency heatmaps: the input of Brendan Gregg's `trace2heatmap.pl` and an SVG drawn here (time
//! columns × latency rows, colour by count, a tooltip per cell), like trace2heatmap's output.

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

/// How the SVG heatmap is laid out.
#[derive(Clone, Debug)]
pub struct HeatmapOptions {
    /// Title at the top.
    pub title: String,
    /// Latency rows (trace2heatmap's default: 50).
    pub rows: u32,
    /// Time columns at most (the column width is rounded up to 1, 2 or 5 × 10^k ns).
    pub max_columns: u32,
    /// Column width in ns; `None` chooses one from the time range and `max_columns`.
    pub column_ns: Option<u64>,
    /// Cell width in pixels.
    pub cell_width: u32,
    /// Cell height in pixels.
    pub cell_height: u32,
}

impl Default for HeatmapOptions {
    fn default() -> Self {
        HeatmapOptions {
            title: "Latency Heat Map".into(),
            rows: 50,
            max_columns: 100,
            column_ns: None,
            cell_width: 8,
            cell_height: 8,
        }
    }
}

/// Counts per (column, row) cell, built from `(time_ns, latency_ns)` points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heatmap {
    /// Time of column 0's left edge (the first point's time, as trace2heatmap's origin).
    pub origin_ns: u64,
    /// Column width, ns.
    pub column_ns: u64,
    /// Lowest latency (row 0's bottom edge), ns.
    pub min_latency_ns: u64,
    /// Row height, ns (at least 1).
    pub row_ns: u64,
    /// Columns.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Counts, column-major: `counts[column * rows + row]`.
    pub counts: Vec<u64>,
}

/// 1, 2 or 5 × 10^k, the smallest at or above `v`.
fn nice_step(v: u64) -> u64 {
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            let s = p.saturating_mul(m);
            if s >= v || s == u64::MAX {
                return s;
            }
        }
        p = p.saturating_mul(10);
    }
}

impl Heatmap {
    /// Bin `points` (`(time_ns, latency_ns)`, the first one giving the time origin). Rows span
    /// `min..=max` latency in `opts.rows` equal steps (`int((lat - min) / step)`, the top row
    /// taking the maximum).
    pub fn new(points: &[(u64, u64)], opts: &HeatmapOptions) -> Heatmap {
        let origin = points.first().map_or(0, |p| p.0);
        let last = points.iter().map(|p| p.0).max().unwrap_or(origin);
        let (lo, hi) = points.iter().fold((u64::MAX, 0), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
        let lo = if points.is_empty() { 0 } else { lo };
        let rows = opts.rows.clamp(1, 1000);
        let max_columns = opts.max_columns.clamp(1, 10_000);
        let span = last.saturating_sub(origin);
        let column_ns = opts.column_ns.unwrap_or_else(|| nice_step(span / u64::from(max_columns) + 1)).max(1);
        let columns = (span / column_ns + 1).min(u64::from(max_columns)) as u32;
        let row_ns = (hi.saturating_sub(lo) / u64::from(rows)).max(1);
        let mut counts = vec![0u64; columns as usize * rows as usize];
        for &(t, lat) in points {
            // Points before the origin (out of time order) go to column 0.
            let c = (t.saturating_sub(origin) / column_ns).min(u64::from(columns) - 1);
            let r = (lat.saturating_sub(lo) / row_ns).min(u64::from(rows) - 1);
            if let Some(n) = counts.get_mut(c as usize * rows as usize + r as usize) {
                *n = n.saturating_add(1);
            }
        }
        Heatmap { origin_ns: origin, column_ns, min_latency_ns: lo, row_ns, columns, rows, counts }
    }

    /// The count of one cell.
    pub fn count(&self, column: u32, row: u32) -> u64 {
        let i = column as usize * self.rows as usize + row as usize;
        self.counts.get(i).copied().unwrap_or(0)
    }

    /// The heatmap as a standalone SVG: a cell per (column, row) coloured from white (0) through
    /// yellow to red (the largest count), with a `<title>` tooltip giving the time range, the
    /// latency range and the count; axes labelled in seconds from the origin and in µs.
    pub fn svg(&self, opts: &HeatmapOptions) -> String {
        let (cw, ch) = (opts.cell_width.clamp(1, 100), opts.cell_height.clamp(1, 100));
        let (left, top, bottom, right) = (90u32, 50u32, 60u32, 120u32);
        let plot_w = self.columns * cw;
        let plot_h = self.rows * ch;
        // Wide enough for the title (about 9 px a character at 16 px).
        let title_w = (opts.title.chars().count() as u32).saturating_mul(9).saturating_add(40);
        let (width, height) = ((left + plot_w + right).max(title_w), top + plot_h + bottom);
        // Axis labels: whole µs when rows are at least 1 µs high; ms on the time axis for spans
        // under 10 s.
        let lat_label = |ns: u64| if self.row_ns >= 1000 { format!("{}", ns / 1000) } else { micros(ns) };
        let span = u64::from(self.columns).saturating_mul(self.column_ns);
        let in_ms = span < 10_000_000_000;
        let time_label = |ns: u64| if in_ms { millis(ns) } else { secs(ns) };
        let max = self.counts.iter().copied().max().unwrap_or(0);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Verdana, sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#f8f8f8"/>"##);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="16">{}</text>"#,
            width / 2,
            xml_escape(&opts.title)
        );
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="white" stroke="#999"/>"##
        );
        for c in 0..self.columns {
            for r in 0..self.rows {
                let n = self.count(c, r);
                if n == 0 {
                    continue;
                }
                let x = left + c * cw;
                let y = top + plot_h - (r + 1) * ch;
                let t0 = u64::from(c).saturating_mul(self.column_ns);
                let l0 = self.min_latency_ns.saturating_add(u64::from(r).saturating_mul(self.row_ns));
                let _ = writeln!(
                    s,
                    r#"<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{}"><title>time {} .. {} s, latency {} .. {} us, count {n}</title></rect>"#,
                    colour(n, max),
                    secs(t0),
                    secs(t0.saturating_add(self.column_ns)),
                    micros(l0),
                    micros(l0.saturating_add(self.row_ns)),
                );
            }
        }
        // Axes: latency ticks every 10 rows, time ticks at about every 10 columns.
        let step = self.rows.div_ceil(5).max(1);
        for r in (0..=self.rows).step_by(step as usize) {
            let y = top + plot_h - r * ch;
            let lat = self.min_latency_ns.saturating_add(u64::from(r).saturating_mul(self.row_ns));
            let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, left - 4, y + 4, lat_label(lat));
        }
        let cstep = self.columns.div_ceil(8).max(1);
        for c in (0..=self.columns).step_by(cstep as usize) {
            let x = left + c * cw;
            let t = u64::from(c).saturating_mul(self.column_ns);
            let _ =
                writeln!(s, r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#, top + plot_h + 16, time_label(t));
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time ({} from {} s)</text>"#,
            left + plot_w / 2,
            top + plot_h + 40,
            if in_ms { "ms" } else { "s" },
            secs(self.origin_ns)
        );
        let _ = writeln!(
            s,
            r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">latency (us)</text>"#,
            top + plot_h / 2,
            top + plot_h / 2
        );
        // Colour legend.
        // Ten boxes of up to 14 px, no taller than the plot (a plot of a few rows is short).
        let lx = left + plot_w + 30;
        let bh = (plot_h / 10).clamp(1, 14);
        let bottom = top + plot_h;
        for i in 0..10u32 {
            let n = (u64::from(i) + 1).saturating_mul(max) / 10;
            let y = bottom.saturating_sub((i + 1) * bh);
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="{y}" width="14" height="{bh}" fill="{}"/>"#,
                colour(n.max(1), max.max(1))
            );
        }
        let legend_top = bottom.saturating_sub(10 * bh);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{max}</text>"#, lx + 18, legend_top + 11);
        let _ = writeln!(s, r#"<text x="{}" y="{}">1</text>"#, lx + 18, bottom.saturating_sub(3));
        let _ = writeln!(s, r#"<text x="{lx}" y="{}">count</text>"#, legend_top.saturating_sub(8));
        s.push_str("</svg>\n");
        s
    }
}

/// White-yellow-red by `n / max`, with a floor so that a single event stays visible.
fn colour(n: u64, max: u64) -> String {
    let f = if max == 0 { 0.0 } else { (n as f64 / max as f64).clamp(0.0, 1.0) };
    let f = 0.15 + 0.85 * f;
    // 0 → pale yellow (255, 240, 170); 1 → dark red (180, 0, 0).
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    format!("#{:02x}{:02x}{:02x}", lerp(255.0, 180.0), lerp(240.0, 0.0), lerp(170.0, 0.0))
}

fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

fn millis(ns: u64) -> String {
    let (ms, rest) = (ns / 1_000_000, ns % 1_000_000);
    if rest == 0 {
        format!("{ms}")
    } else {
        format!("{ms}.{}", format!("{rest:06}").trim_end_matches('0'))
    }
}

fn micros(ns: u64) -> String {
    if ns.is_multiple_of(1000) {
        format!("{}", ns / 1000)
    } else {
        format!("{}.{:03}", ns / 1000, ns % 1000)
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
        let opts = HeatmapOptions { rows: 4, column_ns: Some(10), ..Default::default() };
        let h = Heatmap::new(&[(100, 0), (105, 40), (121, 20), (130, 39)], &opts);
        assert_eq!((h.origin_ns, h.columns, h.rows, h.row_ns, h.min_latency_ns), (100, 4, 4, 10, 0));
        assert_eq!(h.count(0, 0), 1);
        assert_eq!(h.count(0, 3), 1); // the maximum goes to the top row
        assert_eq!(h.count(2, 2), 1);
        assert_eq!(h.count(3, 3), 1);
        assert_eq!(h.counts.iter().sum::<u64>(), 4);
        let svg = h.svg(&opts);
        assert_eq!(svg.matches("<title>").count(), 4);
        assert!(svg.contains("latency 30 .. 40 us, count 1") || svg.contains("latency 0.030 .. 0.040 us, count 1"));
    }

    #[test]
    fn nice_steps() {
        assert_eq!([nice_step(0), nice_step(1), nice_step(3), nice_step(7), nice_step(11)], [1, 1, 5, 10, 20]);
        assert_eq!(nice_step(u64::MAX), u64::MAX);
    }
}
