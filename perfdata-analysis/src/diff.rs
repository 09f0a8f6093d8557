//! `perf diff`: the report of a baseline recording beside the reports of one or more new ones, row
//! by row — each histogram entry of the baseline paired with the entry of each new file that has
//! the same sort keys (a symbol by its name, so that rebuilt binaries still pair), the entries only
//! in new files added to the table, and per new file the change perf computes (`-c`): the
//! difference of the percentages (`delta`, `delta-abs`, perf 6.1's default), the ratio of the
//! event counts (`ratio`) or a weighted difference (`wdiff:W1,W2`).
//!
//! The rows come from [`report`](crate::report::report) (perf report's histogram entries and
//! symbol resolution), per event of the baseline; [`diff_text`](crate::diff::diff_text) lays them
//! out as `perf diff` prints them, byte for byte.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use perfdata_analysis::core::PerfFile;
//! use perfdata_analysis::diff::{diff, diff_text, DiffOptions};
//! let (old, new) = (PerfFile::open("perf.data.old")?, PerfFile::open("perf.data")?);
//! let d = diff(&[&old, &new], &DiffOptions::default())?;
//! for row in &d.events[0].rows {
//!     println!("{:?} {:?} {:?}", row.symbol, row.baseline, row.pairs[0].as_ref().map(|p| p.delta));
//! }
//! print!("{}", diff_text(&d, &["perf.data.old", "perf.data"], None));
//! # Ok(()) }
//! ```

use crate::options::FoldedOptions;
use crate::report::{report, ReportOptions, ReportRow, SortKey};
use crate::{Error, Result};
use perfdata_core::PerfFile;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write;
use std::str::FromStr;

/// What is computed between the baseline and each new file (perf diff's `-c`/`--compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compute {
    /// The new percentage minus the baseline's (`delta`), rows ordered by it.
    Delta,
    /// The same difference, rows ordered by its absolute value (`delta-abs`, perf 6.1's default).
    DeltaAbs,
    /// The new event count over the baseline's (`ratio`; an entry without baseline counts 1).
    Ratio,
    /// `new count × w2 − baseline count × w1` (`wdiff:W1,W2`, both non-zero).
    Wdiff {
        /// The baseline's weight.
        w1: i64,
        /// The new file's weight.
        w2: i64,
    },
}

impl FromStr for Compute {
    type Err = String;

    /// perf's `-c` values: `delta`, `delta-abs`, `ratio`, `wdiff:W1,W2`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let c = match name {
            "delta" => Compute::Delta,
            "delta-abs" => Compute::DeltaAbs,
            "ratio" => Compute::Ratio,
            "wdiff" => {
                let weights = arg.and_then(|a| a.split_once(','));
                let parse = |w: &str| w.trim().parse::<i64>().ok().filter(|w| *w != 0);
                return match weights.and_then(|(a, b)| Some((parse(a)?, parse(b)?))) {
                    Some((w1, w2)) => Ok(Compute::Wdiff { w1, w2 }),
                    None => Err(format!("wrong weight data in `{s}', use 'wdiff:w1,w2' (non-zero integers)")),
                };
            }
            _ => {
                return Err(format!("`{s}' is not a computation method (use 'delta', 'delta-abs', 'ratio' or 'wdiff')"))
            }
        };
        match arg {
            Some(a) => Err(format!("extra option specified '{a}'")),
            None => Ok(c),
        }
    }
}

/// What the percentages are of (perf's `--percentage`): they differ only when samples are hidden
/// by a thread filter ([`FoldedOptions::pid`], `tid`, `comm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Percentage {
    /// Of every sample of the event (perf's default).
    #[default]
    Absolute,
    /// Of the samples shown.
    Relative,
}

/// What [`diff`] computes.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// The difference computed per new file.
    pub compute: Compute,
    /// The keys entries are grouped and paired by (perf diff's default: dso, sym).
    pub sort: Vec<SortKey>,
    /// What the percentages are of.
    pub percentage: Percentage,
    /// The file whose computed column orders the rows first (perf diff's `-o`/`--order`, 1 by
    /// default; 0: by the baseline's share first).
    pub order: usize,
    /// How symbols are found and named (the symbolization options of `report`).
    pub fold: FoldedOptions,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            compute: Compute::DeltaAbs,
            sort: vec![SortKey::Dso, SortKey::Sym],
            percentage: Percentage::Absolute,
            order: 1,
            fold: ReportOptions::default().fold,
        }
    }
}

