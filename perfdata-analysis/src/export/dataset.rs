//! Many recordings as one Hive-partitioned Parquet dataset (`perfdata export --format parquet
//! FILES_OR_DIRS… -o DATASET`, Python's `perfdata.export_dataset`): every table of
//! [`super::parquet`] plus the folded stacks, one part file per recording and table, readable as
//! one table by DuckDB (`read_parquet('DATASET/samples/**/*.parquet', hive_partitioning=true,
//! union_by_name=true)`), pyarrow (`pyarrow.dataset.dataset('DATASET/samples',
//! partitioning='hive')`), Dask, Spark or polars:
//!
//! | path | rows |
//! |---|---|
//! | `TABLE/host=H/date=D/part-HASH.parquet` | the table `TABLE` of [`super::parquet`] (`samples`, `mmaps`, …, `tp.SYSTEM.NAME`) of one recording, with a `file` column (the path given) |
//! | `stacks/host=H/date=D/part-HASH.parquet` | the recording's folded stacks: `comm`, `frames` (`list<string>`, root first, as a flame graph draws them), `weight` (`period` or `samples`: the schema's `perfdata.weight` metadata), `file`; queried by [`crate::query`] |
//! | `recordings/part-HASH.parquet` | one row: the file, its hash, host, date and header fields, rows per table, `status` (`ok`, `damaged`: read up to a problem, `failed`: nothing could be read) |
//! | `errors/part-HASH.parquet` | the problems met reading the recording (`stage`, `message`), when there were any |
//! | `symbols/host=H/date=D/part-HASH.symbols` | a copy of the recording's symbol archive, when one lay beside it (below) |
//!
//! **Symbols.** A recording exported away from the machine that made it is named from the
//! `perfdata archive` made for it there, `FILE.symbols` beside `FILE` (the archive command's
//! default name): its stacks are folded with that archive first (as `--symbols` does, unless the
//! options already name an archive for every recording), and the archive is copied into the
//! dataset, so that its addresses can be named again anywhere. An archive that cannot be read is
//! one of the recording's problems; the stacks are then named without it.
//!
//! `H` is the recording's HOSTNAME feature (`unknown` without one) and `D` the UTC date of the
//! time perf prints as "captured on": the file's modification time, which `perf record` sets when
//! it finishes the recording (copies must keep it: `cp -p`, `rsync -t`; the `recordings` table
//! also has the first and last sample times of SAMPLE_TIME and, when the file has CLOCK_DATA, the
//! first sample's time of day, which do not depend on the copy). Partition values keep ASCII
//! letters, digits, `.`, `_` and `-` and percent-encode other bytes, as Hive does.
//!
//! A directory-format recording (`perf record --threads`: `data` and `data.N`) is one recording,
//! read as `PerfFile::open` reads it.
//!
//! `HASH` is the XXH3-128 hash of the file's bytes (of a directory's files, see [`content_hash`]): a recording whose `recordings` part exists is
//! skipped, so exporting again into the same dataset appends only new recordings and rewrites
//! nothing. Recordings are read in parallel, one per task on a pool of
//! [`DatasetOptions::jobs`] threads (each task writes its tables in batches of
//! [`ParquetOptions::batch_rows`] rows, so a worker's memory follows the batch, not the file). A
//! recording's tables are written into `DATASET/.staging/` and renamed into place, the
//! `recordings` part last: a recording interrupted halfway has no `recordings` part and is
//! exported again (to the same part names) by the next run.

