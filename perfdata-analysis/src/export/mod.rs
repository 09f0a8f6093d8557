//! Exports to the formats of other tools: [`speedscope`] (speedscope.app's JSON) and [`chrome`]
//! (Chrome Trace Event JSON for Perfetto UI and `chrome://tracing`), both from the folded stacks
//! and scheduler timeline the other modules compute. [`pprof`] writes pprof's `profile.proto`,
//! [`perfetto`] Perfetto's protobuf trace (feature `pprof`, which brings prost);
//! `arrow` (feature `arrow`: the records as Arrow tables) and `parquet` (feature `parquet`: those
//! tables as Parquet files), `dataset` (feature `dataset`: many recordings as one Hive-partitioned
//! Parquet dataset).

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "symbolize")]
pub mod chrome;
#[cfg(feature = "dataset")]
pub mod dataset;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "pprof")]
pub mod perfetto;
#[cfg(feature = "pprof")]
pub mod pprof;
#[cfg(feature = "symbolize")]
pub mod speedscope;

/// Append `s` to `out` as a JSON string: quoted, with `"`, `\` and the control characters
/// escaped (RFC 8259 §7); everything else is UTF-8 as it is.
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let mut plain = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(s.as_bytes().get(plain..i).unwrap_or_default());
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            for nibble in [c >> 4, c & 15] {
                out.push(HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'));
            }
        } else {
            out.extend_from_slice(esc);
        }
        plain = i + 1;
    }
    out.extend_from_slice(s.as_bytes().get(plain..).unwrap_or_default());
    out.push(b'"');
}

/// Append `ns` as microseconds, the nanoseconds kept exactly in three decimals (`1234.005`).
pub(crate) fn push_us(out: &mut Vec<u8>, ns: u64) {
    let mut b = itoa::Buffer::new();
    out.extend_from_slice(b.format(ns / 1000).as_bytes());
    let frac = ns % 1000;
    out.extend_from_slice(&[b'.', b'0' + (frac / 100) as u8, b'0' + (frac / 10 % 10) as u8, b'0' + (frac % 10) as u8]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_parse_back() {
        for s in ["", "plain", "a\"b\\c", "tab\tnl\ncr\r", "\u{1}\u{1f}x\u{7f}", "héllo ✓ 𝄞"] {
            let mut b = Vec::new();
            push_json_str(&mut b, s);
            let back: String = serde_json::from_slice(&b).unwrap();
            assert_eq!(back, s);
        }
    }

    #[test]
    fn microseconds_keep_the_nanoseconds() {
        for (ns, text) in [(0, "0.000"), (5, "0.005"), (1_234_567, "1234.567"), (u64::MAX, "18446744073709551.615")] {
            let mut b = Vec::new();
            push_us(&mut b, ns);
            assert_eq!(String::from_utf8(b).unwrap(), text);
        }
    }
}
