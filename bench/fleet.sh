#!/usr/bin/env bash
# Fleet export (issue 18): N generated recordings (make-fleet: committed testdata recordings
# rewritten by perfdata's writer with ten hostnames and seven dates, 200 and 2,000 of them) into one
# Hive-partitioned dataset, side by side in one run with the loop people run today:
#   perfdata export --format parquet DIR -o DATASET --jobs J    (J = 1, 2; every table + stacks)
#   perfdata export ... --no-stacks --jobs J                     (without the symbolized stacks)
#   for f in DIR/*.data; do perf script -i $f; done > /dev/null  (the text peer, one process per file)
# Prints for each: wall seconds (best of REPS, default 3; a fresh dataset each run), recordings/s,
# MB/s of input, CPU seconds (user + sys) and peak RSS (GNU time, the whole process).
#
#   bench/fleet.sh [N...]   (default: 200 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
W=bench/work/fleet
mkdir -p $W
export LC_ALL=C
cargo build --release -q -p perfdata-cli --bin perfdata --example make-fleet
T=${CARGO_TARGET_DIR:-target}/release
P=$T/perfdata

best() { # label, n, mb, command...: "label n best_s rec/s MB/s cpu_s rss_kb"
  local name=$1 n=$2 mb=$3; shift 3
  local b=999999 rss=0 cpu=0
  for _ in $(seq "$REPS"); do
    rm -rf $W/ds
    local s e r u k
    s=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o $W/time.txt "$@" > /dev/null 2>&1 || true
    e=$(date +%s.%N)
    read -r r u k < $W/time.txt
    if python3 -c "import sys; sys.exit(not $e - $s < $b)"; then
      b=$(python3 -c "print(round($e - $s, 3))"); cpu=$(python3 -c "print(round($u + $k, 2))")
    fi
    rss=$(( r > rss ? r : rss ))
  done
  echo "$name $n ${b}s $(python3 -c "print(round($n / $b, 1))")rec/s $(python3 -c "print(round($mb / $b, 1))")MB/s cpu=${cpu}s rss=${rss}kB"
}
{
  echo "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  for n1 in ${@:-200 2000}; do
    {
      rm -rf $W/in
      $T/examples/make-fleet testdata $W/in "$n1" > /dev/null
      rm -f $W/in/damaged-*
      mb=$(du -sm --apparent-size $W/in | cut -f1)
      echo "fleet $n1 recordings, ${mb} MB"
      best "perfdata -j1" "$n1" "$mb" "$P" export --format parquet $W/in -o $W/ds --jobs 1
      best "perfdata -j2" "$n1" "$mb" "$P" export --format parquet $W/in -o $W/ds --jobs 2
      echo "dataset $(du -sm --apparent-size $W/ds | cut -f1) MB"
      best "perfdata -j1 --no-stacks" "$n1" "$mb" "$P" export --format parquet $W/in -o $W/ds --jobs 1 --no-stacks
      best "perfdata -j2 --no-stacks" "$n1" "$mb" "$P" export --format parquet $W/in -o $W/ds --jobs 2 --no-stacks
      best "perf-script-loop" "$n1" "$mb" sh -c "for f in $W/in/*.data; do perf script -i \$f; done"
    }
  done
} | tee $W/results.txt
