//! `perfdata annotate`: perf annotate's `--stdio` text, objdump run as perf 6.1 runs it.

use clap::Args;
use perfdata_analysis::annotate::{annotate, annotation_text, source_line_summary, AnnotateOptions, PercentType};
use perfdata_analysis::options::{FoldRequest, TimeRanges};
use perfdata_analysis::Error;
use std::path::PathBuf;

/// perf annotate's options, same names and meanings.
#[derive(Args)]
pub struct AnnotateArgs {
    /// perf.data file, or - for stdin.
    #[arg(default_value = "perf.data")]
    file: String,
    /// The symbol to annotate; without it, every symbol with samples, hottest first.
    symbol: Option<String>,
    /// What the percentages are of: local-period (the symbol's event count, the default),
    /// global-period (the event's), local-hits (the symbol's samples), global-hits (perf 6.1
    /// shows 0.00 for every instruction there, and so does perfdata).
    #[arg(long, value_name = "TYPE", default_value = "local-period")]
    percent_type: String,
    /// Leave out the symbols whose share of their event's count is under this percentage
    /// (perf's --percent-limit: read as C's strtof reads it, so `5%` is 5 and `abc` 0, no
    /// limit). With SYMBOL the share is of that symbol's samples only, as in perf 6.1.
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true)]
    percent_limit: Option<String>,
    /// Each instruction's number of samples instead of its percentage (perf annotate -n).
    #[arg(short = 'n', long = "show-nr-samples")]
    show_nr_samples: bool,
    /// objdump's disassembler style, passed on as `objdump -M STYLE` (perf's -M, e.g. `-M
    /// intel` for Intel syntax).
    #[arg(short = 'M', long, value_name = "STYLE")]
    disassembler_style: Option<String>,
    /// Each instruction's bytes before it, as objdump prints them (perf's --asm-raw: objdump
    /// without --no-show-raw-insn; a long instruction's further bytes on a line of their own).
    #[arg(long)]
    asm_raw: bool,
    /// Each instruction over 0.5 percent followed by its source line (where that changes), and
    /// before each symbol a summary of its source lines, highest share first (perf's
    /// -l/--print-line; the lines come from the binary's DWARF, as addr2line reads it).
    #[arg(short = 'l', long)]
    print_line: bool,
    /// The objdump to run (default: objdump on PATH).
    #[arg(long, value_name = "PATH", default_value = "objdump")]
    objdump: PathBuf,
    /// Prepended to the source files' paths objdump reads source lines from (with
    /// --prefix-strip; perf's and objdump's --prefix).
    #[arg(long, value_name = "DIR")]
    prefix: Option<String>,
    /// Leading directories taken off the source files' paths before --prefix.
    #[arg(long, value_name = "N")]
    prefix_strip: Option<u32>,
    /// Only samples in these time ranges, perf's `--time`: `START,END` in seconds, several
    /// separated by spaces, or slices of the recording (`10%/2`).
    #[arg(long, value_name = "START,END")]
    time: Option<String>,
    #[command(flatten)]
    symbols: crate::symbols::SymbolArgs,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Text output, as `perf annotate --stdio` (the only kind; accepted for perf's habit).
    #[arg(long)]
    stdio: bool,
}

/// `perfdata annotate`.
pub fn run(a: &AnnotateArgs) -> crate::CliResult {
    let percent_type = PercentType::parse(&a.percent_type).ok_or_else(|| {
        format!(
            "--percent-type: unknown type `{}' (local-period, global-period, local-hits, global-hits)",
            a.percent_type
        )
    })?;
    let (path, _spool) = crate::spooled(&a.file)?;
    let f = crate::open(&path)?;
    let request = FoldRequest {
        time: a.time.as_deref().map(str::parse::<TimeRanges>).transpose()?,
        symbolize: a.symbols.options(true)?,
        ..FoldRequest::default()
    };
    let opts = AnnotateOptions {
        symbol: a.symbol.clone(),
        fold: request.options()?,
        percent_type,
        objdump: a.objdump.clone(),
        prefix: a.prefix.clone(),
        prefix_strip: a.prefix_strip,
        disassembler_style: a.disassembler_style.clone(),
        asm_raw: a.asm_raw,
        print_line: a.print_line,
        percent_limit: a.percent_limit.as_deref().map_or(0.0, strtof),
    };
    let done = annotate(&f, &opts)?;
    // Symbols left out by --percent-limit are not an error: perf prints nothing either.
    let limited = done.is_empty() && opts.percent_limit != 0.0;
    if let (Some(name), true, false) = (&a.symbol, done.is_empty(), limited) {
        return Err(format!("no samples in a symbol named {name}").into());
    }
    let mut out = crate::out::Out::new(a.output.as_ref())?;
    let mut printed = 0usize;
    for ann in done {
        match ann {
            Ok(ann) => {
                if a.print_line {
                    out.put(&source_line_summary(&ann));
                }
                out.put(&annotation_text(&ann, a.show_nr_samples));
                printed += 1;
            }
            // Without objdump nothing can be annotated.
            Err(e @ Error::Io { .. }) => return Err(format!("cannot run objdump: {e}").into()),
            Err(e) if a.symbol.is_some() => return Err(e.into()),
            Err(e) => {
                // What was annotated before it comes first on a terminal.
                out.flush();
                eprintln!("perfdata: {e}");
            }
        }
    }
    let status = out.finish(&[])?;
    if printed == 0 && !limited {
        return Err("no symbol could be annotated (see above)".into());
    }
    Ok(status)
}

/// C's `strtof`: the number at the start of `s` (after white space), 0 when there is none.
fn strtof(s: &str) -> f32 {
    let s = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
    // The longest prefix Rust reads as a number; Rust takes what strtof takes but hex floats.
    (1..=s.len()).rev().filter_map(|n| s.get(..n)).find_map(|p| p.parse::<f32>().ok()).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn percent_limit_as_strtof_reads_it() {
        use super::strtof;
        assert_eq!(strtof("5"), 5.0);
        assert_eq!(strtof("5%"), 5.0);
        assert_eq!(strtof(" 2.5e1x"), 25.0);
        assert_eq!(strtof("-1"), -1.0);
        assert_eq!(strtof("abc"), 0.0);
        assert_eq!(strtof(""), 0.0);
    }
}
