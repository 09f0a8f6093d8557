//! PERF_RECORD_SAMPLE: every field in the kernel's emit order (`perf_output_sample`), borrowed.

pub use crate::abi::{aarch64_reg_name, x86_64_reg_name};
use crate::attr::SamplePlan;
use crate::attr::{branch_sample_type, read_format as rf, EventAttr, StepSize};
pub use crate::attr::{fixed, FIXED_FIELDS};
use crate::attr::{V_AUX, V_BRANCH, V_CALLCHAIN, V_CGROUP, V_CODE_PAGE_SIZE, V_DATA_PAGE_SIZE, V_DATA_SRC};
use crate::attr::{V_PHYS_ADDR, V_RAW, V_READ, V_REGS_INTR, V_REGS_USER, V_STACK_USER, V_TRANSACTION, V_WEIGHT};
use crate::error::Result;
use crate::event::{Event, EventList};
use crate::reader::{u64, u64s, words};
use crate::reader::{Endian, Reader, U64s};
use crate::reader::{PResult, ParseError};

/// A read_format block (sample READ field or READ record), read on access.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadValues<'a> {
    /// The `read_format` it was decoded with.
    pub read_format: u64,
    pub(crate) bytes: &'a [u8],
    pub(crate) endian: Endian,
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
    /// Check a block for `read_format` (reference §5.3) and keep its bytes.
    pub fn parse(r: &mut Reader<'a>, read_format: u64) -> Result<Self> {
        r.run(read_values(read_format))
    }

    fn word(&self, i: usize) -> Option<u64> {
        let o = i.checked_mul(8)?;
        self.bytes.get(o..o.checked_add(8)?).map(|b| self.endian.u64(b))
    }

    fn is_group(&self) -> bool {
        self.read_format & rf::GROUP != 0
    }

    /// `nr` for group reads (None for a single counter).
    pub fn nr(&self) -> Option<u64> {
        if self.is_group() {
            self.word(0)
        } else {
            None
        }
    }

    /// Index of the first time word.
    fn times_at(&self) -> usize {
        1
    }

    /// TOTAL_TIME_ENABLED.
    pub fn time_enabled(&self) -> Option<u64> {
        (self.read_format & rf::TOTAL_TIME_ENABLED != 0).then(|| self.word(self.times_at())).flatten()
    }

    /// TOTAL_TIME_RUNNING.
    pub fn time_running(&self) -> Option<u64> {
        let i = self.times_at() + usize::from(self.read_format & rf::TOTAL_TIME_ENABLED != 0);
        (self.read_format & rf::TOTAL_TIME_RUNNING != 0).then(|| self.word(i)).flatten()
    }

    /// The values (one for a non-group read), leader first.
    pub fn values(&self) -> impl Iterator<Item = ReadValue> + 'a {
        let rfmt = self.read_format;
        let has_id = rfmt & rf::ID != 0;
        let has_lost = rfmt & rf::LOST != 0;
        let times = usize::from(rfmt & rf::TOTAL_TIME_ENABLED != 0) + usize::from(rfmt & rf::TOTAL_TIME_RUNNING != 0);
        let this = *self;
        // Non-group: value, times, [id], [lost]. Group: nr, times, {value, [id], [lost]}*.
        let (first, count, after_value) =
            if this.is_group() { (1 + times, this.nr().unwrap_or(0) as usize, 1) } else { (0, 1, 1 + times) };
        let stride = 1 + usize::from(has_id) + usize::from(has_lost);
        let count = count.min(this.bytes.len() / 8);
        (0..count).map_while(move |k| {
            let base = first + k * stride;
            let value = this.word(base)?;
            let tail = if this.is_group() { base + after_value } else { after_value };
            let id = if has_id { Some(this.word(tail)?) } else { None };
            let lost = if has_lost { Some(this.word(tail + usize::from(has_id))?) } else { None };
            Some(ReadValue { value, id, lost })
        })
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
const BRANCH_FIELDS: [(u32, u32); 10] =
    [(0, 1), (1, 1), (2, 1), (3, 1), (4, 16), (20, 4), (24, 2), (26, 4), (30, 3), (33, 31)];

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
            BranchEntry { from: w(0), to: w(1), flags: if e == Endian::Big { branch_flags_from_be(raw) } else { raw } }
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

