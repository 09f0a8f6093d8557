"""Arrow tables (through pyarrow, pandas, polars, DuckDB) have the right columns and types, and their
rows equal what ``perf report -D`` printed."""

from __future__ import annotations

import re

import pytest

import perfdata
import perfout
from test_samples import perf_dump

FIXED = ["time", "pid", "tid", "cpu", "ip", "period", "addr", "event", "callchain", "cpumode"]


def u32(v: int) -> int:
    """perf prints pid/tid with %d: -1 is our u32 4294967295."""
    return v & 0xFFFFFFFF


def test_samples_table_pyarrow(recording):
    pa = pytest.importorskip("pyarrow")
    text, failed = perf_dump(recording)
    perf = perfout.parse_dump_samples(text)
    with perfdata.open(recording) as f:
        t = f.to_arrow("samples")
        sample_types = set().union(*(e.sample_type for e in f.events)) if f.events else set()
    table = pa.table(t)
    assert table.column_names[: len(FIXED)] == FIXED
    assert t.column_names == table.column_names and t.num_rows == table.num_rows
    sch = table.schema
    for name in ("time", "ip", "period", "addr"):
        assert sch.field(name).type == pa.uint64()
    for name in ("pid", "tid", "cpu"):
        assert sch.field(name).type == pa.uint32()
    assert pa.types.is_dictionary(sch.field("event").type)
    assert sch.field("event").type.value_type == pa.string()
    assert sch.field("callchain").type == pa.large_list(pa.uint64())
    # one column per other sample field the events have
    for bits, col in [({"ID"}, "id"), ({"STREAM_ID"}, "stream_id"), ({"RAW"}, "raw"),
                      ({"WEIGHT", "WEIGHT_STRUCT"}, "weight"), ({"DATA_SRC"}, "data_src"),
                      ({"READ"}, "read_value"), ({"BRANCH_STACK"}, "branch_from"),
                      ({"REGS_USER"}, "regs_user"), ({"REGS_INTR"}, "regs_intr"),
                      ({"PHYS_ADDR"}, "phys_addr"), ({"CGROUP"}, "cgroup"),
                      ({"IDENTIFIER"}, "identifier"), ({"TRANSACTION"}, "transaction"),
                      ({"STACK_USER"}, "stack_user_size"), ({"AUX"}, "aux")]:  # fmt: skip
        assert (col in table.column_names) == bool(bits & sample_types), col
    if failed:
        assert table.num_rows >= len(perf)
    else:
        assert table.num_rows == len(perf)
    cols = table.to_pydict()
    for i, p in enumerate(perf):
        assert u32(p.pid) == (cols["pid"][i] if cols["pid"][i] is not None else u32(-1)), i
        assert u32(p.tid) == (cols["tid"][i] if cols["tid"][i] is not None else u32(-1)), i
        assert p.ip == (cols["ip"][i] or 0), i
        assert p.period == cols["period"][i], i
        assert p.callchain == cols["callchain"][i], i
        if "TIME" in sample_types:
            assert p.prefix[-1] == cols["time"][i], i
    # the optional fields perf printed below each sample
    optional = [c for c in ("regs_user", "regs_intr", "data_src", "phys_addr", "weight",
                            "stack_user_dyn_size", "branch_from", "branch_to", "read_value", "read_id")
                if c in cols]  # fmt: skip
    checked = 0
    for i, p in enumerate(perf):
        got = p.fields()
        for c in optional:
            if c in got:
                ours = cols[c][i]
                if c == "stack_user_dyn_size" and cols["stack_user_size"][i] == 0:
                    ours = 0  # no dump, no dyn_size: perf shows size 0
                if c == "weight" and "WEIGHT_STRUCT" in sample_types:
                    ours &= 0xFFFFFFFF  # perf prints var1_dw of the struct first
                assert ours == got[c], (i, c)
                checked += 1
    if optional and perf and not failed:
        assert checked, f"perf printed none of {optional}"
    names = [e.name for e in f.events]
    assert all(n in names for n in set(cols["event"]) if n is not None)


def comm_rows(lines):
    out = []
    for r in lines:
        if r.type == "COMM":
            m = re.match(r"^( exec)?: (.*):(-?\d+)/(-?\d+)$", r.text)
            out.append((m.group(2), u32(int(m.group(3))), u32(int(m.group(4))), bool(m.group(1))))
    return out


def task_rows(lines):
    out = []
    for r in lines:
        if r.type in ("FORK", "EXIT"):
            m = re.match(r"^\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)", r.text)
            pid, tid, ppid, ptid = (u32(int(x)) for x in m.groups())
            out.append((r.type, pid, tid, ppid, ptid))
    return out


