//! What changed between several runs of a program: each symbol's share of the event count in
//! every baseline recording and every new one, the change of its mean share with a confidence
//! interval from the run-to-run variation, and thresholds a CI job can gate on.
//!
//! The interval is Welch's t-interval of the difference of the two means (unequal variances,
//! Welch–Satterthwaite degrees of freedom), at a confidence corrected for the number of symbols
//! compared (Bonferroni: each row's interval is at `1 − (1 − confidence) / rows`), so that at 95 %
//! the chance that any unchanged symbol is marked is at most 5 %. It needs two runs per side; with
//! one, rows have no interval and are never marked.
//!
//! ```no_run
//! use perfdata_analysis::runs::{compare, compare_text, CompareOptions, Threshold};
//! use perfdata_core::PerfFile;
//! let open = |p: &str| PerfFile::open(p);
//! let (a, b) = ([open("a1.data")?, open("a2.data")?], [open("b1.data")?, open("b2.data")?]);
//! let c = compare(&a.iter().collect::<Vec<_>>(), &b.iter().collect::<Vec<_>>(), &CompareOptions::default())?;
//! print!("{}", compare_text(&c));
//! let gate: Threshold = "delta > 2%".parse()?;
//! assert!(c.rows.iter().all(|r| !gate.crossed(r)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::options::FoldedOptions;
use crate::report::{report, ReportOptions, ReportRow, SortKey};
use crate::Result;
use perfdata_core::PerfFile;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::HashMap;
use std::fmt::Write;

/// What [`compare`] compares.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The keys rows are grouped and paired by (default `dso,sym`, as perf diff's).
    pub sort: Vec<SortKey>,
    /// Symbols and frames, as `folded` finds them.
    pub fold: FoldedOptions,
    /// The event whose samples count (perf's name); `None`: the first baseline recording's first
    /// event with samples.
    pub event: Option<String>,
    /// The confidence of the intervals, for all rows together (default 0.95).
    pub confidence: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            sort: vec![SortKey::Dso, SortKey::Sym],
            fold: FoldedOptions::default(),
            event: None,
            confidence: 0.95,
        }
    }
}

/// The comparison of two sets of runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The event compared.
    pub event: String,
    /// Runs on each side.
    pub baseline_runs: usize,
    /// Runs on the new side.
    pub new_runs: usize,
    /// The confidence for all rows together; each row's interval is at
    /// [`Comparison::row_confidence`].
    pub confidence: f64,
    /// `1 − (1 − confidence) / rows` (Bonferroni).
    pub row_confidence: f64,
    /// One row per key seen in any run, largest change first.
    pub rows: Vec<CompareRow>,
    /// Problems met on the way, with the index of the recording (baseline first, then new).
    pub diagnostics: Vec<(usize, String)>,
}

/// One key's shares in the runs and their change.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// The shared object (`dso` key).
    pub dso: Option<String>,
    /// A kernel symbol (`sym` key).
    pub kernel: Option<bool>,
    /// The symbol (`sym` key).
    pub symbol: Option<String>,
    /// The command (`comm` key).
    pub comm: Option<String>,
    /// The share of the event count (%) in each baseline run (0 where the key has no samples).
    pub baseline: Vec<f64>,
    /// The same in each new run.
    pub new: Vec<f64>,
    /// Mean of [`CompareRow::baseline`].
    pub baseline_mean: f64,
    /// Mean of [`CompareRow::new`].
    pub new_mean: f64,
    /// `new_mean − baseline_mean`, percentage points.
    pub delta: f64,
    /// `new_mean / baseline_mean` (infinite for a key new in every new run, NaN for 0/0).
    pub ratio: f64,
    /// The confidence interval of [`CompareRow::delta`], with two runs or more per side.
    pub interval: Option<(f64, f64)>,
    /// The interval excludes 0.
    pub significant: bool,
}

/// A gate on a row: `delta > 2%`, `delta < -1.5%` (percentage points), `ratio > 1.1`,
/// `ratio <= 0.8`. With intervals a `delta` gate is crossed only when the whole interval is past
/// the value (the change is that large at the chosen confidence), a `ratio` gate when the ratio
/// is past it and the change is significant; with one run per side, by the values alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threshold {
    /// `delta` (true) or `ratio`.
    pub delta: bool,
    /// `>`/`>=` (true) or `<`/`<=`.
    pub above: bool,
    /// `>=`/`<=`.
    pub inclusive: bool,
    /// The value (percentage points for `delta`).
    pub value: f64,
}

