//! perf's own records (types 64 and up), tools/lib/perf/include/perf/event.h layouts.

use crate::abi::misc;
use crate::attr::event_attr;
use crate::attr::EventAttr;
use crate::error::Result;
use crate::reader::{
    count, fixed_str, i32, malformed, str_to_end, take, take_input, take_u64, u16, u32, u64, u64s, u8, words,
};
use crate::reader::{until_nul, PResult};
use crate::reader::{Endian, Reader, U64s};
use crate::record::*;

/// PERF_RECORD_HEADER_ATTR (pipe mode): an attr and its ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeaderAttrRecord<'a> {
    /// The attr's bytes (checked when the record was read; decoded by [`HeaderAttrRecord::attr`], so
    /// that no record owns memory and records stay cheap to move and drop).
    pub(crate) attr_bytes: &'a [u8],
    pub(crate) endian: crate::reader::Endian,
    pub(crate) pos: crate::error::Position,
    /// The ids of the event.
    pub ids: U64s<'a>,
}

impl<'a> HeaderAttrRecord<'a> {
    /// The attr.
    pub fn attr(&self) -> EventAttr {
        // Parsed once already when the record was read, so this cannot fail.
        EventAttr::parse(self.attr_bytes, self.endian, self.pos).unwrap_or_default()
    }
}

/// PERF_RECORD_HEADER_EVENT_TYPE (deprecated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct HeaderEventTypeRecord<'a> {
    pub event_id: u64,
    pub name: &'a [u8],
}

/// PERF_RECORD_HEADER_TRACING_DATA: `size` bytes of tracing data follow the 16-byte record.
///
/// simpleperf frames it differently: its record (type 66, or its own SIMPLEPERF_TRACING_DATA,
/// 32777) is the 8-byte header, the u32 `size`, then the data padded to 64 bytes, all inside the
/// record's size (simpleperf's `TracingDataRecord`). perf's record is 16 bytes (12 from older perf
/// versions), simpleperf's is larger whenever it holds data, which tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracingDataRecord<'a> {
    /// Bytes of tracing data.
    pub size: u32,
    /// The tracing data: perf's out-of-band payload (`size` bytes, zero-padded to 8), or the
    /// `size` bytes inside a simpleperf record.
    pub data: &'a [u8],
    /// simpleperf's framing: the data are inside the record, from its byte 12.
    pub inline: bool,
}

/// The size of perf's HEADER_TRACING_DATA record (`struct perf_record_header_tracing_data`; older
/// perf versions wrote 12, without the padding).
pub(crate) const TRACING_DATA_RECORD_SIZE: u16 = 16;

impl<'a> TracingDataRecord<'a> {
    /// Parse the body after the record header; `payload` is what the framing found after the
    /// record (perf's framing).
    pub fn parse(r: &mut Reader<'a>, header: super::RecordHeader, payload: &'a [u8]) -> Result<Self> {
        r.run(tracing_data(header, payload))
    }

    /// Where the tracing data start, from the start of the record.
    pub fn data_offset(&self) -> u64 {
        if self.inline {
            12
        } else {
            16
        }
    }
}

/// PERF_RECORD_HEADER_BUILD_ID (also the entries of the BUILD_ID feature).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct BuildIdRecord<'a> {
    /// Machine pid (-1 = host). perf leaves it unswapped in cross-endian files; decoded in file order.
    pub pid: i32,
    /// The valid bytes of the build id (`size` when misc has BUILD_ID_SIZE, else all 20).
    pub build_id: &'a [u8],
    /// The 20 stored bytes.
    pub raw_build_id: &'a [u8],
    /// Stored `size` byte (valid when misc & BUILD_ID_SIZE).
    pub size: u8,
    pub filename: &'a [u8],
}

impl<'a> BuildIdRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>, misc: u16) -> Result<Self> {
        r.run(build_id(misc))
    }
}

