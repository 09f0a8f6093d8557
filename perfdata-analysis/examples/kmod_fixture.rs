//! Derive the kernel-module fixtures in testdata/kmod/ from testdata/sysw.data (`-a -g`, kernel
//! stacks), whose kernel has no modules: module MMAP records are inserted after the kernel's, some
//! kernel samples get module addresses, and the kernel's kallsyms (testdata/folded's extract) gets
//! module symbols. testdata/kmod/make.sh runs this, builds the `.ko` from the C file written here,
//! and stores perf's outputs.
//!
//! `cargo run --example kmod_fixture -- testdata`
//!
//! Written (under `testdata/kmod/`):
//! - `kmod.data`: the modules below as perf 6.1's `perf_event__synthesize_modules` writes them
//!   (PERF_RECORD_MMAP, misc KERNEL, pid -1, tid 0, pgoff 0, the `/lib/modules` path or `[name]`,
//!   the sample_id trailer of the kernel's MMAP), right after the kernel's MMAP; every other
//!   kernel-mode sample, from the first on (so stackcollapse.py looks a module up before the
//!   kernel; perf script loads the kernel at the first sample it prints, a user-mode one), has its
//!   leaf kernel frames (and ip) replaced, in turn, by the addresses of [`CASES`]. To keep it small,
//!   the samples left are the kernel-mode ones and the first user-mode one, of processes other
//!   than rustc (perf resolves a librustc_driver address in a kernel-mode sample's stack only after
//!   other rustc samples: a user-space matter left for another fixture), with their processes'
//!   COMM/FORK/EXIT records and the MMAP2 records of the files they hit.
//! - `kmod-buildid.data`: the same with a BUILD_ID feature entry for `kmod-demo.ko` (perf writes
//!   one for every module hit whose build id it could read).
//! - `kallsyms`: the extract of the recording's kallsyms, `_text` (perf needs the kernel MMAP's
//!   reference symbol) and the module symbols of [`KALLSYMS_MODULE_SYMS`], as /proc/kallsyms lists
//!   them (`ADDR t name\t[module]`).
//! - `kmod-demo.c`: a `.ko` stand-in whose `.text` holds [`KO_FUNCS`] at their offsets.
use std::collections::HashSet;
use std::error::Error;
use std::path::Path;

use perfdata_core::process::Machine;
use perfdata_core::record::CpuMode;
use perfdata_core::write::{write_file_edited, Edit};
use perfdata_core::{Endian, Order, PerfFile, Record, RecordKind};

/// `kmod-demo.ko`: symbols in kallsyms and in the `.ko`; its dso is `[kmod_demo]`.
const DEMO: u64 = 0xffff_ffff_c0a0_0000;
/// A module known only by name (`[kmod_nosyms]`): no symbols anywhere.
const NOSYMS: u64 = 0xffff_ffff_c0a1_0000;
/// A compressed module file (`kmod_tail.ko.xz` → `[kmod_tail]`), whose last symbol is the last
/// symbol of kallsyms.
const TAIL: u64 = 0xffff_ffff_c0a2_0000;
/// `.ko.gz`: a compression perf 6.1 knows (`[kmod_gz]`).
const GZ: u64 = 0xffff_ffff_c0a1_4000;
/// `.ko.zst`: one it does not, so no module name (`kmod_zst.ko.zst`).
const ZST: u64 = 0xffff_ffff_c0a1_6000;
/// Module symbols of a module without a map (`[kmod_ghost]`), inside `kmod-demo`'s range.
const GHOST: u64 = DEMO + 0x8000;

const RELEASE: &str = "6.18.44-fc-v669";

/// (MMAP filename, start, len).
fn modules() -> Vec<(String, u64, u64)> {
    vec![
        (format!("/lib/modules/{RELEASE}/kernel/drivers/misc/kmod-demo.ko"), DEMO, 0x1_0000),
        ("[kmod_nosyms]".to_string(), NOSYMS, 0x2000),
        (format!("/lib/modules/{RELEASE}/extra/kmod_tail.ko.xz"), TAIL, 0x4000),
        (format!("/lib/modules/{RELEASE}/updates/kmod-gz.ko.gz"), GZ, 0x1000),
        (format!("/lib/modules/{RELEASE}/updates/kmod-zst.ko.zst"), ZST, 0x1000),
    ]
}

