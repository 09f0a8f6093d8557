#!/usr/bin/env python3
"""perf script's text, before and after a change: two perfdata binaries and `perf script`
interleaved (best of REPS, default 3), to /dev/null and to files in bench/work/, with GNU time's
peak RSS; both outputs must equal perf's.

    python3 bench/script_ab.py BEFORE_BINARY AFTER_BINARY [FILE]

FILE defaults to bench/work/script-big.data (recorded by bench/script.sh).
"""
import filecmp, os, subprocess, sys, time

before, after = sys.argv[1], sys.argv[2]
f = sys.argv[3] if len(sys.argv) > 3 else "bench/work/script-big.data"
reps = int(os.environ.get("REPS", "3"))
runs = {"before": [before, "script", f], "after": [after, "script", f], "perf": ["perf", "script", "-i", f]}
res = {}
for kind in ("null", "file"):
    for _ in range(reps):
        for name, cmd in runs.items():
            dest = "/dev/null" if kind == "null" else f"bench/work/script-{name}.txt"
            with open(dest, "wb") as out:
                t = time.perf_counter()
                r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=out, stderr=subprocess.PIPE)
                el = time.perf_counter() - t
            b, m = res.get((name, kind), (1e9, 0))
            res[(name, kind)] = (min(b, el), max(m, int(r.stderr.decode().strip().splitlines()[-1])))
    print(os.popen("uptime").read().strip(), flush=True)
for (name, kind), (b, m) in sorted(res.items()):
    print(f"{name:7} -> {kind}: {b:6.2f} s, peak RSS {m / 1024:7.1f} MB")
for kind in ("null", "file"):
    p = res[("perf", kind)][0]
    print(f"to {kind}: perf/before {p / res[('before', kind)][0]:.1f}x, perf/after {p / res[('after', kind)][0]:.1f}x")
for name in ("before", "after"):
    same = filecmp.cmp(f"bench/work/script-{name}.txt", "bench/work/script-perf.txt", shallow=False)
    print(f"{name}: output {'identical to' if same else 'DIFFERS from'} perf's")