/// A sample: a view over the SAMPLE record's body. Each accessor returns `Some` exactly when its bit
/// is in the attr's `sample_type`. Parsing walks the variable-size fields once to check bounds; fixed
/// fields sit at offsets computed once per attr ([`crate::attr::SampleLayout`]), and a variable
/// field's offset is found, when asked for, by stepping over the variable fields before it (usually
/// none: the callchain comes first). Accessors never fail and nothing is copied.
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    pub(crate) body: &'a [u8],
    pub(crate) event: &'a crate::event::Event,
    pub(crate) endian: Endian,
    /// Offset in `body` of the end of the last field the attr describes.
    pub(crate) end: u16,
}

impl PartialEq for Sample<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.body == other.body
            && self.endian == other.endian
            && self.event.attr.sample_type == other.event.attr.sample_type
    }
}

impl<'a> Sample<'a> {
    /// Check a SAMPLE body (the bytes after the 8-byte record header) against its event and note where
    /// each variable field starts.
    pub fn parse(r: &mut Reader<'a>, event: &'a crate::event::Event) -> Result<Sample<'a>> {
        r.run(sample(event))
    }

    /// [`Sample::parse`] of a whole body found at `base` (errors give positions from there).
    #[inline(always)]
    pub fn parse_body(
        body: &'a [u8],
        endian: Endian,
        event: &'a crate::event::Event,
        base: crate::error::Position,
    ) -> Result<Sample<'a>> {
        Reader::new(body, endian, base, "SAMPLE").run(sample(event))
    }

    /// The attr this sample was decoded with.
    #[inline]
    pub fn attr(&self) -> &'a EventAttr {
        &self.event.attr
    }

    /// The record body (after the 8-byte header).
    #[inline]
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Bytes after the last field the attr describes (normally none).
    pub fn trailing(&self) -> &'a [u8] {
        self.body.get(usize::from(self.end)..).unwrap_or(&[])
    }

    #[inline]
    fn word(&self, off: usize) -> Option<u64> {
        self.body.get(off..off.checked_add(8)?).map(|b| self.endian.u64(b))
    }

    #[inline]
    fn fixed_u64(&self, field: usize) -> Option<u64> {
        match self.event.layout.fixed_offsets.get(field) {
            Some(&o) if o != fixed::ABSENT => self.word(usize::from(o)),
            _ => None,
        }
    }

    #[inline]
    fn fixed_u32_pair(&self, field: usize) -> Option<(u32, u32)> {
        match self.event.layout.fixed_offsets.get(field) {
            Some(&o) if o != fixed::ABSENT => {
                let o = usize::from(o);
                let b = self.body.get(o..o + 8)?;
                Some((self.endian.u32(b.get(..4)?), self.endian.u32(b.get(4..)?)))
            }
            _ => None,
        }
    }

    /// Offset in `body` of the variable field in `slot`: known from the plan when only fixed-size
    /// fields precede it, else found by stepping over the fields before it (the walk at parse time
    /// checked that they fit).
    #[inline(always)]
    fn var_offset(&self, slot: usize) -> Option<usize> {
        match self.event.sample_plan.at.get(slot).copied() {
            None | Some(SamplePlan::ABSENT) => None,
            Some(SamplePlan::WALK) => self.walk_to(slot),
            Some(at) => Some(usize::from(at)),
        }
    }

    #[inline(never)]
    fn walk_to(&self, slot: usize) -> Option<usize> {
        let mut at = self.event.layout.fixed_size;
        for step in &self.event.sample_plan.steps {
            if usize::from(step.slot) == slot {
                return Some(at);
            }
            at = step_end(self.body, self.endian, at, step.size)?;
        }
        None
    }

    fn var_reader(&self, slot: usize, what: &'static str) -> Option<Reader<'a>> {
        let b = self.body.get(self.var_offset(slot)?..)?;
        Some(Reader::new(b, self.endian, crate::error::Position::default(), what))
    }

    fn var_u64(&self, slot: usize) -> Option<u64> {
        self.word(self.var_offset(slot)?)
    }

    /// PERF_SAMPLE_IDENTIFIER.
    #[inline]
    pub fn identifier(&self) -> Option<u64> {
        self.fixed_u64(fixed::IDENTIFIER)
    }
    /// PERF_SAMPLE_IP.
    #[inline]
    pub fn ip(&self) -> Option<u64> {
        self.fixed_u64(fixed::IP)
    }
    /// PERF_SAMPLE_TID: the pid.
    #[inline]
    pub fn pid(&self) -> Option<u32> {
        self.fixed_u32_pair(fixed::TID).map(|p| p.0)
    }
    /// PERF_SAMPLE_TID: the tid.
    #[inline]
    pub fn tid(&self) -> Option<u32> {
        self.fixed_u32_pair(fixed::TID).map(|p| p.1)
    }
    /// PERF_SAMPLE_TIME.
    #[inline]
    pub fn time(&self) -> Option<u64> {
        self.fixed_u64(fixed::TIME)
    }
    /// PERF_SAMPLE_ADDR.
    #[inline]
    pub fn addr(&self) -> Option<u64> {
        self.fixed_u64(fixed::ADDR)
    }
    /// PERF_SAMPLE_ID.
    #[inline]
    pub fn id(&self) -> Option<u64> {
        self.fixed_u64(fixed::ID)
    }
    /// PERF_SAMPLE_STREAM_ID.
    #[inline]
    pub fn stream_id(&self) -> Option<u64> {
        self.fixed_u64(fixed::STREAM_ID)
    }
    /// PERF_SAMPLE_CPU: the cpu.
    #[inline]
    pub fn cpu(&self) -> Option<u32> {
        self.fixed_u32_pair(fixed::CPU).map(|p| p.0)
    }
    /// PERF_SAMPLE_CPU: the reserved u32 after the cpu, kept.
    #[inline]
    pub fn cpu_res(&self) -> Option<u32> {
        self.fixed_u32_pair(fixed::CPU).map(|p| p.1)
    }
    /// PERF_SAMPLE_PERIOD (when absent perf uses `attr.sample_period`; see [`Sample::period_or_attr`]).
    #[inline]
    pub fn period(&self) -> Option<u64> {
        self.fixed_u64(fixed::PERIOD)
    }
    /// The period, or the attr's fixed `sample_period` when the sample has none (what perf does).
    #[inline]
    pub fn period_or_attr(&self) -> u64 {
        self.period().unwrap_or(self.event.attr.sample_period)
    }
    /// PERF_SAMPLE_READ.
    pub fn read(&self) -> Option<ReadValues<'a>> {
        ReadValues::parse(&mut self.var_reader(V_READ, "SAMPLE read")?, self.event.attr.read_format).ok()
    }
    /// PERF_SAMPLE_CALLCHAIN with PERF_CONTEXT markers included.
    #[inline]
    pub fn callchain(&self) -> Option<U64s<'a>> {
        let at = self.var_offset(V_CALLCHAIN)?;
        let n = usize::try_from(self.word(at)?).ok()?.checked_mul(8)?;
        let start = at.checked_add(8)?;
        Some(U64s::new(self.body.get(start..start.checked_add(n)?)?, self.endian))
    }
    /// PERF_SAMPLE_RAW data (its size includes padding).
    #[inline]
    pub fn raw(&self) -> Option<&'a [u8]> {
        // The u32 size, then the data (the walk at parse time checked that it fits).
        let at = self.var_offset(V_RAW)?;
        let n = self.endian.u32(self.body.get(at..at.checked_add(4)?)?) as usize;
        self.body.get(at + 4..(at + 4).checked_add(n)?)
    }
    /// PERF_SAMPLE_BRANCH_STACK.
    pub fn branch_stack(&self) -> Option<BranchStack<'a>> {
        let mut r = self.var_reader(V_BRANCH, "SAMPLE branch_stack")?;
        let nr = r.u64().ok()?;
        let hw_idx = if self.event.attr.branch_sample_type & branch_sample_type::HW_INDEX != 0 {
            Some(r.u64().ok()?)
        } else {
            None
        };
        let entries = r.bytes_u64(nr.checked_mul(24)?).ok()?;
        let counters = if self.event.sample_context.branch_counters { Some(r.u64s(nr).ok()?) } else { None };
        Some(BranchStack { nr, hw_idx, entries, counters, endian: self.endian })
    }
    /// PERF_SAMPLE_REGS_USER.
    pub fn regs_user(&self) -> Option<Regs<'a>> {
        parse_regs(&mut self.var_reader(V_REGS_USER, "SAMPLE regs_user")?, self.event.attr.sample_regs_user).ok()
    }
    /// PERF_SAMPLE_STACK_USER.
    pub fn stack_user(&self) -> Option<StackUser<'a>> {
        let mut r = self.var_reader(V_STACK_USER, "SAMPLE stack_user")?;
        let size = r.u64().ok()?;
        if size == 0 {
            return Some(StackUser { size, data: &[], dyn_size: None });
        }
        let data = r.bytes_u64(size).ok()?;
        Some(StackUser { size, data, dyn_size: Some(r.u64().ok()?) })
    }
    /// PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT's u64 (see [`Sample::weight_struct`]).
    #[inline]
    pub fn weight(&self) -> Option<u64> {
        self.var_u64(V_WEIGHT)
    }
    /// WEIGHT_STRUCT parts `(var1_dw, var2_w, var3_w)`.
    pub fn weight_struct(&self) -> Option<(u32, u16, u16)> {
        self.weight().map(|w| (w as u32, (w >> 32) as u16, (w >> 48) as u16))
    }
    /// PERF_SAMPLE_DATA_SRC, raw (see [`Sample::data_src_decoded`]).
    pub fn data_src(&self) -> Option<u64> {
        self.var_u64(V_DATA_SRC)
    }
    /// PERF_SAMPLE_DATA_SRC decoded.
    pub fn data_src_decoded(&self) -> Option<DataSrc> {
        self.data_src().map(DataSrc)
    }
    /// PERF_SAMPLE_TRANSACTION.
    pub fn transaction(&self) -> Option<u64> {
        self.var_u64(V_TRANSACTION)
    }
    /// PERF_SAMPLE_REGS_INTR.
    pub fn regs_intr(&self) -> Option<Regs<'a>> {
        parse_regs(&mut self.var_reader(V_REGS_INTR, "SAMPLE regs_intr")?, self.event.attr.sample_regs_intr).ok()
    }
    /// PERF_SAMPLE_PHYS_ADDR.
    pub fn phys_addr(&self) -> Option<u64> {
        self.var_u64(V_PHYS_ADDR)
    }
    /// PERF_SAMPLE_CGROUP.
    pub fn cgroup(&self) -> Option<u64> {
        self.var_u64(V_CGROUP)
    }
    /// PERF_SAMPLE_DATA_PAGE_SIZE.
    pub fn data_page_size(&self) -> Option<u64> {
        self.var_u64(V_DATA_PAGE_SIZE)
    }
    /// PERF_SAMPLE_CODE_PAGE_SIZE.
    pub fn code_page_size(&self) -> Option<u64> {
        self.var_u64(V_CODE_PAGE_SIZE)
    }
    /// PERF_SAMPLE_AUX data.
    pub fn aux(&self) -> Option<&'a [u8]> {
        let mut r = self.var_reader(V_AUX, "SAMPLE aux")?;
        let n = r.u64().ok()?;
        r.bytes_u64(n).ok()
    }

    /// The callchain split into its contexts: `(marker, frames)` runs. Frames before any marker get
    /// `None`. A USER_DEFERRED marker is followed by its cookie, which is returned as its only frame.
    pub fn callchain_contexts(&self) -> Vec<(Option<CallchainContext>, Vec<u64>)> {
        let mut out: Vec<(Option<CallchainContext>, Vec<u64>)> = Vec::new();
        let Some(cc) = self.callchain() else { return out };
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

/// The events a sample counts for, as perf delivers it (`deliver_sample_group`): a sample that read
/// its whole group (`PERF_SAMPLE_READ` with `PERF_FORMAT_GROUP`, e.g. `{a,b}:S`) counts once for each
/// member, found by the id of each value; any other sample counts for its own event.
pub fn sample_event_names(s: &Sample<'_>, event: &Event, events: &EventList) -> Vec<String> {
    let mut names = Vec::new();
    sample_events(s, event, events, |e| names.push(e.display_name()));
    names
}

/// [`sample_event_names`] without making names: `f` is called with each event the sample counts
/// for (a counting loop keys by [`Event::index`] and names the events once at the end).
pub fn sample_events<'e>(s: &Sample<'_>, event: &'e Event, events: &'e EventList, mut f: impl FnMut(&'e Event)) {
    use crate::attr::{read_format, sample_type};
    let group = event.attr.sample_type & sample_type::READ != 0 && event.attr.read_format & read_format::GROUP != 0;
    if let (true, Some(read)) = (group, s.read()) {
        let mut any = false;
        for e in read.values().filter_map(|v| v.id.and_then(|id| events.by_id(id))) {
            f(e);
            any = true;
        }
        if any {
            return;
        }
    }
    f(event)
}

/// Where a variable field starting at `at` ends, `None` if it runs past the body.
#[inline(always)]
fn step_end(body: &[u8], endian: Endian, at: usize, size: StepSize) -> Option<usize> {
    let word = |at: usize| -> Option<u64> { body.get(at..at.checked_add(8)?).map(|b| endian.u64(b)) };
    let next = match size {
        StepSize::Fixed(n) => at.checked_add(n),
        StepSize::Counted { head, per } => word(at)
            .and_then(|nr| nr.checked_mul(per)?.checked_add(head)?.checked_mul(8))
            .and_then(|n| at.checked_add(usize::try_from(n).ok()?)),
        StepSize::Regs(n) => match word(at) {
            Some(0) => at.checked_add(8),
            Some(_) => at.checked_add(8 * (1 + n)),
            None => None,
        },
        StepSize::Stack => match word(at) {
            Some(0) => at.checked_add(8),
            Some(size) => usize::try_from(size).ok().and_then(|n| at.checked_add(16)?.checked_add(n)),
            None => None,
        },
        StepSize::Raw => at.checked_add(4).and_then(|end| end.checked_add(endian.u32(body.get(at..end)?) as usize)),
        StepSize::Aux => word(at).and_then(|n| at.checked_add(8)?.checked_add(usize::try_from(n).ok()?)),
    };
    next.filter(|&n| n <= body.len())
}

/// The end of the sample's last field; on failure, the field that does not fit and its offset in
/// the body.
#[inline(always)]
pub(crate) fn walk(
    body: &[u8],
    event: &crate::event::Event,
    endian: Endian,
) -> std::result::Result<usize, (&'static str, usize)> {
    let fixed = event.layout.fixed_size;
    // Offsets are kept as u16: a record body is at most 65535 - 8 bytes.
    if body.len() >= usize::from(u16::MAX) {
        return Err(("SAMPLE (body longer than a record can be)", 0));
    }
    if fixed > body.len() {
        return Err(("SAMPLE fixed fields", 0));
    }
    let mut at = fixed;
    for step in &event.sample_plan.steps {
        at = step_end(body, endian, at, step.size).ok_or((step.field.name(), at))?;
    }
    Ok(at)
}

fn parse_regs<'a>(r: &mut Reader<'a>, mask: u64) -> Result<Regs<'a>> {
    let abi = r.u64()?;
    let values = if abi == 0 { U64s::new(&[], r.endian()) } else { r.u64s(u64::from(mask.count_ones()))? };
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

