//! [`HeaderInfo`]: everything `perf report --header-only -I` shows about a file — header fields,
//! every feature section, each event with its attr and ids, missing features — as one structure
//! (JSON-serializable with the `json` feature), and [`HeaderInfo::perf_text`] to print it the way
//! perf 6.1 does, line for line.

use crate::attr::{self, EventAttr, FLAG_NAMES};
use crate::event::Event;
use crate::feature::{
    self, AuxtraceIndexEntry, BuildId, CacheLevel, ClockData, Compressed, CpuDomainInfo, CpuTopology, EventDesc,
    FeatureSection, Features, HybridNode, NumaNode, PmuCap, PmuCaps, PmuMapping, SampleTime,
};
use crate::header::{feature as bit, FileHeader, Format, PIPE_HEADER_SIZE};
use crate::reader::Endian;
use crate::record::{record_type as rt, RecordKind};
use crate::records::Order;
use crate::PerfFile;
use std::borrow::Cow;
use std::fmt::Write as _;

/// perf 6.1's `HEADER_LAST_FEATURE`: the bits its "missing features" line covers (1..=31).
pub const PERF_LAST_FEATURE: u32 = 32;

/// The header summary of a perf.data file.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct HeaderInfo {
    /// "file", "pipe" or "directory".
    pub format: String,
    /// "little" or "big".
    pub endian: String,
    /// Modification time of the file (Unix seconds), what perf prints as "captured on". `None` for a
    /// stream.
    pub captured_on: Option<i64>,
    /// perf's header version (1 for `PERFILE2`).
    pub header_version: u32,
    /// Start of the data section (0 for pipe data, as perf prints it).
    pub data_offset: u64,
    /// Size of the data section (0 for pipe data).
    pub data_size: u64,
    /// Where the feature section table is: `data_offset + data_size`.
    pub feat_offset: u64,
    /// The feature sections present, in order.
    pub features: Vec<FeatureEntry>,
    /// HOSTNAME.
    pub hostname: Option<String>,
    /// OSRELEASE.
    pub os_release: Option<String>,
    /// VERSION.
    pub perf_version: Option<String>,
    /// ARCH.
    pub arch: Option<String>,
    /// NRCPUS online.
    pub nr_cpus_online: Option<u32>,
    /// NRCPUS available.
    pub nr_cpus_available: Option<u32>,
    /// CPUDESC.
    pub cpu_desc: Option<String>,
    /// CPUID.
    pub cpuid: Option<String>,
    /// TOTAL_MEM, kB.
    pub total_mem_kb: Option<u64>,
    /// CMDLINE.
    pub cmdline: Option<Vec<String>>,
    /// The events: from EVENT_DESC when it is there (what perf prints), else from the attrs.
    pub events: Vec<EventInfo>,
    /// CPU_TOPOLOGY.
    pub cpu_topology: Option<CpuTopology>,
    /// NUMA_TOPOLOGY.
    pub numa_topology: Option<Vec<NumaNode>>,
    /// BRANCH_STACK is set.
    pub branch_stack: bool,
    /// PMU_MAPPINGS.
    pub pmu_mappings: Option<Vec<PmuMapping>>,
    /// GROUP_DESC, with member names.
    pub group_desc: Option<Vec<GroupInfo>>,
    /// AUXTRACE index.
    pub auxtrace: Option<Vec<AuxtraceIndexEntry>>,
    /// STAT is set.
    pub stat: bool,
    /// CACHE.
    pub cache: Option<Vec<CacheLevel>>,
    /// SAMPLE_TIME.
    pub sample_time: Option<SampleTime>,
    /// MEM_TOPOLOGY.
    pub mem_topology: Option<MemTopologyInfo>,
    /// CLOCKID: clock resolution, ns.
    pub clockid_res_ns: Option<u64>,
    /// DIR_FORMAT version.
    pub dir_format: Option<u64>,
    /// BPF_PROG_INFO, summarized.
    pub bpf_prog_info: Option<Vec<BpfProgSummary>>,
    /// BPF_BTF, summarized.
    pub bpf_btf: Option<Vec<BtfSummary>>,
    /// COMPRESSED.
    pub compressed: Option<Compressed>,
    /// CPU_PMU_CAPS.
    pub cpu_pmu_caps: Option<Vec<PmuCap>>,
    /// CLOCK_DATA.
    pub clock_data: Option<ClockData>,
    /// HYBRID_TOPOLOGY.
    pub hybrid_topology: Option<Vec<HybridNode>>,
    /// PMU_CAPS.
    pub pmu_caps: Option<Vec<PmuCaps>>,
    /// CPU_DOMAIN_INFO.
    pub cpu_domain_info: Option<CpuDomainInfo>,
    /// BUILD_ID entries.
    pub build_ids: Option<Vec<BuildId>>,
    /// BUILD_ID uses the old pid-less layout.
    pub build_ids_old_abi: bool,
    /// Size of the TRACING_DATA section (decoded by [`crate::tracepoint`]).
    pub tracing_data_size: Option<u64>,
    /// simpleperf's META_INFO: key/value pairs in stored order (a JSON object).
    #[cfg_attr(feature = "json", serde(serialize_with = "ordered_str_map"))]
    pub simpleperf_meta_info: Option<Vec<(String, String)>>,
    /// simpleperf's FILE or FILE2: each DSO with its symbol count.
    pub simpleperf_files: Option<Vec<SimpleperfFileSummary>>,
    /// simpleperf's DEBUG_UNWIND: the files of DEBUG_UNWIND_FILE and their sizes.
    pub simpleperf_debug_unwind: Option<Vec<(String, u64)>>,
    /// Names of the features perf 6.1 knows (bits 1..=31) that the file does not have (file and
    /// directory format; perf prints no such line for pipe data).
    pub missing_features: Vec<String>,
    /// Sections that did not parse.
    pub errors: Vec<FeatureError>,
    #[cfg_attr(feature = "json", serde(skip))]
    event_desc: DescState,
    /// BPF_PROG_INFO as perf prints it (needs the BTF blobs, which are not kept).
    #[cfg_attr(feature = "json", serde(skip))]
    bpf_prog_lines: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum DescState {
    #[default]
    Absent,
    Parsed,
    Failed,
}

