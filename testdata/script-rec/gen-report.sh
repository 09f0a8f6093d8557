#!/usr/bin/env bash
# gen-report.sh: perf 6.1's default `perf report --stdio` of the JIT recordings and brstack.data,
# for perfdata-cli/tests/report_graph.rs (a perf map's shared object is `[JIT] tid PID`). perf reads the
# maps at /tmp/perf-PID.map only, so root/tmp's are copied there for the run (and removed after,
# unless they were there before); the other files are the recording machine's, as for the
# stored `perf script` outputs (README.md).
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
added=()
for m in root/tmp/perf-*.map; do
	t=/tmp/$(basename "$m")
	if [ ! -e "$t" ]; then
		cp "$m" "$t"
		added+=("$t")
	fi
done
# Compressed (zstd): node's is half a megabyte of text. perf ends with a random tip, which the
# test leaves out.
for f in java node python312; do
	perf report --stdio -i $f.data 2>/dev/null | zstd -q -19 -f -o $f.data.report.zst
done
# brstack.data's samples have branch stacks but its header no HEADER_BRANCH_STACK (make-brstack.py
# does not write it): perf's default is then the normal report, not branch mode.
perf report --stdio -i brstack.data 2>/dev/null | zstd -q -19 -f -o brstack.data.report.zst
rm -f "${added[@]}"
