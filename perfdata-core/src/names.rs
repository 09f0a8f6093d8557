//! Event names for attrs that carry none, the way perf builds them (`evsel__name`).

use crate::attr::EventAttr;

/// Bytes as lowercase hex, the way perf prints build ids and raw bytes.
pub fn hex(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().saturating_mul(2));
    for &x in b {
        for nibble in [x >> 4, x & 15] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

const HW: [&str; 10] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
];
const SW: [&str; 13] = [
    "cpu-clock",
    "task-clock",
    "page-faults",
    "context-switches",
    "cpu-migrations",
    "minor-faults",
    "major-faults",
    "alignment-faults",
    "emulation-faults",
    "dummy",
    "bpf-output",
    "cgroup-switches",
    "",
];
const CACHE: [&str; 7] = ["L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"];
const CACHE_OP: [&str; 3] = ["load", "store", "prefetch"];
const CACHE_RESULT: [&str; 2] = ["refs", "misses"];

/// A name for an attr without a stored name.
pub fn event_name(a: &EventAttr) -> String {
    let cfg = a.config;
    match a.type_ {
        0 => HW.get(cfg as usize).map_or_else(|| format!("unknown-hardware:{cfg:#x}"), |s| (*s).to_string()),
        1 => SW
            .get(cfg as usize)
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("unknown-software:{cfg:#x}"), |s| (*s).to_string()),
        2 => format!("tracepoint:{cfg}"),
        3 => {
            let (c, op, res) = (cfg & 0xff, (cfg >> 8) & 0xff, (cfg >> 16) & 0xff);
            match (CACHE.get(c as usize), CACHE_OP.get(op as usize), CACHE_RESULT.get(res as usize)) {
                (Some(c), Some(o), Some(r)) => format!("{c}-{o}s-{r}"),
                _ => format!("unknown-cache:{cfg:#x}"),
            }
        }
        4 => format!("raw {cfg:#x}"),
        5 => format!("mem:{:#x}", a.config1),
        t => format!("pmu{t}/config={cfg:#x}/"),
    }
}
