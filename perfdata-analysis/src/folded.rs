//! Folded stacks (`comm;root;…;leaf WEIGHT`), as `perf script | stackcollapse-perf.pl` (or
//! `inferno-collapse-perf`) and `perf script report stackcollapse` print them, computed in-process:
//! samples in time order, threads and maps from [`Machine`], symbols from [`Symbolizer`].
//! Semantics: analysis-semantics.md §1.
//!
//! ```no_run
//! use perfdata_analysis::folded::{folded, FoldedOptions};
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let stacks = folded(&file, &FoldedOptions::default())?;
//! print!("{}", stacks.to_folded_string());
//! # Ok::<(), perfdata_core::Error>(())
//! ```
//!
//! Each distinct (address space, address) is symbolized and formatted once; a sample then costs a
//! lookup per frame and one hash of its frame ids.

use std::collections::{BTreeMap, HashMap};

use perfdata_core::attr::EventType;
use perfdata_core::feature::BuildId;
use perfdata_core::file::PerfFile;
use perfdata_core::process::{Machine, MachineEvent};
use perfdata_core::record::{CpuMode, Record, RecordKind};
use perfdata_core::records::Order;
use perfdata_core::sample::{Sample, PERF_CONTEXT_MAX};
use perfdata_core::Result;
use perfdata_symbolize::jit::JitInjector;
use perfdata_symbolize::unwind::{Arch, ModuleCache, ProcessSpace, UnwindOptions, Unwinder};
use perfdata_symbolize::{SrcLine, SymbolizeOptions, Symbolizer};

/// Which tool's output to reproduce; [`FoldedOptions::compat`] gives its default options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    /// `perf script | stackcollapse-perf.pl` (and `inferno-collapse-perf`, except for the quirks
    /// listed in analysis-semantics.md §1.2): period weights, `[module]` for unresolved frames,
    /// generic name tidying, the first event only, frames starting with `(` skipped, samples
    /// without a callchain dropped, tracepoint samples weighted 1 and never filtered.
    #[default]
    StackcollapsePl,
    /// `perf script report stackcollapse`: sample counts, `[unknown]`, every event, no tidying.
    PerfScriptPy,
}

/// What a stack adds to its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// 1 per sample.
    Samples,
    /// The sample's period (the attr's period when the sample has none).
    Period,
}

/// The first frame of every stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// No process frame (stackcollapse.py `--no-comm`).
    None,
    /// `comm`.
    Comm,
    /// `comm-PID`.
    CommPid,
    /// `comm-PID/TID`.
    CommPidTid,
}

/// How a frame without a symbol is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// `[basename of the module]`, `[unknown]` without one.
    Module,
    /// `[unknown]`.
    Unknown,
    /// `[module <ADDR>]` / `[unknown <ADDR>]` (stackcollapse-perf.pl `--addrs`).
    Address,
}

/// Which events' samples are folded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventFilter {
    /// The event of the first sample (stackcollapse-perf.pl's default).
    FirstSeen,
    /// The event with this name (as perf names it, e.g. `cpu-clock` or `cycles:u`).
    Name(String),
    /// Every event.
    All,
}

/// Options of [`folded`]; `Default` is [`Compat::StackcollapsePl`]'s.
#[derive(Clone, Debug)]
pub struct FoldedOptions {
    /// The tool whose quirks are reproduced where no option below says otherwise.
    pub compat: Compat,
    /// Weight per sample.
    pub weight: Weight,
    /// The process frame.
    pub root: Root,
    /// Frames without a symbol.
    pub unknown: Unknown,
    /// Which events.
    pub event_filter: EventFilter,
    /// Cut argument lists and turn `;` into `:` like inferno's `tidy_generic`.
    pub tidy_generic: bool,
    /// Java names tidied (stackcollapse-perf.pl for comms starting with `java`; stackcollapse.py
    /// `--tidy-java` for every frame).
    pub tidy_java: bool,
    /// Append `_[k]` to kernel frames.
    pub annotate_kernel: bool,
    /// Append `_[j]` to frames in JIT maps (`/tmp/perf-PID.map`, `jitted-*.so`).
    pub annotate_jit: bool,
    /// Inline frames from the binaries' DWARF, as perf script adds them by default (on in both
    /// presets, as perf's `--inline`; off: `--no-inline`): a user frame unwound from the stack dump (`--call-graph dwarf`; perf
    /// 6.1 adds none to `-g` callchains) whose address lies in inlined code becomes the chain of
    /// functions `addr2line -i -f` reports there, and a function's DWARF name replaces its
    /// symbol-table name when the two differ (see [`perfdata_symbolize::inline`]).
    pub inline: bool,
    /// Append `_[i]` to the frames perf marks `(inlined)` (with [`FoldedOptions::inline`];
    /// neither collapser does: perf script prints no module for them).
    pub annotate_inline: bool,
    /// Source lines: `perf script -F +srcline | stackcollapse-perf.pl --srcline`. Each frame for
    /// which perf prints a source line ([`Symbolizer::srcline`], and for the frames of an inline
    /// list [`Symbolizer::inline_srclines`]) becomes `name:file:line`: the line with
    /// its `[…]` parts removed (`taskset[2b48]` → `taskset`, `[kernel.kallsyms][…]` → nothing
    /// appended), as the script reads it. Where the script misreads perf's text we give what it
    /// means: an inlined frame (`file:line (inlined)` under a frame line without module, which
    /// the script takes for a frame) is `name:file:line` like the others; a frame perf prints no
    /// line for (`??:0`) keeps its name (the script would take the next frame's line for it);
    /// a Java `a->b` name gets the line on its first part only.
    pub srcline: bool,
    /// Unwind `--call-graph dwarf` stacks with each binary's own CFI wherever it is (`.eh_frame`
    /// without an `.eh_frame_hdr`, `.debug_frame`, the binary's own load bias) instead of
    /// following perf 6.1's libunwind lookup rules: as perfparser (elfutils) unwinds. A static
    /// binary without `.eh_frame_hdr` then unwinds past its leaf frame, where perf stops.
    pub plain_unwind: bool,
    /// Where to find symbols.
    pub symbolize: SymbolizeOptions,
    /// Only samples of this process.
    pub pid: Option<u32>,
    /// Only samples of this thread.
    pub tid: Option<u32>,
    /// Only samples whose comm is this.
    pub comm: Option<String>,
    /// Only samples in these time ranges (perf script's `--time`; percentages are resolved against
    /// the recording's SAMPLE_TIME feature).
    pub time: Option<crate::options::TimeRanges>,
}

impl Default for FoldedOptions {
    fn default() -> Self {
        Self::compat(Compat::StackcollapsePl)
    }
}

impl FoldedOptions {
    /// The default options of `compat`'s tool.
    pub fn compat(compat: Compat) -> Self {
        let pl = compat == Compat::StackcollapsePl;
        FoldedOptions {
            compat,
            weight: if pl { Weight::Period } else { Weight::Samples },
            root: Root::Comm,
            unknown: if pl { Unknown::Module } else { Unknown::Unknown },
            event_filter: if pl { EventFilter::FirstSeen } else { EventFilter::All },
            tidy_generic: pl,
            tidy_java: pl,
            annotate_kernel: false,
            annotate_jit: false,
            inline: true,
            annotate_inline: false,
            srcline: false,
            plain_unwind: false,
            symbolize: SymbolizeOptions::default(),
            pid: None,
            tid: None,
            comm: None,
            time: None,
        }
    }
}

