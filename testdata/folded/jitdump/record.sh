#!/usr/bin/env bash
# record.sh: re-create the jitdump test data of perfdata-core/tests/jitdump.rs (run as root, with
# perf 6.1, node and inferno-collapse-perf 0.12.8; takes a few seconds). Everything else in this
# directory is written by it; see testdata/README.md ("JIT code from jitdump files").
#
# 1. rec.data: `perf record -k mono -g` of node running work.js with --perf-prof, so V8 writes
#    jit-PID.dump into its working directory /tmp/perfdata-jitdump (and maps it PROT_EXEC: the
#    marker MMAP2 perf inject looks for). Only user mode is sampled (no kallsyms needed).
# 2. The dump is reduced to the code loads that samples hit (jitdump.py reduce: perf's folded
#    stacks must not change, checked below), and copied to root/ at its recorded path.
# 3. rec.jit.data: `perf inject --jit` of rec.data with that dump. The jitted-PID-N.so files
#    perf inject writes go to the build-id cache; buildid/ keeps them (reduced to their symbols).
# 4. perf's folded stacks of both recordings, from the cache and the reduced binaries only
#    (zstd-compressed):
#      F.folded-perf-script-py         perf script report stackcollapse -i F (its stackcollapse.py)
#      F.folded-stackcollapse-pl       perf script -i F | inferno-collapse-perf
#      F.folded-stackcollapse-pl-all   perf script -i F | inferno-collapse-perf --all  (rec.jit.data)
# 5. synth.data and root/tmp/perfdata-jitsynth/jit-7.dump: a hand-made recording and dump
#    (synth.py: moves, reloads, unwinding sizes, an anonymous mmap after the marker, JIT_CODE_CLOSE),
#    injected and folded the same way (plain text, plus synth.jit.data.folded-stackcollapse-pl-addrs:
#    inferno-collapse-perf --addrs); its jitted-7-N.so (no build ids) are found by path, so they
#    are kept at their path in root/.
# 6. root/: the reduced binaries perf read symbols from (../make-extract.py's extract_dsos).
# KEEP=1 keeps the scratch directory (printed) for a look at perf's own files.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REC=/tmp/perfdata-jitdump
SCRATCH=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "scratch: $SCRATCH" || trap 'rm -rf "$SCRATCH"' EXIT
export LC_ALL=C

rm -rf "$REC" && mkdir -p "$REC" && cp "$HERE/work.js" "$REC/"
cd "$REC"
# The recording's own build-id cache (perf caches the vdso and binaries there, not in ~/.debug).
CACHE=$SCRATCH/cache
perf --buildid-dir "$CACHE" record -k mono -g -e cpu-clock:u -c 4000000 -o rec.data -- \
	node --perf-prof --perf-prof-unwinding-info --interpreted-frames-native-stack work.js
rm -f isolate-*-v8.log
DUMP=$(echo jit-*.dump)

# `perf script report stackcollapse` runs `perf script -s stackcollapse.py` without the cache option.
STACKCOLLAPSE=/usr/lib/perf-core/scripts/python/stackcollapse.py
folded() { # folded DATA PREFIX: perf's folded stacks of DATA, as PREFIX.folded-*
	perf --buildid-dir "$CACHE" script -s $STACKCOLLAPSE -i "$1" > "$2.folded-perf-script-py" 2>/dev/null
	perf --buildid-dir "$CACHE" script -i "$1" 2>/dev/null | inferno-collapse-perf > "$2.folded-stackcollapse-pl"
	perf --buildid-dir "$CACHE" script -i "$1" 2>/dev/null | inferno-collapse-perf --all > "$2.folded-stackcollapse-pl-all"
}

# 2. What the samples hit with the whole dump; then the dump without the rest. Each perf inject
# writes into its own copy of the cache (hard links: perf only adds files).
cp -al "$CACHE" "$SCRATCH/full-cache"
perf --buildid-dir "$SCRATCH/full-cache" inject --jit -i rec.data -o "$SCRATCH/full.jit.data"
perf --buildid-dir "$SCRATCH/full-cache" script -i "$SCRATCH/full.jit.data" > "$SCRATCH/full.script" 2>/dev/null
CACHE=$SCRATCH/full-cache folded "$SCRATCH/full.jit.data" "$SCRATCH/full"
rm -f jitted-*.so
mv "$DUMP" "$SCRATCH/full.dump"
python3 "$HERE/jitdump.py" reduce "$SCRATCH/full.dump" "$SCRATCH/full.script" "$DUMP"

