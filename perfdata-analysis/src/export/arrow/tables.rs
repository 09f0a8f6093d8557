//! The record tables: what Python's `PerfData.to_arrow()` returns and what the Parquet export
//! writes, built in one pass over the records ([`build`]) or streamed in batches
//! ([`TableBuilder`]).
//!
//! - `samples`: one row per PERF_RECORD_SAMPLE. Always `time, pid, tid, cpu, ip, period, addr, event,
//!   callchain, cpumode`; then one column per other sample field the events declare (see
//!   `OPT_U64`, `OPT_LIST`, `OPT_BIN`: the column set follows from the events' attrs alone, so
//!   every batch of a file has the same columns). Fields an event does not sample are null, except
//!   `period`, which is the event's fixed `sample_period` then (what perf reports).
//! - `mmaps`: MMAP and MMAP2; `comms`: COMM; `tasks`: FORK and EXIT; `lost`: LOST and LOST_SAMPLES;
//! - `records`: one row per record type: count and bytes.
//!
//! With `symbolize`, the samples table also gets `comm`, `dso`, `symbol` and `frames` (`SymSink`).

use super::columns::{Prim, U64List};
use crate::options::{FoldedOptions, Root};
use crate::stacks::StackFolder;
use crate::Result;
use arrow_array::builder::{LargeBinaryBuilder, ListBuilder, StringDictionaryBuilder};
use arrow_array::types::{Int32Type, Int8Type, UInt32Type, UInt64Type};
use arrow_array::{ArrayRef, BooleanArray, DictionaryArray, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use perfdata_core::attr::{branch_sample_type, read_format, sample_type as st};
use perfdata_core::record::{misc, Mmap2Id};
use perfdata_core::{Event, Order, PerfFile, ReadOptions, Record, RecordKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The tables `to_arrow` can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// PERF_RECORD_SAMPLE rows.
    Samples,
    /// MMAP / MMAP2 rows.
    Mmaps,
    /// COMM rows.
    Comms,
    /// FORK / EXIT rows.
    Tasks,
    /// LOST / LOST_SAMPLES rows.
    Lost,
    /// Record type counts.
    Records,
}

impl Table {
    /// All tables, by name.
    pub const ALL: [(&'static str, Table); 6] = [
        ("samples", Table::Samples),
        ("mmaps", Table::Mmaps),
        ("comms", Table::Comms),
        ("tasks", Table::Tasks),
        ("lost", Table::Lost),
        ("records", Table::Records),
    ];

    /// The table called `name`.
    pub fn parse(name: &str) -> Option<Table> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }
}

/// How to build a table.
#[derive(Clone, Debug)]
pub struct Options {
    /// Record order.
    pub order: Order,
    /// Include the user stack bytes (PERF_SAMPLE_STACK_USER) as a `stack_user` column.
    pub stack_data: bool,
    /// Samples table: add the symbolized columns `comm`, `dso`, `symbol`, `frames`, folded with
    /// these options (frames as `folded()` writes them).
    pub symbolize: Option<FoldedOptions>,
}

/// A built table and what was learned while reading.
pub struct Built {
    /// Columns.
    pub schema: SchemaRef,
    /// The rows (one batch).
    pub batches: Vec<RecordBatch>,
    /// Problems met while reading.
    pub diagnostics: Vec<String>,
    /// Samples seen in the pass.
    pub samples: u64,
    /// Samples seen per event index.
    pub per_event: Vec<u64>,
    /// The events at the end of the pass (pipe data learns them as it goes).
    pub events: Vec<Event>,
}

/// Most diagnostics collected in one pass.
const MAX_DIAGNOSTICS: usize = 1000;

/// Read every record of `file` once and build `table` (one batch).
pub fn build(file: &PerfFile<'_>, table: Table, opts: Options) -> Result<Built> {
    let mut builder = TableBuilder::new(file, table, &opts);
    let pass = pass(file, opts.order, |rec| builder.push(rec))?;
    let columns = builder.take(&pass.events)?;
    let mut pass = pass;
    pass.diagnostics.extend(builder.diagnostics());
    assemble(columns, pass)
}

/// Builds one table from records pushed in order; [`TableBuilder::take`] hands over the rows
/// so far as columns and starts again empty, so a writer can stream a table in batches.
pub struct TableBuilder<'o> {
    sink: Box<dyn Sink>,
    sym: Option<SymSink<'o>>,
}

