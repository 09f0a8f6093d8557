//! `perfdata`: read perf.data files from the command line.

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use perfdata_analysis::script::TpState;
use perfdata_core::{json, Order, PerfFile, RecordKind};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

mod annotate;
mod archive;
mod damage;
mod diff;
mod docs;
mod export;
mod folded;
mod info;
mod latency;
mod offcpu;
mod out;
mod progress;
mod report;
mod sched;
mod script;
mod symbols;
mod timeline;

/// `perfdata --version`: the version and the demangler this build names C++ and Rust symbols
/// with (libiberty, as perf does, or the pure-Rust fallback where the build found none).
fn version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!("{} (demangler: {})", env!("CARGO_PKG_VERSION"), perfdata_analysis::symbolize::DEMANGLER)
    })
}

#[derive(Parser)]
#[command(
    name = "perfdata",
    version = version(),
    about = "Read Linux perf.data files: exact, fast, never crashing",
    after_help = EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// No progress bar (one shows on stderr when a command reads for more than a second and
    /// stderr is a terminal).
    #[arg(long, global = true)]
    quiet: bool,
    /// Any damage in the input is an error (exit status 1) instead of a warning (status 3).
    #[arg(long, global = true)]
    strict: bool,
}

/// The damage policy and exit statuses, at the end of `perfdata --help` (docs/damage.md).
const EXIT_STATUS: &str = "\
Damaged input (a file cut short, a damaged record): every command reads every complete record,
writes its output from them, says each problem once on stderr (`perfdata: warning: FILE: …`)
and exits with status 3. --strict makes that an error.

