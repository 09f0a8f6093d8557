#!/usr/bin/env bash
# gen-brstack.sh: brstack.data (make-brstack.py: ../fp.data with branch stacks made from each
# sample's callchain) and perf 6.1's `perf script` of it for the four -F lists below, with the
# fixture build-id cache of ../lib.sh (bin/spin, folded's extracts, the kernel's kallsyms):
#   brstack.data.script-brstacksym      -F ip,brstacksym
#   brstack.data.script-brstacksym-dso  -F brstacksym,dso
#   brstack.data.script-brstackoff      -F ip,brstackoff
#   brstack.data.script-brstackoff-dso  -F brstackoff,dso
# Outputs over 16 KiB are stored as .zst (zstd -19). Needs perf, zstd and python3; not root.
set -eu
cd "$(dirname "$0")"
python3 make-brstack.py ../fp.data brstack.data
cd ..
. ./lib.sh
fixture_cache
export LC_ALL=C PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1
for args in "brstacksym ip,brstacksym" "brstacksym-dso brstacksym,dso" "brstackoff ip,brstackoff" \
	"brstackoff-dso brstackoff,dso"; do
	set -- $args
	out=script-rec/brstack.data.script-$1
	rm -f "$out" "$out.zst"
	perf script -i script-rec/brstack.data -F "$2" < /dev/null > "$out"
	if [ "$(stat -c %s "$out")" -gt 16384 ]; then
		zstd -q -19 -f --rm "$out"
	fi
done
