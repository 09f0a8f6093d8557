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

/// Why a latency analysis could not run: the crate's [`Error`] (mostly
/// [`Error::Missing`] and [`Error::Read`]).
pub use crate::Error;

/// A short string kept inline (a task's `comm`, a request's `rwbs`): at most 16 bytes, no
/// allocation, `Copy`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShortStr {
    buf: [u8; 16],
    len: u8,
}

impl ShortStr {
    /// No bytes.
    pub const EMPTY: ShortStr = ShortStr { buf: [0; 16], len: 0 };

    /// The bytes up to the first NUL (at most 16).
    #[inline]
    pub fn new(bytes: &[u8]) -> ShortStr {
        let mut buf = [0u8; 16];
        match bytes.first_chunk::<16>() {
            Some(b) => buf = *b,
            None => {
                let n = bytes.len().min(16);
                if let (Some(d), Some(s)) = (buf.get_mut(..n), bytes.get(..n)) {
                    d.copy_from_slice(s);
                }
            }
        }
        // The first zero byte of the 16 (the padding, when there are fewer): the lowest byte the
        // classic has-zero test flags is exact (borrows only ever flag bytes above a zero).
        const ONES: u128 = u128::MAX / 255;
        let v = u128::from_le_bytes(buf);
        let zeros = v.wrapping_sub(ONES) & !v & (ONES << 7);
        let len = (zeros.trailing_zeros() / 8) as usize;
        let keep = if len >= 16 { u128::MAX } else { (1u128 << (len * 8)) - 1 };
        ShortStr { buf: (v & keep).to_le_bytes(), len: len as u8 }
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

#[cfg(test)]
mod tests {
    use super::ShortStr;

    /// What `ShortStr::new` must equal: the bytes before the first NUL, at most 16, the rest zero.
    fn reference(bytes: &[u8]) -> ([u8; 16], usize) {
        let text = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        let n = text.len().min(16);
        let mut buf = [0u8; 16];
        buf[..n].copy_from_slice(&text[..n]);
        (buf, n)
    }

    #[test]
    fn short_str_stops_at_the_first_nul_of_at_most_16_bytes() {
        let mut cases: Vec<Vec<u8>> = vec![
            vec![],
            b"dd".to_vec(),
            b"abc\0def".to_vec(),
            b"0123456789abcdef".to_vec(),
            b"0123456789abcdefXYZ".to_vec(),
            b"0123456789abcde\0Z".to_vec(),
            vec![0; 20],
        ];
        // Bytes that make the has-zero test borrow: 0x01 and 0x80 around a zero, at every position.
        for at in 0..18 {
            for fill in [0x01u8, 0x80, 0xff, 0x7f] {
                let mut v = vec![fill; 18];
                if let Some(b) = v.get_mut(at) {
                    *b = 0;
                }
                cases.push(v.clone());
                cases.push(v.get(..at.min(18)).unwrap_or(&[]).to_vec());
            }
        }
        for c in &cases {
            let s = ShortStr::new(c);
            let (buf, n) = reference(c);
            assert_eq!((s.buf, usize::from(s.len)), (buf, n), "{c:?}");
            assert_eq!(s.as_bytes(), &buf[..n]);
        }
    }
}