_MMAP = re.compile(
    r"^ (-?\d+)/(-?\d+): \[(0x[0-9a-f]+|0)\((0x[0-9a-f]+|0)\) @ (0x[0-9a-f]+|0)(?: [^\]]*)?\]: \S+ (.*)$"
)


def mmap_rows(lines):
    out = []
    for r in lines:
        if r.type in ("MMAP", "MMAP2"):
            m = _MMAP.match(r.text)
            pid, tid = u32(int(m.group(1))), u32(int(m.group(2)))
            addr, length, pgoff = int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16)
            out.append((r.type, pid, tid, addr, length, pgoff, m.group(6)))
    return out


def lost_rows(lines):
    out = []
    for r in lines:
        if r.type == "LOST":
            m = re.match(r"^: id:(\d+): lost:(\d+)", r.text)
            out.append(("LOST", int(m.group(1)), int(m.group(2))))
        elif r.type == "LOST_SAMPLES":
            m = re.match(r"^: id:\d+: lost samples :(\d+)", r.text)
            out.append(("LOST_SAMPLES", None, int(m.group(1))))
    return out


def test_small_tables_match_perf_dump(recording):
    pa = pytest.importorskip("pyarrow")
    text, failed = perf_dump(recording)
    lines = perfout.parse_dump_records(text)
    with perfdata.open(recording) as f:
        comms = pa.table(f.to_arrow("comms")).to_pydict()
        tasks = pa.table(f.to_arrow("tasks")).to_pydict()
        mmaps = pa.table(f.to_arrow("mmaps")).to_pydict()
        lost = pa.table(f.to_arrow("lost")).to_pydict()
        counts = pa.table(f.to_arrow("records")).to_pydict()
    ours = {
        "comms": list(zip(comms["comm"], comms["pid"], comms["tid"], comms["exec"])),
        "tasks": list(zip(tasks["type"], tasks["pid"], tasks["tid"], tasks["ppid"], tasks["ptid"])),
        "mmaps": list(zip(mmaps["type"], mmaps["pid"], mmaps["tid"], mmaps["addr"], mmaps["len"],
                          mmaps["pgoff"], mmaps["filename"])),  # fmt: skip
        "lost": list(zip(lost["type"], lost["id"], lost["lost"])),
    }
    perf = {
        "comms": comm_rows(lines),
        "tasks": task_rows(lines),
        "mmaps": mmap_rows(lines),
        "lost": lost_rows(lines),
    }
    for name in ours:
        if failed:
            assert ours[name][: len(perf[name])] == perf[name], name
        else:
            assert ours[name] == perf[name], name
    by_type = dict(zip(counts["type"], counts["count"]))
    assert sum(by_type.values()) == sum(counts["count"])
    assert by_type.get("SAMPLE", 0) >= sum(1 for r in lines if r.type == "SAMPLE")


def test_pandas(committed):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    text, _ = perf_dump(committed)
    perf = perfout.parse_dump_samples(text)
    with perfdata.open(committed) as f:
        df = f.to_pandas()
        if not perf:
            assert len(df) == 0
            return
        assert list(df.columns[: len(FIXED)]) == FIXED
        assert str(df["ip"].dtype) == "UInt64"  # exact 64-bit addresses, nullable
        assert isinstance(df["event"].dtype, pd.CategoricalDtype)
        assert df["ip"].tolist()[: len(perf)] == [p.ip for p in perf]
        # Arrow-backed list column (pd.ArrowDtype): a missing callchain is pd.NA.
        assert isinstance(df["callchain"].dtype, pd.ArrowDtype)
        got = [None if c is pd.NA else [int(x) for x in c] for c in df["callchain"][: len(perf)]]
        assert got == [p.callchain for p in perf]
        # dtypes="object": pyarrow's own conversion of those columns (numpy arrays, None).
        obj = f.to_pandas(dtypes="object")
        got = [None if c is None else [int(x) for x in c] for c in obj["callchain"][: len(perf)]]
        assert got == [p.callchain for p in perf]
        assert obj["ip"].tolist() == df["ip"].tolist()
        with pytest.raises(ValueError, match="dtypes must be 'arrow' or 'object'"):
            f.to_pandas(dtypes="numpy")
        mm = f.to_pandas("mmaps")
        assert {"addr", "len", "pgoff", "filename", "pid"} <= set(mm.columns)


