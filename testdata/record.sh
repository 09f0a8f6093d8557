#!/usr/bin/env bash
# record.sh - (re)build testdata/bin/spin and (re)record the perf.data test corpus,
# then store perf's own outputs beside every recording (gen-outputs.sh).
#
# Usage (as root, perf 6.1):  ./record.sh            # everything
#                             ./record.sh fp group   # only these recordings (names without .data)
# Re-runnable: every output of a recording is removed and rewritten. Needs gcc, taskset, chrt,
# perf; cgroup.data needs a writable cgroup2 hierarchy. See README.md for what each file holds.
#
# Recordings (all with ./bin/spin ROUNDS [CHILDREN] unless said; one round is ~0.5 ms CPU):
#   fp.data          cpu-clock -c 100000 -g: frame-pointer CALLCHAIN samples; ID_INDEX,
#                    THREAD_MAP, CPU_MAP, EVENT_UPDATE, FINISHED_INIT, MMAP2, COMM exec, BUILD_ID
#   dwarf.data       --call-graph dwarf,2048: REGS_USER + STACK_USER (+ ADDR, DATA_SRC) fields
#   python.data      -z --call-graph dwarf,8192 on the Python interpreter (/usr/bin/python3.11 -c, a
#                    recursion through the map()/sum() builtins so that C frames nest): user stacks
#                    of a large stripped binary, some deeper than the 8 KiB dump; compressed (-z, so
#                    no BUILD_ID feature), which keeps the 8 KiB stacks small on disk
#   multi.data       4 attrs (cpu-clock, task-clock, page-faults with its own callchain,
#                    context-switches): sample_type differs -> IDENTIFIER; FORK/EXIT of 2 children
#   multi-g.data     cpu-clock + page-faults, both -g: folded stacks with several events (event
#                    filter; perf pads the event names, inferno then counts samples)
#   jit.data         -g on ./bin/jit (jit.c): frames in anonymous executable memory described by
#                    /tmp/perf-PID.map (kept in folded/root/tmp by folded/make-extract.py)
#   group.data       '{cpu-clock,task-clock}:S' -g: READ sample field with FORMAT_GROUP|ID|LOST,
#                    GROUP_DESC feature, leader sampling (inherit off)
#   stat-read.data   -s (inherit_stat): PERF_RECORD_READ (type 8) records at child exit,
#                    read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|LOST
#   comp.data        -z -m 2: several COMPRESSED (81) records forming ONE zstd stream; some
#                    records are split across two COMPRESSED records; COMPRESSED feature
#   pipe.data        pipe format (-o -): pipe header, HEADER_ATTR (64), HEADER_FEATURE (80)
#   pipe-z.data      pipe format with -z -m 2: COMPRESSED records in a pipe stream
#   pipe-tp.data     pipe format, -a sched:sched_switch + cpu-clock: HEADER_TRACING_DATA (66), RAW
#   switch-ns.data   --switch-events --namespaces: SWITCH (14), NAMESPACES (16)
#   switch-cpu.data  -a --switch-events: SWITCH_CPU_WIDE (15)
#   regs.data        --user-regs=ax,bx,cx,sp,ip --intr-regs=ax,bx,sp,ip: REGS_USER + REGS_INTR
#   mem.data         -d --phys-data --data-page-size --code-page-size on cpu-clock + page-faults:
#                    ADDR, PHYS_ADDR, DATA_SRC, DATA_PAGE_SIZE, CODE_PAGE_SIZE sample fields
#   cgroup.data      -a --all-cgroups: CGROUP (19) records (synthesized + one created while
#                    recording), CGROUP sample field
#   clock-mono.data, clock-raw.data, clock-tai.data
#                    -k mono/raw/tai: attr.use_clockid/clockid, CLOCKID + CLOCK_DATA features
#   threads.data/    --threads: directory format (data + data.0 + data.1), one spin per CPU
#   threads-z.data/  --threads -z -m 2: directory format with COMPRESSED records in data.N
#   sched.data       perf sched record: 6 sched:* tracepoints, RAW, TRACING_DATA feature
#   sched-mix.data   perf sched record of exec comm changes, a fork storm and migrations
#   sched-pipe.data  the same workload recorded by perf sched record -o - (pipe format)
#   syscalls.data    syscalls:sys_{enter,exit}_{openat,write}: 4 tracepoint attrs, RAW
#   block.data       -a block:block_rq_{issue,complete,insert}: __data_loc strings (cmd, comm)
#   offcpu.data      -a -g sched:sched_switch: off-CPU intervals (switch-out with its kernel+user
#                    stack → next switch-in) in states S (sleep), D (direct dsync writes), R
#   offcpu-dwarf.data the same workload with --call-graph dwarf,2048: user stacks unwound from
#                    the switch-out samples' stack dumps
#   sysw.data        -a -g -F 999: kernel + user stacks from every CPU, frequency mode (dd on
#                    CPU 0 for kernel stacks: an idle CPU takes no cpu-clock samples)
#   stat.data        perf stat record -I 50: STAT, STAT_ROUND, STAT_CONFIG, THREAD_MAP, CPU_MAP,
#                    EVENT_UPDATE (unit/scale), STAT feature
#   killed.data      perf record killed by SIGKILL (-c 1000000 -m 4 so it stays small): header
#                    never finalised (data.size 0, feature offset == data offset)
#   lost.data        1-page buffer, perf and a SCHED_FIFO workload share CPU 0: LOST (2) and
#                    LOST_SAMPLES (13) records
#
# CPU 1 of the recording VM drops events raised while it idles, so for the tracepoint and
# system-wide recordings CPU 1 is kept busy with a niced shell loop (which then shows up in
# those files). Workloads are pinned to CPU 0 with taskset unless said otherwise.
set -u
cd "$(dirname "$0")" || exit 1

