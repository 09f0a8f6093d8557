//! The scheduler event stream the analyses share: records in time order, the sched tracepoints
//! decoded by field name from the recording's own formats, and perf's thread table (comm, pid,
//! exit) kept up to date from COMM/FORK/EXIT records as perf's session does.

use super::state::TaskStates;
use crate::latency::tp::{has_event, Loc, PerEvent, TpSource};
use crate::latency::ShortStr;
use crate::Error;
use perfdata_core::process::{Machine, MachineEvent};
use perfdata_core::{Extract, ParExtract, Parallel, PerfFile, ReadOptions, RecordKind, RecordRef};

/// One sched tracepoint sample, its fields read by name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev<'a> {
    /// `sched:sched_switch`.
    Switch { prev_pid: u32, prev_state: u64, next_pid: u32, next_comm: &'a [u8] },
    /// `sched:sched_waking` / `sched_wakeup` / `sched_wakeup_new`: `pid` becomes runnable.
    Wakeup { pid: u32, kind: WakeKind },
    /// `sched:sched_migrate_task`.
    Migrate { pid: u32, orig_cpu: u32, dest_cpu: u32 },
    /// `sched:sched_stat_runtime`.
    Runtime { pid: u32, runtime: u64 },
}

/// Which wakeup tracepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

/// The sample around an [`Ev`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub time: u64,
    pub cpu: u32,
    pub pid: u32,
    pub tid: u32,
    /// The recording has `sched:sched_waking` (timehist and the modern latency then ignore
    /// `sched_wakeup`).
    pub has_waking: bool,
}