/// One entry of PERF_RECORD_ID_INDEX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct IdIndexEntry {
    pub id: u64,
    pub idx: u64,
    pub cpu: u64,
    pub tid: u64,
    /// From the optional second array (`machine_pid`, `vcpu`).
    pub machine_pid: Option<u64>,
    pub vcpu: Option<u64>,
}

/// PERF_RECORD_ID_INDEX: which attr index, cpu and thread each id belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct IdIndexRecord<'a> {
    pub nr: u64,
    pub(crate) entries: U64s<'a>,
    pub(crate) entries2: Option<U64s<'a>>,
}

impl<'a> IdIndexRecord<'a> {
    /// The entries.
    pub fn entries(&self) -> impl Iterator<Item = IdIndexEntry> + 'a {
        let (e, e2) = (self.entries, self.entries2);
        (0..e.len() / 4).map(move |i| IdIndexEntry {
            id: e.get(4 * i).unwrap_or(0),
            idx: e.get(4 * i + 1).unwrap_or(0),
            cpu: e.get(4 * i + 2).unwrap_or(0),
            tid: e.get(4 * i + 3).unwrap_or(0),
            machine_pid: e2.and_then(|x| x.get(2 * i)),
            vcpu: e2.and_then(|x| x.get(2 * i + 1)),
        })
    }
}

/// PERF_RECORD_AUXTRACE_INFO.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct AuxtraceInfoRecord<'a> {
    /// 1 INTEL_PT, 2 INTEL_BTS, 3 CS_ETM, 4 ARM_SPE, 5 S390_CPUMSF, 6 HISI_PTT.
    pub type_: u32,
    pub reserved: u32,
    /// PMU-specific private words.
    pub priv_: U64s<'a>,
}

/// PERF_RECORD_AUXTRACE: `size` bytes of AUX data follow the 48-byte record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct AuxtraceRecord<'a> {
    pub size: u64,
    pub offset: u64,
    pub reference: u64,
    pub idx: u32,
    pub tid: u32,
    pub cpu: u32,
    pub reserved: u32,
    /// The out-of-band AUX data.
    pub data: &'a [u8],
}

/// PERF_RECORD_AUXTRACE_ERROR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct AuxtraceErrorRecord<'a> {
    pub type_: u32,
    pub code: u32,
    pub cpu: u32,
    pub pid: u32,
    pub tid: u32,
    pub fmt: u32,
    pub ip: u64,
    /// Present when fmt ≥ 1.
    pub time: Option<u64>,
    pub msg: &'a [u8],
    /// Present when fmt ≥ 2.
    pub machine_pid: Option<u32>,
    pub vcpu: Option<u32>,
}

/// PERF_RECORD_THREAD_MAP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct ThreadMapRecord<'a> {
    pub nr: u64,
    pub(crate) entries: &'a [u8],
    pub(crate) endian: Endian,
}

impl<'a> ThreadMapRecord<'a> {
    /// `(pid, comm)` entries.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &'a [u8])> + 'a {
        let e = self.endian;
        self.entries
            .chunks_exact(24)
            .map(move |c| (e.u64(c.get(..8).unwrap_or(&[0; 8])), until_nul(c.get(8..).unwrap_or(&[]))))
    }
}

/// A CPU map (`struct perf_record_cpu_map_data`), any of its encodings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CpuMapData {
    /// Type 0: explicit list (`-1` = any CPU).
    Cpus(Vec<i32>),
    /// Type 1: bitmask of `long_size` (4 or 8) words.
    Mask {
        /// Word size in bytes.
        long_size: u16,
        /// The words.
        mask: Vec<u64>,
    },
    /// Type 2: contiguous range, optionally preceded by -1.
    Range {
        /// The map starts with -1 ("any CPU").
        any_cpu: bool,
        /// First CPU.
        start: u16,
        /// Last CPU (inclusive).
        end: u16,
    },
    /// An encoding this crate does not know.
    Unknown {
        /// The `type` u16.
        type_: u16,
    },
}

