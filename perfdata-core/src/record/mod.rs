//! Records of the data stream: the header, the record type numbers, and one typed view per kind.
//!
//! Kernel records (types 1–63) are laid out as in perf_event.h and may end in a `sample_id` trailer;
//! perf's own records (64 and up) are from tools/lib/perf/include/perf/event.h. Every view borrows
//! from the record's bytes.

pub(crate) mod kernel;
pub(crate) mod simpleperf;
pub(crate) mod user;

pub use crate::abi::{misc, record_type};
pub use kernel::{AuxOutputHwIdRecord, AuxRecord, BpfEventRecord, CallchainDeferredRecord, CgroupRecord, CommRecord};
pub use kernel::{ItraceStartRecord, KsymbolRecord, LostRecord, LostSamplesRecord, Mapping, Mmap2Id, Mmap2Record};
pub use kernel::{MmapRecord, NamespacesRecord, ReadRecord, SwitchCpuWideRecord, TaskRecord, TextPokeRecord};
pub use kernel::{ThrottleRecord, NAMESPACE_NAMES};
pub use simpleperf::{SimpleperfCallChainRecord, SimpleperfDebugRecord, SimpleperfDsoRecord, SimpleperfEventIdRecord};
pub use simpleperf::{SimpleperfKernelSymbolRecord, SimpleperfSymbolRecord, SimpleperfUnwindingResultRecord};
pub use user::{AuxtraceErrorRecord, AuxtraceInfoRecord, AuxtraceRecord, BpfMetadataRecord, BuildIdRecord};
pub use user::{CompressedRecord, CpuMapData, CpuMapRecord, EventUpdate, EventUpdateRecord, HeaderAttrRecord};
pub use user::{HeaderEventTypeRecord, HeaderFeatureRecord, IdIndexEntry, IdIndexRecord, SchedstatRecord};
pub use user::{StatConfigRecord, StatRecord, StatRoundRecord, ThreadMapRecord, TimeConvRecord, TracingDataRecord};

use crate::error::{Error, Position, Result};
use crate::reader::{take, PResult, ParseError};
use crate::reader::{Endian, Reader};
use crate::sample::Sample;

/// `struct perf_event_header`.
// One aligned word, so that copies move it whole: a copy read as one word right after a piecewise
// write stalls (store forwarding fails), and records are copied once per read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct RecordHeader {
    /// `type`: see [`record_type`].
    pub type_: u32,
    /// `misc`: cpumode in bits 0–2 plus type-specific bits.
    pub misc: u16,
    /// `size` including this 8-byte header (not including out-of-band payloads).
    pub size: u16,
}

impl RecordHeader {
    /// Decode from at least 8 bytes.
    pub fn parse(b: &[u8], endian: Endian, pos: Position) -> Result<RecordHeader> {
        Reader::new(b, endian, pos, "perf_event_header").run(record_header)
    }

    /// Decode the header's 8 bytes with one load. The fields are cut from one little-endian word
    /// (big-endian files get each field's bytes swapped first), so that the compiler stores the
    /// header as one word: storing it piecewise stalls the first read of the whole header.
    #[inline(always)]
    pub fn from_bytes(b: &[u8; 8], endian: Endian) -> RecordHeader {
        let w = u64::from_le_bytes(*b);
        let n = match endian {
            Endian::Little => w,
            Endian::Big => {
                u64::from((w as u32).swap_bytes())
                    | u64::from(((w >> 32) as u16).swap_bytes()) << 32
                    | u64::from(((w >> 48) as u16).swap_bytes()) << 48
            }
        };
        RecordHeader { type_: n as u32, misc: (n >> 32) as u16, size: (n >> 48) as u16 }
    }

    /// Encode.
    pub fn write(&self, endian: Endian, out: &mut Vec<u8>) {
        endian.put_u32(out, self.type_);
        endian.put_u16(out, self.misc);
        endian.put_u16(out, self.size);
    }

