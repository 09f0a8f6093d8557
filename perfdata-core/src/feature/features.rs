//! [`Features`]: the typed view over all feature sections of one file.

use super::*;
use crate::error::{Position, Result};
use crate::header::feature as bit;
use crate::reader::Endian;
use std::borrow::Cow;

/// The payload of one feature section and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSection<'a> {
    /// Feature bit (`crate::header::feature`).
    pub bit: u32,
    /// The payload (file: the section; pipe: the HEADER_FEATURE record's payload).
    pub data: &'a [u8],
    /// Position of the payload in the input.
    pub pos: Position,
}

/// One decoded feature section.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)] // each variant is the feature of the same name; its type documents it
pub enum Feature<'a> {
    /// TRACING_DATA, raw (see [`crate::tracepoint`]).
    TracingData(&'a [u8]),
    BuildId(BuildIds),
    Hostname(Cow<'a, str>),
    OsRelease(Cow<'a, str>),
    /// VERSION: the perf version that wrote the file.
    Version(Cow<'a, str>),
    Arch(Cow<'a, str>),
    NrCpus(NrCpus),
    CpuDesc(Cow<'a, str>),
    CpuId(Cow<'a, str>),
    /// TOTAL_MEM, kB.
    TotalMem(u64),
    Cmdline(Vec<Cow<'a, str>>),
    EventDesc(Vec<EventDesc>),
    CpuTopology(CpuTopology),
    NumaTopology(Vec<NumaNode>),
    /// BRANCH_STACK: samples carry branch stacks (no payload).
    BranchStack,
    PmuMappings(Vec<PmuMapping>),
    GroupDesc(Vec<GroupDesc>),
    Auxtrace(Vec<AuxtraceIndexEntry>),
    /// STAT: the file was written by `perf stat record` (no payload).
    Stat,
    Cache(Vec<CacheLevel>),
    SampleTime(SampleTime),
    MemTopology(MemTopology),
    /// CLOCKID: clock resolution, ns.
    ClockId(u64),
    /// DIR_FORMAT: directory format version.
    DirFormat(u64),
    BpfProgInfo(Vec<BpfProgInfo<'a>>),
    BpfBtf(Vec<BpfBtf<'a>>),
    Compressed(Compressed),
    CpuPmuCaps(Vec<PmuCap>),
    ClockData(ClockData),
    HybridTopology(Vec<HybridNode>),
    PmuCaps(Vec<PmuCaps>),
    CpuDomainInfo(CpuDomainInfo),
    /// simpleperf's FILE (128): the DSOs samples hit with the symbols simpleperf resolved.
    SimpleperfFile(Vec<SimpleperfFile<'a>>),
    /// simpleperf's META_INFO (129): key/value strings in stored order.
    SimpleperfMetaInfo(Vec<(Cow<'a, str>, Cow<'a, str>)>),
    /// simpleperf's DEBUG_UNWIND (130): the files of DEBUG_UNWIND_FILE.
    SimpleperfDebugUnwind(Vec<DebugUnwindFile<'a>>),
    /// simpleperf's FILE2 (132): FILE as protobuf messages.
    SimpleperfFile2(Vec<SimpleperfFile<'a>>),
    /// A bit this crate has no parser for, kept raw.
    Unknown {
        bit: u32,
        data: &'a [u8],
    },
}

/// All feature sections of a file, decoded on demand. Every accessor returns `None` when the
/// feature is absent and `Some(Err)` when its section does not parse; sections are independent.
#[derive(Clone, Debug)]
pub struct Features<'a> {
    endian: Endian,
    sections: Vec<FeatureSection<'a>>,
}

macro_rules! accessor {
    ($(#[$doc:meta])* $name:ident, $bit:expr, $ty:ty, $parse:path) => {
        $(#[$doc])*
        pub fn $name(&self) -> Option<Result<$ty>> {
            self.section($bit).map(|s| $parse(s.data, self.endian, s.pos))
        }
    };
}

impl<'a> Features<'a> {
    /// A view over sections (in the order they appear) of a file in `endian`.
    pub fn new(endian: Endian, sections: Vec<FeatureSection<'a>>) -> Self {
        Features { endian, sections }
    }

    /// The sections present, in file (bit) order, or for pipe data in stream order.
    pub fn sections(&self) -> &[FeatureSection<'a>] {
        &self.sections
    }

    /// The section of feature `bit`.
    pub fn section(&self, bit: u32) -> Option<&FeatureSection<'a>> {
        self.sections.iter().find(|s| s.bit == bit)
    }

    /// True when feature `bit` is present.
    pub fn has(&self, bit: u32) -> bool {
        self.section(bit).is_some()
    }

    /// Byte order the sections are read in.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// TRACING_DATA, raw.
    pub fn tracing_data(&self) -> Option<&'a [u8]> {
        self.section(bit::TRACING_DATA).map(|s| s.data)
    }

    accessor!(/// BUILD_ID.
        build_ids, bit::BUILD_ID, BuildIds, build_id::build_ids);
    accessor!(/// HOSTNAME (`uname -n`).
        hostname, bit::HOSTNAME, Cow<'a, str>, system::string);
    accessor!(/// OSRELEASE (`uname -r`).
        os_release, bit::OSRELEASE, Cow<'a, str>, system::string);
    accessor!(/// VERSION: the perf version that wrote the file.
        perf_version, bit::VERSION, Cow<'a, str>, system::string);
    accessor!(/// ARCH (`uname -m`).
        arch, bit::ARCH, Cow<'a, str>, system::string);
    accessor!(/// NRCPUS.
        nr_cpus, bit::NRCPUS, NrCpus, system::nr_cpus);
    accessor!(/// CPUDESC.
        cpu_desc, bit::CPUDESC, Cow<'a, str>, system::string);
    accessor!(/// CPUID.
        cpuid, bit::CPUID, Cow<'a, str>, system::string);
    accessor!(/// TOTAL_MEM, kB.
        total_mem_kb, bit::TOTAL_MEM, u64, system::total_mem);
    accessor!(/// CMDLINE.
        cmdline, bit::CMDLINE, Vec<Cow<'a, str>>, system::cmdline);
    accessor!(/// EVENT_DESC.
        event_desc, bit::EVENT_DESC, Vec<EventDesc>, events::event_desc);
    accessor!(/// NUMA_TOPOLOGY.
        numa_topology, bit::NUMA_TOPOLOGY, Vec<NumaNode>, topology::numa_topology);
    accessor!(/// PMU_MAPPINGS.
        pmu_mappings, bit::PMU_MAPPINGS, Vec<PmuMapping>, events::pmu_mappings);
    accessor!(/// GROUP_DESC.
        group_desc, bit::GROUP_DESC, Vec<GroupDesc>, events::group_desc);
    accessor!(/// AUXTRACE: index of the AUX data.
        auxtrace, bit::AUXTRACE, Vec<AuxtraceIndexEntry>, data::auxtrace);
    accessor!(/// CACHE.
        cache, bit::CACHE, Vec<CacheLevel>, topology::cache);
    accessor!(/// SAMPLE_TIME.
        sample_time, bit::SAMPLE_TIME, SampleTime, clock::sample_time);
    accessor!(/// MEM_TOPOLOGY.
        mem_topology, bit::MEM_TOPOLOGY, MemTopology, topology::mem_topology);
    accessor!(/// CLOCKID: the clock resolution in ns.
        clockid_res_ns, bit::CLOCKID, u64, clock::clockid_res_ns);
    accessor!(/// DIR_FORMAT: directory format version.
        dir_format, bit::DIR_FORMAT, u64, data::dir_format);
    accessor!(/// BPF_PROG_INFO.
        bpf_prog_info, bit::BPF_PROG_INFO, Vec<BpfProgInfo<'a>>, bpf::bpf_prog_info);
    accessor!(/// BPF_BTF.
        bpf_btf, bit::BPF_BTF, Vec<BpfBtf<'a>>, bpf::bpf_btf);
    accessor!(/// COMPRESSED.
        compressed, bit::COMPRESSED, Compressed, data::compressed);
    accessor!(/// CPU_PMU_CAPS.
        cpu_pmu_caps, bit::CPU_PMU_CAPS, Vec<PmuCap>, events::cpu_pmu_caps);
    accessor!(/// CLOCK_DATA.
        clock_data, bit::CLOCK_DATA, ClockData, clock::clock_data);
    accessor!(/// HYBRID_TOPOLOGY.
        hybrid_topology, bit::HYBRID_TOPOLOGY, Vec<HybridNode>, topology::hybrid_topology);
    accessor!(/// PMU_CAPS.
        pmu_caps, bit::PMU_CAPS, Vec<PmuCaps>, events::pmu_caps);

    accessor!(/// simpleperf's META_INFO: key/value strings (simpleperf_version, event_type_info, …).
        simpleperf_meta_info, bit::SIMPLEPERF_META_INFO, Vec<(Cow<'a, str>, Cow<'a, str>)>, simpleperf::meta_info);
    accessor!(/// simpleperf's DEBUG_UNWIND: the files stored in DEBUG_UNWIND_FILE.
        simpleperf_debug_unwind, bit::SIMPLEPERF_DEBUG_UNWIND, Vec<DebugUnwindFile<'a>>, simpleperf::debug_unwind);

    /// simpleperf's DSOs with their symbols: FILE when present, else FILE2 (simpleperf's reader
    /// takes them in that order; newer versions write FILE2 in place of FILE).
    pub fn simpleperf_files(&self) -> Option<Result<Vec<SimpleperfFile<'a>>>> {
        if let Some(s) = self.section(bit::SIMPLEPERF_FILE) {
            return Some(simpleperf::file_v1(s.data, self.endian, s.pos));
        }
        let s = self.section(bit::SIMPLEPERF_FILE2)?;
        Some(simpleperf::file_v2(s.data, self.endian, s.pos))
    }

    /// BRANCH_STACK: samples carry branch stacks.
    pub fn branch_stack(&self) -> bool {
        self.has(bit::BRANCH_STACK)
    }

    /// STAT: written by `perf stat record`.
    pub fn stat(&self) -> bool {
        self.has(bit::STAT)
    }

    /// NRCPUS word 0, as perf uses it for the per-CPU arrays (0 when NRCPUS is absent or bad).
    fn nr_cpus_or_zero(&self) -> NrCpus {
        match self.nr_cpus() {
            Some(Ok(n)) => n,
            _ => NrCpus { available: 0, online: 0 },
        }
    }

    /// CPU_TOPOLOGY (its per-CPU arrays are sized by NRCPUS).
    pub fn cpu_topology(&self) -> Option<Result<CpuTopology>> {
        let s = self.section(bit::CPU_TOPOLOGY)?;
        Some(topology::cpu_topology(s.data, self.endian, s.pos, self.nr_cpus_or_zero().available))
    }

    /// CPU_DOMAIN_INFO (one entry per online CPU of NRCPUS).
    pub fn cpu_domain_info(&self) -> Option<Result<CpuDomainInfo>> {
        let s = self.section(bit::CPU_DOMAIN_INFO)?;
        Some(topology::cpu_domain_info(s.data, self.endian, s.pos, self.nr_cpus_or_zero().online))
    }

    /// Decode one section.
    pub fn decode(&self, s: &FeatureSection<'a>) -> Result<Feature<'a>> {
        let (d, e, p) = (s.data, self.endian, s.pos);
        Ok(match s.bit {
            bit::TRACING_DATA => Feature::TracingData(d),
            bit::BUILD_ID => Feature::BuildId(build_id::build_ids(d, e, p)?),
            bit::HOSTNAME => Feature::Hostname(system::string(d, e, p)?),
            bit::OSRELEASE => Feature::OsRelease(system::string(d, e, p)?),
            bit::VERSION => Feature::Version(system::string(d, e, p)?),
            bit::ARCH => Feature::Arch(system::string(d, e, p)?),
            bit::NRCPUS => Feature::NrCpus(system::nr_cpus(d, e, p)?),
            bit::CPUDESC => Feature::CpuDesc(system::string(d, e, p)?),
            bit::CPUID => Feature::CpuId(system::string(d, e, p)?),
            bit::TOTAL_MEM => Feature::TotalMem(system::total_mem(d, e, p)?),
            bit::CMDLINE => Feature::Cmdline(system::cmdline(d, e, p)?),
            bit::EVENT_DESC => Feature::EventDesc(events::event_desc(d, e, p)?),
            bit::CPU_TOPOLOGY => {
                Feature::CpuTopology(topology::cpu_topology(d, e, p, self.nr_cpus_or_zero().available)?)
            }
            bit::NUMA_TOPOLOGY => Feature::NumaTopology(topology::numa_topology(d, e, p)?),
            bit::BRANCH_STACK => Feature::BranchStack,
            bit::PMU_MAPPINGS => Feature::PmuMappings(events::pmu_mappings(d, e, p)?),
            bit::GROUP_DESC => Feature::GroupDesc(events::group_desc(d, e, p)?),
            bit::AUXTRACE => Feature::Auxtrace(data::auxtrace(d, e, p)?),
            bit::STAT => Feature::Stat,
            bit::CACHE => Feature::Cache(topology::cache(d, e, p)?),
            bit::SAMPLE_TIME => Feature::SampleTime(clock::sample_time(d, e, p)?),
            bit::MEM_TOPOLOGY => Feature::MemTopology(topology::mem_topology(d, e, p)?),
            bit::CLOCKID => Feature::ClockId(clock::clockid_res_ns(d, e, p)?),
            bit::DIR_FORMAT => Feature::DirFormat(data::dir_format(d, e, p)?),
            bit::BPF_PROG_INFO => Feature::BpfProgInfo(bpf::bpf_prog_info(d, e, p)?),
            bit::BPF_BTF => Feature::BpfBtf(bpf::bpf_btf(d, e, p)?),
            bit::COMPRESSED => Feature::Compressed(data::compressed(d, e, p)?),
            bit::CPU_PMU_CAPS => Feature::CpuPmuCaps(events::cpu_pmu_caps(d, e, p)?),
            bit::CLOCK_DATA => Feature::ClockData(clock::clock_data(d, e, p)?),
            bit::HYBRID_TOPOLOGY => Feature::HybridTopology(topology::hybrid_topology(d, e, p)?),
            bit::PMU_CAPS => Feature::PmuCaps(events::pmu_caps(d, e, p)?),
            bit::CPU_DOMAIN_INFO => {
                Feature::CpuDomainInfo(topology::cpu_domain_info(d, e, p, self.nr_cpus_or_zero().online)?)
            }
            bit::SIMPLEPERF_FILE => Feature::SimpleperfFile(simpleperf::file_v1(d, e, p)?),
            bit::SIMPLEPERF_META_INFO => Feature::SimpleperfMetaInfo(simpleperf::meta_info(d, e, p)?),
            bit::SIMPLEPERF_DEBUG_UNWIND => Feature::SimpleperfDebugUnwind(simpleperf::debug_unwind(d, e, p)?),
            bit::SIMPLEPERF_FILE2 => Feature::SimpleperfFile2(simpleperf::file_v2(d, e, p)?),
            b => Feature::Unknown { bit: b, data: d },
        })
    }

    /// Every section decoded, in order, each with its own result.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Result<Feature<'a>>)> + '_ {
        self.sections.iter().map(move |s| (s.bit, self.decode(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bad_section_does_not_hide_the_others() {
        let e = Endian::Big;
        let mut host = Vec::new();
        crate::feature::system::tests::put_string(e, &mut host, "vm");
        let mut nrcpus = Vec::new();
        e.put_u32(&mut nrcpus, 2);
        e.put_u32(&mut nrcpus, 1);
        let bad = [0u8; 3];
        let f = Features::new(
            e,
            vec![
                FeatureSection { bit: bit::HOSTNAME, data: &host, pos: Position::at(100) },
                FeatureSection { bit: bit::NRCPUS, data: &nrcpus, pos: Position::at(200) },
                FeatureSection { bit: bit::TOTAL_MEM, data: &bad, pos: Position::at(300) },
                FeatureSection { bit: 77, data: &bad, pos: Position::at(400) },
            ],
        );
        assert_eq!(f.hostname().unwrap().unwrap(), "vm");
        assert_eq!(f.nr_cpus().unwrap().unwrap(), NrCpus { available: 2, online: 1 });
        assert_eq!(f.total_mem_kb().unwrap().unwrap_err().position().unwrap().offset, 300);
        assert!(f.cmdline().is_none());
        let all: Vec<_> = f.iter().collect();
        assert_eq!(all.len(), 4);
        assert!(matches!(all[3], (77, Ok(Feature::Unknown { bit: 77, data: [0, 0, 0] }))));
        assert!(all[2].1.is_err());
    }
}
