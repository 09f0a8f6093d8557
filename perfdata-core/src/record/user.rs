//! perf's own records (types 64 and up), tools/lib/perf/include/perf/event.h layouts.

use crate::attr::EventAttr;
use crate::error::Result;
use crate::reader::{until_nul, Endian, Reader, U64s};

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
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::header_attr)
    }

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

impl<'a> TracingDataRecord<'a> {
    /// Parse the body after the record header; `payload` is what the framing found after the
    /// record (perf's framing).
    pub fn parse(r: &mut Reader<'a>, header: super::RecordHeader, payload: &'a [u8]) -> Result<Self> {
        r.run(crate::parse::record::tracing_data(header, payload))
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
        r.run(crate::parse::record::build_id(misc))
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
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::id_index)
    }

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

impl<'a> AuxtraceErrorRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::auxtrace_error)
    }
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
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::thread_map)
    }

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
        r.run(crate::parse::record::cpu_map_data)
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

impl<'a> EventUpdateRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::event_update)
    }
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

impl TimeConvRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::time_conv)
    }
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
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::bpf_metadata)
    }

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
