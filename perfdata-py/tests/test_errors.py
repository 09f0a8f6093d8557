"""Damaged input: a PerfDataError (a ValueError with .offset and .record_type) when nothing is
readable, diagnostics and the readable records otherwise, and never a crashed interpreter."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

import perfdata
import perfout


def test_garbage_zero_length_and_tiny_inputs(tmp_path):
    empty = tmp_path / "empty.data"
    empty.write_bytes(b"")
    for source in (b"", empty, b"PERFILE2", b"hello, this is not perf data" * 10, bytes(200)):
        with pytest.raises(perfdata.PerfDataError) as e:
            perfdata.open(source)
        assert isinstance(e.value, ValueError)
        assert hasattr(e.value, "offset") and hasattr(e.value, "record_type")


def test_a_bad_magic_shows_the_file_its_bytes_and_what_was_expected(tmp_path):
    passwd = tmp_path / "passwd"
    passwd.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(perfdata.PerfDataError) as e:
        perfdata.open(passwd)
    assert str(e.value) == (
        f"{passwd}: not a perf.data file: it starts with b\"root:x:0\" "
        "(72 6f 6f 74 3a 78 3a 30), not PERFILE2 (or 2ELIFREP, big-endian)"
    )
    assert e.value.path == str(passwd) and e.value.offset is None
    with pytest.raises(perfdata.PerfDataError) as e:
        perfdata.open(b"\x7fELF\x02\x01\x01\x00" + bytes(100))
    assert "b\"\\x7fELF\\x02\\x01\\x01\\x00\" (7f 45 4c 46 02 01 01 00)" in str(e.value)
    assert e.value.path is None


def test_error_carries_offset(quickstart):
    data = bytearray(quickstart.read_bytes())
    struct.pack_into("<Q", data, 8, 7)  # header size field: neither 104 nor 16
    with pytest.raises(perfdata.PerfDataError) as e:
        perfdata.open(bytes(data))
    assert e.value.offset == 8
    assert "header size" in str(e.value)


def first_samples(path):
    return perfout.parse_dump_samples(path.with_name(path.name + ".dump").read_text())


def test_truncated_data_keeps_the_samples_before_the_cut(quickstart):
    perf = sorted(first_samples(quickstart), key=lambda p: p.offset)
    cut = perf[len(perf) // 2].offset + 20  # inside a sample record
    f = perfdata.open(quickstart.read_bytes()[:cut])
    ours = [s.offset for s in f.samples(order="file")]
    assert ours == [p.offset for p in perf if p.offset + p.size <= cut]
    assert f.diagnostics, "a truncated file must say so"


def test_damaged_sample_is_skipped_or_raised(quickstart, tmp_path):
    perf = sorted(first_samples(quickstart), key=lambda p: p.offset)
    victim = perf[3]
    assert victim.callchain is not None
    data = bytearray(quickstart.read_bytes())
    # IP|TID|TIME|CALLCHAIN: the callchain's nr is the 4th u64 of the body
    struct.pack_into("<Q", data, victim.offset + 8 + 24, 1 << 40)
    f = perfdata.open(bytes(data))
    kept = [s.offset for s in f.samples(order="file")]
    assert kept == [p.offset for p in perf if p is not victim]
    assert any(f"{victim.offset:#x}" in d for d in f.diagnostics), f.diagnostics
    with pytest.raises(perfdata.PerfDataError) as e:
        for _ in f.samples(order="file", strict=True):
            pass
    assert e.value.offset == victim.offset
    assert e.value.record_type == "SAMPLE"
    # The message says where and what: offset and record type (bytes: no path).
    assert f"{victim.offset:#x}" in str(e.value) and "SAMPLE" in str(e.value)
    damaged = tmp_path / "damaged.data"  # the same damage read from a file names the file
    damaged.write_bytes(bytes(data))
    with pytest.raises(perfdata.PerfDataError) as e:
        for _ in perfdata.open(damaged).samples(order="file", strict=True):
            pass
    assert str(e.value).startswith(f"{damaged}: ") and e.value.path == str(damaged)


def test_killed_recording_is_read_with_a_diagnostic():
    path = perfout.TESTDATA / "killed.data"
    if not path.exists():
        pytest.skip("testdata/killed.data missing")
    f = perfdata.open(path)
    assert f.header.data_size == 0  # perf never finalised the header
    n = sum(1 for _ in f.samples())
    # perf refuses to read it (see killed.data.dump.err); we read the records that are there
    assert n > 0
    assert any("data size is 0" in d and "perf report refuses" in d for d in f.diagnostics)
    # The repr says so in one line.
    assert repr(f).endswith(f"; {len(f.diagnostics)} diagnostics: data size is 0 (+{len(f.diagnostics) - 1} more)>")


WORKER = Path(__file__).with_name("mutate_worker.py")


def test_mutated_inputs_never_crash_the_interpreter():
    """A few hundred seeded truncations and overwrites of the test recordings (and the corpus's fuzz
    reproducers), each opened and read every way, in a child interpreter: a crash (signal, abort,
    Rust panic) fails the test instead of killing pytest."""
    files = [str(p) for p in perfout.committed_recordings() if p.is_file()]
    qfuzz = perfout.CORPUS / "qfuzz"
    extra = [str(p) for p in sorted(qfuzz.glob("*"))] if qfuzz.is_dir() else []
    r = subprocess.run(
        [sys.executable, str(WORKER), "--mutations", "500", "--seed", "20261123", *files,
         "--as-is", *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, f"worker died ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "inputs: " in r.stdout
    n = int(r.stdout.split("inputs: ")[1].split()[0])
    assert n >= 300