/// kallsyms lines for modules: (address, type, name, module).
const KALLSYMS_MODULE_SYMS: &[(u64, char, &str, &str)] = &[
    (DEMO, 't', "demo_read", "kmod_demo"),
    (DEMO + 0x100, 't', "demo_write", "kmod_demo"),
    (DEMO + 0x180, 'T', "demo_ioctl", "kmod_demo"),
    (DEMO + 0x400, 'd', "demo_data", "kmod_demo"),
    (DEMO + 0x200, 'r', "demo_rodata", "kmod_demo"),
    (GHOST, 't', "ghost_fn", "kmod_ghost"),
    (TAIL + 0x10, 't', "tail_fn", "kmod_tail"),
    (GZ + 0x20, 't', "gz_fn", "kmod_gz"),
    (ZST + 0x20, 't', "zst_fn", "kmod_zst"),
];

/// The functions of `kmod-demo.ko`'s `.text`: (name, offset, size). Its ELF sizes end `demo_ioctl`
/// at 0x1c0, where kallsyms lets it run to the next symbol.
const KO_FUNCS: &[(&str, u64, u64)] =
    &[("demo_read", 0, 0x100), ("demo_write", 0x100, 0x80), ("demo_ioctl", 0x180, 0x40)];

/// Leaf kernel frames given to the edited samples, in turn.
const CASES: &[&[u64]] = &[
    &[DEMO + 0x10, DEMO + 0x1a4],  // demo_read called by demo_ioctl
    &[DEMO + 0x120],               // demo_write
    &[DEMO + 0x1f0],               // demo_ioctl: past its ELF size, before the next kallsyms symbol
    &[DEMO + 0x410],               // demo_data (a data symbol)
    &[DEMO + 0x2000],              // after demo_data, which kallsyms ends at ghost_fn
    &[GHOST + 0x10],               // ghost_fn's address: inside kmod_demo's map, not its symbol
    &[NOSYMS + 0x100],             // a module without symbols
    &[TAIL + 0x20],                // tail_fn
    &[TAIL + 0x1f00],              // tail_fn: the last kallsyms symbol ends a page after its page
    &[TAIL + 0x3000],              // past tail_fn's end, inside the map
    &[0xffff_ffff_c0a4_0000],      // module space without a map
    &[DEMO + 0x30, NOSYMS + 0x10], // two modules in one stack
    &[GZ + 0x40, ZST + 0x40],      // module names of compressed files
];

const PERF_CONTEXT_KERNEL: u64 = (-128i64) as u64;

struct Derive {
    endian: Endian,
    /// Add a BUILD_ID feature entry for kmod-demo.ko.
    build_id: bool,
    kernel_samples: usize,
    /// What the kernel-mode samples need, the only records kept besides them (see [`needed`]).
    keep: Needed,
    /// Bytes of the sample_id trailer of non-sample records.
    trailer: usize,
}

