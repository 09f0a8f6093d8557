//! The perf ABI's numbers, in one leaf module that imports nothing: record types, `misc` bits,
//! `sample_type`, `read_format` and `branch_sample_type` bits, feature section ids, and the names
//! of sampled registers. Everything else in the crate builds on these (perf_event.h,
//! tools/perf/util/header.h, arch/*/include/uapi/asm/perf_regs.h).

/// `PERF_SAMPLE_*` bits of `perf_event_attr.sample_type`.
pub mod sample_type {
    #![allow(missing_docs)]
    pub const IP: u64 = 1 << 0;
    pub const TID: u64 = 1 << 1;
    pub const TIME: u64 = 1 << 2;
    pub const ADDR: u64 = 1 << 3;
    pub const READ: u64 = 1 << 4;
    pub const CALLCHAIN: u64 = 1 << 5;
    pub const ID: u64 = 1 << 6;
    pub const CPU: u64 = 1 << 7;
    pub const PERIOD: u64 = 1 << 8;
    pub const STREAM_ID: u64 = 1 << 9;
    pub const RAW: u64 = 1 << 10;
    pub const BRANCH_STACK: u64 = 1 << 11;
    pub const REGS_USER: u64 = 1 << 12;
    pub const STACK_USER: u64 = 1 << 13;
    pub const WEIGHT: u64 = 1 << 14;
    pub const DATA_SRC: u64 = 1 << 15;
    pub const IDENTIFIER: u64 = 1 << 16;
    pub const TRANSACTION: u64 = 1 << 17;
    pub const REGS_INTR: u64 = 1 << 18;
    pub const PHYS_ADDR: u64 = 1 << 19;
    pub const AUX: u64 = 1 << 20;
    pub const CGROUP: u64 = 1 << 21;
    pub const DATA_PAGE_SIZE: u64 = 1 << 22;
    pub const CODE_PAGE_SIZE: u64 = 1 << 23;
    pub const WEIGHT_STRUCT: u64 = 1 << 24;

    /// Names in bit order, as `perf report --header-only -I` prints them.
    pub const NAMES: [&str; 25] = [
        "IP",
        "TID",
        "TIME",
        "ADDR",
        "READ",
        "CALLCHAIN",
        "ID",
        "CPU",
        "PERIOD",
        "STREAM_ID",
        "RAW",
        "BRANCH_STACK",
        "REGS_USER",
        "STACK_USER",
        "WEIGHT",
        "DATA_SRC",
        "IDENTIFIER",
        "TRANSACTION",
        "REGS_INTR",
        "PHYS_ADDR",
        "AUX",
        "CGROUP",
        "DATA_PAGE_SIZE",
        "CODE_PAGE_SIZE",
        "WEIGHT_STRUCT",
    ];
}

/// `PERF_FORMAT_*` bits of `perf_event_attr.read_format`.
pub mod read_format {
    #![allow(missing_docs)]
    pub const TOTAL_TIME_ENABLED: u64 = 1 << 0;
    pub const TOTAL_TIME_RUNNING: u64 = 1 << 1;
    pub const ID: u64 = 1 << 2;
    pub const GROUP: u64 = 1 << 3;
    pub const LOST: u64 = 1 << 4;
    /// Names in bit order.
    pub const NAMES: [&str; 5] = ["TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"];
}

/// `PERF_SAMPLE_BRANCH_*` bits of `perf_event_attr.branch_sample_type`.
pub mod branch_sample_type {
    #![allow(missing_docs)]
    pub const HW_INDEX: u64 = 1 << 17;
    pub const COUNTERS: u64 = 1 << 19;
    /// Names in bit order.
    pub const NAMES: [&str; 20] = [
        "USER",
        "KERNEL",
        "HV",
        "ANY",
        "ANY_CALL",
        "ANY_RETURN",
        "IND_CALL",
        "ABORT_TX",
        "IN_TX",
        "NO_TX",
        "COND",
        "CALL_STACK",
        "IND_JUMP",
        "CALL",
        "NO_FLAGS",
        "NO_CYCLES",
        "TYPE_SAVE",
        "HW_INDEX",
        "PRIV_SAVE",
        "COUNTERS",
    ];
}

