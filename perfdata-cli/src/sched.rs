//! `perfdata sched map|latency|timehist|timeline`: perf sched's analyses with perf's option names.

use crate::out::Out;
use clap::{Args, Subcommand};
use perfdata_analysis::options::TimeRange;
use perfdata_analysis::sched::latency::{parse_sort, sched_latency, GroupBy, LatencyOptions, DEFAULT_SORT};
use perfdata_analysis::sched::map::{sched_map_each, MapOptions, MapRow};
use perfdata_analysis::sched::timehist::{sched_timehist_each, Row, SummaryMode, TimehistOptions, TimehistText};
use perfdata_analysis::sched::timeline::{Rows, TimelineOptions};
use perfdata_analysis::sched::Compat;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

const COMPAT_HELP: &str = "modern (default): sched_waking is the wakeup, preempted tasks (R+) are runnable, as perf >= 6.5 computes; perf-6.1: perf 6.1's output byte for byte (its latency and map ignore sched_waking, so only new tasks are ever woken; only prev_state 0 is runnable; timehist's 6.1 state letters)";

/// `perfdata sched …`.
#[derive(Subcommand)]
pub enum SchedCmd {
    /// Per task: run time, number of scheduling delays, average and largest delay (perf sched
    /// latency). Grouped by final comm unless -p.
    Latency(LatencyArgs),
    /// One line per context switch, a column per CPU showing its task (perf sched map).
    Map(MapArgs),
    /// One row per context switch: wait (sleep/iowait/preempt), scheduling delay and run time of
    /// the task switched out (perf sched timehist); -s/-S for the per-task summary.
    Timehist(TimehistArgs),
    /// A picture: one lane per CPU coloured by task, wakeup→run delays, zoom/search/tooltips (SVG).
    Timeline(TimelineArgs),
    /// Run-queue latency (wakeup or preemption to switch-in): bcc runqlat's histogram and a
    /// per-task table.
    WakeupLatency(crate::latency::WakeupLatencyArgs),
}

