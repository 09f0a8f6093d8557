//! Source lines ([`Symbolizer::srcline`], [`Symbolizer::inline_srclines`], [`FoldedOptions::srcline`])
//! compared with perf 6.1's `perf script -F +srcline` output stored beside the recordings
//! (testdata/folded/gen-folded.sh):
//!
//! * `fp.data.script-srcline` (`-g`; perf adds no inline frames to these callchains, so the
//!   `--no-inline` output is the same), `dwarf.data.script-srcline` (perf's default `--inline`)
//!   and `dwarf.data.script-srcline-noinline`;
//! * per frame: the line perf printed under each frame of each sample (or none) is ours;
//! * folded: `FoldedOptions::srcline` equals what stackcollapse-perf.pl `--srcline` makes of
//!   perf's text. The script is not on this machine: its rule (FlameGraph's current
//!   stackcollapse-perf.pl) is applied to perf's text by [`stackcollapse_pl`] below, never to ours.
//!
//! perf read the DWARF from this machine's build-id cache (spin's own debug info, libc6-dbg's
//! files for libc and ld.so); the tests read testdata/folded/root (spin's `objcopy
//! --only-keep-debug` file and the reduced libc and ld.so debug files under
//! usr/lib/debug/.build-id), checked to answer addr2line like the files perf read for every
//! address of these recordings (folded/verify-inline-extract.py).

use std::collections::BTreeMap;

use perfdata_analysis::folded::{folded, Compat, FoldedOptions};
use perfdata_core::process::Machine;
use perfdata_core::record::{CpuMode, RecordKind};
use perfdata_core::sample::PERF_CONTEXT_MAX;
use perfdata_core::{Order, PerfFile};
use perfdata_symbolize::unwind::{Arch, ModuleCache, ProcessSpace, UnwindOptions, Unwinder};
use perfdata_symbolize::Symbolizer;
use regex::Regex;

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;
mod symfs;

use common::testdata;
use symfs::folded_symbols as symbolize;

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
    let build_ids = perfdata_analysis::folded::feature_build_ids(&file);
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

/// `perf script -F +srcline | stackcollapse-perf.pl --srcline`, default options otherwise
/// (FlameGraph's current script, read for its rules; not its code): period weights of the first
/// event, `[module]` for unresolved frames, generic tidying, the line after each frame line (not
/// after a frame of the `[unknown]` module, which has none) appended as `:` plus that line
/// without its `[…]` parts, unless nothing is left.
fn stackcollapse_pl(text: &str) -> BTreeMap<String, u64> {
    let header = Regex::new(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+").unwrap();
    let period_event = Regex::new(r":\s*(\d+)*\s+(\S+):\s*$").unwrap();
    let frame = Regex::new(r"^\s*(\w+)\s*(.+) \((.*)\)").unwrap();
    let offset = Regex::new(r"\+0x[\da-f]+$").unwrap();
    let go_method = Regex::new(r"\.\(.*\)\.").unwrap();
    let brackets = Regex::new(r"\[.*?\]").unwrap();
    let mut out = BTreeMap::new();
    let (mut pname, mut period, mut event_filter): (Option<String>, u64, Option<String>) = (None, 1, None);
    let mut stack: Vec<String> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if let Some(p) = pname.take() {
                stack.insert(0, p);
                *out.entry(stack.join(";")).or_insert(0) += period;
            }
            stack.clear();
            continue;
        }
        if let Some(c) = header.captures(line) {
            period = 1;
            if let Some(pe) = period_event.captures(line) {
                let event = pe[2].to_string();
                if event_filter.get_or_insert_with(|| event.clone()) != &event {
                    continue;
                }
                period = pe.get(1).map_or(1, |p| p.as_str().parse().unwrap());
            }
            pname = Some(c[1].replace(' ', "_"));
        } else if let Some(c) = frame.captures(line) {
            let Some(p) = &pname else { continue };
            let (raw, module) = (offset.replace(&c[2], "").into_owned(), &c[3]);
            if raw.starts_with('(') {
                continue;
            }
            let mut pieces = Vec::new();
            for piece in raw.split("->") {
                let mut func = piece.to_string();
                let mut unknown = false;
                if func == "[unknown]" {
                    func = if module != "[unknown]" {
                        format!("[{}]", module.rsplit('/').next().unwrap())
                    } else {
                        unknown = true;
                        "[unknown]".to_string()
                    };
                }
                func = func.replace(';', ":");
                if !go_method.is_match(&func) {
                    let cut = func
                        .match_indices('(')
                        .map(|(i, _)| i)
                        .find(|&i| !func[i..].starts_with("(anonymous namespace)"));
                    func.truncate(cut.unwrap_or(func.len()));
                }
                func.retain(|c| c != '"' && c != '\'');
                if p.starts_with("java") && func.contains('/') {
                    func = func.strip_prefix('L').unwrap_or(&func).to_string();
                }
                if !pieces.is_empty() && !func.contains("_[i]") {
                    func.push_str("_[i]");
                }
                if !unknown {
                    let src = lines.next().unwrap_or("");
                    let src = brackets.replace_all(src, "");
                    let src = src.trim();
                    if !src.is_empty() {
                        func = format!("{func}:{src}");
                    }
                }
                pieces.push(func);
            }
            stack.splice(0..0, pieces);
        }
    }
    out
}

