//! The `report` target: see `perfdata_fuzz::report`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::report(data));
