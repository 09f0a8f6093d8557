//! pprof's profile format (`profile.proto`, gzipped), the one `go tool pprof` and most profile
//! viewers open: the samples of `perfdata folded`, with the same filters and frame names, as
//! pprof samples of locations (one per distinct mapping, address and frame text; inline frames
//! are `Line`s of one location, innermost first) with their mappings (start, limit, file offset,
//! file, build id) and labels `comm`, `pid`, `tid`, `cpu` (and `event` when several events are
//! kept). Values: `samples/count` and, per event kept, `<event>/nanoseconds` for cpu-clock and
//! task-clock, `<event>/count` for others: the sum of the samples' periods (the weight
//! `perfdata folded --weight period` gives them). Identical (stack, labels) samples are one.
//!
//! Every event's samples are kept unless the options name one ([`EventFilter::Name`]): the
//! first-seen event of the stackcollapse-perf.pl preset is taken as every event, as
//! `perfdata folded --all-events` (each event a value column of its own: the columns' sums are
//! `perfdata folded --event-filter EVENT --weight period`'s).
//!
//! The profile's `period_type` is the first kept event's column (type and unit), its `period`
//! that event's `sample_period` when recorded with a fixed period (`perf record -c N`), else
//! (frequency mode, `-F`) the mean period of its samples in the profile, rounded (what
//! `go tool pprof -raw` shows as `Period:`; 0 without samples).
//!
//! The first mapping (id 1, the one `go tool pprof` names in `File:`) is the profiled program:
//! per sample, the outermost frame's mapping that is a user-space file other than a shared
//! library (pprof's own rule: not `*.so`, `*.so.N`, nor `[…]`, nor a JIT map), the file with the
//! most samples so, and of its mappings the one with the most. The others follow in the order
//! they were met. Without such a mapping (kernel-only samples, say), the order is the order met.
//!
//! Function names are the frame texts `perfdata folded` writes (so `[libc.so.6]` for an
//! unresolved address under the default options): `go tool pprof -raw`/`-traces` then give, per
//! comm and stack, the weights of `perfdata folded` on the same file and options. Folded's root
//! frame (`comm`, `comm-PID/TID`) is no frame here: comm, pid and tid are labels.
//!
//! ```no_run
//! use perfdata_analysis::export::pprof::pprof;
//! use perfdata_analysis::folded::FoldedOptions;
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let out = pprof(&file, &FoldedOptions::default())?;
//! std::fs::write("profile.pb.gz", &out.gzipped)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod gzip;
pub mod proto;

use crate::arena::{bump, prefetch, word64, ArenaTable};
use crate::options::{EventFilter, FoldedOptions, Weight};
use crate::stacks::{feature_build_ids, fold_sites, FrameSite, SampleSink, SiteSample, Sites};
use crate::{Error, Result};
use perfdata_core::PerfFile;
use perfdata_symbolize::FastMap;
use prost::Message;
use std::collections::HashMap;
use std::rc::Rc;

/// An exported profile.
#[derive(Clone, Debug)]
pub struct Pprof {
    /// The gzipped `profile.proto` bytes (what `go tool pprof` reads).
    pub gzipped: Vec<u8>,
    /// Its samples (distinct stacks and labels).
    pub samples: usize,
    /// What went wrong on the way without stopping it (as `FoldedStacks::diagnostics`).
    pub diagnostics: Vec<String>,
}

/// The string table: index 0 is `""`.
struct Strings {
    ids: FastMap<String, i64>,
    table: Vec<String>,
}

impl Strings {
    fn new() -> Self {
        let mut ids = FastMap::default();
        ids.insert(String::new(), 0);
        Strings { ids, table: vec![String::new()] }
    }

    fn id(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.ids.insert(s.to_string(), i);
        i
    }
}

/// (start, limit, file offset, file name) of a mapping.
type MappingKey = (u64, u64, u64, i64);

