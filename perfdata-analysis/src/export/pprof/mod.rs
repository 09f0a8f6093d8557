//! pprof's profile format (`profile.proto`, gzipped), the one `go tool pprof` and most profile
//! viewers open: the samples of `perfdata folded`, with the same filters and frame names, as
//! pprof samples of locations (one per distinct mapping, address and frame text; inline frames
//! are `Line`s of one location, innermost first) with their mappings (start, limit, file offset,
//! file, build id) and labels `comm`, `pid`, `tid`, `cpu` (and `event` when several events are
//! kept). Values: `samples/count` and, per event kept, `<event>/nanoseconds` for cpu-clock and
//! task-clock, `<event>/count` for others: the sum of the samples' periods (the weight
//! `perfdata folded --weight period` gives them). Identical (stack, labels) samples are one.
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

pub mod proto;

use crate::folded::{feature_build_ids, fold_sites, FoldedOptions, FrameSite, Sites, Weight};
use perfdata_core::{PerfFile, Result};
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
    functions: FastMap<i64, u64>,
    function: Vec<proto::Function>,
    /// The function of each folded label (index: the label's; 0: not known yet).
    label_function: Vec<u64>,
    /// (mapping id, address, function ids innermost first) → index in `location`.
    locations: FastMap<Box<[u64]>, u32>,
    location: Vec<proto::Location>,
    /// Scratch: a key of `locations`.
    key: Vec<u64>,
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
        key.extend([mapping_id, f.addr]);
        for &l in f.labels {
            key.push(self.function(l, f.names));
        }
        let i = match self.locations.get(key.as_slice()) {
            Some(&i) => i,
            None => {
                let i = u32::try_from(self.location.len()).unwrap_or(u32::MAX);
                self.location.push(proto::Location {
                    id: u64::from(i) + 1,
                    mapping_id,
                    address: f.addr,
                    line: key.iter().skip(2).map(|&function_id| proto::Line { function_id, line: 0 }).collect(),
                });
                self.locations.insert(key.as_slice().into(), i);
                i
            }
        };
        self.key = key;
        i
    }
}

/// The words of a sample's key before its locations: pid, tid, has a cpu, cpu, event index,
/// comm (index in the comm table).
const LABEL_WORDS: usize = 6;

/// Words before a key in [`SampleTable::arena`]: hash (2), key length, count (2), period (2).
const ENTRY_WORDS: usize = 7;

/// Distinct samples (keys: labels, [`LABEL_WORDS`], then locations leaf first) in order of first
/// appearance, with their counts and periods. Each entry sits in one arena, its hash, length,
/// count and period just before its key, and the hash table holds only its offset: a lookup reads
/// one place (a garbage-ridden `-g` file has many distinct location stacks, 122 K for 1.3 M
/// samples in the benchmark's, so that place is rarely in the cache), and growing the table
/// rehashes no key.
#[derive(Default)]
struct SampleTable {
    table: hashbrown::HashTable<u32>,
    arena: Vec<u32>,
    entries: usize,
    state: ahash::RandomState,
}

/// The u64 at `words[i..i + 2]` (low word first).
fn word64(words: &[u32], i: usize) -> u64 {
    match words.get(i..i + 2) {
        Some(&[lo, hi]) => u64::from(lo) | u64::from(hi) << 32,
        _ => 0,
    }
}

fn set_word64(words: &mut [u32], i: usize, v: u64) {
    if let Some([lo, hi]) = words.get_mut(i..i + 2) {
        *lo = v as u32;
        *hi = (v >> 32) as u32;
    }
}

impl SampleTable {
    fn add(&mut self, key: &[u32], period: u64) {
        let hash = self.state.hash_one(key);
        let arena = &mut self.arena;
        let same = |&at: &u32| {
            let at = at as usize;
            word64(arena, at) == hash
                && arena.get(at + 2) == Some(&(key.len() as u32))
                && arena.get(at + ENTRY_WORDS..at + ENTRY_WORDS + key.len()) == Some(key)
        };
        if let Some(&at) = self.table.find(hash, same) {
            let at = at as usize;
            let (count, sum) = (word64(arena, at + 3), word64(arena, at + 5));
            set_word64(arena, at + 3, count.saturating_add(1));
            set_word64(arena, at + 5, sum.saturating_add(period));
            return;
        }
        let at = u32::try_from(arena.len()).unwrap_or(u32::MAX);
        arena.extend_from_slice(&[hash as u32, (hash >> 32) as u32, key.len() as u32, 1, 0]);
        arena.extend_from_slice(&[period as u32, (period >> 32) as u32]);
        arena.extend_from_slice(key);
        self.entries += 1;
        let arena = &self.arena;
        self.table.insert_unique(hash, at, |&at| word64(arena, at as usize));
    }

