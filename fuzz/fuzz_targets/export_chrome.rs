//! The `export_chrome` target: see `perfdata_fuzz::export_chrome`.
#![no_main]
libfuzzer_sys::fuzz_target!(init: perfdata_fuzz::init_threads(), |data: &[u8]| perfdata_fuzz::export_chrome(data));
