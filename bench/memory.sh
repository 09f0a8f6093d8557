#!/usr/bin/env bash
# Peak RSS and wall time of every command and export, one run each, on a large -g recording and a
# large sched recording (issue 36: none above 512 MB; chrome-trace within 2x of folded's).
#
#   bench/memory.sh [G_FILE [SCHED_FILE]]
#     G_FILE      default bench/work/script-big.data (bench/script.sh records it: ~160 MB -g;
#                 the issue's 300 MB: bench/NOTES.md "memory at the issue's sizes" gives the recipe)
#     SCHED_FILE  default bench/work/sched-big.data (bench/sched.sh records it: ~1.2 M switches)
# Prints a Markdown table: command, input, seconds, peak RSS (MB), output bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
G=${1:-bench/work/script-big.data}
S=${2:-bench/work/sched-big.data}
for f in "$G" "$S"; do
  [ -e "$f" ] || { echo "missing $f: record it with bench/script.sh or bench/sched.sh" >&2; exit 1; }
done
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "| command | input | s | peak RSS MB | output bytes |"
echo "|---|---|---:|---:|---:|"
run() { # input, then the command's arguments; OUT/o is its output
  local input=$1
  shift
  rm -rf "$OUT/o"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$OUT/rss" "$P" "$@" > "$OUT/stdout" 2> /dev/null || true
  t1=$(date +%s.%N)
  local bytes
  bytes=$(du -sb "$OUT/o" 2>/dev/null | cut -f1 || true)
  [ -n "$bytes" ] || bytes=$(stat -c %s "$OUT/stdout")
  printf '| `perfdata %s` | %s | %.2f | %d | %s |\n' "$*" "$(basename "$input")" \
    "$(echo "$t1 - $t0" | bc)" "$(( $(tail -1 "$OUT/rss") / 1024 ))" "$bytes" | sed "s#$OUT/o#OUT#; s#$input#FILE#"
}
for cmd in "script" "dump" "stats" "folded" "report" "flamegraph -o $OUT/o" \
           "export --format pprof -o $OUT/o" "export --format speedscope -o $OUT/o" \
           "export --format chrome-trace -o $OUT/o" "export --format parquet -o $OUT/o"; do
  # shellcheck disable=SC2086
  run "$G" $cmd "$G"
done
for cmd in "sched latency" "sched map" "sched timehist" "sched timeline -o $OUT/o" "wakeup-latency" \
           "export --format chrome-trace -o $OUT/o" "offcpu"; do
  # shellcheck disable=SC2086
  run "$S" $cmd "$S"
done
