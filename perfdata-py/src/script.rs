//! `perf script`'s text from Python: `PerfData.script()` (a lazy iterator over its lines) and
//! `PerfData.write_script()` (the text into a file), with perf script's options as keyword
//! arguments turned into `perfdata_analysis::script::ScriptOptions`.
//!
//! The iterator runs `write_script_with` on a thread of its own, which writes into a bounded
//! channel of byte chunks (the writer's 64 KiB blocks): at most [`CHANNEL_CHUNKS`] chunks wait in
//! it, so memory does not grow with the recording. Dropping (or closing) the iterator drops the
//! receiving end; the writer's next send fails, it stops with an output error that nobody sees.

use crate::damage::Damage;
use crate::error;
use crate::iter::Shared;
use perfdata_analysis::options::TimeRanges;
use perfdata_analysis::script::{parse_cpu_list, write_script_with, ScriptOptions, ScriptSummary};
use perfdata_analysis::symbolize::SymbolizeOptions;
use perfdata_core::PerfFile;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The keyword arguments of `script()` and `write_script()`.
const SCRIPT_KEYS: [&str; 18] = [
    "fields",
    "ns",
    "hide_call_graph",
    "max_stack",
    "inline",
    "show_task_events",
    "show_mmap_events",
    "show_switch_events",
    "time",
    "cpu",
    "pid",
    "tid",
    "comms",
    "symfs",
    "kallsyms",
    "buildid_dir",
    "symbols",
    "jitdump",
];

/// Chunks (of about 64 KiB each) the writer thread may be ahead of the iterator.
const CHANNEL_CHUNKS: usize = 2;

fn get<'py>(kw: Option<&Bound<'py, PyDict>>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(match kw {
        Some(d) => d.get_item(key)?.filter(|v| !v.is_none()),
        None => None,
    })
}

fn typed<'py, T: FromPyObjectOwned<'py>>(
    kw: Option<&Bound<'py, PyDict>>,
    key: &str,
    what: &str,
) -> PyResult<Option<T>> {
    get(kw, key)?
        .map(|v| v.extract::<T>().map_err(|_| PyTypeError::new_err(format!("{key} must be {what}"))))
        .transpose()
}

fn flag(kw: Option<&Bound<'_, PyDict>>, key: &str, default: bool) -> PyResult<bool> {
    Ok(typed::<bool>(kw, key, "a bool")?.unwrap_or(default))
}

fn path(kw: Option<&Bound<'_, PyDict>>, key: &str) -> PyResult<Option<PathBuf>> {
    typed(kw, key, "a path (str or os.PathLike)")
}

/// `fields=`: one `-F` argument, or a list whose items are joined with `,`, a new `-F` argument
/// starting at each item with an event type (`"sw:comm,tid"`).
fn fields(v: Option<Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(v) = v else { return Ok(Vec::new()) };
    if v.is_instance_of::<PyString>() {
        return Ok(vec![v.extract()?]);
    }
    let items: Vec<String> = v.extract().map_err(|_| {
        PyTypeError::new_err("fields must be perf's -F string ('comm,tid,ip,sym') or a list of field names")
    })?;
    let mut args: Vec<String> = Vec::new();
    for item in items {
        match args.last_mut() {
            Some(last) if !item.contains(':') => {
                last.push(',');
                last.push_str(&item);
            }
            _ => args.push(item),
        }
    }
    Ok(args)
}

/// `time=`: perf script's `--time`, or a (start_ns, end_ns) tuple with None for an open end.
fn time(v: Option<Bound<'_, PyAny>>) -> PyResult<Option<TimeRanges>> {
    if let Some(s) = v.as_ref().filter(|v| v.is_instance_of::<PyString>()) {
        return s.extract::<String>()?.parse().map(Some).map_err(PyValueError::new_err);
    }
    Ok(crate::kwargs::time_value(v.as_ref())?.map(TimeRanges::from))
}

/// `cpu=`: an int, a list of ints or perf's `"0-2,5"`.
fn cpus(v: Option<Bound<'_, PyAny>>) -> PyResult<Option<Vec<u32>>> {
    if let Some(s) = v.as_ref().filter(|v| v.is_instance_of::<PyString>()) {
        return parse_cpu_list(&s.extract::<String>()?).map(Some).map_err(PyValueError::new_err);
    }
    crate::kwargs::int_list(v.as_ref(), "cpu")
}

