//! Distinct stacks and their weights ([`StackTable`], [`FoldedStacks`]), and [`StackFolder`], which
//! folds one sample at a time.

use std::collections::BTreeMap;

use perfdata_core::file::PerfFile;
use perfdata_core::record::{CpuMode, Record};
use perfdata_core::sample::Sample;
use perfdata_symbolize::jit::JitInjector;
use perfdata_symbolize::FastMap;

use super::folder::{cut_to_max_stack, walk_chain, ChainEntry, Folder, Labels};
use super::unwind::DwarfUnwind;
use crate::options::FoldedOptions;

/// Stack → weight, ordered by the stack text (byte order, like the tools' sort).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldedStacks {
    /// Joined stack (`comm;root;…;leaf`) → weight.
    pub stacks: BTreeMap<String, u64>,
    /// What went wrong on the way without stopping it (a jitdump file missing or damaged, …).
    pub diagnostics: Vec<String>,
    /// What could not be named, in one line, if anything: how many addresses in which DSOs, and
    /// why ([`Symbolizer::unnamed_summary`](perfdata_symbolize::Symbolizer::unnamed_summary)).
    /// Not a problem of the input: those frames are `[unknown]` (or their address), as perf
    /// shows them.
    pub unnamed: Option<String>,
}

impl FoldedStacks {
    /// The folded text, one `stack weight` line per stack.
    pub fn to_folded_string(&self) -> String {
        let mut out = String::with_capacity(self.stacks.keys().map(|k| k.len() + 12).sum());
        for (s, w) in &self.stacks {
            out.push_str(s);
            out.push(' ');
            out.push_str(&w.to_string());
            out.push('\n');
        }
        out
    }

    /// The sum of all weights.
    pub fn total(&self) -> u64 {
        self.stacks.values().fold(0u64, |a, w| a.saturating_add(*w))
    }
}

/// Distinct stacks (label sequences) with their weights.
#[derive(Default)]
pub(super) struct StackTable {
    stacks: Vec<(Box<[u32]>, u64)>,
    ids: FastMap<Box<[u32]>, u32>,
}

impl StackTable {
    /// The index of `stack`, added with weight 0 if new.
    pub(super) fn id(&mut self, stack: &[u32]) -> u32 {
        if let Some(&i) = self.ids.get(stack) {
            return i;
        }
        let i = u32::try_from(self.stacks.len()).unwrap_or(u32::MAX);
        self.stacks.push((stack.into(), 0));
        self.ids.insert(stack.into(), i);
        i
    }

    pub(super) fn add(&mut self, id: u32, weight: u64) {
        if let Some(e) = self.stacks.get_mut(id as usize) {
            e.1 = e.1.saturating_add(weight);
        }
    }

    /// The stacks as text (labels joined by `;`); `zero`: keep the stacks of weight 0.
    pub(super) fn into_folded(
        self,
        labels: &Labels,
        diagnostics: Vec<String>,
        unnamed: Option<String>,
        zero: bool,
    ) -> FoldedStacks {
        let mut out = FoldedStacks { diagnostics, unnamed, ..FoldedStacks::default() };
        for (ids, w) in self.stacks {
            if w == 0 && !zero {
                continue;
            }
            let mut key = String::new();
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    key.push(';');
                }
                key.push_str(labels.names.get(*id as usize).map_or("", String::as_str));
            }
            let e = out.stacks.entry(key).or_insert(0);
            *e = e.saturating_add(w);
        }
        out
    }
}

/// A stack folded by [`StackFolder::stack`], to weigh with [`StackFolder::add`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StackId(u32);