impl CpuMapData {
    /// Parse a cpu_map_data (packed, unaligned; reference §4.3.1).
    pub fn parse(r: &mut Reader<'_>) -> Result<CpuMapData> {
        r.run(cpu_map_data)
    }

    /// The CPUs of the map (-1 = any), in order. Bounded by the encoded size.
    pub fn cpus(&self) -> Vec<i32> {
        match self {
            CpuMapData::Cpus(v) => v.clone(),
            CpuMapData::Mask { long_size, mask } => {
                let bits = u32::from(*long_size) * 8;
                let mut out = Vec::new();
                for (i, w) in mask.iter().enumerate() {
                    for b in 0..bits.min(64) {
                        if w & (1u64 << b) != 0 {
                            out.push((i as u32 * bits + b) as i32);
                        }
                    }
                }
                out
            }
            CpuMapData::Range { any_cpu, start, end } => {
                let mut out = Vec::new();
                if *any_cpu {
                    out.push(-1);
                }
                out.extend((i32::from(*start)..=i32::from(*end)).collect::<Vec<_>>());
                out
            }
            CpuMapData::Unknown { .. } => Vec::new(),
        }
    }
}

/// PERF_RECORD_CPU_MAP.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct CpuMapRecord<'a> {
    pub data: CpuMapData,
    /// The undecoded bytes (for writers and unknown encodings).
    pub raw: &'a [u8],
}

/// PERF_RECORD_STAT_CONFIG: `(tag, value)` pairs (0 AGGR_MODE, 1 INTERVAL, 2 SCALE, 3 AGGR_LEVEL).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct StatConfigRecord<'a> {
    pub nr: u64,
    pub data: U64s<'a>,
}

impl StatConfigRecord<'_> {
    /// The `(tag, val)` pairs.
    pub fn entries(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.data.len() / 2).map(|i| (self.data.get(2 * i).unwrap_or(0), self.data.get(2 * i + 1).unwrap_or(0)))
    }
}

/// PERF_RECORD_STAT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct StatRecord {
    pub id: u64,
    pub cpu: u32,
    pub thread: u32,
    pub val: u64,
    pub ena: u64,
    pub run: u64,
}

/// PERF_RECORD_STAT_ROUND.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct StatRoundRecord {
    /// 0 INTERVAL, 1 FINAL.
    pub type_: u64,
    pub time: u64,
}

/// Payload of PERF_RECORD_EVENT_UPDATE.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum EventUpdate<'a> {
    Unit(&'a [u8]),
    Scale(f64),
    Name(&'a [u8]),
    Cpus(CpuMapData),
    Unknown(&'a [u8]),
}

/// PERF_RECORD_EVENT_UPDATE: a unit, scale, name or cpu list for the event owning `id`.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct EventUpdateRecord<'a> {
    /// 0 UNIT, 1 SCALE, 2 NAME, 3 CPUS.
    pub type_: u64,
    pub id: u64,
    pub update: EventUpdate<'a>,
}

/// PERF_RECORD_TIME_CONV (32 bytes in old files, 56 in new ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct TimeConvRecord {
    pub time_shift: u64,
    pub time_mult: u64,
    pub time_zero: u64,
    pub time_cycles: Option<u64>,
    pub time_mask: Option<u64>,
    pub cap_user_time_zero: Option<u8>,
    pub cap_user_time_short: Option<u8>,
}

/// PERF_RECORD_HEADER_FEATURE (pipe mode): a feature section payload. An empty payload is the end marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct HeaderFeatureRecord<'a> {
    pub feat_id: u64,
    pub data: &'a [u8],
}

/// PERF_RECORD_COMPRESSED / COMPRESSED2: a chunk of the file's zstd stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct CompressedRecord<'a> {
    /// COMPRESSED2's `data_size` (None for COMPRESSED).
    pub data_size: Option<u64>,
    pub data: &'a [u8],
}

