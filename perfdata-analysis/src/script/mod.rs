//! `perf script`: one line per sample (and its callchain), as perf 6.1 prints it.
//!
//! The fields are perf's per output type (hardware, software, tracepoint, cache, raw, breakpoint,
//! synthesized, other), dropped where the event's samples lack them, or chosen with `-F`
//! ([`ScriptOptions::fields`], perf's syntax). Frames are named as perf names them: `sym+0xoff
//! (dso)` from the build-id cache, `--symfs`, kallsyms and perf maps, user addresses in
//! callchains relative to their map, functions inlined at unwound frames from DWARF. Tracepoint
//! samples print their rendered `print fmt` text. `perf stat record` files print perf's counter
//! table.

mod decode;
mod fields;
mod num;
mod stat;

use fields::Field;
use perfdata_core::attr::sample_type;
use perfdata_core::sample::Sample;
use perfdata_core::tracepoint::{Format, Tracepoints};
use perfdata_core::{Event, Order, PerfFile, Record, RecordKind};
use perfdata_symbolize::SymbolizeOptions;
use std::collections::HashMap;
use std::io::Write;

use crate::options::{FoldedOptions, TimeRanges};
use crate::stacks::{Batch, BranchEnd, Columns, FramePrint, ScriptFrames, Texts};

/// Tracepoint formats known so far while reading records: a file's from the start, a pipe's from
/// its `HEADER_TRACING_DATA` record on.
pub struct TpState {
    tp: Option<Tracepoints>,
    warned: bool,
}

impl TpState {
    /// The file's tracing data, if it is already available; a damaged blob is reported to `warn`.
    pub fn new(f: &PerfFile<'_>, warn: &mut dyn FnMut(String)) -> TpState {
        match Tracepoints::from_file(f) {
            Ok(tp) => TpState { tp, warned: false },
            Err(e) => {
                warn(format!("warning: tracing data: {e}"));
                TpState { tp: None, warned: true }
            }
        }
    }

    /// Pick up a pipe's tracing data; the first damaged blob is reported to `warn`.
    pub fn observe(&mut self, r: &Record<'_>, warn: &mut dyn FnMut(String)) {
        if self.tp.is_some() {
            return;
        }
        match Tracepoints::carried_by(r) {
            Some(Ok(tp)) => self.tp = Some(tp),
            Some(Err(e)) if !self.warned => {
                warn(format!("warning: tracing data: {e}"));
                self.warned = true;
            }
            _ => {}
        }
    }

    /// The tracing data, if known.
    pub fn get(&self) -> Option<&Tracepoints> {
        self.tp.as_ref()
    }

    /// The format and RAW data of a tracepoint sample, when its format is known.
    pub fn format_of<'r>(&self, r: &Record<'r>) -> Option<(&Format, &'r [u8])> {
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { return None };
        Some((self.tp.as_ref()?.format_for(&ev.attr)?, s.raw()?))
    }
}

/// What `perf script`'s options ask for ([`write_script_with`]); the default is `perf script`
/// without options.
#[derive(Clone, Debug)]
pub struct ScriptOptions {
    /// `-F`/`--fields` arguments, applied in order (`comm,tid,ip`, `+addr,-period`,
    /// `sw:comm,tid`): perf's syntax and names.
    pub fields: Vec<String>,
    /// `--ns`: times with nanoseconds.
    pub ns: bool,
    /// `-G`/`--hide-call-graph`: the ip alone, on the sample's line.
    pub hide_call_graph: bool,
    /// `--max-stack`: callchain entries printed per sample (perf's default 127).
    pub max_stack: usize,
    /// `--inline`: functions inlined at a frame unwound from a stack dump, from DWARF (perf's
    /// default; `--no-inline` turns it off).
    pub inline: bool,
    /// `--show-task-events`: COMM, FORK and EXIT records between the samples.
    pub show_task_events: bool,
    /// `--show-mmap-events`: MMAP and MMAP2 records.
    pub show_mmap_events: bool,
    /// `--show-switch-events`: context-switch records.
    pub show_switch_events: bool,
    /// `--time`: only samples in these ranges.
    pub time: Option<TimeRanges>,
    /// `--cpu`: only samples of these CPUs.
    pub cpus: Option<Vec<u32>>,
    /// `--pid`: only samples of these processes.
    pub pids: Option<Vec<u32>>,
    /// `--tid`: only samples of these threads.
    pub tids: Option<Vec<u32>>,
    /// `--comms`: only samples of threads with these comms.
    pub comms: Option<Vec<String>>,
    /// Where symbols come from (`--symfs`, `--kallsyms`, the build-id cache). jitdump files are
    /// read only when [`SymbolizeOptions::ignore_jitdump`] is false (perf script reads them only
    /// after `perf inject --jit`; the default here is true, as perf's).
    pub symbolize: SymbolizeOptions,
}