# 3. The injected recording; its jitted-*.so, reduced, into their own cache.
cp -al "$CACHE" "$SCRATCH/inject-cache"
perf --buildid-dir "$SCRATCH/inject-cache" inject --jit -i rec.data -o rec.jit.data
rm -f jitted-*.so
python3 "$HERE/jitdump.py" buildids "$SCRATCH/inject-cache" "$SCRATCH/jitcache" "$REC"

# 4. perf's outputs, with the reduced jitted-*.so added to the recording's cache.
cp -a "$SCRATCH/jitcache/." "$CACHE/"
folded rec.data "$SCRATCH/rec.data"
folded rec.jit.data "$SCRATCH/rec.jit.data"
for k in perf-script-py stackcollapse-pl stackcollapse-pl-all; do
	cmp "$SCRATCH/full.folded-$k" "$SCRATCH/rec.jit.data.folded-$k" \
		|| { echo "the reduced dump (or the reduced .so files) changed perf's folded-$k" >&2; exit 1; }
done
grep -q "_\[j\]" "$SCRATCH/rec.jit.data.folded-stackcollapse-pl-all" || { echo "no _[j] frames" >&2; exit 1; }

# 5. The hand-made recording and dump of synth.py, injected the same way.
SYNTH=/tmp/perfdata-jitsynth
rm -rf "$SYNTH" && mkdir -p "$SYNTH"
python3 "$HERE/synth.py" "$SYNTH/synth.data" "$SYNTH/jit-7.dump"
(
	cd "$SYNTH"
	# Without a BUILD_ID feature in synth.data, the injected file names no build ids: perf (and
	# the test, under --symfs) finds the jitted-*.so at their paths, reduced in place.
	perf --buildid-dir "$CACHE" inject --jit -i synth.data -o synth.jit.data
	python3 "$HERE/jitdump.py" reduce-so jitted-*.so
	folded synth.data "$SCRATCH/synth.data"
	folded synth.jit.data "$SCRATCH/synth.jit.data"
	perf --buildid-dir "$CACHE" script -i synth.jit.data 2>/dev/null | inferno-collapse-perf --addrs \
		> "$SCRATCH/synth.jit.data.folded-stackcollapse-pl-addrs"
)

# 6. Into the test directory.
rm -rf "$HERE/root" "$HERE/buildid" "$HERE"/rec.* "$HERE"/synth.*.*
mkdir -p "$HERE/root$REC"
cp "$DUMP" "$HERE/root$REC/"
cp -a "$SCRATCH/jitcache" "$HERE/buildid"
mkdir -p "$HERE/root$SYNTH"
cp "$SYNTH"/jit-7.dump "$SYNTH"/jitted-7-*.so "$HERE/root$SYNTH/"
cp rec.data rec.jit.data "$SYNTH/synth.data" "$SYNTH/synth.jit.data" "$HERE/"
for f in rec synth; do
	cp "$SCRATCH/$f.data.folded-perf-script-py" "$SCRATCH/$f.data.folded-stackcollapse-pl" "$HERE/"
	cp "$SCRATCH/$f.jit.data".folded-* "$HERE/"
done
perf --buildid-dir "$CACHE" script -i rec.data > "$SCRATCH/rec.script" 2>/dev/null
perf --buildid-dir "$CACHE" script -i rec.jit.data > "$SCRATCH/rec.jit.script" 2>/dev/null
python3 "$HERE/jitdump.py" extract "$HERE/root" "$CACHE" rec.data "$SCRATCH/rec.script" "$SCRATCH/rec.jit.script"
# The folded outputs (long node stacks) compressed: the tests read F or F.zst.
zstd -q -19 --rm "$HERE"/rec.*.folded-*
chmod 644 "$HERE"/rec.* "$HERE"/synth.*.*
du -sh "$HERE"
