//! Shared helpers of the integration tests: locating test files and perf's stored outputs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The committed recordings' directory.
pub fn testdata() -> PathBuf {
    repo().join("testdata")
}

/// `../shared/corpus` beside the repository, when present.
pub fn shared_corpus() -> Option<PathBuf> {
    let p = repo().parent()?.join("shared/corpus");
    p.is_dir().then_some(p)
}

/// Every committed recording in testdata (files and directories ending in `.data`).
pub fn testdata_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("testdata"))
        .map(|d| {
            d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "data")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every file of the shared corpus (subfolder/name), sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let Some(root) = shared_corpus() else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for sub in ["quipper", "mslt", "lnt", "qfuzz"] {
        if let Ok(d) = std::fs::read_dir(root.join(sub)) {
            v.extend(d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    v.sort();
    v
}

/// Read a stored perf output: `path`, or `path.zst` decompressed. `None` when neither exists.
pub fn read_output(path: &Path) -> Option<String> {
    if let Ok(s) = std::fs::read_to_string(path) {
        return Some(s);
    }
    let mut z = path.as_os_str().to_owned();
    z.push(".zst");
    let bytes = std::fs::read(PathBuf::from(z)).ok()?;
    let out = zstd::stream::decode_all(&bytes[..]).ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Where perf's stored output `<name>.<ext>` (`header`, `rc`, …) of a shared-corpus file lives.
pub fn corpus_output_path(file: &Path, ext: &str) -> PathBuf {
    let sub = file.parent().and_then(|p| p.file_name()).unwrap().to_string_lossy().into_owned();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    repo().join("testdata/corpus-perf").join(sub).join(format!("{name}.{ext}"))
}

/// Where perf's stored `-D` dump of a shared-corpus file lives.
pub fn corpus_dump_path(file: &Path) -> PathBuf {
    let sub = file.parent().and_then(|p| p.file_name()).unwrap().to_string_lossy().into_owned();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    repo().join("testdata/corpus-perf").join(sub).join(format!("{name}.dump"))
}

/// Copy the directory tree `from` into `to` (made if missing).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Fail with `what` when two folded outputs differ, after printing the lines only one of them has
/// (`want` is perf's side).
pub fn assert_same_lines(ours: &str, want: &str, what: &str) {
    if ours == want {
        return;
    }
    let (o, w): (Vec<_>, Vec<_>) = (ours.lines().collect(), want.lines().collect());
    for l in w.iter().filter(|l| !o.contains(l)) {
        eprintln!("perf only: {l:?}");
    }
    for l in o.iter().filter(|l| !w.contains(l)) {
        eprintln!("ours only: {l:?}");
    }
    panic!("{what} differs from perf");
}

/// perf's aggregated counts by perf's type name, and SAMPLE counts by event name.
pub fn parse_stats(text: &str) -> (std::collections::BTreeMap<String, u64>, std::collections::BTreeMap<String, u64>) {
    let (mut types, mut events) = (std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
    let mut section: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_suffix(" stats:") {
            if name != "Aggregated" {
                section = Some(name.to_string());
            }
            continue;
        }
        let Some((name, rest)) = t.split_once(" events:") else { continue };
        let n: u64 = rest.split_whitespace().next().unwrap().parse().unwrap();
        match &section {
            None if name != "TOTAL" => {
                types.insert(name.to_string(), n);
            }
            Some(ev) if name == "SAMPLE" => {
                events.insert(ev.clone(), n);
            }
            _ => {}
        }
    }
    (types, events)
}

/// perf's short names of user record types (`perf_event__name`).
pub fn perf_name(ours: &str) -> String {
    match ours {
        "HEADER_ATTR" => "ATTR".into(),
        "HEADER_EVENT_TYPE" => "EVENT_TYPE".into(),
        "HEADER_TRACING_DATA" => "TRACING_DATA".into(),
        "HEADER_BUILD_ID" => "BUILD_ID".into(),
        "HEADER_FEATURE" => "FEATURE".into(),
        n => n.into(),
    }
}

/// Other projects' recordings in testdata/peer (`F` or `F.zst` decompressed), sorted by name: the
/// files whose name ends in `.data`, `.data.zst`, `.stream` or `.stream.zst`.
pub fn peer_files() -> Vec<(String, Vec<u8>)> {
    let dir = testdata().join("peer");
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| {
            let base = n.strip_suffix(".zst").unwrap_or(&n).to_string();
            (base.ends_with(".data") || base.ends_with(".stream"))
                .then(|| (peer_bytes(&base), base))
                .map(|(b, n)| (n, b))
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// A committed peer file: testdata/peer/`name`, or `name.zst` decompressed.
pub fn peer_bytes(name: &str) -> Vec<u8> {
    let dir = testdata().join("peer");
    if let Ok(b) = std::fs::read(dir.join(name)) {
        return b;
    }
    let z = std::fs::read(dir.join(format!("{name}.zst"))).unwrap_or_else(|e| panic!("{name}: {e}"));
    zstd::stream::decode_all(&z[..]).unwrap()
}
