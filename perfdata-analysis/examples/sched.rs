//! `cargo run --example sched -- latency|map|timehist FILE`: the scheduler analyses' text
//! (perf 6.1 semantics) of a file, as `perf sched` prints it.
use perfdata_analysis::sched::{latency, map, timehist, Compat};
use perfdata_core::PerfFile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(what), Some(path)) = (args.get(1), args.get(2)) else {
        return Err("usage: sched latency|map|timehist FILE".into());
    };
    let file = PerfFile::open(path)?;
    let text = match what.as_str() {
        "latency" => {
            let o = latency::LatencyOptions { compat: Compat::Perf61, ..Default::default() };
            latency::sched_latency(&file, &o)?.text()
        }
        "map" => map::sched_map_text(&file, &map::MapOptions::default())?.0,
        _ => {
            let o = timehist::TimehistOptions { compat: Compat::Perf61, ..Default::default() };
            timehist::sched_timehist_text(&file, &o)?.0
        }
    };
    print!("{text}");
    Ok(())
}
