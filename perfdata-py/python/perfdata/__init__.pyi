"""Type stubs of the perfdata package (the classes are implemented in Rust, perfdata._perfdata)."""

import os
from typing import (
    Any,
    BinaryIO,
    Dict,
    FrozenSet,
    Iterator,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    Union,
    final,
)

from typing_extensions import Unpack

__all__ = [
    "dataset",
    "dataset_flamegraph",
    "dataset_folded",
    "export_dataset",
    "read_samples",
    "read_stacks",
    "AnalysisResult",
    "ArrowTable",
    "BuildId",
    "Event",
    "FlameGraph",
    "Header",
    "Histogram",
    "PerfData",
    "PerfDataError",
    "PerfDataWarning",
    "Picture",
    "Record",
    "RecordIterator",
    "Sample",
    "SchedTimeline",
    "ScriptIterator",
    "__version__",
    "diff",
    "flamegraph_diff",
    "open",
]

__version__: str

_Order = Literal["time", "file"]
_Table = Literal["samples", "mmaps", "comms", "tasks", "lost", "records"]
_Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]
_Path = Union[str, "os.PathLike[str]"]
_CpuMode = Literal["unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user", "other"]
_Compat = Literal["stackcollapse-pl", "perf-script-py"]
_Root = Optional[Literal["comm", "pid", "tid"]]
_TimeRange = Union[str, Tuple[Optional[int], Optional[int]]]
_Colors = Literal[
    "hot", "mem", "io", "java", "js", "perl", "python", "rust", "wakeup",
    "aqua", "blue", "green", "orange", "purple", "red", "yellow",
]  # fmt: skip

class _FoldOptions(TypedDict, total=False):
    """How stacks are folded (the options of ``perfdata folded``; see ``PerfData.folded``).
    Defaults: compat 'stackcollapse-pl', root 'comm', jitdump True, other flags False, the rest
    None (the tool's; inline None: on, as perf script adds inline frames to DWARF stacks)."""

    compat: _Compat
    weight: Optional[Literal["samples", "period"]]
    root: _Root
    kernel: bool
    jit: bool
    inline: Optional[bool]
    annotate_inline: bool
    srcline: bool
    plain_unwind: bool
    max_stack: Optional[int]
    addrs: bool
    event: Union[None, str, Event]
    all_events: bool
    tidy: Optional[bool]
    tidy_java: Optional[bool]
    pid: Optional[int]
    tid: Optional[int]
    comm: Optional[str]
    time: Optional[_TimeRange]
    symfs: Optional[_Path]
    buildid_dir: Optional[_Path]
    kallsyms: Optional[_Path]
    symbols: Optional[_Path]
    """A symbol archive made by ``perfdata archive`` on the recording machine."""
    jitdump: bool
    progress: bool
    """Show the progress of reading the file on stderr (tqdm when installed)."""

class _LookOptions(TypedDict, total=False):
    """How a graph looks (defaults: colors 'hot', not inverted, 1200 pixels wide)."""

    title: Optional[str]
    subtitle: Optional[str]
    colors: _Colors
    inverted: bool
    width: Optional[int]

class _GraphOptions(_FoldOptions, _LookOptions, total=False):
    """How stacks are folded, and how the graph looks."""

class _ScriptOptions(TypedDict, total=False):
    """perf script's options (see ``PerfData.script``). Defaults: max_stack 127, inline True, the
    other flags False (jitdump too), the rest None."""

    fields: Union[None, str, Sequence[str]]
    ns: bool
    hide_call_graph: bool
    max_stack: int
    inline: bool
    show_task_events: bool
    show_mmap_events: bool
    show_switch_events: bool
    time: Optional[_TimeRange]
    cpu: Union[None, int, Sequence[int], str]
    pid: Union[None, int, Sequence[int]]
    tid: Union[None, int, Sequence[int]]
    comms: Union[None, str, Sequence[str]]
    symfs: Optional[_Path]
    kallsyms: Optional[_Path]
    buildid_dir: Optional[_Path]
    symbols: Optional[_Path]
    jitdump: bool

class _ScriptSummary(TypedDict):
    samples: int
    """Samples printed."""
    damaged: int
    """Records that could not be read (skipped, listed in ``PerfData.diagnostics``)."""

