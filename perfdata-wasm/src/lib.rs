//! # perfdata-wasm
//!
//! perfdata in the browser: a [`Recording`] is a perf.data file handed over as bytes, and its
//! methods are the analyses a page shows — the header, record counts, folded stacks and the
//! flame graph, the scheduler's latency table, map and timeline, block I/O and wakeup latency
//! with their heat maps — each returning text, JSON or SVG. Nothing needs a file system: the
//! binaries, kallsyms or `perfdata archive` file that name the frames are handed over as bytes
//! too ([`Recording::add_binary`], [`Recording::add_kallsyms`], [`Recording::add_archive`]) and
//! held in memory ([`perfdata_analysis::symbolize::files::MemFiles`]).
//!
//! Built for `wasm32-unknown-unknown`, wasm-bindgen exports [`Recording`] and [`Loader`] to
//! JavaScript (`web/build.sh` makes the page's module); on the host the same methods are plain
//! Rust, which is how the tests call them. Errors are [`Failure`]s, thrown in JavaScript as
//! `Error`s with the message.
//!
//! ```
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/quickstart.data"))?;
//! let rec = perfdata_wasm::Recording::new(bytes)?;
//! assert!(rec.folded("")?.lines().count() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use perfdata_analysis::core::{HeaderInfo, Order, PerfFile, RecordKind};
use perfdata_analysis::latency::block::{block_latency_each, BlockOptions};
use perfdata_analysis::latency::heatmap::{Heatmap, HeatmapOptions};
use perfdata_analysis::latency::hist::{Log2Hist, Percentiles};
use perfdata_analysis::latency::wakeup::{wakeup_latency_each, WakeupOptions};
use perfdata_analysis::sched::latency::{sched_latency, LatencyOptions};
use perfdata_analysis::sched::map::{sched_map_text, MapOptions};
use perfdata_analysis::sched::timeline::{sched_timeline, TimelineOptions};
use perfdata_analysis::stats::Stats;
use perfdata_analysis::symbolize::files::MemFiles;
use perfdata_analysis::symbolize::{archive, SymbolizeOptions};
use perfdata_analysis::{FlameGraphOptions, FoldedOptions};
use wasm_bindgen::prelude::*;

/// The message of the last panic (a bug of ours: a panic in WebAssembly aborts the module, and
/// JavaScript sees only `RuntimeError: unreachable`), kept by the hook [`start`] installs.
static LAST_PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Run when the module is instantiated: panics leave their message for [`last_panic`].
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string();
        }
    }));
}

/// The message of the last panic, empty if none: after a `RuntimeError` from the module, what
/// went wrong (the module is then unusable: a page loads it afresh).
#[wasm_bindgen]
pub fn last_panic() -> String {
    LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default()
}

/// Where the handed-over files sit in the in-memory file system.
const BUILDID_DIR: &str = "/perfdata/buildid";
const KALLSYMS: &str = "/perfdata/kallsyms";
const ARCHIVE: &str = "/perfdata/archive";

/// What went wrong, with the message a person reads (a JavaScript `Error` in the browser).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<Failure> for JsValue {
    fn from(e: Failure) -> JsValue {
        JsError::new(&e.0).into()
    }
}

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure(e.to_string())
}

type Result<T> = std::result::Result<T, Failure>;

/// A perf.data file read from bytes, with the files handed over to name its frames.
#[wasm_bindgen]
pub struct Recording {
    file: PerfFile<'static>,
    /// Shared with each analysis's symbolizer; copied only when a file is added while one
    /// holds it.
    files: Arc<MemFiles>,
    kallsyms: bool,
    archive: bool,
    /// The file names of the recording's DSOs (BUILD_ID feature and mmap records), found on the
    /// first [`Recording::add_binary`].
    dsos: Option<Vec<String>>,
}

/// A recording's bytes arriving in pieces (a page reading a `File` slice by slice in a worker):
/// one buffer of the file's size inside the module's memory, filled in place — by
/// [`Loader::push`], or by JavaScript writing each piece straight at [`Loader::next_at`] (one
/// copy instead of two) — so the file is never held twice in full.
#[wasm_bindgen]
pub struct Loader {
    bytes: Vec<u8>,
    filled: usize,
}

