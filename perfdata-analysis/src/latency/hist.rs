//! Histograms in the layouts of the reference tools: bcc's log2 histogram (`print_log2_hist`, as
//! biolatency and runqlat print it), perf-tools iolatency's power-of-two millisecond histogram,
//! bcc's linear histogram, and percentiles.

use std::fmt::Write as _;

/// Slots of a log2 histogram: slot 0 holds 0, slot `i` holds `2^(i-1) ..= 2^i - 1`.
pub const LOG2_SLOTS: usize = 65;

/// A log2 histogram with bcc's buckets: a value `v` goes to slot `bpf_log2l(v)`, the bit length of
/// `v` (0 for 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log2Hist {
    /// Counts per slot.
    pub slots: [u64; LOG2_SLOTS],
}

impl Default for Log2Hist {
    fn default() -> Self {
        Log2Hist { slots: [0; LOG2_SLOTS] }
    }
}

/// The bcc slot of `v`: its bit length.
pub fn log2_slot(v: u64) -> usize {
    (u64::BITS - v.leading_zeros()) as usize
}

impl Log2Hist {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Count `v` (already in the histogram's unit, e.g. µs).
    pub fn add(&mut self, v: u64) {
        if let Some(s) = self.slots.get_mut(log2_slot(v)) {
            *s = s.saturating_add(1);
        }
    }

    /// The values counted.
    pub fn total(&self) -> u64 {
        self.slots.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }

    /// The rows bcc prints, `(low, high, count)`: slots 1 to the last non-empty one, slot `i`
    /// labelled `2^(i-1) -> 2^i - 1` except slot 1, labelled `0 -> 1` (it holds only 1). Slot 0
    /// (the value 0) is never printed.
    pub fn rows(&self) -> Vec<(u64, u64, u64)> {
        let last = self.slots.iter().rposition(|&c| c > 0).unwrap_or(0);
        (1..=last)
            .map(|i| {
                let high = if i >= 64 { u64::MAX } else { (1u64 << i) - 1 };
                let low = 1u64 << (i - 1);
                let low = if low == high { low - 1 } else { low };
                (low, high, self.slots.get(i).copied().unwrap_or(0))
            })
            .collect()
    }

    /// The histogram as bcc's `print_log2_hist` prints it, `label` being the value type
    /// (`usecs`, `msecs`): the header `     usecs               : count     distribution`, then
    /// `"%10d -> %-10d : %-8d |%-40s|"` rows with `floor(40·count/max)` stars (20-wide columns and
    /// 20 stars when the last slot is above 32). Nothing when only slot 0 (or nothing) was counted.
    pub fn bcc_text(&self, label: &str) -> String {
        let mut out = String::new();
        let last = self.slots.iter().rposition(|&c| c > 0).unwrap_or(0);
        if last == 0 {
            return out;
        }
        // bcc's maximum is over every slot, slot 0 included.
        let max = self.slots.iter().copied().max().unwrap_or(0);
        let wide = last > 32;
        let width = if wide { 20 } else { 40 };
        if wide {
            let _ = writeln!(out, "               {label:<29} : count     distribution");
        } else {
            let _ = writeln!(out, "     {label:<19} : count     distribution");
        }
        for (low, high, count) in self.rows() {
            let stars = "*".repeat(floor_stars(count, max, width));
            if wide {
                let _ = writeln!(out, "{low:>20} -> {high:<20} : {count:<8} |{stars:<width$}|");
            } else {
                let _ = writeln!(out, "{low:>10} -> {high:<10} : {count:<8} |{stars:<width$}|");
            }
        }
        out
    }
}

/// bcc's `_stars`: the largest `n ≤ width` with `n ≤ width·val/max`.
fn floor_stars(val: u64, max: u64, width: usize) -> usize {
    if max == 0 {
        return 0;
    }
    let n = u128::from(val) * width as u128 / u128::from(max);
    n.min(width as u128) as usize
}

/// Several bcc histograms, one per section, as biolatency `-D` (`disk = …`) or `-F`
/// (`flags = …`) prints them: for each, an empty line, `"{header} = {name}"`, the histogram.
pub fn bcc_sections<'a>(
    header: &str,
    label: &str,
    sections: impl IntoIterator<Item = (&'a str, &'a Log2Hist)>,
) -> String {
    let mut out = String::new();
    for (name, h) in sections {
        let _ = writeln!(out, "\n{header} = {name}");
        out.push_str(&h.bcc_text(label));
    }
    out
}

/// perf-tools iolatency's histogram: bucket `i` holds latencies in `(2^(i-1), 2^i]` ms (bucket 0:
/// `≤ 1 ms`), the smallest `i` with `latency_ms ≤ 2^i`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IolatencyHist {
    /// Counts per bucket (as many as the largest latency needs).
    pub buckets: Vec<u64>,
}