/// `comms=`: a list of comms, or a string of them separated by commas (perf's `--comms`).
fn comms(v: Option<Bound<'_, PyAny>>) -> PyResult<Option<Vec<String>>> {
    let Some(v) = v else { return Ok(None) };
    if v.is_instance_of::<PyString>() {
        let s: String = v.extract()?;
        return Ok(Some(s.split(',').filter(|c| !c.is_empty()).map(str::to_string).collect()));
    }
    v.extract().map(Some).map_err(|_| PyTypeError::new_err("comms must be a str or a list of str"))
}

/// The options of the keyword arguments; unknown keywords are a `TypeError`.
pub fn options(kw: Option<&Bound<'_, PyDict>>) -> PyResult<ScriptOptions> {
    crate::kwargs::check_keywords("", kw, &[&SCRIPT_KEYS])?;
    let default = ScriptOptions::default();
    Ok(ScriptOptions {
        fields: fields(get(kw, "fields")?)?,
        ns: flag(kw, "ns", false)?,
        hide_call_graph: flag(kw, "hide_call_graph", false)?,
        max_stack: typed(kw, "max_stack", "a non-negative int")?.unwrap_or(default.max_stack),
        inline: flag(kw, "inline", default.inline)?,
        show_task_events: flag(kw, "show_task_events", false)?,
        show_mmap_events: flag(kw, "show_mmap_events", false)?,
        show_switch_events: flag(kw, "show_switch_events", false)?,
        time: time(get(kw, "time")?)?,
        cpus: cpus(get(kw, "cpu")?)?,
        pids: crate::kwargs::int_list(get(kw, "pid")?.as_ref(), "pid")?,
        tids: crate::kwargs::int_list(get(kw, "tid")?.as_ref(), "tid")?,
        comms: comms(get(kw, "comms")?)?,
        symbolize: SymbolizeOptions {
            symfs: path(kw, "symfs")?,
            kallsyms: path(kw, "kallsyms")?,
            buildid_dir: path(kw, "buildid_dir")?,
            archive: crate::flamegraph::symbol_archive(kw)?,
            ignore_jitdump: !flag(kw, "jitdump", false)?,
            ..SymbolizeOptions::default()
        },
    })
}

/// A message of the writer to what it says as `PerfData.diagnostics` has them (without perf's
/// `warning: `, so that the reader's diagnostics met at open are not listed twice).
fn diagnostic(m: String) -> String {
    match m.strip_prefix("warning: ") {
        Some(rest) => rest.to_string(),
        None => m,
    }
}

/// A script run's error as a Python exception: the output (a file) as `OSError`, the rest as
/// [`error::analysis_to_py`] makes them (a bad option is a `ValueError`).
fn script_error(py: Python<'_>, e: perfdata_analysis::Error, path: Option<&Path>) -> PyErr {
    match e {
        perfdata_analysis::Error::Output { ref source, .. } => match source.raw_os_error() {
            Some(errno) => PyOSError::new_err((errno, e.to_string())),
            None => PyOSError::new_err(e.to_string()),
        },
        e => error::analysis_to_py(py, e, path),
    }
}

/// The summary as Python sees it.
fn summary_dict<'py>(py: Python<'py>, s: &ScriptSummary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("samples", s.samples)?;
    d.set_item("damaged", s.damaged)?;
    Ok(d)
}

/// `write_script(path, **options)`: the text into `path` (under a temporary name, renamed at the
/// end), without the GIL; the run's summary.
pub fn write_file<'py>(
    py: Python<'py>,
    file: &PerfFile<'static>,
    shared: &Arc<Shared>,
    path: &Path,
    opts: &ScriptOptions,
) -> PyResult<Bound<'py, PyDict>> {
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let done = py.detach(|| -> perfdata_analysis::Result<ScriptSummary> {
        let io = |source| perfdata_analysis::Error::Output { what: "the script output", source };
        let out = std::fs::File::create(&tmp).map_err(|e| perfdata_analysis::Error::Output {
            what: "the script output",
            source: std::io::Error::new(e.kind(), format!("{}: {e}", tmp.display())),
        })?;
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let run = write_script_with(file, opts, &mut out, &mut |m| shared.note([diagnostic(m)]))
            .and_then(|s| out.flush().map(|()| s).map_err(io))
            .and_then(|s| std::fs::rename(&tmp, path).map(|()| s).map_err(io));
        if run.is_err() {
            drop(out);
            let _ = std::fs::remove_file(&tmp);
        }
        run
    });
    let summary = done.map_err(|e| script_error(py, e, file.path()))?;
    summary_dict(py, &summary)
}

