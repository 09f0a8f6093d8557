//! The folding thread's state ([`Folder`]): the threads and maps, the symbolizer, the interned
//! labels, and the cache of resolved frames, keyed by address space, its generation and address.

use perfdata_core::file::PerfFile;
use perfdata_core::process::{Machine, MachineEvent};
use perfdata_core::sample::PERF_CONTEXT_MAX;
use perfdata_symbolize::{FastMap, SrcLine, Symbolizer};

use super::names::{
    annotate, append_srcline, fix_partially_demangled_rust, semicolons_to_colons, tidy_generic_into, tidy_java_pl,
    tidy_java_py,
};
use super::unwind::symbolizer;
use crate::options::{Compat, FoldedOptions, Root, Unknown};

/// Interned frame and root labels.
#[derive(Default)]
pub(super) struct Labels {
    ids: FastMap<String, u32>,
    pub(super) names: Vec<String>,
}

impl Labels {
    /// The id of label `s` (copied only when new).
    pub(super) fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(s.to_owned());
        self.ids.insert(s.to_owned(), i);
        i
    }
}

/// Where the labels of one resolved address sit in [`Folder::seqs`] (several when a name splits
/// into Java inline pieces at `->`), leaf-most first, and its pprof location ([`Sites::site`],
/// `u32::MAX` when not exporting: the front cache's slots grow from 32 to 40 bytes, where a
/// separate site table indexed like `seqs` cost the export a second cache miss per frame).
pub(super) type FrameLabels = (u32, u32, u32);

/// (address space, its generation, kernel frame, java comm, unwound from the stack dump, address).
pub(super) type FrameKey = (u32, u32, bool, bool, bool, u64);

/// Entries of [`Folder::front`] (a power of two): 512 KiB.
const FRONT_SLOTS: usize = 1 << 14;

/// The slot of a frame key in a direct-mapped cache of `slots` entries (a power of two):
/// Fibonacci hashing of address, space, generation, flags and `extra`.
pub(super) fn frame_slot(key: &FrameKey, extra: u8, slots: usize) -> usize {
    let (space, gen, kernel, java, unwound, addr) = *key;
    let mix = addr
        ^ (u64::from(space) << 32)
        ^ (u64::from(gen) << 48)
        ^ u64::from(kernel)
        ^ (u64::from(java) << 1)
        ^ (u64::from(unwound) << 2)
        ^ (u64::from(extra) << 56);
    (mix.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - slots.trailing_zeros())) as usize
}

/// The [`Folder::front`] slot of a frame key.
fn front_slot(key: &FrameKey) -> usize {
    frame_slot(key, 0, FRONT_SLOTS)
}

/// Cached frames before the cache is emptied (orphaned generations accumulate in long
/// system-wide recordings): about 40 bytes each.
const FRAME_CACHE_MAX: usize = 1 << 22;

pub(super) struct Folder<'o> {
    opts: &'o FoldedOptions,
    pub(super) sym: Symbolizer,
    pub(super) machine: Machine,
    pub(super) labels: Labels,
    /// Resolved frames → labels.
    pub(super) frames: FastMap<FrameKey, FrameLabels>,
    /// The generation of each address space's maps (part of [`FrameKey`]): bumped when its maps
    /// change, which orphans its cached frames.
    gens: FastMap<u32, u32>,
    /// `gens` of the kernel's space (`u32::MAX`) and of the current sample's process, looked up
    /// once per sample rather than per frame.
    pub(super) kernel_gen: u32,
    user_gen: u32,
    /// The label sequences of [`Folder::frames`], leaf-most first.
    seqs: Vec<u32>,
    /// A direct-mapped cache in front of [`Folder::frames`]: that map has an entry per distinct
    /// address and generation, far larger than the CPU caches, while most samples hit a few
    /// thousand hot addresses.
    front: Vec<Option<(FrameKey, FrameLabels)>>,
    /// (pid, tid) → (root label, the thread's comm, comm starts with `java`).
    roots: FastMap<(u32, u32), (u32, std::rc::Rc<str>, bool)>,
    /// Scratch for [`Folder::resolve`], and the empty inline/source-line lists it hands out
    /// (an empty `Rc<[T]>` is still an allocation; unknown and garbage addresses make most misses).
    scratch: Vec<u32>,
    /// Scratch for a label being made ([`Folder::named_frame`]).
    label: String,
    no_inlines: std::rc::Rc<[perfdata_symbolize::InlineFrame]>,
    no_lines: std::rc::Rc<[SrcLine]>,
    /// The pprof export's locations, when it folds ([`fold_sites`]).
    pub(super) sites: Option<SiteStack<'o>>,
}

