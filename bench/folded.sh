#!/usr/bin/env bash
# Folded stacks, side by side in one run on the same -g file:
#   perfdata folded (stackcollapse-pl and perf-script-py modes)
#   perf script | inferno-collapse-perf          (what --compat stackcollapse-pl reproduces)
#   perf script report stackcollapse             (what --compat perf-script-py reproduces)
# Checks that the outputs are equal, prints wall seconds and the ratios.
#
#   bench/folded.sh [FILE [PERFDATA_OPTION…]]   (default FILE: records bench/work/folded.data once,
#                             -F 4000 -g for 10 s, not committed; options go to both perfdata runs,
#                             e.g. `bench/folded.sh dwarf.data --inline` against perf's default
#                             inline frames on a --call-graph dwarf recording)
# Symbols come from this machine (~/.debug, the binaries), for perf and for perfdata alike.
# Each command runs REPS times (default 3); the best wall time counts.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/folded.data}
shift || true
EXTRA="$*"
mkdir -p bench/work
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf record -F 4000 -g over xz + python for 10 s)..." >&2
  perf record -q -F 4000 -g -o "$FILE" -- sh -c 'for i in 1 2; do
      timeout 10 sh -c "xz -6 -T1 -c /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null > /dev/null" &
      timeout 10 python3 -c "import json
while True: json.dumps({\"a\": [1, 2, 3]})" & done; wait' || true
fi
command -v inferno-collapse-perf >/dev/null || cargo install --locked inferno
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=bench/work

best() { # name, output file, shell command: prints "name best_seconds"
  local name=$1 out=$2 cmd=$3 b=999999
  for _ in $(seq "$REPS"); do
    local s e
    s=$(date +%s.%N)
    sh -c "$cmd" > "$out" 2>/dev/null
    e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done
  echo "$name $b"
}
{
  best perfdata-pl $W/ours-pl.folded "$P folded $EXTRA $FILE"
  best perfdata-py $W/ours-py.folded "$P folded $EXTRA --compat perf-script-py $FILE"
  best inferno-pipeline $W/inferno.folded "perf script -i $FILE | inferno-collapse-perf"
  best perf-stackcollapse $W/perf-py.folded "perf script report stackcollapse -i $FILE"
} | tee $W/folded-results.txt
for pair in "ours-pl inferno" "ours-py perf-py"; do
  set -- $pair
  if cmp -s $W/$1.folded $W/$2.folded; then
    echo "$1 == $2 ($(wc -l < $W/$1.folded) lines)"
  else
    python3 - "$W/$1.folded" "$W/$2.folded" <<'PY'
import sys
def load(p):
    return dict(l.rstrip("\n").rsplit(" ", 1) for l in open(p, errors="replace") if " " in l)
a, b = load(sys.argv[1]), load(sys.argv[2])
tot = sum(int(v) for v in b.values())
same = sum(int(v) for k, v in b.items() if a.get(k) == v)
print(f"{sys.argv[1]} vs {sys.argv[2]}: {len(a)} vs {len(b)} lines; {100 * same / max(tot, 1):.2f}% of the weight on identical lines")
PY
  fi
done
python3 - <<'PY'
r = {l.split()[0]: float(l.split()[1]) for l in open("bench/work/folded-results.txt")}
print(f"\nstackcollapse-pl: perfdata {r['perfdata-pl']:.2f} s, perf script | inferno {r['inferno-pipeline']:.2f} s: "
      f"{r['inferno-pipeline'] / r['perfdata-pl']:.1f}x")
print(f"perf-script-py:   perfdata {r['perfdata-py']:.2f} s, perf script report stackcollapse {r['perf-stackcollapse']:.2f} s: "
      f"{r['perf-stackcollapse'] / r['perfdata-py']:.1f}x")
PY
