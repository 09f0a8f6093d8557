#!/usr/bin/env python3
"""Benchmark: the samples of a big perf.data as a table, perfdata vs ``perf script`` + regex.

    .venv/bin/python bench/py_to_arrow.py [FILE]         # FILE defaults to bench/work/py_to_arrow.data
    .venv/bin/python bench/py_to_arrow.py --record       # first record bench/work/py_to_arrow.data (root):
                                                         # ~1 M cpu-clock samples with callchains (20 s)

Each method runs in a fresh child interpreter (best of --repeat runs) and reports wall time and the
child's peak RSS:
- ``perfdata.to_arrow``: ``PerfData.to_arrow("samples")`` (all columns, callchains included);
- ``ArrowTable.to_pandas()``: the same, then a pandas DataFrame (list/string columns Arrow-backed);
- ``pyarrow.Table.to_pandas()``: pyarrow's own conversion of the same table (the peer of the line
  above: its "call" column is the conversion alone for both);
- ``perf script + regex``: what users do today: ``perf script --ns -F pid,tid,time,period,event,ip -G``
  (no callchains, no symbols, which favours it) parsed with a regex into a pandas DataFrame.
Needs pyarrow and pandas in the interpreter running it, and perf for the last method.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "work" / "py_to_arrow.data"

CHILD = r"""
import json, resource, sys, time
method, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if method == "to_arrow":
    import perfdata, pyarrow as pa
    f = perfdata.open(path)
    t1 = time.perf_counter()
    t = f.to_arrow("samples")
    build = time.perf_counter() - t1
    table = pa.table(t)
    rows, nbytes = table.num_rows, table.nbytes
elif method == "to_pandas":
    import perfdata, pandas, pyarrow  # imported before the clock starts, as for the peer
    t = perfdata.open(path).to_arrow("samples")
    t1 = time.perf_counter()
    df = t.to_pandas()
    build = time.perf_counter() - t1  # the conversion alone
    rows, nbytes = len(df), int(df.memory_usage(deep=False).sum())
elif method == "pyarrow_pandas":
    import perfdata, pandas, pyarrow as pa
    table = pa.table(perfdata.open(path).to_arrow("samples"))
    t1 = time.perf_counter()
    df = table.to_pandas()
    build = time.perf_counter() - t1  # pyarrow's own conversion of the same table
    rows, nbytes = len(df), int(df.memory_usage(deep=False).sum())
elif method == "perf_script":
    import re, subprocess, pandas as pd
    out = subprocess.run(
        ["perf", "script", "-i", path, "--ns", "-F", "pid,tid,time,period,event,ip", "-G"],
        capture_output=True, text=True, check=True).stdout
    rx = re.compile(r"^\s*(-?\d+)/(-?\d+)\s+(\d+)\.(\d+):\s+(\d+)\s+(\S+?):\s+([0-9a-f]+)$", re.M)
    rows = [(int(a), int(b), int(d) * 10**9 + int(e), int(p), ev, int(ip, 16))
            for a, b, d, e, p, ev, ip in rx.findall(out)]
    df = pd.DataFrame(rows, columns=["pid", "tid", "time", "period", "event", "ip"])
    rows, nbytes = len(df), int(df.memory_usage(deep=False).sum())
secs = time.perf_counter() - t0
build = locals().get("build")
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps(dict(secs=secs, build=build, rows=rows, nbytes=nbytes, rss=max(rss, rss_children))))
"""


def record(path: Path, seconds: float) -> None:
    """cpu-clock every 10 µs on every CPU (perf throttles to ~50 k samples/s on the 2-CPU VM: 20 s
    give about 1 M samples), with frame-pointer callchains, every CPU kept busy."""
    path.parent.mkdir(parents=True, exist_ok=True)
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(os.cpu_count() or 2)]
    try:
        subprocess.run(
            ["perf", "record", "-q", "-a", "-g", "-e", "cpu-clock", "-c", "10000", "-o", str(path),
             "--", "sleep", str(seconds)],
            check=True,
        )  # fmt: skip
    finally:
        for p in busy:
            p.kill()


def run(method: str, path: Path, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, method, str(path)], capture_output=True, text=True
        )
        if out.returncode != 0:
            raise SystemExit(f"{method} failed:\n{out.stderr}")
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or r["secs"] < best["secs"]:
            best = r
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--record", action="store_true", help="record the file first (needs root)")
    ap.add_argument("--seconds", type=float, default=20, help="recording length for --record")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-perf", action="store_true", help="do not run the perf script method")
    a = ap.parse_args()
    if a.record:
        record(a.file, a.seconds)
    if not a.file.exists():
        raise SystemExit(f"{a.file} does not exist: give a perf.data file or use --record")
    methods = ["to_arrow", "to_pandas", "pyarrow_pandas"]
    if not a.skip_perf and shutil.which("perf"):
        methods.append("perf_script")
    size = a.file.stat().st_size
    print(f"{a.file}: {size / 2**20:.1f} MiB")
    print("seconds: the whole job in a fresh interpreter (imports included); call: to_arrow() alone,")
    print("or the pandas conversion alone of the table to_arrow() built")
    print(f"{'method':<28} {'rows':>10} {'seconds':>9} {'call':>11} {'table MiB':>10} {'peak RSS MiB':>13}")
    for m in methods:
        r = run(m, a.file, 1 if m == "perf_script" else a.repeat)
        label = {"to_arrow": "perfdata.to_arrow", "to_pandas": "ArrowTable.to_pandas()",
                 "pyarrow_pandas": "pyarrow.Table.to_pandas()", "perf_script": "perf script + regex"}[m]  # fmt: skip
        print(
            f"{label:<28} {r['rows']:>10} {r['secs']:>9.3f} "
            f"{'' if r['build'] is None else format(r['build'], '.3f'):>11} {r['nbytes'] / 2**20:>10.1f} "
            f"{r['rss'] / 2**20:>13.1f}"
        )
        time.sleep(0.1)


if __name__ == "__main__":
    main()