/// iolatency's bucket of a latency in ns: `for (ms = 1; latency_ms > ms; ms *= 2) i++`.
pub fn iolatency_bucket(latency_ns: u64) -> usize {
    let mut i = 0;
    let mut ms: u128 = 1_000_000;
    while u128::from(latency_ns) > ms {
        ms *= 2;
        i += 1;
    }
    i
}

impl IolatencyHist {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Count one latency (ns).
    pub fn add_ns(&mut self, latency_ns: u64) {
        let i = iolatency_bucket(latency_ns);
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, 0);
        }
        if let Some(b) = self.buckets.get_mut(i) {
            *b = b.saturating_add(1);
        }
    }

    /// The histogram as iolatency prints it: the header
    /// `  >=(ms) .. <(ms)   : I/O      |Distribution                          |` and rows
    /// `"%8d -> %-8d: %-8d |%-38s|"` (from, to, count, `ceil(38·count/max)` `#`s), buckets 0 to the
    /// last counted one (at least bucket 0).
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{:>8} .. {:<8}: {:<8} |{:<38}|", ">=(ms)", "<(ms)", "I/O", "Distribution");
        let max = self.buckets.iter().copied().max().unwrap_or(0);
        let (mut from, mut to) = (0u128, 1u128);
        let n = self.buckets.len().max(1);
        for i in 0..n {
            let count = self.buckets.get(i).copied().unwrap_or(0);
            let stars = if max == 0 { 0 } else { (u128::from(count) * 38).div_ceil(u128::from(max)) as usize };
            let hashes = "#".repeat(stars);
            let _ = writeln!(out, "{from:>8} -> {to:<8}: {count:<8} |{hashes:<38}|");
            from = to;
            to = to.saturating_mul(2);
        }
        out
    }
}

/// A linear histogram: bucket `i` holds `i·step ..= (i+1)·step - 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearHist {
    /// Bucket width (at least 1).
    pub step: u64,
    /// Counts per bucket.
    pub buckets: Vec<u64>,
}

/// Most buckets a linear histogram grows to; larger values land in the last one.
pub const LINEAR_MAX_BUCKETS: usize = 1025;

impl LinearHist {
    /// An empty histogram of buckets `step` wide.
    pub fn new(step: u64) -> Self {
        LinearHist { step: step.max(1), buckets: Vec::new() }
    }

    /// Count `v`.
    pub fn add(&mut self, v: u64) {
        let i = usize::try_from(v / self.step).unwrap_or(usize::MAX).min(LINEAR_MAX_BUCKETS - 1);
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, 0);
        }
        if let Some(b) = self.buckets.get_mut(i) {
            *b = b.saturating_add(1);
        }
    }

    /// bcc's `print_linear_hist` layout: `     {label:<13} : count     distribution` and rows
    /// `"        %-10d : %-8d |%-40s|"` labelled with each bucket's low edge.
    pub fn bcc_text(&self, label: &str) -> String {
        let mut out = String::new();
        if self.buckets.is_empty() {
            return out;
        }
        let max = self.buckets.iter().copied().max().unwrap_or(0);
        let _ = writeln!(out, "     {label:<13} : count     distribution");
        for (i, &count) in self.buckets.iter().enumerate() {
            let low = (i as u64).saturating_mul(self.step);
            let stars = "*".repeat(floor_stars(count, max, 40));
            let _ = writeln!(out, "        {low:<10} : {count:<8} |{stars:<40}|");
        }
        out
    }
}

/// Summary statistics of latencies (ns). Percentiles are nearest-rank: `pN` is the smallest value
/// with at least N% of the values at or below it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Percentiles {
    /// Values.
    pub count: u64,
    /// Smallest.
    pub min: u64,
    /// Mean, truncated.
    pub avg: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
}

