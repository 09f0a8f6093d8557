#!/bin/sh
# Re-creates the expected column of symbols.tsv: what binutils' c++filt -p -i prints for each
# mangled name (libiberty's cplus_demangle without DMGL_PARAMS/DMGL_VERBOSE, the call perf 6.1
# makes), one name per argument as perf passes it whole (c++filt's stdin mode would split
# `_Z1fv@plt` at the `@`). The names come from bench/demangle-compare.sh's binaries, Rust
# binaries (v0, and legacy with `-C symbol-mangling-version=legacy`) and hand-made edge cases.
#   testdata/demangle/make.sh [NAMES_FILE]   (default: the names already in symbols.tsv)
set -eu
cd "$(dirname "$0")"
names=$(mktemp)
trap 'rm -f "$names" symbols.tsv.tmp' EXIT
if [ $# -gt 0 ]; then cp "$1" "$names"; else cut -f1 symbols.tsv > "$names"; fi
xargs -a "$names" -d '\n' c++filt -p -i | paste "$names" - > symbols.tsv.tmp
[ "$(wc -l < symbols.tsv.tmp)" = "$(wc -l < "$names")" ]
mv symbols.tsv.tmp symbols.tsv
