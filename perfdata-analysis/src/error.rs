//! The crate's one error type: why an analysis, a drawing or an export could not run.
//!
//! Each variant says what kind of problem it is (the file could not be read, an event is missing,
//! an option is wrong, a file could not be written, …) and keeps its structured data (paths, the
//! predicate's offset, the tracepoints a recording has) for callers that pick their reaction by
//! it, as the Python bindings pick their exception class. The message is the variant's
//! [`Display`](std::fmt::Display); where a lower error caused it, [`std::error::Error::source`]
//! returns that error (the message already quotes its text).

use std::fmt;
use std::path::PathBuf;

/// Why an analysis or export could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The recording could not be read (at all, or a record that stops the analysis).
    Read(perfdata_core::Error),
    /// The recording lacks an event (or a field) the analysis needs; the text names it, e.g.
    /// "no block:block_rq_complete event in this file".
    Missing(String),
    /// No event of the recording is the tracepoint asked for: the tracepoint events it has
    /// (`sys:name`; empty when it has none, or no tracing data).
    NoSuchTracepoint(Vec<String>),
    /// An option's value is not one the analysis takes; the text names the option and why
    /// (e.g. a flame graph palette that does not exist).
    Options(String),
    /// A `WHERE` predicate does not parse (`query::predicate`, feature `dataset`).
    Where {
        /// The predicate's text.
        predicate: String,
        /// Byte offset of the problem in `predicate`.
        offset: usize,
        /// What is wrong there (`expected …, found …`, `unknown column …`).
        message: String,
    },
    /// A file or directory could not be created, read, written or renamed.
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Writing an output stream (the `perf script` text, the pprof profile's gzip stream) failed.
    Output {
        /// What was being written.
        what: &'static str,
        /// What failed.
        source: std::io::Error,
    },
    /// Drawing a flame graph failed.
    Render(std::io::Error),
    /// The distinct samples outgrew the pprof export's tables (16 GiB of keys).
    TooManySamples,
    /// Arrow rejected the columns (a bug).
    #[cfg(feature = "arrow")]
    Arrow(arrow_schema::ArrowError),
    /// The Parquet writer failed (`path`: the file, when known).
    #[cfg(feature = "parquet")]
    Parquet {
        /// The file.
        path: Option<PathBuf>,
        /// What failed.
        source: parquet::errors::ParquetError,
    },
    /// A column appeared after the table's first batch was written (it cannot be added to the file).
    ColumnAppeared {
        /// The table.
        table: String,
        /// The column.
        column: String,
    },
    /// The writing thread panicked (a bug).
    WriterPanicked,
    /// The worker threads could not be started.
    Pool(String),
    /// `path` is not a dataset's directory, or it has no `stacks` table.
    NotADataset {
        /// The directory.
        path: PathBuf,
        /// What is missing.
        what: String,
    },
    /// A dataset's part file is not Parquet, or not a `stacks` part.
    Part {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A dataset's parts count different things (`period` in some, `samples` in others).
    MixedWeights {
        /// A part weighted one way.
        first: (PathBuf, String),
        /// A part weighted the other way.
        second: (PathBuf, String),
    },
    /// A stack's weights add up past 2⁶⁴ − 1.
    Overflow(String),
    /// objdump ran but gave nothing to annotate; the text says what was run on what.
    Disassembly(String),
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The 1-based column (in characters) of a [`Error::Where`] problem (`None` for the others).
    pub fn where_column(&self) -> Option<usize> {
        match self {
            Error::Where { predicate, offset, .. } => {
                Some(predicate.get(..*offset).map_or(0, |s| s.chars().count()) + 1)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(e) => e.fmt(f),
            Error::Missing(what) | Error::Options(what) => f.write_str(what),
            Error::NoSuchTracepoint(names) if names.is_empty() => f.write_str("the recording has no tracepoint events"),
            Error::NoSuchTracepoint(names) => {
                write!(f, "no such tracepoint in the recording; it has {}", names.join(", "))
            }
            Error::Where { predicate, message, .. } => {
                let col = self.where_column().unwrap_or(1);
                write!(f, "WHERE predicate, column {col}: {message}\n  {predicate}\n  {:>col$}", "^")
            }
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Output { what, source } => write!(f, "writing {what}: {source}"),
            Error::Render(e) => write!(f, "flame graph rendering: {e}"),
            Error::TooManySamples => f.write_str("more distinct samples than the pprof export can hold"),
            #[cfg(feature = "arrow")]
            Error::Arrow(e) => write!(f, "building Arrow columns: {e}"),
            #[cfg(feature = "parquet")]
            Error::Parquet { path: Some(path), source } => write!(f, "writing {}: {source}", path.display()),
            #[cfg(feature = "parquet")]
            Error::Parquet { path: None, source } => source.fmt(f),
            Error::ColumnAppeared { table, column } => {
                write!(f, "table {table}: column {column} appeared after the first batch was written")
            }
            Error::WriterPanicked => f.write_str("the Parquet writing thread panicked"),
            Error::Pool(e) => write!(f, "starting the worker threads: {e}"),
            Error::NotADataset { path, what } | Error::Part { path, what } => write!(f, "{}: {what}", path.display()),
            Error::MixedWeights { first, second } => write!(
                f,
                "the stacks of {} weigh by {}, those of {} by {}: export them with the same --weight",
                first.0.display(),
                first.1,
                second.0.display(),
                second.1
            ),
            Error::Overflow(stack) => write!(f, "the weights of stack {stack:?} add up past 2^64-1"),
            Error::Disassembly(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(e) => Some(e),
            Error::Io { source, .. } => Some(source),
            Error::Output { source, .. } => Some(source),
            Error::Render(e) => Some(e),
            #[cfg(feature = "arrow")]
            Error::Arrow(e) => Some(e),
            #[cfg(feature = "parquet")]
            Error::Parquet { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<perfdata_core::Error> for Error {
    fn from(e: perfdata_core::Error) -> Self {
        Error::Read(e)
    }
}

#[cfg(feature = "arrow")]
impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::Arrow(e)
    }
}

/// [`Error::Missing`] for a recording without an event an analysis needs: which (`event`,
/// `sys:name`), why — the reading met damage (`damaged`: the event's records, or the tracing data
/// that names tracepoints, may be in the part lost), the recording has tracepoint events but no
/// tracing data to name them (`unnamed`), it has no tracepoint event at all, or not this one — and
/// how to record it (`how`, as it is to be printed: command lines in backquotes).
pub(crate) fn missing_event(
    file: &perfdata_core::PerfFile<'_>,
    event: &str,
    damaged: bool,
    unnamed: bool,
    how: &str,
) -> Error {
    use perfdata_core::attr::EventType;
    // Without tracepoint events, no tracing data only means there are none to name.
    let tracepoints = file.events().iter().any(|e| EventType::from_raw(e.attr.type_) == EventType::Tracepoint);
    let unnamed = unnamed && tracepoints;
    let why = match (damaged, unnamed, tracepoints) {
        (true, true, _) => {
            " can be named in this damaged file: its tracing data, which names the \
                            tracepoints, was lost with the damaged part (see the warnings)"
        }
        (true, false, _) => " read from this damaged file: its records may be in the part lost (see the warnings)",
        (false, true, _) => " can be named in this file: it has tracepoint events but no tracing data",
        (false, false, false) => " in this file (it recorded no tracepoint)",
        (false, false, true) => " in this file",
    };
    Error::Missing(format!("no {event} event{why}; record it with {how}"))
}

#[cfg(test)]
mod missing_tests {
    #[test]
    fn says_which_why_and_how() {
        let td = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/");
        let fp = perfdata_core::PerfFile::open(format!("{td}fp.data")).unwrap();
        let sched = perfdata_core::PerfFile::open(format!("{td}sched.data")).unwrap();
        let how = "`perf record -e block:* -a`";
        let e = super::missing_event(&sched, "block:block_rq_complete", false, false, how);
        assert_eq!(
            e.to_string(),
            "no block:block_rq_complete event in this file; record it with `perf record -e block:* -a`"
        );
        let e = super::missing_event(&fp, "block:block_rq_complete", false, false, how).to_string();
        assert!(e.contains(" in this file (it recorded no tracepoint); "), "{e}");
        let e = super::missing_event(&sched, "sched:sched_switch", true, true, "`perf sched record`").to_string();
        assert!(
            e.starts_with("no sched:sched_switch event can be named in this damaged file: its tracing data"),
            "{e}"
        );
    }
}