@final
class PerfDataError(ValueError):
    """The input is not readable perf.data, or a part of it is damaged."""

    offset: Optional[int]
    """Byte offset of the damaged structure in the file (None when unknown)."""
    record_type: Optional[str]
    """perf's name of the record being read (e.g. 'SAMPLE'), or None."""
    path: Optional[str]
    """The file being read (None for bytes and streams); the message starts with it."""

@final
class PerfDataWarning(UserWarning):
    """A problem of a damaged recording (cut short, or with damaged records), said once per
    ``PerfData`` after the call that met it: the call's results come from the records that could
    be read. The message is ``PATH: problem`` (the problem alone for bytes and streams), as the
    CLI's warnings. ``open(..., strict=True)`` raises ``PerfDataError`` instead."""

def open(source: _Source, *, order: _Order = "time", stream: bool = False, strict: bool = False) -> PerfData:
    """Open a perf.data recording (a path, its bytes, or a binary file object with pipe data).

    Without ``strict``, a damaged recording is read as far as it can be, and each problem is said
    once per ``PerfData`` as a ``PerfDataWarning`` after the call that met it (the opening, a
    method that reads records, an iterator at its end or when dropped). With ``strict=True``,
    damage is a ``PerfDataError``: raised by the opening when it found problems, and by every call
    that reads records (after it has run; the iterators at their end) once the file is known to be
    damaged. The message: the first problem, and how many more.
    """

# The feature sections with structure, as Header gives them (the JSON of `perfdata info --json`);
# dicts at run time, typed here only.

class _FeatureSection(TypedDict):
    bit: int
    name: str
    offset: Optional[int]
    size: int

class _CpuIds(TypedDict):
    core_id: int
    socket_id: int
    die_id: Optional[int]

class _CpuTopology(TypedDict):
    package_cpus: List[str]
    core_cpus: List[str]
    cpus: Optional[List[_CpuIds]]
    die_cpus: Optional[List[str]]

class _NumaNode(TypedDict):
    node: int
    mem_total_kb: int
    mem_free_kb: int
    cpus: str

class _CacheLevel(TypedDict):
    level: int
    line_size: int
    sets: int
    ways: int
    type: str
    size: str
    map: str

class _PmuMapping(TypedDict):
    type: int
    name: str

class _GroupDesc(TypedDict):
    name: Optional[str]
    leader_idx: int
    nr_members: int
    members: List[str]

class _AuxtraceEntry(TypedDict):
    file_offset: int
    size: int

class _SampleTime(TypedDict):
    first: int
    last: int

class _MemNode(TypedDict):
    node: int
    block_count: int
    bytes: int
    blocks: str

class _MemTopology(TypedDict):
    block_size: int
    nodes: List[_MemNode]

class _BpfProg(TypedDict):
    id: Optional[int]
    prog_type: Optional[int]
    name: Optional[str]
    tag: Optional[str]
    jited_prog_len: Optional[int]
    btf_id: Optional[int]
    info_len: int
    data_len: int

class _Btf(TypedDict):
    id: int
    size: int

class _Compressed(TypedDict):
    version: int
    type: int
    level: int
    ratio: int
    mmap_len: int

class _PmuCap(TypedDict):
    name: str
    value: str

class _PmuCaps(TypedDict):
    pmu_name: str
    caps: List[_PmuCap]

class _ClockData(TypedDict):
    version: int
    clockid: int
    tod_ns: int
    clockid_ns: int

class _HybridNode(TypedDict):
    pmu_name: str
    cpus: str

class _FeatureError(TypedDict):
    bit: int
    feature: str
    error: str

