//! Frames as `perf script` prints them ([`ScriptFrames`]): a sample's ip or callchain, each
//! resolved address written once as text and then referred to by number.
//!
//! The output is a [`Batch`]: literal bytes and references to frame texts, each text sent once
//! (when first made) and kept by the [`Texts`] that turns batches into bytes — on another thread,
//! so that copying the texts out is not the reading thread's work.
//!
//! perf 6.1's rules (`sample__fprintf_sym`, `sample__fprintf_callchain`): a callchain frame is a
//! line `\t<addr> <sym>+0x<off> (<dso>)`, where the address of a user frame is relative to its map
//! (`map__map_ip`), a kernel frame's and an unmapped one's as recorded; a sample without a
//! callchain prints its ip on the sample line, absolute. A function inlined at an unwound user
//! frame prints `(inlined)` after its name and source line instead of the module.

use perfdata_core::file::PerfFile;
use perfdata_core::process::Machine;
use perfdata_core::record::{CpuMode, Record};
use perfdata_core::sample::Sample;
use perfdata_symbolize::jit::JitInjector;
use perfdata_symbolize::{FastMap, SrcLine};

use super::folder::{cut_to_max_stack, frame_slot, walk_chain, Folder, FrameKey};
use super::unwind::DwarfUnwind;
use crate::options::FoldedOptions;

/// Output made on the reading thread ([`ScriptFrames`] and the sample lines): literal bytes,
/// frame texts defined once and references to them. [`Texts::expand`] turns it into bytes.
#[derive(Default)]
pub(crate) struct Batch {
    /// Literal bytes, and the bytes of texts defined ([`Op::Def`]), in order.
    pub(crate) lits: Vec<u8>,
    ops: Vec<Op>,
    /// The columns of [`Op::Cols`], in order.
    cols: Vec<Columns>,
    /// The bytes of [`Batch::lits`] the ops cover; the rest is literal, still to be noted.
    done: usize,
}

/// A sample line's first columns, formatted on the writing side (`perf script`'s
/// `perf_sample__fprintf_start` and the period): numbers, and the comm's bytes in the batch.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Columns {
    /// The columns printed (`script::fields` bits).
    pub(crate) fields: u64,
    /// The comm as is, not padded to 16 bytes.
    pub(crate) comm_plain: bool,
    /// Process and thread ids (-1 when unknown).
    pub(crate) pid: i64,
    /// See [`Columns::pid`].
    pub(crate) tid: i64,
    /// The CPU.
    pub(crate) cpu: Option<u32>,
    /// The time.
    pub(crate) time: Option<u64>,
    /// The period, printed after the other columns when there is one.
    pub(crate) period: Option<u64>,
}

/// One step of a [`Batch`].
#[derive(Clone, Copy, Debug)]
enum Op {
    /// Copy this many literal bytes.
    Lit(u32),
    /// This many bytes are the next frame text (numbered from 0 after a [`Op::Reset`]).
    Def(u32),
    /// Copy frame text number N.
    Frame(u32),
    /// Forget every frame text.
    Reset,
    /// The next [`Columns`], with this many bytes of comm.
    Cols(u32),
}

impl Batch {
    /// Note the literal bytes written to [`Batch::lits`] since the last op.
    fn close_lit(&mut self) {
        while self.lits.len() > self.done {
            let n = (self.lits.len() - self.done).min(u32::MAX as usize);
            self.ops.push(Op::Lit(n as u32));
            self.done += n;
        }
    }

    /// Define the next frame text.
    fn def(&mut self, text: &[u8]) {
        self.close_lit();
        self.lits.extend_from_slice(text);
        self.ops.push(Op::Def(u32::try_from(text.len()).unwrap_or(0)));
        self.done = self.lits.len();
    }

    /// Append frame text number `id`.
    fn frame(&mut self, id: u32) {
        self.close_lit();
        self.ops.push(Op::Frame(id));
    }

