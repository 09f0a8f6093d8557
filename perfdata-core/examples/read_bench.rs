//! Read a file the ways the benchmarks measure: `frames` (framing only), `decode` (every record
//! decoded in file order, sample fields touched) and `time` (the same in perf's time order).
//!
//! `cargo run --release --example read_bench -- decode perf.data`
use perfdata_core::{Order, PerfFile, RecordKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().ok_or("usage: read_bench frames|decode|time FILE")?;
    let path = args.next().ok_or("usage: read_bench frames|decode|time FILE")?;
    let file = PerfFile::open(&path)?;
    let (mut records, mut samples, mut frames) = (0u64, 0u64, 0u64);
    match mode.as_str() {
        "frames" => {
            let mut f = file.frames()?;
            while let Some(fr) = f.next_frame() {
                let fr = fr?;
                records += 1;
                samples += u64::from(fr.header.type_ == 9);
            }
        }
        "decode" | "time" => {
            let order = if mode == "time" { Order::Time } else { Order::File };
            let mut opts = perfdata_core::ReadOptions { order, ..Default::default() };
            if let Some(w) = std::env::var("WINDOW").ok().and_then(|w| w.parse().ok()) {
                opts.window_records = w;
            }
            let mut recs = file.records_with(opts)?;
            while let Some(r) = recs.next_record() {
                let r = r?;
                records += 1;
                if let RecordKind::Sample(s) = &r.kind {
                    samples += 1;
                    frames += s.callchain().map_or(0, |c| c.len() as u64);
                }
            }
        }
        m => return Err(format!("unknown mode {m}").into()),
    }
    println!("records {records} samples {samples} callchain_entries {frames}");
    if let Ok(s) = std::fs::read_to_string("/proc/self/status") {
        for l in s.lines().filter(|l| l.starts_with("VmHWM") || l.starts_with("RssAnon") || l.starts_with("RssFile")) {
            eprintln!("{l}");
        }
    }
    Ok(())
}
