//! `perfdata export --format parquet FILE -o DIR`: the tables of fp, dwarf, sched and block
//! recordings read back with arrow-rs's Parquet reader hold as many rows as `perf report --stats`
//! counts and the first and last samples `perf report -D` prints; bad input fails with a message
//! and leaves no directory. (perfdata-py/tests/test_parquet.py reads them with pyarrow, polars
//! and DuckDB.)

use arrow_array::cast::AsArray;
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perfdata-parquet-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(path: &Path) -> RecordBatch {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let r = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().with_batch_size(1 << 20).build().unwrap();
    let mut batches: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
    assert!(batches.len() <= 1, "{}: {} batches", path.display(), batches.len());
    batches.pop().unwrap_or_else(|| {
        let f = std::fs::File::open(path).unwrap();
        RecordBatch::new_empty(ParquetRecordBatchReaderBuilder::try_new(f).unwrap().schema().clone())
    })
}

/// perf report --stats: aggregated counts by record type, and samples per event.
fn stats(name: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let text = std::fs::read_to_string(testdata(&format!("{name}.stats"))).unwrap();
    let (mut total, mut per_event, mut event) = (BTreeMap::new(), BTreeMap::new(), None::<String>);
    for line in text.lines() {
        if let Some(e) = line.strip_suffix(" stats:") {
            event = (e != "Aggregated").then(|| e.to_string());
        } else if let Some((k, v)) = line.trim().split_once(" events:") {
            let n: u64 = v.split_whitespace().next().unwrap().parse().unwrap();
            match &event {
                None => total.insert(k.to_string(), n),
                Some(e) => per_event.insert(e.clone(), n),
            };
        }
    }
    (total, per_event)
}

/// perf report -D's samples: (time, pid, tid, ip) in perf's order.
fn dump_samples(name: &str) -> Vec<(u64, u32, u32, u64)> {
    let text = std::fs::read_to_string(testdata(&format!("{name}.dump"))).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((head, rest)) = line.split_once(": PERF_RECORD_SAMPLE(") else { continue };
        let time: u64 = head.split(' ').rev().nth(2).unwrap().parse().unwrap();
        let f: Vec<&str> = rest.split_whitespace().collect();
        let (pid, tid) = f[2].trim_end_matches(':').split_once('/').unwrap();
        let ip = u64::from_str_radix(f[3].trim_start_matches("0x"), 16).unwrap();
        out.push((time, pid.parse::<i32>().unwrap() as u32, tid.parse::<i32>().unwrap() as u32, ip));
    }
    out
}

#[test]
fn tables_have_perfs_counts_and_samples() {
    for name in ["fp.data", "dwarf.data", "sched.data", "block.data"] {
        let dir = scratch(name);
        let (ok, err) =
            run(&["export", "--format", "parquet", testdata(name).to_str().unwrap(), "-o", dir.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        let (total, per_event) = stats(name);
        let get = |k: &str| total.get(k).copied().unwrap_or(0);
        let mut want: BTreeMap<String, u64> = BTreeMap::from([
            ("samples".to_string(), get("SAMPLE")),
            ("mmaps".to_string(), get("MMAP") + get("MMAP2")),
            ("comms".to_string(), get("COMM")),
            ("tasks".to_string(), get("FORK") + get("EXIT")),
            ("lost".to_string(), get("LOST") + get("LOST_SAMPLES")),
        ]);
        for (e, n) in per_event.iter().filter(|(e, _)| e.contains(':')) {
            want.insert(format!("tp.{}", e.replacen(':', ".", 1)), *n);
        }
        for (table, n) in &want {
            let b = read(&dir.join(format!("{table}.parquet")));
            assert_eq!(b.num_rows() as u64, *n, "{name} {table}");
        }
        // every file is a table (no temporary file is left)
        let mut files: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        assert!(files.iter().all(|f| f.ends_with(".parquet") && !f.starts_with('.')), "{files:?}");
        assert!(files.contains(&"records.parquet".to_string()));
        assert_eq!(files.len(), 6 + per_event.keys().filter(|e| e.contains(':')).count(), "{files:?}");

        let s = read(&dir.join("samples.parquet"));
        let col = |n: &str| s.column_by_name(n).unwrap().clone();
        let (time, pid, tid, ip) = (col("time"), col("pid"), col("tid"), col("ip"));
        let (time, ip) = (time.as_primitive::<UInt64Type>(), ip.as_primitive::<UInt64Type>());
        let (pid, tid) = (pid.as_primitive::<UInt32Type>(), tid.as_primitive::<UInt32Type>());
        let perf = dump_samples(name);
        assert_eq!(perf.len(), s.num_rows(), "{name}");
        for i in [0, s.num_rows() - 1] {
            assert_eq!((time.value(i), pid.value(i), tid.value(i), ip.value(i)), perf[i], "{name} sample {i}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn bad_input_fails_and_leaves_no_directory() {
    let dir = scratch("bad");
    let garbage = std::env::temp_dir().join(format!("perfdata-parquet-{}-garbage.data", std::process::id()));
    std::fs::write(&garbage, b"PERFILE2 but not a perf.data file at all, too short").unwrap();
    for input in [garbage.to_str().unwrap(), "/nonexistent/perf.data"] {
        let (ok, err) = run(&["export", "--format", "parquet", input, "-o", dir.to_str().unwrap()]);
        assert!(!ok, "{input}");
        assert!(!err.trim().is_empty() && !err.contains("panicked"), "{input}: {err}");
        assert!(!dir.exists(), "{input}: {} was left", dir.display());
    }
    let (ok, err) = run(&["export", "--format", "parquet", testdata("fp.data").to_str().unwrap()]);
    assert!(!ok && err.contains("-o DIR"), "{err}");
    std::fs::remove_file(&garbage).unwrap();
}
