//! `perf inject --jit`, done while reading: JIT code named by jitdump files.
//!
//! A JIT agent writes `jit-PID.dump` ([`perfdata_core::jitdump`]) and maps it `PROT_EXEC` once, so that the
//! recording holds an MMAP/MMAP2 of it (the marker). `perf inject --jit` then reads the dump at the
//! path in that record and, for every JIT_CODE_LOAD (and JIT_CODE_MOVE), writes an ELF file
//! `DIR/jitted-PID-INDEX.so` (DIR: the dump's directory) holding the code and one symbol, and an
//! MMAP2 of it over the code's addresses, timed by the record's timestamp; the marker itself is
//! dropped, and so is every later MMAP of anonymous memory (`//anon`, `[anon:`, `/memfd:`) of the
//! process. [`JitInjector`] makes the same maps from the dump, in memory, as the records stream by:
//! folding the original recording gives what perf gives for the injected one (same names, same
//! `jitted-PID-INDEX.so` modules), and a recording already injected needs nothing from here
//! (its `jitted-*.so` files are found like any binary: build-id cache, path, `--symfs`).
//!
//! Where the dump has no code (a JIT region it never describes, code from before the marker), the
//! process's anonymous executable maps remain, named `/tmp/perf-PID.map` as perf names them: a perf
//! map beside a jitdump names exactly what the dump does not, as after `perf inject --jit`.
//!
//! As in perf 6.1 (checked against it with testdata/folded/jitdump/synth.py): records after the
//! first one without a body (JIT_CODE_CLOSE: perf takes its 0-byte `fread` for a failure) are not
//! used; a `jitted-PID-INDEX.so` holds the name and size of the last load with its index, and all
//! its maps (moves, earlier loads) resolve with those; after an UNWINDING_INFO with a
//! `mapped_size` the next map covers `ALIGN_8(code_size) + mapped_size`, its symbol `code_size`.
//!
//! Where this differs from perf 6.1 (for files perf refuses or misreads):
//! - the dump is looked up under `--symfs` when one is given (perf inject uses the path as is);
//! - a dump that cannot be read is reported and skipped (perf inject fails altogether), and so is one
//!   perf refuses: version above 1, unknown flags, arch timestamps without TIME_CONV, or (without
//!   arch timestamps) an event not recorded with `-k mono` (`CLOCK_MONOTONIC`);
//! - a record whose body does not parse is reported and skipped (perf would read past it);
//! - code loaded before the marker's time (the agent maps the marker before writing records, so
//!   only a skewed clock does this) takes effect at the marker, not earlier;
//! - sizes of 2 GiB or more, which perf truncates to `int`, are kept whole;
//! - pid namespaces are not looked into: the dump's pid must be the MMAP's (or the MMAP's 0).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Error, SymbolizeOptions};
use perfdata_core::event::Event;
use perfdata_core::jitdump::{flags, JitDump, JitRecordKind, PREFIX_SIZE};
use perfdata_core::process::{JitSymbol, MachineEvent, Map};
use perfdata_core::record::{Record, RecordKind, TimeConvRecord};

/// `GEN_ELF_TEXT_OFFSET` of perf's genelf.c on 64-bit hosts: where the code starts in a
/// `jitted-*.so` file, and the `pgoff` of its maps.
pub const ELF_TEXT_OFFSET: u64 = 0x80;

/// `CLOCK_MONOTONIC`: the clock jitdump timestamps are in, unless the dump says otherwise.
const CLOCK_MONOTONIC: i32 = 1;

/// Most diagnostics kept per dump (then one line with the count of the rest).
const MAX_DIAGNOSTICS_PER_DUMP: usize = 8;

