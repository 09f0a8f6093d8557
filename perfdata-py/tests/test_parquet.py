"""Parquet export (``PerfData.to_parquet``, ``export(format="parquet")``): every file opened by its
real consumers (pyarrow, polars, DuckDB), row counts equal to ``perf report --stats``', sample values
equal to ``perf report -D``'s and tracepoint fields to ``perf script``'s; the columns are those of
``to_arrow()`` / ``tracepoint_table()``; an error leaves no file behind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import perfdata
import perfout
from test_arrow import u32
from test_samples import perf_dump
from test_tracepoints import perf_script

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FILES = ["fp.data", "dwarf.data", "sched.data", "block.data", "lost.data", "pipe-tp.data"]
FIXED_TABLES = ["samples", "mmaps", "comms", "tasks", "lost", "records"]


def perf_stats(name: str):
    """perf report --stats: (aggregated counts by record type, samples per event)."""
    total, per_event, event = {}, {}, None
    for line in (perfout.TESTDATA / (name + ".stats")).read_text().splitlines():
        m = re.match(r"^(\S.*) stats:$", line)
        if m:
            event = None if m.group(1) == "Aggregated" else m.group(1)
            continue
        m = re.match(r"^\s+(\w+) events:\s+(\d+)", line)
        if m:
            if event is None:
                total[m.group(1)] = int(m.group(2))
            elif m.group(1) == "SAMPLE":
                per_event[event] = int(m.group(2))
    return total, per_event


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """name → (the tables' paths, the directory)."""
    out = {}
    for name in FILES:
        d = tmp_path_factory.mktemp(name.replace(".", "_")) / "tables"
        with perfdata.open(perfout.TESTDATA / name) as f:
            out[name] = (f.to_parquet(d), d)
    return out


@pytest.mark.parametrize("name", FILES)
def test_tables_are_to_arrows(name, exported):
    """One definition of the columns: each file's schema (as pyarrow reads it) is to_arrow()'s."""
    paths, d = exported[name]
    assert sorted(p.name for p in d.iterdir()) == sorted(Path(p).name for p in paths.values())
    assert list(paths)[: len(FIXED_TABLES)] == FIXED_TABLES
    with perfdata.open(perfout.TESTDATA / name) as f:
        for table, path in paths.items():
            if table.startswith("tp."):
                ours = f.tracepoint_table(table[3:].replace(".", ":", 1))
            else:
                ours = f.to_arrow(table)
            got = pq.read_schema(path).remove_metadata()
            assert got == pa.table(ours).schema, table
            meta = pq.ParquetFile(path).metadata
            assert meta.num_rows == ours.num_rows, table
            for g in range(meta.num_row_groups):
                assert meta.row_group(g).column(0).compression == "ZSTD", table


@pytest.mark.parametrize("name", FILES)
def test_counts_are_perfs_in_pyarrow_polars_duckdb(name, exported):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    paths, _ = exported[name]
    total, per_event = perf_stats(name)
    if not total:
        # perf report --stats failed on this stream (pipe-tp.data); its dump and script did not
        text, failed = perf_dump(perfout.TESTDATA / name)
        assert not failed
        total = perfout.dump_record_types(text)
        with perfdata.open(perfout.TESTDATA / name) as f:
            names = {e.name for e in f.events if e.type_name == "tracepoint"}
        per_event = {e: len(perf_script(name, {e})) for e in names}
    want = {
        "samples": total.get("SAMPLE", 0),
        "mmaps": total.get("MMAP", 0) + total.get("MMAP2", 0),
        "comms": total.get("COMM", 0),
        "tasks": total.get("FORK", 0) + total.get("EXIT", 0),
        "lost": total.get("LOST", 0) + total.get("LOST_SAMPLES", 0),
    }
    tracepoints = {e: n for e, n in per_event.items() if ":" in e}
    for ev, n in tracepoints.items():
        want["tp." + ev.replace(":", ".", 1)] = n
    assert set(want) <= set(paths), set(want) - set(paths)
    for table, n in want.items():
        assert pq.read_table(paths[table]).num_rows == n, table
        assert pl.read_parquet(paths[table]).height == n, table
        assert duckdb.sql(f"select count(*) from read_parquet('{paths[table]}')").fetchall() == [(n,)], table
    # records.parquet: the count per record type perf counts
    rec = pl.read_parquet(paths["records"])
    by_type = dict(zip(rec["type"].to_list(), rec["count"].to_list()))
    for t, n in total.items():
        if t in ("SAMPLE", "MMAP", "MMAP2", "COMM", "FORK", "EXIT", "LOST"):
            assert by_type.get(t, 0) == n, t


@pytest.mark.parametrize("name", FILES)
def test_samples_are_perfs(name, exported):
    """Every sample's pid, tid, ip, period, callchain and time (pyarrow), and the first and last
    sample's (polars, DuckDB), equal perf report -D's."""
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    paths, _ = exported[name]
    text, failed = perf_dump(perfout.TESTDATA / name)
    assert not failed
    perf = perfout.parse_dump_samples(text)
    cols = pq.read_table(paths["samples"]).to_pydict()
    assert len(cols["time"]) == len(perf) > 0
    for i, p in enumerate(perf):
        assert (u32(p.pid), u32(p.tid)) == (cols["pid"][i], cols["tid"][i]), i
        assert (p.ip, p.period, p.prefix[-1]) == (cols["ip"][i], cols["period"][i], cols["time"][i]), i
        assert p.callchain == cols["callchain"][i], i
    df = pl.read_parquet(paths["samples"])
    rows = duckdb.sql(f"select time, pid, tid, ip from read_parquet('{paths['samples']}')").fetchall()
    for i in (0, -1):
        p = perf[i]
        want = (p.prefix[-1], u32(p.pid), u32(p.tid), p.ip)
        assert tuple(df.row(i)[:3]) + (df["ip"][i],) == (want[0], want[1], want[2], want[3])
        assert rows[i] == want


def test_sched_switch_fields_are_perf_scripts(exported):
    duckdb = pytest.importorskip("duckdb")
    paths, _ = exported["sched.data"]
    perf = perf_script("sched.data", {"sched:sched_switch"})
    rows = duckdb.sql(
        "select time, cpu, tid, prev_comm, prev_pid, prev_prio, next_comm, next_pid, next_prio "
        f"from read_parquet('{paths['tp.sched.sched_switch']}')"
    ).fetchall()
    assert len(rows) == len(perf) == 117
    for r, p in zip(rows, perf):
        m = re.match(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=\S+ ==> "
                     r"next_comm=(.*) next_pid=(\d+) next_prio=(\d+)$", p.text)  # fmt: skip
        assert m, p.text
        assert f"{r[0] // 1_000_000_000}.{r[0] // 1000 % 1_000_000:06d}" == p.time
        assert (r[1], r[2]) == (p.cpu, p.tid)
        assert r[3:] == (m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), int(m.group(5)), int(m.group(6)))


