#!/usr/bin/env bash
# gen-report.sh: perf report's tables for the -g recordings, for perfdata-cli/tests/report.rs.
# perf resolves symbols from a build-id cache made here from testdata/folded's extracts (the
# binaries' reduced ELF copies and the recording kernel's kallsyms), so this runs on any machine
# with perf 6.1, not only the one that recorded the files (F.report itself, the same table without
# --children, comes from gen-outputs.sh on the recording machine; made here it differs only where
# an extract lacks what perf needs, e.g. sysw's PyObject_Malloc@plt):
#   F.report-children        perf report --stdio --children -g none --sort comm,dso,sym -i F
#   F.report-n-sort-KEYS     perf report --stdio --no-children -g none -n --sort KEYS -i F
#   F.report-children-sort-sym  perf report --stdio --children -g none --sort sym -i F (C++ only)
# The C++ recordings (cxx-fp.data, cxx-dwarf.data) get all three (F.report too), from a cache of
# the binaries cxx/record.sh built in /tmp/perfdata-cxx (reproducible: the same build ids),
# libstdc++ and cxx/root's extracts for the rest; they are skipped, with a note, when those
# binaries are not there. (With libstdc++'s extract, whose .dynsym is reduced, perf's addr2line
# names a libstdc++ frame after the nearest symbol left, which perf script never showed.)
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
# The real binaries where this machine has them with the recorded build ids (perf unwinds
# --call-graph dwarf stacks with their .eh_frame), the extracts for the rest.
. ./lib.sh
fixture_cache
tables() { # F: F.report-children and F.report-n-sort-KEYS
	perf report --stdio --children -g none --sort comm,dso,sym -i $1 > $1.report-children 2>/dev/null
	for keys in pid,sym dso,sym sym comm dso cpu,comm; do
		perf report --stdio --no-children -g none -n --sort $keys -i $1 > $1.report-n-sort-$keys 2>/dev/null
	done
}
for f in fp.data dwarf.data sysw.data; do
	tables $f
done
# Filters: --time drops samples (percentages of the rest); --comms/--pid hide the other threads'
# samples, percentages of all (perf's default --percentage absolute; one --comms elides Command).
perf report --stdio --no-children -g none --time 10%/2 -i fp.data > fp.data.report-time-10pct-2 2>/dev/null
for c in dd rustc; do
	perf report --stdio --no-children -g none --comms $c -i sysw.data > sysw.data.report-comms-$c 2>/dev/null
done
perf report --stdio --no-children -g none --pid 1838 -i sysw.data > sysw.data.report-pid-1838 2>/dev/null
# Tracepoint-only recordings: perf's tracepoint sort mode, the `trace` key (each sample's text)
# by default; the key with others, and on a recording without tracepoints (N/A).
perf report --stdio --no-children -g none -i syscalls.data > syscalls.data.report 2>/dev/null
for keys in comm,trace sym,trace trace,pid; do
	perf report --stdio --no-children -g none --sort $keys -i syscalls.data > syscalls.data.report-sort-$keys 2>/dev/null
done
perf report --stdio --no-children -g none --sort trace -i multi.data > multi.data.report-sort-trace 2>/dev/null
# Several events, one table each, in one read: multi.data's four (only page-faults has callchains;
# with --children perf 6.1 walks the others' samples along the last callchain it resolved) and
# multi-g.data's two, perf's default and the plain table. perf 6.1 crashes reading folded/root's
# reduced [vdso] (in buildid-cache -a and in report), so multi-g.data's vDSO frame stays unnamed
# here; perfdata-cli/tests/report.rs reads it without that file too.
# An event group whose leader reads the members' counters (`{cpu-clock,task-clock}:S`): perf
# counts such a sample once per counter, with the counter's change as its period. Its default is
# the group view (a table for the group, one column per member), --no-group a table per event.
perf report --stdio --no-group -i group.data > group.data.report-no-group 2>/dev/null
perf report --stdio --no-group --no-children -g none -i group.data > group.data.report-no-group-flat 2>/dev/null
perf report --stdio -i group.data > group.data.report-group 2>/dev/null
perf report --stdio --no-children -n -i group.data > group.data.report-group-n 2>/dev/null
# A `perf stat record` file has no samples: perf prints its banner alone (and says so on stderr).
perf report --stdio -i stat.data > stat.data.report 2>/dev/null
# With --group, the events side by side as one group (perf's forced leader: the first event).
for f in multi.data multi-g.data; do
	perf report --stdio -i $f > $f.report-default 2>/dev/null
	perf report --stdio --group -i $f > $f.report-group 2>/dev/null
	perf report --stdio --no-children -g none --sort comm,dso,sym -i $f > $f.report-no-children-sort-comm,dso,sym 2>/dev/null
done
if [ -x /tmp/perfdata-cxx/fp/work ] && [ -x /tmp/perfdata-cxx/dwarf/work ]; then
	for f in /tmp/perfdata-cxx/fp/work /tmp/perfdata-cxx/dwarf/work /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30 \
		$(find cxx/root -type f); do
		perf buildid-cache -a "$f" 2>/dev/null || true
	done
	for f in cxx-fp.data cxx-dwarf.data; do
		perf report --stdio --no-children -g none --sort comm,dso,sym -i $f > $f.report 2>/dev/null
		perf report --stdio --children -g none --sort sym -i $f > $f.report-children-sort-sym 2>/dev/null
		tables $f
	done
else
	echo "no /tmp/perfdata-cxx binaries (cxx/record.sh builds them): C++ tables not made" >&2
fi
# perf report's default output, with call graphs (children and the caller tree), and its -g
# variants, whole (perfdata-cli/tests/report_graph.rs compares them byte for byte, less perf's
# closing random tip): F.report-g-NAME for the arguments listed in report-g.args (NAME fp-*: fp.data
# only; without the comm key perf labels dwarf.data's merged inline entries by another symbol).
# The srcline lines need the extracts' DWARF (folded/root's reduced libc, ld.so and spin debug
# files hold every unit fp.data and dwarf.data sample), not this machine's.
while read -r name args; do
	for f in fp.data dwarf.data; do
		case $name/$f in fp-*/dwarf.data) continue ;; esac
		# shellcheck disable=SC2086
		perf report --stdio $args -i $f > $f.report-g-$name 2>/dev/null
	done
done < report-g.args
