//! parse → write in the other byte order → parse must agree record by record (for inputs that read
//! without errors), and writing back must equal a same-order rewrite.
#![no_main]
use libfuzzer_sys::fuzz_target;
use perfdata_core::write::write_file;
use perfdata_core::{Order, PerfFile};

fn records(f: &PerfFile<'_>) -> Option<Vec<serde_json::Value>> {
    let mut recs = f.records(Order::File).ok()?;
    let mut out = Vec::new();
    while let Some(r) = recs.next_record() {
        let mut v = perfdata_core::json::record_json(&r.ok()?);
        if let Some(m) = v.as_object_mut() {
            for k in ["offset", "index", "file"] {
                m.remove(k);
            }
        }
        out.push(v);
    }
    recs.diagnostics().is_empty().then_some(out)
}

fuzz_target!(|data: &[u8]| {
    let Ok(a) = PerfFile::from_bytes(data) else { return };
    if !a.diagnostics().is_empty() {
        return;
    }
    // A feature section that does not parse is copied unconverted, so only files whose sections all
    // convert can come back unchanged.
    for bit in a.feature_bits() {
        if let Some((d, pos)) = a.feature_data(bit) {
            let nr = a
                .feature_data(7)
                .and_then(|(n, p)| perfdata_core::reader::Reader::new(n, a.endian(), p, "NRCPUS").u32().ok())
                .unwrap_or(0);
            let mut out = Vec::new();
            if perfdata_core::write::conv_feature(bit, d, a.endian(), a.endian().swapped(), pos, nr, &mut out).is_err()
            {
                return;
            }
        }
    }
    let Some(ra) = records(&a) else { return };
    let Ok(swapped) = write_file(&a, a.endian().swapped()) else { return };
    let b = PerfFile::from_bytes(&swapped).expect("the writer's output reads back");
    let rb = records(&b).expect("the swapped copy reads without errors");
    assert_eq!(ra, rb, "records differ after a byte swap");
    let same = write_file(&a, a.endian()).expect("same-order rewrite");
    let back = write_file(&b, a.endian()).expect("swap back");
    assert!(same == back, "swapping twice is not the identity");
});
