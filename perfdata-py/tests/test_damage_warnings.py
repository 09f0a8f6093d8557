"""The damage policy in Python (docs/damage.md): a damaged recording gives what its complete records
give, and each problem is said once per PerfData as a PerfDataWarning (``FILE: problem``, as the
CLI says it), after the call that met it; notes that are not damage (unnamed addresses, events
the kernel lost) warn nothing; ``open(..., strict=True)`` makes damage a PerfDataError.

The damaged files are committed recordings cut inside a record (offsets from perf's own dump), or
with one sample's callchain length overwritten, so the expected problems are known in advance."""

from __future__ import annotations

import struct
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

import perfdata
import perfout


@contextmanager
def said():
    """The PerfDataWarning messages issued inside the block (every one: no filter hides a repeat)."""
    got = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        yield got
    got.extend(str(x.message) for x in w if issubclass(x.category, perfdata.PerfDataWarning))


def perf_samples(path: Path):
    """The sample records of perf's dump of `path`, in file order."""
    return sorted(perfout.parse_dump_samples(path.with_name(path.name + ".dump").read_text()), key=lambda p: p.offset)


def recording(name: str) -> Path:
    p = perfout.TESTDATA / name
    if not p.exists():
        pytest.skip(f"testdata/{name} missing")
    return p


