//! `struct perf_event_attr` (perf_event.h) at every ABI size, its flag bits, and the sample layout
//! derived from it once per attr.

pub use crate::abi::{branch_sample_type, read_format, sample_type};
use crate::abi::{read_format as rf, sample_type as st};
use crate::error::{Position, Result};
use crate::header::{section, Section};
use crate::reader::{i32, malformed, take, take_input, u16, u32, u64, PResult};
use crate::reader::{Endian, Reader};

/// Names of the bits of the attr flag word (offset 40), little-endian bit numbering.
pub const FLAG_NAMES: [(&str, u32, u32); 40] = [
    ("disabled", 0, 1),
    ("inherit", 1, 1),
    ("pinned", 2, 1),
    ("exclusive", 3, 1),
    ("exclude_user", 4, 1),
    ("exclude_kernel", 5, 1),
    ("exclude_hv", 6, 1),
    ("exclude_idle", 7, 1),
    ("mmap", 8, 1),
    ("comm", 9, 1),
    ("freq", 10, 1),
    ("inherit_stat", 11, 1),
    ("enable_on_exec", 12, 1),
    ("task", 13, 1),
    ("watermark", 14, 1),
    ("precise_ip", 15, 2),
    ("mmap_data", 17, 1),
    ("sample_id_all", 18, 1),
    ("exclude_host", 19, 1),
    ("exclude_guest", 20, 1),
    ("exclude_callchain_kernel", 21, 1),
    ("exclude_callchain_user", 22, 1),
    ("mmap2", 23, 1),
    ("comm_exec", 24, 1),
    ("use_clockid", 25, 1),
    ("context_switch", 26, 1),
    ("write_backward", 27, 1),
    ("namespaces", 28, 1),
    ("ksymbol", 29, 1),
    ("bpf_event", 30, 1),
    ("aux_output", 31, 1),
    ("cgroup", 32, 1),
    ("text_poke", 33, 1),
    ("build_id", 34, 1),
    ("inherit_thread", 35, 1),
    ("remove_on_exec", 36, 1),
    ("sigtrap", 37, 1),
    ("defer_callchain", 38, 1),
    ("defer_output", 39, 1),
    ("", 0, 0),
];

/// `perf_event_attr.type`: the raw value plus its meaning. Values ≥ 6 are dynamic PMU types (see the
/// PMU_MAPPINGS feature); an unknown value is kept, never rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// PERF_TYPE_HARDWARE
    Hardware,
    /// PERF_TYPE_SOFTWARE
    Software,
    /// PERF_TYPE_TRACEPOINT (config is the tracepoint id)
    Tracepoint,
    /// PERF_TYPE_HW_CACHE
    HwCache,
    /// PERF_TYPE_RAW
    Raw,
    /// PERF_TYPE_BREAKPOINT
    Breakpoint,
    /// A dynamic PMU type number.
    Dynamic(u32),
}

impl EventType {
    /// Decode a raw `type`.
    pub fn from_raw(t: u32) -> Self {
        match t {
            0 => EventType::Hardware,
            1 => EventType::Software,
            2 => EventType::Tracepoint,
            3 => EventType::HwCache,
            4 => EventType::Raw,
            5 => EventType::Breakpoint,
            n => EventType::Dynamic(n),
        }
    }
}

/// A decoded `perf_event_attr`. Every field keeps its raw value; fields beyond the writer's
/// `size` are 0, and bytes beyond what this crate knows are kept in [`EventAttr::extra`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)] // field names are perf_event.h's
pub struct EventAttr {
    pub type_: u32,
    /// `size` as stored (0 means PERF_ATTR_SIZE_VER0, 64).
    pub size: u32,
    pub config: u64,
    /// `sample_period`, or `sample_freq` when the `freq` flag is set.
    pub sample_period: u64,
    pub sample_type: u64,
    pub read_format: u64,
    /// The flag bitfield word at offset 40, normalised to little-endian bit numbering.
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    /// `bp_addr` / `config1` / `kprobe_func`.
    pub config1: u64,
    /// `bp_len` / `config2` / `kprobe_addr`.
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub reserved_2: u16,
    pub aux_sample_size: u32,
    pub aux_action: u32,
    pub sig_data: u64,
    pub config3: u64,
    pub config4: u64,
    /// Bytes of the stored attr beyond the 144 this crate decodes.
    pub extra: Vec<u8>,
}