use super::arrow::tables;
use super::parquet::{properties, write_parquet, ParquetOptions, WrittenTable};
use crate::options::{FoldedOptions, Root, Weight};
use crate::stacks::fold_all;
use arrow_array::builder::{ListBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use parquet::arrow::ArrowWriter;
use perfdata_core::info::HeaderInfo;
use perfdata_core::PerfFile;
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to export a fleet.
#[derive(Clone, Debug)]
pub struct DatasetOptions {
    /// How each recording's tables are written ([`ParquetOptions::constants`] is set per file).
    pub parquet: ParquetOptions,
    /// The `stacks` table, folded with these options (the root frame is always the comm, which
    /// becomes the `comm` column); `None`: no `stacks` table.
    pub stacks: Option<FoldedOptions>,
    /// Recordings read at once (threads of the pool); 0: one per core.
    pub jobs: usize,
}

impl Default for DatasetOptions {
    fn default() -> Self {
        DatasetOptions { parquet: ParquetOptions::default(), stacks: Some(FoldedOptions::default()), jobs: 0 }
    }
}

/// What happened to one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every table written, no problem met.
    Ok,
    /// Tables written with the records read before a problem (see [`Exported::errors`]).
    Damaged,
    /// Nothing could be read: only its `recordings` and `errors` rows are written.
    Failed,
    /// Already in the dataset (same content hash), or given twice: nothing written.
    Skipped,
}

impl Status {
    /// The name in the `recordings` table.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Damaged => "damaged",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }
}

/// One input's outcome.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The file, as given (or found in a directory given).
    pub file: PathBuf,
    /// XXH3-128 of its bytes, 32 hex digits (`part-HASH.parquet`).
    pub hash: String,
    /// What happened.
    pub status: Status,
    /// Its `host=` partition value (empty when skipped).
    pub host: String,
    /// Its `date=` partition value (empty when skipped).
    pub date: String,
    /// The part files written (name: the table, rows, path in the dataset).
    pub tables: Vec<WrittenTable>,
    /// The problems met, as written to the `errors` table.
    pub errors: Vec<String>,
}

/// Why the dataset could not be written (a problem with one recording is not one: it goes to
/// its `errors` rows): the crate's [`Error`].
pub use crate::Error;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// The recordings among `inputs`: files as given, directory-format recordings (`perf record
/// --threads`: see [`is_recording_dir`]) as one recording each, other directories walked (sorted)
/// for files named `*.data`, `perf.data*` or starting with perf's magic `PERFILE2` and for
/// directory-format recordings (not `perf.data.symbols` or `perf.data.tar.bz2`, which lie beside
/// them).
pub fn collect_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() && !is_recording_dir(p) {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(io(dir))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if is_recording_dir(&p) {
                out.push(p);
            } else {
                walk(&p, out)?;
            }
        } else if looks_like_recording(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Whether the file starts with perf's magic (`PERFILE2`, or `2ELIFREP` big-endian).
fn has_magic(p: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::File::open(p).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && (&magic == b"PERFILE2" || &magic == b"2ELIFREP")
}

fn looks_like_recording(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // Not what sits beside a recording: its symbol archive (`perf.data.symbols`), perf
    // archive's tarball (`perf.data.tar.bz2`).
    let beside = name.ends_with(".symbols") || name.contains(".tar");
    name.ends_with(".data") || (name.starts_with("perf.data") && !beside) || has_magic(p)
}

/// Whether `dir` is a directory-format recording (`perf record --threads`): a `data` file with
/// perf's header (and its `data.N` record files beside it), which `PerfFile::open` reads as one.
pub fn is_recording_dir(dir: &Path) -> bool {
    let data = dir.join("data");
    data.is_file() && has_magic(&data)
}

/// The files of a directory-format recording that `PerfFile::open` reads: `data`, then `data.N`
/// in N order.
fn recording_dir_files(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut parts = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(n) = name.strip_prefix("data.").and_then(|n| n.parse::<u32>().ok()) {
            parts.push((n, name, e.path()));
        }
    }
    parts.sort();
    let mut out = vec![("data".to_string(), dir.join("data"))];
    out.extend(parts.into_iter().map(|(_, name, path)| (name, path)));
    Ok(out)
}

fn hash_file(path: &Path, h: &mut twox_hash::XxHash3_128, buf: &mut [u8]) -> std::io::Result<()> {
    let mut f = std::fs::File::open(path)?;
    loop {
        let n = f.read(buf)?;
        if n == 0 {
            return Ok(());
        }
        h.write(buf.get(..n).unwrap_or(&[]));
    }
}

