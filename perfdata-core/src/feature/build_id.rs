//! HEADER_BUILD_ID: the build ids of the DSOs that had samples, as a sequence of
//! `perf_record_header_build_id` records (reference §3.2, §4.3.4).

use crate::error::{Position, Result};
use crate::reader::Endian;

/// `PERF_RECORD_MISC_BUILD_ID_SIZE`: the entry's `size` byte is valid.
pub const MISC_BUILD_ID_SIZE: u16 = 1 << 15;
/// perf's `BUILD_ID_SIZE`: the longest build id (SHA-1).
pub const BUILD_ID_SIZE: usize = 20;
/// perf's `HOST_KERNEL_ID`: the machine pid of the host.
pub const HOST_KERNEL_ID: i32 = -1;
/// perf's `DEFAULT_GUEST_KERNEL_ID`.
pub const DEFAULT_GUEST_KERNEL_ID: i32 = 0;

/// One build-id entry.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct BuildId {
    /// Machine pid (`-1` = the host, perf's `HOST_KERNEL_ID`); synthesized for old-ABI entries.
    pub pid: i32,
    /// `header.misc`: bits 0–2 are the cpumode of the DSO (1 kernel, 2 user, 4 guest kernel, 5 guest
    /// user), bit 15 says the size byte is valid.
    pub misc: u16,
    /// The build id, exactly as long as the entry says (20 bytes when it does not say).
    #[cfg_attr(feature = "json", serde(serialize_with = "crate::feature::build_id::hex_bytes"))]
    pub build_id: Vec<u8>,
    /// Path of the DSO, or `[kernel.kallsyms]`, `[vdso]`, a module name…
    pub filename: String,
}

impl BuildId {
    /// The cpumode bits of `misc`.
    pub fn cpumode(&self) -> u16 {
        self.misc & 7
    }

    /// The build id as lowercase hex, as perf prints it.
    pub fn hex(&self) -> String {
        crate::names::hex(&self.build_id)
    }
}

#[cfg(feature = "json")]
pub(crate) fn hex_bytes<S: serde::Serializer>(b: &[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&crate::names::hex(b))
}

/// The BUILD_ID section.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct BuildIds {
    /// The entries in file order.
    pub entries: Vec<BuildId>,
    /// The section uses the pre-2010 layout without `pid` (perf's
    /// `perf_header__read_build_ids_abi_quirk`).
    pub old_abi: bool,
}

/// Size of `perf_record_header_build_id` before the filename: header, pid, build_id[24].
pub(crate) const ENTRY_SIZE: usize = 8 + 4 + 24;
/// The old layout: header, build_id[24].
pub(crate) const OLD_ENTRY_SIZE: usize = 8 + 24;