/// Folds samples one at a time, for analyses that know a sample's weight only later (the
/// off-CPU time that a `sched_switch` sample starts ends at the task's next switch-in).
///
/// Feed it every record in time order ([`StackFolder::record`]), fold the samples that start
/// something ([`StackFolder::stack`]: symbolized against the threads and maps of that moment, as
/// [`folded`](crate::folded::folded) does), weigh their stacks ([`StackFolder::add`]) and take the result
/// ([`StackFolder::finish`]). The options' frame formatting, root frame and comm filter apply;
/// their weight and the event, pid, tid and time filters are the caller's to apply. User stacks
/// recorded as stack dumps (`--call-graph dwarf`) are unwound as [`folded`](crate::folded::folded) unwinds them.
///
/// ```no_run
/// use perfdata_analysis::folded::{FoldedOptions, StackFolder};
/// use perfdata_core::{Order, RecordKind};
/// let file = perfdata_core::PerfFile::open("perf.data")?;
/// let opts = FoldedOptions::default();
/// let mut folder = StackFolder::new(&file, &opts);
/// for r in file.records(Order::Time)? {
///     let r = r?;
///     folder.record(&r);
///     if let RecordKind::Sample(s) = &r.kind {
///         if let Some(id) = folder.stack(&r, s) {
///             folder.add(id, 1);
///         }
///     }
/// }
/// print!("{}", folder.finish().to_folded_string());
/// # Ok::<(), perfdata_analysis::Error>(())
/// ```
pub struct StackFolder<'o> {
    folder: Folder<'o>,
    jit: JitInjector,
    table: StackTable,
    /// perf script has printed a sample.
    printed: bool,
    stack: Vec<u32>,
    ips: Vec<u64>,
    /// `--call-graph dwarf`: the unwinder, and the user frames it found for the current sample.
    dwarf: Option<DwarfUnwind>,
    unwound: Vec<u64>,
    /// [`StackFolder::locate_remembered`]'s answers, by address space, generation, and address.
    located: FastMap<(u32, u32, bool, u64), perfdata_symbolize::Frame>,
    /// [`StackFolder::chain_ordered`]'s buffers.
    reorder: Reorder,
}

/// The buffers of [`StackFolder::chain_ordered`], kept from sample to sample.
#[derive(Default)]
struct Reorder {
    /// A callchain's addresses, leaf first: kernel, unwound, address.
    addrs: Vec<(bool, bool, u64)>,
    /// Their entries, root first.
    by_root: Vec<ChainEntry>,
    /// Where each address's entries end in `by_root`.
    ends: Vec<usize>,
}

/// Answers [`StackFolder::locate_remembered`] keeps before it forgets them all (a long
/// system-wide recording's orphaned generations accumulate): about 90 bytes each.
const LOCATED_MAX: usize = 1 << 20;

impl<'o> StackFolder<'o> {
    /// A folder for the records of `file` (loads the kernel's symbols unless no event samples
    /// the kernel).
    pub fn new(file: &PerfFile, opts: &'o FoldedOptions) -> StackFolder<'o> {
        let mut folder = Folder::new(file, opts);
        folder.preload_kernel(file);
        StackFolder {
            folder,
            jit: JitInjector::new(file.events(), &opts.symbolize),
            table: StackTable::default(),
            printed: false,
            stack: Vec::new(),
            ips: Vec::new(),
            dwarf: DwarfUnwind::for_file(file, opts),
            unwound: Vec::new(),
            located: FastMap::default(),
            reorder: Reorder::default(),
        }
    }

    /// Take in a record (threads, comms and maps change; jitdump code appears); every record of
    /// the file, in time order, before [`StackFolder::stack`] of a sample.
    pub fn record(&mut self, r: &Record<'_>) {
        let (folder, dwarf) = (&mut self.folder, &mut self.dwarf);
        self.jit.record(r, &mut |e| {
            if let Some(d) = dwarf.as_mut() {
                d.machine.apply(e.clone());
            }
            folder.machine_event(e);
        });
    }

    /// Fold the callchain of sample `s` (of record `r`) as [`folded`](crate::folded::folded) would; `None` when it drops
    /// the sample (no callchain, an empty or corrupt one, another comm).
    pub fn stack(&mut self, r: &Record<'_>, s: &Sample<'_>) -> Option<StackId> {
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        self.ips.clear();
        self.unwound.clear();
        let chain = s.callchain().map(|c| {
            self.ips.extend(c.iter());
            if let Some(d) = &mut self.dwarf {
                d.user_frames(s, pid, &mut self.unwound);
            }
        });
        let chain = chain.map(|()| (self.ips.as_slice(), self.unwound.as_slice()));
        if !self.folder.fold_sample(pid, tid, kernel, s.ip(), chain, &mut self.printed, &mut self.stack) {
            return None;
        }
        Some(StackId(self.table.id(&self.stack)))
    }

    /// The frames of a folded stack, root first (the root frame, `comm` or `comm-PID/TID`,
    /// first when the options have one), as [`folded`](crate::folded::folded) writes them between `;`.
    pub fn frames(&self, id: StackId) -> impl Iterator<Item = &str> + '_ {
        let ids = self.table.stacks.get(id.0 as usize).map_or(&[][..], |(s, _)| &s[..]);
        let names = &self.folder.labels.names;
        ids.iter().map(move |l| names.get(*l as usize).map_or("", String::as_str))
    }

