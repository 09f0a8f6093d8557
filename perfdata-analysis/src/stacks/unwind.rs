//! The symbolizer of a recording (its build ids, kernel release, recorded symbols) and the DWARF
//! unwinding of `--call-graph dwarf` stack dumps.

use std::collections::HashMap;

use perfdata_core::feature::BuildId;
use perfdata_core::file::PerfFile;
use perfdata_core::process::Machine;
use perfdata_core::sample::Sample;
use perfdata_symbolize::unwind::{Arch, ModuleCache, ProcessSpace, UnwindOptions, Unwinder};
use perfdata_symbolize::Symbolizer;

use crate::options::FoldedOptions;

/// Build ids by file name from the BUILD_ID feature (empty when the file has none or it does not
/// parse).
pub fn feature_build_ids(file: &PerfFile) -> HashMap<String, Vec<u8>> {
    build_id_map(&build_id_entries(file))
}

fn build_id_entries(file: &PerfFile) -> Vec<BuildId> {
    file.features().build_ids().and_then(Result::ok).map(|b| b.entries).unwrap_or_default()
}

fn build_id_map(entries: &[BuildId]) -> HashMap<String, Vec<u8>> {
    entries.iter().map(|e| (e.filename.clone(), e.build_id.clone())).collect()
}

/// The symbolizer for `file`, with its build ids.
pub(super) fn symbolizer(file: &PerfFile, opts: &FoldedOptions) -> Symbolizer {
    let entries = build_id_entries(file);
    let mut sym = Symbolizer::new(opts.symbolize.clone(), build_id_map(&entries));
    sym.set_kernel_build_ids(&entries);
    sym.set_kernel_release(file.features().os_release().and_then(Result::ok).as_deref());
    // simpleperf recordings carry the symbols their samples hit (FILE/FILE2).
    if let Some(Ok(files)) = file.features().simpleperf_files() {
        sym.set_recorded_symbols(perfdata_symbolize::recorded::RecordedSymbols::new(&files));
    }
    sym
}

/// An unwinder when some event samples REGS_USER and STACK_USER (`--call-graph dwarf`) and the
/// recording's architecture (ARCH feature, else this machine's, as perf's `perf_env__arch`) is
/// one the unwinder knows.
fn dwarf_unwinder(file: &PerfFile, o: &FoldedOptions) -> Option<Unwinder> {
    use perfdata_core::attr::sample_type::{REGS_USER, STACK_USER};
    let both = REGS_USER | STACK_USER;
    if !file.events().iter().any(|e| e.attr.sample_type & both == both) {
        return None;
    }
    let uname = file
        .features()
        .arch()
        .and_then(|a| a.ok())
        .map_or_else(|| std::env::consts::ARCH.to_string(), std::borrow::Cow::into_owned);
    let arch = Arch::from_uname(&uname)?;
    let opts = UnwindOptions { perf_compat: !o.plain_unwind, ..UnwindOptions::default() };
    Some(Unwinder::new(arch, file.endian() == perfdata_core::Endian::Little, opts))
}

/// What the reading thread keeps to unwind `--call-graph dwarf` stacks: its own copy of the
/// threads and maps, binaries and modules.
pub(super) struct DwarfUnwind {
    unwinder: Unwinder,
    pub(super) machine: Machine,
    sym: Symbolizer,
    modules: ModuleCache,
}

impl DwarfUnwind {
    /// An unwinder with its own threads, maps and binaries, when `file` samples stack dumps.
    pub(super) fn for_file(file: &PerfFile, opts: &FoldedOptions) -> Option<DwarfUnwind> {
        dwarf_unwinder(file, opts).map(|unwinder| DwarfUnwind {
            unwinder,
            machine: Machine::new(),
            sym: symbolizer(file, opts),
            modules: ModuleCache::default(),
        })
    }

    /// The user frames perf appends after a sample's kernel callchain when it unwinds the stack
    /// dump (leaf first; callers' return addresses less one).
    pub(super) fn user_frames(&mut self, s: &Sample, pid: u32, out: &mut Vec<u64>) {
        let (Some(regs), Some(stack)) = (s.regs_user(), s.stack_user()) else { return };
        let maps = self.machine.process_maps(pid);
        let mut space = ProcessSpace { maps, symbolizer: &mut self.sym, modules: &mut self.modules };
        out.extend(self.unwinder.unwind(Some(regs), Some(stack), &mut space).frames.iter().map(|f| f.ip));
    }
}
