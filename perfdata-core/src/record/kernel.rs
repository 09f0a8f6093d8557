//! Kernel record bodies (types 1–22 except SAMPLE), perf_event.h layouts. Each `parse` takes a reader
//! over the body: the bytes after the 8-byte header, without the sample_id trailer.

use crate::abi::misc;
use crate::reader::PResult;
use crate::reader::{str_to_end, take, u16, u32, u64, u64s, words};
use crate::reader::{Reader, U64s};
use crate::sample::{read_values, ReadValues};

/// PERF_RECORD_MMAP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct MmapRecord<'a> {
    pub pid: u32,
    pub tid: u32,
    pub addr: u64,
    pub len: u64,
    pub pgoff: u64,
    pub filename: &'a [u8],
}

/// The 24-byte union of MMAP2: device/inode, or a build id (`misc & MMAP_BUILD_ID`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Mmap2Id<'a> {
    Inode {
        maj: u32,
        min: u32,
        ino: u64,
        ino_generation: u64,
    },
    /// `build_id[..build_id_size]` (the size byte is kept raw too: it can exceed 20 in bad files).
    BuildId {
        build_id_size: u8,
        build_id: &'a [u8],
        raw: &'a [u8],
    },
}

/// PERF_RECORD_MMAP2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Mmap2Record<'a> {
    pub pid: u32,
    pub tid: u32,
    pub addr: u64,
    pub len: u64,
    pub pgoff: u64,
    pub id: Mmap2Id<'a>,
    pub prot: u32,
    pub flags: u32,
    pub filename: &'a [u8],
}

/// MMAP and MMAP2 seen alike ([`super::RecordKind::mapping`]): what both carry, and MMAP2's own
/// fields when the record is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping<'a> {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// File offset of `addr`.
    pub pgoff: u64,
    /// The mapped file's name (NUL padding removed).
    pub filename: &'a [u8],
    /// MMAP2 only: device/inode or build id.
    pub id: Option<Mmap2Id<'a>>,
    /// MMAP2 only: `PROT_*` bits.
    pub prot: Option<u32>,
    /// MMAP2 only: `MAP_*` flags.
    pub flags: Option<u32>,
}

impl<'a> Mapping<'a> {
    /// The build id an MMAP2 carries (`misc & MMAP_BUILD_ID`).
    pub fn build_id(&self) -> Option<&'a [u8]> {
        match self.id {
            Some(Mmap2Id::BuildId { build_id, .. }) => Some(build_id),
            _ => None,
        }
    }
}

impl<'a> From<&MmapRecord<'a>> for Mapping<'a> {
    fn from(m: &MmapRecord<'a>) -> Self {
        let MmapRecord { pid, tid, addr, len, pgoff, filename } = *m;
        Mapping { pid, tid, addr, len, pgoff, filename, id: None, prot: None, flags: None }
    }
}

impl<'a> From<&Mmap2Record<'a>> for Mapping<'a> {
    fn from(m: &Mmap2Record<'a>) -> Self {
        let Mmap2Record { pid, tid, addr, len, pgoff, id, prot, flags, filename } = *m;
        Mapping { pid, tid, addr, len, pgoff, filename, id: Some(id), prot: Some(prot), flags: Some(flags) }
    }
}

/// PERF_RECORD_LOST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct LostRecord {
    pub id: u64,
    pub lost: u64,
}

/// PERF_RECORD_COMM (`misc & COMM_EXEC` when caused by exec).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct CommRecord<'a> {
    pub pid: u32,
    pub tid: u32,
    pub comm: &'a [u8],
    /// The comm changed because of an exec.
    pub exec: bool,
}

/// PERF_RECORD_FORK and PERF_RECORD_EXIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct TaskRecord {
    pub pid: u32,
    pub ppid: u32,
    pub tid: u32,
    pub ptid: u32,
    pub time: u64,
}

/// PERF_RECORD_THROTTLE / UNTHROTTLE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct ThrottleRecord {
    pub time: u64,
    pub id: u64,
    pub stream_id: u64,
}

