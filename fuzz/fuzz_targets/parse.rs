//! The `parse` target: see `perfdata_fuzz::parse`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::parse(data));
