//! Queries over a dataset written by [`crate::export::dataset`]: the folded stacks of the
//! recordings a `WHERE` [`predicate`] selects, summed into one [`FoldedStacks`] (what
//! `perfdata flamegraph --from-dataset DATASET --where PREDICATE` draws).
//!
//! The `stacks` table's `host=`/`date=` partitions that the predicate rules out on their partition
//! values alone are not opened; the rows of the others are read (with the arrow-rs Parquet
//! reader) and kept when the predicate holds for them. Each row is one folded stack of one
//! recording (`comm`, `frames` root first, `weight`): the sum over the rows kept is the sum of
//! `perfdata folded` over the recordings selected, as the export folded them.
//!
//! ```no_run
//! use perfdata_analysis::query::{dataset_stacks, predicate::{Predicate, STACKS_COLUMNS}};
//! let p = Predicate::parse("host = 'web1' AND date >= '2026-11-24'", STACKS_COLUMNS)?;
//! let s = dataset_stacks("fleet".as_ref(), Some(&p))?;
//! print!("{}", s.stacks.to_folded_string());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod predicate;

use crate::stacks::FoldedStacks;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, LargeStringArray, PrimitiveArray, RecordBatch, StringArray, StringViewArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use predicate::{Predicate, Value};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The key of the `stacks` parts' Arrow schema metadata naming what a weight counts (`period`
/// or `samples`, the folding's [`crate::options::Weight`]).
pub const WEIGHT_METADATA_KEY: &str = "perfdata.weight";

/// Why a dataset could not be queried: the crate's [`Error`].
pub use crate::Error;

/// The stacks a query selected.
#[derive(Clone, Debug, Default)]
pub struct DatasetStacks {
    /// The stacks, `comm;root;…;leaf` → the sum of their weights.
    pub stacks: FoldedStacks,
    /// What the weights count (`period` or `samples`) as the parts say; `None` when no part
    /// read says (or none was read).
    pub weight: Option<String>,
    /// Part files read.
    pub parts_read: usize,
    /// Part files not opened, their partition ruled out by the predicate.
    pub parts_pruned: usize,
}

/// A part file with its partition values (decoded).
struct Part {
    path: PathBuf,
    partition: Vec<(String, String)>,
}

/// A Hive partition value as written by [`crate::export::dataset::partition_value`]: `%XX`
/// decoded (invalid escapes are kept as they are).
pub fn decode_partition_value(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let hex =
            b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (c, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The part files under `dir` whose partitions `predicate` may select; `pruned` counts the
/// others.
fn parts(
    dir: &Path,
    partition: &[(String, String)],
    predicate: Option<&Predicate>,
    out: &mut Vec<Part>,
    pruned: &mut usize,
) -> Result<(), Error> {
    let io = |source| Error::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(io)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            let Some((key, value)) = name.split_once('=') else { continue };
            let mut inner = partition.to_vec();
            inner.push((key.to_string(), decode_partition_value(value)));
            let known = |c: &str| inner.iter().find(|(k, _)| k == c).map(|(_, v)| Value::Str(v.as_str()));
            if predicate.is_some_and(|pr| pr.eval(&known) == Some(false)) {
                let mut skipped = Vec::new();
                parts(&p, &inner, None, &mut skipped, &mut 0)?;
                *pruned += skipped.len();
                continue;
            }
            parts(&p, &inner, predicate, out, pruned)?;
        } else if name.ends_with(".parquet") {
            // A predicate of the partition keys only is decided here, for each file (whatever
            // directory it sits in); one of the rows' columns too, on every row.
            let known = |c: &str| partition.iter().find(|(k, _)| k == c).map(|(_, v)| Value::Str(v.as_str()));
            if predicate.is_some_and(|pr| !pr.reads_rows() && pr.eval(&known) != Some(true)) {
                *pruned += 1;
                continue;
            }
            out.push(Part { path: p, partition: partition.to_vec() });
        }
    }
    Ok(())
}

/// The string values of a column: plain, large, view or dictionary-encoded.
enum Strings<'a> {
    Plain(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    Dict(&'a PrimitiveArray<Int32Type>, Box<Strings<'a>>),
}