def test_block_fields_are_perf_scripts(exported):
    pl = pytest.importorskip("polars")
    paths, _ = exported["block.data"]
    perf = perf_script("block.data", {"block:block_rq_issue"})
    df = pl.read_parquet(paths["tp.block.block_rq_issue"])
    assert df.height == len(perf) > 0
    for r, p in zip(df.iter_rows(named=True), perf):
        # 254,0 RA 8192 () 12581400 + 16 0x2,0,4 [sh]
        m = re.match(r"(\d+),(\d+) (\S+) (\d+) \(.*\) (\d+) \+ (\d+) \S+ \[(.*)\]$", p.text)
        assert m, p.text
        dev = (int(m.group(1)) << 20) | int(m.group(2))
        assert (r["dev"], r["rwbs"], r["bytes"]) == (dev, m.group(3), int(m.group(4)))
        assert (r["sector"], r["nr_sector"], r["comm"]) == (int(m.group(5)), int(m.group(6)), m.group(7))


def test_symbolized_samples_are_to_arrows(tmp_path):
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        paths = f.to_parquet(tmp_path / "t", symbolize=True, kernel=True)
        ours = pa.table(f.to_arrow("samples", symbolize=True, kernel=True))
    got = pq.read_table(paths["samples"])
    assert got.schema.remove_metadata() == ours.schema
    assert got.schema.field("frames").type == pa.list_(pa.dictionary(pa.int32(), pa.string()))
    for c in ("comm", "dso", "symbol", "frames"):
        assert got.column(c).to_pylist() == ours.column(c).to_pylist(), c


def test_export_format_parquet(tmp_path):
    with perfdata.open(perfout.TESTDATA / "sched.data") as f:
        assert f.export(tmp_path / "t", format="parquet", progress=True) is None
    names = sorted(p.name for p in (tmp_path / "t").iterdir())
    assert "tp.sched.sched_switch.parquet" in names and "samples.parquet" in names
    assert not [n for n in names if not n.endswith(".parquet")]


def test_an_error_leaves_no_file(tmp_path):
    # the directory cannot be made: a file is in the way
    (tmp_path / "file").write_text("x")
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        with pytest.raises(OSError, match="file"):
            f.to_parquet(tmp_path / "file" / "tables")
        # a table's name is taken by a non-empty directory: the files renamed before it go too
        d = tmp_path / "tables"
        (d / "lost.parquet").mkdir(parents=True)
        (d / "lost.parquet" / "keep").write_text("x")
        with pytest.raises(OSError, match="lost.parquet"):
            f.to_parquet(d)
    assert sorted(p.name for p in d.iterdir()) == ["lost.parquet"]
    with pytest.raises(TypeError, match="symbolize"):
        perfdata.open(perfout.TESTDATA / "fp.data").to_parquet(tmp_path / "x", kernel=True)