impl std::str::FromStr for Threshold {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("threshold `{s}': expected `delta > 2%', `delta < -1%', `ratio >= 1.1' …");
        let t = s.trim();
        let (delta, rest) = if let Some(r) = t.strip_prefix("delta") {
            (true, r)
        } else if let Some(r) = t.strip_prefix("ratio") {
            (false, r)
        } else {
            return Err(bad());
        };
        let rest = rest.trim_start();
        let (above, inclusive, rest) = if let Some(r) = rest.strip_prefix(">=") {
            (true, true, r)
        } else if let Some(r) = rest.strip_prefix("<=") {
            (false, true, r)
        } else if let Some(r) = rest.strip_prefix('>') {
            (true, false, r)
        } else if let Some(r) = rest.strip_prefix('<') {
            (false, false, r)
        } else {
            return Err(bad());
        };
        let rest = rest.trim();
        let number = if delta { rest.strip_suffix('%').unwrap_or(rest).trim() } else { rest };
        let value: f64 = number.parse().map_err(|_| bad())?;
        if !value.is_finite() {
            return Err(bad());
        }
        Ok(Threshold { delta, above, inclusive, value })
    }
}

impl Threshold {
    /// Whether `row` crosses this gate.
    pub fn crossed(&self, row: &CompareRow) -> bool {
        let past = |x: f64| match (self.above, self.inclusive) {
            (true, true) => x >= self.value,
            (true, false) => x > self.value,
            (false, true) => x <= self.value,
            (false, false) => x < self.value,
        };
        match (self.delta, row.interval) {
            (true, Some((low, high))) => past(if self.above { low } else { high }),
            (true, None) => past(row.delta),
            (false, Some(_)) => row.significant && past(row.ratio),
            (false, None) => past(row.ratio),
        }
    }
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match (self.above, self.inclusive) {
            (true, true) => ">=",
            (true, false) => ">",
            (false, true) => "<=",
            (false, false) => "<",
        };
        if self.delta {
            write!(f, "delta {op} {}%", self.value)
        } else {
            write!(f, "ratio {op} {}", self.value)
        }
    }
}

/// A row's key: the values of the sort keys.
type Key = (Option<String>, Option<bool>, Option<String>, Option<String>);

fn key(r: &ReportRow) -> Key {
    (r.dso.clone(), r.kernel, r.symbol.clone(), r.comm.clone())
}

/// The event `name` of `file` (its index), or the first with samples when `name` is `None`.
fn event_index(file: &PerfFile, name: Option<&str>) -> Option<(usize, String)> {
    let events = file.events();
    match name {
        Some(n) => events.iter().find(|e| e.display_name() == n).map(|e| (e.index, e.display_name())),
        None => events.iter().find(|e| !(e.attr.type_ == 1 && e.attr.config == 9)).map(|e| (e.index, e.display_name())),
    }
}

/// Mean and sample variance (n − 1).
fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var)
}

/// Welch's interval of `mean(b) − mean(a)` at `confidence`, with two values or more on each side.
fn welch(a: &[f64], b: &[f64], confidence: f64) -> Option<(f64, f64)> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let ((ma, va), (mb, vb)) = (mean_var(a), mean_var(b));
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (qa, qb) = (va / na, vb / nb);
    let se = (qa + qb).sqrt();
    let d = mb - ma;
    if se == 0.0 {
        return Some((d, d));
    }
    let df = (qa + qb).powi(2) / (qa * qa / (na - 1.0) + qb * qb / (nb - 1.0));
    let t = StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    Some((d - t * se, d + t * se))
}

