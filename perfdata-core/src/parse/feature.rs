//! nom parsers of the feature sections (perf's header.c `write_*`/`process_*`, reference §3), one
//! per section, and of the feature section table.
//!
//! Each parser takes the section's payload and names itself in its errors (the feature's name:
//! `NRCPUS`, `CPU_TOPOLOGY dies`, …); it returns the typed value of [`crate::feature`], borrowing
//! from the payload where that type does. The functions of [`crate::feature`] (`nr_cpus(data,
//! endian, pos)`, …) and [`crate::feature::Features`] run these.
//!
//! ```
//! use perfdata_core::parse::{feature, Reader};
//! use perfdata_core::{Endian, Position};
//! // HEADER_NRCPUS of a big-endian file: 4 CPUs available, 2 online.
//! let payload = [0, 0, 0, 4, 0, 0, 0, 2];
//! let input = Reader::new(&payload, Endian::Big, Position::at(0x1000), "feature section");
//! let (_, n) = feature::nr_cpus(input).unwrap();
//! assert_eq!((n.available, n.online), (4, 2));
//! let short = Reader::new(&payload[..6], Endian::Big, Position::at(0x1000), "feature section");
//! let err = perfdata_core::parse::to_error(feature::nr_cpus(short).unwrap_err());
//! assert_eq!(err.to_string(), "truncated input at 0x1004: reading NRCPUS, needed 4 bytes, 2 available");
//! ```

use super::{count, i32, malformed, take, take_input, take_u64, u16, u32, u64, u64s, until_end, PResult};
use super::{event_attr, section, ParseError, Reader};
use crate::feature::bpf::{BpfBtf, BpfProgInfo};
use crate::feature::build_id::{BuildId, BuildIds, BUILD_ID_SIZE, DEFAULT_GUEST_KERNEL_ID, HOST_KERNEL_ID};
use crate::feature::build_id::{ENTRY_SIZE, MISC_BUILD_ID_SIZE, OLD_ENTRY_SIZE};
use crate::feature::simpleperf::{dso_type, SimpleperfFile, SimpleperfSymbol, Wire};
use crate::feature::*;
use crate::header::Section;
use crate::reader::until_nul;
use std::borrow::Cow;

/// `perf_header_string`: `u32 len; u8 str[len]` (`len` counts the NUL and the padding), cut at the
/// first NUL; borrowed when it is UTF-8, else with the invalid bytes replaced.
pub fn header_str<'a>(input: Reader<'a>) -> PResult<'a, Cow<'a, str>> {
    let (input, len) = u32(input)?;
    let (input, b) = take_u64(u64::from(len))(input)?;
    Ok((input, String::from_utf8_lossy(until_nul(b))))
}

/// [`header_str`] as an owned `String`.
pub fn header_string(input: Reader<'_>) -> PResult<'_, String> {
    header_str(input).map(|(rest, s)| (rest, s.into_owned()))
}

/// A string list: `u32 nr; perf_header_string[nr]`, borrowed (see [`header_str`]).
pub fn str_list<'a>(input: Reader<'a>) -> PResult<'a, Vec<Cow<'a, str>>> {
    let (input, nr) = u32(input)?;
    count(nr.into(), 4, header_str)(input)
}

/// [`str_list`] as owned strings.
pub fn string_list(input: Reader<'_>) -> PResult<'_, Vec<String>> {
    let (input, nr) = u32(input)?;
    count(nr.into(), 4, header_string)(input)
}

/// The feature section table after the data section: one `perf_file_section` per set feature
/// bit, in bit order (`bits`, as [`crate::header::FileHeader::feature_bits`] gives them).
pub fn table<'a>(bits: &[u32]) -> impl Fn(Reader<'a>) -> PResult<'a, Vec<(u32, Section)>> + '_ {
    move |input: Reader<'a>| {
        let mut input = input.context("feature section table");
        let mut out = Vec::with_capacity(bits.len().min(input.remaining() / 16));
        for &bit in bits {
            let (rest, s) = section(input)?;
            out.push((bit, s));
            input = rest;
        }
        Ok((input, out))
    }
}

/// HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one `perf_header_string`.
pub fn string(input: Reader<'_>) -> PResult<'_, Cow<'_, str>> {
    header_str(input.context("string feature"))
}

