//! The record tables as a directory of Parquet files (`perfdata export --format parquet`,
//! Python's `PerfData.to_parquet`): the columns of [`super::arrow`] (the same names, types and
//! dictionaries as Python's `to_arrow`), zstd-compressed, one file per table:
//!
//! | file | rows |
//! |---|---|
//! | `samples.parquet` | PERF_RECORD_SAMPLE (with `symbolize`: also `comm`, `dso`, `symbol`, `frames`) |
//! | `mmaps.parquet`, `comms.parquet`, `tasks.parquet`, `lost.parquet` | MMAP/MMAP2, COMM, FORK/EXIT, LOST/LOST_SAMPLES |
//! | `records.parquet` | one per record type: count and bytes |
//! | `tp.SYSTEM.NAME.parquet` | the samples of each tracepoint event (`tp.sched.sched_switch.parquet`), a typed column per field |
//!
//! All tables are filled in one pass over the records and written in batches of
//! [`ParquetOptions::batch_rows`] rows (one row group each), so memory follows the batch, not the
//! file (pipe streams, whose events and columns are only known at their end, are written in one
//! batch). Reading and encoding run on two threads. Each file is
//! written under a temporary name (`.NAME.parquet.tmp-PID`) and renamed when every table is
//! complete: an error leaves none of them behind (and removes the directory if this call created
//! it). Files of other names already in the directory are left alone.

use super::arrow::tables::{self, Table, TableBuilder};
use super::arrow::tracepoints::TracepointBuilder;
use crate::options::FoldedOptions;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use perfdata_core::header::Format as FileFormat;
use perfdata_core::tracepoint::Tracepoints;
use perfdata_core::{Event, Order, PerfFile, Record, RecordKind};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::Arc;

/// How to write the tables.
#[derive(Clone, Debug)]
pub struct ParquetOptions {
    /// Record order (rows follow it).
    pub order: Order,
    /// Samples table: add `comm`, `dso`, `symbol` and `frames` (`list<string>`, leaf first), folded
    /// with these options (as Python's `to_arrow(symbolize=True)`).
    pub symbolize: Option<FoldedOptions>,
    /// Samples table: include the user stack bytes as a `stack_user` column.
    pub stack_data: bool,
    /// Tracepoint tables: include the `common_*` fields.
    pub common: bool,
    /// Rows per batch (and per Parquet row group).
    pub batch_rows: usize,
    /// Columns of one value added to every table, after its own (`file` in a dataset: see
    /// [`super::dataset`]), dictionary-encoded (`dictionary<int32, utf8>`).
    pub constants: Vec<(String, String)>,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            order: Order::Time,
            symbolize: None,
            stack_data: false,
            common: false,
            batch_rows: 1 << 16,
            constants: Vec::new(),
        }
    }
}

/// One file written.
#[derive(Clone, Debug)]
pub struct WrittenTable {
    /// The table's name (`samples`, `tp.sched.sched_switch`, …).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Its rows.
    pub rows: u64,
}

/// What [`write_parquet`] wrote.
#[derive(Clone, Debug)]
pub struct Written {
    /// The files, in the order of the table list above.
    pub tables: Vec<WrittenTable>,
    /// Problems met while reading (the records read before them are written).
    pub diagnostics: Vec<String>,
}

/// Why the tables could not be written: the crate's [`Error`].
pub use crate::Error;

/// Write every table of `file` into `dir` (created if missing) as `NAME.parquet`.
pub fn write_parquet(file: &PerfFile<'_>, dir: &Path, o: &ParquetOptions) -> Result<Written, Error> {
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let mut outs =
        Outputs { dir: dir.to_path_buf(), props: properties(o), files: Vec::new(), constants: o.constants.clone() };
    // Two stages on two threads: this one reads records into batches of columns, the other
    // encodes and compresses them (the two take about as long).
    let failed = AtomicBool::new(false);
    let (read, written) = std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Batch>(4);
        let (outs, failed) = (&mut outs, &failed);
        let writer = s.spawn(move || {
            for b in rx {
                if !failed.load(Ordering::Relaxed) {
                    if let Err(e) = outs.write(b) {
                        failed.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(())
        });
        let read = fill(file, o, &tx, failed);
        drop(tx);
        (read, writer.join().unwrap_or_else(|_| Err(Error::WriterPanicked)))
    });
    let result = written.and(read).and_then(|diagnostics| outs.commit().map(|tables| Written { tables, diagnostics }));
    if result.is_err() {
        outs.discard();
        if created {
            let _ = std::fs::remove_dir(dir);
        }
    }
    result
}

pub(crate) fn properties(o: &ParquetOptions) -> WriterProperties {
    let level = ZstdLevel::try_new(1).unwrap_or_default();
    // Timestamps rise by small steps: delta-encoded they take a few bits each, where a dictionary
    // of unique values costs a hash per row and more bytes (measured on bench/parquet.sh's file).
    let time = parquet::schema::types::ColumnPath::from("time");
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(o.batch_rows.max(1)))
        .set_column_dictionary_enabled(time.clone(), false)
        .set_column_encoding(time, parquet::basic::Encoding::DELTA_BINARY_PACKED)
        .build()
}