    /// The entries of sample `s`'s callchain (of record `r`) as `perf report` resolves them, leaf
    /// first, into `out` (emptied first): each address with its module and symbol, and before a
    /// user-stack frame unwound from a stack dump the functions inlined at it (with
    /// [`FoldedOptions::inline`]), innermost first, as perf's callchain cursor holds them. Empty
    /// when the sample has no callchain or perf would drop it as corrupt.
    pub fn chain(&mut self, r: &Record<'_>, s: &Sample<'_>, out: &mut Vec<ChainEntry>) {
        self.chain_ordered(r, s, false, out);
    }

    /// [`StackFolder::chain`], resolving the addresses in the order perf's callchain cursor
    /// takes them: root first when `root_first` (perf report's default caller order: the unwound
    /// user frames, then the recorded callchain). The entries come out leaf first all the same;
    /// the order decides only when symbols load (the kernel's at its first address, which
    /// changes the names of modules looked up before).
    pub(crate) fn chain_ordered(
        &mut self,
        r: &Record<'_>,
        s: &Sample<'_>,
        root_first: bool,
        out: &mut Vec<ChainEntry>,
    ) {
        out.clear();
        let Some(c) = s.callchain() else { return };
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let pid = s.pid().unwrap_or(u32::MAX);
        let mut ips = std::mem::take(&mut self.ips);
        ips.clear();
        ips.extend(c.iter());
        self.unwound.clear();
        if let Some(d) = &mut self.dwarf {
            d.user_frames(s, pid, &mut self.unwound);
        }
        let folder = &mut self.folder;
        let (chain, unwound) = cut_to_max_stack(&ips, &self.unwound, folder.opts().max_stack);
        if !root_first {
            if walk_chain(chain.iter().copied(), kernel, |kernel, ip| folder.chain_entry(pid, kernel, false, ip, out)) {
                for &ip in unwound {
                    folder.chain_entry(pid, false, true, ip, out);
                }
            } else {
                out.clear();
            }
            self.ips = ips;
            return;
        }
        let Reorder { mut addrs, mut by_root, mut ends } = std::mem::take(&mut self.reorder);
        // Each address with its mode and whether it was unwound, leaf first.
        addrs.clear();
        if walk_chain(chain.iter().copied(), kernel, |kernel, ip| addrs.push((kernel, false, ip))) {
            addrs.extend(unwound.iter().map(|&ip| (false, true, ip)));
            // Resolved root first into `by_root`, each address's entries (its inlined functions)
            // a run whose end `ends` keeps; then the runs leaf first into `out`.
            by_root.clear();
            ends.clear();
            for &(kernel, unwound, ip) in addrs.iter().rev() {
                folder.chain_entry(pid, kernel, unwound, ip, &mut by_root);
                ends.push(by_root.len());
            }
            let mut end = by_root.len();
            for &start in ends.iter().rev().skip(1).chain(std::iter::once(&0)) {
                out.extend(by_root.drain(start..end));
                end = start;
            }
        }
        self.reorder = Reorder { addrs, by_root, ends };
        self.ips = ips;
    }