/// PERF_RECORD_BPF_METADATA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct BpfMetadataRecord<'a> {
    pub prog_name: &'a [u8],
    pub nr_entries: u64,
    pub(crate) entries: &'a [u8],
}

impl<'a> BpfMetadataRecord<'a> {
    /// `(key, value)` pairs.
    pub fn entries(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        self.entries
            .chunks_exact(320)
            .map(|c| (until_nul(c.get(..64).unwrap_or(&[])), until_nul(c.get(64..).unwrap_or(&[]))))
    }
}

/// PERF_RECORD_SCHEDSTAT_CPU / SCHEDSTAT_DOMAIN: header fields, counters raw (version-specific).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct SchedstatRecord<'a> {
    pub timestamp: u64,
    pub cpu: u32,
    pub version: u16,
    /// The domain (SCHEDSTAT_DOMAIN only).
    pub domain: Option<u16>,
    pub counters: &'a [u8],
}

// The nom parsers of perf's user record bodies (tools/lib/perf/include/perf/event.h).

/// PERF_RECORD_HEADER_ATTR: a `perf_event_attr` (its own `size`, 0 meaning 64), then the event's
/// ids to the end of the record (reference §4.3.2).
pub fn header_attr(input: Reader<'_>) -> PResult<'_, HeaderAttrRecord<'_>> {
    let (at_size, _) = take(4)(input)?;
    let (_, size) = u32(at_size)?;
    let attr_len = if size == 0 { 64 } else { size as usize };
    let (rest, attr) = take_input(attr_len)(input)?;
    event_attr(attr)?;
    let n = rest.remaining() / 8;
    let (rest, ids) = u64s(n as u64)(rest)?;
    Ok((rest, HeaderAttrRecord { attr_bytes: attr.rest(), endian: input.endian(), pos: input.position(), ids }))
}

/// PERF_RECORD_HEADER_EVENT_TYPE (deprecated): event_id, name.
pub fn header_event_type(input: Reader<'_>) -> PResult<'_, HeaderEventTypeRecord<'_>> {
    let (input, event_id) = u64(input)?;
    let (input, name) = str_to_end(input)?;
    Ok((input, HeaderEventTypeRecord { event_id, name }))
}

/// PERF_RECORD_HEADER_TRACING_DATA (and simpleperf's TRACING_DATA): `u32 size`, then the data:
/// inline, or — a perf record of its 12-byte size —
/// `payload`, the bytes the framing found after the record.
pub fn tracing_data<'a>(
    header: RecordHeader,
    payload: &'a [u8],
) -> impl Fn(Reader<'a>) -> PResult<'a, TracingDataRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, size) = u32(input)?;
        if header.type_ == record_type::HEADER_TRACING_DATA && header.size <= TRACING_DATA_RECORD_SIZE {
            return Ok((input, TracingDataRecord { size, data: payload, inline: false }));
        }
        let (input, data) = take(size as usize)(input)?;
        Ok((input, TracingDataRecord { size, data, inline: true }))
    }
}

/// PERF_RECORD_HEADER_BUILD_ID: pid, `build_id[20]`, size, 3 pad bytes, filename; `misc &
/// BUILD_ID_SIZE` says the size byte is valid.
pub fn build_id<'a>(record_misc: u16) -> impl Fn(Reader<'a>) -> PResult<'a, BuildIdRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, pid) = i32(input)?;
        let (input, raw) = take(20)(input)?;
        let (input, size) = u8(input)?;
        let (input, _) = take(3)(input)?;
        let valid = if record_misc & misc::BUILD_ID_SIZE != 0 { usize::from(size).min(20) } else { 20 };
        let (input, filename) = str_to_end(input)?;
        Ok((input, BuildIdRecord { pid, build_id: raw.get(..valid).unwrap_or(raw), raw_build_id: raw, size, filename }))
    }
}