/// HEADER_NRCPUS: `u32 nr_cpus_avail; u32 nr_cpus_online`.
pub fn nr_cpus(input: Reader<'_>) -> PResult<'_, NrCpus> {
    let input = input.context("NRCPUS");
    let (input, available) = u32(input)?;
    let (input, online) = u32(input)?;
    Ok((input, NrCpus { available, online }))
}

/// HEADER_TOTAL_MEM: `u64`, kB.
pub fn total_mem(input: Reader<'_>) -> PResult<'_, u64> {
    u64(input.context("TOTAL_MEM"))
}

/// HEADER_CMDLINE: a string list, entry 0 the perf binary.
pub fn cmdline(input: Reader<'_>) -> PResult<'_, Vec<Cow<'_, str>>> {
    str_list(input.context("CMDLINE"))
}

/// HEADER_BUILD_ID: `perf_record_header_build_id` entries, each framed by its `header.size`, the
/// filename filling the rest. The old layout without `pid` (before 2010) is detected as perf's
/// `perf_header__read_build_ids_abi_quirk` does: a filename starting with `nel.kallsyms]`.
pub fn build_ids(input: Reader<'_>) -> PResult<'_, BuildIds> {
    let input = input.context("BUILD_ID entry");
    match until_end(build_id_entry(false))(input) {
        Err(nom::Err::Error(ParseError::Kind { kind: nom::error::ErrorKind::Tag, .. })) => {
            let (rest, entries) = until_end(build_id_entry(true))(input)?;
            Ok((rest, BuildIds { entries, old_abi: true }))
        }
        r => r.map(|(rest, entries)| (rest, BuildIds { entries, old_abi: false })),
    }
}

/// One BUILD_ID entry, `old` without the pid; in the new layout a filename that says the layout
/// is the old one fails with `ErrorKind::Tag`.
fn build_id_entry<'a>(old: bool) -> impl Fn(Reader<'a>) -> PResult<'a, BuildId> {
    // Header, pid, build_id[24]; the old layout has no pid.
    let fixed = if old { OLD_ENTRY_SIZE } else { ENTRY_SIZE } as u16;
    move |input: Reader<'a>| {
        let (input, _type) = u32(input)?;
        let (input, misc) = u16(input)?;
        let (input, size) = u16(input)?;
        if size < fixed {
            return malformed(&input, "entry size {} is below the {}-byte entry header", [size.into(), fixed.into()]);
        }
        let (rest, body) = take_input(usize::from(size - 8))(input)?;
        // perf leaves the pid unswapped (a bug); it is an s32 in the writer's byte order.
        let (body, pid) = if old { (body, None) } else { i32(body).map(|(b, p)| (b, Some(p)))? };
        let (body, id) = take(24)(body)?;
        let filename = until_nul(body.rest());
        if !old && filename.starts_with(b"nel.kallsyms]") {
            return Err(nom::Err::Error(ParseError::Kind {
                pos: body.position(),
                what: "BUILD_ID entry",
                kind: nom::error::ErrorKind::Tag,
            }));
        }
        let len = match id.get(BUILD_ID_SIZE) {
            Some(&n) if misc & MISC_BUILD_ID_SIZE != 0 => usize::from(n).min(BUILD_ID_SIZE),
            _ => BUILD_ID_SIZE,
        };
        let pid = pid.unwrap_or(match misc {
            4 | 5 => DEFAULT_GUEST_KERNEL_ID,
            _ => HOST_KERNEL_ID,
        });
        let entry = BuildId {
            pid,
            misc,
            build_id: id.get(..len).unwrap_or_default().to_vec(),
            filename: String::from_utf8_lossy(filename).into_owned(),
        };
        Ok((rest, entry))
    }
}

/// HEADER_EVENT_DESC: `u32 nr; u32 attr_size;` nr × {attr; u32 nr_ids; string name; u64 ids[]}.
pub fn event_desc<'a>(input: Reader<'a>) -> PResult<'a, Vec<EventDesc>> {
    let input = input.context("EVENT_DESC");
    let (input, nr) = u32(input)?;
    let (rest, attr_size) = u32(input)?;
    if attr_size < 64 {
        return malformed(&input, "attr_size {} below 64", [attr_size.into(), 0]);
    }
    let entry = move |input: Reader<'a>| {
        let (input, a) = take_input(attr_size as usize)(input)?;
        let (_, attr) = event_attr(a.context("perf_event_attr"))?;
        let (input, nr_ids) = u32(input)?;
        let (input, name) = header_string(input)?;
        let (input, ids) = u64s(nr_ids.into())(input)?;
        Ok((input, EventDesc { attr, name, ids: ids.to_vec() }))
    };
    count(nr.into(), attr_size as usize, entry)(rest)
}

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
        let (input, mut cpus) = count(nr_cpus_available.into(), 8, ids)(input.context("CPU_TOPOLOGY core/socket ids"))?;
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