/// The locations, functions and mappings the folded frames make ([`Sites`]).
struct Tables {
    strings: Strings,
    build_ids: HashMap<String, Vec<u8>>,
    inline: bool,
    mappings: FastMap<MappingKey, u64>,
    mapping: Vec<proto::Mapping>,
    /// By mapping id - 1: whether the mapping may be the program's (see the module's doc).
    program: Vec<bool>,
    functions: FastMap<i64, u64>,
    function: Vec<proto::Function>,
    /// The function of each folded label (index: the label's; 0: not known yet).
    label_function: Vec<u64>,
    /// (mapping id, address (2 words), function ids innermost first) → index of the location.
    /// The keys are the locations: encoded once the mappings are numbered ([`write_profile`]).
    locations: ArenaTable<1>,
    state: ahash::RandomState,
    /// Scratch: a key of `locations`.
    key: Vec<u32>,
}

impl Tables {
    fn mapping(&mut self, f: &FrameSite<'_>) -> u64 {
        let (start, limit, offset, name) = match f.map {
            // The kernel's image and modules under perf's dso name (`[kernel.kallsyms]`, not the
            // MMAP record's `[kernel.kallsyms]_text`).
            Some(m) if f.kernel => (m.start, m.end, m.pgoff, f.dso),
            Some(m) => (m.start, m.end, m.pgoff, m.filename.as_str()),
            None if f.kernel => (0, u64::MAX, 0, f.dso),
            None => return 0,
        };
        let key = (start, limit, offset, self.strings.id(name));
        if let Some(&id) = self.mappings.get(&key) {
            return id;
        }
        let build_id: String = f
            .map
            .and_then(|m| m.build_id.as_deref())
            .or_else(|| self.build_ids.get(name).map(Vec::as_slice))
            .map_or_else(String::new, |b| b.iter().map(|x| format!("{x:02x}")).collect());
        let build_id = self.strings.id(&build_id);
        let id = self.mapping.len() as u64 + 1;
        self.mapping.push(proto::Mapping {
            id,
            memory_start: start,
            memory_limit: limit,
            file_offset: offset,
            filename: key.3,
            build_id,
            has_functions: true,
            has_filenames: false,
            has_line_numbers: false,
            has_inline_frames: self.inline,
        });
        self.program.push(!f.kernel && f.map.is_some_and(|m| m.jit.is_none()) && may_be_program(name));
        self.mappings.insert(key, id);
        id
    }

    /// The function of folded label `label` (`names[label]`).
    fn function(&mut self, label: u32, names: &[String]) -> u64 {
        if let Some(&id) = self.label_function.get(label as usize).filter(|&&id| id != 0) {
            return id;
        }
        let id = self.function_named(names.get(label as usize).map_or("", String::as_str));
        if let Some(e) = self.label_function.get_mut(label as usize) {
            *e = id;
        } else if self.label_function.len() == label as usize {
            self.label_function.push(id);
        } else {
            self.label_function.resize(label as usize, 0);
            self.label_function.push(id);
        }
        id
    }

    fn function_named(&mut self, name: &str) -> u64 {
        let name = self.strings.id(name);
        if let Some(&id) = self.functions.get(&name) {
            return id;
        }
        let id = self.function.len() as u64 + 1;
        // No system name: pprof takes a function whose name differs from it for demangled
        // already, and leaves it as it is (it would cut `<…>` and `(…)` out of an equal one).
        self.function.push(proto::Function { id, name, system_name: 0, filename: 0, start_line: 0 });
        self.functions.insert(name, id);
        id
    }
}

