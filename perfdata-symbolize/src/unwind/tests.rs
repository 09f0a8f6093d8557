//! Synthetic unwinds: a tiny ELF file written here (one load segment, `.eh_frame_hdr`,
//! `.eh_frame`) with three functions — a leaf without a frame, a function with a frame pointer
//! and an outermost one whose return address is undefined — and a stack laid out by hand.

use std::rc::Rc;

use super::*;
use perfdata_core::reader::U64s;
use perfdata_core::Endian;

const LOAD: u64 = 0x40_0000;
const HDR: u64 = 0x100;
const EH: u64 = 0x200;
// leaf [0x1000, 0x1010), framed [0x1010, 0x1040), start [0x1040, 0x1050)
const FUNCS: [(u64, u64); 3] = [(0x1000, 0x10), (0x1010, 0x30), (0x1040, 0x10)];

fn uleb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn pad8(mut v: Vec<u8>) -> Vec<u8> {
    while !(v.len() + 4).is_multiple_of(8) {
        v.push(0); // DW_CFA_nop
    }
    v
}

/// `.eh_frame` with one CIE and an FDE per function, and the `.eh_frame_hdr` indexing it.
fn cfi(code_align: u64, data_align: u8, ra: u64, cie_insns: &[u8], fde_insns: [&[u8]; 3]) -> (Vec<u8>, Vec<u8>) {
    let mut eh = Vec::new();
    let mut body = vec![0, 0, 0, 0, 1, b'z', b'R', 0];
    uleb(code_align, &mut body);
    body.push(data_align);
    uleb(ra, &mut body);
    body.extend([1, 0x1b]);
    body.extend(cie_insns);
    let body = pad8(body);
    eh.extend((body.len() as u32).to_le_bytes());
    eh.extend(body);
    let mut table = Vec::new();
    for (&(start, len), insns) in FUNCS.iter().zip(fde_insns) {
        let at = eh.len() as u64;
        let mut body = Vec::new();
        body.extend(((at + 4) as u32).to_le_bytes()); // CIE pointer: back to offset 0
        let pc_field = EH + at + 8;
        body.extend((start.wrapping_sub(pc_field) as u32).to_le_bytes());
        body.extend((len as u32).to_le_bytes());
        body.push(0);
        body.extend(insns);
        let body = pad8(body);
        eh.extend((body.len() as u32).to_le_bytes());
        eh.extend(body);
        table.push(((start - HDR) as u32, (EH + at - HDR) as u32));
    }
    let mut hdr = vec![1, 0x1b, 0x03, 0x3b];
    hdr.extend(((EH - (HDR + 4)) as u32).to_le_bytes());
    hdr.extend((table.len() as u32).to_le_bytes());
    for (a, b) in table {
        hdr.extend(a.to_le_bytes());
        hdr.extend(b.to_le_bytes());
    }
    (hdr, eh)
}

/// An ELF64 little-endian shared object: header, one PT_LOAD (vaddr = offset), the two CFI
/// sections at `HDR` and `EH`, a NOBITS `.text` and `.shstrtab`.
fn elf(machine: u16, hdr: &[u8], eh: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 0x200];
    f.extend(eh);
    f.get_mut(HDR as usize..HDR as usize + hdr.len()).unwrap().copy_from_slice(hdr);
    let shstr = b"\0.eh_frame_hdr\0.eh_frame\0.text\0.shstrtab\0";
    let shstr_off = f.len() as u64;
    f.extend(shstr);
    while !f.len().is_multiple_of(8) {
        f.push(0);
    }
    let shoff = f.len() as u64;
    let sh = |name: u32, ty: u32, flags: u64, addr: u64, off: u64, size: u64| {
        let mut s = Vec::new();
        s.extend(name.to_le_bytes());
        s.extend(ty.to_le_bytes());
        s.extend(flags.to_le_bytes());
        s.extend(addr.to_le_bytes());
        s.extend(off.to_le_bytes());
        s.extend(size.to_le_bytes());
        s.extend([0u8; 8]);
        s.extend(1u64.to_le_bytes());
        s.extend(0u64.to_le_bytes());
        s
    };
    f.extend([0u8; 64]);
    f.extend(sh(1, 1, 2, HDR, HDR, hdr.len() as u64));
    f.extend(sh(15, 1, 2, EH, EH, eh.len() as u64));
    f.extend(sh(25, 8, 6, 0x1000, 0x1000, 0x100));
    f.extend(sh(31, 3, 0, 0, shstr_off, shstr.len() as u64));
    let file_len = f.len() as u64;
    let mut h = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0];
    h.extend([0u8; 8]);
    h.extend(3u16.to_le_bytes()); // ET_DYN
    h.extend(machine.to_le_bytes());
    h.extend(1u32.to_le_bytes());
    h.extend(0u64.to_le_bytes());
    h.extend(64u64.to_le_bytes());
    h.extend(shoff.to_le_bytes());
    h.extend(0u32.to_le_bytes());
    h.extend([64, 0, 56, 0, 1, 0, 64, 0, 5, 0, 4, 0]);
    let mut ph = Vec::new();
    ph.extend(1u32.to_le_bytes()); // PT_LOAD
    ph.extend(5u32.to_le_bytes());
    ph.extend(0u64.to_le_bytes());
    ph.extend(0u64.to_le_bytes());
    ph.extend(0u64.to_le_bytes());
    ph.extend(file_len.to_le_bytes());
    ph.extend(0x2000u64.to_le_bytes());
    ph.extend(0x1000u64.to_le_bytes());
    f.get_mut(..64).unwrap().copy_from_slice(&h);
    f.get_mut(64..120).unwrap().copy_from_slice(&ph);
    f
}