/// Compare the runs of `baseline` with those of `new` (one or more each): every key's share of
/// the event's count in each run, the change of the mean share, its interval and mark.
pub fn compare<'d>(baseline: &[&PerfFile<'d>], new: &[&PerfFile<'d>], opts: &CompareOptions) -> Result<Comparison> {
    if baseline.is_empty() || new.is_empty() {
        return Err(crate::Error::Options("compare: at least one recording on each side".into()));
    }
    if !(opts.confidence > 0.0 && opts.confidence < 1.0) {
        return Err(crate::Error::Options(format!("confidence {}: must be between 0 and 1", opts.confidence)));
    }
    let first = baseline.first().copied().ok_or_else(|| crate::Error::Options("no baseline".into()))?;
    let (_, event) = event_index(first, opts.event.as_deref()).ok_or_else(|| {
        crate::Error::Missing(format!("no event {}", opts.event.as_deref().unwrap_or("with samples")))
    })?;
    let mut shares: HashMap<Key, (Vec<f64>, Vec<f64>)> = HashMap::new();
    let mut order: Vec<Key> = Vec::new();
    let mut diagnostics = Vec::new();
    for (i, file) in baseline.iter().chain(new).enumerate() {
        let (index, _) = event_index(file, Some(&event)).ok_or_else(|| {
            crate::Error::Missing(format!("recording {}: no event '{event}' (the first baseline's)", i + 1))
        })?;
        crate::diff::only_diff_keys(&opts.sort)?;
        let ropts = ReportOptions {
            sort: opts.sort.clone(),
            children: false,
            fold: opts.fold.clone(),
            event: Some(index),
            call_graph: None,
            ..ReportOptions::default()
        };
        let done = report(file, &ropts)?;
        diagnostics.extend(done.diagnostics.into_iter().map(|d| (i, d)));
        for r in &done.rows {
            let k = key(r);
            let slot = shares.entry(k.clone()).or_insert_with(|| {
                order.push(k);
                (vec![0.0; baseline.len()], vec![0.0; new.len()])
            });
            let cell = if i < baseline.len() { slot.0.get_mut(i) } else { slot.1.get_mut(i - baseline.len()) };
            if let Some(c) = cell {
                *c += r.overhead;
            }
        }
    }
    let m = order.len().max(1) as f64;
    let row_confidence = 1.0 - (1.0 - opts.confidence) / m;
    let mut rows: Vec<CompareRow> = order
        .into_iter()
        .filter_map(|k| shares.remove(&k).map(|v| (k, v)))
        .map(|((dso, kernel, symbol, comm), (a, b))| {
            let (ma, _) = mean_var(&a);
            let (mb, _) = mean_var(&b);
            let interval = welch(&a, &b, row_confidence);
            let significant = interval.is_some_and(|(lo, hi)| lo > 0.0 || hi < 0.0);
            CompareRow {
                dso,
                kernel,
                symbol,
                comm,
                baseline: a,
                new: b,
                baseline_mean: ma,
                new_mean: mb,
                delta: mb - ma,
                ratio: mb / ma,
                interval,
                significant,
            }
        })
        .collect();
    // Largest change first (stable: the first run's order among equals).
    rows.sort_by(|x, y| y.delta.abs().total_cmp(&x.delta.abs()));
    Ok(Comparison {
        event,
        baseline_runs: baseline.len(),
        new_runs: new.len(),
        confidence: opts.confidence,
        row_confidence,
        rows,
        diagnostics,
    })
}

/// The comparison as a table: each key's mean shares, the change (percentage points) with its
/// interval and a `*` where it is significant, largest change first. Rows whose shares are all
/// under 0.005 % are left out.
pub fn compare_text(c: &Comparison) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Event '{}': {} baseline run{}, {} new run{}; Welch t-intervals of the change of the mean share, \
         {:.0}% confidence for all rows together ({} rows, each at {:.4}%); * the interval excludes 0",
        c.event,
        c.baseline_runs,
        if c.baseline_runs == 1 { "" } else { "s" },
        c.new_runs,
        if c.new_runs == 1 { "" } else { "s" },
        c.confidence * 100.0,
        c.rows.len(),
        c.row_confidence * 100.0,
    );
    let shown: Vec<&CompareRow> =
        c.rows.iter().filter(|r| r.baseline.iter().chain(&r.new).any(|&x| x >= 0.005)).collect();
    let dso_w = shown.iter().filter_map(|r| r.dso.as_ref()).map(String::len).max().unwrap_or(0).max(13);
    let comm_w = shown.iter().filter_map(|r| r.comm.as_ref()).map(String::len).max().unwrap_or(0).max(7);
    let has_comm = shown.iter().any(|r| r.comm.is_some());
    let has_dso = shown.iter().any(|r| r.dso.is_some());
    let mut head = String::from("#\n# Baseline       New      Delta  Interval                ");
    if has_comm {
        let _ = write!(head, "  {:<comm_w$}", "Command");
    }
    if has_dso {
        let _ = write!(head, "  {:<dso_w$}", "Shared Object");
    }
    head.push_str("  Symbol");
    let _ = writeln!(o, "{}\n#", head.trim_end());
    for r in shown {
        let interval = match r.interval {
            Some((lo, hi)) => format!("[{lo:+.2}, {hi:+.2}]"),
            None => "-".to_string(),
        };
        let mark = if r.significant { '*' } else { ' ' };
        let _ =
            write!(o, "  {:>7.2}%  {:>7.2}%  {:>+8.2}  {interval:<20} {mark}", r.baseline_mean, r.new_mean, r.delta);
        if has_comm {
            let _ = write!(o, "  {:<comm_w$}", r.comm.as_deref().unwrap_or(""));
        }
        if has_dso {
            let _ = write!(o, "  {:<dso_w$}", r.dso.as_deref().unwrap_or(""));
        }
        let mark = match r.kernel {
            Some(true) => "[k] ",
            Some(false) => "[.] ",
            None => "",
        };
        let _ = writeln!(o, "  {mark}{}", r.symbol.as_deref().unwrap_or(""));
    }
    o
}