impl Sites for Tables {
    fn site(&mut self, f: FrameSite<'_>) -> u32 {
        let mapping_id = self.mapping(&f);
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        // Mapping and function ids count entries of tables: they fit in 32 bits.
        key.extend([mapping_id as u32, f.addr as u32, (f.addr >> 32) as u32]);
        for &l in f.labels {
            key.push(self.function(l, f.names) as u32);
        }
        let hash = self.state.hash_one(&key[..]);
        let i = match self.locations.find(hash, &key) {
            Ok(at) => self.locations.payload(at).and_then(|p| p.first().copied()).unwrap_or(u32::MAX),
            Err(slot) => {
                let i = u32::try_from(self.locations.entries).unwrap_or(u32::MAX);
                self.locations.insert(hash, &key, [i], slot);
                i
            }
        };
        self.key = key;
        i
    }
}

/// Whether a mapping of file `name` may be the profiled program's: a file (not `[vdso]`,
/// `[kernel.kallsyms]`, `//anon`, a `/tmp/perf-PID.map` JIT map) that is no shared library by
/// pprof's rule (its `libRx`, `\.so$|\.so[._][0-9]+`).
fn may_be_program(name: &str) -> bool {
    let name = name.trim_end_matches(" (deleted)").trim();
    if name.is_empty() || name.starts_with('[') || name.starts_with("//") || name.starts_with("/tmp/perf-") {
        return false;
    }
    let library = name.match_indices(".so").any(|(at, _)| match name.as_bytes().get(at + 3..).unwrap_or(&[]) {
        [] => true,
        [b'.' | b'_', d, ..] => d.is_ascii_digit(),
        _ => false,
    });
    !library
}

/// The mapping ids renumbered so that the profiled program's mapping is id 1 (see the module's
/// doc): by old id (index 0 unused), the new one. `locations` are the tables' (key: mapping id
/// first), `samples` the counter's; also the count and period sum of event `first`'s samples.
fn program_first(t: &Tables, samples: &ArenaTable<4>, first: Option<u32>) -> (Vec<u64>, u64, u64) {
    let n = t.mapping.len();
    // The mapping of each location (by index).
    let mut location_mapping = vec![0u32; t.locations.entries];
    for (_, key, payload) in t.locations.iter() {
        if let (Some(&m), Some(&i)) = (key.first(), payload.first()) {
            if let Some(e) = location_mapping.get_mut(i as usize) {
                *e = m;
            }
        }
    }
    let program = |m: u32| m != 0 && t.program.get(m as usize - 1).copied().unwrap_or(false);
    let mut per_mapping = vec![0u64; n + 1];
    let (mut first_count, mut first_period) = (0u64, 0u64);
    for (_, key, payload) in samples.iter() {
        let count = word64(payload, 0);
        if first.is_some() && key.get(4).copied() == first {
            first_count = first_count.saturating_add(count);
            first_period = first_period.saturating_add(word64(payload, 2));
        }
        let outermost = key
            .get(LABEL_WORDS..)
            .unwrap_or(&[])
            .iter()
            .rev()
            .map(|&l| location_mapping.get(l as usize).copied().unwrap_or(0))
            .find(|&m| program(m));
        if let Some(e) = outermost.and_then(|m| per_mapping.get_mut(m as usize)) {
            *e = e.saturating_add(count);
        }
    }
    // The file with the most samples (the first met of equals), then its mapping with the most.
    let mut per_file: Vec<(i64, u64)> = Vec::new();
    for (m, &c) in t.mapping.iter().zip(per_mapping.iter().skip(1)) {
        if c == 0 {
            continue;
        }
        match per_file.iter_mut().find(|(f, _)| *f == m.filename) {
            Some(e) => e.1 = e.1.saturating_add(c),
            None => per_file.push((m.filename, c)),
        }
    }
    let best_file = per_file.iter().fold(None, |b: Option<(i64, u64)>, &(f, c)| match b {
        Some((_, bc)) if bc >= c => b,
        _ => Some((f, c)),
    });
    let main = best_file.and_then(|(file, _)| {
        t.mapping
            .iter()
            .zip(per_mapping.iter().skip(1))
            .filter(|(m, _)| m.filename == file)
            .fold(None, |b: Option<(u64, u64)>, (m, &c)| match b {
                Some((_, bc)) if bc >= c => b,
                _ => Some((m.id, c)),
            })
            .map(|(id, _)| id)
    });
    let ids = (0..=n as u64)
        .map(|id| match main {
            Some(k) if id == k => 1,
            Some(k) if id != 0 && id < k => id + 1,
            _ => id,
        })
        .collect();
    (ids, first_count, first_period)
}