/// What the writer thread sends.
enum Msg {
    /// Some of the text (the writer's blocks, ~64 KiB).
    Chunk(Vec<u8>),
    /// A diagnostic, in its place in the text.
    Warn(String),
    /// The end of the run.
    Done(perfdata_analysis::Result<ScriptSummary>),
}

/// The writer thread's `Write`: each write is a chunk into the channel; a dropped iterator makes
/// it fail (BrokenPipe), which ends the run.
struct ChannelWriter {
    tx: SyncSender<Msg>,
    /// Bytes being sent or sent, not yet received.
    queued: Arc<AtomicUsize>,
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // Counted before it is sent, so that the receiver never subtracts it first.
        self.queued.fetch_add(buf.len(), Ordering::Relaxed);
        self.tx.send(Msg::Chunk(buf.to_vec())).map_err(|_| {
            self.queued.fetch_sub(buf.len(), Ordering::Relaxed);
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the script iterator was closed")
        })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct LineState {
    /// The writer's channel, until its end (or an error, or `close()`).
    rx: Option<Receiver<Msg>>,
    thread: Option<JoinHandle<()>>,
    /// Received text not yet yielded: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    queued: Arc<AtomicUsize>,
    shared: Arc<Shared>,
    path: Option<PathBuf>,
    summary: Option<ScriptSummary>,
    /// The file's damage policy, and whether the end of the text applied it.
    damage: Arc<Damage>,
    settled: bool,
}

impl LineState {
    /// Receive one message (without the GIL); false at the end.
    fn receive(&mut self, py: Python<'_>) -> PyResult<bool> {
        let Some(rx) = self.rx.as_mut() else { return Ok(false) };
        // Moved in as `&mut` (a Receiver is Send, not Sync).
        let msg = py.detach(move || rx.recv());
        match msg {
            Ok(Msg::Chunk(c)) => {
                self.queued.fetch_sub(c.len(), Ordering::Relaxed);
                if self.pos > 0 {
                    self.buf.drain(..self.pos);
                    self.pos = 0;
                }
                if self.buf.is_empty() {
                    self.buf = c;
                } else {
                    self.buf.extend_from_slice(&c);
                }
            }
            Ok(Msg::Warn(m)) => self.shared.note([diagnostic(m)]),
            Ok(Msg::Done(Ok(s))) => {
                self.summary = Some(s);
                self.finish(py);
            }
            Ok(Msg::Done(Err(e))) => {
                self.finish(py);
                self.buf.clear();
                self.pos = 0;
                return Err(script_error(py, e, self.path.as_deref()));
            }
            Err(_) => {
                self.finish(py);
                return Err(PyRuntimeError::new_err("the perf script writer thread stopped without finishing"));
            }
        }
        Ok(true)
    }

    /// Receive until there is text or the run ended (options are checked before any text).
    fn prime(&mut self, py: Python<'_>) -> PyResult<()> {
        while self.buf.len() == self.pos && self.receive(py)? {}
        Ok(())
    }

    /// Drop the channel (the writer stops at its next send) and wait for the thread.
    fn finish(&mut self, py: Python<'_>) {
        self.rx = None;
        if let Some(t) = self.thread.take() {
            // A panic in the writer was printed by the panic hook; nothing more to say here.
            let _ = py.detach(|| t.join());
        }
    }

