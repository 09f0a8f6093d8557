//! Machine topology features: CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, HYBRID_TOPOLOGY and
//! CPU_DOMAIN_INFO, plus perf's CPU-list text form ("0-3,8").

use crate::error::{Position, Result};
use crate::reader::Endian;

/// HEADER_CPU_TOPOLOGY (reference §3.3).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct CpuTopology {
    /// CPU lists of the CPUs sharing a package (perf: `sibling_cores`, printed "sibling sockets").
    pub package_cpus: Vec<String>,
    /// CPU lists of the CPUs sharing a core (perf: `sibling_threads`, printed "sibling threads").
    pub core_cpus: Vec<String>,
    /// Per CPU (index = CPU number, count = NRCPUS available): core, socket and die ids. `None` when
    /// the section stops after the lists (perf before 4.1).
    pub cpus: Option<Vec<CpuIds>>,
    /// CPU lists of the CPUs sharing a die ("sibling dies"). `None` when the section has no die block
    /// (perf before 5.3).
    pub die_cpus: Option<Vec<String>>,
}

/// The topology ids of one CPU. perf keeps them as `int`: an offline CPU has `-1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct CpuIds {
    /// Core id.
    pub core_id: i32,
    /// Socket (package) id.
    pub socket_id: i32,
    /// Die id, when the section has the die block.
    pub die_id: Option<i32>,
}

/// Parse HEADER_CPU_TOPOLOGY. `nr_cpus_available` is NRCPUS word 0 (the per-CPU arrays have that many
/// entries; perf uses 0 when NRCPUS is missing). Each optional block is present when bytes remain.
pub fn cpu_topology(data: &[u8], endian: Endian, pos: Position, nr_cpus_available: u32) -> Result<CpuTopology> {
    super::run(data, endian, pos, parse::cpu_topology(nr_cpus_available))
}

/// One NUMA_TOPOLOGY node.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct NumaNode {
    /// Node number.
    pub node: u32,
    /// MemTotal of the node, kB.
    pub mem_total_kb: u64,
    /// MemFree of the node, kB.
    pub mem_free_kb: u64,
    /// The node's CPUs as stored (a CPU list, e.g. "0-3,8").
    pub cpus: String,
}

/// Parse HEADER_NUMA_TOPOLOGY: `u32 nr;` nr × {u32 node; u64 mem_total; u64 mem_free; string cpus}.
pub fn numa_topology(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<NumaNode>> {
    super::run(data, endian, pos, parse::numa_topology)
}

/// One CACHE entry (`struct cpu_cache_level`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct CacheLevel {
    /// 1, 2, 3…
    pub level: u32,
    /// Line size in bytes.
    pub line_size: u32,
    /// Number of sets.
    pub sets: u32,
    /// Associativity.
    pub ways: u32,
    /// "Data", "Instruction", "Unified".
    #[cfg_attr(feature = "json", serde(rename = "type"))]
    pub type_: String,
    /// Size as sysfs gives it, e.g. "32K".
    pub size: String,
    /// The CPUs sharing it, a CPU list.
    pub map: String,
}

/// Parse HEADER_CACHE: `u32 version; u32 nr;` nr × {u32 level, line_size, sets, ways; string type,
/// size, map}. Only version 1 is defined (perf rejects others: their layout is unknown).
pub fn cache(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<CacheLevel>> {
    super::run(data, endian, pos, parse::cache)
}

/// HEADER_MEM_TOPOLOGY: the physical memory blocks of each node.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct MemTopology {
    /// Format version (1).
    pub version: u64,
    /// `/sys/devices/system/memory/block_size_bytes`.
    pub block_size: u64,
    /// The nodes.
    pub nodes: Vec<MemoryNode>,
}

