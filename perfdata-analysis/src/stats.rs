//! Record counts by type and sample counts by event: what `perfdata stats` prints, in the spirit
//! of `perf report --stats`.

use std::collections::BTreeMap;

use perfdata_core::{Order, PerfFile, ReadOptions, RecordKind};

/// The counts of one recording.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records by `perf_event_header.type`, PERF_RECORD_COMPRESSED among them (as perf counts).
    pub by_type: BTreeMap<u32, u64>,
    /// Samples by event name; a group-read sample counts once per member, as in
    /// `perf report --stats`; samples of no known event under `?`.
    pub by_event: BTreeMap<String, u64>,
    /// Events lost (PERF_RECORD_LOST).
    pub lost: u64,
    /// Samples lost (PERF_RECORD_LOST_SAMPLES).
    pub lost_samples: u64,
    /// Problems met reading, each once.
    pub diagnostics: Vec<String>,
}

impl Stats {
    /// Count the records of `file` in one pass in file order.
    pub fn of(file: &PerfFile<'_>) -> crate::Result<Stats> {
        let mut st = Stats::default();
        // Samples and the event's name, by event index (a pipe's events come as its records do).
        let (mut by_index, mut unmatched): (Vec<(u64, Option<String>)>, u64) = (Vec::new(), 0);
        let mut errors = Vec::new();
        let opts = ReadOptions { order: Order::File, include_compressed: true, ..Default::default() };
        let mut recs = file.records_with(opts)?;
        while let Some(rec) = recs.next_record() {
            let r = match rec {
                Ok(r) => r,
                Err(e) => {
                    errors.push(e.to_string());
                    continue;
                }
            };
            *st.by_type.entry(r.header.type_).or_default() += 1;
            match &r.kind {
                RecordKind::Sample(s) => match r.event {
                    Some(ev) => perfdata_core::sample::sample_events(s, ev, r.events, |e| {
                        if by_index.len() <= e.index {
                            by_index.resize(e.index + 1, (0, None));
                        }
                        if let Some((n, name)) = by_index.get_mut(e.index) {
                            *n += 1;
                            name.get_or_insert_with(|| e.display_name());
                        }
                    }),
                    None => unmatched += 1,
                },
                RecordKind::Lost(l) => st.lost += l.lost,
                RecordKind::LostSamples(l) => st.lost_samples += l.lost,
                _ => {}
            }
        }
        for (n, name) in by_index {
            if let Some(name) = name {
                *st.by_event.entry(name).or_default() += n;
            }
        }
        if unmatched > 0 {
            *st.by_event.entry("?".into()).or_default() += unmatched;
        }
        st.diagnostics = file.diagnostics().to_vec();
        st.diagnostics.extend(recs.diagnostics());
        st.diagnostics.extend(errors);
        // Each problem once: those met opening the file come again from the records.
        let mut seen = std::collections::HashSet::new();
        st.diagnostics.retain(|d| seen.insert(d.clone()));
        Ok(st)
    }

    /// All records counted.
    pub fn total(&self) -> u64 {
        self.by_type.values().sum()
    }

    /// The counts as JSON: `records`, `types` (by record type name), `samples_by_event`, `lost`,
    /// `lost_samples`, `diagnostics`.
    pub fn json(&self) -> serde_json::Value {
        let types: serde_json::Map<String, serde_json::Value> = self
            .by_type
            .iter()
            .map(|(t, n)| (perfdata_core::record::record_type::display_name(*t).into_owned(), (*n).into()))
            .collect();
        serde_json::json!({"records": self.total(), "types": types, "samples_by_event": self.by_event,
            "lost": self.lost, "lost_samples": self.lost_samples, "diagnostics": self.diagnostics})
    }

    /// The counts as `perfdata stats` prints them.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(o, "{:>20}: {}", "TOTAL records", self.total());
        for (t, n) in &self.by_type {
            let _ = writeln!(o, "{:>20}: {}", perfdata_core::record::record_type::display_name(*t), n);
        }
        o.push('\n');
        for (e, n) in &self.by_event {
            let _ = writeln!(o, "{:>20}: {} samples", e, n);
        }
        if self.lost > 0 || self.lost_samples > 0 {
            let _ = writeln!(o, "lost events: {}, lost samples: {}", self.lost, self.lost_samples);
        }
        for d in &self.diagnostics {
            let _ = writeln!(o, "diagnostic: {d}");
        }
        o
    }
}
