#!/usr/bin/env bash
# make.sh: rebuild the kernel-module fixtures derived from ../sysw.data and store perf 6.1's
# outputs for them (perfdata-core/tests/kmod.rs compares ours with these).
#   perfdata-core/examples/kmod_fixture.rs writes kmod.data, kmod-buildid.data, kallsyms and
#   kmod-demo.c; gcc builds root/.../kmod-demo.ko from kmod-demo.c, and
#   buildid/.build-id/XX/YYY/elf is the same file, where perf's build-id cache keeps a module.
# perf runs with --kallsyms kallsyms; user frames come from the recording machine's ~/.debug, as
# for ../folded/gen-folded.sh (the tests read them from ../folded/root, perf cannot: see there).
#   F.folded-perf-script-py            perf script -s .../stackcollapse.py -i F --kallsyms kallsyms
#                                      (perf script report stackcollapse)
#   F.folded-stackcollapse-pl          perf script -i F --kallsyms kallsyms | inferno-collapse-perf
#   F.folded-stackcollapse-pl-addrs    ... | inferno-collapse-perf --addrs
#   F.folded-perf-script-py-k-pid-tid  ... -- --kernel --include-pid --include-tid
#   F.folded-stackcollapse-pl-all-tid  perf script -F +pid ... | inferno-collapse-perf --all --tid
#     (all five for kmod.data, the first three for kmod.data.ko, the first two for the others)
#   F.ko.*                             with kmod-demo.ko found at its path (--symfs)
#   kmod-buildid.data.bidcache.*       with kmod-demo.ko in the build-id cache
# To read what perf resolved: perf script -i F --kallsyms kallsyms -F comm,tid,time,ip,sym,dso
# inferno-collapse-perf is inferno 0.12.8 (cargo install inferno).
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
(cd ../.. && cargo run --quiet --release -p perfdata-core --example kmod_fixture -- testdata)
rm -f *.folded-*
KO=root/lib/modules/6.18.44-fc-v669/kernel/drivers/misc/kmod-demo.ko
mkdir -p "$(dirname $KO)"
gcc -c -o $KO kmod-demo.c
BID=$(readelf -n $KO | sed -n 's/.*Build ID: //p')
rm -rf buildid
mkdir -p buildid/.build-id/${BID:0:2}/${BID:2}
cp $KO buildid/.build-id/${BID:0:2}/${BID:2}/elf
# `perf script report stackcollapse` runs this in a perf of its own, without perf's options.
STACKCOLLAPSE=/usr/lib/perf-core/scripts/python/stackcollapse.py
TOP=() # perf's own options (before `script`)
outputs() { # FILE SUFFIX all|addrs|short PERF-SCRIPT-OPTIONS...
	local f=$1 s=$2 set=$3
	shift 3
	perf "${TOP[@]}" script -s $STACKCOLLAPSE -i $f --kallsyms kallsyms "$@" > $f$s.folded-perf-script-py 2>/dev/null
	perf "${TOP[@]}" script -i $f --kallsyms kallsyms "$@" 2>/dev/null | inferno-collapse-perf > $f$s.folded-stackcollapse-pl
	[ $set = short ] && return 0
	perf "${TOP[@]}" script -i $f --kallsyms kallsyms "$@" 2>/dev/null | inferno-collapse-perf --addrs \
		> $f$s.folded-stackcollapse-pl-addrs
	[ $set = addrs ] && return 0
	perf "${TOP[@]}" script -s $STACKCOLLAPSE -i $f --kallsyms kallsyms "$@" -- --kernel --include-pid --include-tid \
		> $f$s.folded-perf-script-py-k-pid-tid 2>/dev/null
	perf "${TOP[@]}" script -F +pid -i $f --kallsyms kallsyms "$@" 2>/dev/null | inferno-collapse-perf --all --tid \
		> $f$s.folded-stackcollapse-pl-all-tid
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# A --symfs root that is this machine's / (perf also looks for the build-id cache under it) with
# kmod-demo.ko at its /lib/modules path.
FARM=$TMP/farm
mkdir -p $FARM/lib
for e in usr root work tmp; do ln -s /$e $FARM/$e; done
for e in /usr/lib/*; do ln -s $e $FARM/lib/; done
cp -r root/lib/modules $FARM/lib/
outputs kmod.data "" all
outputs kmod.data .ko addrs --symfs $FARM
outputs kmod-buildid.data "" short
outputs kmod-buildid.data .ko short --symfs $FARM
# The build-id cache: ~/.debug (the user binaries) with kmod-demo.ko added by its build id.
CACHE=$TMP/debug
mkdir $CACHE
cp -as ~/.debug/. "$CACHE"
mkdir -p "$CACHE"/.build-id/${BID:0:2}/${BID:2}
cp $KO "$CACHE"/.build-id/${BID:0:2}/${BID:2}/elf
TOP=(--buildid-dir "$CACHE")
outputs kmod-buildid.data .bidcache short