/// What [`diff`] gives: a table per event of the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    /// The events of the baseline, in its order, each with its table.
    pub events: Vec<DiffEvent>,
    /// How many files were compared (the baseline included).
    pub files: usize,
    /// The keys of the rows.
    pub sort: Vec<SortKey>,
    /// The difference computed.
    pub compute: Compute,
    /// What went wrong on the way without stopping it: the file's index in `files` and the
    /// message.
    pub diagnostics: Vec<(usize, String)>,
}

/// One event's table.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffEvent {
    /// The baseline event's name as perf prints it (`cpu-clock`, `cycles:u`).
    pub name: String,
    /// The rows, in perf diff's order.
    pub rows: Vec<DiffRow>,
}

/// One row: the sort keys' fields (the others `None`), the baseline's share and the pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    /// `comm`: the command.
    pub comm: Option<String>,
    /// `pid`: the thread id.
    pub pid: Option<u32>,
    /// `cpu`: the CPU (-1 when not recorded).
    pub cpu: Option<i32>,
    /// `dso`: the shared object's short name (`[unknown]` without a map).
    pub dso: Option<String>,
    /// `sym`: a kernel address (`[k]`), else user (`[.]`).
    pub kernel: Option<bool>,
    /// `sym`: the symbol's name, or for unresolved addresses (all of one shared object are one
    /// entry, as perf pairs symbols by name) the lowest of them as perf prints it.
    pub symbol: Option<String>,
    /// Whether [`DiffRow::symbol`] is a name (false: an address).
    pub resolved: bool,
    /// The baseline's share, %; `None` for an entry only in new files (perf's dummy entry).
    pub baseline: Option<f64>,
    /// The baseline's event count (0 for an entry only in new files).
    pub period: u64,
    /// Per new file (index 0 for the second file), its entry with the same keys, if any.
    pub pairs: Vec<Option<Pair>>,
    /// How wide this row makes the `Command` column (the length of the entry's thread's last comm).
    pub comm_width: usize,
}

/// A new file's entry paired with a row, and what it computes against the baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The new file's event count.
    pub period: u64,
    /// The new file's share, %.
    pub percent: f64,
    /// `percent` minus the baseline's share (percentage points).
    pub delta: f64,
    /// `period` over the baseline's (over 1 when the baseline has none).
    pub ratio: f64,
    /// `period × w2 − baseline period × w1` with [`Compute::Wdiff`]'s weights (0 otherwise),
    /// saturated at the bounds of `i64`.
    pub wdiff: i64,
}

/// An entry of one file's histogram after perf diff's collapse: the identity (the sort keys,
/// a symbol by name) and the count.
#[derive(Clone)]
struct Entry {
    key: Key,
    row: DiffRow,
    /// The unresolved address (for the lowest to show).
    addr: Option<u64>,
}

/// The collapse key: the sort keys' values, a symbol by name (`None` unresolved).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    comm: Option<String>,
    pid: Option<u32>,
    cpu: Option<i32>,
    dso: Option<Option<String>>,
    sym: Option<Option<String>>,
}

/// One file's entries of one event, collapsed as perf diff does (`hists__collapse_resort` with
/// the symbol compared by name), and the percentages' base.
fn entries(rows: Vec<ReportRow>, total: u64, opts: &DiffOptions) -> (Vec<Entry>, u64) {
    let has = |k: SortKey| opts.sort.contains(&k);
    let mut out: Vec<Entry> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut shown = 0u64;
    for r in rows {
        shown = shown.saturating_add(r.period);
        let addr = r.address;
        let key = Key {
            comm: if has(SortKey::Comm) { r.comm.clone() } else { None },
            pid: r.pid,
            cpu: r.cpu,
            dso: has(SortKey::Dso).then(|| r.dso.clone().filter(|d| d != "[unknown]")),
            sym: has(SortKey::Sym).then(|| if addr.is_some() { None } else { r.symbol.clone() }),
        };
        match index.get(&key).and_then(|&i| out.get_mut(i)) {
            Some(e) => {
                e.row.period = e.row.period.saturating_add(r.period);
                e.row.comm_width = e.row.comm_width.max(r.comm_width);
                // perf keeps the first entry of its tree, where unresolved addresses ascend.
                if let (Some(a), Some(b)) = (addr, e.addr) {
                    if a < b {
                        e.addr = Some(a);
                        e.row.symbol = r.symbol;
                        e.row.kernel = r.kernel;
                    }
                }
            }
            None => {
                index.insert(key.clone(), out.len());
                let row = DiffRow {
                    comm: r.comm,
                    pid: r.pid,
                    cpu: r.cpu,
                    dso: r.dso,
                    kernel: r.kernel,
                    resolved: addr.is_none(),
                    symbol: r.symbol,
                    baseline: None,
                    period: r.period,
                    pairs: Vec::new(),
                    comm_width: r.comm_width,
                };
                out.push(Entry { key, row, addr });
            }
        }
    }
    let base = match opts.percentage {
        Percentage::Absolute => total,
        Percentage::Relative => shown,
    };
    (out, base)
}

