"""perf's own outputs, stored beside the recordings, parsed for comparison (perf is the oracle).

- ``<file>.header``: ``perf report --header-only -I``
- ``<file>.dump`` (or ``.dump.zst`` for the shared corpus): ``perf report -D``
- ``<file>.stats``: ``perf report --stats``
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"
CORPUS = REPO.parent / "shared" / "corpus"
CORPUS_PERF = TESTDATA / "corpus-perf"


def cargo_built(name: str) -> Optional[Path]:
    """A binary cargo built in the workspace's target dir (``perfdata``, ``examples/make-fleet``),
    release first, or None."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        p = target / profile / name
        if p.exists():
            return p
    return None


# The committed recordings a fleet is made of (make-fleet's SOURCES), and the rules both fleets
# follow (make-fleet's, and examples/fleet.ipynb's made with PerfData.write): member i is written
# from FLEET_SOURCES[(i // 10 + i) % 10], named host i % 10, dated day (i // 10) % 7 of 2026-11.
FLEET_SOURCES = [
    "fp.data",
    "multi.data",
    "multi-g.data",
    "cgroup.data",
    "python.data",
    "group.data",
    "clock-mono.data",
    "syscalls.data",
    "mem.data",
    "switch-ns.data",
]


# 2026-11-01 00:00 UTC: the fleet's first day.
FLEET_DAY0 = 1_793_491_200