/// One DSO of simpleperf's FILE / FILE2 feature, summarized (the symbols themselves are in
/// [`crate::feature::SimpleperfFile`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SimpleperfFileSummary {
    /// The path on the recording device.
    pub path: String,
    /// simpleperf's DSO type name (`dso_elf_file`, …) or its number.
    pub file_type: String,
    /// Lowest virtual address of its executable segments.
    pub min_vaddr: u64,
    /// Symbols stored for it.
    pub symbols: usize,
    /// File offset (ELF) or memory offset (kernel module) of `min_vaddr`.
    pub file_offset_of_min_vaddr: Option<u64>,
    /// Dex files inside it.
    pub dex_files: usize,
    /// Which section: 128 (FILE) or 132 (FILE2).
    pub feature: u32,
}

/// One feature section of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct FeatureEntry {
    /// Feature bit.
    pub bit: u32,
    /// perf's name (`BIT_<n>` for bits it does not define).
    pub name: String,
    /// Offset of the payload (file format).
    pub offset: Option<u64>,
    /// Payload size.
    pub size: u64,
}

/// A feature section that did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct FeatureError {
    /// Feature bit.
    pub bit: u32,
    /// perf's name of the feature.
    pub feature: String,
    /// What was wrong, with the position.
    pub error: String,
}

/// One event: name, ids and every attr field.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct EventInfo {
    /// Index (attr order).
    pub index: usize,
    /// Name (EVENT_DESC, EVENT_UPDATE, or built from type/config like perf does).
    pub name: String,
    /// Ids of its counters.
    pub ids: Vec<u64>,
    /// `type`.
    #[cfg_attr(feature = "json", serde(rename = "type"))]
    pub type_: u32,
    /// `size` as stored.
    pub size: u32,
    /// `config`.
    pub config: u64,
    /// `sample_period`, when `freq` is not set.
    pub sample_period: Option<u64>,
    /// `sample_freq`, when `freq` is set.
    pub sample_freq: Option<u64>,
    /// `sample_type`.
    pub sample_type: u64,
    /// `sample_type` bit names.
    pub sample_type_names: Vec<String>,
    /// `read_format`.
    pub read_format: u64,
    /// `read_format` bit names.
    pub read_format_names: Vec<String>,
    /// The flag word (little-endian bit numbering).
    pub flags_word: u64,
    /// The set flags by name, with their values (`precise_ip` can be 2 or 3); a JSON object.
    #[cfg_attr(feature = "json", serde(serialize_with = "ordered_map"))]
    pub flags: Vec<(String, u64)>,
    /// `wakeup_events` / `wakeup_watermark`.
    pub wakeup_events: u32,
    /// `bp_type`.
    pub bp_type: u32,
    /// `bp_addr` / `config1`.
    pub config1: u64,
    /// `bp_len` / `config2`.
    pub config2: u64,
    /// `config3`.
    pub config3: u64,
    /// `branch_sample_type`.
    pub branch_sample_type: u64,
    /// `branch_sample_type` bit names.
    pub branch_sample_type_names: Vec<String>,
    /// `sample_regs_user`.
    pub sample_regs_user: u64,
    /// `sample_stack_user`.
    pub sample_stack_user: u32,
    /// `clockid`.
    pub clockid: i32,
    /// `sample_regs_intr`.
    pub sample_regs_intr: u64,
    /// `aux_watermark`.
    pub aux_watermark: u32,
    /// `sample_max_stack`.
    pub sample_max_stack: u16,
    /// `aux_sample_size`.
    pub aux_sample_size: u32,
    /// `aux_action`.
    pub aux_action: u32,
    /// `sig_data`.
    pub sig_data: u64,
    /// The attr itself.
    #[cfg_attr(feature = "json", serde(skip))]
    pub attr: EventAttr,
}

impl EventInfo {
    /// Summarize an attr with its name and ids.
    pub fn new(index: usize, name: String, ids: Vec<u64>, a: &EventAttr) -> Self {
        let names = |v: u64, n: &[&str]| -> Vec<String> {
            let s = attr::bit_names(v, n);
            if s.is_empty() {
                Vec::new()
            } else {
                s.split('|').map(str::to_string).collect()
            }
        };
        EventInfo {
            index,
            name,
            ids,
            type_: a.type_,
            size: a.size,
            config: a.config,
            sample_period: (!a.freq()).then_some(a.sample_period),
            sample_freq: a.freq().then_some(a.sample_period),
            sample_type: a.sample_type,
            sample_type_names: names(a.sample_type, &attr::sample_type::NAMES),
            read_format: a.read_format,
            read_format_names: names(a.read_format, &attr::read_format::NAMES),
            flags_word: a.flags,
            flags: a.set_flags().into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
            wakeup_events: a.wakeup_events,
            bp_type: a.bp_type,
            config1: a.config1,
            config2: a.config2,
            config3: a.config3,
            branch_sample_type: a.branch_sample_type,
            branch_sample_type_names: names(a.branch_sample_type, &attr::branch_sample_type::NAMES),
            sample_regs_user: a.sample_regs_user,
            sample_stack_user: a.sample_stack_user,
            clockid: a.clockid,
            sample_regs_intr: a.sample_regs_intr,
            aux_watermark: a.aux_watermark,
            sample_max_stack: a.sample_max_stack,
            aux_sample_size: a.aux_sample_size,
            aux_action: a.aux_action,
            sig_data: a.sig_data,
            attr: a.clone(),
        }
    }
}

#[cfg(feature = "json")]
fn ordered_map<S: serde::Serializer>(v: &[(String, u64)], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, v)| (k, v)))
}

#[cfg(feature = "json")]
fn ordered_str_map<S: serde::Serializer>(
    v: &Option<Vec<(String, String)>>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.collect_map(v.iter().map(|(k, v)| (k, v))),
        None => s.serialize_none(),
    }
}

/// A GROUP_DESC entry with the names of its events.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct GroupInfo {
    /// The group name; `None` for perf's `{anon_group}`.
    pub name: Option<String>,
    /// Index of the leader event.
    pub leader_idx: u32,
    /// Events in the group, leader included.
    pub nr_members: u32,
    /// Names of the leader and the members that follow it (as many as the file has).
    pub members: Vec<String>,
}

/// MEM_TOPOLOGY, with each node's blocks as ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct MemTopologyInfo {
    /// Memory block size in bytes.
    pub block_size: u64,
    /// The nodes.
    pub nodes: Vec<MemNodeInfo>,
}

