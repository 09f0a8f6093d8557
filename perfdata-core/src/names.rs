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
    let mut name = base_name(a);
    if matches!(a.type_, 0 | 1 | 3 | 4) {
        name.push_str(&modifiers(a));
    }
    name
}

/// perf's modifier suffix of an event name from the attr's bits (`evsel__add_modifiers`):
/// `:u`/`:k`/`:h` letters for the contexts counted when some are excluded, one `p` per level
/// of `precise_ip`, and `H`/`G` for host and guest where they differ from perf's default, e.g.
/// `:ppH`; empty when nothing is to say.
///
/// ```
/// use perfdata_core::attr::EventAttr;
/// use perfdata_core::names::event_name;
/// // cycles with exclude_guest and precise_ip 2 (`perf record -e cycles:pp` on a host).
/// let a = EventAttr { type_: 0, config: 0, flags: (1 << 20) | (2 << 15), ..EventAttr::default() };
/// assert_eq!(event_name(&a), "cycles:ppH");
/// ```
pub fn modifiers(a: &EventAttr) -> String {
    let bit = |n: u32| a.flag_bits(n, 1) != 0;
    let (ex_user, ex_kernel, ex_hv, ex_host, ex_guest) = (bit(4), bit(5), bit(6), bit(19), bit(20));
    let mut m = String::new();
    let mut guest_default = false;
    if ex_kernel || ex_user || ex_hv {
        for (excluded, c) in [(ex_kernel, 'k'), (ex_user, 'u'), (ex_hv, 'h')] {
            if !excluded {
                m.push(c);
            }
        }
        guest_default = true;
    }
    let precise = usize::from(a.precise_ip()).min(3);
    if precise > 0 {
        m.push_str(&"ppp"[..precise]);
        guest_default = true;
    }
    if ex_host || ex_guest == guest_default {
        if !ex_host {
            m.push('H');
        }
        if !ex_guest {
            m.push('G');
        }
    }
    if m.is_empty() {
        m
    } else {
        format!(":{m}")
    }
}

fn base_name(a: &EventAttr) -> String {
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
