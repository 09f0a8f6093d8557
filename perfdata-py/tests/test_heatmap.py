"""AnalysisResult.heatmap(): the SVG read back against the latencies of the same result's table
(the axis ends at p99.9 by default, max_lat/min_lat with units, the outliers' row and its count,
rows, log rows, tooltips), for block I/O and wakeup latency."""

from __future__ import annotations

import math
import re

import pytest

import perfdata
from perfout import TESTDATA

UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}


def ns(label: str) -> float:
    """ "20 µs", "1.5 ms", "0" -> ns."""
    if label == "0":
        return 0.0
    num, unit = label.split(" ")
    return float(num) * UNITS[unit]


def data(svg: str, name: str) -> int:
    m = re.search(rf'data-{name}="(\d+)"', svg)
    assert m, name
    return int(m.group(1))


def texts(svg: str, cls: str) -> list[str]:
    return re.findall(rf'<text class="{cls}"[^>]*>([^<]*)</text>', svg)


def tooltips(svg: str) -> list[tuple[str, int]]:
    """(latency range, count) of every cell's <title>."""
    return [(m.group(1), int(m.group(2))) for m in re.finditer(r"<title>time [^<]*?, latency ([^<]*), count (\d+)</title>", svg)]


def p999(values: list[int]) -> int:
    v = sorted(values)
    return v[math.ceil(len(v) * 999 / 1000) - 1]


def is_125(v: int) -> bool:
    while v >= 10 and v % 10 == 0:
        v //= 10
    return v in (1, 2, 5)


@pytest.fixture(scope="module")
def io() -> perfdata.AnalysisResult:
    return perfdata.open(TESTDATA / "blockrw.data").block_latency()


def test_default_axis_ends_at_p999_and_every_io_is_in_a_tooltip(io: perfdata.AnalysisResult) -> None:
    lat = [int(v) for v in io.to_pandas().latency_ns]
    svg = io.heatmap().svg
    assert (data(svg, "min-latency-ns"), data(svg, "max-latency-ns"), data(svg, "rows")) == (0, p999(lat), 50)
    assert 'width="1000" height="500"' in svg
    ticks = [round(ns(t)) for t in texts(svg, "lat-tick")]
    step = ticks[1] - ticks[0]
    assert is_125(step) and all(b - a == step for a, b in zip(ticks, ticks[1:])), ticks
    assert ticks[-1] <= p999(lat)
    assert sum(n for _, n in tooltips(svg)) == len(lat)


@pytest.mark.parametrize("max_lat, bound", [("100us", 100_000), (100, 100_000), ("0.1ms", 100_000), (250.0, 250_000)])
def test_max_lat_counts_the_outliers_in_a_labelled_row(io: perfdata.AnalysisResult, max_lat: object, bound: int) -> None:
    lat = [int(v) for v in io.to_pandas().latency_ns]
    above = sum(1 for v in lat if v > bound)
    assert above > 0
    svg = io.heatmap(max_lat=max_lat, rows=20, width=800, height=400).svg
    assert (data(svg, "max-latency-ns"), data(svg, "rows")) == (bound, 20)
    assert 'width="800" height="400"' in svg
    assert [ns(t.removeprefix("&gt; ")) for t in texts(svg, "above-label")] == [bound]
    assert texts(svg, "above-total")[0].startswith(f"{above} I/Os (")
    tips = tooltips(svg)
    assert sum(n for r, n in tips if r.startswith("&gt; ")) == above
    assert sum(n for _, n in tips) == len(lat)
    # 20 rows of bound/20 each
    for r, _ in tips:
        if " .. " in r:
            a, b = (ns(x) for x in r.split(" .. "))
            assert abs((b - a) - bound / 20) <= bound / 20 * 0.02 + 600, r


def test_log_rows_are_geometric_on_wakeups() -> None:
    w = perfdata.open(TESTDATA / "sched-mix.data").wakeup_latency()
    lat = [int(v) for v in w.to_pandas().delay_ns]
    svg = w.heatmap(log=True, rows=40, title="Run-queue waits & more").svg
    assert ">Run-queue waits &amp; more</text>" in svg
    lo, hi = data(svg, "min-latency-ns"), data(svg, "max-latency-ns")
    assert is_125(lo) and lo <= min(lat) and hi == p999(lat)
    ratio = (hi / lo) ** (1 / 40)
    tips = tooltips(svg)
    assert sum(n for _, n in tips) == len(lat)
    cells = [r for r, _ in tips if " .. " in r]
    assert len(cells) > 40
    for r in cells:
        a, b = (ns(x) for x in r.split(" .. "))
        assert abs(b / a / ratio - 1) < 0.015, r
    ticks = [round(ns(t)) for t in texts(svg, "lat-tick")]
    assert ticks == sorted(ticks) and all(is_125(t) and lo <= t <= hi for t in ticks), ticks


def test_min_lat_and_bad_values(io: perfdata.AnalysisResult) -> None:
    lat = [int(v) for v in io.to_pandas().latency_ns]
    svg = io.heatmap(min_lat="25us", max_lat="300us").svg
    below = sum(1 for v in lat if v < 25_000)
    assert sum(n for r, n in tooltips(svg) if r.startswith("&lt; ")) == below > 0
    with pytest.raises(ValueError, match="must be below"):
        io.heatmap(min_lat="2ms", max_lat="1ms")
    with pytest.raises(ValueError, match="not a latency"):
        io.heatmap(max_lat="5 parsecs")
    with pytest.raises(ValueError, match="rows"):
        io.heatmap(rows=0)
    with pytest.raises(TypeError, match="max_lat"):
        io.heatmap(max_lat=[1])  # type: ignore[arg-type]
