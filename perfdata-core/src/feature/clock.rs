//! Time features: SAMPLE_TIME, CLOCKID and CLOCK_DATA (reference §7.3).

use crate::error::{Position, Result};
use crate::reader::Endian;

/// HEADER_SAMPLE_TIME: the times of the first and last sample, perf clock ns. Both 0 when perf had not
/// seen samples when it wrote the section (pipe mode, `perf stat record`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SampleTime {
    /// First sample, ns.
    pub first: u64,
    /// Last sample, ns.
    pub last: u64,
}

/// Parse HEADER_SAMPLE_TIME: `u64 first; u64 last`.
pub fn sample_time(data: &[u8], endian: Endian, pos: Position) -> Result<SampleTime> {
    super::run(data, endian, pos, parse::sample_time)
}

/// Parse HEADER_CLOCKID: `u64 clockid_res_ns`, the resolution of the clock in ns (the clock itself is
/// `attr.clockid`).
pub fn clockid_res_ns(data: &[u8], endian: Endian, pos: Position) -> Result<u64> {
    super::run(data, endian, pos, parse::clockid_res_ns)
}

/// HEADER_CLOCK_DATA: one reading of wall-clock time and of the sampling clock taken together, to
/// convert sample times to time of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct ClockData {
    /// Format version (1).
    pub version: u32,
    /// The sampling clock (`CLOCK_*`: 0 realtime, 1 monotonic, 4 monotonic_raw, 7 boottime, 11 tai).
    pub clockid: u32,
    /// Time of day at the reference point, ns since the epoch.
    pub tod_ns: u64,
    /// The sampling clock at the reference point, ns.
    pub clockid_ns: u64,
}

impl ClockData {
    /// perf's name of the clock (`clockid_name`).
    pub fn clock_name(&self) -> &'static str {
        clock_name(self.clockid)
    }
}

/// perf's name of a clock id (util/clockid.c), "(not found)" for others.
pub fn clock_name(clockid: u32) -> &'static str {
    match clockid {
        1 => "monotonic",
        4 => "monotonic_raw",
        0 => "realtime",
        7 => "boottime",
        11 => "tai",
        _ => "(not found)",
    }
}

/// Parse HEADER_CLOCK_DATA: `u32 version (1); u32 clockid; u64 tod_ns; u64 clockid_ns`. Only version
/// 1 is defined (perf rejects others).
pub fn clock_data(data: &[u8], endian: Endian, pos: Position) -> Result<ClockData> {
    super::run(data, endian, pos, parse::clock_data)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::feature::version_1;
    use crate::reader::{u32, u64};
    use crate::reader::{PResult, Reader};

    /// HEADER_SAMPLE_TIME: `u64 first; u64 last`.
    pub fn sample_time(input: Reader<'_>) -> PResult<'_, SampleTime> {
        let (input, first) = u64(input.context("SAMPLE_TIME"))?;
        let (input, last) = u64(input)?;
        Ok((input, SampleTime { first, last }))
    }

    /// HEADER_CLOCKID: `u64 clockid_res_ns`.
    pub fn clockid_res_ns(input: Reader<'_>) -> PResult<'_, u64> {
        u64(input.context("CLOCKID"))
    }

    /// HEADER_CLOCK_DATA: `u32 version (1); u32 clockid; u64 tod_ns; u64 clockid_ns`. perf rejects
    /// other versions.
    pub fn clock_data(input: Reader<'_>) -> PResult<'_, ClockData> {
        let (input, version) = version_1(u32)(input.context("CLOCK_DATA"))?;
        let (input, clockid) = u32(input)?;
        let (input, tod_ns) = u64(input)?;
        let (input, clockid_ns) = u64(input)?;
        Ok((input, ClockData { version, clockid, tod_ns, clockid_ns }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_features_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u64(&mut b, 4410607901000);
            e.put_u64(&mut b, 4410696880000);
            assert_eq!(sample_time(&b, e, Position::at(0)).unwrap().last, 4410696880000);
            assert!(sample_time(&b[..15], e, Position::at(0)).is_err());
            assert_eq!(clockid_res_ns(&b, e, Position::at(0)).unwrap(), 4410607901000);
            assert!(clockid_res_ns(&b[..4], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 4);
            e.put_u64(&mut b, 1795411894813587000);
            e.put_u64(&mut b, 3112013177188);
            let c = clock_data(&b, e, Position::at(0)).unwrap();
            assert_eq!((c.clockid, c.clock_name(), c.clockid_ns), (4, "monotonic_raw", 3112013177188));
            assert!(clock_data(&b[..20], e, Position::at(0)).is_err());
            let mut v0 = b.clone();
            v0[..4].fill(0);
            assert!(clock_data(&v0, e, Position::at(0)).is_err());
        }
    }
}
