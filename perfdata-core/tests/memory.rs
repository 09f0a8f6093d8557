//! Memory stays bounded by the ordering window, not the file: time-ordered reading of files with no
//! round markers, measured with a counting global allocator.

use perfdata_core::attr::sample_type as st;
use perfdata_core::{Endian, EventAttr, Order, PerfFile, ReadOptions};

#[path = "common/counting.rs"]
mod counting;
use counting::{peak_during, SERIAL};

/// A perf.data file with one cpu-clock attr (IP|TID|TIME|CPU|PERIOD) and `n` samples written as
/// two interleaved per-CPU runs (as perf's ring buffers produce), and no FINISHED_ROUND at all.
fn synthetic(n: usize) -> Vec<u8> {
    synthetic_with(n, false)
}

/// [`synthetic`], the first sample's time far after all others when `straggler`.
fn synthetic_with(n: usize, straggler: bool) -> Vec<u8> {
    let e = Endian::Little;
    let attr = EventAttr {
        type_: 1,
        size: 128,
        sample_period: 1000,
        sample_type: st::IP | st::TID | st::TIME | st::CPU | st::PERIOD,
        flags: 1 << 18,
        ..Default::default()
    };
    let mut out = vec![0u8; 104];
    let attrs_off = out.len() as u64;
    attr.write(e, &mut out);
    e.put_u64(&mut out, 0);
    e.put_u64(&mut out, 0);
    let data_off = out.len() as u64;
    let chunk = 500;
    for c in 0..n / chunk {
        // Chunk c holds CPU (c % 2) samples; odd chunks overlap the previous one in time.
        for i in 0..chunk {
            let t = 1_000_000 + ((c / 2) * chunk + i) as u64 * 10 + (c % 2) as u64;
            let t = if straggler && c == 0 && i == 0 { 1 << 60 } else { t };
            e.put_u32(&mut out, 9);
            e.put_u16(&mut out, 2);
            e.put_u16(&mut out, 48);
            e.put_u64(&mut out, 0xffff_ffff_8100_0000u64 + i as u64);
            e.put_u32(&mut out, 42);
            e.put_u32(&mut out, 42);
            e.put_u64(&mut out, t);
            e.put_u32(&mut out, (c % 2) as u32);
            e.put_u32(&mut out, 0);
            e.put_u64(&mut out, 1000);
        }
    }
    let data_size = out.len() as u64 - data_off;
    let mut h = Vec::new();
    h.extend_from_slice(b"PERFILE2");
    for v in [104u64, 144, attrs_off, 144, data_off, data_size, 0, 0, 0, 0, 0, 0] {
        e.put_u64(&mut h, v);
    }
    out[..104].copy_from_slice(&h);
    out
}

fn peak_while_reading(data: &[u8], window: usize) -> (usize, u64) {
    let file = PerfFile::from_bytes(data).unwrap();
    let (peak, (n, sorted)) = peak_during(|| {
        let mut recs = file
            .records_with(ReadOptions { order: Order::Time, window_records: window, ..Default::default() })
            .unwrap();
        let (mut n, mut last, mut sorted) = (0usize, 0u64, true);
        while let Some(r) = recs.next_record() {
            let t = r.unwrap().time().unwrap();
            sorted &= t >= last;
            last = t;
            n += 1;
        }
        (n, sorted)
    });
    assert!(sorted, "the interleaved runs fit the window, so delivery is sorted");
    (peak, n as u64)
}

#[test]
fn time_order_memory_does_not_grow_with_the_file() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let small = synthetic(20_000);
    let large = synthetic(300_000);
    let (peak_small, n_small) = peak_while_reading(&small, 4096);
    let (peak_large, n_large) = peak_while_reading(&large, 4096);
    assert_eq!((n_small, n_large), (20_000, 300_000));
    // 4096 queued records of 32 bytes plus sort scratch: well under 1 MiB, whatever the file size.
    assert!(peak_large < 1 << 20, "peak heap {peak_large} bytes for a {} byte file", large.len());
    assert!(peak_large <= peak_small + (64 << 10), "peak grew with the file: {peak_small} -> {peak_large}");
}