/// The words of a sample's key before its locations: pid, tid, has a cpu, cpu, event index,
/// comm (index in the comm table).
const LABEL_WORDS: usize = 6;

/// [`Counter::fates`]' count index for a sample the fold dropped.
const DROPPED: u32 = u32::MAX;

/// The distinct samples. The reader numbers the samples' raw keys ([`SampleSink::known`]): the
/// first sample of a number (and of a kernel generation) is folded into its labels and locations
/// (`samples`), the others are only counted.
struct Counter {
    /// Keys: labels ([`LABEL_WORDS`]) then locations, leaf first; payload: count (2), period (2).
    samples: ArenaTable<4>,
    state: ahash::RandomState,
    comms: Strings,
    last_comm: Option<(Rc<str>, u32)>,
    /// By raw key number: the kernel's generation when its first sample was folded, and the
    /// index of its count in `counts` ([`DROPPED`] if the fold dropped it).
    fates: Vec<Option<(u32, u32)>>,
    /// Count, period and `samples` entry of each raw key number (and kernel generation).
    counts: Vec<(u64, u64, u32)>,
    /// The sample [`SampleSink::known`] did not know: its raw key number and the kernel's generation.
    pending: Option<(u32, u32)>,
    /// The raw key numbers last seen ahead ([`SampleSink::ahead`]), a ring.
    ahead: [u32; COUNT_AHEAD],
    ahead_at: usize,
    /// Scratch: a key of `samples`.
    key: Vec<u32>,
    /// More distinct samples than 16 GiB of keys.
    full: bool,
}

/// How many samples after bringing in a raw key's fate [`Counter`] brings in its count.
const COUNT_AHEAD: usize = 8;

impl Counter {
    /// `words`: room for that many words of keys (see [`ArenaTable::with_capacity`]).
    fn new(words: usize) -> Self {
        Counter {
            samples: ArenaTable::with_capacity(words),
            state: ahash::RandomState::new(),
            comms: Strings::new(),
            last_comm: None,
            fates: Vec::new(),
            counts: Vec::new(),
            pending: None,
            ahead: [u32::MAX; COUNT_AHEAD],
            ahead_at: 0,
            key: Vec::new(),
            full: false,
        }
    }

    fn comm(&mut self, comm: &Rc<str>) -> u32 {
        match &self.last_comm {
            Some((c, id)) if Rc::ptr_eq(c, comm) => *id,
            _ => {
                let id = u32::try_from(self.comms.id(comm)).unwrap_or(u32::MAX);
                self.last_comm = Some((comm.clone(), id));
                id
            }
        }
    }

    /// What became of the first sample of raw key number `key` (folded at kernel generation `gen`).
    fn set_fate(&mut self, key: u32, gen: u32, count: u32) {
        let key = key as usize;
        if self.fates.len() <= key {
            self.fates.resize(key + 1, None);
        }
        if let Some(f) = self.fates.get_mut(key) {
            *f = Some((gen, count));
        }
    }

    /// The counts and periods added to their samples'.
    fn merge(&mut self) {
        for &(count, period, at) in &self.counts {
            bump(self.samples.payload(at as usize), count, period);
        }
    }
}

impl SampleSink for Counter {
    fn ahead(&mut self, key: u32) {
        // Two steps: this key's fate now, and the count of the one seen half as far ahead (its
        // fate brought in by then).
        if let Some(f) = self.fates.get(key as usize) {
            prefetch(f);
        }
        if let Some(&k) = self.ahead.get(self.ahead_at) {
            if let Some(&Some((_, c))) = self.fates.get(k as usize) {
                if let Some(e) = self.counts.get(c as usize) {
                    prefetch(e);
                }
            }
        }
        if let Some(k) = self.ahead.get_mut(self.ahead_at) {
            *k = key;
        }
        self.ahead_at = (self.ahead_at + 1) % COUNT_AHEAD;
    }

