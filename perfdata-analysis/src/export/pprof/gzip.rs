//! One gzip member compressed on several threads, as pigz makes it: the data comes in segments,
//! each segment is deflated on its own (no back-reference into the segment before) and ends in
//! a sync flush (a byte-aligned, non-final block), so the compressed segments laid one after the
//! other are one deflate stream; an empty final block, the CRC-32 (combined from the segments')
//! and the length close it. Any gzip reader reads it (it is one member, not several). The cost:
//! a segment's first bytes cannot refer to the one before (0.1 % larger with 512 KiB segments).

use flate2::{Compress, Compression, Crc, FlushCompress};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

/// Threads that compress.
const WORKERS: usize = 2;

/// gzip's header: deflate, no flags, no time, "fastest" (as flate2 writes it for level 1), no OS.
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255];

/// An empty final block (fixed Huffman codes: BFINAL 1, BTYPE 01, end-of-block 0000000).
const LAST_BLOCK: [u8; 2] = [0x03, 0x00];

/// Where the data to gzip goes, a segment at a time ([`gzip_parallel`]).
pub(super) struct Segments {
    tx: SyncSender<(usize, Vec<u8>)>,
    next: usize,
}

impl Segments {
    /// Send the next segment (a few hundred KiB to a few MiB: the unit of parallelism). The
    /// compressing threads take every segment until the producer is done, also after an error
    /// (which [`gzip_parallel`] then returns); `Err` only if none is left to take them.
    pub(super) fn send(&mut self, segment: Vec<u8>) -> Result<(), std::sync::mpsc::SendError<Vec<u8>>> {
        let i = self.next;
        self.next += 1;
        self.tx.send((i, segment)).map_err(|e| std::sync::mpsc::SendError(e.0 .1))
    }
}

/// Gzip what `produce` sends, at gzip's fastest level (as Go's runtime/pprof writes its
/// profiles; level 6 made files a quarter smaller and took twice as long) on [`WORKERS`]
/// threads while `produce` runs on this one. The data ends when `produce` drops its
/// [`Segments`]: it may go on with other work (freeing what it encoded from) while the last
/// segments compress.
pub(super) fn gzip_parallel<F>(produce: F) -> std::io::Result<Vec<u8>>
where
    F: FnOnce(Segments),
{
    let (tx, rx) = sync_channel::<(usize, Vec<u8>)>(2 * WORKERS);
    let queue = Mutex::new(rx);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS).map(|_| scope.spawn(|| compress_segments(&queue))).collect();
        produce(Segments { tx, next: 0 });
        // Every worker joined before an error is returned (not left to the scope, which waits
        // for their closures but not for the threads to be gone).
        let joined: Vec<_> = workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err(std::io::Error::other("a gzip thread panicked"))))
            .collect();
        let mut parts: Vec<(usize, Vec<u8>, Crc)> = Vec::new();
        for w in joined {
            parts.extend(w?);
        }
        parts.sort_unstable_by_key(|p| p.0);
        let compressed: usize = parts.iter().map(|p| p.1.len()).sum();
        let mut out = Vec::with_capacity(HEADER.len() + compressed + LAST_BLOCK.len() + 8);
        out.extend_from_slice(&HEADER);
        let mut crc = Crc::new();
        for (_, bytes, part) in &parts {
            out.extend_from_slice(bytes);
            crc.combine(part);
        }
        out.extend_from_slice(&LAST_BLOCK);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        // ISIZE: the length modulo 2^32 (what `Crc::amount` counts).
        out.extend_from_slice(&crc.amount().to_le_bytes());
        Ok(out)
    })
}

/// Deflate segments from `queue` until it closes: (index, deflated bytes, CRC) each. After an
/// error the rest of the queue is drained unread (so the producer never blocks on a queue no
/// thread empties) and the error returned.
fn compress_segments(queue: &Mutex<Receiver<(usize, Vec<u8>)>>) -> std::io::Result<Vec<(usize, Vec<u8>, Crc)>> {
    let mut done = Vec::new();
    let mut failed: Option<std::io::Error> = None;
    let mut c = Compress::new(Compression::fast(), false);
    loop {
        // A lock poisoned by a panicking worker still guards a usable receiver: drain on.
        let next = queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
        let Ok((i, segment)) = next else { break };
        if failed.is_some() {
            continue;
        }
        let mut crc = Crc::new();
        crc.update(&segment);
        c.reset();
        match deflate_segment(&mut c, &segment) {
            Ok(bytes) => done.push((i, bytes, crc)),
            Err(e) => failed = Some(e),
        }
    }
    failed.map_or(Ok(done), Err)
}

/// Raw deflate of `data` by `c` (fresh), ending in a sync flush: byte-aligned and not final.
fn deflate_segment(c: &mut Compress, data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(data.len() / 2 + 64);
    loop {
        let at = usize::try_from(c.total_in()).unwrap_or(usize::MAX);
        let input = data.get(at..).unwrap_or(&[]);
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        c.compress_vec(input, &mut out, FlushCompress::Sync).map_err(std::io::Error::other)?;
        // zlib's rule: the flush is complete when input is used up and output room is left.
        if usize::try_from(c.total_in()).ok() == Some(data.len()) && out.len() < out.capacity() {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        // One member: a reader of single members reads it all.
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn segments_make_one_member() {
        // Compressible and incompressible parts, an empty segment, segments of many sizes.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut noise = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        };
        let segments: Vec<Vec<u8>> =
            vec![b"profile ".repeat(100_000), Vec::new(), noise(300_000), vec![0; 1], noise(7), b"abc".repeat(1 << 18)];
        let all: Vec<u8> = segments.concat();
        let gz = super::gzip_parallel(|mut out| {
            for s in &segments {
                out.send(s.clone()).unwrap();
            }
        })
        .unwrap();
        assert_eq!(gunzip(&gz), all);
        // The multi-member reader finds one member: nothing after it.
        let mut d = flate2::read::MultiGzDecoder::new(&gz[..]);
        let mut out = Vec::new();
        d.read_to_end(&mut out).unwrap();
        assert_eq!(out, all);
        // Nothing sent: the empty stream.
        assert_eq!(gunzip(&super::gzip_parallel(|_| {}).unwrap()), b"");
    }
}
