//! The `sample` target: see `perfdata_fuzz::sample`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::sample(data));
