//! The text `perf script` 6.1 prints for the decoded sample fields: `data_src` (perf's
//! `data_src__fprintf` over `perf_script__meminfo_scnprintf`), `iregs`/`uregs`
//! (`perf_sample__fprintf_regs`) and `data_page_size`/`code_page_size` (`get_page_size_name`).
//!
//! The rules were read in perf's `util/mem-events.c`, `util/perf_regs.c`, `util/env.c` and
//! `builtin-script.c` and checked against perf 6.1 itself: `testdata/script/decode-gen.py` writes
//! perf.data files holding chosen values, and the tests below compare with what perf printed for
//! them (testdata/script/README-decode.md). Where the Debian build of perf 6.1 differs from the
//! v6.1 sources (it carries later stable fixes: `LFB/MAB`, `CXL`), the binary wins.

use perfdata_core::sample::{DataSrc, Regs};
use std::fmt::Write;

/// perf formats the data_src column into a `char[100]`: at most 99 bytes are printed.
const DATA_SRC_MAX: usize = 99;

/// `data_src` as `perf script -F data_src` prints one sample's, without perf's padding to the
/// widest value printed so far (see [`DataSrcColumn`]): the value as `%16lx`, a space, then
/// `|OP …|LVL …|SNP …|TLB …|LCK …|BLK …`, cut to 99 bytes as perf's buffer cuts it.
pub(crate) fn data_src(v: u64, out: &mut String) {
    let start = out.len();
    let _ = write!(out, "{v:16x} ");
    meminfo(DataSrc(v), out);
    let end = start.saturating_add(DATA_SRC_MAX);
    // All the text is ASCII; the boundary check only keeps `truncate` from ever panicking.
    if out.len() > end && out.is_char_boundary(end) {
        out.truncate(end);
    }
}

/// The data_src column across a run: perf pads each value (`%-*s`) to the longest one printed
/// so far in the whole session (a static in `data_src__fprintf`), so one column per run.
#[derive(Debug, Default)]
pub(crate) struct DataSrcColumn {
    /// The longest text printed so far, in bytes.
    maxlen: usize,
}

impl DataSrcColumn {
    /// Appends `v`'s text ([`data_src`]) padded with spaces to the running maximum width.
    pub(crate) fn write(&mut self, v: u64, out: &mut String) {
        let start = out.len();
        data_src(v, out);
        let len = out.len().saturating_sub(start);
        self.maxlen = self.maxlen.max(len);
        out.extend(std::iter::repeat_n(' ', self.maxlen - len));
    }
}

/// `|OP …|LVL …|SNP …|TLB …|LCK …|BLK …` (`perf_script__meminfo_scnprintf`), uncut.
fn meminfo(d: DataSrc, out: &mut String) {
    out.push_str("|OP ");
    out.push_str(op_name(d.op()));
    out.push_str("|LVL ");
    lvl(d, out);
    out.push_str("|SNP ");
    snoop(d, out);
    out.push_str("|TLB ");
    tlb(d.dtlb(), out);
    out.push_str("|LCK ");
    out.push_str(match d.lock() {
        l if l & 1 != 0 => "N/A",
        l if l & 2 != 0 => "Yes",
        _ => "No",
    });
    out.push_str("|BLK ");
    blk(d.blk(), out);
}

/// mem_op: the lowest set bit only (`perf_mem__op_scnprintf`).
fn op_name(op: u64) -> &'static str {
    const NAMES: [&str; 5] = ["N/A", "LOAD", "STORE", "PFETCH", "EXEC"];
    NAMES.iter().enumerate().find(|(i, _)| op & (1 << i) != 0).map_or("No", |(_, n)| *n)
}

/// mem_lvl bit names, PERF_MEM_LVL_NA (bit 0) to PERF_MEM_LVL_UNC (bit 13); HIT and MISS
/// (bits 1, 2) are printed as ` hit`/` miss` at the end instead.
const LVL: [&str; 14] = [
    "N/A",
    "HIT",
    "MISS",
    "L1",
    "LFB/MAB",
    "L2",
    "L3",
    "Local RAM",
    "Remote RAM (1 hop)",
    "Remote RAM (2 hops)",
    "Remote Cache (1 hop)",
    "Remote Cache (2 hops)",
    "I/O",
    "Uncached",
];