/// Stack → weight, ordered by the stack text (byte order, like the tools' sort).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldedStacks {
    /// Joined stack (`comm;root;…;leaf`) → weight.
    pub stacks: BTreeMap<String, u64>,
    /// What went wrong on the way without stopping it (a jitdump file missing or damaged, …).
    pub diagnostics: Vec<String>,
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
fn symbolizer(file: &PerfFile, opts: &FoldedOptions) -> Symbolizer {
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

/// inferno's `tidy_generic` of `name`, into `out` (emptied first): `;` → `:`, and the argument
/// list cut at the first `(` at bracket depth 0 that does not open a Go method (`pkg.(*T).m`) or
/// `(anonymous namespace)`.
fn tidy_generic_into(name: &str, out: &mut String) {
    // `;` becomes `:`, which changes no position the scan looks at.
    let mut depth = 0i64;
    let mut after_dot = None;
    let mut end = name.len();
    // Bytes, not chars: every byte looked at is ASCII, which no byte of a longer UTF-8 sequence is.
    for (i, &c) in name.as_bytes().iter().enumerate() {
        match c {
            b'<' | b'{' | b'[' => depth += 1,
            b'>' | b'}' | b']' | b')' => depth -= 1,
            b'(' => {
                let anonymous = name.as_bytes().get(i..).is_some_and(|r| r.starts_with(b"(anonymous namespace)"));
                if depth == 0 && after_dot != Some(i) && !anonymous {
                    end = i;
                    break;
                }
                depth += 1;
            }
            b'.' => after_dot = Some(i + 1),
            _ => {}
        }
    }
    semicolons_to_colons(name.get(..end).unwrap_or(name), out);
}

/// `name` with each `;` (the folded format's separator) written as `:`, into `out` (emptied first).
fn semicolons_to_colons(name: &str, out: &mut String) {
    out.clear();
    // Rare: a name with a `;` pays for a copy.
    if name.as_bytes().contains(&b';') {
        out.push_str(&name.replace(';', ":"));
    } else {
        out.push_str(name);
    }
}

/// inferno's `fix_partially_demangled_rust_symbol`: a name still ending in a legacy Rust hash
/// (`…17h0123456789abcdefE` demangled only halfway, e.g. `_$LT$T$u20$as$u20$Tr$GT$::f::h0123…`).
fn fix_partially_demangled_rust(name: &str) -> Option<String> {
    let cut = name.len().checked_sub(17)?;
    let digits = name.get(cut..)?.strip_prefix('h')?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut rest = name.get(..cut)?;
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = rest.get(1..)?;
    }
    const CODES: &[(&str, &str)] = &[
        ("$SP$", "@"),
        ("$BP$", "*"),
        ("$RF$", "&"),
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$C$", ","),
        ("$u7e$", "~"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u3d$", "="),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u21$", "!"),
        ("$u22$", "\""),
    ];
    let mut out = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            out.push('.');
            rest = r;
        } else if rest.starts_with('$') {
            match CODES.iter().find_map(|(code, s)| Some((rest.strip_prefix(code)?, s))) {
                Some((r, s)) => {
                    out.push_str(s);
                    rest = r;
                }
                None => {
                    out.push_str(rest);
                    break;
                }
            }
        } else {
            let (word, r) = rest.split_at(rest.find(['$', '.']).unwrap_or(rest.len()));
            out.push_str(word);
            rest = r;
        }
    }
    Some(out)
}

/// inferno's `is_kernel` on perf script's module column.
fn is_kernel_module(dso: &str) -> bool {
    let base = dso.rsplit('/').next().unwrap_or(dso);
    (dso.starts_with('[') || dso.ends_with(".ko") || base.starts_with("vmlinux")) && dso != "[unknown]"
}

fn is_jit_module(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map")) || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// Interned frame and root labels.
#[derive(Default)]
struct Labels {
    ids: FastMap<String, u32>,
    names: Vec<String>,
}

impl Labels {
    /// The id of label `s` (copied only when new).
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(s.to_owned());
        self.ids.insert(s.to_owned(), i);
        i
    }
}

use perfdata_symbolize::FastMap;

/// Where the labels of one resolved address sit in [`Folder::seqs`] (several when a name splits
/// into Java inline pieces at `->`), leaf-most first, and its pprof location ([`Sites::site`],
/// `u32::MAX` when not exporting: the front cache's slots grow from 32 to 40 bytes, where a
/// separate site table indexed like `seqs` cost the export a second cache miss per frame).
type FrameLabels = (u32, u32, u32);

/// (address space, its generation, kernel frame, java comm, unwound from the stack dump, address).
type FrameKey = (u32, u32, bool, bool, bool, u64);

/// Entries of [`Folder::front`] (a power of two): 512 KiB.
const FRONT_SLOTS: usize = 1 << 14;

/// The [`Folder::front`] slot of a frame key (Fibonacci hashing of address, space and generation).
fn front_slot(key: &FrameKey) -> usize {
    let (space, gen, kernel, java, unwound, addr) = *key;
    let mix = addr
        ^ (u64::from(space) << 32)
        ^ (u64::from(gen) << 48)
        ^ u64::from(kernel)
        ^ (u64::from(java) << 1)
        ^ (u64::from(unwound) << 2);
    (mix.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FRONT_SLOTS.trailing_zeros())) as usize
}

/// Cached frames before the cache is emptied (orphaned generations accumulate in long
/// system-wide recordings): about 40 bytes each.
const FRAME_CACHE_MAX: usize = 1 << 22;

struct Folder<'o> {
    opts: &'o FoldedOptions,
    sym: Symbolizer,
    machine: Machine,
    labels: Labels,
    /// Resolved frames → labels.
    frames: FastMap<FrameKey, FrameLabels>,
    /// The generation of each address space's maps (part of [`FrameKey`]): bumped when its maps
    /// change, which orphans its cached frames.
    gens: FastMap<u32, u32>,
    /// `gens` of the kernel's space (`u32::MAX`) and of the current sample's process, looked up
    /// once per sample rather than per frame.
    kernel_gen: u32,
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
    sites: Option<SiteStack<'o>>,
}

