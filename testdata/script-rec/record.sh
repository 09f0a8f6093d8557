#!/usr/bin/env bash
# record.sh - (re)make the recordings of testdata/script-rec/ and perf's `perf script` output for
# each, then the symbol fixtures (../folded/make-extract.py) and their check (check-fixtures.sh).
# Run as root with perf 6.1, gcc, java 17 (javac), node, pyenv's CPython 3.12; see README.md.
#   ./record.sh                 everything
#   ./record.sh deep pf-mem     only these recordings (names without .data); the fixtures are
#                               always rebuilt from all recordings present
# Adapted from ../record.sh and ../gen-outputs.sh (rec, out) and ../folded/jitdump/record.sh;
# busy CPU 1: ../lib.sh (shared with ../record.sh).
set -u
cd "$(dirname "$0")" || exit 1
HERE=$(pwd)
export LC_ALL=C
PATH=$PATH:$HOME/.cargo/bin
# The JIT workloads run in this directory (node --perf-prof writes jit-PID.dump into its cwd,
# perf inject --jit writes jitted-PID-N.so beside the dump).
WORK=/tmp/perfdata-scriptrec
PY312=$(ls -d "$HOME"/.pyenv/versions/3.12*/bin/python3.12 | head -1)

mkdir -p bin
gcc -O1 -g -fno-omit-frame-pointer -o bin/deep deep.c || exit 1

. ../lib.sh  # busy_on, busy_off
MAXSTACK=$(cat /proc/sys/kernel/perf_event_max_stack)
restore() {
	busy_off
	echo "$MAXSTACK" > /proc/sys/kernel/perf_event_max_stack
}
trap restore EXIT

clean() {
	rm -f "$HERE/$1" "$HERE/$1.old" "$HERE/$1".script* "$HERE/$1".folded-* "$HERE/$1".record.* "$HERE/$1".inject.*
}

# rec NAME PERF-ARGS... : perf record -o $HERE/NAME PERF-ARGS; stderr -> NAME.record.err
rec() {
	local name=$1; shift
	clean "$name"
	perf record -o "$HERE/$name" "$@" > /dev/null 2> "$HERE/$name.record.err"
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > "$HERE/$name.record.rc"
	echo "== $name (rc $rc): $(tail -1 "$HERE/$name.record.err")"
}

