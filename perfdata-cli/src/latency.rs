//! `perfdata block latency` (block I/O latency histograms, heatmaps, tables).

use crate::folded::output;
use clap::{Args, Subcommand, ValueEnum};
use perfdata_analysis::latency::block::{block_latency_each, BlockCounts, BlockFilter, BlockOptions, Start};
use perfdata_analysis::latency::heatmap::{heatmap_line, parse_latency, Heatmap, HeatmapOptions};
use perfdata_analysis::latency::hist::{bcc_sections, IolatencyHist, Log2Hist, Percentiles};
use perfdata_analysis::latency::ShortStr;
use perfdata_analysis::options::TimeRange;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// `perfdata block …`.
#[derive(Subcommand)]
pub enum BlockCmd {
    /// Block I/O latency: block_rq_issue (or block_rq_insert with --queued) paired with
    /// block_rq_complete by (dev, sector). Default output: bcc biolatency's usecs histogram.
    Latency(BlockLatencyArgs),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BlockFormat {
    /// bcc biolatency's log2 histogram (`usecs : count distribution`).
    Hist,
    /// perf-tools iolatency's millisecond histogram.
    Iolatency,
    /// trace2heatmap.pl input: `completion_time_us latency_us` per I/O.
    Heatmap,
    /// Counts, percentiles and the log2 histogram as one JSON object.
    Json,
    /// One CSV row per I/O.
    Csv,
}

/// Options of `perfdata block latency`.
#[derive(Args)]
pub struct BlockLatencyArgs {
    /// perf.data file recorded with -e block:block_rq_issue -e block:block_rq_complete
    /// (and -e block:block_rq_insert for --queued), or - for stdin.
    file: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "hist")]
    format: BlockFormat,
    /// Latency from block_rq_insert (queued + device time, biolatency -Q / iolatency -Q).
    #[arg(short = 'Q', long)]
    queued: bool,
    /// One histogram per disk (biolatency -D), headed `disk = MAJOR,MINOR`.
    #[arg(short = 'D', long)]
    per_disk: bool,
    /// One histogram per rwbs flag string (like biolatency -F), headed `flags = WS`.
    #[arg(short = 'F', long)]
    per_flag: bool,
    /// Histogram in milliseconds (biolatency -m).
    #[arg(short = 'm', long)]
    msecs: bool,
    /// Draw a latency heat map SVG (time × latency, colour by count) instead.
    #[arg(long)]
    heatmap: bool,
    #[command(flatten)]
    heatmap_opts: HeatmapArgs,
    /// Only this device, MAJOR,MINOR.
    #[arg(short = 'd', long, value_parser = parse_dev)]
    dev: Option<(u32, u32)>,
    /// Only I/Os whose rwbs matches this glob (`*R*` reads, `W*` writes, `*S*` sync).
    #[arg(short = 'i', long)]
    rwbs: Option<String>,
    /// Only I/Os issued by this comm.
    #[arg(long)]
    comm: Option<String>,
    /// Only I/Os issued by this pid.
    #[arg(long)]
    pid: Option<u32>,
    /// Only I/Os completed in START,END (seconds, perf's --time; either side may be empty).
    #[arg(long)]
    time: Option<TimeRange>,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The look of `--heatmap` (block latency and wakeup latency alike).
#[derive(Args)]
#[command(next_help_heading = "Heat map (--heatmap)")]
pub struct HeatmapArgs {
    /// Top of the latency axis, e.g. 500us, 2ms, 1.5s (a plain number is µs); default: the
    /// 99.9th percentile. Latencies above it are counted in a row over the axis.
    #[arg(long, value_parser = parse_latency, value_name = "LATENCY")]
    max_lat: Option<u64>,
    /// Bottom of the latency axis (units as --max-lat); default: 0, or with --log the smallest
    /// latency rounded down to 1, 2 or 5 × 10^k. Latencies below it get a row under the axis.
    #[arg(long, value_parser = parse_latency, value_name = "LATENCY")]
    min_lat: Option<u64>,
    /// Latency rows (1 to 1000).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rows: u32,
    /// Logarithmic latency axis (rows in geometric progression).
    #[arg(long)]
    log: bool,
    /// Time column width in ms (default: about 100 columns over the recording).
    #[arg(long)]
    column_ms: Option<f64>,
    /// Picture width in pixels.
    #[arg(long, default_value_t = 1000)]
    width: u32,
    /// Picture height in pixels.
    #[arg(long, default_value_t = 500)]
    height: u32,
}

