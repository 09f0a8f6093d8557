//! User-stack unwinding for `--call-graph dwarf` samples: the sampled user registers
//! (REGS_USER) and a copy of the top of the user stack (STACK_USER), walked with the DWARF CFI
//! (`.eh_frame_hdr`/`.eh_frame`, `.debug_frame`) of the binaries mapped in the process, read by
//! gimli.
//!
//! The walk reproduces what perf 6.1 prints, which is what its libunwind-based unwinder
//! (the default when perf is built with libunwind, as Debian's is) computes — quirks included:
//! callers' addresses are reported less one; memory is the stack dump from `sp` to
//! `sp + dyn_size - 8` (the last word is never read) and beyond that the bytes of the file mapped
//! at the address; `.eh_frame_hdr` is placed at the lowest start of the file's maps (so a map
//! left over from the image before an `exec` makes every lookup in that file fail); on x86_64
//! only `.eh_frame_hdr` is consulted and an address without CFI falls back to a frame-pointer
//! guess; at most 127 entries (`--max-stack`). [`UnwindOptions::perf_compat`] turns the lookup
//! rules into plain ones (the binary's own load bias, `.eh_frame` and `.debug_frame` without a
//! header).
//!
//! Nothing here panics or allocates beyond the input: stack reads are bounds-checked against the
//! dump, CFI programs and DWARF expressions run under step limits, and the walk stops at the
//! depth limit or when the CFA and address stop changing.

pub mod cfi;
pub mod regs;
mod step;

use std::rc::Rc;

pub use regs::{Arch, UserRegs};

use crate::{Binary, Symbolizer};
use perfdata_core::process::Maps;
use perfdata_core::sample::{Regs, StackUser};

pub use crate::error::Fail;

/// A mapping of the sampled process, as the unwinder needs it.
#[derive(Clone, Debug)]
pub struct Module {
    /// First address.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// File offset of `start`.
    pub pgoff: u64,
    /// The file's runtime image; `None` for anonymous memory or a file that was not found.
    pub binary: Option<Rc<Binary>>,
    /// The lowest start of every map of the same file in the process (perf's base for
    /// `.eh_frame_hdr`).
    pub lowest_start: u64,
}

/// The sampled process's address space: which file is mapped where.
pub trait AddressSpace {
    /// The mapping holding `addr`.
    fn module(&mut self, addr: u64) -> Option<Module>;
}

/// A process's maps ([`Maps`]) with binaries found by a [`Symbolizer`]
/// ([`Symbolizer::runtime_binary`], the lookup perf uses for a dso's bytes).
pub struct ProcessSpace<'a> {
    /// The process's maps at the sample's time (`None`: the process is unknown).
    pub maps: Option<&'a Maps>,
    /// Finds and caches the binaries.
    pub symbolizer: &'a mut Symbolizer,
    /// The modules found so far, kept from sample to sample.
    pub modules: &'a mut ModuleCache,
}

/// The [`Module`] of each map [`ProcessSpace`] was asked about, by the maps' contents
/// ([`Maps::stamp`]): a frame then costs a binary search, not a scan of every map of the process
/// and a lookup of its binary by file name.
#[derive(Debug, Default)]
pub struct ModuleCache {
    /// Per stamp, one slot per map (in [`Maps::iter`]'s order), filled on first use.
    spaces: FastMap<u64, Vec<Option<Module>>>,
    /// Slots held in `spaces`.
    slots: usize,
    /// The modules found last, with their stamps (a frame asks for its code, its
    /// `.eh_frame_hdr` and the code again, mostly in the same few modules).
    recent: [Option<(u64, Module)>; RECENT],
    /// The next entry of `recent` to replace.
    next: usize,
}

/// Entries of [`ModuleCache::recent`].
const RECENT: usize = 4;

/// Slots kept before [`ModuleCache`] is emptied (the maps of a process change over time, which
/// orphans the slots of their earlier stamps).
const MODULE_CACHE_MAX: usize = 1 << 20;

use crate::FastMap;

impl AddressSpace for ProcessSpace<'_> {
    fn module(&mut self, addr: u64) -> Option<Module> {
        let maps = self.maps?;
        let cache = &mut *self.modules;
        // Maps do not overlap: a module of these maps holding `addr` is the one.
        let hit = cache.recent.iter().flatten().find(|(s, m)| *s == maps.stamp() && m.start <= addr && addr < m.end);
        if let Some((_, m)) = hit {
            return Some(m.clone());
        }
        let i = maps.find_index(addr)?;
        if !cache.spaces.contains_key(&maps.stamp()) {
            if cache.slots > MODULE_CACHE_MAX {
                cache.spaces.clear();
                cache.slots = 0;
            }
            cache.slots = cache.slots.saturating_add(maps.len());
            cache.spaces.insert(maps.stamp(), vec![None; maps.len()]);
        }
        let slot = cache.spaces.get_mut(&maps.stamp())?.get_mut(i)?;
        let module = match slot {
            Some(m) => m.clone(),
            None => {
                let m = maps.get(i)?;
                let lowest_start =
                    maps.iter().filter(|o| o.filename == m.filename).map(|o| o.start).min().unwrap_or(m.start);
                let binary = self.symbolizer.runtime_binary(m);
                slot.insert(Module { start: m.start, end: m.end, pgoff: m.pgoff, binary, lowest_start }).clone()
            }
        };
        if let Some(r) = cache.recent.get_mut(cache.next) {
            *r = Some((maps.stamp(), module.clone()));
        }
        cache.next = (cache.next + 1) % RECENT;
        Some(module)
    }
}

