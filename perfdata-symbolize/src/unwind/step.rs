//! One unwind: perf 6.1's `unwind__get_entries` (libunwind flavour, `unwind-libunwind-local.c`)
//! driving libunwind 1.6's cursor: `unw_init_remote`, then `unw_step` until it stops, each
//! caller's address less one unless the frame is a signal frame. Memory is perf's `access_mem`:
//! the stack dump for `[sp, sp + dyn_size - 8)`, else the bytes of the file mapped there.
//!
//! libunwind keeps, per register, where its value is (a location: a sampled register, a memory
//! address, a value, or nothing) and reads it only when needed; the stack pointer is always the
//! CFA. On x86_64, when no FDE covers an address, `unw_step` guesses a frame from `rbp` (see
//! [`Walk::frame_chain_x86_64`]).

use std::rc::Rc;

use gimli::{EndianSlice, Evaluation, EvaluationResult, Location, RunTimeEndian, Value};

use super::cfi::{CfaRule, Cfi, Located, RegState, Rule, Section};
use super::regs::{Arch, UserRegs};
use super::{AddressSpace, Fail, FrameSource, Stop, UnwindOptions, UserFrame};

/// Where a register's value is (libunwind's `dwarf_loc_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    /// Not recoverable (`DWARF_NULL_LOC`).
    Null,
    /// In a sampled register (`DWARF_REG_LOC`): always the value sampled, whatever the frame.
    Reg(u16),
    /// In memory (`DWARF_MEM_LOC`).
    Mem(u64),
    /// The value itself (`DWARF_VAL_LOC`).
    Val(u64),
}

/// A value read: `ok == false` is perf's `access_mem` returning 1 for a mapped address whose
/// bytes it could not read — libunwind takes that as success with the value 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Read {
    value: u64,
    ok: bool,
}

const fn read(value: u64) -> Read {
    Read { value, ok: true }
}

struct Cursor {
    ip: u64,
    cfa: u64,
    loc: Vec<Loc>,
    use_prev_instr: bool,
    source: FrameSource,
}

/// One sample's unwind.
pub(super) struct Walk<'w, 'a> {
    pub arch: Arch,
    pub opts: UnwindOptions,
    pub regs: UserRegs<'a>,
    /// Stack pointer of the sample.
    pub sp: u64,
    /// The `dyn_size` valid bytes of the stack dump.
    pub stack: &'a [u8],
    pub little_endian: bool,
    pub space: &'w mut dyn AddressSpace,
    pub cfi: &'w mut super::FastMap<usize, Rc<Cfi>>,
}

/// `Ok(0)` stop, `Ok(1)` a frame, `Err` failure (libunwind's return convention).
type Step = Result<u8, Fail>;

impl Walk<'_, '_> {
    /// perf's `get_entries`: the sampled IP, then one entry per successful `unw_step`.
    pub(crate) fn run(&mut self) -> (Vec<UserFrame>, Stop) {
        let Some(ip0) = self.regs.ip() else { return (Vec::new(), Stop::Failed(Fail::Other("no sampled IP"))) };
        let mut frames = vec![UserFrame { ip: ip0, source: FrameSource::Registers }];
        let max = self.opts.max_stack.max(1);
        if max == 1 {
            return (finish(frames), Stop::MaxStack);
        }
        let Some(mut c) = self.init() else {
            return (finish(frames), Stop::Failed(Fail::Other("no sampled IP or SP")));
        };
        let mut steps = 1usize;
        let stop = loop {
            let r = match self.arch {
                Arch::X86_64 => self.step_x86_64(&mut c),
                Arch::Aarch64 => self.step_aarch64(&mut c),
            };
            match r {
                Ok(0) => break Stop::End,
                Err(e) => break Stop::Failed(e),
                Ok(_) => {}
            }
            if steps >= max {
                break Stop::MaxStack;
            }
            steps += 1;
            let ip = if self.is_signal_frame(c.ip) { c.ip } else { c.ip.wrapping_sub(1) };
            // Without perf's rules (as elfutils), a frame-pointer guess that leads out of every
            // mapping is no frame: the stack ends there.
            if !self.opts.perf_compat && c.source == FrameSource::FramePointer && self.space.module(ip).is_none() {
                break Stop::End;
            }
            frames.push(UserFrame { ip, source: c.source });
        };
        (finish(frames), stop)
    }