/// Size of the largest attr this crate decodes (PERF_ATTR_SIZE_VER9).
pub const ATTR_SIZE_KNOWN: usize = 144;

impl EventAttr {
    /// Decode an attr from `bytes` (the bytes the writer stored; `attr.size` decides which fields exist).
    /// Fields that lie beyond `bytes` are 0.
    pub fn parse(bytes: &[u8], endian: Endian, pos: Position) -> Result<EventAttr> {
        Reader::new(bytes, endian, pos, "perf_event_attr").run(event_attr)
    }

    /// Encode in `endian`: `self.stored_size()` bytes (the writer's size), capped at the bytes this
    /// attr was decoded from.
    pub fn write(&self, endian: Endian, out: &mut Vec<u8>) {
        let mut b = Vec::with_capacity(ATTR_SIZE_KNOWN + self.extra.len());
        let e = endian;
        e.put_u32(&mut b, self.type_);
        e.put_u32(&mut b, self.size);
        e.put_u64(&mut b, self.config);
        e.put_u64(&mut b, self.sample_period);
        e.put_u64(&mut b, self.sample_type);
        e.put_u64(&mut b, self.read_format);
        e.put_u64(&mut b, if endian == Endian::Big { flag_word_to_be(self.flags) } else { self.flags });
        e.put_u32(&mut b, self.wakeup_events);
        e.put_u32(&mut b, self.bp_type);
        e.put_u64(&mut b, self.config1);
        e.put_u64(&mut b, self.config2);
        e.put_u64(&mut b, self.branch_sample_type);
        e.put_u64(&mut b, self.sample_regs_user);
        e.put_u32(&mut b, self.sample_stack_user);
        e.put_u32(&mut b, self.clockid as u32);
        e.put_u64(&mut b, self.sample_regs_intr);
        e.put_u32(&mut b, self.aux_watermark);
        e.put_u16(&mut b, self.sample_max_stack);
        e.put_u16(&mut b, self.reserved_2);
        e.put_u32(&mut b, self.aux_sample_size);
        e.put_u32(&mut b, self.aux_action);
        e.put_u64(&mut b, self.sig_data);
        e.put_u64(&mut b, self.config3);
        e.put_u64(&mut b, self.config4);
        b.extend_from_slice(&self.extra);
        // The declared size, but never more than the bytes decoded (a corrupt size must not make
        // the writer allocate gigabytes).
        let n = self.stored_size().min(ATTR_SIZE_KNOWN + self.extra.len());
        b.resize(n, 0);
        out.extend_from_slice(&b);
    }

    /// The size the writer declared (`size`, or 64 when it is 0).
    pub fn stored_size(&self) -> usize {
        if self.size == 0 {
            64
        } else {
            self.size as usize
        }
    }

    /// The decoded `type`.
    pub fn event_type(&self) -> EventType {
        EventType::from_raw(self.type_)
    }

    /// Value of a flag field by its little-endian bit offset and width.
    pub fn flag_bits(&self, lo: u32, width: u32) -> u64 {
        (self.flags >> lo) & ((1u64 << width) - 1)
    }

    /// `sample_id_all`: non-sample kernel records carry a sample_id trailer.
    pub fn sample_id_all(&self) -> bool {
        self.flag_bits(18, 1) != 0
    }
    /// `freq`: `sample_period` holds a frequency.
    pub fn freq(&self) -> bool {
        self.flag_bits(10, 1) != 0
    }
    /// `use_clockid`.
    pub fn use_clockid(&self) -> bool {
        self.flag_bits(25, 1) != 0
    }
    /// `precise_ip` (0–3).
    pub fn precise_ip(&self) -> u8 {
        self.flag_bits(15, 2) as u8
    }
    /// `exclude_kernel`.
    pub fn exclude_kernel(&self) -> bool {
        self.flag_bits(5, 1) != 0
    }
    /// `exclude_callchain_user`.
    pub fn exclude_callchain_user(&self) -> bool {
        self.flag_bits(22, 1) != 0
    }

