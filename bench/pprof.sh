#!/usr/bin/env bash
# pprof export against what a user runs today to get stacks out of perf.data, side by side in one
# run on the same -g file:
#   perfdata export --format pprof FILE -o OUT.pb.gz
#   perf script -i FILE | inferno-collapse-perf
#   perfdata folded FILE                                 (for reference: the folding alone)
# Checks that the profile, opened by `go tool pprof -raw`, weighs every stack as inferno's folded
# output does, then prints wall seconds and the ratio: overall, and per placement of the VM's two
# vCPUs (near or far, see bench/crosscore.c), which moves perfdata's time by ~50 %.
#
#   bench/pprof.sh [FILE]   (default FILE: bench/work/big.data, recorded once as bench/compare.sh
#                            records it: perf record -F 20000 -g over xz + python for ~30 s)
# Symbols come from this machine (~/.debug, the binaries), for perf and for perfdata alike.
# Each command runs REPS times (default 3), the three taking turns; the best wall time counts.
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
# Where the host put the two vCPUs this moment: data handed from one core to the other takes
# ~0.04 s or ~0.13 s per GiB on this VM, for minutes at a time (bench/crosscore.c), and
# perfdata's two threads hand every batch across. Each repetition is labelled by it: "near"
# below 0.08 s, else "far".
cc -O2 -pthread -o $W/crosscore bench/crosscore.c
placement() { $W/crosscore | awk '{print ($1 < 0.08 ? "near" : "far")}'; }
# One repetition of a command: "name placement wall_seconds cpu_seconds" (CPU: user + system of
# the command and its children, e.g. both sides of a pipe).
run() {
  local name=$1 out=$2 cmd=$3 where s e
  where=$(placement)
  s=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o $W/cpu.txt sh -c "$cmd" > "$out" 2>/dev/null
  e=$(date +%s.%N)
  python3 -c "u, s = open('$W/cpu.txt').read().split()[-2:]; print('$name', '$where', $e - $s, float(u) + float(s))"
}
# The commands take turns, REPS rounds, so that each meets the same placements.
for _ in $(seq "$REPS"); do
  run perfdata-pprof $W/pprof.log "$P export --format pprof $FILE -o $W/ours.pb.gz"
  run inferno-pipeline $W/inferno.folded "perf script -i $FILE | inferno-collapse-perf"
  run perfdata-folded $W/ours-pl.folded "$P folded $FILE"
done | tee $W/pprof-runs.txt
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
# The best run of each command, over all runs and per placement; the ratio against the peer's
# best in the same placement.
runs = [l.split() for l in open("bench/work/pprof-runs.txt")]
def best(name, where, i):
    v = [float(r[2 + i]) for r in runs if r[0] == name and where in (None, r[1])]
    return min(v) if v else None
for where in (None, "near", "far"):
    n = sum(1 for r in runs if r[0] == "perfdata-pprof" and where in (None, r[1]))
    if not n:
        continue
    label = "all runs" if where is None else f"{where} vCPUs"
    for i, what in enumerate(["wall", "CPU"]):
        ours, peer, fold = (best(c, where, i) for c in ("perfdata-pprof", "inferno-pipeline", "perfdata-folded"))
        if None in (ours, peer, fold):
            print(f"{label:>10} {what:>4}: a command has no run in this placement")
            continue
        print(f"{label:>10} {what:>4}: pprof export: perfdata {ours:.3f} s, perf script | inferno-collapse-perf "
              f"{peer:.3f} s: {peer / ours:.1f}x (perfdata folded alone {fold:.3f} s: {peer / fold:.1f}x)"
              + (f"  [{n} runs of the export]" if i == 0 else ""))
PY