/// One memory node.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct MemNodeInfo {
    /// Node number.
    pub node: u64,
    /// Number of memory blocks.
    pub block_count: u64,
    /// Bytes: block count × block size.
    pub bytes: u64,
    /// Block indexes as ranges ("0-23,32-199").
    pub blocks: String,
}

/// One BPF program of BPF_PROG_INFO.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct BpfProgSummary {
    /// Program id.
    pub id: Option<u32>,
    /// BPF_PROG_TYPE_*.
    pub prog_type: Option<u32>,
    /// Name.
    pub name: Option<String>,
    /// Tag as hex.
    pub tag: Option<String>,
    /// Length of the jited code.
    pub jited_prog_len: Option<u32>,
    /// BTF id.
    pub btf_id: Option<u32>,
    /// Bytes of `struct bpf_prog_info` stored.
    pub info_len: u32,
    /// Bytes of array data stored.
    pub data_len: u32,
}

/// One BTF blob of BPF_BTF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct BtfSummary {
    /// BTF id.
    pub id: u32,
    /// Size of the blob.
    pub size: usize,
}

fn feature_name(b: u32) -> String {
    bit::name(b).map_or_else(|| format!("BIT_{b}"), str::to_string)
}

impl HeaderInfo {
    /// The summary of an opened file. For a pipe stream (`PerfFile::from_reader`) this reads the
    /// leading user records of the stream and keeps what it read for the records to come (the
    /// stream's records can still be read once, from the start).
    pub fn new(file: &PerfFile<'_>) -> HeaderInfo {
        let captured_on = file.path().and_then(|p| {
            let p = if file.header().format == Format::Directory { p.join("data") } else { p.to_path_buf() };
            let m = std::fs::metadata(p).ok()?.modified().ok()?;
            Some(match m.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
            })
        });
        let h = file.header();
        if h.format == Format::Pipe && file.bytes().len() as u64 <= PIPE_HEADER_SIZE && file.path().is_none() {
            let (sections, events) = file.peek_stream(read_stream_start);
            let owned: Vec<FeatureSection<'_>> = sections
                .iter()
                .map(|(b, d)| FeatureSection { bit: *b, data: d, pos: crate::Position::default() })
                .collect();
            return HeaderInfo::build(h, &Features::new(h.endian, owned), &events, captured_on);
        }
        HeaderInfo::build(h, &file.features(), file.events(), captured_on)
    }

    /// Build from a header, the feature sections and the events (attrs with ids and names).
    pub fn build(h: &FileHeader, f: &Features<'_>, events: &[Event], captured_on: Option<i64>) -> HeaderInfo {
        let pipe = h.format == Format::Pipe;
        let mut info = HeaderInfo {
            format: match h.format {
                Format::File => "file",
                Format::Pipe => "pipe",
                Format::Directory => "directory",
            }
            .into(),
            endian: match h.endian {
                Endian::Little => "little",
                Endian::Big => "big",
            }
            .into(),
            captured_on,
            header_version: 1,
            data_offset: if pipe { 0 } else { h.data.offset },
            data_size: if pipe { 0 } else { h.data.size },
            feat_offset: if pipe { 0 } else { h.data.offset.wrapping_add(h.data.size) },
            ..Default::default()
        };
        if !pipe {
            info.missing_features = (1..PERF_LAST_FEATURE).filter(|&b| !h.has_feature(b)).map(feature_name).collect();
        }
        for s in f.sections() {
            info.features.push(FeatureEntry {
                bit: s.bit,
                name: feature_name(s.bit),
                offset: (!pipe).then_some(s.pos.offset),
                size: s.data.len() as u64,
            });
        }
        let mut desc: Option<Vec<EventDesc>> = None;
        let (mut progs, mut btfs) = (Vec::new(), Vec::new());
        for (b, res) in f.iter() {
            let feat = match res {
                Ok(feat) => feat,
                Err(e) => {
                    if b == bit::EVENT_DESC {
                        info.event_desc = DescState::Failed;
                    }
                    info.errors.push(FeatureError { bit: b, feature: feature_name(b), error: e.to_string() });
                    continue;
                }
            };
            use feature::Feature as F;
            match feat {
                F::TracingData(d) => info.tracing_data_size = Some(d.len() as u64),
                F::BuildId(ids) => {
                    info.build_ids_old_abi = ids.old_abi;
                    info.build_ids = Some(ids.entries);
                }
                F::Hostname(s) => info.hostname = Some(s.into_owned()),
                F::OsRelease(s) => info.os_release = Some(s.into_owned()),
                F::Version(s) => info.perf_version = Some(s.into_owned()),
                F::Arch(s) => info.arch = Some(s.into_owned()),
                F::NrCpus(n) => {
                    info.nr_cpus_online = Some(n.online);
                    info.nr_cpus_available = Some(n.available);
                }
                F::CpuDesc(s) => info.cpu_desc = Some(s.into_owned()),
                F::CpuId(s) => info.cpuid = Some(s.into_owned()),
                F::TotalMem(m) => info.total_mem_kb = Some(m),
                F::Cmdline(c) => info.cmdline = Some(c.into_iter().map(Cow::into_owned).collect()),
                F::EventDesc(d) => {
                    info.event_desc = DescState::Parsed;
                    desc = Some(d);
                }
                F::CpuTopology(t) => info.cpu_topology = Some(t),
                F::NumaTopology(n) => info.numa_topology = Some(n),
                F::BranchStack => info.branch_stack = true,
                F::PmuMappings(m) => info.pmu_mappings = Some(m),
                F::GroupDesc(g) => info.group_desc = Some(groups(&g, events, desc.as_deref())),
                F::Auxtrace(a) => info.auxtrace = Some(a),
                F::Stat => info.stat = true,
                F::Cache(c) => info.cache = Some(c),
                F::SampleTime(t) => info.sample_time = Some(t),
                F::MemTopology(m) => {
                    info.mem_topology = Some(MemTopologyInfo {
                        block_size: m.block_size,
                        nodes: m
                            .nodes
                            .iter()
                            .map(|n| MemNodeInfo {
                                node: n.node,
                                block_count: n.block_count(),
                                bytes: n.block_count().wrapping_mul(m.block_size),
                                blocks: n.blocks_list(),
                            })
                            .collect(),
                    })
                }
                F::ClockId(r) => info.clockid_res_ns = Some(r),
                F::DirFormat(v) => info.dir_format = Some(v),
                F::BpfProgInfo(p) => {
                    progs.clone_from(&p);
                    info.bpf_prog_info = Some(
                        p.iter()
                            .map(|p| BpfProgSummary {
                                id: p.id(),
                                prog_type: p.prog_type(),
                                name: p.name(),
                                tag: p.tag().map(|t| t.iter().map(|b| format!("{b:02x}")).collect()),
                                jited_prog_len: p.jited_prog_len(),
                                btf_id: p.btf_id(),
                                info_len: p.info_len,
                                data_len: p.data_len,
                            })
                            .collect(),
                    )
                }
                F::BpfBtf(b) => {
                    info.bpf_btf = Some(b.iter().map(|b| BtfSummary { id: b.id, size: b.data.len() }).collect());
                    btfs = b;
                }
                F::Compressed(c) => info.compressed = Some(c),
                F::CpuPmuCaps(c) => info.cpu_pmu_caps = Some(c),
                F::ClockData(c) => info.clock_data = Some(c),
                F::HybridTopology(h) => info.hybrid_topology = Some(h),
                F::PmuCaps(p) => info.pmu_caps = Some(p),
                F::CpuDomainInfo(d) => info.cpu_domain_info = Some(d),
                F::SimpleperfFile(files) | F::SimpleperfFile2(files) => {
                    let list = info.simpleperf_files.get_or_insert_with(Vec::new);
                    list.extend(files.iter().map(|f| {
                        SimpleperfFileSummary {
                            path: f.path.to_string(),
                            file_type: feature::simpleperf::dso_type::name(f.file_type)
                                .map_or_else(|| f.file_type.to_string(), str::to_string),
                            min_vaddr: f.min_vaddr,
                            symbols: f.symbols.len(),
                            file_offset_of_min_vaddr: f.file_offset_of_min_vaddr,
                            dex_files: f.dex_file_offsets.len(),
                            feature: b,
                        }
                    }))
                }
                F::SimpleperfMetaInfo(m) => {
                    info.simpleperf_meta_info =
                        Some(m.into_iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
                }
                F::SimpleperfDebugUnwind(d) => {
                    info.simpleperf_debug_unwind = Some(d.into_iter().map(|f| (f.path.into_owned(), f.size)).collect())
                }
                F::Unknown { .. } => {}
            }
        }
        // perf does not read BPF sections of cross-endian files.
        if f.endian() == Endian::NATIVE {
            info.bpf_prog_lines = perf_bpf_prog_lines(&progs, &btfs);
        }
        info.events = match &desc {
            Some(d) => {
                d.iter().enumerate().map(|(i, d)| EventInfo::new(i, d.name.clone(), d.ids.clone(), &d.attr)).collect()
            }
            None => events.iter().map(|e| EventInfo::new(e.index, e.display_name(), e.ids.clone(), &e.attr)).collect(),
        };
        info
    }

    /// The text `perf report --header-only -I` (perf 6.1) prints for this file, line for line.
    /// Times are printed in UTC (perf uses the local time zone). Like perf, once a section fails to
    /// parse, it and every later section are printed as perf prints sections it never read (empty
    /// values); [`HeaderInfo::errors`] says what failed. CPU_DOMAIN_INFO, unknown to perf 6.1, is
    /// printed as perf 6.18 does.
    pub fn perf_text(&self) -> String {
        let mut o = String::new();
        o.push_str("# ========\n");
        if let Some(t) = self.captured_on {
            let _ = writeln!(o, "# captured on    : {}", ctime(t));
        }
        let _ = writeln!(o, "# header version : {}", self.header_version);
        let _ = writeln!(o, "# data offset    : {}", self.data_offset);
        let _ = writeln!(o, "# data size      : {}", self.data_size);
        let _ = writeln!(o, "# feat offset    : {}", self.feat_offset);
        let pipe = self.format == "pipe";
        if !pipe {
            self.write_features(&mut o);
            o.push_str("# missing features: ");
            for m in &self.missing_features {
                o.push_str(m);
                o.push(' ');
            }
            o.push('\n');
        }
        o.push_str("# ========\n#\n");
        if pipe {
            // perf prints pipe features as the HEADER_FEATURE records go by, after the header block.
            self.write_features(&mut o);
        }
        o
    }

    /// What simpleperf's own feature sections hold (perf prints nothing for them), one `#` line
    /// each: META_INFO's pairs, FILE/FILE2's DSOs with their symbol counts, DEBUG_UNWIND's files.
    /// Empty for files without them.
    pub fn simpleperf_text(&self) -> String {
        let mut o = String::new();
        if let Some(m) = &self.simpleperf_meta_info {
            for (k, v) in m {
                // event_type_info holds one line per event.
                let _ = writeln!(o, "# simpleperf meta_info : {k} = {}", v.replace('\n', "; "));
            }
        }
        for f in self.simpleperf_files.iter().flatten() {
            let _ = write!(
                o,
                "# simpleperf file : {} ({}, min_vaddr {:#x}, {} symbols",
                f.path, f.file_type, f.min_vaddr, f.symbols
            );
            if let Some(off) = f.file_offset_of_min_vaddr {
                let _ = write!(o, ", file offset of min_vaddr {off:#x}");
            }
            if f.dex_files > 0 {
                let _ = write!(o, ", {} dex files", f.dex_files);
            }
            o.push_str(")\n");
        }
        for (path, size) in self.simpleperf_debug_unwind.iter().flatten() {
            let _ = writeln!(o, "# simpleperf debug_unwind file : {path} ({size} bytes)");
        }
        o
    }

    fn write_features(&self, o: &mut String) {
        let pipe = self.format == "pipe";
        let mut seen = Vec::new();
        let mut failed = false;
        for f in &self.features {
            if f.bit == 0 || seen.contains(&f.bit) {
                continue;
            }
            seen.push(f.bit);
            // perf stops processing sections at the first one whose reader fails (EVENT_DESC and
            // BUILD_ID readers never report failure); the rest keep their empty defaults. A pipe
            // stream stops there altogether.
            let fails =
                self.errors.iter().any(|e| e.bit == f.bit) && f.bit != bit::EVENT_DESC && f.bit != bit::BUILD_ID;
            if pipe && fails {
                break;
            }
            failed |= fails;
            if failed {
                self.write_unread_feature(o, f.bit);
            } else {
                self.write_feature(o, f.bit);
            }
        }
    }

    /// What perf prints for a section it did not (successfully) read: its empty `perf_env`.
    fn write_unread_feature(&self, o: &mut String, b: u32) {
        let text = match b {
            bit::HOSTNAME => "# hostname : (null)\n",
            bit::OSRELEASE => "# os release : (null)\n",
            bit::VERSION => "# perf version : (null)\n",
            bit::ARCH => "# arch : (null)\n",
            bit::NRCPUS => "# nrcpus online : 0\n# nrcpus avail : 0\n",
            bit::CPUDESC => "# cpudesc : (null)\n",
            bit::CPUID => "# cpuid : (null)\n",
            bit::TOTAL_MEM => "# total memory : 0 kB\n",
            bit::CMDLINE => "# cmdline : \n",
            bit::CPU_TOPOLOGY => "# Core ID and Socket ID information is not available\n",
            bit::PMU_MAPPINGS => "# pmu mappings: not available\n",
            bit::CACHE => "# CPU cache info:\n",
            bit::SAMPLE_TIME => "# time of first sample : 0.000000\n# time of last sample : 0.000000\n# sample duration :      0.000 ms\n",
            bit::MEM_TOPOLOGY => "# memory nodes (nr 0, block size 0x0):\n",
            bit::CLOCKID => "# clockid frequency: 0 MHz\n",
            bit::DIR_FORMAT => "# directory data version : 0\n",
            bit::COMPRESSED => "# compressed : Unknown, level = 0, ratio = 0\n",
            bit::CPU_PMU_CAPS => "# cpu pmu capabilities: not available\n",
            bit::CLOCK_DATA => "# reference time disabled\n",
            bit::HYBRID_TOPOLOGY => "# hybrid cpu system:\n",
            // Printed from the file again (EVENT_DESC) or not depending on what was read.
            bit::EVENT_DESC | bit::BRANCH_STACK | bit::AUXTRACE | bit::STAT => return self.write_feature(o, b),
            _ => "",
        };
        o.push_str(text);
    }

    fn write_feature(&self, o: &mut String, b: u32) {
        macro_rules! out {
            ($($t:tt)*) => {{ let _ = writeln!(o, $($t)*); }};
        }
        match b {
            bit::HOSTNAME => self.hostname.iter().for_each(|s| out!("# hostname : {s}")),
            bit::OSRELEASE => self.os_release.iter().for_each(|s| out!("# os release : {s}")),
            bit::VERSION => self.perf_version.iter().for_each(|s| out!("# perf version : {s}")),
            bit::ARCH => self.arch.iter().for_each(|s| out!("# arch : {s}")),
            bit::NRCPUS => {
                if let (Some(on), Some(av)) = (self.nr_cpus_online, self.nr_cpus_available) {
                    out!("# nrcpus online : {on}");
                    out!("# nrcpus avail : {av}");
                }
            }
            bit::CPUDESC => self.cpu_desc.iter().for_each(|s| out!("# cpudesc : {s}")),
            bit::CPUID => self.cpuid.iter().for_each(|s| out!("# cpuid : {s}")),
            bit::TOTAL_MEM => self.total_mem_kb.iter().for_each(|m| out!("# total memory : {m} kB")),
            bit::CMDLINE => {
                if let Some(c) = &self.cmdline {
                    o.push_str("# cmdline : ");
                    for a in c {
                        o.push_str(&a.replace('\'', "\\'"));
                        o.push(' ');
                    }
                    o.push('\n');
                }
            }
            bit::EVENT_DESC => match self.event_desc {
                DescState::Parsed if self.events.iter().all(|e| perf61_attr_check(&e.attr)) => {
                    // perf's list ends at the first attr with size 0.
                    for e in self.events.iter().take_while(|e| e.attr.size != 0) {
                        o.push_str(&perf_event_line(e));
                        o.push('\n');
                    }
                }
                DescState::Absent => {}
                _ => out!("# event desc: not available or unable to read"),
            },
            bit::CPU_TOPOLOGY => {
                if let Some(t) = &self.cpu_topology {
                    let size = self.features.iter().find(|f| f.bit == b).map_or(0, |f| f.size);
                    write_cpu_topology(o, t, size, self.nr_cpus_available.unwrap_or(0));
                }
            }
            bit::NUMA_TOPOLOGY => {
                for n in self.numa_topology.iter().flatten() {
                    out!("# node{} meminfo  : total = {} kB, free = {} kB", n.node, n.mem_total_kb, n.mem_free_kb);
                    let cpus = feature::topology::parse_cpu_list(&n.cpus)
                        .map_or_else(|| n.cpus.clone(), |c| feature::topology::format_cpu_list(&c));
                    out!("# node{} cpu list : {cpus}", n.node);
                }
            }
            bit::BRANCH_STACK => out!("# contains samples with branch stack"),
            bit::PMU_MAPPINGS => match self.pmu_mappings.as_deref() {
                Some([]) => out!("# pmu mappings: not available"),
                Some(m) => {
                    let list: Vec<String> = m.iter().map(|p| format!("{} = {}", p.name, p.type_)).collect();
                    out!("# pmu mappings: {}", list.join(", "));
                }
                None => {}
            },
            bit::GROUP_DESC => {
                for g in self.group_desc.iter().flatten().filter(|g| g.nr_members > 1) {
                    o.push_str("# group: ");
                    o.push_str(g.name.as_deref().unwrap_or(""));
                    o.push('{');
                    o.push_str(&g.members.join(","));
                    // perf closes the group once it has printed every member.
                    if g.members.len() == g.nr_members as usize {
                        o.push_str("}\n");
                    }
                }
            }
            bit::AUXTRACE => out!("# contains AUX area data (e.g. instruction trace)"),
            bit::STAT => out!("# contains stat data"),
            bit::CACHE => {
                if let Some(c) = &self.cache {
                    out!("# CPU cache info:");
                    for c in c {
                        out!("#  L{} {:<15} {:>8} [{}]", c.level as i32, c.type_, c.size, c.map);
                    }
                }
            }
            bit::SAMPLE_TIME => {
                if let Some(t) = self.sample_time {
                    out!("# time of first sample : {}", usec_timestamp(t.first));
                    out!("# time of last sample : {}", usec_timestamp(t.last));
                    out!("# sample duration : {:10.3} ms", t.last.wrapping_sub(t.first) as f64 / 1e6);
                }
            }
            bit::MEM_TOPOLOGY => {
                if let Some(m) = &self.mem_topology {
                    out!("# memory nodes (nr {}, block size {:#x}):", m.nodes.len() as i32, m.block_size);
                    for n in &m.nodes {
                        // perf formats the block list into a 100-byte buffer.
                        let blocks: String = n.blocks.chars().take(99).collect();
                        out!("#  {:>3} [{}]: {}", n.node, unit_number(n.bytes), blocks);
                    }
                }
            }
            bit::CLOCKID => {
                self.clockid_res_ns.iter().for_each(|r| out!("# clockid frequency: {} MHz", r.wrapping_mul(1000)))
            }
            bit::DIR_FORMAT => self.dir_format.iter().for_each(|v| out!("# directory data version : {v}")),
            bit::BPF_PROG_INFO => {
                for l in &self.bpf_prog_lines {
                    out!("{l}");
                }
            }
            // perf does not read BPF sections of cross-endian files.
            bit::BPF_BTF if (self.endian == "little") == (Endian::NATIVE == Endian::Little) => {
                let mut ids: Vec<u32> = self.bpf_btf.iter().flatten().map(|b| b.id).collect();
                ids.sort_unstable();
                ids.dedup();
                for id in ids {
                    out!("# btf info of id {id}");
                }
            }
            bit::COMPRESSED => {
                if let Some(c) = self.compressed {
                    let kind = if c.type_ == feature::data::COMP_ZSTD { "Zstd" } else { "Unknown" };
                    out!("# compressed : {kind}, level = {}, ratio = {}", c.level as i32, c.ratio as i32);
                }
            }
            bit::CPU_PMU_CAPS => {
                if let Some(c) = &self.cpu_pmu_caps {
                    write_pmu_caps(o, "cpu", c);
                }
            }
            bit::CLOCK_DATA => {
                if let Some(c) = self.clock_data {
                    let (sec, usec) = (c.tod_ns / 1_000_000_000, c.tod_ns % 1_000_000_000 / 1000);
                    let (csec, cnsec) = (c.clockid_ns / 1_000_000_000, c.clockid_ns % 1_000_000_000);
                    out!("# clockid: {} ({})", c.clock_name(), c.clockid);
                    out!(
                        "# reference time: {}.{usec:06} = {sec}.{usec:06} (TOD) = {csec}.{cnsec:09} ({})",
                        date_time(sec as i64),
                        c.clock_name()
                    );
                }
            }
            bit::HYBRID_TOPOLOGY => {
                if let Some(h) = &self.hybrid_topology {
                    out!("# hybrid cpu system:");
                    for n in h {
                        out!("# {} cpu list : {}", n.pmu_name, n.cpus);
                    }
                }
            }
            bit::PMU_CAPS => {
                for p in self.pmu_caps.iter().flatten() {
                    write_pmu_caps(o, &p.pmu_name, &p.caps);
                }
            }
            bit::CPU_DOMAIN_INFO => {
                if let Some(d) = &self.cpu_domain_info {
                    // As perf ≥ 6.18 prints it (perf 6.1 does not know this feature).
                    out!("# schedstat version\t: {}", d.schedstat_version);
                    out!("# Maximum sched domains\t: {}", d.max_sched_domains);
                    for c in &d.cpus {
                        out!("# cpu\t\t: {}", c.cpu);
                        out!("# nr_domains\t: {}", c.domains.len());
                        for dom in &c.domains {
                            out!("# Domain\t\t: {}", dom.domain);
                            if let Some(n) = &dom.name {
                                out!("# Domain name      : {n}");
                            }
                            out!("# Domain cpu map   : {}", dom.cpumask);
                            out!("# Domain cpu list  : {}", dom.cpulist);
                        }
                    }
                }
            }
            // TRACING_DATA and BUILD_ID have no print function in perf.
            _ => {}
        }
    }
}