#[wasm_bindgen]
impl Loader {
    /// A loader for a file of `size` bytes (zeroed until filled); an error when the module's
    /// memory (4 GB at most in wasm32) cannot hold it.
    #[wasm_bindgen(constructor)]
    pub fn new(size: usize) -> Result<Loader> {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(size).map_err(|_| {
            Failure(format!(
                "a file of {size} bytes does not fit in this page's memory (4 GB at most, less what is in use)"
            ))
        })?;
        bytes.resize(size, 0);
        Ok(Loader { bytes, filled: 0 })
    }

    /// Append the next piece; more bytes than announced are an error.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        let end = self.filled.saturating_add(chunk.len());
        let too_many = self.too_many();
        let room = self.bytes.get_mut(self.filled..end).ok_or(too_many)?;
        room.copy_from_slice(chunk);
        self.filled = end;
        Ok(())
    }

    /// Where in the module's memory the next piece goes: JavaScript writes up to
    /// `size - received()` bytes there (`new Uint8Array(memory.buffer, at, n).set(piece)`), then
    /// calls [`Loader::advance`]. Valid until the next call into the module.
    pub fn next_at(&mut self) -> usize {
        self.bytes.as_mut_ptr().wrapping_add(self.filled) as usize
    }

    /// `n` more bytes were written at [`Loader::next_at`].
    pub fn advance(&mut self, n: usize) -> Result<()> {
        let end = self.filled.saturating_add(n);
        if end > self.bytes.len() {
            return Err(self.too_many());
        }
        self.filled = end;
        Ok(())
    }

    /// Bytes received so far.
    pub fn received(&self) -> usize {
        self.filled
    }

    /// Open what was received as a recording.
    pub fn finish(self) -> Result<Recording> {
        if self.filled != self.bytes.len() {
            return Err(Failure(format!("received {} of {} bytes", self.filled, self.bytes.len())));
        }
        Recording::new(self.bytes)
    }
}

impl Loader {
    fn too_many(&self) -> Failure {
        Failure(format!("more than the announced {} bytes", self.bytes.len()))
    }
}