/// A resolved frame as the pprof export sees it ([`Sites::site`]).
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
struct SiteStack<'o> {
    sites: &'o mut dyn Sites,
    stack: Vec<u32>,
    /// The comm of the current sample's thread.
    comm: std::rc::Rc<str>,
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
    fn enter_process(&mut self, pid: u32) {
        self.user_gen = self.gens.get(&pid).copied().unwrap_or(0);
    }

    /// If perf loaded the kernel's or a module's symbols since the symbolizer's kernel generation
    /// was `before`, forget the kernel frames resolved so far: they may resolve differently now.
    fn kernel_symbols_changed(&mut self, before: u64) {
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

/// stackcollapse-perf.pl `--srcline`: the source line perf printed under a frame, without its
/// `[…]` parts (each `[` to the next `]`) and surrounding blanks, appended after a `:` unless
/// nothing is left of it.
fn append_srcline(s: &mut String, line: Option<&SrcLine>) {
    let Some(line) = line else { return };
    let text = line.to_string();
    let mut kept = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some((before, after)) = rest.split_once('[') {
        let Some((_, next)) = after.split_once(']') else { break };
        kept.push_str(before);
        rest = next;
    }
    kept.push_str(rest);
    let kept = kept.trim();
    if !kept.is_empty() {
        s.push(':');
        s.push_str(kept);
    }
}

/// `_[k]` / `_[j]` as the compat tool decides them.
fn annotate(o: &FoldedOptions, pl: bool, dso: &str, s: &mut String) {
    if o.annotate_kernel && (if pl { is_kernel_module(dso) } else { dso == "[kernel.kallsyms]" }) {
        s.push_str("_[k]");
    } else if o.annotate_jit && is_jit_module(dso) && !s.contains("_[j]") {
        s.push_str("_[j]");
    }
}

/// stackcollapse-perf.pl / inferno `tidy_java` (only for comms starting with `java`).
fn tidy_java_pl(mut s: String, comm_is_java: bool) -> String {
    if comm_is_java && s.starts_with('L') && s.contains('/') {
        s.remove(0);
    }
    s
}

/// stackcollapse.py `--tidy-java`: `<>` removed, a leading `L` stripped, cut at `(`.
fn tidy_java_py(s: &str) -> String {
    let s: String = s.chars().filter(|c| *c != '<' && *c != '>').collect();
    let s = s.strip_prefix('L').unwrap_or(&s);
    s.split('(').next().unwrap_or(s).to_string()
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
struct DwarfUnwind {
    unwinder: Unwinder,
    machine: Machine,
    sym: Symbolizer,
    modules: ModuleCache,
}

impl DwarfUnwind {
    /// An unwinder with its own threads, maps and binaries, when `file` samples stack dumps.
    fn for_file(file: &PerfFile, opts: &FoldedOptions) -> Option<DwarfUnwind> {
        dwarf_unwinder(file, opts).map(|unwinder| DwarfUnwind {
            unwinder,
            machine: Machine::new(),
            sym: symbolizer(file, opts),
            modules: ModuleCache::default(),
        })
    }

    /// The user frames perf appends after a sample's kernel callchain when it unwinds the stack
    /// dump (leaf first; callers' return addresses less one).
    fn user_frames(&mut self, s: &Sample, pid: u32, out: &mut Vec<u64>) {
        let (Some(regs), Some(stack)) = (s.regs_user(), s.stack_user()) else { return };
        let maps = self.machine.process_maps(pid);
        let mut space = ProcessSpace { maps, symbolizer: &mut self.sym, modules: &mut self.modules };
        out.extend(self.unwinder.unwind(Some(regs), Some(stack), &mut space).frames.iter().map(|f| f.ip));
    }
}

/// A sample that passed the filters the reader can apply: 56 bytes (a batch holds 16 K of them),
/// its optional fields flagged in `flags`.
#[derive(Clone, Copy)]
struct SampleItem {
    pid: u32,
    tid: u32,
    /// The sample's ip, which perf resolves before its callchain (0 without one).
    ip: u64,
    weight: u64,
    /// Its callchain is `Batch::ips[chain_at..chain_at + chain_len]` (with [`HAS_CHAIN`]).
    chain_at: u32,
    chain_len: u32,
    /// The user frames unwound from its stack dump (`--call-graph dwarf`), in `Batch::ips`
    /// after the callchain: addresses, never context markers.
    unwound: u32,
    cpu: u32,
    /// Index of its event in `PerfFile::events`.
    event: u32,
    /// The number of its raw key, when the reader makes them ([`RawKeys`]); `u32::MAX`: none.
    key: u32,
    /// [`KERNEL`], [`HAS_IP`], [`HAS_CHAIN`], [`HAS_CPU`].
    flags: u8,
}

/// [`SampleItem::flags`]: the sample's cpumode is kernel.
const KERNEL: u8 = 1;
/// … it has an ip.
const HAS_IP: u8 = 2;
/// … it has a callchain.
const HAS_CHAIN: u8 = 4;
/// … it has a cpu.
const HAS_CPU: u8 = 8;

impl SampleItem {
    fn kernel(&self) -> bool {
        self.flags & KERNEL != 0
    }

    fn ip(&self) -> Option<u64> {
        (self.flags & HAS_IP != 0).then_some(self.ip)
    }

    fn chain(&self) -> Option<(u32, u32)> {
        (self.flags & HAS_CHAIN != 0).then_some((self.chain_at, self.chain_len))
    }

    fn cpu(&self) -> Option<u32> {
        (self.flags & HAS_CPU != 0).then_some(self.cpu)
    }

    fn key(&self) -> Option<u32> {
        (self.key != u32::MAX).then_some(self.key)
    }

    /// This sample with its frames (callchain and unwound frames, in `from`) appended to `to`.
    fn moved(&self, from: &[u64], to: &mut Vec<u64>) -> SampleItem {
        let mut s = *self;
        if let Some((chain, more)) = chain_of(from, self) {
            s.chain_at = u32::try_from(to.len()).unwrap_or(u32::MAX);
            to.extend_from_slice(chain);
            to.extend_from_slice(more);
        }
        s
    }
}

/// The raw keys of the samples (the pprof export, [`RawKeys`]): a sample's thread, cpu, event,
/// flags (kernel cpumode, has an ip, has a callchain), ip, callchain length, callchain and unwound
/// frames as `u32` words (low half first), then the generations of what the fold reads besides:
/// the process's maps, the thread's comm, the kernel's maps.
///
/// Two samples with equal keys fold to the same stack as long as the kernel's symbols stay the
/// same (perf loads some lazily; the folding thread checks that): so the reader makes the keys,
/// finds the repeats within a batch and numbers the batch's distinct keys ([`KeyNumbers`]), and
/// the folding thread folds each number once and then only counts it.
struct RawKeys {
    state: ahash::RandomState,
    /// This batch's hashes, and which of its items are samples.
    batch: BatchKeys,
    /// This batch's keys, one after the other (only each key's first sample's), and where each
    /// item's is (start, length; machine items: length 0).
    keys: Vec<u32>,
    spans: Vec<(u32, u32)>,
    /// The batch's table of keys: a tag of the key's hash (high [`RAW_KEY_TAG_BITS`] bits) and
    /// its first sample's item index + 1 (0: empty). Small (128 KiB), to stay in the cache.
    slots: Vec<u32>,
    /// The generations of the processes' maps, the threads' comms and the kernel's maps, as
    /// [`Folder`]'s `invalidate` bumps them.
    maps: FastMap<u32, u32>,
    comms: FastMap<u32, u32>,
    kernel: u32,
    /// The last sample's pid, tid and generations (most samples follow one of the same thread).
    last: Option<(u32, u32, [u32; 3])>,
    /// The numbers of the distinct keys so far.
    numbers: KeyNumbers,
    /// Scratch: the items of the batch whose numbers are new.
    fresh: Vec<u32>,
}

/// What numbering a batch's raw keys needs besides the keys: per item, the hash of its key
/// (machine items: 0). (A sample whose key an item of the batch already has is no item:
/// [`Numbered::seq`].)
#[derive(Default)]
struct BatchKeys {
    hashes: Vec<u64>,
    /// The sample items, in order.
    firsts: Vec<u32>,
}

/// What a raw key starts with: pid, tid, has a cpu, cpu, event index, and flags (kernel, has an
/// ip, has a callchain).
fn raw_head(s: &SampleItem) -> [u32; 6] {
    let flags = u32::from(s.kernel()) | u32::from(s.ip().is_some()) << 1 | u32::from(s.chain().is_some()) << 2;
    [s.pid, s.tid, u32::from(s.cpu().is_some()), s.cpu, s.event, flags]
}

/// Append the words of a sample's raw key to `out`: [`raw_head`], the ip, the callchain's
/// length, the callchain and the frames unwound after it (each address as two words), and the
/// generations of its process's maps, its thread's comm and the kernel's maps at the sample.
fn raw_key(
    out: &mut Vec<u32>,
    head: [u32; 6],
    ip: u64,
    chain: impl ExactSizeIterator<Item = u64>,
    more: &[u64],
    gens: [u32; 3],
) {
    let [pid, tid, has_cpu, cpu, event, flags] = head;
    let len = u32::try_from(chain.len()).unwrap_or(u32::MAX);
    out.reserve(12 + 2 * (chain.len() + more.len()));
    out.extend_from_slice(&[pid, tid, has_cpu, cpu, event, flags, ip as u32, (ip >> 32) as u32, len]);
    for a in chain.chain(more.iter().copied()) {
        out.push(a as u32);
        out.push((a >> 32) as u32);
    }
    out.extend_from_slice(&gens);
}

/// The numbers of the distinct raw keys so far (on the reading thread).
struct KeyNumbers {
    /// All distinct keys so far, with their number (payload).
    all: crate::arena::ArenaTable<1>,
}

/// Slots of [`RawKeys`]' table of a batch (twice the items of a batch).
const RAW_KEY_SLOTS: usize = 2 * BATCH_ITEMS;

/// Bits of a [`RawKeys`] slot that hold a tag of the hash; the others an item index + 1.
const RAW_KEY_TAG_BITS: u32 = 32 - (BATCH_ITEMS + 1).next_power_of_two().trailing_zeros();

/// How many keys ahead [`KeyNumbers::number`] brings in a key's slot (and half that its entry).
const RAW_KEY_AHEAD: usize = 8;

impl RawKeys {
    /// `words`: room for that many words of distinct keys ([`KeyNumbers::new`]).
    fn new(words: usize) -> Self {
        RawKeys {
            numbers: KeyNumbers::new(words),
            fresh: Vec::new(),
            last: None,
            state: ahash::RandomState::new(),
            batch: BatchKeys::default(),
            keys: Vec::with_capacity(BATCH_IPS * 2),
            spans: Vec::with_capacity(BATCH_ITEMS),
            slots: crate::arena::zeros(RAW_KEY_SLOTS),
            maps: FastMap::default(),
            comms: FastMap::default(),
            kernel: 0,
        }
    }

    /// A thread or map change (pushed as an item): bump what `invalidate` bumps.
    fn machine(&mut self, e: &MachineEvent) {
        self.last = None;
        let bump = |m: &mut FastMap<u32, u32>, k: u32| {
            let g = m.entry(k).or_insert(0);
            *g = g.wrapping_add(1);
        };
        match e {
            MachineEvent::Map { pid, .. } => bump(&mut self.maps, *pid),
            MachineEvent::KernelMap { .. } => self.kernel = self.kernel.wrapping_add(1),
            MachineEvent::Comm { pid, tid, exec, .. } => {
                bump(&mut self.comms, *tid);
                if *exec {
                    bump(&mut self.maps, *pid);
                }
            }
            MachineEvent::Fork { pid, tid, .. } => {
                bump(&mut self.comms, *tid);
                bump(&mut self.maps, *pid);
            }
            MachineEvent::Exit { .. } => {}
        }
        self.spans.push((0, 0));
        self.batch.hashes.push(0);
    }

    /// The key of sample `s` (its frames in the batch's addresses `ips`), kept as the batch's
    /// next item's if its key is new to the batch; else the index of the item with that key (the
    /// sample is then a repeat, and is no item).
    fn sample(&mut self, s: &SampleItem, chain: impl ExactSizeIterator<Item = u64>, more: &[u64]) -> Option<usize> {
        let index = self.spans.len();
        let start = self.keys.len();
        let gens = match self.last {
            Some((pid, tid, gens)) if (pid, tid) == (s.pid, s.tid) => gens,
            _ => {
                let (maps, comms) = (self.maps.get(&s.pid), self.comms.get(&s.tid));
                let gens = [maps.copied().unwrap_or(0), comms.copied().unwrap_or(0), self.kernel];
                self.last = Some((s.pid, s.tid, gens));
                gens
            }
        };
        raw_key(&mut self.keys, raw_head(s), s.ip, chain, more, gens);
        let key = self.keys.get(start..).unwrap_or(&[]);
        let hash = self.state.hash_one(key);
        let len = key.len();
        let first = |this: &mut Self| {
            this.batch.firsts.push(index as u32);
            this.spans.push((start as u32, len as u32));
            this.batch.hashes.push(hash);
        };
        let mask = self.slots.len() - 1;
        let mut i = (hash >> (64 - RAW_KEY_SLOTS.trailing_zeros())) as usize;
        let index_bits = 32 - RAW_KEY_TAG_BITS;
        let tag = (hash as u32) >> index_bits << index_bits;
        if index + 1 >= 1 << index_bits {
            // Past the batch's size (thread and map changes are not counted there): not in the table.
            first(self);
            return None;
        }
        while let Some(&slot) = self.slots.get(i) {
            if slot == 0 {
                if let Some(s) = self.slots.get_mut(i) {
                    *s = tag | (index as u32 + 1);
                }
                first(self);
                return None;
            }
            let at = (slot & ((1 << index_bits) - 1)).wrapping_sub(1) as usize;
            if slot & !((1 << index_bits) - 1) != tag {
                i = (i + 1) & mask;
                continue;
            }
            if let (Some(&(s, l)), Some(&h)) = (self.spans.get(at), self.batch.hashes.get(at)) {
                if h == hash && self.keys.get(s as usize..(s + l) as usize) == self.keys.get(start..start + len) {
                    // Seen in this batch: only its first sample's index.
                    self.keys.truncate(start);
                    return Some(at);
                }
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Number the items of `batch` (this thread's) and hand `out` what the
    /// folding thread needs of them: per sample its number and weight, the thread and map
    /// changes, and the samples of new numbers with their frames. Then start the next batch
    /// (`batch` emptied). `None`: more distinct keys than 16 GiB hold.
    fn take(&mut self, batch: &mut Batch, out: &mut Batch) -> Option<()> {
        self.fresh.clear();
        let numbered = self.numbers.number(&self.batch, &self.keys, &self.spans, &mut batch.items, &mut self.fresh);
        for &i in &self.fresh {
            if let Some(Item::Sample(s)) = batch.items.get(i as usize) {
                out.fresh.push(s.moved(&batch.ips, &mut out.ips));
            }
        }
        out.numbered.seq.extend_from_slice(&batch.numbered.seq);
        out.numbered.weights.extend_from_slice(&batch.numbered.weights);
        for item in batch.items.drain(..) {
            match item {
                // (Every sample has a number by now; one without would be no first's.)
                Item::Sample(s) => out.numbered.numbers.push(s.key.min(UNNUMBERED)),
                Item::Machine(e) => {
                    out.numbered.numbers.push(MACHINE);
                    out.numbered.machine.push(*e);
                }
            }
        }
        batch.clear();
        self.batch.hashes.clear();
        self.batch.firsts.clear();
        self.keys.clear();
        self.spans.clear();
        self.slots.fill(0);
        numbered
    }
}

impl KeyNumbers {
    /// `words`: room for that many words of distinct keys ([`crate::arena::ArenaTable::with_capacity`]).
    fn new(words: usize) -> Self {
        KeyNumbers { all: crate::arena::ArenaTable::with_capacity(words) }
    }

    /// Number a batch's samples (new keys get the next numbers) into their items' `key`: the
    /// batch's hashes, firsts `raw`, its keys' words `keys` and where each item's is, `spans`.
    /// `None`: more distinct keys than 16 GiB hold.
    /// The items whose numbers are new go into `fresh`, in their numbers' order.
    fn number(
        &mut self,
        raw: &BatchKeys,
        keys: &[u32],
        spans: &[(u32, u32)],
        items: &mut [Item],
        fresh: &mut Vec<u32>,
    ) -> Option<()> {
        let firsts = &raw.firsts;
        let hash = |k: usize| firsts.get(k).and_then(|&i| raw.hashes.get(i as usize)).copied();
        for k in 0..RAW_KEY_AHEAD.min(firsts.len()) {
            if let Some(h) = hash(k) {
                self.all.prefetch_slot(h);
            }
        }
        for (k, &i) in firsts.iter().enumerate() {
            if let Some(h) = hash(k + RAW_KEY_AHEAD) {
                self.all.prefetch_slot(h);
            }
            if let Some(h) = hash(k + RAW_KEY_AHEAD / 2) {
                self.all.prefetch_entry(h);
            }
            let i = i as usize;
            let (Some(&h), Some(&(start, len))) = (raw.hashes.get(i), spans.get(i)) else { continue };
            let key = keys.get(start as usize..(start as usize).saturating_add(len as usize)).unwrap_or(&[]);
            let id = match self.all.find(h, key) {
                Ok(at) => self.all.payload(at).and_then(|p| p.first().copied()),
                Err(slot) => {
                    let id = u32::try_from(self.all.entries).ok().filter(|&id| id < UNNUMBERED)?;
                    self.all.insert(h, key, [id], slot)?;
                    fresh.push(i as u32);
                    Some(id)
                }
            };
            if let (Some(Item::Sample(s)), Some(id)) = (items.get_mut(i), id) {
                s.key = id;
            }
        }
        Some(())
    }
}

/// What the reading thread hands to the folding thread.
enum Item {
    /// A sample that passed the filters the reader can apply.
    Sample(SampleItem),
    /// A change to threads or maps (boxed: samples are the bulk and stay small).
    Machine(Box<MachineEvent>),
}

/// Items in record order, with the callchains they refer to; or, with raw keys, the samples by
/// number ([`Numbered`]).
#[derive(Default)]
struct Batch {
    items: Vec<Item>,
    ips: Vec<u64>,
    /// With raw keys, handed over: the samples whose numbers are new, in their numbers' order,
    /// their frames in `ips`.
    fresh: Vec<SampleItem>,
    /// With raw keys: the samples in order.
    numbered: Numbered,
}

/// With raw keys, the samples and the thread and map changes of a batch in record order, as the
/// reading thread hands them over. The items stay on the reading thread: the folding thread
/// keeps the first sample of each number ([`Batch::fresh`]), and what crosses between the cores
/// is 12 bytes a sample (and 4 an item), which on this VM costs most when the two vCPUs are far
/// apart.
#[derive(Default)]
struct Numbered {
    /// Per sample and thread or map change, in order: its item's index in the batch (a sample
    /// whose key an earlier item of the batch has: that item's).
    seq: Vec<u32>,
    /// The samples' weights, in order.
    weights: Vec<u64>,
    /// Per item: its sample's number, or [`MACHINE`] for the next of `machine`.
    numbers: Vec<u32>,
    machine: Vec<MachineEvent>,
}

/// [`Numbered::numbers`]: a thread or map change, not a sample's number.
const MACHINE: u32 = u32::MAX;
/// [`Numbered::numbers`]: a sample without a number (none is).
const UNNUMBERED: u32 = u32::MAX - 1;

impl Batch {
    /// An empty batch with room for `items` items (and their callchains and keys, up to
    /// [`BATCH_IPS`] addresses), so that filling it moves nothing: growing from empty copied
    /// each of the first batches' vectors several times.
    fn with_capacity(items: usize, raw_keys: bool) -> Batch {
        let numbered = if raw_keys {
            Numbered {
                seq: Vec::with_capacity(items),
                weights: Vec::with_capacity(items),
                numbers: Vec::with_capacity(items),
                machine: Vec::new(),
            }
        } else {
            Numbered::default()
        };
        Batch { items: Vec::with_capacity(items), ips: Vec::with_capacity(BATCH_IPS), fresh: Vec::new(), numbered }
    }

    /// Empty it, keeping its room.
    fn clear(&mut self) {
        self.items.clear();
        self.ips.clear();
        self.fresh.clear();
        self.numbered.seq.clear();
        self.numbered.weights.clear();
        self.numbered.numbers.clear();
        self.numbered.machine.clear();
    }
}

/// The callchain of sample `s` in its batch's addresses `ips`, and the user frames unwound after
/// it (`None`: no callchain).
fn chain_of<'a>(ips: &'a [u64], s: &SampleItem) -> Option<(&'a [u64], &'a [u64])> {
    s.chain().map(|(start, len)| {
        let (start, len) = (start as usize, len as usize);
        let user = start.saturating_add(len);
        (ips.get(start..user).unwrap_or(&[]), ips.get(user..user.saturating_add(s.unwound as usize)).unwrap_or(&[]))
    })
}

/// Items per batch: large enough to amortise the channel, small enough to bound the memory in
/// flight (4 batches of a few MB at most).
const BATCH_ITEMS: usize = 16 * 1024;
/// Callchain addresses per batch (4 MiB).
const BATCH_IPS: usize = 512 * 1024;
/// Items per batch when the reader unwinds stack dumps (`--call-graph dwarf`): each sample then
/// costs the reader tens of microseconds, and smaller batches let the folding thread start early.
const BATCH_ITEMS_UNWOUND: usize = 512;

/// `opts.time` in nanoseconds (empty: every sample), percentages against the recording's span.
pub(crate) fn time_ranges(file: &PerfFile, opts: &FoldedOptions) -> Result<Vec<crate::options::TimeRange>> {
    let Some(t) = &opts.time else { return Ok(Vec::new()) };
    let span = file.features().sample_time().and_then(Result::ok).map(|s| (s.first, s.last));
    t.resolve(span).map_err(perfdata_core::Error::Unsupported)
}

/// The reading half of [`folded`]: records in time order → batches of [`Item`]s, applying the
/// pid, tid, time and event filters and the weights, and adding the JIT code maps of jitdump
/// files ([`JitInjector`]); returns the injector's diagnostics.
/// `spent`: batches the folding thread is done with, emptied, to fill again (their buffers are
/// already grown and paged in).
fn read_items(
    file: &PerfFile,
    opts: &FoldedOptions,
    tx: &std::sync::mpsc::SyncSender<Result<Batch>>,
    spent: &std::sync::mpsc::Receiver<Batch>,
    raw_keys: bool,
) -> Vec<String> {
    // A sample's raw key has fewer words than its record: the distinct ones fit in the file's size.
    let mut raw = raw_keys.then(|| RawKeys::new(file.bytes().len() / 4));
    let pl = opts.compat == Compat::StackcollapsePl;
    let mut first_event: Option<usize> = None;
    // `--call-graph dwarf`: the user stack is unwound here, where the record's stack dump is at
    // hand, against this thread's own copy of the maps and binaries.
    let mut dwarf = DwarfUnwind::for_file(file, opts);
    let max_items = if dwarf.is_some() { BATCH_ITEMS_UNWOUND } else { BATCH_ITEMS };
    // With raw keys, `batch` stays on this thread and `out` is what is handed over.
    let mut batch = Batch::with_capacity(max_items, raw_keys);
    let mut out = if raw_keys { Batch::with_capacity(max_items, true) } else { Batch::default() };
    // With raw keys and no stack dump to unwind, a sample's key is made from the record's
    // callchain and its frames are copied only when the key is new to the batch (a third of the
    // samples of the bench file).
    let later = raw_keys && dwarf.is_none();
    let mut jit = JitInjector::new(file.events(), &opts.symbolize);
    let ranges = match time_ranges(file, opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(e));
            return Vec::new();
        }
    };
    let mut recs = match file.records(Order::Time) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(e));
            return Vec::new();
        }
    };
    while let Some(r) = recs.next_record() {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                let _ = tx.send(Err(e));
                return jit.diagnostics().to_vec();
            }
        };
        jit.record(&r, &mut |e: MachineEvent| {
            if let Some(d) = &mut dwarf {
                d.machine.apply(e.clone());
            }
            if let Some(k) = &mut raw {
                k.machine(&e);
                batch.numbered.seq.push(u32::try_from(batch.items.len()).unwrap_or(u32::MAX));
            }
            batch.items.push(Item::Machine(Box::new(e)));
        });
        let RecordKind::Sample(s) = &r.kind else { continue };
        if !crate::options::in_ranges(&ranges, s.time().unwrap_or(0)) {
            continue;
        }
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        if opts.pid.is_some_and(|p| p != pid) || opts.tid.is_some_and(|t| t != tid) {
            continue;
        }
        // perf script prints trace text after a tracepoint's event name, which stackcollapse-perf.pl's
        // period/event pattern never matches: weight 1, no event filtering.
        let tracepoint_pl = pl && r.event.is_some_and(|e| EventType::from_raw(e.attr.type_) == EventType::Tracepoint);
        let idx = r.event.map_or(0, |e| e.index);
        let keep = match &opts.event_filter {
            EventFilter::All => true,
            _ if tracepoint_pl => true,
            EventFilter::FirstSeen => *first_event.get_or_insert(idx) == idx,
            EventFilter::Name(n) => r.event.is_some_and(|e| e.name.as_deref() == Some(n.as_str())),
        };
        if !keep {
            continue;
        }
        let weight = if opts.weight == Weight::Period && !tracepoint_pl { s.period_or_attr() } else { 1 };
        let mut unwound = 0;
        let callchain = s.callchain();
        let chain = callchain.map(|c| {
            let start = batch.ips.len();
            if !later {
                batch.ips.extend(c.iter());
                if let Some(d) = &mut dwarf {
                    d.user_frames(s, pid, &mut batch.ips);
                    unwound = u32::try_from(batch.ips.len().saturating_sub(start + c.len())).unwrap_or(0);
                }
            }
            (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(c.len()).unwrap_or(0))
        });
        let cpu = s.cpu();
        let flags = if kernel { KERNEL } else { 0 }
            | if s.ip().is_some() { HAS_IP } else { 0 }
            | if chain.is_some() { HAS_CHAIN } else { 0 }
            | if cpu.is_some() { HAS_CPU } else { 0 };
        let (chain_at, chain_len) = chain.unwrap_or((0, 0));
        let item = SampleItem {
            pid,
            tid,
            ip: s.ip().unwrap_or(0),
            weight,
            chain_at,
            chain_len,
            unwound,
            cpu: cpu.unwrap_or(0),
            event: u32::try_from(idx).unwrap_or(u32::MAX),
            key: u32::MAX,
            flags,
        };
        if let Some(k) = &mut raw {
            // A repeat in the batch is its first sample's item with its own weight (equal keys,
            // equal frames): no item, no frames of its own.
            let callchain = callchain.unwrap_or(perfdata_core::reader::U64s::EMPTY);
            let found = if later {
                k.sample(&item, callchain.iter(), &[])
            } else {
                let (chain, more) = chain_of(&batch.ips, &item).unwrap_or((&[], &[]));
                k.sample(&item, chain.iter().copied(), more)
            };
            let at = match found {
                Some(first) => {
                    if let (Some((start, _)), false) = (chain, later) {
                        batch.ips.truncate(start as usize);
                    }
                    first
                }
                None => {
                    if later {
                        batch.ips.extend(callchain.iter());
                    }
                    batch.items.push(Item::Sample(item));
                    batch.items.len() - 1
                }
            };
            batch.numbered.seq.push(u32::try_from(at).unwrap_or(u32::MAX));
            batch.numbered.weights.push(weight);
        } else {
            batch.items.push(Item::Sample(item));
        }
        let full = batch.items.len().max(batch.numbered.seq.len()) >= max_items || batch.ips.len() >= BATCH_IPS;
        if full && hand_over(&mut raw, &mut batch, &mut out, tx, spent, max_items).is_err() {
            return jit.diagnostics().to_vec();
        }
    }
    let _ = hand_over(&mut raw, &mut batch, &mut out, tx, spent, max_items);
    jit.diagnostics().to_vec()
}