    /// The record's length in bytes, header included: `size`, except for simpleperf's own record
    /// types (≥ [`record_type::SIMPLEPERF_START`]), whose header keeps the high 16 bits of a 32-bit
    /// size where perf has `misc` (simpleperf's `simpleperf_record_header`: KERNEL_SYMBOL and
    /// TRACING_DATA records outgrow 64 KiB).
    #[inline(always)]
    pub fn record_size(&self) -> usize {
        if self.type_ >= record_type::SIMPLEPERF_START {
            (usize::from(self.misc) << 16) | usize::from(self.size)
        } else {
            usize::from(self.size)
        }
    }

    /// The cpumode (misc bits 0–2).
    pub fn cpumode(&self) -> CpuMode {
        CpuMode::from_misc(self.misc)
    }
}

/// `struct perf_event_header`: type (u32), misc (u16), size (u16).
///
/// The body is [`RecordHeader::from_bytes`], one 8-byte load with the fields cut from it, which
/// is also the framing loop's hot path (callgrind, `read_bench frames` on a 15 MB -g recording:
/// 13,394,575 instructions, 13,387,500 with the three-field decode it replaced).
#[inline]
pub fn record_header(input: Reader<'_>) -> PResult<'_, RecordHeader> {
    let endian = input.endian();
    let (rest, b) = take(8)(input)?;
    match b.first_chunk::<8>() {
        Some(h) => Ok((rest, RecordHeader::from_bytes(h, endian))),
        None => Err(nom::Err::Error(ParseError::truncated(&input, 8))),
    }
}

/// The `PERF_RECORD_MISC_CPUMODE_MASK` part of `misc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMode {
    /// 0
    Unknown,
    /// 1
    Kernel,
    /// 2
    User,
    /// 3
    Hypervisor,
    /// 4
    GuestKernel,
    /// 5
    GuestUser,
    /// 6, 7: undefined values kept as they are.
    Other(u8),
}

impl CpuMode {
    /// From a `misc` field.
    pub fn from_misc(misc: u16) -> CpuMode {
        match misc & 7 {
            0 => CpuMode::Unknown,
            1 => CpuMode::Kernel,
            2 => CpuMode::User,
            3 => CpuMode::Hypervisor,
            4 => CpuMode::GuestKernel,
            5 => CpuMode::GuestUser,
            n => CpuMode::Other(n as u8),
        }
    }
}

/// The `sample_id` trailer of a non-sample kernel record (present with `sample_id_all`), read on
/// access: each accessor is `Some` exactly when its bit is in the event's `sample_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleId<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) sample_type: u64,
    pub(crate) endian: Endian,
}

