//! The `tracepoint` target: see `perfdata_fuzz::tracepoint`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::tracepoint(data));
