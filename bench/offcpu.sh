#!/usr/bin/env bash
# Off-CPU stacks, side by side in one run on the same `perf record -a -e sched:sched_switch -g` file:
#   perfdata offcpu FILE                                   (folded, weighted by ns)
#   perf script -F …,trace,ip,sym,dso --ns | offcpu_fold.py   (the perf-script recipe it replaces)
#   perf script -F …,trace,ip,sym,dso --ns > /dev/null        (the text alone: a floor for any
#                                                            pipeline that starts from perf script)
# Checks that both folded outputs are equal, prints wall seconds, peak RSS and the ratios.
#
#   bench/offcpu.sh [FILE]   (default FILE: records bench/work/offcpu.data once: perf bench sched
#                             pipe with CPU 1 kept busy, not committed)
# Each command runs REPS times (default 3); the best wall time counts.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/offcpu.data}
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf record -a -e sched:sched_switch -g over perf bench sched pipe)..." >&2
  taskset -c 1 nice -n 19 sh -c 'while :; do :; done' & BUSY=$!
  perf record -q -a -e sched:sched_switch -g -o "$FILE" -- perf bench sched pipe -l 300000 > /dev/null || true
  kill $BUSY
fi
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work
F="comm,pid,tid,cpu,time,event,trace,ip,sym,dso"

best() { # name, output file, shell command: prints "name best_seconds peak_rss_kb"
  local name=$1 out=$2 cmd=$3 b=999999 rss=0
  for _ in $(seq "$REPS"); do
    local s e r
    s=$(date +%s.%N)
    /usr/bin/time -f %M -o $W/offcpu-rss sh -c "$cmd" > "$out" 2>/dev/null
    e=$(date +%s.%N)
    r=$(cat $W/offcpu-rss)
    b=$(python3 -c "print(min($b, $e - $s))")
    rss=$(( r > rss ? r : rss ))
  done
  echo "$name $b $rss"
}
{
  best perfdata $W/offcpu-ours.folded "$P offcpu $FILE"
  best perf-script-fold $W/offcpu-peer.folded "perf script -i $FILE -F $F --ns | python3 bench/offcpu_fold.py"
  best perf-script-only /dev/null "perf script -i $FILE -F $F --ns"
} | tee $W/offcpu-results.txt
if cmp -s $W/offcpu-ours.folded $W/offcpu-peer.folded; then
  echo "perfdata == perf script recipe ($(wc -l < $W/offcpu-ours.folded) lines)"
else
  python3 - "$W/offcpu-ours.folded" "$W/offcpu-peer.folded" <<'PY'
import sys
def load(p):
    return dict(l.rstrip("\n").rsplit(" ", 1) for l in open(p, errors="replace") if " " in l)
a, b = load(sys.argv[1]), load(sys.argv[2])
tot = sum(int(v) for v in b.values())
same = sum(int(v) for k, v in b.items() if a.get(k) == v)
print(f"perfdata vs perf script recipe: {len(a)} vs {len(b)} lines, totals {sum(int(v) for v in a.values())} vs {tot} ns; "
      f"{100 * same / max(tot, 1):.3f}% of the weight on identical lines")
PY
fi
python3 - <<'PY'
r = {l.split()[0]: (float(l.split()[1]), int(l.split()[2])) for l in open("bench/work/offcpu-results.txt")}
o, p, s = r["perfdata"], r["perf-script-fold"], r["perf-script-only"]
print(f"\nperfdata offcpu {o[0]:.3f} s ({o[1] // 1024} MB peak RSS); perf script | offcpu_fold.py {p[0]:.3f} s: {p[0] / o[0]:.1f}x; "
      f"perf script alone {s[0]:.3f} s: {s[0] / o[0]:.1f}x")
PY
