#!/usr/bin/env bash
# record.sh: re-create the C++ recordings testdata/cxx-fp.data and testdata/cxx-dwarf.data, perf's
# outputs beside them and the symbol files the tests read (run as root, with perf 6.1, g++ 12 and
# inferno-collapse-perf 0.12.8; takes about half a minute). See testdata/README.md ("C++").
#
# 1. work.cc is built twice in /tmp/perfdata-cxx (a fixed path, so the recorded paths and the
#    DWARF's file names do not depend on where the repository is), as perf users build:
#      fp/work     g++ -std=c++17 -O2 -g -fno-omit-frame-pointer   for perf record -g
#      dwarf/work  g++ -std=c++17 -O2 -g                           for perf record --call-graph dwarf
# 2. The recordings (user mode only, so no kernel symbols are involved):
#      cxx-fp.data     perf record -e cpu-clock:u -c 2000000 -g -- taskset -c 0 fp/work ROUNDS
#      cxx-dwarf.data  perf record -e cpu-clock:u -c 10000000 --call-graph dwarf,4096 -- taskset -c 0 dwarf/work ROUNDS
# 3. Every perf run uses the recording's own build-id cache: HOME is a scratch directory, so
#    ~/.debug is the cache perf record filled (work, libc, ld.so, libstdc++, libm, libgcc_s and
#    libc6-dbg's debug files for libc and ld.so), never this machine's ~/.debug.
#    ../gen-outputs.sh stores F.dump/.script/.header/.stats/.buildids, ../folded/gen-folded.sh
#    the folded stacks (--callchain cxx-fp.data, --dwarf cxx-dwarf.data: with -noinline variants).
# 4. root/: the --symfs root the tests read, by ../folded/make-extract.py (--root, --cfi
#    cxx-dwarf.data, --reduce-dynsym: libstdc++ keeps only the .dynsym symbols perf printed):
#    each binary reduced to the symbols perf printed; the DWARF of the inline frames under
#    root/usr/lib/debug/.build-id: dwarf/work's (objcopy --only-keep-debug, compressed), libc's and ld.so's debug files reduced to the sampled compilation units
#    (../folded/reduce-debug.py); ../folded/verify-inline-extract.py --root checks that addr2line
#    answers from them as from the files perf read.
# 5. Then ../gen-report.sh (not run here: it rewrites every recording's report tables) makes the
#    C++ recordings' perf report tables from the /tmp/perfdata-cxx binaries this leaves behind.
# KEEP=1 keeps the scratch directory (printed).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TD=$(dirname "$HERE")
REC=/tmp/perfdata-cxx
ROUNDS=${ROUNDS:-25000}
SCRATCH=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "scratch: $SCRATCH" || trap 'rm -rf "$SCRATCH"' EXIT
export LC_ALL=C
export PATH=$PATH:$HOME/.cargo/bin
export HOME=$SCRATCH/home
mkdir -p "$HOME"

rm -rf "$REC" && mkdir -p "$REC/fp" "$REC/dwarf" && cp "$HERE/work.cc" "$REC/"
cd "$REC"
g++ -std=c++17 -O2 -g -fno-omit-frame-pointer -o fp/work work.cc
g++ -std=c++17 -O2 -g -o dwarf/work work.cc

cd "$TD"
rec() { # NAME PERF-ARGS...: perf record -o NAME, its stderr in NAME.record.err (kept if not empty)
	local name=$1
	shift
	rm -rf "$name" "$name".*
	perf record -o "$name" "$@" > /dev/null 2> "$name.record.err"
	[ -s "$name.record.err" ] || rm -f "$name.record.err"
	chmod 644 "$name"
}
rec cxx-fp.data -e cpu-clock:u -c 2000000 -g -- taskset -c 0 "$REC/fp/work" "$ROUNDS"
rec cxx-dwarf.data -e cpu-clock:u -c 10000000 --call-graph dwarf,4096 -- taskset -c 0 "$REC/dwarf/work" "$ROUNDS"
./gen-outputs.sh cxx-fp.data cxx-dwarf.data
./folded/gen-folded.sh --callchain cxx-fp.data
./folded/gen-folded.sh --dwarf cxx-dwarf.data

# The symbol files.
rm -rf "$HERE/root"
python3 "$TD/folded/make-extract.py" --root "$HERE/root" --reduce-dynsym cxx-fp.data --cfi cxx-dwarf.data
debug_path() { # BUILD-ID: where perf and perfdata look for its debug file under a --symfs root
	echo "$HERE/root/usr/lib/debug/.build-id/${1:0:2}/${1:2}.debug"
}
bid() { # FILE: its GNU build id
	readelf -n "$1" | sed -n 's/.*Build ID: //p'
}
out=$(debug_path "$(bid "$REC/dwarf/work")")
mkdir -p "$(dirname "$out")"
objcopy --only-keep-debug --compress-debug-sections=zlib "$REC/dwarf/work" "$out"
# libc and ld.so: libc6-dbg's debug files (perf's symbol source, in the cache as `debug`),
# reduced to the units of the addresses perf printed for cxx-dwarf.data.
perf script --no-inline -F ip,dso -i cxx-dwarf.data 2>/dev/null > "$SCRATCH/ips"
for lib in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
	addrs=$(awk -v l="($lib)" '$2 == l { print $1 }' "$SCRATCH/ips" | sort -u)
	[ -n "$addrs" ] || continue
	b=$(bid "$lib")
	src=$HOME/.debug/.build-id/${b:0:2}/${b:2}/debug
	mkdir -p "$(dirname "$(debug_path "$b")")"
	# shellcheck disable=SC2086
	python3 "$TD/folded/reduce-debug.py" "$src" "$(debug_path "$b")" $addrs
done
python3 "$TD/folded/verify-inline-extract.py" --root "$HERE/root" cxx-dwarf.data
chmod -R a+rX "$HERE/root"
du -sh "$HERE/root" "$TD"/cxx-*.data*