fn text(stacks: &BTreeMap<String, u64>) -> String {
    stacks.iter().map(|(s, w)| format!("{s} {w}\n")).collect()
}

fn check_folded(name: &str, stored: &str, inline: bool, want: &str) {
    let opts = FoldedOptions {
        srcline: true,
        inline,
        symbolize: symbolize(),
        ..FoldedOptions::compat(Compat::StackcollapsePl)
    };
    let file = PerfFile::open(testdata().join(name)).unwrap();
    let got = folded(&file, &opts).unwrap().to_folded_string();
    if got != want {
        let (g, w): (Vec<_>, Vec<_>) = (got.lines().collect(), want.lines().collect());
        w.iter().filter(|l| !g.contains(l)).for_each(|l| eprintln!("script only: {l}"));
        g.iter().filter(|l| !w.contains(l)).for_each(|l| eprintln!("ours only: {l}"));
        panic!("{name} (inline {inline}): differs from stackcollapse-perf.pl --srcline on {stored}");
    }
}

#[test]
fn fp_folded() {
    let want = text(&stackcollapse_pl(&read("fp.data.script-srcline")));
    // What the lines look like: spin's and libc's (`libc-start.c`, where binutils 2.40 reads the
    // DWARF 5 line table's first file entry for the code of `libc_start_call_main.h`), ld.so's
    // `_dl_start_user` (no row: the empty `STT_FILE` name before its symbol, no line), taskset's
    // frames without symbols (`taskset[2b49]`: `[taskset]:taskset`); none for kernel frames.
    for s in [
        "\nspin;__libc_start_call_main:libc-start.c:74;main:spin.c:128;run:spin.c:104;outer:spin.c:53;leaf:spin.c:31 4000000\n",
        ";_dl_start_user::0;",
        ";[taskset]:taskset;",
        ";do_syscall_64;__x64_sys_execve;",
    ] {
        assert!(want.contains(s), "{s}");
    }
    check_folded("fp.data", "fp.data.script-srcline", false, &want);
    check_folded("fp.data", "fp.data.script-srcline", true, &want);
}

#[test]
fn dwarf_folded() {
    let want = text(&stackcollapse_pl(&read("dwarf.data.script-srcline-noinline")));
    check_folded("dwarf.data", "dwarf.data.script-srcline-noinline", false, &want);
}

/// With perf's inline frames. perf prints an inlined frame's line as `file:line (inlined)` under a
/// frame line without module; stackcollapse-perf.pl cannot read that (it skips the frame line, takes
/// the source line for a frame and the next frame line for its source line). We give such a frame
/// its `name:file:line` like any other: what the script makes of the same text with the
/// `(inlined)` moved back to the frame line, where perf prints it without `-F +srcline`.
#[test]
fn dwarf_folded_inline() {
    let perf = read("dwarf.data.script-srcline");
    let mut moved = String::new();
    let mut pending: Option<String> = None;
    for line in perf.lines() {
        if let Some(frame) = pending.take() {
            match line.strip_suffix(" (inlined)") {
                Some(src) => moved.push_str(&format!("{frame} (inlined)\n{src}\n")),
                None => moved.push_str(&format!("{frame}\n{line}\n")),
            }
        } else if line.starts_with('\t') && !line.ends_with(')') {
            pending = Some(line.to_string());
        } else {
            moved.push_str(line);
            moved.push('\n');
        }
    }
    assert!(moved.contains("get_common_indices+0xc8 (inlined)\n  cpu-features.c:369\n"));
    let want = text(&stackcollapse_pl(&moved));
    assert_ne!(want, text(&stackcollapse_pl(&read("dwarf.data.script-srcline-noinline"))));
    check_folded("dwarf.data", "dwarf.data.script-srcline", true, &want);
}