/// `part` of `total` in %, as perf divides (`period * 100.0 / total`).
fn percent(part: u64, total: u64) -> f64 {
    if total == 0 {
        // perf divides by zero here (inf or NaN); no row has a count then.
        0.0
    } else {
        part as f64 * 100.0 / total as f64
    }
}

/// The entries of `event` (an index of `file`'s events) and the percentages' base; `i`: the
/// file's index, for its diagnostics. [`report`] counts every event of a file together, so a file
/// with several events that can hold samples is read through a copy without the other events'
/// samples (made by perfdata-core's writer, in memory).
fn event_report(
    file: &PerfFile,
    event: usize,
    opts: &DiffOptions,
    diagnostics: &mut Vec<(usize, String)>,
    i: usize,
) -> Result<(Vec<Entry>, u64)> {
    only_diff_keys(&opts.sort)?;
    let ropts = ReportOptions {
        sort: opts.sort.clone(),
        children: false,
        fold: opts.fold.clone(),
        event: Some(event),
        call_graph: None,
        ..ReportOptions::default()
    };
    let done = report(file, &ropts)?;
    diagnostics.extend(done.diagnostics.into_iter().map(|d| (i, d)));
    Ok(entries(done.rows, done.total, opts))
}

/// Whether `e` is perf's dummy event (`PERF_COUNT_SW_DUMMY`: tracking records, no samples).
fn is_dummy(e: &perfdata_core::Event) -> bool {
    e.attr.type_ == 1 && e.attr.config == 9
}

/// The diff of `files` (the first is the baseline; at least two), one table per event of the
/// baseline: each new file's first event with the same type and config is paired with it (perf's
/// `evsel_match`); perf's dummy tracking event gets an empty table, as perf prints it.
pub fn diff(files: &[&PerfFile], opts: &DiffOptions) -> Result<Diff> {
    let (base, news) = match files {
        [base, news @ ..] if !news.is_empty() => (*base, news),
        _ => return Err(Error::Options("perf diff needs a baseline and at least one other file".into())),
    };
    if opts.order >= files.len() {
        return Err(Error::Options(format!("--order {} is out of limit: {} files", opts.order, files.len())));
    }
    let mut diagnostics = Vec::new();
    let mut events = Vec::new();
    for ev in base.events() {
        let mut rows: Vec<DiffRow> = Vec::new();
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut base_total = 0;
        if !is_dummy(ev) {
            let (entries, total) = event_report(base, ev.index, opts, &mut diagnostics, 0)?;
            base_total = total;
            for e in entries {
                let mut row = e.row;
                row.baseline = Some(percent(row.period, total));
                row.pairs = vec![None; news.len()];
                index.insert(e.key, rows.len());
                rows.push(row);
            }
        }
        for (n, file) in news.iter().enumerate() {
            // perf's evsel_match: the first event of the same type and config.
            let Some(other) =
                file.events().iter().find(|e| e.attr.type_ == ev.attr.type_ && e.attr.config == ev.attr.config)
            else {
                continue;
            };
            if is_dummy(other) {
                continue;
            }
            let (entries, total) = event_report(file, other.index, opts, &mut diagnostics, n + 1)?;
            // hists__match, then hists__link: an entry without a match becomes a row of its own.
            for e in entries {
                let i = match index.get(&e.key) {
                    Some(&i) => i,
                    None => {
                        let mut row = e.row.clone();
                        row.baseline = None;
                        row.period = 0;
                        row.pairs = vec![None; news.len()];
                        let i = rows.len();
                        index.insert(e.key.clone(), i);
                        rows.push(row);
                        i
                    }
                };
                let Some(row) = rows.get_mut(i) else { continue };
                let pct = percent(e.row.period, total);
                let old = row.period;
                let old_pct = percent(old, base_total);
                let (w1, w2) = match opts.compute {
                    Compute::Wdiff { w1, w2 } => (w1, w2),
                    _ => (0, 0),
                };
                let wdiff = (i128::from(e.row.period).saturating_mul(i128::from(w2)))
                    .saturating_sub(i128::from(old).saturating_mul(i128::from(w1)));
                let pair = Pair {
                    period: e.row.period,
                    percent: pct,
                    delta: pct - old_pct,
                    ratio: e.row.period as f64 / (if old == 0 { 1 } else { old }) as f64,
                    wdiff: i64::try_from(wdiff).unwrap_or(if wdiff < 0 { i64::MIN } else { i64::MAX }),
                };
                if let Some(slot) = row.pairs.get_mut(n) {
                    *slot = Some(pair);
                }
            }
        }
        rows.sort_by(|a, b| output_cmp(opts, a, b).reverse());
        events.push(DiffEvent { name: ev.display_name(), rows });
    }
    Ok(Diff { events, files: files.len(), sort: opts.sort.clone(), compute: opts.compute, diagnostics })
}