impl<'o> TableBuilder<'o> {
    /// A builder of `table` of `file` (its symbolizer, when `opts.symbolize`, borrows the options).
    pub fn new(file: &PerfFile<'_>, table: Table, opts: &'o Options) -> Self {
        let sink: Box<dyn Sink> = match table {
            Table::Samples => Box::new(SampleSink::new(opts.stack_data)),
            Table::Mmaps => Box::<Rows<MmapRow>>::default(),
            Table::Comms => Box::<Rows<CommRow>>::default(),
            Table::Tasks => Box::<Rows<TaskRow>>::default(),
            Table::Lost => Box::<Rows<LostRow>>::default(),
            Table::Records => Box::<CountSink>::default(),
        };
        let sym = match (table, &opts.symbolize) {
            (Table::Samples, Some(fold)) => Some(SymSink::new(file, fold)),
            _ => None,
        };
        TableBuilder { sink, sym }
    }

    /// Add `rec` (records of other tables are ignored).
    pub fn push(&mut self, rec: &Record<'_>) {
        if let Some(s) = self.sym.as_mut() {
            s.push(rec);
        }
        self.sink.push(rec);
    }

    /// The line saying what the symbolized columns could not name, if anything
    /// ([`StackFolder::diagnostics`]); empty without `symbolize`.
    pub fn diagnostics(&self) -> Vec<String> {
        self.sym.as_ref().map(|s| s.folder.diagnostics()).unwrap_or_default()
    }

    /// Rows held (not yet taken).
    pub fn rows(&self) -> usize {
        self.sink.rows()
    }

    /// The rows held as named columns (`events`: the file's events, which name the `event`
    /// column's values and declare the optional sample columns); the builder is empty afterwards.
    pub fn take(&mut self, events: &[Event]) -> Result<Vec<(&'static str, ArrayRef)>, ArrowError> {
        let mut columns = self.sink.take(events)?;
        if let Some(s) = self.sym.as_mut() {
            columns.extend(s.take());
        }
        Ok(columns)
    }
}

/// The symbolized columns of the samples table: `comm` (perf's comm of the thread at the
/// sample), `dso` and `symbol` of the sample's ip, `frames` (the folded stack's frames, leaf
/// first, without the root frame; null when `folded()` drops the sample). Strings are
/// dictionary-encoded: a repeated name costs one integer per row.
struct SymSink<'o> {
    folder: StackFolder<'o>,
    root: bool,
    comm: StringDictionaryBuilder<Int32Type>,
    dso: StringDictionaryBuilder<Int32Type>,
    symbol: StringDictionaryBuilder<Int32Type>,
    frames: ListBuilder<StringDictionaryBuilder<Int32Type>>,
    scratch: Vec<String>,
}

impl<'o> SymSink<'o> {
    fn new(file: &PerfFile<'_>, fold: &'o FoldedOptions) -> Self {
        SymSink {
            folder: StackFolder::new(file, fold),
            root: fold.root != Root::None,
            comm: StringDictionaryBuilder::new(),
            dso: StringDictionaryBuilder::new(),
            symbol: StringDictionaryBuilder::new(),
            frames: ListBuilder::new(StringDictionaryBuilder::new()),
            scratch: Vec::new(),
        }
    }

    fn push(&mut self, rec: &Record<'_>) {
        self.folder.record(rec);
        let RecordKind::Sample(s) = &rec.kind else { return };
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        self.comm.append_value(self.folder.comm(tid));
        let kernel = rec.header.cpumode() == perfdata_core::record::CpuMode::Kernel;
        match s.ip() {
            Some(ip) => {
                let f = self.folder.locate(pid, kernel, ip);
                self.dso.append_value(&*f.dso);
                // A kallsyms module symbol carries its module after a NUL.
                match f.symbol.as_deref().map(|n| n.split('\0').next().unwrap_or(n)) {
                    Some(n) => self.symbol.append_value(n),
                    None => self.symbol.append_null(),
                }
            }
            None => {
                self.dso.append_null();
                self.symbol.append_null();
            }
        }
        match self.folder.stack(rec, s) {
            Some(id) => {
                self.scratch.clear();
                self.scratch.extend(self.folder.frames(id).skip(usize::from(self.root)).map(str::to_string));
                for f in self.scratch.iter().rev() {
                    self.frames.values().append_value(f);
                }
                self.frames.append(true);
            }
            None => self.frames.append(false),
        }
    }

