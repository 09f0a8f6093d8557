//! Criterion benchmarks of the reader on committed recordings: framing only, full decode in file
//! order, time order, and a compressed file. `cargo bench -p perfdata-core`. For the large-file
//! comparison against perf and linux-perf-data see `bench/compare.sh`.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use perfdata_core::{Order, PerfFile, RecordKind};
use std::path::Path;

fn load(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)).expect("testdata file")
}

fn decode_all(data: &[u8], order: Order) -> u64 {
    let file = PerfFile::from_bytes(data).expect("valid file");
    let mut recs = file.records(order).expect("records");
    let mut n = 0u64;
    while let Some(r) = recs.next_record() {
        if let Ok(r) = r {
            n += match &r.kind {
                RecordKind::Sample(s) => s.callchain().map_or(1, |c| c.len() as u64),
                _ => 1,
            };
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    for name in ["sysw.data", "fp.data", "comp.data", "pipe-z.data", "sched.data"] {
        let data = load(name);
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("frames", |b| {
            b.iter(|| {
                let file = PerfFile::from_bytes(&data).expect("valid file");
                let mut f = file.frames().expect("frames");
                let mut n = 0u64;
                while let Some(Ok(fr)) = f.next_frame() {
                    n += u64::from(fr.header.size);
                }
                n
            })
        });
        g.bench_function("decode", |b| b.iter(|| decode_all(&data, Order::File)));
        g.bench_function("time_order", |b| b.iter(|| decode_all(&data, Order::Time)));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
