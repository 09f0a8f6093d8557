"""The scheduler helpers: PerfData.sched_latency / sched_map / sched_timehist / sched_timeline give
perf 6.1's stored outputs with compat="perf-6.1", tables with the documented columns, and clear
errors."""

from __future__ import annotations

import re

import pytest

import perfdata
import perfout
from perfout import TESTDATA

FILES = ["sched.data", "sched-mix.data"]


def stored(name: str) -> str:
    return (TESTDATA / name).read_text()


@pytest.mark.parametrize("name", FILES)
def test_text_is_perf61s(name: str) -> None:
    f = perfdata.open(TESTDATA / name)
    assert f.sched_latency(compat="perf-6.1").text() == stored(f"{name}.sched-latency")
    assert f.sched_latency(by="tid", compat="perf-6.1").text() == stored(f"{name}.sched-latency-p")
    assert f.sched_latency(sort="max,runtime", compat="perf-6.1").text() == stored(f"{name}.sched-latency-s-max-runtime")
    assert f.sched_latency(sort=["max", "runtime"], compat="perf-6.1").text() == stored(
        f"{name}.sched-latency-s-max-runtime"
    )
    assert f.sched_map().text() == stored(f"{name}.sched-map")
    assert f.sched_map(compact=True).text() == stored(f"{name}.sched-map-compact")
    assert f.sched_timehist(compat="perf-6.1").text() == stored(f"{name}.sched-timehist")
    th = f.sched_timehist(wakeups=True, migrations=True, cpu_visual=True, state=True, next=True, compat="perf-6.1")
    assert th.text() == stored(f"{name}.sched-timehist-wMVstate-n")
    assert f.sched_timehist(summary=True, state=True, compat="perf-6.1").text() == stored(
        f"{name}.sched-timehist-S-state"
    )