    /// The module and symbol of address `ip` of process `pid` (`kernel`: a kernel address), as
    /// perf names them for a sample's ip: the module's path (`[kernel.kallsyms]`, `[unknown]`)
    /// and the demangled symbol (`None` when none covers it).
    pub fn locate(&mut self, pid: u32, kernel: bool, ip: u64) -> perfdata_symbolize::Frame {
        let f = if kernel {
            let generation = self.folder.sym.kernel_generation();
            let f = self.folder.sym.resolve_kernel(&self.folder.machine, ip);
            self.folder.kernel_symbols_changed(generation);
            f
        } else {
            let map = self.folder.machine.find_map(pid, ip, false);
            self.folder.sym.resolve_in(pid, map, ip)
        };
        f
    }

    /// [`StackFolder::locate`], answered from memory for an address of an address space whose
    /// maps have not changed since it was last looked up (the same frame, looked up once: an
    /// unnamed address counts once per generation in [`StackFolder::diagnostics`], as folding
    /// counts it).
    pub(crate) fn locate_remembered(&mut self, pid: u32, kernel: bool, ip: u64) -> perfdata_symbolize::Frame {
        let (space, generation) = self.space_key(pid, kernel);
        let key = (space, generation, kernel, ip);
        if let Some(f) = self.located.get(&key) {
            return f.clone();
        }
        if self.located.len() >= LOCATED_MAX {
            self.located.clear();
        }
        let f = self.locate(pid, kernel, ip);
        self.located.insert(key, f.clone());
        f
    }

    /// What [`StackFolder::locate`]'s answer for address `ip` of process `pid` (`kernel`: a
    /// kernel address) depends on besides the address: the address space and the generation of
    /// its maps (bumped when they change, and for the kernel when its symbols do). Two calls with
    /// equal keys give the same frame, so a caller may remember answers by key.
    pub(crate) fn space_key(&mut self, pid: u32, kernel: bool) -> (u32, u32) {
        self.folder.enter_process(pid);
        (if kernel { u32::MAX } else { pid }, self.folder.generation(kernel))
    }

    /// Address `ip` of process `pid` as perf resolves a branch stack's end (`ip__resolve_ams`):
    /// in a map of the process (level `.`), else in the kernel's (`k`), else nowhere (`H`, the
    /// level of the last mode tried). Gives the frame, the level and the address relative to the
    /// map (as it is without one).
    pub fn locate_any(&mut self, pid: u32, ip: u64) -> (perfdata_symbolize::Frame, char, u64) {
        if self.folder.machine.find_map(pid, ip, false).is_some() {
            let at = self.map_ip(pid, false, ip);
            (self.locate(pid, false, ip), '.', at)
        } else if let Some(m) = self.folder.machine.find_map(pid, ip, true) {
            // A module's addresses are relative to its map; the kernel's stay as they are.
            let at = if m.filename.starts_with('[') { ip } else { m.map_ip(ip) };
            (self.locate(pid, true, ip), 'k', at)
        } else {
            (self.locate(pid, false, ip), 'H', ip)
        }
    }

    /// The file perf disassembles for user address `ip` of process `pid` (its map's binary, as
    /// [`perfdata_symbolize::Symbolizer::try_runtime_binary`] finds it, or why none) and `ip`
    /// relative to the map (`map__map_ip`); `None` when no map holds `ip`.
    pub(crate) fn binary_at(
        &mut self,
        pid: u32,
        ip: u64,
    ) -> Option<(perfdata_symbolize::Result<std::rc::Rc<perfdata_symbolize::binary::Binary>>, u64)> {
        let map = self.folder.machine.find_map(pid, ip, false)?;
        let off = map.map_ip(ip);
        Some((self.folder.sym.try_runtime_binary(map), off))
    }