/// PERF_RECORD_ID_INDEX: nr, `{id, idx, cpu, tid}[nr]`, then (perf ≥ 6.1, when it fits)
/// `{machine_pid, vcpu}[nr]`.
pub fn id_index(input: Reader<'_>) -> PResult<'_, IdIndexRecord<'_>> {
    let (input, nr) = u64(input)?;
    let (input, entries) = words(nr, 4, "nr {}")(input)?;
    let (input, entries2) = if (input.remaining() as u64) >= nr.saturating_mul(16) && nr > 0 {
        let (input, e2) = u64s(nr * 2)(input)?;
        (input, Some(e2))
    } else {
        (input, None)
    };
    Ok((input, IdIndexRecord { nr, entries, entries2 }))
}

/// PERF_RECORD_AUXTRACE_INFO: type, reserved, the PMU's private u64 words to the end.
pub fn auxtrace_info(input: Reader<'_>) -> PResult<'_, AuxtraceInfoRecord<'_>> {
    let (input, type_) = u32(input)?;
    let (input, reserved) = u32(input)?;
    let n = (input.remaining() / 8) as u64;
    let (input, priv_) = u64s(n)(input)?;
    Ok((input, AuxtraceInfoRecord { type_, reserved, priv_ }))
}

/// PERF_RECORD_AUXTRACE: size, offset, reference, idx, tid, cpu, reserved; `payload` is the AUX
/// data the framing found after the record.
pub fn auxtrace<'a>(payload: &'a [u8]) -> impl Fn(Reader<'a>) -> PResult<'a, AuxtraceRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, size) = u64(input)?;
        let (input, offset) = u64(input)?;
        let (input, reference) = u64(input)?;
        let (input, idx) = u32(input)?;
        let (input, tid) = u32(input)?;
        let (input, cpu) = u32(input)?;
        let (input, reserved) = u32(input)?;
        Ok((input, AuxtraceRecord { size, offset, reference, idx, tid, cpu, reserved, data: payload }))
    }
}

/// PERF_RECORD_AUXTRACE_ERROR: type, code, cpu, pid, tid, fmt, ip, time (fmt ≥ 1), `msg[64]` (cut
/// after its NUL when the record is), machine_pid and vcpu (fmt ≥ 2, when present).
pub fn auxtrace_error(input: Reader<'_>) -> PResult<'_, AuxtraceErrorRecord<'_>> {
    let (input, type_) = u32(input)?;
    let (input, code) = u32(input)?;
    let (input, cpu) = u32(input)?;
    let (input, pid) = u32(input)?;
    let (input, tid) = u32(input)?;
    let (input, fmt) = u32(input)?;
    let (input, ip) = u64(input)?;
    let (input, time) = if fmt >= 1 { u64(input).map(|(i, t)| (i, Some(t)))? } else { (input, None) };
    let n = input.remaining().min(64);
    let (input, msg) = fixed_str(n)(input)?;
    let (input, machine_pid, vcpu) = if fmt >= 2 && input.remaining() >= 8 {
        let (input, m) = u32(input)?;
        let (input, v) = u32(input)?;
        (input, Some(m), Some(v))
    } else {
        (input, None, None)
    };
    Ok((input, AuxtraceErrorRecord { type_, code, cpu, pid, tid, fmt, ip, time, msg, machine_pid, vcpu }))
}

/// PERF_RECORD_THREAD_MAP: nr, `{u64 pid; char comm[16]}[nr]`.
pub fn thread_map(input: Reader<'_>) -> PResult<'_, ThreadMapRecord<'_>> {
    let endian = input.endian();
    let (input, nr) = u64(input)?;
    let Some(n) = nr.checked_mul(24) else {
        return malformed(&input, "nr {}", [nr, 0]);
    };
    let (input, entries) = take_u64(n)(input)?;
    Ok((input, ThreadMapRecord { nr, entries, endian }))
}

