"""``PerfData.annotate``: each instruction's share equals what perf 6.1's ``perf annotate --stdio``
printed for it (testdata/F.annotate-NAME, stored by testdata/gen-annotate.sh), and the instruction
text is objdump's as perf shows it. spin comes from a build-id cache made here, as
perfdata-cli/tests/annotate.rs makes it; objdump (binutils) must be on PATH."""

from __future__ import annotations

import re
import shutil

import pytest

import perfdata
import perfout

TD = perfout.TESTDATA
LINE = re.compile(r"^\s+(\d+\.\d+) :\s+([0-9a-f]+):\s+(.*)$")


@pytest.fixture
def symbols(tmp_path):
    spin = tmp_path / "debug/.build-id/40/19a4393ac48b472730234207e7f39e5272adc9"
    spin.mkdir(parents=True)
    shutil.copy(TD / "bin/spin", spin / "elf")
    (tmp_path / "symfs").mkdir()
    return dict(buildid_dir=tmp_path / "debug", symfs=tmp_path / "symfs",
                kallsyms=TD / "folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")


def perf_lines(name):
    """(address, percent, instruction) of each instruction line perf printed."""
    out = []
    for line in (TD / name).read_text().splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(2), 16), float(m.group(1)), m.group(3).strip()))
    return out


@pytest.mark.parametrize("rec,symbol,percent_type,stored", [
    ("fp.data", "leaf", "local-period", "fp.data.annotate-leaf"),
    ("fp.data", "outer", "local-hits", "fp.data.annotate-local-hits-outer"),
    ("dwarf.data", "outer", "local-period", "dwarf.data.annotate-outer"),
])
def test_each_instruction_has_perfs_share(symbols, rec, symbol, percent_type, stored):
    with perfdata.open(TD / rec) as f:
        a = f.annotate(symbol, percent_type=percent_type, **symbols)
    want = perf_lines(stored)
    assert len(want) > 5
    assert list(a.address) == [w[0] for w in want]
    assert [round(p, 2) for p in a.percent] == [w[1] for w in want]
    assert list(a.instruction) == [w[2] for w in want]
    assert set(a.symbol) == {symbol} and set(a.dso) == {"/work/main/testdata/bin/spin"}
    assert a.samples.sum() > 0 and a.source_line.notna().any()


def test_every_symbol_hottest_first(symbols):
    with perfdata.open(TD / "fp.data") as f:
        a = f.annotate(**symbols)
        assert {"leaf", "outer"} <= set(a.symbol)
        assert f.diagnostics  # kernel symbols cannot be annotated (perf needs a vmlinux)


def test_a_symbol_without_samples_is_a_value_error(symbols):
    with perfdata.open(TD / "fp.data") as f:
        with pytest.raises(ValueError, match="no_such_function"):
            f.annotate("no_such_function", **symbols)
        with pytest.raises(ValueError, match="percent_type"):
            f.annotate("leaf", percent_type="most", **symbols)