@final
class Header:
    """The recording's metadata and every feature section, as ``perf report --header-only -I`` shows
    them. Attributes are None when the file lacks the feature."""

    hostname: Optional[str]
    os_release: Optional[str]
    perf_version: Optional[str]
    arch: Optional[str]
    nr_cpus_online: Optional[int]
    nr_cpus_available: Optional[int]
    cpu_desc: Optional[str]
    cpuid: Optional[str]
    total_mem_kb: Optional[int]
    cmdline: Optional[List[str]]
    features: List[str]
    """Names of the feature sections present ('HOSTNAME', …; 'BIT_<n>' for unknown bits)."""
    feature_sections: List[_FeatureSection]
    format: Literal["file", "pipe", "directory"]
    endian: Literal["little", "big"]
    data_offset: int
    """Start of the data section; for pipe data, of the first record."""
    data_size: int
    feat_offset: int
    captured_on: Optional[int]
    """The file's modification time (Unix seconds), perf's "captured on"."""
    events: List[Dict[str, Any]]
    """The events as perf's header lists them (EVENT_DESC): name, ids and every attr field."""
    simpleperf_meta_info: Optional[Dict[str, str]]
    simpleperf_files: Optional[List[Dict[str, Any]]]
    cpu_topology: Optional[_CpuTopology]
    numa_topology: Optional[List[_NumaNode]]
    cache: Optional[List[_CacheLevel]]
    pmu_mappings: Optional[List[_PmuMapping]]
    group_desc: Optional[List[_GroupDesc]]
    auxtrace: Optional[List[_AuxtraceEntry]]
    """The AUX area index; not None when the file contains AUX area data."""
    branch_stack: bool
    stat: bool
    sample_time: Optional[_SampleTime]
    mem_topology: Optional[_MemTopology]
    clockid_res_ns: Optional[int]
    clock_data: Optional[_ClockData]
    dir_format: Optional[int]
    compressed: Optional[_Compressed]
    bpf_prog_info: Optional[List[_BpfProg]]
    bpf_btf: Optional[List[_Btf]]
    cpu_pmu_caps: Optional[List[_PmuCap]]
    pmu_caps: Optional[List[_PmuCaps]]
    hybrid_topology: Optional[List[_HybridNode]]
    cpu_domain_info: Optional[Dict[str, Any]]
    build_ids: Optional[List[BuildId]]
    build_ids_old_abi: bool
    tracing_data_size: Optional[int]
    missing_features: List[str]
    """Features perf 6.1 knows (bits 1-31) that the file lacks (not for pipe data)."""
    errors: List[_FeatureError]
    """Feature sections that could not be decoded, with the reason and offset."""
    def to_dict(self) -> Dict[str, Any]:
        """Everything, as the JSON object ``perfdata info --json`` prints."""
    def to_json(self, indent: Optional[int] = 2) -> str:
        """``perfdata info --json`` (one line with ``indent=None``)."""
    def perf_text(self) -> str:
        """The text of ``perf report --header-only -I`` (= ``perfdata info``)."""
    def _repr_html_(self) -> str:
        """The key facts as an HTML table (Jupyter shows it)."""

@final
class BuildId:
    """One BUILD_ID entry: a binary and its build id, exactly as stored."""

    pid: int
    """Machine pid: -1 for the host."""
    misc: int
    cpumode: _CpuMode
    build_id: bytes
    hex: str
    filename: str
    def to_dict(self) -> Dict[str, Any]:
        """pid, misc, cpumode, build_id (bytes), hex and filename."""

@final
class Event:
    """One event: name, ids and every perf_event_attr field."""

    index: int
    name: str
    ids: List[int]
    type: int
    type_name: Literal["hardware", "software", "tracepoint", "hw_cache", "raw", "breakpoint", "pmu"]
    size: int
    config: int
    config1: int
    config2: int
    config3: int
    config4: int
    sample_period: int
    sample_freq: Optional[int]
    sample_type: FrozenSet[str]
    sample_type_value: int
    read_format: FrozenSet[str]
    read_format_value: int
    branch_sample_type: FrozenSet[str]
    branch_sample_type_value: int
    flags: Dict[str, int]
    flags_value: int
    wakeup_events: int
    bp_type: int
    sample_regs_user: int
    sample_stack_user: int
    clockid: int
    sample_regs_intr: int
    aux_watermark: int
    sample_max_stack: int
    aux_sample_size: int
    aux_action: int
    sig_data: int
    # attr flag bits (0 or 1; precise_ip 0-3)
    disabled: int
    inherit: int
    pinned: int
    exclusive: int
    exclude_user: int
    exclude_kernel: int
    exclude_hv: int
    exclude_idle: int
    mmap: int
    comm: int
    freq: int
    inherit_stat: int
    enable_on_exec: int
    task: int
    watermark: int
    precise_ip: int
    mmap_data: int
    sample_id_all: int
    exclude_host: int
    exclude_guest: int
    exclude_callchain_kernel: int
    exclude_callchain_user: int
    mmap2: int
    comm_exec: int
    use_clockid: int
    context_switch: int
    write_backward: int
    namespaces: int
    ksymbol: int
    bpf_event: int
    aux_output: int
    cgroup: int
    text_poke: int
    build_id: int
    inherit_thread: int
    remove_on_exec: int
    sigtrap: int
    defer_callchain: int
    defer_output: int
    def to_dict(self) -> Dict[str, Any]:
        """Every attribute as a dict."""