/// [`read_items`]' step at the end of a batch: send it (with raw keys, number it and send what
/// the folding thread needs of it, `out`) and start the next one, in a spent batch if the
/// folding thread sent one back. `Err`: the folding thread is gone, or the keys outgrew their table
/// (the error sent).
fn hand_over(
    raw: &mut Option<RawKeys>,
    batch: &mut Batch,
    out: &mut Batch,
    tx: &std::sync::mpsc::SyncSender<Result<Batch>>,
    spent: &std::sync::mpsc::Receiver<Batch>,
    max_items: usize,
) -> std::result::Result<(), ()> {
    let raw_keys = raw.is_some();
    let next = || spent.try_recv().unwrap_or_else(|_| Batch::with_capacity(max_items, raw_keys));
    let full = match raw {
        Some(k) => {
            if k.take(batch, out).is_none() {
                let _ = tx.send(Err(too_many()));
                return Err(());
            }
            std::mem::replace(out, next())
        }
        None => std::mem::replace(batch, next()),
    };
    tx.send(Ok(full)).map_err(|_| ())
}

/// The error when the distinct samples outgrow the pprof export's tables (16 GiB of keys).
pub(crate) fn too_many() -> perfdata_core::Error {
    perfdata_core::Error::Unsupported("more distinct samples than the pprof export can hold".into())
}