#[wasm_bindgen]
impl Recording {
    /// Open a perf.data file (file or pipe format) from its bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>) -> Result<Recording> {
        let file = PerfFile::from_vec(bytes).map_err(fail)?;
        Ok(Recording { file, files: Arc::default(), kallsyms: false, archive: false, dsos: None })
    }

    /// The kernel's symbols, as `/proc/kallsyms` text (used as `--kallsyms` is).
    pub fn add_kallsyms(&mut self, text: Vec<u8>) {
        Arc::make_mut(&mut self.files).insert(KALLSYMS, text);
        self.kallsyms = true;
    }

    /// An ELF file (executable, library, debug file, module) named `name`: placed in the
    /// in-memory build-id cache under its build id, and at each recorded path whose file name is
    /// `name` (for DSOs the recording has no build id for). Returns where it went, one path a
    /// line.
    pub fn add_binary(&mut self, name: &str, bytes: Vec<u8>) -> Result<String> {
        let build_id = {
            use object::Object;
            let elf = object::File::parse(&*bytes).map_err(|e| Failure(format!("{name}: not an ELF file ({e})")))?;
            elf.build_id().ok().flatten().map(perfdata_analysis::core::names::hex)
        };
        let mut paths = Vec::new();
        if let Some(b) = build_id.as_deref().filter(|b| b.len() > 2) {
            let (head, tail) = b.split_at(2);
            paths.push(PathBuf::from(BUILDID_DIR).join(".build-id").join(head).join(tail).join("elf"));
        }
        let base = Path::new(name).file_name().map(|n| n.to_os_string());
        for dso in self.dsos() {
            if Path::new(dso).file_name().map(|n| n.to_os_string()) == base && dso.starts_with('/') {
                paths.push(PathBuf::from(dso));
            }
        }
        if paths.is_empty() {
            return Err(Failure(format!("{name}: no build id, and the recording maps no file of that name")));
        }
        let bytes: Arc<[u8]> = bytes.into();
        for p in &paths {
            Arc::make_mut(&mut self.files).insert(p.clone(), bytes.clone());
        }
        Ok(paths.iter().map(|p| format!("{}\n", p.display())).collect())
    }

    /// A symbol archive made by `perfdata archive` (zstd-compressed tar), unpacked in memory.
    /// Returns how many files it held.
    pub fn add_archive(&mut self, bytes: &[u8]) -> Result<usize> {
        let files = archive::unpack_to_memory(bytes, "the symbol archive", Path::new(ARCHIVE)).map_err(fail)?;
        let n = files.len();
        Arc::make_mut(&mut self.files).extend(files);
        self.archive = true;
        Ok(n)
    }

    /// The header as `perf report --header-only -I` prints it.
    pub fn header(&self) -> String {
        HeaderInfo::new(&self.file).perf_text()
    }

    /// The header as JSON (what `perfdata info --json` prints).
    pub fn header_json(&self) -> Result<String> {
        serde_json::to_string(&HeaderInfo::new(&self.file)).map_err(fail)
    }

    /// Records by type and samples by event, as JSON (what `perfdata stats --json` prints).
    pub fn stats(&self) -> Result<String> {
        Ok(Stats::of(&self.file).map_err(fail)?.json().to_string())
    }

    /// Folded stacks, one `frame;frame;… count` line per stack, as `perfdata folded --compat
    /// COMPAT` folds them (`stackcollapse-pl` or `perf-script-py`; empty: the default).
    pub fn folded(&self, compat: &str) -> Result<String> {
        Ok(perfdata_analysis::folded(&self.file, &self.fold_options(compat)?).map_err(fail)?.to_folded_string())
    }

    /// The flame graph SVG of the folded stacks ([`Recording::folded`]'s `compat`); search and
    /// zoom work where its script runs: in an `<iframe>` or `<object>`, not inline.
    pub fn flamegraph(&self, title: &str, compat: &str) -> Result<String> {
        let stacks = perfdata_analysis::folded(&self.file, &self.fold_options(compat)?).map_err(fail)?;
        let title = if title.is_empty() { "Flame Graph" } else { title };
        let opts = FlameGraphOptions { title: title.to_string(), ..Default::default() };
        perfdata_analysis::svg(&stacks, &opts).map_err(fail)
    }

    /// `perf sched latency`'s table, by `compat`'s rules (`perf-6.1`, or empty: modern, as
    /// `perfdata sched latency --compat`).
    pub fn sched_latency(&self, compat: &str) -> Result<String> {
        let opts = LatencyOptions { compat: sched_compat(compat)?, ..Default::default() };
        Ok(sched_latency(&self.file, &opts).map_err(fail)?.text())
    }

    /// `perf sched map`'s lines.
    pub fn sched_map(&self) -> Result<String> {
        Ok(sched_map_text(&self.file, &MapOptions::default()).map_err(fail)?.0)
    }

    /// The scheduler timeline SVG, `width` pixels wide; `rows` is `cpu` (a lane per CPU) or
    /// `task` (a lane per task, the `tasks` longest running or waiting; 0: all).
    pub fn sched_timeline(&self, width: u32, rows: &str, tasks: u32) -> Result<String> {
        let rows = rows.parse().map_err(fail)?;
        let opts = TimelineOptions {
            width,
            rows,
            tasks: tasks as usize,
            title: "Scheduler timeline".into(),
            ..Default::default()
        };
        Ok(sched_timeline(&self.file, &opts).map_err(fail)?.svg())
    }

    /// Block I/O latency (issue → complete) as JSON: the pairing counts, percentiles in
    /// nanoseconds, and the power-of-two histogram in microseconds.
    pub fn block_latency(&self) -> Result<String> {
        let mut lat = Vec::new();
        let mut hist = Log2Hist::new();
        let counts = block_latency_each(&self.file, &BlockOptions::default(), |io| {
            lat.push(io.latency_ns);
            hist.add(io.latency_ns / 1000);
        })
        .map_err(fail)?;
        let p = Percentiles::from_values(&mut lat);
        let v = serde_json::json!({
            "paired": counts.paired, "filtered": counts.filtered,
            "unmatched_completes": counts.unmatched_completes, "unmatched_starts": counts.unmatched_starts,
            "overwritten_starts": counts.overwritten_starts,
            "percentiles_ns": {"count": p.count, "min": p.min, "avg": p.avg, "p50": p.p50, "p90": p.p90,
                "p99": p.p99, "p999": p.p999, "max": p.max},
            "histogram_usecs": hist.bcc_text("usecs"),
            "diagnostics": counts.diagnostics,
        });
        Ok(v.to_string())
    }

    /// The block I/O latency heat map SVG (completion time × latency).
    pub fn block_heatmap(&self) -> Result<String> {
        let mut points = Vec::new();
        block_latency_each(&self.file, &BlockOptions::default(), |io| points.push((io.complete_ns, io.latency_ns)))
            .map_err(fail)?;
        Ok(heatmap(&points, "Block I/O latency (issue → complete)", "I/Os"))
    }

    /// The wakeup latency heat map SVG (run time × wakeup → run delay).
    pub fn wakeup_heatmap(&self) -> Result<String> {
        let mut points = Vec::new();
        wakeup_latency_each(&self.file, &WakeupOptions::default(), |e| points.push((e.run_ns, e.delay_ns)))
            .map_err(fail)?;
        Ok(heatmap(&points, "Wakeup latency (wakeup → run)", "waits"))
    }

    /// The problems met reading the file so far, one a line.
    pub fn diagnostics(&self) -> String {
        self.file.diagnostics().iter().map(|d| format!("{d}\n")).collect()
    }
}

