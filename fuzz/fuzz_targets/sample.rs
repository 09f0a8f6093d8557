//! One SAMPLE record against an arbitrary sample layout: the first 40 bytes pick sample_type,
//! read_format, branch_sample_type and register masks; the rest is the record body.
#![no_main]
use libfuzzer_sys::fuzz_target;
use perfdata_core::Endian;

fuzz_target!(|data: &[u8]| {
    if data.len() < 41 {
        return;
    }
    let attr = perfdata_fuzz::attr_from(data);
    let endian = if data[40] & 1 == 0 { Endian::Little } else { Endian::Big };
    let body = &data[41..];
    let size = (8 + body.len()).min(65535);
    let mut rec = Vec::new();
    endian.put_u32(&mut rec, 9);
    endian.put_u16(&mut rec, 1);
    endian.put_u16(&mut rec, size as u16);
    rec.extend_from_slice(&body[..size - 8]);
    let file = perfdata_fuzz::file_with(&attr, &rec, endian);
    if let Ok(f) = perfdata_core::PerfFile::from_bytes(&file) {
        perfdata_fuzz::drive(&f);
    };
});
