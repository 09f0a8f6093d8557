"""A fleet as one dataset: 200 recordings made by perfdata's writer from committed ones (ten
hostnames, seven dates; ``perfout.make_fleet``: ``PerfData.write`` as perfdata-cli's make-fleet
example writes them) plus three damaged files, exported with ``perfdata.export_dataset(jobs=2)``. The samples per host
equal the sum of perf's ``perf report --stats`` SAMPLE counts of that host's recordings; DuckDB
over the dataset gives the same top-10 functions per host as a plain loop over the files
(``PerfData.folded()`` per file); exporting again appends nothing; the damaged files are in the
``errors`` table."""

import subprocess
from collections import defaultdict

import perfdata
import perfout
import pytest

duckdb = pytest.importorskip("duckdb")


perf_samples = perfout.perf_samples


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    d = tmp_path_factory.mktemp("fleet")
    members, damaged = [], []
    for path, source, host, date in perfout.make_fleet(d / "in", 200):
        (damaged if host == "-" else members).append((path, source, host, date))
    done = perfdata.export_dataset([d / "in"], d / "ds", jobs=2)
    return d, members, damaged, done


def test_rows_per_host_are_perfs_counts(fleet):
    d, members, damaged, done = fleet
    assert len(members) == 200 and len(done) == 203
    want = defaultdict(int)
    for _, source, host, _ in members:
        want[host] += perf_samples(source)
    ds = perfdata.dataset(d / "ds")
    hosts = ds.to_table(columns=["host"]).column("host").to_pylist()
    got = defaultdict(int)
    for h in hosts:
        if h in want:
            got[h] += 1
    assert got == want
    assert sum(1 for h in hosts if h not in want) > 0, "the damaged files keep the samples before the damage"


def top10(sums):
    """host -> [(function, weight)] of the ten heaviest, ties by name."""
    return {h: sorted(fs.items(), key=lambda kv: (-kv[1], kv[0]))[:10] for h, fs in sums.items()}


@pytest.fixture(scope="module")
def loop_top10(fleet):
    """The per-host top-10 leaf functions of a plain loop over the files (PerfData.folded())."""
    _, members, _, _ = fleet
    loop = defaultdict(lambda: defaultdict(int))
    for path, _, host, _ in members:
        for stack, w in perfdata.open(path).folded().items():
            loop[host][stack.split(";")[-1]] += w
    return top10(loop)


def duckdb_top10(d):
    """The per-host top-10 leaf functions, by DuckDB over the dataset's stacks table."""
    rows = duckdb.sql(
        f"""
        with leaf as (
            select host, frames[len(frames)] as fn, sum(weight) as w
            from read_parquet('{d}/ds/stacks/**/*.parquet', hive_partitioning = true)
            where host like 'host%' and len(frames) > 0
            group by all)
        select host, fn, w from (
            select *, row_number() over (partition by host order by w desc, fn) as r from leaf)
        where r <= 10 order by host, r
        """
    ).fetchall()
    got = defaultdict(list)
    for host, fn, w in rows:
        got[host].append((fn, int(w)))
    return dict(got)


def test_duckdb_top_functions_per_host_equal_a_loop(fleet, loop_top10):
    d, *_ = fleet
    assert duckdb_top10(d) == loop_top10
    assert len(loop_top10) == 10


def test_damaged_files_are_in_errors(fleet):
    d, _, damaged, done = fleet
    errors = duckdb.sql(f"select distinct file from read_parquet('{d}/ds/errors/*.parquet') order by file").fetchall()
    assert [e[0] for e in errors] == sorted(p for p, *_ in damaged)
    status = {x["file"]: x["status"] for x in done}
    assert sorted(status[p] for p, *_ in damaged) == ["damaged", "damaged", "failed"]
    assert sum(1 for s in status.values() if s == "ok") == 200


def test_export_again_appends_nothing(fleet):
    d, *_ = fleet
    before = sorted((p, p.stat().st_mtime_ns) for p in (d / "ds").rglob("*") if p.is_file())
    again = perfdata.export_dataset([d / "in"], d / "ds", jobs=2)
    assert {x["status"] for x in again} == {"skipped"}
    after = sorted((p, p.stat().st_mtime_ns) for p in (d / "ds").rglob("*") if p.is_file())
    assert before == after


def test_read_samples_is_a_plain_function(fleet):
    d, members, _, _ = fleet
    path, source, _, _ = members[0]
    t = perfdata.read_samples(path)
    assert t.num_rows == perf_samples(source)
    assert set(t.column("file").to_pylist()) == {path}
    reader = perfdata.dataset([p for p, *_ in members[:20]], workers=2)
    assert reader.read_all().num_rows == sum(perf_samples(s) for _, s, _, _ in members[:20])


def _stacks_with_host(path, host):
    t = perfdata.read_stacks(path).to_pandas()
    t["host"] = host
    t["fn"] = [f[-1] if len(f) else None for f in t["frames"]]
    return t[["host", "fn", "weight"]]


def test_dask_distributed_top_functions_equal_duckdb_and_a_loop(fleet, loop_top10):
    """The same per-host top-10 with Dask on a LocalCluster of 2 worker processes (started and
    stopped here), each calling read_stacks on its share of the files."""
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    d, members, _, _ = fleet
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            df = dd.from_map(_stacks_with_host, [p for p, *_ in members], [h for _, _, h, _ in members])
            sums = df.dropna().groupby(["host", "fn"])["weight"].sum().compute()
    got = defaultdict(dict)
    for (host, fn), w in sums.items():
        got[host][fn] = int(w)
    assert top10(got) == loop_top10
    assert top10(got) == duckdb_top10(d)