    /// Append a sample line's first columns, `comm` the comm's bytes.
    pub(crate) fn columns(&mut self, cols: Columns, comm: &[u8]) {
        self.close_lit();
        let comm = comm.get(..comm.len().min(u32::MAX as usize)).unwrap_or(&[]);
        self.lits.extend_from_slice(comm);
        self.ops.push(Op::Cols(comm.len() as u32));
        self.cols.push(cols);
        self.done = self.lits.len();
    }

    /// Forget every frame text (the cache is emptied).
    fn reset(&mut self) {
        self.close_lit();
        self.ops.push(Op::Reset);
    }

    /// About how much memory the batch holds: time to hand it on when this grows.
    pub(crate) fn size(&self) -> usize {
        self.lits.len() + self.ops.len() * 8 + self.cols.len() * 48
    }

    /// Whether nothing was written since [`Batch::clear`].
    pub(crate) fn is_empty(&self) -> bool {
        self.lits.is_empty() && self.ops.is_empty()
    }

    /// Empty the batch, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.lits.clear();
        self.ops.clear();
        self.cols.clear();
        self.done = 0;
    }
}

/// The frame texts of a stream of [`Batch`]es, to turn them into bytes.
#[derive(Default)]
pub(crate) struct Texts {
    bytes: Vec<u8>,
    /// Where each text ends in [`Texts::bytes`].
    ends: Vec<usize>,
}

impl Texts {
    /// Append batch `b`'s bytes to `out`, its frame texts from those of earlier batches, its
    /// columns as `columns` formats them (with the comm's bytes).
    pub(crate) fn expand(
        &mut self,
        b: &Batch,
        out: &mut Vec<u8>,
        mut columns: impl FnMut(&Columns, &[u8], &mut Vec<u8>),
    ) {
        let mut cols = b.cols.iter();
        let mut at = 0usize;
        let mut lit = |n: u32| {
            let from = at;
            at = at.saturating_add(n as usize);
            b.lits.get(from..at).unwrap_or(&[])
        };
        for op in &b.ops {
            match *op {
                Op::Lit(n) => out.extend_from_slice(lit(n)),
                Op::Def(n) => {
                    self.bytes.extend_from_slice(lit(n));
                    self.ends.push(self.bytes.len());
                }
                Op::Frame(id) => {
                    let id = id as usize;
                    let end = self.ends.get(id).copied().unwrap_or(0);
                    let start = if id == 0 { 0 } else { self.ends.get(id - 1).copied().unwrap_or(end) };
                    out.extend_from_slice(self.bytes.get(start..end).unwrap_or(&[]));
                }
                Op::Reset => {
                    self.bytes.clear();
                    self.ends.clear();
                }
                Op::Cols(n) => {
                    let comm = lit(n);
                    if let Some(c) = cols.next() {
                        columns(c, comm, out);
                    }
                }
            }
        }
        out.extend_from_slice(b.lits.get(b.done..).unwrap_or(&[]));
    }
}

/// Which parts of a frame are printed (perf's `print_ip_opts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct FramePrint {
    /// The address.
    pub(crate) ip: bool,
    /// The symbol name (`[unknown]` when none).
    pub(crate) sym: bool,
    /// `+0x<offset>` after the symbol.
    pub(crate) symoff: bool,
    /// ` (<dso>)`.
    pub(crate) dso: bool,
    /// The source line under the frame (`\n  file:line`).
    pub(crate) srcline: bool,
    /// An unresolved symbol as `[0x<addr>]` instead of `[unknown]`.
    pub(crate) unknown_as_addr: bool,
    /// A branch stack's end (`-F brstacksym`): the name with no space before it and `(<dso>)`
    /// right after it.
    pub(crate) branch: bool,
}

impl FramePrint {
    fn bits(self) -> u8 {
        u8::from(self.ip)
            | u8::from(self.sym) << 1
            | u8::from(self.symoff) << 2
            | u8::from(self.dso) << 3
            | u8::from(self.srcline) << 4
            | u8::from(self.unknown_as_addr) << 5
            | u8::from(self.branch) << 7
    }
}