/// Read a pipe stream up to its first kernel record: the HEADER_FEATURE payloads and the events.
fn read_stream_start(file: &PerfFile<'_>) -> (Vec<(u32, Vec<u8>)>, Vec<Event>) {
    let mut sections = Vec::new();
    let Ok(mut recs) = file.records(Order::File) else {
        return (sections, Vec::new());
    };
    while let Some(r) = recs.next_record() {
        let Ok(r) = r else { continue };
        if r.header.type_ < rt::USER_START || r.header.type_ == rt::FINISHED_INIT {
            break;
        }
        if let RecordKind::HeaderFeature(f) = &r.kind {
            // The end marker is recognised by its empty payload, not by its number (reference §1.4).
            if let (false, Ok(b)) = (f.data.is_empty(), u32::try_from(f.feat_id)) {
                sections.push((b, f.data.to_vec()));
            }
        }
    }
    let mut events = recs.events().to_vec();
    // Names from EVENT_DESC where the stream gave none (perf's evlist__set_event_name).
    if let Some((_, d)) = sections.iter().find(|(b, _)| *b == bit::EVENT_DESC) {
        if let Ok(descs) = feature::event_desc(d, file.endian(), crate::Position::default()) {
            for (i, d) in descs.into_iter().enumerate() {
                if let Some(e) = events.get_mut(i).filter(|e| e.name.is_none() && !d.name.is_empty()) {
                    e.name = Some(d.name);
                }
            }
        }
    }
    (sections, events)
}

