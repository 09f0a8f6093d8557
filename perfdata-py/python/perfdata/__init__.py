"""Read Linux ``perf.data`` files: typed objects to explore, Arrow columns to analyse.

>>> import perfdata
>>> with perfdata.open("perf.data") as f:                    # doctest: +SKIP
...     print(f.header.hostname, [e.name for e in f.events])
...     for s in f.samples():
...         print(s.time, s.pid, s.tid, hex(s.ip), s.callchain)
...     df = f.to_pandas("samples")                          # or: polars.DataFrame(f.to_arrow())
...     switches = f.tracepoint_table("sched:sched_switch")  # one typed column per field
...     f.flamegraph().save("flame.svg")                     # or show it inline in Jupyter
...     lat = f.sched_latency().to_pandas()                  # perf sched latency, as a table

Everything is read by a Rust library (perfdata-core) that never crashes on damaged input: problems
are raised as :class:`PerfDataError` (a ``ValueError``) or, where the rest of the file is still
readable, listed in :attr:`PerfData.diagnostics`. pandas, pyarrow and polars are optional; they are
imported only by the methods that return their objects.
"""

from ._perfdata import (
    ArrowTable,
    BuildId,
    Event,
    FlameGraph,
    Header,
    Histogram,
    PerfData,
    PerfDataError,
    Picture,
    Record,
    RecordIterator,
    Sample,
    AnalysisResult,
    SchedTimeline,
    __version__,
    flamegraph_diff,
    open,
)

__all__ = [
    "ArrowTable",
    "BuildId",
    "Event",
    "FlameGraph",
    "Header",
    "Histogram",
    "PerfData",
    "PerfDataError",
    "Picture",
    "Record",
    "RecordIterator",
    "Sample",
    "AnalysisResult",
    "SchedTimeline",
    "__version__",
    "flamegraph_diff",
    "open",
]