/// The heat map SVG of (time, latency) `points`, with the CLI's defaults.
fn heatmap(points: &[(u64, u64)], title: &str, what: &str) -> String {
    let opts = HeatmapOptions { title: title.into(), what: what.into(), ..Default::default() };
    Heatmap::new(points, &opts).svg(&opts)
}

/// The scheduler analyses' rules named `compat` (empty: modern).
fn sched_compat(compat: &str) -> Result<perfdata_analysis::sched::Compat> {
    match compat {
        "" => Ok(Default::default()),
        c => c.parse().map_err(Failure),
    }
}

impl Recording {
    /// The folding options: `compat`'s (the default when empty), names from the handed-over
    /// files only.
    fn fold_options(&self, compat: &str) -> Result<FoldedOptions> {
        let base = match compat {
            "" => FoldedOptions::default(),
            c => FoldedOptions::compat(c.parse().map_err(Failure)?),
        };
        let symbolize = SymbolizeOptions {
            buildid_dir: Some(BUILDID_DIR.into()),
            kallsyms: self.kallsyms.then(|| KALLSYMS.into()),
            archive: self.archive.then(|| ARCHIVE.into()),
            files: Some(self.files.clone()),
            ..Default::default()
        };
        Ok(FoldedOptions { symbolize, ..base })
    }

    /// The recording's DSO file names (found once).
    fn dsos(&mut self) -> &[String] {
        let file = &self.file;
        self.dsos.get_or_insert_with(|| {
            let mut names: Vec<String> = match file.features().build_ids() {
                Some(Ok(b)) => b.entries.into_iter().map(|e| e.filename).collect(),
                _ => Vec::new(),
            };
            if let Ok(mut recs) = file.records(Order::File) {
                while let Some(rec) = recs.next_record() {
                    match rec.map(|r| r.kind) {
                        Ok(RecordKind::Mmap(m)) => names.push(String::from_utf8_lossy(m.filename).into_owned()),
                        Ok(RecordKind::Mmap2(m)) => names.push(String::from_utf8_lossy(m.filename).into_owned()),
                        _ => {}
                    }
                }
            }
            names.sort();
            names.dedup();
            names
        })
    }
}
