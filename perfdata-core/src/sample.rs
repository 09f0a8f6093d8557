//! PERF_RECORD_SAMPLE: every field in the kernel's emit order (`perf_output_sample`), borrowed.

use crate::attr::{branch_sample_type, read_format as rf, sample_type as st, EventAttr};
use crate::error::Result;
use crate::reader::{Endian, Reader, U64s};

/// A read_format block (sample READ field or READ record).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadValues<'a> {
    /// The `read_format` it was decoded with.
    pub read_format: u64,
    /// `nr` for group reads (None for a single counter).
    pub nr: Option<u64>,
    /// TOTAL_TIME_ENABLED.
    pub time_enabled: Option<u64>,
    /// TOTAL_TIME_RUNNING.
    pub time_running: Option<u64>,
    /// The value of a non-group read.
    single: Option<ReadValue>,
    /// Group entries, each `1 + [ID] + [LOST]` u64.
    group: U64s<'a>,
}

/// One counter value of a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadValue {
    /// The counter value.
    pub value: u64,
    /// With `PERF_FORMAT_ID`.
    pub id: Option<u64>,
    /// With `PERF_FORMAT_LOST`.
    pub lost: Option<u64>,
}

impl<'a> ReadValues<'a> {
    /// Parse a block for `read_format` (reference §5.3).
    pub fn parse(r: &mut Reader<'a>, read_format: u64) -> Result<Self> {
        let opt = |r: &mut Reader<'a>, bit: u64| -> Result<Option<u64>> {
            if read_format & bit != 0 {
                r.u64().map(Some)
            } else {
                Ok(None)
            }
        };
        if read_format & rf::GROUP != 0 {
            let stride =
                1 + u64::from(read_format & rf::ID != 0) + u64::from(read_format & rf::LOST != 0);
            let nr = r.u64()?;
            let time_enabled = opt(r, rf::TOTAL_TIME_ENABLED)?;
            let time_running = opt(r, rf::TOTAL_TIME_RUNNING)?;
            let words = nr
                .checked_mul(stride)
                .ok_or_else(|| r.malformed(format!("read group nr {nr}")))?;
            let group = r.u64s(words)?;
            Ok(ReadValues {
                read_format,
                nr: Some(nr),
                time_enabled,
                time_running,
                single: None,
                group,
            })
        } else {
            let value = r.u64()?;
            let time_enabled = opt(r, rf::TOTAL_TIME_ENABLED)?;
            let time_running = opt(r, rf::TOTAL_TIME_RUNNING)?;
            let id = opt(r, rf::ID)?;
            let lost = opt(r, rf::LOST)?;
            let single = Some(ReadValue { value, id, lost });
            Ok(ReadValues {
                read_format,
                nr: None,
                time_enabled,
                time_running,
                single,
                group: U64s::new(&[], r.endian()),
            })
        }
    }

    /// The values (one for a non-group read), leader first.
    pub fn values(&self) -> impl Iterator<Item = ReadValue> + 'a {
        let has_id = self.read_format & rf::ID != 0;
        let has_lost = self.read_format & rf::LOST != 0;
        let stride = 1 + usize::from(has_id) + usize::from(has_lost);
        let g = self.group;
        let group = (0..g.len() / stride).map(move |i| {
            let base = i * stride;
            ReadValue {
                value: g.get(base).unwrap_or(0),
                id: has_id.then(|| g.get(base + 1).unwrap_or(0)),
                lost: has_lost.then(|| g.get(base + 1 + usize::from(has_id)).unwrap_or(0)),
            }
        });
        self.single.into_iter().chain(group)
    }
}

/// Branch stack (PERF_SAMPLE_BRANCH_STACK).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BranchStack<'a> {
    /// `nr`.
    pub nr: u64,
    /// `hw_idx` (only with `PERF_SAMPLE_BRANCH_HW_INDEX`).
    pub hw_idx: Option<u64>,
    entries: &'a [u8],
    /// Branch counters (`PERF_SAMPLE_BRANCH_COUNTERS` groups), one u64 per entry.
    pub counters: Option<U64s<'a>>,
    endian: Endian,
}

/// One `struct perf_branch_entry` with its flags decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct BranchEntry {
    pub from: u64,
    pub to: u64,
    /// The flags word normalised to little-endian bit numbering.
    pub flags: u64,
}

