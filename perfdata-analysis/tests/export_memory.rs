//! The Chrome trace and speedscope exports stream: their peak heap does not grow with the number
//! of samples (measured with a counting global allocator on synthetic files of 20,000 and
//! 300,000 samples), only with what is live — threads, distinct stacks, the reader's window and,
//! for speedscope, the events held before they are spilled to the temporary file.

use perfdata_analysis::export::chrome::{write_chrome_trace, ChromeOptions};
use perfdata_analysis::export::speedscope::{write_speedscope, SpeedscopeOptions};
use perfdata_core::attr::sample_type as st;
use perfdata_core::{Endian, EventAttr, PerfFile};
#[path = "../../perfdata-core/tests/common/counting.rs"]
mod counting;
use counting::{peak_during as peak, SERIAL};

/// A perf.data file with one cpu-clock attr (IP|TID|TIME|CPU|PERIOD|CALLCHAIN) and `n` user
/// samples of 4 threads of one process, their callchains 1 to 7 frames deep (each sample's
/// stack differs from its thread's previous one), written as two interleaved per-CPU runs with
/// a FINISHED_ROUND after each pair, as perf writes them.
fn synthetic(n: usize) -> Vec<u8> {
    let e = Endian::Little;
    let attr = EventAttr {
        type_: 1,
        size: 128,
        sample_period: 1000,
        sample_type: st::IP | st::TID | st::TIME | st::CPU | st::PERIOD | st::CALLCHAIN,
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
        for i in 0..chunk {
            let k = (c / 2) * chunk + i;
            let t = 1_000_000 + k as u64 * 10 + (c % 2) as u64;
            let depth = 1 + (k * 3 + c) % 7;
            e.put_u32(&mut out, 9);
            e.put_u16(&mut out, 2);
            e.put_u16(&mut out, (56 + 8 * depth) as u16);
            e.put_u64(&mut out, 0x40_1000 + depth as u64);
            e.put_u32(&mut out, 100);
            e.put_u32(&mut out, 100 + (k % 4) as u32);
            e.put_u64(&mut out, t);
            e.put_u32(&mut out, (c % 2) as u32);
            e.put_u32(&mut out, 0);
            e.put_u64(&mut out, 1000);
            e.put_u64(&mut out, depth as u64);
            for d in 0..depth {
                e.put_u64(&mut out, 0x40_1000 + 16 * d as u64);
            }
        }
        if c % 2 == 1 {
            // PERF_RECORD_FINISHED_ROUND.
            e.put_u32(&mut out, 68);
            e.put_u16(&mut out, 0);
            e.put_u16(&mut out, 8);
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

/// Counts what is written, keeps nothing.
#[derive(Default)]
struct Count(u64);

impl std::io::Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn chrome_trace_memory_does_not_grow_with_the_file() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut peaks = Vec::new();
    for n in [20_000, 300_000] {
        let data = synthetic(n);
        let file = PerfFile::from_bytes(&data).unwrap();
        let (p, (summary, written)) = peak(|| {
            let mut out = Count::default();
            let s = write_chrome_trace(&file, &ChromeOptions::default(), &mut out).unwrap();
            (s, out.0)
        });
        assert_eq!(summary.samples, n as u64);
        // Per thread (its root frame) 7 distinct stacks, each one frame deeper than the other.
        assert_eq!(summary.stack_frames, 4 * 8, "{summary:?}");
        assert!(written > 60 * n as u64, "{written} bytes for {n} samples");
        peaks.push((p, written));
    }
    let ((small, _), (large, written)) = (peaks[0], peaks[1]);
    eprintln!("chrome: peak heap {small} / {large} bytes");
    // The old exporter held every event as a serde_json Value (about 1 KB each): 300 MB here.
    assert!(large < 4 << 20, "peak heap {large} bytes for {written} bytes written");
    assert!(large <= small + (128 << 10), "peak grew with the file: {small} -> {large}");
}

#[test]
fn speedscope_memory_does_not_grow_with_the_file() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut peaks = Vec::new();
    for n in [20_000, 300_000] {
        let data = synthetic(n);
        let file = PerfFile::from_bytes(&data).unwrap();
        let opts = SpeedscopeOptions { name: "synthetic".into(), memory: 64 << 10, ..Default::default() };
        let (p, (summary, written)) = peak(|| {
            let mut out = Count::default();
            let s = write_speedscope(&file, &opts, &mut out).unwrap();
            (s, out.0)
        });
        assert_eq!((summary.samples, summary.profiles), (n as u64, 4), "{summary:?}");
        assert!(summary.spilled > 0, "{summary:?}");
        peaks.push((p, written));
    }
    let ((small, _), (large, written)) = (peaks[0], peaks[1]);
    eprintln!("speedscope: peak heap {small} / {large} bytes");
    assert!(large < 4 << 20, "peak heap {large} bytes for {written} bytes written");
    // The events held before a spill (64 KiB) and one chunk read back bound the buffers; what
    // grows is each profile's list of chunks in the temporary file (16 bytes per spill).
    assert!(large <= small + (128 << 10), "peak grew with the file: {small} -> {large}");
}