// The nom parsers of the sample body and the `read_format` block.

/// A `read_format` block (a READ record's values, a sample's READ field; reference §5.3):
/// checked against `read_format` and borrowed.
pub fn read_values<'a>(read_format: u64) -> impl Fn(Reader<'a>) -> PResult<'a, ReadValues<'a>> {
    move |start: Reader<'a>| {
        let per_value = 1 + u64::from(read_format & rf::ID != 0) + u64::from(read_format & rf::LOST != 0);
        let times =
            u64::from(read_format & rf::TOTAL_TIME_ENABLED != 0) + u64::from(read_format & rf::TOTAL_TIME_RUNNING != 0);
        let input = if read_format & rf::GROUP != 0 {
            let (input, nr) = u64(start)?;
            let (input, _) = u64s(times)(input)?;
            words(nr, per_value, "read group nr {}")(input)?.0
        } else {
            u64s(times + per_value)(start)?.0
        };
        let len = start.remaining() - input.remaining();
        let bytes = start.rest().get(..len).unwrap_or(&[]);
        Ok((input, ReadValues { read_format, bytes, endian: start.endian() }))
    }
}

/// PERF_RECORD_SAMPLE: a body laid out by `event`'s attr (`sample_type`, `read_format`, register
/// masks, branch format). The fields are checked to fit here and read on access from the offsets
/// the event's [`crate::attr::SampleLayout`] precomputed once per attr (see [`Sample`]); bytes
/// after the last field are left unread (perf accepts them; [`Sample::trailing`] keeps them).
///
/// The body of this parser is the hand-written walk over the event's sample plan — fixed fields
/// skipped at once, variable ones (callchain, raw data, branch stack, registers, user stack)
/// stepped over by their counts — not a chain of combinators: it is the hot path of every reader.
/// callgrind (`read_bench` on a 15 MB `-g` recording, bench/NOTES.md "nom as the parser, second
/// part"): file-order decode 77,393,396 instructions with the walk called directly, 77,819,856
/// (+0.55%) with it as this parser's body; time order +0.34%.
#[inline(always)]
pub fn sample<'a>(event: &'a crate::event::Event) -> impl Fn(Reader<'a>) -> PResult<'a, Sample<'a>> {
    move |input: Reader<'a>| {
        let (body, endian) = (input.rest(), input.endian());
        match walk(body, event, endian) {
            Ok(end) => Ok((input.advanced(end), Sample { body, event, endian, end: end as u16 })),
            Err((what, at)) => {
                let available = body.len().saturating_sub(at) as u64;
                let pos = input.advanced(at).position();
                Err(nom::Err::Error(ParseError::Truncated { pos, what, needed: 8, available }))
            }
        }
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
        assert_eq!(be >> 63, 1, "mispred is the most significant bit in a big-endian file");
        assert_eq!(branch_flags_from_be(be), le);
    }
}