    /// The address perf prints for an unresolved `ip` of process `pid`: relative to its map
    /// (`map__map_ip`) for user addresses and kernel modules in a map, else as it is.
    pub fn map_ip(&self, pid: u32, kernel: bool, ip: u64) -> u64 {
        match self.folder.machine.find_map(pid, ip, kernel) {
            // The kernel's own map is identity; a module's is relative, as a user file's is.
            Some(m) if !kernel || !m.is_kernel() => m.map_ip(ip),
            _ => ip,
        }
    }

    /// The source line `perf report --sort srcline` shows for address `ip` of process `pid`
    /// (`kernel`: a kernel address) in the symbol `symbol` starting at `start` of module `dso`:
    /// `file:line` from the line table when it has one ([`perfdata_symbolize::Symbolizer::srcline`]'s
    /// first record), else the symbol and the address's decimal offset in it (`name+7`), else
    /// the module's short name and the address (`libc.so.6[2b48]`); `??:0` without a map.
    pub(crate) fn report_srcline(
        &mut self,
        pid: u32,
        kernel: bool,
        ip: u64,
        symbol: Option<&str>,
        start: Option<u64>,
        dso: &str,
    ) -> String {
        use perfdata_symbolize::srcline::short_name;
        use perfdata_symbolize::SrcLine;
        let sym = symbol.map(|n| n.split('\0').next().unwrap_or(n)).zip(start);
        if dso == "[unknown]" {
            return "??:0".into();
        }
        if kernel {
            // No line tables for the kernel (perf reads kallsyms).
            return match sym {
                Some((n, st)) => format!("{n}+{}", ip.wrapping_sub(st)),
                None => format!("{}[{ip:x}]", short_name(dso)),
            };
        }
        let folder = &mut self.folder;
        let Some(map) = folder.machine.find_map(pid, ip, false) else { return "??:0".into() };
        let line = folder.sym.srcline(Some(map), ip);
        if let Some(l @ SrcLine::File { .. }) = &line {
            return l.to_string();
        }
        let rel = map.map_ip(ip);
        match sym {
            // `ip - sym->start`, both in the file's terms (a binary's symbols are ELF virtual
            // addresses; a perf map's are absolute).
            Some((n, st)) => {
                let at = if map.identity {
                    rel
                } else {
                    folder.sym.runtime_binary(map).map_or(rel, |b| b.offset_to_vaddr(rel))
                };
                format!("{n}+{}", at.wrapping_sub(st))
            }
            None => match line {
                Some(a @ SrcLine::Address { .. }) => a.to_string(),
                _ => {
                    let addr = if map.identity {
                        rel
                    } else {
                        folder.sym.runtime_binary(map).map_or(rel, |b| b.offset_to_vaddr(rel))
                    };
                    format!("{}[{addr:x}]", short_name(&map.filename))
                }
            },
        }
    }