/// perf's `cmp_doubles` turned round: `Greater` when `a` is the larger (`a` goes first).
fn doubles(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// The computed values of two pairs compared, `Greater`: `a` first.
fn compute_cmp(c: Compute, a: &Pair, b: &Pair) -> Ordering {
    match c {
        Compute::Delta => doubles(a.delta, b.delta),
        Compute::DeltaAbs => doubles(a.delta.abs(), b.delta.abs()),
        Compute::Ratio => doubles(a.ratio, b.ratio),
        Compute::Wdiff { .. } => a.wdiff.cmp(&b.wdiff),
    }
}

fn pair(r: &DiffRow, file: usize) -> Option<&Pair> {
    file.checked_sub(1).and_then(|i| r.pairs.get(i)).and_then(Option::as_ref)
}

/// perf diff's output order (`hist_entry__sort` over its sort list), `Greater`: `a` first. The
/// column of `--order` first (entries with a pair in that file first, then by the value; an
/// entry without baseline last but for deltas), then the baseline's count, then each file's
/// column (entries with any pair first, then with a pair in that file, then by the value), then
/// the keys (comm and shared object by name, an entry without map last; thread and CPU
/// ascending; symbols by name, unresolved last).
fn output_cmp(opts: &DiffOptions, a: &DiffRow, b: &DiffRow) -> Ordering {
    let c = opts.compute;
    let by_pairs = |pa: Option<&Pair>, pb: Option<&Pair>| match (pa, pb) {
        (None, None) => Ordering::Equal,
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (Some(x), Some(y)) => compute_cmp(c, x, y),
    };
    let mut o = Ordering::Equal;
    if opts.order > 0 {
        let (pa, pb) = (pair(a, opts.order), pair(b, opts.order));
        o = match (pa, pb) {
            (Some(_), Some(_)) if !matches!(c, Compute::Delta | Compute::DeltaAbs) => {
                match (a.baseline.is_none(), b.baseline.is_none()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (false, false) => by_pairs(pa, pb),
                }
            }
            _ => by_pairs(pa, pb),
        };
    }
    o = o.then(a.period.cmp(&b.period));
    let any = |r: &DiffRow| r.pairs.iter().any(Option::is_some);
    for f in 1..=a.pairs.len() {
        o = o.then_with(|| match (any(a), any(b)) {
            (false, false) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (true, true) => by_pairs(pair(a, f), pair(b, f)),
        });
    }
    let names = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (Some(x), Some(y)) => y.as_bytes().cmp(x.as_bytes()),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
    };
    for k in &opts.sort {
        o = o.then_with(|| match k {
            SortKey::Comm => names(&a.comm, &b.comm),
            SortKey::Pid => b.pid.cmp(&a.pid),
            SortKey::Cpu => b.cpu.cmp(&a.cpu),
            SortKey::Dso => {
                let d = |r: &DiffRow| r.dso.clone().filter(|d| d != "[unknown]");
                names(&d(a), &d(b))
            }
            SortKey::Sym => {
                let s = |r: &DiffRow| if r.resolved { r.symbol.clone() } else { None };
                names(&s(a), &s(b))
            }
            // Refused before any report (`only_diff_keys`).
            SortKey::Srcline | SortKey::Parent | SortKey::Trace => Ordering::Equal,
            _ => Ordering::Equal,
        });
    }
    o
}

/// A column of the table: its header and width.
struct Column {
    header: String,
    width: usize,
    /// Right-aligned (the numbers) or left (the keys).
    right: bool,
}