/// XXH3-128 of the file's bytes, as 32 hex digits. A directory-format recording hashes each of
/// its files (`data`, `data.N` in N order) after its name and size, so that the bytes of one
/// file cannot pass for another's.
pub fn content_hash(path: &Path) -> std::io::Result<String> {
    let mut h = twox_hash::XxHash3_128::new();
    let mut buf = vec![0u8; 1 << 20];
    if path.is_dir() {
        for (name, p) in recording_dir_files(path)? {
            h.write(name.as_bytes());
            h.write(&[0]);
            h.write(&std::fs::metadata(&p)?.len().to_le_bytes());
            hash_file(&p, &mut h, &mut buf)?;
        }
    } else {
        hash_file(path, &mut h, &mut buf)?;
    }
    Ok(format!("{:032x}", h.finish_128()))
}

/// The recording's size in bytes: the file's, or the sum of a directory-format recording's files.
fn recording_size(path: &Path) -> Option<u64> {
    if path.is_dir() {
        let files = recording_dir_files(path).ok()?;
        files.iter().map(|(_, p)| std::fs::metadata(p).map(|m| m.len()).ok()).sum()
    } else {
        std::fs::metadata(path).map(|m| m.len()).ok()
    }
}

/// Export `inputs` (see [`collect_inputs`]) into the dataset at `dataset` (created if missing),
/// skipping those already there. One [`Exported`] per input, in the order given.
pub fn export_dataset(inputs: &[PathBuf], dataset: &Path, o: &DatasetOptions) -> Result<Vec<Exported>, Error> {
    std::fs::create_dir_all(dataset).map_err(io(dataset))?;
    let staging = dataset.join(".staging");
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let files = collect_inputs(inputs)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(o.jobs).build().map_err(|e| Error::Pool(e.to_string()))?;
    // Hash first (cheap, parallel), so that a file given twice is exported once.
    let hashes: Vec<std::io::Result<String>> = pool.install(|| files.par_iter().map(|f| content_hash(f)).collect());
    let mut seen = HashSet::new();
    let first: Vec<bool> = hashes.iter().map(|h| h.as_ref().map_or(true, |h| seen.insert(h.clone()))).collect();
    let results: Vec<Result<Exported, Error>> = pool.install(|| {
        files
            .par_iter()
            .zip(hashes.par_iter())
            .zip(first.par_iter())
            .map(|((file, hash), first)| export_one(file, hash, *first, dataset, &staging, o))
            .collect()
    });
    let _ = std::fs::remove_dir(&staging);
    results.into_iter().collect()
}

