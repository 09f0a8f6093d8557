//! Threads, processes and address maps over time, rebuilt from COMM, FORK, EXIT and MMAP/MMAP2
//! records (perf's `machine`/`thread`/`maps`). Feed records in time order with
//! [`Machine::update`]; queries then answer for the time of the last record fed.

use std::collections::HashMap;
use std::sync::Arc;

use crate::record::{CpuMode, Record, RecordKind};

/// One mapping of a file (or anonymous memory) into an address space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// File offset of `start` (`pgoff`).
    pub pgoff: u64,
    /// The file name as recorded (`[kernel.kallsyms]_text`, `[vdso]`, `//anon`, a path…).
    pub filename: String,
    /// Build id carried by an MMAP2 record with `PERF_RECORD_MISC_MMAP_BUILD_ID`.
    pub build_id: Option<Vec<u8>>,
    /// Addresses are not file-relative (anonymous memory, JIT code): perf's `identity__map_ip`.
    pub identity: bool,
    /// For a map of JIT code made from a jitdump file (`perfdata_symbolize::jit`): the function
    /// the `jitted-PID-N.so` file `perf inject --jit` would write for it holds. `None` for maps
    /// from MMAP/MMAP2 records.
    pub jit: Option<Arc<JitSymbol>>,
}

/// The one function symbol of a `jitted-PID-N.so` file: `name`, `size` bytes from file offset
/// `perfdata_symbolize::jit::ELF_TEXT_OFFSET` (the maps of the file start there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitSymbol {
    /// The name from the JIT_CODE_LOAD record.
    pub name: String,
    /// The code size from the JIT_CODE_LOAD record (0: no load made the file, nothing resolves).
    pub size: u64,
}

/// `PROT_EXEC` of `mmap(2)`.
const PROT_EXEC: u32 = 4;
/// `MAP_HUGETLB` of `mmap(2)`.
const MAP_HUGETLB: u32 = 0x40000;

impl Map {
    /// A map the way perf's `map__new` makes it from an MMAP/MMAP2 record of process `pid`:
    /// executable anonymous memory (`//anon`, `/dev/zero`, `/anon_hugepage`, huge pages) and
    /// `[stack…`, `[heap]`, `/SYSV…` regions are named `/tmp/perf-PID.map` (JIT symbols), and
    /// such maps translate addresses by identity.
    pub fn from_mmap(pid: u32, start: u64, len: u64, pgoff: u64, filename: String, prot: u32, flags: u32) -> Map {
        let anon = filename.starts_with("//anon")
            || filename.starts_with("/dev/zero")
            || filename.starts_with("/anon_hugepage")
            || flags & MAP_HUGETLB != 0;
        let no_dso = filename.starts_with("[stack") || filename.starts_with("/SYSV") || filename == "[heap]";
        let identity = anon || no_dso;
        let filename = if identity && prot & PROT_EXEC != 0 { format!("/tmp/perf-{pid}.map") } else { filename };
        Map { start, end: start.saturating_add(len), pgoff, filename, build_id: None, identity, jit: None }
    }

    /// perf's `map__map_ip`: the file-relative address of `addr`.
    pub fn map_ip(&self, addr: u64) -> u64 {
        if self.identity {
            return addr;
        }
        addr.wrapping_sub(self.start).wrapping_add(self.pgoff)
    }

    /// Whether this is the kernel image map.
    pub fn is_kernel(&self) -> bool {
        self.filename.starts_with("[kernel.kallsyms]")
    }

    /// The map perf 6.1 makes of a kernel MMAP/MMAP2 record (`machine__process_kernel_mmap_event`),
    /// with what it is. A file name starting with `[kernel.kallsyms` is the kernel image, an
    /// identity map (`[0, 0)` meaning everything); one starting with `/` or `[` a module, at page
    /// offset 0 whatever the record says; other names make no map.
    pub fn from_kernel_mmap(start: u64, len: u64, pgoff: u64, filename: String) -> Option<(KernelMap, Map)> {
        if filename.starts_with("[kernel.kallsyms") {
            let end = if start == 0 && len == 0 { u64::MAX } else { start.wrapping_add(len) };
            return Some((
                KernelMap::Image,
                Map { start, end, pgoff, filename, build_id: None, identity: true, jit: None },
            ));
        }
        if filename.starts_with('/') || filename.starts_with('[') {
            let end = start.wrapping_add(len);
            return Some((
                KernelMap::Module,
                Map { start, end, pgoff: 0, filename, build_id: None, identity: false, jit: None },
            ));
        }
        None
    }
}