/// One MEM_TOPOLOGY node.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct MemoryNode {
    /// Node number.
    pub node: u64,
    /// The `size` field (bits in the bitmap, as perf writes it).
    pub size: u64,
    /// Number of valid bits in `bitmap`.
    pub nbits: u64,
    /// Bitmap of the memory block indexes of the node, as u64 words (bit i of word w = block 64w+i).
    pub bitmap: Vec<u64>,
}

impl MemoryNode {
    /// The memory block indexes of the node, ascending.
    pub fn blocks(&self) -> impl Iterator<Item = u64> + '_ {
        let nbits = self.nbits;
        self.bitmap.iter().enumerate().flat_map(move |(w, &word)| {
            (0..64u64).filter(move |b| (word >> b) & 1 != 0).map(move |b| w as u64 * 64 + b).filter(move |&i| i < nbits)
        })
    }

    /// Number of blocks.
    pub fn block_count(&self) -> u64 {
        self.blocks().count() as u64
    }

    /// The block indexes as ranges, perf style: "0-23,32-199".
    pub fn blocks_list(&self) -> String {
        ranges(self.blocks().map(|b| b as i64))
    }
}

/// Parse HEADER_MEM_TOPOLOGY: `u64 version (1); u64 block_size; u64 nr;` nr × {u64 node; u64 size;
/// bitmap {u64 nbits; u64 words[ceil(nbits/64)]}}.
pub fn mem_topology(data: &[u8], endian: Endian, pos: Position) -> Result<MemTopology> {
    super::run(data, endian, pos, parse::mem_topology)
}

/// One HYBRID_TOPOLOGY entry: a core type of a hybrid CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct HybridNode {
    /// The PMU of this core type (`cpu_core`, `cpu_atom`).
    pub pmu_name: String,
    /// Its CPUs, a CPU list.
    pub cpus: String,
}

/// Parse HEADER_HYBRID_TOPOLOGY: `u32 nr;` nr × {string pmu_name; string cpus}.
pub fn hybrid_topology(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<HybridNode>> {
    super::run(data, endian, pos, parse::hybrid_topology)
}

/// HEADER_CPU_DOMAIN_INFO (perf ≥ 6.18, `perf sched stats`): the scheduler domains of each CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct CpuDomainInfo {
    /// `/proc/schedstat` version; from 17 on each domain has a name.
    pub schedstat_version: u32,
    /// Highest domain number + 1.
    pub max_sched_domains: u32,
    /// One entry per online CPU.
    pub cpus: Vec<CpuDomains>,
}

/// The domains of one CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct CpuDomains {
    /// CPU number.
    pub cpu: u32,
    /// Its domains.
    pub domains: Vec<SchedDomain>,
}

/// One scheduler domain.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SchedDomain {
    /// Domain number.
    pub domain: u32,
    /// Name (`SMT`, `MC`, …), schedstat version ≥ 17 only.
    pub name: Option<String>,
    /// CPU mask as hex text.
    pub cpumask: String,
    /// The same as a CPU list.
    pub cpulist: String,
}

/// Parse HEADER_CPU_DOMAIN_INFO: `u32 schedstat_version; u32 max_sched_domains;` then for each online
/// CPU (`nr_cpus_online` = NRCPUS word 1) {u32 cpu; u32 nr_domains; nr_domains × {u32 domain; [string
/// name if version ≥ 17]; string cpumask; string cpulist}}.
pub fn cpu_domain_info(data: &[u8], endian: Endian, pos: Position, nr_cpus_online: u32) -> Result<CpuDomainInfo> {
    super::run(data, endian, pos, parse::cpu_domain_info(nr_cpus_online))
}