impl<'o> Folder<'o> {
    fn new(file: &PerfFile, opts: &'o FoldedOptions) -> Folder<'o> {
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
    fn preload_kernel(&mut self, file: &PerfFile) {
        if file.events().iter().any(|e| !e.attr.exclude_kernel()) {
            self.sym.load_kernel_symbols();
        }
    }

    /// Apply a thread/map change, forgetting what it makes stale.
    fn machine_event(&mut self, e: MachineEvent) {
        invalidate(self, &e);
        self.machine.apply(e);
    }

    /// Fold one sample of thread `pid`/`tid` into `stack` (labels, root first). `kernel`: the
    /// sample's cpumode is kernel; `ip`: its ip; `chain`: its callchain (with context markers)
    /// and the user frames unwound from its stack dump. `printed`: perf script has printed a
    /// sample before this one. False when the tool drops the sample.
    #[allow(clippy::too_many_arguments)]
    fn fold_sample(
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
        // An empty stack: stackcollapse-perf.pl sees no frame lines and stores nothing;
        // stackcollapse.py still counts the sample under its comm.
        if stack.is_empty() && (pl || opts.root == Root::None) {
            return false;
        }
        if opts.root != Root::None {
            stack.push(root);
        }
        stack.reverse();
        true
    }
}

/// One entry of a callchain as `perf report` resolves it ([`StackFolder::chain`]).
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
    fn chain_entry(&mut self, pid: u32, kernel: bool, unwound: bool, addr: u64, out: &mut Vec<ChainEntry>) {
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
                addr,
                start: f.start,
                end: f.end,
            });
        }
    }
}