@final
class Record:
    """A record other than SAMPLE; its fields are attributes (see to_dict())."""

    type: str
    offset: int
    time: Optional[int]
    def to_dict(self) -> Dict[str, Any]:
        """The record's fields."""
    # The fields as attributes (``r.pid``): the runtime's attribute lookup (tp_getattro, what PyO3
    # makes of ``__getattr__``), which mypy consults for names the class does not declare.
    def __getattribute__(self, name: str, /) -> Any: ...

@final
class Sample:
    """One sample; fields the event does not sample are None."""

    type: Literal["SAMPLE"]
    offset: int
    misc: int
    size: int
    cpumode: _CpuMode
    event: Optional[str]
    event_index: Optional[int]
    time: Optional[int]
    pid: Optional[int]
    tid: Optional[int]
    cpu: Optional[int]
    ip: Optional[int]
    period: Optional[int]
    addr: Optional[int]
    id: Optional[int]
    stream_id: Optional[int]
    identifier: Optional[int]
    weight: Optional[int]
    data_src: Optional[int]
    transaction: Optional[int]
    phys_addr: Optional[int]
    cgroup: Optional[int]
    data_page_size: Optional[int]
    code_page_size: Optional[int]
    callchain: Optional[List[int]]
    raw: Optional[bytes]
    aux: Optional[bytes]
    read: Optional[Dict[str, Any]]
    branch_stack: Optional[Dict[str, Any]]
    regs_user: Optional[Dict[str, Any]]
    regs_intr: Optional[Dict[str, Any]]
    stack_user: Optional[Dict[str, Any]]
    fields: Optional[Dict[str, Union[int, str, bytes, List[int], None]]]
    """Tracepoint samples: every field of the record by name (common_* first)."""
    trace_text: Optional[str]
    """Tracepoint samples: the text ``perf script`` prints from the format's print fmt."""
    def to_dict(self) -> Dict[str, Any]:
        """The sample's present fields (with 'fields' and 'trace_text' for tracepoints)."""

@final
class RecordIterator(Iterator[Any]):
    """Streams records (Record or Sample objects) from the file. At its end (or when dropped
    before it) each new problem of the file is said as a ``PerfDataWarning``; with
    ``open(..., strict=True)`` a damaged file raises ``PerfDataError`` at the end instead."""

    def __iter__(self) -> RecordIterator: ...
    def __next__(self) -> Any: ...

@final
class ScriptIterator(Iterator[str]):
    """The lines ``perf script`` prints, without their newline, produced as they are iterated.
    At the end of the text each new problem of the file is said as a ``PerfDataWarning``
    (``PerfDataError`` with ``open(..., strict=True)``)."""

    @property
    def summary(self) -> Optional[_ScriptSummary]:
        """Once read to the end: samples printed, records skipped; else None."""
    @property
    def _buffered_bytes(self) -> int: ...
    def __iter__(self) -> ScriptIterator: ...
    def __next__(self) -> str: ...
    def close(self) -> None:
        """Stop the writer and end the iteration."""

@final
class ArrowTable:
    """Columns exported through the Arrow PyCapsule interface."""

    name: str
    num_rows: int
    num_columns: int
    column_names: List[str]
    schema: List[Tuple[str, str]]
    nbytes: int
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def to_pyarrow(self) -> Any:
        """As a pyarrow.Table."""
    def to_pandas(self, *, dtypes: Literal["arrow", "object"] = "arrow") -> Any:
        """As a pandas.DataFrame: nullable integers; list/string columns Arrow-backed
        (``dtypes="arrow"``) or Python objects (``dtypes="object"``)."""
    def to_polars(self) -> Any:
        """As a polars.DataFrame."""
    def _repr_html_(self) -> str:
        """Name, size and the first 10 rows as HTML (Jupyter shows it)."""
    def __len__(self) -> int: ...