/// The sample-line form of a frame (the ip without callchain): bit 6 of the cache key.
const ONE_LINE: u8 = 1 << 6;

/// [`FramePrint::branch`]'s bit.
const BRANCH: u8 = 1 << 7;

/// How `perf script` prints one end of a branch stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BranchEnd {
    /// `-F brstack`: `0x<addr>`, as recorded.
    Address,
    /// `-F brstacksym`: `<sym>+0x<off>`, or `[unknown]`.
    Symbol,
    /// `-F brstackoff`: `0x<addr>`, the address relative to its map when one holds it.
    Offset,
}

/// Cached texts before the cache is emptied: bounds the memory of long system-wide recordings,
/// whose orphaned address-space generations accumulate.
const TEXT_CACHE_MAX: usize = 1 << 21;

/// A sample's frames as `perf script` prints them, with the threads, maps and symbols of the
/// moment (feed every record in time order to [`ScriptFrames::record`]).
pub(crate) struct ScriptFrames<'o> {
    folder: Folder<'o>,
    jit: JitInjector,
    dwarf: Option<DwarfUnwind>,
    ips: Vec<u64>,
    unwound: Vec<u64>,
    /// Frame texts' numbers in the output's [`Texts`], by frame and parts printed.
    cache: FastMap<(FrameKey, u8), u32>,
    /// The bytes of the frame texts defined since the cache was last emptied.
    text_bytes: usize,
    /// A direct-mapped cache in front of [`ScriptFrames::cache`]: most frames are a few thousand
    /// hot addresses.
    front: Vec<FrontEntry>,
    line: String,
    /// The user files whose symbols perf has loaded by now (`dso__load`, on the first symbol
    /// lookup in them): perf then counts their addresses as adjusted, which `-F brstackoff`
    /// shows.
    loaded: std::collections::HashSet<String>,
    /// A sample was printed ([`ScriptFrames::sample_printed`]).
    printed: bool,
}

/// A frame's key (its [`FrameKey`] and [`FramePrint`] bits) and its text's number, packed into
/// 24 bytes so that the table stays in the core's cache.
#[derive(Clone, Copy, PartialEq, Eq)]
struct FrontEntry {
    addr: u64,
    space: u32,
    gen: u32,
    /// The text's number; [`FrontEntry::EMPTY`]'s is `u32::MAX`, which no text has.
    id: u32,
    /// The key's flags and print bits ([`FrontEntry::flags`]).
    flags: u16,
}

impl FrontEntry {
    const EMPTY: FrontEntry = FrontEntry { addr: 0, space: 0, gen: 0, id: u32::MAX, flags: 0 };

    /// The key's booleans and print bits in one number.
    fn flags(key: &(FrameKey, u8)) -> u16 {
        let ((_, _, kernel, java, unwound, _), bits) = *key;
        u16::from(bits) | u16::from(kernel) << 8 | u16::from(java) << 9 | u16::from(unwound) << 10
    }

    /// Whether this entry holds `key`'s text.
    fn holds(&self, key: &(FrameKey, u8)) -> bool {
        let (space, gen, .., addr) = key.0;
        self.addr == addr && self.space == space && self.gen == gen && self.flags == Self::flags(key)
    }
}

/// Entries of [`ScriptFrames::front`] (a power of two).
const FRONT_SLOTS: usize = 1 << 14;

