#!/usr/bin/env bash
# gen-annotate.sh: perf annotate's --stdio text for the lines of annotate.args (`NAME FILE ARGS`),
# stored as FILE.annotate-NAME for perfdata-cli/tests/annotate.rs: perf annotate --stdio ARGS -i FILE.
# perf finds bin/spin (and this machine's libc, when it has the recorded build id) in the
# fixture cache; objdump reads spin.c from this directory (--prefix here, --prefix-strip=3 of the
# recorded /work/main/testdata/spin.c), so the source lines are the same wherever this runs and
# wherever the test runs. Needs perf 6.1 and binutils' objdump.
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
. ./lib.sh
fixture_cache
while read -r name file args; do
	# shellcheck disable=SC2086
	perf annotate --stdio --prefix "$PWD" --prefix-strip 3 $args -i $file > $file.annotate-$name 2>/dev/null
done < annotate.args
