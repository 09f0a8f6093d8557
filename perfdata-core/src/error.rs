//! The one error type of the reader: every variant says where (byte offset), in what (record type or
//! structure) and what was expected.

use std::fmt;

/// Where in the input something was found: a byte offset in the file, or, for records that came out of
/// a `PERF_RECORD_COMPRESSED` payload, the offset of the carrying record plus the index of the record
/// inside its decompressed stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// Byte offset in the input file (or stream) of the record, or of the compressed record carrying it.
    pub offset: u64,
    /// For decompressed records: index of this record among the records decompressed from the
    /// carrying record (0-based). `None` for records read directly from the file.
    pub index: Option<u32>,
    /// For directory-format data (`perf record --threads`): which file (0 = `data`, n+1 = `data.n`).
    pub file: u32,
}

impl Position {
    /// A position directly in the input at `offset`.
    pub const fn at(offset: u64) -> Self {
        Position { offset, index: None, file: 0 }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file != 0 {
            write!(f, "data.{}:", self.file - 1)?;
        }
        write!(f, "{:#x}", self.offset)?;
        if let Some(i) = self.index {
            write!(f, "+decompressed[{i}]")?;
        }
        Ok(())
    }
}

/// Errors reading perf.data. Every variant carries the byte offset and what was being read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Input ended before a structure was complete.
    #[error("truncated input at {pos}: reading {what}, needed {needed} bytes, {available} available")]
    Truncated {
        /// Where the structure starts.
        pos: Position,
        /// What was being read (e.g. "SAMPLE callchain", "perf_file_header").
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// A value that makes the structure impossible to read.
    #[error("malformed {what} at {pos}: {detail}")]
    Malformed {
        /// Where the structure starts.
        pos: Position,
        /// What was being read.
        what: &'static str,
        /// What was wrong, with the offending value.
        detail: String,
    },
    /// The input is not perf.data at all.
    #[error("not a perf.data file: {0}")]
    NotPerfData(String),
    /// A format or request this crate does not read (e.g. a legacy `PERFFILE` header whose
    /// `attr_size` does not tell its byte order, which perf refuses too).
    #[error("unsupported perf.data format: {0}")]
    Unsupported(String),
    /// A record whose type is known and well-framed, but whose body does not parse.
    #[error("bad {record} record at {pos}: {source}")]
    Record {
        /// Where the record starts.
        pos: Position,
        /// perf's name for the record type (e.g. "SAMPLE").
        record: &'static str,
        /// The underlying error.
        #[source]
        source: Box<Error>,
    },
    /// zstd decompression failed.
    #[error("zstd decompression failed at {pos}: {detail}")]
    Decompress {
        /// The COMPRESSED record.
        pos: Position,
        /// The decoder's message.
        detail: String,
    },
    /// Reading the underlying file or stream failed.
    #[error("I/O error reading {what}: {source}")]
    Io {
        /// What was being read.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The byte position this error refers to, when it has one.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Truncated { pos, .. }
            | Error::Malformed { pos, .. }
            | Error::Record { pos, .. }
            | Error::Decompress { pos, .. } => Some(*pos),
            _ => None,
        }
    }

    /// perf's name of the record type being read when the error happened, if any.
    pub fn record_type(&self) -> Option<&'static str> {
        match self {
            Error::Record { record, .. } => Some(record),
            _ => None,
        }
    }

    pub(crate) fn in_record(self, pos: Position, record: &'static str) -> Error {
        match self {
            e @ Error::Record { .. } => e,
            e => Error::Record { pos, record, source: Box::new(e) },
        }
    }

    pub(crate) fn malformed(pos: Position, what: &'static str, detail: impl Into<String>) -> Error {
        Error::Malformed { pos, what, detail: detail.into() }
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