/// What a kernel map is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelMap {
    /// The kernel image (`[kernel.kallsyms]_text`).
    Image,
    /// A module (or another file perf treats as one).
    Module,
}

/// A thread as perf knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// The latest comm (perf's `thread__comm_str`).
    pub comm: String,
    /// A COMM record (or the parent's set comm at FORK) named the thread; else `comm` is perf's
    /// `:TID` placeholder (perf's `comm_set`).
    pub comm_set: bool,
    /// An EXIT record was seen.
    pub exited: bool,
}

/// Address maps of one address space, sorted by start, without overlaps.
#[derive(Clone, Debug, Default)]
pub struct Maps {
    maps: Vec<Map>,
    stamp: u64,
}

/// The source of [`Maps::stamp`]: every change of any `Maps` takes the next value.
static NEXT_STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Maps {
    /// Identifies the contents: two `Maps` with the same stamp hold the same maps (a clone keeps
    /// its original's stamp, every [`Maps::insert`] takes a new one; empty maps have stamp 0).
    /// Lets a caller cache what it derives from the maps.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Insert `map`, cutting away the parts of older maps it overlaps (perf's `maps__fixup_overlappings`).
    pub fn insert(&mut self, map: Map) {
        self.stamp = NEXT_STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut out = Vec::with_capacity(self.maps.len().saturating_add(2));
        for m in self.maps.drain(..) {
            if m.end <= map.start || m.start >= map.end {
                out.push(m);
                continue;
            }
            if m.start < map.start {
                let mut before = m.clone();
                before.end = map.start;
                out.push(before);
            }
            if m.end > map.end {
                let mut after = m.clone();
                after.pgoff = m.pgoff.wrapping_add(map.end.wrapping_sub(m.start));
                after.start = map.end;
                out.push(after);
            }
        }
        let at = out.partition_point(|m| m.start < map.start);
        out.insert(at, map);
        self.maps = out;
    }

    /// The map containing `addr`.
    pub fn find(&self, addr: u64) -> Option<&Map> {
        self.find_index(addr).and_then(|i| self.maps.get(i))
    }

    /// The position of the map containing `addr` in [`Maps::iter`]'s order.
    pub fn find_index(&self, addr: u64) -> Option<usize> {
        let i = self.maps.partition_point(|m| m.start <= addr).checked_sub(1)?;
        (addr < self.maps.get(i)?.end).then_some(i)
    }

    /// The map at `index` in [`Maps::iter`]'s order.
    pub fn get(&self, index: usize) -> Option<&Map> {
        self.maps.get(index)
    }

    /// The number of maps.
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// True without any map.
    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// All maps, by address.
    pub fn iter(&self) -> impl Iterator<Item = &Map> {
        self.maps.iter()
    }
}

/// A change to the machine, owned (to hand from a reading thread to an analysing one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MachineEvent {
    /// COMM: a thread's name (`exec`: by exec).
    Comm {
        /// Process.
        pid: u32,
        /// Thread.
        tid: u32,
        /// New name.
        comm: String,
        /// Set by exec.
        exec: bool,
    },
    /// FORK: a new thread or process.
    Fork {
        /// New process.
        pid: u32,
        /// Parent process.
        ppid: u32,
        /// New thread.
        tid: u32,
        /// Parent thread.
        ptid: u32,
        /// A new process gets a copy of its parent's maps: false for the FORK records perf
        /// synthesizes for running tasks (misc `PERF_RECORD_MISC_FORK_EXEC`), whose own maps
        /// follow as synthesized MMAP2 records (perf's `do_maps_clone`).
        clone_maps: bool,
    },
    /// EXIT.
    Exit {
        /// The thread.
        tid: u32,
    },
    /// MMAP/MMAP2 of a process.
    Map {
        /// The process.
        pid: u32,
        /// The map as perf makes it.
        map: Map,
    },
    /// MMAP/MMAP2 with the kernel's cpumode (perf's test, whatever the pid).
    KernelMap {
        /// The kernel image or a module.
        kind: KernelMap,
        /// The map as perf makes it ([`Map::from_kernel_mmap`]).
        map: Map,
    },
}

