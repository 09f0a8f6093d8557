//! The `pipe` target: see `perfdata_fuzz::pipe`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::pipe(data));