    /// Names of the set flags, with their values, as `perf report -I` lists them.
    pub fn set_flags(&self) -> Vec<(&'static str, u64)> {
        FLAG_NAMES
            .iter()
            .filter(|(n, _, _)| !n.is_empty())
            .map(|&(n, lo, w)| (n, self.flag_bits(lo, w)))
            .filter(|&(_, v)| v != 0)
            .collect()
    }
}

/// Swap the two value bits of `precise_ip` (bits 15 and 16).
fn swap_precise_bits(x: u64) -> u64 {
    let p = (x >> 15) & 3;
    let p = ((p & 1) << 1) | (p >> 1);
    (x & !(3 << 15)) | (p << 15)
}

/// C bitfields are allocated from the MSB on big-endian ABIs (reference §6.2): a field at little-endian
/// bit `lo` of width `w` sits at `64 - lo - w`, value bits in normal order. Reversing the word moves
/// every 1-bit flag to its place; the one 2-bit field (`precise_ip`) then needs its bits swapped back.
pub(crate) fn flag_word_from_be(x: u64) -> u64 {
    swap_precise_bits(x.reverse_bits())
}

/// The inverse of [`flag_word_from_be`].
fn flag_word_to_be(x: u64) -> u64 {
    swap_precise_bits(x).reverse_bits()
}

