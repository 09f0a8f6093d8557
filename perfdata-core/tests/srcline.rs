//! Source lines ([`Symbolizer::srcline`], [`Symbolizer::inline_srclines`])
//! compared with perf 6.1's `perf script -F +srcline` output stored beside the recordings
//! (testdata/folded/gen-folded.sh):
//!
//! * `fp.data.script-srcline` (`-g`; perf adds no inline frames to these callchains, so the
//!   `--no-inline` output is the same), `dwarf.data.script-srcline` (perf's default `--inline`)
//!   and `dwarf.data.script-srcline-noinline`;
//! * per frame: the line perf printed under each frame of each sample (or none) is ours.
//!
//! perf read the DWARF from this machine's build-id cache (spin's own debug info, libc6-dbg's
//! files for libc and ld.so); the tests read testdata/folded/root (spin's `objcopy
//! --only-keep-debug` file and the reduced libc and ld.so debug files under
//! usr/lib/debug/.build-id), checked to answer addr2line like the files perf read for every
//! address of these recordings (folded/verify-inline-extract.py).

use perfdata_core::process::Machine;
use perfdata_core::record::{CpuMode, RecordKind};
use perfdata_core::sample::PERF_CONTEXT_MAX;
use perfdata_core::symbolize::Symbolizer;
use perfdata_core::unwind::{Arch, ModuleCache, ProcessSpace, UnwindOptions, Unwinder};
use perfdata_core::{Order, PerfFile};

mod common;

use common::{folded_symbols as symbolize, testdata};

fn read(name: &str) -> String {
    let path = testdata().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One frame as `perf script -F +srcline` printed it.
#[derive(Debug, PartialEq, Eq)]
struct Printed {
    /// The address column (file-relative for user frames).
    ip: u64,
    /// The source line printed under the frame, without the ` (inlined)` perf puts after it.
    srcline: Option<String>,
    /// Printed `(inlined)`.
    inlined: bool,
}

/// perf's text → the frames of each sample.
fn printed_samples(text: &str) -> Vec<Vec<Printed>> {
    let mut samples = Vec::new();
    let mut frames: Vec<Printed> = Vec::new();
    for line in text.lines() {
        if let Some(frame) = line.strip_prefix('\t') {
            let (ip, rest) = frame.trim_start().split_once(' ').unwrap();
            let ip = u64::from_str_radix(ip, 16).unwrap();
            frames.push(Printed { ip, srcline: None, inlined: rest.ends_with(" (inlined)") });
        } else if let Some(src) = line.strip_prefix("  ") {
            let f = frames.last_mut().unwrap();
            assert!(f.srcline.is_none(), "two source lines under one frame: {line}");
            let (src, inlined) = src.strip_suffix(" (inlined)").map_or((src, false), |s| (s, true));
            f.srcline = Some(src.to_string());
            f.inlined |= inlined;
        } else if line.is_empty() {
            samples.push(std::mem::take(&mut frames));
        } else {
            assert!(frames.is_empty(), "sample header inside a sample: {line}");
        }
    }
    assert!(frames.is_empty());
    samples
}

/// Our frames of each sample, walked as perf walks them (callchain entries, kernel or user by
/// the `PERF_CONTEXT_*` markers, then the user frames unwound from the stack dump), each with
/// the source line we give it: an unwound frame with an inline list becomes its frames when
/// `inline` (perf's default).
fn our_samples(name: &str, inline: bool) -> Vec<Vec<Printed>> {
    let file = PerfFile::open(testdata().join(name)).unwrap();
    let build_ids = perfdata_core::folded::feature_build_ids(&file);
    let mut sym = Symbolizer::new(symbolize(), build_ids.clone());
    let mut unwind_sym = Symbolizer::new(symbolize(), build_ids);
    let mut unwinder = Unwinder::new(Arch::X86_64, true, UnwindOptions::default());
    let mut modules = ModuleCache::default();
    let mut machine = Machine::new();
    let mut out = Vec::new();
    let mut recs = file.records(Order::Time).unwrap();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        let RecordKind::Sample(s) = &r.kind else {
            machine.update(&r);
            continue;
        };
        let pid = s.pid().unwrap();
        let mut kernel = r.header.cpumode() == CpuMode::Kernel;
        let mut ips: Vec<(u64, bool, bool)> = Vec::new();
        for ip in s.callchain().unwrap().iter() {
            match ip {
                ip if ip < PERF_CONTEXT_MAX => ips.push((ip, kernel, false)),
                ip => kernel = matches!(ip as i64, -128 | -2176),
            }
        }
        if let (Some(regs), Some(stack)) = (s.regs_user(), s.stack_user()) {
            let maps = machine.process_maps(pid);
            let mut space = ProcessSpace { maps, symbolizer: &mut unwind_sym, modules: &mut modules };
            ips.extend(unwinder.unwind(Some(regs), Some(stack), &mut space).frames.iter().map(|f| (f.ip, false, true)));
        }
        let mut frames = Vec::new();
        for (ip, kernel, unwound) in ips {
            let map = machine.find_map(pid, ip, kernel);
            let printed_ip = map.filter(|m| !m.is_kernel()).map_or(ip, |m| m.map_ip(ip));
            let frame = sym.resolve(map, ip);
            let inlines = match map {
                Some(m) if inline && unwound => sym.inlines(m, ip, &frame),
                _ => Vec::new().into(),
            };
            if inlines.is_empty() {
                let srcline = sym.srcline(map, ip).map(|s| s.to_string());
                frames.push(Printed { ip: printed_ip, srcline, inlined: false });
            }
            if let (Some(m), false) = (map, inlines.is_empty()) {
                let lines = sym.inline_srclines(m, ip, &frame);
                assert_eq!(lines.len(), inlines.len());
                for (i, line) in inlines.iter().zip(lines.iter()) {
                    frames.push(Printed { ip: printed_ip, srcline: Some(line.to_string()), inlined: i.inlined });
                }
            }
        }
        out.push(frames);
    }
    out
}

/// Every frame of every sample has the source line perf printed under it (or none, as perf).
fn check_frames(name: &str, stored: &str, inline: bool) {
    let want = printed_samples(&read(stored));
    let got = our_samples(name, inline);
    assert_eq!(got.len(), want.len(), "{stored}: samples");
    let (mut lines, mut inlined) = (0, 0);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            for (a, b) in g.iter().zip(w) {
                eprintln!(
                    "{} ours {:x} {:?} / perf {:x} {:?}",
                    if a == b { " " } else { "!" },
                    a.ip,
                    a.srcline,
                    b.ip,
                    b.srcline
                );
            }
            panic!("{stored}: sample {i} differs ({} frames, perf {})", g.len(), w.len());
        }
        lines += w.iter().filter(|f| f.srcline.is_some()).count();
        inlined += w.iter().filter(|f| f.inlined).count();
    }
    eprintln!("{stored}: {} samples, {lines} source lines, {inlined} inlined frames", want.len());
}

#[test]
fn fp_frames() {
    check_frames("fp.data", "fp.data.script-srcline", false);
    check_frames("fp.data", "fp.data.script-srcline", true);
}

#[test]
fn dwarf_frames() {
    check_frames("dwarf.data", "dwarf.data.script-srcline-noinline", false);
    // perf's default: the frames of inline lists print their own lines (the call sites).
    check_frames("dwarf.data", "dwarf.data.script-srcline", true);
}