/// A resolved frame as the pprof export sees it ([`Sites::site`]).
#[cfg_attr(not(feature = "pprof"), allow(dead_code))] // (the pprof export's)
pub(crate) struct FrameSite<'a> {
    /// A kernel address.
    pub kernel: bool,
    /// The runtime address.
    pub addr: u64,
    /// The map holding it (a kernel module's or the kernel image's for kernel addresses).
    pub map: Option<&'a perfdata_core::process::Map>,
    /// perf's dso name of the frame (`[kernel.kallsyms]`, a path, `[unknown]`).
    pub dso: &'a str,
    /// Its labels, leaf-most (innermost inline frame) first: indices in `names`.
    pub labels: &'a [u32],
    /// Every label so far, as `perfdata folded` writes them.
    pub names: &'a [String],
}

/// Where resolved frames become pprof locations: [`Sites::site`] is called once per frame
/// [`Folder`] resolves (each distinct address, address-space generation and formatting context)
/// and returns the location id samples then refer to.
pub(crate) trait Sites {
    fn site(&mut self, frame: FrameSite<'_>) -> u32;
}

/// The location of each resolved frame, and the current sample's locations, leaf first.
pub(super) struct SiteStack<'o> {
    pub(super) sites: &'o mut dyn Sites,
    pub(super) stack: Vec<u32>,
    /// The comm of the current sample's thread.
    pub(super) comm: std::rc::Rc<str>,
}

