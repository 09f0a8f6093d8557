//! The `file` target: see `perfdata_fuzz::file`.
#![no_main]
libfuzzer_sys::fuzz_target!(init: perfdata_fuzz::init_threads(), |data: &[u8]| perfdata_fuzz::file(data));