/// `union perf_mem_data_src` decoded (reference §5.6). The integer layout is the same in both byte
/// orders, so this works on the u64 as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSrc(pub u64);

impl DataSrc {
    fn bits(&self, lo: u32, w: u32) -> u64 {
        (self.0 >> lo) & ((1 << w) - 1)
    }
    /// mem_op (PERF_MEM_OP_*: 0x1 NA, 0x2 LOAD, 0x4 STORE, 0x8 PFETCH, 0x10 EXEC).
    pub fn op(&self) -> u64 {
        self.bits(0, 5)
    }
    /// mem_lvl (PERF_MEM_LVL_*).
    pub fn lvl(&self) -> u64 {
        self.bits(5, 14)
    }
    /// mem_snoop (PERF_MEM_SNOOP_*).
    pub fn snoop(&self) -> u64 {
        self.bits(19, 5)
    }
    /// mem_lock (PERF_MEM_LOCK_*).
    pub fn lock(&self) -> u64 {
        self.bits(24, 2)
    }
    /// mem_dtlb (PERF_MEM_TLB_*).
    pub fn dtlb(&self) -> u64 {
        self.bits(26, 7)
    }
    /// mem_lvl_num (PERF_MEM_LVLNUM_*).
    pub fn lvl_num(&self) -> u64 {
        self.bits(33, 4)
    }
    /// mem_remote.
    pub fn remote(&self) -> bool {
        self.bits(37, 1) != 0
    }
    /// mem_snoopx (PERF_MEM_SNOOPX_*).
    pub fn snoopx(&self) -> u64 {
        self.bits(38, 2)
    }
    /// mem_blk (PERF_MEM_BLK_*).
    pub fn blk(&self) -> u64 {
        self.bits(40, 3)
    }
    /// mem_hops (PERF_MEM_HOPS_*).
    pub fn hops(&self) -> u64 {
        self.bits(43, 3)
    }
    /// Names of the set bits of a field, from a table of (bit value, name).
    fn names(v: u64, table: &[(u64, &'static str)]) -> Vec<&'static str> {
        table.iter().filter(|(b, _)| v & b != 0).map(|(_, n)| *n).collect()
    }
    /// Operation names.
    pub fn op_names(&self) -> Vec<&'static str> {
        Self::names(self.op(), &[(1, "NA"), (2, "LOAD"), (4, "STORE"), (8, "PFETCH"), (16, "EXEC")])
    }
    /// Memory level names (the legacy mem_lvl field).
    pub fn lvl_names(&self) -> Vec<&'static str> {
        Self::names(
            self.lvl(),
            &[
                (0x1, "NA"),
                (0x2, "HIT"),
                (0x4, "MISS"),
                (0x8, "L1"),
                (0x10, "LFB"),
                (0x20, "L2"),
                (0x40, "L3"),
                (0x80, "LOC_RAM"),
                (0x100, "REM_RAM1"),
                (0x200, "REM_RAM2"),
                (0x400, "REM_CCE1"),
                (0x800, "REM_CCE2"),
                (0x1000, "IO"),
                (0x2000, "UNC"),
            ],
        )
    }
    /// Snoop names.
    pub fn snoop_names(&self) -> Vec<&'static str> {
        Self::names(self.snoop(), &[(1, "NA"), (2, "NONE"), (4, "HIT"), (8, "MISS"), (16, "HITM")])
    }
    /// TLB names.
    pub fn dtlb_names(&self) -> Vec<&'static str> {
        Self::names(self.dtlb(), &[(1, "NA"), (2, "HIT"), (4, "MISS"), (8, "L1"), (16, "L2"), (32, "WK"), (64, "OS")])
    }
    /// True for perf's "not available" value (`PERF_MEM_DATA_SRC_NONE`).
    pub fn is_na(&self) -> bool {
        self.0 == 0x1e05080021
    }
}

#[cfg(test)]
mod data_src_tests {
    use super::DataSrc;

    #[test]
    fn not_available_decodes_to_na_everywhere() {
        // perf's PERF_MEM_DATA_SRC_NONE, seen in cpu-clock samples (reference §5.6).
        let d = DataSrc(0x1e05080021);
        assert!(d.is_na());
        assert_eq!(
            (d.op_names(), d.lvl_names(), d.snoop_names(), d.dtlb_names()),
            (vec!["NA"], vec!["NA"], vec!["NA"], vec!["NA"])
        );
        assert_eq!(d.lock(), 1);
        assert_eq!(d.lvl_num(), 0xf);
    }
}