/// Render a bit set with names, perf style: `IP|TID|TIME`; unknown bits as `0x…`.
pub fn bit_names(value: u64, names: &[&str]) -> String {
    let mut parts = Vec::new();
    let mut rest = value;
    for (i, n) in names.iter().enumerate() {
        let bit = 1u64 << i;
        if value & bit != 0 {
            parts.push((*n).to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    parts.join("|")
}

/// Positions and sizes derived from an attr's `sample_type`/`read_format`, computed once per attr so
/// record decoding never recomputes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleLayout {
    /// `sample_type`.
    pub sample_type: u64,
    /// `read_format`.
    pub read_format: u64,
    /// Index of the id u64 in a SAMPLE body (perf's `id_pos`), if any.
    pub id_pos: Option<usize>,
    /// Position of the id counted from the end of a non-sample record (perf's `is_pos`, 1 = last).
    pub is_pos: Option<usize>,
    /// Bytes of the fixed-size SAMPLE prefix (perf's `sample_size`).
    pub fixed_size: usize,
    /// Bytes of the sample_id trailer on non-sample kernel records (0 without `sample_id_all`).
    pub trailer_size: usize,
    /// Byte offset of `time` in a SAMPLE body.
    pub time_offset: Option<usize>,
    /// Byte offset of `time` counted back from the end of a non-sample record.
    pub trailer_time_from_end: Option<usize>,
    /// Size of one read_format block for a non-group read (group reads are variable).
    pub read_value_size: usize,
    /// Byte offsets in a SAMPLE body of the fixed-prefix fields, indexed by
    /// [`fixed`] (`ABSENT` when the field is not sampled).
    pub fixed_offsets: [u8; FIXED_FIELDS],
}

impl SampleLayout {
    /// Compute the layout of an attr.
    pub fn new(attr: &EventAttr) -> Self {
        use sample_type as st;
        let t = attr.sample_type;
        let has = |b: u64| t & b != 0;
        let id_pos = if has(st::IDENTIFIER) {
            Some(0)
        } else if has(st::ID) {
            Some((t & (st::IP | st::TID | st::TIME | st::ADDR)).count_ones() as usize)
        } else {
            None
        };
        let is_pos = if has(st::IDENTIFIER) {
            Some(1)
        } else if has(st::ID) {
            Some(1 + usize::from(has(st::CPU)) + usize::from(has(st::STREAM_ID)))
        } else {
            None
        };
        let fixed = (t
            & (st::IP | st::TID | st::TIME | st::ADDR | st::ID | st::STREAM_ID | st::CPU | st::PERIOD | st::IDENTIFIER))
            .count_ones() as usize
            * 8;
        let time_offset = has(st::TIME).then(|| 8 * (t & (st::IDENTIFIER | st::IP | st::TID)).count_ones() as usize);
        let trailer_words = (t & (st::TID | st::TIME | st::ID | st::STREAM_ID | st::CPU | st::IDENTIFIER)).count_ones();
        let trailer_size = if attr.sample_id_all() { 8 * trailer_words as usize } else { 0 };
        // Counting back from the end: IDENTIFIER, CPU, STREAM_ID, ID are after TIME.
        let trailer_time_from_end = (attr.sample_id_all() && has(st::TIME))
            .then(|| 8 * (1 + (t & (st::ID | st::STREAM_ID | st::CPU | st::IDENTIFIER)).count_ones() as usize));
        let rf = attr.read_format;
        let read_value_size = 8
            * (1 + (rf
                & (read_format::TOTAL_TIME_ENABLED
                    | read_format::TOTAL_TIME_RUNNING
                    | read_format::ID
                    | read_format::LOST))
                .count_ones() as usize);
        let mut fixed_offsets = [fixed::ABSENT; FIXED_FIELDS];
        let mut off = 0u8;
        for (i, bit) in
            [st::IDENTIFIER, st::IP, st::TID, st::TIME, st::ADDR, st::ID, st::STREAM_ID, st::CPU, st::PERIOD]
                .into_iter()
                .enumerate()
        {
            if has(bit) {
                if let Some(slot) = fixed_offsets.get_mut(i) {
                    *slot = off;
                }
                off += 8;
            }
        }
        SampleLayout {
            fixed_offsets,
            sample_type: t,
            read_format: rf,
            id_pos,
            is_pos,
            fixed_size: fixed,
            trailer_size,
            time_offset,
            trailer_time_from_end,
            read_value_size,
        }
    }
}

/// Number of fixed-prefix fields (see [`SampleLayout::fixed_offsets`]).
pub const FIXED_FIELDS: usize = 9;
// Which variable field a plan step is (`PlanStep::slot`).
pub(crate) const V_READ: usize = 0;
pub(crate) const V_CALLCHAIN: usize = 1;
pub(crate) const V_RAW: usize = 2;
pub(crate) const V_BRANCH: usize = 3;
pub(crate) const V_REGS_USER: usize = 4;
pub(crate) const V_STACK_USER: usize = 5;
pub(crate) const V_WEIGHT: usize = 6;
pub(crate) const V_DATA_SRC: usize = 7;
pub(crate) const V_TRANSACTION: usize = 8;
pub(crate) const V_REGS_INTR: usize = 9;
pub(crate) const V_PHYS_ADDR: usize = 10;
pub(crate) const V_CGROUP: usize = 11;
pub(crate) const V_DATA_PAGE_SIZE: usize = 12;
pub(crate) const V_CODE_PAGE_SIZE: usize = 13;
pub(crate) const V_AUX: usize = 14;
pub(crate) const V_FIELDS: usize = 15;

/// Indexes of the fixed-prefix fields in [`SampleLayout::fixed_offsets`].
pub mod fixed {
    #![allow(missing_docs)]
    pub const IDENTIFIER: usize = 0;
    pub const IP: usize = 1;
    pub const TID: usize = 2;
    pub const TIME: usize = 3;
    pub const ADDR: usize = 4;
    pub const ID: usize = 5;
    pub const STREAM_ID: usize = 6;
    pub const CPU: usize = 7;
    pub const PERIOD: usize = 8;
    /// Marks an absent field.
    pub const ABSENT: u8 = u8::MAX;
}

/// What sample parsing needs besides the attr: whether the event's group has branch counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SampleContext {
    /// The event's group has a member with `PERF_SAMPLE_BRANCH_COUNTERS`.
    pub(crate) branch_counters: bool,
}

/// One variable-size (or post-variable) field of a sample, in emit order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarField {
    /// READ block.
    Read,
    /// u64 nr + nr × u64.
    Callchain,
    /// u32 size + bytes.
    Raw,
    /// Branch stack.
    BranchStack,
    /// REGS_USER.
    RegsUser,
    /// STACK_USER.
    StackUser,
    /// One u64 (WEIGHT, DATA_SRC, TRANSACTION, PHYS_ADDR, CGROUP, page sizes) at this slot.
    Word(u8),
    /// REGS_INTR.
    RegsIntr,
    /// u64 size + bytes.
    Aux,
}