/// mem_hops names. perf's table has five entries; hops 5..7 read past it, and perf 6.1 (glibc)
/// prints the NULL it finds there as `(null)`.
const HOPS: [&str; 8] =
    ["N/A", "core, same node", "node, same socket", "socket, same board", "board", "(null)", "(null)", "(null)"];

/// A mem_lvl_num name (PERF_MEM_LVLNUM_*); the numbered ones are `L<n>`.
fn lvl_num_name(n: u64, out: &mut String) {
    match n {
        0x9 => out.push_str("CXL"),
        0xa => out.push_str("I/O"),
        0xb => out.push_str("Any cache"),
        0xc => out.push_str("LFB/MAB"),
        0xd => out.push_str("RAM"),
        0xe => out.push_str("PMEM"),
        0xf => out.push_str("N/A"),
        _ => {
            let _ = write!(out, "L{n}");
        }
    }
}

/// The level (`perf_mem__lvl_scnprintf`): `Remote ` when mem_remote, then either the hops name
/// and a space or the mem_lvl bit names joined by ` or `, then the mem_lvl_num name (after an
/// ` or ` only when a mem_lvl name was printed), `N/A` when all that printed nothing, then
/// ` hit` and ` miss` from the HIT/MISS bits.
fn lvl(d: DataSrc, out: &mut String) {
    let start = out.len();
    let lvl = d.lvl();
    if d.remote() {
        out.push_str("Remote ");
    }
    let mut printed = false;
    match d.hops() {
        0 => {
            for (i, name) in LVL.iter().enumerate() {
                if i == 1 || i == 2 || lvl & (1 << i) == 0 {
                    continue;
                }
                if printed {
                    out.push_str(" or ");
                }
                out.push_str(name);
                printed = true;
            }
        }
        h => {
            out.push_str(HOPS.get(h as usize).copied().unwrap_or("(null)"));
            out.push(' ');
        }
    }
    let num = d.lvl_num();
    if num != 0 {
        if printed {
            out.push_str(" or ");
        }
        lvl_num_name(num, out);
    }
    if out.len() == start {
        out.push_str("N/A");
    }
    if lvl & 2 != 0 {
        out.push_str(" hit");
    }
    if lvl & 4 != 0 {
        out.push_str(" miss");
    }
}

/// mem_snoop then mem_snoopx bit names joined by ` or `, `N/A` when none (`perf_mem__snp_scnprintf`).
fn snoop(d: DataSrc, out: &mut String) {
    const SNOOP: [&str; 5] = ["N/A", "None", "Hit", "Miss", "HitM"];
    const SNOOPX: [&str; 2] = ["Fwd", "Peer"];
    let (snoop, snoopx) = (d.snoop(), d.snoopx());
    let names = SNOOP.iter().enumerate().filter(|(i, _)| snoop & (1 << i) != 0);
    let names = names.chain(SNOOPX.iter().enumerate().filter(|(i, _)| snoopx & (1 << i) != 0));
    join_or(names.map(|(_, n)| *n), out);
}

/// mem_dtlb: the names of bits 0 and 3..6 joined by ` or ` (`N/A` when none), then ` hit`/` miss`
/// from bits 1 and 2 (`perf_mem__tlb_scnprintf`).
fn tlb(m: u64, out: &mut String) {
    const TLB: [&str; 7] = ["N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"];
    let names = TLB.iter().enumerate().filter(|(i, _)| *i != 1 && *i != 2 && m & (1 << i) != 0);
    join_or(names.map(|(_, n)| *n), out);
    if m & 2 != 0 {
        out.push_str(" hit");
    }
    if m & 4 != 0 {
        out.push_str(" miss");
    }
}

/// `names` joined by ` or `, or `N/A` when there are none.
fn join_or<'a>(names: impl Iterator<Item = &'a str>, out: &mut String) {
    let mut any = false;
    for n in names {
        if any {
            out.push_str(" or ");
        }
        out.push_str(n);
        any = true;
    }
    if !any {
        out.push_str("N/A");
    }
}