fn export_one(
    file: &Path,
    hash: &std::io::Result<String>,
    first: bool,
    dataset: &Path,
    staging: &Path,
    o: &DatasetOptions,
) -> Result<Exported, Error> {
    let name = file.display().to_string();
    let hash = match hash {
        Ok(h) => h.clone(),
        Err(e) => {
            // Unreadable: the hash of its name stands in, so the error is kept (and kept once).
            let mut h = twox_hash::XxHash3_128::new();
            h.write(name.as_bytes());
            let hash = format!("{:032x}", h.finish_128());
            return fail(file, hash, dataset, "open", format!("{name}: {e}"));
        }
    };
    let marker = dataset.join("recordings").join(format!("part-{hash}.parquet"));
    let skipped = Exported {
        file: file.to_path_buf(),
        hash: hash.clone(),
        status: Status::Skipped,
        host: String::new(),
        date: String::new(),
        tables: Vec::new(),
        errors: Vec::new(),
    };
    if !first || marker.exists() {
        return Ok(skipped);
    }
    let perf = match PerfFile::open(file) {
        Ok(f) => f,
        Err(e) => return fail(file, hash, dataset, "open", e.to_string()),
    };
    let info = HeaderInfo::new(&perf);
    let host = partition_value(info.hostname.as_deref().unwrap_or("unknown"));
    let date = info.captured_on.map_or_else(|| "unknown".to_string(), utc_date);
    let stage = staging.join(format!("{hash}-{}", std::process::id()));
    let beside = symbols_beside(file);
    let mut problems = Vec::new();
    let unpacked = match (&beside, &o.stacks) {
        (Some(a), Some(fo)) if fo.symbolize.archive.is_none() => match crate::symbolize::archive::unpack(a) {
            Ok(dir) => Some(dir),
            Err(e) => {
                problems.push(format!("symbols: {e}"));
                None
            }
        },
        _ => None,
    };
    let result = write_tables(&perf, &name, &stage, o, unpacked);
    let (written, mut errors) = match result {
        Ok((w, e)) => (w, problems.into_iter().chain(e).collect::<Vec<_>>()),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            return fail(file, hash, dataset, "read", e.to_string());
        }
    };
    // Into place: every table, then the recordings row.
    let mut tables = Vec::new();
    for t in written {
        let dir = dataset.join(&t.name).join(format!("host={host}")).join(format!("date={date}"));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let path = dir.join(format!("part-{hash}.parquet"));
        std::fs::rename(&t.path, &path).map_err(io(&path))?;
        tables.push(WrittenTable { name: t.name, path, rows: t.rows });
    }
    let _ = std::fs::remove_dir(&stage);
    if let Some(a) = &beside {
        let dir = dataset.join("symbols").join(format!("host={host}")).join(format!("date={date}"));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let to = dir.join(format!("part-{hash}.symbols"));
        let tmp = dir.join(format!(".part-{hash}.symbols.{}", std::process::id()));
        match std::fs::copy(a, &tmp).and_then(|_| std::fs::rename(&tmp, &to)) {
            Ok(()) => {}
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                errors.push(format!("symbols: cannot copy {} into the dataset: {e}", a.display()));
            }
        }
    }
    // The tables' passes meet the same problem each: keep its first mention.
    let mut seen = HashSet::new();
    errors.retain(|e| !e.is_empty() && seen.insert(e.clone()));
    let status = if errors.is_empty() { Status::Ok } else { Status::Damaged };
    let e = Exported { file: file.to_path_buf(), hash, status, host, date, tables, errors };
    write_errors(dataset, &e, "read")?;
    write_recording(dataset, &e, Some(&info), file)?;
    Ok(e)
}

/// Nothing of `file` could be read: its `errors` and `recordings` rows.
fn fail(file: &Path, hash: String, dataset: &Path, stage: &str, message: String) -> Result<Exported, Error> {
    let e = Exported {
        file: file.to_path_buf(),
        hash,
        status: Status::Failed,
        host: String::new(),
        date: String::new(),
        tables: Vec::new(),
        errors: vec![message],
    };
    write_errors(dataset, &e, stage)?;
    write_recording(dataset, &e, None, file)?;
    Ok(e)
}

/// The symbol archive made for `file` (`FILE.symbols`), if one lies beside it.
fn symbols_beside(file: &Path) -> Option<PathBuf> {
    let mut name = file.as_os_str().to_os_string();
    name.push(".symbols");
    let path = PathBuf::from(name);
    path.is_file().then_some(path)
}

/// Every table of `perf` (and its stacks, named with the unpacked archive `symbols` when given)
/// into `stage`; the diagnostics.
fn write_tables(
    perf: &PerfFile<'_>,
    name: &str,
    stage: &Path,
    o: &DatasetOptions,
    symbols: Option<PathBuf>,
) -> Result<(Vec<WrittenTable>, Vec<String>), Error> {
    let mut po = o.parquet.clone();
    po.constants = vec![("file".to_string(), name.to_string())];
    let mut w = write_parquet(perf, stage, &po)?;
    let mut diagnostics = std::mem::take(&mut w.diagnostics);
    if let Some(fo) = &o.stacks {
        let mut fo = fo.clone();
        fo.root = Root::Comm;
        if symbols.is_some() {
            fo.symbolize.archive = symbols;
        }
        match fold_all(perf, &fo) {
            Ok(stacks) => {
                diagnostics.extend(stacks.diagnostics.iter().map(|d| format!("stacks: {d}")));
                let batch = stacks_batch(&stacks.stacks, name, fo.weight)?;
                let path = stage.join("stacks.parquet");
                let rows = batch.num_rows() as u64;
                write_batch(&path, &batch, &po)?;
                w.tables.push(WrittenTable { name: "stacks".to_string(), path, rows });
            }
            Err(e) => diagnostics.push(format!("stacks: {e}")),
        }
    }
    Ok((w.tables, diagnostics))
}