    fn take(&mut self) -> Columns {
        vec![
            ("comm", Arc::new(self.comm.finish()) as ArrayRef),
            ("dso", Arc::new(self.dso.finish())),
            ("symbol", Arc::new(self.symbol.finish())),
            ("frames", Arc::new(self.frames.finish())),
        ]
    }
}

/// What one pass over the records learned.
pub struct Pass {
    /// Problems met while reading.
    pub diagnostics: Vec<String>,
    /// Samples seen.
    pub samples: u64,
    /// Samples seen per event index.
    pub per_event: Vec<u64>,
    /// The events at the end of the pass.
    pub events: Vec<Event>,
}

/// Read every record of `file` once in `order`, handing each to `push`.
pub fn pass(file: &PerfFile<'_>, order: Order, mut push: impl FnMut(&Record<'_>)) -> Result<Pass> {
    let mut recs = file.records_with(ReadOptions { order, ..ReadOptions::default() })?;
    let mut diagnostics = Vec::new();
    let mut samples = 0u64;
    let mut per_event: Vec<u64> = Vec::new();
    while let Some(r) = recs.next_record() {
        match r {
            Ok(rec) => {
                if matches!(rec.kind, RecordKind::Sample(_)) {
                    samples += 1;
                    if let Some(e) = rec.event {
                        if per_event.len() <= e.index {
                            per_event.resize(e.index + 1, 0);
                        }
                        if let Some(n) = per_event.get_mut(e.index) {
                            *n += 1;
                        }
                    }
                }
                push(&rec);
            }
            Err(e) => {
                if diagnostics.len() < MAX_DIAGNOSTICS {
                    diagnostics.push(e.to_string());
                }
            }
        }
    }
    diagnostics.extend(recs.diagnostics());
    Ok(Pass { diagnostics, samples, per_event, events: recs.events().to_vec() })
}

/// Named columns → a batch (every column nullable).
pub fn batch<N: AsRef<str>>(columns: Vec<(N, ArrayRef)>) -> Result<RecordBatch, ArrowError> {
    let fields: Vec<Field> = columns.iter().map(|(n, a)| Field::new(n.as_ref(), a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a)| a).collect())
}

/// Named columns and their pass → a one-batch table.
pub fn assemble<N: AsRef<str>>(columns: Vec<(N, ArrayRef)>, pass: Pass) -> Result<Built> {
    let batch = batch(columns)?;
    let Pass { diagnostics, samples, per_event, events } = pass;
    Ok(Built { schema: batch.schema(), batches: vec![batch], diagnostics, samples, per_event, events })
}