mkdir -p bin
gcc -O1 -g -fno-omit-frame-pointer -o bin/spin spin.c || exit 1
gcc -O1 -g -fno-omit-frame-pointer -o bin/jit jit.c || exit 1
SPIN=./bin/spin
PIN0="taskset -c 0"
export LC_ALL=C

. ./lib.sh  # busy_on, busy_off
trap busy_off EXIT

# clean NAME: remove a recording (file or directory), its .old and all stored outputs
clean() {
	rm -rf "$1" "$1.old" "$1".dump* "$1".script* "$1".header* "$1".stats* "$1".sched-* \
		"$1".statreport* "$1".folded-* "$1".record.err "$1".record.rc
}

# rec NAME PERF-ARGS... : perf record -o NAME PERF-ARGS; perf's stderr -> NAME.record.err
rec() {
	local name=$1; shift
	clean "$name"
	perf record -o "$name" "$@" > /dev/null 2> "$name.record.err"
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > "$name.record.rc"
	echo "== $name (rc $rc): $(tail -1 "$name.record.err")"
}

# pipe-mode: recp NAME PERF-ARGS... : perf record -o - ARGS > NAME
recp() {
	local name=$1; shift
	clean "$name"
	perf record -o - "$@" > "$name" 2> "$name.record.err"
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > "$name.record.rc"
	echo "== $name (rc $rc): $(tail -1 "$name.record.err")"
}

ALL=(fp dwarf python multi multi-g jit group stat-read comp pipe pipe-z pipe-tp switch-ns switch-cpu regs mem
	cgroup clock-mono clock-raw clock-tai threads threads-z sched sched-mix sched-pipe syscalls block sysw stat
	killed lost offcpu offcpu-dwarf)
