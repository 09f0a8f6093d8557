//! Arbitrary bytes as a pipe stream: from a slice with a pipe header, and through `Read`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = b"PERFILE2".to_vec();
    bytes.extend_from_slice(&16u64.to_le_bytes());
    bytes.extend_from_slice(data);
    if let Ok(f) = perfdata_core::PerfFile::from_bytes(&bytes) {
        perfdata_fuzz::drive(&f);
    }
    if let Ok(f) = perfdata_core::PerfFile::from_reader(std::io::Cursor::new(bytes)) {
        perfdata_fuzz::drive(&f);
    }
});
