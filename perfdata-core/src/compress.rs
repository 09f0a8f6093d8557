//! PERF_RECORD_COMPRESSED / COMPRESSED2: one zstd stream per data stream, fed record by record and
//! never finished (reference §4.4).

use crate::error::{Error, Position, Result};

/// Default cap on bytes one compressed record may expand to when the file does not say (the
/// COMPRESSED feature's `mmap_len` is the real bound perf uses).
pub const DEFAULT_MAX_DECOMPRESSED: usize = 16 << 20;

/// A streaming zstd decoder that appends each compressed payload's output to a buffer.
pub(crate) struct Decompressor {
    #[cfg(feature = "zstd")]
    dec: zstd::stream::raw::Decoder<'static>,
    /// Upper bound of bytes one payload may produce.
    pub max_output: usize,
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor").field("max_output", &self.max_output).finish()
    }
}

impl Decompressor {
    /// A decoder allowing up to `max_output` bytes per payload.
    #[cfg(not(feature = "zstd"))]
    pub(crate) fn new(_max_output: usize) -> Result<Self> {
        Err(Error::Unsupported(
            "compressed records (perf record -z): perfdata-core was built without its `zstd` feature".into(),
        ))
    }

    /// A decoder allowing up to `max_output` bytes per payload.
    #[cfg(feature = "zstd")]
    pub(crate) fn new(max_output: usize) -> Result<Self> {
        let dec = zstd::stream::raw::Decoder::new()
            .map_err(|e| Error::Decompress { pos: Position::default(), detail: e.to_string() })?;
        Ok(Decompressor { dec, max_output })
    }

    /// Decompress `payload`, appending to `out`. Stops with an error when the output would exceed the
    /// cap (a decompression bomb or a corrupt stream).
    #[cfg(not(feature = "zstd"))]
    pub(crate) fn feed(&mut self, _payload: &[u8], _out: &mut Vec<u8>, pos: Position) -> Result<()> {
        Err(Error::Decompress { pos, detail: "built without the zstd feature".into() })
    }

    /// Decompress `payload`, appending to `out`. Stops with an error when the output would exceed the
    /// cap (a decompression bomb or a corrupt stream).
    #[cfg(feature = "zstd")]
    pub(crate) fn feed(&mut self, payload: &[u8], out: &mut Vec<u8>, pos: Position) -> Result<()> {
        use zstd::stream::raw::{InBuffer, Operation, OutBuffer};
        let mut input = InBuffer::around(payload);
        let start = out.len();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let mut output = OutBuffer::around(&mut chunk[..]);
            self.dec.run(&mut input, &mut output).map_err(|e| Error::Decompress { pos, detail: e.to_string() })?;
            let produced = output.pos();
            if out.len() - start + produced > self.max_output {
                return Err(Error::Decompress {
                    pos,
                    detail: format!("payload expands beyond {} bytes (the file's per-record bound)", self.max_output),
                });
            }
            out.extend_from_slice(chunk.get(..produced).unwrap_or(&[]));
            // Done when all input is consumed and the decoder did not fill the buffer (nothing pending).
            if input.pos() >= payload.len() && produced < chunk.len() {
                return Ok(());
            }
            if produced == 0 && input.pos() >= payload.len() {
                return Ok(());
            }
        }
    }
}
