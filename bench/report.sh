#!/usr/bin/env bash
# perf report's text, side by side in one run on the same -g recording: `perfdata report` and
# `perf report --stdio`, with call graphs (both tools' defaults) and without
# (`--no-children -g none`), best of REPS (default 3) wall seconds and peak RSS (GNU time); the
# outputs must be byte-identical but for perf's closing random tip (3 lines), or with ALLOW_DIFF=1
# the number of differing lines is printed.
#
#   bench/report.sh [FILE]    (default: bench/work/big.data, 40 MB `perf record -F 20000 -a -g`
#                              of xz and python, recorded by bench/compare.sh; not committed)
# Symbols come from this machine (~/.debug, the binaries, /proc/kallsyms), for both.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
FILE=${1:-bench/work/big.data}
[ -e "$FILE" ] || { echo "no $FILE (bench/compare.sh records bench/work/big.data)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p perfdata-cli
P=${CARGO_TARGET_DIR:-target}/release/perfdata
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export LC_ALL=C
for args in "" "--no-children -g none"; do
	best_o=; best_p=
	for _ in $(seq "$REPS"); do
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -o "$W/to" "$P" report "$FILE" $args > "$W/ours" 2>/dev/null
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -o "$W/tp" perf report --stdio -i "$FILE" $args > "$W/perf" 2>/dev/null
		read -r so mo < "$W/to"; read -r sp mp < "$W/tp"
		if [ -z "$best_o" ] || awk "BEGIN{exit !($so < $best_o)}"; then best_o=$so; rss_o=$mo; fi
		if [ -z "$best_p" ] || awk "BEGIN{exit !($sp < $best_p)}"; then best_p=$sp; rss_p=$mp; fi
	done
	same="byte-identical"
	if ! head -n -3 "$W/perf" | cmp -s - "$W/ours"; then
		[ -n "${ALLOW_DIFF:-}" ] || { echo "[$args] outputs differ (ALLOW_DIFF=1 to time them anyway)" >&2; exit 1; }
		same="DIFFER in $(head -n -3 "$W/perf" | { diff - "$W/ours" || true; } | grep -c '^[<>]') lines"
	fi
	awk -v a="[${args:-default}]" -v o="$best_o" -v p="$best_p" -v ro="$rss_o" -v rp="$rss_p" -v n="$(wc -l < "$W/ours")" -v same="$same" \
		'BEGIN{printf "%-24s perfdata %.2f s %d MB | perf report %.2f s %d MB | %.1fx | %d lines, %s\n", a, o, ro/1024, p, rp/1024, p/o, n, same}'
done