impl Default for ScriptOptions {
    fn default() -> Self {
        ScriptOptions {
            fields: Vec::new(),
            ns: false,
            hide_call_graph: false,
            max_stack: 127,
            inline: true,
            show_task_events: false,
            show_mmap_events: false,
            show_switch_events: false,
            time: None,
            cpus: None,
            pids: None,
            tids: None,
            comms: None,
            symbolize: SymbolizeOptions { ignore_jitdump: true, ..SymbolizeOptions::default() },
        }
    }
}

/// Parse perf's list syntax for `--cpu`: `0-2,5`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let bad = || format!("invalid cpu list '{s}'");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if b < a || b - a > 65_536 {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.trim().parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

/// What a script run read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptSummary {
    /// Samples printed.
    pub samples: u64,
    /// Records that could not be read (skipped).
    pub damaged: u64,
}

/// The name perf prints for an event (`evsel__name`).
fn event_name(ev: &Event, tp: Option<&Tracepoints>) -> String {
    match (&ev.name, tp.and_then(|t| t.format_for(&ev.attr))) {
        (Some(n), _) => n.clone(),
        (None, Some(f)) => f.full_name(),
        (None, None) => ev.display_name(),
    }
}

/// Per output type: the fields and how frames print.
struct TypeOut {
    fields: Field,
    print: FramePrint,
}

/// The state of one `perf script` run.
struct Run<'f, 'o> {
    opts: &'o ScriptOptions,
    frames: ScriptFrames<'o>,
    outputs: Vec<TypeOut>,
    use_callchain: bool,
    /// The event column's width, known at the first sample.
    name_width: Option<usize>,
    /// Each event's padded name column (`NAME: `), by event index.
    names: Vec<Option<String>>,
    data_src: decode::DataSrcColumn,
    arch: String,
    ranges: Vec<crate::options::TimeRange>,
    /// The output made since the last batch was handed on.
    batch: Batch,
    line: String,
    stat: stat::StatTable,
    /// The last value read of each counter id (samples that read a group).
    read_last: HashMap<u64, u64>,
    _file: std::marker::PhantomData<&'f ()>,
}

/// Whether a sample's `addr` is a data address perf names (`sample_addr_correlates_sym`): the
/// software page-fault events and BTS (`branch-instructions` sampled at period 1).
fn addr_correlates_sym(ev: &Event) -> bool {
    // PERF_TYPE_SOFTWARE: PERF_COUNT_SW_PAGE_FAULTS, _MIN, _MAJ.
    let page_faults = ev.attr.type_ == 1 && matches!(ev.attr.config, 2 | 5 | 6);
    // PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS (perf tests the bit), period 1.
    let bts = ev.attr.type_ == 0 && ev.attr.config & 4 != 0 && ev.attr.sample_period == 1;
    page_faults || bts
}

/// Write `perf script -i FILE`'s default output for `f` to `out`; see [`write_script_with`].
pub fn write_script(f: &PerfFile<'_>, out: &mut dyn Write, warn: &mut dyn FnMut(String)) -> crate::Result<bool> {
    let opts = ScriptOptions::default();
    Ok(write_script_with(f, &opts, out, warn)?.damaged == 0)
}

/// Write what `perf script` prints for `f` with options `opts` to `out`: one line (or a line and
/// its callchain) per sample, perf 6.1's fields, widths and symbol names. Records that cannot be
/// read are skipped and reported to `warn` once each (after `out` is flushed, so the report lands
/// where the line would have been), as are the reader's diagnostics at the end.
///
/// Two threads share the work: this one turns the output into bytes and writes them (copying the
/// frame texts, made once each), another reads the records and makes the output (threads, maps,
/// symbols, the sample lines). Batches of output, in order, go from one to the other through a
/// bounded queue. Without threads (WebAssembly) one thread does both.
pub fn write_script_with(
    f: &PerfFile<'_>,
    opts: &ScriptOptions,
    out: &mut dyn Write,
    warn: &mut dyn FnMut(String),
) -> crate::Result<ScriptSummary> {
    let mut w = Writer { texts: Texts::default(), bytes: Vec::new(), ns: opts.ns, out, warn };
    if !cfg!(target_family = "wasm") {
        if let Some(res) = threaded(f, opts, &mut w) {
            return res;
        }
    }
    inline(f, opts, w)
}

/// [`produce`] and `w` on this thread, one after the other for each message.
fn inline(f: &PerfFile<'_>, opts: &ScriptOptions, w: Writer<'_>) -> crate::Result<ScriptSummary> {
    let w = std::cell::RefCell::new(w);
    let failed = std::cell::RefCell::new(None);
    let summary = produce(
        f,
        opts,
        &|m| match w.borrow_mut().take(m) {
            Ok(_) => true,
            Err(e) => {
                *failed.borrow_mut() = Some(e);
                false
            }
        },
        &|| None,
    );
    match failed.into_inner() {
        Some(e) => Err(e),
        None => summary,
    }
}