@final
class AnalysisResult:
    """An analysis (scheduler, latency): rows (Arrow/pandas/polars), the text the tools print, counters."""

    kind: Literal["latency", "map", "timehist", "block_latency", "wakeup_latency"]
    info: Dict[str, int]
    """perf's counters (context_switch_bugs, nr_timestamps, unordered_timestamps, lost_events…) and row counts."""
    diagnostics: List[str]
    def text(self) -> str:
        """What ``perf sched`` (and the ``perfdata sched`` command) prints."""
    def to_arrow(self) -> ArrowTable:
        """The rows: snake_case columns, times in integer ns."""
    def summary(self) -> Optional[ArrowTable]:
        """The per-task summary of ``sched_timehist(summary=True)``."""
    def to_pandas(self, *, dtypes: Literal["arrow", "object"] = "arrow") -> Any:
        """The rows as a pandas.DataFrame."""
    def to_polars(self) -> Any:
        """The rows as a polars.DataFrame."""
    def hist(self, unit: Literal["us", "ms"] = "us", per: Optional[Literal["disk", "flags"]] = None) -> Histogram:
        """bcc's log2 histogram of the latencies (block_latency, wakeup_latency)."""
    def heatmap(
        self,
        column_ms: Optional[float] = None,
        rows: int = 50,
        *,
        max_lat: Union[float, str, None] = None,
        min_lat: Union[float, str, None] = None,
        log: bool = False,
        width: int = 1000,
        height: int = 500,
        title: Optional[str] = None,
    ) -> Picture:
        """A latency heat map (trace2heatmap.pl's): the axis ends at p99.9 unless ``max_lat``
        (µs, or ``"500us"``, ``"2ms"``, ``"1.5s"``) says otherwise; what lies beyond is counted
        in a labelled row. ``log``: geometric rows."""
    def percentiles(self) -> Dict[str, int]:
        """count, min, avg, p50, p90, p99, p999, max of the latencies, ns."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def _repr_html_(self) -> str:
        """The counters and the first rows as HTML (Jupyter shows it)."""
    def __len__(self) -> int: ...

@final
class Histogram:
    """A latency histogram: bcc's text (str(h)) and bars in Jupyter."""

    text: str
    svg: str
    def _repr_svg_(self) -> str: ...

@final
class Picture:
    """An SVG picture (heatmap): inline in Jupyter, save(path) for a browser."""

    svg: str
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the SVG to ``path``."""
    def _repr_svg_(self) -> str: ...

@final
class SchedTimeline:
    """The scheduler timeline SVG: a lane per CPU coloured by task, run-queue waits in red."""

    svg: str
    switches: int
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the SVG to ``path``."""
    def _repr_svg_(self) -> str: ...
    def _repr_html_(self) -> str: ...

