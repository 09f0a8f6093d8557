"""What a notebook shows: ``_repr_html_`` of PerfData, its header and Arrow tables, checked against
perf's stored outputs (host, events, samples per event) and against the table's own rows."""

from __future__ import annotations

import html
import re

import pytest

import perfdata
import perfout


def perf_samples_per_event(path):
    """SAMPLE counts per event from the stored ``perf report --stats`` output."""
    text = path.with_name(path.name + ".stats").read_text()
    counts, section = {}, None
    for line in text.splitlines():
        t = line.strip()
        if t.endswith(" stats:"):
            section = None if t.startswith("Aggregated") else t[: -len(" stats:")]
        elif section and t.startswith("SAMPLE events:"):
            counts[section] = int(t.split()[2])
    return counts


@pytest.mark.parametrize("name", ["multi.data", "sched.data", "fp.data"])
def test_perfdata_html_shows_header_events_and_sample_counts(name):
    path = perfout.TESTDATA / name
    f = perfdata.open(path)
    before = f._repr_html_()
    assert html.escape(f.header.hostname) in before
    assert "(not counted yet)" in before
    for _ in f.samples():
        pass
    after = f._repr_html_()
    want = perf_samples_per_event(path)
    assert want, "perf counted no samples"
    for event, n in want.items():
        assert f"<td style=\"text-align:left\">{html.escape(event)}</td><td style=\"text-align:left\">{n}</td>" in after, event
    assert f"<p>{sum(want.values())} samples</p>" in after


def test_header_html_has_the_key_facts_escaped():
    h = perfdata.open(perfout.TESTDATA / "fp.data").header
    out = h._repr_html_()
    assert html.escape(h.perf_version) in out and html.escape(" ".join(h.cmdline)) in out
    assert "<script" not in out


def test_diagnostics_show_in_the_html():
    f = perfdata.open(perfout.TESTDATA / "killed.data")
    out = f._repr_html_()
    assert f"<summary>{len(f.diagnostics)} diagnostics</summary>" in out
    assert html.escape(f.diagnostics[0]) in out


def test_arrow_table_html_shows_the_first_rows():
    pa = pytest.importorskip("pyarrow")
    t = perfdata.open(perfout.TESTDATA / "fp.data").to_arrow("samples")
    out = t._repr_html_()
    assert f"{len(t)} rows × {t.num_columns} columns (first 10)" in out
    first = pa.table(t).slice(0, 1).to_pylist()[0]
    cells = re.findall(r"<td style=\"text-align:left\">(.*?)</td>", out)
    names = pa.table(t).column_names
    row0 = dict(zip(names, cells[: len(names)]))
    assert row0["ip"] == str(first["ip"]) and row0["time"] == str(first["time"])
    assert row0["event"] == first["event"]
    assert row0["callchain"].endswith(f"({len(first['callchain'])} items)")
