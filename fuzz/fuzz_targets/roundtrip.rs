//! The `roundtrip` target: see `perfdata_fuzz::roundtrip`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::roundtrip(data));