impl MachineEvent {
    /// The change a record makes, if any.
    pub fn from_record(record: &Record) -> Option<MachineEvent> {
        Some(match &record.kind {
            RecordKind::Comm(c) => MachineEvent::Comm {
                pid: c.pid,
                tid: c.tid,
                comm: String::from_utf8_lossy(c.comm).into_owned(),
                exec: c.exec,
            },
            RecordKind::Fork(f) => MachineEvent::Fork {
                pid: f.pid,
                ppid: f.ppid,
                tid: f.tid,
                ptid: f.ptid,
                clone_maps: record.header.misc & crate::record::misc::FORK_EXEC == 0,
            },
            RecordKind::Exit(e) => MachineEvent::Exit { tid: e.tid },
            RecordKind::Mmap(_) | RecordKind::Mmap2(_) => {
                let m = record.kind.mapping()?;
                let filename = String::from_utf8_lossy(m.filename).into_owned();
                let build_id = m.build_id().map(<[u8]>::to_vec);
                if record.header.cpumode() == CpuMode::Kernel {
                    let (kind, mut map) = Map::from_kernel_mmap(m.addr, m.len, m.pgoff, filename)?;
                    map.build_id = build_id;
                    return Some(MachineEvent::KernelMap { kind, map });
                }
                // MMAP has no prot: perf takes every non-data mapping as executable.
                let data = record.header.misc & crate::record::misc::MMAP_DATA != 0;
                let prot = m.prot.unwrap_or(if data { 0 } else { PROT_EXEC });
                let mut map = Map::from_mmap(m.pid, m.addr, m.len, m.pgoff, filename, prot, m.flags.unwrap_or(0));
                map.build_id = build_id;
                MachineEvent::Map { pid: m.pid, map }
            }
            _ => return None,
        })
    }
}

/// perf's comm of a thread no COMM named (`thread__new`: `:%d` of the tid as an int).
fn placeholder(tid: u32) -> String {
    format!(":{}", tid as i32)
}

/// The state of the machine (host) at the time of the last record fed.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    // The keyed multiply hash of event ids: a thread lookup per sample was SipHash's.
    threads: HashMap<u32, Thread, crate::event::IdHash>,
    processes: HashMap<u32, Maps, crate::event::IdHash>,
    /// Kernel modules.
    kernel: Maps,
    /// The kernel image, as the last kernel MMAP for it placed it.
    kernel_image: Option<Map>,
}

impl Machine {
    /// A machine that knows only the idle thread, called `swapper` as perf registers it
    /// (`perf_session__register_idle_thread`) before any record.
    pub fn new() -> Self {
        let mut m = Self::default();
        m.threads.insert(0, Thread { pid: 0, tid: 0, comm: "swapper".into(), comm_set: true, exited: false });
        m
    }

    /// Apply one record (COMM, FORK, EXIT, MMAP, MMAP2; others are ignored).
    pub fn update(&mut self, record: &Record) {
        if let Some(e) = MachineEvent::from_record(record) {
            self.apply(e);
        }
    }