def fleet_member(i: int) -> tuple:
    """(source recording, host, date) of the fleet's member ``i``."""
    return FLEET_SOURCES[(i // 10 + i) % 10], f"host{i % 10:02}", f"2026-11-{1 + (i // 10) % 7:02}"


def make_fleet(out: Path, n: int) -> List[tuple]:
    """Write a fleet into ``out`` as ``perfdata-cli/examples/make-fleet.rs`` does, with the
    package's own writer (``PerfData.write``; no cargo build needed): ``n`` recordings made from
    the committed FLEET_SOURCES with HOSTNAME ``hostNN``, an argument ``--fleet-member=I``
    appended to CMDLINE (no two have the same bytes) and the modification time (perf's "captured
    on", the dataset's ``date=``) on their day, plus three damaged files (``damaged-truncated``:
    fp.data cut in the middle of its records, ``damaged-corrupt``: quickstart.data with 64 bytes
    of 0xff among them, ``damaged-notperf``: text). Returns (path, source, host, date) per file,
    ``-`` for the damaged ones' host and date (and source, for the text)."""
    import perfdata

    out.mkdir(parents=True, exist_ok=True)
    listing = []
    for i in range(n):
        source, host, date = fleet_member(i)
        path = out / f"{host}-{i:05}.data"
        with perfdata.open(TESTDATA / source) as f:
            f.write(path, hostname=host, cmdline=[*(f.header.cmdline or []), f"--fleet-member={i}"])
        mtime = FLEET_DAY0 + (i // 10) % 7 * 86_400 + (i % 1440) * 60
        os.utime(path, (mtime, mtime))
        listing.append((str(path), source, host, date))
    damaged = []
    h = _open_header(TESTDATA / "fp.data")
    cut = (TESTDATA / "fp.data").read_bytes()[: h.data_offset + h.data_size // 2]
    damaged.append((out / "damaged-truncated.data", cut, "fp.data"))
    h = _open_header(TESTDATA / "quickstart.data")
    mid = h.data_offset + h.data_size // 2
    corrupt = bytearray((TESTDATA / "quickstart.data").read_bytes())
    corrupt[mid : mid + 64] = b"\xff" * 64
    damaged.append((out / "damaged-corrupt.data", bytes(corrupt), "quickstart.data"))
    damaged.append((out / "damaged-notperf.data", b"this is not a perf.data file\n" * 100, "-"))
    for path, data, source in damaged:
        path.write_bytes(data)
        os.utime(path, (FLEET_DAY0, FLEET_DAY0))
        listing.append((str(path), source, "-", "-"))
    return listing


def _open_header(path: Path):
    import perfdata

    with perfdata.open(path) as f:
        return f.header


def perf_samples(source: str) -> int:
    """perf report --stats's SAMPLE count of a committed recording."""
    text = (TESTDATA / f"{source}.stats").read_text()
    line = next(l for l in text.splitlines() if l.strip().startswith("SAMPLE events:"))
    return int(line.split()[2])


def committed_recordings() -> List[Path]:
    """testdata/*.data recordings (files, or ``perf record --threads`` directories) that have perf's
    header output beside them."""
    return sorted(p for p in TESTDATA.glob("*.data") if p.with_name(p.name + ".header").exists())


def corpus_recordings() -> List[Path]:
    """Shared-corpus files that perf read without error (empty when the corpus is absent)."""
    out = []
    if not CORPUS.is_dir():
        return out
    for sub in ("quipper", "mslt", "lnt"):
        for p in sorted((CORPUS / sub).glob("*")):
            rc = CORPUS_PERF / sub / (p.name + ".rc")
            if p.is_file() and rc.exists() and rc.read_text().split() == ["dump", "0", "header", "0"]:
                out.append(p)
    return out


def perf_output(recording: Path, kind: str) -> Optional[str]:
    """perf's stored output of ``kind`` ('header' or 'dump') for a recording, or None."""
    plain = recording.with_name(recording.name + "." + kind)
    if plain.exists():
        return plain.read_text(errors="replace")
    # gen-outputs.sh stores outputs over 1 MB zstd-compressed.
    zst = plain.with_name(plain.name + ".zst")
    if zst.exists():
        return _unzstd(zst)
    if recording.parent.parent == CORPUS:
        stored = CORPUS_PERF / recording.parent.name / (recording.name + "." + kind)
        if stored.exists():
            return stored.read_text(errors="replace")
        zst = stored.with_name(stored.name + ".zst")
        if zst.exists():
            return _unzstd(zst)
    return None


def perf_failed(recording: Path) -> bool:
    """perf reported an error while dumping (its dump is then a prefix of the records)."""
    err = perf_output(recording, "dump.err")
    return err is not None and "Error" in err


def _unzstd(path: Path) -> Optional[str]:
    try:
        import zstandard  # type: ignore

        with open(path, "rb") as f:
            data = zstandard.ZstdDecompressor().stream_reader(f).read()
        return data.decode(errors="replace")
    except ImportError:
        pass
    if shutil.which("zstd"):
        out = subprocess.run(["zstd", "-dc", str(path)], capture_output=True, check=True)
        return out.stdout.decode(errors="replace")
    return None


# ------------------------------------------------------------------------------------------------
# perf report --header-only -I


@dataclass
class PerfEvent:
    """One ``# event :`` line."""

    name: str
    ids: List[int]
    fields: Dict[str, str]


@dataclass
class PerfHeader:
    """The ``# key : value`` lines of the header output."""

    values: Dict[str, str] = field(default_factory=dict)
    events: List[PerfEvent] = field(default_factory=list)


_BRACED = {
    "{ sample_period, sample_freq }": "sample_period",
    "{ wakeup_events, wakeup_watermark }": "wakeup_events",
    "{ bp_addr, config1 }": "config1",
    "{ bp_len, config2 }": "config2",
}


def parse_event_line(text: str) -> PerfEvent:
    """Parse perf's ``event : name = …, id = { … }, type = 1, …`` line."""
    ids: List[int] = []
    m = re.search(r"id = \{ ([^}]*) \}", text)
    if m:
        ids = [int(x) for x in m.group(1).replace(",", " ").split()]
        text = text[: m.start()] + text[m.end():]
    for braced, key in _BRACED.items():
        text = text.replace(braced, key)
    m = re.match(r"name = (.*?), ", text + ", ")
    name = m.group(1) if m else ""
    fields: Dict[str, str] = {}
    for part in text.split(", "):
        if " = " in part and not part.startswith("name = "):
            k, v = part.split(" = ", 1)
            fields[k.strip()] = v.strip()
    return PerfEvent(name=name, ids=ids, fields=fields)


def parse_header(text: str) -> PerfHeader:
    h = PerfHeader()
    last = None
    for line in text.splitlines():
        if not line.startswith("#"):
            # a value with newlines (a shell script in the cmdline) continues on the next lines
            if last is not None:
                h.values[last] += "\n" + line
            continue
        last = None
        if not line.startswith("# ") or " : " not in line:
            continue
        key, value = line[2:].split(" : ", 1)
        key = key.strip()
        if key == "event":
            h.events.append(parse_event_line(value))
        elif key not in h.values:
            h.values[key] = value
            last = key
    return h


# ------------------------------------------------------------------------------------------------
# perf report -D


@dataclass
class PerfSample:
    """One PERF_RECORD_SAMPLE as perf's dump prints it."""

    prefix: List[int]  # cpu and/or time, as perf prints them before the offset
    offset: int
    size: int
    misc: int
    pid: int
    tid: int
    ip: int
    period: int
    addr: int
    callchain: Optional[List[int]] = None
    details: List[str] = field(default_factory=list)

    def fields(self) -> Dict[str, object]:
        """The optional sample fields perf's dump_sample printed, decoded from the detail lines."""
        out: Dict[str, object] = {}
        regs_key = None
        for line in self.details:
            m = re.match(r"^\.\.\. (user|intr) regs: mask (0x[0-9a-f]+)", line)
            if m:
                regs_key = "regs_" + m.group(1)
                out[regs_key] = []
                continue
            m = re.match(r"^\.\.\.\. \S+ +0x([0-9a-f]+)$", line)
            if m and regs_key:
                out[regs_key].append(int(m.group(1), 16))
                continue
            regs_key = None
            m = re.match(r"^ \. data_src: (0x[0-9a-f]+|0)", line)
            if m:
                out["data_src"] = int(m.group(1), 16)
            m = re.match(r"^ \.\. phys_addr: (0x[0-9a-f]+|0)", line)
            if m:
                out["phys_addr"] = int(m.group(1), 16)
            m = re.match(r"^\.\.\. weight: (\d+)", line)
            if m:
                out["weight"] = int(m.group(1))
            m = re.match(r"^\.\.\. ustack: size (\d+)", line)
            if m:
                # perf keeps dyn_size as the size when the dump is not empty (evsel__parse_sample)
                out["stack_user_dyn_size"] = int(m.group(1))
            m = re.match(r"^\.\.\. branch stack: nr:(\d+)", line)
            if m:
                out["branch_from"], out["branch_to"] = [], []
            m = re.match(r"^\.\.\.\.\. +\d+: ([0-9a-f]+) -> ([0-9a-f]+)", line)
            if m and "branch_from" in out:
                out["branch_from"].append(int(m.group(1), 16))
                out["branch_to"].append(int(m.group(2), 16))
            m = re.match(r"^\.+ *id ([0-9a-f]+), value ([0-9a-f]+)", line)
            if m:
                out.setdefault("read_id", []).append(int(m.group(1), 16))
                out.setdefault("read_value", []).append(int(m.group(2), 16))
        return out


_SAMPLE = re.compile(
    r"^((?:\d+ )*)(?:0x)?([0-9a-f]+) \[0x([0-9a-f]+)\]: PERF_RECORD_SAMPLE\(IP, 0x([0-9a-f]+)\): "
    r"(-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+) addr: (0x[0-9a-f]+|0)"
)
_CHAIN = re.compile(r"^\.\.\. FP chain: nr:(\d+)")
_CHAIN_ENTRY = re.compile(r"^\.\.\.\.\. +\d+: ([0-9a-f]+)")


def parse_dump_samples(text: str) -> List[PerfSample]:
    """The samples of a dump, in the order perf delivered them."""
    out: List[PerfSample] = []
    chain_left = 0
    in_sample = False
    for line in text.splitlines():
        if not line.strip():
            in_sample = False
        if chain_left:
            m = _CHAIN_ENTRY.match(line)
            if m and out and out[-1].callchain is not None:
                out[-1].callchain.append(int(m.group(1), 16))
                chain_left -= 1
                continue
            chain_left = 0
        m = _SAMPLE.match(line)
        if m:
            out.append(
                PerfSample(
                    prefix=[int(x) for x in m.group(1).split()],
                    offset=int(m.group(2), 16),
                    size=int(m.group(3), 16),
                    misc=int(m.group(4), 16),
                    pid=int(m.group(5)),
                    tid=int(m.group(6)),
                    ip=int(m.group(7), 16),
                    period=int(m.group(8)),
                    addr=int(m.group(9), 16),
                )
            )
            in_sample = True
            continue
        m = _CHAIN.match(line)
        if m and out:
            out[-1].callchain = []
            chain_left = int(m.group(1))
            continue
        if in_sample and out:
            out[-1].details.append(line)
    return out


def dump_record_types(text: str) -> Dict[str, int]:
    """How many records of each type perf's dump shows (``PERF_RECORD_<TYPE>`` summary lines)."""
    counts: Dict[str, int] = {}
    for m in re.finditer(
        r"^(?:-?\d+ )*(?:0x)?[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_([A-Z0-9_]+)", text, re.M
    ):
        name = PERF_NAMES.get(m.group(1), m.group(1))
        counts[name] = counts.get(name, 0) + 1
    return counts


# perf's printed names of its own records (perf_event__names) → the PERF_RECORD_* enum names
PERF_NAMES = {
    "ATTR": "HEADER_ATTR",
    "EVENT_TYPE": "HEADER_EVENT_TYPE",
    "TRACING_DATA": "HEADER_TRACING_DATA",
    "BUILD_ID": "HEADER_BUILD_ID",
    "FEATURE": "HEADER_FEATURE",
}


@dataclass
class PerfRecordLine:
    """A record's summary line in the dump: type, the tokens before the offset, and the text after
    ``PERF_RECORD_<TYPE>``."""

    type: str
    prefix: List[str]
    offset: int
    text: str


_RECORD = re.compile(r"^((?:-?\d+ )*)(?:0x)?([0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_([A-Z0-9_]+)(.*)$")


def parse_dump_records(text: str) -> List[PerfRecordLine]:
    """Every record summary line, in the order perf delivered the records."""
    out = []
    for line in text.splitlines():
        m = _RECORD.match(line)
        if m:
            out.append(
                PerfRecordLine(
                    type=PERF_NAMES.get(m.group(3), m.group(3)),
                    prefix=m.group(1).split(),
                    offset=int(m.group(2), 16),
                    text=m.group(4),
                )
            )
    return out