/// PERF_RECORD_READ: counter values of a task at exit (`perf record -s`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct ReadRecord<'a> {
    pub pid: u32,
    pub tid: u32,
    pub values: ReadValues<'a>,
}

/// PERF_RECORD_AUX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct AuxRecord {
    pub aux_offset: u64,
    pub aux_size: u64,
    /// 0x1 TRUNCATED, 0x2 OVERWRITE, 0x4 PARTIAL, 0x8 COLLISION, 0xff00 PMU format type.
    pub flags: u64,
}

/// PERF_RECORD_ITRACE_START.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct ItraceStartRecord {
    pub pid: u32,
    pub tid: u32,
}

/// PERF_RECORD_LOST_SAMPLES (`misc & LOST_SAMPLES_BPF`: dropped by a BPF filter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct LostSamplesRecord {
    pub lost: u64,
}

/// PERF_RECORD_SWITCH_CPU_WIDE: the next task when switching out, the previous when switching in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct SwitchCpuWideRecord {
    pub next_prev_pid: u32,
    pub next_prev_tid: u32,
}

/// PERF_RECORD_NAMESPACES: `{dev, inode}` pairs indexed net, uts, ipc, pid, user, mnt, cgroup, (time).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct NamespacesRecord<'a> {
    pub pid: u32,
    pub tid: u32,
    pub nr_namespaces: u64,
    /// `2 * nr_namespaces` u64: dev, inode, dev, inode, …
    pub link_info: U64s<'a>,
}

/// Names of namespace indexes in NAMESPACES records.
pub const NAMESPACE_NAMES: [&str; 8] = ["net", "uts", "ipc", "pid", "user", "mnt", "cgroup", "time"];

impl<'a> NamespacesRecord<'a> {
    /// The `(dev, inode)` of namespace `i`.
    pub fn namespace(&self, i: usize) -> Option<(u64, u64)> {
        Some((self.link_info.get(2 * i)?, self.link_info.get(2 * i + 1)?))
    }
}

/// PERF_RECORD_KSYMBOL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct KsymbolRecord<'a> {
    pub addr: u64,
    pub len: u32,
    /// 0 unknown, 1 BPF, 2 OOL.
    pub ksym_type: u16,
    /// bit 0: UNREGISTER.
    pub flags: u16,
    pub name: &'a [u8],
}

/// PERF_RECORD_BPF_EVENT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct BpfEventRecord<'a> {
    /// 1 PROG_LOAD, 2 PROG_UNLOAD.
    pub type_: u16,
    pub flags: u16,
    pub id: u32,
    pub tag: &'a [u8],
}

/// PERF_RECORD_CGROUP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct CgroupRecord<'a> {
    pub id: u64,
    pub path: &'a [u8],
}

/// PERF_RECORD_TEXT_POKE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct TextPokeRecord<'a> {
    pub addr: u64,
    pub old_bytes: &'a [u8],
    pub new_bytes: &'a [u8],
}

/// PERF_RECORD_AUX_OUTPUT_HW_ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct AuxOutputHwIdRecord {
    pub hw_id: u64,
}

/// PERF_RECORD_CALLCHAIN_DEFERRED: user frames for earlier samples ending in USER_DEFERRED + cookie.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct CallchainDeferredRecord<'a> {
    pub cookie: u64,
    pub ips: U64s<'a>,
}

// The nom parsers of the kernel record bodies (`perf_event.h`).

/// PERF_RECORD_MMAP: pid, tid, addr, len, pgoff, filename.
pub fn mmap(input: Reader<'_>) -> PResult<'_, MmapRecord<'_>> {
    let (input, pid) = u32(input)?;
    let (input, tid) = u32(input)?;
    let (input, addr) = u64(input)?;
    let (input, len) = u64(input)?;
    let (input, pgoff) = u64(input)?;
    let (input, filename) = str_to_end(input)?;
    Ok((input, MmapRecord { pid, tid, addr, len, pgoff, filename }))
}