/// What the stream tells an analysis.
pub(crate) trait Handler {
    /// A sched tracepoint sample. `states` describes the `prev_state` bits of the recording.
    fn event(&mut self, at: &At, ev: Ev<'_>, machine: &Machine, states: &TaskStates);
    /// A COMM record named `tid` (after the thread table took it).
    fn comm(&mut self, _tid: u32) {}
    /// A FORK record: `tid` was created by thread `ptid` (perf's `thread->ppid`).
    fn fork(&mut self, _tid: u32, _ptid: u32) {}
    /// A LOST record.
    fn lost(&mut self, _lost: u64) {}
}

/// What the stream saw besides the events.
#[derive(Clone, Debug, Default)]
pub(crate) struct StreamInfo {
    /// Every record (perf's `nr_events`, the denominator of the lost-events line).
    pub records: u64,
    /// Events lost (LOST records' counts).
    pub lost_events: u64,
    /// LOST records.
    pub lost_chunks: u64,
    /// The recording has `sched:sched_waking`.
    pub has_waking: bool,
    /// Why reading stopped early (a truncated or corrupt file), if it did: every complete record
    /// before it was analysed.
    pub diagnostics: Vec<String>,
    /// The final thread table.
    pub machine: Machine,
}

#[derive(Clone, Copy)]
enum Fields {
    Switch { prev_pid: Loc, prev_state: Loc, next_pid: Loc, next_comm: Loc, states: StatesIdx },
    Wake { pid: Loc, kind: WakeKind },
    Migrate { pid: Loc, orig_cpu: Loc, dest_cpu: Loc },
    Runtime { pid: Loc, runtime: Loc },
}

/// Index into the list of state tables (one per sched_switch format; a file has one).
type StatesIdx = usize;

/// Records held for time ordering. `perf sched record` uses 4 MiB buffers per CPU (`-m 1024`),
/// more with `-m`, so one round between markers can hold far more than the reader's default
/// window; perf's own queue is unbounded. 4 Mi records keep perf's order on such files (the queue
/// holds small keys into the mapped file, not copies of the records).
const WINDOW: usize = 1 << 22;

/// Tracepoints the analyses need, for the error when one is missing.
pub(crate) const SWITCH: &str = "sched_switch";

/// Feed `h` every sched event of `file` in time order. Fails only when the file cannot be opened
/// for reading or lacks `sched:sched_switch`; a corrupt record ends the stream with a diagnostic.
///
/// The sched samples' fields (and the thread-table records) are taken out of the records in file
/// order, while each record is in the cache; only those small values are put in time order.
pub(crate) fn drive(file: &PerfFile, h: &mut impl Handler) -> Result<StreamInfo, Error> {
    drive_par(file, Parallel::default(), h)
}

/// [`drive`] with the records read by worker threads as `par` says.
pub(crate) fn drive_par(file: &PerfFile, par: Parallel, h: &mut impl Handler) -> Result<StreamInfo, Error> {
    let mut extract = Extractor {
        tps: TpSource::new(file),
        fields: PerEvent::new(),
        tables: Vec::new(),
        waking: None,
        records: 0,
        errors: Vec::new(),
    };
    // Every event resolved before the reading starts: the copies that read chunks on other
    // threads then number the state tables alike.
    for ev in file.events() {
        let tables = &mut extract.tables;
        extract.fields.get_ref(ev, extract.tps.get(), |fmt| resolve(fmt, tables));
    }
    extract.waking = Some(has_event(file.events(), extract.tps.get(), "sched", "sched_waking"));
    let opts = ReadOptions { window_records: WINDOW, ..Default::default() };
    // A `move` closure: the analysis state lives in it, not behind captured references.
    file.ordered_par(opts, par, extract, move |recs| {
        let mut info = StreamInfo { machine: Machine::new(), ..Default::default() };
        let default_states = TaskStates::default();
        while let Some(item) = recs.next() {
            let item = match item {
                Ok(item) => item,
                // A framing error ends the reading; what was queued for time order still comes.
                Err(e) => {
                    info.diagnostics.push(e.to_string());
                    continue;
                }
            };
            if recs.extractor().errors.len() > MAX_ERRORS {
                break;
            }
            match item {
                Item::Sched { at, ev, states } => {
                    let states = recs.extractor().tables.get(usize::from(states)).unwrap_or(&default_states);
                    info.has_waking |= at.has_waking;
                    h.event(&at, ev.as_ev(), &info.machine, states);
                }
                Item::Thread(e) => {
                    // What the handler hears of it, once the thread table took it.
                    let tell = match *e {
                        MachineEvent::Fork { tid, ptid, .. } => Some((tid, Some(ptid))),
                        MachineEvent::Comm { tid, .. } => Some((tid, None)),
                        _ => None,
                    };
                    info.machine.apply(*e);
                    match tell {
                        Some((tid, Some(ptid))) => h.fork(tid, ptid),
                        Some((tid, None)) => h.comm(tid),
                        None => {}
                    }
                }
                Item::Lost(lost) => {
                    info.lost_events = info.lost_events.saturating_add(lost);
                    info.lost_chunks += 1;
                    h.lost(lost);
                }
            }
        }
        let extract = recs.extractor();
        info.records = extract.records;
        info.diagnostics.extend(extract.errors.iter().cloned());
        info.diagnostics.extend(recs.diagnostics());
        let mut seen = std::collections::HashSet::new();
        info.diagnostics.retain(|d| seen.insert(d.clone()));
        if !has_event(recs.events(), extract.tps.get(), "sched", SWITCH) {
            let damaged = !file.diagnostics().is_empty() || !info.diagnostics.is_empty();
            return Err(crate::error::missing_event(
                file,
                "sched:sched_switch",
                damaged,
                extract.tps.get().is_none(),
                "`perf sched record` (or `perf record -e sched:sched_switch -e sched:sched_waking -e \
                 sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_stat_runtime -a`)",
            ));
        }
        Ok(info)
    })?
}

/// Most diagnostics collected before the stream gives up on a damaged file.
const MAX_ERRORS: usize = 1000;

/// [`Ev`] with the switch's `next_comm` kept inline, to be queued for time order.
#[derive(Clone, Copy, Debug)]
enum OwnedEv {
    Switch { prev_pid: u32, prev_state: u64, next_pid: u32, next_comm: ShortStr },
    Other(Ev<'static>),
}

impl OwnedEv {
    fn as_ev(&self) -> Ev<'_> {
        match self {
            OwnedEv::Switch { prev_pid, prev_state, next_pid, next_comm } => Ev::Switch {
                prev_pid: *prev_pid,
                prev_state: *prev_state,
                next_pid: *next_pid,
                next_comm: next_comm.as_bytes(),
            },
            OwnedEv::Other(e) => *e,
        }
    }
}

/// What the stream queues for time order.
enum Item {
    /// A sched tracepoint sample (`states`: its sched_switch format's state table).
    Sched { at: At, ev: OwnedEv, states: u16 },
    /// A COMM, FORK or EXIT record, for the thread table (boxed: they are few, samples many).
    Thread(Box<MachineEvent>),
    /// A LOST record's count.
    Lost(u64),
}

/// Takes the sched events out of the records (in file order).
#[derive(Clone)]
struct Extractor {
    tps: TpSource,
    fields: PerEvent<Fields>,
    /// One `prev_state` table per sched_switch format (a file has one).
    tables: Vec<TaskStates>,
    /// Whether the events include sched_waking (known at the first sample).
    waking: Option<bool>,
    /// Records read without error (perf's `nr_events`).
    records: u64,
    errors: Vec<String>,
}

impl Extractor {
    fn error(&mut self, e: perfdata_core::Error) {
        if self.errors.len() <= MAX_ERRORS {
            self.errors.push(e.to_string());
        }
    }