/// Rows of one table for the writer: the table's index (in the order tables are found), its
/// name, and the columns.
struct Batch {
    out: usize,
    name: Arc<str>,
    columns: Vec<(String, ArrayRef)>,
}

/// A table's builder, its index and name.
struct Slot<B> {
    builder: B,
    out: usize,
    name: Arc<str>,
}

impl<B> Slot<B> {
    fn send<N: Into<String>>(&self, tx: &SyncSender<Batch>, columns: Vec<(N, ArrayRef)>) {
        let columns = columns.into_iter().map(|(n, a)| (n.into(), a)).collect();
        // The writer only hangs up after this thread is done.
        let _ = tx.send(Batch { out: self.out, name: self.name.clone(), columns });
    }
}

/// Fill every table in one pass, handing full batches to `tx`; the diagnostics of the pass.
fn fill(
    file: &PerfFile<'_>,
    o: &ParquetOptions,
    tx: &SyncSender<Batch>,
    failed: &AtomicBool,
) -> Result<Vec<String>, Error> {
    let table_opts = tables::Options { order: o.order, stack_data: o.stack_data, symbolize: o.symbolize.clone() };
    let mut names: Vec<Arc<str>> = Vec::new();
    let mut fixed: Vec<Slot<TableBuilder<'_>>> = Vec::new();
    for (name, table) in Table::ALL {
        names.push(name.into());
        fixed.push(Slot {
            builder: TableBuilder::new(file, table, &table_opts),
            out: names.len() - 1,
            name: name.into(),
        });
    }
    // A pipe stream learns its events (and so the samples' columns) as it goes: one batch at the end.
    let streaming = file.header().format != FileFormat::Pipe;
    let limit = if streaming { o.batch_rows.max(1) } else { usize::MAX };
    let mut tp: Option<Arc<Tracepoints>> = Tracepoints::from_file(file).ok().flatten().map(Arc::new);
    let mut tps: Vec<Slot<TracepointBuilder>> = Vec::new();
    let mut tp_ids: HashMap<u32, usize> = HashMap::new();
    let events = file.events();
    if let Some(t) = &tp {
        for ev in events {
            add_tracepoint(ev, t, o, &mut names, &mut tps, &mut tp_ids);
        }
    }
    let mut arrow_error: Option<ArrowError> = None;
    let pass = tables::pass(file, o.order, |rec: &Record<'_>| {
        if arrow_error.is_some() || failed.load(Ordering::Relaxed) {
            return;
        }
        for t in fixed.iter_mut() {
            t.builder.push(rec);
            if t.builder.rows() >= limit {
                match t.builder.take(events) {
                    Ok(c) => t.send(tx, c),
                    Err(e) => arrow_error = Some(e),
                }
            }
        }
        if tp.is_none() {
            if let Some(Ok(t)) = Tracepoints::carried_by(rec) {
                tp = Some(Arc::new(t));
            }
        }
        if let (RecordKind::Sample(_), Some(ev), Some(t)) = (&rec.kind, rec.event, &tp) {
            add_tracepoint(ev, t, o, &mut names, &mut tps, &mut tp_ids);
            for t in tps.iter_mut() {
                t.builder.push(rec);
                if t.builder.rows() >= limit {
                    match t.builder.take() {
                        Ok(Some(c)) => t.send(tx, c),
                        Ok(None) => {}
                        Err(e) => arrow_error = Some(e),
                    }
                }
            }
        }
    })?;
    if let Some(e) = arrow_error {
        return Err(Error::Arrow(e));
    }
    // The rest, and the files of empty tables (their columns still say what the table holds).
    for t in fixed.iter_mut() {
        let c = t.builder.take(&pass.events)?;
        t.send(tx, c);
    }
    for t in tps.iter_mut() {
        if let Some(c) = t.builder.take()? {
            t.send(tx, c);
        }
    }
    let mut diagnostics = pass.diagnostics;
    diagnostics.extend(fixed.iter().flat_map(|t| t.builder.diagnostics()));
    Ok(diagnostics)
}

/// A table for the tracepoint format of `ev`, unless it has one.
fn add_tracepoint(
    ev: &Event,
    tp: &Arc<Tracepoints>,
    o: &ParquetOptions,
    names: &mut Vec<Arc<str>>,
    tps: &mut Vec<Slot<TracepointBuilder>>,
    ids: &mut HashMap<u32, usize>,
) {
    let Some(fmt) = tp.format_for(&ev.attr) else { return };
    if ids.contains_key(&fmt.id) {
        return;
    }
    let mut builder = TracepointBuilder::new(fmt.full_name(), o.common, Some(tp.clone()));
    builder.choose(std::slice::from_ref(ev));
    let mut name = format!("tp.{}.{}", file_part(&fmt.system), file_part(&fmt.name));
    if names.iter().any(|n| **n == *name) {
        name = format!("{name}.{}", fmt.id);
    }
    let name: Arc<str> = name.into();
    names.push(name.clone());
    ids.insert(fmt.id, tps.len());
    tps.push(Slot { builder, out: names.len() - 1, name });
}

