//! Events: each attr with its ids and name, and the record → event mapping exactly as perf does it
//! (`evlist__event2evsel`, reference §2.4).

use crate::abi::record_type as rt;
use crate::attr::{branch_sample_type, EventAttr, SampleContext, SampleLayout};
use crate::reader::Endian;
use std::collections::HashMap;

/// One event of the recording: an attr, the kernel ids of its instances, and its name.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Index in the attr section (perf's `evsel->core.idx`).
    pub index: usize,
    /// The attr.
    pub attr: EventAttr,
    /// Kernel-assigned ids of the counters of this event (one per cpu × thread).
    pub ids: Vec<u64>,
    /// The name from EVENT_DESC or EVENT_UPDATE, if the file has one.
    pub name: Option<String>,
    /// Derived layout (computed once).
    pub layout: SampleLayout,
    /// Sample parsing context (branch counters).
    pub(crate) sample_context: SampleContext,
    /// The variable sample fields of this event, in emit order (computed once).
    pub(crate) sample_plan: crate::attr::SamplePlan,
}

impl Event {
    /// A new event from an attr and its ids.
    pub fn new(index: usize, attr: EventAttr, ids: Vec<u64>) -> Self {
        let layout = SampleLayout::new(&attr);
        let sample_context =
            SampleContext { branch_counters: attr.branch_sample_type & branch_sample_type::COUNTERS != 0 };
        let sample_plan = crate::attr::sample_plan(&attr, sample_context, layout.fixed_size);
        Event { index, attr, ids, name: None, layout, sample_context, sample_plan }
    }

    /// Whether the event's samples carry branch counters after their branch stack: its group has
    /// a member with `PERF_SAMPLE_BRANCH_COUNTERS`.
    pub fn branch_counters(&self) -> bool {
        self.sample_context.branch_counters
    }

    /// The name, or a generic one built from type and config (perf names unnamed events this way too).
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => crate::names::event_name(&self.attr),
        }
    }
}

/// How a record was matched to an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Belongs to the event at this index.
    Event(usize),
    /// Carries an id that no event has.
    UnknownId(u64),
    /// The file has no events (yet, in a pipe), or the record has no id where one is needed.
    NoEvent,
}

/// The hasher of sample ids: one multiply and a fold, keyed per process from std's random
/// state, so files cannot be made to collide on purpose; SipHash cost a fifth of the time of a
/// time-ordered pass over a tracepoint recording, where every record is looked up twice.
#[derive(Clone, Debug)]
pub(crate) struct IdHash {
    key: u64,
}

impl Default for IdHash {
    fn default() -> Self {
        use std::hash::BuildHasher;
        static KEY: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        IdHash { key: *KEY.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1) }
    }
}

impl PartialEq for IdHash {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher { h: self.key }
    }
}

/// See [`IdHash`].
#[derive(Clone, Debug)]
pub(crate) struct IdHasher {
    h: u64,
}

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        let m = u128::from(x ^ self.h).wrapping_mul(0x9e37_79b9_7f4a_7c15_u128);
        self.h = (m as u64) ^ ((m >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.h
    }
}

/// All events of a recording and the id → event map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventList {
    /// The events in attr order.
    pub events: Vec<Event>,
    by_id: HashMap<u64, usize, IdHash>,
}

impl EventList {
    /// Build from events.
    pub fn new(events: Vec<Event>) -> Self {
        let mut l = EventList { events: Vec::new(), by_id: HashMap::default() };
        for e in events {
            l.push(e);
        }
        l
    }

    /// Add an event (pipe mode HEADER_ATTR).
    pub fn push(&mut self, mut e: Event) {
        e.index = self.events.len();
        for &id in &e.ids {
            self.by_id.insert(id, e.index);
        }
        self.events.push(e);
    }

    /// Map more ids to an event (ID_INDEX records).
    pub fn add_id(&mut self, id: u64, index: usize) {
        if let Some(e) = self.events.get_mut(index) {
            if !e.ids.contains(&id) {
                e.ids.push(id);
            }
            self.by_id.insert(id, index);
        }
    }

    /// The event owning `id`.
    pub fn by_id(&self, id: u64) -> Option<&Event> {
        self.by_id.get(&id).and_then(|&i| self.events.get(i))
    }

    /// Index of the event owning `id`.
    pub fn index_of_id(&self, id: u64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// Find which event a record belongs to (`evlist__event2evsel`). `record` is the whole record.
    pub fn resolve(&self, type_: u32, record: &[u8], endian: Endian) -> Resolution {
        let Some(first) = self.events.first() else {
            return Resolution::NoEvent;
        };
        if self.events.len() == 1 {
            return Resolution::Event(0);
        }
        if type_ >= rt::USER_START {
            return Resolution::NoEvent;
        }
        if type_ != rt::SAMPLE && !first.attr.sample_id_all() {
            return Resolution::Event(0);
        }
        let body = record.get(8..).unwrap_or(&[]);
        let n = body.len() / 8;
        let word = if type_ == rt::SAMPLE {
            match first.layout.id_pos {
                Some(p) if p < n => p,
                _ => return Resolution::NoEvent,
            }
        } else {
            match first.layout.is_pos {
                Some(p) if p <= n => n - p,
                _ => return Resolution::NoEvent,
            }
        };
        let id = match body.get(word * 8..word * 8 + 8) {
            Some(b) => endian.u64(b),
            None => return Resolution::NoEvent,
        };
        // perf's synthesized records carry zeroed trailers: id 0 means the first event.
        if id == 0 {
            return Resolution::Event(0);
        }
        match self.by_id.get(&id) {
            Some(&i) => Resolution::Event(i),
            None => Resolution::UnknownId(id),
        }
    }
}