/// The pid in a marker's file name: `…/jit-PID.dump` (perf's `jit_detect`).
pub fn marker_pid(filename: &str) -> Option<u32> {
    let (_, base) = filename.rsplit_once('/')?;
    let digits = base.strip_prefix("jit-")?.strip_suffix(".dump")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// perf's `tsc_to_perf_time` with the conversion of a TIME_CONV record (as `convert_timestamp` in
/// perf's jitdump.c sets it up: a TIME_CONV with the `time_cycles` fields but without
/// `cap_user_time_zero` gives 0).
pub fn tsc_to_perf_time(cycles: u64, tc: &TimeConvRecord) -> u64 {
    let mut cyc = cycles;
    if let (Some(time_cycles), Some(mask)) = (tc.time_cycles, tc.time_mask) {
        if tc.cap_user_time_zero == Some(0) {
            return 0;
        }
        if tc.cap_user_time_short.is_some_and(|s| s != 0) {
            cyc = time_cycles.wrapping_add(cyc.wrapping_sub(time_cycles) & mask);
        }
    }
    let shift = u32::try_from(tc.time_shift).unwrap_or(u32::MAX).min(63);
    let quot = cyc >> shift;
    let rem = cyc & ((1u64 << shift) - 1);
    tc.time_zero.wrapping_add(quot.wrapping_mul(tc.time_mult)).wrapping_add(rem.wrapping_mul(tc.time_mult) >> shift)
}

/// `dirname(3)` of a marker path (which always has a `/`): `/a/b/jit-1.dump` → `/a/b`, `/jit-1.dump` → `/`.
fn dirname(path: &str) -> &str {
    let dir = path.rfind('/').and_then(|i| path.get(..i)).unwrap_or("").trim_end_matches('/');
    if dir.is_empty() {
        "/"
    } else {
        dir
    }
}

/// Turns the markers of a recording into the maps `perf inject --jit` would add: feed it every
/// record in time order ([`JitInjector::record`]); it hands on the machine changes to apply, the
/// JIT code maps among them when their time comes.
#[derive(Debug)]
pub struct JitInjector {
    symfs: Option<PathBuf>,
    /// An unpacked symbol archive, whose `jitdump/` is looked in first.
    archive: Option<PathBuf>,
    /// Where the dumps read are noted, for `perfdata archive`.
    read_log: Option<crate::archive::ReadLog>,
    /// Files held in memory ([`SymbolizeOptions::files`]).
    files: Option<Arc<crate::files::MemFiles>>,
    enabled: bool,
    /// Why perf would refuse a dump with `CLOCK_MONOTONIC` timestamps for this recording.
    clock_refusal: Option<String>,
    time_conv: Option<TimeConvRecord>,
    /// Code maps waiting for their time, by (time, arrival).
    pending: BTreeMap<(u64, u64), MachineEvent>,
    arrivals: u64,
    /// Processes whose dump was read: their later anonymous mmaps are dropped.
    injected: HashSet<u32>,
    diagnostics: Vec<String>,
    /// The dumps that could not be used, and why.
    errors: Vec<Error>,
}

impl JitInjector {
    /// An injector for a recording with these events; `opts.symfs` is where dumps are looked
    /// up, `opts.ignore_jitdump` turns it into a pass-through.
    pub fn new(events: &[Event], opts: &SymbolizeOptions) -> JitInjector {
        let clock_refusal = events
            .iter()
            .find(|e| !e.attr.use_clockid() || e.attr.clockid != CLOCK_MONOTONIC)
            .map(|e| format!("event {} was not recorded with -k mono (CLOCK_MONOTONIC)", e.display_name()));
        JitInjector {
            symfs: opts.symfs.clone(),
            archive: opts.archive.clone(),
            read_log: opts.read_log.clone(),
            files: opts.files.clone(),
            enabled: !opts.ignore_jitdump,
            clock_refusal,
            time_conv: None,
            pending: BTreeMap::new(),
            arrivals: 0,
            injected: HashSet::new(),
            diagnostics: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// What was wrong with the dumps found so far (unreadable, refused, damaged).
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// The dumps that could not be used, one [`Error`] each ([`Error::JitdumpUnreadable`],
    /// [`Error::JitdumpRefused`]): their JIT code keeps the names perf gives it without
    /// `perf inject --jit` (a perf map's, else none).
    ///
    /// ```
    /// use perfdata_symbolize::{jit::JitInjector, SymbolizeOptions};
    /// let injector = JitInjector::new(&[], &SymbolizeOptions::default());
    /// assert!(injector.errors().is_empty());
    /// ```
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// Take one record (in time order): `apply` gets, in order, the JIT code maps due by its
    /// time, then the record's own change to the machine unless perf inject drops it.
    pub fn record(&mut self, record: &Record, apply: &mut dyn FnMut(MachineEvent)) {
        // Nearly every record: a sample with nothing pending to release before it.
        if self.pending.is_empty() && matches!(record.kind, RecordKind::Sample(_)) {
            return;
        }
        let time = record.time();
        if let Some(t) = time {
            self.release(t, apply);
        }
        let mmap = match &record.kind {
            RecordKind::TimeConv(t) => {
                self.time_conv = Some(*t);
                None
            }
            RecordKind::Mmap(m) => Some((m.pid, m.filename)),
            RecordKind::Mmap2(m) => Some((m.pid, m.filename)),
            _ => None,
        };
        if let Some((pid, filename)) = mmap.filter(|_| self.enabled) {
            let name = String::from_utf8_lossy(filename);
            let anon = ["//anon", "[anon:", "/memfd:"].iter().any(|p| name.starts_with(p));
            if anon && self.injected.contains(&pid) {
                return;
            }
            if marker_pid(&name).is_some_and(|p| pid == 0 || p == pid) && self.inject(&name, pid, time) {
                self.release(time.unwrap_or(u64::MAX), apply);
                return;
            }
        }
        if let Some(e) = MachineEvent::from_record(record) {
            apply(e);
        }
    }

    /// Hand on the pending maps with a time up to `time`.
    fn release(&mut self, time: u64, apply: &mut dyn FnMut(MachineEvent)) {
        while let Some(entry) = self.pending.first_entry() {
            if entry.key().0 > time {
                break;
            }
            apply(entry.remove());
        }
    }

    fn diagnose(&mut self, what: String) {
        self.diagnostics.push(what);
    }

    /// Read the dump a marker names and queue its maps; false (with a diagnostic) when it cannot
    /// be used.
    fn inject(&mut self, marker: &str, marker_pid: u32, marker_time: Option<u64>) -> bool {
        let fs = crate::files::Fs(self.files.as_deref());
        // A symbol archive's copy first, then the recorded path (under --symfs).
        let archived = self.archive.as_ref().and_then(|a| {
            let f = a.join(crate::archive::JITDUMPS).join(Path::new(marker).file_name()?);
            fs.is_file(&f).then_some(f)
        });
        let path = match (archived, &self.symfs) {
            (Some(f), _) => f,
            (None, Some(root)) => root.join(marker.trim_start_matches('/')),
            (None, None) => PathBuf::from(marker),
        };
        let bytes = match fs.read(&path) {
            Ok(b) => {
                if let Some(log) = &self.read_log {
                    log.push(crate::archive::UsedFile {
                        kind: crate::archive::UsedKind::Jitdump,
                        path: path.clone(),
                        build_id: None,
                        dso: Some(marker.to_string()),
                    });
                }
                b
            }
            Err(e) => {
                self.diagnose(format!("jitdump {}: {e}; its JIT code is not named", path.display()));
                self.errors.push(Error::JitdumpUnreadable { path: Arc::from(path.as_path()), source: Arc::new(e) });
                return false;
            }
        };
        match self.queue_maps(bytes.as_slice(), &path, dirname(marker), marker_time) {
            Ok(()) => {
                self.injected.insert(marker_pid);
                true
            }
            Err(why) => {
                self.diagnose(format!("jitdump {}: {why}; not used", path.display()));
                self.errors.push(Error::JitdumpRefused { path: Arc::from(path.as_path()), reason: Arc::from(why) });
                false
            }
        }
    }

    /// Queue the maps of a dump's code loads and moves (perf's `jit_process_dump`).
    fn queue_maps(&mut self, bytes: &[u8], path: &Path, dir: &str, marker_time: Option<u64>) -> Result<(), String> {
        let dump = JitDump::parse(bytes).map_err(|e| e.to_string())?;
        let h = dump.header;
        if h.version > 1 {
            return Err(format!("version {} (perf reads version 1)", h.version));
        }
        if h.flags & !flags::KNOWN != 0 {
            return Err(format!("unknown flags {:#x}", h.flags & !flags::KNOWN));
        }
        let arch = h.flags & flags::ARCH_TIMESTAMP != 0;
        let time_conv = match (arch, self.time_conv) {
            (true, Some(tc)) if tc.time_mult != 0 => Some(tc),
            (true, _) => return Err("arch timestamps, and the recording has no TIME_CONV".into()),
            (false, _) => {
                if let Some(why) = &self.clock_refusal {
                    return Err(why.clone());
                }
                None
            }
        };
        let time = |ts: u64| time_conv.as_ref().map_or(ts, |tc| tsc_to_perf_time(ts, tc));
        // (time, pid, start, len, code_index) of each load and move, in file order.
        let mut placements = Vec::new();
        // The symbol of each jitted-PID-INDEX.so: the last load with that index wrote the file.
        let mut symbols: HashMap<u64, JitSymbol> = HashMap::new();
        // UNWINDING_INFO's sizes, for the next load (perf's `unwinding_mapped_size`).
        let (mut mapped, mut eh_frame_hdr) = (0u64, 0u64);
        let mut damaged = Vec::new();
        for record in dump.records() {
            let r = match record {
                Ok(r) => r,
                Err(e) => {
                    damaged.push(e.to_string());
                    continue;
                }
            };
            // perf's fread of a 0-byte body "fails": a record without a body (JIT_CODE_CLOSE)
            // ends what perf reads of the dump.
            if r.header.total_size as usize == PREFIX_SIZE {
                break;
            }
            let len = |size: u64| if mapped != 0 { size.saturating_add(7) & !7 } else { size }.saturating_add(mapped);
            match r.kind {
                JitRecordKind::CodeLoad(l) => {
                    placements.push((time(r.header.timestamp), l.pid, l.code_addr, len(l.code_size), l.code_index));
                    let name = String::from_utf8_lossy(l.name).into_owned();
                    symbols.insert(l.code_index, JitSymbol { name, size: l.code_size });
                    if eh_frame_hdr != 0 {
                        (mapped, eh_frame_hdr) = (0, 0);
                    }
                }
                JitRecordKind::CodeMove(m) => {
                    placements.push((time(r.header.timestamp), m.pid, m.new_code_addr, len(m.code_size), m.code_index));
                }
                JitRecordKind::UnwindingInfo(u) => (mapped, eh_frame_hdr) = (u.mapped_size, u.eh_frame_hdr_size),
                JitRecordKind::DebugInfo(_) | JitRecordKind::Close | JitRecordKind::Unknown(_) => {}
            }
        }
        for (i, d) in damaged.iter().enumerate() {
            if i == MAX_DIAGNOSTICS_PER_DUMP {
                self.diagnose(format!("jitdump {}: {} more damaged records", path.display(), damaged.len() - i));
                break;
            }
            self.diagnose(format!("jitdump {}: {d}", path.display()));
        }
        let mut shared: HashMap<u64, Arc<JitSymbol>> = HashMap::new();
        for (t, pid, start, len, index) in placements {
            let symbol = shared
                .entry(index)
                .or_insert_with(|| {
                    Arc::new(symbols.remove(&index).unwrap_or(JitSymbol { name: String::new(), size: 0 }))
                })
                .clone();
            // perf's "%s/jitted-%d-%" PRIu64 ".so" (so `//jitted-…` for a dump in `/`).
            let filename = format!("{dir}/jitted-{}-{index}.so", pid as i32);
            let map = Map {
                start,
                end: start.saturating_add(len),
                pgoff: ELF_TEXT_OFFSET,
                filename,
                build_id: None,
                identity: false,
                jit: Some(symbol),
            };
            // Code from before the marker takes effect with it.
            let t = marker_time.map_or(t, |m| t.max(m));
            self.pending.insert((t, self.arrivals), MachineEvent::Map { pid, map });
            self.arrivals = self.arrivals.wrapping_add(1);
        }
        Ok(())
    }
}

/// The name `addr` has in a JIT code map (`off`: its file offset, [`Map::map_ip`]).
pub fn symbol_at(symbol: &JitSymbol, off: u64) -> Option<&str> {
    let rel = off.checked_sub(ELF_TEXT_OFFSET)?;
    (rel < symbol.size).then_some(symbol.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_like_perf() {
        assert_eq!(marker_pid("/tmp/x/jit-123.dump"), Some(123));
        assert_eq!(marker_pid("/jit-7.dump"), Some(7));
        for not in ["jit-1.dump", "/tmp/jit-.dump", "/tmp/jit-1.dump.bak", "/tmp/xjit-1.dump", "/tmp/jit-1a.dump"] {
            assert_eq!(marker_pid(not), None, "{not}");
        }
        assert_eq!(
            (dirname("/a/b/jit-1.dump"), dirname("/jit-1.dump"), dirname("/a//jit-1.dump")),
            ("/a/b", "/", "/a")
        );
    }

    #[test]
    fn tsc_conversion() {
        let tc = TimeConvRecord {
            time_shift: 10,
            time_mult: 2048,
            time_zero: 100,
            time_cycles: None,
            time_mask: None,
            cap_user_time_zero: None,
            cap_user_time_short: None,
        };
        assert_eq!(tsc_to_perf_time(1000, &tc), 2100);
        let zero = TimeConvRecord { time_cycles: Some(0), time_mask: Some(!0), cap_user_time_zero: Some(0), ..tc };
        assert_eq!(tsc_to_perf_time(1000, &zero), 0);
    }

    /// A marker whose dump is missing, and one whose dump is not a jitdump: each an [`Error`].
    #[test]
    fn unusable_dumps_are_errors() {
        let dir = std::env::temp_dir().join(format!("perfdata-jit-errors-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        std::fs::write(dir.join("tmp/jit-8.dump"), b"not a jitdump").unwrap();
        let opts = SymbolizeOptions { symfs: Some(dir.clone()), ..Default::default() };
        let mut j = JitInjector::new(&[], &opts);
        assert!(!j.inject("/tmp/jit-7.dump", 7, None));
        assert!(!j.inject("/tmp/jit-8.dump", 8, None));
        let [missing, refused] = j.errors() else { panic!("{:?}", j.errors()) };
        let Error::JitdumpUnreadable { path, source } = missing else { panic!("{missing}") };
        assert_eq!((&**path, source.kind()), (dir.join("tmp/jit-7.dump").as_path(), std::io::ErrorKind::NotFound));
        let Error::JitdumpRefused { path, .. } = refused else { panic!("{refused}") };
        assert_eq!(&**path, dir.join("tmp/jit-8.dump"));
        assert!(refused.to_string().starts_with(&format!("jitdump {} not used: ", path.display())), "{refused}");
        assert_eq!(j.diagnostics().len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn symbol_range() {
        let s = JitSymbol { name: "f".into(), size: 4 };
        assert_eq!(symbol_at(&s, 0x7f), None);
        assert_eq!(symbol_at(&s, 0x80), Some("f"));
        assert_eq!(symbol_at(&s, 0x83), Some("f"));
        assert_eq!(symbol_at(&s, 0x84), None);
    }
}
