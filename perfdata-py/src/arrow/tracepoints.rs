//! `PerfData.tracepoint_table(event)`: one row per sample of a tracepoint event, with `time`, `cpu`,
//! `pid`, `tid` and then one typed column per field of the event's format, decoded by the core's
//! tracepoint module (`perfdata_core::tracepoint`). Built in one pass without the GIL.
//!
//! Column types follow the format: integer fields keep their width and signedness (`pid_t` →
//! int32, `u64` → uint64), `char[]` and `__data_loc char[]` fields are strings, other arrays
//! `large_list<int64|uint64>`, fields of no integer layout binary. A field outside a record is null.

use super::columns::Prim;
use super::tables::{assemble, pass, BuildError, Built};
use arrow_array::builder::{Int64Builder, LargeBinaryBuilder, LargeListBuilder, StringBuilder, UInt64Builder};
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{
    ArrayRef, Int16Array, Int32Array, Int64Array, Int8Array, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{ArrowError, DataType, Field as ArrowField};
use perfdata_core::header::Format as FileFormat;
use perfdata_core::tracepoint::{fields::decode_field, Field, Format, Tracepoints, Value};
use perfdata_core::{Event, Order, PerfFile, Record, RecordKind};
use std::sync::Arc;

/// Why a tracepoint table could not be built.
pub enum TpTableError {
    /// Reading or Arrow failed.
    Build(BuildError),
    /// No event of the recording is the tracepoint asked for; the tracepoint events it has.
    NoSuchEvent(Vec<String>),
}

impl From<BuildError> for TpTableError {
    fn from(e: BuildError) -> Self {
        TpTableError::Build(e)
    }
}

impl From<ArrowError> for TpTableError {
    fn from(e: ArrowError) -> Self {
        TpTableError::Build(BuildError::Arrow(e))
    }
}

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
) -> Result<(Built, Option<Arc<Tracepoints>>), TpTableError> {
    let mut sink = TpSink { name, common, tp, format: None, decided: Vec::new(), cols: None, rows: 0 };
    // A file's events and formats are known now: fail before reading when none matches (only pipe
    // data can announce its tracing data later).
    if sink.tp.is_none() && file.header().format != FileFormat::Pipe {
        return Err(TpTableError::NoSuchEvent(Vec::new()));
    }
    if let Some(tp) = &sink.tp {
        let known = !file.events().is_empty();
        if known && !file.events().iter().any(|e| tp.format_for(&e.attr).is_some_and(|f| is_named(e, f, name))) {
            return Err(TpTableError::NoSuchEvent(tracepoint_names(file.events(), tp)));
        }
    }
    let pass = pass(file, order, |rec| sink.push(rec))?;
    let tp = sink.tp.clone();
    let Some(cols) = sink.cols.take().or_else(|| sink.format_columns()) else {
        let names = tp.as_deref().map(|t| tracepoint_names(&pass.events, t)).unwrap_or_default();
        return Err(TpTableError::NoSuchEvent(names));
    };
    let mut columns: Vec<(String, ArrayRef)> = Vec::new();
    let field_names: Vec<&str> = cols.fields.iter().map(|c| c.name.as_str()).collect();
    let own = |n: &str| if field_names.contains(&n) { format!("sample_{n}") } else { n.to_string() };
    columns.push((own("time"), Arc::new(cols.time.finish()?)));
    columns.push((own("cpu"), Arc::new(cols.cpu.finish()?)));
    columns.push((own("pid"), Arc::new(cols.pid.finish()?)));
    columns.push((own("tid"), Arc::new(cols.tid.finish()?)));
    for c in cols.fields {
        let name = c.name.clone();
        columns.push((name, c.finish(sink.rows)?));
    }
    Ok((assemble(columns, pass)?, tp))
}

/// `system:name` of every tracepoint event.
fn tracepoint_names(events: &[Event], tp: &Tracepoints) -> Vec<String> {
    events.iter().filter_map(|e| tp.format_for(&e.attr)).map(Format::full_name).collect()
}

struct TpSink<'n> {
    name: &'n str,
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

impl TpSink<'_> {
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
            fields: chosen.into_iter().map(FieldColumn::new).collect(),
        })
    }

    /// Whether samples of `ev` are rows; picks the format on the first match.
    fn wanted(&mut self, ev: &Event) -> bool {
        if let Some(Some(d)) = self.decided.get(ev.index) {
            return *d;
        }
        let Some(tp) = self.tp.as_deref() else { return false };
        let fmt = tp.format_for(&ev.attr).filter(|f| is_named(ev, f, self.name));
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

    fn push(&mut self, rec: &Record<'_>) {
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
    /// An array field before its first value says whether its elements are integers: so many nulls.
    Undecided(usize),
}

impl FieldColumn {
    fn new(f: &Field) -> FieldColumn {
        let data = if f.is_string {
            Data::Str(StringBuilder::new())
        } else if f.is_array || f.is_dynamic {
            Data::Undecided(0)
        } else {
            match u8::try_from(f.size) {
                Ok(size @ (1 | 2 | 4 | 8)) => Data::Int { size, signed: f.is_signed(), values: Vec::new() },
                _ => Data::Bytes(LargeBinaryBuilder::new()),
            }
        };
        FieldColumn { name: f.name.clone(), field: f.clone(), data }
    }

    fn push(&mut self, v: &Value<'_>) {
        if let (Data::Undecided(n), Value::Array(a)) = (&self.data, v) {
            let n = *n;
            self.data = if a.signed {
                let mut b = LargeListBuilder::new(Int64Builder::new());
                (0..n).for_each(|_| b.append_null());
                Data::SignedList(b)
            } else {
                let mut b = LargeListBuilder::new(UInt64Builder::new());
                (0..n).for_each(|_| b.append_null());
                Data::UnsignedList(b)
            };
        } else if let (Data::Undecided(n), Value::Bytes(_) | Value::Str(_)) = (&self.data, v) {
            let mut b = LargeBinaryBuilder::new();
            b.append_nulls(*n);
            self.data = Data::Bytes(b);
        }
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
            Data::Undecided(n) => *n += 1,
        }
    }

    fn finish(self, rows: usize) -> Result<ArrayRef, ArrowError> {
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
            Data::Undecided(_) => {
                let el = if self.field.is_signed() { DataType::Int64 } else { DataType::UInt64 };
                let t = DataType::LargeList(Arc::new(ArrowField::new_list_field(el, true)));
                arrow_array::new_null_array(&t, rows)
            }
        })
    }
}