@final
class PerfData:
    """An opened recording. A damaged one is read as far as it can be: each call that reads records
    says each problem this object has not said yet as a ``PerfDataWarning`` after it has run
    (``open(..., strict=True)``: raises ``PerfDataError`` instead); ``diagnostics`` lists them all,
    with the notes that are not damage."""

    path: Optional[str]
    size: Optional[int]
    order: _Order
    header: Header
    events: List[Event]
    diagnostics: List[str]
    sample_count: Optional[int]
    closed: bool
    def records(self, order: Optional[_Order] = None, *, strict: bool = False) -> Iterator[Union[Record, Sample]]:
        """Iterate over every record."""
    def samples(
        self,
        event: Union[None, str, int, Event] = None,
        *,
        order: Optional[_Order] = None,
        strict: bool = False,
    ) -> Iterator[Sample]:
        """Iterate over the samples, optionally of one event."""
    def record_counts(self) -> Dict[str, int]:
        """Count the records of each type."""
    def to_arrow(
        self,
        table: _Table = "samples",
        *,
        order: Optional[_Order] = None,
        stack_data: bool = False,
        symbolize: bool = False,
        **options: Unpack[_FoldOptions],
    ) -> ArrowTable:
        """Build an Arrow table (``symbolize=True``: samples get comm, dso, symbol and frames,
        folded with ``folded()``'s options)."""
    def to_pandas(
        self,
        table: _Table = "samples",
        *,
        order: Optional[_Order] = None,
        stack_data: bool = False,
        dtypes: Literal["arrow", "object"] = "arrow",
        symbolize: bool = False,
        **options: Unpack[_FoldOptions],
    ) -> Any:
        """Build a pandas.DataFrame (list/string columns Arrow-backed unless ``dtypes="object"``)."""
    def to_polars(
        self,
        table: _Table = "samples",
        *,
        order: Optional[_Order] = None,
        stack_data: bool = False,
        symbolize: bool = False,
        **options: Unpack[_FoldOptions],
    ) -> Any:
        """Build a polars.DataFrame."""
    def tracepoint_table(
        self, event: Union[str, Event], *, order: Optional[_Order] = None, common: bool = False
    ) -> ArrowTable:
        """One row per sample of a tracepoint event: time, cpu, pid, tid, then one typed column per
        field (a field named like a sample column keeps the name; the sample's becomes sample_<name>)."""
    def sched_latency(
        self,
        *,
        by: Literal["comm", "tid"] = "comm",
        sort: Union[None, str, Sequence[Literal["pid", "avg", "max", "switch", "runtime"]]] = None,
        compat: Optional[Literal["perf-6.1"]] = None,
        cpu: Optional[int] = None,
    ) -> AnalysisResult:
        """perf sched latency: per task run time and scheduling delays (columns task, tids,
        runtime_ns, switches, avg_delay_ns, max_delay_ns, max_delay_start_ns, max_delay_end_ns…).
        by: 'comm' (one row per command name) or 'tid' (one row per thread: perf's -p, whose
        "pid" is the thread id; by='pid' is refused). compat: a perf version, not an output tool."""
    def sched_map(
        self,
        *,
        compact: bool = False,
        cpus: Union[None, int, str, Sequence[int]] = None,
        compat: Optional[Literal["perf-6.1"]] = None,
    ) -> AnalysisResult:
        """perf sched map: one row per context switch, the short name of every CPU's task."""
    def sched_timehist(
        self,
        *,
        wakeups: bool = False,
        migrations: bool = False,
        cpu_visual: bool = False,
        state: bool = False,
        next: bool = False,
        summary: bool = False,
        idle_hist: bool = False,
        pid: Union[None, int, str, Sequence[int]] = None,
        tid: Union[None, int, str, Sequence[int]] = None,
        cpu: Union[None, int, str, Sequence[int]] = None,
        time: Union[None, str, Tuple[Optional[int], Optional[int]]] = None,
        compat: Optional[Literal["perf-6.1"]] = None,
    ) -> AnalysisResult:
        """perf sched timehist: per switch wait (sleep/iowait/preempt), delay and run time (columns
        time_ns, cpu, tid, pid, comm, wait_ns, sleep_ns, iowait_ns, preempt_ns, delay_ns, run_ns, state…)."""
    def sched_timeline(
        self,
        *,
        width: int = 1600,
        time: Union[None, str, Tuple[Optional[int], Optional[int]]] = None,
        title: Optional[str] = None,
        rows: Literal["cpu", "task"] = "cpu",
        tasks: int = 40,
    ) -> SchedTimeline:
        """The scheduler timeline picture (inline in Jupyter): a lane per CPU or per task."""
    def block_latency(
        self,
        *,
        start: Literal["issue", "insert"] = "issue",
        dev: Optional[Tuple[int, int]] = None,
        rwbs: Optional[str] = None,
        comm: Optional[str] = None,
        pid: Optional[int] = None,
        time: Union[None, str, Tuple[Optional[int], Optional[int]]] = None,
        msecs: bool = False,
    ) -> AnalysisResult:
        """Block I/O latency per request (issue or insert → complete); text() = biolatency's histogram."""
    def wakeup_latency(self, *, preempted: bool = True, msecs: bool = False) -> AnalysisResult:
        """Run-queue latency per wait (wakeup or preemption → switch-in); text() = runqlat's histogram."""
    def off_cpu(
        self,
        *,
        state: Optional[Literal["S", "D", "other", "all"]] = None,
        min_us: float = 0,
        **options: Unpack[_FoldOptions],
    ) -> Dict[str, int]:
        """Off-CPU time (sched_switch -g): folded stacks → ns off the CPU."""
    def off_cpu_flamegraph(
        self,
        *,
        state: Optional[Literal["S", "D", "other", "all"]] = None,
        min_us: float = 0,
        **options: Unpack[_GraphOptions],
    ) -> FlameGraph:
        """The off-CPU flame graph (widths in ns)."""
    def export(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        format: Literal["speedscope", "chrome-trace", "pprof", "parquet"],
        **options: Any,
    ) -> None:
        """Write speedscope JSON (an evented profile per thread in time order;
        ``aggregate=True``: a sampled profile per comm), Chrome Trace Event JSON (Perfetto UI),
        pprof's gzipped profile.proto (go tool pprof; every event, a value column each, unless
        ``event=`` names one; mapping 1 the profiled program) or a directory of Parquet files
        (``to_parquet``)."""
    def write(
        self,
        path: _Path,
        *,
        hostname: Optional[str] = None,
        cmdline: Optional[Sequence[str]] = None,
    ) -> None:
        """Write the recording as a perf.data file again, with HOSTNAME and CMDLINE replaced when
        given."""
    def to_parquet(
        self,
        dir: Union[str, "os.PathLike[str]"],
        *,
        symbolize: bool = False,
        order: Optional[_Order] = None,
        stack_data: bool = False,
        common: bool = False,
        **options: Unpack[_FoldOptions],
    ) -> Dict[str, str]:
        """Write every table (samples, mmaps, comms, tasks, lost, records, tp.SYSTEM.NAME per
        tracepoint event) as DIR/NAME.parquet (zstd); returns table name → path."""
    def report(
        self,
        *,
        sort: Union[str, Sequence[str], None] = None,
        parent: Optional[str] = None,
        exclude_other: bool = False,
        children: bool = False,
        call_graph: Optional[str] = None,
        **options: Unpack[_FoldOptions],
    ) -> Any:
        """perf report's table as a pandas.DataFrame: overhead %, (children %, children_period with
        children=True), samples, period and the columns of the sort keys (comm, pid, cpu, dso,
        kernel, symbol, srcline, parent, trace); sort: perf's --sort keys (comm, pid, dso, sym,
        cpu, srcline, parent, trace; default comm,dso,sym, or trace when every event is a
        tracepoint); parent: the parent key's pattern (perf's -p, adds
        the key); exclude_other: only rows with a parent (-x); call_graph ("caller",
        "callee" or a -g string): a call_graph column of each row's path tree (nested dicts)."""
    def annotate(
        self,
        symbol: Optional[str] = None,
        *,
        percent_type: Literal["local-period", "global-period", "local-hits", "global-hits"] = "local-period",
        percent_limit: float = 0.0,
        disassembler_style: Optional[str] = None,
        asm_raw: bool = False,
        print_line: bool = False,
        objdump: Optional[_Path] = None,
        prefix: Optional[_Path] = None,
        prefix_strip: Optional[int] = None,
        **options: Unpack[_FoldOptions],
    ) -> Any:
        """perf annotate --stdio as a pandas.DataFrame, one row per instruction: event, dso,
        symbol, address, instruction (objdump's text), samples, period, percent, source_file,
        source_line, and srcline with print_line; every symbol with samples when none is named.
        perf's --percent-limit, -M, --asm-raw, -l, --objdump, --prefix, --prefix-strip."""
    def folded(self, **options: Unpack[_FoldOptions]) -> Dict[str, int]:
        """Folded stacks (stack → weight) as stackcollapse-perf.pl or perf script report
        stackcollapse print them (compat names that tool, not a perf version)."""
    def folded_text(self, **options: Unpack[_FoldOptions]) -> str:
        """``folded(...)`` as the tools' text, one ``stack weight`` line per stack."""
    def write_folded(self, path: _Path, **options: Unpack[_FoldOptions]) -> None:
        """Write ``folded_text(...)`` to a file."""
    def script(self, **options: Unpack[_ScriptOptions]) -> ScriptIterator:
        """The lines ``perf script`` prints, without their newline (lazily: memory stays bounded)."""
    def write_script(self, path: _Path, **options: Unpack[_ScriptOptions]) -> _ScriptSummary:
        """Write ``perf script``'s text to a file; the samples printed and records skipped."""
    def flamegraph(self, **options: Unpack[_GraphOptions]) -> FlameGraph:
        """A flame graph of the folded stacks (shows inline in Jupyter)."""
    def close(self) -> None:
        """Release the file."""
    def _repr_html_(self) -> str:
        """Header facts, events with their sample counts (after a pass), diagnostics, as HTML."""
    def __enter__(self) -> PerfData: ...
    def __exit__(self, *args: object) -> bool: ...

