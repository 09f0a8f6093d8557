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
readable, listed in :attr:`PerfData.diagnostics` and said once per file object as a
:class:`PerfDataWarning` after the call that met them (``open(path, strict=True)`` makes them a
:class:`PerfDataError` instead). pandas, pyarrow and polars are optional; they are imported only by
the methods that return their objects.
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
    PerfDataWarning,
    Picture,
    Record,
    RecordIterator,
    Sample,
    AnalysisResult,
    SchedTimeline,
    ScriptIterator,
    __version__,
    dataset_flamegraph,
    dataset_folded,
    diff,
    export_dataset,
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
    "PerfDataWarning",
    "Picture",
    "Record",
    "RecordIterator",
    "Sample",
    "AnalysisResult",
    "SchedTimeline",
    "ScriptIterator",
    "__version__",
    "dataset",
    "dataset_flamegraph",
    "dataset_folded",
    "diff",
    "export_dataset",
    "flamegraph_diff",
    "open",
    "read_samples",
    "read_stacks",
]


def read_samples(path, *, symbolize=False, **options):
    """The samples of one recording as a ``pyarrow.Table`` (``open(path).to_arrow("samples", ...)``)
    with a ``file`` column (the path): a plain function of a path, so that distributed engines can
    call it on their workers, e.g. ``dask.dataframe.from_map(read_samples_pandas, paths)``, Ray
    Data's ``map_batches`` or Spark's ``mapInArrow``. Requires pyarrow.

    Args:
        path: a perf.data file.
        symbolize: add ``comm``, ``dso``, ``symbol`` and ``frames`` (see ``PerfData.to_arrow``).
        **options: ``to_arrow()``'s other options.

    Example:
        >>> t = perfdata.read_samples("perf.data")
        >>> t.num_rows, t.column("file")[0].as_py()
        (441, 'perf.data')
    """
    import pyarrow as pa

    with open(path) as f:
        t = pa.table(f.to_arrow("samples", symbolize=symbolize, **options))
    return t.append_column("file", pa.array([str(path)] * t.num_rows, pa.string()))


def read_stacks(path, **options):
    """The folded stacks of one recording as a ``pyarrow.Table`` with the columns of the dataset's
    ``stacks`` table (see :func:`export_dataset`): ``comm``, ``frames`` (``list<string>``, root
    first), ``weight`` and ``file``. A plain function of a path, like :func:`read_samples`.

    Args:
        path: a perf.data file.
        **options: ``folded()``'s options (the root frame is always the comm).

    Example:
        >>> t = perfdata.read_stacks("perf.data")
        >>> sorted(set(t.column("comm").to_pylist()))
        ['ls', 'sh']
    """
    import pyarrow as pa

    options["root"] = "comm"
    with open(path) as f:
        stacks = f.folded(**options)
    comm, frames, weight = [], [], []
    for stack, w in stacks.items():
        parts = stack.split(";")
        comm.append(parts[0])
        frames.append(parts[1:])
        weight.append(w)
    return pa.table(
        {
            "comm": pa.array(comm, pa.string()),
            "frames": pa.array(frames, pa.list_(pa.string())),
            "weight": pa.array(weight, pa.uint64()),
            "file": pa.array([str(path)] * len(comm), pa.string()),
        }
    )


def dataset(source, *, tables=None, workers=None):
    """A fleet of recordings as Arrow data.

    ``source`` a dataset written by :func:`export_dataset` (or ``perfdata export --format
    parquet ... -o DATASET``): a ``pyarrow.dataset.Dataset`` of the table ``tables`` (default
    ``"samples"``) with its ``host`` and ``date`` partition columns, or a dict of them when
    ``tables`` is a list (``host`` and ``date`` are strings; ``recordings`` and ``errors`` are not
    partitioned). ``source`` perf.data paths (a list, or a glob pattern): a
    ``pyarrow.RecordBatchReader`` of :func:`read_samples` of each file (the union of their
    columns), read by ``workers`` threads (default: one per core; the files are read without the
    GIL), in the order given. That form holds every table in memory: for more than fits, export
    a dataset.

    Args:
        source: a dataset directory, a glob pattern or a list of perf.data paths.
        tables: the table name (or a list of names) of a dataset directory.
        workers: threads reading perf.data files.

    Example:
        >>> _ = perfdata.export_dataset(["perf.data"], "fleet")
        >>> ds = perfdata.dataset("fleet")
        >>> ds.count_rows(), "host" in ds.schema.names
        (441, True)
        >>> perfdata.dataset(["perf.data", "perf.data"], workers=2).read_all().num_rows
        882
    """
    import os

    import pyarrow as pa
    import pyarrow.dataset as pds

    if isinstance(source, (str, os.PathLike)) and os.path.isdir(os.path.join(source, "recordings")):
        names = [tables or "samples"] if not isinstance(tables, (list, tuple)) else list(tables)
        out = {}
        for name in names:
            path = os.path.join(source, name)
            files = sorted(
                os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith(".parquet")
            )
            schema = pa.unify_schemas([_pq_schema(f) for f in files]) if files else pa.schema([])
            parts = pa.schema([("host", pa.string()), ("date", pa.string())])
            if name not in ("recordings", "errors"):
                schema = pa.unify_schemas([schema, parts])
            out[name] = pds.dataset(
                files,
                schema=schema,
                format="parquet",
                partitioning=pds.partitioning(parts, flavor="hive"),
                partition_base_dir=path,
            )
        return out if isinstance(tables, (list, tuple)) else out[names[0]]
    if isinstance(source, (str, os.PathLike)):
        import glob

        paths = sorted(glob.glob(str(source), recursive=True))
    else:
        paths = [str(p) for p in source]
    if not paths:
        raise FileNotFoundError(f"no perf.data files in {source!r}")
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(read_samples, paths))
    # Recordings sample different fields: the union of their columns, missing ones null.
    return pa.concat_tables(parts, promote_options="default").to_reader()


def _pq_schema(path):
    import pyarrow.parquet as pq

    return pq.read_schema(path)