impl HeatmapArgs {
    /// The heat map options, titled; an error when the axis bottom is not below its top.
    fn options(&self, title: String, what: &str) -> Result<HeatmapOptions, String> {
        if let (Some(lo), Some(hi)) = (self.min_lat, self.max_lat) {
            if lo >= hi {
                return Err(format!("--min-lat ({lo} ns) must be below --max-lat ({hi} ns)"));
            }
        }
        Ok(HeatmapOptions {
            title,
            what: what.into(),
            rows: self.rows,
            column_ns: self.column_ms.filter(|m| m.is_finite() && *m > 0.0).map(|m| (m * 1e6).max(1.0) as u64),
            min_latency_ns: self.min_lat,
            max_latency_ns: self.max_lat,
            log: self.log,
            width: self.width,
            height: self.height,
            ..Default::default()
        })
    }
}

fn parse_dev(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--dev: {s:?} is not MAJOR,MINOR");
    let (a, b) = s.split_once([',', ':']).ok_or_else(bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

/// `perfdata block …`.
pub fn run_block(cmd: &BlockCmd) -> CliResult {
    match cmd {
        BlockCmd::Latency(a) => block_latency(a),
    }
}

fn counts_line(c: &BlockCounts) -> String {
    format!(
        "{} I/Os paired ({} filtered out), {} unmatched completes, {} unmatched starts, {} overwritten starts",
        c.paired, c.filtered, c.unmatched_completes, c.unmatched_starts, c.overwritten_starts
    )
}

fn block_latency(a: &BlockLatencyArgs) -> CliResult {
    let f = crate::open(&a.file)?;
    let opts = BlockOptions {
        start: if a.queued { Start::Insert } else { Start::Issue },
        filter: BlockFilter {
            dev: a.dev,
            rwbs: a.rwbs.clone(),
            comm: a.comm.clone(),
            pid: a.pid,
            from_ns: a.time.map(|t| t.start),
            to_ns: a.time.map(|t| t.end),
        },
    };
    let div = if a.msecs { 1_000_000 } else { 1000 };
    let label = if a.msecs { "msecs" } else { "usecs" };
    let mut out = String::new();
    if a.heatmap {
        let mut points = Vec::new();
        let counts = block_latency_each(&f, &opts, |io| points.push((io.complete_ns, io.latency_ns)))?;
        let title = format!(
            "Block I/O latency ({}) — {}",
            if a.queued { "insert → complete" } else { "issue → complete" },
            crate::shown(&a.file)
        );
        let ho = a.heatmap_opts.options(title, "I/Os")?;
        output(a.output.as_ref(), &Heatmap::new(&points, &ho).svg(&ho))?;
        eprintln!("perfdata: {}", counts_line(&counts));
        for d in &counts.diagnostics {
            crate::damage::warn(d.as_str());
        }
        return Ok(ExitCode::SUCCESS);
    }
    // The per-I/O formats stream: memory stays bounded by the I/Os in flight.
    let mut sink = crate::out::Out::new(a.output.as_ref())?;
    let counts = match a.format {
        BlockFormat::Hist => {
            // One histogram per disk or per flags (a handful): found by a short scan, named at the end.
            let mut by: Vec<((u32, u32, ShortStr), Log2Hist)> = Vec::new();
            let counts = block_latency_each(&f, &opts, |io| {
                let key = match (a.per_disk, a.per_flag) {
                    (true, _) => (io.dev_major, io.dev_minor, ShortStr::EMPTY),
                    (false, true) => (0, 0, io.rwbs),
                    (false, false) => (0, 0, ShortStr::EMPTY),
                };
                match by.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, h)) => h.add(io.latency_ns / div),
                    None => {
                        let mut h = Log2Hist::default();
                        h.add(io.latency_ns / div);
                        by.push((key, h));
                    }
                }
            })?;
            if a.per_disk || a.per_flag {
                let header = if a.per_disk { "disk" } else { "flags" };
                let named: BTreeMap<String, &Log2Hist> = by
                    .iter()
                    .map(|((major, minor, flags), h)| {
                        let name =
                            if a.per_disk { format!("{major},{minor}") } else { flags.to_str_lossy().into_owned() };
                        (name, h)
                    })
                    .collect();
                out.push_str(&bcc_sections(header, label, named.iter().map(|(k, h)| (k.as_str(), *h))));
            } else if let Some((_, h)) = by.first() {
                out.push_str(&h.bcc_text(label));
            }
            counts
        }
        BlockFormat::Iolatency => {
            let mut h = IolatencyHist::new();
            let counts = block_latency_each(&f, &opts, |io| h.add_ns(io.latency_ns))?;
            out.push_str(&h.text());
            counts
        }
        BlockFormat::Heatmap => block_latency_each(&f, &opts, |io| {
            heatmap_line(&mut out, io.complete_ns, io.latency_ns);
            sink.spill(&mut out);
        })?,
        BlockFormat::Csv => {
            out.push_str("dev_major,dev_minor,sector,nr_sector,bytes,rwbs,comm,pid,tid,cpu,start_ns,complete_ns,latency_ns,queue_ns,error\n");
            let mut num = itoa::Buffer::new();
            block_latency_each(&f, &opts, |io| {
                let o = &mut out;
                for v in [u64::from(io.dev_major), u64::from(io.dev_minor), io.sector, u64::from(io.nr_sector)] {
                    o.push_str(num.format(v));
                    o.push(',');
                }
                o.push_str(num.format(io.bytes));
                o.push(',');
                push_csv_field(o, &io.rwbs.to_str_lossy());
                o.push(',');
                push_csv_field(o, &io.comm.to_str_lossy());
                for v in [io.pid, io.tid, io.cpu] {
                    o.push(',');
                    o.push_str(num.format(v));
                }
                for v in [io.start_ns, io.complete_ns, io.latency_ns] {
                    o.push(',');
                    o.push_str(num.format(v));
                }
                o.push(',');
                if let Some(q) = io.queue_ns {
                    o.push_str(num.format(q));
                }
                o.push(',');
                o.push_str(num.format(io.error));
                o.push('\n');
                sink.spill(&mut out);
            })?
        }
        BlockFormat::Json => {
            let mut lat = Vec::new();
            let mut h = Log2Hist::new();
            let counts = block_latency_each(&f, &opts, |io| {
                lat.push(io.latency_ns);
                h.add(io.latency_ns / div);
            })?;
            let p = Percentiles::from_values(&mut lat);
            let rows: Vec<serde_json::Value> = h
                .rows()
                .iter()
                .map(|&(lo, hi, n)| serde_json::json!({"interval-start": lo, "interval-end": hi, "count": n}))
                .collect();
            let v = serde_json::json!({
                "start": if a.queued { "insert" } else { "issue" },
                "counts": {
                    "starts": counts.starts, "completes": counts.completes, "paired": counts.paired,
                    "filtered": counts.filtered, "unmatched_completes": counts.unmatched_completes,
                    "unmatched_starts": counts.unmatched_starts, "overwritten_starts": counts.overwritten_starts,
                },
                "latency_ns": {
                    "count": p.count, "min": p.min, "avg": p.avg, "p50": p.p50, "p90": p.p90,
                    "p99": p.p99, "p99.9": p.p999, "max": p.max,
                },
                "val_type": label,
                "data": rows,
            });
            out.push_str(&serde_json::to_string_pretty(&v)?);
            out.push('\n');
            counts
        }
    };
    sink.put(&out);
    sink.finish(&counts.diagnostics)?;
    if matches!(a.format, BlockFormat::Hist | BlockFormat::Iolatency) {
        eprintln!("perfdata: {}", counts_line(&counts));
    }
    Ok(ExitCode::SUCCESS)
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    let mut o = String::new();
    push_csv_field(&mut o, s);
    o
}

