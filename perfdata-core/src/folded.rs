//! Folded stacks (`comm;root;…;leaf COUNT`), as `perf script report stackcollapse` and
//! `perf script | stackcollapse-perf.pl` (or `inferno-collapse-perf`) print them. See
//! analysis-semantics.md §1.

use std::collections::{BTreeMap, HashMap};

use crate::file::PerfFile;
use crate::process::{Machine, Maps};
use crate::reader::Reader;
use crate::record::{BuildIdRecord, RecordKind};
use crate::records::Order;
use crate::sample::{Sample, PERF_CONTEXT_MAX};
use crate::symbolize::{SymbolizeOptions, Symbolizer};
use crate::unwind::{Arch, ProcessSpace, UnwindOptions, Unwinder};
use crate::Result;

/// Which tool's output to reproduce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    /// `perf script | stackcollapse-perf.pl` / `inferno-collapse-perf`: period weights,
    /// `[module]` for unresolved frames, generic name tidying, first event only.
    #[default]
    StackcollapsePl,
    /// `perf script report stackcollapse`: sample counts, `[unknown]`, all events.
    PerfScriptPy,
}

/// Options of [`folded`].
#[derive(Clone, Debug, Default)]
pub struct FoldedOptions {
    /// Output flavour.
    pub compat: Compat,
    /// Where to find symbols.
    pub symbolize: SymbolizeOptions,
    /// Only samples of this process.
    pub pid: Option<u32>,
    /// Only samples whose comm is this.
    pub comm: Option<String>,
}

/// Stack → weight, ordered by the stack text (byte order, like the tools' sort).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldedStacks {
    /// Joined stack (`comm;root;…;leaf`) → weight.
    pub stacks: BTreeMap<String, u64>,
}

impl FoldedStacks {
    /// The folded text, one `stack weight` line per stack.
    pub fn to_folded_string(&self) -> String {
        let mut out = String::new();
        for (s, w) in &self.stacks {
            out.push_str(s);
            out.push(' ');
            out.push_str(&w.to_string());
            out.push('\n');
        }
        out
    }
}

/// Build ids by file name from the BUILD_ID feature (bit 2).
pub fn feature_build_ids(file: &PerfFile) -> HashMap<String, Vec<u8>> {
    let mut out = HashMap::new();
    let Some((data, pos)) = file.feature_data(2) else { return out };
    let mut r = Reader::new(data, file.endian(), pos, "build_id feature");
    while r.remaining() >= 8 {
        let Ok(hdr) = crate::record::RecordHeader::parse(
            data.get(data.len().saturating_sub(r.remaining())..).unwrap_or(&[]),
            file.endian(),
            pos,
        ) else {
            break;
        };
        let size = usize::from(hdr.size);
        if size < 8 || r.skip(8).is_err() {
            break;
        }
        let Ok(body) = r.bytes(size.saturating_sub(8)) else { break };
        let mut br = Reader::new(body, file.endian(), pos, "build_id entry");
        if let Ok(b) = BuildIdRecord::parse(&mut br, hdr.misc) {
            let name = String::from_utf8_lossy(b.filename).into_owned();
            out.insert(name, b.build_id.to_vec());
        }
    }
    out
}

fn tidy_pl(name: &str) -> String {
    let s = name.replace(';', ":");
    if s.starts_with("(anonymous namespace)") || s.contains(".(") {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 && i > 0 => return s.get(..i).unwrap_or(&s).to_string(),
            _ => {}
        }
    }
    s
}

/// An unwinder when some event samples REGS_USER and STACK_USER (`--call-graph dwarf`) and the
/// recording's architecture (ARCH feature, else this machine's, as perf's `perf_env__arch`) is
/// one the unwinder knows.
fn dwarf_unwinder(file: &PerfFile) -> Option<Unwinder> {
    use crate::attr::sample_type::{REGS_USER, STACK_USER};
    let both = REGS_USER | STACK_USER;
    if !file.events().iter().any(|e| e.attr.sample_type & both == both) {
        return None;
    }
    let uname = file.features().arch().and_then(|a| a.ok()).unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let arch = Arch::from_uname(&uname)?;
    Some(Unwinder::new(arch, file.endian() == crate::Endian::Little, UnwindOptions::default()))
}

