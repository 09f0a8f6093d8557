#!/usr/bin/env bash
# gen-folded.sh: store what the standard tools fold from the committed recordings, for
# perfdata-core/tests/folded.rs. Run on the recording machine (perf resolves symbols from its
# ~/.debug), then make-extract.py with the same recordings so the tests find those symbols.
#   F.folded-perf-script-py             perf script report stackcollapse -i F
#   F.folded-perf-script-py-k-pid-tid   ... -- --kernel --include-pid --include-tid
#   F.folded-stackcollapse-pl           perf script -i F | inferno-collapse-perf
#   F.folded-stackcollapse-pl-all-tid   perf script -F +pid -i F | inferno-collapse-perf --all --tid
#   F.folded-stackcollapse-pl-addrs     perf script -i F | inferno-collapse-perf --addrs
#   dwarf.data, python.data: the first two, and -noinline variants (perf script --no-inline)
#   jit.data.folded-{perf-script-py,stackcollapse-pl,stackcollapse-pl-all}  (--all: _[j] frames)
#   sysw.data.folded-stackcollapse-pl-comm-dd   perf script --comms dd -i F | inferno-collapse-perf
#   fp.data.folded-stackcollapse-pl-time        perf script --time 3094.54,3094.545 -i F | …
#   fp.data.folded-stackcollapse-pl-time-{multi,pct-slash,pct-dash,pct}, …-perf-script-py-time-pct-slash3:
#                                               perf's other --time forms (several ranges, percentages)
#   multi-g.data.folded-stackcollapse-pl-ev-page-faults  ... | inferno-collapse-perf --event-filter …
#   clock-mono.data, cgroup.data (no callchains): F.folded-perf-script-py only
#   fp.data, dwarf.data: F.script-srcline (perf script -F +srcline), dwarf.data also -noinline
# inferno-collapse-perf is inferno 0.12.8 from crates.io (cargo install inferno).
set -eu
cd "$(dirname "$0")/.."
export LC_ALL=C
for f in fp.data sysw.data; do
	perf script report stackcollapse -i $f > $f.folded-perf-script-py 2>/dev/null
	perf script report stackcollapse -i $f -- --kernel --include-pid --include-tid > $f.folded-perf-script-py-k-pid-tid 2>/dev/null
	perf script -i $f 2>/dev/null | inferno-collapse-perf > $f.folded-stackcollapse-pl
	perf script -F +pid -i $f 2>/dev/null | inferno-collapse-perf --all --tid > $f.folded-stackcollapse-pl-all-tid
	perf script -i $f 2>/dev/null | inferno-collapse-perf --addrs > $f.folded-stackcollapse-pl-addrs
done
# Two events: perf pads the names, so inferno finds no period and counts samples.
perf script -i multi-g.data 2>/dev/null | inferno-collapse-perf > multi-g.data.folded-stackcollapse-pl
perf script -i multi-g.data 2>/dev/null | inferno-collapse-perf --event-filter page-faults/period=20/ \
	> multi-g.data.folded-stackcollapse-pl-ev-page-faults
perf script report stackcollapse -i multi-g.data > multi-g.data.folded-perf-script-py 2>/dev/null
# Samples without callchains: perf 6.1 hands stackcollapse.py an empty callchain, so each sample
# counts under its comm alone. (stackcollapse-perf.pl stores nothing for them; inferno differs
# from it there, see folded.rs, so no -pl output is kept.)
for f in clock-mono.data cgroup.data; do
	perf script report stackcollapse -i $f > $f.folded-perf-script-py 2>/dev/null
done
# JIT code described by /tmp/perf-PID.map (make-extract.py keeps the map file).
perf script report stackcollapse -i jit.data > jit.data.folded-perf-script-py 2>/dev/null
perf script -i jit.data 2>/dev/null | inferno-collapse-perf > jit.data.folded-stackcollapse-pl
perf script -i jit.data 2>/dev/null | inferno-collapse-perf --all > jit.data.folded-stackcollapse-pl-all
# --call-graph dwarf: perf unwinds with libunwind and, by default, adds inline frames from the
# DWARF debug info through addr2line; the -noinline variants are without them. The tests read the
# DWARF from root/usr/lib/debug/.build-id (libc6-dbg's files reduced to the sampled compilation
# units by reduce-debug.py); verify-inline-extract.py checks that addr2line answers from them as
# from the files perf read here (perf itself cannot run on the root/ stand-ins: their code is gone).
#   folded/reduce-debug.py /usr/lib/debug/.build-id/93/ac61….debug folded/root/usr/lib/debug/.build-id/93/ac61….debug ADDR…
#   (ADDR: the file's addresses in `perf script --no-inline -F ip,dso` of dwarf.data, python.data
#   and fp.data, whose source lines come from the same files)
#   objcopy --only-keep-debug bin/spin folded/root/usr/lib/debug/.build-id/40/19a4….debug
#   folded/verify-inline-extract.py dwarf.data python.data fp.data
STACKCOLLAPSE=/usr/lib/perf-core/scripts/python/stackcollapse.py
for f in dwarf.data python.data; do
	perf script report stackcollapse -i $f > $f.folded-perf-script-py 2>/dev/null
	perf script -i $f 2>/dev/null | inferno-collapse-perf > $f.folded-stackcollapse-pl
	perf script --no-inline -s $STACKCOLLAPSE -i $f > $f.folded-perf-script-py-noinline 2>/dev/null
	perf script --no-inline -i $f 2>/dev/null | inferno-collapse-perf > $f.folded-stackcollapse-pl-noinline
done
# Source lines (perfdata-core/tests/srcline.rs): perf asks addr2line about the file its symbols came
# from (spin's build-id cache copy, libc6-dbg's debug files); the tests read the same DWARF from
# root/usr/lib/debug/.build-id (above) and apply stackcollapse-perf.pl --srcline's rule themselves.
perf script -F +srcline -i fp.data > fp.data.script-srcline 2>/dev/null
perf script -F +srcline -i dwarf.data > dwarf.data.script-srcline 2>/dev/null
perf script --no-inline -F +srcline -i dwarf.data > dwarf.data.script-srcline-noinline 2>/dev/null
# Filters, as perf script applies them before the text reaches the collapser.
perf script -i sysw.data --comms dd 2>/dev/null | inferno-collapse-perf > sysw.data.folded-stackcollapse-pl-comm-dd
perf script -i fp.data --time 3094.54,3094.545 2>/dev/null | inferno-collapse-perf > fp.data.folded-stackcollapse-pl-time
for t in multi:"3094.537,3094.54 3094.545,3094.548" pct-slash:10%/2 pct-dash:0%-10%,30%-40% pct:25%; do
	perf script -i fp.data --time "${t#*:}" 2>/dev/null | inferno-collapse-perf > fp.data.folded-stackcollapse-pl-time-${t%%:*}
done
perf script report stackcollapse -i fp.data --time 10%/3 > fp.data.folded-perf-script-py-time-pct-slash3 2>/dev/null
