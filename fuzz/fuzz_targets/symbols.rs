//! The `symbols` target: see `perfdata_fuzz::symbols`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::symbols(data));
