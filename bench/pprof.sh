#!/usr/bin/env bash
# pprof export against what a user runs today to get stacks out of perf.data, side by side in one
# run on the same -g file:
#   perfdata export --format pprof FILE -o OUT.pb.gz
#   perf script -i FILE | inferno-collapse-perf
#   perfdata folded FILE                                 (for reference: the folding alone)
# Checks that the profile, opened by `go tool pprof -raw`, weighs every stack as inferno's folded
# output does, then prints wall seconds and the ratio.
#
#   bench/pprof.sh [FILE]   (default FILE: bench/work/big.data, recorded once as bench/compare.sh
#                            records it: perf record -F 20000 -g over xz + python for ~30 s)
# Symbols come from this machine (~/.debug, the binaries), for perf and for perfdata alike.
# Each command runs REPS times (default 3); the best wall time counts.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/big.data}
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf record -F 20000 -g over xz + python for ~30 s)..." >&2
  perf record -q -F 20000 -g -o "$FILE" -- sh -c 'for i in 1 2; do
      timeout 30 sh -c "xz -6 -T1 -c /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null > /dev/null" &
      timeout 30 python3 -c "import json
while True: json.dumps({\"a\": [1, 2, 3]})" & done; wait' || true
fi
command -v inferno-collapse-perf >/dev/null || cargo install --locked inferno
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work

command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
# name, output file, shell command: prints "name best_wall_seconds best_cpu_seconds" (CPU: user +
# system of the command and its children, e.g. both sides of a pipe; less sensitive than wall
# time to other load on the machine, which slows perfdata's two threads more than one process).
best() {
  local name=$1 out=$2 cmd=$3 b=999999 c=999999
  for _ in $(seq "$REPS"); do
    local s e
    s=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o $W/cpu.txt sh -c "$cmd" > "$out" 2>/dev/null
    e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
    c=$(python3 -c "u, s = open('$W/cpu.txt').read().split()[-2:]; print(min($c, float(u) + float(s)))")
  done
  echo "$name $b $c"
}
{
  best perfdata-pprof $W/pprof.log "$P export --format pprof $FILE -o $W/ours.pb.gz"
  best inferno-pipeline $W/inferno.folded "perf script -i $FILE | inferno-collapse-perf"
  best perfdata-folded $W/ours-pl.folded "$P folded $FILE"
} | tee $W/pprof-results.txt
ls -l $W/ours.pb.gz
if command -v go >/dev/null; then
  go tool pprof -raw $W/ours.pb.gz > $W/ours.pprof.txt
  python3 - $W/ours.pprof.txt $W/inferno.folded <<'PY'
import sys
# go tool pprof -raw: samples (values: count period; leaf-first location ids; labels), then the
# locations with their function names (innermost first, `NAME :0 s=0()`).
lines = open(sys.argv[1], errors="replace").read().split("\n")
i = lines.index("Samples:") + 2
samples, locs = [], {}
while lines[i] != "Locations":
    l = lines[i].strip()
    if l.startswith("comm:["):
        samples[-1][2] = l[6:].split("] event:[")[0].rsplit("]", 1)[0] if "event:[" in l else l[6:-1]
    elif ": " in l and not l.startswith(("cpu:", "pid:", "tid:")):
        v, ids = l.split(": ", 1)
        samples.append([[int(x) for x in v.split()], [int(x) for x in ids.split()], ""])
    i += 1
i += 1
cur = None
while lines[i] != "Mappings":
    l = lines[i]
    head, _, rest = l.strip().partition(": 0x")
    if rest and head.isdigit():
        cur = int(head)
        rest = rest.split(" ", 1)[1] if " " in rest else ""
        rest = rest.split(" ", 1)[1] if rest.startswith("M=") else rest
        locs[cur] = [rest] if rest else []
    else:
        locs[cur].append(l.strip())
    i += 1
got = {}
for values, ids, comm in samples:
    frames = [n.removesuffix(" :0 s=0()") for x in ids for n in locs[x]]
    key = ";".join([comm.replace(" ", "_"), *reversed(frames)])
    got[key] = got.get(key, 0) + values[1]
want = {}
for l in open(sys.argv[2], errors="replace"):
    k, _, w = l.rstrip("\n").rpartition(" ")
    want[k] = want.get(k, 0) + int(w)
tot = sum(want.values())
same = sum(w for k, w in want.items() if got.get(k) == w)
print(f"pprof (go tool pprof -raw) vs inferno: {len(got)} vs {len(want)} stacks, "
      f"{100 * same / max(tot, 1):.2f}% of the weight on stacks of equal weight"
      + (" (identical)" if got == want else ""))
PY
else
  echo "go not installed: the profile's weights were not compared (apt-get install golang-go)"
fi
python3 - <<'PY'
r = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open("bench/work/pprof-results.txt")}
for i, what in enumerate(["wall", "CPU"]):
    print(f"{what:>4}: pprof export: perfdata {r['perfdata-pprof'][i]:.2f} s, perf script | inferno-collapse-perf "
          f"{r['inferno-pipeline'][i]:.2f} s: {r['inferno-pipeline'][i] / r['perfdata-pprof'][i]:.1f}x "
          f"(perfdata folded alone {r['perfdata-folded'][i]:.2f} s: {r['inferno-pipeline'][i] / r['perfdata-folded'][i]:.1f}x)")
PY