/// GROUP_DESC entries with the names of their events (perf's `evsel__name` of the evlist).
fn groups(g: &[feature::GroupDesc], events: &[Event], desc: Option<&[EventDesc]>) -> Vec<GroupInfo> {
    let name = |i: usize| -> Option<String> {
        events.get(i).map(Event::display_name).or_else(|| desc.and_then(|d| d.get(i)).map(|d| d.name.clone()))
    };
    g.iter()
        .map(|g| {
            let start = g.leader_idx as usize;
            let members = (start..start.saturating_add(g.nr_members as usize)).map_while(name).collect();
            GroupInfo {
                name: g.real_name().map(str::to_string),
                leader_idx: g.leader_idx,
                nr_members: g.nr_members,
                members,
            }
        })
        .collect()
}

/// Whether perf sees the per-CPU ids and the die block: it compares the section size with the size
/// the lists would take if every string were padded to 64 bytes as perf writes them (`string_size`),
/// so files whose strings are padded otherwise (rewritten by other tools) lose these blocks in perf.
fn perf_sees_cpu_blocks(t: &CpuTopology, section_size: u64, nr_cpus: u32) -> (bool, bool) {
    let string_size = |s: &String| (s.len() as u64 + 1).div_ceil(64) * 64 + 4;
    let mut size = 8 + t.package_cpus.iter().chain(&t.core_cpus).map(string_size).sum::<u64>();
    if section_size <= size {
        return (false, false);
    }
    size += 8 * u64::from(nr_cpus);
    (true, section_size > size)
}