/// `s` with every character but ASCII letters, digits, `_` and `-` replaced by `_`.
fn file_part(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The files being written.
struct Outputs {
    dir: PathBuf,
    props: WriterProperties,
    /// By table index; None until the table's first batch.
    files: Vec<Option<Output>>,
    /// [`ParquetOptions::constants`].
    constants: Vec<(String, String)>,
}

struct Output {
    name: String,
    tmp: PathBuf,
    path: PathBuf,
    writer: Option<ArrowWriter<File>>,
    schema: SchemaRef,
    rows: u64,
}

impl Outputs {
    /// Append a batch to its table (the first batch creates the file and fixes its columns).
    fn write(&mut self, b: Batch) -> Result<(), Error> {
        while self.files.len() <= b.out {
            self.files.push(None);
        }
        let Some(slot) = self.files.get_mut(b.out) else { return Ok(()) };
        let mut columns = b.columns;
        if !self.constants.is_empty() {
            let rows = columns.first().map_or(0, |(_, a)| a.len());
            for (name, value) in &self.constants {
                columns.push((name.clone(), constant(value, rows)?));
            }
        }
        let mut batch = tables::batch(columns)?;
        let out = match slot {
            Some(out) => out,
            None => {
                let tmp = self.dir.join(format!(".{}.parquet.tmp-{}", b.name, std::process::id()));
                let path = self.dir.join(format!("{}.parquet", b.name));
                let f = File::create(&tmp).map_err(|source| Error::Io { path: tmp.clone(), source })?;
                // From here on the file exists: discard() removes it.
                let out = slot.insert(Output {
                    name: b.name.to_string(),
                    tmp,
                    path,
                    writer: None,
                    schema: batch.schema(),
                    rows: 0,
                });
                let w = ArrowWriter::try_new(f, batch.schema(), Some(self.props.clone()))
                    .map_err(|source| Error::Parquet { path: Some(out.tmp.clone()), source })?;
                out.writer = Some(w);
                out
            }
        };
        if batch.schema() != out.schema {
            batch = conform(&out.name, batch, &out.schema)?;
        }
        if batch.num_rows() > 0 {
            if let Some(w) = out.writer.as_mut() {
                w.write(&batch).map_err(|source| Error::Parquet { path: Some(out.tmp.clone()), source })?;
            }
            out.rows += batch.num_rows() as u64;
        }
        Ok(())
    }

    /// Close every file and give it its name. If a rename fails, the files already renamed are
    /// removed again (with the temporary ones, by [`Outputs::discard`]).
    fn commit(&mut self) -> Result<Vec<WrittenTable>, Error> {
        let mut written: Vec<WrittenTable> = Vec::new();
        for out in self.files.iter_mut().flatten() {
            if let Some(w) = out.writer.take() {
                w.close().map_err(|source| Error::Parquet { path: Some(out.tmp.clone()), source })?;
            }
        }
        for out in self.files.iter().flatten() {
            if let Err(source) = std::fs::rename(&out.tmp, &out.path) {
                for w in &written {
                    let _ = std::fs::remove_file(&w.path);
                }
                return Err(Error::Io { path: out.path.clone(), source });
            }
            written.push(WrittenTable { name: out.name.clone(), path: out.path.clone(), rows: out.rows });
        }
        Ok(written)
    }

    /// Remove every temporary file (after an error).
    fn discard(&mut self) {
        for out in self.files.iter_mut().flatten() {
            drop(out.writer.take());
            let _ = std::fs::remove_file(&out.tmp);
        }
    }
}

/// A `dictionary<int32, utf8>` column of `rows` times `value`.
fn constant(value: &str, rows: usize) -> Result<ArrayRef, Error> {
    let keys = arrow_array::Int32Array::from(vec![0; rows]);
    let values = arrow_array::StringArray::from(vec![value]);
    Ok(Arc::new(arrow_array::DictionaryArray::try_new(keys, Arc::new(values))?))
}

/// `batch` with the columns of `schema` (a column it lacks is null; one `schema` lacks is an error).
fn conform(table: &str, batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, Error> {
    let have = batch.schema();
    if let Some(extra) = have.fields().iter().find(|f| schema.field_with_name(f.name()).is_err()) {
        return Err(Error::ColumnAppeared { table: table.to_string(), column: extra.name().clone() });
    }
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| match have.index_of(f.name()) {
            Ok(i) => batch.column(i).clone(),
            Err(_) => arrow_array::new_null_array(f.data_type(), batch.num_rows()),
        })
        .collect();
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