/// A `u32` (or `u64`) version that must be 1.
fn version_1<'a, T: Copy + Into<u64>>(
    number: impl Fn(Reader<'a>) -> PResult<'a, T>,
) -> impl Fn(Reader<'a>) -> PResult<'a, T> {
    move |input: Reader<'a>| {
        let (rest, v) = number(input)?;
        if v.into() != 1 {
            return malformed(&rest, "version {}, only 1 is defined", [v.into(), 0]);
        }
        Ok((rest, v))
    }
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
            let (input, name) =
                if schedstat_version >= 17 { header_string(input).map(|(i, n)| (i, Some(n)))? } else { (input, None) };
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

/// HEADER_GROUP_DESC: `u32 nr_groups;` nr × {string name; u32 leader_idx; u32 nr_members}.
pub fn group_desc(input: Reader<'_>) -> PResult<'_, Vec<GroupDesc>> {
    let group = |input| {
        let (input, name) = header_string(input)?;
        let (input, leader_idx) = u32(input)?;
        let (input, nr_members) = u32(input)?;
        Ok((input, GroupDesc { name, leader_idx, nr_members }))
    };
    let (input, nr) = u32(input.context("GROUP_DESC"))?;
    count(nr.into(), 12, group)(input)
}

/// HEADER_PMU_MAPPINGS: `u32 nr;` nr × {u32 type; string name}.
pub fn pmu_mappings(input: Reader<'_>) -> PResult<'_, Vec<PmuMapping>> {
    let mapping = |input| {
        let (input, type_) = u32(input)?;
        let (input, name) = header_string(input)?;
        Ok((input, PmuMapping { type_, name }))
    };
    let (input, nr) = u32(input.context("PMU_MAPPINGS"))?;
    count(nr.into(), 8, mapping)(input)
}

/// `u32 nr;` nr × {string name; string value}.
fn caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCap>> {
    let cap = |input| {
        let (input, name) = header_string(input)?;
        let (input, value) = header_string(input)?;
        Ok((input, PmuCap { name, value }))
    };
    let (input, nr) = u32(input)?;
    count(nr.into(), 8, cap)(input)
}

/// HEADER_CPU_PMU_CAPS: `u32 nr;` nr × {string name; string value} of the `cpu` PMU.
pub fn cpu_pmu_caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCap>> {
    caps(input.context("CPU_PMU_CAPS"))
}

/// HEADER_PMU_CAPS (perf ≤ 6.1: HYBRID_CPU_PMU_CAPS): `u32 nr_pmu;` nr_pmu × {caps; string
/// pmu_name} — the name comes after its caps.
pub fn pmu_caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCaps>> {
    let pmu = |input| {
        let (input, caps) = caps(input)?;
        let (input, pmu_name) = header_string(input)?;
        Ok((input, PmuCaps { pmu_name, caps }))
    };
    let (input, nr) = u32(input.context("PMU_CAPS"))?;
    count(nr.into(), 8, pmu)(input)
}

/// HEADER_SAMPLE_TIME: `u64 first; u64 last`.
pub fn sample_time(input: Reader<'_>) -> PResult<'_, SampleTime> {
    let (input, first) = u64(input.context("SAMPLE_TIME"))?;
    let (input, last) = u64(input)?;
    Ok((input, SampleTime { first, last }))
}

/// HEADER_CLOCKID: `u64 clockid_res_ns`.
pub fn clockid_res_ns(input: Reader<'_>) -> PResult<'_, u64> {
    u64(input.context("CLOCKID"))
}

/// HEADER_CLOCK_DATA: `u32 version (1); u32 clockid; u64 tod_ns; u64 clockid_ns`. perf rejects
/// other versions.
pub fn clock_data(input: Reader<'_>) -> PResult<'_, ClockData> {
    let (input, version) = version_1(u32)(input.context("CLOCK_DATA"))?;
    let (input, clockid) = u32(input)?;
    let (input, tod_ns) = u64(input)?;
    let (input, clockid_ns) = u64(input)?;
    Ok((input, ClockData { version, clockid, tod_ns, clockid_ns }))
}

/// HEADER_AUXTRACE: `u64 nr;` nr × {u64 file_offset; u64 size}.
pub fn auxtrace(input: Reader<'_>) -> PResult<'_, Vec<AuxtraceIndexEntry>> {
    let entry = |input| {
        let (input, file_offset) = u64(input)?;
        let (input, size) = u64(input)?;
        Ok((input, AuxtraceIndexEntry { file_offset, size }))
    };
    let (input, nr) = u64(input.context("AUXTRACE"))?;
    count(nr, 16, entry)(input)
}

/// HEADER_DIR_FORMAT: `u64 version`.
pub fn dir_format(input: Reader<'_>) -> PResult<'_, u64> {
    u64(input.context("DIR_FORMAT"))
}

/// HEADER_COMPRESSED: `u32 version, type, level, ratio, mmap_len`.
pub fn compressed(input: Reader<'_>) -> PResult<'_, Compressed> {
    let (input, version) = u32(input.context("COMPRESSED feature"))?;
    let (input, type_) = u32(input)?;
    let (input, level) = u32(input)?;
    let (input, ratio) = u32(input)?;
    let (input, mmap_len) = u32(input)?;
    Ok((input, Compressed { version, type_, level, ratio, mmap_len }))
}

/// HEADER_BPF_PROG_INFO: `u32 count;` count × `{u32 info_len; u32 data_len; u64 arrays; u8
/// info[info_len]; u8 data[data_len]}`, both byte arrays borrowed.
pub fn bpf_prog_info(input: Reader<'_>) -> PResult<'_, Vec<BpfProgInfo<'_>>> {
    let endian = input.endian();
    let prog = move |input| {
        let (input, info_len) = u32(input)?;
        let (input, data_len) = u32(input)?;
        let (input, arrays) = u64(input)?;
        let (input, info) = take_u64(info_len.into())(input)?;
        let (input, data) = take_u64(data_len.into())(input)?;
        Ok((input, BpfProgInfo { info_len, data_len, arrays, info, data, endian }))
    };
    let (input, nr) = u32(input.context("BPF_PROG_INFO"))?;
    count(nr.into(), 16, prog)(input)
}

/// HEADER_BPF_BTF: `u32 count;` count × `{u32 id; u32 data_size; u8 data[data_size]}`, borrowed.
pub fn bpf_btf(input: Reader<'_>) -> PResult<'_, Vec<BpfBtf<'_>>> {
    let btf = |input| {
        let (input, id) = u32(input)?;
        let (input, size) = u32(input)?;
        let (input, data) = take_u64(size.into())(input)?;
        Ok((input, BpfBtf { id, data }))
    };
    let (input, nr) = u32(input.context("BPF_BTF"))?;
    count(nr.into(), 8, btf)(input)
}

/// A NUL-terminated string (simpleperf's layout), the NUL consumed; borrowed when UTF-8.
pub fn nul_str<'a>(input: Reader<'a>) -> PResult<'a, Cow<'a, str>> {
    use nom::bytes::complete::take_till;
    let (rest, s): (_, Reader<'a>) = take_till(|b| b == 0)(input)?;
    if rest.remaining() == 0 {
        return malformed(&input, "string without its NUL", [0; 2]);
    }
    Ok((rest.advanced(1), String::from_utf8_lossy(s.rest())))
}

/// simpleperf's FILE (128): `file_struct`s to the end, each `u32 size` then that many bytes: the
/// path (NUL-terminated), `u32 file_type`, `u64 min_vaddr`, `u32 symbol_count`, per symbol `u64
/// vaddr, u32 len, name NUL`; then for dex files `u32 count, u64 offsets[count]`, for ELF files
/// and kernel modules (when bytes remain) `u64 file_offset_of_min_vaddr`.
pub fn simpleperf_file(input: Reader<'_>) -> PResult<'_, Vec<SimpleperfFile<'_>>> {
    until_end(simpleperf_file_entry)(input.context("SIMPLEPERF_FILE"))
}

fn simpleperf_file_entry(input: Reader<'_>) -> PResult<'_, SimpleperfFile<'_>> {
    let symbol = |e| {
        let (e, vaddr) = u64(e)?;
        let (e, len) = u32(e)?;
        let (e, name) = nul_str(e)?;
        Ok((e, SimpleperfSymbol { vaddr, len, name }))
    };
    let (input, size) = u32(input)?;
    let (rest, e) = take_input(size as usize)(input)?;
    let e = e.context("SIMPLEPERF_FILE entry");
    let (e, path) = nul_str(e)?;
    let (e, file_type) = u32(e)?;
    let (e, min_vaddr) = u64(e)?;
    let (e, nr) = u32(e)?;
    // Each symbol takes at least 13 bytes.
    let (mut e, symbols) = count(nr.into(), 13, symbol)(e)?;
    let mut dex_file_offsets = Vec::new();
    if file_type == dso_type::DEX_FILE {
        let (r, n) = u32(e)?;
        let (r, offsets) = u64s(n.into())(r)?;
        dex_file_offsets = offsets.to_vec();
        e = r;
    }
    let mut file_offset_of_min_vaddr = None;
    if (file_type == dso_type::ELF_FILE || file_type == dso_type::KERNEL_MODULE) && e.remaining() > 0 {
        let (r, v) = u64(e)?;
        file_offset_of_min_vaddr = Some(v);
        e = r;
    }
    if e.remaining() != 0 {
        return malformed(&e, "{} bytes after the entry", [e.remaining() as u64, 0]);
    }
    Ok((rest, SimpleperfFile { path, file_type, min_vaddr, symbols, dex_file_offsets, file_offset_of_min_vaddr }))
}

/// simpleperf's META_INFO (129): NUL-terminated key and value strings, alternating, to the end.
pub fn simpleperf_meta_info(input: Reader<'_>) -> PResult<'_, Vec<(Cow<'_, str>, Cow<'_, str>)>> {
    let pair = |input| {
        let (input, k) = nul_str(input)?;
        let (input, v) = nul_str(input)?;
        Ok((input, (k, v)))
    };
    until_end(pair)(input.context("SIMPLEPERF_META_INFO"))
}

/// simpleperf's FILE2 (132): `u32 size` + a `FileFeature` protobuf message (record_file.proto),
/// to the end.
pub fn simpleperf_file2(input: Reader<'_>) -> PResult<'_, Vec<SimpleperfFile<'_>>> {
    let message = |input| {
        let (input, size) = u32(input)?;
        let (rest, m) = take_input(size as usize)(input)?;
        let (_, f) = file_feature(m.context("FileFeature"))?;
        Ok((rest, f))
    };
    until_end(message)(input.context("SIMPLEPERF_FILE2"))
}

/// One `FileFeature` protobuf message (the whole input).
pub fn file_feature(input: Reader<'_>) -> PResult<'_, SimpleperfFile<'_>> {
    let mut f = SimpleperfFile {
        path: Cow::Borrowed(""),
        file_type: 0,
        min_vaddr: 0,
        symbols: Vec::new(),
        dex_file_offsets: Vec::new(),
        file_offset_of_min_vaddr: None,
    };
    let text = String::from_utf8_lossy;
    let (rest, ()) = proto_fields(input, |field, v, sub| {
        match (field, v) {
            (1, Wire::Bytes(b)) => f.path = text(b),
            (2, Wire::Varint(t)) => f.file_type = t as u32,
            (3, Wire::Varint(m)) => f.min_vaddr = m,
            (4, Wire::Bytes(_)) => {
                let mut s = SimpleperfSymbol { vaddr: 0, len: 0, name: Cow::Borrowed("") };
                proto_fields(sub.context("FileFeature.Symbol"), |field, v, _| {
                    match (field, v) {
                        (1, Wire::Varint(a)) => s.vaddr = a,
                        (2, Wire::Varint(l)) => s.len = l as u32,
                        (3, Wire::Bytes(n)) => s.name = text(n),
                        _ => {}
                    }
                    Ok(())
                })?;
                f.symbols.push(s);
            }
            (5, Wire::Bytes(_)) => {
                proto_fields(sub.context("FileFeature.DexFile"), |field, v, packed| {
                    match (field, v) {
                        (1, Wire::Varint(o)) => f.dex_file_offsets.push(o),
                        // proto3 packs repeated scalars.
                        (1, Wire::Bytes(_)) => {
                            let (_, offsets) =
                                until_end(varint)(packed.context("FileFeature.DexFile.dex_file_offset"))?;
                            f.dex_file_offsets.extend(offsets);
                        }
                        _ => {}
                    }
                    Ok(())
                })?;
            }
            (6 | 7, Wire::Bytes(_)) => {
                f.file_offset_of_min_vaddr = Some(0);
                proto_fields(sub.context("FileFeature.ElfFile"), |field, v, _| {
                    if let (1, Wire::Varint(o)) = (field, v) {
                        f.file_offset_of_min_vaddr = Some(o);
                    }
                    Ok(())
                })?;
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok((rest, f))
}

/// simpleperf's DEBUG_UNWIND (130): a `DebugUnwindFeature` protobuf message (the whole input).
pub fn simpleperf_debug_unwind(input: Reader<'_>) -> PResult<'_, Vec<DebugUnwindFile<'_>>> {
    let mut out = Vec::new();
    let (rest, ()) = proto_fields(input.context("DebugUnwindFeature"), |field, v, sub| {
        if let (1, Wire::Bytes(_)) = (field, v) {
            let mut f = DebugUnwindFile { path: Cow::Borrowed(""), size: 0 };
            proto_fields(sub.context("DebugUnwindFeature.File"), |field, v, _| {
                match (field, v) {
                    (1, Wire::Bytes(s)) => f.path = String::from_utf8_lossy(s),
                    (2, Wire::Varint(n)) => f.size = n,
                    _ => {}
                }
                Ok(())
            })?;
            out.push(f);
        }
        Ok(())
    })?;
    Ok((rest, out))
}

/// Every field of a protobuf message (the whole input), in order, given to `field` with the input
/// of its bytes (a sub-message or a packed array; empty for the other wire types).
pub fn proto_fields<'a>(
    mut input: Reader<'a>,
    mut field: impl FnMut(u64, Wire<'a>, Reader<'a>) -> Result<(), nom::Err<ParseError>>,
) -> PResult<'a, ()> {
    while input.remaining() > 0 {
        let (rest, (number, value)) = proto_field(input)?;
        let sub = match value {
            Wire::Bytes(b) => {
                let at = rest.position();
                let offset = at.offset.saturating_sub(b.len() as u64);
                Reader::new(b, input.endian(), crate::Position { offset, ..at }, input.what())
            }
            _ => rest.limited(0),
        };
        field(number, value, sub)?;
        input = rest;
    }
    Ok((input, ()))
}

/// A protobuf varint (at most 10 bytes, at most 64 bits).
pub fn varint(input: Reader<'_>) -> PResult<'_, u64> {
    let mut v = 0u64;
    let mut rest = input;
    for shift in (0..70).step_by(7) {
        let Some(&b) = rest.rest().first() else {
            return malformed(&rest, "varint runs past the end", [0; 2]);
        };
        if shift == 63 && b > 1 {
            return malformed(&rest, "varint over 64 bits", [0; 2]);
        }
        rest = rest.advanced(1);
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok((rest, v));
        }
    }
    malformed(&rest, "varint over 10 bytes", [0; 2])
}

/// One protobuf field: its number and value. Fixed-size values are little-endian whatever the
/// input's byte order; groups (wire types 3, 4) are refused.
pub fn proto_field<'a>(input: Reader<'a>) -> PResult<'a, (u64, Wire<'a>)> {
    let le = |n: usize, input: Reader<'a>| {
        take(n)(input).map_err(|_| {
            nom::Err::Error(ParseError::malformed(
                &input,
                "{} bytes wanted, {} left",
                [n as u64, input.remaining() as u64],
            ))
        })
    };
    let (input, key) = varint(input)?;
    let (input, v) = match key & 7 {
        0 => varint(input).map(|(i, v)| (i, Wire::Varint(v)))?,
        1 => le(8, input).map(|(i, b)| (i, Wire::Fixed64(crate::Endian::Little.u64(b))))?,
        2 => {
            let (input, n) = varint(input)?;
            match usize::try_from(n) {
                Ok(n) if n <= input.remaining() => le(n, input).map(|(i, b)| (i, Wire::Bytes(b)))?,
                _ => return malformed(&input, "{} bytes wanted, {} left", [n, input.remaining() as u64]),
            }
        }
        5 => le(4, input).map(|(i, b)| (i, Wire::Fixed32(crate::Endian::Little.u32(b))))?,
        w => return malformed(&input, "wire type {} of field {}", [w, key >> 3]),
    };
    Ok((input, (key >> 3, v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::EventAttr;
    use crate::error::Error;
    use crate::feature::simpleperf::tests::{field_bytes as field, field_varint};
    use crate::feature::system::tests::put_string;
    use crate::header::feature as bit;
    use crate::parse::tests::{shown, Parsed};
    use crate::parse::to_error;
    use crate::{Endian, Position};
    use std::fmt::Debug;

    const AT: u64 = 0x1000;

    /// How a section is checked: the parser, the section built in a byte order, the value, the
    /// cuts that are a shorter section rather than a truncated one, and whether the writer
    /// converts the section's byte order.
    struct Case<'c> {
        bit: u32,
        name: &'static str,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> Vec<u8>,
        expect: &'c dyn Debug,
        whole_cuts: &'c dyn Fn(Endian) -> Vec<usize>,
        converted: bool,
    }

    fn none(_: Endian) -> Vec<usize> {
        vec![]
    }

    fn case<'c>(
        bit: u32,
        name: &'static str,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> Vec<u8>,
        expect: &'c dyn Debug,
    ) -> Case<'c> {
        Case { bit, name, parse, build, expect, whole_cuts: &none, converted: true }
    }

    fn input(b: &[u8], e: Endian) -> Reader<'_> {
        Reader::new(b, e, Position::at(AT), "feature section")
    }

    /// In both byte orders: the whole section parses to the value and is read to its end; every
    /// cut short of it (but the whole-entry cuts) is an error naming the section, at an offset
    /// inside the cut bytes; the writer's conversion to the other byte order parses to the same
    /// value and converts back to the same bytes.
    fn check(c: Case<'_>) {
        let want = format!("{:?}", c.expect);
        for e in [Endian::Little, Endian::Big] {
            let b = (c.build)(e);
            assert_eq!((c.parse)(input(&b, e)).unwrap(), (0, want.clone()), "{} {e:?}", c.name);
            let whole = (c.whole_cuts)(e);
            for cut in 0..b.len() {
                if whole.contains(&cut) {
                    assert!((c.parse)(input(&b[..cut], e)).is_ok(), "{} {e:?} cut {cut}", c.name);
                    continue;
                }
                let err = to_error((c.parse)(input(&b[..cut], e)).unwrap_err());
                match &err {
                    Error::Truncated { what, pos, .. } | Error::Malformed { what, pos, .. } => {
                        assert!(what.starts_with(c.name), "{} {e:?} cut {cut}: {err}", c.name);
                        assert!((AT..=AT + cut as u64).contains(&pos.offset), "{} cut {cut}: {err}", c.name);
                    }
                    err => panic!("{} {e:?} cut {cut}: {err}", c.name),
                }
            }
            #[cfg(feature = "write")]
            if c.converted {
                let (o, pos) = (e.swapped(), Position::at(AT));
                let mut other = Vec::new();
                crate::write::conv_feature(c.bit, &b, e, o, pos, 2, &mut other).unwrap();
                assert_eq!((c.parse)(input(&other, o)).unwrap(), (0, want.clone()), "{} to {o:?}", c.name);
                let mut back = Vec::new();
                crate::write::conv_feature(c.bit, &other, o, e, pos, 2, &mut back).unwrap();
                assert_eq!(back, b, "{} back to {e:?}", c.name);
            }
        }
    }

    fn u32s(e: Endian, v: &[u32]) -> Vec<u8> {
        let mut b = Vec::new();
        v.iter().for_each(|&v| e.put_u32(&mut b, v));
        b
    }

    fn u64s_(e: Endian, v: &[u64]) -> Vec<u8> {
        let mut b = Vec::new();
        v.iter().for_each(|&v| e.put_u64(&mut b, v));
        b
    }

    fn strings(e: Endian, b: &mut Vec<u8>, l: &[&str]) {
        l.iter().for_each(|s| put_string(e, b, s));
    }

    #[test]
    fn machine_description_sections() {
        check(case(
            bit::HOSTNAME,
            "string feature",
            &|i| shown(string(i)),
            &|e| {
                let mut b = Vec::new();
                put_string(e, &mut b, "vm");
                b
            },
            &"vm",
        ));
        check(case(
            bit::NRCPUS,
            "NRCPUS",
            &|i| shown(nr_cpus(i)),
            &|e| u32s(e, &[4, 2]),
            &NrCpus { available: 4, online: 2 },
        ));
        check(case(bit::TOTAL_MEM, "TOTAL_MEM", &|i| shown(total_mem(i)), &|e| u64s_(e, &[24684084]), &24684084u64));
        check(case(
            bit::CMDLINE,
            "CMDLINE",
            &|i| shown(cmdline(i)),
            &|e| {
                let mut b = u32s(e, &[3]);
                strings(e, &mut b, &["/usr/bin/perf", "record", "-a"]);
                b
            },
            &["/usr/bin/perf", "record", "-a"],
        ));
    }

    #[test]
    fn build_ids_and_event_descs() {
        use crate::feature::build_id::tests::entry;
        let build = |e| {
            let mut b = Vec::new();
            entry(e, &mut b, 1 | MISC_BUILD_ID_SIZE, Some(-1), &[0xab; 20], 20, "[kernel.kallsyms]");
            entry(e, &mut b, 2 | MISC_BUILD_ID_SIZE, Some(7), &[0xab; 8], 8, "/bin/x");
            b
        };
        let expect = BuildIds {
            entries: vec![
                BuildId { pid: -1, misc: 0x8001, build_id: vec![0xab; 20], filename: "[kernel.kallsyms]".into() },
                BuildId { pid: 7, misc: 0x8002, build_id: vec![0xab; 8], filename: "/bin/x".into() },
            ],
            old_abi: false,
        };
        let first = |_| vec![0, 56];
        check(Case {
            whole_cuts: &first,
            ..case(bit::BUILD_ID, "BUILD_ID entry", &|i| shown(build_ids(i)), &build, &expect)
        });

        let attr = EventAttr { type_: 2, size: 128, config: 0x174, flags: 0x140003, ..Default::default() };
        let build = |e| {
            let mut b = u32s(e, &[1, 128]);
            attr.write(e, &mut b);
            e.put_u32(&mut b, 2);
            put_string(e, &mut b, "sched:sched_switch");
            b.extend_from_slice(&u64s_(e, &[1334, 1335]));
            b
        };
        let expect = vec![EventDesc { attr: attr.clone(), name: "sched:sched_switch".into(), ids: vec![1334, 1335] }];
        check(case(bit::EVENT_DESC, "EVENT_DESC", &|i| shown(event_desc(i)), &build, &expect));
        let err = to_error(event_desc(input(&u32s(Endian::Little, &[1, 63]), Endian::Little)).unwrap_err());
        assert_eq!(err.to_string(), "malformed EVENT_DESC at 0x1004: attr_size 63 below 64");
    }

    #[test]
    fn topology_sections() {
        let lists = |e: Endian, b: &mut Vec<u8>, l: &[&str]| {
            e.put_u32(b, l.len() as u32);
            strings(e, b, l);
        };
        let build = |e| {
            let mut b = Vec::new();
            lists(e, &mut b, &["0-1"]);
            lists(e, &mut b, &["0", "1"]);
            b.extend_from_slice(&u32s(e, &[0, 0, 1, u32::MAX]));
            lists(e, &mut b, &["0-1"]);
            b.extend_from_slice(&u32s(e, &[0, 3]));
            b
        };
        let expect = CpuTopology {
            package_cpus: vec!["0-1".into()],
            core_cpus: vec!["0".into(), "1".into()],
            cpus: Some(vec![
                CpuIds { core_id: 0, socket_id: 0, die_id: Some(0) },
                CpuIds { core_id: 1, socket_id: -1, die_id: Some(3) },
            ]),
            die_cpus: Some(vec!["0-1".into()]),
        };
        // Before 4.1 the section stops after the lists, before 5.3 after the ids.
        let blocks = |_| vec![4 + 68 + 4 + 2 * 68, 4 + 68 + 4 + 2 * 68 + 16];
        check(Case {
            whole_cuts: &blocks,
            ..case(bit::CPU_TOPOLOGY, "CPU_TOPOLOGY", &|i| shown(cpu_topology(2)(i)), &build, &expect)
        });

        let build = |e| {
            let mut b = u32s(e, &[1, 0]);
            b.extend_from_slice(&u64s_(e, &[5990604, 4749392]));
            put_string(e, &mut b, "0-1");
            b
        };
        let expect = vec![NumaNode { node: 0, mem_total_kb: 5990604, mem_free_kb: 4749392, cpus: "0-1".into() }];
        check(case(bit::NUMA_TOPOLOGY, "NUMA_TOPOLOGY", &|i| shown(numa_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1, 1, 3, 64, 32768, 16]);
            strings(e, &mut b, &["Unified", "32768K", "0-1"]);
            b
        };
        let expect = vec![CacheLevel {
            level: 3,
            line_size: 64,
            sets: 32768,
            ways: 16,
            type_: "Unified".into(),
            size: "32768K".into(),
            map: "0-1".into(),
        }];
        check(case(bit::CACHE, "CACHE", &|i| shown(cache(i)), &build, &expect));
        let err = to_error(cache(input(&u32s(Endian::Big, &[2, 0]), Endian::Big)).unwrap_err());
        assert_eq!(err.to_string(), "malformed CACHE at 0x1004: version 2, only 1 is defined");

        let build = |e| u64s_(e, &[1, 0x8000000, 1, 0, 200, 200, u64::MAX, 0xffff_ffff_0000_00ff, 0, 0]);
        let expect = MemTopology {
            version: 1,
            block_size: 0x8000000,
            nodes: vec![MemoryNode {
                node: 0,
                size: 200,
                nbits: 200,
                bitmap: vec![u64::MAX, 0xffff_ffff_0000_00ff, 0, 0],
            }],
        };
        check(case(bit::MEM_TOPOLOGY, "MEM_TOPOLOGY", &|i| shown(mem_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1]);
            strings(e, &mut b, &["cpu_core", "0-3"]);
            b
        };
        let expect = vec![HybridNode { pmu_name: "cpu_core".into(), cpus: "0-3".into() }];
        check(case(bit::HYBRID_TOPOLOGY, "HYBRID_TOPOLOGY", &|i| shown(hybrid_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[17, 1, 0, 1, 0]);
            strings(e, &mut b, &["MC", "00000003", "0-1"]);
            b
        };
        let expect = CpuDomainInfo {
            schedstat_version: 17,
            max_sched_domains: 1,
            cpus: vec![CpuDomains {
                cpu: 0,
                domains: vec![SchedDomain {
                    domain: 0,
                    name: Some("MC".into()),
                    cpumask: "00000003".into(),
                    cpulist: "0-1".into(),
                }],
            }],
        };
        // The writer copies CPU_DOMAIN_INFO as it is (not converted).
        check(Case {
            converted: false,
            ..case(bit::CPU_DOMAIN_INFO, "CPU_DOMAIN_INFO", &|i| shown(cpu_domain_info(1)(i)), &build, &expect)
        });
    }

    #[test]
    fn event_and_pmu_sections() {
        let build = |e| {
            let mut b = u32s(e, &[1]);
            put_string(e, &mut b, "{anon_group}");
            b.extend_from_slice(&u32s(e, &[0, 2]));
            b
        };
        let expect = vec![GroupDesc { name: "{anon_group}".into(), leader_idx: 0, nr_members: 2 }];
        check(case(bit::GROUP_DESC, "GROUP_DESC", &|i| shown(group_desc(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[2, 1]);
            put_string(e, &mut b, "software");
            e.put_u32(&mut b, 0xffff_0001);
            put_string(e, &mut b, "hwmon_x");
            b
        };
        let expect = vec![
            PmuMapping { type_: 1, name: "software".into() },
            PmuMapping { type_: 0xffff_0001, name: "hwmon_x".into() },
        ];
        check(case(bit::PMU_MAPPINGS, "PMU_MAPPINGS", &|i| shown(pmu_mappings(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1]);
            strings(e, &mut b, &["branches", "32"]);
            b
        };
        let expect = vec![PmuCap { name: "branches".into(), value: "32".into() }];
        check(case(bit::CPU_PMU_CAPS, "CPU_PMU_CAPS", &|i| shown(cpu_pmu_caps(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[2, 1]);
            strings(e, &mut b, &["branches", "32", "cpu_core"]);
            e.put_u32(&mut b, 0);
            put_string(e, &mut b, "cpu_atom");
            b
        };
        let expect = vec![
            PmuCaps { pmu_name: "cpu_core".into(), caps: vec![PmuCap { name: "branches".into(), value: "32".into() }] },
            PmuCaps { pmu_name: "cpu_atom".into(), caps: vec![] },
        ];
        check(case(bit::PMU_CAPS, "PMU_CAPS", &|i| shown(pmu_caps(i)), &build, &expect));
    }

    #[test]
    fn time_and_data_sections() {
        let st = SampleTime { first: 4410607901000, last: 4410696880000 };
        check(case(
            bit::SAMPLE_TIME,
            "SAMPLE_TIME",
            &|i| shown(sample_time(i)),
            &|e| u64s_(e, &[st.first, st.last]),
            &st,
        ));
        check(case(bit::CLOCKID, "CLOCKID", &|i| shown(clockid_res_ns(i)), &|e| u64s_(e, &[1]), &1u64));
        let build = |e| {
            let mut b = u32s(e, &[1, 4]);
            b.extend_from_slice(&u64s_(e, &[1795411894813587000, 3112013177188]));
            b
        };
        let expect = ClockData { version: 1, clockid: 4, tod_ns: 1795411894813587000, clockid_ns: 3112013177188 };
        check(case(bit::CLOCK_DATA, "CLOCK_DATA", &|i| shown(clock_data(i)), &build, &expect));
        let expect = vec![
            AuxtraceIndexEntry { file_offset: 0x1000, size: 0x48 },
            AuxtraceIndexEntry { file_offset: 0x2000, size: 0x1048 },
        ];
        let build = |e| u64s_(e, &[2, 0x1000, 0x48, 0x2000, 0x1048]);
        check(case(bit::AUXTRACE, "AUXTRACE", &|i| shown(auxtrace(i)), &build, &expect));
        check(case(bit::DIR_FORMAT, "DIR_FORMAT", &|i| shown(dir_format(i)), &|e| u64s_(e, &[1]), &1u64));
        let expect = Compressed { version: 0, type_: 1, level: 1, ratio: 7, mmap_len: 528384 };
        let build = |e| u32s(e, &[0, 1, 1, 7, 528384]);
        check(case(bit::COMPRESSED, "COMPRESSED feature", &|i| shown(compressed(i)), &build, &expect));
        // A count no section could hold allocates nothing and is an error.
        let b = u64s_(Endian::Little, &[u64::MAX]);
        assert!(auxtrace(input(&b, Endian::Little)).is_err());
    }

    #[test]
    fn bpf_sections() {
        let info = [7u8; 24];
        let build = |e| {
            let mut b = u32s(e, &[1, 24, 3]);
            e.put_u64(&mut b, 5);
            b.extend_from_slice(&info);
            b.extend_from_slice(&[9, 9, 9]);
            b
        };
        // The writer copies BPF sections as they are (perf skips them in cross-endian files).
        let fields = |i: Reader<'_>| {
            shown(bpf_prog_info(i).map(|(rest, v)| {
                let v: Vec<_> = v.iter().map(|p| (p.info_len, p.data_len, p.arrays, p.info, p.data)).collect();
                (rest, v)
            }))
        };
        let expect = vec![(24u32, 3u32, 5u64, &info[..], &[9u8; 3][..])];
        check(Case { converted: false, ..case(bit::BPF_PROG_INFO, "BPF_PROG_INFO", &fields, &build, &expect) });
        for e in [Endian::Little, Endian::Big] {
            let b = build(e);
            let (_, p) = bpf_prog_info(input(&b, e)).unwrap();
            assert_eq!(p.first().map(|p| p.endian), Some(e));
        }
        let build = |e| {
            let mut b = u32s(e, &[1, 7, 2]);
            b.extend_from_slice(&[0x9f, 0xeb]);
            b
        };
        let expect = vec![BpfBtf { id: 7, data: &[0x9f, 0xeb] }];
        check(Case { converted: false, ..case(bit::BPF_BTF, "BPF_BTF", &|i| shown(bpf_btf(i)), &build, &expect) });
    }

    #[test]
    fn simpleperf_sections() {
        let build = |e: Endian| {
            let mut entry = b"/system/lib/libc.so\0".to_vec();
            e.put_u32(&mut entry, dso_type::ELF_FILE);
            e.put_u64(&mut entry, 0x1000);
            e.put_u32(&mut entry, 1);
            e.put_u64(&mut entry, 0x1100);
            e.put_u32(&mut entry, 0x20);
            entry.extend_from_slice(b"malloc\0");
            e.put_u64(&mut entry, 0x400);
            let mut b = u32s(e, &[entry.len() as u32]);
            b.extend_from_slice(&entry);
            b
        };
        let expect = vec![SimpleperfFile {
            path: "/system/lib/libc.so".into(),
            file_type: dso_type::ELF_FILE,
            min_vaddr: 0x1000,
            symbols: vec![SimpleperfSymbol { vaddr: 0x1100, len: 0x20, name: "malloc".into() }],
            dex_file_offsets: vec![],
            file_offset_of_min_vaddr: Some(0x400),
        }];
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(bit::SIMPLEPERF_FILE, "SIMPLEPERF_FILE", &|i| shown(simpleperf_file(i)), &build, &expect)
        });

        let build = |e| {
            let mut sym = Vec::new();
            field_varint(&mut sym, 1, 0x1100);
            field_varint(&mut sym, 2, 0x20);
            field(&mut sym, 3, b"malloc");
            let mut elf = Vec::new();
            field_varint(&mut elf, 1, 0x400);
            let mut msg = Vec::new();
            field(&mut msg, 1, b"/system/lib/libc.so");
            field_varint(&mut msg, 2, u64::from(dso_type::ELF_FILE));
            field_varint(&mut msg, 3, 0x1000);
            field(&mut msg, 4, &sym);
            field(&mut msg, 6, &elf);
            let mut b = u32s(e, &[msg.len() as u32]);
            b.extend_from_slice(&msg);
            b
        };
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(bit::SIMPLEPERF_FILE2, "SIMPLEPERF_FILE2", &|i| shown(simpleperf_file2(i)), &build, &expect)
        });

        let build = |_| b"simpleperf_version\x001.0\0clockid\0perf\0".to_vec();
        let expect = vec![("simpleperf_version", "1.0"), ("clockid", "perf")];
        check(Case {
            whole_cuts: &|_| vec![0, 23],
            ..case(
                bit::SIMPLEPERF_META_INFO,
                "SIMPLEPERF_META_INFO",
                &|i| shown(simpleperf_meta_info(i)),
                &build,
                &expect,
            )
        });

        let build = |_| {
            let mut file = Vec::new();
            field(&mut file, 1, b"/system/bin/app");
            field_varint(&mut file, 2, 4096);
            let mut b = Vec::new();
            field(&mut b, 1, &file);
            b
        };
        let expect = vec![DebugUnwindFile { path: "/system/bin/app".into(), size: 4096 }];
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(
                bit::SIMPLEPERF_DEBUG_UNWIND,
                "DebugUnwindFeature",
                &|i| shown(simpleperf_debug_unwind(i)),
                &build,
                &expect,
            )
        });
        // A length past the end, an 11-byte varint, a group.
        for (bad, detail) in [
            (&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f][..], "malformed m at 0x1006: 4294967295 bytes wanted, 0 left"),
            (&[0x80; 11][..], "malformed m at 0x1009: varint over 64 bits"),
            (&[0x0b][..], "malformed m at 0x1001: wire type 3 of field 1"),
        ] {
            let err = to_error(proto_field(input(bad, Endian::Little).context("m")).unwrap_err());
            assert_eq!(err.to_string(), detail);
        }
    }

    #[test]
    fn the_feature_table() {
        for e in [Endian::Little, Endian::Big] {
            let b = u64s_(e, &[0x300, 0x40, 0x340, 0x8]);
            let (rest, t) = table(&[2, 7])(input(&b, e)).unwrap();
            assert_eq!(rest.remaining(), 0);
            assert_eq!(t, vec![(2, Section { offset: 0x300, size: 0x40 }), (7, Section { offset: 0x340, size: 8 })]);
            for cut in 0..b.len() {
                let err = to_error(table(&[2, 7])(input(&b[..cut], e)).unwrap_err());
                assert!(matches!(err, Error::Truncated { what: "feature section table", .. }), "{err}");
            }
        }
    }
}