struct Space(Vec<Module>);

impl AddressSpace for Space {
    fn module(&mut self, addr: u64) -> Option<Module> {
        self.0.iter().find(|m| addr >= m.start && addr < m.end).cloned()
    }
}

/// The binary mapped at `LOAD`; with `stale`, also at a lower address (a map left from the image
/// before an exec, as perf keeps them).
fn space(binary: Binary, stale: Option<u64>) -> Space {
    let b = Rc::new(binary);
    let lowest_start = stale.unwrap_or(LOAD);
    let mut v = vec![Module { start: LOAD, end: LOAD + 0x2000, pgoff: 0, binary: Some(b.clone()), lowest_start }];
    if let Some(s) = stale {
        v.push(Module { start: s, end: s + 0x2000, pgoff: 0, binary: Some(b), lowest_start });
    }
    Space(v)
}

fn regs(mask: u64, values: &[u64]) -> (u64, Vec<u8>) {
    (mask, values.iter().flat_map(|v| v.to_le_bytes()).collect())
}

fn words(sp: u64, len: usize, at: &[(u64, u64)]) -> Vec<u8> {
    let mut s = vec![0u8; len];
    for &(addr, v) in at {
        let o = (addr - sp) as usize;
        s.get_mut(o..o + 8).unwrap().copy_from_slice(&v.to_le_bytes());
    }
    s
}

// x86_64: CIE CFA = rsp + 8, rip at CFA - 8 (DW_CFA_def_cfa r7 8; DW_CFA_offset r16 1).
const X86_CIE: &[u8] = &[0x0c, 7, 8, 0x90, 1];
// push %rbp; mov %rsp,%rbp: advance 1, CFA offset 16, rbp at CFA - 16, advance 3, CFA = rbp + 16.
const X86_FRAMED: &[u8] = &[0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6];
// DW_CFA_undefined rip
const X86_START: &[u8] = &[0x07, 16];

fn x86_binary() -> Binary {
    let (hdr, eh) = cfi(1, 0x78, 16, X86_CIE, [&[], X86_FRAMED, X86_START]);
    Binary::from_vec("synthetic-x86_64".into(), elf(62, &hdr, &eh)).unwrap()
}

const SP: u64 = 0x7ff0_0000;
const RA1: u64 = LOAD + 0x1021; // in framed, after its prologue
const RA2: u64 = LOAD + 0x1045; // in start

/// leaf (no frame) <- framed (rbp frame at SP + 0x18) <- start (return address undefined).
fn x86_sample() -> ((u64, Vec<u8>), Vec<u8>) {
    let rbp = SP + 0x18;
    let stack = words(SP, 0x100, &[(SP, RA1), (rbp, SP + 0x80), (rbp + 8, RA2)]);
    // mask: bp (6), sp (7), ip (8)
    (regs(0x1c0, &[rbp, SP, LOAD + 0x1004]), stack)
}

fn run(arch: Arch, opts: UnwindOptions, r: &(u64, Vec<u8>), stack: &[u8], sp: &mut Space) -> Unwound {
    let regs = perfdata_core::sample::Regs { abi: 2, mask: r.0, values: U64s::new(&r.1, Endian::Little) };
    let st = StackUser { size: stack.len() as u64, data: stack, dyn_size: Some(stack.len() as u64) };
    Unwinder::new(arch, true, opts).unwind(Some(regs), Some(st), sp)
}

