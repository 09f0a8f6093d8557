"""``PerfData.script()`` and ``write_script()`` against what perf 6.1's ``perf script`` printed:
``testdata/F.script`` (on the recording machine; the committed symbol fixtures hold every symbol it
named for these recordings) and ``testdata/script/NAME.KIND`` (perf run on the fixtures with the
options KIND names, testdata/script/gen-script.sh). Symbols come from exactly what
perfdata-cli/tests/common/mod.rs ``symbol_args`` passes: the ``--symfs`` root, an empty build-id
cache and the recording kernel's kallsyms extract."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import time
import warnings

import pytest

import perfdata
import perfout

TD = perfout.TESTDATA
SYMBOLS = dict(
    symfs=TD / "folded" / "root",
    buildid_dir=TD / "folded" / "no-buildid-cache",
    kallsyms=str(TD / "folded" / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
)


def text(lines):
    """perf's bytes from the iterator's lines."""
    return "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")


def script_bytes(name, **options):
    return text(perfdata.open(TD / name).script(**SYMBOLS, **options))


# fp: samples with callchains; sched: tracepoints (print fmt text); stat: perf stat record's counter
# table; jit: perf-PID.map JIT frames; multi-g: two events.
@pytest.mark.parametrize("name", ["fp.data", "sched.data", "stat.data", "jit.data", "multi-g.data"])
def test_script_equals_perf_script(name):
    want = (TD / f"{name}.script").read_bytes()
    f = perfdata.open(TD / name)
    it = f.script(**SYMBOLS)
    assert it.summary is None
    got = "\n".join(it) + "\n"
    assert got.encode("utf-8", "surrogateescape") == want
    assert it.summary is not None and it.summary["damaged"] == 0
    # Nothing wrong; at most the note of the addresses left unnamed (not damage: no warning).
    assert [d for d in f.diagnostics if " addresses unnamed in " not in d] == []


def test_write_script_writes_the_same_text(tmp_path):
    f = perfdata.open(TD / "sched.data")
    out = tmp_path / "sched.script"
    summary = f.write_script(out, **SYMBOLS)
    assert out.read_bytes() == (TD / "sched.data.script").read_bytes()
    assert list(tmp_path.iterdir()) == [out], "the temporary file is renamed"
    it = f.script(**SYMBOLS)
    list(it)
    assert summary == it.summary
    assert summary["samples"] > 0 and summary["damaged"] == 0


def test_write_script_refuses_a_bad_option_and_leaves_no_file(tmp_path):
    with pytest.raises(ValueError, match="Invalid field requested: 'nope'"):
        perfdata.open(TD / "fp.data").write_script(tmp_path / "x.script", fields="comm,nope")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError):
        perfdata.open(TD / "fp.data").write_script(tmp_path / "missing-dir" / "x.script")


def blocks(lines):
    """The samples of a callchain output: each a list of its lines (the sample line, the frames)."""
    out, cur = [], []
    for line in lines:
        if line:
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out


def test_options_change_the_output_as_perf_documents():
    # --max-stack 3: perf's own text, each callchain cut after its third frame.
    perf = blocks((TD / "fp.data.script").read_text().split("\n"))
    assert max(len(b) for b in perf) > 4
    cut = blocks(perfdata.open(TD / "fp.data").script(max_stack=3, **SYMBOLS))
    assert cut == [b[:4] for b in perf]
    default = blocks(perfdata.open(TD / "fp.data").script(**SYMBOLS))

    it = perfdata.open(TD / "fp.data").script(hide_call_graph=True, **SYMBOLS)
    flat = list(it)
    assert len(flat) == it.summary["samples"] == len(default)
    assert not any(line.startswith("\t") or not line for line in flat)

    chosen = list(perfdata.open(TD / "fp.data").script(fields="comm,tid,ip,sym", hide_call_graph=True, **SYMBOLS))
    assert len(chosen) == len(flat)
    assert all(re.fullmatch(r" *\S+ +\d+ +[0-9a-f]+ \S.*", line) for line in chosen), chosen[:3]
    assert not any("cpu-clock" in line for line in chosen)


def test_filters_take_perf_spellings():
    f = perfdata.open(TD / "sched.data")
    by_cpu = [list(f.script(cpu=c)) for c in (0, [0], "0", "0-0")]
    assert all(lines == by_cpu[0] for lines in by_cpu)
    assert 0 < len(by_cpu[0]) < len(list(f.script()))
    assert all("[000]" in line for line in by_cpu[0] if line.strip())
    first_pid = next(iter(f.samples())).pid
    assert list(f.script(pid=first_pid)) == list(f.script(pid=[first_pid]))
    comm = next(iter(f.script())).split()[0]
    assert list(f.script(comms=comm)) == list(f.script(comms=[comm, "no-such-comm"]))
    start = next(iter(f.samples())).time
    assert list(f.script(time=(start, None))) == list(f.script())
    assert list(f.script(time=(None, start - 1))) == []


def test_bad_options_raise():
    f = perfdata.open(TD / "fp.data")
    with pytest.raises(ValueError, match="Invalid field requested: 'nope'"):
        f.script(fields="comm,nope")
    with pytest.raises(ValueError, match="Cannot mix"):
        f.script(fields="comm,+tid")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        f.script(hide_callgraph=True)
    with pytest.raises(TypeError, match="max_stack"):
        f.script(max_stack="3")
    with pytest.raises(ValueError, match="invalid cpu list"):
        f.script(cpu="0-x")
    with pytest.raises(ValueError):
        f.script(time="not a time")


def test_breaking_out_early_is_quiet():
    # In a process of its own: a panic of the writer thread, or a message it printed, would show on
    # stderr; -W error turns any Python warning into a failure. The sleep gives the writer, blocked
    # on its bounded channel, the time to see the iterator gone and stop.
    code = f"""