/// Distinct stacks (label sequences) with their weights.
#[derive(Default)]
struct StackTable {
    stacks: Vec<(Box<[u32]>, u64)>,
    ids: FastMap<Box<[u32]>, u32>,
}

impl StackTable {
    /// The index of `stack`, added with weight 0 if new.
    fn id(&mut self, stack: &[u32]) -> u32 {
        if let Some(&i) = self.ids.get(stack) {
            return i;
        }
        let i = u32::try_from(self.stacks.len()).unwrap_or(u32::MAX);
        self.stacks.push((stack.into(), 0));
        self.ids.insert(stack.into(), i);
        i
    }

    fn add(&mut self, id: u32, weight: u64) {
        if let Some(e) = self.stacks.get_mut(id as usize) {
            e.1 = e.1.saturating_add(weight);
        }
    }

    /// The stacks as text (labels joined by `;`); `zero`: keep the stacks of weight 0.
    fn into_folded(self, labels: &Labels, diagnostics: Vec<String>, zero: bool) -> FoldedStacks {
        let mut out = FoldedStacks { diagnostics, ..FoldedStacks::default() };
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

/// Fold the samples of `file`. Records are read and decoded on a second thread while this one
/// resolves and counts the stacks.
pub fn folded(file: &PerfFile, opts: &FoldedOptions) -> Result<FoldedStacks> {
    /// [`folded`]'s [`Sink`]: the stacks' weights.
    struct Stacks(StackTable);
    impl Sink<'_> for Stacks {
        fn each(&mut self, _: &mut Folder<'_>, _: &SampleItem, weight: u64, stack: &[u32]) {
            let i = self.0.id(stack);
            self.0.add(i, weight);
        }
    }
    let mut f = Folder::new(file, opts);
    let mut table = Stacks(StackTable::default());
    let diagnostics = drive(file, opts, &mut f, &mut table)?;
    Ok(table.0.into_folded(&f.labels, diagnostics, true))
}

/// What [`fold_sites`] tells about each sample it keeps.
pub(crate) struct SiteSample<'a> {
    pub pid: u32,
    pub tid: u32,
    pub cpu: Option<u32>,
    /// Index of the sample's event in `PerfFile::events`.
    pub event: usize,
    /// Its weight under [`FoldedOptions::weight`].
    pub weight: u64,
    /// The comm of its thread.
    pub comm: &'a std::rc::Rc<str>,
    /// Its locations ([`Sites::site`] ids), leaf first.
    pub locations: &'a [u32],
}

