//! Kernel record bodies (types 1–22 except SAMPLE), perf_event.h layouts. Each `parse` takes a reader
//! over the body: the bytes after the 8-byte header, without the sample_id trailer.

use crate::attr::EventAttr;
use crate::error::Result;
use crate::reader::{Reader, U64s};
use crate::sample::ReadValues;

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

impl<'a> MmapRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::mmap)
    }
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

impl<'a> Mmap2Record<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>, misc: u16) -> Result<Self> {
        r.run(crate::parse::record::mmap2(misc))
    }
}

/// PERF_RECORD_LOST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct LostRecord {
    pub id: u64,
    pub lost: u64,
}

impl LostRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::lost)
    }
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

impl<'a> CommRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>, misc: u16) -> Result<Self> {
        r.run(crate::parse::record::comm(misc))
    }
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

impl TaskRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::task)
    }
}

/// PERF_RECORD_THROTTLE / UNTHROTTLE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct ThrottleRecord {
    pub time: u64,
    pub id: u64,
    pub stream_id: u64,
}

impl ThrottleRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::throttle)
    }
}

/// PERF_RECORD_READ: counter values of a task at exit (`perf record -s`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct ReadRecord<'a> {
    pub pid: u32,
    pub tid: u32,
    pub values: ReadValues<'a>,
}

impl<'a> ReadRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>, attr: &EventAttr) -> Result<Self> {
        r.run(crate::parse::record::read(attr.read_format))
    }
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

impl AuxRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::aux)
    }
}

/// PERF_RECORD_ITRACE_START.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct ItraceStartRecord {
    pub pid: u32,
    pub tid: u32,
}

impl ItraceStartRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::itrace_start)
    }
}

/// PERF_RECORD_LOST_SAMPLES (`misc & LOST_SAMPLES_BPF`: dropped by a BPF filter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct LostSamplesRecord {
    pub lost: u64,
}

impl LostSamplesRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::lost_samples)
    }
}

/// PERF_RECORD_SWITCH_CPU_WIDE: the next task when switching out, the previous when switching in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct SwitchCpuWideRecord {
    pub next_prev_pid: u32,
    pub next_prev_tid: u32,
}

impl SwitchCpuWideRecord {
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        r.run(crate::parse::record::switch_cpu_wide)
    }
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
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::namespaces)
    }

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

impl<'a> KsymbolRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::ksymbol)
    }
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

impl<'a> BpfEventRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::bpf_event)
    }
}

/// PERF_RECORD_CGROUP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct CgroupRecord<'a> {
    pub id: u64,
    pub path: &'a [u8],
}

impl<'a> CgroupRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::cgroup)
    }
}

/// PERF_RECORD_TEXT_POKE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct TextPokeRecord<'a> {
    pub addr: u64,
    pub old_bytes: &'a [u8],
    pub new_bytes: &'a [u8],
}

impl<'a> TextPokeRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::text_poke)
    }
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

impl<'a> CallchainDeferredRecord<'a> {
    pub(crate) fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::callchain_deferred)
    }
}