impl<'a> Strings<'a> {
    fn new(a: &'a dyn Array) -> Option<Strings<'a>> {
        if let Some(s) = a.as_string_opt::<i32>() {
            return Some(Strings::Plain(s));
        }
        if let Some(s) = a.as_string_opt::<i64>() {
            return Some(Strings::Large(s));
        }
        if let Some(s) = a.as_string_view_opt() {
            return Some(Strings::View(s));
        }
        let d = a.as_dictionary_opt::<Int32Type>()?;
        Some(Strings::Dict(d.keys(), Box::new(Strings::new(d.values().as_ref())?)))
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        fn ok(a: &dyn Array, i: usize) -> bool {
            i < a.len() && a.is_valid(i)
        }
        match self {
            Strings::Plain(s) => ok(*s, i).then(|| s.value(i)),
            Strings::Large(s) => ok(*s, i).then(|| s.value(i)),
            Strings::View(s) => ok(*s, i).then(|| s.value(i)),
            Strings::Dict(k, v) => {
                let key = ok(*k, i).then(|| k.value(i))?;
                v.get(usize::try_from(key).ok()?)
            }
        }
    }
}

fn column<'b>(b: &'b RecordBatch, name: &str, path: &Path) -> Result<&'b ArrayRef, Error> {
    b.column_by_name(name).ok_or_else(|| Error::Part { path: path.to_path_buf(), what: format!("no `{name}` column") })
}

/// The stacks of one part file the predicate keeps, and what its weights count.
fn read_part(part: &Part, predicate: Option<&Predicate>) -> Result<(BTreeMap<String, u64>, Option<String>), Error> {
    let path = &part.path;
    let bad = |what: String| Error::Part { path: path.to_path_buf(), what };
    let f = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| bad(e.to_string()))?;
    let weight = builder.schema().metadata().get(WEIGHT_METADATA_KEY).cloned();
    let reader = builder.build().map_err(|e| bad(e.to_string()))?;
    let rows_matter = predicate.is_some_and(Predicate::reads_rows);
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        let comm = Strings::new(column(&batch, "comm", path)?.as_ref())
            .ok_or_else(|| bad("`comm` is not a string column".into()))?;
        let frames_col = column(&batch, "frames", path)?;
        let frames = frames_col.as_list_opt::<i32>().ok_or_else(|| bad("`frames` is not a list column".into()))?;
        let names =
            Strings::new(frames.values().as_ref()).ok_or_else(|| bad("`frames` is not a list of strings".into()))?;
        let offsets = frames.value_offsets();
        let weights = column(&batch, "weight", path)?
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(|| bad("`weight` is not a uint64 column".into()))?;
        let file = match batch.column_by_name("file") {
            Some(c) => Some(Strings::new(c.as_ref()).ok_or_else(|| bad("`file` is not a string column".into()))?),
            None => None,
        };
        for r in 0..batch.num_rows() {
            let row_bad = |what: &str| bad(format!("row {r}: {what}"));
            let c = comm.get(r).ok_or_else(|| row_bad("no comm"))?;
            let w = if weights.is_valid(r) { weights.values().get(r).copied() } else { None };
            let w = w.ok_or_else(|| row_bad("no weight"))?;
            if let (true, Some(p)) = (rows_matter, predicate) {
                let value = |name: &str| match name {
                    "comm" => Some(Value::Str(c)),
                    "weight" => Some(Value::Int(i128::from(w))),
                    "file" => file.as_ref().and_then(|f| f.get(r)).map(Value::Str),
                    _ => part.partition.iter().find(|(k, _)| k == name).map(|(_, v)| Value::Str(v.as_str())),
                };
                if p.eval(&value) != Some(true) {
                    continue;
                }
            }
            let (Some(&start), Some(&end)) = (offsets.get(r), offsets.get(r + 1)) else {
                return Err(row_bad("frames offsets out of range"));
            };
            let (start, end) = (usize::try_from(start).unwrap_or(0), usize::try_from(end).unwrap_or(0));
            let mut stack = String::from(c);
            for j in start..end {
                stack.push(';');
                stack.push_str(names.get(j).ok_or_else(|| row_bad("a null frame"))?);
            }
            add(&mut out, stack, w)?;
        }
    }
    Ok((out, weight))
}

fn add(into: &mut BTreeMap<String, u64>, stack: String, w: u64) -> Result<(), Error> {
    if let Some(v) = into.get_mut(&stack) {
        *v = v.checked_add(w).ok_or(Error::Overflow(stack))?;
    } else {
        into.insert(stack, w);
    }
    Ok(())
}