    /// `unw_init_remote`: every register located in the sampled registers, `ip` and the CFA
    /// (= sp) read now; the first frame's CFI is looked up at `ip` itself.
    fn init(&mut self) -> Option<Cursor> {
        let n = usize::from(self.arch.num_regs());
        let mut loc = vec![Loc::Null; n];
        let preserved = match self.arch {
            Arch::X86_64 => 0..=16u16,
            Arch::Aarch64 => 0..=32u16,
        };
        for r in preserved {
            if let Some(l) = loc.get_mut(usize::from(r)) {
                *l = Loc::Reg(r);
            }
        }
        let ip = self.get(Loc::Reg(self.arch.ip())).ok()?.value;
        let cfa = self.get(Loc::Reg(self.arch.sp())).ok()?.value;
        Some(Cursor { ip, cfa, loc, use_prev_instr: false, source: FrameSource::Cfi })
    }

    /// perf's `access_mem`.
    fn mem(&mut self, addr: u64) -> Result<Read, Fail> {
        let end8 = addr.checked_add(8).ok_or(Fail::Other("address overflow"))?;
        let end = self.sp.wrapping_add(self.stack.len() as u64);
        if addr < self.sp || end8 >= end {
            return self.file_mem(addr);
        }
        let off = usize::try_from(addr - self.sp).map_err(|_| Fail::Other("stack offset"))?;
        let b: [u8; 8] = self
            .stack
            .get(off..off.saturating_add(8))
            .and_then(|b| b.try_into().ok())
            .ok_or(Fail::Other("stack offset"))?;
        Ok(read(if self.little_endian { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) }))
    }

    /// perf's `access_dso_mem`: the bytes of the file mapped at `addr` (no map: an error; a map
    /// whose file cannot be read there: "success" with 0).
    fn file_mem(&mut self, addr: u64) -> Result<Read, Fail> {
        let m = self.space.module(addr).ok_or(Fail::Other("no map for address"))?;
        let Some(b) = m.binary else { return Ok(Read { value: 0, ok: false }) };
        let off = addr.wrapping_sub(m.start).wrapping_add(m.pgoff);
        Ok(match b.read_file_u64(off) {
            None => Read { value: 0, ok: false },
            Some(v) => read(v.unwrap_or(0)),
        })
    }

    /// `dwarf_get`.
    fn get(&mut self, loc: Loc) -> Result<Read, Fail> {
        match loc {
            Loc::Null => Err(Fail::Other("register not recoverable")),
            Loc::Reg(r) => self.regs.get(r).map(read).ok_or(Fail::Other("register not sampled")),
            Loc::Val(v) => Ok(read(v)),
            Loc::Mem(a) => self.mem(a),
        }
    }

    /// `unw_get_reg` (`tdep_access_reg`): the stack pointer is the CFA, others their location.
    fn reg(&mut self, c: &Cursor, r: u16) -> Result<u64, Fail> {
        if r == self.arch.sp() {
            return Ok(c.cfa);
        }
        let l = c.loc.get(usize::from(r)).copied().ok_or(Fail::Other("bad register number"))?;
        Ok(self.get(l)?.value)
    }

    /// `unw_is_signal_frame`: the code at `ip` is the kernel's sigreturn trampoline sequence.
    fn is_signal_frame(&mut self, ip: u64) -> bool {
        match self.arch {
            Arch::X86_64 => {
                // mov $0xf,%rax; syscall
                let (Ok(w0), Ok(w1)) = (self.mem(ip), self.mem(ip.wrapping_add(8))) else { return false };
                w0.value == 0x0f00_0000_0fc0_c748 && w1.value & 0xff == 0x05
            }
            Arch::Aarch64 => {
                // mov x8, #139; svc #0
                self.mem(ip).is_ok_and(|w| w.value == 0xd400_0001_d280_1168)
            }
        }
    }

    fn cfi_for(&mut self, b: &Rc<crate::Binary>) -> Rc<Cfi> {
        let key = Rc::as_ptr(b) as usize;
        let arch = self.arch;
        self.cfi.entry(key).or_insert_with(|| Rc::new(Cfi::new(b.clone(), arch))).clone()
    }

    /// perf's `find_proc_info`: the FDE for `ip` and the bias from the binary's addresses to the
    /// process's, as perf computes it. `.eh_frame_hdr` is placed at the lowest start of all maps
    /// of the file less the first segment's page (a map left from an earlier image of the process
    /// — before an exec — counts too, and then nothing is found). On aarch64 perf's libunwind
    /// also reads `.debug_frame`, placed at the map's start (0 for ET_EXEC).
    fn find_proc_info(&mut self, ip: u64) -> Result<(Rc<Cfi>, Located, u64), Fail> {
        let m = self.space.module(ip).ok_or(Fail::Other("no map for address"))?;
        let binary = m.binary.clone().ok_or(Fail::Other("binary not found"))?;
        let cfi = self.cfi_for(&binary);
        let mut ret = Err(Fail::Other("no .eh_frame_hdr"));
        if let Some(hdr) = cfi.hdr_vaddr() {
            let bias = if self.opts.perf_compat {
                m.lowest_start.wrapping_sub(binary.base_vaddr())
            } else {
                true_bias(&m, &binary)
            };
            // libunwind reads the table through perf's maps.
            if self.space.module(bias.wrapping_add(hdr)).is_none() {
                return Err(Fail::Other("no map for .eh_frame_hdr"));
            }
            match cfi.search_hdr(ip.wrapping_sub(bias)) {
                Ok(Some(l)) => return Ok((cfi, l, bias)),
                Ok(None) => ret = Err(Fail::NoInfo),
                Err(e) => ret = Err(e),
            }
        } else if !self.opts.perf_compat {
            let bias = true_bias(&m, &binary);
            if let Some(l) = cfi.search_sorted(Section::EhFrame, ip.wrapping_sub(bias)) {
                return Ok((cfi, l, bias));
            }
            ret = Err(Fail::NoInfo);
        }
        if self.arch == Arch::Aarch64 || !self.opts.perf_compat {
            let bias = if !self.opts.perf_compat {
                true_bias(&m, &binary)
            } else if binary.is_exec {
                0
            } else {
                m.start
            };
            if let Some(l) = cfi.search_sorted(Section::DebugFrame, ip.wrapping_sub(bias)) {
                return Ok((cfi, l, bias));
            }
        }
        ret
    }

    /// `dwarf_step`: find the rules for this frame and apply them.
    fn dwarf_step(&mut self, c: &mut Cursor) -> Step {
        let lookup = if c.use_prev_instr { c.ip.wrapping_sub(1) } else { c.ip };
        let (cfi, located, bias) = self.find_proc_info(lookup)?;
        // The program runs to the adjusted address too (libunwind since 2017, PR #54): a row that
        // starts at a return address (after a noreturn call) does not apply to the call.
        let state = cfi.state(&located, lookup.wrapping_sub(bias))?;
        c.use_prev_instr = !state.signal_frame;
        c.source = FrameSource::Cfi;
        self.apply(c, &cfi, &state)
    }

    /// libunwind's `apply_reg_state`.
    fn apply(&mut self, c: &mut Cursor, cfi: &Cfi, s: &RegState) -> Step {
        let (prev_ip, prev_cfa) = (c.ip, c.cfa);
        let sp = self.arch.sp();
        let cfa = match s.cfa {
            CfaRule::RegOffset(r, off) => {
                // If the CFA is sp-based and sp is not saved, popping the CFA pops sp too.
                let base =
                    if r == sp && s.regs.get(usize::from(sp)) == Some(&Rule::Same) { c.cfa } else { self.reg(c, r)? };
                base.wrapping_add(off as u64)
            }
            CfaRule::Expression(e) => match self.eval(c, cfi.expression(s.section, e)?, None, s.encoding)? {
                (v, false) => v,
                (_, true) => return Err(Fail::Other("CFA expression names a register")),
            },
            CfaRule::Unset => return Err(Fail::Other("CIE sets no CFA rule")),
        };
        for (i, rule) in s.regs.iter().enumerate() {
            let new = match *rule {
                Rule::Same => continue,
                Rule::Undefined => Loc::Null,
                Rule::CfaOffset(o) => Loc::Mem(cfa.wrapping_add(o as u64)),
                Rule::ValOffset(o) => Loc::Val(cfa.wrapping_add(o as u64)),
                Rule::Register(r) => Loc::Reg(r),
                Rule::Expression(e) => match self.eval(c, cfi.expression(s.section, e)?, Some(cfa), s.encoding)? {
                    (r, true) => Loc::Reg(r as u16),
                    (a, false) => Loc::Mem(a),
                },
                Rule::ValExpression(e) => {
                    Loc::Val(self.eval(c, cfi.expression(s.section, e)?, Some(cfa), s.encoding)?.0)
                }
            };
            if let Some(l) = c.loc.get_mut(i) {
                *l = new;
            }
        }
        c.cfa = cfa;
        let ra = c.loc.get(usize::from(s.ra)).copied().unwrap_or(Loc::Null);
        let ret = if ra == Loc::Null {
            // An undefined return address ends the stack.
            c.ip = 0;
            0
        } else {
            c.ip = self.get(ra)?.value;
            1
        };
        if c.ip == prev_ip && c.cfa == prev_cfa {
            return Err(Fail::Other("ip and cfa unchanged"));
        }
        Ok(ret)
    }

    /// Evaluate a DWARF expression; `(value, true)` when it names a register (`DW_OP_regN`).
    fn eval(
        &mut self,
        c: &Cursor,
        bytes: &[u8],
        initial: Option<u64>,
        enc: gimli::Encoding,
    ) -> Result<(u64, bool), Fail> {
        let endian = if self.little_endian { RunTimeEndian::Little } else { RunTimeEndian::Big };
        let mut ev = Evaluation::new(EndianSlice::new(bytes, endian), enc);
        ev.set_max_iterations(10_000);
        if let Some(v) = initial {
            ev.set_initial_value(v);
        }
        let bad = |_| Fail::Other("DWARF expression failed");
        let mut r = ev.evaluate().map_err(bad)?;
        loop {
            r = match r {
                EvaluationResult::Complete => break,
                EvaluationResult::RequiresMemory { address, size, .. } => {
                    let mut v = self.mem(address)?.value;
                    if size < 8 {
                        v &= (1u64 << (u32::from(size) * 8)) - 1;
                    }
                    ev.resume_with_memory(Value::Generic(v)).map_err(bad)?
                }
                EvaluationResult::RequiresRegister { register, .. } => {
                    let v = self.reg(c, register.0)?;
                    ev.resume_with_register(Value::Generic(v)).map_err(bad)?
                }
                _ => return Err(Fail::Other("DWARF expression needs unsupported context")),
            };
        }
        let piece = ev.as_result().first().ok_or(Fail::Other("empty DWARF expression"))?;
        match &piece.location {
            Location::Address { address } => Ok((*address, false)),
            Location::Register { register } => Ok((u64::from(register.0), true)),
            Location::Value { value } => Ok((value.to_u64(u64::MAX).map_err(bad)?, false)),
            _ => Err(Fail::Other("DWARF expression result")),
        }
    }

    /// libunwind 1.6 `unw_step` for x86_64: CFI, and when there is none for the address
    /// (`-UNW_ENOINFO`) the frame-pointer guess. A NULL `rbp` location ends the stack.
    fn step_x86_64(&mut self, c: &mut Cursor) -> Step {
        match self.dwarf_step(c) {
            Ok(ret) => {
                if c.loc.get(6) == Some(&Loc::Null) {
                    c.ip = 0;
                    return Ok(0);
                }
                Ok(ret)
            }
            Err(Fail::NoInfo) => self.frame_chain_x86_64(c),
            Err(e) => Err(e),
        }
    }

    /// The `dwarf_step() failed` branch of libunwind's x86_64 `unw_step`: a PLT entry (the CFA
    /// is rsp plus 8), else `rbp` taken as a frame pointer if it lies above the CFA by at most
    /// 16 KiB (the return address at `rbp + 8`), else the end. When the code at the previous
    /// address cannot be read, the return address is first looked for at `rsp` (a call through a
    /// bad pointer).
    fn frame_chain_x86_64(&mut self, c: &mut Cursor) -> Step {
        const RBP: usize = 6;
        const RSP: usize = 7;
        const RIP: usize = 16;
        let (prev_ip, prev_cfa) = (c.ip, c.cfa);
        let loc = |c: &Cursor, i: usize| c.loc.get(i).copied().unwrap_or(Loc::Null);
        if self.is_signal_frame(c.ip) {
            // A sigreturn trampoline without CFI: libunwind reads the sigcontext; not modelled.
            return Ok(0);
        }
        if self.is_plt_entry(c.ip) {
            if let Some(l) = c.loc.get_mut(RIP) {
                *l = Loc::Mem(c.cfa);
            }
            c.cfa = c.cfa.wrapping_add(8);
            c.source = FrameSource::Plt;
        } else if loc(c, RBP) == Loc::Null {
            c.loc.iter_mut().for_each(|l| *l = Loc::Null);
        } else {
            let rbp = self.get(loc(c, RBP))?.value;
            let invalid_prev_rip = !self.mem(prev_ip).is_ok_and(|r| r.ok);
            let (mut rbp_loc, mut rsp_loc, mut rip_loc) = (Loc::Null, Loc::Null, Loc::Null);
            if rbp != 0 || invalid_prev_rip {
                let mut fixed = false;
                if invalid_prev_rip {
                    if let Ok(rsp) = self.get(loc(c, RSP)) {
                        let rsp = rsp.value;
                        if let Ok(Read { value: new_ip, ok: true }) = self.mem(rsp) {
                            if self.mem(new_ip).is_ok_and(|r| r.ok) {
                                fixed = true;
                                c.cfa = c.cfa.wrapping_add(8);
                                (rbp_loc, rsp_loc, rip_loc) = (Loc::Mem(rbp), Loc::Mem(rsp), Loc::Mem(rsp));
                            }
                        }
                    }
                }
                if !fixed {
                    rbp_loc = Loc::Mem(rbp);
                    rip_loc = Loc::Mem(rbp.wrapping_add(8));
                    let got = self.get(rbp_loc);
                    if got.is_err() || rbp < c.cfa || rbp - c.cfa > 0x4000 {
                        rip_loc = Loc::Null;
                        rbp_loc = Loc::Null;
                    }
                    c.cfa = c.cfa.wrapping_add(16);
                }
            }
            c.loc.iter_mut().for_each(|l| *l = Loc::Null);
            for (i, l) in [(RBP, rbp_loc), (RSP, rsp_loc), (RIP, rip_loc)] {
                if let Some(slot) = c.loc.get_mut(i) {
                    *slot = l;
                }
            }
            c.use_prev_instr = true;
            c.source = FrameSource::FramePointer;
        }
        if loc(c, RBP) == Loc::Null {
            return Ok(0);
        }
        let ret = match loc(c, RIP) {
            Loc::Null => {
                c.ip = 0;
                0
            }
            l => {
                c.ip = self.get(l)?.value;
                1
            }
        };
        if c.ip == prev_ip && c.cfa == prev_cfa {
            return Err(Fail::Other("ip and cfa unchanged"));
        }
        Ok(ret)
    }

    /// libunwind's `is_plt_entry`: `jmpq *x(%rip); pushq $n; jmpq y`.
    fn is_plt_entry(&mut self, ip: u64) -> bool {
        let (Ok(w0), Ok(w1)) = (self.mem(ip), self.mem(ip.wrapping_add(8))) else { return false };
        let (w0, w1) = (w0.value, w1.value);
        w0 & 0xffff == 0x25ff && (w0 >> 48) & 0xff == 0x68 && (w1 >> 24) & 0xff == 0xe9
    }

    /// AArch64: CFI, and when there is none for the address the frame record chain (x29 points
    /// at {previous x29, return address}). This follows libunwind's aarch64 `unw_step` in
    /// outline; it is not checked against perf on aarch64 recordings.
    fn step_aarch64(&mut self, c: &mut Cursor) -> Step {
        match self.dwarf_step(c) {
            Ok(_) => Ok(u8::from(c.ip != 0)),
            Err(Fail::NoInfo) => {
                let (prev_ip, prev_cfa) = (c.ip, c.cfa);
                let fp_loc = c.loc.get(29).copied().unwrap_or(Loc::Null);
                if fp_loc == Loc::Null {
                    return Ok(0);
                }
                let fp = self.get(fp_loc)?.value;
                if fp == 0 {
                    return Ok(0);
                }
                c.cfa = fp.wrapping_add(16);
                if let Some(l) = c.loc.get_mut(29) {
                    *l = Loc::Mem(fp);
                }
                if let Some(l) = c.loc.get_mut(30) {
                    *l = Loc::Mem(fp.wrapping_add(8));
                }
                c.ip = self.mem(fp.wrapping_add(8))?.value;
                c.use_prev_instr = true;
                c.source = FrameSource::FramePointer;
                if c.ip == prev_ip && c.cfa == prev_cfa {
                    return Err(Fail::Other("ip and cfa unchanged"));
                }
                Ok(u8::from(c.ip != 0))
            }
            Err(e) => Err(e),
        }
    }
}

/// The load bias of `m`'s binary from the map itself (used outside perf's compatibility rules).
/// The load bias of the map `m` of binary `b`: from the segment the map was made for, the one
/// whose first page is at the map's file offset (a segment that does not start on a page boundary
/// shares its first page with the end of the segment before it, which the plain offset lookup
/// would pick: static binaries linked by lld put `.text` so), else from the offset's segment.
fn true_bias(m: &super::Module, b: &crate::Binary) -> u64 {
    let own = b.segments().iter().rev().find(|s| s.offset & !0xfff == m.pgoff && s.file_size > 0);
    match own {
        Some(s) => m.start.wrapping_add(s.offset & 0xfff).wrapping_sub(s.vaddr),
        None => m.start.wrapping_sub(b.offset_to_vaddr(m.pgoff)),
    }
}

/// perf emits no entry for an address of 0 (`ips[j] ? entry(...) : 0`).
fn finish(mut frames: Vec<UserFrame>) -> Vec<UserFrame> {
    frames.retain(|f| f.ip != 0);
    frames
}