/// Batches on their way to the writing thread, at most: bounds the memory ahead of the writer.
const BATCHES_IN_FLIGHT: usize = 4;

/// A batch's [`Batch::size`] when it is handed on.
const BATCH_SIZE: usize = 1 << 18;

/// The largest write: a consumer that holds each write (Python's iterator) is bounded by it.
const WRITE_SIZE: usize = 1 << 16;

/// What the reading thread hands the writing one, in output order.
enum Msg {
    /// Output.
    Batch(Batch),
    /// Flush the output (written so far) to its destination.
    Flush,
    /// A warning, for `warn`.
    Warn(String),
}

/// The writing side: turns batches into bytes, writes them, says the warnings.
struct Writer<'w> {
    texts: Texts,
    bytes: Vec<u8>,
    /// `--ns`.
    ns: bool,
    out: &'w mut dyn Write,
    warn: &'w mut dyn FnMut(String),
}

impl Writer<'_> {
    /// Act on one message; a batch is handed back, for its memory.
    fn take(&mut self, m: Msg) -> crate::Result<Option<Batch>> {
        let io = |source| crate::Error::Output { what: "the script output", source };
        match m {
            Msg::Batch(b) => {
                self.bytes.clear();
                let ns = self.ns;
                self.texts.expand(&b, &mut self.bytes, |c, comm, out| columns(c, comm, ns, out));
                // In blocks of at most WRITE_SIZE: a batch's frame numbers can stand for
                // far more text, and a consumer that holds each write (Python's iterator) is
                // bounded by the size of the writes.
                for block in self.bytes.chunks(WRITE_SIZE) {
                    self.out.write_all(block).map_err(io)?;
                }
                return Ok(Some(b));
            }
            Msg::Flush => self.out.flush().map_err(io)?,
            Msg::Warn(m) => (self.warn)(m),
        }
        Ok(None)
    }
}

/// Run [`produce`] on a thread of its own and `w` on this one; `None` if no thread could be
/// started.
fn threaded(f: &PerfFile<'_>, opts: &ScriptOptions, w: &mut Writer<'_>) -> Option<crate::Result<ScriptSummary>> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(BATCHES_IN_FLIGHT);
    let (back_tx, back_rx) = std::sync::mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let producer = std::thread::Builder::new()
            .name("perfdata-script".into())
            .spawn_scoped(scope, move || produce(f, opts, &|m| tx.send(m).is_ok(), &|| back_rx.try_recv().ok()))
            .ok()?;
        let mut written = Ok(());
        while let Ok(m) = rx.recv() {
            match w.take(m) {
                Ok(Some(b)) => {
                    let _ = back_tx.send(b);
                }
                Ok(None) => {}
                Err(e) => {
                    written = Err(e);
                    break;
                }
            }
        }
        // The reader stops at its next batch once nobody takes them.
        drop(rx);
        let summary = producer.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        Some(written.and(summary))
    })
}

