//! `perfdata script`: perf script's text, with perf's options.

use clap::Args;
use perfdata_analysis::options::TimeRanges;
use perfdata_analysis::script::{parse_cpu_list, write_script_with, ScriptOptions};
use std::io::BufWriter;
use std::process::ExitCode;

/// perf script's options, same names and meanings.
#[derive(Args)]
pub struct ScriptArgs {
    /// perf.data file, directory, or - for stdin.
    #[arg(default_value = "perf.data")]
    file: String,
    /// Fields to print, perf's syntax: `comm,tid,time,ip,sym`; `+addr,-period` to add to or
    /// remove from the defaults; `sw:comm,tid` for one event type (hw, sw, trace, raw, break,
    /// synth). Fields: comm, tid, pid, time, cpu, event, trace, ip, sym, symoff, dso, addr,
    /// period, weight, data_src, phys_addr, srcline, iregs, uregs, data_page_size, code_page_size,
    /// ins_lat, bpf-output. May be given more than once.
    #[arg(short = 'F', long = "fields", value_name = "FIELDS", allow_hyphen_values = true)]
    fields: Vec<String>,
    /// Times with nanoseconds.
    #[arg(long)]
    ns: bool,
    /// No callchains: each sample's ip on its line.
    #[arg(short = 'G', long)]
    hide_call_graph: bool,
    /// Callchain entries printed per sample.
    #[arg(long, value_name = "N", default_value_t = 127)]
    max_stack: usize,
    /// Functions inlined at frames unwound from `--call-graph dwarf` stack dumps, from DWARF (on by
    /// default, as perf).
    #[arg(long, overrides_with = "no_inline")]
    inline: bool,
    /// No inline frames.
    #[arg(long, overrides_with = "inline")]
    no_inline: bool,
    /// Also print COMM, FORK and EXIT records.
    #[arg(long)]
    show_task_events: bool,
    /// Also print MMAP and MMAP2 records.
    #[arg(long)]
    show_mmap_events: bool,
    /// Also print context-switch records.
    #[arg(long)]
    show_switch_events: bool,
    /// Only samples in these time ranges: `START,END` in seconds (either may be empty), several
    /// separated by spaces, or slices of the recording (`10%/2`, `0%-10%,30%-40%`).
    #[arg(long, value_name = "START,END")]
    time: Option<TimeRanges>,
    /// Only samples of these CPUs: `0-2,5`.
    #[arg(short = 'C', long = "cpu", value_name = "CPUS", value_parser = parse_cpu_list)]
    cpu: Option<Vec<u32>>,
    /// Only samples of these processes (comma-separated).
    #[arg(long, value_name = "PIDS", value_delimiter = ',')]
    pid: Option<Vec<u32>>,
    /// Only samples of these threads (comma-separated).
    #[arg(long, value_name = "TIDS", value_delimiter = ',')]
    tid: Option<Vec<u32>>,
    /// Only samples of threads with these comms (comma-separated).
    #[arg(long, value_name = "COMMS", value_delimiter = ',')]
    comms: Option<Vec<String>>,
    #[command(flatten)]
    symbols: crate::symbols::SymbolArgs,
    /// Name JIT code from the `jit-PID.dump` files the recording mmapped (as after `perf inject
    /// --jit`); by default JIT code is named as perf script names it, from /tmp/perf-PID.map.
    #[arg(long)]
    jitdump: bool,
}

impl ScriptArgs {
    fn options(&self) -> Result<ScriptOptions, String> {
        Ok(ScriptOptions {
            fields: self.fields.clone(),
            ns: self.ns,
            hide_call_graph: self.hide_call_graph,
            max_stack: self.max_stack,
            inline: !self.no_inline,
            show_task_events: self.show_task_events,
            show_mmap_events: self.show_mmap_events,
            show_switch_events: self.show_switch_events,
            time: self.time.clone(),
            cpus: self.cpu.clone(),
            pids: self.pid.clone(),
            tids: self.tid.clone(),
            comms: self.comms.clone(),
            symbolize: self.symbols.options(!self.jitdump)?,
        })
    }
}

/// Print the samples of a recording as `perf script` does.
pub fn run(a: &ScriptArgs) -> crate::CliResult {
    let f = crate::open(&a.file)?;
    let out = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, out.lock());
    // Damaged records are said as they are met and give the damage status (crate::damage).
    let name = crate::shown(&a.file);
    let mut warn = |m: String| crate::damage::warn_in(name, m.strip_prefix("warning: ").unwrap_or(&m));
    write_script_with(&f, &a.options()?, &mut out, &mut warn)?;
    Ok(ExitCode::SUCCESS)
}
