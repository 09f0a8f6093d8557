"""A fleet as one dataset: 200 recordings made by perfdata's writer from committed ones (ten
hostnames, seven dates; ``make-fleet``, the example of perfdata-cli that ``cargo test`` builds)
plus three damaged files, exported with ``perfdata.export_dataset(jobs=2)``. The samples per host
equal the sum of perf's ``perf report --stats`` SAMPLE counts of that host's recordings; DuckDB
over the dataset gives the same top-10 functions per host as a plain loop over the files
(``PerfData.folded()`` per file); exporting again appends nothing; the damaged files are in the
``errors`` table."""

import os
import subprocess
from collections import defaultdict
from pathlib import Path

import perfdata
import perfout
import pytest

duckdb = pytest.importorskip("duckdb")


def make_fleet_binary():
    target = Path(os.environ.get("CARGO_TARGET_DIR", perfout.REPO / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "examples" / "make-fleet"
        if p.exists():
            return p
    raise AssertionError(f"make-fleet is not built under {target} (cargo test --release builds it)")


def perf_samples(source):
    text = (perfout.TESTDATA / f"{source}.stats").read_text()
    line = next(l for l in text.splitlines() if l.strip().startswith("SAMPLE events:"))
    return int(line.split()[2])


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    d = tmp_path_factory.mktemp("fleet")
    out = subprocess.run(
        [make_fleet_binary(), perfout.TESTDATA, d / "in", "200"], check=True, capture_output=True, text=True
    ).stdout
    members, damaged = [], []
    for line in out.splitlines():
        path, source, host, date = line.split()
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


def test_duckdb_top_functions_per_host_equal_a_loop(fleet):
    d, members, _, _ = fleet
    loop = defaultdict(lambda: defaultdict(int))
    for path, _, host, _ in members:
        for stack, w in perfdata.open(path).folded().items():
            loop[host][stack.split(";")[-1]] += w
    want = {
        h: sorted(fs.items(), key=lambda kv: (-kv[1], kv[0]))[:10] for h, fs in loop.items()
    }
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
    assert dict(got) == want
    assert len(want) == 10


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


def test_dask_distributed_top_functions_equal_a_loop(fleet):
    """The same per-host top-10 with Dask on a LocalCluster of 2 worker processes, each calling
    read_stacks on its share of the files."""
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    _, members, _, _ = fleet
    loop = defaultdict(lambda: defaultdict(int))
    for path, _, host, _ in members:
        for stack, w in perfdata.open(path).folded().items():
            loop[host][stack.split(";")[-1]] += w
    want = {h: sorted(fs.items(), key=lambda kv: (-kv[1], kv[0]))[:10] for h, fs in loop.items()}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            df = dd.from_map(_stacks_with_host, [p for p, *_ in members], [h for _, _, h, _ in members])
            sums = df.dropna().groupby(["host", "fn"])["weight"].sum().compute()
    got = defaultdict(list)
    for (host, fn), w in sums.items():
        got[host].append((fn, int(w)))
    got = {h: sorted(v, key=lambda kv: (-kv[1], kv[0]))[:10] for h, v in got.items()}
    assert got == want