/// The header of file `i`'s computed column, and its least width.
fn compute_header(c: Compute) -> (&'static str, usize) {
    match c {
        Compute::Delta => ("Delta", 7),
        Compute::DeltaAbs => ("Delta Abs", 7),
        Compute::Ratio => ("Ratio", 14),
        Compute::Wdiff { .. } => ("Weighted diff", 14),
    }
}

/// The table as `perf diff` prints it: per event, `# Event 'NAME'`, the data files (three files
/// or more), the column headers and the rows. `names`: the files as given (the `# Data files:`
/// lines); `separator`: perf's `-t`/`--field-separator` (no dots line, cells unpadded where perf
/// leaves them so).
pub fn diff_text(d: &Diff, names: &[&str], separator: Option<&str>) -> String {
    let mut o = String::new();
    for (n, ev) in d.events.iter().enumerate() {
        let _ = write!(o, "{}# Event '{}'\n#\n", if n == 0 { "" } else { "\n" }, ev.name);
        if d.files > 2 {
            o.push_str("# Data files:\n");
            for (i, name) in names.iter().enumerate() {
                let _ = writeln!(o, "#  [{i}] {name} {}", if i == 0 { "(Baseline)" } else { "" });
            }
            o.push_str("#\n");
        }
        event_text(&mut o, d, ev, separator);
    }
    o
}

/// One event's headers and rows.
fn event_text(o: &mut String, d: &Diff, ev: &DiffEvent, separator: Option<&str>) {
    let many = d.files > 2;
    let named = |h: &str, i: usize| if many { format!("{h}/{i}") } else { h.to_string() };
    let mut cols: Vec<Column> = Vec::new();
    let base = named("Baseline", 0);
    cols.push(Column { width: base.len(), header: base, right: true });
    let (ch, cw) = compute_header(d.compute);
    for i in 1..d.files {
        let h = named(ch, i);
        cols.push(Column { width: h.len().max(cw), header: h, right: true });
    }
    let rows = &ev.rows;
    // perf sizes the comm by each entry's thread's last comm and cuts longer ones to that.
    let comm_w = rows.iter().map(|r| r.comm_width).max().unwrap_or(0).max(SortKey::Comm.header().len());
    let unres = d.sort.contains(&SortKey::Sym) && rows.iter().any(|r| !r.resolved);
    for k in &d.sort {
        let values = rows.iter().map(|r| match k {
            SortKey::Comm => r.comm.as_deref().map_or(0, str::len).min(comm_w),
            SortKey::Pid => comm_w + 8,
            SortKey::Cpu => 3,
            SortKey::Dso => r.dso.as_deref().filter(|d| *d != "[unknown]").map_or(0, str::len),
            SortKey::Sym if r.resolved => r.symbol.as_deref().map_or(0, str::len) + 4,
            SortKey::Sym => 22,
            SortKey::Srcline | SortKey::Parent | SortKey::Trace => 0,
            _ => 0,
        });
        let mut width = values.max().unwrap_or(0).max(key_header(*k).len());
        match k {
            SortKey::Comm => width = width.max(comm_w),
            SortKey::Dso if unres => width = width.max(16),
            _ => {}
        }
        cols.push(Column { header: key_header(*k).to_string(), width, right: false });
    }
    let sep = separator.unwrap_or("  ");
    o.push_str("# ");
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            o.push_str(sep);
        }
        let w = c.width;
        let _ = if c.right { write!(o, "{:>w$}", c.header) } else { write!(o, "{:<w$}", c.header) };
    }
    o.push('\n');
    if separator.is_none() {
        o.push_str("# ");
        for (i, c) in cols.iter().enumerate() {
            if i > 0 {
                o.push_str(sep);
            }
            o.push_str(&".".repeat(c.width));
        }
        o.push_str("\n#\n");
    }
    for r in rows {
        let dummy = r.baseline.is_none();
        let mut cells: Vec<String> = Vec::with_capacity(cols.len());
        // Without a separator perf prints its columns' colour functions (`hpp__color_*`, plain
        // text when not on a terminal), with one: the entry functions.
        let w = cols.first().map_or(0, |c| c.width);
        cells.push(match (r.baseline, separator) {
            (None, _) => String::new(),
            (Some(b), None) => format!("{b:>w$.2}%", w = w.saturating_sub(1)),
            (Some(b), Some(_)) => format!("{b:.2}"),
        });
        for (i, col) in (1..d.files).zip(cols.iter().skip(1)) {
            let w = col.width;
            let text = match (pair(r, i), d.compute) {
                (None, _) => String::new(),
                (Some(_), Compute::Ratio | Compute::Wdiff { .. }) if dummy => "N/A".into(),
                (Some(p), Compute::Delta | Compute::DeltaAbs) => format!("{:+.2}%", p.delta),
                (Some(p), Compute::Ratio) if separator.is_none() || p.ratio > 0.0 => format!("{:14.6}", p.ratio),
                (Some(_), Compute::Ratio) => String::new(),
                // "%14ld" whatever the column's width.
                (Some(p), Compute::Wdiff { .. }) => format!("{:14}", p.wdiff),
            };
            let wdiff = matches!(d.compute, Compute::Wdiff { .. }) && !text.is_empty() && text != "N/A";
            cells.push(if separator.is_none() && !wdiff { format!("{text:>w$}") } else { text });
        }
        for (k, col) in d.sort.iter().zip(cols.iter().skip(d.files)) {
            cells.push(key_cell(r, *k, comm_w, col.width));
        }
        // Rows start under the header's text, past its `# `.
        let mut line = String::from(if separator.is_none() { "  " } else { "" });
        let last = cells.len().saturating_sub(1);
        for (i, (c, col)) in cells.iter().zip(&cols).enumerate() {
            if i > 0 {
                line.push_str(sep);
            }
            // perf pads every column but the last to its width (`hist_entry__snprintf_alignment`).
            let w = if i == last { 0 } else { col.width };
            let _ = write!(line, "{c:<w$}");
        }
        o.push_str(&line);
        o.push('\n');
    }
}

