#!/usr/bin/env bash
# Queries of a fleet's dataset (issue 18): the summed folded stacks that a SQL WHERE predicate
# selects, by perfdata and by DuckDB over the same Parquet files, side by side in one run:
#   perfdata flamegraph --from-dataset DATASET --where PRED --folded      (partitions pruned, rayon)
#   DuckDB (Python): SELECT stack, sum(weight) FROM read_parquet('DATASET/stacks/**/*.parquet',
#                    hive_partitioning = true) WHERE PRED GROUP BY stack    (the same answer)
#   perfdata flamegraph --from-dataset DATASET --where PRED -o x.svg        (the graph too)
# The dataset: N make-fleet recordings (default 2000) exported with --jobs 2. For each predicate:
# wall seconds (best of REPS, default 3) of the whole process, and for DuckDB also the query alone
# (in the interpreter, after `import duckdb`); the two outputs are checked equal.
#
#   bench/fleet-query.sh [N]     (needs the repo's .venv with duckdb: ./test.sh makes it)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
N=${1:-2000}
W=bench/work/fleet-query
PY=${PYTHON:-.venv/bin/python}
mkdir -p $W
export LC_ALL=C
cargo build --release -q -p perfdata-cli --bin perfdata --example make-fleet
T=${CARGO_TARGET_DIR:-target}/release
P=$T/perfdata
if [ ! -d $W/ds-$N ]; then
  rm -rf $W/in
  $T/examples/make-fleet testdata $W/in "$N" > /dev/null
  $P export --format parquet $W/in -o $W/ds-$N --jobs 2 2> /dev/null || true
fi
DS=$W/ds-$N
best() { # label, command...: best wall seconds of REPS runs
  local name=$1; shift
  local b=999999
  for _ in $(seq "$REPS"); do
    local s e
    s=$(date +%s.%N)
    "$@" > $W/out.txt 2> /dev/null
    e=$(date +%s.%N)
    b=$(python3 -c "print(round(min($b, $e - $s), 3))")
  done
  echo "$name ${b}s"
}
duck() { # predicate: DuckDB's answer as folded lines into duck.txt; the query's own seconds on stdout
  $PY - "$DS" "$1" $W/duck.txt <<'PY'
import sys, time
import duckdb
ds, where, out = sys.argv[1:4]
s = time.perf_counter()
rows = duckdb.execute(f"""
    select comm || case when len(frames) > 0 then ';' || array_to_string(frames, ';') else '' end as stack,
           sum(weight)
    from read_parquet('{ds}/stacks/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)
    where {where} group by stack""").fetchall()
e = time.perf_counter()
with open(out, "w") as f:
    f.write("".join(f"{s} {int(w)}\n" for s, w in sorted(rows, key=lambda r: r[0].encode())))
print(f"{e - s:.3f}")
PY
}
{
  echo "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  echo "dataset $N recordings: $(find $DS/stacks -name '*.parquet' | wc -l) stacks parts, $(du -sm --apparent-size $DS/stacks | cut -f1) MB of stacks"
  for where in "host = 'host03'" "host IN ('host01', 'host02') AND date >= '2026-11-05'" "comm = 'spin'" "weight > 0"; do
    echo "== WHERE $where"
    best "perfdata --folded" "$P" flamegraph --from-dataset "$DS" --where "$where" --folded
    cp $W/out.txt $W/ours.txt
    best "perfdata svg" "$P" flamegraph --from-dataset "$DS" --where "$where" -o $W/x.svg
    best "duckdb (process)" duck "$where"
    q=999999
    for _ in $(seq "$REPS"); do q=$(python3 -c "print(min($q, $(duck "$where")))"); done
    echo "duckdb (query alone) ${q}s"
    cmp -s $W/ours.txt $W/duck.txt && echo "same stacks and weights: $(wc -l < $W/ours.txt) stacks" || { echo "DIFFERENT answers" >&2; exit 1; }
  done
} | tee $W/results.txt