# Predicates that mean the same in DuckDB and in perfdata's WHERE subset.
WHERE = [
    "host = 'host03'",
    "host IN ('host01', 'host02') AND date >= '2026-11-03'",
    "NOT (host <> 'host05' OR date = '2026-11-02')",
    "comm LIKE 'py%' OR weight > 1000000",
    "comm NOT IN ('spin', 'sh') AND \"host\" < 'host05'",
    "date LIKE '%-0_' and not comm = 'spin' and weight >= 200000",
    "file LIKE '%/host07-%' OR host = 'vm'",
    "host = 'nohost'",
]


@pytest.mark.parametrize("where", WHERE)
def test_dataset_folded_where_equals_duckdb(fleet, where):
    """dataset_folded(where) (and ``perfdata flamegraph --from-dataset --where --folded``) is
    DuckDB's ``SELECT stack, sum(weight) FROM stacks WHERE …`` over the same dataset."""
    d, members, _, _ = fleet
    rows = duckdb.sql(
        f"""
        select comm || case when len(frames) > 0 then ';' || array_to_string(frames, ';') else '' end,
               sum(weight)
        from read_parquet('{d}/ds/stacks/**/*.parquet', hive_partitioning = true,
                          hive_types_autocast = false)
        where {where}
        group by all
        """
    ).fetchall()
    want = {s: int(w) for s, w in rows}
    got = perfdata.dataset_folded(d / "ds", where)
    assert got == want
    assert list(got) == sorted(got, key=lambda s: s.encode()), "in the tools' byte order"
    if where != "host = 'nohost'":
        assert want, "the predicate selects something"
    cli = perfout.cargo_built("perfdata")
    if cli is not None:
        out = subprocess.run(
            [cli, "flamegraph", "--from-dataset", d / "ds", "--where", where, "--folded"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert out == "".join(f"{s} {w}\n" for s, w in got.items())


def test_dataset_flamegraph_is_the_graph_of_the_loop(fleet):
    """A partition predicate selects whole recordings: the graph of host03's stacks is the graph
    of the sum of PerfData.folded() over host03's files; diff= is flamegraph_diff's logic."""
    d, members, _, _ = fleet
    loop = defaultdict(int)
    for path, _, host, _ in members:
        if host == "host03":
            for stack, w in perfdata.open(path).folded().items():
                loop[stack] += w
    assert perfdata.dataset_folded(d / "ds", "host = 'host03'") == dict(loop)
    g = perfdata.dataset_flamegraph(d / "ds", "host = 'host03'")
    assert (g.stacks, g.total) == (len(loop), sum(loop.values()))
    assert "where host = " in g.svg and "host03" in g.svg
    diff = perfdata.dataset_flamegraph(d / "ds", diff=("host = 'host03'", "host = 'host04'"))
    after = perfdata.dataset_folded(d / "ds", "host = 'host04'")
    assert (diff.stacks, diff.total) == (len(after), sum(after.values()))
    with pytest.raises(ValueError, match="column 1: unknown column `hots`"):
        perfdata.dataset_folded(d / "ds", "hots = 'a'")
    with pytest.raises(ValueError, match="expected a string"):
        perfdata.dataset_flamegraph(d / "ds", "host = ")


def _java_major():
    """The major version of the `java` on PATH, or None."""
    import re
    import shutil

    java = shutil.which("java")
    if java is None:
        return None
    out = subprocess.run([java, "-version"], capture_output=True, text=True)
    m = re.search(r'version "(\d+)', out.stderr + out.stdout)
    return int(m.group(1)) if m else None


def test_spark_map_in_arrow_reads_samples(fleet, monkeypatch):
    """Spark (local[2]) calls read_samples on its Python workers through ``mapInArrow``: the
    samples per file are perf's ``perf report --stats`` counts. Optional: pyspark is not in
    test.sh's dependencies (a 456 MB download), and it needs Java 17+."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (optional: not in test.sh's PY_TEST_DEPS)")
    java = _java_major()
    if java is None or java < 17:
        pytest.skip(f"pyspark needs Java 17+ (found: {java or 'no java'})")
    import sys

    from pyspark.sql import SparkSession

    _, members, _, _ = fleet
    chosen = members[:40]
    # The workers run this interpreter (the one that imports perfdata), not PATH's python3.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("perfdata-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )

    def read(batches):
        import pyarrow as pa

        import perfdata as pd_

        for b in batches:
            for path in b.column("path").to_pylist():
                t = pd_.read_samples(path)
                yield pa.RecordBatch.from_pydict(
                    {"file": t.column("file").combine_chunks(), "pid": t.column("pid").cast(pa.int64()).combine_chunks()}
                )

    try:
        paths = spark.createDataFrame([(p,) for p, *_ in chosen], "path string").repartition(2)
        counts = {f: n for f, n in paths.mapInArrow(read, "file string, pid long").groupBy("file").count().collect()}
    finally:
        spark.stop()
    want = {p: perf_samples(s) for p, s, *_ in chosen if perf_samples(s) > 0}
    assert counts == want
