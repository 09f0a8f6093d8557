#!/usr/bin/env bash
# Fuzz smoke run (CI): builds every target and runs each from the seed corpora with an RSS and a
# malloc limit; any crash, OOM, leak or timeout fails the script.
#   fuzz/smoke.sh                  deterministic: -seed=1 and a fixed number of runs per target
#                                  (≈ 20 s each here), so CI sees exactly what was checked before
#   FUZZ_SECONDS=600 fuzz/smoke.sh time-based, random seed: for campaigns (see ROBUSTNESS.md)
#   fuzz/smoke.sh tracepoint ...   only the targets named
set -euo pipefail
cd "$(dirname "$0")"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
rustup toolchain list | grep -q nightly || { echo "fuzz smoke needs the nightly toolchain" >&2; exit 1; }
./seed.sh
cargo +nightly fuzz build -O
# Runs per target: each replays its seeds, then mutates them (8-47 s a target, 220 s in all in
# the CI rehearsal of 2026-11-30).
declare -A RUNS=([file]=300 [pipe]=200 [sample]=40000 [features]=3000 [zstd]=20000 [roundtrip]=300
  [tracepoint]=4000 [symbols]=5000 [sched]=200 [parse]=6000 [report]=300)
# symbols: the ELF seeds (testdata/folded) are up to 381 KB and keep their symbol tables at the end.
declare -A MAX_LEN=([symbols]=524288)
targets=(file pipe sample features zstd roundtrip tracepoint symbols sched parse report)
[ $# -gt 0 ] && targets=("$@")
for t in "${targets[@]}"; do
  if [ -n "${FUZZ_SECONDS:-}" ]; then budget=(-max_total_time="$FUZZ_SECONDS"); else budget=(-runs="${RUNS[$t]}" -seed=1); fi
  echo "== $t ${budget[*]}"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- "${budget[@]}" -rss_limit_mb=1024 -malloc_limit_mb=512 \
    -timeout=10 -max_len="${MAX_LEN[$t]:-262144}" -print_final_stats=1 2>&1 |
    grep -E "stat::number_of_executed_units|ERROR|SUMMARY|panicked|Done" || true
  if ls artifacts/"$t"/* >/dev/null 2>&1; then
    echo "fuzz target $t found a crash: $(ls artifacts/"$t")" >&2
    exit 1
  fi
done
echo "fuzz smoke: no crash"
