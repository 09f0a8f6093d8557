#!/usr/bin/env bash
# gen-diff.sh: perf diff's outputs for perfdata-cli/tests/diff.rs, from committed recordings.
# perf resolves symbols from a build-id cache made here from testdata/folded's extracts and the
# recording kernel's kallsyms, as ../gen-report.sh does, so this runs on any machine with perf 6.1.
# Each output is `perf diff ARGS` run in testdata/ (the file names in the `# Data files:` lines
# are as given), stdout only, stored as diff/NAME.txt.
set -eu
cd "$(dirname "$0")/.."
export LC_ALL=C
. ./lib.sh
fixture_cache
run() { # NAME ARGS…: diff/NAME.txt
	name=$1
	shift
	perf diff "$@" > diff/$name.txt 2>/dev/null
}
run default fp.data dwarf.data
run reverse dwarf.data fp.data
run delta -c delta fp.data dwarf.data
run ratio -c ratio fp.data dwarf.data
run wdiff -c wdiff:2,3 fp.data dwarf.data
run sort-dso --sort dso fp.data dwarf.data
run sort-sym --sort sym fp.data dwarf.data
run sort-comm-dso --sort comm,dso fp.data dwarf.data
run sort-cpu-sym --sort cpu,sym fp.data dwarf.data
run sort-pid --sort pid fp.data dwarf.data
run relative --percentage relative fp.data dwarf.data
run field-sep -t ';' fp.data dwarf.data
run three fp.data dwarf.data regs.data
run three-o2 -o 2 fp.data dwarf.data regs.data
run three-o0 -o 0 fp.data dwarf.data regs.data
run three-ratio -c ratio fp.data dwarf.data regs.data
run three-wdiff -c wdiff:1,1 -o 2 fp.data dwarf.data regs.data
run sort-sym-dso --sort sym,dso fp.data dwarf.data
run self fp.data fp.data
run field-sep-ratio -t , -c ratio fp.data dwarf.data
run field-sep-three -t '|' -c delta fp.data dwarf.data regs.data
run three-delta -c delta fp.data dwarf.data regs.data
# sysw.data (-a, several commands and CPUs) against fp.data: by keys without the symbol, where
# the extracts name nothing differently (see README.md), and the default table.
run sysw-comm --sort comm sysw.data fp.data
run sysw-cpu-dso --sort cpu,dso sysw.data fp.data
run sysw-pid --sort pid fp.data sysw.data
run sysw sysw.data fp.data
# Several events per file.
run multi multi-g.data multi.data
