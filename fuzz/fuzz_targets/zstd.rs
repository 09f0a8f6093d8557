//! A data section of COMPRESSED and COMPRESSED2 records built from the input: some payloads are the
//! input bytes raw (corrupt streams), some the input compressed (valid frames of arbitrary records).
#![no_main]
use libfuzzer_sys::fuzz_target;
use perfdata_core::attr::sample_type as st;
use perfdata_core::{Endian, EventAttr};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let e = Endian::Little;
    let attr = EventAttr {
        type_: 1,
        size: 136,
        sample_type: st::IP | st::TID | st::TIME | st::CALLCHAIN,
        flags: 1 << 18,
        ..Default::default()
    };
    let mut section = Vec::new();
    for (i, chunk) in rest.chunks(4096).enumerate() {
        let payload = if mode & (1 << (i % 8)) != 0 {
            zstd::bulk::compress(chunk, 1).unwrap_or_default()
        } else {
            chunk.to_vec()
        };
        let payload = &payload[..payload.len().min(60000)];
        if mode & 0x80 == 0 {
            e.put_u32(&mut section, 81);
            e.put_u16(&mut section, 0);
            e.put_u16(&mut section, (8 + payload.len()) as u16);
            section.extend_from_slice(payload);
        } else {
            let size = (16 + payload.len() + 7) & !7;
            e.put_u32(&mut section, 83);
            e.put_u16(&mut section, 0);
            e.put_u16(&mut section, size as u16);
            e.put_u64(&mut section, payload.len() as u64);
            section.extend_from_slice(payload);
            section.resize(section.len() + size - 16 - payload.len(), 0);
        }
    }
    let file = perfdata_fuzz::file_with(&attr, &section, e);
    if let Ok(f) = perfdata_core::PerfFile::from_bytes(&file) {
        perfdata_fuzz::drive(&f);
    };
});
