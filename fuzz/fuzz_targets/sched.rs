//! The `sched` target: see `perfdata_fuzz::sched`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| perfdata_fuzz::sched(data));