/// `misc` bits with a meaning for some record types.
pub mod misc {
    #![allow(missing_docs)]
    pub const PROC_MAP_PARSE_TIMEOUT: u16 = 1 << 12;
    pub const MMAP_DATA: u16 = 1 << 13;
    pub const COMM_EXEC: u16 = 1 << 13;
    pub const FORK_EXEC: u16 = 1 << 13;
    pub const SWITCH_OUT: u16 = 1 << 13;
    pub const EXACT_IP: u16 = 1 << 14;
    pub const SWITCH_OUT_PREEMPT: u16 = 1 << 14;
    pub const MMAP_BUILD_ID: u16 = 1 << 14;
    pub const BUILD_ID_SIZE: u16 = 1 << 15;
    pub const LOST_SAMPLES_BPF: u16 = 1 << 15;
}

/// Record type numbers (`PERF_RECORD_*`).
pub mod record_type {
    #![allow(missing_docs)]
    pub const MMAP: u32 = 1;
    pub const LOST: u32 = 2;
    pub const COMM: u32 = 3;
    pub const EXIT: u32 = 4;
    pub const THROTTLE: u32 = 5;
    pub const UNTHROTTLE: u32 = 6;
    pub const FORK: u32 = 7;
    pub const READ: u32 = 8;
    pub const SAMPLE: u32 = 9;
    pub const MMAP2: u32 = 10;
    pub const AUX: u32 = 11;
    pub const ITRACE_START: u32 = 12;
    pub const LOST_SAMPLES: u32 = 13;
    pub const SWITCH: u32 = 14;
    pub const SWITCH_CPU_WIDE: u32 = 15;
    pub const NAMESPACES: u32 = 16;
    pub const KSYMBOL: u32 = 17;
    pub const BPF_EVENT: u32 = 18;
    pub const CGROUP: u32 = 19;
    pub const TEXT_POKE: u32 = 20;
    pub const AUX_OUTPUT_HW_ID: u32 = 21;
    pub const CALLCHAIN_DEFERRED: u32 = 22;
    pub const HEADER_ATTR: u32 = 64;
    pub const HEADER_EVENT_TYPE: u32 = 65;
    pub const HEADER_TRACING_DATA: u32 = 66;
    pub const HEADER_BUILD_ID: u32 = 67;
    pub const FINISHED_ROUND: u32 = 68;
    pub const ID_INDEX: u32 = 69;
    pub const AUXTRACE_INFO: u32 = 70;
    pub const AUXTRACE: u32 = 71;
    pub const AUXTRACE_ERROR: u32 = 72;
    pub const THREAD_MAP: u32 = 73;
    pub const CPU_MAP: u32 = 74;
    pub const STAT_CONFIG: u32 = 75;
    pub const STAT: u32 = 76;
    pub const STAT_ROUND: u32 = 77;
    pub const EVENT_UPDATE: u32 = 78;
    pub const TIME_CONV: u32 = 79;
    pub const HEADER_FEATURE: u32 = 80;
    pub const COMPRESSED: u32 = 81;
    pub const FINISHED_INIT: u32 = 82;
    pub const COMPRESSED2: u32 = 83;
    pub const BPF_METADATA: u32 = 84;
    pub const SCHEDSTAT_CPU: u32 = 85;
    pub const SCHEDSTAT_DOMAIN: u32 = 86;

    /// First type number of perf's user records; kernel records are below it.
    pub const USER_START: u32 = 64;

    /// First type number of simpleperf's own records (`SIMPLE_PERF_RECORD_TYPE_START`, simpleperf's
    /// record.h). Their header keeps a 32-bit size: `misc` holds its high 16 bits
    /// (`simpleperf_record_header`), see [`crate::RecordHeader::record_size`].
    pub const SIMPLEPERF_START: u32 = 32768;
    /// simpleperf: the kernel's symbols (`/proc/kallsyms` text), 32769.
    pub const SIMPLEPERF_KERNEL_SYMBOL: u32 = 32769;
    /// simpleperf: a DSO (id, type, path, min_vaddr), 32770.
    pub const SIMPLEPERF_DSO: u32 = 32770;
    /// simpleperf: a symbol of a DSO record, 32771.
    pub const SIMPLEPERF_SYMBOL: u32 = 32771;
    /// simpleperf: part of a record split because it exceeds the size limit, 32772.
    pub const SIMPLEPERF_SPLIT: u32 = 32772;
    /// simpleperf: the end of a split record, 32773.
    pub const SIMPLEPERF_SPLIT_END: u32 = 32773;
    /// simpleperf: (attr index, event id) pairs, 32774.
    pub const SIMPLEPERF_EVENT_ID: u32 = 32774;
    /// simpleperf: a callchain joined after recording (`--post-unwind`), 32775.
    pub const SIMPLEPERF_CALLCHAIN: u32 = 32775;
    /// simpleperf: what offline unwinding found (`--keep-failed-unwinding-result`), 32776.
    pub const SIMPLEPERF_UNWINDING_RESULT: u32 = 32776;
    /// simpleperf: tracing data inside the record (the size covers it), 32777.
    pub const SIMPLEPERF_TRACING_DATA: u32 = 32777;
    /// simpleperf: a debug message, 32778.
    pub const SIMPLEPERF_DEBUG: u32 = 32778;