Exit status: 0 done; 3 done from a damaged input; 1 error, nothing produced (or damage with
--strict); 2 bad command line; 4 a `diff --fail-if` threshold crossed.";

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    File,
    Time,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print every record (JSON Lines with --json).
    Dump {
        /// perf.data file, directory, or - for stdin.
        file: String,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        /// Record order.
        #[arg(long, value_enum, default_value = "file")]
        order: OrderArg,
        /// Samples also get `comm`, `dso` and `symbol` (of the ip) and `frames` (the stack as
        /// `perfdata folded` writes it, leaf first), with perfdata folded's frame options (the
        /// same columns as Python's `to_arrow(symbolize=True)`); implies --order time.
        #[arg(long)]
        symbolize: bool,
        #[command(flatten)]
        fold: folded::FoldArgs,
    },
    /// What `perf script` prints: each sample's fields and its symbolized callchain, perf's
    /// options (-F, --ns, -G, --max-stack, filters), `perf stat record` files' counter table.
    Script(script::ScriptArgs),
    /// Folded stacks (`comm;root;…;leaf WEIGHT`) for flame graphs, as stackcollapse-perf.pl or
    /// `perf script report stackcollapse` print them.
    ///
    /// Without flags the output is the chosen tool's on perf 6.1's default `perf script`: kernel
    /// frames included (not annotated), inline frames added to `--call-graph dwarf` stacks, no
    /// source lines, JIT code named from /tmp/perf-PID.map. One default differs from a plain perf
    /// run: a `jit-PID.dump` recorded by a JIT agent names JIT code as `perf inject --jit` would
    /// (--no-jitdump: as perf script without that step).
    #[command(verbatim_doc_comment)]
    Folded {
        /// perf.data file, directory, or - for stdin.
        file: String,
        #[command(flatten)]
        fold: folded::FoldArgs,
        /// Write here instead of stdout.
        #[arg(short, long)]
        output: Option<std::path::PathBuf>,
    },
    /// An interactive flame graph SVG (search, zoom, tooltips), or a differential one (--diff A B),
    /// of recordings or of a dataset's recordings selected by SQL predicates.
    ///
    ///   perfdata flamegraph perf.data -o flame.svg
    ///   perfdata flamegraph --diff before.data after.data -o diff.svg
    ///   perfdata flamegraph --from-dataset fleet --where "host = 'web1'" -o web1.svg
    ///   perfdata flamegraph --from-dataset fleet --diff \
    ///       --where "date = '2026-11-24'" --where "date = '2026-11-25'" -o diff.svg
    ///   perfdata flamegraph --from-dataset fleet --where "comm LIKE 'postgres%'" --folded
    #[command(verbatim_doc_comment)]
    Flamegraph {
        /// perf.data file (two with --diff: BEFORE AFTER), or - for stdin.
        #[arg(num_args = 1..=2, required_unless_present = "from_dataset", conflicts_with = "from_dataset")]
        files: Vec<String>,
        #[command(flatten)]
        fold: folded::FoldArgs,
        #[command(flatten)]
        graph: folded::GraphArgs,
        #[command(flatten)]
        query: folded::QueryArgs,
        /// Write the SVG here instead of stdout.
        #[arg(short, long)]
        output: Option<std::path::PathBuf>,
    },
    /// perf report's `--stdio` text: the share of the event count per command, shared object and
    /// symbol of the samples (--sort picks the columns), with each function's share including
    /// its callees (Children) and each row's call graph when the samples have callchains; one
    /// table per event.
    Report(report::ReportArgs),
    /// perf annotate's `--stdio` text: every instruction of a symbol (each symbol with samples
    /// without one, hottest first) with its share of the symbol's samples, disassembled and
    /// with source lines by objdump run as perf 6.1 runs it.
    ///
    ///   perfdata annotate perf.data leaf
    ///   perfdata annotate -i perf.data --percent-type global-period
    ///
    /// Exit status 1 when the named symbol has no samples or cannot be annotated (its binary not
    /// found, a kernel symbol: perf needs a vmlinux), objdump cannot be run, or no symbol could
    /// be annotated; without a symbol, the ones that cannot be are said on stderr and skipped.
    #[command(verbatim_doc_comment)]
    Annotate(annotate::AnnotateArgs),
    /// perf diff's table: a baseline recording's report beside one or more new ones', entries
    /// paired by shared object and symbol name (--sort), with the change of each (-c).
    Diff(diff::DiffArgs),
    /// Convert to another tool's format: speedscope JSON, Chrome Trace Event JSON (Perfetto UI), Parquet tables.
    Export(export::ExportArgs),
    /// Block I/O analyses (`perfdata block latency`).
    Block {
        #[command(subcommand)]
        cmd: latency::BlockCmd,
    },
    /// Scheduler analyses of `perf sched record` files: latency, map, timehist (perf sched's,
    /// with its option names; --compat perf-6.1 for 6.1's output byte for byte) and a timeline SVG.
    Sched {
        #[command(subcommand)]
        cmd: sched::SchedCmd,
    },
    /// Run-queue latency (wakeup or preemption to switch-in): bcc runqlat's histogram and a
    /// per-task table (the same as `perfdata sched wakeup-latency`).
    WakeupLatency(latency::WakeupLatencyArgs),
    /// Off-CPU time from `perf record -e sched:sched_switch -g`: each switch-out's stack weighted
    /// by the ns until the task's next switch-in, as folded stacks (`comm;frame;…;leaf NS`), an
    /// off-CPU flame graph (--flamegraph) or one JSON object per interval (--json). Also reads
    /// `perf record --off-cpu` recordings: their offcpu-time samples weighted by the period (ns).
    Offcpu(offcpu::OffCpuArgs),
    /// The header and every feature section, as `perf report --header-only -I` prints them.
    Info {
        /// perf.data file, directory, or - for stdin.
        file: String,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Counts per record type and per event, lost events and diagnostics.
    Stats {
        /// perf.data file, directory, or - for stdin.
        file: String,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script on stdout, e.g.
    /// `perfdata completions bash > /etc/bash_completion.d/perfdata`.
    #[command(hide = true)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page perfdata.1 on stdout, or write it and one page per subcommand
    /// (perfdata-sched-latency.1 etc.) into a directory (-o).
    #[command(hide = true)]
    Man {
        /// Write every page into this directory (created), their paths on stdout.
        #[arg(short, long, value_name = "DIR")]
        output: Option<std::path::PathBuf>,
    },
    /// Print the Markdown command reference (the generated part of docs/cli.md) on stdout.
    #[command(hide = true)]
    HelpMarkdown,
    /// Collect the binaries, kallsyms and perf maps the recording's frames are named from into
    /// one compressed file (default FILE.symbols), to read anywhere with --symbols.
    Archive(archive::ArchiveArgs),
}

/// How a command names its input in titles and progress: `stdin` for `-`.
fn shown(path: &str) -> &str {
    if path == "-" {
        "stdin"
    } else {
        path
    }
}

/// For a command that reads its input more than once: `-` (stdin, a stream read once) is first
/// copied to a temporary file, deleted when the guard drops; a path is used as it is. Memory stays
/// bounded (the copy goes to disk).
fn spooled(path: &str) -> std::io::Result<(String, Option<Spool>)> {
    if path != "-" {
        return Ok((path.to_string(), None));
    }
    // A new file (never one that exists, nor a link someone put there: create_new is O_EXCL).
    let mut n = 0u32;
    let (tmp, mut out) = loop {
        let tmp = std::env::temp_dir().join(format!("perfdata-stdin-{}-{n}.data", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    };
    let spool = Spool(tmp.clone());
    std::io::copy(&mut std::io::stdin().lock(), &mut out)?;
    Ok((tmp.display().to_string(), Some(spool)))
}

/// A temporary copy of stdin ([`spooled`]), removed on drop.
struct Spool(std::path::PathBuf);

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Open a recording (`-`: stdin) and show the progress of reading it.
fn open(path: &str) -> perfdata_core::Result<PerfFile<'static>> {
    let file = if path == "-" { PerfFile::from_reader(std::io::stdin())? } else { PerfFile::open(path)? };
    progress::watch(file.progress(), shown(path));
    damage::watch(shown(path), file.problems());
    Ok(file)
}

fn main() -> ExitCode {
    let args = match perf_input_flag(std::env::args_os().collect()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("perfdata: {e}");
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(args);
    let strict = cli.strict;
    progress::set_quiet(cli.quiet);
    progress::set_streams_stdout(matches!(
        cli.cmd,
        Cmd::Dump { .. } | Cmd::Script(_) | Cmd::Sched { .. } | Cmd::Block { .. }
    ));
    let res = match cli.cmd {
        Cmd::Dump { file, json, order, symbolize, fold } => dump(&file, json, order, symbolize.then_some(&fold)),
        Cmd::Stats { file, json } => stats(&file, json),
        Cmd::Script(a) => script::run(&a),
        Cmd::Info { file, json } => info::run(&file, json),
        Cmd::Block { cmd } => latency::run_block(&cmd),
        Cmd::Sched { cmd } => sched::run(&cmd),
        Cmd::Export(a) => export::run(&a),
        Cmd::Report(a) => report::run(&a),
        Cmd::Annotate(a) => annotate::run(&a),
        Cmd::Diff(a) => diff::run(&a),
        Cmd::WakeupLatency(a) => latency::wakeup_latency(&a),
        Cmd::Offcpu(a) => offcpu::run(&a),
        Cmd::Folded { file, fold, output } => folded::run_folded(&file, &fold, output.as_ref()),
        Cmd::Flamegraph { files, fold, graph, query, output } => {
            folded::run_flamegraph(&files, &fold, &graph, &query, output.as_ref())
        }
        Cmd::Completions { shell } => docs::completions(Cli::command(), shell),
        Cmd::Man { output } => docs::man(Cli::command(), output.as_deref()),
        Cmd::HelpMarkdown => docs::help_markdown(Cli::command()),
        Cmd::Archive(a) => archive::run(&a),
    };
    progress::finish();
    // `perfdata dump … | head`: the reader went away; that is not an error of ours.
    if res.as_ref().is_err_and(|e| broken_pipe(e.as_ref())) {
        return ExitCode::SUCCESS;
    }
    let problems = damage::finish();
    match res {
        Ok(_) if problems > 0 && strict => {
            eprintln!(
                "perfdata: the input is damaged ({problems} problem{} above) and --strict makes that an error",
                if problems == 1 { "" } else { "s" }
            );
            ExitCode::from(1)
        }
        Ok(code) if problems > 0 && code == ExitCode::SUCCESS => ExitCode::from(damage::DAMAGED),
        Ok(code) => code,
        Err(e) => {
            eprint!("{}", error_text(e.as_ref()));
            ExitCode::from(1)
        }
    }
}

/// perf's habit `-i FILE` (`--input FILE`, `--input=FILE`), accepted by every subcommand: the
/// file becomes the subcommand's file argument. `perfdata block` gives `-i` another meaning (the
/// rwbs glob, as biosnoop's); there a `-i` whose value is an existing file is refused with a word
/// on why.
fn perf_input_flag(args: Vec<std::ffi::OsString>) -> Result<Vec<std::ffi::OsString>, String> {
    let sub =
        args.iter().skip(1).find(|a| !a.to_string_lossy().starts_with('-')).map(|a| a.to_string_lossy().into_owned());
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.into_iter().peekable();
    let mut past_dashes = false;
    while let Some(a) = it.next() {
        let text = a.to_string_lossy().into_owned();
        if past_dashes || out.is_empty() {
            past_dashes |= text == "--";
            out.push(a);
            continue;
        }
        past_dashes = text == "--";
        let value = if text == "-i" || text == "--input" {
            match it.peek() {
                Some(_) => it.next(),
                None => {
                    out.push(a);
                    continue;
                }
            }
        } else if let Some(v) = text.strip_prefix("--input=") {
            Some(v.into())
        } else {
            out.push(a);
            continue;
        };
        let Some(value) = value else { continue };
        if sub.as_deref() == Some("block") {
            if text.starts_with("--input") || std::path::Path::new(&value).is_file() {
                return Err(format!(
                    "in `perfdata block`, -i is the rwbs filter (`-i '*R*'`), not perf's input file; give the \
                     recording as an argument: `perfdata block latency {}`",
                    value.to_string_lossy()
                ));
            }
            out.push(a);
            out.push(value);
            continue;
        }
        out.push(value);
    }
    Ok(out)
}

/// The error, or one of its causes, is a write to a pipe whose reader went away (`perfdata script
/// | head`): the reader is done, and so are we — quietly, with status 0, as perf and coreutils.
fn broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        let kind = c
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| c.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind));
        if kind == Some(std::io::ErrorKind::BrokenPipe) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// `perfdata: ERROR`, then a `  caused by: CAUSE` line for each error in its source chain whose
/// text the lines before do not already quote (most messages end with their cause's text).
fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = format!("perfdata: {e}\n");
    let mut cause = e.source();
    while let Some(c) = cause {
        let line = c.to_string();
        if !text.contains(&line) {
            text.push_str(&format!("  caused by: {line}\n"));
        }
        cause = c.source();
    }
    text
}

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// A warning or a skipped record's error, on stderr, once.
fn warn(message: String) {
    damage::warn(message.strip_prefix("warning: ").unwrap_or(&message));
}

