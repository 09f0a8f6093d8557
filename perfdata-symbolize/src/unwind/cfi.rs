//! Call frame information of one binary: finding the FDE for an address (`.eh_frame_hdr`'s
//! binary search table as libunwind reads it, else a table of `.eh_frame`/`.debug_frame` FDEs
//! sorted once) and running its CIE and FDE programs with libunwind's rules.
//!
//! The CFI program runs here rather than through gimli's `UnwindTable` because libunwind's model
//! differs from the DWARF table gimli builds: every register starts as "same value" (gimli:
//! undefined, so an explicit `DW_CFA_undefined` — how `_start` ends the stack — could not be told
//! apart), and register numbers at or above `DWARF_NUM_PRESERVED_REGS` are an error. gimli still
//! parses every CIE, FDE, pointer encoding and instruction.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use gimli::{
    BaseAddresses, CallFrameInstruction, CieOrFde, DebugFrame, EhFrame, EndianSlice, RunTimeEndian, UnwindSection,
};

use super::regs::Arch;
use super::Fail;
use crate::Binary;

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

/// Most nested `DW_CFA_remember_state` kept; deeper CFI is treated as malformed.
const MAX_REMEMBER: usize = 64;
/// Most CFI instructions run for one address (CIE and FDE together).
const MAX_INSTRUCTIONS: usize = 100_000;
/// Lookups and register states kept per binary before its caches are emptied (each distinct
/// address unwound through takes one).
const CACHE_MAX: usize = 1 << 18;

use crate::FastMap;
/// A register state's FDE (section, offset) and the address the program runs to.
type StateKey = (Section, usize, u64);

/// Which section an FDE was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// `.eh_frame` (through `.eh_frame_hdr` or the sorted table).
    EhFrame,
    /// `.debug_frame`.
    DebugFrame,
}

/// An FDE found for an address, in the binary's virtual address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    /// The section holding it.
    pub section: Section,
    /// Offset of the FDE in that section.
    pub offset: usize,
    /// First address it covers (ELF virtual address).
    pub start: u64,
    /// One past the last.
    pub end: u64,
}

/// A DWARF expression of a CFI program: where its bytes are in the section of the FDE
/// ([`Cfi::expression`] reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expr {
    /// Offset in the section.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// How to find a register's value in the caller (libunwind's `dwarf_where_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Unchanged from the callee (`DWARF_WHERE_SAME`, the initial rule of every register).
    Same,
    /// No value (`DWARF_WHERE_UNDEF`).
    Undefined,
    /// Saved at CFA + offset (`DWARF_WHERE_CFAREL`).
    CfaOffset(i64),
    /// The value CFA + offset (`DW_CFA_val_offset`).
    ValOffset(i64),
    /// In another register.
    Register(u16),
    /// Saved at the address an expression computes (the CFA pushed first).
    Expression(Expr),
    /// The value an expression computes.
    ValExpression(Expr),
}

/// How to compute the CFA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfaRule {
    /// Not set by the CIE (malformed).
    Unset,
    /// Register + offset.
    RegOffset(u16, i64),
    /// An expression.
    Expression(Expr),
}

/// The register rules at one address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegState {
    /// CFA rule.
    pub cfa: CfaRule,
    /// Rule per register number (`Arch::num_regs` of them).
    pub regs: Vec<Rule>,
    /// The CIE's return address column.
    pub ra: u16,
    /// The CIE has augmentation `S` (a signal trampoline).
    pub signal_frame: bool,
    /// For evaluating expressions.
    pub encoding: gimli::Encoding,
    /// The section of the FDE, which holds the expressions.
    pub section: Section,
}

/// `.eh_frame_hdr` as perf's `unwind_spec_ehframe` reads it.
#[derive(Clone, Copy, Debug)]
struct Hdr {
    /// Virtual address of `.eh_frame_hdr` (libunwind's `segbase`, less the load bias).
    vaddr: u64,
    /// Offset of the binary search table in the section.
    table: usize,
    fde_count: u64,
}

/// The CFI of one binary, parsed lazily and kept for the whole run, with the result of each
/// lookup and of each program run (real stacks return to the same few addresses over and over).
pub struct Cfi {
    binary: Rc<Binary>,
    arch: Arch,
    hdr: Option<Hdr>,
    eh_sorted: OnceCell<Vec<Located>>,
    debug_sorted: OnceCell<Vec<Located>>,
    /// [`Cfi::search_hdr`] by key.
    hdr_found: RefCell<FastMap<u64, Result<Option<Located>, Fail>>>,
    /// [`Cfi::state`] by (section, FDE offset, end address).
    states: RefCell<FastMap<StateKey, Result<Rc<RegState>, Fail>>>,
}