    /// The next line, without its newline (the last one also when the text does not end with one).
    fn next_line(&mut self, py: Python<'_>) -> PyResult<Option<std::ops::Range<usize>>> {
        loop {
            let rest = self.buf.get(self.pos..).unwrap_or_default();
            if let Some(i) = rest.iter().position(|&b| b == b'\n') {
                let line = self.pos..self.pos + i;
                self.pos += i + 1;
                return Ok(Some(line));
            }
            if !self.receive(py)? {
                if self.pos < self.buf.len() {
                    let line = self.pos..self.buf.len();
                    self.pos = self.buf.len();
                    return Ok(Some(line));
                }
                return Ok(None);
            }
        }
    }
}

/// Start `write_script_with` on `file` in a thread of its own; the iterator over its lines (the
/// first block already received, so that a bad option raises here).
pub fn lines(
    py: Python<'_>,
    file: Arc<PerfFile<'static>>,
    shared: Arc<Shared>,
    damage: Arc<Damage>,
    opts: ScriptOptions,
) -> PyResult<ScriptIterator> {
    let (tx, rx) = sync_channel(CHANNEL_CHUNKS);
    let queued = Arc::new(AtomicUsize::new(0));
    let path = file.path().map(Path::to_path_buf);
    let mut out = ChannelWriter { tx: tx.clone(), queued: queued.clone() };
    let thread = std::thread::Builder::new()
        .name("perfdata-script".into())
        .spawn(move || {
            let warn_tx = tx.clone();
            let mut warn = |m: String| {
                let _ = warn_tx.send(Msg::Warn(m));
            };
            let done = write_script_with(&file, &opts, &mut out, &mut warn);
            // Stopped because the iterator went away: there is nobody to tell.
            let _ = tx.send(Msg::Done(done));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("starting the perf script writer thread: {e}")))?;
    let mut st = LineState {
        rx: Some(rx),
        thread: Some(thread),
        buf: Vec::new(),
        pos: 0,
        queued,
        shared,
        path,
        summary: None,
        damage,
        settled: false,
    };
    st.prime(py)?;
    Ok(ScriptIterator { state: Mutex::new(st) })
}

/// The lines ``perf script`` prints, as ``str`` without their newline, produced as they are
/// iterated by a writer thread at most a few 64 KiB blocks ahead (``PerfData.script()``).
///
/// Bytes that are not UTF-8 (perf copies tracepoint strings as recorded) are decoded with
/// ``errors="surrogateescape"``: ``line.encode("utf-8", "surrogateescape")`` gives perf's bytes back.
/// Dropping the iterator, or ``close()``, stops the writer. At the end of the text each new
/// problem of the file is said as a ``PerfDataWarning`` (``PerfDataError`` with
/// ``open(..., strict=True)``).
#[pyclass(module = "perfdata", name = "ScriptIterator", frozen)]
pub struct ScriptIterator {
    state: Mutex<LineState>,
}

impl ScriptIterator {
    fn state(&self) -> PyResult<std::sync::MutexGuard<'_, LineState>> {
        self.state
            .try_lock()
            .map_err(|_| PyRuntimeError::new_err("this script iterator is already running in another call"))
    }
}

#[pymethods]
impl ScriptIterator {
    /// The iterator itself.
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The next line (without its newline); reads the file up to it.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        let mut st = self.state()?;
        let Some(range) = st.next_line(py)? else {
            // The end of the text: the writer's reading is over, its problems are in the log.
            if !st.settled {
                st.settled = true;
                st.damage.settle(py)?;
            }
            return Ok(None);
        };
        let line = st.buf.get(range).unwrap_or_default();
        Ok(Some(match std::str::from_utf8(line) {
            Ok(s) => PyString::new(py, s),
            Err(_) => PyBytes::new(py, line).call_method1("decode", ("utf-8", "surrogateescape"))?.cast_into()?,
        }))
    }

    /// Stop the writer (waiting for it to notice, at its next block) and end the iteration: the
    /// lines not read yet are dropped. Dropping the iterator stops the writer too, without waiting.
    ///
    /// Example:
    ///     >>> lines = perfdata.open("perf.data").script()
    ///     >>> next(lines)
    ///     'sh 10335  1872.563561:     200000 cpu-clock: '
    ///     >>> lines.close()
    ///     >>> list(lines), lines.summary
    ///     ([], None)
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut st = self.state()?;
        st.finish(py);
        st.buf = Vec::new();
        st.pos = 0;
        Ok(())
    }

    /// Once the text is read to its end: ``{"samples": printed, "damaged": records skipped}``; else
    /// None.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.state()?.summary.as_ref().map(|s| summary_dict(py, s)).transpose()
    }

    /// Bytes of text held for the iteration: received and not yet yielded, plus those waiting in
    /// the channel (for the tests of the memory bound).
    #[getter]
    fn _buffered_bytes(&self) -> PyResult<usize> {
        let st = self.state()?;
        Ok(st.buf.len() - st.pos + st.queued.load(Ordering::Relaxed))
    }

    fn __repr__(&self) -> String {
        match self.state.try_lock() {
            Ok(st) => format!(
                "<perfdata.ScriptIterator {}>",
                if st.rx.is_some() || st.pos < st.buf.len() { "running" } else { "exhausted" }
            ),
            Err(_) => "<perfdata.ScriptIterator busy>".into(),
        }
    }
}

impl Drop for ScriptIterator {
    /// Dropped before the end of its text: what was read is said (nothing can be raised here).
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if !st.settled {
            st.settled = true;
            st.damage.dropped();
        }
    }
}