impl<'a> SampleId<'a> {
    /// Check a trailer of exactly the attr's trailer size, in kernel emit order.
    pub fn parse(b: &'a [u8], sample_type: u64, endian: Endian, pos: Position) -> Result<SampleId<'a>> {
        Reader::new(b, endian, pos, "sample_id trailer").run(sample_id(sample_type))
    }

    /// The trailer bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Byte offset of the word for `bit`, if present.
    fn offset(&self, bit: u64) -> Option<usize> {
        use crate::attr::sample_type as st;
        if self.sample_type & bit == 0 {
            return None;
        }
        let before = match bit {
            st::TID => 0,
            st::TIME => st::TID,
            st::ID => st::TID | st::TIME,
            st::STREAM_ID => st::TID | st::TIME | st::ID,
            st::CPU => st::TID | st::TIME | st::ID | st::STREAM_ID,
            _ => st::TID | st::TIME | st::ID | st::STREAM_ID | st::CPU,
        };
        Some(8 * (self.sample_type & before).count_ones() as usize)
    }

    fn u64_of(&self, bit: u64) -> Option<u64> {
        let o = self.offset(bit)?;
        self.bytes.get(o..o + 8).map(|b| self.endian.u64(b))
    }

    fn u32_of(&self, bit: u64, second: bool) -> Option<u32> {
        let o = self.offset(bit)? + if second { 4 } else { 0 };
        self.bytes.get(o..o + 4).map(|b| self.endian.u32(b))
    }

    /// pid (TID).
    pub fn pid(&self) -> Option<u32> {
        self.u32_of(crate::attr::sample_type::TID, false)
    }
    /// tid (TID).
    pub fn tid(&self) -> Option<u32> {
        self.u32_of(crate::attr::sample_type::TID, true)
    }
    /// time (TIME).
    pub fn time(&self) -> Option<u64> {
        self.u64_of(crate::attr::sample_type::TIME)
    }
    /// id (ID).
    pub fn id(&self) -> Option<u64> {
        self.u64_of(crate::attr::sample_type::ID)
    }
    /// stream_id (STREAM_ID).
    pub fn stream_id(&self) -> Option<u64> {
        self.u64_of(crate::attr::sample_type::STREAM_ID)
    }
    /// cpu (CPU).
    pub fn cpu(&self) -> Option<u32> {
        self.u32_of(crate::attr::sample_type::CPU, false)
    }
    /// The reserved u32 after cpu.
    pub fn res(&self) -> Option<u32> {
        self.u32_of(crate::attr::sample_type::CPU, true)
    }
    /// identifier (IDENTIFIER).
    pub fn identifier(&self) -> Option<u64> {
        self.u64_of(crate::attr::sample_type::IDENTIFIER)
    }
}

/// The `sample_id` trailer of a kernel record (`sample_id_all`): the words `sample_type` selects
/// of TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, borrowed and read on access.
pub fn sample_id<'a>(sample_type: u64) -> impl Fn(Reader<'a>) -> PResult<'a, SampleId<'a>> {
    use crate::attr::sample_type as st;
    let words = (sample_type & (st::TID | st::TIME | st::ID | st::STREAM_ID | st::CPU | st::IDENTIFIER)).count_ones();
    move |input: Reader<'a>| {
        let (rest, bytes) = take(words as usize * 8)(input.context("sample_id trailer"))?;
        Ok((rest, SampleId { bytes, sample_type, endian: input.endian() }))
    }
}

