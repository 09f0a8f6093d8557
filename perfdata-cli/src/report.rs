//! `perfdata report`: perf report's `--stdio` text, with its options.

use clap::Args;
use perfdata_analysis::options::{FoldRequest, TimeRanges};
use perfdata_analysis::report::{
    report_group_view, report_per_event, report_table, CallGraph, ChainOrder, Report, ReportOptions, SortKey,
    TableOptions,
};
use perfdata_core::abi::sample_type;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// perf report's options, same names and meanings.
#[derive(Args)]
pub struct ReportArgs {
    /// perf.data file, or - for stdin.
    #[arg(default_value = "perf.data")]
    file: String,
    /// The columns to group by, perf's keys: comm, pid, dso, sym, cpu, srcline (the address's
    /// source file:line, else symbol+offset), parent (the callchain's first function matching
    /// --parent, else `[other]`), trace (a tracepoint's text); default comm,dso,sym, or trace
    /// when every event is a tracepoint, as in perf.
    #[arg(short, long, value_name = "KEYS")]
    sort: Option<String>,
    /// The functions the parent key looks for on the callchains, a regular expression (default
    /// `^sys_|^do_page_fault`); giving it adds the parent column, as in perf.
    #[arg(short = 'p', long, value_name = "REGEX")]
    parent: Option<String>,
    /// Only the rows with a parent (perf's -x; none unless parent is a key or --parent given).
    #[arg(short = 'x', long)]
    exclude_other: bool,
    /// Also count the functions on the samples' callchains, with their callees' samples: the
    /// Children column, rows by it. The default when the samples have callchains (not for a
    /// pipe's recording, as in perf).
    #[arg(long, overrides_with = "no_children")]
    children: bool,
    /// Only each row's own samples (the Overhead column).
    #[arg(long, overrides_with = "children")]
    no_children: bool,
    /// Call graphs after each row, perf's `-g`: `MODE,THRESHOLD,ORDER,function,VALUE` in any
    /// order and any part — MODE graph (percentages of the whole), fractal (of the parent), flat,
    /// folded, or none; THRESHOLD the smallest share shown, %; ORDER caller or callee; VALUE
    /// percent, period or count. Default `graph,0.5,caller,function,percent` (callee with
    /// --no-children), when the samples have callchains.
    #[arg(short = 'g', long = "call-graph", value_name = "SPEC")]
    call_graph: Option<String>,
    /// Call graphs caller first (`-g caller`; perf's --inverted).
    #[arg(short = 'G', long)]
    inverted: bool,
    /// Branch mode, perf's `-b`: each entry of each sample's branch stack counts once (the
    /// samples must have branch stacks, `perf record -b`); the default when the header says they
    /// do (its BRANCH_STACK feature) and no event dumps the user stack, as in perf. Sort keys
    /// comm, pid, cpu, dso_from, dso_to, symbol_from, symbol_to, cycles; default
    /// comm,dso_from,symbol_from,symbol_to,cycles. No Children column nor call graphs.
    #[arg(short = 'b', long, overrides_with = "no_branch_stack")]
    branch_stack: bool,
    /// Not branch mode, though the samples have branch stacks: the samples' own ips.
    #[arg(long, overrides_with = "branch_stack")]
    no_branch_stack: bool,
    /// Show the number of samples of each row (perf report -n).
    #[arg(short = 'n', long = "show-nr-samples")]
    show_nr_samples: bool,
    /// Hide rows under this share, % (the Children column with --children), and call-graph
    /// paths under it, as perf does.
    #[arg(long, value_name = "PERCENT")]
    percent_limit: Option<f64>,
    /// Only samples of this process (perf's --pid; the percentages stay of all samples).
    #[arg(long, value_name = "PID")]
    pid: Option<u32>,
    /// Only samples of this thread (perf's --tid).
    #[arg(long, value_name = "TID")]
    tid: Option<u32>,
    /// Only samples of threads with this comm (perf's --comms; the Command column goes).
    #[arg(long, value_name = "COMM")]
    comms: Option<String>,
    /// Only samples in these time ranges, perf's `--time`: `START,END` in seconds, several
    /// separated by spaces, or slices of the recording (`10%/2`, `0%-10%,30%-40%`).
    #[arg(long, value_name = "START,END")]
    time: Option<String>,
    /// Callchain entries kept per sample (perf's default 127).
    #[arg(long, value_name = "N")]
    max_stack: Option<usize>,
    /// No inline frames in `--call-graph dwarf` callchains (perf report --no-inline).
    #[arg(long)]
    no_inline: bool,
    /// Name JIT code from the `jit-PID.dump` files the recording mmapped (as after `perf inject
    /// --jit`); by default JIT code is named as perf report names it, from /tmp/perf-PID.map.
    #[arg(long)]
    jitdump: bool,
    #[command(flatten)]
    symbols: crate::symbols::SymbolArgs,
    /// One JSON object per row (with its call graph as nested nodes when there is one).
    #[arg(long)]
    json: bool,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Text output, as `perf report --stdio` (the only kind; accepted for perf's habit).
    #[arg(long)]
    stdio: bool,
    /// A table per event, also for the events of a group, as `perf report --no-group`. Without
    /// it, a recording of event groups (`perf record -e '{a,b}'`) gets perf's group view: one
    /// table per group, a column of each member's shares.
    #[arg(long, conflicts_with = "group")]
    no_group: bool,
    /// perf's group view also for a recording without event groups (`perf report --group`):
    /// its events side by side as one group, the first event's rows leading.
    #[arg(long)]
    group: bool,
}

/// The event indices of group `g`'s members after its leader (`g` has more than one event).
fn members(g: &perfdata_core::feature::GroupDesc) -> std::ops::Range<usize> {
    let first = (g.leader_idx as usize).saturating_add(1);
    first..first.saturating_add((g.nr_members as usize).saturating_sub(1))
}

/// perf report's banner before the tables.
const BANNER: &str = "# To display the perf.data header info, please use --header/--header-only options.\n#\n";

/// perf's `convert_unit` of the sample count: `152 `, `3K`, `3M`.
fn samples_unit(mut n: u64) -> String {
    let mut unit = ' ';
    for u in ['K', 'M', 'G'] {
        if n > 1000 {
            n /= 1000;
            unit = u;
        }
    }
    format!("{n}{unit}")
}

/// `perfdata report`.
pub fn run(a: &ReportArgs) -> crate::CliResult {
    let (path, _spool) = crate::spooled(&a.file)?;
    let f = crate::open(&path)?;
    let request = FoldRequest {
        inline: a.no_inline.then_some(false),
        max_stack: a.max_stack,
        pid: a.pid,
        tid: a.tid,
        comm: a.comms.clone(),
        time: a.time.as_deref().map(str::parse::<TimeRanges>).transpose()?,
        symbolize: a.symbols.options(!a.jitdump)?,
        ..FoldRequest::default()
    };
    let fold = request.options()?;
    let has_branches = f.events().iter().any(|e| e.attr.sample_type & sample_type::BRANCH_STACK != 0);
    if a.branch_stack && !has_branches {
        return Err("-b: the samples have no branch stacks (record with -b)".into());
    }
    // Branch mode by default as perf decides it: the header says the samples have branch stacks
    // (HEADER_BRANCH_STACK, which `perf record -b` writes) and none has a user stack dump.
    let branch_file = f.feature_bits().contains(&perfdata_core::abi::feature::BRANCH_STACK)
        && !f.events().iter().any(|e| e.attr.sample_type & sample_type::STACK_USER != 0);
    let branch = has_branches && !a.no_branch_stack && (a.branch_stack || branch_file);
    let mut sort = match a.sort.as_deref() {
        Some(list) => SortKey::parse_list(list)?,
        None if branch => perfdata_analysis::report::BRANCH_SORT.to_vec(),
        None => perfdata_analysis::report::default_sort(&f),
    };
    // perf adds the parent key when a pattern is given.
    if a.parent.is_some() && !sort.contains(&SortKey::Parent) {
        sort.push(SortKey::Parent);
    }
    // perf leaves out the command column when its --comms names one command.
    let shown: Vec<SortKey> = sort.iter().copied().filter(|k| !(*k == SortKey::Comm && a.comms.is_some())).collect();
    // Branch mode has neither the Children column nor call graphs.
    let has_chains = !branch && f.events().iter().any(|e| e.attr.sample_type & sample_type::CALLCHAIN != 0);
    // perf decides on the Children column before it reads any event: a pipe's attrs come later,
    // so a pipe gets none (its call graphs stay caller-first, as perf's default order was set).
    let pipe = f.header().format == perfdata_core::header::Format::Pipe;
    let children = (a.children || !a.no_children) && has_chains && !pipe;
    let mut graph = match &a.call_graph {
        Some(spec) => CallGraph::parse(spec)?,
        None => has_chains.then(CallGraph::default),
    };
    if graph.is_some() && !has_chains {
        return Err("-g: the samples have no callchains (record with -g or --call-graph)".into());
    }
    if let Some(g) = &mut graph {
        if a.inverted {
            g.order = Some(ChainOrder::Caller);
        }
        if let Some(p) = a.percent_limit {
            g.min_percent = p;
        }
        g.order.get_or_insert(if a.no_children { ChainOrder::Callee } else { ChainOrder::Caller });
    }
    let skip_first_frame = a.sort.as_deref().is_some_and(|s| s.starts_with("sym"));
    let table = TableOptions {
        sort: &shown,
        samples: a.show_nr_samples,
        percent_limit: a.percent_limit.unwrap_or(0.0),
        call_graph: graph,
        skip_first_frame,
    };
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(BufWriter::new(std::fs::File::create(p)?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let opts = ReportOptions {
        sort: sort.clone(),
        children,
        fold,
        event: None,
        call_graph: graph.and_then(|g| g.order),
        parent: a.parent.clone().unwrap_or_else(|| perfdata_analysis::report::DEFAULT_PARENT.to_string()),
        exclude_other: a.exclude_other,
        branch,
    };
    // perf's group view, its default for a recording of event groups: a table per group.
    let mut groups: Vec<_> = f
        .features()
        .group_desc()
        .and_then(Result::ok)
        .unwrap_or_default()
        .into_iter()
        .filter(|g| g.nr_members > 1)
        .collect();
    // `--group` without groups: every event in one, led by the first, named by its events alone
    // (perf's forced leader).
    let forced = a.group && groups.is_empty() && f.events().len() > 1;
    if forced {
        let nr_members = u32::try_from(f.events().len()).unwrap_or(u32::MAX);
        groups.push(perfdata_core::feature::GroupDesc { name: String::new(), leader_idx: 0, nr_members });
    }
    // (JSON is a table per event: the members' shares are not in its rows.)
    let group_view = !a.no_group && !a.json && !groups.is_empty();
    // Every event's table from one read of the file.
    let reports = if group_view { report_group_view(&f, &opts)? } else { report_per_event(&f, &opts)? };
    // Each report has the read's diagnostics: said once.
    for d in reports.first().map(|r| r.diagnostics.as_slice()).unwrap_or_default() {
        crate::damage::warn_in(crate::shown(&a.file), d);
    }
    let mut first = true;
    for (ev, done) in f.events().iter().zip(&reports) {
        // perf skips the events without samples, and in its group view the groups' members.
        if done.samples == 0 || (group_view && groups.iter().any(|g| members(g).contains(&ev.index))) {
            continue;
        }
        if a.json {
            write_json(&mut out, done, table.percent_limit, &sort)?;
            continue;
        }
        if first {
            write!(out, "{BANNER}#\n# Total Lost Samples: {}\n#\n", done.lost_samples)?;
            first = false;
        }
        // perf says `events` for a group's leader (the GROUP_DESC feature's, of more than one
        // event), also where it shows its table alone (`--no-group`).
        let group = groups.iter().find(|g| g.leader_idx as usize == ev.index);
        // The group view counts the whole group's samples and events, and names it
        // (`evsel__group_desc`).
        let (mut samples, mut events, mut what) = (done.samples, done.total, ev.display_name());
        if let (true, Some(g)) = (group_view, group) {
            let members = members(g);
            let name = if g.name == perfdata_core::feature::GroupDesc::ANON { "anon group" } else { &g.name };
            if !forced {
                what = format!("{name} {{ {what}");
            }
            for (m, r) in f.events().iter().zip(&reports).filter(|(m, _)| members.contains(&m.index)) {
                samples = samples.saturating_add(r.samples);
                events = events.saturating_add(r.total);
                what = format!("{what}, {}", m.display_name());
            }
            if !forced {
                what.push_str(" }");
            }
        }
        let mut name = format!(
            "# Samples: {} of event{} '{what}'",
            samples_unit(samples),
            if group.is_some() { "s" } else { "" },
        );
        if let Some(t) = &a.time {
            name.push_str(&format!(" (time slices: {t})"));
        }
        writeln!(out, "{name}\n# Event count (approx.): {events}\n#")?;
        out.write_all(report_table(&done.rows, done.total, &table).as_bytes())?;
        out.write_all(b"\n\n")?;
    }
    // No event has samples (a `perf stat record` file, an empty recording): perf prints its
    // banner and says so on stderr, exit status 0.
    if first && !a.json {
        out.write_all(BANNER.as_bytes())?;
        eprintln!("perfdata: warning: {}: the recording has no samples", crate::shown(&a.file));
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One JSON object per row.
fn write_json(out: &mut dyn Write, done: &Report, limit: f64, sort: &[SortKey]) -> std::io::Result<()> {
    for r in done.rows.iter().filter(|r| r.children.unwrap_or(r.overhead) >= limit) {
        let mut v = serde_json::json!({"overhead": r.overhead, "samples": r.samples, "period": r.period});
        let fields = [
            ("children", r.children.map(serde_json::Value::from)),
            ("children_period", r.children_period.map(serde_json::Value::from)),
            ("comm", r.comm.clone().map(serde_json::Value::from)),
            ("pid", r.pid.map(serde_json::Value::from)),
            ("cpu", r.cpu.map(serde_json::Value::from)),
            ("dso", r.dso.clone().map(serde_json::Value::from)),
            ("kernel", r.kernel.map(serde_json::Value::from)),
            ("symbol", r.symbol.clone().map(serde_json::Value::from)),
            ("srcline", r.srcline.clone().map(serde_json::Value::from)),
            (
                "parent",
                (sort.contains(&SortKey::Parent))
                    .then(|| r.parent.clone().map_or(serde_json::Value::Null, serde_json::Value::from)),
            ),
            ("trace", r.trace.clone().map(serde_json::Value::from)),
            ("call_graph", (!r.call_graph.is_empty()).then(|| nodes_json(&r.call_graph))),
        ];
        for (name, value) in fields {
            if let (Some(value), Some(m)) = (value, v.as_object_mut()) {
                m.insert(name.into(), value);
            }
        }
        writeln!(out, "{v}")?;
    }
    Ok(())
}

/// A call graph as nested JSON nodes.
fn nodes_json(nodes: &[perfdata_analysis::report::CallNode]) -> serde_json::Value {
    nodes
        .iter()
        .map(|n| {
            serde_json::json!({
                "frames": n.frames,
                "period": n.period,
                "total_period": n.total_period,
                "samples": n.samples,
                "total_samples": n.total_samples,
                "children": nodes_json(&n.children),
            })
        })
        .collect()
}