impl<'o> ScriptFrames<'o> {
    /// Frames of `file`'s samples, named with `opts.symbolize` (the kernel's symbols are loaded
    /// unless no event samples the kernel); `opts.inline` and `opts.plain_unwind` apply.
    pub(crate) fn new(file: &PerfFile, opts: &'o FoldedOptions) -> ScriptFrames<'o> {
        let mut folder = Folder::new(file, opts);
        folder.preload_kernel(file);
        ScriptFrames {
            folder,
            jit: JitInjector::new(file.events(), &opts.symbolize),
            dwarf: DwarfUnwind::for_file(file, opts),
            ips: Vec::new(),
            unwound: Vec::new(),
            text_bytes: 0,
            cache: FastMap::default(),
            front: vec![FrontEntry::EMPTY; FRONT_SLOTS],
            line: String::new(),
            loaded: std::collections::HashSet::new(),
            printed: false,
        }
    }

    /// Take in a record: threads, comms and maps change, jitdump code appears.
    pub(crate) fn record(&mut self, r: &Record<'_>) {
        let (folder, dwarf) = (&mut self.folder, &mut self.dwarf);
        self.jit.record(r, &mut |e| {
            if let Some(d) = dwarf.as_mut() {
                d.machine.apply(e.clone());
            }
            folder.machine_event(e);
        });
    }

    /// The threads and maps as of the last record.
    pub(crate) fn machine(&self) -> &Machine {
        &self.folder.machine
    }

    /// What went wrong reading jitdump files, and what could not be named
    /// ([`Symbolizer::unnamed_summary`](perfdata_symbolize::Symbolizer::unnamed_summary)).
    pub(crate) fn diagnostics(&self) -> Vec<String> {
        let mut d = self.jit.diagnostics().to_vec();
        d.extend(self.folder.sym.unnamed_summary());
        d
    }

    /// Append sample `s`'s ip as perf prints it on the sample line (no callchain): `<ip>
    /// <sym>+0x<off> (<dso>)`, parts as `print` says, the ip absolute.
    pub(crate) fn write_ip(&mut self, r: &Record<'_>, s: &Sample<'_>, print: FramePrint, out: &mut Batch) {
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let pid = s.pid().unwrap_or(u32::MAX);
        let ip = s.ip().unwrap_or(0);
        self.folder.enter_process(pid);
        self.text(pid, kernel, false, ip, print.bits() | ONE_LINE, out, true);
    }

    /// perf script printed a sample's frames: the first it prints loads the kernel's symbols
    /// ([`perfdata_symbolize::Symbolizer::sample_printed`]), which changes the answers for
    /// kernel modules looked up before.
    pub(crate) fn sample_printed(&mut self) {
        if self.printed {
            return;
        }
        self.printed = true;
        let folder = &mut self.folder;
        let generation = folder.sym.kernel_generation();
        folder.sym.sample_printed(&folder.machine);
        folder.kernel_symbols_changed(generation);
    }

    /// Take in that perf looked up sample `s`'s ip (`machine__resolve`, for every sample it
    /// reads): the symbols of the user file that holds it are loaded from then on.
    pub(crate) fn note_sample_ip(&mut self, r: &Record<'_>, s: &Sample<'_>) {
        if r.header.cpumode() != CpuMode::User {
            return;
        }
        let (pid, ip) = (s.pid().unwrap_or(u32::MAX), s.ip().unwrap_or(0));
        if let Some(m) = self.folder.machine.find_map(pid, ip, false) {
            if !self.loaded.contains(&m.filename) {
                self.loaded.insert(m.filename.clone());
            }
        }
    }

    /// Append the data symbol of sample `s`'s `addr` as perf's `print_sample_addr` prints it after
    /// the address: ` <sym>[+0x<off>]` when `print.sym`, ` (<dso>)` when `print.dso`. perf looks
    /// the address up in the sample's space first and then in the space the address belongs to
    /// (`thread__find_map_fb`), so a kernel sample's fault on a user address finds the user map.
    pub(crate) fn write_addr(&mut self, r: &Record<'_>, s: &Sample<'_>, print: FramePrint, out: &mut Batch) {
        let Some(addr) = s.addr() else { return };
        let kernel_sample = r.header.cpumode() == CpuMode::Kernel;
        self.write_data_addr(s.pid().unwrap_or(u32::MAX), kernel_sample, addr, print, out);
    }

    /// Append what [`ScriptFrames::write_addr`] appends for address `addr` of process `pid`, in
    /// a sample of the kernel (`kernel_sample`) or of user space.
    pub(crate) fn write_data_addr(
        &mut self,
        pid: u32,
        kernel_sample: bool,
        addr: u64,
        print: FramePrint,
        out: &mut Batch,
    ) {
        let kernel = self.space_of(pid, kernel_sample, addr);
        let print = FramePrint { ip: false, srcline: false, unknown_as_addr: false, branch: false, ..print };
        self.folder.enter_process(pid);
        self.text(pid, kernel, false, addr, print.bits() | ONE_LINE, out, true);
    }

    /// Append one end `addr` of a branch stack entry of a sample of process `pid` (of the
    /// kernel when `kernel_sample`), as `-F brstack`, `brstacksym` or `brstackoff` prints it
    /// (perf 6.1's `perf_sample__fprintf_brstack*`), with `(<dso>)` after it when
    /// `dso` (`[unknown]` without a map). The address is looked up as
    /// [`ScriptFrames::write_data_addr`] looks it up.
    ///
    /// [`BranchEnd::Offset`] prints the address relative to its map (`map__map_ip`; the kernel
    /// image's map starts where its MMAP record put it, at page offset 0) unless perf has read
    /// the symbols of the map's user file by then (perf's `adjust_symbols`, which 6.1 sets for
    /// every user ELF file it loads: a sample's ip, a callchain frame or a symbol printed in it
    /// before): then, and without a map, the address as recorded. Looking the end up here
    /// loads nothing (`thread__find_map_fb`).
    pub(crate) fn write_branch_end(
        &mut self,
        pid: u32,
        kernel_sample: bool,
        addr: u64,
        form: BranchEnd,
        dso: bool,
        out: &mut Batch,
    ) {
        use std::io::Write;
        let kernel = self.space_of(pid, kernel_sample, addr);
        self.folder.enter_process(pid);
        match form {
            BranchEnd::Symbol => {
                let print = FramePrint { sym: true, symoff: true, dso, branch: true, ..FramePrint::default() };
                self.text(pid, kernel, false, addr, print.bits() | ONE_LINE, out, true);
            }
            BranchEnd::Address | BranchEnd::Offset => {
                let folder = &mut self.folder;
                let map = if form == BranchEnd::Offset { folder.machine.find_map(pid, addr, kernel) } else { None };
                let printed = match map {
                    Some(m)
                        if !kernel && self.loaded.contains(&m.filename) && folder.sym.runtime_binary(m).is_some() =>
                    {
                        addr
                    }
                    // perf's kernel map keeps its MMAP's start and page offset 0 (the record's
                    // page offset is the relocation symbol's address).
                    Some(m) if m.is_kernel() => addr.wrapping_sub(m.start),
                    Some(m) => m.map_ip(addr),
                    None => addr,
                };
                let _ = write!(out.lits, "{printed:#x}");
                if dso {
                    let print = FramePrint { dso: true, branch: true, ..FramePrint::default() };
                    self.text(pid, kernel, false, addr, print.bits() | ONE_LINE, out, true);
                }
            }
        }
    }

    /// Whether perf finds address `addr` of process `pid`, in a sample of the kernel
    /// (`kernel_sample`) or of user space, in the kernel's space: it looks in the sample's space
    /// first and then in the space the address belongs to (`thread__find_map_fb`).
    fn space_of(&self, pid: u32, kernel_sample: bool, addr: u64) -> bool {
        // perf's `machine__kernel_start`: the kernel map's start once its symbols load, else
        // 2^63 (an old recording's kernel MMAP may start at 0).
        let kernel_start = self.folder.machine.kernel_image().map_or(1 << 63, |k| k.start.max(1 << 63));
        if self.folder.machine.find_map(pid, addr, kernel_sample).is_some() {
            kernel_sample
        } else {
            addr >= kernel_start
        }
    }

    /// Append sample `s`'s callchain lines (leaf first, at most `max_stack` callchain entries
    /// and as many unwound user frames): perf prints these after a newline in place of the ip.
    /// False when the sample has no callchain.
    pub(crate) fn write_chain(
        &mut self,
        r: &Record<'_>,
        s: &Sample<'_>,
        print: FramePrint,
        max_stack: usize,
        out: &mut Batch,
    ) -> bool {
        let Some(c) = s.callchain() else { return false };
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let pid = s.pid().unwrap_or(u32::MAX);
        // perf resolves the sample's ip first (`machine__resolve`): in the kernel, that lookup
        // may be the one that loads the kernel's or a module's symbols.
        // (Through the text cache, keyed with no parts printed: once per address.)
        if let (true, Some(ip)) = (kernel, s.ip()) {
            self.text(pid, true, false, ip, 0, out, false);
        }
        self.folder.enter_process(pid);
        let mut ips = std::mem::take(&mut self.ips);
        ips.clear();
        ips.extend(c.iter());
        self.unwound.clear();
        if let Some(d) = &mut self.dwarf {
            d.user_frames(s, pid, &mut self.unwound);
        }
        let (chain_len, unwound_len) = {
            let (c, u) = cut_to_max_stack(&ips, &self.unwound, max_stack);
            (c.len(), u.len())
        };
        ips.truncate(chain_len);
        self.unwound.truncate(unwound_len);
        let bits = print.bits();
        // perf takes a chain with an unknown context marker for corrupt and prints none of it
        // (having looked up the frames before the marker).
        let complete = walk_chain(ips.iter().copied(), kernel, |_, _| {});
        walk_chain(ips.iter().copied(), kernel, |kernel, ip| self.text(pid, kernel, false, ip, bits, out, complete));
        if complete {
            let unwound = std::mem::take(&mut self.unwound);
            for &ip in &unwound {
                self.text(pid, false, true, ip, bits, out, true);
            }
            self.unwound = unwound;
        }
        self.ips = ips;
        true
    }

    /// Append the text of one frame to `out` (only define it there, for later frames, unless
    /// `print`), from the cache or made now.
    #[allow(clippy::too_many_arguments)]
    fn text(&mut self, pid: u32, kernel: bool, unwound: bool, addr: u64, bits: u8, out: &mut Batch, print: bool) {
        let space = if kernel { u32::MAX } else { pid };
        let gen = self.folder.generation(kernel);
        let key = ((space, gen, kernel, false, unwound, addr), bits);
        let slot = frame_slot(&key.0, key.1, FRONT_SLOTS);
        let hit = match self.front.get(slot) {
            Some(e) if e.id != u32::MAX && e.holds(&key) => Some(e.id),
            _ => {
                let id = self.cache.get(&key).copied();
                if let (Some(id), Some(e)) = (id, self.front.get_mut(slot)) {
                    let (space, gen, .., addr) = key.0;
                    *e = FrontEntry { addr, space, gen, id, flags: FrontEntry::flags(&key) };
                }
                id
            }
        };
        if let Some(id) = hit {
            if print {
                out.frame(id);
            }
            return;
        }
        if self.cache.len() >= TEXT_CACHE_MAX || self.text_bytes >= u32::MAX as usize / 2 {
            self.cache.clear();
            self.text_bytes = 0;
            self.front.fill(FrontEntry::EMPTY);
            out.reset();
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        self.format(pid, kernel, unwound, addr, bits, &mut line);
        let id = u32::try_from(self.cache.len()).unwrap_or(u32::MAX);
        out.def(line.as_bytes());
        if print {
            out.frame(id);
        }
        self.text_bytes += line.len();
        self.cache.insert(key, id);
        self.line = line;
    }

    /// Format one frame as perf prints it.
    fn format(&mut self, pid: u32, kernel: bool, unwound: bool, addr: u64, bits: u8, s: &mut String) {
        use std::fmt::Write;
        let has = |b: u8| bits & b != 0;
        let (ip, sym, symoff, dso, srcline, as_addr, one) =
            (has(1), has(2), has(4), has(8), has(16), has(32), has(ONE_LINE));
        // A branch stack's end: nothing between the address, the name and `(<dso>)`.
        let sep = if has(BRANCH) { "" } else { " " };
        let folder = &mut self.folder;
        let (f, map) = if kernel {
            let generation = folder.sym.kernel_generation();
            let f = folder.sym.resolve_kernel(&folder.machine, addr);
            folder.kernel_symbols_changed(generation);
            (f, None)
        } else {
            let map = folder.machine.find_map(pid, addr, false);
            // perf loads a file's symbols when it looks one up: for a symbol it prints and for a
            // callchain frame, printed or not.
            if let Some(m) = map.filter(|m| (sym || !one) && !self.loaded.contains(&m.filename)) {
                self.loaded.insert(m.filename.clone());
            }
            (folder.sym.resolve_in(pid, map, addr), map)
        };
        // The map-relative address (perf's `al->addr`): a kernel address is its own.
        let rel = map.map_or(addr, |m| m.map_ip(addr));
        let printed_ip = if one || kernel { addr } else { rel };
        let inlines = match (folder.opts().inline && unwound && !one, map) {
            (true, Some(m)) if f.symbol.is_some() => folder.sym.inlines(m, addr, &f),
            _ => Default::default(),
        };
        let lines: Vec<Option<SrcLine>> = match map {
            Some(m) if srcline && !inlines.is_empty() => {
                folder.sym.inline_srclines(m, addr, &f).iter().cloned().map(Some).collect()
            }
            _ if srcline => vec![folder.sym.srcline(map, addr)],
            _ => vec![None],
        };
        // The address in the symbol's terms: a binary's symbols are ELF virtual addresses, a
        // module's relative to it, the kernel's and a perf map's absolute.
        let at = match map {
            Some(m) if !m.identity && f.start.is_some() && symoff => {
                folder.sym.runtime_binary(m).map_or(rel, |b| b.offset_to_vaddr(rel))
            }
            None if kernel && f.start.is_some() && symoff => folder.sym.kernel_symbol_addr(&folder.machine, addr),
            _ => rel,
        };
        // perf: `al->addr - sym->start` (both in the file's terms).
        let off = f.start.map(|start| at.wrapping_sub(start));
        let entries: Vec<(Option<&str>, bool)> = if inlines.is_empty() {
            vec![(f.symbol.as_deref(), false)]
        } else {
            inlines.iter().map(|i| (Some(&*i.name), i.inlined)).collect()
        };
        for (k, (name, inlined)) in entries.into_iter().enumerate() {
            if !one {
                s.push('\t');
            }
            if ip {
                let _ = write!(s, "{printed_ip:16x}");
            }
            if sym {
                s.push_str(sep);
                match name {
                    // perf prints names as C strings: a kallsyms module symbol's `\0[module]`
                    // tail does not show.
                    Some(n) => {
                        s.push_str(n.split('\0').next().unwrap_or(n));
                        if let (true, Some(off)) = (symoff, off) {
                            let _ = write!(s, "+{off:#x}");
                        }
                    }
                    None if as_addr => {
                        let _ = write!(s, "[{rel:#x}]");
                    }
                    None => s.push_str("[unknown]"),
                }
            }
            if dso && !inlined {
                s.push_str(sep);
                s.push('(');
                s.push_str(&f.dso);
                s.push(')');
            }
            if let Some(Some(l)) = lines.get(k) {
                // perf leaves out `??:0` under a frame of its own, not in an inline list.
                if !l.is_unknown() || !inlines.is_empty() {
                    let _ = write!(s, "\n  {l}");
                }
            }
            if inlined {
                s.push_str(" (inlined)");
            }
            if !one {
                s.push('\n');
            }
        }
    }
}
