#!/usr/bin/env bash
# Reader speed, side by side in one run: perfdata (framing only, full decode in file order, full
# decode in time order), perf's own reader (`perf report --stats`), and the linux-perf-data crate
# 0.13 doing a full parse. Prints wall seconds, peak RSS and ratios against each peer.
#
#   bench/compare.sh [FILE]      (default: records bench/work/big.data once, ~200 MB, not committed)
#
# Each command runs REPS times (default 3); the best wall time counts.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/big.data}
mkdir -p bench/work
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf record -F 20000 -g over xz + python for ~30 s)..." >&2
  perf record -q -F 20000 -g -o "$FILE" -- sh -c 'for i in 1 2; do
      timeout 30 sh -c "xz -6 -T1 -c /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null > /dev/null" &
      timeout 30 python3 -c "import json
while True: json.dumps({\"a\": [1, 2, 3]})" & done; wait' || true
fi
cargo build --release -q --example read_bench -p perfdata-core
(cd bench/peer-lpd && CARGO_TARGET_DIR=../work/target cargo build --release -q)
OURS=target/release/examples/read_bench
PEER=bench/work/target/release/peer-lpd
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

best() { # name, command...: prints "name best_seconds max_rss_kb"
  local name=$1; shift; local b=999999 rss=0
  for _ in $(seq "$REPS"); do
    # Wall time from date (ns; /usr/bin/time's %e has only 10 ms resolution), peak RSS from time.
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o bench/work/time.txt "$@" > /dev/null 2>bench/work/err.txt || { cat bench/work/err.txt >&2; }
    t1=$(date +%s%N)
    read -r m < bench/work/time.txt
    t=$(python3 -c "print(($t1 - $t0) / 1e9)")
    b=$(python3 -c "print(min($b, $t))"); rss=$m
  done
  echo "$name $b $rss"
}
{
  best perfdata-frames $OURS frames "$FILE"
  best perfdata-decode $OURS decode "$FILE"
  best perfdata-time $OURS time "$FILE"
  best perf-report-stats perf report --stats -i "$FILE"
  best linux-perf-data $PEER "$FILE"
} | tee bench/work/results.txt
python3 - "$FILE" <<'PY'
import os, sys
r = {l.split()[0]: (float(l.split()[1]), int(l.split()[2])) for l in open("bench/work/results.txt")}
size = os.path.getsize(sys.argv[1]) / 1e6  # the FILE measured (the script's argument)
print(f"\nfile: {size:.0f} MB")
print(f"{'reader':20} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'vs perf':>8} {'vs lpd':>8}")
for k, (t, m) in r.items():
    print(f"{k:20} {t:8.3f} {size / max(t, 1e-9):8.0f} {m / 1024:12.0f} {r['perf-report-stats'][0] / max(t, 1e-9):8.2f} {r['linux-perf-data'][0] / max(t, 1e-9):8.2f}")
PY