    /// The source lines `perf report --sort srcline` gives the entries of a callchain's
    /// functions (`chain`, leaf first, of process `pid`), into `out`: for a frame unwound from
    /// the stack dump, the line of its inline list's record (perf appends the list with each
    /// record's `file:line`, the call site for the callers), known from the start (`true`);
    /// else what perf looks up later for the entry's address, which is the callchain's absolute
    /// address and not the map-relative one: `name+offset` from it, `module[address]`, `??:0`.
    pub(crate) fn chain_srclines(&mut self, pid: u32, chain: &[ChainEntry], out: &mut Vec<(String, bool)>) {
        use perfdata_symbolize::srcline::short_name;
        use perfdata_symbolize::{Frame, SrcLine};
        out.clear();
        let mut at = 0;
        while let Some(first) = chain.get(at) {
            let n = chain
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|c| c.addr == first.addr && c.unwound == first.unwound && c.kernel == first.kernel)
                .count()
                .max(1);
            let group = chain.get(at..at + n).unwrap_or_default();
            let mut lines: Vec<SrcLine> = Vec::new();
            let folder = &mut self.folder;
            if let (true, false, Some(last)) = (first.unwound, first.kernel, group.last()) {
                if let (Some(map), Some(_)) = (folder.machine.find_map(pid, first.addr, false), &last.symbol) {
                    let frame =
                        Frame { symbol: last.symbol.clone(), dso: last.dso.clone(), start: last.start, end: last.end };
                    lines = folder.sym.inline_srclines(map, first.addr, &frame).to_vec();
                    if lines.is_empty() {
                        lines.extend(
                            folder.sym.srcline(Some(map), first.addr).filter(|l| matches!(l, SrcLine::File { .. })),
                        );
                    }
                }
            }
            for (k, c) in group.iter().enumerate() {
                let preset = match lines.get(k % lines.len().max(1)) {
                    Some(l @ SrcLine::File { .. }) if !l.is_unknown() => Some(l.to_string()),
                    _ => None,
                };
                let text = preset.clone().unwrap_or_else(|| {
                    let sym = c.symbol.as_deref().map(|n| n.split('\0').next().unwrap_or(n)).zip(c.start);
                    match sym {
                        _ if &*c.dso == "[unknown]" => "??:0".to_string(),
                        Some((name, start)) => format!("{name}+{}", c.addr.wrapping_sub(start)),
                        // perf's `map__rip_2objdump` of the absolute address: plus the file's
                        // `.text` address less its offset ([`Binary::text_offset`](perfdata_symbolize::binary::Binary::text_offset)).
                        None => {
                            let folder = &mut self.folder;
                            let shift = match folder.machine.find_map(pid, c.addr, false) {
                                Some(m) if !c.kernel && !m.identity => {
                                    folder.sym.runtime_binary(m).map_or(0, |b| b.text_offset())
                                }
                                _ => 0,
                            };
                            format!("{}[{:x}]", short_name(&c.dso), c.addr.wrapping_add(shift))
                        }
                    }
                });
                out.push((text, preset.is_some()));
            }
            at += n;
        }
    }

    /// perf's comm of thread `tid` now (`:TID` for a thread nothing named).
    pub fn comm(&self, tid: u32) -> String {
        self.folder.machine.comm(tid)
    }

    /// [`StackFolder::comm`] borrowed, when a record named the thread.
    pub(crate) fn comm_ref(&self, tid: u32) -> Option<&str> {
        self.folder.machine.comm_ref(tid)
    }

    /// Whether a COMM (or a FORK from a named parent) named thread `tid`: else its comm is perf's
    /// `:TID` placeholder, which its first COMM renames in place (perf's `comm_set`).
    pub(crate) fn comm_set(&self, tid: u32) -> bool {
        self.folder.machine.thread(tid).is_some_and(|t| t.comm_set)
    }

    /// Add `weight` to a folded stack.
    pub fn add(&mut self, id: StackId, weight: u64) {
        self.table.add(id.0, weight);
    }

    /// The weighed stacks (stacks folded but never weighed, or weighed 0, are left out).
    pub fn finish(self) -> FoldedStacks {
        let diagnostics = self.jit.diagnostics().to_vec();
        let unnamed = self.folder.sym.unnamed_summary();
        self.table.into_folded(&self.folder.labels, diagnostics, unnamed, false)
    }

    /// What went wrong so far without stopping the fold (a jitdump file missing or damaged), and
    /// the line saying what could not be named, if anything
    /// ([`Symbolizer::unnamed_summary`](perfdata_symbolize::Symbolizer::unnamed_summary)).
    pub fn diagnostics(&self) -> Vec<String> {
        let mut d = self.jit.diagnostics().to_vec();
        d.extend(self.folder.sym.unnamed_summary());
        d
    }
}
