#!/usr/bin/env bash
# gen-text.sh: perf 6.1's text for the module recordings, module symbols from kallsyms alone
# (the `.ko` files are not where the recordings put them), for perfdata-cli/tests:
#   F.script                              perf script --kallsyms kallsyms -i F  (script.rs)
#   kmod-buildid.data.report-sort-comm,dso  perf report --no-children -g none --sort comm,dso
#                                         (report_graph.rs: modules are `[name]`, `-` as `_`)
#   kmod-buildid.data.report              perf report (report_graph.rs: the call graphs' names)
# User frames come from the recording machine's ~/.debug; the tests read them from
# ../folded/root, as for make.sh's outputs.
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
for f in kmod.data kmod-buildid.data; do
	perf script --kallsyms kallsyms -i $f > $f.script 2>/dev/null
done
perf report --stdio --no-children -g none --sort comm,dso --kallsyms kallsyms -i kmod-buildid.data \
	> kmod-buildid.data.report-sort-comm,dso 2>/dev/null
perf report --stdio --kallsyms kallsyms -i kmod-buildid.data > kmod-buildid.data.report 2>/dev/null
