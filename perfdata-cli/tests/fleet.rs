//! `perfdata export --format parquet FILES_OR_DIRS… -o DATASET` over a generated fleet (200
//! recordings written by perfdata's writer from committed ones, with ten hostnames and seven
//! dates, plus three damaged files): the rows of each `host=`/`date=` partition of the samples
//! table equal the sum of perf's `perf report --stats` SAMPLE counts of the recordings it holds;
//! every recording has its `recordings` row and the damaged ones their `errors` rows; exporting
//! again appends nothing.

mod common;
#[path = "../examples/make-fleet.rs"]
#[allow(dead_code)]
mod make_fleet;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perfdata-fleet-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn export(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// perf report --stats's aggregated SAMPLE count of a committed recording.
fn perf_samples(name: &str) -> u64 {
    let text = std::fs::read_to_string(testdata().join(format!("{name}.stats"))).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("SAMPLE events:")).unwrap();
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Every file under `dir`, recursively, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rows(path: &Path) -> u64 {
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    r.metadata().file_metadata().num_rows() as u64
}

fn read(path: &Path) -> RecordBatch {
    let f = std::fs::File::open(path).unwrap();
    let r = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap();
    let batches: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
    arrow_select_concat(&batches)
}

fn arrow_select_concat(batches: &[RecordBatch]) -> RecordBatch {
    assert_eq!(batches.len(), 1, "one batch per small part file");
    batches[0].clone()
}

fn strings(b: &RecordBatch, col: &str) -> Vec<String> {
    let c = b.column_by_name(col).unwrap_or_else(|| panic!("no column {col}"));
    let c = arrow_cast_utf8(c);
    (0..arrow_array::Array::len(&c)).map(|i| c.value(i).to_string()).collect()
}

fn arrow_cast_utf8(c: &arrow_array::ArrayRef) -> arrow_array::StringArray {
    use arrow_array::Array;
    assert!(!c.is_empty());
    c.as_string::<i32>().clone()
}

#[test]
fn fleet_dataset() {
    let dir = scratch("fleet");
    let fleet = make_fleet::generate(&testdata(), &dir.join("in"), 0, 200).unwrap();
    let ds = dir.join("dataset");
    let ds_s = ds.to_str().unwrap();
    let input = dir.join("in");
    // A directory and, again, one of its files: each recording is exported once.
    let again = fleet.members[0].path.to_str().unwrap().to_string();
    let (code, err) =
        export(&["export", "--format", "parquet", "--jobs", "2", input.to_str().unwrap(), &again, "-o", ds_s]);
    assert_eq!(code, 3, "damaged inputs, the others exported: the damage status 3:\n{err}");
    assert!(err.contains("203 recordings exported, 1 skipped"), "{err}");

    // Samples: rows per partition = perf's counts of the recordings in it.
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for m in &fleet.members {
        let date = perfdata_analysis::export::dataset::utc_date(m.mtime as i64);
        *want.entry((m.host.clone(), date)).or_default() += perf_samples(m.source);
    }
    let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut damaged_rows = 0;
    let damaged_parts: Vec<String> = fleet
        .damaged
        .iter()
        .map(|(p, _)| format!("part-{}.parquet", perfdata_analysis::export::dataset::content_hash(p).unwrap()))
        .collect();
    for p in files(&ds.join("samples")) {
        let rel: Vec<String> =
            p.strip_prefix(ds.join("samples")).unwrap().iter().map(|c| c.to_string_lossy().into_owned()).collect();
        let host = rel[0].strip_prefix("host=").unwrap().to_string();
        let date = rel[1].strip_prefix("date=").unwrap().to_string();
        let n = rows(&p);
        if damaged_parts.iter().any(|d| p.ends_with(d)) {
            damaged_rows += n;
            continue;
        }
        *got.entry((host, date)).or_default() += n;
    }
    assert_eq!(got, want);
    assert_eq!(want.len(), 70, "10 hosts × 7 days");
    assert!(damaged_rows > 0, "the damaged recordings keep the samples read before the damage");

    // Every input has its recordings row; the good ones are "ok" with perf's sample count.
    let recs = files(&ds.join("recordings"));
    assert_eq!(recs.len(), 203);
    let mut status: BTreeMap<String, String> = BTreeMap::new();
    for p in &recs {
        let b = read(p);
        let file = strings(&b, "file")[0].clone();
        status.insert(file.clone(), strings(&b, "status")[0].clone());
        if let Some(m) = fleet.members.iter().find(|m| m.path.to_str() == Some(file.as_str())) {
            let samples = b.column_by_name("samples").unwrap().as_primitive::<arrow_array::types::UInt64Type>();
            assert_eq!(samples.value(0), perf_samples(m.source), "{file}");
            assert_eq!(strings(&b, "host")[0], m.host);
        }
    }
    for m in &fleet.members {
        assert_eq!(status[m.path.to_str().unwrap()], "ok", "{}", m.path.display());
    }
    // The damaged ones: their problems in the errors table, and nothing from the good ones.
    let mut errored: Vec<String> = files(&ds.join("errors")).iter().flat_map(|p| strings(&read(p), "file")).collect();
    errored.sort();
    errored.dedup();
    let mut damaged: Vec<String> = fleet.damaged.iter().map(|(p, _)| p.to_str().unwrap().to_string()).collect();
    damaged.sort();
    assert_eq!(errored, damaged);
    assert_eq!(status[damaged.iter().find(|d| d.contains("notperf")).unwrap()], "failed");

    // Again: nothing appended, nothing rewritten.
    let before: Vec<(PathBuf, std::time::SystemTime)> =
        files(&ds).into_iter().map(|p| (p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap())).collect();
    let (code, err) = export(&["export", "--format", "parquet", "-j", "2", input.to_str().unwrap(), "-o", ds_s]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 recordings exported, 203 skipped"), "{err}");
    let after: Vec<(PathBuf, std::time::SystemTime)> =
        files(&ds).into_iter().map(|p| (p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap())).collect();
    assert_eq!(before, after);

    // A new recording appends its parts only.
    let extra = dir.join("extra");
    let more = make_fleet::generate(&testdata(), &extra, 200, 1).unwrap();
    let (_, err) =
        export(&["export", "--format", "parquet", more.members[0].path.to_str().unwrap(), "--dataset", "-o", ds_s]);
    assert!(err.contains("1 recordings exported, 0 skipped"), "{err}");
    let added: Vec<PathBuf> = files(&ds).into_iter().filter(|p| !before.iter().any(|(b, _)| b == p)).collect();
    assert!(added.iter().any(|p| p.starts_with(ds.join("samples/host=host00/date=2026-11-07"))), "{added:?}");
    assert!(added.iter().all(|p| p.file_name().unwrap().to_str().unwrap().starts_with("part-")), "{added:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `perfdata folded FILE` as stack → weight (of the complete records of a damaged file: status
/// 3; nothing for a file it cannot read).
fn folded_of(path: &Path) -> BTreeMap<String, u64> {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).arg("folded").arg(path).output().unwrap();
    if !matches!(out.status.code(), Some(0 | 3)) {
        return BTreeMap::new();
    }
    parse_folded(&String::from_utf8(out.stdout).unwrap())
}

fn parse_folded(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .map(|l| {
            let (s, w) = l.rsplit_once(' ').unwrap();
            (s.to_string(), w.parse().unwrap())
        })
        .collect()
}

fn perfdata(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// One recording of the fleet as the oracle sees it: its partition values (from how it was
/// made, not from the dataset) and `perfdata folded`'s stacks.
struct Folded {
    host: String,
    date: String,
    file: String,
    stacks: BTreeMap<String, u64>,
}

/// The sum over `files` of the stacks `keep(file, comm, weight)` selects.
fn oracle(files: &[Folded], keep: &dyn Fn(&Folded, &str, u64) -> bool) -> perfdata_analysis::FoldedStacks {
    let mut sum: BTreeMap<String, u64> = BTreeMap::new();
    for f in files {
        for (s, w) in &f.stacks {
            if keep(f, s.split(';').next().unwrap(), *w) {
                *sum.entry(s.clone()).or_default() += w;
            }
        }
    }
    perfdata_analysis::FoldedStacks { stacks: sum, ..Default::default() }
}

#[test]
fn flamegraph_from_dataset_where() {
    use perfdata_analysis::flamegraph::{diff_lines, diff_svg, svg, FlameGraphOptions};
    use perfdata_analysis::query::{dataset_stacks, predicate::Predicate, predicate::STACKS_COLUMNS};
    let dir = scratch("where");
    // 40 recordings: 10 hosts × 4 days, plus the damaged files (host `vm`, 2026-11-01).
    let fleet = make_fleet::generate(&testdata(), &dir.join("in"), 0, 40).unwrap();
    let ds = dir.join("dataset");
    let ds_s = ds.to_str().unwrap();
    let (code, err) =
        export(&["export", "--format", "parquet", "-j", "2", dir.join("in").to_str().unwrap(), "-o", ds_s]);
    assert_eq!(code, 3, "{err}");
    let mut files: Vec<Folded> = fleet
        .members
        .iter()
        .map(|m| Folded {
            host: m.host.clone(),
            date: perfdata_analysis::export::dataset::utc_date(m.mtime as i64),
            file: m.path.to_str().unwrap().to_string(),
            stacks: folded_of(&m.path),
        })
        .collect();
    for (p, _) in &fleet.damaged {
        // perf's hostname of the committed recordings they were cut from; the truncated one lost
        // its HOSTNAME with its feature sections (its date is its file's, as for all).
        let f = folded_of(p);
        let cut = p.to_str().unwrap().contains("truncated");
        files.push(Folded {
            host: if cut { "unknown" } else { "vm" }.into(),
            date: "2026-11-01".into(),
            file: p.to_str().unwrap().into(),
            stacks: f,
        });
    }
    // The damaged files fold to the stacks of their complete records (status 3), and so do their
    // dataset rows; the one that is no perf.data at all folds to nothing.
    let damaged_parts = files[40..].iter().filter(|f| !f.stacks.is_empty()).count();
    assert_eq!((damaged_parts, files.len() - 40), (2, 3), "the damaged files' stacks");
    let host_file = files.iter().find(|f| f.host == "host02").unwrap().file.clone();
    type Keep = Box<dyn Fn(&Folded, &str, u64) -> bool>;
    let cases: Vec<(String, Keep, Option<usize>)> = vec![
        ("host = 'host03'".into(), Box::new(|f, _, _| f.host == "host03"), Some(4)),
        (
            "host IN ('host01', 'Host02', 'host02') AND date >= '2026-11-03'".into(),
            Box::new(|f, _, _| ["host01", "host02"].contains(&f.host.as_str()) && f.date.as_str() >= "2026-11-03"),
            Some(4),
        ),
        (
            "NOT (host <> 'host05' OR date = '2026-11-02') and date != '2026-11-04'".into(),
            Box::new(|f, _, _| f.host == "host05" && f.date != "2026-11-02" && f.date != "2026-11-04"),
            Some(2),
        ),
        ("host LIKE 'v_'".into(), Box::new(|f, _, _| f.host == "vm"), Some(1)),
        ("comm = 'spin'".into(), Box::new(|_, c, _| c == "spin"), None),
        (
            "date = '2026-11-02' OR comm LIKE 'py%' AND weight > 1000000".into(),
            Box::new(|f, c, w| f.date == "2026-11-02" || (c.starts_with("py") && w > 1_000_000)),
            None,
        ),
        (
            "comm NOT IN ('spin', 'sh') AND \"HOST\" < 'host05'".into(),
            Box::new(|f, c, _| !["spin", "sh"].contains(&c) && f.host.as_str() < "host05"),
            None,
        ),
        (format!("file = '{}'", host_file.replace('\'', "''")), Box::new(move |f, _, _| f.file == host_file), None),
        ("weight <= 200000 and host like '%7'".into(), Box::new(|f, _, w| w <= 200_000 && f.host == "host07"), None),
    ];
    for (predicate, keep, parts) in &cases {
        let want = oracle(&files, keep.as_ref());
        let (code, out, err) = perfdata(&["flamegraph", "--from-dataset", ds_s, "--where", predicate, "--folded"]);
        assert_eq!(code, 0, "{predicate}: {err}");
        assert_eq!(parse_folded(&out), want.stacks, "{predicate}");
        assert_eq!(out, want.to_folded_string(), "{predicate}");
        // Partitions ruled out are not opened: a predicate of host and date reads its recordings' parts only.
        let p = Predicate::parse(predicate, STACKS_COLUMNS).unwrap();
        let got = dataset_stacks(&ds, Some(&p)).unwrap();
        if let Some(n) = parts {
            assert_eq!((got.parts_read, got.parts_read + got.parts_pruned), (*n, 40 + damaged_parts), "{predicate}");
            assert_eq!(*n == 0, err.contains("warning: no recording of"), "{predicate}: {err}");
        }
        assert_eq!(got.weight.as_deref(), (got.parts_read > 0).then_some("period"), "{predicate}");
    }
    assert!(
        !oracle(&files, cases[5].1.as_ref()).stacks.is_empty()
            && !oracle(&files, cases[4].1.as_ref()).stacks.is_empty()
    );

    // Without --where: every recording; the SVG is the one of the summed stacks.
    let all = oracle(&files, &|_, _, _| true);
    let (code, out, err) = perfdata(&["flamegraph", "--from-dataset", ds_s]);
    assert_eq!(code, 0, "{err}");
    let o = FlameGraphOptions { subtitle: Some(ds_s.to_string()), count_name: "period".into(), ..Default::default() };
    assert_eq!(out, svg(&all, &o).unwrap());

    // --diff: the differential graph (and difffolded's lines) of the two sums.
    let (b, a) = ("date = '2026-11-01'", "date = '2026-11-02' and host <> 'host01'");
    let before = oracle(&files, &|f, _, _| f.date == "2026-11-01");
    let after = oracle(&files, &|f, _, _| f.date == "2026-11-02" && f.host != "host01");
    let args = ["flamegraph", "--from-dataset", ds_s, "--diff", "--where", b, "--where", a];
    let (code, out, err) = perfdata(&args);
    assert_eq!(code, 0, "{err}");
    let o = FlameGraphOptions {
        title: "Differential Flame Graph".into(),
        subtitle: Some(format!("{ds_s} where {b} → {ds_s} where {a}: red grew, blue shrank")),
        count_name: "period".into(),
        ..Default::default()
    };
    assert_eq!(out, diff_svg(&before, &after, false, false, &o).unwrap());
    let (_, out, _) = perfdata(&[&args[..], &["--normalize", "--negate"]].concat());
    assert_eq!(out, diff_svg(&before, &after, true, true, &o).unwrap());
    for extra in [&["--folded"][..], &["--folded", "--normalize"], &["--folded", "--negate"]] {
        let (_, out, _) = perfdata(&[&args[..], extra].concat());
        let (normalize, negate) = (extra.contains(&"--normalize"), extra.contains(&"--negate"));
        assert_eq!(out, diff_lines(&before, &after, normalize, negate), "{extra:?}");
    }

    // Mistakes: where and what was expected.
    let (code, _, err) = perfdata(&["flamegraph", "--from-dataset", ds_s, "--where", "hots = 'a'"]);
    assert_eq!(code, 1);
    assert!(err.contains("column 1: unknown column `hots` (the columns are host, date, comm, file, weight)"), "{err}");
    let bad = "host = 'a' AND (weight > 'x')";
    let (_, _, err) = perfdata(&["flamegraph", "--from-dataset", ds_s, "--where", bad]);
    assert!(err.contains("column 26: `weight` is an integer column"), "{err}");
    assert!(err.contains(&format!("\n  {bad}\n  {}^", " ".repeat(bad.find("'x'").unwrap()))), "{err}");
    let (code, _, err) = perfdata(&["flamegraph", "--from-dataset", ds_s, "--diff", "--where", "host = 'a'"]);
    assert_eq!(code, 1);
    assert!(err.contains("takes two --where predicates: BEFORE, then AFTER"), "{err}");
    let (code, _, err) = perfdata(&["flamegraph", "--from-dataset", ds_s, "--kernel"]);
    assert_eq!(code, 2, "the stacks are folded already: {err}");
    let (code, _, err) = perfdata(&["flamegraph", "--from-dataset", dir.join("in").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("not a dataset"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copy a directory-format recording (its files only).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn directory_recordings_in_a_dataset() {
    // `perf record --threads` directories (data + data.N; one zstd-compressed) are one recording
    // each, found in a directory walked or given themselves.
    let dir = scratch("dirs");
    let input = dir.join("in");
    copy_dir(&testdata().join("threads.data"), &input.join("a/threads.data"));
    copy_dir(&testdata().join("threads-z.data"), &input.join("b/threads-z.data"));
    std::fs::copy(testdata().join("fp.data"), input.join("fp.data")).unwrap();
    let ds = dir.join("dataset");
    let ds_s = ds.to_str().unwrap();
    let (code, err) = export(&["export", "--format", "parquet", "-j", "2", input.to_str().unwrap(), "-o", ds_s]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("3 recordings exported, 0 skipped"), "{err}");
    let want: BTreeMap<String, (u64, u64)> =
        [("a/threads.data", "threads.data"), ("b/threads-z.data", "threads-z.data"), ("fp.data", "fp.data")]
            .iter()
            .map(|(path, name)| {
                let p = input.join(path);
                let size = if p.is_dir() {
                    files(&p).iter().map(|f| std::fs::metadata(f).unwrap().len()).sum()
                } else {
                    std::fs::metadata(&p).unwrap().len()
                };
                (p.to_str().unwrap().to_string(), (perf_samples(name), size))
            })
            .collect();
    let mut got = BTreeMap::new();
    let mut rows_by_file = BTreeMap::new();
    let samples = files(&ds.join("samples"));
    for p in files(&ds.join("recordings")) {
        let b = read(&p);
        let u = |c: &str| b.column_by_name(c).unwrap().as_primitive::<arrow_array::types::UInt64Type>().value(0);
        assert_eq!(strings(&b, "status")[0], "ok");
        let file = strings(&b, "file")[0].clone();
        got.insert(file.clone(), (u("samples"), u("size")));
        // The samples table's rows, too (its part is named by the recording's hash).
        let part = format!("part-{}.parquet", strings(&b, "hash")[0]);
        rows_by_file.insert(file, samples.iter().filter(|s| s.ends_with(&part)).map(|s| rows(s)).sum::<u64>());
    }
    assert_eq!(got, want, "perf's SAMPLE counts and the recordings' sizes");
    assert_eq!(rows_by_file, want.iter().map(|(f, (n, _))| (f.clone(), *n)).collect());
    // Each recording's stacks are perfdata folded's.
    for f in want.keys() {
        let (code, out, err) =
            perfdata(&["flamegraph", "--from-dataset", ds_s, "--where", &format!("file = '{f}'"), "--folded"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(parse_folded(&out), folded_of(Path::new(f)), "{f}");
        assert!(!out.is_empty(), "{f}");
    }
    // Again: the same content hashes, nothing exported; the directory given itself is one recording.
    let (_, err) = export(&["export", "--format", "parquet", input.to_str().unwrap(), "-o", ds_s]);
    assert!(err.contains("0 recordings exported, 3 skipped"), "{err}");
    let one = input.join("a/threads.data");
    let (code, err) = export(&[
        "export",
        "--format",
        "parquet",
        "--dataset",
        one.to_str().unwrap(),
        "-o",
        dir.join("ds2").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 recordings exported, 0 skipped"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `perfdata ARGS` on a machine whose cache and home are `dir`'s, without perf's build-id cache.
fn isolated(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata"))
        .args(args)
        .env("HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env_remove("PERF_BUILDID_DIR")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn a_recordings_archive_beside_it_names_its_dataset_stacks() {
    // Recorded "there": fp.data and dwarf.data with their archives (the fixtures' symbols).
    let dir = scratch("symbols");
    let (there, empty) = (dir.join("there"), dir.join("empty"));
    for d in [&there, &empty, &dir.join("home")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let sym = common::symbol_args(&testdata().join("folded/root"));
    for name in ["fp.data", "dwarf.data"] {
        std::fs::copy(testdata().join(name), there.join(name)).unwrap();
        let (data, out) = (there.join(name), there.join(format!("{name}.symbols")));
        let mut args = vec!["archive", data.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend(sym.iter().map(String::as_str));
        let (code, _, err) = isolated(&args, &dir);
        assert_eq!(code, 0, "{err}");
    }
    // Exported "here", with no binaries, build-id cache or kallsyms.
    let nothing = ["--symfs", empty.to_str().unwrap(), "--buildid-dir", empty.to_str().unwrap()];
    let ds = dir.join("ds");
    let mut args = vec!["export", "--format", "parquet", there.to_str().unwrap(), "-o", ds.to_str().unwrap()];
    args.extend(nothing);
    let (code, _, err) = isolated(&args, &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 recordings exported"), "the archives are not recordings: {err}");
    for name in ["fp.data", "dwarf.data"] {
        // The dataset's stacks are those `folded --symbols` names with the archive, and perf's.
        let data = there.join(name);
        let filter = format!("file = '{}'", data.display());
        let (code, stacks, err) =
            isolated(&["flamegraph", "--from-dataset", ds.to_str().unwrap(), "--where", &filter, "--folded"], &dir);
        assert_eq!(code, 0, "{err}");
        let archive = there.join(format!("{name}.symbols"));
        let mut args = vec!["folded", data.to_str().unwrap(), "--symbols", archive.to_str().unwrap()];
        args.extend(nothing);
        let (code, want, err) = isolated(&args, &dir);
        assert_eq!(code, 0, "{err}");
        assert_eq!(parse_folded(&stacks), parse_folded(&want), "{name}");
        let perf = std::fs::read_to_string(testdata().join(format!("{name}.folded-stackcollapse-pl"))).unwrap();
        assert_eq!(parse_folded(&stacks), parse_folded(&perf), "{name}: perf's names");
        // The archive is in the dataset, under the recording's partition and hash.
        let hash = perfdata_analysis::export::dataset::content_hash(&data).unwrap();
        let copies: Vec<PathBuf> =
            files(&ds.join("symbols")).into_iter().filter(|p| p.ends_with(format!("part-{hash}.symbols"))).collect();
        assert_eq!(copies.len(), 1, "{name}: {copies:?}");
        assert_eq!(std::fs::read(&copies[0]).unwrap(), std::fs::read(&archive).unwrap(), "{name}");
        let partition = copies[0].parent().unwrap().parent().unwrap().file_name().unwrap().to_str().unwrap();
        assert!(partition.starts_with("host="), "{copies:?}");
    }
    // Without the archives, the same export leaves the user frames unnamed.
    for name in ["fp.data", "dwarf.data"] {
        std::fs::remove_file(there.join(format!("{name}.symbols"))).unwrap();
    }
    let bare = dir.join("bare");
    let mut args = vec!["export", "--format", "parquet", there.to_str().unwrap(), "-o", bare.to_str().unwrap()];
    args.extend(nothing);
    let (code, _, err) = isolated(&args, &dir);
    assert_eq!(code, 0, "{err}");
    let (_, with, _) = isolated(&["flamegraph", "--from-dataset", ds.to_str().unwrap(), "--folded"], &dir);
    let (_, without, _) = isolated(&["flamegraph", "--from-dataset", bare.to_str().unwrap(), "--folded"], &dir);
    assert_ne!(parse_folded(&with), parse_folded(&without));
    assert!(!bare.join("symbols").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_archive_beside_a_recording_is_its_problem() {
    let dir = scratch("bad-symbols");
    let there = dir.join("there");
    std::fs::create_dir_all(&there).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::copy(testdata().join("fp.data"), there.join("fp.data")).unwrap();
    std::fs::write(there.join("fp.data.symbols"), b"not an archive").unwrap();
    let ds = dir.join("ds");
    let (code, _, err) =
        isolated(&["export", "--format", "parquet", there.to_str().unwrap(), "-o", ds.to_str().unwrap()], &dir);
    assert_eq!(code, 3, "damaged, exported all the same: {err}");
    assert_eq!(err.matches("fp.data.symbols").count(), 1, "said once: {err}");
    assert!(err.contains("1 recordings exported"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