impl std::fmt::Debug for Cfi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cfi").field("binary", &self.binary.path()).field("hdr", &self.hdr).finish_non_exhaustive()
    }
}

fn endian(b: &Binary) -> RunTimeEndian {
    if b.little_endian {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    }
}

fn word_size(b: &Binary) -> u8 {
    if b.is_64 {
        8
    } else {
        4
    }
}

impl Cfi {
    /// Index the CFI of `binary` (nothing is parsed beyond the `.eh_frame_hdr` header).
    pub fn new(binary: Rc<Binary>, arch: Arch) -> Cfi {
        let hdr = parse_hdr(&binary);
        Cfi {
            binary,
            arch,
            hdr,
            eh_sorted: OnceCell::new(),
            debug_sorted: OnceCell::new(),
            hdr_found: RefCell::default(),
            states: RefCell::default(),
        }
    }

    /// The binary.
    pub fn binary(&self) -> &Rc<Binary> {
        &self.binary
    }

    /// Whether `.eh_frame_hdr` is present and readable (perf: `eh_frame_hdr_offset != 0`).
    pub fn has_hdr(&self) -> bool {
        self.hdr.is_some()
    }

    /// Virtual address of `.eh_frame_hdr`.
    pub fn hdr_vaddr(&self) -> Option<u64> {
        self.hdr.map(|h| h.vaddr)
    }

    fn bases(&self) -> BaseAddresses {
        let b = &self.binary;
        let mut bases = BaseAddresses::default();
        if let Some(s) = b.section(".eh_frame") {
            bases = bases.set_eh_frame(s.address);
        }
        if let Some(h) = self.hdr {
            bases = bases.set_eh_frame_hdr(h.vaddr);
        }
        if let Some(s) = b.section_address(".text") {
            bases = bases.set_text(s);
        }
        if let Some(s) = b.section_address(".got") {
            bases = bases.set_got(s);
        }
        bases
    }

