//! Latency analyses: block I/O latency ([`block`]), wakeup (run-queue) latency ([`wakeup`]) and
//! off-CPU time ([`offcpu`]), with the histograms of the reference tools ([`hist`]: bcc's log2
//! layout, perf-tools iolatency's, linear, percentiles) and latency heatmaps ([`heatmap`]).
//!
//! Every analysis streams the records of a file in time order and reads tracepoint fields by name,
//! resolved once per event from the recording's own formats; memory is bounded by the number of
//! in-flight items (I/Os, runnable tasks, sleeping tasks), not by the number of events.
//! `../shared/reference/analysis-semantics.md` §3–4 has the rules these follow.
//!
//! ```no_run
//! use perfdata_analysis::latency::{block, hist};
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let ios = block::block_latency(&file, &block::BlockOptions::default())?;
//! let mut h = hist::Log2Hist::new();
//! for io in &ios.ios {
//!     h.add(io.latency_ns / 1000);
//! }
//! print!("{}", h.bcc_text("usecs"));
//! # Ok::<(), perfdata_analysis::latency::Error>(())
//! ```

pub mod block;
pub mod heatmap;
pub mod hist;
pub mod offcpu;
pub(crate) mod tp;
pub mod wakeup;

/// Why a latency analysis could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The recording lacks an event (or a field) the analysis needs; the text names it, e.g.
    /// "no block:block_rq_complete event in this file".
    Missing(String),
    /// The file could not be read.
    Read(perfdata_core::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Missing(what) => f.write_str(what),
            Error::Read(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Missing(_) => None,
            Error::Read(e) => Some(e),
        }
    }
}

impl From<perfdata_core::Error> for Error {
    fn from(e: perfdata_core::Error) -> Self {
        Error::Read(e)
    }
}

/// A short string kept inline (a task's `comm`, a request's `rwbs`): at most 16 bytes, no
/// allocation, `Copy`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShortStr {
    buf: [u8; 16],
    len: u8,
}

impl ShortStr {
    /// The bytes up to the first NUL (at most 16).
    pub fn new(bytes: &[u8]) -> ShortStr {
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        let mut buf = [0u8; 16];
        let len = bytes.len().min(16);
        for (d, s) in buf.iter_mut().zip(bytes) {
            *d = *s;
        }
        ShortStr { buf, len: len as u8 }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// The text (bytes that are not UTF-8 replaced).
    pub fn to_str_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.as_bytes())
    }
}

impl std::fmt::Display for ShortStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.to_str_lossy())
    }
}

impl std::fmt::Debug for ShortStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_str_lossy(), f)
    }
}