/// Parse a CPU list the way perf's `perf_cpu_map__new` does: "N" and "N-M" items separated by
/// commas, sorted and deduplicated. An empty list is perf's "dummy" map `{-1}`. `None` when perf
/// would refuse it (a bad character, a reversed range, a repeated CPU).
pub fn parse_cpu_list(s: &str) -> Option<Vec<i32>> {
    use nom::branch::alt;
    use nom::bytes::complete::tag;
    use nom::character::complete::{char, digit1};
    use nom::combinator::{cut, eof, map, map_opt, opt, peek};
    use nom::multi::many0;
    use nom::sequence::{preceded, terminated};
    use nom::Parser;
    if s.is_empty() {
        return Some(vec![-1]);
    }
    // A CPU number below i32::MAX.
    let number = || map_opt(digit1, |d: &str| d.parse::<i32>().ok().filter(|v| *v < i32::MAX));
    // "N" or "N-M", then the end or a comma: anything else after an item makes perf refuse the
    // list.
    let item = (number(), cut(opt(preceded(char('-'), number()))), cut(peek(alt((eof, tag(","))))));
    // perf reads items while the text starts with a digit.
    let items = map(item, |(start, end, _)| (start, end.unwrap_or(start)));
    let parsed: nom::IResult<&str, Vec<(i32, i32)>, ()> = many0(terminated(items, opt(char(',')))).parse(s);
    let (_, items) = parsed.ok()?;
    let mut cpus: Vec<i32> = Vec::new();
    for (start, end) in items {
        // A reversed range is refused; so is an absurd one (a file names at most a few thousand CPUs).
        if end < start || end - start > 1 << 20 {
            return None;
        }
        for c in start..=end {
            if cpus.contains(&c) {
                return None;
            }
            cpus.push(c);
        }
    }
    if cpus.is_empty() {
        // perf: anything else than digits at the start gives no map at all.
        return None;
    }
    cpus.sort_unstable();
    Some(cpus)
}

/// Format CPUs as perf's `cpu_map__snprint` does: ascending runs as "a-b", joined by commas.
pub fn format_cpu_list(cpus: &[i32]) -> String {
    ranges(cpus.iter().map(|&c| i64::from(c)))
}

