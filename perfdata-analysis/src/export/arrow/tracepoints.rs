//! The table of a tracepoint event (Python's `PerfData.tracepoint_table(event)`, the Parquet
//! export's `tp.SYSTEM.NAME` tables): one row per sample of the event, with `time`, `cpu`, `pid`,
//! `tid` and then one typed column per field of the event's format, decoded by the core's
//! tracepoint module (`perfdata_core::tracepoint`). Built in one pass ([`build`]) or streamed in
//! batches ([`TracepointBuilder`]).
//!
//! Column types follow the format alone: integer fields keep their width and signedness (`pid_t` →
//! int32, `u64` → uint64), `char[]` and `__data_loc char[]` fields are strings, other arrays of
//! 1, 2, 4 or 8-byte elements `large_list<int64|uint64>`, fields of no integer layout binary. A
//! field outside a record (or an array whose bytes are not whole elements) is null.

use super::columns::Prim;
use super::tables::{assemble, pass, Built};
use crate::{Error, Result};
use arrow_array::builder::{Int64Builder, LargeBinaryBuilder, LargeListBuilder, StringBuilder, UInt64Builder};
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{
    ArrayRef, Int16Array, Int32Array, Int64Array, Int8Array, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::ArrowError;
use perfdata_core::header::Format as FileFormat;
use perfdata_core::tracepoint::fields::{array_element_size, decode_field};
use perfdata_core::tracepoint::{Field, Format, Tracepoints, Value};
use perfdata_core::{Event, Order, PerfFile, Record, RecordKind};
use std::sync::Arc;

/// Whether `ev` (with its format) is the event called `name`: `system:name`, the tracepoint's own
/// name, or the event's name as perf shows it.
fn is_named(ev: &Event, fmt: &Format, name: &str) -> bool {
    name == fmt.full_name() || name == fmt.name || name == ev.display_name()
}

/// The table of the samples of tracepoint `name` (`tp`: the formats known before reading; a pipe
/// stream's come from its tracing data record). `common`: include the `common_*` fields. Returns
/// the table and the tracing data (which a stream learned on the way).
pub fn build(
    file: &PerfFile<'_>,
    name: &str,
    tp: Option<Arc<Tracepoints>>,
    order: Order,
    common: bool,
) -> Result<(Built, Option<Arc<Tracepoints>>)> {
    let mut sink = TracepointBuilder::new(name, common, tp);
    // A file's events and formats are known now: fail before reading when none matches (only pipe
    // data can announce its tracing data later).
    if sink.tp.is_none() && file.header().format != FileFormat::Pipe {
        return Err(Error::NoSuchTracepoint(Vec::new()));
    }
    if let Some(tp) = &sink.tp {
        let known = !file.events().is_empty();
        if known && !file.events().iter().any(|e| tp.format_for(&e.attr).is_some_and(|f| is_named(e, f, name))) {
            return Err(Error::NoSuchTracepoint(tracepoint_names(file.events(), tp)));
        }
    }
    let pass = pass(file, order, |rec| sink.push(rec))?;
    let tp = sink.tp.clone();
    let Some(columns) = sink.take()? else {
        let names = tp.as_deref().map(|t| tracepoint_names(&pass.events, t)).unwrap_or_default();
        return Err(Error::NoSuchTracepoint(names));
    };
    Ok((assemble(columns, pass)?, tp))
}

/// `system:name` of every tracepoint event.
fn tracepoint_names(events: &[Event], tp: &Tracepoints) -> Vec<String> {
    events.iter().filter_map(|e| tp.format_for(&e.attr)).map(Format::full_name).collect()
}

/// Builds the table of one tracepoint event from records pushed in order;
/// [`TracepointBuilder::take`] hands over the rows so far and starts again empty.
pub struct TracepointBuilder {
    name: String,
    common: bool,
    tp: Option<Arc<Tracepoints>>,
    /// ID of the format the columns follow.
    format: Option<u32>,
    /// Per event index: whether its samples are rows (decided once the formats are known).
    decided: Vec<Option<bool>>,
    cols: Option<Columns>,
    rows: usize,
}

struct Columns {
    time: Prim<UInt64Type>,
    cpu: Prim<UInt32Type>,
    pid: Prim<UInt32Type>,
    tid: Prim<UInt32Type>,
    fields: Vec<FieldColumn>,
}

impl TracepointBuilder {
    /// A builder of the table of tracepoint `name` (`system:name`, the tracepoint's name, or the
    /// event's name); `tp`: the formats known before reading (a pipe stream's come from its
    /// tracing data record, which [`Self::push`] picks up); `common`: include the `common_*` fields.
    pub fn new(name: impl Into<String>, common: bool, tp: Option<Arc<Tracepoints>>) -> Self {
        TracepointBuilder { name: name.into(), common, tp, format: None, decided: Vec::new(), cols: None, rows: 0 }
    }

    /// Rows held (not yet taken).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows held as named columns, or None while no event of the name was seen (with
    /// formats known); the builder is empty afterwards.
    pub fn take(&mut self) -> Result<Option<Vec<(String, ArrayRef)>>, ArrowError> {
        let fresh = self.format_columns();
        let Some(cols) = self.cols.take().or(fresh) else { return Ok(None) };
        self.rows = 0;
        let mut columns: Vec<(String, ArrayRef)> = Vec::new();
        let field_names: Vec<&str> = cols.fields.iter().map(|c| c.name.as_str()).collect();
        let own = |n: &str| if field_names.contains(&n) { format!("sample_{n}") } else { n.to_string() };
        columns.push((own("time"), Arc::new(cols.time.finish()?)));
        columns.push((own("cpu"), Arc::new(cols.cpu.finish()?)));
        columns.push((own("pid"), Arc::new(cols.pid.finish()?)));
        columns.push((own("tid"), Arc::new(cols.tid.finish()?)));
        for c in cols.fields {
            let name = c.name.clone();
            columns.push((name, c.finish()?));
        }
        Ok(Some(columns))
    }

    /// Choose the format from the events known before reading (`PerfFile::events`), so that a
    /// tracepoint without samples still has its (empty) table.
    pub fn choose(&mut self, events: &[Event]) {
        for ev in events {
            self.wanted(ev);
        }
    }

    fn format(&self) -> Option<&Format> {
        self.tp.as_deref()?.format_by_id(self.format?)
    }

    /// Columns for the chosen format, with no rows.
    fn format_columns(&self) -> Option<Columns> {
        let fmt = self.format()?;
        let chosen: Vec<&Field> = if self.common { fmt.all_fields().collect() } else { fmt.fields.iter().collect() };
        Some(Columns {
            time: Prim::default(),
            cpu: Prim::default(),
            pid: Prim::default(),
            tid: Prim::default(),
            fields: chosen.into_iter().map(|f| FieldColumn::new(f, fmt)).collect(),
        })
    }

    /// Whether samples of `ev` are rows; picks the format on the first match.
    fn wanted(&mut self, ev: &Event) -> bool {
        if let Some(Some(d)) = self.decided.get(ev.index) {
            return *d;
        }
        let Some(tp) = self.tp.as_deref() else { return false };
        let fmt = tp.format_for(&ev.attr).filter(|f| is_named(ev, f, &self.name));
        let id = fmt.map(|f| f.id);
        // The columns follow the first matching format; an event of another format is not mixed in.
        let d = match (id, self.format) {
            (Some(id), None) => {
                self.format = Some(id);
                true
            }
            (Some(id), Some(f)) => id == f,
            (None, _) => false,
        };
        if self.decided.len() <= ev.index {
            self.decided.resize(ev.index + 1, None);
        }
        if let Some(slot) = self.decided.get_mut(ev.index) {
            *slot = Some(d);
        }
        d
    }

    /// Add `rec` (records other than samples of the event are ignored).
    pub fn push(&mut self, rec: &Record<'_>) {
        if self.tp.is_none() {
            if let Some(tp) = Tracepoints::carried_by(rec) {
                self.tp = tp.ok().map(Arc::new);
                return;
            }
        }
        let (RecordKind::Sample(s), Some(ev)) = (&rec.kind, rec.event) else { return };
        if !self.wanted(ev) {
            return;
        }
        if self.cols.is_none() {
            self.cols = self.format_columns();
        }
        let Some(tp) = self.tp.clone() else { return };
        let (Some(fmt), Some(cols)) = (self.format.and_then(|id| tp.format_by_id(id)), self.cols.as_mut()) else {
            return;
        };
        cols.time.push(s.time());
        cols.cpu.push(s.cpu());
        cols.pid.push(s.pid());
        cols.tid.push(s.tid());
        let raw = s.raw().unwrap_or(&[]);
        for c in &mut cols.fields {
            c.push(&decode_field(fmt, &c.field, raw));
        }
        self.rows += 1;
    }
}

/// The column of one format field.
struct FieldColumn {
    name: String,
    field: Field,
    data: Data,
}

enum Data {
    /// An integer of `size` bytes, kept as its u64 bits until the typed array is made.
    Int {
        size: u8,
        signed: bool,
        values: Vec<Option<u64>>,
    },
    Str(StringBuilder),
    SignedList(LargeListBuilder<Int64Builder>),
    UnsignedList(LargeListBuilder<UInt64Builder>),
    Bytes(LargeBinaryBuilder),
}

impl FieldColumn {
    fn new(f: &Field, fmt: &Format) -> FieldColumn {
        let data = if f.is_string {
            Data::Str(StringBuilder::new())
        } else if f.is_array || f.is_dynamic {
            // What `decode_field` makes of the field: integer arrays for whole elements of these sizes.
            match (array_element_size(f, fmt), f.is_signed()) {
                (1 | 2 | 4 | 8, true) => Data::SignedList(LargeListBuilder::new(Int64Builder::new())),
                (1 | 2 | 4 | 8, false) => Data::UnsignedList(LargeListBuilder::new(UInt64Builder::new())),
                _ => Data::Bytes(LargeBinaryBuilder::new()),
            }
        } else {
            match u8::try_from(f.size) {
                Ok(size @ (1 | 2 | 4 | 8)) => Data::Int { size, signed: f.is_signed(), values: Vec::new() },
                _ => Data::Bytes(LargeBinaryBuilder::new()),
            }
        };
        FieldColumn { name: f.name.clone(), field: f.clone(), data }
    }

    fn push(&mut self, v: &Value<'_>) {
        match &mut self.data {
            Data::Int { values, .. } => values.push(v.as_u64()),
            Data::Str(b) => b.append_option(v.as_str()),
            Data::SignedList(b) => match v {
                Value::Array(a) => {
                    b.values().extend(a.iter().map(|x| x.as_i64()));
                    b.append(true);
                }
                _ => b.append_null(),
            },
            Data::UnsignedList(b) => match v {
                Value::Array(a) => {
                    b.values().extend(a.iter().map(|x| x.as_u64()));
                    b.append(true);
                }
                _ => b.append_null(),
            },
            Data::Bytes(b) => match v {
                Value::Bytes(x) | Value::Str(x) => b.append_value(x),
                Value::Array(a) => b.append_value(a.bytes),
                _ => b.append_null(),
            },
        }
    }

    fn finish(self) -> Result<ArrayRef, ArrowError> {
        Ok(match self.data {
            Data::Int { size, signed, values } => {
                let v = values.into_iter();
                match (size, signed) {
                    (1, true) => Arc::new(Int8Array::from_iter(v.map(|x| x.map(|x| x as i8)))),
                    (2, true) => Arc::new(Int16Array::from_iter(v.map(|x| x.map(|x| x as i16)))),
                    (4, true) => Arc::new(Int32Array::from_iter(v.map(|x| x.map(|x| x as i32)))),
                    (8, true) => Arc::new(Int64Array::from_iter(v.map(|x| x.map(|x| x as i64)))),
                    (1, false) => Arc::new(UInt8Array::from_iter(v.map(|x| x.map(|x| x as u8)))),
                    (2, false) => Arc::new(UInt16Array::from_iter(v.map(|x| x.map(|x| x as u16)))),
                    (4, false) => Arc::new(UInt32Array::from_iter(v.map(|x| x.map(|x| x as u32)))),
                    _ => Arc::new(UInt64Array::from_iter(v)),
                }
            }
            Data::Str(mut b) => Arc::new(b.finish()),
            Data::SignedList(mut b) => Arc::new(b.finish()),
            Data::UnsignedList(mut b) => Arc::new(b.finish()),
            Data::Bytes(mut b) => Arc::new(b.finish()),
        })
    }
}
