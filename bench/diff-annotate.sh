#!/usr/bin/env bash
# perf diff's and perf annotate's text, side by side in one run: `perfdata diff A B` against
# `perf diff A B`, and `perfdata annotate B SYMBOL` against `perf annotate --stdio -i B SYMBOL`
# for each SYMBOL; best of REPS (default 3) wall seconds and peak RSS (GNU time). The outputs
# must be byte-identical.
#
#   bench/diff-annotate.sh A B [SYMBOL...]   (default symbols: malloc _PyEval_EvalFrameDefault)
#
# A and B are two -g recordings of the same programs (bench/script.sh's recipe, e.g.
# bench/work/g-mid.data and bench/work/g-big.data; not committed). Symbols come from this
# machine (~/.debug, the binaries, /proc/kallsyms), for both tools.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
[ $# -ge 2 ] || { echo "usage: bench/diff-annotate.sh A B [SYMBOL...]" >&2; exit 1; }
A=$1 B=$2
shift 2
[ $# -gt 0 ] || set -- malloc _PyEval_EvalFrameDefault
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export LC_ALL=C
# compare NAME "OUR COMMAND" "PERF COMMAND": best of REPS for each, interleaved.
compare() {
	local name=$1 ours=$2 theirs=$3 best_o= best_p= so mo sp mp rss_o rss_p
	for _ in $(seq "$REPS"); do
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -o "$W/to" $ours > "$W/ours" 2>/dev/null
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -o "$W/tp" $theirs > "$W/perf" 2>/dev/null
		read -r so mo < "$W/to"; read -r sp mp < "$W/tp"
		if [ -z "$best_o" ] || awk "BEGIN{exit !($so < $best_o)}"; then best_o=$so; rss_o=$mo; fi
		if [ -z "$best_p" ] || awk "BEGIN{exit !($sp < $best_p)}"; then best_p=$sp; rss_p=$mp; fi
	done
	cmp -s "$W/perf" "$W/ours" || { echo "$name: outputs differ" >&2; exit 1; }
	[ -s "$W/ours" ] || { echo "$name: no output" >&2; exit 1; }
	awk -v a="$name" -v o="$best_o" -v p="$best_p" -v ro="$rss_o" -v rp="$rss_p" -v n="$(wc -l < "$W/ours")" \
		'BEGIN{printf "%-36s perfdata %.2f s %d MB | perf %.2f s %d MB | %.1fx | %d lines, byte-identical\n", a, o, ro/1024, p, rp/1024, p/o, n}'
}
compare "diff $(basename "$A") $(basename "$B")" "$P diff $A $B" "perf diff $A $B"
for sym in "$@"; do
	compare "annotate $(basename "$B") $sym" "$P annotate $B $sym" "perf annotate --stdio -i $B $sym"
done
uptime