    fn known(&mut self, key: u32, weight: u64, kernel_gen: u32) -> bool {
        match self.fates.get(key as usize) {
            Some(&Some((gen, c))) if gen == kernel_gen => {
                if let Some(e) = self.counts.get_mut(c as usize) {
                    (e.0, e.1) = (e.0.saturating_add(1), e.1.saturating_add(weight));
                }
                true
            }
            _ => {
                self.pending = Some((key, kernel_gen));
                false
            }
        }
    }

    fn add(&mut self, s: &SiteSample<'_>) {
        let comm = self.comm(s.comm);
        let event = u32::try_from(s.event).unwrap_or(u32::MAX);
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        key.extend_from_slice(&[s.pid, s.tid, u32::from(s.cpu.is_some()), s.cpu.unwrap_or(0), event, comm]);
        key.extend_from_slice(s.locations);
        let hash = self.state.hash_one(&key[..]);
        let at = match self.samples.find(hash, &key) {
            Ok(at) => Some(at),
            Err(slot) => self.samples.insert(hash, &key, [0; 4], slot),
        };
        self.key = key;
        let (Some(at), Ok(c)) = (at.and_then(|at| u32::try_from(at).ok()), u32::try_from(self.counts.len())) else {
            self.full = true;
            return;
        };
        self.counts.push((1, s.weight, at));
        if let Some((key, gen)) = self.pending.take() {
            self.set_fate(key, gen, c);
        }
    }

    fn dropped(&mut self) {
        if let Some((key, gen)) = self.pending.take() {
            self.set_fate(key, gen, DROPPED);
        }
    }
}

/// What the samples' values and labels refer to: the events kept (a value column each, in the
/// file's order), the string ids of the comms (by comm table index) and of the kept events'
/// names, and of the label keys `comm`, `event`, `pid`, `tid`, `cpu`.
struct SampleLabels<'a> {
    kept: &'a [u32],
    comm_ids: Vec<i64>,
    event_ids: Vec<i64>,
    keys: [i64; 5],
}

/// Whether an event's periods are nanoseconds (the software clocks).
fn is_clock(name: &str) -> bool {
    name.starts_with("cpu-clock") || name.starts_with("task-clock")
}

