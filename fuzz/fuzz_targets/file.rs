//! The `file` target: see `perfdata_fuzz::file`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::file(data));