/// Runs of consecutive values as "a-b", single values as "a", joined by commas.
fn ranges(values: impl Iterator<Item = i64>) -> String {
    let mut out = String::new();
    let mut run: Option<(i64, i64)> = None;
    let flush = |out: &mut String, (a, b): (i64, i64)| {
        if !out.is_empty() {
            out.push(',');
        }
        if a == b {
            out.push_str(&a.to_string());
        } else {
            out.push_str(&format!("{a}-{b}"));
        }
    };
    for v in values {
        run = match run {
            Some((a, b)) if b.checked_add(1) == Some(v) => Some((a, v)),
            Some(r) => {
                flush(&mut out, r);
                Some((v, v))
            }
            None => Some((v, v)),
        };
    }
    if let Some(r) = run {
        flush(&mut out, r);
    }
    out
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::feature::strings::parse::{header_string, string_list};
    use crate::feature::version_1;
    use crate::reader::{count, i32, u32, u64, u64s};
    use crate::reader::{PResult, Reader};

    /// HEADER_CPU_TOPOLOGY. `nr_cpus_available` is NRCPUS word 0 (the per-CPU arrays have that many
    /// entries; perf uses 0 when NRCPUS is missing). The core/socket ids and the die block are each
    /// present when bytes remain.
    pub fn cpu_topology<'a>(nr_cpus_available: u32) -> impl Fn(Reader<'a>) -> PResult<'a, CpuTopology> {
        move |input: Reader<'a>| {
            let input = input.context("CPU_TOPOLOGY");
            let (input, package_cpus) = string_list(input)?;
            let (input, core_cpus) = string_list(input)?;
            let mut t = CpuTopology { package_cpus, core_cpus, ..Default::default() };
            if input.remaining() == 0 {
                return Ok((input, t));
            }
            let ids = |input| {
                let (input, core_id) = i32(input)?;
                let (input, socket_id) = i32(input)?;
                Ok((input, CpuIds { core_id, socket_id, die_id: None }))
            };
            let (input, mut cpus) =
                count(nr_cpus_available.into(), 8, ids)(input.context("CPU_TOPOLOGY core/socket ids"))?;
            let mut input = input;
            if input.remaining() > 0 {
                let (mut rest, dies) = string_list(input.context("CPU_TOPOLOGY dies"))?;
                for c in cpus.iter_mut() {
                    let (r, die) = i32(rest)?;
                    c.die_id = Some(die);
                    rest = r;
                }
                t.die_cpus = Some(dies);
                input = rest;
            }
            t.cpus = Some(cpus);
            Ok((input, t))
        }
    }

    /// HEADER_NUMA_TOPOLOGY: `u32 nr;` nr × {u32 node; u64 mem_total; u64 mem_free; string cpus}.
    pub fn numa_topology(input: Reader<'_>) -> PResult<'_, Vec<NumaNode>> {
        let node = |input| {
            let (input, node) = u32(input)?;
            let (input, mem_total_kb) = u64(input)?;
            let (input, mem_free_kb) = u64(input)?;
            let (input, cpus) = header_string(input)?;
            Ok((input, NumaNode { node, mem_total_kb, mem_free_kb, cpus }))
        };
        let (input, nr) = u32(input.context("NUMA_TOPOLOGY"))?;
        count(nr.into(), 24, node)(input)
    }

    /// HEADER_CACHE: `u32 version (1); u32 nr;` nr × {u32 level, line_size, sets, ways; string type,
    /// size, map}. perf rejects other versions: their layout is unknown.
    pub fn cache(input: Reader<'_>) -> PResult<'_, Vec<CacheLevel>> {
        let level = |input| {
            let (input, level) = u32(input)?;
            let (input, line_size) = u32(input)?;
            let (input, sets) = u32(input)?;
            let (input, ways) = u32(input)?;
            let (input, type_) = header_string(input)?;
            let (input, size) = header_string(input)?;
            let (input, map) = header_string(input)?;
            Ok((input, CacheLevel { level, line_size, sets, ways, type_, size, map }))
        };
        let (input, _) = version_1(u32)(input.context("CACHE"))?;
        let (input, nr) = u32(input)?;
        count(nr.into(), 28, level)(input)
    }

    /// HEADER_MEM_TOPOLOGY: `u64 version (1); u64 block_size; u64 nr;` nr × {u64 node; u64 size;
    /// bitmap {u64 nbits; u64 words[ceil(nbits/64)]}}.
    pub fn mem_topology(input: Reader<'_>) -> PResult<'_, MemTopology> {
        let node = |input| {
            let (input, node) = u64(input)?;
            let (input, size) = u64(input)?;
            let (input, nbits) = u64(input)?;
            let (input, bitmap) = u64s(nbits.div_ceil(64))(input)?;
            Ok((input, MemoryNode { node, size, nbits, bitmap: bitmap.to_vec() }))
        };
        let (input, version) = version_1(u64)(input.context("MEM_TOPOLOGY"))?;
        let (input, block_size) = u64(input)?;
        let (input, nr) = u64(input)?;
        let (input, nodes) = count(nr, 24, node)(input)?;
        Ok((input, MemTopology { version, block_size, nodes }))
    }

    /// HEADER_HYBRID_TOPOLOGY: `u32 nr;` nr × {string pmu_name; string cpus}.
    pub fn hybrid_topology(input: Reader<'_>) -> PResult<'_, Vec<HybridNode>> {
        let node = |input| {
            let (input, pmu_name) = header_string(input)?;
            let (input, cpus) = header_string(input)?;
            Ok((input, HybridNode { pmu_name, cpus }))
        };
        let (input, nr) = u32(input.context("HYBRID_TOPOLOGY"))?;
        count(nr.into(), 8, node)(input)
    }

    /// HEADER_CPU_DOMAIN_INFO (perf ≥ 6.18): `u32 schedstat_version; u32 max_sched_domains;` then for
    /// each online CPU (`nr_cpus_online` = NRCPUS word 1) {u32 cpu; u32 nr_domains; nr_domains × {u32
    /// domain; [string name if version ≥ 17]; string cpumask; string cpulist}}.
    pub fn cpu_domain_info<'a>(nr_cpus_online: u32) -> impl Fn(Reader<'a>) -> PResult<'a, CpuDomainInfo> {
        move |input: Reader<'a>| {
            let (input, schedstat_version) = u32(input.context("CPU_DOMAIN_INFO"))?;
            let (input, max_sched_domains) = u32(input)?;
            let domain = |input| {
                let (input, domain) = u32(input)?;
                let (input, name) = if schedstat_version >= 17 {
                    header_string(input).map(|(i, n)| (i, Some(n)))?
                } else {
                    (input, None)
                };
                let (input, cpumask) = header_string(input)?;
                let (input, cpulist) = header_string(input)?;
                Ok((input, SchedDomain { domain, name, cpumask, cpulist }))
            };
            let cpu = |input| {
                let (input, cpu) = u32(input)?;
                let (input, nr) = u32(input)?;
                let (input, domains) = count(nr.into(), 12, domain)(input)?;
                Ok((input, CpuDomains { cpu, domains }))
            };
            let (input, cpus) = count(nr_cpus_online.into(), 8, cpu)(input)?;
            Ok((input, CpuDomainInfo { schedstat_version, max_sched_domains, cpus }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feature::system::tests::put_string;

    fn lists(e: Endian, b: &mut Vec<u8>, l: &[&str]) {
        e.put_u32(b, l.len() as u32);
        for s in l {
            put_string(e, b, s);
        }
    }

    #[test]
    fn cpu_topology_blocks_are_detected_by_size() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            lists(e, &mut b, &["0-1"]);
            lists(e, &mut b, &["0", "1"]);
            let old = b.len();
            let t = cpu_topology(&b, e, Position::at(0), 2).unwrap();
            assert_eq!((t.package_cpus.len(), t.core_cpus.len(), t.cpus, t.die_cpus), (1, 2, None, None));
            for (core, socket) in [(0u32, 0u32), (1, u32::MAX)] {
                e.put_u32(&mut b, core);
                e.put_u32(&mut b, socket);
            }
            let mid = b.len();
            let t = cpu_topology(&b, e, Position::at(0), 2).unwrap();
            let cpus = t.cpus.unwrap();
            assert_eq!(cpus[1], CpuIds { core_id: 1, socket_id: -1, die_id: None });
            assert_eq!(t.die_cpus, None);
            lists(e, &mut b, &["0-1"]);
            e.put_u32(&mut b, 0);
            e.put_u32(&mut b, 3);
            let t = cpu_topology(&b, e, Position::at(0), 2).unwrap();
            assert_eq!(t.die_cpus.as_deref(), Some(&["0-1".to_string()][..]));
            assert_eq!(t.cpus.unwrap()[1].die_id, Some(3));
            for cut in [2, old - 1, old + 3, mid + 2, b.len() - 1] {
                assert!(cpu_topology(&b[..cut], e, Position::at(0), 2).is_err(), "cut at {cut}");
            }
            // More CPUs announced than stored: an error, not a short list.
            assert!(cpu_topology(&b[..mid], e, Position::at(0), 3).is_err());
        }
    }

    #[test]
    fn numa_cache_hybrid_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 0);
            e.put_u64(&mut b, 5990604);
            e.put_u64(&mut b, 4749392);
            put_string(e, &mut b, "0-1");
            let n = numa_topology(&b, e, Position::at(0)).unwrap();
            assert_eq!(n[0], NumaNode { node: 0, mem_total_kb: 5990604, mem_free_kb: 4749392, cpus: "0-1".into() });
            assert!(numa_topology(&b[..12], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 1);
            for v in [3, 64, 32768, 16] {
                e.put_u32(&mut b, v);
            }
            for s in ["Unified", "32768K", "0-1"] {
                put_string(e, &mut b, s);
            }
            let c = cache(&b, e, Position::at(0)).unwrap();
            assert_eq!((c[0].level, c[0].ways, c[0].type_.as_str(), c[0].map.as_str()), (3, 16, "Unified", "0-1"));
            assert!(cache(&b[..b.len() - 1], e, Position::at(0)).is_err());
            let mut v2 = b.clone();
            v2[..4].copy_from_slice(&match e {
                Endian::Little => 2u32.to_le_bytes(),
                Endian::Big => 2u32.to_be_bytes(),
            });
            assert!(cache(&v2, e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            put_string(e, &mut b, "cpu_core");
            put_string(e, &mut b, "0-3");
            let h = hybrid_topology(&b, e, Position::at(0)).unwrap();
            assert_eq!(h, vec![HybridNode { pmu_name: "cpu_core".into(), cpus: "0-3".into() }]);
            assert!(hybrid_topology(&b[..70], e, Position::at(0)).is_err());
        }
    }

    #[test]
    fn mem_topology_bitmaps() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            for v in [1u64, 0x8000000, 1, 0, 200, 200] {
                e.put_u64(&mut b, v);
            }
            // Blocks 0-23 and 32-199.
            let mut words = [0u64; 4];
            for i in (0..24).chain(32..200) {
                words[i / 64] |= 1 << (i % 64);
            }
            for w in words {
                e.put_u64(&mut b, w);
            }
            let m = mem_topology(&b, e, Position::at(0)).unwrap();
            assert_eq!(m.block_size, 0x8000000);
            assert_eq!(m.nodes[0].blocks_list(), "0-23,32-199");
            assert_eq!(m.nodes[0].block_count(), 192);
            assert!(mem_topology(&b[..b.len() - 8], e, Position::at(0)).is_err());
        }
        // A bit count that no section could hold is an error, not an allocation.
        let mut b = Vec::new();
        for v in [1u64, 1, 1, 0, 0, u64::MAX] {
            Endian::Little.put_u64(&mut b, v);
        }
        assert!(mem_topology(&b, Endian::Little, Position::at(0)).is_err());
    }

    #[test]
    fn cpu_domain_info_with_and_without_names() {
        for (version, e) in [(16, Endian::Little), (17, Endian::Big)] {
            let mut b = Vec::new();
            e.put_u32(&mut b, version);
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 0);
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 0);
            if version >= 17 {
                put_string(e, &mut b, "MC");
            }
            put_string(e, &mut b, "00000003");
            put_string(e, &mut b, "0-1");
            let d = cpu_domain_info(&b, e, Position::at(0), 1).unwrap();
            let dom = &d.cpus[0].domains[0];
            assert_eq!(dom.name.is_some(), version >= 17);
            assert_eq!(dom.cpulist, "0-1");
            assert!(cpu_domain_info(&b, e, Position::at(0), 2).is_err());
        }
    }

    #[test]
    fn cpu_lists_like_perf() {
        assert_eq!(parse_cpu_list("0-3,8"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse_cpu_list("8,0-1"), Some(vec![0, 1, 8]));
        assert_eq!(parse_cpu_list(""), Some(vec![-1]));
        assert_eq!(parse_cpu_list("1-0"), None);
        assert_eq!(parse_cpu_list("0,0"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list("0-4294967296"), None);
        // perf reads items while the text starts with a digit; after an item only ',' or the end.
        assert_eq!(parse_cpu_list("0-3,x"), Some(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpu_list("0-3x"), None);
        assert_eq!(parse_cpu_list("0-"), None);
        assert_eq!(parse_cpu_list("0-1048577"), None);
        assert_eq!(parse_cpu_list("0,3-1"), None);
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_cpu_list(&[-1]), "-1");
        assert_eq!(format_cpu_list(&[]), "");
    }
}