def test_polars(committed):
    pl = pytest.importorskip("polars")
    text, _ = perf_dump(committed)
    perf = perfout.parse_dump_samples(text)
    with perfdata.open(committed) as f:
        t = f.to_arrow()
        df = pl.DataFrame(t)
        assert df.columns[: len(FIXED)] == FIXED
        assert df.schema["ip"] == pl.UInt64 and df.schema["pid"] == pl.UInt32
        assert df.schema["callchain"] == pl.List(pl.UInt64)
        assert df.schema["event"] in (pl.Categorical, pl.Enum) or isinstance(
            df.schema["event"], (pl.Categorical, pl.Enum)
        )
        assert df.height == t.num_rows
        assert df["ip"].to_list()[: len(perf)] == [p.ip for p in perf]
        # from_arrow reads a stream as a struct Series (polars' rule for stream objects)
        s = pl.from_arrow(t)
        as_frame = s.struct.unnest() if isinstance(s, pl.Series) else s
        assert as_frame.equals(df)
        assert f.to_polars().equals(df)


def test_duckdb(quickstart):
    duckdb = pytest.importorskip("duckdb")
    perf = perfout.parse_dump_samples(quickstart.with_name("quickstart.data.dump").read_text())
    t = perfdata.open(quickstart).to_arrow()  # noqa: F841  (found by DuckDB's replacement scan)
    n, total = duckdb.sql("select count(*), sum(period) from t").fetchall()[0]
    assert n == len(perf) and total == sum(p.period for p in perf)


def test_arrow_table_object(quickstart):
    f = perfdata.open(quickstart)
    t = f.to_arrow()
    assert len(t) == t.num_rows == f.sample_count
    assert t.name == "samples" and t.nbytes > 0
    assert dict(t.schema)["ip"] == "UInt64"
    assert "samples" in repr(t) and "ip" in repr(t)
    capsule = t.__arrow_c_stream__()
    assert type(capsule).__name__ == "PyCapsule"
    with pytest.raises(ValueError):
        f.to_arrow("nope")
    pa = pytest.importorskip("pyarrow")
    # exporting twice gives the same data
    assert pa.table(t).equals(pa.table(t))
    # stack bytes only on request
    assert "stack_user" not in t.column_names


def test_empty_tables_have_their_columns(quickstart):
    pa = pytest.importorskip("pyarrow")
    lost = pa.table(perfdata.open(quickstart).to_arrow("lost"))
    assert lost.num_rows == 0
    assert lost.column_names == ["type", "time", "cpu", "pid", "tid", "id", "lost"]


@pytest.mark.parametrize(
    "name,options",
    [
        ("fp.data", {}),
        ("fp.data", {"compat": "perf-script-py"}),
        ("dwarf.data", {}),
        ("dwarf.data", {"inline": False}),
        ("dwarf.data", {"compat": "perf-script-py", "inline": True}),
        ("sysw.data", {}),
        ("sysw.data", {"compat": "perf-script-py", "kernel": True}),
    ],
)
def test_symbolized_columns_fold_like_folded(name, options):
    """to_arrow(symbolize=True): grouping the rows by (comm, frames) with folded()'s weights gives
    exactly folded()'s stacks, with the same options."""
    import collections

    f = perfdata.open(perfout.TESTDATA / name)
    pd = pytest.importorskip("pandas")
    df = f.to_pandas(symbolize=True, **options)
    assert {"comm", "dso", "symbol", "frames"} <= set(df.columns)
    folded = f.folded(**options)
    by_samples = options.get("compat") == "perf-script-py"
    mine = collections.Counter()
    for comm, frames, period in zip(df["comm"], df["frames"], df["period"]):
        if frames is None or frames is pd.NA:
            continue
        key = ";".join([comm, *reversed(list(frames))])
        mine[key] += 1 if by_samples else int(period)
    assert dict(mine) == folded
    # dictionary-encoded: few distinct names behind many rows
    t = f.to_arrow(symbolize=True, **options).to_pyarrow()
    assert str(t.schema.field("symbol").type).startswith("dictionary")


def test_symbolized_leaf_is_the_samples_ip():
    df = perfdata.open(perfout.TESTDATA / "fp.data").to_pandas(symbolize=True)
    with_frames = df[df.frames.notna()]
    # the leaf frame names the sample's ip, as the symbol column does (when it has a symbol)
    named = with_frames[with_frames.symbol.notna()]
    assert (named.symbol.astype(str) == named.frames.map(lambda f: f[0])).mean() > 0.95
    assert set(df.dso.dropna()) >= {"[kernel.kallsyms]"}
    with pytest.raises(TypeError, match="symbolize=True"):
        perfdata.open(perfout.TESTDATA / "fp.data").to_arrow(inline=False)
    with pytest.raises(ValueError, match="samples table"):
        perfdata.open(perfout.TESTDATA / "fp.data").to_arrow("mmaps", symbolize=True)
