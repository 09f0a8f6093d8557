//! Every public feature-section parser on arbitrary bytes, in both byte orders, plus the writer's
//! feature converter.
#![no_main]
use libfuzzer_sys::fuzz_target;
use perfdata_core::reader::Reader;
use perfdata_core::{Endian, Position};

fuzz_target!(|data: &[u8]| {
    let Some((&bit, payload)) = data.split_first() else { return };
    for e in [Endian::Little, Endian::Big] {
        let _ = perfdata_core::feature::event_desc(payload, e, Position::default());
        let _ = perfdata_core::feature::compressed(payload, e, Position::default());
        let mut r = Reader::new(payload, e, Position::default(), "fuzz");
        let _ = perfdata_core::feature::strings::string_list(&mut r);
        let mut r = Reader::new(payload, e, Position::default(), "fuzz");
        let _ = perfdata_core::feature::strings::header_string(&mut r);
        let mut out = Vec::new();
        let _ = perfdata_core::write::conv_feature(
            u32::from(bit % 40),
            payload,
            e,
            e.swapped(),
            Position::default(),
            4,
            &mut out,
        );
    }
});
