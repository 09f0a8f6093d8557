//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>): one
//! `sampled` profile per root frame of the folded stacks (per comm, or per process/thread with
//! `Root::Pid`/`Root::CommPidTid`), frames shared, each distinct stack one sample weighted by its
//! folded weight. Opens in speedscope.app (drag the file in) with the same per-stack weights as
//! `perfdata folded`.

use crate::stacks::FoldedStacks;
use std::collections::{BTreeMap, HashMap};

/// What a weight counts, as speedscope's `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Sample counts or periods of a non-time event.
    None,
    /// Periods of a clock event (cpu-clock, task-clock) or off-CPU time.
    Nanoseconds,
}

impl Unit {
    fn as_str(self) -> &'static str {
        match self {
            Unit::None => "none",
            Unit::Nanoseconds => "nanoseconds",
        }
    }
}

/// The speedscope JSON document of `stacks` (`comm;frame;…;leaf` → weight). `name` names the
/// file in speedscope's title bar. With `root` true the first frame of each stack is the root
/// (comm, `comm-PID/TID`) and becomes the profile, else all stacks make one profile.
pub fn speedscope(stacks: &FoldedStacks, name: &str, unit: Unit, root: bool) -> serde_json::Value {
    use serde_json::json;
    let mut frames: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // profile name → (samples, weights)
    let mut profiles: BTreeMap<&str, (Vec<Vec<usize>>, Vec<u64>)> = BTreeMap::new();
    for (stack, &w) in &stacks.stacks {
        let mut parts = stack.split(';');
        let profile = if root { parts.next().unwrap_or("") } else { name };
        let ids: Vec<usize> = parts
            .map(|f| {
                *index.entry(f).or_insert_with(|| {
                    frames.push(f);
                    frames.len() - 1
                })
            })
            .collect();
        let p = profiles.entry(profile).or_default();
        p.0.push(ids);
        p.1.push(w);
    }
    let profiles: Vec<serde_json::Value> = profiles
        .into_iter()
        .map(|(n, (samples, weights))| {
            let total: u64 = weights.iter().sum();
            json!({
                "type": "sampled",
                "name": n,
                "unit": unit.as_str(),
                "startValue": 0,
                "endValue": total,
                "samples": samples,
                "weights": weights,
            })
        })
        .collect();
    json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": { "frames": frames.iter().map(|f| json!({ "name": f })).collect::<Vec<_>>() },
        "profiles": profiles,
        "name": name,
        "activeProfileIndex": 0,
        "exporter": concat!("perfdata ", env!("CARGO_PKG_VERSION")),
    })
}