type Columns = Vec<(&'static str, ArrayRef)>;

trait Sink: Send {
    fn push(&mut self, rec: &Record<'_>);
    fn rows(&self) -> usize;
    /// The rows so far as columns; empty afterwards.
    fn take(&mut self, events: &[Event]) -> Result<Columns, ArrowError>;
}

/// Whether `e` samples any of `bits`.
fn has(e: &Event, bits: u64) -> bool {
    e.attr.sample_type & bits != 0
}
/// Whether `e` samples read values with any of the read_format `bits`.
fn reads(e: &Event, bits: u64) -> bool {
    has(e, st::READ) && e.attr.read_format & bits != 0
}
/// Whether `e` samples a branch stack with any of the branch_sample_type `bits`.
fn branches(e: &Event, bits: u64) -> bool {
    has(e, st::BRANCH_STACK) && e.attr.branch_sample_type & bits != 0
}

/// Which events declare an optional column.
type Declares = fn(&Event) -> bool;

// ---------------------------------------------------------------------------------------------
// samples

/// Optional u64 columns of the samples table, and which events declare them (a column is there
/// when any event of the file declares it).
const OPT_U64: [(&str, Declares); 17] = [
    ("id", |e| has(e, st::ID)),
    ("stream_id", |e| has(e, st::STREAM_ID)),
    ("identifier", |e| has(e, st::IDENTIFIER)),
    ("weight", |e| has(e, st::WEIGHT | st::WEIGHT_STRUCT)),
    ("data_src", |e| has(e, st::DATA_SRC)),
    ("transaction", |e| has(e, st::TRANSACTION)),
    ("phys_addr", |e| has(e, st::PHYS_ADDR)),
    ("cgroup", |e| has(e, st::CGROUP)),
    ("data_page_size", |e| has(e, st::DATA_PAGE_SIZE)),
    ("code_page_size", |e| has(e, st::CODE_PAGE_SIZE)),
    ("read_time_enabled", |e| reads(e, read_format::TOTAL_TIME_ENABLED)),
    ("read_time_running", |e| reads(e, read_format::TOTAL_TIME_RUNNING)),
    ("branch_hw_idx", |e| branches(e, branch_sample_type::HW_INDEX)),
    ("regs_user_abi", |e| has(e, st::REGS_USER)),
    ("regs_intr_abi", |e| has(e, st::REGS_INTR)),
    ("stack_user_size", |e| has(e, st::STACK_USER)),
    ("stack_user_dyn_size", |e| has(e, st::STACK_USER)),
];

/// Optional list<u64> columns (read values, branch stack, registers in mask bit order).
const OPT_LIST: [(&str, Declares); 9] = [
    ("read_value", |e| has(e, st::READ)),
    ("read_id", |e| reads(e, read_format::ID)),
    ("read_lost", |e| reads(e, read_format::LOST)),
    ("branch_from", |e| has(e, st::BRANCH_STACK)),
    ("branch_to", |e| has(e, st::BRANCH_STACK)),
    ("branch_flags", |e| has(e, st::BRANCH_STACK)),
    ("branch_counters", |e| has(e, st::BRANCH_STACK) && e.branch_counters()),
    ("regs_user", |e| has(e, st::REGS_USER)),
    ("regs_intr", |e| has(e, st::REGS_INTR)),
];

/// The sample_type bits of every optional column: samples of events without them skip that part.
const OPTIONAL_BITS: u64 = st::ID
    | st::STREAM_ID
    | st::IDENTIFIER
    | st::WEIGHT
    | st::WEIGHT_STRUCT
    | st::DATA_SRC
    | st::TRANSACTION
    | st::PHYS_ADDR
    | st::CGROUP
    | st::DATA_PAGE_SIZE
    | st::CODE_PAGE_SIZE
    | st::READ
    | st::BRANCH_STACK
    | st::REGS_USER
    | st::REGS_INTR
    | st::STACK_USER
    | st::RAW
    | st::AUX;

/// Optional binary columns (`stack_user` only with [`Options::stack_data`]).
const OPT_BIN: [(&str, Declares); 3] =
    [("raw", |e| has(e, st::RAW)), ("aux", |e| has(e, st::AUX)), ("stack_user", |e| has(e, st::STACK_USER))];

/// Names of the cpumode dictionary (keys are [`cpumode_key`]).
const CPUMODES: [&str; 7] = ["unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user", "other"];

fn cpumode_key(m: u16) -> i8 {
    match m & 7 {
        n @ 0..=5 => n as i8,
        _ => 6,
    }
}

struct SampleSink {
    rows: usize,
    /// Some sample had optional fields (so optional columns may exist).
    any_optional: bool,
    stack_data: bool,
    time: Prim<UInt64Type>,
    pid: Prim<UInt32Type>,
    tid: Prim<UInt32Type>,
    cpu: Prim<UInt32Type>,
    ip: Prim<UInt64Type>,
    period: Prim<UInt64Type>,
    addr: Prim<UInt64Type>,
    event: Prim<Int32Type>,
    callchain: U64List,
    cpumode: Prim<Int8Type>,
    opt_u64: [Option<Prim<UInt64Type>>; OPT_U64.len()],
    opt_list: [Option<U64List>; OPT_LIST.len()],
    opt_bin: [Option<LargeBinaryBuilder>; OPT_BIN.len()],
}

/// Append to a column created on first use (earlier rows null).
fn put_u64(col: &mut Option<Prim<UInt64Type>>, rows: usize, v: Option<u64>) {
    match (col.as_mut(), v) {
        (Some(b), v) => b.push(v),
        (None, Some(v)) => {
            let mut b = Prim::nulls(rows);
            b.push(Some(v));
            *col = Some(b);
        }
        (None, None) => {}
    }
}

fn put_list<I: Iterator<Item = u64>>(col: &mut Option<U64List>, rows: usize, v: Option<I>) {
    if col.is_none() && v.is_some() {
        *col = Some(U64List::nulls(rows));
    }
    if let Some(b) = col.as_mut() {
        b.push(v);
    }
}

fn put_bin(col: &mut Option<LargeBinaryBuilder>, rows: usize, v: Option<&[u8]>) {
    match (col.as_mut(), v) {
        (Some(b), v) => b.append_option(v),
        (None, Some(v)) => {
            let mut b = LargeBinaryBuilder::new();
            b.append_nulls(rows);
            b.append_value(v);
            *col = Some(b);
        }
        (None, None) => {}
    }
}

impl SampleSink {
    fn new(stack_data: bool) -> Self {
        SampleSink {
            rows: 0,
            any_optional: false,
            stack_data,
            time: Prim::default(),
            pid: Prim::default(),
            tid: Prim::default(),
            cpu: Prim::default(),
            ip: Prim::default(),
            period: Prim::default(),
            addr: Prim::default(),
            event: Prim::default(),
            callchain: U64List::default(),
            cpumode: Prim::default(),
            opt_u64: Default::default(),
            opt_list: Default::default(),
            opt_bin: Default::default(),
        }
    }

    fn push_optional_nulls(&mut self) {
        if !self.any_optional {
            return;
        }
        for c in self.opt_u64.iter_mut().flatten() {
            c.push(None);
        }
        for c in self.opt_list.iter_mut().flatten() {
            c.push(None::<std::iter::Empty<u64>>);
        }
        for c in self.opt_bin.iter_mut().flatten() {
            c.append_null();
        }
    }

    fn push_optional(&mut self, s: &perfdata_core::Sample<'_>) {
        // Columns are created on first use; from here on every row must fill them.
        self.any_optional = true;
        let n = self.rows;
        // Each variable-position field is decoded once, and only when the event samples it.
        let bits = s.attr().sample_type;
        let has = |b: u64| bits & b != 0;
        let read = if has(st::READ) { s.read() } else { None };
        let read = read.as_ref();
        let branch = if has(st::BRANCH_STACK) { s.branch_stack() } else { None };
        let branch = branch.as_ref();
        let regs_user_v = if has(st::REGS_USER) { s.regs_user() } else { None };
        let regs_intr_v = if has(st::REGS_INTR) { s.regs_intr() } else { None };
        let stack_user = if has(st::STACK_USER) { s.stack_user() } else { None };
        let u64s: [Option<u64>; OPT_U64.len()] = [
            s.id(),
            s.stream_id(),
            s.identifier(),
            s.weight(),
            s.data_src(),
            s.transaction(),
            s.phys_addr(),
            s.cgroup(),
            s.data_page_size(),
            s.code_page_size(),
            read.and_then(|r| r.time_enabled()),
            read.and_then(|r| r.time_running()),
            branch.and_then(|b| b.hw_idx),
            regs_user_v.as_ref().map(|r| r.abi),
            regs_intr_v.as_ref().map(|r| r.abi),
            stack_user.as_ref().map(|x| x.size),
            stack_user.as_ref().and_then(|x| x.dyn_size),
        ];
        for (col, v) in self.opt_u64.iter_mut().zip(u64s) {
            put_u64(col, n, v);
        }

        let has_id = read.is_some_and(|r| r.read_format & read_format::ID != 0);
        let has_lost = read.is_some_and(|r| r.read_format & read_format::LOST != 0);
        let [read_value, read_id, read_lost, branch_from, branch_to, branch_flags, branch_counters, regs_user, regs_intr] =
            &mut self.opt_list;
        put_list(read_value, n, read.map(|r| r.values().map(|v| v.value)));
        put_list(read_id, n, read.filter(|_| has_id).map(|r| r.values().map(|v| v.id.unwrap_or(0))));
        put_list(read_lost, n, read.filter(|_| has_lost).map(|r| r.values().map(|v| v.lost.unwrap_or(0))));
        put_list(branch_from, n, branch.map(|b| b.entries().map(|e| e.from)));
        put_list(branch_to, n, branch.map(|b| b.entries().map(|e| e.to)));
        put_list(branch_flags, n, branch.map(|b| b.entries().map(|e| e.flags)));
        put_list(branch_counters, n, branch.and_then(|b| b.counters).map(|c| c.iter()));
        put_list(regs_user, n, regs_user_v.as_ref().map(|r| r.values.iter()));
        put_list(regs_intr, n, regs_intr_v.as_ref().map(|r| r.values.iter()));

        let [raw, aux, stack] = &mut self.opt_bin;
        put_bin(raw, n, s.raw());
        put_bin(aux, n, s.aux());
        if self.stack_data {
            put_bin(stack, n, stack_user.as_ref().map(|x| x.data));
        }
    }
}

impl Sink for SampleSink {
    fn push(&mut self, rec: &Record<'_>) {
        let RecordKind::Sample(s) = &rec.kind else {
            return;
        };
        self.time.push(s.time());
        self.pid.push(s.pid());
        self.tid.push(s.tid());
        self.cpu.push(s.cpu());
        self.ip.push(s.ip());
        self.period.push(Some(s.period_or_attr()));
        self.addr.push(s.addr());
        self.event.push(rec.event.and_then(|e| i32::try_from(e.index).ok()));
        self.callchain.push(s.callchain().map(|c| c.iter()));
        self.cpumode.push(Some(cpumode_key(rec.header.misc)));

        if s.attr().sample_type & OPTIONAL_BITS == 0 {
            // The common case (ip, tid, time, cpu, period, callchain only): no optional column to fill
            // but with nulls for the rows of other events that have them.
            self.push_optional_nulls();
        } else {
            self.push_optional(s);
        }
        self.rows += 1;
    }

    fn rows(&self) -> usize {
        self.rows
    }

    fn take(&mut self, events: &[Event]) -> Result<Columns, ArrowError> {
        std::mem::replace(self, SampleSink::new(self.stack_data)).finish(events)
    }
}

impl SampleSink {
    fn finish(self, events: &[Event]) -> Result<Columns, ArrowError> {
        let rows = self.rows;
        let stack_data = self.stack_data;
        let names = StringArray::from_iter_values(events.iter().map(Event::display_name));
        let event = DictionaryArray::<Int32Type>::try_new(self.event.finish()?, Arc::new(names))?;
        let cpumode = DictionaryArray::<Int8Type>::try_new(
            self.cpumode.finish()?,
            Arc::new(StringArray::from_iter_values(CPUMODES)),
        )?;
        let mut cols: Columns = vec![
            ("time", Arc::new(self.time.finish()?)),
            ("pid", Arc::new(self.pid.finish()?)),
            ("tid", Arc::new(self.tid.finish()?)),
            ("cpu", Arc::new(self.cpu.finish()?)),
            ("ip", Arc::new(self.ip.finish()?)),
            ("period", Arc::new(self.period.finish()?)),
            ("addr", Arc::new(self.addr.finish()?)),
            ("event", Arc::new(event)),
            ("callchain", Arc::new(self.callchain.finish()?)),
            ("cpumode", Arc::new(cpumode)),
        ];
        // A column is there when an event declares it, whether or not a sample filled it, so that
        // every batch of a file has the same columns. (A sample can only carry what its attr
        // declares, so a filled column is always a declared one.)
        let wanted = |declares: &Declares| events.iter().any(declares);
        let list_type = U64List::data_type();
        let SampleSink { opt_u64, opt_list, mut opt_bin, .. } = self;
        for ((name, declares), col) in OPT_U64.iter().zip(opt_u64) {
            match col {
                Some(b) => cols.push((name, Arc::new(b.finish()?))),
                None if wanted(declares) => cols.push((name, arrow_array::new_null_array(&DataType::UInt64, rows))),
                None => {}
            }
        }
        for ((name, declares), col) in OPT_LIST.iter().zip(opt_list) {
            match col {
                Some(b) => cols.push((name, Arc::new(b.finish()?))),
                None if wanted(declares) => cols.push((name, arrow_array::new_null_array(&list_type, rows))),
                None => {}
            }
        }
        for ((name, declares), col) in OPT_BIN.iter().zip(opt_bin.iter_mut()) {
            let declared = wanted(declares) && (*name != "stack_user" || stack_data);
            match col {
                Some(b) => cols.push((name, Arc::new(b.finish()))),
                None if declared => cols.push((name, arrow_array::new_null_array(&DataType::LargeBinary, rows))),
                None => {}
            }
        }
        Ok(cols)
    }
}

// ---------------------------------------------------------------------------------------------
// the small tables: rows collected, then turned into columns

/// A row of a small table: made from a record (None for the records of other tables), turned into
/// columns with the other rows.
trait Row: Sized + Send {
    fn of(rec: &Record<'_>) -> Option<Self>;
    fn columns(rows: &[Self]) -> Result<Columns, ArrowError>;
}

/// The rows of a small table so far.
struct Rows<R>(Vec<R>);

impl<R> Default for Rows<R> {
    fn default() -> Self {
        Rows(Vec::new())
    }
}

impl<R: Row> Sink for Rows<R> {
    fn push(&mut self, rec: &Record<'_>) {
        if let Some(r) = R::of(rec) {
            self.0.push(r);
        }
    }

    fn rows(&self) -> usize {
        self.0.len()
    }

    fn take(&mut self, _: &[Event]) -> Result<Columns, ArrowError> {
        R::columns(&std::mem::take(&mut self.0))
    }
}

/// Timestamp and cpu of a non-sample record (from its sample_id trailer).
fn when(rec: &Record<'_>) -> (Option<u64>, Option<u32>) {
    (rec.time(), rec.sample_id.and_then(|s| s.cpu()))
}

fn u64s(v: impl Iterator<Item = Option<u64>>) -> ArrayRef {
    Arc::new(UInt64Array::from_iter(v))
}
fn u32s(v: impl Iterator<Item = Option<u32>>) -> ArrayRef {
    Arc::new(UInt32Array::from_iter(v))
}
fn strs<'a>(v: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(v))
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

struct MmapRow {
    type_: &'static str,
    time: Option<u64>,
    cpu: Option<u32>,
    misc: u16,
    pid: u32,
    tid: u32,
    addr: u64,
    len: u64,
    pgoff: u64,
    filename: String,
    prot: Option<u32>,
    flags: Option<u32>,
    maj: Option<u32>,
    min: Option<u32>,
    ino: Option<u64>,
    ino_generation: Option<u64>,
    build_id: Option<String>,
}

impl Row for MmapRow {
    fn of(rec: &Record<'_>) -> Option<Self> {
        let (time, cpu) = when(rec);
        let misc = rec.header.misc;
        let m = rec.kind.mapping()?;
        let (maj, min, ino, ino_generation, build_id) = match m.id {
            Some(Mmap2Id::Inode { maj, min, ino, ino_generation }) => {
                (Some(maj), Some(min), Some(ino), Some(ino_generation), None)
            }
            Some(Mmap2Id::BuildId { build_id, .. }) => {
                (None, None, None, None, Some(perfdata_core::names::hex(build_id)))
            }
            None => (None, None, None, None, None),
        };
        Some(MmapRow {
            type_: if m.id.is_some() { "MMAP2" } else { "MMAP" },
            time,
            cpu,
            misc,
            pid: m.pid,
            tid: m.tid,
            addr: m.addr,
            len: m.len,
            pgoff: m.pgoff,
            filename: lossy(m.filename),
            prot: m.prot,
            flags: m.flags,
            maj,
            min,
            ino,
            ino_generation,
            build_id,
        })
    }

    fn columns(r: &[Self]) -> Result<Columns, ArrowError> {
        let cpumode = |m: u16| CPUMODES.get(cpumode_key(m) as usize).copied();
        Ok(vec![
            ("type", strs(r.iter().map(|x| Some(x.type_)))),
            ("time", u64s(r.iter().map(|x| x.time))),
            ("cpu", u32s(r.iter().map(|x| x.cpu))),
            ("pid", u32s(r.iter().map(|x| Some(x.pid)))),
            ("tid", u32s(r.iter().map(|x| Some(x.tid)))),
            ("addr", u64s(r.iter().map(|x| Some(x.addr)))),
            ("len", u64s(r.iter().map(|x| Some(x.len)))),
            ("pgoff", u64s(r.iter().map(|x| Some(x.pgoff)))),
            ("filename", strs(r.iter().map(|x| Some(x.filename.as_str())))),
            ("cpumode", strs(r.iter().map(|x| cpumode(x.misc)))),
            ("executable", Arc::new(BooleanArray::from_iter(r.iter().map(|x| Some(x.misc & misc::MMAP_DATA == 0))))),
            ("prot", u32s(r.iter().map(|x| x.prot))),
            ("flags", u32s(r.iter().map(|x| x.flags))),
            ("maj", u32s(r.iter().map(|x| x.maj))),
            ("min", u32s(r.iter().map(|x| x.min))),
            ("ino", u64s(r.iter().map(|x| x.ino))),
            ("ino_generation", u64s(r.iter().map(|x| x.ino_generation))),
            ("build_id", strs(r.iter().map(|x| x.build_id.as_deref()))),
        ])
    }
}

struct CommRow {
    time: Option<u64>,
    cpu: Option<u32>,
    pid: u32,
    tid: u32,
    comm: String,
    exec: bool,
}

impl Row for CommRow {
    fn of(rec: &Record<'_>) -> Option<Self> {
        let RecordKind::Comm(c) = &rec.kind else { return None };
        let (time, cpu) = when(rec);
        Some(CommRow { time, cpu, pid: c.pid, tid: c.tid, comm: lossy(c.comm), exec: c.exec })
    }

    fn columns(r: &[Self]) -> Result<Columns, ArrowError> {
        Ok(vec![
            ("time", u64s(r.iter().map(|x| x.time))),
            ("cpu", u32s(r.iter().map(|x| x.cpu))),
            ("pid", u32s(r.iter().map(|x| Some(x.pid)))),
            ("tid", u32s(r.iter().map(|x| Some(x.tid)))),
            ("comm", strs(r.iter().map(|x| Some(x.comm.as_str())))),
            ("exec", Arc::new(BooleanArray::from_iter(r.iter().map(|x| Some(x.exec))))),
        ])
    }
}

struct TaskRow {
    type_: &'static str,
    time: u64,
    cpu: Option<u32>,
    pid: u32,
    ppid: u32,
    tid: u32,
    ptid: u32,
}

impl Row for TaskRow {
    fn of(rec: &Record<'_>) -> Option<Self> {
        let (type_, t) = match &rec.kind {
            RecordKind::Fork(t) => ("FORK", t),
            RecordKind::Exit(t) => ("EXIT", t),
            _ => return None,
        };
        Some(TaskRow { type_, time: t.time, cpu: when(rec).1, pid: t.pid, ppid: t.ppid, tid: t.tid, ptid: t.ptid })
    }

    fn columns(r: &[Self]) -> Result<Columns, ArrowError> {
        Ok(vec![
            ("type", strs(r.iter().map(|x| Some(x.type_)))),
            ("time", u64s(r.iter().map(|x| Some(x.time)))),
            ("cpu", u32s(r.iter().map(|x| x.cpu))),
            ("pid", u32s(r.iter().map(|x| Some(x.pid)))),
            ("ppid", u32s(r.iter().map(|x| Some(x.ppid)))),
            ("tid", u32s(r.iter().map(|x| Some(x.tid)))),
            ("ptid", u32s(r.iter().map(|x| Some(x.ptid)))),
        ])
    }
}

struct LostRow {
    type_: &'static str,
    time: Option<u64>,
    cpu: Option<u32>,
    pid: Option<u32>,
    tid: Option<u32>,
    id: Option<u64>,
    lost: u64,
}

impl Row for LostRow {
    fn of(rec: &Record<'_>) -> Option<Self> {
        let (type_, id, lost) = match &rec.kind {
            RecordKind::Lost(l) => ("LOST", Some(l.id), l.lost),
            RecordKind::LostSamples(l) => ("LOST_SAMPLES", None, l.lost),
            _ => return None,
        };
        let (time, cpu) = when(rec);
        Some(LostRow {
            type_,
            time,
            cpu,
            pid: rec.sample_id.and_then(|s| s.pid()),
            tid: rec.sample_id.and_then(|s| s.tid()),
            id,
            lost,
        })
    }

    fn columns(r: &[Self]) -> Result<Columns, ArrowError> {
        Ok(vec![
            ("type", strs(r.iter().map(|x| Some(x.type_)))),
            ("time", u64s(r.iter().map(|x| x.time))),
            ("cpu", u32s(r.iter().map(|x| x.cpu))),
            ("pid", u32s(r.iter().map(|x| x.pid))),
            ("tid", u32s(r.iter().map(|x| x.tid))),
            ("id", u64s(r.iter().map(|x| x.id))),
            ("lost", u64s(r.iter().map(|x| Some(x.lost)))),
        ])
    }
}

/// Per record type: (count, bytes).
#[derive(Default)]
struct CountSink(BTreeMap<u32, (u64, u64)>);

impl Sink for CountSink {
    fn push(&mut self, rec: &Record<'_>) {
        let e = self.0.entry(rec.header.type_).or_default();
        e.0 += 1;
        e.1 += rec.header.record_size() as u64;
    }

    fn rows(&self) -> usize {
        self.0.len()
    }

    fn take(&mut self, _: &[Event]) -> Result<Columns, ArrowError> {
        let counts = std::mem::take(&mut self.0);
        let names: Vec<String> =
            counts.keys().map(|t| perfdata_core::record::record_type::display_name(*t).into_owned()).collect();
        Ok(vec![
            ("type", strs(names.iter().map(|s| Some(s.as_str())))),
            ("type_id", u32s(counts.keys().map(|t| Some(*t)))),
            ("count", u64s(counts.values().map(|v| Some(v.0)))),
            ("bytes", u64s(counts.values().map(|v| Some(v.1)))),
        ])
    }
}