    /// perf's name without `PERF_RECORD_` (`None` for unknown types).
    pub fn name(t: u32) -> Option<&'static str> {
        Some(match t {
            1 => "MMAP",
            2 => "LOST",
            3 => "COMM",
            4 => "EXIT",
            5 => "THROTTLE",
            6 => "UNTHROTTLE",
            7 => "FORK",
            8 => "READ",
            9 => "SAMPLE",
            10 => "MMAP2",
            11 => "AUX",
            12 => "ITRACE_START",
            13 => "LOST_SAMPLES",
            14 => "SWITCH",
            15 => "SWITCH_CPU_WIDE",
            16 => "NAMESPACES",
            17 => "KSYMBOL",
            18 => "BPF_EVENT",
            19 => "CGROUP",
            20 => "TEXT_POKE",
            21 => "AUX_OUTPUT_HW_ID",
            22 => "CALLCHAIN_DEFERRED",
            64 => "HEADER_ATTR",
            65 => "HEADER_EVENT_TYPE",
            66 => "HEADER_TRACING_DATA",
            67 => "HEADER_BUILD_ID",
            68 => "FINISHED_ROUND",
            69 => "ID_INDEX",
            70 => "AUXTRACE_INFO",
            71 => "AUXTRACE",
            72 => "AUXTRACE_ERROR",
            73 => "THREAD_MAP",
            74 => "CPU_MAP",
            75 => "STAT_CONFIG",
            76 => "STAT",
            77 => "STAT_ROUND",
            78 => "EVENT_UPDATE",
            79 => "TIME_CONV",
            80 => "HEADER_FEATURE",
            81 => "COMPRESSED",
            82 => "FINISHED_INIT",
            83 => "COMPRESSED2",
            84 => "BPF_METADATA",
            85 => "SCHEDSTAT_CPU",
            86 => "SCHEDSTAT_DOMAIN",
            32769 => "SIMPLEPERF_KERNEL_SYMBOL",
            32770 => "SIMPLEPERF_DSO",
            32771 => "SIMPLEPERF_SYMBOL",
            32772 => "SIMPLEPERF_SPLIT",
            32773 => "SIMPLEPERF_SPLIT_END",
            32774 => "SIMPLEPERF_EVENT_ID",
            32775 => "SIMPLEPERF_CALLCHAIN",
            32776 => "SIMPLEPERF_UNWINDING_RESULT",
            32777 => "SIMPLEPERF_TRACING_DATA",
            32778 => "SIMPLEPERF_DEBUG",
            _ => return None,
        })
    }

    /// perf's name, or `UNKNOWN_<n>`.
    pub fn display_name(t: u32) -> std::borrow::Cow<'static, str> {
        match name(t) {
            Some(n) => n.into(),
            None => format!("UNKNOWN_{t}").into(),
        }
    }
}

/// Feature bit numbers (perf's `HEADER_*` enum in header.h).
pub mod feature {
    #![allow(missing_docs)]
    pub const TRACING_DATA: u32 = 1;
    pub const BUILD_ID: u32 = 2;
    pub const HOSTNAME: u32 = 3;
    pub const OSRELEASE: u32 = 4;
    pub const VERSION: u32 = 5;
    pub const ARCH: u32 = 6;
    pub const NRCPUS: u32 = 7;
    pub const CPUDESC: u32 = 8;
    pub const CPUID: u32 = 9;
    pub const TOTAL_MEM: u32 = 10;
    pub const CMDLINE: u32 = 11;
    pub const EVENT_DESC: u32 = 12;
    pub const CPU_TOPOLOGY: u32 = 13;
    pub const NUMA_TOPOLOGY: u32 = 14;
    pub const BRANCH_STACK: u32 = 15;
    pub const PMU_MAPPINGS: u32 = 16;
    pub const GROUP_DESC: u32 = 17;
    pub const AUXTRACE: u32 = 18;
    pub const STAT: u32 = 19;
    pub const CACHE: u32 = 20;
    pub const SAMPLE_TIME: u32 = 21;
    pub const MEM_TOPOLOGY: u32 = 22;
    pub const CLOCKID: u32 = 23;
    pub const DIR_FORMAT: u32 = 24;
    pub const BPF_PROG_INFO: u32 = 25;
    pub const BPF_BTF: u32 = 26;
    pub const COMPRESSED: u32 = 27;
    pub const CPU_PMU_CAPS: u32 = 28;
    pub const CLOCK_DATA: u32 = 29;
    pub const HYBRID_TOPOLOGY: u32 = 30;
    pub const PMU_CAPS: u32 = 31;
    pub const CPU_DOMAIN_INFO: u32 = 32;