    fn sample(&mut self, r: &RecordRef<'_>, s: &perfdata_core::Sample<'_>) -> Option<Item> {
        let ev = r.event()?;
        let tables = &mut self.tables;
        let f = *self.fields.get_ref(ev, self.tps.get(), |fmt| resolve(fmt, tables))?;
        let (raw, time, endian) = (s.raw()?, s.time()?, r.endian());
        let has_waking =
            *self.waking.get_or_insert_with(|| has_event(&r.events().events, self.tps.get(), "sched", "sched_waking"));
        let at =
            At { time, cpu: s.cpu().unwrap_or(0), pid: s.pid().unwrap_or(0), tid: s.tid().unwrap_or(0), has_waking };
        let u32_of = |l: Loc| l.uint(raw, endian).map(|v| v as u32);
        let (ev, states) = match f {
            Fields::Switch { prev_pid, prev_state, next_pid, next_comm, states } => {
                let ev = OwnedEv::Switch {
                    prev_pid: u32_of(prev_pid)?,
                    prev_state: prev_state.uint(raw, endian)?,
                    next_pid: u32_of(next_pid)?,
                    next_comm: ShortStr::new(next_comm.bytes(raw).unwrap_or(&[])),
                };
                (ev, states)
            }
            Fields::Wake { pid, kind } => (OwnedEv::Other(Ev::Wakeup { pid: u32_of(pid)?, kind }), 0),
            Fields::Migrate { pid, orig_cpu, dest_cpu } => {
                let ev = Ev::Migrate { pid: u32_of(pid)?, orig_cpu: u32_of(orig_cpu)?, dest_cpu: u32_of(dest_cpu)? };
                (OwnedEv::Other(ev), 0)
            }
            Fields::Runtime { pid, runtime } => {
                (OwnedEv::Other(Ev::Runtime { pid: u32_of(pid)?, runtime: runtime.uint(raw, endian)? }), 0)
            }
        };
        Some(Item::Sched { at, ev, states: u16::try_from(states).unwrap_or(u16::MAX) })
    }
}

impl ParExtract<Item> for Extractor {
    /// Records read, and the errors.
    type Part = (u64, Vec<String>);

    fn fork(&self) -> Self {
        Extractor { records: 0, errors: Vec::new(), ..self.clone() }
    }

    fn take_part(&mut self) -> (u64, Vec<String>) {
        (std::mem::take(&mut self.records), std::mem::take(&mut self.errors))
    }