fn write_cpu_topology(o: &mut String, t: &CpuTopology, section_size: u64, nr_cpus_available: u32) {
    let (ids, dies) = perf_sees_cpu_blocks(t, section_size, nr_cpus_available);
    for s in &t.package_cpus {
        let _ = writeln!(o, "# sibling sockets : {s}");
    }
    let dies = t.die_cpus.as_ref().filter(|d| dies && !d.is_empty());
    for s in dies.into_iter().flatten() {
        let _ = writeln!(o, "# sibling dies    : {s}");
    }
    for s in &t.core_cpus {
        let _ = writeln!(o, "# sibling threads : {s}");
    }
    match (t.cpus.as_ref().filter(|_| ids), dies.is_some()) {
        (Some(cpus), true) => {
            for (i, c) in cpus.iter().take(nr_cpus_available as usize).enumerate() {
                let _ = writeln!(
                    o,
                    "# CPU {i}: Core ID {}, Die ID {}, Socket ID {}",
                    c.core_id,
                    c.die_id.unwrap_or(0),
                    c.socket_id
                );
            }
        }
        (Some(cpus), false) => {
            for (i, c) in cpus.iter().take(nr_cpus_available as usize).enumerate() {
                let _ = writeln!(o, "# CPU {i}: Core ID {}, Socket ID {}", c.core_id, c.socket_id);
            }
        }
        (None, true) => o.push_str("# Core ID, Die ID and Socket ID information is not available\n"),
        (None, false) => o.push_str("# Core ID and Socket ID information is not available\n"),
    }
}