    /// First of simpleperf's own feature ids (`FEAT_SIMPLEPERF_START`, record_file_format.h).
    pub const SIMPLEPERF_START: u32 = 128;
    /// simpleperf: the DSOs and the symbols of them that samples hit (`file_struct`s).
    pub const SIMPLEPERF_FILE: u32 = 128;
    /// simpleperf: NUL-terminated key/value strings (simpleperf_version, event_type_info, …).
    pub const SIMPLEPERF_META_INFO: u32 = 129;
    /// simpleperf: `DebugUnwindFeature` (record_file.proto) for `debug-unwind`.
    pub const SIMPLEPERF_DEBUG_UNWIND: u32 = 130;
    /// simpleperf: the files listed in DEBUG_UNWIND, back to back.
    pub const SIMPLEPERF_DEBUG_UNWIND_FILE: u32 = 131;
    /// simpleperf: FILE as length-prefixed `FileFeature` protobuf messages (record_file.proto).
    pub const SIMPLEPERF_FILE2: u32 = 132;
    /// simpleperf: an `ETMBranchList` protobuf (branch_list.proto).
    pub const SIMPLEPERF_ETM_BRANCH_LIST: u32 = 133;
    /// simpleperf: init map records (`InitMapFeature`).
    pub const SIMPLEPERF_INIT_MAP: u32 = 134;

    /// perf's name of a feature bit (`None` for bits it does not define).
    pub fn name(bit: u32) -> Option<&'static str> {
        Some(match bit {
            1 => "TRACING_DATA",
            2 => "BUILD_ID",
            3 => "HOSTNAME",
            4 => "OSRELEASE",
            5 => "VERSION",
            6 => "ARCH",
            7 => "NRCPUS",
            8 => "CPUDESC",
            9 => "CPUID",
            10 => "TOTAL_MEM",
            11 => "CMDLINE",
            12 => "EVENT_DESC",
            13 => "CPU_TOPOLOGY",
            14 => "NUMA_TOPOLOGY",
            15 => "BRANCH_STACK",
            16 => "PMU_MAPPINGS",
            17 => "GROUP_DESC",
            18 => "AUXTRACE",
            19 => "STAT",
            20 => "CACHE",
            21 => "SAMPLE_TIME",
            22 => "MEM_TOPOLOGY",
            23 => "CLOCKID",
            24 => "DIR_FORMAT",
            25 => "BPF_PROG_INFO",
            26 => "BPF_BTF",
            27 => "COMPRESSED",
            28 => "CPU_PMU_CAPS",
            29 => "CLOCK_DATA",
            30 => "HYBRID_TOPOLOGY",
            31 => "PMU_CAPS",
            32 => "CPU_DOMAIN_INFO",
            128 => "SIMPLEPERF_FILE",
            129 => "SIMPLEPERF_META_INFO",
            130 => "SIMPLEPERF_DEBUG_UNWIND",
            131 => "SIMPLEPERF_DEBUG_UNWIND_FILE",
            132 => "SIMPLEPERF_FILE2",
            133 => "SIMPLEPERF_ETM_BRANCH_LIST",
            134 => "SIMPLEPERF_INIT_MAP",
            _ => return None,
        })
    }
}

/// Register names of x86_64 (`arch/x86/include/uapi/asm/perf_regs.h`) by bit number.
pub fn x86_64_reg_name(bit: u32) -> Option<&'static str> {
    const N: [&str; 24] = [
        "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags", "cs", "ss", "ds", "es", "fs", "gs", "r8", "r9",
        "r10", "r11", "r12", "r13", "r14", "r15",
    ];
    const XMM: [&str; 16] = [
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15",
    ];
    match bit {
        0..=23 => N.get(bit as usize).copied(),
        // XMM registers take two bits each from 32.
        32..=63 if bit.is_multiple_of(2) => XMM.get(((bit - 32) / 2) as usize).copied(),
        _ => None,
    }
}

/// Register names of aarch64 (`arch/arm64/include/uapi/asm/perf_regs.h`) by bit number.
pub fn aarch64_reg_name(bit: u32) -> Option<&'static str> {
    const N: [&str; 34] = [
        "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
        "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc",
        "vg",
    ];
    N.get(bit as usize).copied()
}