/// Parse HEADER_BUILD_ID. An entry's `header.size` frames it; the filename fills the rest (NUL
/// padded). perf detects the old pid-less layout by a filename starting with `nel.kallsyms]` (the
/// four bytes of `[ker` having been taken as the pid) and then re-reads the whole section with it.
pub fn build_ids(data: &[u8], endian: Endian, pos: Position) -> Result<BuildIds> {
    super::run(data, endian, pos, parse::build_ids)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::reader::{i32, malformed, take, take_input, u16, u32, until_end, until_nul};
    use crate::reader::{PResult, ParseError, Reader};

    /// HEADER_BUILD_ID: `perf_record_header_build_id` entries, each framed by its `header.size`, the
    /// filename filling the rest. The old layout without `pid` (before 2010) is detected as perf's
    /// `perf_header__read_build_ids_abi_quirk` does: a filename starting with `nel.kallsyms]`.
    pub fn build_ids(input: Reader<'_>) -> PResult<'_, BuildIds> {
        let input = input.context("BUILD_ID entry");
        match until_end(build_id_entry(false))(input) {
            Err(nom::Err::Error(ParseError::Kind { kind: nom::error::ErrorKind::Tag, .. })) => {
                let (rest, entries) = until_end(build_id_entry(true))(input)?;
                Ok((rest, BuildIds { entries, old_abi: true }))
            }
            r => r.map(|(rest, entries)| (rest, BuildIds { entries, old_abi: false })),
        }
    }

    /// One BUILD_ID entry, `old` without the pid; in the new layout a filename that says the layout
    /// is the old one fails with `ErrorKind::Tag`.
    fn build_id_entry<'a>(old: bool) -> impl Fn(Reader<'a>) -> PResult<'a, BuildId> {
        // Header, pid, build_id[24]; the old layout has no pid.
        let fixed = if old { OLD_ENTRY_SIZE } else { ENTRY_SIZE } as u16;
        move |input: Reader<'a>| {
            let (input, _type) = u32(input)?;
            let (input, misc) = u16(input)?;
            let (input, size) = u16(input)?;
            if size < fixed {
                return malformed(
                    &input,
                    "entry size {} is below the {}-byte entry header",
                    [size.into(), fixed.into()],
                );
            }
            let (rest, body) = take_input(usize::from(size - 8))(input)?;
            // perf leaves the pid unswapped (a bug); it is an s32 in the writer's byte order.
            let (body, pid) = if old { (body, None) } else { i32(body).map(|(b, p)| (b, Some(p)))? };
            let (body, id) = take(24)(body)?;
            let filename = until_nul(body.rest());
            if !old && filename.starts_with(b"nel.kallsyms]") {
                return Err(nom::Err::Error(ParseError::Kind {
                    pos: body.position(),
                    what: "BUILD_ID entry",
                    kind: nom::error::ErrorKind::Tag,
                }));
            }
            let len = match id.get(BUILD_ID_SIZE) {
                Some(&n) if misc & MISC_BUILD_ID_SIZE != 0 => usize::from(n).min(BUILD_ID_SIZE),
                _ => BUILD_ID_SIZE,
            };
            let pid = pid.unwrap_or(match misc {
                4 | 5 => DEFAULT_GUEST_KERNEL_ID,
                _ => HOST_KERNEL_ID,
            });
            let entry = BuildId {
                pid,
                misc,
                build_id: id.get(..len).unwrap_or_default().to_vec(),
                filename: String::from_utf8_lossy(filename).into_owned(),
            };
            Ok((rest, entry))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn entry(e: Endian, out: &mut Vec<u8>, misc: u16, pid: Option<i32>, id: &[u8], size: u8, name: &str) {
        let fixed = if pid.is_some() { ENTRY_SIZE } else { OLD_ENTRY_SIZE };
        let total = (fixed + name.len() + 1).div_ceil(8) * 8;
        e.put_u32(out, 67);
        e.put_u16(out, misc);
        e.put_u16(out, total as u16);
        if let Some(p) = pid {
            e.put_u32(out, p as u32);
        }
        let mut idb = id.to_vec();
        idb.resize(20, 0);
        idb.push(size);
        idb.resize(24, 0);
        out.extend_from_slice(&idb);
        let start = out.len();
        out.extend_from_slice(name.as_bytes());
        out.resize(start + total - fixed, 0);
    }

    #[test]
    fn entries_with_exact_sizes_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            entry(e, &mut b, 1 | MISC_BUILD_ID_SIZE, Some(-1), &[0xab; 20], 20, "[kernel.kallsyms]");
            entry(e, &mut b, 2 | MISC_BUILD_ID_SIZE, Some(-1), &[1, 2, 3, 4, 5, 6, 7, 8], 8, "/bin/x");
            entry(e, &mut b, 2, Some(7), &[9; 20], 3, "/lib/y.so");
            let ids = build_ids(&b, e, Position::at(0)).unwrap();
            assert!(!ids.old_abi);
            assert_eq!(ids.entries.len(), 3);
            assert_eq!(ids.entries[0].filename, "[kernel.kallsyms]");
            assert_eq!(ids.entries[0].pid, -1);
            assert_eq!(ids.entries[0].cpumode(), 1);
            assert_eq!(ids.entries[1].hex(), "0102030405060708");
            // Without BUILD_ID_SIZE in misc the size byte is not trusted: 20 bytes.
            assert_eq!(ids.entries[2].build_id, vec![9; 20]);
            assert_eq!(ids.entries[2].pid, 7);
            for cut in [1, 10, b.len() - 3] {
                assert!(build_ids(&b[..cut], e, Position::at(0)).is_err());
            }
        }
    }

    #[test]
    fn the_old_pid_less_layout_is_detected() {
        let e = Endian::Little;
        let mut b = Vec::new();
        entry(e, &mut b, 1, None, &[0x11; 20], 0, "[kernel.kallsyms]");
        entry(e, &mut b, 5, None, &[0x22; 20], 0, "/guest/lib.so");
        let ids = build_ids(&b, e, Position::at(0)).unwrap();
        assert!(ids.old_abi);
        assert_eq!(ids.entries[0].filename, "[kernel.kallsyms]");
        assert_eq!(ids.entries[0].pid, HOST_KERNEL_ID);
        assert_eq!(ids.entries[1].pid, DEFAULT_GUEST_KERNEL_ID);
        assert_eq!(ids.entries[1].build_id, vec![0x22; 20]);
    }

    #[test]
    fn a_size_below_the_entry_header_is_an_error() {
        let e = Endian::Little;
        let mut b = Vec::new();
        e.put_u32(&mut b, 67);
        e.put_u16(&mut b, 0);
        e.put_u16(&mut b, 4);
        assert!(build_ids(&b, e, Position::at(0)).is_err());
    }
}