ALL=(block-g deep pf-mem java node python312 inject-jit emptychain)
if [ $# -gt 0 ]; then SEL=("$@"); else SEL=("${ALL[@]}"); fi

# block-g: block tracepoints with kernel+user callchains, system-wide (CPU 1 busy)
do_block-g() {
	busy_on
	rec block-g.data -g -a -e block:block_rq_issue -e block:block_rq_complete -- sh -c \
		'dd if=/dev/zero of=/var/tmp/ddtest-g bs=64k count=16 oflag=direct 2>/dev/null; rm -f /var/tmp/ddtest-g'
	busy_off
}
# deep: 200 dive() frames under each sample. perf record sets attr.sample_max_stack from
# kernel.perf_event_max_stack (read when it starts), and the kernel refuses a larger value: with the
# sysctl at 512 the samples keep every frame (~205); perf script cuts them at its own default, the
# sysctl's value when it runs (127 here), unless given --max-stack.
do_deep() {
	echo 512 > /proc/sys/kernel/perf_event_max_stack
	rec deep.data -e cpu-clock -c 1000000 -g -- taskset -c 0 ./bin/deep 200 60
	echo "$MAXSTACK" > /proc/sys/kernel/perf_event_max_stack
}
# pf-mem: memory-sample fields (ADDR, WEIGHT, PHYS_ADDR, DATA_PAGE_SIZE, DATA_SRC) on a software event
do_pf-mem() {
	rec pf-mem.data -d -W --phys-data --data-page-size -e page-faults -c 5 -- taskset -c 0 ./bin/deep 10 5
}
# emptychain: callchains without a frame (user-mode samples, kernel callchains only): perf script
# prints each sample line followed by a blank line, which stackcollapse-perf.pl folds to `comm COUNT`
do_emptychain() {
	rec emptychain.data -e cpu-clock:u -g --kernel-callchains -c 250000 -- taskset -c 0 ./bin/deep 50 20
}
prep_work() {
	rm -rf "$WORK" && mkdir -p "$WORK" && cp Work.java work.js work.py "$WORK/"
	javac -d "$WORK" "$WORK/Work.java"
}
# JIT code named by /tmp/perf-PID.map (written at exit by the JVM, continuously by node and CPython)
do_java() {
	prep_work
	(cd "$WORK" && rec java.data -e cpu-clock -c 4000000 -g -- taskset -c 0 java -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer -cp "$WORK" Work 5000)
}
do_node() {
	prep_work
	(cd "$WORK" && rec node.data -e cpu-clock -c 4000000 -g -- taskset -c 0 node --perf-basic-prof work.js 3000)
}
do_python312() {
	prep_work
	(cd "$WORK" && rec python312.data -e cpu-clock -c 2000000 -g -- taskset -c 0 "$PY312" -X perf work.py 1000)
}
# inject-jit: node writes a jitdump (--perf-prof; jit-PID.dump mapped PROT_EXEC as perf's marker),
# recorded with -k mono (perf inject only uses a dump with CLOCK_MONOTONIC samples) into
# $WORK/inject-src.data (scratch, not kept). As in ../folded/jitdump/record.sh, the dump is first
# reduced to the code loads the samples hit (../folded/jitdump/jitdump.py reduce: V8 loads ~2400
# functions, each would become an MMAP2 and a jitted-*.so), then `perf inject --jit` with the
# reduced dump -> inject-jit.data, which maps $WORK/jitted-PID-N.so (one ELF per load; perf
# inject also puts them in ~/.debug). perf script must print the same with the full and the
# reduced dump (checked: inject-jit.data.script vs $WORK/full.script).
do_inject-jit() {
	prep_work
	clean inject-jit.data
	(
		cd "$WORK" || exit 1
		perf record -k mono -e cpu-clock -c 4000000 -g -o "$WORK/inject-src.data" -- taskset -c 0 \
			node --perf-prof --interpreted-frames-native-stack work.js 3000 > /dev/null 2> "$HERE/inject-jit.data.record.err"
		rc=$?
		[ $rc -ne 0 ] && echo "$rc" > "$HERE/inject-jit.data.record.rc"
		rm -f isolate-*-v8.log
		dump=$(echo jit-*.dump)
		perf inject --jit -i inject-src.data -o full.jit.data
		perf script -i full.jit.data > full.script 2>/dev/null
		rm -f jitted-*.so
		mv "$dump" full.dump
		python3 "$HERE/../folded/jitdump/jitdump.py" reduce full.dump full.script "$dump"
		perf inject --jit -i inject-src.data -o "$HERE/inject-jit.data" 2> "$HERE/inject-jit.data.inject.err"
		rc=$?
		[ $rc -ne 0 ] && echo "$rc" > "$HERE/inject-jit.data.inject.rc"
		[ -s "$HERE/inject-jit.data.inject.err" ] || rm -f "$HERE/inject-jit.data.inject.err"
		perf script -i "$HERE/inject-jit.data" 2>/dev/null | cmp -s - full.script \
			&& echo "inject-jit: perf script same with the reduced dump" \
			|| echo "inject-jit: perf script DIFFERS with the reduced dump" >&2
		echo "== inject-jit.data (rc $rc): $(ls jitted-*.so | wc -l) jitted .so files"
	)
}

for n in "${SEL[@]}"; do
	"do_$n"
done
for n in "${SEL[@]}"; do
	[ -e "$n.data" ] && chmod 644 "$n.data"
	[ -s "$n.data.record.err" ] || rm -f "$n.data.record.err"
done

# perf's outputs (the ../gen-outputs.sh convention: F.KIND, F.KIND.err if non-empty, F.KIND.rc if non-zero)
out() {
	local f=$1 kind=$2; shift 2
	rm -f "$f.$kind" "$f.$kind.err" "$f.$kind.rc"
	"$@" > "$f.$kind" 2> "$f.$kind.err" < /dev/null
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > "$f.$kind.rc"
	[ -s "$f.$kind.err" ] || rm -f "$f.$kind.err"
	return 0
}
# pf-mem.data.script-mem: the memory-sample fields perf script prints (addr resolved to a data symbol)
MEMFIELDS=comm,tid,time,event,ip,sym,dso,addr,phys_addr,data_page_size,weight
export MEMFIELDS
HAVE_INFERNO=$(command -v inferno-collapse-perf)
# Brendan Gregg's stackcollapse-perf.pl itself (FlameGraph; not kept here): STACKCOLLAPSE_PL=PATH
STACKCOLLAPSE_PL=${STACKCOLLAPSE_PL:-}
for n in "${SEL[@]}"; do
	f=$n.data
	out "$f" script perf script -i "$f"
	[ "$n" = deep ] && out "$f" script-maxstack512 perf script --max-stack 512 -i "$f"
	[ "$n" = pf-mem ] && out "$f" script-mem perf script -F $MEMFIELDS -i "$f"
	# addr as a data symbol next to the ip's symbol: with symoff and dso, with sym only, with dso only
	[ "$n" = pf-mem ] && out "$f" script-addr perf script -F +addr -i "$f"
	[ "$n" = pf-mem ] && out "$f" script-ip-sym-addr perf script -F ip,sym,addr -i "$f"
	[ "$n" = pf-mem ] && out "$f" script-ip-addr-dso perf script -F ip,addr,dso -i "$f"
	# stackcollapse.py (perf script report stackcollapse): folds every event but tracepoints
	[ "$n" != pf-mem ] && out "$f" folded-perf-script-py perf script report stackcollapse -i "$f"
	if [ "$n" = emptychain ]; then
		if [ -n "$STACKCOLLAPSE_PL" ]; then
			out "$f" folded-stackcollapse-pl sh -c 'perf script -i "$1" 2>/dev/null | perl "$2"' sh "$f" "$STACKCOLLAPSE_PL"
		else
			echo "emptychain: set STACKCOLLAPSE_PL to FlameGraph's stackcollapse-perf.pl for its folded output" >&2
		fi
	elif [ -n "$HAVE_INFERNO" ] && [ "$n" != pf-mem ]; then
		out "$f" folded-stackcollapse-pl sh -c 'perf script -i "$1" 2>/dev/null | inferno-collapse-perf' sh "$f"
	fi
done

# The --symfs root and kallsyms extract for all recordings here (../folded/make-extract.py with
# --for-perf: what perf 6.1 itself needs to print the same from them), then the check.
FILES=()
for n in "${ALL[@]}"; do [ -e "$n.data" ] && FILES+=("$n.data"); done
rm -rf root kallsyms-*
python3 ../folded/make-extract.py --root "$HERE/root" --kallsyms-dir "$HERE" --reduce-dynsym --for-perf \
	"${FILES[@]/#/$HERE/}"
./check-fixtures.sh "${FILES[@]}"
