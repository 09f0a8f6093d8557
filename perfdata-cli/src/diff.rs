//! `perfdata diff`: perf diff's table of a baseline recording and one or more new ones.

use crate::folded::FoldArgs;
use crate::out::Out;
use clap::ValueEnum;
use perfdata_analysis::diff::{diff, diff_text, Compute, DiffOptions, Percentage};
use perfdata_analysis::report::SortKey;
use perfdata_analysis::runs::{compare, compare_text, CompareOptions, Threshold};
use std::path::PathBuf;
use std::process::ExitCode;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// perf diff's `--percentage`.
#[derive(Clone, Copy, ValueEnum)]
pub enum PercentageArg {
    /// Of every sample (perf's default).
    Absolute,
    /// Of the samples the thread filters (--pid, --tid, --comm) keep.
    Relative,
}

/// `perfdata diff`'s arguments: perf diff's option names.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// The baseline perf.data file, then the files to compare with it.
    #[arg(required_unless_present = "baseline", num_args = 2.., value_name = "FILE")]
    files: Vec<String>,
    /// Several runs per side: the baseline's recordings (a directory is one `perf record
    /// --threads` recording). With --new, the table gives each symbol's mean share on each side
    /// and the change with a confidence interval from the run-to-run variation (Welch's
    /// t-interval, Bonferroni-corrected over the rows: docs/diff.md), `*` where it excludes 0.
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "new", conflicts_with = "files")]
    baseline: Vec<String>,
    /// The new side's recordings (with --baseline).
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "baseline")]
    new: Vec<String>,
    /// With --baseline/--new: exit with status 4 when a row crosses this threshold — `delta >
    /// 2%` (the whole interval above 2 percentage points), `delta < -1%`, `ratio > 1.1` (and
    /// significant); may be given more than once. The rows that cross are listed on stderr.
    #[arg(long, value_name = "EXPR", requires = "baseline")]
    fail_if: Vec<String>,
    /// With --baseline/--new: the confidence of the intervals, for all rows together.
    #[arg(long, default_value_t = 0.95, value_name = "P", requires = "baseline")]
    confidence: f64,
    /// With --baseline/--new: the event compared (perf's name; default the first).
    #[arg(long, value_name = "EVENT", requires = "baseline")]
    event: Option<String>,
    /// With --baseline/--new: one JSON object per row instead of the table.
    #[arg(long, requires = "baseline")]
    json: bool,
    /// What to compute per new file: delta (difference of the percentages), delta-abs (the
    /// same, rows by its absolute value; default), ratio (of the event counts), wdiff:W1,W2
    /// (new count × W2 − baseline count × W1).
    #[arg(short, long, default_value = "delta-abs", value_name = "METHOD")]
    compute: String,
    /// The keys entries are grouped and paired by, perf's: dso, sym, comm, pid, cpu.
    #[arg(short, long, default_value = "dso,sym", value_name = "KEYS")]
    sort: String,
    /// What the percentages are of.
    #[arg(long, value_enum, default_value = "absolute")]
    percentage: PercentageArg,
    /// The file whose computed column orders the rows first (perf's --order; 0: the baseline).
    #[arg(short, long, default_value_t = 1, value_name = "N")]
    order: usize,
    /// Separate the columns with this instead of padding them (perf's -t).
    #[arg(short = 't', long, value_name = "SEP")]
    field_separator: Option<String>,
    /// Write the table here instead of stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    fold: FoldArgs,
}

/// Run `perfdata diff`.
pub fn run(a: &DiffArgs) -> CliResult {
    if !a.baseline.is_empty() {
        return runs(a);
    }
    let compute: Compute = a.compute.parse()?;
    let sort = SortKey::parse_list(&a.sort)?;
    if a.field_separator.as_deref().is_some_and(str::is_empty) {
        return Err("--field-separator: an empty separator".into());
    }
    let files = a.files.iter().map(|p| crate::open(p)).collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<_> = files.iter().collect();
    let percentage = match a.percentage {
        PercentageArg::Absolute => Percentage::Absolute,
        PercentageArg::Relative => Percentage::Relative,
    };
    let opts = DiffOptions { compute, sort, percentage, order: a.order, fold: a.fold.options()? };
    let d = diff(&refs, &opts)?;
    for (i, message) in &d.diagnostics {
        if let Some(path) = a.files.get(*i) {
            crate::damage::warn_in(crate::shown(path), message);
        }
    }
    let names: Vec<&str> = a.files.iter().map(String::as_str).collect();
    let mut out = Out::new(a.output.as_ref())?;
    out.put(&diff_text(&d, &names, a.field_separator.as_deref()));
    out.finish(&[])
}

/// `perfdata diff --baseline A… --new B…`: the statistics across runs.
fn runs(a: &DiffArgs) -> CliResult {
    let gates = a.fail_if.iter().map(|g| g.parse::<Threshold>()).collect::<Result<Vec<_>, _>>()?;
    let open = |paths: &[String]| paths.iter().map(|p| crate::open(p)).collect::<Result<Vec<_>, _>>();
    let (base, new) = (open(&a.baseline)?, open(&a.new)?);
    let sort = SortKey::parse_list(&a.sort)?;
    let opts = CompareOptions { sort, fold: a.fold.options()?, event: a.event.clone(), confidence: a.confidence };
    let c = compare(&base.iter().collect::<Vec<_>>(), &new.iter().collect::<Vec<_>>(), &opts)?;
    let names: Vec<&String> = a.baseline.iter().chain(&a.new).collect();
    for (i, message) in &c.diagnostics {
        if let Some(path) = names.get(*i) {
            crate::damage::warn_in(crate::shown(path), message);
        }
    }
    let mut out = Out::new(a.output.as_ref())?;
    if a.json {
        for r in &c.rows {
            let v = serde_json::json!({
                "dso": r.dso, "kernel": r.kernel, "symbol": r.symbol, "comm": r.comm,
                "baseline": r.baseline, "new": r.new,
                "baseline_mean": r.baseline_mean, "new_mean": r.new_mean, "delta": r.delta,
                "ratio": if r.ratio.is_finite() { serde_json::json!(r.ratio) } else { serde_json::Value::Null },
                "interval": r.interval.map(|(lo, hi)| [lo, hi]), "significant": r.significant,
            });
            out.put(&format!("{v}\n"));
        }
    } else {
        out.put(&compare_text(&c));
    }
    let status = out.finish(&[])?;
    let mut crossed = 0;
    for g in &gates {
        for r in c.rows.iter().filter(|r| g.crossed(r)) {
            crossed += 1;
            let what =
                [r.comm.as_deref(), r.dso.as_deref(), r.symbol.as_deref()].into_iter().flatten().collect::<Vec<_>>();
            eprintln!(
                "perfdata: --fail-if {g}: {} {:+.2} points ({:.2}% -> {:.2}%)",
                what.join(" "),
                r.delta,
                r.baseline_mean,
                r.new_mean
            );
        }
    }
    if crossed > 0 {
        return Ok(ExitCode::from(4));
    }
    Ok(status)
}
