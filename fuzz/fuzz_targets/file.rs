//! Arbitrary bytes as a perf.data file (either framing, either byte order).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = perfdata_core::PerfFile::from_bytes(data) {
        perfdata_fuzz::drive(&f);
    }
});
