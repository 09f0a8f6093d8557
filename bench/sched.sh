#!/usr/bin/env bash
# perf sched analyses, side by side in one run on the same `perf sched record` file:
#   perfdata sched latency|map|timehist --compat perf-6.1   vs   perf sched latency|map|timehist
# Checks that each pair prints the same bytes, prints wall seconds, peak RSS (GNU time) and ratios.
#
#   bench/sched.sh [FILE]   (default FILE: records bench/work/sched-big.data once, not committed:
#                            perf sched record of `perf bench sched pipe` + `perf bench sched
#                            messaging` on both CPUs, about 1.5 M context switches)
# Each command runs REPS times (default 3); the best wall time and the largest peak RSS count.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/sched-big.data}
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf sched record: perf bench sched pipe + messaging)..." >&2
  taskset -c 1 nice -n 19 sh -c 'while :; do :; done' &
  busy=$!
  perf sched record -o "$FILE" -m 4096 -- sh -c 'perf bench sched pipe -l 600000 > /dev/null &
    perf bench sched messaging -g 4 -l 300 > /dev/null; wait' > /dev/null 2>&1 || true
  kill $busy
fi
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work

best() { # name, output file, command...: prints "name best_seconds max_rss_kb"
  local name=$1 out=$2; shift 2
  local b=999999 rss=0
  for _ in $(seq "$REPS"); do
    local s e r
    s=$(date +%s.%N)
    /usr/bin/time -f %M -o $W/time.txt "$@" > "$out" 2>/dev/null
    e=$(date +%s.%N)
    r=$(cat $W/time.txt)
    b=$(python3 -c "print(min($b, $e - $s))")
    rss=$(( r > rss ? r : rss ))
  done
  echo "$name $b $rss"
}
{
  echo "switches $(perf report --stats -i "$FILE" 2>/dev/null | awk '/sched:sched_switch stats/{getline; print $3}')"
  for cmd in latency map timehist; do
    best "perfdata-$cmd" "$W/ours.$cmd" "$P" sched "$cmd" --compat perf-6.1 "$FILE"
    best "perf-$cmd" "$W/perf.$cmd" perf sched "$cmd" -i "$FILE"
  done
} | tee $W/sched-results.txt
for cmd in latency map timehist; do
  if cmp -s "$W/ours.$cmd" "$W/perf.$cmd"; then
    echo "$cmd: identical output ($(wc -l < "$W/ours.$cmd") lines)"
  else
    echo "$cmd: OUTPUTS DIFFER: diff $W/ours.$cmd $W/perf.$cmd | head"
  fi
done
python3 - "$W/sched-results.txt" <<'PY'
import sys
r = {}
for l in open(sys.argv[1]):
    f = l.split()
    r[f[0]] = f[1:]
print(f"\n{r['switches'][0]} sched_switch events")
print(f"{'command':10} {'perfdata s':>10} {'perf s':>8} {'speedup':>8} {'perfdata RSS MB':>16} {'perf RSS MB':>12}")
for c in ("latency", "map", "timehist"):
    o, p = r[f"perfdata-{c}"], r[f"perf-{c}"]
    print(f"{c:10} {float(o[0]):10.3f} {float(p[0]):8.3f} {float(p[0]) / float(o[0]):7.1f}x {int(o[1]) / 1024:16.1f} {int(p[1]) / 1024:12.1f}")
PY