impl BranchEntry {
    fn bits(&self, lo: u32, w: u32) -> u64 {
        (self.flags >> lo) & ((1 << w) - 1)
    }
    /// Mispredicted.
    pub fn mispred(&self) -> bool {
        self.bits(0, 1) != 0
    }
    /// Predicted.
    pub fn predicted(&self) -> bool {
        self.bits(1, 1) != 0
    }
    /// In a transaction.
    pub fn in_tx(&self) -> bool {
        self.bits(2, 1) != 0
    }
    /// Transaction abort.
    pub fn abort(&self) -> bool {
        self.bits(3, 1) != 0
    }
    /// Cycles since the previous branch (0 = unknown).
    pub fn cycles(&self) -> u16 {
        self.bits(4, 16) as u16
    }
    /// Branch type (PERF_BR_*).
    pub fn branch_type(&self) -> u8 {
        self.bits(20, 4) as u8
    }
    /// Speculation outcome (PERF_BR_SPEC_*).
    pub fn spec(&self) -> u8 {
        self.bits(24, 2) as u8
    }
    /// Extended branch type (PERF_BR_NEW_*).
    pub fn new_type(&self) -> u8 {
        self.bits(26, 4) as u8
    }
    /// Privilege level (PERF_BR_PRIV_*).
    pub fn priv_(&self) -> u8 {
        self.bits(30, 3) as u8
    }
}

/// The little-endian (offset, width) of every perf_branch_entry flag field.
const BRANCH_FIELDS: [(u32, u32); 10] = [
    (0, 1),
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 16),
    (20, 4),
    (24, 2),
    (26, 4),
    (30, 3),
    (33, 31),
];

/// Convert a branch flags word read from a big-endian file to little-endian bit numbering (reference
/// §6.2: a field at LE offset `lo`, width `w` is at `64 - lo - w` in a big-endian file).
pub fn branch_flags_from_be(x: u64) -> u64 {
    let mut out = 0;
    for (lo, w) in BRANCH_FIELDS {
        let mask = (1u64 << w) - 1;
        out |= ((x >> (64 - lo - w)) & mask) << lo;
    }
    out
}

/// The inverse of [`branch_flags_from_be`]: lay out little-endian-numbered flags the big-endian way.
pub fn branch_flags_to_be(x: u64) -> u64 {
    let mut out = 0;
    for (lo, w) in BRANCH_FIELDS {
        let mask = (1u64 << w) - 1;
        out |= ((x >> lo) & mask) << (64 - lo - w);
    }
    out
}

impl<'a> BranchStack<'a> {
    /// The entries.
    pub fn entries(&self) -> impl Iterator<Item = BranchEntry> + 'a {
        let e = self.endian;
        self.entries.chunks_exact(24).map(move |c| {
            let w = |i: usize| c.get(i * 8..i * 8 + 8).map_or(0, |b| e.u64(b));
            let raw = w(2);
            BranchEntry {
                from: w(0),
                to: w(1),
                flags: if e == Endian::Big {
                    branch_flags_from_be(raw)
                } else {
                    raw
                },
            }
        })
    }
    /// The raw entry bytes (24 per entry).
    pub fn raw_entries(&self) -> &'a [u8] {
        self.entries
    }
}

/// Registers (REGS_USER / REGS_INTR).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regs<'a> {
    /// 0 NONE, 1 32-bit, 2 64-bit.
    pub abi: u64,
    /// The attr's register mask (registers are stored in increasing bit order).
    pub mask: u64,
    /// The values (empty when abi is 0).
    pub values: U64s<'a>,
}

impl Regs<'_> {
    /// Iterate `(register bit number, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let bits = (0..64u32).filter(move |b| self.mask & (1u64 << b) != 0);
        bits.zip(self.values.iter())
    }
    /// The value of register bit `reg`, if sampled.
    pub fn get(&self, reg: u32) -> Option<u64> {
        if reg >= 64 || self.mask & (1u64 << reg) == 0 {
            return None;
        }
        let idx = (self.mask & ((1u64 << reg) - 1)).count_ones() as usize;
        self.values.get(idx)
    }
}

/// Register names of x86_64 (`arch/x86/include/uapi/asm/perf_regs.h`) by bit number.
pub fn x86_64_reg_name(bit: u32) -> Option<&'static str> {
    const N: [&str; 24] = [
        "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags", "cs", "ss", "ds", "es",
        "fs", "gs", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
    ];
    const XMM: [&str; 16] = [
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
    ];
    match bit {
        0..=23 => N.get(bit as usize).copied(),
        // XMM registers take two bits each from 32.
        32..=63 if bit.is_multiple_of(2) => XMM.get(((bit - 32) / 2) as usize).copied(),
        _ => None,
    }
}

/// Register names of aarch64 (`arch/arm64/include/uapi/asm/perf_regs.h`) by bit number.
pub fn aarch64_reg_name(bit: u32) -> Option<&'static str> {
    const N: [&str; 34] = [
        "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
        "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26",
        "x27", "x28", "x29", "lr", "sp", "pc", "vg",
    ];
    N.get(bit as usize).copied()
}

