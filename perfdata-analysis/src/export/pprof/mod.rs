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
//! comm and stack, the weights of `perfdata folded` on the same file and options.
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
    /// (mapping id, address, function ids innermost first) → index in `location`.
    locations: FastMap<(u64, u64, Vec<u64>), u32>,
    location: Vec<proto::Location>,
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

    fn function(&mut self, name: &str) -> u64 {
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
        let functions: Vec<u64> = f.labels.iter().map(|l| self.function(l)).collect();
        let key = (mapping_id, f.addr, functions);
        if let Some(&i) = self.locations.get(&key) {
            return i;
        }
        let i = u32::try_from(self.location.len()).unwrap_or(u32::MAX);
        self.location.push(proto::Location {
            id: u64::from(i) + 1,
            mapping_id,
            address: f.addr,
            line: key.2.iter().map(|&function_id| proto::Line { function_id, line: 0 }).collect(),
        });
        self.locations.insert(key, i);
        i
    }
}

/// The words of a sample's key before its locations: pid, tid, has a cpu, cpu, event index,
/// comm (index in the comm table).
const LABEL_WORDS: usize = 6;

/// A sample's (count, period, order of first appearance).
type Tally = (u64, u64, u32);

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
        locations: FastMap::default(),
        location: Vec::new(),
    };
    // Distinct samples: labels (LABEL_WORDS) then locations (leaf first) → (count, period). One
    // key per sample rather than a stack table plus a label table: a garbage-ridden `-g` file has
    // about as many distinct location stacks as samples, and one lookup costs half of two.
    let mut samples: FastMap<Box<[u32]>, Tally> = FastMap::default();
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
        let n = u32::try_from(samples.len()).unwrap_or(u32::MAX);
        let v = match samples.get_mut(key.as_slice()) {
            Some(v) => v,
            None => samples.entry(key.as_slice().into()).or_insert((0, 0, n)),
        };
        v.0 = v.0.saturating_add(1);
        v.1 = v.1.saturating_add(s.weight);
    })?;
    // The events kept, in the file's order: a value column each.
    let events = file.events();
    let mut kept: Vec<u32> = samples.keys().filter_map(|k| k.get(4).copied()).collect();
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
    // Deterministic output: samples in the order they first appear in the file.
    let mut rows: Vec<(Box<[u32]>, Tally)> = samples.into_iter().collect();
    rows.sort_unstable_by_key(|r| r.1 .2);
    let mut sample = Vec::with_capacity(rows.len());
    for (key, (count, period, _)) in rows {
        let (Some(&[pid, tid, has_cpu, cpu, event, comm]), Some(locations)) =
            (key.get(..LABEL_WORDS), key.get(LABEL_WORDS..))
        else {
            continue;
        };
        let column = kept.binary_search(&event).unwrap_or(0);
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let period = i64::try_from(period).unwrap_or(i64::MAX);
        let value: Vec<i64> =
            std::iter::once(count).chain((0..kept.len()).map(|i| if i == column { period } else { 0 })).collect();
        let str_label = |key: i64, s: i64| proto::Label { key, str: s, num: 0, num_unit: 0 };
        // Numeric labels have their key for unit, as pprof infers for a label without one: it
        // drops a label whose `num` and `num_unit` are both 0 (proto3 cannot tell 0 from
        // absent), which cpu 0 and pid 0 would otherwise be.
        let num_label = |key: i64, n: u32| proto::Label { key, str: 0, num: i64::from(n), num_unit: key };
        let mut label = vec![str_label(keys[0], comm_ids.get(comm as usize).copied().unwrap_or(0))];
        if multi {
            label.push(str_label(keys[1], event_ids.get(column).copied().unwrap_or(0)));
        }
        label.push(num_label(keys[2], pid));
        label.push(num_label(keys[3], tid));
        if has_cpu == 1 {
            label.push(num_label(keys[4], cpu));
        }
        sample.push(proto::Sample { location_id: locations.iter().map(|&l| u64::from(l) + 1).collect(), value, label });
    }
    // The first kept event's type and attr period (a frequency-mode event has no fixed period: 0).
    let first = kept.first().and_then(|&e| events.get(e as usize));
    let period_type = sample_type.get(1).copied();
    let period = first.filter(|e| !e.attr.freq()).map_or(0, |e| i64::try_from(e.attr.sample_period).unwrap_or(0));
    let comment = vec![strings.id(&format!("perfdata {} export", env!("CARGO_PKG_VERSION")))];
    let default_sample_type = period_type.map_or(0, |t| t.r#type);
    let n = sample.len();
    let profile = proto::Profile {
        sample_type,
        sample,
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
    let raw = profile.encode_to_vec();
    // gzip's fastest level, as Go's runtime/pprof writes its profiles (level 6 made files a
    // quarter smaller and took twice as long).
    let mut gz = flate2::write::GzEncoder::new(Vec::with_capacity(raw.len() / 4), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &raw)
        .and_then(|()| gz.finish())
        .map(|gzipped| Pprof { gzipped, samples: n, diagnostics })
        .map_err(|source| perfdata_core::Error::Io { what: "the gzip stream of the pprof profile".into(), source })
}