@final
class FlameGraph:
    """An interactive flame graph SVG (inferno); inline in Jupyter, ``save(path)`` for a browser."""

    svg: str
    stacks: int
    """Number of distinct stacks drawn."""
    total: int
    """Sum of their weights."""
    def save(self, path: _Path) -> None:
        """Write the SVG."""
    def _repr_svg_(self) -> str: ...
    def _repr_html_(self) -> str: ...

def flamegraph_diff(
    before: Union[PerfData, _Source],
    after: Union[PerfData, _Source],
    *,
    normalize: bool = False,
    negate: bool = False,
    **options: Unpack[_GraphOptions],
) -> FlameGraph:
    """A differential flame graph: red where ``after`` grew, blue where it shrank (frames sized by
    ``after``, or by ``before`` with ``negate=True``)."""

def diff(
    baseline: Union[PerfData, _Source, Sequence[Union[PerfData, _Source]]],
    new: Union[PerfData, _Source, Sequence[Union[PerfData, _Source]]],
    *,
    sort: Optional[str] = None,
    confidence: float = 0.95,
    **options: Unpack[_FoldOptions],
) -> Any:
    """What changed between runs, as a pandas.DataFrame: each symbol's mean share on each side,
    the change (delta, percentage points) with its Welch t-interval (low, high; Bonferroni over
    the rows), significant, ratio, and each run's share (baseline_runs, new_runs)."""