/// Options of the [`Unwinder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnwindOptions {
    /// Most entries, the sampled IP included (perf's `--max-stack`, default 127).
    pub max_stack: usize,
    /// Look CFI up exactly as perf 6.1 with libunwind does (see the module documentation);
    /// `false` uses each map's own load bias and also `.eh_frame` without a header and
    /// `.debug_frame` on every architecture.
    pub perf_compat: bool,
}

impl Default for UnwindOptions {
    fn default() -> Self {
        UnwindOptions { max_stack: 127, perf_compat: true }
    }
}

/// How a frame was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameSource {
    /// The sampled instruction pointer.
    Registers,
    /// The CFI of the callee.
    Cfi,
    /// A frame-pointer guess (no CFI for the callee).
    FramePointer,
    /// A PLT entry (return address at the CFA).
    Plt,
}

/// One user frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserFrame {
    /// The address perf reports: the sampled IP for the first frame, the return address less one
    /// for callers (unless the callee is a signal frame).
    pub ip: u64,
    /// How it was found.
    pub source: FrameSource,
}

/// Why the walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No user registers in the sample (a kernel thread), or no sampled IP.
    NoRegs,
    /// A 32-bit process (REGS_USER ABI 1): perf 6.1 as built with only the host's libunwind does
    /// not unwind it.
    Abi32,
    /// An empty stack dump: perf unwinds nothing, not even the IP.
    NoStack,
    /// The CFI (undefined return address or `rbp`) or the frame-pointer chain ends the stack.
    End,
    /// The depth limit.
    MaxStack,
    /// A step failed: no map, no binary, no CFI, unreadable memory, a malformed program, or a
    /// frame that does not move.
    Failed(Fail),
}

impl Stop {
    /// The crate's [`Error`](crate::Error) for a walk that failed ([`Stop::Failed`]:
    /// [`Error::Unwind`](crate::Error::Unwind)); `None` for a walk that ended as perf's ends.
    ///
    /// ```
    /// use perfdata_symbolize::unwind::{Fail, Stop};
    /// assert!(Stop::End.cause().is_none());
    /// let e = Stop::Failed(Fail::NoInfo).cause().unwrap();
    /// assert_eq!(e.to_string(), "DWARF unwinding failed: no CFI for the address");
    /// ```
    pub fn cause(&self) -> Option<crate::Error> {
        match self {
            Stop::Failed(fail) => Some((*fail).into()),
            Stop::NoRegs | Stop::Abi32 | Stop::NoStack | Stop::End | Stop::MaxStack => None,
        }
    }
}

/// The result of [`Unwinder::unwind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwound {
    /// Frames, leaf first.
    pub frames: Vec<UserFrame>,
    /// Why it stopped.
    pub stop: Stop,
}

/// Unwinds samples of one recording, caching each binary's CFI.
pub struct Unwinder {
    arch: Arch,
    opts: UnwindOptions,
    little_endian: bool,
    cfi: FastMap<usize, Rc<cfi::Cfi>>,
}

impl std::fmt::Debug for Unwinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unwinder").field("arch", &self.arch).field("opts", &self.opts).finish_non_exhaustive()
    }
}

impl Unwinder {
    /// An unwinder for `arch` whose stacks are in the given byte order.
    pub fn new(arch: Arch, little_endian: bool, opts: UnwindOptions) -> Unwinder {
        Unwinder { arch, opts, little_endian, cfi: FastMap::default() }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Walk one sample's user stack. As perf, nothing is produced without registers or without
    /// stack bytes (`dyn_size` 0).
    pub fn unwind(
        &mut self,
        regs: Option<Regs<'_>>,
        stack: Option<StackUser<'_>>,
        space: &mut dyn AddressSpace,
    ) -> Unwound {
        let Some(regs) = regs.filter(|r| r.abi != 0) else { return Unwound { frames: Vec::new(), stop: Stop::NoRegs } };
        if regs.abi == 1 {
            return Unwound { frames: Vec::new(), stop: Stop::Abi32 };
        }
        let dyn_size = stack.and_then(|s| s.dyn_size).unwrap_or(0);
        let Some(stack) = stack.filter(|_| dyn_size != 0) else {
            return Unwound { frames: Vec::new(), stop: Stop::NoStack };
        };
        let regs = UserRegs { arch: self.arch, regs };
        let Some(sp) = regs.sp() else { return Unwound { frames: Vec::new(), stop: Stop::NoRegs } };
        if regs.ip().is_none() {
            return Unwound { frames: Vec::new(), stop: Stop::NoRegs };
        }
        let valid = usize::try_from(dyn_size).unwrap_or(usize::MAX).min(stack.data.len());
        let mut walk = step::Walk {
            arch: self.arch,
            opts: self.opts,
            regs,
            sp,
            stack: stack.data.get(..valid).unwrap_or(&[]),
            little_endian: self.little_endian,
            space,
            cfi: &mut self.cfi,
        };
        let (frames, stop) = walk.run();
        Unwound { frames, stop }
    }
}

#[cfg(test)]
mod tests;