class Cut:
    """`name` cut 20 bytes into the sample in the middle of its data section: perf's dump says where
    that sample starts and how long it is, the header where the data section ends."""

    def __init__(self, name: str, tmp_path: Path, as_bytes: bool = False):
        self.intact = recording(name)
        data = self.intact.read_bytes()
        samples = perf_samples(self.intact)
        self.victim = samples[len(samples) // 2]
        self.size = self.victim.offset + 20
        self.path = tmp_path / f"cut-{name}"
        self.path.write_bytes(data[: self.size])
        h = perfdata.open(self.intact).header
        self.data_end = h.data_offset + h.data_size
        self.prefix = f"{self.path}: "

    def record(self):
        """The beginning of what reading the cut record says (only a reading can meet it)."""
        return (f"bad SAMPLE record at {self.victim.offset:#x}: truncated input at {self.victim.offset:#x}: "
                f"reading record, needed {self.victim.size} bytes, 20 available")

    def section(self):
        """The beginning of what is said of the short data section (by the opening, or else by the
        first reading: the file's log has it once)."""
        return f"data section ends at {self.data_end} but the file has only {self.size} bytes"

    def check(self, opened, read, prefix=None):
        """`opened` (said by open()) and `read` (by the first call) are the cut's problems, each
        once: the cut record by the reading, the short data section by either; nothing else but
        the lost feature section table, which the opening may say too."""
        prefix = self.prefix if prefix is None else prefix
        said = opened + read
        assert len(set(said)) == len(said), said
        assert all(m.startswith(prefix) for m in said), said
        bare = [m[len(prefix):] for m in said]
        assert len([m for m in bare if m.startswith(self.section())]) == 1, said
        assert len([m for m in read if m[len(prefix):].startswith(self.record())]) == 1, said
        assert not any(m[len(prefix):].startswith(self.record()) for m in opened), opened
        others = [m for m in bare if not m.startswith((self.record(), self.section()))]
        assert all(m.startswith("feature section table cut short") for m in others), said


@pytest.fixture
def cut(tmp_path):
    return Cut("quickstart.data", tmp_path)


# Every PerfData call that reads the records of a cpu-clock recording, and what it gives.
CALLS = {
    "records": lambda f, d: sum(1 for _ in f.records()),
    "samples": lambda f, d: sum(1 for _ in f.samples(order="file")),
    "record_counts": lambda f, d: f.record_counts()["SAMPLE"],
    "to_arrow": lambda f, d: f.to_arrow("samples").num_rows,
    "to_arrow_symbolize": lambda f, d: f.to_arrow("samples", symbolize=True).num_rows,
    "to_pandas": lambda f, d: len(f.to_pandas("mmaps")),
    "to_polars": lambda f, d: len(f.to_polars("comms")),
    "folded": lambda f, d: len(f.folded()),
    "folded_text": lambda f, d: len(f.folded_text()),
    "write_folded": lambda f, d: f.write_folded(d / "out.folded") or (d / "out.folded").stat().st_size,
    "flamegraph": lambda f, d: f.flamegraph().total,
    "report": lambda f, d: len(f.report()),
    "script": lambda f, d: sum(1 for _ in f.script()),
    "write_script": lambda f, d: f.write_script(d / "out.script")["samples"],
    "to_parquet": lambda f, d: len(f.to_parquet(d / "tables")),
    "export_speedscope": lambda f, d: f.export(d / "s.json", format="speedscope") or (d / "s.json").stat().st_size,
    "export_pprof": lambda f, d: f.export(d / "p.pb.gz", format="pprof") or (d / "p.pb.gz").stat().st_size,
    "export_chrome": lambda f, d: f.export(d / "c.json", format="chrome-trace") or (d / "c.json").stat().st_size,
    "export_parquet": lambda f, d: f.export(d / "pq", format="parquet") or len(list((d / "pq").iterdir())),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_damage_warned_once_per_problem_and_results_given(call, cut, tmp_path):
    run = CALLS[call]
    with said() as opened:
        f = perfdata.open(cut.path)
    with said() as first:
        got = run(f, tmp_path)
    assert got, f"{call}() of the cut file gave nothing"
    cut.check(opened, first)
    # The same call again, and another: the problems were said already.
    with said() as again:
        assert run(f, tmp_path) == got
        f.to_arrow()
        f.folded()
    assert again == []
    # Still listed: said once is not forgotten.
    listed = [f"{cut.path}: {d}" for d in f.diagnostics if "addresses unnamed" not in d]
    assert sorted(listed) == sorted(opened + first)
    # Another PerfData of the same file says them again (once per file object).
    with said() as other:
        run(perfdata.open(cut.path), tmp_path)
    assert sorted(other) == sorted(opened + first)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_an_intact_file_warns_nothing(call, tmp_path):
    # Its notes (addresses left unnamed) are not damage: listed in diagnostics, never warned, as
    # the CLI's exit status ignores them; and strict=True has nothing to raise.
    intact = recording("quickstart.data")
    with said() as w:
        f = perfdata.open(intact)
        assert CALLS[call](f, tmp_path)
        assert CALLS[call](perfdata.open(intact, strict=True), tmp_path)
    assert w == []
    if call == "folded":
        assert any("addresses unnamed" in d for d in f.diagnostics), f.diagnostics


def test_the_messages_name_the_file_or_not(cut):
    # Bytes have no path: the problem alone (the CLI names stdin so; Python has nothing to name).
    with said() as opened:
        f = perfdata.open(cut.path.read_bytes())
    with said() as read:
        f.folded()
    cut.check(opened, read, prefix="")


def test_an_iterator_says_what_it_met_when_dropped(cut):
    with said() as opened:
        f = perfdata.open(cut.path)
    with said() as dropped:
        it = f.records(order="file")
        next(it)
        del it  # before the cut record: at most the short data section, said once
    with said() as read:
        assert sum(1 for _ in f.script()) > 0
    cut.check(opened + dropped, read)
    assert len(read) == 1  # the cut record; the rest was said


def test_a_failing_call_still_says_what_it_met(tmp_path):
    # A cut file-mode recording lost its tracing data (a feature section): the scheduler analyses
    # cannot name sched_switch and raise, and the problems that explain it are said first.
    c = Cut("sched.data", tmp_path)
    with said() as opened:
        f = perfdata.open(c.path)
    with said() as read, pytest.raises(ValueError, match="damaged file"):
        f.sched_latency()
    c.check(opened, read)
    for call in (f.sched_timehist, f.wakeup_latency, f.off_cpu, f.block_latency):
        with said() as w, pytest.raises(ValueError, match="damaged file"):
            call()
        assert w == []


PIPE_CALLS = {
    "sched_latency": lambda f: f.sched_latency().to_arrow().num_rows,
    "sched_map": lambda f: len(f.sched_map().text()),
    "sched_timehist": lambda f: f.sched_timehist().to_arrow().num_rows,
    "sched_timeline": lambda f: f.sched_timeline().switches,
    "wakeup_latency": lambda f: f.wakeup_latency().to_arrow().num_rows,
    "tracepoint_table": lambda f: f.tracepoint_table("sched:sched_switch").num_rows,
}


@pytest.mark.parametrize("call", sorted(PIPE_CALLS))
def test_scheduler_analyses_of_a_cut_pipe_recording(call, tmp_path):
    # Pipe data carries its tracing data in front: a cut keeps it, and the analyses give the
    # complete records' results. Nothing is lost at open; the cut record is said once.
    src = recording("sched-pipe.data")
    data = src.read_bytes()
    offsets = [r.offset for r in perfdata.open(src).records(order="file")]
    at = offsets[len(offsets) // 2]
    path = tmp_path / "cut-pipe.data"
    path.write_bytes(data[: at + 12])
    with said() as w:
        f = perfdata.open(path)
        assert PIPE_CALLS[call](f) > 0
        PIPE_CALLS[call](f)
    assert len(w) == 1 and w[0].startswith(f"{path}: bad ") and f" record at {at:#x}: truncated input" in w[0], w
    with pytest.raises(perfdata.PerfDataError, match=f"bad .* record at {at:#x}"):
        PIPE_CALLS[call](perfdata.open(path, strict=True))
    with said() as w:
        assert PIPE_CALLS[call](perfdata.open(src, strict=True)) > 0
    assert w == []


def test_module_functions_say_the_problems_of_their_files(cut, tmp_path):
    with said() as w:
        g = perfdata.flamegraph_diff(cut.path, cut.intact)
    assert g.total > 0
    cut.check([], w)
    with said() as opened:
        f = perfdata.open(cut.path)
    with said() as w:
        perfdata.flamegraph_diff(f, f)
    cut.check(opened, w)
    with said() as w:
        done = perfdata.export_dataset([cut.path, cut.intact], tmp_path / "fleet")
    assert [d["status"] for d in done] == ["damaged", "ok"]
    assert w == [f"{cut.path}: {e}" for e in done[0]["errors"]] and len(w) >= 2
    assert any(e.startswith(cut.record()) for e in done[0]["errors"])
    with said() as w:
        assert perfdata.read_samples(cut.path).num_rows > 0
    cut.check([], w)


def damaged_samples(tmp_path, which):
    """quickstart.data with the callchain length of the samples `which` (indexes in file order)
    overwritten: nothing is lost at open, and the reading skips those records."""
    src = recording("quickstart.data")
    victims = [perf_samples(src)[i] for i in which]
    data = bytearray(src.read_bytes())
    for v in victims:
        assert v.callchain is not None
        # IP|TID|TIME|CALLCHAIN: the callchain's nr is the 4th u64 of the body
        struct.pack_into("<Q", data, v.offset + 8 + 24, 1 << 40)
    path = tmp_path / f"damaged-{'-'.join(map(str, which))}.data"
    path.write_bytes(bytes(data))
    return path, victims


def test_strict_makes_damage_an_error(cut, tmp_path):
    # The opening found damage (perf never finalised the header): an error at once.
    killed = recording("killed.data")
    with pytest.raises(perfdata.PerfDataError) as e:
        perfdata.open(killed, strict=True)
    assert str(e.value).startswith(f"{killed}: ") and "data size is 0" in str(e.value)
    assert str(e.value).endswith("; strict=True makes damage an error") and e.value.path == str(killed)
    # The cut file, at the opening or at the first reading.
    with said() as w, pytest.raises(perfdata.PerfDataError, match=f"^{cut.path}: "):
        perfdata.open(cut.path, strict=True).folded()
    assert w == []
    # The reading finds it: an error after the call has run, the first problem and the count;
    # every call on the damaged file, as its results come from the same damage.
    path, (victim,) = damaged_samples(tmp_path, [3])
    f = perfdata.open(path, strict=True)
    with said() as w:
        # (to_arrow first: the stack folding skips this sample without a word, the CLI's
        # `folded` too; once the file's log has the problem, every call raises.)
        for call in (f.to_arrow, f.folded, lambda: list(f.samples()), lambda: list(f.script()), f.report):
            with pytest.raises(perfdata.PerfDataError) as e:
                call()
            assert str(e.value) == (
                f"{path}: bad SAMPLE record at {victim.offset:#x}: {e.value.args[0].split(': ', 2)[2].split(';')[0]}"
                "; strict=True makes damage an error"
            )
            assert e.value.path == str(path)
    assert w == []  # an error instead of the warning
    # Without strict, the same file: one warning, the other samples.
    with said() as w:
        g = perfdata.open(path)
        assert len(g.to_arrow()) == len(perf_samples(recording("quickstart.data"))) - 1
        g.folded()
    assert len(w) == 1 and w[0].startswith(f"{path}: bad SAMPLE record at {victim.offset:#x}: "), w
    # Two problems: the message counts the other.
    path, victims = damaged_samples(tmp_path, [3, 5])
    with pytest.raises(perfdata.PerfDataError, match=r" \(and 1 more problem\); strict=True makes damage an error$"):
        perfdata.open(path, strict=True).to_arrow()


def test_an_iterator_that_raised_says_its_problem_when_dropped(tmp_path):
    # records(strict=True) raises at the damaged record; the iterator, dropped while that error
    # propagates, says it as a warning too (and the error stays the one raised).
    path, (victim,) = damaged_samples(tmp_path, [3])
    f = perfdata.open(path)
    with said() as w:
        with pytest.raises(perfdata.PerfDataError) as e:
            for _ in f.samples(order="file", strict=True):
                pass
        assert e.value.offset == victim.offset
    assert len(w) == 1 and w[0].startswith(f"{path}: bad SAMPLE record at {victim.offset:#x}: "), w


def test_warnings_can_be_errors(cut):
    with warnings.catch_warnings():
        warnings.simplefilter("error", perfdata.PerfDataWarning)
        with pytest.raises(perfdata.PerfDataWarning, match=f"^{cut.path}: "):
            perfdata.open(cut.path).folded()
    assert issubclass(perfdata.PerfDataWarning, UserWarning)
    assert perfdata.PerfDataWarning.__doc__ and "strict=True" in perfdata.PerfDataWarning.__doc__


def test_unnamed_frames_are_in_diagnostics_with_their_cause_and_warn_nothing():
    # The fixtures' symbols, but spin's stand-in root has a taskset without symbols: its frame,
    # and the addresses no mapping covers, are counted with their causes (as the CLI's line).
    td = perfout.TESTDATA
    f = perfdata.open(td / "fp.data")
    with said() as got:
        f.folded(
            symfs=td / "folded" / "root",
            buildid_dir=td / "folded" / "no-buildid-cache",
            kallsyms=str(td / "folded" / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
        )
    assert got == []
    root = td / "folded" / "root"
    assert f.diagnostics == [
        "12 addresses unnamed in 2 DSOs: [unknown] (11): no mapping covers 0x7fe7a9ef2ad7; "
        f"/usr/bin/taskset (1): {root}/usr/bin/taskset has no function symbols (no .symtab or .dynsym)"
    ]
