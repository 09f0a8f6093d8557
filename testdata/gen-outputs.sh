#!/usr/bin/env bash
# gen-outputs.sh FILE... - store perf's own reading of each recording beside it:
#   F.dump        perf report -D -i F                     (not in file order: see README.md)
#   F.script      perf script -i F                        (default fields)
#   F.header      perf report --header-only -I -i F
#   F.stats       perf report --stats -i F
#   F.buildids    perf buildid-list -i F                  (file format only: for pipe data perf
#                 takes build ids from the binaries on this machine, not from the recording)
#   sched files (name starts with "sched"): F.sched-latency[-p|-s-max-runtime], F.sched-map[-compact],
#                 F.sched-timehist[-wMVstate-n|-s|-S-state|-I-s] (perf sched latency/map/timehist with
#                 the options the suffix names)
#   off-CPU files (name starts with "offcpu"): F.trace-g = perf script -F
#                 comm,pid,tid,cpu,time,event,trace,ip,sym,dso --ns (fields and callchains, ns times),
#                 F.sched-timehist = perf sched timehist (its wait time column is the off-CPU time)
#   stat files  (name starts with "stat."): F.statreport = perf stat report -i F (stdout+stderr)
#   fp, dwarf, sysw: F.report = perf report --stdio --no-children -g none --sort comm,dso,sym -i F
#   folded stacks: folded/gen-folded.sh
# An output over 1 MB is stored zstd-compressed as F.KIND.zst (the tests read either).
# For every output F.KIND: F.KIND.err holds perf's stderr (only if non-empty) and
# F.KIND.rc perf's exit code (only if non-zero). FILE paths are relative to testdata/ (the
# script cd's there), e.g. ./gen-outputs.sh fp.data threads.data
set -u
cd "$(dirname "$0")" || exit 1
export LC_ALL=C
PATH=$PATH:$HOME/.cargo/bin
STACKCOLLAPSE=/usr/lib/perf-core/scripts/python/stackcollapse.py

# out F KIND CMD... : run CMD, stdout -> F.KIND, stderr -> F.KIND.err, rc -> F.KIND.rc
out() {
	local f=$1 kind=$2; shift 2
	rm -f "$f.$kind" "$f.$kind.zst" "$f.$kind.err" "$f.$kind.rc"
	"$@" > "$f.$kind" 2> "$f.$kind.err" < /dev/null
	local rc=$?
	[ $rc -ne 0 ] && echo "$rc" > "$f.$kind.rc"
	[ -s "$f.$kind.err" ] || rm -f "$f.$kind.err"
	local sz
	sz=$(stat -c %s "$f.$kind")
	[ "$sz" -gt 1000000 ] && zstd -19 -q --rm -f "$f.$kind"
	return 0
}

for f in "$@"; do
	[ -e "$f" ] || { echo "skip $f: missing" >&2; continue; }
	out "$f" dump   perf report -D -i "$f"
	out "$f" script perf script -i "$f"
	out "$f" header perf report --header-only -I -i "$f"
	out "$f" stats  perf report --stats -i "$f"
	case $(basename "$f") in
	pipe*|sched-pipe*) ;;
	*) out "$f" buildids perf buildid-list -i "$f" ;;
	esac
	case $(basename "$f") in
	sched-pipe*)
		# perf 6.1's perf sched finds no tracepoint samples in a pipe-format file, from -i F or
		# stdin ("No trace sample to read"), and perf inject cannot turn this one into a file
		# ("tracing data size mismatch"): no perf sched outputs; the tests check the pipe file
		# against its perf script output instead
		;;
	sched*)
		out "$f" sched-latency  perf sched latency -i "$f"
		out "$f" sched-latency-p perf sched latency -p -i "$f"
		out "$f" sched-latency-s-max-runtime perf sched latency -s max,runtime -i "$f"
		out "$f" sched-map      perf sched map -i "$f"
		out "$f" sched-map-compact perf sched map --compact -i "$f"
		out "$f" sched-timehist perf sched timehist -i "$f"
		out "$f" sched-timehist-wMVstate-n perf sched timehist -w -M -V --state -n -i "$f"
		out "$f" sched-timehist-s perf sched timehist -s -i "$f"
		out "$f" sched-timehist-S-state perf sched timehist -S --state -i "$f"
		out "$f" sched-timehist-I-s perf sched timehist -I -s -i "$f"
		;;
	offcpu-bpf*)
		# perf record --off-cpu's layout (gen-offcpu-bpf.py): its samples with their periods, and
		# those folded by inferno (the off-CPU flame graph's input)
		out "$f" script-period perf script -F comm,pid,tid,time,period,event,ip,sym,dso -i "$f"
		out "$f" folded-stackcollapse-pl sh -c 'inferno-collapse-perf < "$1.script-period"' sh "$f"
		;;
	offcpu*)
		out "$f" trace-g perf script -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso --ns -i "$f"
		out "$f" sched-timehist perf sched timehist -i "$f"
		;;
	fp.data|dwarf.data|sysw.data)
		out "$f" report perf report --stdio --no-children -g none --sort comm,dso,sym -i "$f"
		;;
	stat.*)
		# perf stat report prints its table on stderr: keep it in F.statreport
		out "$f" statreport sh -c 'perf stat report -i "$1" 2>&1' sh "$f"
		;;
	esac
	echo "outputs for $f: $(ls "$f".* | tr '\n' ' ')"
done
