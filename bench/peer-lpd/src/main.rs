//! Full parse of a perf.data file with linux-perf-data 0.13: every record parsed, samples counted.
use linux_perf_data::{PerfFileReader, PerfFileRecord};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: peer-lpd FILE")?;
    let file = std::fs::File::open(path)?;
    let reader = std::io::BufReader::new(file);
    let PerfFileReader { mut perf_file, mut record_iter } = PerfFileReader::parse_file(reader)?;
    let (mut records, mut samples, mut frames) = (0u64, 0u64, 0u64);
    while let Some(record) = record_iter.next_record(&mut perf_file)? {
        records += 1;
        if let PerfFileRecord::EventRecord { record, .. } = record {
            if let Ok(linux_perf_data::linux_perf_event_reader::EventRecord::Sample(s)) = record.parse() {
                samples += 1;
                frames += s.callchain.map_or(0, |c| c.len() as u64);
            }
        }
    }
    println!("records {records} samples {samples} callchain_entries {frames}");
    Ok(())
}