/// BPF_PROG_INFO as perf's `print_bpf_prog_info` prints it: programs by id (the first of equal ids),
/// each named `bpf_prog_<tag>_<name>` with the name from the program's BTF when there is one.
fn perf_bpf_prog_lines(progs: &[feature::BpfProgInfo<'_>], btfs: &[feature::BpfBtf<'_>]) -> Vec<String> {
    let mut by_id = std::collections::BTreeMap::new();
    for p in progs {
        by_id.entry(p.id().unwrap_or(0)).or_insert(p);
    }
    let mut out = Vec::new();
    for (id, p) in by_id {
        let cnt = p.nr_jited_ksyms().unwrap_or(0);
        // perf prints nothing for a program whose arrays disagree.
        if cnt != p.nr_prog_tags().unwrap_or(0) || cnt != p.nr_jited_func_lens().unwrap_or(0) {
            continue;
        }
        let btf = match p.btf_id().unwrap_or(0) {
            0 => None,
            b => btfs.iter().find(|t| t.id == b).and_then(|t| feature::Btf::parse(t.data)),
        };
        let name = |i: usize| -> String {
            let tag: String = p.prog_tag(i).unwrap_or_default().iter().map(|b| format!("{b:02x}")).collect();
            let short = match &btf {
                Some(btf) => {
                    Some(p.func_info_type_id(i).and_then(|t| btf.type_name(t)).unwrap_or("(null)").to_string())
                }
                None if i == 0 && cnt == 1 => p.name().filter(|n| !n.is_empty()),
                None => Some("F".to_string()),
            };
            format!("bpf_prog_{tag}{}", short.map(|s| format!("_{s}")).unwrap_or_default())
        };
        let sub = |i: usize| Some((name(i), p.jited_ksym(i)?, p.jited_func_len(i)?));
        if cnt == 1 {
            if let Some((n, addr, len)) = sub(0) {
                out.push(format!("# bpf_prog_info {id}: {n} addr {addr:#x} size {len}"));
            }
            continue;
        }
        out.push(format!("# bpf_prog_info {id}:"));
        // Bounded by the arrays really stored, whatever the counts say.
        for (i, (n, addr, len)) in (0..cnt as usize).map_while(sub).enumerate() {
            out.push(format!("# \tsub_prog {i}: {n} addr {addr:#x} size {len}"));
        }
    }
    out
}

fn write_pmu_caps(o: &mut String, pmu: &str, caps: &[PmuCap]) {
    if caps.is_empty() {
        let _ = writeln!(o, "# {pmu} pmu capabilities: not available");
        return;
    }
    let list: Vec<String> = caps.iter().map(|c| format!("{}={}", c.name, c.value)).collect();
    let _ = writeln!(o, "# {pmu} pmu capabilities: {}", list.join(", "));
}

/// `sample_type` bits in the order perf 6.1's `__p_sample_type` lists them (TRANSACTION is not
/// among them).
const SAMPLE_TYPE_61: [(u32, &str); 24] = [
    (0, "IP"),
    (1, "TID"),
    (2, "TIME"),
    (3, "ADDR"),
    (4, "READ"),
    (5, "CALLCHAIN"),
    (6, "ID"),
    (7, "CPU"),
    (8, "PERIOD"),
    (9, "STREAM_ID"),
    (10, "RAW"),
    (11, "BRANCH_STACK"),
    (12, "REGS_USER"),
    (13, "STACK_USER"),
    (16, "IDENTIFIER"),
    (18, "REGS_INTR"),
    (15, "DATA_SRC"),
    (14, "WEIGHT"),
    (19, "PHYS_ADDR"),
    (20, "AUX"),
    (21, "CGROUP"),
    (22, "DATA_PAGE_SIZE"),
    (23, "CODE_PAGE_SIZE"),
    (24, "WEIGHT_STRUCT"),
];