/// User stack dump (PERF_SAMPLE_STACK_USER).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackUser<'a> {
    /// Requested/fitting dump size.
    pub size: u64,
    /// `size` bytes of stack memory.
    pub data: &'a [u8],
    /// How many bytes are valid (absent when `size` is 0).
    pub dyn_size: Option<u64>,
}

/// A decoded sample. Each field is `Some` exactly when its bit is in the attr's `sample_type`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[allow(missing_docs)] // field names are perf_event.h's
pub struct Sample<'a> {
    pub identifier: Option<u64>,
    pub ip: Option<u64>,
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub time: Option<u64>,
    pub addr: Option<u64>,
    pub id: Option<u64>,
    pub stream_id: Option<u64>,
    pub cpu: Option<u32>,
    /// The reserved u32 after `cpu`, kept.
    pub cpu_res: Option<u32>,
    pub period: Option<u64>,
    pub read: Option<ReadValues<'a>>,
    /// Callchain with PERF_CONTEXT markers included.
    pub callchain: Option<U64s<'a>>,
    /// RAW data (size includes padding).
    pub raw: Option<&'a [u8]>,
    pub branch_stack: Option<BranchStack<'a>>,
    pub regs_user: Option<Regs<'a>>,
    pub stack_user: Option<StackUser<'a>>,
    /// WEIGHT, or WEIGHT_STRUCT's u64 (see [`Sample::weight_struct`]).
    pub weight: Option<u64>,
    pub data_src: Option<u64>,
    pub transaction: Option<u64>,
    pub regs_intr: Option<Regs<'a>>,
    pub phys_addr: Option<u64>,
    pub cgroup: Option<u64>,
    pub data_page_size: Option<u64>,
    pub code_page_size: Option<u64>,
    pub aux: Option<&'a [u8]>,
}

/// What sample parsing needs besides the attr: whether the event's group has branch counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleContext {
    /// The event's group has a member with `PERF_SAMPLE_BRANCH_COUNTERS`.
    pub branch_counters: bool,
}