    fn join_part(&mut self, (records, errors): (u64, Vec<String>)) {
        self.records = self.records.saturating_add(records);
        let room = (MAX_ERRORS + 1).saturating_sub(self.errors.len());
        self.errors.extend(errors.into_iter().take(room));
    }
}

impl Extract<Item> for Extractor {
    fn extract(&mut self, r: &RecordRef<'_>) -> Option<Item> {
        if self.tps.observe_ref(r) {
            self.fields.clear();
            self.waking = None;
        }
        if let Some(s) = r.sample() {
            return match s {
                Ok(s) => {
                    self.records += 1;
                    self.sample(r, &s)
                }
                Err(e) => {
                    self.error(e);
                    None
                }
            };
        }
        use perfdata_core::record::record_type as rt;
        match r.type_() {
            rt::COMM | rt::FORK | rt::EXIT | rt::LOST => {}
            // Counted as perf counts them; decoded only to know they are whole.
            _ => {
                match r.decode() {
                    Ok(_) => self.records += 1,
                    Err(e) => self.error(e),
                }
                return None;
            }
        }
        let rec = match r.decode() {
            Ok(rec) => rec,
            Err(e) => {
                self.error(e);
                return None;
            }
        };
        self.records += 1;
        match &rec.kind {
            RecordKind::Lost(l) => Some(Item::Lost(l.lost)),
            _ => MachineEvent::from_record(&rec).map(|e| Item::Thread(Box::new(e))),
        }
    }
}

fn resolve(fmt: &perfdata_core::tracepoint::Format, tables: &mut Vec<TaskStates>) -> Option<Fields> {
    if fmt.system != "sched" {
        return None;
    }
    match fmt.name.as_str() {
        SWITCH => {
            tables.push(TaskStates::from_format(fmt));
            Some(Fields::Switch {
                prev_pid: Loc::of(fmt, "prev_pid")?,
                prev_state: Loc::of(fmt, "prev_state")?,
                next_pid: Loc::of(fmt, "next_pid")?,
                next_comm: Loc::of(fmt, "next_comm")?,
                states: tables.len() - 1,
            })
        }
        "sched_waking" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::Waking }),
        "sched_wakeup" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::Wakeup }),
        "sched_wakeup_new" => Some(Fields::Wake { pid: Loc::of(fmt, "pid")?, kind: WakeKind::WakeupNew }),
        "sched_migrate_task" => Some(Fields::Migrate {
            pid: Loc::of(fmt, "pid")?,
            orig_cpu: Loc::of(fmt, "orig_cpu")?,
            dest_cpu: Loc::of(fmt, "dest_cpu")?,
        }),
        "sched_stat_runtime" => Some(Fields::Runtime { pid: Loc::of(fmt, "pid")?, runtime: Loc::of(fmt, "runtime")? }),
        _ => None,
    }
}

/// Most CPUs the per-CPU tables hold (perf's `MAX_CPUS`); events on higher CPU numbers are
/// skipped (perf stops with a BUG_ON).
pub(crate) const MAX_CPUS: u32 = 4096;

/// A per-CPU table grown on demand up to [`MAX_CPUS`].
#[derive(Clone, Debug, Default)]
pub(crate) struct PerCpu<T> {
    v: Vec<T>,
}

impl<T: Default + Clone> PerCpu<T> {
    pub(crate) fn get_mut(&mut self, cpu: u32) -> Option<&mut T> {
        if cpu >= MAX_CPUS {
            return None;
        }
        let i = cpu as usize;
        if self.v.len() <= i {
            self.v.resize(i + 1, T::default());
        }
        self.v.get_mut(i)
    }

    pub(crate) fn get(&self, cpu: u32) -> Option<&T> {
        self.v.get(cpu as usize)
    }

    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }
}

/// perf's `timestamp__scnprintf_usec`: `sec.usec`, truncated.
pub(crate) fn secs_usec(ns: u64) -> String {
    let mut s = String::with_capacity(24);
    push_secs_usec(&mut s, ns, 0);
    s
}

