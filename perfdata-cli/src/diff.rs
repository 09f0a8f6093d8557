//! `perfdata diff`: perf diff's table of a baseline recording and one or more new ones.

use crate::folded::FoldArgs;
use crate::out::Out;
use clap::ValueEnum;
use perfdata_analysis::diff::{diff, diff_text, Compute, DiffOptions, Percentage};
use perfdata_analysis::report::SortKey;
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
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    files: Vec<String>,
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