/// mem_blk (`perf_mem__blk_scnprintf`): each name comes with a leading space, so perf prints
/// `|BLK  N/A` with two.
fn blk(m: u64, out: &mut String) {
    if m == 0 || m & 1 != 0 {
        out.push_str(" N/A");
        return;
    }
    if m & 2 != 0 {
        out.push_str(" Data");
    }
    if m & 4 != 0 {
        out.push_str(" Addr");
    }
}

/// `iregs`/`uregs` as perf prints them (`perf_sample__fprintf_regs`; the same text for both):
/// ` ABI:<abi> ` then `%5s:0x%lx ` per register of the mask, named for the recording's
/// architecture (`arch`: HEADER_ARCH, i.e. `uname -m`). Nothing when the ABI is 0 (no registers).
pub(crate) fn regs(regs: &Regs<'_>, arch: &str, out: &mut String) {
    if regs.abi == 0 {
        return;
    }
    let names = reg_names(arch);
    let _ = write!(out, " ABI:{} ", regs.abi);
    for (bit, v) in regs.iter() {
        let name = names.get(bit as usize).copied().filter(|n| !n.is_empty()).unwrap_or("unknown");
        let _ = write!(out, "{name:>5}:0x{v:x} ");
    }
}

/// perf's register names by bit for an architecture string ("" marks a bit perf calls
/// `unknown`). perf first normalizes the string (`perf_env__arch`: `x86_64` and `i?86` are
/// `x86`, `aarch64*` `arm64`, `ppc*` `powerpc`, …) and only then looks the names up, so e.g.
/// `riscv64`, not normalized by perf 6.1, gets no names while `riscv` does.
fn reg_names(arch: &str) -> &'static [&'static str] {
    // perf reads `uname -m` of the machine it runs on when the recording names no architecture.
    let arch = if arch.is_empty() { std::env::consts::ARCH } else { arch };
    let b = arch.as_bytes();
    let x86 = arch == "x86_64"
        || arch == "x86"
        || (b.first() == Some(&b'i') && b.get(2) == Some(&b'8') && b.get(3) == Some(&b'6'));
    if x86 {
        X86
    } else if arch.starts_with("aarch64") || arch.starts_with("arm64") {
        ARM64
    } else if arch.starts_with("arm") || arch == "sa110" {
        ARM
    } else if arch.starts_with("powerpc") || arch.starts_with("ppc") {
        POWERPC
    } else if arch.starts_with("s390") {
        S390
    } else if arch.starts_with("mips") {
        MIPS
    } else if arch == "csky" {
        CSKY
    } else if arch == "riscv" {
        RISCV
    } else {
        &[]
    }
}

/// x86 (`arch/x86/include/uapi/asm/perf_regs.h`): each XMM register is two 64-bit halves and
/// perf names both halves alike.
const X86: &[&str] = &[
    "AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS", "DS", "ES", "FS", "GS", "R8", "R9",
    "R10", "R11", "R12", "R13", "R14", "R15", "", "", "", "", "", "", "", "", "XMM0", "XMM0", "XMM1", "XMM1", "XMM2",
    "XMM2", "XMM3", "XMM3", "XMM4", "XMM4", "XMM5", "XMM5", "XMM6", "XMM6", "XMM7", "XMM7", "XMM8", "XMM8", "XMM9",
    "XMM9", "XMM10", "XMM10", "XMM11", "XMM11", "XMM12", "XMM12", "XMM13", "XMM13", "XMM14", "XMM14", "XMM15", "XMM15",
];

/// arm64: x0..x29, lr, sp, pc, and the SVE vector granule `vg` at bit 46.
const ARM64: &[&str] = &[
    "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
    "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc", "", "", "",
    "", "", "", "", "", "", "", "", "", "", "vg",
];