/// The folded stacks of the recordings in the dataset at `dataset` that `predicate` (over
/// [`predicate::STACKS_COLUMNS`]) selects, summed; all of them without a predicate.
pub fn dataset_stacks(dataset: &Path, predicate: Option<&Predicate>) -> Result<DatasetStacks, Error> {
    if !dataset.join("recordings").is_dir() {
        return Err(Error::NotADataset {
            path: dataset.to_path_buf(),
            what: "not a dataset (no recordings table): make one with perfdata export --format parquet FILES… -o DIR"
                .into(),
        });
    }
    let table = dataset.join("stacks");
    let mut found = Vec::new();
    let mut pruned = 0;
    if table.is_dir() {
        parts(&table, &[], predicate, &mut found, &mut pruned)?;
    } else if !std::fs::read_dir(dataset.join("recordings")).map_or(true, |mut d| d.next().is_none()) {
        // Recordings but no stacks: exported with --no-stacks (an empty dataset has neither).
        return Err(Error::NotADataset {
            path: dataset.to_path_buf(),
            what: "the dataset has no stacks table (exported with --no-stacks?)".into(),
        });
    }
    type Acc = (BTreeMap<String, u64>, Option<(PathBuf, String)>);
    let merge = |mut a: Acc, b: Acc| -> Result<Acc, Error> {
        let weight = match (a.1.take(), b.1) {
            (Some(x), Some(y)) if x.1 != y.1 => return Err(Error::MixedWeights { first: x, second: y }),
            (x, y) => x.or(y),
        };
        let (mut big, small) = if a.0.len() >= b.0.len() { (a.0, b.0) } else { (b.0, a.0) };
        for (s, w) in small {
            add(&mut big, s, w)?;
        }
        Ok((big, weight))
    };
    let (stacks, weight) = found
        .par_iter()
        .map(|p| read_part(p, predicate).map(|(s, w)| (s, w.map(|w| (p.path.clone(), w)))))
        .try_reduce(|| (BTreeMap::new(), None), merge)?;
    Ok(DatasetStacks {
        stacks: FoldedStacks { stacks, ..Default::default() },
        weight: weight.map(|w| w.1),
        parts_read: found.len(),
        parts_pruned: pruned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, UInt64Array};
    use std::sync::Arc;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("perfdata-query-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("recordings")).unwrap();
        d
    }

    fn write(path: &Path, batch: &RecordBatch) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
    }

    #[test]
    fn damaged_parts_are_errors_that_name_the_file() {
        let ds = scratch("damaged");
        let part = ds.join("stacks/host=a/date=2026-11-01/part-1.parquet");
        std::fs::create_dir_all(part.parent().unwrap()).unwrap();
        std::fs::write(&part, b"PAR1 not really").unwrap();
        let e = dataset_stacks(&ds, None).unwrap_err();
        assert!(matches!(&e, Error::Part { path, .. } if *path == part), "{e}");
        // A Parquet file of another table: its columns are named.
        let other = RecordBatch::try_from_iter([("comm", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]).unwrap();
        write(&part, &other);
        let e = dataset_stacks(&ds, None).unwrap_err().to_string();
        assert!(e.ends_with("`comm` is not a string column"), "{e}");
        let other = RecordBatch::try_from_iter([
            ("comm", Arc::new(StringArray::from(vec!["x"])) as ArrayRef),
            ("weight", Arc::new(UInt64Array::from(vec![1])) as ArrayRef),
        ])
        .unwrap();
        write(&part, &other);
        assert!(dataset_stacks(&ds, None).unwrap_err().to_string().ends_with("no `frames` column"));
        // A predicate that rules the partition out never opens it.
        let p = Predicate::parse("host = 'b'", predicate::STACKS_COLUMNS).unwrap();
        let got = dataset_stacks(&ds, Some(&p)).unwrap();
        assert_eq!((got.parts_read, got.parts_pruned, got.stacks.stacks.len()), (0, 1, 0));
        // Not a dataset.
        assert!(matches!(dataset_stacks(&ds.join("stacks"), None), Err(Error::NotADataset { .. })));
        let _ = std::fs::remove_dir_all(&ds);
    }

    #[test]
    fn partition_values_decode() {
        assert_eq!(decode_partition_value("a%2Fb%3Dc"), "a/b=c");
        assert_eq!(decode_partition_value("web-01"), "web-01");
        assert_eq!(decode_partition_value("100%"), "100%");
        assert_eq!(decode_partition_value("%zz%C3%BC"), "%zzü");
        for s in ["a b/c", "ü=1", "%"] {
            assert_eq!(decode_partition_value(&crate::export::dataset::partition_value(s)), s);
        }
    }
}