/// The pprof profile of `file`'s samples, folded with `opts` (its weight option is ignored:
/// every profile has both sample counts and periods).
pub fn pprof(file: &PerfFile, opts: &FoldedOptions) -> Result<Pprof> {
    let mut fold = opts.clone();
    fold.weight = Weight::Period;
    if fold.event_filter == EventFilter::FirstSeen {
        fold.event_filter = EventFilter::All;
    }
    let mut t = Tables {
        strings: Strings::new(),
        build_ids: feature_build_ids(file),
        inline: opts.inline,
        mappings: FastMap::default(),
        mapping: Vec::new(),
        program: Vec::new(),
        functions: FastMap::default(),
        function: Vec::new(),
        label_function: Vec::new(),
        locations: ArenaTable::default(),
        state: ahash::RandomState::new(),
        key: Vec::new(),
    };
    // A sample's raw key has fewer words than its record, and its folded key no more than its raw
    // key: the distinct ones fit in the file's size.
    let mut counter = Counter::new(file.bytes().len() / 4);
    let (diagnostics, leftovers) = fold_sites(file, &fold, &mut t, &mut counter)?;
    if counter.full {
        return Err(Error::TooManySamples);
    }
    counter.merge();
    let (samples, comm_table) = (counter.samples, counter.comms);
    let spent = (leftovers, counter.fates, counter.counts);
    // The events kept, in the file's order: a value column each.
    let events = file.events();
    let mut kept: Vec<u32> = samples.iter().filter_map(|(_, k, _)| k.get(4).copied()).collect();
    kept.sort_unstable();
    kept.dedup();
    // The program's mapping first, id 1.
    let (mapping_ids, first_count, first_period) = program_first(&t, &samples, kept.first().copied());
    let mut mapping = std::mem::take(&mut t.mapping);
    for m in &mut mapping {
        m.id = mapping_ids.get(m.id as usize).copied().unwrap_or(m.id);
    }
    mapping.sort_by_key(|m| m.id);
    let strings = &mut t.strings;
    let (samples_type, count_unit) = (strings.id("samples"), strings.id("count"));
    let mut sample_type = vec![proto::ValueType { r#type: samples_type, unit: count_unit }];
    let mut names = Vec::with_capacity(kept.len());
    for &e in &kept {
        let name = events.get(e as usize).map(|e| e.display_name()).unwrap_or_default();
        let unit = strings.id(if is_clock(&name) { "nanoseconds" } else { "count" });
        sample_type.push(proto::ValueType { r#type: strings.id(&name), unit });
        names.push(name);
    }
    let keys = [strings.id("comm"), strings.id("event"), strings.id("pid"), strings.id("tid"), strings.id("cpu")];
    let comm_ids: Vec<i64> = comm_table.table.iter().map(|c| strings.id(c)).collect();
    let event_ids: Vec<i64> = names.iter().map(|n| strings.id(n)).collect();
    // The first kept event's type and period: its attr's fixed period, else (frequency mode) the
    // mean period of its samples.
    let first = kept.first().and_then(|&e| events.get(e as usize));
    let period_type = sample_type.get(1).copied();
    let period = match first {
        Some(e) if !e.attr.freq() => e.attr.sample_period,
        Some(_) if first_count > 0 => (first_period + first_count / 2) / first_count,
        _ => 0,
    };
    let period = i64::try_from(period).unwrap_or(i64::MAX);
    let comment = vec![strings.id(&format!("perfdata {} export", env!("CARGO_PKG_VERSION")))];
    let default_sample_type = period_type.map_or(0, |t| t.r#type);
    let n = samples.entries;
    // The profile's fields before its locations (field 4), then after: prost writes fields in
    // their numbers' order, so the three make the bytes of one `Profile` of them all.
    let before = proto::Profile { sample_type, mapping, ..proto::Profile::default() };
    let after = proto::Profile {
        function: t.function,
        string_table: std::mem::take(&mut t.strings.table),
        period_type,
        period,
        comment,
        default_sample_type,
        ..proto::Profile::default()
    };
    let locations = std::mem::take(&mut t.locations);
    let io = |source| crate::Error::Output { what: "the gzip stream of the pprof profile", source };
    let labels = SampleLabels { kept: &kept, comm_ids, event_ids, keys };
    // The profile is encoded on a thread of its own and compressed on two more (the reading
    // thread is done by now), while this one frees what the fold leaves (its symbols and frame
    // caches: a few ms on the bench file, about as long as the encoding; they hold `Rc`s and
    // stay on this thread). The samples' table is freed once the last segment is sent,
    // while the last ones compress. A compression error is returned once all is sent.
    let encoded = std::thread::scope(|scope| {
        let encoder = scope.spawn(|| {
            gzip::gzip_parallel(|mut out| {
                let _ = write_profile([before, after], (&locations, &mapping_ids), &samples, &labels, &mut out);
                drop(out);
                drop(samples);
                drop(locations);
            })
        });
        drop((spent, t.functions, t.mappings));
        encoder.join()
    });
    let gzipped = encoded.unwrap_or_else(|_| Err(std::io::Error::other("the pprof encoding thread panicked")));
    gzipped.map(|gzipped| Pprof { gzipped, samples: n, diagnostics }).map_err(io)
}

/// Encode the profile's fields before its locations, the `locations` (keys: mapping id, address
/// (2 words), function ids; payload: index; mapping ids renumbered by `mapping_ids`), the fields after
/// (all but the samples), then the samples of `samples` one by one (a message's
/// repeated fields may come in any order and in several runs: no Vec of a hundred thousand
/// `Sample`s, each with three allocations, and prost's sizing pass over them), sending the bytes
/// to `out` in segments. `Err` when no thread is left to compress them.
fn write_profile(
    [before, after]: [proto::Profile; 2],
    (locations, mapping_ids): (&ArenaTable<1>, &[u64]),
    samples: &ArenaTable<4>,
    labels: &SampleLabels<'_>,
    out: &mut gzip::Segments,
) -> std::result::Result<(), std::sync::mpsc::SendError<Vec<u8>>> {
    let SampleLabels { kept, comm_ids, event_ids, keys } = labels;
    // The unit of parallel compression (gzip_parallel).
    const CHUNK: usize = 1 << 19;
    out.send(before.encode_to_vec())?;
    let mut buf = Vec::with_capacity(CHUNK + 1024);
    for (_, key, payload) in locations.iter() {
        let (Some(&[mapping, lo, hi]), Some(functions), Some(&i)) = (key.get(..3), key.get(3..), payload.first())
        else {
            continue;
        };
        let mapping = mapping_ids.get(mapping as usize).copied().unwrap_or(u64::from(mapping));
        let address = u64::from(lo) | u64::from(hi) << 32;
        proto::put_location(&mut buf, u64::from(i) + 1, mapping, address, functions);
        if buf.len() >= CHUNK {
            out.send(std::mem::replace(&mut buf, Vec::with_capacity(CHUNK + 1024)))?;
        }
    }
    out.send(std::mem::replace(&mut buf, Vec::with_capacity(CHUNK + 1024)))?;
    out.send(after.encode_to_vec())?;
    drop(after);
    let multi = kept.len() > 1;
    let mut value: Vec<i64> = Vec::with_capacity(1 + kept.len());
    let mut label: Vec<proto::Label> = Vec::with_capacity(5);
    // Deterministic output: samples in the order they first appear in the file.
    for (_, key, payload) in samples.iter() {
        let (count, period) = (word64(payload, 0), word64(payload, 2));
        let (Some(&[pid, tid, has_cpu, cpu, event, comm]), Some(locations)) =
            (key.get(..LABEL_WORDS), key.get(LABEL_WORDS..))
        else {
            continue;
        };
        let column = kept.binary_search(&event).unwrap_or(0);
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let period = i64::try_from(period).unwrap_or(i64::MAX);
        value.clear();
        value.push(count);
        value.extend((0..kept.len()).map(|i| if i == column { period } else { 0 }));
        let str_label = |key: i64, s: i64| proto::Label { key, str: s, num: 0, num_unit: 0 };
        // Numeric labels have their key for unit, as pprof infers for a label without one: it
        // drops a label whose `num` and `num_unit` are both 0 (proto3 cannot tell 0 from
        // absent), which cpu 0 and pid 0 would otherwise be.
        let num_label = |key: i64, n: u32| proto::Label { key, str: 0, num: i64::from(n), num_unit: key };
        label.clear();
        label.push(str_label(keys[0], comm_ids.get(comm as usize).copied().unwrap_or(0)));
        if multi {
            label.push(str_label(keys[1], event_ids.get(column).copied().unwrap_or(0)));
        }
        label.push(num_label(keys[2], pid));
        label.push(num_label(keys[3], tid));
        if has_cpu == 1 {
            label.push(num_label(keys[4], cpu));
        }
        proto::put_sample(&mut buf, locations, &value, &label);
        if buf.len() >= CHUNK {
            out.send(std::mem::replace(&mut buf, Vec::with_capacity(CHUNK + 1024)))?;
        }
    }
    out.send(buf)
}