/// Read `f`'s records and make `perf script`'s output, handed to `send` in order (which says
/// false when the output failed: then stop); `recycle` gives back a batch already written, if
/// any.
fn produce(
    f: &PerfFile<'_>,
    opts: &ScriptOptions,
    send: &dyn Fn(Msg) -> bool,
    recycle: &dyn Fn() -> Option<Batch>,
) -> crate::Result<ScriptSummary> {
    let warn = &mut |m: String| {
        send(Msg::Warn(m));
    };
    let fold = FoldedOptions { inline: opts.inline, symbolize: opts.symbolize.clone(), ..FoldedOptions::default() };
    let mut tps = TpState::new(f, warn);
    let mut outputs = fields::Outputs::default();
    for a in &opts.fields {
        outputs.parse(a, warn).map_err(crate::Error::Options)?;
    }
    let events = f.events();
    let pipe = f.header().format == perfdata_core::header::Format::Pipe;
    let has_traces = tps.get().is_some() || pipe;
    let stat_file = f.feature_bits().contains(&perfdata_core::abi::feature::STAT);
    if opts.cpus.is_some() && !events.iter().any(|e| e.attr.sample_type & sample_type::CPU != 0) {
        return Err(crate::Error::Options("File does not contain CPU events. Remove -C option to proceed.".into()));
    }
    // A damaged file whose tracing data was lost with its end: its tracepoint samples are printed
    // without their fields (perf refuses such a file; we print what it holds and say why).
    let traces_lost = !has_traces && !f.diagnostics().is_empty();
    let tracepoint = |e: &perfdata_core::Event| {
        perfdata_core::attr::EventType::from_raw(e.attr.type_) == perfdata_core::attr::EventType::Tracepoint
    };
    if traces_lost && events.iter().any(tracepoint) {
        warn(
            "the tracing data was lost with the damaged part: tracepoint samples are printed without their fields"
                .into(),
        );
    }
    if outputs.0.iter().any(|o| o.fields & fields::TOD != 0)
        && !f.feature_bits().contains(&perfdata_core::abi::feature::CLOCK_DATA)
    {
        return Err(crate::Error::Options(
            "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option.".into(),
        ));
    }
    fields::check(&mut outputs, events, has_traces, traces_lost, stat_file).map_err(crate::Error::Options)?;
    // perf drops callchains when no event records them (or with -G).
    let use_callchain = !opts.hide_call_graph
        && (events.is_empty() || events.iter().any(|e| e.attr.sample_type & sample_type::CALLCHAIN != 0));
    // Tracepoints with callchains print them (and their symbols) unless -F says otherwise.
    if use_callchain
        && !outputs.0[fields::T_TRACEPOINT].user_set
        && events
            .iter()
            .any(|e| fields::output_type(e) == fields::T_TRACEPOINT && e.attr.sample_type & sample_type::CALLCHAIN != 0)
    {
        outputs.0[fields::T_TRACEPOINT].fields |= fields::IP | fields::SYM | fields::SYMOFFSET | fields::DSO;
    }
    let type_outs = outputs
        .0
        .iter()
        .map(|o| {
            let has = |b| o.fields & b != 0;
            TypeOut {
                fields: o.fields,
                print: FramePrint {
                    ip: has(fields::IP),
                    sym: has(fields::SYM),
                    symoff: has(fields::SYMOFFSET),
                    dso: has(fields::DSO),
                    srcline: has(fields::SRCLINE),
                    unknown_as_addr: false,
                    branch: false,
                },
            }
        })
        .collect();
    if f.feature_bits().contains(&perfdata_core::abi::feature::AUXTRACE)
        || events.iter().any(|e| e.name.as_deref().is_some_and(|n| n.starts_with("intel_pt")))
    {
        warn(
            "warning: this recording holds an AUX area trace (Intel PT, CoreSight, …): perf script decodes it \
              into branches and instructions, perfdata prints only the recorded samples"
                .into(),
        );
    }
    let ranges = crate::stacks::time_ranges(f, &FoldedOptions { time: opts.time.clone(), ..FoldedOptions::default() })?;
    let arch = f
        .features()
        .arch()
        .and_then(|a| a.ok())
        .map_or_else(|| std::env::consts::ARCH.to_string(), std::borrow::Cow::into_owned);
    let mut run = Run {
        opts,
        frames: ScriptFrames::new(f, &fold),
        outputs: type_outs,
        use_callchain,
        name_width: None,
        names: Vec::new(),
        data_src: decode::DataSrcColumn::default(),
        arch,
        ranges,
        batch: Batch::default(),
        line: String::new(),
        stat: stat::StatTable::default(),
        read_last: HashMap::new(),
        _file: std::marker::PhantomData,
    };
    let mut recs = f.records(Order::Time)?;
    // Send the batch and start a new one; false when the output failed.
    let hand_on = |b: &mut Batch| {
        if b.is_empty() {
            return true;
        }
        let mut next = recycle().unwrap_or_default();
        next.clear();
        send(Msg::Batch(std::mem::replace(b, next)))
    };
    let mut summary = ScriptSummary::default();
    while let Some(rec) = recs.next_record() {
        let r = match rec {
            Ok(r) => r,
            Err(e) => {
                summary.damaged += 1;
                if !hand_on(&mut run.batch) || !send(Msg::Flush) {
                    return Ok(summary);
                }
                warn(e.to_string());
                continue;
            }
        };
        tps.observe(&r, warn);
        // perf prints a task or mmap record after applying it (a FORK's new thread has its
        // parent's comm, a COMM line the new comm), an EXIT before.
        if matches!(r.kind, RecordKind::Exit(_)) {
            run.side_band(&r);
            run.frames.record(&r);
        } else {
            run.frames.record(&r);
            run.side_band(&r);
        }
        run.stat.record(&r, &mut run.batch.lits);
        if let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) {
            match s.read().filter(|_| ev.attr.sample_type & sample_type::READ != 0) {
                // perf delivers a sample that reads counters as one sample per counter read,
                // of that counter's event, its period the counter's change since its last read
                // (none when unchanged).
                Some(read) => {
                    for v in read.values() {
                        let Some(id) = v.id else { continue };
                        let Some(member) = r.events.by_id(id) else { continue };
                        let last = run.read_last.insert(id, v.value).unwrap_or(0);
                        let period = v.value.wrapping_sub(last);
                        if period != 0 && run.sample(&r, s, member, &tps, Some(period)) {
                            summary.samples += 1;
                        }
                    }
                }
                None => {
                    if run.sample(&r, s, ev, &tps, None) {
                        summary.samples += 1;
                    }
                }
            }
        }
        if run.batch.size() >= BATCH_SIZE && !hand_on(&mut run.batch) {
            return Ok(summary);
        }
    }
    if !hand_on(&mut run.batch) || !send(Msg::Flush) {
        return Ok(summary);
    }
    for d in f.diagnostics().iter().chain(recs.diagnostics().iter()) {
        warn(format!("warning: {d}"));
    }
    for d in run.frames.diagnostics() {
        warn(format!("warning: {d}"));
    }
    Ok(summary)
}