/// Where [`fold_sites`] hands the samples (the pprof export's sample table). Per sample,
/// [`SampleSink::known`], then, if the sink did not know it, it is folded and handed to
/// [`SampleSink::add`] or, if the fold drops it, [`SampleSink::dropped`].
pub(crate) trait SampleSink {
    /// The raw key number of a sample some items ahead (to bring in what [`SampleSink::known`]
    /// will read for it).
    fn ahead(&mut self, key: u32);
    /// Whether the sink counted the sample (weight `weight`) already: samples of equal raw keys
    /// (number `key`, [`RawKeys`]) fold alike while the kernel's generation (`kernel_gen`: its
    /// maps and symbols) stays the same, so the sink counts it as the first and it is not folded.
    fn known(&mut self, key: u32, weight: u64, kernel_gen: u32) -> bool;
    /// The sample [`SampleSink::known`] did not know, folded.
    fn add(&mut self, s: &SiteSample<'_>);
    /// The sample [`SampleSink::known`] did not know was dropped by the fold.
    fn dropped(&mut self);
}

/// What a fold leaves to free once it is done: its symbols, threads, frame caches and key
/// numbers, a few milliseconds of freeing (a hundred thousand symbol names, tables of tens of
/// MB) that [`fold_sites`] leaves to its caller, to do when it would otherwise wait.
pub(crate) struct Leftovers {
    _sym: Symbolizer,
    _machine: Machine,
    _labels: Labels,
    _frames: FastMap<FrameKey, FrameLabels>,
}

/// Fold the samples of `file` as [`folded`] does, but hand each kept sample to `sink` with the
/// locations `sites` made of its frames (the pprof export). Returns the diagnostics, and what
/// is left to free.
pub(crate) fn fold_sites(
    file: &PerfFile,
    opts: &FoldedOptions,
    sites: &mut dyn Sites,
    sink: &mut dyn SampleSink,
) -> Result<(Vec<String>, Leftovers)> {
    /// [`fold_sites`]'s [`Sink`].
    struct Known<'s>(&'s mut dyn SampleSink);
    impl Sink<'_> for Known<'_> {
        fn raw_keys(&self) -> bool {
            true
        }

        fn ahead(&mut self, key: u32) {
            self.0.ahead(key);
        }

        fn known(&mut self, f: &mut Folder<'_>, item: &SampleItem, weight: u64) -> bool {
            item.key().is_some_and(|key| self.0.known(key, weight, f.kernel_gen))
        }

        fn dropped(&mut self) {
            self.0.dropped();
        }

        fn each(&mut self, f: &mut Folder<'_>, item: &SampleItem, weight: u64, _: &[u32]) {
            let Some(s) = f.sites.as_ref() else { return };
            self.0.add(&SiteSample {
                pid: item.pid,
                tid: item.tid,
                cpu: item.cpu(),
                event: item.event as usize,
                weight,
                comm: &s.comm,
                locations: &s.stack,
            });
        }
    }
    let mut f = Folder::new(file, opts);
    f.sites = Some(SiteStack { sites, stack: Vec::new(), comm: std::rc::Rc::from("") });
    let diagnostics = drive(file, opts, &mut f, &mut Known(sink))?;
    let Folder { sym, machine, labels, frames, .. } = f;
    Ok((diagnostics, Leftovers { _sym: sym, _machine: machine, _labels: labels, _frames: frames }))
}

/// How many items ahead [`drive`] shows its sink the samples ([`Sink::ahead`]).
const SINK_AHEAD: usize = 16;

/// What [`drive`] does with the samples.
trait Sink<'o> {
    /// Whether the reader makes raw keys ([`RawKeys`]).
    fn raw_keys(&self) -> bool {
        false
    }
    /// The raw key number of a sample [`SINK_AHEAD`] samples ahead of the one about to be
    /// folded (to bring in what it will read).
    fn ahead(&mut self, _key: u32) {}
    /// Whether the sample (`item`, or with raw keys the first of its number) of weight `weight`
    /// needs no folding (the sink counted it).
    fn known(&mut self, _f: &mut Folder<'o>, _item: &SampleItem, _weight: u64) -> bool {
        false
    }
    /// The fold dropped the sample [`Sink::known`] did not know.
    fn dropped(&mut self) {}
    /// A folded sample kept (`item`, or the first of its number, of weight `weight`), with its stack
    /// ([`Folder`] labels, root first).
    fn each(&mut self, f: &mut Folder<'o>, item: &SampleItem, weight: u64, stack: &[u32]);
}

/// The folding half of [`folded`] and [`fold_sites`]: reads the records on a second thread
/// ([`read_items`]), applies the thread and map changes to `f` and folds each sample `sink`
/// does not know, handing it the stack of each it keeps.
fn drive<'o>(
    file: &PerfFile,
    opts: &'o FoldedOptions,
    f: &mut Folder<'o>,
    sink: &mut dyn Sink<'o>,
) -> Result<Vec<String>> {
    // perf script has printed a sample.
    let mut printed = false;
    let mut stack: Vec<u32> = Vec::new();
    let raw_keys = sink.raw_keys();
    // A reader that makes raw keys has about as much to do as this thread: it reads on while the
    // kernel's symbols load here rather than wait with two batches ready. The kernel's symbols
    // take 12-15 ms, about 8 batches of reading on the pprof bench file: with room for 8 the
    // reader still waited ~10 ms for this thread, and it is the thread the export waits for.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Batch>>(if raw_keys { 16 } else { 2 });
    let (spent_tx, spent_rx) = std::sync::mpsc::sync_channel::<Batch>(2);
    let diagnostics = std::thread::scope(|scope| -> Result<Vec<String>> {
        let reader = scope.spawn(move || read_items(file, opts, &tx, &spent_rx, raw_keys));
        // While the reader fills its first batch: the kernel's symbols.
        f.preload_kernel(file);
        // `rx` goes with the closure, also on an error: the reader then stops at its next batch.
        // With raw keys: the first sample of each number so far, their frames in `ips`.
        let mut firsts: Vec<SampleItem> = Vec::new();
        let mut ips: Vec<u64> = Vec::new();
        let folded = (|| -> Result<()> {
            for batch in rx {
                let mut batch = batch?;
                if raw_keys {
                    for s in &batch.fresh {
                        debug_assert_eq!(s.key as usize, firsts.len(), "numbers come in order");
                        firsts.push(s.moved(&batch.ips, &mut ips));
                    }
                    let n = &mut batch.numbered;
                    let (mut weights, mut machine) = (n.weights.iter(), n.machine.iter_mut());
                    let numbers = &n.numbers;
                    let number = |i: Option<&u32>| i.and_then(|&i| numbers.get(i as usize)).copied();
                    for (i, at) in n.seq.iter().enumerate() {
                        if let Some(k) = number(n.seq.get(i + SINK_AHEAD)).filter(|&k| k != MACHINE) {
                            sink.ahead(k);
                        }
                        let Some(key) = number(Some(at)) else { continue };
                        if key == MACHINE {
                            if let Some(e) = machine.next() {
                                f.machine_event(std::mem::replace(e, MachineEvent::Exit { tid: 0 }));
                            }
                        } else if let (Some(s), Some(&weight)) = (firsts.get(key as usize), weights.next()) {
                            fold(sink, f, &ips, s, weight, &mut printed, &mut stack);
                        }
                    }
                } else {
                    for item in &mut batch.items {
                        match item {
                            Item::Machine(e) => f.machine_event(std::mem::replace(e, MachineEvent::Exit { tid: 0 })),
                            Item::Sample(s) => fold(sink, f, &batch.ips, s, s.weight, &mut printed, &mut stack),
                        }
                    }
                }
                batch.clear();
                // Back to the reader, unless it has enough (or has finished).
                let _ = spent_tx.try_send(batch);
            }
            Ok(())
        })();
        // Joined on every path, not left to the scope: the scope waits for the reader's closure,
        // a join for its thread to be gone, thread-local data and all (LeakSanitizer's check
        // after each fuzz input saw a thread's thread-local destructor list still allocated).
        let diagnostics = reader.join().unwrap_or_default();
        folded.map(|()| diagnostics)
    })?;
    Ok(diagnostics)
}

