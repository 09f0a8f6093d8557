//! Every input the fuzzers ever broke (fuzz/regressions/) replayed through the paths the fuzz targets
//! drive: whole-file reading in both orders, every feature parser and converter, and the writer.

mod common;

use perfdata_core::reader::Reader;
use perfdata_core::write::{conv_feature, write_file};
use perfdata_core::{Endian, Order, PerfFile, Position};

#[test]
fn fuzz_regressions_read_cleanly() {
    let dir = common::repo().join("fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        n += 1;
        if let Ok(f) = PerfFile::from_bytes(&data) {
            for order in [Order::File, Order::Time] {
                let mut recs = f.records(order).unwrap();
                while let Some(r) = recs.next_record() {
                    if let Ok(r) = r {
                        let _ = perfdata_core::json::record_json(&r);
                    }
                }
            }
            let _ = write_file(&f, f.endian().swapped());
        }
        // As the `features` target uses them: the first byte picks a feature, the rest is its payload.
        if let Some((&bit, payload)) = data.split_first() {
            for e in [Endian::Little, Endian::Big] {
                let _ = perfdata_core::feature::event_desc(payload, e, Position::default());
                let _ = perfdata_core::feature::compressed(payload, e, Position::default());
                let _ = perfdata_core::feature::strings::string_list(&mut Reader::new(
                    payload,
                    e,
                    Position::default(),
                    "t",
                ));
                let mut out = Vec::new();
                let _ = conv_feature(u32::from(bit % 40), payload, e, e.swapped(), Position::default(), 4, &mut out);
                assert!(out.len() <= payload.len() + 64, "conversion output is bounded by its input");
            }
        }
    }
    assert!(n >= 2);
}