impl VarField {
    /// What this field is called in errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            VarField::Read => "SAMPLE read",
            VarField::Callchain => "SAMPLE callchain",
            VarField::Raw => "SAMPLE raw",
            VarField::BranchStack => "SAMPLE branch_stack",
            VarField::RegsUser => "SAMPLE regs_user",
            VarField::StackUser => "SAMPLE stack_user",
            VarField::Word(_) => "SAMPLE field",
            VarField::RegsIntr => "SAMPLE regs_intr",
            VarField::Aux => "SAMPLE aux",
        }
    }
}

/// One variable field of an event's samples, with what its size depends on worked out from the attr
/// once ([`sample_plan`]), so that walking a sample reads only the sample's own counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlanStep {
    /// The field.
    pub(crate) field: VarField,
    /// Which field it is (one of the `V_*` numbers).
    pub(crate) slot: u8,
    pub(crate) size: StepSize,
}

/// How a variable field's size follows from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepSize {
    /// Always this many bytes (one word; READ without GROUP).
    Fixed(usize),
    /// 8 × (head + nr × per) bytes, nr being the u64 the field starts with (CALLCHAIN, READ with
    /// GROUP, BRANCH_STACK).
    Counted { head: u64, per: u64 },
    /// A u64 abi, then this many registers unless the abi is 0.
    Regs(usize),
    /// A u64 size, then (unless it is 0) the size's bytes and a u64 dyn_size.
    Stack,
    /// A u32 size, then its bytes.
    Raw,
    /// A u64 size, then its bytes.
    Aux,
}

/// How an event's samples lay out their variable fields, worked out once per event: the steps in
/// emit order, and where each field starts when nothing variable comes before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SamplePlan {
    /// The variable fields in emit order, with how each one's size is found.
    pub(crate) steps: Vec<PlanStep>,
    /// Per field (`V_*`): its offset in the body when only fixed-size fields precede it,
    /// [`SamplePlan::WALK`] when a field of variable size does, [`SamplePlan::ABSENT`] when the
    /// sample has no such field.
    pub(crate) at: [u16; V_FIELDS],
}

impl SamplePlan {
    /// The field is not in the sample.
    pub(crate) const ABSENT: u16 = u16::MAX;
    /// The field's offset depends on the sizes of fields before it.
    pub(crate) const WALK: u16 = u16::MAX - 1;
}

/// The variable part of an attr's samples (see [`SamplePlan`]), which start after `fixed_size`
/// bytes of fixed fields ([`SampleLayout::fixed_size`]). Computed once per event.
pub(crate) fn sample_plan(attr: &EventAttr, ctx: SampleContext, fixed_size: usize) -> SamplePlan {
    let steps = sample_steps(attr, ctx);
    let mut at = [SamplePlan::ABSENT; V_FIELDS];
    let mut known = Some(fixed_size);
    for step in &steps {
        if let Some(slot) = at.get_mut(usize::from(step.slot)) {
            *slot =
                known.and_then(|k| u16::try_from(k).ok()).filter(|&k| k < SamplePlan::WALK).unwrap_or(SamplePlan::WALK);
        }
        known = match step.size {
            StepSize::Fixed(n) => known.and_then(|k| k.checked_add(n)),
            _ => None,
        };
    }
    SamplePlan { steps, at }
}