fn ips(u: &Unwound) -> Vec<u64> {
    u.frames.iter().map(|f| f.ip).collect()
}

#[test]
fn x86_64_cfi_walk() {
    let (r, stack) = x86_sample();
    let u = run(Arch::X86_64, UnwindOptions::default(), &r, &stack, &mut space(x86_binary(), None));
    // The sampled IP, then each return address less one; start's undefined rip ends the walk.
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1, RA2 - 1]);
    assert_eq!(u.stop, Stop::End);
    assert_eq!(
        u.frames.iter().map(|f| f.source).collect::<Vec<_>>(),
        [FrameSource::Registers, FrameSource::Cfi, FrameSource::Cfi]
    );
}

#[test]
fn x86_64_depth_limit() {
    let (r, stack) = x86_sample();
    let opts = UnwindOptions { max_stack: 2, ..Default::default() };
    let u = run(Arch::X86_64, opts, &r, &stack, &mut space(x86_binary(), None));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1]);
    assert_eq!(u.stop, Stop::MaxStack);
}

/// perf places `.eh_frame_hdr` at the lowest map of the file: with a stale lower map (an image
/// from before an exec) nothing is found, and libunwind guesses from rbp, which skips `framed`
/// (its return address is at rbp + 8 only once framed has set rbp up, i.e. it is framed's caller).
#[test]
fn x86_64_stale_map_falls_back_to_rbp() {
    let (r, stack) = x86_sample();
    let u = run(Arch::X86_64, UnwindOptions::default(), &r, &stack, &mut space(x86_binary(), Some(LOAD - 0x10_0000)));
    assert_eq!(u.frames.get(1).map(|f| (f.ip, f.source)), Some((RA2 - 1, FrameSource::FramePointer)));
    // Without perf's rule the map's own bias is used.
    let opts = UnwindOptions { perf_compat: false, ..Default::default() };
    let u = run(Arch::X86_64, opts, &r, &stack, &mut space(x86_binary(), Some(LOAD - 0x10_0000)));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1, RA2 - 1]);
}

/// perf's `access_mem` never reads the last word of the dump (`addr + 8 >= end`), nor beyond.
#[test]
fn x86_64_stack_bounds() {
    let (r, stack) = x86_sample();
    // Dump ends right after rbp + 8: the word at rbp + 8 is the last one, so unreadable.
    let cut = &stack[..(0x18 + 16) as usize];
    let u = run(Arch::X86_64, UnwindOptions::default(), &r, cut, &mut space(x86_binary(), None));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1]);
    assert_eq!(u.stop, Stop::Failed(Fail::Other("no map for address")));
    let cause = u.stop.cause().map(|e| e.to_string());
    assert_eq!(cause.as_deref(), Some("DWARF unwinding failed: no map for address"));
    let cut = &stack[..(0x18 + 17) as usize];
    let u = run(Arch::X86_64, UnwindOptions::default(), &r, cut, &mut space(x86_binary(), None));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1, RA2 - 1]);
}

#[test]
fn nothing_without_registers_or_stack() {
    let (r, stack) = x86_sample();
    let mut sp = space(x86_binary(), None);
    let mut u = Unwinder::new(Arch::X86_64, true, UnwindOptions::default());
    let regs = perfdata_core::sample::Regs { abi: 0, mask: r.0, values: U64s::EMPTY };
    let st = StackUser { size: 256, data: &stack, dyn_size: Some(256) };
    assert_eq!(u.unwind(Some(regs), Some(st), &mut sp).stop, Stop::NoRegs);
    let regs = perfdata_core::sample::Regs { abi: 2, mask: r.0, values: U64s::new(&r.1, Endian::Little) };
    let st = StackUser { size: 256, data: &stack, dyn_size: Some(0) };
    assert_eq!(u.unwind(Some(regs), Some(st), &mut sp).stop, Stop::NoStack);
    // dyn_size larger than the data is clamped.
    let st = StackUser { size: 256, data: &stack, dyn_size: Some(1 << 40) };
    assert_eq!(ips(&u.unwind(Some(regs), Some(st), &mut sp)).len(), 3);
}

