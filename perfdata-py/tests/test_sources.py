"""What perfdata.open accepts: paths, bytes-like data, and file objects with pipe-mode data."""

from __future__ import annotations

import io
import pathlib

import pytest

import perfdata
import perfout
from test_samples import expected_line, combined_sample_type, perf_dump


def pipe_recordings():
    files = [p for p in perfout.committed_recordings() if p.name.startswith("pipe")]
    files += [p for p in perfout.corpus_recordings() if ".piped." in p.name or p.name == "pipe.data"]
    return files


PIPES = pipe_recordings()


def same_samples_as_perf(f, path):
    text, failed = perf_dump(path)
    perf = perfout.parse_dump_samples(text)
    ours = list(f.samples())
    assert len(ours) >= len(perf) if failed else len(ours) == len(perf)
    combined = combined_sample_type(f)
    for s, p in zip(ours, perf):
        line = expected_line(s, combined)
        assert (line["pid"], line["tid"], line["ip"], line["period"], line["callchain"]) == (
            p.pid, p.tid, p.ip, p.period, p.callchain
        )
        assert line["prefix"] == p.prefix
    return len(ours)


@pytest.mark.parametrize("path", PIPES, ids=[p.name for p in PIPES])
def test_pipe_data_from_file_object(path):
    with open(path, "rb") as fo:
        f = perfdata.open(fo)
    assert f.header.format == "pipe" and f.path is None
    n = same_samples_as_perf(f, path)
    # twice: the data was read whole, so records can be iterated again
    assert sum(1 for _ in f.samples()) == n


@pytest.mark.parametrize("path", PIPES, ids=[p.name for p in PIPES])
def test_pipe_data_streamed_from_file_object(path):
    with open(path, "rb") as fo:
        f = perfdata.open(fo, stream=True)
        assert "<stream>" in repr(f) and f.size is None
        n = same_samples_as_perf(f, path)
        assert f.sample_count == n
        # events announced in the stream are known after reading it
        assert f.events
        with pytest.raises(perfdata.PerfDataError, match="once"):
            f.samples()  # a stream can be read once


@pytest.mark.parametrize("path", PIPES[:3], ids=[p.name for p in PIPES[:3]])
def test_pipe_data_from_unbuffered_raw_file(path):
    """A raw file object returns short reads; the reader copes."""
    with open(path, "rb", buffering=0) as fo:
        f = perfdata.open(fo, stream=True)
        same_samples_as_perf(f, path)


def test_source_kinds_agree(quickstart):
    data = quickstart.read_bytes()
    expected = [s.time for s in perfdata.open(str(quickstart)).samples()]
    for source in (
        quickstart,
        pathlib.Path(quickstart),
        data,
        bytearray(data),
        memoryview(data),
        io.BytesIO(data),
    ):
        f = perfdata.open(source)
        assert [s.time for s in f.samples()] == expected, type(source)
        assert f.size == len(data)
    assert perfdata.open(quickstart).path == str(quickstart)


def test_bad_sources(quickstart, tmp_path):
    with pytest.raises(TypeError):
        perfdata.open(12)
    with pytest.raises(TypeError, match="binary mode"):
        with open(quickstart, "r", encoding="latin-1") as fo:
            perfdata.open(fo)
    with pytest.raises(FileNotFoundError):
        perfdata.open(tmp_path / "missing.data")
    with pytest.raises(ValueError):
        perfdata.open(quickstart, order="sideways")


def test_context_manager_and_close(quickstart):
    with perfdata.open(quickstart) as f:
        it = f.samples()
        first = next(it)
        assert not f.closed
    assert f.closed and "closed" in repr(f)
    # a started iterator keeps the file alive
    assert sum(1 for _ in it) + 1 == f.sample_count or f.sample_count is None
    assert first.time is not None
    with pytest.raises(OSError):
        f.samples()
    with pytest.raises(OSError):
        f.to_arrow()


def test_repr(quickstart):
    f = perfdata.open(quickstart)
    r = repr(f)
    assert "quickstart.data" in r and "cpu-clock" in r and "samples" not in r
    f.to_arrow()
    assert f"{f.sample_count} samples" in repr(f)
    assert "Header" in repr(f.header) and "cpu-clock" in repr(f.events[0])
