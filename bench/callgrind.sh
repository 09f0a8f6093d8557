#!/usr/bin/env bash
# Instruction counts (valgrind --tool=callgrind) of the readers on one file: repeatable whatever else
# the machine is doing. Same readers as compare.sh. Usage: bench/callgrind.sh [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=${1:-bench/work/big.data}
cargo build --release -q --example read_bench -p perfdata-core
(cd bench/peer-lpd && CARGO_TARGET_DIR=../work/target cargo build --release -q)
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'; }
{
  echo "perfdata-frames $(count target/release/examples/read_bench frames "$FILE")"
  echo "perfdata-decode $(count target/release/examples/read_bench decode "$FILE")"
  echo "perfdata-time $(count target/release/examples/read_bench time "$FILE")"
  echo "perf-report-stats $(count perf report --stats -i "$FILE")"
  echo "linux-perf-data $(count bench/work/target/release/peer-lpd "$FILE")"
} | tee bench/work/callgrind.txt
python3 - <<'PY'
r = {l.split()[0]: int(l.split()[1]) for l in open("bench/work/callgrind.txt")}
print(f"\n{'reader':20} {'instructions':>15} {'vs perf':>8} {'vs lpd':>8}")
for k, v in r.items():
    print(f"{k:20} {v:15,} {r['perf-report-stats'] / v:8.2f} {r['linux-perf-data'] / v:8.2f}")
PY