/// 32-bit arm.
const ARM: &[&str] = &["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "fp", "ip", "sp", "lr", "pc"];

/// powerpc.
const POWERPC: &[&str] = &[
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "r16", "r17",
    "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31", "nip", "msr",
    "orig_r3", "ctr", "link", "xer", "ccr", "softe", "trap", "dar", "dsisr", "sier", "mmcra", "mmcr0", "mmcr1",
    "mmcr2", "mmcr3", "sier2", "sier3", "pmc1", "pmc2", "pmc3", "pmc4", "pmc5", "pmc6", "sdar", "siar",
];

/// s390.
const S390: &[&str] = &[
    "R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15", "FP0", "FP1",
    "FP2", "FP3", "FP4", "FP5", "FP6", "FP7", "FP8", "FP9", "FP10", "FP11", "FP12", "FP13", "FP14", "FP15", "MASK",
    "PC",
];

/// mips: bit 0 is the PC; $26 and $27 (k0, k1) have no name.
const MIPS: &[&str] = &[
    "PC", "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$16", "$17",
    "$18", "$19", "$20", "$21", "$22", "$23", "$24", "$25", "", "", "$28", "$29", "$30", "$31",
];

/// csky (the names perf 6.1's build knows).
const CSKY: &[&str] = &[
    "", "lr", "pc", "", "sp", "", "a0", "a1", "a2", "a3", "regs0", "regs1", "regs2", "regs3", "regs4", "regs5",
    "regs6", "regs7", "regs8", "regs9",
];

/// riscv.
const RISCV: &[&str] = &[
    "pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

/// A page size as perf names it (`get_page_size_name`): `N/A` for 0, else the size divided by
/// 1024 while the quotient stays above 1 (so 1024 stays `1024B`, 2048 is `2K`), at most three
/// times, with its unit letter `B`, `K`, `M` or `G`.
pub(crate) fn page_size_name(size: u64) -> String {
    if size == 0 {
        return "N/A".to_string();
    }
    let (mut n, mut unit) = (size, 0);
    while n / 1024 > 1 && unit < 3 {
        n /= 1024;
        unit += 1;
    }
    let u = ['B', 'K', 'M', 'G'].get(unit).copied().unwrap_or('G');
    format!("{n}{u}")
}

/// A branch-stack entry's flags as perf 6.1's `print_bstack_flags` prints them after `from/to`:
/// `/M|P|-/X|-/A|-/CYCLES/TYPE` (the type name empty for `PERF_BR_UNKNOWN`).
pub(super) fn branch_flags(e: &perfdata_core::sample::BranchEntry) -> String {
    let pred = match (e.mispred(), e.predicted()) {
        (false, false) => '-',
        (_, true) => 'P',
        (true, false) => 'M',
    };
    // perf's `branch_type_name` (PERF_BR_*).
    const TYPES: [&str; 16] = [
        "",
        "COND",
        "UNCOND",
        "IND",
        "CALL",
        "IND_CALL",
        "RET",
        "SYSCALL",
        "SYSRET",
        "COND_CALL",
        "COND_RET",
        "ERET",
        "IRQ",
        "SERROR",
        "NO_TX",
        "",
    ];
    format!(
        "/{pred}/{}/{}/{}/{}",
        if e.in_tx() { 'X' } else { '-' },
        if e.abort() { 'A' } else { '-' },
        e.cycles(),
        TYPES.get(usize::from(e.branch_type())).copied().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfdata_core::reader::U64s;
    use perfdata_core::{Endian, Order, PerfFile, RecordKind};

    fn testdata(name: &str) -> String {
        format!("{}/../testdata/script/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    fn read(name: &str) -> String {
        std::fs::read_to_string(testdata(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Every sample of a perf.data file, in perf script's (time) order, through `f`, one line each.
    fn lines(path: &str, f: &mut dyn FnMut(&perfdata_core::sample::Sample<'_>, &str, &mut String)) -> String {
        let file = PerfFile::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let arch = file.features().arch().and_then(|a| a.ok()).map(|a| a.into_owned()).unwrap_or_default();
        let mut recs = file.records(Order::Time).unwrap();
        let mut out = String::new();
        while let Some(r) = recs.next_record() {
            if let RecordKind::Sample(s) = &r.unwrap().kind {
                f(s, &arch, &mut out);
                out.push('\n');
            }
        }
        out
    }

    fn assert_same(ours: &str, perf: &str, what: &str) {
        for (i, (a, b)) in ours.lines().zip(perf.lines()).enumerate() {
            assert_eq!(a, b, "{what}: line {}", i + 1);
        }
        assert_eq!(ours.lines().count(), perf.lines().count(), "{what}: line count");
        assert_eq!(ours, perf, "{what}");
    }

    #[test]
    fn data_src_matches_perf_vectors() {
        let tsv = read("data-src.tsv");
        let mut n = 0;
        for line in tsv.lines().filter(|l| !l.starts_with('#')) {
            let (v, want) = line.split_once('\t').unwrap();
            let v = u64::from_str_radix(v, 16).unwrap();
            let mut got = String::new();
            data_src(v, &mut got);
            assert_eq!(got, want, "data_src {v:#x}");
            n += 1;
        }
        assert!(n > 1000, "only {n} vectors");
    }

    #[test]
    fn data_src_cut_at_99_bytes() {
        let mut s = String::from("prefix");
        data_src(u64::MAX, &mut s);
        assert_eq!(s.len(), "prefix".len() + 99);
        assert!(s.starts_with("prefixffffffffffffffff |OP N/A|LVL Remote (null) N/A hit miss|"));
    }

    #[test]
    fn data_src_column_pads_to_running_max() {
        let ours = lines(&testdata("data-src.data"), &mut {
            let mut col = DataSrcColumn::default();
            move |s, _, out| col.write(s.data_src().unwrap(), out)
        });
        assert_same(&ours, &read("data-src.data.F-data_src"), "perf script -F data_src");
    }

    #[test]
    fn page_sizes_match_perf() {
        let ours = lines(&testdata("data-src.data"), &mut |s, _, out| {
            out.push(' ');
            out.push_str(&page_size_name(s.data_page_size().unwrap()));
            out.push(' ');
            out.push_str(&page_size_name(s.code_page_size().unwrap()));
        });
        assert_same(&ours, &read("data-src.data.F-page-size"), "perf script -F data_page_size,code_page_size");
        assert_eq!(page_size_name(0), "N/A");
        assert_eq!(page_size_name(4096), "4K");
        assert_eq!(page_size_name(2 << 20), "2M");
        assert_eq!(page_size_name(1024), "1024B");
        assert_eq!(page_size_name(u64::MAX), "17179869183G");
    }

    #[test]
    fn regs_match_perf_on_recordings() {
        for (file, kind) in [
            ("../regs.data", "iregs"),
            ("../regs.data", "uregs"),
            ("regs-x86_64.data", "iregs"),
            ("regs-x86_64.data", "uregs"),
            ("regs-aarch64.data", "iregs"),
            ("regs-aarch64.data", "uregs"),
        ] {
            let ours = lines(&testdata(file), &mut |s, arch, out| {
                let r = if kind == "iregs" { s.regs_intr() } else { s.regs_user() };
                regs(&r.unwrap(), arch, out);
            });
            let name = file.trim_start_matches("../");
            assert_same(&ours, &read(&format!("{name}.F-{kind}")), &format!("{name} -F {kind}"));
        }
    }

    #[test]
    fn reg_names_per_arch_match_perf() {
        let bytes: Vec<u8> = (0..64u64).flat_map(|v| v.to_le_bytes()).collect();
        let r = Regs { abi: 2, mask: u64::MAX, values: U64s::new(&bytes, Endian::Little) };
        let tsv = read("regs-arch.tsv");
        let mut n = 0;
        for line in tsv.lines().filter(|l| !l.starts_with('#')) {
            let (arch, want) = line.split_once('\t').unwrap();
            let mut got = String::new();
            regs(&r, arch, &mut got);
            assert_eq!(got, want, "arch {arch}");
            n += 1;
        }
        assert!(n >= 10);
        let mut got = String::new();
        regs(&Regs { abi: 0, mask: 0xff, values: U64s::EMPTY }, "x86_64", &mut got);
        assert_eq!(got, "", "ABI 0 prints nothing");
    }
}