    fn eh_frame(&self) -> Option<EhFrame<Slice<'_>>> {
        let s = self.binary.section(".eh_frame")?;
        let mut f = EhFrame::new(s.data, endian(&self.binary));
        f.set_address_size(word_size(&self.binary));
        if self.arch == Arch::Aarch64 {
            f.set_vendor(gimli::Vendor::AArch64);
        }
        Some(f)
    }

    fn debug_frame(&self) -> Option<DebugFrame<Slice<'_>>> {
        let s = self.binary.section(".debug_frame")?;
        let mut f = DebugFrame::new(s.data, endian(&self.binary));
        f.set_address_size(word_size(&self.binary));
        if self.arch == Arch::Aarch64 {
            f.set_vendor(gimli::Vendor::AArch64);
        }
        Some(f)
    }

    /// libunwind's `dwarf_search_unwind_table` over `.eh_frame_hdr` (`remote_lookup`): the
    /// address relative to the header is truncated to an `int32_t`, the table is searched for
    /// the last entry starting at or below it, and the FDE found must contain `key` — else
    /// `Ok(None)` (`-UNW_ENOINFO`).
    pub fn search_hdr(&self, key: u64) -> Result<Option<Located>, Fail> {
        cached(&self.hdr_found, key, || self.search_hdr_uncached(key))
    }

    fn search_hdr_uncached(&self, key: u64) -> Result<Option<Located>, Fail> {
        let hdr = self.hdr.ok_or(Fail::Other("no .eh_frame_hdr"))?;
        let data = self.binary.section(".eh_frame_hdr").ok_or(Fail::Other("no .eh_frame_hdr"))?.data;
        let table = data.get(hdr.table..).ok_or(Fail::Other("eh_frame_hdr table outside the section"))?;
        let entry = |i: u64| -> Result<(i32, i32), Fail> {
            let at = usize::try_from(i.checked_mul(8).ok_or(Fail::Other("table index"))?)
                .map_err(|_| Fail::Other("table index"))?;
            let e = table.get(at..at.saturating_add(8)).ok_or(Fail::Other("eh_frame_hdr table truncated"))?;
            let w = |b: &[u8]| -> Result<i32, Fail> {
                let a: [u8; 4] = b.try_into().map_err(|_| Fail::Other("table entry"))?;
                Ok(if self.binary.little_endian { i32::from_le_bytes(a) } else { i32::from_be_bytes(a) })
            };
            Ok((w(e.get(..4).unwrap_or(&[]))?, w(e.get(4..).unwrap_or(&[]))?))
        };
        // `int32_t rel_ip = ip - segbase` in libunwind: a truncating conversion.
        let rel = key.wrapping_sub(hdr.vaddr) as i32;
        let (mut lo, mut hi) = (0u64, hdr.fde_count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if rel < entry(mid)?.0 {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if hi == 0 {
            return Ok(None);
        }
        let (_, fde_rel) = entry(hi - 1)?;
        let fde_vaddr = hdr.vaddr.wrapping_add(fde_rel as i64 as u64);
        let eh = self.binary.section(".eh_frame").ok_or(Fail::Other("no .eh_frame"))?;
        let offset = fde_vaddr
            .checked_sub(eh.address)
            .and_then(|o| usize::try_from(o).ok())
            .filter(|&o| o < eh.data.len())
            .ok_or(Fail::Other("FDE outside .eh_frame"))?;
        let section = self.eh_frame().ok_or(Fail::Other("no .eh_frame"))?;
        let bases = self.bases();
        let fde = section
            .fde_from_offset(&bases, gimli::EhFrameOffset(offset), EhFrame::cie_from_offset)
            .map_err(|_| Fail::Other("malformed FDE"))?;
        let (start, end) = (fde.initial_address(), fde.initial_address().wrapping_add(fde.len()));
        Ok((key >= start && key < end).then_some(Located { section: Section::EhFrame, offset, start, end }))
    }

    /// The FDE holding `key` from a table of every FDE of `section`, built on first use.
    pub fn search_sorted(&self, section: Section, key: u64) -> Option<Located> {
        let table = match section {
            Section::EhFrame => self.eh_sorted.get_or_init(|| match self.eh_frame() {
                Some(s) => sorted_fdes(&s, &self.bases(), Section::EhFrame),
                None => Vec::new(),
            }),
            Section::DebugFrame => self.debug_sorted.get_or_init(|| match self.debug_frame() {
                Some(s) => sorted_fdes(&s, &self.bases(), Section::DebugFrame),
                None => Vec::new(),
            }),
        };
        let i = table.partition_point(|l| l.start <= key);
        let l = table.get(i.checked_sub(1)?)?;
        (key < l.end).then_some(*l)
    }

    /// Run the CIE program, then the FDE program while the location is `<= end_ip` (libunwind's
    /// `run_cfi_program`; `end_ip` is the address the FDE was looked up with: a caller's return
    /// address less one).
    pub fn state(&self, located: &Located, end_ip: u64) -> Result<Rc<RegState>, Fail> {
        cached(&self.states, (located.section, located.offset, end_ip), || {
            self.state_uncached(located, end_ip).map(Rc::new)
        })
    }

    /// The bytes of an expression of a [`RegState`] of this binary.
    pub fn expression(&self, section: Section, e: Expr) -> Result<&[u8], Fail> {
        let name = match section {
            Section::EhFrame => ".eh_frame",
            Section::DebugFrame => ".debug_frame",
        };
        self.binary
            .section(name)
            .and_then(|d| d.data.get(e.offset..e.offset.checked_add(e.len)?))
            .ok_or(Fail::Other("expression outside section"))
    }

    fn state_uncached(&self, located: &Located, end_ip: u64) -> Result<RegState, Fail> {
        let bases = self.bases();
        match located.section {
            Section::EhFrame => {
                let s = self.eh_frame().ok_or(Fail::Other("no .eh_frame"))?;
                let fde = s
                    .fde_from_offset(&bases, gimli::EhFrameOffset(located.offset), EhFrame::cie_from_offset)
                    .map_err(|_| Fail::Other("malformed FDE"))?;
                let data = self.binary.section(".eh_frame").map(|d| d.data);
                run(&s, &bases, &fde, self.arch, end_ip, data, Section::EhFrame)
            }
            Section::DebugFrame => {
                let s = self.debug_frame().ok_or(Fail::Other("no .debug_frame"))?;
                let fde = s
                    .fde_from_offset(&bases, gimli::DebugFrameOffset(located.offset), DebugFrame::cie_from_offset)
                    .map_err(|_| Fail::Other("malformed FDE"))?;
                let data = self.binary.section(".debug_frame").map(|d| d.data);
                run(&s, &bases, &fde, self.arch, end_ip, data, Section::DebugFrame)
            }
        }
    }
}

/// perf's `unwind_spec_ehframe`: version, three encodings, the encoded `.eh_frame` pointer
/// (skipped), the FDE count (perf's `dw_read_encoded_value`: `DW_EH_PE_ptr`, or 4/8-byte data
/// with the absolute or pc-relative application); the table follows.
fn parse_hdr(binary: &Binary) -> Option<Hdr> {
    let s = binary.section(".eh_frame_hdr")?;
    let d = s.data;
    // libunwind reads the table as pairs of `int32_t` (DW_EH_PE_datarel | DW_EH_PE_sdata4).
    if *d.get(3)? != 0x3b {
        return None;
    }
    let mut at = 4usize;
    let mut read = |enc: u8| -> Option<u64> {
        let len = match enc {
            0xff => 0,
            0x00 => usize::from(word_size(binary)),
            _ if enc & 0x70 > 0x10 => return None,
            _ if enc & 0x07 == 0 => 4,
            _ => match enc & 0x0f {
                0x03 | 0x0b => 4,
                0x04 | 0x0c => 8,
                _ => return None,
            },
        };
        let b = d.get(at..at.checked_add(len)?)?;
        at += len;
        let mut v = 0u64;
        for (i, &x) in b.iter().enumerate() {
            let shift = if binary.little_endian { 8 * i } else { 8 * (len - 1 - i) };
            v |= u64::from(x) << shift;
        }
        Some(v)
    };
    read(*d.get(1)?)?;
    let fde_count = read(*d.get(2)?)?;
    let table = at;
    // Never trust the count beyond what the section holds.
    let fde_count = fde_count.min((d.len().saturating_sub(table) / 8) as u64);
    Some(Hdr { vaddr: s.address, table, fde_count })
}

/// Every FDE of a section, sorted by start address (bounded by the section: each entry takes
/// at least 8 bytes).
fn sorted_fdes<'a, S: UnwindSection<Slice<'a>>>(section: &S, bases: &BaseAddresses, which: Section) -> Vec<Located> {
    let mut out = Vec::new();
    let mut entries = section.entries(bases);
    while let Ok(Some(entry)) = entries.next() {
        if let CieOrFde::Fde(partial) = entry {
            let offset = partial.offset();
            if let Ok(fde) = partial.parse(S::cie_from_offset) {
                if fde.len() > 0 {
                    let start = fde.initial_address();
                    out.push(Located { section: which, offset, start, end: start.wrapping_add(fde.len()) });
                }
            }
        }
    }
    out.sort_by_key(|l| (l.start, l.offset));
    out
}

/// The value cached under `key` in `cache`, computed by `f` on a miss (the cache is emptied
/// when full).
fn cached<K: std::hash::Hash + Eq, V: Clone>(cache: &RefCell<FastMap<K, V>>, key: K, f: impl FnOnce() -> V) -> V {
    if let Some(v) = cache.borrow().get(&key) {
        return v.clone();
    }
    let v = f();
    let mut c = cache.borrow_mut();
    if c.len() >= CACHE_MAX {
        c.clear();
    }
    c.insert(key, v.clone());
    v
}

/// An expression of the program, checked to lie in the section.
fn expr(data: Option<&[u8]>, e: &gimli::UnwindExpression<usize>) -> Result<Expr, Fail> {
    data.and_then(|d| d.get(e.offset..e.offset.checked_add(e.length)?))
        .map(|_| Expr { offset: e.offset, len: e.length })
        .ok_or(Fail::Other("expression outside section"))
}

/// One state of the register table while the program runs.
#[derive(Clone)]
struct Row {
    cfa: CfaRule,
    cfa_offset: i64,
    regs: Vec<Rule>,
}

fn run<'a, S: UnwindSection<Slice<'a>>>(
    section: &S,
    bases: &BaseAddresses,
    fde: &gimli::FrameDescriptionEntry<Slice<'a>>,
    arch: Arch,
    end_ip: u64,
    data: Option<&'a [u8]>,
    which: Section,
) -> Result<RegState, Fail> {
    let cie = fde.cie();
    let n = arch.num_regs();
    let code_align = cie.code_alignment_factor();
    let data_align = cie.data_alignment_factor();
    let mut row = Row { cfa: CfaRule::Unset, cfa_offset: 0, regs: vec![Rule::Same; usize::from(n)] };
    let mut budget = MAX_INSTRUCTIONS;
    // The CIE program runs to its end.
    let mut stack: Vec<Row> = Vec::new();
    let mut ip = 0u64;
    exec(
        &mut cie.instructions(section, bases),
        &mut row,
        None,
        &mut stack,
        &mut ip,
        u64::MAX,
        n,
        code_align,
        data_align,
        data,
        &mut budget,
    )?;
    let initial = row.clone();
    stack.clear();
    let mut ip = fde.initial_address();
    exec(
        &mut fde.instructions(section, bases),
        &mut row,
        Some(&initial),
        &mut stack,
        &mut ip,
        end_ip,
        n,
        code_align,
        data_align,
        data,
        &mut budget,
    )?;
    let cfa = match row.cfa {
        CfaRule::RegOffset(r, _) => CfaRule::RegOffset(r, row.cfa_offset),
        other => other,
    };
    let ra = cie.return_address_register().0;
    Ok(RegState {
        cfa,
        regs: row.regs,
        ra,
        signal_frame: cie.is_signal_trampoline(),
        encoding: cie.encoding(),
        section: which,
    })
}

#[allow(clippy::too_many_arguments)]
fn exec<'a>(
    it: &mut gimli::CallFrameInstructionIter<'_, Slice<'a>>,
    row: &mut Row,
    initial: Option<&Row>,
    stack: &mut Vec<Row>,
    ip: &mut u64,
    end_ip: u64,
    n: u16,
    code_align: u64,
    data_align: i64,
    data: Option<&'a [u8]>,
    budget: &mut usize,
) -> Result<(), Fail> {
    let reg = |r: gimli::Register| -> Result<usize, Fail> {
        if r.0 >= n {
            Err(Fail::Other("CFI names a register libunwind does not keep"))
        } else {
            Ok(usize::from(r.0))
        }
    };
    let bad = |_| Fail::Other("malformed CFI program");
    while *ip <= end_ip {
        let Some(insn) = it.next().map_err(bad)? else { break };
        *budget = budget.checked_sub(1).ok_or(Fail::Other("CFI program too long"))?;
        use CallFrameInstruction as I;
        match insn {
            I::SetLoc { address } => *ip = address,
            I::AdvanceLoc { delta } => *ip = ip.wrapping_add(u64::from(delta).wrapping_mul(code_align)),
            I::DefCfa { register, offset } => {
                row.cfa = CfaRule::RegOffset(reg(register)? as u16, 0);
                row.cfa_offset = offset as i64;
            }
            I::DefCfaSf { register, factored_offset } => {
                row.cfa = CfaRule::RegOffset(reg(register)? as u16, 0);
                row.cfa_offset = factored_offset.wrapping_mul(data_align);
            }
            I::DefCfaRegister { register } => row.cfa = CfaRule::RegOffset(reg(register)? as u16, 0),
            I::DefCfaOffset { offset } => row.cfa_offset = offset as i64,
            I::DefCfaOffsetSf { factored_offset } => row.cfa_offset = factored_offset.wrapping_mul(data_align),
            I::DefCfaExpression { expression } => row.cfa = CfaRule::Expression(expr(data, &expression)?),
            I::Undefined { register } => set(row, reg(register)?, Rule::Undefined),
            I::SameValue { register } => set(row, reg(register)?, Rule::Same),
            I::Offset { register, factored_offset } => {
                set(row, reg(register)?, Rule::CfaOffset((factored_offset as i64).wrapping_mul(data_align)))
            }
            I::OffsetExtendedSf { register, factored_offset } => {
                set(row, reg(register)?, Rule::CfaOffset(factored_offset.wrapping_mul(data_align)))
            }
            I::ValOffset { register, factored_offset } => {
                set(row, reg(register)?, Rule::ValOffset((factored_offset as i64).wrapping_mul(data_align)))
            }
            I::ValOffsetSf { register, factored_offset } => {
                set(row, reg(register)?, Rule::ValOffset(factored_offset.wrapping_mul(data_align)))
            }
            I::Register { dest_register, src_register } => {
                set(row, reg(dest_register)?, Rule::Register(src_register.0))
            }
            I::Expression { register, expression } => {
                set(row, reg(register)?, Rule::Expression(expr(data, &expression)?))
            }
            I::ValExpression { register, expression } => {
                set(row, reg(register)?, Rule::ValExpression(expr(data, &expression)?))
            }
            I::Restore { register } => {
                let r = reg(register)?;
                let init = initial.and_then(|i| i.regs.get(r).copied()).unwrap_or(Rule::Same);
                set(row, r, init);
            }
            I::RememberState => {
                if stack.len() >= MAX_REMEMBER {
                    return Err(Fail::Other("DW_CFA_remember_state nested too deep"));
                }
                stack.push(row.clone());
            }
            I::RestoreState => *row = stack.pop().ok_or(Fail::Other("DW_CFA_restore_state without remember"))?,
            I::ArgsSize { .. } | I::NegateRaState | I::Nop => {}
            _ => return Err(Fail::Other("unsupported CFI instruction")),
        }
    }
    Ok(())
}

fn set(row: &mut Row, r: usize, rule: Rule) {
    if let Some(slot) = row.regs.get_mut(r) {
        *slot = rule;
    }
}