/// `perfdata report`.
/// The symbolized fields of a sample (`dump --symbolize`): comm, dso, symbol, frames.
fn symbolized(
    folder: &mut perfdata_analysis::folded::StackFolder<'_>,
    r: &perfdata_core::Record<'_>,
    root: bool,
    m: &mut serde_json::Map<String, serde_json::Value>,
) {
    folder.record(r);
    let RecordKind::Sample(s) = &r.kind else { return };
    let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
    m.insert("comm".into(), folder.comm(tid).into());
    if let Some(ip) = s.ip() {
        let kernel = r.header.cpumode() == perfdata_core::record::CpuMode::Kernel;
        let f = folder.locate(pid, kernel, ip);
        m.insert("dso".into(), f.dso.as_ref().into());
        let sym = f.symbol.as_deref().map(|n| n.split('\0').next().unwrap_or(n).to_string());
        m.insert("symbol".into(), sym.into());
    }
    let frames = folder.stack(r, s).map(|id| {
        let mut f: Vec<serde_json::Value> = folder.frames(id).skip(usize::from(root)).map(Into::into).collect();
        f.reverse();
        f
    });
    m.insert("frames".into(), frames.into());
}

fn dump(path: &str, as_json: bool, order: OrderArg, symbolize: Option<&folded::FoldArgs>) -> CliResult {
    let f = open(path)?;
    let order = match order {
        _ if symbolize.is_some() => Order::Time,
        OrderArg::File => Order::File,
        OrderArg::Time => Order::Time,
    };
    let fold_opts = symbolize.map(folded::FoldArgs::options).transpose()?;
    let mut folder = fold_opts.as_ref().map(|o| perfdata_analysis::folded::StackFolder::new(&f, o));
    let root = fold_opts.as_ref().is_some_and(|o| o.root != perfdata_analysis::folded::Root::None);
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    let mut recs = f.records(order)?;
    let mut tps = TpState::new(&f, &mut warn);
    while let Some(rec) = recs.next_record() {
        match rec {
            Ok(r) => {
                tps.observe(&r, &mut warn);
                let mut v = json::record_json(&r);
                // Tracepoint samples: their RAW data decoded by field name.
                if let (Some((fmt, raw)), Some(m)) = (tps.format_of(&r), v.as_object_mut()) {
                    m.insert("fields".into(), fmt.fields_json(raw));
                }
                if let (Some(folder), Some(m)) = (folder.as_mut(), v.as_object_mut()) {
                    symbolized(folder, &r, root, m);
                }
                if as_json {
                    serde_json::to_writer(&mut out, &v)?;
                    writeln!(out)?;
                } else {
                    let mut v = v;
                    let fields = v.as_object_mut().map(|m| {
                        for k in ["type", "type_id", "misc", "size", "offset"] {
                            m.remove(k);
                        }
                        serde_json::to_string(m).unwrap_or_default()
                    });
                    writeln!(
                        out,
                        "{} [{:#x}] {}: {}",
                        r.pos,
                        r.header.record_size(),
                        r.type_name(),
                        fields.unwrap_or_default()
                    )?;
                }
            }
            Err(e) => {
                // Said where it happens (in order with the records), and once.
                out.flush()?;
                damage::warn_in(shown(path), &e.to_string());
            }
        }
    }
    out.flush()?;
    for d in folder.iter().flat_map(|f| f.diagnostics()) {
        damage::warn_in(shown(path), &d);
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(path: &str, as_json: bool) -> CliResult {
    let f = open(path)?;
    let st = perfdata_analysis::stats::Stats::of(&f)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&st.json())?);
    } else {
        print!("{}", st.text());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    /// An error whose message does not quote its cause.
    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("writing out.svg")
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn causes_are_listed_once() {
        let quoted = perfdata_analysis::Error::Io { path: "out".into(), source: std::io::Error::other("disk full") };
        assert_eq!(super::error_text(&quoted), "perfdata: out: disk full\n");
        let missing = perfdata_analysis::Error::Missing("no sched:sched_switch event in this file".into());
        assert_eq!(super::error_text(&missing), "perfdata: no sched:sched_switch event in this file\n");
        let outer = Outer(std::io::Error::other("disk full"));
        assert_eq!(super::error_text(&outer), "perfdata: writing out.svg\n  caused by: disk full\n");
    }
}
