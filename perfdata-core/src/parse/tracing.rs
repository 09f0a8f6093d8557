//! nom parser of the tracing-data blob: feature 1 (`HEADER_TRACING_DATA`) of a file, or the
//! payload of the `PERF_RECORD_HEADER_TRACING_DATA` record of a pipe (reference §8.1, §4.3.3;
//! perf's `trace-event-read.c` `trace_report`).
//!
//! The blob names its own byte order: the input's is ignored, and every integer after the
//! endianness byte is read in the order that byte names. Errors name `tracing data`.
//! Defined in `tracepoint::data`, next to [`TracingData`](crate::tracepoint::TracingData); re-exported
//! here.
//!
//! ```
//! use perfdata_core::parse::{tracing, Reader};
//! use perfdata_core::{Endian, Position};
//! let mut blob = vec![0x17, 0x08, 0x44];
//! blob.extend_from_slice(b"tracing0.5\0");
//! blob.extend_from_slice(&[0, 8]); // little-endian writer, 8-byte longs
//! let input = Reader::new(&blob, Endian::Little, Position::at(0x300), "TRACING_DATA");
//! let err = perfdata_core::parse::to_error(tracing::tracing_data(input).unwrap_err());
//! assert_eq!(err.to_string(), "truncated input at 0x310: reading tracing data, needed 4 bytes, 0 available");
//! ```

pub use crate::tracepoint::data::tracing_data;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::parse::to_error;
    use crate::reader::{Endian, Reader};
    use crate::tracepoint::data::{EventSystem, MAGIC};
    use crate::Position;

    /// A version 0.6 blob in `e`: one ftrace format, one system with two formats.
    fn blob(e: Endian) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(b"tracing0.6\0");
        b.extend_from_slice(&[u8::from(e == Endian::Big), 8]);
        e.put_u32(&mut b, 4096);
        for (name, text) in [(&b"header_page\0"[..], &b"hp"[..]), (b"header_event\0", b"he")] {
            b.extend_from_slice(name);
            e.put_u64(&mut b, text.len() as u64);
            b.extend_from_slice(text);
        }
        e.put_u32(&mut b, 1);
        e.put_u64(&mut b, 3);
        b.extend_from_slice(b"ftr");
        e.put_u32(&mut b, 1);
        b.extend_from_slice(b"sched\0");
        e.put_u32(&mut b, 2);
        for f in [&b"name: a"[..], b"name: bb"] {
            e.put_u64(&mut b, f.len() as u64);
            b.extend_from_slice(f);
        }
        e.put_u32(&mut b, 0);
        e.put_u32(&mut b, 5);
        b.extend_from_slice(b"0x1 :");
        e.put_u64(&mut b, 6);
        b.extend_from_slice(b"1 init");
        b
    }

    #[test]
    fn both_byte_orders_and_every_cut() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = blob(e);
            let len = b.len();
            b.extend_from_slice(&[0; 5]); // a pipe record's padding
                                          // The input's byte order does not matter: the blob says its own.
            let input = Reader::new(&b, e.swapped(), Position::at(0x100), "TRACING_DATA");
            let (rest, t) = tracing_data(input).unwrap();
            assert_eq!((rest.remaining(), t.size, t.endian, t.page_size, t.long_size), (5, len, e, 4096, 8));
            assert_eq!((t.version, t.header_page, t.header_event), (&b"0.6"[..], &b"hp"[..], &b"he"[..]));
            assert_eq!(t.ftrace_formats, vec![&b"ftr"[..]]);
            assert_eq!(t.systems, vec![EventSystem { name: b"sched", formats: vec![b"name: a", b"name: bb"] }]);
            assert_eq!((t.kallsyms, t.printk, t.saved_cmdlines), (&b""[..], &b"0x1 :"[..], Some(&b"1 init"[..])));
            for cut in 0..len {
                let input = Reader::new(&b[..cut], e, Position::at(0x100), "TRACING_DATA");
                match to_error(tracing_data(input).unwrap_err()) {
                    Error::Truncated { what, pos, .. } | Error::Malformed { what, pos, .. } => {
                        assert_eq!(what, "tracing data", "cut {cut}");
                        assert!((0x100..=0x100 + cut as u64).contains(&pos.offset), "cut {cut}");
                    }
                    err => panic!("cut {cut}: {err}"),
                }
            }
        }
        let mut bad = blob(Endian::Little);
        bad[0] = 0x18;
        let err = to_error(tracing_data(Reader::new(&bad, Endian::Little, Position::at(0), "x")).unwrap_err());
        assert_eq!(err.to_string(), "malformed tracing data at 0x0: bad magic 180844, expected 170844");
        let mut bad = blob(Endian::Big);
        bad[3] = b'T';
        let err = to_error(tracing_data(Reader::new(&bad, Endian::Big, Position::at(0), "x")).unwrap_err());
        assert_eq!(err.to_string(), "malformed tracing data at 0x3: expected the \"tracing\" tag");
    }
}