def test_latency_table() -> None:
    lat = perfdata.open(TESTDATA / "sched-mix.data").sched_latency(by="tid")
    df = lat.to_pandas()
    for col in ["task", "tids", "runtime_ns", "switches", "avg_delay_ns", "max_delay_ns",
                "max_delay_start_ns", "max_delay_end_ns"]:
        assert col in df.columns
    sh = df[df.tid == 18669].iloc[0]
    assert sh.task == "sh" and sh.switches == 6 and sh.max_delay_ns > 12_000_000
    assert (df.max_delay_end_ns - df.max_delay_start_ns == df.max_delay_ns).all()
    assert (df.avg_delay_ns == df.total_delay_ns // df.switches).all()
    # modern header, 6.1's
    assert "| Count    |" in lat.text()
    assert set(lat.info) >= {"context_switch_bugs", "nr_timestamps", "unordered_timestamps", "lost_events"}
    merged = perfdata.open(TESTDATA / "sched-mix.data").sched_latency().to_pandas()
    assert merged[merged.task == "true"].tids.iloc[0] == 40


def test_timehist_table_and_summary() -> None:
    th = perfdata.open(TESTDATA / "sched-mix.data").sched_timehist(summary=True, migrations=True)
    df = th.to_pandas()
    for col in ["time_ns", "cpu", "tid", "pid", "comm", "wait_ns", "sleep_ns", "iowait_ns", "preempt_ns",
                "delay_ns", "run_ns", "state"]:
        assert col in df.columns
    assert len(df) == 319 == th.info["switches"]
    assert (df.wait_ns == df.sleep_ns + df.iowait_ns + df.preempt_ns).all()
    assert set(df[df.idle].comm) == {"<idle>"}
    s = th.summary()
    assert s is not None
    sdf = s.to_pandas()
    by_tid = sdf.set_index("tid")
    assert by_tid.loc[18669, "comm"] == "sh" and not by_tid.loc[18669, "terminated"]
    assert by_tid.loc[18688, "comm"] == "gzip" and by_tid.loc[18688, "terminated"]
    assert int(sdf.migrations.sum()) > 0
    # per task, the summary's run time is the sum of its rows'
    rows = df[~df.idle].groupby("tid").run_ns.sum()
    assert all(rows[t] == by_tid.loc[t, "run_ns"] for t in rows.index)
    polars = pytest.importorskip("polars")
    assert polars.DataFrame(th).height == 319


def test_filters() -> None:
    f = perfdata.open(TESTDATA / "sched-mix.data")
    assert set(f.sched_timehist(cpu=0).to_pandas().cpu) == {0}
    assert set(f.sched_timehist(pid=[18669]).to_pandas().tid) == {18669}
    df = f.sched_timehist(time="37551.5,37551.52").to_pandas()
    assert df.time_ns.between(37551_500_000_000, 37551_520_000_000).all() and len(df) > 10
    m = f.sched_map(cpus="0").to_pandas()
    assert len(m) == 319


def test_pipe_file() -> None:
    f = perfdata.open(TESTDATA / "sched-pipe.data")
    assert f.sched_timehist().info["switches"] == 288
    assert len(f.sched_latency().to_arrow()) > 0


def test_errors_and_html() -> None:
    with pytest.raises(ValueError, match="no sched:sched_switch event"):
        perfdata.open(TESTDATA / "fp.data").sched_latency()
    with pytest.raises(ValueError, match="by must be"):
        perfdata.open(TESTDATA / "sched.data").sched_latency(by="cpu")
    with pytest.raises(ValueError, match="unknown sort key"):
        perfdata.open(TESTDATA / "sched.data").sched_latency(sort="fast")
    with pytest.raises(ValueError, match="unknown compat"):
        perfdata.open(TESTDATA / "sched.data").sched_timehist(compat="perf-5")
    lat = perfdata.open(TESTDATA / "sched.data").sched_latency()
    html = lat._repr_html_()
    assert "context_switch_bugs" in html and "<table" in html and "python" in html


def test_timeline() -> None:
    tl = perfdata.open(TESTDATA / "sched-mix.data").sched_timeline(width=1000, title="mix")
    assert tl.switches == 319
    assert tl.svg.startswith("<?xml") and ">mix<" in tl.svg
    assert "<iframe" in tl._repr_html_()
    assert re.findall(r'<text class="lane"[^>]*>([^<]*)<', tl.svg) == ["CPU 0", "CPU 1"]
    # A lane per task, by thread id: the five longest running or waiting to run, as timehist's
    # run time and scheduling delay add up (the timeline also counts a last wait whose run has
    # not ended, which has no timehist row: not the case for these five).
    f = perfdata.open(TESTDATA / "sched-mix.data")
    tasks = f.sched_timeline(rows="task", tasks=5)
    lanes = re.findall(r'<text class="lane"[^>]*>([^<]*)<', tasks.svg)
    th = f.sched_timehist().to_pandas()
    th = th[~th.idle]
    busiest = (th.run_ns + th.delay_ns).groupby(th.tid).sum().sort_values(ascending=False, kind="stable")
    assert [int(lane.rsplit("[", 1)[1].rstrip("]")) for lane in lanes] == sorted(busiest.index[:5])
    with pytest.raises(ValueError, match="cpu or task"):
        perfdata.open(TESTDATA / "sched-mix.data").sched_timeline(rows="tasks")


def test_block_latency() -> None:
    io = perfdata.open(TESTDATA / "blockrw.data").block_latency()
    df = io.to_pandas()
    assert len(df) == io.info["paired"] > 0
    assert (df.complete_ns - df.start_ns == df.latency_ns).all()
    assert io.info["p50_ns"] <= io.info["p99_ns"] <= io.info["max_ns"] == int(df.latency_ns.max())
    assert "usecs" in io.text() and "distribution" in io.text()
    reads = perfdata.open(TESTDATA / "blockrw.data").block_latency(rwbs="*R*").to_pandas()
    assert len(reads) > 0 and reads.rwbs.str.contains("R").all()
    q = perfdata.open(TESTDATA / "blockrw.data").block_latency(start="insert").to_pandas()
    assert len(q) > 0


def test_wakeup_latency() -> None:
    w = perfdata.open(TESTDATA / "sched-mix.data").wakeup_latency()
    df = w.to_pandas()
    assert (df.run_ns - df.wake_ns == df.delay_ns).all()
    assert df.preempted.any() and len(df) == w.info["waits"]
    only = perfdata.open(TESTDATA / "sched-mix.data").wakeup_latency(preempted=False).to_pandas()
    assert not only.preempted.any() and len(only) < len(df)
    with pytest.raises(ValueError, match="sched_switch"):
        perfdata.open(TESTDATA / "fp.data").wakeup_latency()


def test_block_hist_heatmap_percentiles() -> None:
    io = perfdata.open(TESTDATA / "blockrw.data").block_latency()
    lat = io.to_pandas().latency_ns
    h = io.hist()
    assert str(h) == h.text == io.text()
    # bcc's buckets: the counts add up to the I/Os
    counts = [int(l.split(":")[1].split("|")[0]) for l in h.text.splitlines() if "->" in l]
    assert sum(counts) == len(lat)
    per_disk = io.hist(per="disk").text
    assert "disk = 254,0" in per_disk
    per_flag = io.hist(per="flags").text
    assert "flags = " in per_flag and "usecs" in per_flag
    assert "msecs" in io.hist(unit="ms").text or io.percentiles()["max"] < 1_000_000
    assert h._repr_svg_().startswith("<?xml")
    p = io.percentiles()
    assert p["count"] == len(lat) and p["max"] == int(lat.max()) and p["min"] == int(lat.min())
    assert p["p50"] == int(sorted(lat)[(len(lat) + 1) // 2 - 1])
    assert "<rect" in io.heatmap(column_ms=5).svg
    with pytest.raises(ValueError, match="no latencies"):
        perfdata.open(TESTDATA / "sched.data").sched_latency().hist()
    with pytest.raises(ValueError, match="start must be"):
        perfdata.open(TESTDATA / "blockrw.data").block_latency(start="queue")
    w = perfdata.open(TESTDATA / "sched-mix.data").wakeup_latency()
    assert "usecs" in str(w.hist()) and w.percentiles()["count"] == w.info["waits"]


def test_off_cpu() -> None:
    import subprocess

    f = perfdata.open(TESTDATA / "offcpu.data")
    stacks = f.off_cpu()
    assert stacks and all(w > 0 for w in stacks.values())
    # the same folded lines as `perfdata offcpu` prints
    cli = perfout.REPO / "target" / "release" / "perfdata"
    if cli.exists():
        out = subprocess.run([str(cli), "offcpu", str(TESTDATA / "offcpu.data")], capture_output=True, text=True).stdout
        want = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in out.splitlines() if l}
        assert stacks == want
    d = f.off_cpu(state="D")
    s = f.off_cpu(state="S")
    assert 0 < sum(d.values()) < sum(stacks.values()) and sum(d.values()) + sum(s.values()) <= sum(stacks.values())
    assert sum(f.off_cpu(min_us=1000).values()) <= sum(stacks.values())
    g = f.off_cpu_flamegraph(title="off")
    assert g.total == sum(stacks.values()) and ">off<" in g.svg
    with pytest.raises(ValueError, match="unknown off-CPU state"):
        f.off_cpu(state="Z")
    with pytest.raises(ValueError):
        perfdata.open(TESTDATA / "sched.data").off_cpu()


def test_off_cpu_of_a_perf_record_off_cpu_recording() -> None:
    """offcpu-bpf.data is laid out as perf record --off-cpu writes (testdata/gen-offcpu-bpf.py):
    off_cpu() folds its offcpu-time samples weighted by their period, as inferno folds perf
    script's stacks with their periods (stored beside it)."""
    f = perfdata.open(TESTDATA / "offcpu-bpf.data")
    stacks = f.off_cpu(symfs=str(TESTDATA / "folded" / "root"))
    want = {}
    for line in (TESTDATA / "offcpu-bpf.data.folded-stackcollapse-pl").read_text().splitlines():
        stack, weight = line.rsplit(" ", 1)
        want[stack] = int(weight)
    assert stacks == want
    with pytest.raises(ValueError, match="no task states"):
        f.off_cpu(state="D")
