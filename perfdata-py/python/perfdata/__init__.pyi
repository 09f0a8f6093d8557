"""Type stubs of the perfdata package (the classes are implemented in Rust, perfdata._perfdata)."""

import os
from typing import Any, BinaryIO, Dict, FrozenSet, Iterator, List, Literal, Optional, Tuple, Union, final

__all__ = [
    "ArrowTable",
    "Event",
    "Header",
    "PerfData",
    "PerfDataError",
    "Record",
    "RecordIterator",
    "Sample",
    "__version__",
    "open",
]

__version__: str

_Order = Literal["time", "file"]
_Table = Literal["samples", "mmaps", "comms", "tasks", "lost", "records"]
_Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]

@final
class PerfDataError(ValueError):
    """The input is not readable perf.data, or a part of it is damaged."""

    offset: Optional[int]
    """Byte offset of the damaged structure in the file (None when unknown)."""
    record_type: Optional[str]
    """perf's name of the record being read (e.g. 'SAMPLE'), or None."""

def open(source: _Source, *, order: _Order = "time", stream: bool = False) -> PerfData:
    """Open a perf.data recording (a path, its bytes, or a binary file object with pipe data)."""

@final
class Header:
    """The recording's metadata. Attributes are None when the file lacks the feature."""

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
    format: Literal["file", "pipe", "directory"]
    endian: Literal["little", "big"]
    data_offset: int
    data_size: int
    def to_dict(self) -> Dict[str, Any]:
        """All attributes as a dict."""

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
    def __getattr__(self, name: str) -> Any: ...

@final
class Sample:
    """One sample; fields the event does not sample are None."""

    type: Literal["SAMPLE"]
    offset: int
    misc: int
    size: int
    cpumode: Literal["unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user", "other"]
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
    def to_dict(self) -> Dict[str, Any]:
        """The sample's present fields."""

@final
@final
class RecordIterator(Iterator[Any]):
    """Streams records (Record or Sample objects) from the file."""

    def __iter__(self) -> RecordIterator: ...
    def __next__(self) -> Any: ...

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
    def to_pandas(self) -> Any:
        """As a pandas.DataFrame."""
    def to_polars(self) -> Any:
        """As a polars.DataFrame."""
    def __len__(self) -> int: ...

@final
class PerfData:
    """An opened recording."""

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
        self, table: _Table = "samples", *, order: Optional[_Order] = None, stack_data: bool = False
    ) -> ArrowTable:
        """Build an Arrow table."""
    def to_pandas(
        self, table: _Table = "samples", *, order: Optional[_Order] = None, stack_data: bool = False
    ) -> Any:
        """Build a pandas.DataFrame."""
    def to_polars(
        self, table: _Table = "samples", *, order: Optional[_Order] = None, stack_data: bool = False
    ) -> Any:
        """Build a polars.DataFrame."""
    def close(self) -> None:
        """Release the file."""
    def __enter__(self) -> PerfData: ...
    def __exit__(self, *args: object) -> bool: ...