/// The keys `diff` and `runs` match rows by: not `srcline`, `parent` or `trace`.
pub(crate) fn only_diff_keys(sort: &[SortKey]) -> Result<()> {
    match sort.iter().find(|k| matches!(k, SortKey::Srcline | SortKey::Parent | SortKey::Trace) || k.is_branch()) {
        Some(k) => Err(crate::Error::Options(format!("--sort: no {} key here", k.header()))),
        None => Ok(()),
    }
}

/// A key's header as perf's sort entry has it (the thread's right-aligned in its 15 columns).
fn key_header(k: SortKey) -> &'static str {
    match k {
        SortKey::Pid => "    Pid:Command",
        k => k.header(),
    }
}

/// The text of a key's cell as perf's `se_snprintf` prints it in a column `width` wide (the
/// names padded, the symbol not).
fn key_cell(r: &DiffRow, k: SortKey, comm_w: usize, width: usize) -> String {
    match k {
        SortKey::Comm => {
            let c: String = r.comm.as_deref().unwrap_or("").chars().take(width).collect();
            format!("{c:<width$}")
        }
        SortKey::Pid => {
            let w = width.saturating_sub(8).max(comm_w.min(7));
            let c: String = r.comm.as_deref().unwrap_or("").chars().take(w).collect();
            format!("{:>7}:{c:<w$}", r.pid.unwrap_or(0))
        }
        // perf's "%*.*d": -1 is -001.
        SortKey::Cpu => match r.cpu.unwrap_or(-1) {
            c if c < 0 => format!("-{:03}", c.unsigned_abs()),
            c => format!("{:>width$}", format!("{c:03}")),
        },
        SortKey::Dso => format!("{:<width$}", r.dso.as_deref().unwrap_or("[unknown]")),
        SortKey::Sym => {
            let mark = if r.kernel == Some(true) { "[k]" } else { "[.]" };
            format!("{mark} {}", r.symbol.as_deref().unwrap_or(""))
        }
        SortKey::Srcline | SortKey::Parent | SortKey::Trace => String::new(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_parses_perfs_words() {
        assert_eq!("delta".parse::<Compute>(), Ok(Compute::Delta));
        assert_eq!("delta-abs".parse::<Compute>(), Ok(Compute::DeltaAbs));
        assert_eq!("ratio".parse::<Compute>(), Ok(Compute::Ratio));
        assert_eq!("wdiff:2,3".parse::<Compute>(), Ok(Compute::Wdiff { w1: 2, w2: 3 }));
        assert!("wdiff:0,3".parse::<Compute>().is_err());
        assert!("wdiff".parse::<Compute>().is_err());
        assert!("ratio:1".parse::<Compute>().is_err());
        assert!("sum".parse::<Compute>().is_err());
    }
}
