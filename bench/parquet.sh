#!/usr/bin/env bash
# Parquet export of a big perf.data (issue 17), side by side in one run on the same file:
#   perfdata export --format parquet FILE -o DIR       (every table, zstd, one pass)
#   perf script -F pid,tid,cpu,time,period,ip           (the text peer: every sample with its
#                                                        callchain addresses, no symbols)
#   Python: PerfData.to_arrow("samples") + pyarrow.parquet.write_table(compression="zstd")
#                                                       (the same samples table through pyarrow's
#                                                        writer; needs .venv with perfdata built)
# Prints wall seconds (best of REPS, default 3), the CPU seconds (user + sys, all threads) of that
# run and peak RSS (GNU time), and the samples table's rows beside perf report --stats' count.
#
#   bench/parquet.sh [FILE]   (default FILE: records bench/work/parquet.data once, not committed:
#                              perf record -a -g -e cpu-clock -c 10000 for 12.5 s with both CPUs
#                              busy, about 1.1 M samples with frame-pointer callchains)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/parquet.data}
W=bench/work
mkdir -p $W
export LC_ALL=C
if [ ! -e "$FILE" ]; then
  echo "recording $FILE (perf record -a -g, 12.5 s, both CPUs busy)..." >&2
  sh -c 'while :; do :; done' & b1=$!
  sh -c 'while :; do :; done' & b2=$!
  perf record -q -a -g -e cpu-clock -c 10000 -o "$FILE" -- sleep 12.5 > /dev/null 2>&1 || true
  kill $b1 $b2
fi
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
PY=.venv/bin/python

best() { # name, command...: prints "name best_seconds max_rss_kb cpu_seconds_of_the_best_run"
  local name=$1; shift
  local b=999999 rss=0 cpu=0
  for _ in $(seq "$REPS"); do
    local s e r u
    s=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o $W/time.txt "$@" > /dev/null 2>&1
    e=$(date +%s.%N)
    read -r r u k < $W/time.txt
    if python3 -c "import sys; sys.exit(not $e - $s < $b)"; then
      b=$(python3 -c "print($e - $s)"); cpu=$(python3 -c "print($u + $k)")
    fi
    rss=$(( r > rss ? r : rss ))
  done
  echo "$name $b $rss $cpu"
}
{
  echo "samples $(perf report --stats -i "$FILE" 2>/dev/null | awk '/^ *SAMPLE events:/{print $3; exit}')"
  best perfdata-parquet "$P" export --format parquet "$FILE" -o $W/parquet-out
  best perf-script sh -c "perf script -i '$FILE' -F pid,tid,cpu,time,period,ip > $W/perf-script.txt"
  if [ -x $PY ] && $PY -c "import perfdata, pyarrow" 2>/dev/null; then
    best py-to_arrow-pyarrow $PY -c "
import sys, perfdata, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table(perfdata.open(sys.argv[1]).to_arrow('samples')), sys.argv[2], compression='zstd')" \
      "$FILE" $W/pyarrow-samples.parquet
  fi
  echo "rows $($PY -c "import pyarrow.parquet as pq, sys; print(pq.ParquetFile(sys.argv[1]).metadata.num_rows)" $W/parquet-out/samples.parquet 2>/dev/null || echo ?)"
} | tee $W/parquet-results.txt
python3 - "$W/parquet-results.txt" "$W/parquet-out" <<'PY'
import os, sys
r = {}
for l in open(sys.argv[1]):
    f = l.split()
    r[f[0]] = f[1:]
n = int(r["samples"][0])
print(f"\n{n} samples (perf report --stats); samples.parquet has {r['rows'][0]} rows")
size = sum(os.path.getsize(os.path.join(sys.argv[2], f)) for f in os.listdir(sys.argv[2]))
print(f"{'method':22} {'seconds':>8} {'s per 1M samples':>17} {'CPU s':>6} {'peak RSS MB':>12} {'vs perfdata':>12}")
ours = float(r["perfdata-parquet"][0])
for k in ("perfdata-parquet", "perf-script", "py-to_arrow-pyarrow"):
    if k in r:
        s, rss, cpu = float(r[k][0]), int(r[k][1]), float(r[k][2])
        print(f"{k:22} {s:8.3f} {s / n * 1e6:17.3f} {cpu:6.2f} {rss / 1024:12.1f} {s / ours:11.1f}x")
print(f"parquet directory: {size / 1e6:.1f} MB")
PY