/// What every sched subcommand takes.
#[derive(Args)]
pub struct Common {
    /// perf.data file recorded by `perf sched record` (file or pipe format), or - for stdin.
    file: String,
    /// Semantics: modern or perf-6.1.
    #[arg(long, default_value = "modern", help = COMPAT_HELP)]
    compat: Compat,
    /// One JSON object per row (snake_case keys, times in ns), instead of perf's text.
    #[arg(long)]
    json: bool,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Options of `perfdata sched latency`.
#[derive(Args)]
pub struct LatencyArgs {
    #[command(flatten)]
    common: Common,
    /// One row per thread instead of per comm.
    #[arg(short = 'p', long)]
    pids: bool,
    /// Sort keys, descending, first decides: pid, avg, max, switch, runtime.
    #[arg(short = 's', long, default_value = "avg,max,switch,runtime")]
    sort: String,
    /// perf's profile-CPU mode (-C): wakeups of running tasks count, migrations restart waits.
    /// It does not restrict the rows to that CPU.
    #[arg(short = 'C', long)]
    cpu: Option<u32>,
}

/// Options of `perfdata sched map`.
#[derive(Args)]
pub struct MapArgs {
    #[command(flatten)]
    common: Common,
    /// Columns only for the CPUs that switched so far (in order of first switch).
    #[arg(long)]
    compact: bool,
    /// Only these CPUs (perf's list syntax: 0-3,7); other CPUs' lines keep the columns only.
    #[arg(long, value_parser = cpu_list)]
    cpus: Option<CpuList>,
}

/// Options of `perfdata sched timehist`.
#[derive(Args)]
pub struct TimehistArgs {
    #[command(flatten)]
    common: Common,
    /// Show wakeup rows.
    #[arg(short = 'w', long)]
    wakeups: bool,
    /// Show migration rows (and count migrations in the summary).
    #[arg(short = 'M', long)]
    migrations: bool,
    /// A column per CPU marking the switching one (s, i for idle, m migration).
    #[arg(short = 'V', long)]
    cpu_visual: bool,
    /// The state of the task switched out; with a summary, the wait-time summary.
    #[arg(long)]
    state: bool,
    /// The task switched in.
    #[arg(short = 'n', long)]
    next: bool,
    /// The summary only (per task: switches, run time min/avg/max, stddev; idle stats).
    #[arg(short = 's', long)]
    summary: bool,
    /// The rows and the summary.
    #[arg(short = 'S', long)]
    with_summary: bool,
    /// Idle histogram: only switches to and from idle; idle time per task that ran before it.
    #[arg(short = 'I', long)]
    idle_hist: bool,
    /// Only these processes (comma-separated).
    #[arg(short = 'p', long, value_delimiter = ',')]
    pid: Option<Vec<u32>>,
    /// Only these threads (comma-separated).
    #[arg(short = 't', long, value_delimiter = ',')]
    tid: Option<Vec<u32>>,
    /// Only these CPUs (0-3,7).
    #[arg(short = 'C', long, value_parser = cpu_list)]
    cpu: Option<CpuList>,
    /// Only START,END (seconds, perf's --time syntax).
    #[arg(long)]
    time: Option<TimeRange>,
}

/// Options of `perfdata sched timeline`.
#[derive(Args)]
pub struct TimelineArgs {
    /// perf.data file recorded by `perf sched record`, or - for stdin.
    file: String,
    /// Write the SVG here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Only START,END (seconds, perf's --time syntax).
    #[arg(long)]
    time: Option<TimeRange>,
    /// Width of the picture in pixels (it scales to the window; runs shorter than a pixel of this
    /// width are merged).
    #[arg(long, default_value_t = 1600)]
    width: u32,
    /// A lane per CPU (coloured by task) or per task (perf timechart's view, coloured by CPU).
    #[arg(long, default_value = "cpu", value_name = "cpu|task")]
    rows: Rows,
    /// With --rows task: the tasks longest running or waiting to run, at most this many (0: all).
    #[arg(long, default_value_t = 40, value_name = "N")]
    tasks: usize,
}

/// A CPU list option (one value, perf's list syntax).
#[derive(Clone, Debug)]
pub struct CpuList(Vec<u32>);

fn cpu_list(s: &str) -> Result<CpuList, String> {
    perfdata_core::feature::topology::parse_cpu_list(s)
        .filter(|l| l.iter().all(|&c| c >= 0))
        .map(|l| CpuList(l.into_iter().map(|c| c as u32).collect()))
        .ok_or_else(|| format!("bad CPU list {s:?} (like 0-3,7)"))
}

/// `perfdata sched …`.
pub fn run(cmd: &SchedCmd) -> CliResult {
    match cmd {
        SchedCmd::Latency(a) => latency(a),
        SchedCmd::Map(a) => map(a),
        SchedCmd::Timehist(a) => timehist(a),
        SchedCmd::Timeline(a) => crate::timeline::run(
            &a.file,
            a.output.as_ref(),
            TimelineOptions { time: a.time, width: a.width, rows: a.rows, tasks: a.tasks, title: String::new() },
        ),
        SchedCmd::WakeupLatency(a) => crate::latency::wakeup_latency(a),
    }
}

fn latency(a: &LatencyArgs) -> CliResult {
    let f = crate::open(&a.common.file)?;
    let sort = parse_sort(&a.sort)?;
    let opts = LatencyOptions {
        by: if a.pids { GroupBy::Tid } else { GroupBy::Comm },
        sort: if sort.is_empty() { DEFAULT_SORT.to_vec() } else { sort },
        compat: a.common.compat,
        cpu: a.cpu,
    };
    let lat = sched_latency(&f, &opts)?;
    let mut out = Out::new(a.common.output.as_ref())?;
    if a.common.json {
        for r in &lat.rows {
            out.json(&json!({
                "task": r.task, "tid": r.tid, "tids": r.tids, "runtime_ns": r.runtime_ns,
                "switches": r.switches, "total_delay_ns": r.total_delay_ns, "avg_delay_ns": r.avg_delay_ns,
                "max_delay_ns": r.max_delay_ns, "max_delay_start_ns": r.max_delay_start_ns,
                "max_delay_end_ns": r.max_delay_end_ns,
            }));
        }
        let i = &lat.info;
        out.json(&json!({"info": {
            "context_switch_bugs": i.context_switch_bugs, "nr_timestamps": i.nr_timestamps,
            "unordered_timestamps": i.unordered_timestamps, "lost_events": i.lost_events,
            "lost_chunks": i.lost_chunks, "nr_events": i.nr_events, "time_reversals": i.time_reversals,
        }}));
    } else {
        out.put(&lat.text());
    }
    out.finish(&lat.diagnostics)
}

fn map_json(r: &MapRow<'_>) -> serde_json::Value {
    let cols: Vec<serde_json::Value> =
        r.columns.iter().map(|(cpu, n)| json!({"cpu": cpu, "task": n.map(|n| n.as_str())})).collect();
    json!({
        "time_ns": r.time_ns, "cpu": r.cpu, "tid": r.tid, "columns": cols,
        "new_name": r.new_name.as_ref().map(|n| json!({"short": n.short.as_str(), "comm": n.comm, "tid": n.tid})),
        "new_cpu": r.new_cpu, "hidden": r.hidden,
    })
}

fn map(a: &MapArgs) -> CliResult {
    let f = crate::open(&a.common.file)?;
    let opts = MapOptions { compact: a.compact, cpus: a.cpus.clone().map(|c| c.0), nr_cpus: None };
    let mut out = Out::new(a.common.output.as_ref())?;
    let mut line = String::new();
    let json = a.common.json;
    let s = sched_map_each(&f, &opts, |r| {
        if json {
            out.json(&map_json(r));
        } else {
            line.clear();
            r.write_text(&mut line);
            out.put(&line);
        }
    })?;
    out.finish(&s.diagnostics)
}

/// A timehist row as JSON.
pub fn row_json(r: &Row<'_>) -> serde_json::Value {
    match r {
        Row::Switch(r) => json!({
            "kind": "switch", "time_ns": r.time_ns, "cpu": r.cpu, "tid": r.tid, "pid": r.pid,
            "comm": r.comm, "idle": r.idle, "wait_ns": r.wait_ns, "sleep_ns": r.sleep_ns,
            "iowait_ns": r.iowait_ns, "preempt_ns": r.preempt_ns, "delay_ns": r.delay_ns,
            "run_ns": r.run_ns, "state": r.state.to_string(), "state_label": r.state_label,
            "prev_state": r.prev_state, "next_comm": r.next_comm, "next_pid": r.next_pid,
        }),
        Row::Wakeup(r) => json!({
            "kind": "wakeup", "time_ns": r.time_ns, "cpu": r.cpu, "tid": r.tid, "pid": r.pid,
            "comm": r.comm, "wakee_tid": r.wakee_tid, "wakee_comm": r.wakee_comm,
        }),
        Row::Migration(r) => json!({
            "kind": "migration", "time_ns": r.time_ns, "cpu": r.cpu, "tid": r.tid, "pid": r.pid,
            "comm": r.comm, "task_tid": r.task_tid, "task_comm": r.task_comm,
            "orig_cpu": r.orig_cpu, "dest_cpu": r.dest_cpu,
        }),
    }
}

fn timehist(a: &TimehistArgs) -> CliResult {
    let f = crate::open(&a.common.file)?;
    let opts = TimehistOptions {
        compat: a.common.compat,
        wakeups: a.wakeups,
        migrations: a.migrations,
        cpu_visual: a.cpu_visual,
        state: a.state,
        next: a.next,
        summary: if a.summary {
            SummaryMode::Only
        } else if a.with_summary {
            SummaryMode::With
        } else {
            SummaryMode::None
        },
        idle_hist: a.idle_hist,
        pids: a.pid.clone(),
        tids: a.tid.clone(),
        cpus: a.cpu.clone().map(|c| c.0),
        time: a.time,
    };
    let mut out = Out::new(a.common.output.as_ref())?;
    let json = a.common.json;
    let mut text = TimehistText::new(&opts);
    if !json && opts.summary != SummaryMode::Only {
        let cpus = perfdata_analysis::sched::timehist::header_cpus(&f);
        out.put(&text.header(cpus + 1));
    }
    let mut line = String::new();
    let th = sched_timehist_each(&f, &opts, |r| {
        if json {
            out.json(&row_json(r));
        } else {
            line.clear();
            text.row(r, &mut line);
            out.put(&line);
        }
    })?;
    if let Some(s) = &th.summary {
        if json {
            for t in &s.tasks {
                out.json(&json!({"summary": {
                    "comm": t.comm, "tid": t.tid, "pid": t.pid, "ppid": t.ppid, "terminated": t.terminated,
                    "count": t.count, "run_ns": t.run_ns, "min_run_ns": t.min_run_ns,
                    "avg_run_ns": t.avg_run_ns, "max_run_ns": t.max_run_ns, "stddev_pct": t.stddev_pct,
                    "migrations": t.migrations, "sleep_ns": t.sleep_ns, "iowait_ns": t.iowait_ns,
                    "preempt_ns": t.preempt_ns, "delay_ns": t.delay_ns,
                }}));
            }
            for i in s.idle.iter().flatten() {
                out.json(&json!({"idle": {"cpu": i.cpu, "idle_ns": i.idle_ns, "pct": i.pct}}));
            }
            out.json(&json!({"totals": {
                "tasks": s.total_tasks, "switches": s.total_switches, "run_ns": s.total_run_ns,
                "window_ns": s.window_ns, "nr_cpus": s.nr_cpus,
            }}));
        } else {
            let mut o = String::new();
            text.summary(s, &mut o);
            out.put(&o);
        }
    }
    out.finish(&th.diagnostics)
}
