#!/usr/bin/env bash
# Block I/O latency, side by side in one run on the same recording:
#   perfdata block latency --format csv        (issue -> complete pairing by dev,sector, a row per I/O)
#   perfdata block latency                     (the default: bcc's log2 histogram of the latencies)
#   perf script | awk                          (the classic pipeline: the same dev+sector pairing
#                                               over perf script's text, printing one latency per I/O)
# Checks that both pair the same number of I/Os with the same total latency (µs), prints wall
# seconds, peak RSS and the ratio.
#
#   bench/block.sh [FILE]   (default FILE: records bench/work/block-big.data once, not committed:
#                            perf record -a block:block_rq_issue/complete over 1 M direct 512-byte
#                            reads of a 512 MiB file, CPU 1 kept busy)
# Each command runs REPS times (default 3); the best wall time and the largest peak RSS count.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/block-big.data}
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  # Direct 512-byte reads of a 512 MiB file (this VM does not let root open the disk itself).
  img=bench/work/blockbench.img
  [ -e $img ] || { dd if=/dev/urandom of=$img bs=1M count=512 status=none; sync; }
  echo "recording $FILE (1 M direct 512-byte reads of $img)..." >&2
  taskset -c 1 nice -n 19 sh -c 'while :; do :; done' &
  busy=$!
  perf record -a -m 4096 -o "$FILE" -e block:block_rq_issue -e block:block_rq_complete -- \
    dd if=$img of=/dev/null bs=512 count=1000000 iflag=direct > /dev/null 2>&1 || true
  kill $busy
fi
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work
# perf script's block lines: "comm pid [cpu] secs.usec: block:block_rq_issue: MAJ,MIN RWBS BYTES () SECTOR + N ..."
# (complete has no BYTES): the key is the device and the word after "()".
cat > $W/pair.awk <<'AWK'
{
  for (i = 1; i <= NF; i++) if ($i ~ /^block:block_rq_/) break
  t = $(i - 1); sub(/:$/, "", t); split(t, s, "."); us = s[1] * 1000000 + s[2]
  for (j = i + 2; j <= NF && $j != "()"; j++) ;
  key = $(i + 1) " " $(j + 1)
  if ($i ~ /issue/) start[key] = us
  else if (key in start) { print us - start[key]; delete start[key] }
}
AWK

best() { # name, output file, shell command: prints "name best_seconds max_rss_kb"
  local name=$1 out=$2 cmd=$3 b=999999 rss=0
  for _ in $(seq "$REPS"); do
    local s e r
    s=$(date +%s.%N)
    /usr/bin/time -f %M -o $W/time.txt sh -c "$cmd" > "$out" 2>/dev/null
    e=$(date +%s.%N)
    r=$(cat $W/time.txt)
    b=$(python3 -c "print(min($b, $e - $s))")
    rss=$(( r > rss ? r : rss ))
  done
  echo "$name $b $rss"
}
{
  best perfdata $W/ours.block "$P block latency --format csv $FILE"
  best perfdata-hist $W/ours.hist "$P block latency $FILE"
  best perf-script-awk $W/awk.block "perf script -i $FILE | awk -f $W/pair.awk"
} | tee $W/block-results.txt
python3 - "$W" <<'PY'
import csv, sys
w = sys.argv[1]
ours = [int(r["latency_ns"]) // 1000 for r in csv.DictReader(open(f"{w}/ours.block"))]
awk = [int(l) for l in open(f"{w}/awk.block") if l.strip()]
print(f"perfdata: {len(ours)} I/Os, {sum(ours)} us in all; awk: {len(awk)} I/Os, {sum(awk)} us in all")
r = {l.split()[0]: l.split()[1:] for l in open(f"{w}/block-results.txt")}
a = r["perf-script-awk"]
for name, what in (("perfdata", "--format csv"), ("perfdata-hist", "histogram")):
    o = r[name]
    print(f"perfdata ({what}) {float(o[0]):.3f} s ({int(o[1]) / 1024:.1f} MB), perf script | awk "
          f"{float(a[0]):.3f} s ({int(a[1]) / 1024:.1f} MB): {float(a[0]) / float(o[0]):.1f}x")
PY