/// [`drive`]'s step for one sample (`s`, or with raw keys the first of its number; its frames
/// in `ips`) of weight `weight`: fold it unless `sink` knows it.
fn fold<'o>(
    sink: &mut dyn Sink<'o>,
    f: &mut Folder<'o>,
    ips: &[u64],
    s: &SampleItem,
    weight: u64,
    printed: &mut bool,
    stack: &mut Vec<u32>,
) {
    if sink.known(f, s, weight) {
        return;
    }
    if f.fold_sample(s.pid, s.tid, s.kernel(), s.ip(), chain_of(ips, s), printed, stack) {
        sink.each(f, s, weight, stack);
    } else {
        sink.dropped();
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
/// [`folded`] does), weigh their stacks ([`StackFolder::add`]) and take the result
/// ([`StackFolder::finish`]). The options' frame formatting, root frame and comm filter apply;
/// their weight and the event, pid, tid and time filters are the caller's to apply. User stacks
/// recorded as stack dumps (`--call-graph dwarf`) are unwound as [`folded`] unwinds them.
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
/// # Ok::<(), perfdata_core::Error>(())
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
}

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

    /// Fold the callchain of sample `s` (of record `r`) as [`folded`] would; `None` when it drops
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
    /// first when the options have one), as [`folded`] writes them between `;`.
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
        if walk_chain(ips.iter().copied(), kernel, |kernel, ip| folder.chain_entry(pid, kernel, false, ip, out)) {
            for &ip in &self.unwound {
                folder.chain_entry(pid, false, true, ip, out);
            }
        } else {
            out.clear();
        }
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

    /// The address perf prints for an unresolved `ip` of process `pid`: relative to its map
    /// (`map__map_ip`) for user addresses in a map, else as it is.
    pub fn map_ip(&self, pid: u32, kernel: bool, ip: u64) -> u64 {
        match self.folder.machine.find_map(pid, ip, kernel) {
            Some(m) if !kernel => m.map_ip(ip),
            _ => ip,
        }
    }

    /// perf's comm of thread `tid` now (`:TID` for a thread nothing named).
    pub fn comm(&self, tid: u32) -> String {
        self.folder.machine.comm(tid)
    }

    /// Add `weight` to a folded stack.
    pub fn add(&mut self, id: StackId, weight: u64) {
        self.table.add(id.0, weight);
    }

    /// The weighed stacks (stacks folded but never weighed, or weighed 0, are left out).
    pub fn finish(self) -> FoldedStacks {
        self.table.into_folded(&self.folder.labels, self.jit.diagnostics().to_vec(), false)
    }
}

/// Call `frame(kernel, ip)` for each address of a callchain, leaf first, tracking the
/// `PERF_CONTEXT_*` markers; `kernel` is where the chain starts (the sample's cpumode). False when
/// the chain holds a marker perf 6.1 does not know: perf then takes the chain for corrupted and
/// drops all of it (`thread__resolve_callchain_sample`).
fn walk_chain(chain: impl Iterator<Item = u64>, mut kernel: bool, mut frame: impl FnMut(bool, u64)) -> bool {
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

    fn tidy_generic(name: &str) -> String {
        let mut s = String::new();
        tidy_generic_into(name, &mut s);
        s
    }

    #[test]
    fn tidy_like_inferno() {
        assert_eq!(tidy_generic("foo(int, char)"), "foo");
        assert_eq!(tidy_generic("a;b"), "a:b");
        assert_eq!(tidy_generic("std::vector<int (*)(int)>::push_back(int)"), "std::vector<int (*)(int)>::push_back");
        assert_eq!(tidy_generic("net/http.(*Client).Do"), "net/http.(*Client).Do");
        assert_eq!(tidy_generic("(anonymous namespace)::f(int)"), "(anonymous namespace)::f");
        assert_eq!(
            tidy_generic("arrow::(anonymous namespace)::DefaultBackend"),
            "arrow::(anonymous namespace)::DefaultBackend"
        );
        assert_eq!(tidy_generic("{lambda(int)#1}::operator()"), "{lambda(int)#1}::operator");
    }

    #[test]
    fn partially_demangled_rust() {
        assert_eq!(
            fix_partially_demangled_rust("_$LT$foo..Bar$u20$as$u20$baz..Qux$GT$::f::h0123456789abcdef").as_deref(),
            Some("<foo::Bar as baz::Qux>::f")
        );
        assert_eq!(fix_partially_demangled_rust("main"), None);
    }

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

    #[test]
    fn srclines_like_stackcollapse_pl() {
        let with = |line: SrcLine| {
            let mut s = "f".to_string();
            append_srcline(&mut s, Some(&line));
            s
        };
        assert_eq!(with(SrcLine::File { file: "spin.c".into(), line: 31 }), "f:spin.c:31");
        assert_eq!(with(SrcLine::File { file: "".into(), line: 0 }), "f::0");
        assert_eq!(with(SrcLine::Address { module: "taskset".into(), addr: 0x2b48 }), "f:taskset");
        assert_eq!(with(SrcLine::Address { module: "[kernel.kallsyms]".into(), addr: 1 }), "f");
        assert_eq!(with(SrcLine::Address { module: "[JIT] tid 7".into(), addr: 1 }), "f:tid 7");
        assert_eq!(with(SrcLine::File { file: "a[1].c".into(), line: 2 }), "f:a.c:2");
        assert_eq!(with(SrcLine::File { file: "a[1.c".into(), line: 2 }), "f:a[1.c:2");
    }

    #[test]
    fn modules() {
        assert!(is_kernel_module("[kernel.kallsyms]") && is_kernel_module("[vdso]") && is_kernel_module("x.ko"));
        assert!(is_kernel_module("/boot/vmlinux-6.1") && !is_kernel_module("[unknown]"));
        assert!(!is_kernel_module("/usr/lib/libc.so.6"));
        assert!(is_jit_module("/tmp/perf-12.map") && is_jit_module("/x/jitted-12-3.so"));
    }
}