fn sample_steps(attr: &EventAttr, ctx: SampleContext) -> Vec<PlanStep> {
    let t = attr.sample_type;
    let rfmt = attr.read_format;
    let per_value = 1 + u64::from(rfmt & rf::ID != 0) + u64::from(rfmt & rf::LOST != 0);
    let times = u64::from(rfmt & rf::TOTAL_TIME_ENABLED != 0) + u64::from(rfmt & rf::TOTAL_TIME_RUNNING != 0);
    let read = if rfmt & rf::GROUP != 0 {
        StepSize::Counted { head: 1 + times, per: per_value }
    } else {
        StepSize::Fixed(8 * (times + per_value) as usize)
    };
    let hw_idx = u64::from(attr.branch_sample_type & branch_sample_type::HW_INDEX != 0);
    let branch = StepSize::Counted { head: 1 + hw_idx, per: 3 + u64::from(ctx.branch_counters) };
    let word = StepSize::Fixed(8);
    let mut plan = Vec::new();
    let mut add = |bit: u64, field: VarField, slot: usize, size: StepSize| {
        if t & bit != 0 {
            plan.push(PlanStep { field, slot: slot as u8, size });
        }
    };
    add(st::READ, VarField::Read, V_READ, read);
    add(st::CALLCHAIN, VarField::Callchain, V_CALLCHAIN, StepSize::Counted { head: 1, per: 1 });
    add(st::RAW, VarField::Raw, V_RAW, StepSize::Raw);
    add(st::BRANCH_STACK, VarField::BranchStack, V_BRANCH, branch);
    add(st::REGS_USER, VarField::RegsUser, V_REGS_USER, StepSize::Regs(attr.sample_regs_user.count_ones() as usize));
    add(st::STACK_USER, VarField::StackUser, V_STACK_USER, StepSize::Stack);
    add(st::WEIGHT | st::WEIGHT_STRUCT, VarField::Word(0), V_WEIGHT, word);
    add(st::DATA_SRC, VarField::Word(0), V_DATA_SRC, word);
    add(st::TRANSACTION, VarField::Word(0), V_TRANSACTION, word);
    add(st::REGS_INTR, VarField::RegsIntr, V_REGS_INTR, StepSize::Regs(attr.sample_regs_intr.count_ones() as usize));
    add(st::PHYS_ADDR, VarField::Word(0), V_PHYS_ADDR, word);
    add(st::CGROUP, VarField::Word(0), V_CGROUP, word);
    add(st::DATA_PAGE_SIZE, VarField::Word(0), V_DATA_PAGE_SIZE, word);
    add(st::CODE_PAGE_SIZE, VarField::Word(0), V_CODE_PAGE_SIZE, word);
    add(st::AUX, VarField::Aux, V_AUX, StepSize::Aux);
    plan
}

// The nom parsers of `perf_file_attr` and `perf_event_attr`.

/// `struct perf_file_attr`, one entry of the attrs section: a `perf_event_attr` filling
/// `attr_size - 16` bytes (the header's `attr_size` is the entry's stride), then the
/// `perf_file_section` of the event's ids. Errors name `perf_event_attr` and `attr ids section`.
pub fn file_attr<'a>(attr_size: usize) -> impl Fn(Reader<'a>) -> PResult<'a, (EventAttr, Section)> {
    move |input: Reader<'a>| {
        let Some(n) = attr_size.checked_sub(16) else {
            return malformed(&input, "attr_size {} is below its 16-byte ids section", [attr_size as u64, 0]);
        };
        let (rest, attr) = take_input(n)(input.context("perf_event_attr"))?;
        let (_, attr) = event_attr(attr)?;
        let (rest, ids) = section(rest.context("attr ids section"))?;
        Ok((rest, (attr, ids)))
    }
}

