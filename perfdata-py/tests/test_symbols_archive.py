"""``symbols=``: a symbol archive names the frames on a machine without the recording's files.

The archive is written here as ``perfdata archive`` lays it out (a zstd-compressed tar:
``.build-id/xx/rest/elf`` by build id, ``[kernel.kallsyms]/BUILD_ID/kallsyms``; docs/archive.md),
from testdata's copies of fp.data's binaries, compressed with pyarrow's zstd codec: an archive
made by another writer than ours. Read with no other source of symbols (an empty --symfs and
build-id cache), the folded stacks equal perf's stored output.
"""

from __future__ import annotations

import io
import tarfile

import pyarrow as pa
import pytest

import perfdata
import perfout

FOLDED = perfout.TESTDATA / "folded"
KALLSYMS = FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"


def stored_folded(suffix: str) -> dict:
    out = {}
    for line in (perfout.TESTDATA / f"fp.data.{suffix}").read_text().splitlines():
        stack, weight = line.rsplit(" ", 1)
        out[stack] = int(weight)
    return out


def write_archive(path, entries):
    """A zstd-compressed tar of ``entries`` (name → bytes)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(pa.compress(buf.getvalue(), codec="zstd", asbytes=True))


GNU_BUILD_ID = b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00"


def build_id(elf: bytes) -> str:
    """The 20-byte GNU build id note's value, in hex."""
    at = elf.index(GNU_BUILD_ID) + len(GNU_BUILD_ID)
    return elf[at : at + 20].hex()


@pytest.fixture
def fp_archive(tmp_path):
    """What ``perfdata archive fp.data`` collects from testdata/folded: the binaries by build id
    (libc, which has no BUILD_ID entry in fp.data, through the archive's DSO index), their
    separate debug files, and the recorded kernel's kallsyms."""
    root = FOLDED / "root"
    entries, index = {}, []
    for f in root.rglob("*"):
        data = f.read_bytes() if f.is_file() else b""
        if not data.startswith(b"\x7fELF") or GNU_BUILD_ID not in data:
            continue
        bid = build_id(data)
        kind = "debug" if f.suffix == ".debug" else "elf"
        entries[f".build-id/{bid[:2]}/{bid[2:]}/{kind}"] = data
        if kind == "elf":
            index.append(f"{bid} /{f.relative_to(root)}\n")
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        kernel = next(b.hex for b in f.header.build_ids if b.filename == "[kernel.kallsyms]")
    entries[f"[kernel.kallsyms]/{kernel}/kallsyms"] = KALLSYMS.read_bytes()
    entries["perfdata-dsos.txt"] = "".join(sorted(index)).encode()
    assert sum(k.endswith("/elf") for k in entries) >= 3, entries.keys()
    path = tmp_path / "fp.symbols"
    write_archive(path, entries)
    return path


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No symbols but the archive's: empty --symfs and build-id cache, the unpacked archives in
    the test's own cache directory."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return dict(symfs=empty, buildid_dir=empty)


@pytest.mark.parametrize("compat,suffix", [("stackcollapse-pl", "folded-stackcollapse-pl"),
                                           ("perf-script-py", "folded-perf-script-py")])
def test_an_archive_names_the_frames_as_the_files_do(fp_archive, nowhere, compat, suffix):
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        unnamed = f.folded(compat=compat, **nowhere)
        named = f.folded(compat=compat, symbols=fp_archive, **nowhere)
    want = stored_folded(suffix)
    assert named == want
    assert unnamed != want


def test_script_takes_the_archive_too(fp_archive, nowhere):
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        lines = list(f.script(symbols=fp_archive, **nowhere))
        assert any("__libc_start_call_main" in line for line in lines)
        assert not any("__libc_start_call_main" in line for line in f.script(**nowhere))


def test_a_damaged_archive_is_a_value_error(tmp_path, nowhere):
    bad = tmp_path / "bad.symbols"
    bad.write_bytes(b"\x28\xb5\x2f\xfd not really zstd")
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        with pytest.raises(ValueError, match="symbols: .*(truncated or damaged|holds no entries)"):
            f.folded(symbols=bad, **nowhere)
