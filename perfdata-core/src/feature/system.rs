//! The machine description features: the string features (HOSTNAME, OSRELEASE, VERSION, ARCH,
//! CPUDESC, CPUID), NRCPUS, TOTAL_MEM and CMDLINE.

use crate::error::{Position, Result};
use crate::reader::Endian;
use std::borrow::Cow;

/// A feature that is one `perf_header_string`: HOSTNAME (`uname -n`), OSRELEASE (`uname -r`), VERSION
/// (perf's version), ARCH (`uname -m`), CPUDESC (CPU model name), CPUID (e.g.
/// `GenuineIntel,6,85,4`).
///
/// Borrowed from the section (no copy) when it is UTF-8.
pub fn string(data: &[u8], endian: Endian, pos: Position) -> Result<Cow<'_, str>> {
    super::run(data, endian, pos, parse::string)
}

/// HEADER_NRCPUS, in the stored order: available first, then online.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct NrCpus {
    /// `nr_cpus_avail`: CPUs present (max present CPU + 1); the per-CPU arrays of CPU_TOPOLOGY have
    /// this many entries.
    pub available: u32,
    /// `nr_cpus_online`.
    pub online: u32,
}

/// Parse HEADER_NRCPUS: `u32 nr_cpus_avail; u32 nr_cpus_online`.
pub fn nr_cpus(data: &[u8], endian: Endian, pos: Position) -> Result<NrCpus> {
    super::run(data, endian, pos, parse::nr_cpus)
}

/// Parse HEADER_TOTAL_MEM: `u64`, in kB (MemTotal of /proc/meminfo).
pub fn total_mem(data: &[u8], endian: Endian, pos: Position) -> Result<u64> {
    super::run(data, endian, pos, parse::total_mem)
}

/// Parse HEADER_CMDLINE: a string list; entry 0 is the perf binary, then its arguments.
/// The strings are borrowed from the section when they are UTF-8.
pub fn cmdline(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<Cow<'_, str>>> {
    super::run(data, endian, pos, parse::cmdline)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::feature::strings::parse::{header_str, str_list};
    use crate::reader::{u32, u64};
    use crate::reader::{PResult, Reader};
    use std::borrow::Cow;

    /// HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one `perf_header_string`.
    pub fn string(input: Reader<'_>) -> PResult<'_, Cow<'_, str>> {
        header_str(input.context("string feature"))
    }

    /// HEADER_NRCPUS: `u32 nr_cpus_avail; u32 nr_cpus_online`.
    pub fn nr_cpus(input: Reader<'_>) -> PResult<'_, NrCpus> {
        let input = input.context("NRCPUS");
        let (input, available) = u32(input)?;
        let (input, online) = u32(input)?;
        Ok((input, NrCpus { available, online }))
    }

    /// HEADER_TOTAL_MEM: `u64`, kB.
    pub fn total_mem(input: Reader<'_>) -> PResult<'_, u64> {
        u64(input.context("TOTAL_MEM"))
    }

    /// HEADER_CMDLINE: a string list, entry 0 the perf binary.
    pub fn cmdline(input: Reader<'_>) -> PResult<'_, Vec<Cow<'_, str>>> {
        str_list(input.context("CMDLINE"))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::error::Error;

    /// A `perf_header_string` as perf writes it: length aligned to 64, NUL padded.
    pub(crate) fn put_string(e: Endian, out: &mut Vec<u8>, s: &str) {
        let len = (s.len() + 1).div_ceil(64) * 64;
        e.put_u32(out, len as u32);
        out.extend_from_slice(s.as_bytes());
        out.resize(out.len() + len - s.len(), 0);
    }

    #[test]
    fn strings_nrcpus_mem_cmdline_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            put_string(e, &mut b, "vm");
            assert_eq!(string(&b, e, Position::at(0)).unwrap(), "vm");
            assert!(matches!(string(&b[..10], e, Position::at(0)), Err(Error::Truncated { .. })));

            let mut b = Vec::new();
            e.put_u32(&mut b, 4);
            e.put_u32(&mut b, 2);
            assert_eq!(nr_cpus(&b, e, Position::at(0)).unwrap(), NrCpus { available: 4, online: 2 });
            assert!(nr_cpus(&b[..6], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u64(&mut b, 24684084);
            assert_eq!(total_mem(&b, e, Position::at(0)).unwrap(), 24684084);
            assert!(total_mem(&b[..7], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 3);
            for s in ["/usr/bin/perf", "record", "-a"] {
                put_string(e, &mut b, s);
            }
            assert_eq!(cmdline(&b, e, Position::at(0)).unwrap(), ["/usr/bin/perf", "record", "-a"]);
            let err = cmdline(&b[..b.len() - 1], e, Position::at(100)).unwrap_err();
            assert!(err.position().unwrap().offset > 100, "error says where: {err}");
        }
    }

    #[test]
    fn a_huge_count_does_not_allocate() {
        let mut b = Vec::new();
        Endian::Little.put_u32(&mut b, u32::MAX);
        assert!(cmdline(&b, Endian::Little, Position::at(0)).is_err());
    }
}