/// `struct perf_event_attr` at any ABI size: `type`, then `size` (0 is the first ABI's 64 bytes),
/// then the fields that size covers. Reads `size` bytes, or what is left when the input is
/// shorter; fields beyond them are 0, bytes beyond the 144 this crate knows are kept in
/// [`EventAttr::extra`]. The flag word of a big-endian file is renumbered to the little-endian
/// bit order of [`crate::attr::FLAG_NAMES`].
pub fn event_attr(input: Reader<'_>) -> PResult<'_, EventAttr> {
    let endian = input.endian();
    let (_, type_) = u32(input)?;
    let (_, size) = u32(input.advanced(4))?;
    let declared = if size == 0 { 64 } else { size as usize };
    let (rest, bytes) = take(declared.min(input.remaining()))(input)?;
    // Zero-padded to the known size: the fields past `size` read as 0.
    let mut buf = [0u8; ATTR_SIZE_KNOWN];
    let known = bytes.len().min(ATTR_SIZE_KNOWN);
    if let (Some(dst), Some(src)) = (buf.get_mut(..known), bytes.get(..known)) {
        dst.copy_from_slice(src);
    }
    let extra = bytes.get(ATTR_SIZE_KNOWN..).unwrap_or_default().to_vec();
    let f = Reader::new(&buf, endian, input.position(), input.what()).advanced(8);
    let (f, config) = u64(f)?;
    let (f, sample_period) = u64(f)?;
    let (f, sample_type) = u64(f)?;
    let (f, read_format) = u64(f)?;
    let (f, raw_flags) = u64(f)?;
    let (f, wakeup_events) = u32(f)?;
    let (f, bp_type) = u32(f)?;
    let (f, config1) = u64(f)?;
    let (f, config2) = u64(f)?;
    let (f, branch_sample_type) = u64(f)?;
    let (f, sample_regs_user) = u64(f)?;
    let (f, sample_stack_user) = u32(f)?;
    let (f, clockid) = i32(f)?;
    let (f, sample_regs_intr) = u64(f)?;
    let (f, aux_watermark) = u32(f)?;
    let (f, sample_max_stack) = u16(f)?;
    let (f, reserved_2) = u16(f)?;
    let (f, aux_sample_size) = u32(f)?;
    let (f, aux_action) = u32(f)?;
    let (f, sig_data) = u64(f)?;
    let (f, config3) = u64(f)?;
    let (_, config4) = u64(f)?;
    let flags = match endian {
        Endian::Little => raw_flags,
        Endian::Big => flag_word_from_be(raw_flags),
    };
    let attr = EventAttr {
        type_,
        size,
        config,
        sample_period,
        sample_type,
        read_format,
        flags,
        wakeup_events,
        bp_type,
        config1,
        config2,
        branch_sample_type,
        sample_regs_user,
        sample_stack_user,
        clockid,
        sample_regs_intr,
        aux_watermark,
        sample_max_stack,
        reserved_2,
        aux_sample_size,
        aux_action,
        sig_data,
        config3,
        config4,
        extra,
    };
    Ok((rest, attr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_positions_follow_perf() {
        use sample_type as st;
        let mut a = EventAttr {
            sample_type: st::IP | st::TID | st::TIME | st::ID | st::CPU | st::PERIOD,
            ..Default::default()
        };
        a.flags = 1 << 18;
        let l = SampleLayout::new(&a);
        assert_eq!(l.id_pos, Some(3));
        assert_eq!(l.is_pos, Some(2));
        assert_eq!(l.trailer_size, 32);
        assert_eq!(l.time_offset, Some(16));
        assert_eq!(l.trailer_time_from_end, Some(24));
        a.sample_type |= st::IDENTIFIER;
        let l = SampleLayout::new(&a);
        assert_eq!((l.id_pos, l.is_pos), (Some(0), Some(1)));
        assert_eq!(l.time_offset, Some(24));
    }

    #[test]
    fn attr_round_trips_in_both_orders() {
        let a = EventAttr {
            type_: 2,
            size: 136,
            config: 0x174,
            flags: 0x140003 | (1 << 15),
            config3: 7,
            ..Default::default()
        };
        for e in [Endian::Little, Endian::Big] {
            let mut out = Vec::new();
            a.write(e, &mut out);
            assert_eq!(out.len(), 136);
            assert_eq!(EventAttr::parse(&out, e, Position::at(0)).unwrap(), a);
        }
        assert_eq!(bit_names(0x10087, &sample_type::NAMES), "IP|TID|TIME|CPU|IDENTIFIER");
    }
}