/// Append `s` as a CSV field: quoted (quotes doubled) when it holds a comma, quote or line break.
fn push_csv_field(o: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        o.push('"');
        o.push_str(&s.replace('"', "\"\""));
        o.push('"');
    } else {
        o.push_str(s);
    }
}

/// Options of `perfdata sched wakeup-latency` (also `perfdata wakeup-latency`).
#[derive(Args)]
pub struct WakeupLatencyArgs {
    /// perf.data file from `perf sched record` (sched_switch and sched_waking/wakeup), or - for stdin.
    file: String,
    /// Output: the runqlat-style histogram and a per-task table, or one CSV row per wait.
    #[arg(long, value_enum, default_value = "hist")]
    format: WakeupFormat,
    /// Histogram in milliseconds (runqlat -m).
    #[arg(short = 'm', long)]
    msecs: bool,
    /// Count only wakeups, not preemptions (perf 6.1 `perf sched timehist`'s sch delay).
    #[arg(long)]
    no_preempted: bool,
    /// Draw a latency heat map SVG (time of the switch-in × wait, colour by count) instead.
    #[arg(long)]
    heatmap: bool,
    #[command(flatten)]
    heatmap_opts: HeatmapArgs,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WakeupFormat {
    /// bcc runqlat's log2 histogram, then the per-task table.
    Hist,
    /// One CSV row per wait.
    Csv,
}

/// `perfdata sched wakeup-latency`. Streams: the histogram and the per-task table keep a summary
/// per thread, the CSV rows are written as the waits end (memory bounded by the threads).
pub fn wakeup_latency(a: &WakeupLatencyArgs) -> CliResult {
    use perfdata_analysis::latency::wakeup::{wakeup_latency_each, TaskSummary, WakeupOptions};
    let f = crate::open(&a.file)?;
    let opts = WakeupOptions { preempted: !a.no_preempted };
    if a.heatmap {
        let title = format!("Wakeup latency — {}", crate::shown(&a.file));
        let ho = a.heatmap_opts.options(title, "waits")?;
        let mut points = Vec::new();
        let diagnostics = wakeup_latency_each(&f, &opts, |e| points.push((e.run_ns, e.delay_ns)))?;
        output(a.output.as_ref(), &Heatmap::new(&points, &ho).svg(&ho))?;
        for d in &diagnostics {
            crate::damage::warn(d.as_str());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    // The output is opened once the histogram is made (no file for a recording that has no
    // sched events), or before the CSV rows, which are written as they come.
    let (mut sink, diagnostics) = match a.format {
        WakeupFormat::Hist => {
            let (div, label) = if a.msecs { (1_000_000, "msecs") } else { (1000, "usecs") };
            let mut h = Log2Hist::new();
            let mut tasks: BTreeMap<u32, TaskSummary> = BTreeMap::new();
            let diagnostics = wakeup_latency_each(&f, &opts, |e| {
                h.add(e.delay_ns / div);
                tasks.entry(e.tid).or_default().add(e);
            })?;
            out.push_str(&h.bcc_text(label));
            let _ = writeln!(
                out,
                "\n{:>8}  {:<16} {:>8} {:>14} {:>12} {:>12}",
                "TID", "COMM", "WAITS", "TOTAL(us)", "AVG(us)", "MAX(us)"
            );
            let mut tasks: Vec<_> = tasks.into_iter().collect();
            tasks.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(&b.0)));
            for (tid, t) in tasks {
                let avg = t.total_ns.checked_div(t.count).unwrap_or(0);
                let _ = writeln!(
                    out,
                    "{tid:>8}  {:<16} {:>8} {:>14} {:>12} {:>12}",
                    t.comm.to_string(),
                    t.count,
                    micros3(t.total_ns),
                    micros3(avg),
                    micros3(t.max_ns)
                );
            }
            (crate::out::Out::new(a.output.as_ref())?, diagnostics)
        }
        WakeupFormat::Csv => {
            let mut sink = crate::out::Out::new(a.output.as_ref())?;
            out.push_str("tid,comm,cpu,wake_ns,run_ns,delay_ns,preempted\n");
            let diagnostics = wakeup_latency_each(&f, &opts, |e| {
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    e.tid,
                    csv_field(&e.comm.to_string()),
                    e.cpu,
                    e.wake_ns,
                    e.run_ns,
                    e.delay_ns,
                    e.preempted
                );
                sink.spill(&mut out);
            })?;
            (sink, diagnostics)
        }
    };
    sink.put(&out);
    sink.finish(&diagnostics)
}

/// ns as µs with three decimals.
fn micros3(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}
