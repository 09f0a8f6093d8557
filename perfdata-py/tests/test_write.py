"""PerfData.write: a recording written again by perfdata's writer, HOSTNAME and CMDLINE replaced,
still holds the samples ``perf report -D`` printed for the original, and the header perf printed
for it but for those two lines."""

from __future__ import annotations

import pytest

import perfdata
import perfout
from test_samples import combined_sample_type, dump_line, expected_line, perf_dump

@pytest.mark.parametrize("name", perfout.FLEET_SOURCES)
def test_written_copy_has_perfs_samples_and_the_new_host(name, tmp_path):
    src = perfout.TESTDATA / name
    text, failed = perf_dump(src)
    assert not failed
    perf = perfout.parse_dump_samples(text)
    header = perfout.parse_header((perfout.TESTDATA / f"{name}.header").read_text())
    copy = tmp_path / "copy.data"
    with perfdata.open(src) as f:
        args = [*(f.header.cmdline or []), "--fleet-member=7"]
        f.write(copy, hostname="host07", cmdline=args)
    with perfdata.open(copy) as g:
        assert g.diagnostics == []
        assert g.header.hostname == "host07"
        assert g.header.cmdline == args
        # perf's cmdline line is the arguments joined by spaces
        assert " ".join(args[:-1]) == header.values["cmdline"].strip()
        for key, ours in [("os release", g.header.os_release), ("arch", g.header.arch)]:
            assert ours == header.values[key]
        assert [e.name for e in g.events] == [e.name for e in header.events]
        ours = list(g.samples(order="time"))
        combined = combined_sample_type(g)
    assert len(ours) == len(perf)
    for i, (s, p) in enumerate(zip(ours, perf)):
        assert expected_line(s, combined) == dump_line(p), f"sample {i}"


def test_written_copy_without_changes_folds_as_the_original(quickstart, tmp_path):
    copy = tmp_path / "copy.data"
    perfdata.open(quickstart).write(copy)
    assert perfdata.open(copy).header.hostname == perfdata.open(quickstart).header.hostname
    assert perfdata.open(copy).folded() == perfdata.open(quickstart).folded()


def test_pipe_data_has_no_hostname_section_to_replace(tmp_path):
    src = perfout.TESTDATA / "pipe-tp.data"
    with pytest.raises(ValueError, match="hostname: the recording has no HOSTNAME feature section"):
        perfdata.open(src).write(tmp_path / "copy.data", hostname="web1")
    assert not list(tmp_path.iterdir())
    perfdata.open(src).write(tmp_path / "copy.data")
    assert len(perfdata.open(tmp_path / "copy.data").to_arrow()) == len(perfdata.open(src).to_arrow())
