#!/usr/bin/env bash
# perf script's text, side by side in one run on the same -g recording: `perfdata script` and
# `perf script`, each writing to /dev/null and to a file (bench/work/), best of REPS (default 3)
# wall seconds and peak RSS; the two files must be byte-identical.
#
#   bench/script.sh [FILE]    (default: bench/work/script-big.data, recorded once if missing:
#                              perf record -e cpu-clock -c 20000 -g over xz + python on both
#                              CPUs for 40 s, ~160 MB, ~1.6 M samples; not committed)
# Symbols come from this machine (~/.debug, the binaries, /proc/kallsyms), for both.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/script-big.data}
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE ..." >&2
  perf record -q -e cpu-clock -c 20000 -g -o "$FILE" -- sh -c 'for i in 1 2; do
      timeout 40 sh -c "while :; do xz -6 -T1 -c /usr/lib/x86_64-linux-gnu/libc.so.6 > /dev/null; done" &
      timeout 40 python3 -c "import json
while True: json.dumps({\"a\": [1, 2, 3]})" & done; wait' || true
fi
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work
python3 - "$REPS" "$P" "$FILE" "$W" <<'PY'
import filecmp, os, subprocess, sys, time
reps, p, f, w = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
runs = {
    "perfdata": [p, "script", f],
    "perf": ["perf", "script", "-i", f],
}
res = {}
for name, cmd in runs.items():
    for dest in ("/dev/null", f"{w}/script-{name}.txt"):
        best, rss = 1e9, 0
        for _ in range(reps):
            with open(dest, "wb") as out:
                t = time.perf_counter()
                r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=out, stderr=subprocess.PIPE)
                el = time.perf_counter() - t
            best = min(best, el)
            rss = max(rss, int(r.stderr.decode().strip().splitlines()[-1]))
        kind = "null" if dest == "/dev/null" else "file"
        res[(name, kind)] = (best, rss)
        print(f"{name:9} -> {kind}: {best:6.2f} s, peak RSS {rss / 1024:7.1f} MB", flush=True)
a, b = f"{w}/script-perfdata.txt", f"{w}/script-perf.txt"
same = filecmp.cmp(a, b, shallow=False)
print(f"outputs {'identical' if same else 'DIFFER'} ({os.path.getsize(b) / 1e6:.0f} MB, "
      f"{sum(1 for _ in open(b, 'rb'))} lines)")
for kind in ("null", "file"):
    print(f"to {kind}: perf script / perfdata script = {res[('perf', kind)][0] / res[('perfdata', kind)][0]:.1f}x")
PY