impl Run<'_, '_> {
    /// The sample's start columns (perf's `perf_sample__fprintf_start`), into the buffer.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        fields: Field,
        comm_plain: bool,
        comm_tid: Option<u32>,
        tid: Option<u32>,
        pid: Option<u32>,
        cpu: Option<u32>,
        time: Option<u64>,
        period: Option<u64>,
    ) {
        let cols = Columns {
            fields,
            comm_plain,
            pid: pid.map_or(-1, |p| i64::from(p as i32)),
            tid: tid.map_or(-1, |t| i64::from(t as i32)),
            cpu,
            time,
            period,
        };
        if fields & fields::COMM == 0 {
            self.batch.columns(cols, &[]);
            return;
        }
        let t = comm_tid.unwrap_or(u32::MAX);
        let m = self.frames.machine();
        match m.comm_ref(t) {
            Some(c) => self.batch.columns(cols, c.as_bytes()),
            None => self.batch.columns(cols, m.comm(t).as_bytes()),
        }
    }

    /// Whether perf's filters keep a sample.
    fn keep(&self, s: &Sample<'_>) -> bool {
        let o = self.opts;
        if !self.ranges.is_empty() {
            let t = s.time().unwrap_or(0);
            if !self.ranges.iter().any(|r| r.start <= t && t <= r.end) {
                return false;
            }
        }
        if let Some(c) = &o.cpus {
            if !c.contains(&s.cpu().unwrap_or(u32::MAX)) {
                return false;
            }
        }
        if let Some(p) = &o.pids {
            if !s.pid().is_some_and(|x| p.contains(&x)) {
                return false;
            }
        }
        if let Some(t) = &o.tids {
            if !s.tid().is_some_and(|x| t.contains(&x)) {
                return false;
            }
        }
        if let Some(cs) = &o.comms {
            let m = self.frames.machine();
            let comm = m.comm(s.tid().unwrap_or(u32::MAX));
            if !cs.contains(&comm) {
                return false;
            }
        }
        true
    }

    /// Print one sample (perf's `process_event`); false when filtered out.
    /// `period`: the period perf gives a counter read from the sample, in place of its own.
    fn sample(&mut self, r: &Record<'_>, s: &Sample<'_>, ev: &Event, tps: &TpState, period: Option<u64>) -> bool {
        use std::fmt::Write as _;
        let t = fields::output_type(ev);
        let Some(TypeOut { fields: fl, print }) =
            self.outputs.get(t).map(|o| TypeOut { fields: o.fields, print: o.print })
        else {
            return false;
        };
        if fl & fields::BRSTACKOFF != 0 {
            self.frames.note_sample_ip(r, s);
        }
        if fl == 0 || !self.keep(s) {
            return false;
        }
        if self.name_width.is_none() {
            // perf sizes the event column once, from every event known at the first sample.
            let w = r.events.events.iter().map(|e| event_name(e, tps.get()).len()).max().unwrap_or(0);
            self.name_width = Some(w);
        }
        let has = |b| fl & b != 0;
        let chain = self.use_callchain && has(fields::IP) && s.callchain().is_some();
        let has_callchain_attr = ev.attr.sample_type & sample_type::CALLCHAIN != 0;
        self.start(
            fl,
            has(fields::IP) && has_callchain_attr && self.use_callchain,
            s.tid(),
            s.tid(),
            s.pid(),
            s.cpu(),
            s.time(),
            has(fields::PERIOD).then(|| period.unwrap_or_else(|| s.period_or_attr())),
        );
        if has(fields::EVNAME) {
            let w = self.name_width.unwrap_or(0);
            if self.names.len() <= ev.index {
                self.names.resize(ev.index.saturating_add(1), None);
            }
            if let Some(slot) = self.names.get_mut(ev.index) {
                let name = slot.get_or_insert_with(|| format!("{:>w$}: ", event_name(ev, tps.get())));
                self.batch.lits.extend_from_slice(name.as_bytes());
            }
        }
        if has(fields::TRACE) {
            if let Some((fmt, raw)) = tps.format_of(r) {
                if let Some(tp) = tps.get() {
                    self.batch.lits.extend_from_slice(&tp.render_bytes(fmt, raw));
                }
            }
        }
        self.line.clear();
        let l = &mut self.line;
        if has(fields::ADDR) {
            let _ = write!(l, "{:16x}", s.addr().unwrap_or(0));
            if addr_correlates_sym(ev) && (has(fields::SYM) || has(fields::DSO)) {
                self.batch.lits.extend_from_slice(self.line.as_bytes());
                self.line.clear();
                self.frames.write_addr(r, s, print, &mut self.batch);
            }
        }
        let l = &mut self.line;
        if has(fields::DATA_SRC) {
            self.data_src.write(s.data_src().unwrap_or(0), l);
        }
        if has(fields::WEIGHT) {
            let w = s.weight().or_else(|| s.weight_struct().map(|(w, _, _)| u64::from(w))).unwrap_or(0);
            let _ = write!(l, "{w:16}");
        }
        if has(fields::INS_LAT) {
            let _ = write!(l, "{:16}", s.weight_struct().map_or(0, |(_, lat, _)| lat));
        }
        self.batch.lits.extend_from_slice(self.line.as_bytes());
        if has(fields::IP) {
            if chain {
                self.batch.lits.push(b'\n');
                self.frames.write_chain(r, s, print, self.opts.max_stack, &mut self.batch);
            } else {
                self.batch.lits.push(b' ');
                self.frames.write_ip(r, s, print, &mut self.batch);
            }
            self.frames.sample_printed();
        }
        self.line.clear();
        let l = &mut self.line;
        if has(fields::IREGS) {
            if let Some(regs) = s.regs_intr() {
                decode::regs(&regs, &self.arch, l);
            }
        }
        if has(fields::UREGS) {
            if let Some(regs) = s.regs_user() {
                decode::regs(&regs, &self.arch, l);
            }
        }
        // perf prints one of the three, in this order of precedence.
        let branch_form = if has(fields::BRSTACK) {
            Some(BranchEnd::Address)
        } else if has(fields::BRSTACKSYM) {
            Some(BranchEnd::Symbol)
        } else if has(fields::BRSTACKOFF) {
            Some(BranchEnd::Offset)
        } else {
            None
        };
        if let (Some(form), Some(b)) = (branch_form, s.branch_stack()) {
            self.batch.lits.extend_from_slice(self.line.as_bytes());
            self.line.clear();
            let pid = s.pid().unwrap_or(u32::MAX);
            let kernel_sample = r.header.cpumode() == perfdata_core::record::CpuMode::Kernel;
            // perf: ` 0xFROM(dso)/0xTO(dso)/flags `, the symbol form without the first space.
            let first = if form == BranchEnd::Symbol { "" } else { " " };
            for e in b.entries() {
                self.batch.lits.extend_from_slice(first.as_bytes());
                self.frames.write_branch_end(pid, kernel_sample, e.from, form, has(fields::DSO), &mut self.batch);
                self.batch.lits.push(b'/');
                self.frames.write_branch_end(pid, kernel_sample, e.to, form, has(fields::DSO), &mut self.batch);
                let _ = write!(self.line, "{} ", decode::branch_flags(&e));
                self.batch.lits.extend_from_slice(self.line.as_bytes());
                self.line.clear();
            }
        }
        let l = &mut self.line;
        if has(fields::BPF_OUTPUT) && ev.attr.type_ == 1 && ev.attr.config == 10 {
            bpf_output(s.raw().unwrap_or(&[]), l);
        }
        if has(fields::INSNLEN) {
            // perf.data samples carry no instruction (only decoded AUX traces do): length 0.
            l.push_str(" ilen: 0");
        }
        if has(fields::PHYS_ADDR) {
            let _ = write!(l, "{:16x}", s.phys_addr().unwrap_or(0));
        }
        if has(fields::DATA_PAGE_SIZE) {
            let _ = write!(l, " {}", decode::page_size_name(s.data_page_size().unwrap_or(0)));
        }
        if has(fields::CODE_PAGE_SIZE) {
            let _ = write!(l, " {}", decode::page_size_name(s.code_page_size().unwrap_or(0)));
        }
        l.push('\n');
        self.batch.lits.extend_from_slice(self.line.as_bytes());
        true
    }

    /// COMM, FORK, EXIT, MMAP and switch records, when asked for (perf's `process_*_event`).
    fn side_band(&mut self, r: &Record<'_>) {
        let o = self.opts;
        let text = match &r.kind {
            RecordKind::Comm(c) if o.show_task_events => format!(
                "PERF_RECORD_COMM{}: {}:{}/{}\n",
                if c.exec { " exec" } else { "" },
                String::from_utf8_lossy(c.comm),
                c.pid as i32,
                c.tid as i32
            ),
            RecordKind::Fork(t) if o.show_task_events => {
                format!("PERF_RECORD_FORK({}:{}):({}:{})\n", t.pid as i32, t.tid as i32, t.ppid as i32, t.ptid as i32)
            }
            RecordKind::Exit(t) if o.show_task_events => {
                format!("PERF_RECORD_EXIT({}:{}):({}:{})\n", t.pid as i32, t.tid as i32, t.ppid as i32, t.ptid as i32)
            }
            RecordKind::Mmap(m) if o.show_mmap_events => format!(
                "PERF_RECORD_MMAP {}/{}: [{}({}) @ {}]: {} {}\n",
                m.pid as i32,
                m.tid as i32,
                num::alt_hex(m.addr),
                num::alt_hex(m.len),
                num::alt_hex(m.pgoff),
                if r.header.misc & perfdata_core::record::misc::MMAP_DATA != 0 { 'r' } else { 'x' },
                String::from_utf8_lossy(m.filename)
            ),
            RecordKind::Mmap2(m) if o.show_mmap_events => mmap2_text(r, m),
            RecordKind::Switch if o.show_switch_events => format!(
                "PERF_RECORD_SWITCH {}{}\n",
                if r.header.misc & perfdata_core::record::misc::SWITCH_OUT != 0 { "OUT" } else { "IN " },
                switch_preempt(r)
            ),
            RecordKind::SwitchCpuWide(w) if o.show_switch_events => {
                let out = r.header.misc & perfdata_core::record::misc::SWITCH_OUT != 0;
                format!(
                    "PERF_RECORD_SWITCH_CPU_WIDE {}{} {} pid/tid: {:5}/{:<5}\n",
                    if out { "OUT" } else { "IN " },
                    switch_preempt(r),
                    if out { "next" } else { "prev" },
                    w.next_prev_pid as i32,
                    w.next_prev_tid as i32
                )
            }
            _ => return,
        };
        let sid = r.sample_id.as_ref();
        let (tid, pid, cpu, time) = (
            sid.and_then(|s| s.tid()),
            sid.and_then(|s| s.pid()),
            sid.and_then(|s| s.cpu()),
            sid.and_then(|s| s.time()),
        );
        if let (Some(c), Some(cpu)) = (&o.cpus, cpu) {
            if !c.contains(&cpu) {
                return;
            }
        }
        // perf prints the columns of the record's event (the first event without sample ids).
        let ev = r.event.or_else(|| r.events.events.first());
        let t = ev.map_or(0, fields::output_type);
        let fl = self.outputs.get(t).map_or(0, |o| o.fields) & !(fields::PERIOD | fields::EVNAME);
        let plain = ev.is_some_and(|e| e.attr.sample_type & sample_type::CALLCHAIN != 0)
            && self.use_callchain
            && fl & fields::IP != 0;
        // The comm is that of the thread the record is about (perf's `machine__findnew_thread`
        // of the record's pid/tid; a COMM record names it before the line is printed); the
        // tid column is the sample ids' (that thread's without them, as perf prints for a
        // `perf stat record` file: stat.data).
        let comm_tid = match &r.kind {
            RecordKind::Comm(c) => Some(c.tid),
            RecordKind::Fork(t) | RecordKind::Exit(t) => Some(t.tid),
            RecordKind::Mmap(m) => Some(m.tid),
            RecordKind::Mmap2(m) => Some(m.tid),
            _ => tid,
        };
        self.start(fl, plain, comm_tid, tid.or(comm_tid), pid, cpu, time, None);
        self.batch.lits.extend_from_slice(text.as_bytes());
    }
}