/// PERF_RECORD_MMAP2: as MMAP, then device/inode or (`misc & MMAP_BUILD_ID`) a build id in the
/// same 24 bytes, prot, flags, filename.
pub fn mmap2<'a>(record_misc: u16) -> impl Fn(Reader<'a>) -> PResult<'a, Mmap2Record<'a>> {
    move |input: Reader<'a>| {
        let (input, pid) = u32(input)?;
        let (input, tid) = u32(input)?;
        let (input, addr) = u64(input)?;
        let (input, len) = u64(input)?;
        let (input, pgoff) = u64(input)?;
        let (input, id) = if record_misc & misc::MMAP_BUILD_ID != 0 {
            let (input, raw) = take(24)(input)?;
            let size = raw.first().copied().unwrap_or(0);
            let ids = raw.get(4..).unwrap_or(&[]);
            let build_id = ids.get(..usize::from(size)).unwrap_or(ids);
            (input, Mmap2Id::BuildId { build_id_size: size, build_id, raw })
        } else {
            let (input, maj) = u32(input)?;
            let (input, min) = u32(input)?;
            let (input, ino) = u64(input)?;
            let (input, ino_generation) = u64(input)?;
            (input, Mmap2Id::Inode { maj, min, ino, ino_generation })
        };
        let (input, prot) = u32(input)?;
        let (input, flags) = u32(input)?;
        let (input, filename) = str_to_end(input)?;
        Ok((input, Mmap2Record { pid, tid, addr, len, pgoff, id, prot, flags, filename }))
    }
}

/// PERF_RECORD_LOST: id, lost.
pub fn lost(input: Reader<'_>) -> PResult<'_, LostRecord> {
    let (input, id) = u64(input)?;
    let (input, lost) = u64(input)?;
    Ok((input, LostRecord { id, lost }))
}

/// PERF_RECORD_COMM: pid, tid, comm (`misc & COMM_EXEC`: caused by an exec).
pub fn comm<'a>(record_misc: u16) -> impl Fn(Reader<'a>) -> PResult<'a, CommRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, pid) = u32(input)?;
        let (input, tid) = u32(input)?;
        let (input, comm) = str_to_end(input)?;
        Ok((input, CommRecord { pid, tid, comm, exec: record_misc & misc::COMM_EXEC != 0 }))
    }
}

/// PERF_RECORD_FORK and PERF_RECORD_EXIT: pid, ppid, tid, ptid, time.
pub fn task(input: Reader<'_>) -> PResult<'_, TaskRecord> {
    let (input, pid) = u32(input)?;
    let (input, ppid) = u32(input)?;
    let (input, tid) = u32(input)?;
    let (input, ptid) = u32(input)?;
    let (input, time) = u64(input)?;
    Ok((input, TaskRecord { pid, ppid, tid, ptid, time }))
}

/// PERF_RECORD_THROTTLE and UNTHROTTLE: time, id, stream_id.
pub fn throttle(input: Reader<'_>) -> PResult<'_, ThrottleRecord> {
    let (input, time) = u64(input)?;
    let (input, id) = u64(input)?;
    let (input, stream_id) = u64(input)?;
    Ok((input, ThrottleRecord { time, id, stream_id }))
}

/// PERF_RECORD_READ: pid, tid, then the values laid out by the event's `read_format`.
pub fn read<'a>(read_format: u64) -> impl Fn(Reader<'a>) -> PResult<'a, ReadRecord<'a>> {
    move |input: Reader<'a>| {
        let (input, pid) = u32(input)?;
        let (input, tid) = u32(input)?;
        let (input, values) = read_values(read_format)(input)?;
        Ok((input, ReadRecord { pid, tid, values }))
    }
}

