#!/usr/bin/env bash
# record.sh - (re)build the PLT workloads in /tmp/plt, record them with perf 6.1 and keep, beside
# each recording, perf's `perf script` output against the committed fixtures only.
# Run as root. The builds are reproducible (same gcc and binutils: same build ids), so the
# binaries under root/tmp/plt/ are the recorded ones.
#   plt-nopie  plt.c, -no-pie                      (ET_EXEC: .init, .plt, .text, .fini)
#   plt-pie    plt.c, PIE                           (ET_DYN, .plt.got after .plt)
#   plt-edge   edge.c + edge.S, PIE, -z ibtplt -z now (.plt.sec), -z noseparate-code (an
#              executable .rodata), size-0 labels inside a function, code past every symbol
# Recorded user-mode only (cpu-clock:u): no kernel symbols needed.
#   perf record -e cpu-clock:u -c 250000 -g -N -o plt-X.data /tmp/plt/plt-X ROUNDS
#   perf script -i plt-X.data --symfs root   (empty build-id cache) > plt-X.data.script
set -eu
cd "$(dirname "$0")"
HERE=$(pwd)
export LC_ALL=C
WORK=/tmp/plt
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# No build-id cache: perf must find nothing but the symfs root (and record must not fill ~/.debug).
export PERF_BUILDID_DIR=$SCRATCH/buildid HOME=$SCRATCH

mkdir -p "$WORK"
cp plt.c edge.c edge.S "$WORK/"
cd "$WORK"
CFLAGS="-O1 -fno-omit-frame-pointer -fno-builtin"
gcc $CFLAGS -no-pie -o plt-nopie plt.c
gcc $CFLAGS -fPIE -pie -o plt-pie plt.c
gcc $CFLAGS -fPIE -pie -Wl,-z,noseparate-code -Wl,-z,ibtplt -Wl,-z,now -o plt-edge edge.c edge.S

mkdir -p "$HERE/root$WORK"
for b in plt-nopie plt-pie plt-edge; do
	cp "$b" "$HERE/root$WORK/$b"
	case $b in
	plt-edge) rounds=6000000 ;;
	*) rounds=12000000 ;;
	esac
	rm -f "$HERE/$b.data" "$HERE/$b.data.old" "$HERE/$b.data.script.err"
	perf record -e cpu-clock:u -c 250000 -g -N -o "$HERE/$b.data" "$WORK/$b" "$rounds" \
		> /dev/null 2> "$HERE/$b.data.record.err" || true
	perf script -i "$HERE/$b.data" --symfs "$HERE/root" > "$HERE/$b.data.script" 2> "$HERE/$b.data.script.err" || true
	[ -s "$HERE/$b.data.script.err" ] || rm -f "$HERE/$b.data.script.err"
	echo "== $b: $(tail -1 "$HERE/$b.data.record.err"); $(stat -c %s "$HERE/$b.data") bytes"
done