/// A sample line's first columns as perf prints them (`perf_sample__fprintf_start`, then the
/// period), into `b`: `comm` is the comm's bytes, `ns` says whether times have nanoseconds.
fn columns(c: &Columns, comm: &[u8], ns: bool, b: &mut Vec<u8>) {
    let fields = c.fields;
    if fields & fields::COMM != 0 {
        // `%16s`: padded by bytes, as C's printf.
        if c.comm_plain {
            b.extend_from_slice(comm);
        } else {
            num::pad(b, comm, 16, false, b' ');
        }
        b.push(b' ');
    }
    let (p, t) = (c.pid, c.tid);
    match (fields & fields::PID != 0, fields & fields::TID != 0) {
        (true, true) => {
            num::signed(b, p, 5, false);
            b.push(b'/');
            num::signed(b, t, 5, true);
            b.push(b' ');
        }
        (true, false) => {
            num::signed(b, p, 5, false);
            b.push(b' ');
        }
        (false, true) => {
            num::signed(b, t, 5, false);
            b.push(b' ');
        }
        _ => {}
    }
    if fields & fields::CPU != 0 {
        b.push(b'[');
        // `[%03d]`: zeros after the sign, three characters with it (`-01`).
        let start = b.len();
        num::signed(b, i64::from(c.cpu.unwrap_or(0) as i32), 0, false);
        let width = b.len().saturating_sub(start);
        if width < 3 {
            let at = if b.get(start) == Some(&b'-') { start + 1 } else { start };
            b.splice(at..at, std::iter::repeat_n(b'0', 3 - width));
        }
        b.extend_from_slice(b"] ");
    }
    if fields & fields::TIME != 0 {
        num::time(b, c.time.unwrap_or(0), ns);
    }
    if let Some(period) = c.period {
        num::dec(b, period, 10, false);
        b.push(b' ');
    }
}