impl Folder<'_> {
    /// The root label of a thread, its comm, and whether that starts with `java`.
    fn root(&mut self, pid: u32, tid: u32) -> (u32, std::rc::Rc<str>, bool) {
        if let Some((id, comm, java)) = self.roots.get(&(pid, tid)) {
            return (*id, comm.clone(), *java);
        }
        let comm = self.machine.comm(tid);
        let mut label = comm.replace(' ', "_");
        match self.opts.root {
            Root::CommPid => label.push_str(&format!("-{pid}")),
            Root::CommPidTid => label.push_str(&format!("-{pid}/{tid}")),
            Root::Comm | Root::None => {}
        }
        let id = self.labels.id(&label);
        let java = comm.starts_with("java");
        let comm: std::rc::Rc<str> = comm.into();
        self.roots.insert((pid, tid), (id, comm.clone(), java));
        (id, comm, java)
    }

    /// Push the labels of one frame onto `stack` (built leaf first).
    /// `unwound`: the frame comes from unwinding the user stack dump (`--call-graph dwarf`), the
    /// only frames perf 6.1 adds inline frames to (`unwind_entry`; `add_callchain_ip` does not).
    fn frame(&mut self, pid: u32, kernel: bool, unwound: bool, addr: u64, comm_is_java: bool, stack: &mut Vec<u32>) {
        let space = if kernel { u32::MAX } else { pid };
        let gen = if kernel { self.kernel_gen } else { self.user_gen };
        let key = (space, gen, kernel, comm_is_java, unwound, addr);
        let slot = front_slot(&key);
        let (at, n, site) = match self.front.get(slot) {
            Some(Some((k, l))) if *k == key => *l,
            _ => {
                let l = match self.frames.get(&key) {
                    Some(&l) => l,
                    None => self.resolve(key, pid),
                };
                if let Some(e) = self.front.get_mut(slot) {
                    *e = Some((key, l));
                }
                l
            }
        };
        let (at, n) = (at as usize, n as usize);
        if let Some(s) = self.sites.as_mut() {
            if n > 0 {
                s.stack.push(site);
            }
        }
        // Most frames are one label: a push, not a memcpy call.
        if n == 1 {
            stack.extend(self.seqs.get(at).copied());
        } else {
            stack.extend_from_slice(self.seqs.get(at..at.saturating_add(n)).unwrap_or(&[]));
        }
    }

    /// Orphan the cached frames of an address space (`u32::MAX`: the kernel's).
    fn bump_gen(&mut self, space: u32) {
        let g = self.gens.entry(space).or_insert(0);
        *g = g.wrapping_add(1);
        let g = *g;
        if space == u32::MAX {
            self.kernel_gen = g;
        }
    }

    /// The generation of `pid`'s address space, for the frames of its next sample.
    pub(super) fn enter_process(&mut self, pid: u32) {
        self.user_gen = self.gens.get(&pid).copied().unwrap_or(0);
    }

    /// The generation of the kernel's space or of the current sample's process.
    pub(super) fn generation(&self, kernel: bool) -> u32 {
        if kernel {
            self.kernel_gen
        } else {
            self.user_gen
        }
    }

    /// The options frames are formatted with.
    pub(super) fn opts(&self) -> &FoldedOptions {
        self.opts
    }

    /// If perf loaded the kernel's or a module's symbols since the symbolizer's kernel generation
    /// was `before`, forget the kernel frames resolved so far: they may resolve differently now.
    pub(super) fn kernel_symbols_changed(&mut self, before: u64) {
        if self.sym.kernel_generation() != before {
            self.bump_gen(u32::MAX);
        }
    }

    /// Format a frame that has a name (pieces at Java's `->` first to last, the way the collapser
    /// pushes them); `dso`: its module, `None` for a frame perf prints `(inlined)` instead;
    /// `line`: the source line to append ([`FoldedOptions::srcline`]).
    fn named_frame(
        &mut self,
        n: &str,
        dso: Option<&str>,
        line: Option<&SrcLine>,
        comm_is_java: bool,
        out: &mut Vec<u32>,
    ) {
        let o = self.opts;
        let pl = o.compat == Compat::StackcollapsePl;
        if pl && n.starts_with('(') {
            return;
        }
        // perf script prints names as C strings: a kallsyms module symbol's `\0[module]` tail
        // shows only through perf's Python binding (stackcollapse.py).
        let n = if pl { n.split('\0').next().unwrap_or(n) } else { n };
        let fixed = if pl { fix_partially_demangled_rust(n) } else { None };
        let n = fixed.as_deref().unwrap_or(n);
        // One buffer for every label made here: a label is copied only when it is new (most
        // addresses resolve to a function some other address already named).
        let mut s = std::mem::take(&mut self.label);
        let (mut java_pieces, mut whole) = (n.split("->"), std::iter::once(n));
        let pieces: &mut dyn Iterator<Item = &str> = if pl { &mut java_pieces } else { &mut whole };
        for (i, piece) in pieces.enumerate() {
            if o.tidy_generic {
                tidy_generic_into(piece, &mut s);
            } else {
                semicolons_to_colons(piece, &mut s);
            }
            if o.tidy_java {
                s = if pl { tidy_java_pl(s, comm_is_java) } else { tidy_java_py(&s) };
            }
            // Java's inlined pieces after `->` are always marked (by inferno, unless already).
            let inlined = match dso {
                _ if i > 0 => true,
                Some(dso) => {
                    annotate(o, pl, dso, &mut s);
                    false
                }
                None => o.annotate_inline,
            };
            if inlined && !s.contains("_[i]") {
                s.push_str("_[i]");
            }
            if i == 0 {
                append_srcline(&mut s, line);
            }
            out.push(self.labels.id(&s));
        }
        self.label = s;
    }

    /// Symbolize and format one frame, cache its labels.
    fn resolve(&mut self, key: FrameKey, pid: u32) -> FrameLabels {
        let (_, _, kernel, comm_is_java, unwound, addr) = key;
        let o = self.opts;
        let pl = o.compat == Compat::StackcollapsePl;
        // perf script prints a user frame's address relative to its map, a kernel-mode one as it is.
        let (f, pc, map) = if kernel {
            let generation = self.sym.kernel_generation();
            let f = self.sym.resolve_kernel(&self.machine, addr);
            self.kernel_symbols_changed(generation);
            (f, addr, None)
        } else {
            let map = self.machine.find_map(pid, addr, false);
            (self.sym.resolve_in(pid, map, addr), map.map_or(addr, |m| m.map_ip(addr)), map)
        };
        let dso: &str = &f.dso;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let inlines = match (o.inline && unwound, map) {
            (true, Some(m)) => self.sym.inlines(m, addr, &f),
            _ => self.no_inlines.clone(),
        };
        // The source line perf prints under the frame, or under each frame of its inline list.
        let (line, inline_lines) = match map {
            Some(m) if o.srcline && !inlines.is_empty() => (None, self.sym.inline_srclines(m, addr, &f)),
            _ if o.srcline => (self.sym.srcline(map, addr), self.no_lines.clone()),
            _ => (None, self.no_lines.clone()),
        };
        match f.symbol.as_deref() {
            // perf script prints the inline list in place of the frame, innermost first.
            Some(_) if !inlines.is_empty() => {
                for (k, i) in inlines.iter().enumerate().rev() {
                    let dso = if i.inlined { None } else { Some(dso) };
                    self.named_frame(&i.name, dso, inline_lines.get(k), comm_is_java, &mut out);
                }
            }
            Some(n) => self.named_frame(n, Some(dso), line.as_ref(), comm_is_java, &mut out),
            None => {
                let module = if dso == "[unknown]" { None } else { Some(dso.rsplit('/').next().unwrap_or(dso)) };
                let mut s = match (o.unknown, module) {
                    (Unknown::Unknown, _) | (Unknown::Module, None) => "[unknown]".to_string(),
                    (Unknown::Module, Some(m)) => format!("[{m}]"),
                    (Unknown::Address, m) => format!("[{} <{pc:x}>]", m.unwrap_or("unknown")),
                };
                if o.tidy_generic {
                    // Into the label buffer, which keeps `s`'s allocation for the next one (the
                    // path of most unknown and garbage addresses).
                    let mut tidy = std::mem::take(&mut self.label);
                    tidy_generic_into(&s, &mut tidy);
                    self.label = std::mem::replace(&mut s, tidy);
                }
                annotate(o, pl, dso, &mut s);
                append_srcline(&mut s, line.as_ref());
                out.push(self.labels.id(&s));
            }
        }
        if self.frames.len() >= FRAME_CACHE_MAX {
            self.frames.clear();
            self.front.fill(None);
            // Only cached frames refer to the sequences.
            self.seqs.clear();
        }
        let at = u32::try_from(self.seqs.len()).unwrap_or(u32::MAX);
        self.seqs.extend(out.iter().rev());
        let site = match self.sites.as_mut() {
            Some(s) if !out.is_empty() => {
                let map = self.machine.find_map(pid, addr, kernel);
                let labels = self.seqs.get(at as usize..).unwrap_or(&[]);
                s.sites.site(FrameSite { kernel, addr, map, dso, labels, names: &self.labels.names })
            }
            _ => u32::MAX,
        };
        let labels = (at, u32::try_from(out.len()).unwrap_or(0), site);
        self.frames.insert(key, labels);
        self.scratch = out;
        labels
    }
}