def export_dataset(
    paths: Sequence[_Path],
    dataset: _Path,
    *,
    jobs: int = 0,
    stacks: bool = True,
    **options: Any,
) -> List[Dict[str, Any]]:
    """Export perf.data files (and directories of them) into one Hive-partitioned Parquet dataset,
    ``jobs`` at once, skipping those already in it: per input ``file``, ``hash``, ``status``,
    ``host``, ``date``, ``tables`` (name → rows), ``errors``."""

def dataset_folded(dataset: _Path, where: Optional[str] = None) -> Dict[str, int]:
    """The folded stacks (stack -> summed weight) of a dataset's recordings that the SQL predicate
    ``where`` selects (over host, date, comm, file, weight)."""

def dataset_flamegraph(
    dataset: _Path,
    where: Optional[str] = None,
    *,
    diff: Optional[Tuple[str, str]] = None,
    normalize: bool = False,
    negate: bool = False,
    **options: Unpack[_LookOptions],
) -> FlameGraph:
    """A flame graph of a dataset's recordings that ``where`` selects, or the differential graph
    of two selections ``diff=(BEFORE, AFTER)``."""

def read_samples(path: _Path, *, symbolize: bool = False, **options: Any) -> Any:
    """The samples of one recording as a ``pyarrow.Table`` with a ``file`` column."""

def read_stacks(path: _Path, **options: Any) -> Any:
    """The folded stacks of one recording as a ``pyarrow.Table``: comm, frames, weight, file."""

def dataset(
    source: Union[_Path, Sequence[_Path]],
    *,
    tables: Union[str, Sequence[str], None] = None,
    workers: Optional[int] = None,
) -> Any:
    """A dataset directory as ``pyarrow.dataset.Dataset`` (a dict of them for a list of tables), or
    perf.data paths / a glob as a ``pyarrow.RecordBatchReader`` of their samples."""
