#!/usr/bin/env bash
# gen-report.sh: perf 6.1's `perf report` of kmod-buildid.data by shared object, for
# perfdata-cli/tests/report_graph.rs: a module's shared object is named `[name]` (`-` as `_`).
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
perf report --stdio --no-children -g none --sort comm,dso --kallsyms kallsyms -i kmod-buildid.data \
	> kmod-buildid.data.report-sort-comm,dso 2>/dev/null
