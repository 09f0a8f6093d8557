//! The `zstd` target: see `perfdata_fuzz::zstd`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::zstd(data));