    /// (key, count, period) in order of first appearance.
    fn iter(&self) -> impl Iterator<Item = (&[u32], u64, u64)> {
        let mut at = 0;
        std::iter::from_fn(move || {
            let len = *self.arena.get(at + 2)? as usize;
            let key = self.arena.get(at + ENTRY_WORDS..at + ENTRY_WORDS + len)?;
            let item = (key, word64(&self.arena, at + 3), word64(&self.arena, at + 5));
            at += ENTRY_WORDS + len;
            Some(item)
        })
    }
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
    let mut t = Tables {
        strings: Strings::new(),
        build_ids: feature_build_ids(file),
        inline: opts.inline,
        mappings: FastMap::default(),
        mapping: Vec::new(),
        functions: FastMap::default(),
        function: Vec::new(),
        label_function: Vec::new(),
        locations: FastMap::default(),
        location: Vec::new(),
        key: Vec::new(),
    };
    // Distinct samples: labels (LABEL_WORDS) then locations (leaf first) → (count, period). One
    // key per sample rather than a stack table plus a label table: a garbage-ridden `-g` file has
    // about as many distinct location stacks as samples, and one lookup costs half of two.
    let mut samples = SampleTable::default();
    let mut key: Vec<u32> = Vec::new();
    let mut last_comm: Option<(Rc<str>, u32)> = None;
    let mut comm_table = Strings::new();
    let diagnostics = fold_sites(file, &fold, &mut t, |s| {
        let comm = match &last_comm {
            Some((c, id)) if Rc::ptr_eq(c, s.comm) => *id,
            _ => {
                let id = u32::try_from(comm_table.id(s.comm)).unwrap_or(u32::MAX);
                last_comm = Some((s.comm.clone(), id));
                id
            }
        };
        let event = u32::try_from(s.event).unwrap_or(u32::MAX);
        key.clear();
        key.extend_from_slice(&[s.pid, s.tid, u32::from(s.cpu.is_some()), s.cpu.unwrap_or(0), event, comm]);
        key.extend_from_slice(s.locations);
        samples.add(&key, s.weight);
    })?;
    // The events kept, in the file's order: a value column each.
    let events = file.events();
    let mut kept: Vec<u32> = samples.iter().filter_map(|(k, ..)| k.get(4).copied()).collect();
    kept.sort_unstable();
    kept.dedup();
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
    let multi = kept.len() > 1;
    let keys = [strings.id("comm"), strings.id("event"), strings.id("pid"), strings.id("tid"), strings.id("cpu")];
    let comm_ids: Vec<i64> = comm_table.table.iter().map(|c| strings.id(c)).collect();
    let event_ids: Vec<i64> = names.iter().map(|n| strings.id(n)).collect();
    // The first kept event's type and attr period (a frequency-mode event has no fixed period: 0).
    let first = kept.first().and_then(|&e| events.get(e as usize));
    let period_type = sample_type.get(1).copied();
    let period = first.filter(|e| !e.attr.freq()).map_or(0, |e| i64::try_from(e.attr.sample_period).unwrap_or(0));
    let comment = vec![strings.id(&format!("perfdata {} export", env!("CARGO_PKG_VERSION")))];
    let default_sample_type = period_type.map_or(0, |t| t.r#type);
    let n = samples.entries;
    // Everything but the samples, then the samples one by one (a message's repeated fields may
    // come in any order and in several runs): no Vec of a hundred thousand `Sample`s, each with
    // three allocations, and prost's sizing pass over them.
    let profile = proto::Profile {
        sample_type,
        sample: Vec::new(),
        mapping: t.mapping,
        location: t.location,
        function: t.function,
        string_table: std::mem::take(&mut t.strings.table),
        time_nanos: 0,
        duration_nanos: 0,
        period_type,
        period,
        comment,
        default_sample_type,
    };
    // gzip's fastest level, as Go's runtime/pprof writes its profiles (level 6 made files a
    // quarter smaller and took twice as long).
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut buf = profile.encode_to_vec();
    drop(profile);
    let mut sample = proto::Sample::default();
    let write = |gz: &mut flate2::write::GzEncoder<Vec<u8>>, buf: &mut Vec<u8>| {
        let r = std::io::Write::write_all(gz, buf);
        buf.clear();
        r
    };
    let io = |source| perfdata_core::Error::Io { what: "the gzip stream of the pprof profile".into(), source };
    // Deterministic output: samples in the order they first appear in the file.
    for (key, count, period) in samples.iter() {
        let (Some(&[pid, tid, has_cpu, cpu, event, comm]), Some(locations)) =
            (key.get(..LABEL_WORDS), key.get(LABEL_WORDS..))
        else {
            continue;
        };
        let column = kept.binary_search(&event).unwrap_or(0);
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let period = i64::try_from(period).unwrap_or(i64::MAX);
        sample.value.clear();
        sample.value.push(count);
        sample.value.extend((0..kept.len()).map(|i| if i == column { period } else { 0 }));
        let str_label = |key: i64, s: i64| proto::Label { key, str: s, num: 0, num_unit: 0 };
        // Numeric labels have their key for unit, as pprof infers for a label without one: it
        // drops a label whose `num` and `num_unit` are both 0 (proto3 cannot tell 0 from
        // absent), which cpu 0 and pid 0 would otherwise be.
        let num_label = |key: i64, n: u32| proto::Label { key, str: 0, num: i64::from(n), num_unit: key };
        sample.label.clear();
        sample.label.push(str_label(keys[0], comm_ids.get(comm as usize).copied().unwrap_or(0)));
        if multi {
            sample.label.push(str_label(keys[1], event_ids.get(column).copied().unwrap_or(0)));
        }
        sample.label.push(num_label(keys[2], pid));
        sample.label.push(num_label(keys[3], tid));
        if has_cpu == 1 {
            sample.label.push(num_label(keys[4], cpu));
        }
        sample.location_id.clear();
        sample.location_id.extend(locations.iter().map(|&l| u64::from(l) + 1));
        prost::encoding::message::encode(2, &sample, &mut buf);
        if buf.len() >= 1 << 16 {
            write(&mut gz, &mut buf).map_err(io)?;
        }
    }
    write(&mut gz, &mut buf)
        .and_then(|()| gz.finish())
        .map(|gzipped| Pprof { gzipped, samples: n, diagnostics })
        .map_err(io)
}
