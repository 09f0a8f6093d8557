//! The `features` target: see `perfdata_fuzz::features`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::features(data));
