//! Output of the commands that print row by row: stdout or a file, buffered, its first error
//! kept (rows are written from inside an analysis's callback) and reported at the end.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// A writer to stdout or a file that remembers its first error (rows are written from inside
/// the analysis's callback).
pub struct Out {
    w: Box<dyn Write>,
    err: Option<std::io::Error>,
}

impl Out {
    /// Output to `path`, or stdout.
    pub fn new(path: Option<&PathBuf>) -> std::io::Result<Out> {
        let w: Box<dyn Write> = match path {
            Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
            None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        };
        Ok(Out { w, err: None })
    }

    /// Write `s` (nothing more after an error).
    pub fn put(&mut self, s: &str) {
        if self.err.is_none() {
            if let Err(e) = self.w.write_all(s.as_bytes()) {
                self.err = Some(e);
            }
        }
    }

    /// Flush what is buffered (before a message on stderr); an error is kept for
    /// [`Out::finish`].
    pub fn flush(&mut self) {
        if self.err.is_none() {
            if let Err(e) = self.w.flush() {
                self.err = Some(e);
            }
        }
    }

    /// One JSON value and a newline.
    pub fn json(&mut self, v: &serde_json::Value) {
        let mut s = v.to_string();
        s.push('\n');
        self.put(&s);
    }

    /// Flush; the first error if any; then print the analysis's diagnostics as warnings.
    pub fn finish(mut self, diagnostics: &[String]) -> CliResult {
        if let Some(e) = self.err.take() {
            return Err(e.into());
        }
        self.w.flush()?;
        for d in diagnostics {
            crate::damage::warn(d.as_str());
        }
        Ok(ExitCode::SUCCESS)
    }

    /// Write `buf` out once it holds more than 64 KiB (rows appended to one buffer).
    pub fn spill(&mut self, buf: &mut String) {
        if buf.len() > 1 << 16 {
            self.put(buf);
            buf.clear();
        }
    }
}