impl Percentiles {
    /// From values in any order (sorted in place). All zero for no values.
    pub fn from_values(values: &mut [u64]) -> Percentiles {
        values.sort_unstable();
        let n = values.len();
        if n == 0 {
            return Percentiles::default();
        }
        // Nearest rank: index ceil(p·n/1000) - 1, with p in tenths of a percent.
        let at = |permille: u128| {
            let rank = (permille * n as u128).div_ceil(1000).max(1);
            values.get(rank as usize - 1).copied().unwrap_or(0)
        };
        let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
        Percentiles {
            count: n as u64,
            min: values.first().copied().unwrap_or(0),
            avg: (sum / n as u128) as u64,
            p50: at(500),
            p90: at(900),
            p99: at(990),
            p999: at(999),
            max: values.last().copied().unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_slots_at_the_edges() {
        // bpf_log2l(v) + 1 for v > 0 in bcc's `dist.increment(bpf_log2l(delta))` sense: the bit length.
        assert_eq!(log2_slot(0), 0);
        assert_eq!(log2_slot(1), 1);
        assert_eq!(log2_slot(2), 2);
        assert_eq!(log2_slot(3), 2);
        assert_eq!(log2_slot(4), 3);
        assert_eq!(log2_slot(1000), 10); // 512 -> 1023
        assert_eq!(log2_slot(1023), 10);
        assert_eq!(log2_slot(1024), 11);
        assert_eq!(log2_slot(u64::MAX), 64);
    }

    #[test]
    fn bcc_layout() {
        let mut h = Log2Hist::new();
        for v in [0, 1, 2, 3, 1000, 1000, 1000, 1000] {
            h.add(v);
        }
        let want = "     usecs               : count     distribution\n\
\x20        0 -> 1          : 1        |**********                              |\n\
\x20        2 -> 3          : 2        |********************                    |\n\
\x20        4 -> 7          : 0        |                                        |\n\
\x20        8 -> 15         : 0        |                                        |\n\
\x20       16 -> 31         : 0        |                                        |\n\
\x20       32 -> 63         : 0        |                                        |\n\
\x20       64 -> 127        : 0        |                                        |\n\
\x20      128 -> 255        : 0        |                                        |\n\
\x20      256 -> 511        : 0        |                                        |\n\
\x20      512 -> 1023       : 4        |****************************************|\n";
        assert_eq!(h.bcc_text("usecs"), want);
        // Only zeros: bcc prints nothing at all.
        let mut z = Log2Hist::new();
        z.add(0);
        assert_eq!(z.bcc_text("usecs"), "");
        // The maximum counts slot 0 too: 3 zeros and 1 one give 1 one with 13 stars.
        let mut m = Log2Hist::new();
        for v in [0, 0, 0, 1] {
            m.add(v);
        }
        assert!(m.bcc_text("usecs").contains(": 1        |*************                           |"));
    }

    #[test]
    fn bcc_wide_layout() {
        let mut h = Log2Hist::new();
        h.add(1 << 40);
        let t = h.bcc_text("nsecs");
        assert!(t.starts_with("               nsecs                         : count     distribution\n"));
        assert!(t.ends_with(&format!(
            "{:>20} -> {:<20} : 1        |********************|\n",
            1u64 << 40,
            (1u64 << 41) - 1
        )));
    }

    #[test]
    fn iolatency_buckets_at_the_edges() {
        let us = 1000;
        assert_eq!(iolatency_bucket(0), 0);
        assert_eq!(iolatency_bucket(us), 0);
        assert_eq!(iolatency_bucket(2 * us), 0);
        assert_eq!(iolatency_bucket(3 * us), 0);
        assert_eq!(iolatency_bucket(1000 * us), 0); // exactly 1 ms: (0, 1]
        assert_eq!(iolatency_bucket(1000 * us + 100), 1); // just over 1 ms
        assert_eq!(iolatency_bucket(2_000_000), 1);
        assert_eq!(iolatency_bucket(2_000_001), 2);
        assert_eq!(iolatency_bucket(4_000_000), 2);
    }

    #[test]
    fn iolatency_layout() {
        let mut h = IolatencyHist::new();
        for ns in [1, 1_000_000, 1_500_000, 5_000_000] {
            h.add_ns(ns);
        }
        let want = "  >=(ms) .. <(ms)   : I/O      |Distribution                          |\n\
\x20      0 -> 1       : 2        |######################################|\n\
\x20      1 -> 2       : 1        |###################                   |\n\
\x20      2 -> 4       : 0        |                                      |\n\
\x20      4 -> 8       : 1        |###################                   |\n";
        assert_eq!(h.text(), want);
    }

    #[test]
    fn ms_and_us_edges_in_bcc_slots() {
        // 1 ms = 1000 us lands in 512 -> 1023 (usecs) and in 0 -> 1 (msecs); just over 1 ms (1001
        // us) stays in 512 -> 1023 us and in 0 -> 1 ms (integer division).
        let ns = [1_000_000u64, 1_000_100, 1_024_000];
        let us: Vec<usize> = ns.iter().map(|n| log2_slot(n / 1000)).collect();
        let ms: Vec<usize> = ns.iter().map(|n| log2_slot(n / 1_000_000)).collect();
        assert_eq!(us, [10, 10, 11]);
        assert_eq!(ms, [1, 1, 1]);
    }

    #[test]
    fn linear_and_percentiles() {
        let mut l = LinearHist::new(10);
        for v in [0, 9, 10, 25] {
            l.add(v);
        }
        assert_eq!(l.buckets, [2, 1, 1]);
        assert!(l
            .bcc_text("usecs")
            .starts_with("     usecs         : count     distribution\n        0          : 2        |"));
        let mut v: Vec<u64> = (1..=1000).rev().collect();
        let p = Percentiles::from_values(&mut v);
        assert_eq!((p.min, p.p50, p.p90, p.p99, p.p999, p.max, p.avg), (1, 500, 900, 990, 999, 1000, 500));
        let mut one = [7u64];
        assert_eq!(Percentiles::from_values(&mut one).p999, 7);
    }
}
