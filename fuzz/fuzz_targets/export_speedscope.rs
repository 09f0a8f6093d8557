//! The `export_speedscope` target: see `perfdata_fuzz::export_speedscope`.
#![no_main]
libfuzzer_sys::fuzz_target!(init: perfdata_fuzz::init_threads(), |data: &[u8]| perfdata_fuzz::export_speedscope(data));