/// The `stacks` rows: `comm;root;…;leaf` → comm, frames, weight, file; what the weight counts
/// in the schema's metadata ([`crate::query::WEIGHT_METADATA_KEY`]).
fn stacks_batch(
    stacks: &std::collections::BTreeMap<String, u64>,
    file: &str,
    unit: Weight,
) -> Result<RecordBatch, Error> {
    let mut comm = StringDictionaryBuilder::<Int32Type>::new();
    let mut frames = ListBuilder::new(StringDictionaryBuilder::<Int32Type>::new());
    let mut weight = Vec::with_capacity(stacks.len());
    for (stack, w) in stacks {
        let mut parts = stack.split(';');
        comm.append_value(parts.next().unwrap_or(""));
        for f in parts {
            frames.values().append_value(f);
        }
        frames.append(true);
        weight.push(*w);
    }
    let files = StringDictionaryBuilder::<Int32Type>::new();
    let mut files = files;
    for _ in 0..weight.len() {
        files.append_value(file);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("comm", Arc::new(comm.finish())),
        ("frames", Arc::new(frames.finish())),
        ("weight", Arc::new(UInt64Array::from(weight))),
        ("file", Arc::new(files.finish())),
    ];
    let batch = tables::batch(columns)?;
    let unit = match unit {
        Weight::Samples => "samples",
        Weight::Period => "period",
    };
    let metadata: std::collections::HashMap<String, String> =
        [(crate::query::WEIGHT_METADATA_KEY.to_string(), unit.to_string())].into();
    let schema = Arc::new(batch.schema().as_ref().clone().with_metadata(metadata));
    Ok(batch.with_schema(schema)?)
}