/// `struct perf_record_cpu_map_data` (packed, unaligned; reference §4.3.1): type 0 a CPU list,
/// 1 a mask of 4- or 8-byte words, 2 a range; other types are kept as unknown.
pub fn cpu_map_data(input: Reader<'_>) -> PResult<'_, CpuMapData> {
    let (input, type_) = u16(input)?;
    match type_ {
        0 => {
            let cpu = |i| u16(i).map(|(i, c)| (i, if c == u16::MAX { -1 } else { i32::from(c) }));
            let (input, nr) = u16(input)?;
            let (input, cpus) = count(nr.into(), 2, cpu)(input)?;
            Ok((input, CpuMapData::Cpus(cpus)))
        }
        1 => {
            let (input, nr) = u16(input)?;
            let at = input;
            let (input, long_size) = u16(input)?;
            let (input, mask) = match long_size {
                4 => count(nr.into(), 4, |i| u32(i).map(|(i, w)| (i, u64::from(w))))(input)?,
                8 => count(nr.into(), 8, u64)(take(4)(input)?.0)?,
                n => return malformed(&at, "cpu map mask long_size {}, expected 4 or 8", [n.into(), 0]),
            };
            Ok((input, CpuMapData::Mask { long_size, mask }))
        }
        2 => {
            let (input, any) = u8(input)?;
            let (input, _) = take(1)(input)?;
            let (input, start) = u16(input)?;
            let (input, end) = u16(input)?;
            Ok((input, CpuMapData::Range { any_cpu: any != 0, start, end }))
        }
        t => Ok((input, CpuMapData::Unknown { type_: t })),
    }
}

/// PERF_RECORD_CPU_MAP: a [`cpu_map_data`], its bytes kept raw too.
pub fn cpu_map(input: Reader<'_>) -> PResult<'_, CpuMapRecord<'_>> {
    let raw = input.rest();
    cpu_map_data(input).map(|(rest, data)| (rest, CpuMapRecord { data, raw }))
}

/// PERF_RECORD_STAT_CONFIG: nr, `{tag, val}[nr]`.
pub fn stat_config(input: Reader<'_>) -> PResult<'_, StatConfigRecord<'_>> {
    let (input, nr) = u64(input)?;
    let (input, data) = words(nr, 2, "nr {}")(input)?;
    Ok((input, StatConfigRecord { nr, data }))
}

/// PERF_RECORD_STAT: id, cpu, thread, val, ena, run.
pub fn stat(input: Reader<'_>) -> PResult<'_, StatRecord> {
    let (input, id) = u64(input)?;
    let (input, cpu) = u32(input)?;
    let (input, thread) = u32(input)?;
    let (input, val) = u64(input)?;
    let (input, ena) = u64(input)?;
    let (input, run) = u64(input)?;
    Ok((input, StatRecord { id, cpu, thread, val, ena, run }))
}

/// PERF_RECORD_STAT_ROUND: type, time.
pub fn stat_round(input: Reader<'_>) -> PResult<'_, StatRoundRecord> {
    let (input, type_) = u64(input)?;
    let (input, time) = u64(input)?;
    Ok((input, StatRoundRecord { type_, time }))
}

/// PERF_RECORD_EVENT_UPDATE: type, id, then a unit (0), scale (1), name (2), CPU map (3) or
/// bytes of a type this crate does not know.
pub fn event_update(input: Reader<'_>) -> PResult<'_, EventUpdateRecord<'_>> {
    let (input, type_) = u64(input)?;
    let (input, id) = u64(input)?;
    let (input, update) = match type_ {
        0 => str_to_end(input).map(|(i, s)| (i, EventUpdate::Unit(s)))?,
        1 => u64(input).map(|(i, v)| (i, EventUpdate::Scale(f64::from_bits(v))))?,
        2 => str_to_end(input).map(|(i, s)| (i, EventUpdate::Name(s)))?,
        3 => cpu_map_data(input).map(|(i, c)| (i, EventUpdate::Cpus(c)))?,
        _ => take(input.remaining())(input).map(|(i, b)| (i, EventUpdate::Unknown(b)))?,
    };
    Ok((input, EventUpdateRecord { type_, id, update }))
}

/// PERF_RECORD_TIME_CONV: time_shift, time_mult, time_zero, then (56-byte records) time_cycles,
/// time_mask, cap_user_time_zero, cap_user_time_short, 6 reserved bytes.
pub fn time_conv(input: Reader<'_>) -> PResult<'_, TimeConvRecord> {
    let (input, time_shift) = u64(input)?;
    let (input, time_mult) = u64(input)?;
    let (mut input, time_zero) = u64(input)?;
    let mut t = TimeConvRecord {
        time_shift,
        time_mult,
        time_zero,
        time_cycles: None,
        time_mask: None,
        cap_user_time_zero: None,
        cap_user_time_short: None,
    };
    if input.remaining() >= 24 {
        let (i, time_cycles) = u64(input)?;
        let (i, time_mask) = u64(i)?;
        let (i, zero) = u8(i)?;
        let (i, short) = u8(i)?;
        let (i, _reserved) = take(6)(i)?;
        (t.time_cycles, t.time_mask, t.cap_user_time_zero, t.cap_user_time_short) =
            (Some(time_cycles), Some(time_mask), Some(zero), Some(short));
        input = i;
    }
    Ok((input, t))
}

/// PERF_RECORD_HEADER_FEATURE (pipe mode): feat_id, the section payload to the end.
pub fn header_feature(input: Reader<'_>) -> PResult<'_, HeaderFeatureRecord<'_>> {
    let (input, feat_id) = u64(input)?;
    let (input, data) = take(input.remaining())(input)?;
    Ok((input, HeaderFeatureRecord { feat_id, data }))
}

/// PERF_RECORD_COMPRESSED: the zstd data to the end.
pub fn compressed(input: Reader<'_>) -> PResult<'_, CompressedRecord<'_>> {
    let (input, data) = take(input.remaining())(input)?;
    Ok((input, CompressedRecord { data_size: None, data }))
}

/// PERF_RECORD_COMPRESSED2: data_size, then that many bytes of zstd data.
pub fn compressed2(input: Reader<'_>) -> PResult<'_, CompressedRecord<'_>> {
    let (input, n) = u64(input)?;
    let (input, data) = take_u64(n)(input)?;
    Ok((input, CompressedRecord { data_size: Some(n), data }))
}

/// PERF_RECORD_BPF_METADATA: `prog_name[512]`, nr_entries, `{key[64], value[256]}[nr_entries]`.
pub fn bpf_metadata(input: Reader<'_>) -> PResult<'_, BpfMetadataRecord<'_>> {
    let (input, prog_name) = fixed_str(512)(input)?;
    let (input, nr) = u64(input)?;
    let Some(n) = nr.checked_mul(320) else {
        return malformed(&input, "nr_entries {}", [nr, 0]);
    };
    let (input, entries) = take_u64(n)(input)?;
    Ok((input, BpfMetadataRecord { prog_name, nr_entries: nr, entries }))
}

/// PERF_RECORD_SCHEDSTAT_CPU / SCHEDSTAT_DOMAIN (`domain`): timestamp, cpu, version, the domain
/// (or 2 pad bytes), the version-specific counters raw.
pub fn schedstat<'a>(domain: bool) -> impl Fn(Reader<'a>) -> PResult<'a, SchedstatRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, timestamp) = u64(input)?;
        let (input, cpu) = u32(input)?;
        let (input, version) = u16(input)?;
        let (input, d) = u16(input)?;
        let (input, counters) = take(input.remaining())(input)?;
        Ok((input, SchedstatRecord { timestamp, cpu, version, domain: domain.then_some(d), counters }))
    }
}