/// The user frames perf appends after a sample's kernel callchain when it unwinds the stack dump
/// (leaf first; callers' return addresses less one).
fn user_frames(unwinder: Option<&mut Unwinder>, s: &Sample, maps: Option<&Maps>, sym: &mut Symbolizer) -> Vec<u64> {
    let (Some(u), Some(regs), Some(stack)) = (unwinder, s.regs_user(), s.stack_user()) else { return Vec::new() };
    let mut space = ProcessSpace { maps, symbolizer: sym };
    u.unwind(Some(regs), Some(stack), &mut space).frames.iter().map(|f| f.ip).collect()
}

/// Fold the samples of `file`.
pub fn folded(file: &PerfFile, opts: &FoldedOptions) -> Result<FoldedStacks> {
    let mut sym = Symbolizer::new(opts.symbolize.clone(), feature_build_ids(file));
    let mut machine = Machine::new();
    let mut out = FoldedStacks::default();
    let mut first_event: Option<usize> = None;
    let mut unwinder = dwarf_unwinder(file);
    let mut recs = file.records(Order::Time)?;
    while let Some(r) = recs.next_record() {
        let r = r?;
        let RecordKind::Sample(s) = &r.kind else {
            machine.update(&r);
            continue;
        };
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        if opts.pid.is_some_and(|p| p != pid) {
            continue;
        }
        let comm = if tid == 0 && machine.thread(0).is_none() { "swapper".to_string() } else { machine.comm(tid) };
        if opts.comm.as_ref().is_some_and(|c| *c != comm) {
            continue;
        }
        let pl = opts.compat == Compat::StackcollapsePl;
        if pl {
            let idx = r.event.map_or(0, |e| e.index);
            if *first_event.get_or_insert(idx) != idx {
                continue;
            }
        }
        let mut kernel = r.header.cpumode() == crate::record::CpuMode::Kernel;
        let mut frames: Vec<String> = Vec::new();
        let push = |sym: &mut Symbolizer, kernel: bool, addr: u64, frames: &mut Vec<String>| {
            let map = machine.find_map(pid, addr, kernel);
            let f = sym.resolve(map, addr);
            let name = match (&f.symbol, pl) {
                (Some(n), false) => n.replace(';', ":"),
                (Some(n), true) => {
                    if n.starts_with('(') {
                        return;
                    }
                    tidy_pl(n)
                }
                (None, false) => "[unknown]".to_string(),
                (None, true) => {
                    if &*f.dso == "[unknown]" {
                        "[unknown]".to_string()
                    } else {
                        format!("[{}]", f.dso.rsplit('/').next().unwrap_or(&f.dso))
                    }
                }
            };
            frames.push(name);
        };
        match s.callchain() {
            Some(chain) => {
                for ip in chain.iter() {
                    if ip >= PERF_CONTEXT_MAX {
                        // PERF_CONTEXT_KERNEL (-128) and GUEST_KERNEL (-2176) are kernel contexts.
                        kernel = ip == (-128i64) as u64 || ip == (-2176i64) as u64;
                        continue;
                    }
                    push(&mut sym, kernel, ip, &mut frames);
                }
                for ip in user_frames(unwinder.as_mut(), s, machine.process_maps(pid), &mut sym) {
                    push(&mut sym, false, ip, &mut frames);
                }
            }
            None => {
                if pl {
                    // A sample printed without a callchain: stackcollapse-perf.pl drops it.
                    continue;
                }
                push(&mut sym, kernel, s.ip().unwrap_or(0), &mut frames);
            }
        }
        let mut key = comm.replace(' ', "_");
        for f in frames.iter().rev() {
            key.push(';');
            key.push_str(f);
        }
        let w = if pl { s.period_or_attr() } else { 1 };
        let e = out.stacks.entry(key).or_insert(0);
        *e = e.saturating_add(w);
    }
    Ok(out)
}