impl<'a> Sample<'a> {
    /// Parse a SAMPLE body (the bytes after the 8-byte record header).
    pub fn parse(r: &mut Reader<'a>, attr: &EventAttr, ctx: SampleContext) -> Result<Sample<'a>> {
        let t = attr.sample_type;
        let has = |b: u64| t & b != 0;
        let mut s = Sample::default();
        macro_rules! u64_if {
            ($bit:expr, $field:ident, $what:literal) => {
                if has($bit) {
                    s.$field = Some(r.u64()?);
                }
            };
        }
        *r = r.context("SAMPLE");
        u64_if!(st::IDENTIFIER, identifier, "identifier");
        u64_if!(st::IP, ip, "ip");
        if has(st::TID) {
            s.pid = Some(r.u32()?);
            s.tid = Some(r.u32()?);
        }
        u64_if!(st::TIME, time, "time");
        u64_if!(st::ADDR, addr, "addr");
        u64_if!(st::ID, id, "id");
        u64_if!(st::STREAM_ID, stream_id, "stream_id");
        if has(st::CPU) {
            s.cpu = Some(r.u32()?);
            s.cpu_res = Some(r.u32()?);
        }
        u64_if!(st::PERIOD, period, "period");
        if has(st::READ) {
            *r = r.context("SAMPLE read");
            s.read = Some(ReadValues::parse(r, attr.read_format)?);
        }
        if has(st::CALLCHAIN) {
            *r = r.context("SAMPLE callchain");
            let nr = r.u64()?;
            s.callchain = Some(r.u64s(nr)?);
        }
        if has(st::RAW) {
            *r = r.context("SAMPLE raw");
            let n = r.u32()?;
            s.raw = Some(r.bytes(n as usize)?);
        }
        if has(st::BRANCH_STACK) {
            *r = r.context("SAMPLE branch_stack");
            let nr = r.u64()?;
            let hw_idx = if attr.branch_sample_type & branch_sample_type::HW_INDEX != 0 {
                Some(r.u64()?)
            } else {
                None
            };
            let n = nr
                .checked_mul(24)
                .ok_or_else(|| r.malformed(format!("branch nr {nr}")))?;
            let entries = r.bytes_u64(n)?;
            let counters = if ctx.branch_counters {
                Some(r.u64s(nr)?)
            } else {
                None
            };
            s.branch_stack = Some(BranchStack {
                nr,
                hw_idx,
                entries,
                counters,
                endian: r.endian(),
            });
        }
        if has(st::REGS_USER) {
            *r = r.context("SAMPLE regs_user");
            s.regs_user = Some(parse_regs(r, attr.sample_regs_user)?);
        }
        if has(st::STACK_USER) {
            *r = r.context("SAMPLE stack_user");
            let size = r.u64()?;
            if size == 0 {
                s.stack_user = Some(StackUser {
                    size,
                    data: &[],
                    dyn_size: None,
                });
            } else {
                let data = r.bytes_u64(size)?;
                s.stack_user = Some(StackUser {
                    size,
                    data,
                    dyn_size: Some(r.u64()?),
                });
            }
        }
        *r = r.context("SAMPLE");
        if has(st::WEIGHT) || has(st::WEIGHT_STRUCT) {
            s.weight = Some(r.u64()?);
        }
        u64_if!(st::DATA_SRC, data_src, "data_src");
        u64_if!(st::TRANSACTION, transaction, "transaction");
        if has(st::REGS_INTR) {
            *r = r.context("SAMPLE regs_intr");
            s.regs_intr = Some(parse_regs(r, attr.sample_regs_intr)?);
        }
        *r = r.context("SAMPLE");
        u64_if!(st::PHYS_ADDR, phys_addr, "phys_addr");
        u64_if!(st::CGROUP, cgroup, "cgroup");
        u64_if!(st::DATA_PAGE_SIZE, data_page_size, "data_page_size");
        u64_if!(st::CODE_PAGE_SIZE, code_page_size, "code_page_size");
        if has(st::AUX) {
            *r = r.context("SAMPLE aux");
            let n = r.u64()?;
            s.aux = Some(r.bytes_u64(n)?);
        }
        Ok(s)
    }

    /// WEIGHT_STRUCT parts `(var1_dw, var2_w, var3_w)`.
    pub fn weight_struct(&self) -> Option<(u32, u16, u16)> {
        self.weight
            .map(|w| (w as u32, (w >> 32) as u16, (w >> 48) as u16))
    }

    /// The callchain split into its contexts: `(marker, frames)` runs. Frames before any marker get
    /// `None`. A USER_DEFERRED marker is followed by its cookie, which is returned as its only frame.
    pub fn callchain_contexts(&self) -> Vec<(Option<CallchainContext>, Vec<u64>)> {
        let mut out: Vec<(Option<CallchainContext>, Vec<u64>)> = Vec::new();
        let Some(cc) = self.callchain else { return out };
        for ip in cc.iter() {
            if let Some(ctx) = CallchainContext::from_marker(ip) {
                out.push((Some(ctx), Vec::new()));
            } else if let Some(last) = out.last_mut() {
                last.1.push(ip);
            } else {
                out.push((None, vec![ip]));
            }
        }
        out
    }
}

fn parse_regs<'a>(r: &mut Reader<'a>, mask: u64) -> Result<Regs<'a>> {
    let abi = r.u64()?;
    let values = if abi == 0 {
        U64s::new(&[], r.endian())
    } else {
        r.u64s(u64::from(mask.count_ones()))?
    };
    Ok(Regs { abi, mask, values })
}

/// `PERF_CONTEXT_*` callchain markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CallchainContext {
    Hv,
    Kernel,
    User,
    UserDeferred,
    Guest,
    GuestKernel,
    GuestUser,
    /// Another value ≥ PERF_CONTEXT_MAX.
    Other(u64),
}

/// Values ≥ this are context markers, not addresses.
pub const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;

impl CallchainContext {
    /// Decode a marker; `None` for an ordinary address.
    pub fn from_marker(v: u64) -> Option<CallchainContext> {
        if v < PERF_CONTEXT_MAX {
            return None;
        }
        Some(match v as i64 {
            -32 => CallchainContext::Hv,
            -128 => CallchainContext::Kernel,
            -512 => CallchainContext::User,
            -640 => CallchainContext::UserDeferred,
            -2048 => CallchainContext::Guest,
            -2176 => CallchainContext::GuestKernel,
            -2560 => CallchainContext::GuestUser,
            _ => CallchainContext::Other(v),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_flags_convert_both_ways() {
        // mispred, cycles 0x1234, type 4, spec 2, new_type 3, priv 1, reserved bit 40
        let le = 1 | (0x1234 << 4) | (4 << 20) | (2 << 24) | (3 << 26) | (1 << 30) | (1 << 40);
        let be = branch_flags_to_be(le);
        assert_eq!(
            be >> 63,
            1,
            "mispred is the most significant bit in a big-endian file"
        );
        assert_eq!(branch_flags_from_be(be), le);
    }
}
