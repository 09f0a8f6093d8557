"""Tracepoint samples: fields decoded by name, the rendered text and the per-event tables, against
what ``perf script`` printed (testdata/F.script, default fields: comm, tid, cpu, time, event, text)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List

import pytest

import perfdata
import perfout

TRACEPOINT_FILES = ["sched.data", "block.data", "syscalls.data", "pipe-tp.data"]

_LINE = re.compile(r"^\s*(.*?)\s+(-?\d+) \[(\d{3})\]\s+(\d+\.\d{6}):\s+(\S+): (.*)$")


@dataclass
class ScriptLine:
    comm: str
    tid: int
    cpu: int
    time: str  # seconds.microseconds, as perf prints it
    event: str
    text: str


def perf_script(name: str, events) -> List[ScriptLine]:
    """perf's lines of the tracepoint events `events`, in perf's (time) order."""
    out = []
    path = perfout.TESTDATA / (name + ".script")
    for line in path.read_text(errors="replace").splitlines():
        m = _LINE.match(line)
        if m and m.group(5) in events:
            out.append(ScriptLine(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5), m.group(6)))
    return out


def usec(ns: int) -> str:
    return f"{ns // 10**9}.{ns % 10**9 // 1000:06d}"


def tracepoint_events(f):
    return {e.name for e in f.events if e.type_name == "tracepoint"}


def signed(tid: int) -> int:
    """perf prints the u32 tid as an int (-1 for samples of no task)."""
    return tid - 2**32 if tid >= 2**31 else tid


def check_samples(samples, perf):
    assert len(samples) == len(perf)
    for s, p in zip(samples, perf):
        assert (s.event, signed(s.tid), s.cpu, usec(s.time)) == (p.event, p.tid, p.cpu, p.time)
        assert s.trace_text == p.text, (s, p)


@pytest.mark.parametrize("name", TRACEPOINT_FILES)
def test_trace_text_is_perf_scripts(name):
    with perfdata.open(perfout.TESTDATA / name) as f:
        events = tracepoint_events(f)
        samples = [s for s in f.samples() if s.event in events]
    check_samples(samples, perf_script(name, events))


def test_trace_text_from_a_pipe_stream():
    """A pipe read as a stream: the formats arrive in its HEADER_TRACING_DATA record."""
    path = perfout.TESTDATA / "pipe-tp.data"
    with open(path, "rb") as fo:
        f = perfdata.open(fo, stream=True)
        samples = [s for s in f.samples() if s.trace_text is not None]
    check_samples(samples, perf_script("pipe-tp.data", {"sched:sched_switch"}))


_SWITCH = re.compile(
    r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\S+) ==> "
    r"next_comm=(.*) next_pid=(\d+) next_prio=(\d+)$"
)


def test_sched_switch_fields_are_perfs():
    with perfdata.open(perfout.TESTDATA / "sched.data") as f:
        samples = list(f.samples("sched:sched_switch"))
    perf = perf_script("sched.data", {"sched:sched_switch"})
    assert len(samples) == len(perf) > 0
    for s, p in zip(samples, perf):
        m = _SWITCH.match(p.text)
        fields = s.fields
        assert (fields["prev_comm"], fields["prev_pid"], fields["prev_prio"]) == (
            m.group(1), int(m.group(2)), int(m.group(3)),
        )  # fmt: skip
        assert (fields["next_comm"], fields["next_pid"], fields["next_prio"]) == (
            m.group(5), int(m.group(6)), int(m.group(7)),
        )  # fmt: skip
        # the common fields come first; common_pid is the thread perf prints
        assert list(fields)[:4] == ["common_type", "common_flags", "common_preempt_count", "common_pid"]
        assert fields["common_pid"] == p.tid
        d = s.to_dict()
        assert d["fields"] == fields and d["trace_text"] == p.text


# block_rq_*: "254,0 RA 8192 () 12581400 + 16 0x2,0,4 [sh]" (complete: no bytes, [error])
_BLOCK = re.compile(r"^(\d+),(\d+) (\S+) (?:(\d+) )?\(\) (\d+) \+ (\d+) \S+ \[(.*)\]$")


def test_block_fields_are_perfs():
    with perfdata.open(perfout.TESTDATA / "block.data") as f:
        events = tracepoint_events(f)
        samples = [s for s in f.samples() if s.event in events]
    perf = perf_script("block.data", events)
    assert len(samples) == len(perf) > 0
    for s, p in zip(samples, perf):
        m = _BLOCK.match(p.text)
        v = s.fields
        # dev_t in the kernel: major << 20 | minor
        assert (v["dev"] >> 20, v["dev"] & 0xFFFFF) == (int(m.group(1)), int(m.group(2)))
        assert (v["rwbs"], v["sector"], v["nr_sector"]) == (m.group(3), int(m.group(5)), int(m.group(6)))
        if s.event == "block:block_rq_complete":
            assert v["error"] == int(m.group(7))
        else:
            assert (v["bytes"], v["comm"]) == (int(m.group(4)), m.group(7))


def test_samples_of_other_events_have_no_fields():
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        s = next(iter(f.samples()))
    assert s.fields is None and s.trace_text is None and "fields" not in s.to_dict()


# ------------------------------------------------------------------------------------------------
# tracepoint_table


def test_sched_switch_table_is_perfs():
    pa = pytest.importorskip("pyarrow")
    with perfdata.open(perfout.TESTDATA / "sched.data") as f:
        t = f.tracepoint_table("sched:sched_switch")
    perf = perf_script("sched.data", {"sched:sched_switch"})
    assert t.name == "sched:sched_switch" and len(t) == len(perf)
    assert t.column_names == [
        "time", "cpu", "pid", "tid", "prev_comm", "prev_pid", "prev_prio", "prev_state",
        "next_comm", "next_pid", "next_prio",
    ]  # fmt: skip
    table = pa.table(t)
    # types from the format: char[16] → string, pid_t/int → int32, long → int64
    types = dict(zip(table.column_names, table.schema.types))
    assert types["prev_comm"] == pa.string() and types["next_comm"] == pa.string()
    assert types["prev_pid"] == pa.int32() and types["next_prio"] == pa.int32()
    assert types["prev_state"] == pa.int64()
    assert types["time"] == pa.uint64() and types["cpu"] == pa.uint32()
    rows = table.to_pylist()
    for r, p in zip(rows, perf):
        m = _SWITCH.match(p.text)
        assert (usec(r["time"]), r["cpu"], r["tid"]) == (p.time, p.cpu, p.tid)
        assert (r["prev_comm"], r["prev_pid"], r["prev_prio"]) == (m.group(1), int(m.group(2)), int(m.group(3)))
        assert (r["next_comm"], r["next_pid"], r["next_prio"]) == (m.group(5), int(m.group(6)), int(m.group(7)))


def test_table_columns_named_like_sample_columns():
    """sched_waking has a 'pid' field (the woken task): it keeps the name, the sample's pid column
    becomes 'sample_pid'."""
    pytest.importorskip("pyarrow")
    with perfdata.open(perfout.TESTDATA / "sched.data") as f:
        t = f.tracepoint_table("sched_waking", common=True)
    perf = perf_script("sched.data", {"sched:sched_waking"})
    assert t.column_names[:4] == ["time", "cpu", "sample_pid", "tid"]
    assert t.column_names[4:8] == ["common_type", "common_flags", "common_preempt_count", "common_pid"]
    rows = t.to_pyarrow().to_pylist()
    assert len(rows) == len(perf)
    for r, p in zip(rows, perf):
        m = re.match(r"comm=(.*) pid=(\d+) prio=(\d+) target_cpu=(\d+)$", p.text)
        assert (r["comm"], r["pid"], r["prio"], r["target_cpu"]) == (
            m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)),
        )  # fmt: skip
        assert r["common_pid"] == r["tid"] == p.tid


def test_block_table_in_pandas_and_polars():
    pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    with perfdata.open(perfout.TESTDATA / "block.data") as f:
        t = f.tracepoint_table("block:block_rq_issue")
    perf = perf_script("block.data", {"block:block_rq_issue"})
    df = t.to_pandas()
    assert list(df["sector"]) == [int(_BLOCK.match(p.text).group(5)) for p in perf]
    assert list(df["rwbs"]) == [_BLOCK.match(p.text).group(3) for p in perf]
    pdf = t.to_polars()
    assert pdf["nr_sector"].dtype == pl.UInt32 and pdf["sector"].dtype == pl.UInt64
    assert pdf["nr_sector"].to_list() == [int(_BLOCK.match(p.text).group(6)) for p in perf]


def test_table_of_a_pipe_stream():
    pytest.importorskip("pyarrow")
    path = perfout.TESTDATA / "pipe-tp.data"
    perf = perf_script("pipe-tp.data", {"sched:sched_switch"})
    with open(path, "rb") as fo:
        f = perfdata.open(fo, stream=True)
        t = f.tracepoint_table("sched:sched_switch")
    assert [r["next_comm"] for r in t.to_pyarrow().to_pylist()] == [
        _SWITCH.match(p.text).group(5) for p in perf
    ]


def test_table_of_an_unknown_event():
    with perfdata.open(perfout.TESTDATA / "sched.data") as f:
        with pytest.raises(ValueError, match="sched:sched_switch"):
            f.tracepoint_table("sched:no_such_event")
        ev = [e for e in f.events if e.name == "sched:sched_waking"][0]
        assert len(f.tracepoint_table(ev)) == len(perf_script("sched.data", {"sched:sched_waking"}))
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        with pytest.raises(ValueError, match="no tracepoint formats"):
            f.tracepoint_table("sched:sched_switch")