if [ $# -gt 0 ]; then SEL=("$@"); else SEL=("${ALL[@]}"); fi

do_fp()        { rec fp.data -e cpu-clock -c 100000 -g -- $PIN0 $SPIN 24; }
do_dwarf()     { rec dwarf.data -e cpu-clock -c 200000 --call-graph dwarf,2048 -- $PIN0 $SPIN 8; }
PYWORK=$'def leaf(n):\n    return sum(i * i for i in range(n))\ndef rec(d):\n    return leaf(4000) if d == 0 else sum(map(rec, [d - 1])) + 1\nfor i in range(1200):\n    rec(i % 8)'
do_python()    { rec python.data -z -e cpu-clock -c 1000000 --call-graph dwarf,8192 -- \
			$PIN0 /usr/bin/python3.11 -c "$PYWORK"; }
do_multi()     { rec multi.data -c 200000 -e cpu-clock -e task-clock -e page-faults/period=20,call-graph=fp/ \
			-e context-switches/period=1/ -- $PIN0 $SPIN 30 2; }
do_multi-g()   { rec multi-g.data -c 200000 -e cpu-clock -e page-faults/period=20/ -g -- $PIN0 $SPIN 30 2; }
do_jit()       { rec jit.data -e cpu-clock -c 100000 -g -- $PIN0 ./bin/jit 1500; }
do_group()     { rec group.data -e '{cpu-clock,task-clock}:S' -c 200000 -g -- $PIN0 $SPIN 40; }
do_stat-read() { rec stat-read.data -s -e cpu-clock -c 200000 -- $PIN0 $SPIN 40 2; }
do_comp()      { rec comp.data -z -m 2 -e cpu-clock -c 100000 -g -- $PIN0 $SPIN 24; }
do_pipe()      { recp pipe.data -e cpu-clock -c 100000 -g -- $PIN0 $SPIN 24; }
do_pipe-z()    { recp pipe-z.data -z -m 2 -e cpu-clock -c 100000 -g -- $PIN0 $SPIN 24; }
do_pipe-tp()   { busy_on; recp pipe-tp.data -e sched:sched_switch -e cpu-clock/period=4000000/ -a -- sleep 0.1; busy_off; }
do_switch-ns() { rec switch-ns.data -e cpu-clock -c 200000 --switch-events --namespaces -- \
			$PIN0 $SPIN 30 2; }
do_switch-cpu() { busy_on; rec switch-cpu.data -a --switch-events -e cpu-clock -c 2000000 -- sleep 0.05; busy_off; }
do_regs()      { rec regs.data -e cpu-clock -c 200000 --user-regs=ax,bx,cx,sp,ip \
			--intr-regs=ax,bx,sp,ip -- $PIN0 $SPIN 40; }
do_mem()       { rec mem.data -e cpu-clock -c 200000 -e page-faults/period=10/ -d --phys-data \
			--data-page-size --code-page-size -- $PIN0 $SPIN 40; }
# cgroup: the busy loop runs in cgroup2 group perfdata-pre (exists before recording: synthesized
# CGROUP record), the workload creates perfdata-rec while recording (kernel CGROUP record) and
# runs spin in it; both groups are removed afterwards.
do_cgroup() {
	local cg=/sys/fs/cgroup/unified
	[ -d $cg ] || cg=/sys/fs/cgroup
	rmdir $cg/perfdata-rec $cg/perfdata-pre 2>/dev/null
	mkdir -p $cg/perfdata-pre
	sh -c 'echo $$ > "$1"/cgroup.procs; exec taskset -c 1 nice -n 19 sh -c "while :; do :; done"' \
		sh $cg/perfdata-pre &
	BUSY=$!
	sleep 0.2
	rec cgroup.data --all-cgroups -a -e cpu-clock -c 500000 -- sh -c \
		'mkdir "$1"/perfdata-rec && echo $$ > "$1"/perfdata-rec/cgroup.procs; exec taskset -c 0 '"$SPIN"' 20' \
		sh $cg
	busy_off
	rmdir $cg/perfdata-rec $cg/perfdata-pre
}
do_clock-mono() { rec clock-mono.data -k mono -e cpu-clock -c 200000 -- $PIN0 $SPIN 30; }
do_clock-raw()  { rec clock-raw.data -k raw -e cpu-clock -c 200000 -- $PIN0 $SPIN 30; }
do_clock-tai()  { rec clock-tai.data -k tai -e cpu-clock -c 200000 -- $PIN0 $SPIN 30; }
# threads: one spin per CPU so that both data.0 and data.1 get samples
TWO="taskset -c 0 $SPIN 12 & taskset -c 1 $SPIN 12; wait"
do_threads()   { rec threads.data --threads -e cpu-clock -c 100000 -g -- sh -c "$TWO"; }
do_threads-z() { rec threads-z.data --threads -z -m 2 -e cpu-clock -c 100000 -g -- sh -c "$TWO"; }
do_sched() {
	clean sched.data
	busy_on
	perf sched record -o sched.data -- sh -c '
		for i in 1 2; do
			( for j in 1 2; do echo $i$j; sleep 0.03; done ) | ( while read l; do sleep 0.01; done ) &
		done
		'"$SPIN"' 2 > /dev/null
		wait' > /dev/null 2> sched.data.record.err
	local rc=$?
	busy_off
	[ $rc -ne 0 ] && echo "$rc" > sched.data.record.rc
	echo "== sched.data (rc $rc): $(tail -1 sched.data.record.err)"
}
# sched-mix: the cases the scheduler analyses must get right: a comm change by exec (sh -> dd,
# sh -> gzip), a fork storm (40 short-lived children), migrations (a spin moved between CPUs by
# taskset -p while it runs, plus free-running pipes), and sleeping/blocked (D) tasks.
SCHEDMIX='
	'"$SPIN"' 60 > /dev/null & S=$!
	for i in 1 2 3 4 5 6; do sleep 0.01; taskset -p -c $((i % 2)) $S > /dev/null; done
	sh -c "exec dd if=/dev/zero bs=4k count=300 2>/dev/null" | sh -c "exec gzip -1 > /dev/null" &
	for i in $(seq 40); do /bin/true & done
	wait'
do_sched-mix() {
	clean sched-mix.data
	busy_on
	perf sched record -o sched-mix.data -- sh -c "$SCHEDMIX" > /dev/null 2> sched-mix.data.record.err
	local rc=$?
	busy_off
	[ $rc -ne 0 ] && echo "$rc" > sched-mix.data.record.rc
	echo "== sched-mix.data (rc $rc): $(tail -1 sched-mix.data.record.err)"
}
# sched-pipe: perf sched record into a pipe (-o -): HEADER_TRACING_DATA record, pipe header
do_sched-pipe() {
	clean sched-pipe.data
	busy_on
	perf sched record -o - -- sh -c "$SCHEDMIX" > sched-pipe.data 2> sched-pipe.data.record.err
	local rc=$?
	busy_off
	[ $rc -ne 0 ] && echo "$rc" > sched-pipe.data.record.rc
	echo "== sched-pipe.data (rc $rc): $(tail -1 sched-pipe.data.record.err)"
}
do_syscalls() { busy_on; rec syscalls.data -e 'syscalls:sys_enter_openat' -e 'syscalls:sys_exit_openat' \
			-e syscalls:sys_enter_write -e syscalls:sys_exit_write -- $PIN0 $SPIN 30; busy_off; }
do_block() {
	busy_on
	rec block.data -a -e block:block_rq_issue -e block:block_rq_complete -e block:block_rq_insert \
		-- sh -c 'dd if=/dev/zero of=/tmp/ddtest bs=64k count=32 oflag=direct 2>/dev/null; sync /tmp/ddtest; rm -f /tmp/ddtest'
	busy_off
}
# offcpu: sleeps (S), direct dsync writes (D), a spin preempted on CPU 0 (R)
OFFCPU='for i in 1 2 3; do sleep 0.01; done
	dd if=/dev/zero of=/var/tmp/offcpu-lat bs=4k count=20 oflag=direct,dsync 2>/dev/null
	rm -f /var/tmp/offcpu-lat; taskset -c 0 '"$SPIN"' 5 > /dev/null'
do_offcpu() { busy_on; rec offcpu.data -a -e sched:sched_switch -g -- sh -c "$OFFCPU"; busy_off; }
do_offcpu-dwarf() { busy_on; rec offcpu-dwarf.data -a -e sched:sched_switch --call-graph dwarf,2048 -- \
			sh -c "$OFFCPU"; busy_off; }
# sysw: dd /dev/zero -> /dev/null on CPU 0 gives kernel stacks (an idle CPU takes no cpu-clock samples)
do_sysw() { busy_on; rec sysw.data -a -g -F 999 -- sh -c \
		'taskset -c 0 dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null; sleep 0.02'; busy_off; }
do_stat() {
	clean stat.data
	perf stat record -o stat.data -e cpu-clock,task-clock -I 50 sleep 0.12 > /dev/null 2> stat.data.record.err
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > stat.data.record.rc
	echo "== stat.data (rc $rc)"
}
do_killed() {
	clean killed.data
	perf record -e cpu-clock -c 1000000 -g -m 4 -o killed.data -- $PIN0 $SPIN 100000 \
		> /dev/null 2> killed.data.record.err &
	local ppid=$! child
	sleep 0.5
	child=$(ps -o pid= --ppid "$ppid" | tr -d ' ')
	kill -9 "$ppid"
	wait "$ppid" 2>/dev/null
	echo "137 (SIGKILL)" > killed.data.record.rc
	[ -n "$child" ] && kill "$child" 2>/dev/null
	echo "== killed.data (perf pid $ppid, workload pid ${child:-?})"
}
# lost: perf itself and the workload share CPU 0, the workload runs SCHED_FIFO so perf cannot
# drain its 1-page buffer until the workload sleeps: samples overflow -> LOST records when perf
# catches up during the sleeps, and LOST_SAMPLES (lost count read at the end).
do_lost() {
	clean lost.data
	taskset -c 0 perf record -o lost.data -m 1 -e cpu-clock -c 100000 -g -- chrt -f 10 sh -c \
		"$SPIN 15; sleep 0.01; $SPIN 15; sleep 0.01; $SPIN 15" > /dev/null 2> lost.data.record.err
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > lost.data.record.rc
	echo "== lost.data (rc $rc): $(tail -1 lost.data.record.err)"
}

for n in "${SEL[@]}"; do
	"do_$n"
done
chmod -R a+rX bin 2>/dev/null
for n in "${SEL[@]}"; do
	[ -e "$n.data" ] && chmod -R a+rX,u+w "$n.data"
	[ -s "$n.data.record.err" ] || rm -f "$n.data.record.err"
done

files=()
for n in "${SEL[@]}"; do files+=("$n.data"); done
./gen-outputs.sh "${files[@]}"