impl Derive {
    fn u64(&self, v: u64) -> [u8; 8] {
        match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    fn u32(&self, v: u32) -> [u8; 4] {
        match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    fn u16(&self, v: u16) -> [u8; 2] {
        match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// PERF_RECORD_MMAP as `perf_event__synthesize_modules` writes it, with `trailer` appended.
    fn module_mmap(&self, name: &str, start: u64, len: u64, trailer: &[u8]) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend(self.u32(u32::MAX));
        body.extend(self.u32(0));
        body.extend(self.u64(start));
        body.extend(self.u64(len));
        body.extend(self.u64(0));
        body.extend(name.as_bytes());
        body.push(0);
        while body.len() % 8 != 0 {
            body.push(0);
        }
        body.extend(trailer);
        let mut out = Vec::new();
        out.extend(self.u32(1));
        out.extend(self.u16(1));
        out.extend(self.u16(u16::try_from(body.len() + 8).expect("small record")));
        out.extend(body);
        out
    }

    fn put_u64(&self, bytes: &mut [u8], at: usize, v: u64) {
        bytes[at..at + 8].copy_from_slice(&self.u64(v));
    }

    fn get_u64(&self, bytes: &[u8], at: usize) -> u64 {
        let b: [u8; 8] = bytes[at..at + 8].try_into().expect("8 bytes");
        match self.endian {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }
}

impl Edit for Derive {
    fn record(&mut self, record: &Record<'_>, bytes: &mut Vec<u8>) {
        match &record.kind {
            RecordKind::Mmap(m) if m.pid == u32::MAX && m.filename.starts_with(b"[kernel.kallsyms]") => {
                let trailer = bytes[bytes.len() - self.trailer..].to_vec();
                for (name, start, len) in modules() {
                    let rec = self.module_mmap(&name, start, len, &trailer);
                    bytes.extend(rec);
                }
            }
            RecordKind::Mmap2(m) if !self.keep.files.contains(m.filename) => bytes.clear(),
            RecordKind::Comm(c) if !self.keep.pids.contains(&c.pid) => bytes.clear(),
            RecordKind::Fork(f) if !self.keep.pids.contains(&f.pid) => bytes.clear(),
            RecordKind::Exit(e) if !self.keep.pids.contains(&e.pid) => bytes.clear(),
            RecordKind::Sample(s) if !self.keep.keeps(s, record.header.cpumode()) => bytes.clear(),
            RecordKind::Sample(s) if record.header.cpumode() == CpuMode::Kernel => {
                let k = self.kernel_samples;
                self.kernel_samples += 1;
                let case = match k % 2 {
                    0 if k > 0 => return,
                    _ => CASES[(k / 2) % CASES.len()],
                };
                let layout = &record.event.expect("sample event").layout;
                assert_eq!(
                    layout.sample_type & perfdata_core::attr::sample_type::READ,
                    0,
                    "no READ before the callchain"
                );
                let ip_at = 8 + usize::from(layout.fixed_offsets[perfdata_core::sample::fixed::IP]);
                let chain_at = 8 + layout.fixed_size;
                let nr = self.get_u64(bytes, chain_at) as usize;
                assert_eq!(nr, s.callchain().map_or(0, |c| c.len()));
                assert_eq!(self.get_u64(bytes, chain_at + 8), PERF_CONTEXT_KERNEL, "kernel chain first");
                for (i, &addr) in case.iter().enumerate() {
                    let at = chain_at + 16 + 8 * i;
                    assert!(i + 1 < nr && self.get_u64(bytes, at) >= 0xffff_8000_0000_0000, "kernel frame to replace");
                    self.put_u64(bytes, at, addr);
                }
                self.put_u64(bytes, ip_at, case[0]);
            }
            _ => {}
        }
    }

    fn feature(&mut self, bit: u32, payload: &mut Vec<u8>) {
        // HEADER_BUILD_ID: `perf_record_header_build_id` entries, names padded to 64 bytes.
        if bit != 2 || !self.build_id {
            return;
        }
        let name = format!("/lib/modules/{RELEASE}/kernel/drivers/misc/kmod-demo.ko");
        let mut name_bytes = name.into_bytes();
        name_bytes.push(0);
        while name_bytes.len() % 64 != 0 {
            name_bytes.push(0);
        }
        let mut e = Vec::new();
        e.extend(self.u32(0));
        // PERF_RECORD_MISC_BUILD_ID_SIZE | PERF_RECORD_MISC_KERNEL.
        e.extend(self.u16(0x8001));
        e.extend(self.u16(u16::try_from(36 + name_bytes.len()).expect("small entry")));
        e.extend(self.u32(u32::MAX));
        e.extend(KO_BUILD_ID);
        e.extend([20, 0, 0, 0]);
        e.extend(name_bytes);
        payload.extend(e);
    }
}

/// The samples kept and what they need.
#[derive(Clone, Default)]
struct Needed {
    /// The processes whose kernel-mode samples are kept.
    sampled: HashSet<u32>,
    /// The first user-mode sample (pid, time), also kept.
    first_user: Option<(u32, u64)>,
    /// These and their parents, whose COMM, FORK and EXIT records are kept.
    pids: HashSet<u32>,
    /// The files these processes' user frames fall in (all MMAP2 records of them are kept).
    files: HashSet<Vec<u8>>,
}

impl Needed {
    fn keeps(&self, s: &perfdata_core::Sample, mode: CpuMode) -> bool {
        let (pid, time) = (s.pid().unwrap_or(u32::MAX), s.time().unwrap_or(0));
        if mode == CpuMode::Kernel {
            self.sampled.contains(&pid)
        } else {
            self.first_user == Some((pid, time))
        }
    }
}

fn needed(file: &PerfFile) -> Result<Needed, Box<dyn Error>> {
    let mut out = Needed::default();
    let mut comms = std::collections::HashMap::new();
    let mut recs = file.records(Order::Time)?;
    while let Some(r) = recs.next_record() {
        let r = r?;
        match &r.kind {
            RecordKind::Comm(c) => {
                comms.insert(c.pid, c.comm.to_vec());
            }
            RecordKind::Sample(s) => {
                let pid = s.pid().unwrap_or(u32::MAX);
                if comms.get(&pid).is_some_and(|c| c.starts_with(b"rustc")) {
                    continue;
                }
                if r.header.cpumode() == CpuMode::Kernel {
                    out.sampled.insert(pid);
                } else if out.first_user.is_none() {
                    out.first_user = Some((pid, s.time().unwrap_or(0)));
                }
            }
            _ => {}
        }
    }
    let mut machine = Machine::new();
    let mut parents = Vec::new();
    let mut recs = file.records(Order::Time)?;
    while let Some(r) = recs.next_record() {
        let r = r?;
        machine.update(&r);
        match &r.kind {
            RecordKind::Fork(f) => parents.push((f.pid, f.ppid)),
            RecordKind::Sample(s) if out.keeps(s, r.header.cpumode()) => {
                let pid = s.pid().unwrap_or(u32::MAX);
                let mut user = r.header.cpumode() != CpuMode::Kernel;
                let ips = s.callchain().into_iter().flat_map(|c| c.iter()).chain(s.ip());
                for ip in ips {
                    if ip >= (-4095i64) as u64 {
                        user = ip == (-512i64) as u64;
                    } else if user {
                        if let Some(m) = machine.find_map(pid, ip, false) {
                            out.files.insert(m.filename.clone().into_bytes());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.pids = out.sampled.iter().copied().chain(out.first_user.map(|(p, _)| p)).collect();
    let sampled = out.pids.clone();
    for (pid, ppid) in parents {
        if sampled.contains(&pid) {
            out.pids.insert(ppid);
        }
    }
    Ok(out)
}

/// The build id of kmod-demo.ko (its `.note.gnu.build-id`, written by the C file).
const KO_BUILD_ID: [u8; 20] = *b"kmod-demo-build-id!!";

fn kallsyms(extract: &str) -> String {
    let mut out = String::from("ffffffff81000000 T _text\n");
    out.push_str(extract);
    for (addr, ty, name, module) in KALLSYMS_MODULE_SYMS {
        out.push_str(&format!("{addr:016x} {ty} {name}\t[{module}]\n"));
    }
    out
}

/// A `.ko` stand-in: a relocatable object whose `.text` holds [`KO_FUNCS`] (filled with `nop`s) at
/// their offsets, with the module's build id note.
fn ko_source() -> String {
    let mut s = String::from(
        "/* Generated by perfdata-core/examples/kmod_fixture.rs: a stand-in for kmod-demo.ko\n   \
         (gcc -c), whose .text holds these functions at these offsets. */\n__asm__(\n\t\".text\\n\"\n",
    );
    let mut at = 0;
    for (name, off, size) in KO_FUNCS {
        assert!(*off >= at);
        if *off > at {
            s.push_str(&format!("\t\".skip {}, 0x90\\n\"\n", off - at));
        }
        s.push_str(&format!(
            "\t\".globl {name}\\n.type {name}, @function\\n{name}:\\n.skip {size}, 0x90\\n.size {name}, {size}\\n\"\n"
        ));
        at = off + size;
    }
    s.push_str("\t\".section .note.gnu.build-id, \\\"a\\\", @note\\n.p2align 2\\n\"\n");
    s.push_str("\t\".long 4, 20, 3\\n.asciz \\\"GNU\\\"\\n.ascii \\\"");
    s.push_str(std::str::from_utf8(&KO_BUILD_ID).expect("ascii"));
    s.push_str("\\\"\\n\"\n);\n");
    s
}

fn main() -> Result<(), Box<dyn Error>> {
    let testdata = std::env::args().nth(1).ok_or("usage: kmod_fixture TESTDATA_DIR")?;
    let testdata = Path::new(&testdata);
    let out = testdata.join("kmod");
    std::fs::create_dir_all(&out)?;
    let file = PerfFile::open(testdata.join("sysw.data"))?;
    let keep = needed(&file)?;
    for (name, build_id) in [("kmod.data", false), ("kmod-buildid.data", true)] {
        let trailer = file.events().first().map_or(0, |e| e.layout.trailer_size);
        let mut d = Derive { endian: file.endian(), build_id, kernel_samples: 0, trailer, keep: keep.clone() };
        let bytes = write_file_edited(&file, file.endian(), &mut d)?;
        std::fs::write(out.join(name), bytes)?;
        eprintln!("{name}: {} kernel-mode samples", d.kernel_samples);
    }
    let extract = std::fs::read_to_string(testdata.join("folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"))?;
    std::fs::write(out.join("kallsyms"), kallsyms(&extract))?;
    std::fs::write(out.join("kmod-demo.c"), ko_source())?;
    Ok(())
}
