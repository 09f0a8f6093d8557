#!/usr/bin/env bash
# Record branches.data (as root, perf 6.1) and store perf report's call graphs of it: every frame
# unresolved (--symfs of an empty directory), so that no binary is needed to print them again.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$tmp/branches" branches.c
perf record -e cpu-clock:u -g --user-callchains -F 300 -o branches.data "$tmp/branches" 2> branches.data.record.err
mkdir "$tmp/empty"
# NAME ARGS: branches.data.report-NAME.zst is perf report --stdio --no-children ARGS.
while read -r name args; do
	# shellcheck disable=SC2086
	perf report --stdio --no-children $args --symfs "$tmp/empty" -i branches.data 2>/dev/null |
		head -n -3 | zstd -q -19 > branches.data.report-$name.zst # less perf's closing random tip
done < report.args