/// Write one batch as the Parquet file `path` (a temporary name renamed at the end).
fn write_batch(path: &Path, batch: &RecordBatch, o: &ParquetOptions) -> Result<(), Error> {
    let tmp = path.with_extension(format!("parquet.tmp-{}", std::process::id()));
    let ioe = |p: &Path| {
        let p = p.to_path_buf();
        move |source| Error::Io { path: p, source }
    };
    let result = (|| {
        let f = std::fs::File::create(&tmp).map_err(ioe(&tmp))?;
        let mut w = ArrowWriter::try_new(f, batch.schema(), Some(properties(o)))
            .map_err(|source| Error::Parquet { path: Some(tmp.clone()), source })?;
        w.write(batch).map_err(|source| Error::Parquet { path: Some(tmp.clone()), source })?;
        w.close().map_err(|source| Error::Parquet { path: Some(tmp.clone()), source })?;
        std::fs::rename(&tmp, path).map_err(ioe(path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `errors/part-HASH.parquet` when `e` met problems: file, hash, stage, message.
fn write_errors(dataset: &Path, e: &Exported, stage: &str) -> Result<(), Error> {
    if e.errors.is_empty() {
        return Ok(());
    }
    let n = e.errors.len();
    let name = e.file.display().to_string();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("file", Arc::new(StringArray::from(vec![name.as_str(); n]))),
        ("hash", Arc::new(StringArray::from(vec![e.hash.as_str(); n]))),
        ("stage", Arc::new(StringArray::from(vec![stage; n]))),
        ("message", Arc::new(StringArray::from(e.errors.iter().map(String::as_str).collect::<Vec<_>>()))),
    ];
    put(dataset, "errors", &e.hash, &tables::batch(columns)?)
}

/// `recordings/part-HASH.parquet`: the one row of `e` (written last: its presence marks the
/// recording exported).
fn write_recording(dataset: &Path, e: &Exported, info: Option<&HeaderInfo>, file: &Path) -> Result<(), Error> {
    let size = recording_size(file);
    let rows = |t: &str| e.tables.iter().find(|w| w.name == t).map(|w| w.rows);
    let s = |v: Option<&str>| -> ArrayRef { Arc::new(StringArray::from(vec![v])) };
    let u64c = |v: Option<u64>| -> ArrayRef { Arc::new(UInt64Array::from(vec![v])) };
    let host = info.map(|i| i.hostname.clone().unwrap_or_default());
    let clock_start = info.and_then(|i| {
        let (c, st) = (i.clock_data?, i.sample_time?);
        // Time of day of the first sample: the reference pair of CLOCK_DATA moved by the
        // sample's distance from it on the sampling clock.
        let d = i128::from(st.first) - i128::from(c.clockid_ns);
        i64::try_from(i128::from(c.tod_ns) + d).ok()
    });
    let name = e.file.display().to_string();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("file", s(Some(&name))),
        ("hash", s(Some(&e.hash))),
        ("status", s(Some(e.status.name()))),
        ("host", s(host.as_deref())),
        ("host_partition", s(Some(&e.host).filter(|h| !h.is_empty()).map(String::as_str))),
        ("date", s(Some(&e.date).filter(|d| !d.is_empty()).map(String::as_str))),
        ("size", u64c(size)),
        ("captured_on", Arc::new(Int64Array::from(vec![info.and_then(|i| i.captured_on)]))),
        ("first_sample_time", u64c(info.and_then(|i| i.sample_time).map(|t| t.first))),
        ("last_sample_time", u64c(info.and_then(|i| i.sample_time).map(|t| t.last))),
        ("first_sample_tod_ns", Arc::new(Int64Array::from(vec![clock_start]))),
        ("os_release", s(info.and_then(|i| i.os_release.as_deref()))),
        ("perf_version", s(info.and_then(|i| i.perf_version.as_deref()))),
        ("arch", s(info.and_then(|i| i.arch.as_deref()))),
        ("cpu_desc", s(info.and_then(|i| i.cpu_desc.as_deref()))),
        ("nr_cpus_online", Arc::new(UInt32Array::from(vec![info.and_then(|i| i.nr_cpus_online)]))),
        ("total_mem_kb", u64c(info.and_then(|i| i.total_mem_kb))),
        ("cmdline", s(info.and_then(|i| i.cmdline.as_ref()).map(|c| c.join(" ")).as_deref())),
        ("events", s(info.map(|i| i.events.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(",")).as_deref())),
        ("samples", u64c(rows("samples"))),
        ("stacks", u64c(rows("stacks"))),
        ("errors", u64c(Some(e.errors.len() as u64))),
    ];
    put(dataset, "recordings", &e.hash, &tables::batch(columns)?)
}

/// Write `batch` as `dataset/table/part-HASH.parquet`.
fn put(dataset: &Path, table: &str, hash: &str, batch: &RecordBatch) -> Result<(), Error> {
    let dir = dataset.join(table);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    write_batch(&dir.join(format!("part-{hash}.parquet")), batch, &ParquetOptions::default())
}

/// A Hive partition value: ASCII letters, digits, `.`, `_`, `-` kept, other bytes `%XX`.
pub fn partition_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("unknown");
    }
    out
}

/// The UTC date (`YYYY-MM-DD`) of Unix time `secs`.
pub fn utc_date(secs: i64) -> String {
    // Howard Hinnant's days_from_civil inverse.
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(utc_date(1_795_651_200), "2026-11-26");
        assert_eq!(utc_date(-1), "1969-12-31");
    }

    #[test]
    fn partition_values() {
        assert_eq!(partition_value("web-01.example"), "web-01.example");
        assert_eq!(partition_value("a/b=c"), "a%2Fb%3Dc");
        assert_eq!(partition_value(""), "unknown");
    }
}
