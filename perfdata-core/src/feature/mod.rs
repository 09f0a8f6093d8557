//! Feature sections (perf's header.c `write_*`/`process_*`), one module per family.
//!
//! Every function here takes the section payload, the file's byte order and the payload's
//! position, runs that section's nom parser of [`crate::parse::feature`], and returns its own
//! `Result`: one damaged section never hides the others. [`Features`] is the typed
//! view over all sections of a file (`PerfFile::features`); the bit numbers are in
//! [`crate::header::feature`]. Layouts: reference §3.
//!
//! | bit | feature | parser |
//! |---:|---|---|
//! | 1 | TRACING_DATA | raw bytes ([`crate::tracepoint`] decodes them) |
//! | 2 | BUILD_ID | [`build_id::build_ids`] |
//! | 3–6, 8, 9 | HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID | [`system::string`] |
//! | 7, 10, 11 | NRCPUS, TOTAL_MEM, CMDLINE | [`system`] |
//! | 12, 16, 17, 28, 31 | EVENT_DESC, PMU_MAPPINGS, GROUP_DESC, CPU_PMU_CAPS, PMU_CAPS | [`events`] |
//! | 13, 14, 20, 22, 30, 32 | CPU/NUMA/MEM/HYBRID topology, CACHE, CPU_DOMAIN_INFO | [`topology`] |
//! | 21, 23, 29 | SAMPLE_TIME, CLOCKID, CLOCK_DATA | [`clock`] |
//! | 15, 18, 19, 24, 27 | BRANCH_STACK, AUXTRACE, STAT, DIR_FORMAT, COMPRESSED | [`data`] |
//! | 25, 26 | BPF_PROG_INFO, BPF_BTF | [`bpf`] |
//! | 128–130, 132 | simpleperf's FILE, META_INFO, DEBUG_UNWIND, FILE2 | [`simpleperf`] (131, 133, 134 raw) |

use crate::reader::{malformed, PResult, Reader};

pub mod bpf;
pub mod build_id;
pub mod clock;
pub mod data;
pub mod events;
mod features;
pub mod simpleperf;
pub mod strings;
pub mod system;
pub mod topology;

pub use bpf::{BpfBtf, BpfProgInfo, Btf};
pub use build_id::{BuildId, BuildIds};
pub use clock::{ClockData, SampleTime};
pub use data::{AuxtraceIndexEntry, Compressed};
pub use events::{EventDesc, GroupDesc, PmuCap, PmuCaps, PmuMapping};
pub use features::{Feature, FeatureSection, Features};
pub use simpleperf::{DebugUnwindFile, SimpleperfFile, SimpleperfSymbol};
pub use system::NrCpus;
pub use topology::{
    CacheLevel, CpuDomainInfo, CpuDomains, CpuIds, CpuTopology, HybridNode, MemTopology, MemoryNode, NumaNode,
    SchedDomain,
};

/// Run a section parser of [`crate::parse::feature`] over a section's payload.
fn run<'a, T>(
    data: &'a [u8],
    endian: crate::Endian,
    pos: crate::Position,
    parser: impl FnOnce(Reader<'a>) -> PResult<'a, T>,
) -> crate::Result<T> {
    Reader::new(data, endian, pos, "feature section").run(parser)
}

// The parsers file.rs and the fuzz targets have always called by these paths.
pub use data::compressed;
pub use events::event_desc;

/// A `u32` (or `u64`) version that must be 1.
pub(crate) fn version_1<'a, T: Copy + Into<u64>>(
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