/// One typed record. Everything borrows from the record bytes.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
#[allow(missing_docs)]
// variants are named after PERF_RECORD_*
// Samples are large; boxing them would cost an allocation per record on the hot path.
#[allow(clippy::large_enum_variant)]
pub enum RecordKind<'a> {
    Mmap(MmapRecord<'a>),
    Lost(LostRecord),
    Comm(CommRecord<'a>),
    Exit(TaskRecord),
    Throttle(ThrottleRecord),
    Unthrottle(ThrottleRecord),
    Fork(TaskRecord),
    Read(ReadRecord<'a>),
    Sample(Sample<'a>),
    Mmap2(Mmap2Record<'a>),
    Aux(AuxRecord),
    ItraceStart(ItraceStartRecord),
    LostSamples(LostSamplesRecord),
    Switch,
    SwitchCpuWide(SwitchCpuWideRecord),
    Namespaces(NamespacesRecord<'a>),
    Ksymbol(KsymbolRecord<'a>),
    BpfEvent(BpfEventRecord<'a>),
    Cgroup(CgroupRecord<'a>),
    TextPoke(TextPokeRecord<'a>),
    AuxOutputHwId(AuxOutputHwIdRecord),
    CallchainDeferred(CallchainDeferredRecord<'a>),
    HeaderAttr(HeaderAttrRecord<'a>),
    HeaderEventType(HeaderEventTypeRecord<'a>),
    /// HEADER_TRACING_DATA, and simpleperf's SIMPLEPERF_TRACING_DATA (32777).
    HeaderTracingData(TracingDataRecord<'a>),
    HeaderBuildId(BuildIdRecord<'a>),
    FinishedRound,
    IdIndex(IdIndexRecord<'a>),
    AuxtraceInfo(AuxtraceInfoRecord<'a>),
    Auxtrace(AuxtraceRecord<'a>),
    AuxtraceError(AuxtraceErrorRecord<'a>),
    ThreadMap(ThreadMapRecord<'a>),
    CpuMap(CpuMapRecord<'a>),
    StatConfig(StatConfigRecord<'a>),
    Stat(StatRecord),
    StatRound(StatRoundRecord),
    EventUpdate(EventUpdateRecord<'a>),
    TimeConv(TimeConvRecord),
    HeaderFeature(HeaderFeatureRecord<'a>),
    /// A COMPRESSED/COMPRESSED2 record itself (only yielded when asked for; normally its decompressed
    /// records are yielded in its place).
    Compressed(CompressedRecord<'a>),
    FinishedInit,
    BpfMetadata(BpfMetadataRecord<'a>),
    /// SCHEDSTAT_CPU / SCHEDSTAT_DOMAIN: header fields decoded, version-specific counters raw.
    Schedstat(SchedstatRecord<'a>),
    /// simpleperf's KERNEL_SYMBOL (32769): the device's kallsyms.
    SimpleperfKernelSymbol(SimpleperfKernelSymbolRecord<'a>),
    /// simpleperf's DSO (32770).
    SimpleperfDso(SimpleperfDsoRecord<'a>),
    /// simpleperf's SYMBOL (32771).
    SimpleperfSymbol(SimpleperfSymbolRecord<'a>),
    /// simpleperf's EVENT_ID (32774).
    SimpleperfEventId(SimpleperfEventIdRecord<'a>),
    /// simpleperf's CALLCHAIN (32775).
    SimpleperfCallChain(SimpleperfCallChainRecord<'a>),
    /// simpleperf's UNWINDING_RESULT (32776).
    SimpleperfUnwindingResult(SimpleperfUnwindingResultRecord<'a>),
    /// simpleperf's DEBUG (32778).
    SimpleperfDebug(SimpleperfDebugRecord<'a>),
    /// A type this crate does not know: the body after the 8-byte header (without the sample_id
    /// trailer for kernel types, which is in [`Record::sample_id`]), raw.
    Unknown(&'a [u8]),
}

impl<'a> RecordKind<'a> {
    /// An MMAP or MMAP2 record as a [`Mapping`] (MMAP2's own fields `None` for MMAP).
    pub fn mapping(&self) -> Option<Mapping<'a>> {
        match self {
            RecordKind::Mmap(m) => Some(m.into()),
            RecordKind::Mmap2(m) => Some(m.into()),
            _ => None,
        }
    }
}

/// One framed record: its bytes and, for HEADER_TRACING_DATA and AUXTRACE, the out-of-band payload
/// that follows it.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'b> {
    /// Where the record is.
    pub pos: Position,
    /// The decoded header.
    pub header: RecordHeader,
    /// The `header.size` bytes of the record.
    pub bytes: &'b [u8],
    /// Bytes after the record that belong to it (types 66 and 71), else empty.
    pub payload: &'b [u8],
}

/// A record: where it was, its header, the event it belongs to, and its typed body.
#[derive(Clone, Debug, PartialEq)]
pub struct Record<'a> {
    /// Where the record is (offset, and index for decompressed records).
    pub pos: Position,
    /// The record header.
    pub header: RecordHeader,
    /// The event (attr) the record belongs to, per perf's rules; `None` for user records and for
    /// kernel records whose id matched no attr.
    pub event: Option<&'a crate::event::Event>,
    /// The record's sample_id trailer, for kernel records other than SAMPLE with `sample_id_all`.
    pub sample_id: Option<SampleId<'a>>,
    /// The typed body.
    pub kind: RecordKind<'a>,
    /// All bytes of the record, header included (out-of-band payloads are in the typed body).
    pub bytes: &'a [u8],
    /// The events known when the record was read (to resolve ids inside it, e.g. group reads).
    pub events: &'a crate::event::EventList,
}

impl Record<'_> {
    /// perf's name for the record type (`UNKNOWN_<n>` when unknown).
    pub fn type_name(&self) -> std::borrow::Cow<'static, str> {
        record_type::display_name(self.header.type_)
    }

    /// The record's timestamp: a sample's `time`, the trailer's `time` for other kernel records.
    pub fn time(&self) -> Option<u64> {
        match &self.kind {
            RecordKind::Sample(s) => s.time(),
            _ => self.sample_id.and_then(|s| s.time()),
        }
    }
}

/// Decode a framed record. `events` is the event list in force at this point of the stream.
pub fn decode<'a>(frame: Frame<'a>, events: &'a crate::event::EventList, endian: Endian) -> Result<Record<'a>> {
    decode_counting(&frame, events, endian, &std::cell::Cell::new(0))
}

/// [`decode`], adding one to `unknown_ids` for a SAMPLE or READ whose id matches no event (the
/// record is then an error).
#[inline(never)]
pub(crate) fn decode_counting<'a>(
    frame: &Frame<'a>,
    events: &'a crate::event::EventList,
    endian: Endian,
    unknown_ids: &std::cell::Cell<u64>,
) -> Result<Record<'a>> {
    use crate::event::Resolution;
    let h = frame.header;
    let pos = frame.pos;
    let resolution = events.resolve(h.type_, frame.bytes, endian);
    // Hot path: a sample of a known event.
    if h.type_ == record_type::SAMPLE {
        if let Resolution::Event(i) = resolution {
            if let Some(ev) = events.events.get(i) {
                let body = frame.bytes.get(8..).unwrap_or(&[]);
                return match Sample::parse_body(
                    body,
                    endian,
                    ev,
                    Position { offset: pos.offset.saturating_add(8), ..pos },
                ) {
                    Ok(sample) => Ok(Record {
                        pos,
                        // Re-read from the bytes rather than `h`, whose type the compiler knows is 9
                        // here and would store apart from the rest (see `RecordHeader`).
                        header: frame.bytes.first_chunk::<8>().map_or(h, |b| RecordHeader::from_bytes(b, endian)),
                        event: Some(ev),
                        sample_id: None,
                        kind: RecordKind::Sample(sample),
                        bytes: frame.bytes,
                        events,
                    }),
                    Err(e) => Err(e.in_record(pos, "SAMPLE")),
                };
            }
        }
    }
    decode_other(*frame, events, endian, resolution, unknown_ids)
}

/// [`decode`] for everything but a sample of a known event (kept out of the hot path).
#[inline(never)]
fn decode_other<'a>(
    frame: Frame<'a>,
    events: &'a crate::event::EventList,
    endian: Endian,
    resolution: crate::event::Resolution,
    unknown_ids: &std::cell::Cell<u64>,
) -> Result<Record<'a>> {
    use crate::event::Resolution;
    let h = frame.header;
    let pos = frame.pos;
    let name = record_type::name(h.type_).unwrap_or("UNKNOWN");
    let event = match resolution {
        Resolution::Event(i) => events.events.get(i),
        _ => None,
    };
    let body_all = frame.bytes.get(8..).unwrap_or(&[]);
    let base = Position { offset: pos.offset.saturating_add(8), ..pos };
    let wrap = |e: Error| e.in_record(pos, name);
    // Kernel records other than SAMPLE end in a sample_id trailer laid out per their event (or the
    // first event when their id is unknown).
    let mut sample_id = None;
    let mut body = body_all;
    if h.type_ < record_type::USER_START && h.type_ != record_type::SAMPLE {
        let ev = event.or_else(|| events.events.first());
        if let Some(ev) = ev {
            let t = ev.layout.trailer_size;
            if t > 0 {
                let split = body_all.len().checked_sub(t).ok_or_else(|| {
                    wrap(Error::malformed(
                        pos,
                        "sample_id trailer",
                        format!("record body of {} bytes is shorter than the {t}-byte trailer", body_all.len()),
                    ))
                })?;
                let (b, trailer) = body_all.split_at(split);
                let tpos = Position { offset: base.offset.saturating_add(split as u64), ..pos };
                sample_id = Some(SampleId::parse(trailer, ev.attr.sample_type, endian, tpos).map_err(wrap)?);
                body = b;
            }
        }
    }
    let mut r = Reader::new(body, endian, base, name);
    let need_event = || -> Result<&crate::event::Event> {
        match resolution {
            Resolution::Event(_) => {
                event.ok_or_else(|| wrap(Error::malformed(pos, "record", "event index out of range")))
            }
            Resolution::UnknownId(id) => {
                unknown_ids.set(unknown_ids.get().saturating_add(1));
                Err(wrap(Error::malformed(pos, "record", format!("id {id} matches no event in the file"))))
            }
            Resolution::NoEvent => Err(wrap(Error::malformed(pos, "record", "no event (attr) describes this record"))),
        }
    };
    // Each body is read by its parser (next to its type) through `Reader::run`, the one place a
    // parser's error becomes the crate's.
    use kernel as k;

    use record_type as t;
    use simpleperf as sp;
    use user as u;
    let kind = (|| -> Result<RecordKind<'a>> {
        Ok(match h.type_ {
            t::MMAP => RecordKind::Mmap(r.run(k::mmap)?),
            t::LOST => RecordKind::Lost(r.run(k::lost)?),
            t::COMM => RecordKind::Comm(r.run(k::comm(h.misc))?),
            t::EXIT => RecordKind::Exit(r.run(k::task)?),
            t::THROTTLE => RecordKind::Throttle(r.run(k::throttle)?),
            t::UNTHROTTLE => RecordKind::Unthrottle(r.run(k::throttle)?),
            t::FORK => RecordKind::Fork(r.run(k::task)?),
            t::READ => RecordKind::Read(r.run(k::read(need_event()?.attr.read_format))?),
            t::SAMPLE => {
                let ev = need_event()?;
                // Bytes after the last field are accepted (as perf does) and kept: Sample::trailing.
                RecordKind::Sample(Sample::parse(&mut r, ev)?)
            }
            t::MMAP2 => RecordKind::Mmap2(r.run(k::mmap2(h.misc))?),
            t::AUX => RecordKind::Aux(r.run(k::aux)?),
            t::ITRACE_START => RecordKind::ItraceStart(r.run(k::itrace_start)?),
            t::LOST_SAMPLES => RecordKind::LostSamples(r.run(k::lost_samples)?),
            t::SWITCH => RecordKind::Switch,
            t::SWITCH_CPU_WIDE => RecordKind::SwitchCpuWide(r.run(k::switch_cpu_wide)?),
            t::NAMESPACES => RecordKind::Namespaces(r.run(k::namespaces)?),
            t::KSYMBOL => RecordKind::Ksymbol(r.run(k::ksymbol)?),
            t::BPF_EVENT => RecordKind::BpfEvent(r.run(k::bpf_event)?),
            t::CGROUP => RecordKind::Cgroup(r.run(k::cgroup)?),
            t::TEXT_POKE => RecordKind::TextPoke(r.run(k::text_poke)?),
            t::AUX_OUTPUT_HW_ID => RecordKind::AuxOutputHwId(r.run(k::aux_output_hw_id)?),
            t::CALLCHAIN_DEFERRED => RecordKind::CallchainDeferred(r.run(k::callchain_deferred)?),
            t::HEADER_ATTR => RecordKind::HeaderAttr(r.run(u::header_attr)?),
            t::HEADER_EVENT_TYPE => RecordKind::HeaderEventType(r.run(u::header_event_type)?),
            t::HEADER_TRACING_DATA | t::SIMPLEPERF_TRACING_DATA => {
                RecordKind::HeaderTracingData(r.run(u::tracing_data(h, frame.payload))?)
            }
            t::HEADER_BUILD_ID => RecordKind::HeaderBuildId(r.run(u::build_id(h.misc))?),
            t::FINISHED_ROUND => RecordKind::FinishedRound,
            t::ID_INDEX => RecordKind::IdIndex(r.run(u::id_index)?),
            t::AUXTRACE_INFO => RecordKind::AuxtraceInfo(r.run(u::auxtrace_info)?),
            t::AUXTRACE => RecordKind::Auxtrace(r.run(u::auxtrace(frame.payload))?),
            t::AUXTRACE_ERROR => RecordKind::AuxtraceError(r.run(u::auxtrace_error)?),
            t::THREAD_MAP => RecordKind::ThreadMap(r.run(u::thread_map)?),
            t::CPU_MAP => RecordKind::CpuMap(r.run(u::cpu_map)?),
            t::STAT_CONFIG => RecordKind::StatConfig(r.run(u::stat_config)?),
            t::STAT => RecordKind::Stat(r.run(u::stat)?),
            t::STAT_ROUND => RecordKind::StatRound(r.run(u::stat_round)?),
            t::EVENT_UPDATE => RecordKind::EventUpdate(r.run(u::event_update)?),
            t::TIME_CONV => RecordKind::TimeConv(r.run(u::time_conv)?),
            t::HEADER_FEATURE => RecordKind::HeaderFeature(r.run(u::header_feature)?),
            t::COMPRESSED => RecordKind::Compressed(r.run(u::compressed)?),
            t::COMPRESSED2 => RecordKind::Compressed(r.run(u::compressed2)?),
            t::FINISHED_INIT => RecordKind::FinishedInit,
            t::BPF_METADATA => RecordKind::BpfMetadata(r.run(u::bpf_metadata)?),
            t::SCHEDSTAT_CPU | t::SCHEDSTAT_DOMAIN => {
                RecordKind::Schedstat(r.run(u::schedstat(h.type_ == t::SCHEDSTAT_DOMAIN))?)
            }
            t::SIMPLEPERF_KERNEL_SYMBOL => RecordKind::SimpleperfKernelSymbol(r.run(sp::simpleperf_kernel_symbol)?),
            t::SIMPLEPERF_DSO => RecordKind::SimpleperfDso(r.run(sp::simpleperf_dso)?),
            t::SIMPLEPERF_SYMBOL => RecordKind::SimpleperfSymbol(r.run(sp::simpleperf_symbol)?),
            t::SIMPLEPERF_EVENT_ID => RecordKind::SimpleperfEventId(r.run(sp::simpleperf_event_id)?),
            t::SIMPLEPERF_CALLCHAIN => RecordKind::SimpleperfCallChain(r.run(sp::simpleperf_callchain)?),
            t::SIMPLEPERF_UNWINDING_RESULT => {
                RecordKind::SimpleperfUnwindingResult(r.run(sp::simpleperf_unwinding_result)?)
            }
            t::SIMPLEPERF_DEBUG => RecordKind::SimpleperfDebug(r.run(sp::simpleperf_debug)?),
            // Kernel types carry a sample_id trailer (parsed above); the raw body excludes it.
            _ => RecordKind::Unknown(body),
        })
    })()
    .map_err(wrap)?;
    Ok(Record { pos, header: h, event, sample_id, kind, bytes: frame.bytes, events })
}

/// The tracing data record of `frame` (perf's or simpleperf's framing), without the rest of
/// [`decode`]'s work.
pub(crate) fn decode_tracing_data<'a>(frame: &Frame<'a>, endian: Endian) -> Result<TracingDataRecord<'a>> {
    let name = record_type::name(frame.header.type_).unwrap_or("UNKNOWN");
    let base = Position { offset: frame.pos.offset.saturating_add(8), ..frame.pos };
    let mut r = Reader::new(frame.bytes.get(8..).unwrap_or(&[]), endian, base, name);
    TracingDataRecord::parse(&mut r, frame.header, frame.payload).map_err(|e| e.in_record(frame.pos, name))
}
