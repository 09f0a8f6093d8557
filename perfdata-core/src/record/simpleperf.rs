//! simpleperf's own records (types 32768 and up, simpleperf's record.h / record.cpp). Their header
//! has a 32-bit size ([`super::RecordHeader::record_size`]); SIMPLEPERF_SPLIT / SPLIT_END pieces
//! are joined into the record they split by the framing ([`crate::stream`]); the tracing data
//! record (32777) is a [`super::TracingDataRecord`].

use crate::error::Result;
use crate::reader::{malformed, str_to_end, take, take_u64, u32, u64, u64s, words};
use crate::reader::{until_nul, PResult};
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
        r.run(simpleperf_kernel_symbol)
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
        r.run(simpleperf_dso)
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
        r.run(simpleperf_symbol)
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
        r.run(simpleperf_event_id)
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
        r.run(simpleperf_callchain)
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
        r.run(simpleperf_unwinding_result)
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
        r.run(simpleperf_debug)
    }
}

// The nom parsers of simpleperf's record bodies (record.h).

/// SIMPLEPERF_KERNEL_SYMBOL: `u32 size`, the kallsyms text.
pub fn simpleperf_kernel_symbol(input: Reader<'_>) -> PResult<'_, SimpleperfKernelSymbolRecord<'_>> {
    let (input, n) = u32(input)?;
    let (input, kallsyms) = take(n as usize)(input)?;
    Ok((input, SimpleperfKernelSymbolRecord { kallsyms }))
}

/// SIMPLEPERF_DSO: dso_type, dso_id, min_vaddr, name.
pub fn simpleperf_dso(input: Reader<'_>) -> PResult<'_, SimpleperfDsoRecord<'_>> {
    let (input, dso_type) = u64(input)?;
    let (input, dso_id) = u64(input)?;
    let (input, min_vaddr) = u64(input)?;
    let (input, name) = str_to_end(input)?;
    Ok((input, SimpleperfDsoRecord { dso_type, dso_id, min_vaddr, name }))
}

/// SIMPLEPERF_SYMBOL: addr, len, dso_id, name.
pub fn simpleperf_symbol(input: Reader<'_>) -> PResult<'_, SimpleperfSymbolRecord<'_>> {
    let (input, addr) = u64(input)?;
    let (input, len) = u64(input)?;
    let (input, dso_id) = u64(input)?;
    let (input, name) = str_to_end(input)?;
    Ok((input, SimpleperfSymbolRecord { addr, len, dso_id, name }))
}

/// SIMPLEPERF_EVENT_ID: count, `{attr_id, event_id}[count]`.
pub fn simpleperf_event_id(input: Reader<'_>) -> PResult<'_, SimpleperfEventIdRecord<'_>> {
    let (input, n) = u64(input)?;
    let (input, data) = words(n, 2, "count {}")(input)?;
    Ok((input, SimpleperfEventIdRecord { count: n, data }))
}

/// SIMPLEPERF_CALLCHAIN: pid, tid, chain_type, time, ip_nr, `ips[ip_nr]`, `sps[ip_nr]`.
pub fn simpleperf_callchain(input: Reader<'_>) -> PResult<'_, SimpleperfCallChainRecord<'_>> {
    let (input, pid) = u32(input)?;
    let (input, tid) = u32(input)?;
    let (input, chain_type) = u64(input)?;
    let (input, time) = u64(input)?;
    let (input, n) = u64(input)?;
    let (input, ips) = u64s(n)(input)?;
    let (input, sps) = u64s(n)(input)?;
    Ok((input, SimpleperfCallChainRecord { pid, tid, chain_type, time, ips, sps }))
}

/// SIMPLEPERF_UNWINDING_RESULT: time, used_time, error_code, error_addr, stack_start, stack_end,
/// regs_abi, regs_mask, regs, stack size, stack and dyn_size (when the size is not 0), then (newer
/// files) callchain_nr, ips, sps.
pub fn simpleperf_unwinding_result(input: Reader<'_>) -> PResult<'_, SimpleperfUnwindingResultRecord<'_>> {
    let (input, time) = u64(input)?;
    let (input, used_time) = u64(input)?;
    let (input, error_code) = u64(input)?;
    let (input, error_addr) = u64(input)?;
    let (input, stack_start) = u64(input)?;
    let (input, stack_end) = u64(input)?;
    let (input, regs_abi) = u64(input)?;
    let (input, regs_mask) = u64(input)?;
    let (input, regs) = u64s(regs_mask.count_ones().into())(input)?;
    let (input, size) = u64(input)?;
    let (input, stack, dyn_size) = if size == 0 {
        (input, &[][..], 0)
    } else {
        let (input, stack) = take_u64(size)(input)?;
        let (input, dyn_size) = u64(input)?;
        (input, stack, dyn_size)
    };
    let (input, n) = if input.remaining() > 0 { u64(input)? } else { (input, 0) };
    let (input, ips) = u64s(n)(input)?;
    let (input, sps) = u64s(n)(input)?;
    let r = SimpleperfUnwindingResultRecord {
        time,
        used_time,
        error_code,
        error_addr,
        stack_start,
        stack_end,
        regs_abi,
        regs_mask,
        regs,
        stack,
        dyn_size,
        ips,
        sps,
    };
    Ok((input, r))
}

/// SIMPLEPERF_DEBUG: time, a NUL-terminated message.
pub fn simpleperf_debug(input: Reader<'_>) -> PResult<'_, SimpleperfDebugRecord<'_>> {
    let (input, time) = u64(input)?;
    let rest = input.rest();
    let message = until_nul(rest);
    if message.len() == rest.len() {
        return malformed(&input, "message without its NUL", [0; 2]);
    }
    let (input, _) = take(rest.len())(input)?;
    Ok((input, SimpleperfDebugRecord { time, message }))
}