#[test]
fn garbage_cfi_and_stacks_stop_cleanly() {
    let (r, stack) = x86_sample();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (hdr, eh) = cfi(1, 0x78, 16, X86_CIE, [&[], X86_FRAMED, X86_START]);
    let good = elf(62, &hdr, &eh);
    for round in 0..300 {
        let mut bytes = good.clone();
        // Scramble the CFI sections (and sometimes the headers) of the file.
        let (lo, hi) = if round % 10 == 0 { (0, bytes.len()) } else { (HDR as usize, bytes.len()) };
        for _ in 0..1 + round % 8 {
            let i = lo + (next() as usize) % (hi - lo);
            if let Some(b) = bytes.get_mut(i) {
                *b = next() as u8;
            }
        }
        let Some(b) = Binary::from_vec("garbage".into(), bytes) else { continue };
        let mut st = stack.clone();
        for w in st.iter_mut().step_by(5 + round % 7) {
            *w = next() as u8;
        }
        let u = run(Arch::X86_64, UnwindOptions::default(), &r, &st, &mut space(b, None));
        assert!(u.frames.len() <= 127);
    }
}

// AArch64: code alignment 4, data alignment -8, return address column x30; CFA = sp.
const A64_CIE: &[u8] = &[0x0c, 31, 0];
// stp x29, x30, [sp, #-16]!; mov x29, sp: advance 1 (4 bytes), CFA offset 16, x29 at CFA - 16,
// x30 at CFA - 8, advance 1, CFA = x29 + 16.
const A64_FRAMED: &[u8] = &[0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1, 0x41, 0x0d, 29];
// DW_CFA_undefined x30
const A64_START: &[u8] = &[0x07, 30];

#[test]
fn aarch64_cfi_walk() {
    let (hdr, eh) = cfi(4, 0x78, 30, A64_CIE, [&[], A64_FRAMED, A64_START]);
    let b = Binary::from_vec("synthetic-aarch64".into(), elf(183, &hdr, &eh)).unwrap();
    assert_eq!(Arch::from_elf_machine(b.machine), Some(Arch::Aarch64));
    let ra1 = LOAD + 0x1024;
    let ra2 = LOAD + 0x1048;
    let fp = SP + 0x10;
    let stack = words(SP, 0x100, &[(fp, SP + 0x80), (fp + 8, ra2)]);
    // The leaf has not saved the link register: its return address is the sampled lr.
    // mask: x29 (29), lr (30), sp (31), pc (32)
    let r = regs(0xf << 29, &[fp, ra1, SP, LOAD + 0x1004]);
    let u = run(Arch::Aarch64, UnwindOptions::default(), &r, &stack, &mut space(b, None));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, ra1 - 1, ra2 - 1]);
    assert_eq!(u.stop, Stop::End);
}

/// AArch64 without CFI for an address: the frame record chain (x29).
#[test]
fn aarch64_frame_records_without_cfi() {
    let (hdr, eh) = cfi(4, 0x78, 30, A64_CIE, [&[], A64_FRAMED, A64_START]);
    let b = Binary::from_vec("synthetic-aarch64".into(), elf(183, &hdr, &eh)).unwrap();
    let fp = SP + 0x10;
    let outer = LOAD + 0x1800; // no FDE covers it
    let stack = words(SP, 0x100, &[(fp, 0), (fp + 8, outer)]);
    let r = regs(0xf << 29, &[fp, 0, SP, LOAD + 0x1900]);
    let u = run(Arch::Aarch64, UnwindOptions::default(), &r, &stack, &mut space(b, None));
    assert_eq!(u.frames.get(1).map(|f| (f.ip, f.source)), Some((outer - 1, FrameSource::FramePointer)));
}

/// A row that starts exactly at a return address (code after a call that does not return, with
/// its own CFA) does not describe the call: the program runs to the return address less one.
#[test]
fn x86_64_row_at_return_address_is_not_applied() {
    // framed, then at RA1 (offset 0xd after the prologue's 0x1014): CFA = rsp + 8.
    let framed: Vec<u8> = X86_FRAMED.iter().copied().chain([0x40 | 0x0d, 0x0c, 7, 8]).collect();
    let (hdr, eh) = cfi(1, 0x78, 16, X86_CIE, [&[], &framed, X86_START]);
    let b = Binary::from_vec("synthetic-x86_64".into(), elf(62, &hdr, &eh)).unwrap();
    let (r, stack) = x86_sample();
    let u = run(Arch::X86_64, UnwindOptions::default(), &r, &stack, &mut space(b, None));
    assert_eq!(ips(&u), vec![LOAD + 0x1004, RA1 - 1, RA2 - 1]);
}