/// Read with the ordered extraction, keeping each sample's time: (peak heap, values, the last value).
fn peak_while_extracting(data: &[u8], window: usize) -> (usize, u64, u64) {
    let file = PerfFile::from_bytes(data).unwrap();
    let (peak, (n, last)) = peak_during(|| {
        let opts = ReadOptions { window_records: window, ..Default::default() };
        let ordered = file.ordered(opts, |r: &perfdata_core::RecordRef<'_>| r.time()).unwrap();
        let (mut n, mut last) = (0u64, 0u64);
        for t in ordered {
            let t = t.unwrap();
            assert!(t >= last, "delivered out of order: {t} after {last}");
            last = t;
            n += 1;
        }
        (n, last)
    });
    (peak, n, last)
}

#[test]
fn ordered_extraction_memory_does_not_grow_with_the_file_even_with_a_straggler() {
    // Without round markers the window releases the oldest half; a value far ahead of the others
    // waits to the end while everything after it is delivered: its slot must not keep the slots of
    // those in memory.
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for straggler in [false, true] {
        let small = synthetic_with(20_000, straggler);
        let large = synthetic_with(300_000, straggler);
        let (peak_small, n_small, last_small) = peak_while_extracting(&small, 4096);
        let (peak_large, n_large, last_large) = peak_while_extracting(&large, 4096);
        assert_eq!((n_small, n_large), (20_000, 300_000));
        if straggler {
            assert_eq!((last_small, last_large), (1 << 60, 1 << 60), "the straggler comes last");
        }
        assert!(peak_large < 1 << 20, "peak heap {peak_large} bytes for a {} byte file", large.len());
        assert!(peak_large <= peak_small + (64 << 10), "peak grew with the file: {peak_small} -> {peak_large}");
    }
}

/// Times of every value, kept in the extractor for a parallel read.
struct Times;

impl perfdata_core::Extract<u64> for Times {
    fn extract(&mut self, r: &perfdata_core::RecordRef<'_>) -> Option<u64> {
        r.time()
    }
}

impl perfdata_core::ParExtract<u64> for Times {
    type Part = ();
    fn fork(&self) -> Self {
        Times
    }
    fn take_part(&mut self) {}
    fn join_part(&mut self, _: ()) {}
}

#[test]
fn parallel_extraction_memory_does_not_grow_with_a_file_without_round_markers() {
    // No round marker: no chunk but the first can start, and the first would take the whole file's
    // values before handing them over; it gives up after a few chunks' bytes instead and the
    // calling thread reads on with its bounded window.
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let par = perfdata_core::Parallel { threads: 2, chunk_bytes: 64 << 10, min_bytes: 0, max_chunk_bytes: 256 << 10 };
    let peak = |data: &[u8]| {
        let file = PerfFile::from_bytes(data).unwrap();
        let opts = ReadOptions { window_records: 4096, ..Default::default() };
        let (peak, (n, parallel)) = peak_during(|| {
            file.ordered_par(opts, par, Times, |ordered| {
                let (mut n, mut last) = (0usize, 0u64);
                for t in ordered.by_ref() {
                    let t = t.unwrap();
                    assert!(t >= last, "delivered out of order: {t} after {last}");
                    (n, last) = (n + 1, t);
                }
                (n, ordered.is_parallel())
            })
            .unwrap()
        });
        (peak, n, parallel)
    };
    let (peak_small, n_small, _) = peak(&synthetic(20_000));
    let (peak_large, n_large, parallel) = peak(&synthetic(300_000));
    assert_eq!((n_small, n_large), (20_000, 300_000));
    assert!(peak_large < 2 << 20, "peak heap {peak_large} bytes");
    // The worker holds at most one chunk's values (`max_chunk_bytes` of records) before it gives
    // up; whether they are still alive at the calling thread's peak depends on the scheduler, so
    // the two peaks may differ by up to that much. Growing with the file would add the 280,000
    // further u64 values, 2.2 MB, ten times more.
    let slack = par.max_chunk_bytes;
    assert!(peak_large <= peak_small + slack, "peak grew with the file: {peak_small} -> {peak_large}");
    assert!(!parallel, "a file without round markers cannot be read in chunks");
}