    /// Apply one owned change (what [`Machine::update`] takes from a record).
    pub fn apply(&mut self, event: MachineEvent) {
        match event {
            MachineEvent::Comm { pid, tid, comm, .. } => {
                let t = self.findnew(pid, tid);
                t.comm = comm;
                t.comm_set = true;
            }
            MachineEvent::Fork { pid, ppid, tid, ptid, clone_maps } => {
                // perf's thread__fork: a new thread (replacing any with the same tid) copies the
                // parent's comm when the parent's was set, else keeps thread__new's `:TID`.
                let parent_comm = self.threads.get(&ptid).filter(|t| t.comm_set).map(|t| t.comm.clone());
                let comm_set = parent_comm.is_some();
                let comm = parent_comm.unwrap_or_else(|| placeholder(tid));
                self.threads.insert(tid, Thread { pid, tid, comm, comm_set, exited: false });
                // A new process starts afresh (perf removes the thread with that tid and makes a
                // new one) with a copy of its parent's maps, unless the FORK was synthesized.
                if pid != ppid && tid == pid {
                    match self.processes.get(&ppid).filter(|_| clone_maps).cloned() {
                        Some(maps) => {
                            self.processes.insert(pid, maps);
                        }
                        None => {
                            self.processes.remove(&pid);
                        }
                    }
                }
            }
            MachineEvent::Exit { tid } => {
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.exited = true;
                }
            }
            MachineEvent::Map { pid, map } => self.processes.entry(pid).or_default().insert(map),
            // perf moves its one kernel map (`machine__update_kernel_mmap`).
            MachineEvent::KernelMap { kind: KernelMap::Image, map } => self.kernel_image = Some(map),
            MachineEvent::KernelMap { kind: KernelMap::Module, map } => self.kernel.insert(map),
        }
    }

    fn findnew(&mut self, pid: u32, tid: u32) -> &mut Thread {
        self.threads.entry(tid).or_insert_with(|| Thread {
            pid,
            tid,
            comm: placeholder(tid),
            comm_set: false,
            exited: false,
        })
    }

    /// The thread `tid`, if any record named it.
    pub fn thread(&self, tid: u32) -> Option<&Thread> {
        self.threads.get(&tid)
    }

    /// perf's comm for a sample of `tid`: the thread's latest comm, or `:TID` for an unknown thread.
    pub fn comm(&self, tid: u32) -> String {
        self.threads.get(&tid).map_or_else(|| placeholder(tid), |t| t.comm.clone())
    }

    /// The comm of thread `tid`, borrowed, when something named it ([`Machine::comm`] gives the
    /// placeholder otherwise).
    pub fn comm_ref(&self, tid: u32) -> Option<&str> {
        self.threads.get(&tid).map(|t| t.comm.as_str())
    }

    /// The maps of process `pid`.
    pub fn process_maps(&self, pid: u32) -> Option<&Maps> {
        self.processes.get(&pid)
    }

    /// The kernel modules' maps.
    pub fn kernel_maps(&self) -> &Maps {
        &self.kernel
    }

    /// The kernel image's map, as its MMAP record placed it (perf moves it to its symbols once
    /// they are loaded: `perfdata_symbolize::Symbolizer::resolve_kernel`).
    pub fn kernel_image(&self) -> Option<&Map> {
        self.kernel_image.as_ref()
    }

    /// The map holding `addr` for a user (`kernel == false`) or kernel address of process `pid`:
    /// for the kernel, a module's map, else the kernel image's as its MMAP record placed it.
    pub fn find_map(&self, pid: u32, addr: u64, kernel: bool) -> Option<&Map> {
        if kernel {
            self.kernel.find(addr).or_else(|| self.kernel_image.as_ref().filter(|k| k.start <= addr && addr < k.end))
        } else {
            self.processes.get(&pid)?.find(addr)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(start: u64, end: u64, name: &str) -> Map {
        Map { start, end, pgoff: 0, filename: name.into(), build_id: None, identity: false, jit: None }
    }

    #[test]
    fn overlapping_maps_are_cut() {
        let mut maps = Maps::default();
        maps.insert(m(0x1000, 0x5000, "a"));
        maps.insert(m(0x2000, 0x3000, "b"));
        let names: Vec<_> = maps.iter().map(|m| (m.start, m.end, m.filename.clone(), m.pgoff)).collect();
        assert_eq!(
            names,
            vec![
                (0x1000, 0x2000, "a".into(), 0),
                (0x2000, 0x3000, "b".into(), 0),
                (0x3000, 0x5000, "a".into(), 0x2000)
            ]
        );
        assert_eq!(maps.find(0x3fff).map(|m| m.filename.as_str()), Some("a"));
        assert!(maps.find(0x5000).is_none());
    }

    /// perf's `do_maps_clone`: a kernel FORK of a new process copies the parent's maps (and
    /// replaces whatever a reused pid had), a synthesized one (misc FORK_EXEC) does not: the
    /// task's own maps follow as synthesized MMAP2 records.
    #[test]
    fn fork_clones_maps_unless_synthesized() {
        let mut machine = Machine::new();
        let map = |pid| MachineEvent::Map { pid, map: m(0x1000, 0x2000, "libc") };
        machine.apply(map(10));
        machine.apply(map(30));
        let fork = |pid, clone_maps| MachineEvent::Fork { pid, ppid: 10, tid: pid, ptid: 10, clone_maps };
        machine.apply(fork(20, false));
        assert!(machine.process_maps(20).is_none());
        machine.apply(fork(21, true));
        assert_eq!(machine.process_maps(21).map(Maps::len), Some(1));
        // pid 30 reused by a new process: its old maps go, the parent's come.
        machine.apply(MachineEvent::Map { pid: 30, map: m(0x5000, 0x6000, "old") });
        machine.apply(fork(30, true));
        let names: Vec<_> = machine.process_maps(30).unwrap().iter().map(|m| m.filename.clone()).collect();
        assert_eq!(names, ["libc"]);
        // A new thread shares its process's maps.
        machine.apply(MachineEvent::Fork { pid: 21, ppid: 21, tid: 22, ptid: 21, clone_maps: true });
        assert_eq!(machine.process_maps(21).map(Maps::len), Some(1));
    }

    fn kernel_map(m: &mut Machine, start: u64, len: u64, name: &str) {
        if let Some((kind, map)) = Map::from_kernel_mmap(start, len, 0, name.into()) {
            m.apply(MachineEvent::KernelMap { kind, map });
        }
    }

    const K: u64 = 0xffff_ffff_8100_0000;

    /// Kernel MMAP records perf would not write: none panics, and each lands where perf's
    /// `machine__process_kernel_mmap_event` puts it.
    #[test]
    fn odd_kernel_mmaps() {
        let mut m = Machine::new();
        kernel_map(&mut m, K, 0x10_0000, "[kernel.kallsyms]_text");
        // Unnamed, or named neither `/…` nor `[…]`: no map.
        kernel_map(&mut m, K + 0x1000, 0x1000, "");
        kernel_map(&mut m, K + 0x1000, 0x1000, "foo.ko");
        assert!(m.kernel_maps().is_empty());
        assert_eq!(m.find_map(0, K + 0x1000, true).map(|m| m.filename.as_str()), Some("[kernel.kallsyms]_text"));
        // Zero length: a module map that holds no address.
        kernel_map(&mut m, K + 0x2000, 0, "[zero]");
        assert_eq!(m.kernel_maps().len(), 1);
        assert_eq!(m.find_map(0, K + 0x2000, true).map(|m| m.filename.as_str()), Some("[kernel.kallsyms]_text"));
        // Inside the kernel image: the module answers for its range.
        kernel_map(&mut m, K + 0x4000, 0x1000, "/lib/modules/x/over.ko");
        assert_eq!(m.find_map(0, K + 0x4800, true).map(|m| m.filename.as_str()), Some("/lib/modules/x/over.ko"));
        assert_eq!(m.find_map(0, K + 0x5000, true).map(|m| m.filename.as_str()), Some("[kernel.kallsyms]_text"));
        // Past the end of the address space: the end wraps, no address is inside.
        kernel_map(&mut m, u64::MAX - 0xfff, 0x2000, "[wrap]");
        assert!(m.find_map(0, u64::MAX, true).is_none());
        // A second kernel image record moves the kernel map; [0, 0) is everything.
        kernel_map(&mut m, 0, 0, "[kernel.kallsyms]_stext");
        assert_eq!(m.kernel_image().map(|k| (k.start, k.end)), Some((0, u64::MAX)));
        assert_eq!(m.find_map(0, 0x1234, true).map(|m| m.filename.as_str()), Some("[kernel.kallsyms]_stext"));
        // Module maps ignore the record's page offset.
        let (_, map) = Map::from_kernel_mmap(K, 0x1000, 0x40, "[m]".into()).unwrap();
        assert_eq!((map.pgoff, map.map_ip(K + 0x10)), (0, 0x10));
    }

    #[test]
    fn executable_anonymous_memory_is_jit_code() {
        let jit = Map::from_mmap(7, 0x1000, 0x1000, 0, "//anon".into(), PROT_EXEC | 3, 0x22);
        assert_eq!((jit.filename.as_str(), jit.map_ip(0x1010)), ("/tmp/perf-7.map", 0x1010));
        let data = Map::from_mmap(7, 0x1000, 0x1000, 0, "//anon".into(), 3, 0x22);
        assert_eq!((data.filename.as_str(), data.map_ip(0x1010)), ("//anon", 0x1010));
        let lib = Map::from_mmap(7, 0x1000, 0x1000, 0x3000, "/lib/x.so".into(), PROT_EXEC, 2);
        assert_eq!(lib.map_ip(0x1010), 0x3010);
    }
}