impl<'o> Folder<'o> {
    pub(super) fn new(file: &PerfFile, opts: &'o FoldedOptions) -> Folder<'o> {
        Folder {
            opts,
            sym: symbolizer(file, opts),
            machine: Machine::new(),
            labels: Labels::default(),
            frames: FastMap::default(),
            seqs: Vec::new(),
            front: vec![None; FRONT_SLOTS],
            gens: FastMap::default(),
            kernel_gen: 0,
            user_gen: 0,
            roots: FastMap::default(),
            scratch: Vec::new(),
            label: String::new(),
            no_inlines: std::rc::Rc::from(Vec::new()),
            no_lines: std::rc::Rc::from(Vec::new()),
            sites: None,
        }
    }

    /// The kernel's symbols, unless no event samples the kernel.
    pub(super) fn preload_kernel(&mut self, file: &PerfFile) {
        if file.events().iter().any(|e| !e.attr.exclude_kernel()) {
            self.sym.load_kernel_symbols();
        }
    }

    /// Apply a thread/map change, forgetting what it makes stale.
    pub(super) fn machine_event(&mut self, e: MachineEvent) {
        invalidate(self, &e);
        self.machine.apply(e);
    }

    /// Fold one sample of thread `pid`/`tid` into `stack` (labels, root first). `kernel`: the
    /// sample's cpumode is kernel; `ip`: its ip; `chain`: its callchain (with context markers)
    /// and the user frames unwound from its stack dump. `printed`: perf script has printed a
    /// sample before this one. False when the tool drops the sample.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fold_sample(
        &mut self,
        pid: u32,
        tid: u32,
        kernel: bool,
        ip: Option<u64>,
        chain: Option<(&[u64], &[u64])>,
        printed: &mut bool,
        stack: &mut Vec<u32>,
    ) -> bool {
        let opts = self.opts;
        let pl = opts.compat == Compat::StackcollapsePl;
        let (root, comm, java) = self.root(pid, tid);
        self.enter_process(pid);
        // perf resolves the sample's ip first (`machine__resolve`): in the kernel, that
        // lookup may be the one that loads the kernel's or a module's symbols.
        if let (true, Some(ip)) = (kernel, ip) {
            stack.clear();
            self.frame(pid, true, false, ip, java, stack);
        }
        if opts.comm.as_ref().is_some_and(|c| **c != *comm) {
            return false;
        }
        stack.clear();
        if let Some(s) = self.sites.as_mut() {
            s.stack.clear();
            s.comm = comm.clone();
        }
        if let Some((ips, unwound)) = chain {
            let (ips, unwound) = cut_to_max_stack(ips, unwound, opts.max_stack);
            let complete =
                walk_chain(ips.iter().copied(), kernel, |kernel, ip| self.frame(pid, kernel, false, ip, java, stack));
            if complete {
                for &ip in unwound {
                    self.frame(pid, false, true, ip, java, stack);
                }
            } else {
                stack.clear();
                if let Some(s) = self.sites.as_mut() {
                    s.stack.clear();
                }
            }
        }
        // perf script prints the sample now, and printing its first one loads the
        // kernel's symbols ([`Symbolizer::sample_printed`]).
        if pl && !*printed {
            *printed = true;
            let generation = self.sym.kernel_generation();
            self.sym.sample_printed(&self.machine);
            self.kernel_symbols_changed(generation);
        }
        // A sample without a callchain: stackcollapse-perf.pl drops it (perf script
        // prints it on one line, never ended by a blank one; inferno-collapse-perf
        // instead takes that line's frame); perf 6.1 hands stackcollapse.py an empty
        // callchain, so it counts under its comm alone.
        if chain.is_none() && pl {
            return false;
        }
        // An empty stack (a callchain without frames, or every frame dropped): perf script prints
        // the sample line and a blank line, and stackcollapse-perf.pl stores the process name
        // alone (`comm COUNT`), as stackcollapse.py counts the sample under its comm; without
        // the process frame there is nothing to store.
        if stack.is_empty() && opts.root == Root::None {
            return false;
        }
        if opts.root != Root::None {
            stack.push(root);
        }
        stack.reverse();
        true
    }
}