/// PERF_RECORD_AUX: aux_offset, aux_size, flags.
pub fn aux(input: Reader<'_>) -> PResult<'_, AuxRecord> {
    let (input, aux_offset) = u64(input)?;
    let (input, aux_size) = u64(input)?;
    let (input, flags) = u64(input)?;
    Ok((input, AuxRecord { aux_offset, aux_size, flags }))
}

/// PERF_RECORD_ITRACE_START: pid, tid.
pub fn itrace_start(input: Reader<'_>) -> PResult<'_, ItraceStartRecord> {
    let (input, pid) = u32(input)?;
    let (input, tid) = u32(input)?;
    Ok((input, ItraceStartRecord { pid, tid }))
}

/// PERF_RECORD_LOST_SAMPLES: lost.
pub fn lost_samples(input: Reader<'_>) -> PResult<'_, LostSamplesRecord> {
    u64(input).map(|(rest, lost)| (rest, LostSamplesRecord { lost }))
}

/// PERF_RECORD_SWITCH_CPU_WIDE: next_prev_pid, next_prev_tid.
pub fn switch_cpu_wide(input: Reader<'_>) -> PResult<'_, SwitchCpuWideRecord> {
    let (input, next_prev_pid) = u32(input)?;
    let (input, next_prev_tid) = u32(input)?;
    Ok((input, SwitchCpuWideRecord { next_prev_pid, next_prev_tid }))
}

/// PERF_RECORD_NAMESPACES: pid, tid, nr_namespaces, `{dev, inode}[nr_namespaces]`.
pub fn namespaces(input: Reader<'_>) -> PResult<'_, NamespacesRecord<'_>> {
    let (input, pid) = u32(input)?;
    let (input, tid) = u32(input)?;
    let (input, nr) = u64(input)?;
    let (input, link_info) = words(nr, 2, "nr_namespaces {}")(input)?;
    Ok((input, NamespacesRecord { pid, tid, nr_namespaces: nr, link_info }))
}

/// PERF_RECORD_KSYMBOL: addr, len, ksym_type, flags, name.
pub fn ksymbol(input: Reader<'_>) -> PResult<'_, KsymbolRecord<'_>> {
    let (input, addr) = u64(input)?;
    let (input, len) = u32(input)?;
    let (input, ksym_type) = u16(input)?;
    let (input, flags) = u16(input)?;
    let (input, name) = str_to_end(input)?;
    Ok((input, KsymbolRecord { addr, len, ksym_type, flags, name }))
}

/// PERF_RECORD_BPF_EVENT: type, flags, id, `tag[8]`.
pub fn bpf_event(input: Reader<'_>) -> PResult<'_, BpfEventRecord<'_>> {
    let (input, type_) = u16(input)?;
    let (input, flags) = u16(input)?;
    let (input, id) = u32(input)?;
    let (input, tag) = take(8)(input)?;
    Ok((input, BpfEventRecord { type_, flags, id, tag }))
}

/// PERF_RECORD_CGROUP: id, path.
pub fn cgroup(input: Reader<'_>) -> PResult<'_, CgroupRecord<'_>> {
    let (input, id) = u64(input)?;
    let (input, path) = str_to_end(input)?;
    Ok((input, CgroupRecord { id, path }))
}

/// PERF_RECORD_TEXT_POKE: addr, old_len, new_len, old bytes, new bytes.
pub fn text_poke(input: Reader<'_>) -> PResult<'_, TextPokeRecord<'_>> {
    let (input, addr) = u64(input)?;
    let (input, old_len) = u16(input)?;
    let (input, new_len) = u16(input)?;
    let (input, old_bytes) = take(old_len.into())(input)?;
    let (input, new_bytes) = take(new_len.into())(input)?;
    Ok((input, TextPokeRecord { addr, old_bytes, new_bytes }))
}

/// PERF_RECORD_AUX_OUTPUT_HW_ID: hw_id.
pub fn aux_output_hw_id(input: Reader<'_>) -> PResult<'_, AuxOutputHwIdRecord> {
    u64(input).map(|(rest, hw_id)| (rest, AuxOutputHwIdRecord { hw_id }))
}

/// PERF_RECORD_CALLCHAIN_DEFERRED: cookie, nr, `ips[nr]`.
pub fn callchain_deferred(input: Reader<'_>) -> PResult<'_, CallchainDeferredRecord<'_>> {
    let (input, cookie) = u64(input)?;
    let (input, nr) = u64(input)?;
    let (input, ips) = u64s(nr)(input)?;
    Ok((input, CallchainDeferredRecord { cookie, ips }))
}