/// perf's ` PREEMPT`/`` suffix of a switch-out record.
fn switch_preempt(r: &Record<'_>) -> &'static str {
    use perfdata_core::record::misc::{SWITCH_OUT, SWITCH_OUT_PREEMPT};
    if r.header.misc & SWITCH_OUT != 0 && r.header.misc & SWITCH_OUT_PREEMPT != 0 {
        " preempt"
    } else {
        ""
    }
}

/// An MMAP2 record as perf prints it.
fn mmap2_text(r: &Record<'_>, m: &perfdata_core::record::Mmap2Record<'_>) -> String {
    use perfdata_core::record::Mmap2Id;
    let prot = |b: u32, c: char| if m.prot & b != 0 { c } else { '-' };
    let shared = if m.flags & 1 != 0 { 's' } else { 'p' };
    let perms = format!("{}{}{}{}", prot(1, 'r'), prot(2, 'w'), prot(4, 'x'), shared);
    let _ = r;
    match m.id {
        Mmap2Id::BuildId { build_id: b, .. } => format!(
            "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} <{}>]: {} {}\n",
            m.pid as i32,
            m.tid as i32,
            num::alt_hex(m.addr),
            num::alt_hex(m.len),
            num::alt_hex(m.pgoff),
            b.iter().map(|x| format!("{x:02x}")).collect::<String>(),
            perms,
            String::from_utf8_lossy(m.filename)
        ),
        Mmap2Id::Inode { maj, min, ino, ino_generation } => format!(
            "PERF_RECORD_MMAP2 {}/{}: [{}({}) @ {} {:02x}:{:02x} {} {}]: {} {}\n",
            m.pid as i32,
            m.tid as i32,
            num::alt_hex(m.addr),
            num::alt_hex(m.len),
            num::alt_hex(m.pgoff),
            maj,
            min,
            ino,
            ino_generation,
            perms,
            String::from_utf8_lossy(m.filename)
        ),
    }
}

/// A BPF output event's raw data as perf prints it (`perf_sample__fprintf_bpf_output`): a hex
/// dump, 8 bytes a line, and the string when the data is one.
fn bpf_output(raw: &[u8], l: &mut String) {
    use std::fmt::Write as _;
    l.push('\n');
    let mut printable = true;
    let mut hit_nul = false;
    for (n, chunk) in raw.chunks(8).enumerate() {
        let _ = write!(l, "{:>17}", if n == 0 { "BPF output:" } else { "" });
        let _ = write!(l, " {:04x}:", n * 8);
        for b in chunk {
            let _ = write!(l, " {b:02x}");
        }
        for _ in chunk.len()..8 {
            l.push_str("   ");
        }
        l.push_str("  ");
        for &b in chunk {
            if hit_nul && b != 0 {
                printable = false;
            }
            if b.is_ascii_graphic() || b == b' ' {
                l.push(b as char);
            } else {
                l.push('.');
                if printable {
                    if b == 0 {
                        hit_nul = true;
                    } else {
                        printable = false;
                    }
                }
            }
        }
        for _ in chunk.len()..8 {
            l.push(' ');
        }
        l.push('\n');
    }
    if printable && hit_nul {
        let s = raw.split(|&b| b == 0).next().unwrap_or(&[]);
        let _ = writeln!(l, "{:>17} \"{}\"", "BPF string:", String::from_utf8_lossy(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU column is C's `[%03d]`, for a CPU read as -1 too.
    #[test]
    fn cpu_column_is_printf_03d() {
        let text = |cpu: u32| {
            let c = Columns {
                fields: fields::CPU,
                comm_plain: false,
                pid: -1,
                tid: -1,
                cpu: Some(cpu),
                time: None,
                period: None,
            };
            let mut b = Vec::new();
            columns(&c, b"", false, &mut b);
            String::from_utf8(b).unwrap()
        };
        assert_eq!(text(1), "[001] ");
        assert_eq!(text(12), "[012] ");
        assert_eq!(text(1234), "[1234] ");
        assert_eq!(text(u32::MAX), "[-01] ");
        assert_eq!(text(u32::MAX - 9), "[-10] ");
    }

    /// The one-thread path (WebAssembly's) writes what the two threads write.
    #[test]
    fn one_thread_writes_what_two_write() {
        let td = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/script-rec");
        let opts = ScriptOptions {
            symbolize: SymbolizeOptions {
                symfs: Some(td.join("root")),
                kallsyms: Some(td.join("kallsyms-48dc540c8b76393804ca8088dbfa7d42911a9444")),
                ignore_jitdump: true,
                ..SymbolizeOptions::default()
            },
            ..ScriptOptions::default()
        };
        for name in ["deep.data", "brstack.data"] {
            let f = PerfFile::open(td.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let (mut two, mut one) = (Vec::new(), Vec::new());
            let (mut w2, mut w1) = (Vec::new(), Vec::new());
            write_script_with(&f, &opts, &mut two, &mut |m| w2.push(m)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let w = Writer {
                texts: Texts::default(),
                bytes: Vec::new(),
                ns: false,
                out: &mut one,
                warn: &mut |m| w1.push(m),
            };
            inline(&f, &opts, w).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(two.len() > 1000, "{name}: {} bytes", two.len());
            assert!(one == two, "{name}: the outputs differ");
            assert_eq!(w1, w2, "{name}");
        }
    }
}