/// One entry of a callchain as `perf report` resolves it ([`StackFolder::chain`](super::StackFolder::chain)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainEntry {
    /// The module's path as perf names it (`[kernel.kallsyms]`; `[unknown]`: no map covers the
    /// address).
    pub dso: std::rc::Rc<str>,
    /// The demangled symbol (an inlined function's name when [`ChainEntry::inlined`]), `None`
    /// when unresolved.
    pub symbol: Option<std::rc::Rc<str>>,
    /// A function inlined at this address (perf prints `name (inlined)`).
    pub inlined: bool,
    /// Resolved in the kernel's address space.
    pub kernel: bool,
    /// A user frame unwound from the sample's stack dump (`--call-graph dwarf`), not an address
    /// of its recorded callchain.
    pub unwound: bool,
    /// The callchain's address, as perf prints an unresolved callchain entry (not map-relative).
    pub addr: u64,
    /// The first address of the symbol holding the address ([`perfdata_symbolize::Frame::start`]),
    /// also for an inlined function: perf gives each inlined frame a symbol of its own spanning
    /// that symbol's addresses, so `perf report` tells the same inlined function in different
    /// functions apart.
    pub start: Option<u64>,
    /// One past the last address of that symbol ([`perfdata_symbolize::Frame::end`]).
    pub end: Option<u64>,
}

