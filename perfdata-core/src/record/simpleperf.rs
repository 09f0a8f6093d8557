//! simpleperf's own records (types 32768 and up, simpleperf's record.h / record.cpp). Their header
//! has a 32-bit size ([`super::RecordHeader::record_size`]); SIMPLEPERF_SPLIT / SPLIT_END pieces
//! are joined into the record they split by the framing ([`crate::stream`]); the tracing data
//! record (32777) is a [`super::TracingDataRecord`].

use crate::error::Result;
use crate::reader::{Reader, U64s};

/// SIMPLEPERF_KERNEL_SYMBOL: `u32 size` then the text of `/proc/kallsyms` (padded to 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleperfKernelSymbolRecord<'a> {
    /// The kallsyms text (`ADDR TYPE NAME [MODULE]` lines).
    pub kallsyms: &'a [u8],
}

impl<'a> SimpleperfKernelSymbolRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_kernel_symbol)
    }
}

/// SIMPLEPERF_DSO: a DSO that SIMPLEPERF_SYMBOL records refer to by `dso_id` (older files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleperfDsoRecord<'a> {
    /// [`crate::feature::simpleperf::dso_type`].
    pub dso_type: u64,
    /// The id SIMPLEPERF_SYMBOL records use.
    pub dso_id: u64,
    /// Lowest virtual address of its executable segments.
    pub min_vaddr: u64,
    /// Its path on the device.
    pub name: &'a [u8],
}

impl<'a> SimpleperfDsoRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_dso)
    }
}

/// SIMPLEPERF_SYMBOL: one symbol `[addr, addr + len)` of the DSO record `dso_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleperfSymbolRecord<'a> {
    /// Start (a virtual address of the DSO).
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// The DSO record it belongs to.
    pub dso_id: u64,
    /// The name.
    pub name: &'a [u8],
}

impl<'a> SimpleperfSymbolRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_symbol)
    }
}

/// SIMPLEPERF_EVENT_ID: `count` pairs (attr index, event id), for ids not in the attr section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimpleperfEventIdRecord<'a> {
    /// Number of pairs.
    pub count: u64,
    /// `attr_id, event_id` words, alternating.
    pub data: U64s<'a>,
}

impl<'a> SimpleperfEventIdRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_event_id)
    }

    /// The (attr index, event id) pairs.
    pub fn pairs(&self) -> impl Iterator<Item = (u64, u64)> + 'a {
        let d = self.data;
        (0..d.len() / 2).filter_map(move |i| Some((d.get(2 * i)?, d.get(2 * i + 1)?)))
    }
}

/// SIMPLEPERF_CALLCHAIN: a callchain simpleperf joined after recording (`--post-unwind`,
/// CallChainJoiner), for the sample of `pid`/`tid` at `time`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimpleperfCallChainRecord<'a> {
    /// Process.
    pub pid: u32,
    /// Thread.
    pub tid: u32,
    /// 0 ORIGINAL_OFFLINE, 1 ORIGINAL_REMOTE, 2 JOINED_OFFLINE, 3 JOINED_REMOTE.
    pub chain_type: u64,
    /// The sample's time.
    pub time: u64,
    /// Instruction pointers, leaf first.
    pub ips: U64s<'a>,
    /// Stack pointers, one per ip.
    pub sps: U64s<'a>,
}

impl<'a> SimpleperfCallChainRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_callchain)
    }
}

/// SIMPLEPERF_UNWINDING_RESULT: what offline DWARF unwinding of one sample gave
/// (`--keep-failed-unwinding-result`), with the registers and stack it started from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimpleperfUnwindingResultRecord<'a> {
    /// The sample's time.
    pub time: u64,
    /// Time spent unwinding, ns.
    pub used_time: u64,
    /// simpleperf's unwinding error code (0 none).
    pub error_code: u64,
    /// Address the error is about.
    pub error_addr: u64,
    /// Stack range the unwinder had.
    pub stack_start: u64,
    /// End of that range.
    pub stack_end: u64,
    /// Register ABI.
    pub regs_abi: u64,
    /// Register mask.
    pub regs_mask: u64,
    /// One value per mask bit.
    pub regs: U64s<'a>,
    /// The user stack bytes.
    pub stack: &'a [u8],
    /// Bytes of the stack that were valid (0 when no stack was stored).
    pub dyn_size: u64,
    /// The unwound instruction pointers (absent in old files: empty).
    pub ips: U64s<'a>,
    /// Their stack pointers.
    pub sps: U64s<'a>,
}

impl<'a> SimpleperfUnwindingResultRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_unwinding_result)
    }
}

/// SIMPLEPERF_DEBUG: a message simpleperf logged into the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleperfDebugRecord<'a> {
    /// When.
    pub time: u64,
    /// The message (up to its NUL).
    pub message: &'a [u8],
}

impl<'a> SimpleperfDebugRecord<'a> {
    /// Parse the body after the record header.
    pub fn parse(r: &mut Reader<'a>) -> Result<Self> {
        r.run(crate::parse::record::simpleperf_debug)
    }
}