import gc, time, perfdata
f = perfdata.open({str(TD / "jit.data")!r})
for line in f.script():
    break
gc.collect()
it = f.script()
next(it)
it.close()
assert list(it) == [] and it.summary is None
time.sleep(0.5)
assert f.diagnostics == [], f.diagnostics
print("ok")
"""
    p = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "ok\n", "")


def test_closing_the_file_keeps_a_started_iteration():
    f = perfdata.open(TD / "fp.data")
    it = f.script(**SYMBOLS)
    f.close()
    with pytest.raises(OSError):
        f.script()
    assert text(it) == (TD / "fp.data.script").read_bytes()


def test_memory_stays_bounded():
    # jit.data prints 520 KiB: a writer that ran ahead unbounded would hold it all once it ended.
    # Bounded, the text held is the iterator's block and at most three more (two in the channel,
    # one being sent), each the writer's ~64 KiB.
    f = perfdata.open(TD / "jit.data")
    total = len(script_bytes("jit.data"))
    bound = 5 * 64 * 1024
    assert total > bound
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        it = f.script(**SYMBOLS)
        next(it)
        # Wait until the writer stops producing (blocked on the full channel, or ended).
        last, stable_since, deadline = -1, time.monotonic(), time.monotonic() + 20
        while time.monotonic() < deadline:
            now = it._buffered_bytes
            if now != last:
                last, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since > 0.5:
                break
            time.sleep(0.02)
        assert 0 < last <= bound, last
        rest = sum(len(line) + 1 for line in it)
        assert rest > last
        del it
        gc.collect()


def test_damaged_records_are_diagnostics_not_errors():
    data = (TD / "fp.data").read_bytes()
    f = perfdata.open(data[: len(data) * 2 // 3])
    it = f.script(**SYMBOLS)
    lines = list(it)
    assert lines, "the readable samples print"
    assert f.diagnostics, "the truncation is listed"
    assert not any(d.startswith("warning: ") for d in f.diagnostics)


def test_a_pipe_stream_read_as_iterated():
    # The writer thread reads the Python file object (taking the GIL for each read) while the
    # iterator waits for text without it.
    with open(TD / "sched-pipe.data", "rb") as fh:
        f = perfdata.open(fh, stream=True)
        assert text(f.script(**SYMBOLS)) == (TD / "sched-pipe.data.script").read_bytes()
