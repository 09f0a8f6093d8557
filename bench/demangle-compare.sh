#!/bin/sh
# C++/Rust demangling: perfdata against binutils' c++filt -p -i (libiberty's cplus_demangle
# without DMGL_PARAMS/DMGL_VERBOSE, the flags perf 6.1 uses) over every mangled symbol of the
# large C++ binaries installed here (gcc's cc1plus, libstdc++, node, libLLVM; each skipped when
# absent) and of a Rust binary (the demangle example itself: v0 names). Prints the number of
# differences and writes them to bench/work/demangle-diffs.tsv (mangled, c++filt, ours), and the
# time perfdata takes over all of them. The test perfdata-symbolize/tests/demangle.rs checks a
# committed sample of these symbols (testdata/demangle/make.sh).
# With perf (as root), perf itself is asked too: `perf probe -x BINARY -F --filter '*'` lists the
# functions of each binary as perf names them, and every name it lists (but `…@plt` and
# `…@@VERSION`, not demangling) must be one of ours for that binary's symbols.
# Install the binaries: apt-get install g++ nodejs libllvm14
#   bench/demangle-compare.sh [BINARY...]
# FALLBACK=1 measures the pure-Rust fallback instead (a build without libiberty, in
# target/fallback): the difference docs/demangling.md documents.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/work
demangle=target/release/examples/demangle
if [ "${FALLBACK:-0}" = 1 ]; then
    PERFDATA_LIBIBERTY=none CARGO_TARGET_DIR=target/fallback cargo build -q --release -p perfdata-symbolize --example demangle
    demangle=target/fallback/release/examples/demangle
else
    cargo build -q --release -p perfdata-symbolize --example demangle
fi
echo "demangler: $("$demangle" --which)" >&2
[ $# -gt 0 ] || set -- /usr/lib/gcc/x86_64-linux-gnu/*/cc1plus /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
    /usr/bin/node /usr/lib/llvm-*/lib/libLLVM-*.so "$demangle"
work=bench/work/demangle
mkdir -p $work
for f in "$@"; do
    [ -e "$f" ] || continue
    echo "symbols of $f" >&2
    { nm -D --defined-only "$f" 2>/dev/null || true; nm --defined-only "$f" 2>/dev/null || true; } | awk '{print $NF}'
done | sed 's/@.*//' | grep -E '^_Z|^_R' | LC_ALL=C sort -u > $work/symbols.txt
xargs -a $work/symbols.txt -d '\n' c++filt -p -i > $work/cxxfilt.txt
start=$(date +%s.%N)
"$demangle" < $work/symbols.txt > $work/ours.txt
end=$(date +%s.%N)
paste $work/symbols.txt $work/cxxfilt.txt $work/ours.txt | awk -F'\t' '$2 != $3' > bench/work/demangle-diffs.tsv
total=$(wc -l < $work/symbols.txt)
diff=$(wc -l < bench/work/demangle-diffs.tsv)
echo "$diff of $total symbols demangle differently from c++filt -p -i (bench/work/demangle-diffs.tsv)"
echo "perfdata demangled them in $(awk "BEGIN { printf \"%.2f\", $end - $start }") s"

command -v perf > /dev/null && [ "$(id -u)" = 0 ] || exit 0
for f in "$@"; do
    [ -e "$f" ] || continue
    { nm -D --defined-only "$f" 2>/dev/null || true; nm --defined-only "$f" 2>/dev/null || true; } | awk '{print $NF}' |
        sed 's/@.*//' | LC_ALL=C sort -u > $work/one.txt
    "$demangle" < $work/one.txt | LC_ALL=C sort -u > $work/one-ours.txt
    perf probe -x "$f" -F --filter '*' 2>/dev/null | grep -v -e '@plt$' -e '@@' | LC_ALL=C sort -u > $work/one-perf.txt
    missing=$(LC_ALL=C comm -23 $work/one-perf.txt $work/one-ours.txt | wc -l)
    echo "perf probe -F $f: $(wc -l < $work/one-perf.txt) names, $missing not among ours"
done