/// Append `sec.usec` (truncated) right-aligned in `width`.
pub(crate) fn push_secs_usec(o: &mut String, ns: u64, width: usize) {
    let (sec, usec) = (ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
    let len = digits(sec) + 7;
    pad(o, width.saturating_sub(len));
    push_uint(o, sec, 0);
    o.push('.');
    push_uint(o, usec, 6);
}

/// perf's `print_sched_time(ns, width)`: `msec.usec` (truncated), the msec part right-aligned in
/// `width`, and a trailing space.
pub(crate) fn sched_time(o: &mut String, ns: u64, width: usize) {
    let (ms, us) = (ns / 1_000_000, ns % 1_000_000 / 1000);
    pad(o, width.saturating_sub(digits(ms)));
    push_uint(o, ms, 0);
    o.push('.');
    push_uint(o, us, 3);
    o.push(' ');
}

/// Append `n` spaces.
pub(crate) fn pad(o: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        o.push_str(SPACES.get(..k).unwrap_or(""));
        n -= k;
    }
}

/// Decimal digits of `v`.
pub(crate) fn digits(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Append `v` in decimal with at least `zeros` digits (zero-padded): what `{:0N}` prints, without
/// going through `core::fmt` (the rows of map and timehist are a million lines on big files).
pub(crate) fn push_uint(o: &mut String, v: u64, zeros: usize) {
    let mut buf = itoa::Buffer::new();
    let s = buf.format(v);
    pad_with(o, '0', zeros.saturating_sub(s.len()));
    o.push_str(s);
}

/// Append `n` copies of `c`.
fn pad_with(o: &mut String, c: char, n: usize) {
    for _ in 0..n {
        o.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event a stream tells, as text.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Handler for Log {
        fn event(&mut self, at: &At, ev: Ev<'_>, machine: &Machine, states: &TaskStates) {
            let comm = machine.comm(at.tid);
            self.0.push(format!("{at:?} {ev:?} {comm:?} {:?}", states));
        }
        fn comm(&mut self, tid: u32) {
            self.0.push(format!("comm {tid}"));
        }
        fn fork(&mut self, tid: u32, ptid: u32) {
            self.0.push(format!("fork {tid} {ptid}"));
        }
        fn lost(&mut self, lost: u64) {
            self.0.push(format!("lost {lost}"));
        }
    }

    #[test]
    fn chunks_read_in_parallel_tell_what_one_thread_tells() {
        // Chunks of 256 bytes: nearly every round of the recordings is a chunk of its own.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        for name in ["sched.data", "sched-mix.data", "offcpu.data"] {
            let file = PerfFile::open(dir.join(name)).unwrap();
            let run = |par: Parallel| {
                let mut log = Log::default();
                let info = drive_par(&file, par, &mut log).unwrap();
                (log.0, info.records, info.lost_events, info.has_waking, info.diagnostics)
            };
            let one = run(Parallel { threads: 1, ..Default::default() });
            let par = run(Parallel { threads: 2, chunk_bytes: 256, min_bytes: 0, max_chunk_bytes: usize::MAX });
            assert!(one.0.len() > 100, "{name}: {} events", one.0.len());
            assert_eq!(one, par, "{name}");
        }
    }

    #[test]
    fn formats_like_printf() {
        for v in [0u64, 7, 10, 999, 1000, 123_456_789, u64::MAX] {
            for z in [0, 3, 6] {
                let mut s = String::new();
                push_uint(&mut s, v, z);
                assert_eq!(s, format!("{v:0z$}"));
            }
        }
        let mut s = String::new();
        push_secs_usec(&mut s, 3_117_201_023_941, 15);
        assert_eq!(s, "    3117.201023");
        s.clear();
        sched_time(&mut s, 5_899_999, 6);
        assert_eq!(s, "     5.899 ");
        s.clear();
        pad(&mut s, 100);
        assert_eq!(s.len(), 100);
    }
}