/// perf 6.1's `__p_bits`: the known set bits in list order, unknown bits dropped.
fn perf_bits(v: u64, names: impl Iterator<Item = (u32, &'static str)>) -> String {
    names.filter(|(b, _)| (v >> b) & 1 != 0).map(|(_, n)| n).collect::<Vec<_>>().join("|")
}

/// perf 6.1's `perf_attr_check`: attrs using bits it does not know make it refuse the whole EVENT_DESC.
fn perf61_attr_check(a: &EventAttr) -> bool {
    let reserved_1 = a.flags >> 38 != 0;
    let branch_unknown = a.sample_type & attr::sample_type::BRANCH_STACK != 0 && a.branch_sample_type >> 19 != 0;
    !(reserved_1 || a.reserved_2 != 0 || a.aux_action != 0)
        && a.sample_type >> 25 == 0
        && a.read_format >> 5 == 0
        && !branch_unknown
}

/// One `# event : …` line as perf 6.1 prints it (`print_event_desc` + `perf_event_attr__fprintf`):
/// only non-zero fields, in perf's order.
fn perf_event_line(e: &EventInfo) -> String {
    let a = &e.attr;
    let mut s = format!("# event : name = {}, ", e.name);
    if !e.ids.is_empty() {
        s.push_str(", id = {");
        for (j, id) in e.ids.iter().enumerate() {
            if j > 0 {
                s.push(',');
            }
            let _ = write!(s, " {id}");
        }
        s.push_str(" }");
    }
    let mut f = |name: &str, v: String| {
        let _ = write!(s, ", {name} = {v}");
    };
    let nz = |v: u64| v != 0;
    if nz(a.type_.into()) {
        f("type", a.type_.to_string());
    }
    if nz(a.size.into()) {
        f("size", a.size.to_string());
    }
    if nz(a.config) {
        f("config", format!("{:#x}", a.config));
    }
    if nz(a.sample_period) {
        f("{ sample_period, sample_freq }", a.sample_period.to_string());
    }
    if nz(a.sample_type) {
        f("sample_type", perf_bits(a.sample_type, SAMPLE_TYPE_61.into_iter()));
    }
    if nz(a.read_format) {
        f("read_format", perf_bits(a.read_format, attr::read_format::NAMES.into_iter().zip(0..).map(|(n, b)| (b, n))));
    }
    // The flag bits perf 6.1 knows: disabled … sigtrap (bit 37).
    for &(name, lo, w) in FLAG_NAMES.iter().filter(|(n, lo, _)| !n.is_empty() && *lo <= 37) {
        let v = a.flag_bits(lo, w);
        if v != 0 {
            f(name, v.to_string());
        }
    }
    if nz(a.wakeup_events.into()) {
        f("{ wakeup_events, wakeup_watermark }", a.wakeup_events.to_string());
    }
    if nz(a.bp_type.into()) {
        f("bp_type", a.bp_type.to_string());
    }
    if nz(a.config1) {
        f("{ bp_addr, config1 }", format!("{:#x}", a.config1));
    }
    if nz(a.config2) {
        f("{ bp_len, config2 }", format!("{:#x}", a.config2));
    }
    if nz(a.branch_sample_type) {
        // USER … PRIV_SAVE (bit 18).
        let names = attr::branch_sample_type::NAMES.into_iter().zip(0..19).map(|(n, b)| (b, n));
        f("branch_sample_type", perf_bits(a.branch_sample_type, names));
    }
    if nz(a.sample_regs_user) {
        f("sample_regs_user", format!("{:#x}", a.sample_regs_user));
    }
    if nz(a.sample_stack_user.into()) {
        f("sample_stack_user", a.sample_stack_user.to_string());
    }
    if a.clockid != 0 {
        f("clockid", a.clockid.to_string());
    }
    if nz(a.sample_regs_intr) {
        f("sample_regs_intr", format!("{:#x}", a.sample_regs_intr));
    }
    if nz(a.aux_watermark.into()) {
        f("aux_watermark", a.aux_watermark.to_string());
    }
    if nz(a.sample_max_stack.into()) {
        f("sample_max_stack", a.sample_max_stack.to_string());
    }
    if nz(a.aux_sample_size.into()) {
        f("aux_sample_size", a.aux_sample_size.to_string());
    }
    if nz(a.sig_data) {
        f("sig_data", a.sig_data.to_string());
    }
    s
}

/// perf's `timestamp__scnprintf_usec`: "sec.usec".
fn usec_timestamp(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// perf's `unit_number__scnprintf`: divide by 1024 while the value is at least 2048, up to G.
fn unit_number(mut n: u64) -> String {
    let units = ['B', 'K', 'M', 'G'];
    let mut i = 0;
    while n / 1024 > 1 && i < 3 {
        n /= 1024;
        i += 1;
    }
    format!("{n}{}", units.get(i).copied().unwrap_or('G'))
}

/// Days since 1970-01-01 → (year, month 1..=12, day 1..=31) (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn split_time(t: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let wday = (days + 4).rem_euclid(7);
    (y, m, d, secs / 3600, secs % 3600 / 60, secs % 60, wday)
}

/// C's `ctime` (in UTC, without the newline): "Mon Nov 23 05:31:17 2026".
pub fn ctime(t: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (y, m, d, hh, mm, ss, wd) = split_time(t);
    let day = DAYS.get(wd as usize).copied().unwrap_or("?");
    let month = MONTHS.get(m as usize - 1).copied().unwrap_or("?");
    format!("{day} {month}{d:>3} {hh:02}:{mm:02}:{ss:02} {y}")
}

/// `strftime("%F %T")` in UTC: "2026-11-23 05:31:35".
fn date_time(t: i64) -> String {
    let (y, m, d, hh, mm, ss, _) = split_time(t);
    format!("{y}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_time_formats() {
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(1795411895), "Mon Nov 23 05:31:35 2026");
        assert_eq!(date_time(1711586729), "2024-03-28 00:45:29");
        assert_eq!(ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn perf_number_formats() {
        assert_eq!(unit_number(0x8000000 * 192), "24G");
        assert_eq!(unit_number(2047), "2047B");
        assert_eq!(unit_number(2048), "2K");
        assert_eq!(usec_timestamp(4410607901234), "4410.607901");
        assert_eq!(perf_bits(0x10087, SAMPLE_TYPE_61.into_iter()), "IP|TID|TIME|CPU|IDENTIFIER");
        // perf 6.1 lists IDENTIFIER before DATA_SRC and WEIGHT, and has no TRANSACTION.
        assert_eq!(
            perf_bits((1 << 16) | (1 << 15) | (1 << 14) | (1 << 17), SAMPLE_TYPE_61.into_iter()),
            "IDENTIFIER|DATA_SRC|WEIGHT"
        );
    }
}