impl Folder<'_> {
    /// Resolve one callchain address into [`ChainEntry`]s (more than one when functions are
    /// inlined at an unwound user frame).
    pub(super) fn chain_entry(&mut self, pid: u32, kernel: bool, unwound: bool, addr: u64, out: &mut Vec<ChainEntry>) {
        let (f, map) = if kernel {
            let generation = self.sym.kernel_generation();
            let f = self.sym.resolve_kernel(&self.machine, addr);
            self.kernel_symbols_changed(generation);
            (f, None)
        } else {
            let map = self.machine.find_map(pid, addr, false);
            (self.sym.resolve(map, addr), map)
        };
        let inlines = match (self.opts.inline && unwound, map) {
            (true, Some(m)) if f.symbol.is_some() => self.sym.inlines(m, addr, &f),
            _ => self.no_inlines.clone(),
        };
        if inlines.is_empty() {
            out.push(ChainEntry {
                dso: f.dso,
                symbol: f.symbol,
                inlined: false,
                kernel,
                unwound,
                addr,
                start: f.start,
                end: f.end,
            });
            return;
        }
        for i in inlines.iter() {
            let symbol = Some(i.name.clone());
            out.push(ChainEntry {
                dso: f.dso.clone(),
                symbol,
                inlined: i.inlined,
                kernel,
                unwound,
                addr,
                start: f.start,
                end: f.end,
            });
        }
    }
}

/// A callchain and its unwound user frames as perf keeps them with `--max-stack max`: `max`
/// addresses of the callchain (its context markers do not count) and `max` unwound frames
/// (`thread__resolve_callchain` applies the limit to each).
pub(super) fn cut_to_max_stack<'a>(chain: &'a [u64], unwound: &'a [u64], max: usize) -> (&'a [u64], &'a [u64]) {
    let mut n = 0usize;
    let end = chain
        .iter()
        .position(|&ip| {
            if ip < PERF_CONTEXT_MAX {
                n += 1;
            }
            n > max
        })
        .unwrap_or(chain.len());
    (chain.get(..end).unwrap_or(chain), unwound.get(..max.min(unwound.len())).unwrap_or(unwound))
}

/// Call `frame(kernel, ip)` for each address of a callchain, leaf first, tracking the
/// `PERF_CONTEXT_*` markers; `kernel` is where the chain starts (the sample's cpumode). False when
/// the chain holds a marker perf 6.1 does not know: perf then takes the chain for corrupted and
/// drops all of it (`thread__resolve_callchain_sample`).
pub(super) fn walk_chain(chain: impl Iterator<Item = u64>, mut kernel: bool, mut frame: impl FnMut(bool, u64)) -> bool {
    for ip in chain {
        if ip < PERF_CONTEXT_MAX {
            frame(kernel, ip);
            continue;
        }
        match ip as i64 {
            // PERF_CONTEXT_KERNEL and GUEST_KERNEL.
            -128 | -2176 => kernel = true,
            // HV, USER, GUEST, GUEST_USER.
            -32 | -512 | -2048 | -2560 => kernel = false,
            _ => return false,
        }
    }
    true
}

/// Forget the resolved frames of an address space whose maps or program change.
fn invalidate(f: &mut Folder, event: &MachineEvent) {
    let space = match event {
        MachineEvent::Map { pid, .. } => *pid,
        MachineEvent::KernelMap { .. } => u32::MAX,
        MachineEvent::Comm { pid, tid, exec, .. } => {
            f.roots.retain(|(_, t), _| t != tid);
            if !exec {
                return;
            }
            *pid
        }
        MachineEvent::Fork { pid, tid, .. } => {
            f.roots.retain(|(_, t), _| t != tid);
            *pid
        }
        MachineEvent::Exit { .. } => return,
    };
    f.bump_gen(space);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callchain_contexts_like_perf() {
        let walk = |chain: &[i64]| {
            let mut out = Vec::new();
            let ok = walk_chain(chain.iter().map(|&i| i as u64), false, |k, ip| out.push((k, ip)));
            (ok, out)
        };
        assert_eq!(walk(&[-128, 1, 2, -512, 3]), (true, vec![(true, 1), (true, 2), (false, 3)]));
        assert_eq!(walk(&[-2176, 1, -2560, 2, -32, 3]), (true, vec![(true, 1), (false, 2), (false, 3)]));
        // -1 is ≥ PERF_CONTEXT_MAX but no context: the whole chain is dropped.
        assert!(!walk(&[-512, 0x7f00, -1, 0x5500]).0);
    }
}
