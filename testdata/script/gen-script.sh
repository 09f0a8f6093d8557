#!/usr/bin/env bash
# gen-script.sh [NAME...] - perf 6.1's `perf script`, run against the committed fixtures only, for
# every committed recording (or the named ones: fp, threads, cxx-fp, ...), stored here as
# NAME.KIND (NAME = the recording without `.data`: fp.data -> fp.default). See README.md.
#
# Every run (root: needs unshare/mount): cd testdata; HOME and PERF_BUILDID_DIR = fresh empty
# directories (no ~/.perfconfig, no build-id cache, nothing of this machine's ~/.debug);
# PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1; LC_ALL=C; stdin /dev/null; ROOT/tmp bind-mounted
# on /tmp in a private mount namespace (perf reads /tmp/perf-PID.map outside --symfs: run_perf);
#   perf script -i NAME.data --symfs ROOT --kallsyms KALLSYMS [KIND's options]
# ROOT = testdata/cxx/root for cxx-*.data, else testdata/folded/root (as perfdata-analysis/tests/
# symfs/mod.rs symbols_for picks them); KALLSYMS = testdata/script/kallsyms (the folded extract plus
# `_text`, which perf needs: make-kallsyms.py), for every recording (the cxx recordings are
# user-mode only and have no kernel map: the option changes nothing there, it only keeps perf from
# reading this machine's /proc/kallsyms). Only NAME.default of the recordings where that changes
# the output uses testdata/script/kallsyms-derived instead (index.tsv).
#
# KIND            options
#   default       (none)
#   F1            -F comm,pid,tid,cpu,time,event,ip,sym,dso,period
#   F2            -F +addr,-period
#   ns            --ns
#   G             -G
#   srcline       -F +srcline
#   task          --show-task-events
#   mmap          --show-mmap-events
#   switch        --show-switch-events          (switch-ns, switch-cpu: the recordings with SWITCH records)
#   maxstack3     --max-stack 3
#   noinline      --no-inline                   (the --call-graph dwarf recordings)
#   symoff        -F comm,tid,time,ip,sym,symoff,dso
#   tp            -F trace:comm,tid,event,trace (the tracepoint recordings)
#   cpu0          --cpu 0
#   pid           --pid P                       (P = pid of the first sample perf script prints:
#                                                first line of `perf script -F pid`; P is in index.tsv)
#
# For every output NAME.KIND: NAME.KIND.err = perf's stderr (only if non-empty), NAME.KIND.rc = its
# exit code (only if non-zero), stdout over 16 KiB stored as NAME.KIND.zst (zstd -19; the size limit
# of testdata/script, about 2.5 MB in all, is why the threshold is lower than gen-outputs.sh's 1 MB). Not stored:
# the empty stdout of a failed run (a refusal), the stdout of a crash (rc >= 128: cut at a stdio
# buffer boundary), and the .rc of a crash when NAME.default crashed the same way (mem, multi-g:
# perf 6.1 segfaults on the reduced [vdso]; README.md). index.tsv lists every run: name, kind,
# recording, symfs root, kallsyms, rc, options.
#
# Only files this script writes are removed beforehand (NAME.KIND[.zst|.err|.rc]); files named
# data-src*, regs*, decode* in this directory belong to other generators and are never touched
# (the regs.data outputs are regs.KIND: exact names only).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TD=$(dirname "$HERE")
cd "$TD" || exit 1
[ "$(id -u)" = 0 ] || { echo "run as root (unshare/mount: perf must see the fixtures' tmp as /tmp)" >&2; exit 1; }
export LC_ALL=C PERF_PAGER=cat PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1
unset PAGER

# Not under /tmp: /tmp is replaced for every perf run (see run_perf).
SCRATCH=$(mktemp -d -p /var/tmp gen-script.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
mkdir "$SCRATCH/home" "$SCRATCH/buildid"
export HOME=$SCRATCH/home PERF_BUILDID_DIR=$SCRATCH/buildid

# run_perf ROOT ARG... : perf ARG... with ROOT/tmp bind-mounted read-only on /tmp in a private
# mount namespace. perf 6.1 reads JIT symbol files /tmp/perf-PID.map from the real /tmp even with
# --symfs (jit.data's /tmp/perf-17554.map: [unknown] frames without it, perf's original output with
# it); this makes it read the committed copy (ROOT/tmp/perf-17554.map, where perfdata looks) and
# nothing of this machine's /tmp.
run_perf() {
	local root=$1; shift
	unshare --mount --propagation private -- sh -c 'mount --bind -o ro "$1" /tmp && shift && exec perf "$@"' sh "$TD/$root/tmp" "$@"
}

# --- kallsyms: the folded extract + _text (from fp.data's kernel MMAP), and the derived one -----
TEXT=$(perf report -D -i fp.data 2>/dev/null | sed -n 's/.*@ 0x\([0-9a-f]*\)\]: x \[kernel\.kallsyms\]_text$/\1/p' | head -1)
[ -n "$TEXT" ] || { echo "no kernel MMAP in fp.data" >&2; exit 1; }
python3 "$HERE/make-kallsyms.py" "$TEXT" || exit 1
KALLSYMS=script/kallsyms
DERIVED=script/kallsyms-derived

# All committed recordings but killed.data (perf cannot read it: see testdata/README.md).
if [ $# -eq 0 ]; then
	for f in *.data; do
		case $f in killed.data) continue ;; esac
		set -- "$@" "${f%.data}"
	done
fi

INDEX=script/index.tsv
[ -f "$INDEX" ] || printf 'name\tkind\trecording\tsymfs\tkallsyms\trc\toptions\n' > "$INDEX"

root_of() { case $1 in cxx-*) echo cxx/root ;; *) echo folded/root ;; esac; }

# out NAME KIND KALLSYMS OPTION... : perf script on NAME's recording with the options
out() {
	local name=$1 kind=$2 ks=$3; shift 3
	local f=$name.data root
	root=$(root_of "$name")
	local o=script/$name.$kind
	rm -f "$o" "$o.zst" "$o.err" "$o.rc"
	run_perf "$root" script -i "$f" --symfs "$TD/$root" --kallsyms "$TD/$ks" "$@" > "$o" 2> "$o.err" < /dev/null
	local rc=$?
	# bash's own report of a crashed child (with its pid) is not perf's stderr
	sed -i '/^script\/gen-script\.sh: line [0-9]*: *[0-9]* Segmentation fault/d' "$o.err"
	[ $rc -ne 0 ] && echo "$rc" > "$o.rc"
	[ -s "$o.err" ] || rm -f "$o.err"
	if [ $rc -ne 0 ] && { [ ! -s "$o" ] || [ $rc -ge 128 ]; }; then
		# a refusal (nothing printed), or a crash (stdout cut at a stdio buffer boundary)
		rm -f "$o"
		# a crash of every kind of a recording whose default crashed too: only in index.tsv
		if [ $rc -ge 128 ] && [ "$kind" != default ] && [ ! -e "$o.err" ] && [ "$(cat "script/$name.default.rc" 2>/dev/null)" = "$rc" ]; then
			rm -f "$o.rc"
		fi
	elif [ "$(stat -c %s "$o")" -gt 16384 ]; then
		zstd -19 -q --rm -f "$o"
	fi
	awk -F'\t' -v n="$name" -v k="$kind" '!($1 == n && $2 == k)' "$INDEX" > "$SCRATCH/index" && cat "$SCRATCH/index" > "$INDEX"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$f" "$root" "$ks" "$rc" "$*" >> "$INDEX"
}

for name in "$@"; do
	f=$name.data
	[ -e "$f" ] || { echo "skip $name: no $f" >&2; continue; }
	root=$(root_of "$name")
	# NAME.default uses kallsyms-derived where that changes perf's output (i.e. where the recording
	# has kernel frames outside the extract's symbols), else kallsyms
	ks=$KALLSYMS
	run_perf "$root" script -i "$f" --symfs "$TD/$root" --kallsyms "$TD/$KALLSYMS" > "$SCRATCH/a" 2>/dev/null < /dev/null
	run_perf "$root" script -i "$f" --symfs "$TD/$root" --kallsyms "$TD/$DERIVED" > "$SCRATCH/b" 2>/dev/null < /dev/null
	cmp -s "$SCRATCH/a" "$SCRATCH/b" || ks=$DERIVED
	out "$name" default "$ks"
	out "$name" F1 "$KALLSYMS" -F comm,pid,tid,cpu,time,event,ip,sym,dso,period
	out "$name" F2 "$KALLSYMS" -F +addr,-period
	out "$name" ns "$KALLSYMS" --ns
	out "$name" G "$KALLSYMS" -G
	out "$name" srcline "$KALLSYMS" -F +srcline
	out "$name" task "$KALLSYMS" --show-task-events
	out "$name" mmap "$KALLSYMS" --show-mmap-events
	case $name in switch-ns|switch-cpu) out "$name" switch "$KALLSYMS" --show-switch-events ;; esac
	out "$name" maxstack3 "$KALLSYMS" --max-stack 3
	case $name in dwarf|python|cxx-dwarf|offcpu-dwarf) out "$name" noinline "$KALLSYMS" --no-inline ;; esac
	out "$name" symoff "$KALLSYMS" -F comm,tid,time,ip,sym,symoff,dso
	case $name in
	sched|sched-mix|sched-pipe|syscalls|block|blockrw|offcpu|offcpu-dwarf|pipe-tp)
		out "$name" tp "$KALLSYMS" -F trace:comm,tid,event,trace ;;
	esac
	out "$name" cpu0 "$KALLSYMS" --cpu 0
	# pid: the first sample's pid, from perf report -D (same time order as perf script; perf script
	# itself crashes on mem/multi-g)
	pid=$(perf report -D -i "$f" 2>/dev/null < /dev/null | sed -n 's/.*PERF_RECORD_SAMPLE([^)]*): \(-\{0,1\}[0-9]*\)\/.*/\1/p' | head -1)
	if [ -n "$pid" ]; then
		out "$name" pid "$KALLSYMS" --pid "$pid"
	else
		echo "$name: no PERF_RECORD_SAMPLE in perf report -D: no pid kind" >&2
	fi
done
# index.tsv sorted (header first): reruns of single recordings give the same file
{ head -1 "$INDEX"; tail -n +2 "$INDEX" | sort; } > "$SCRATCH/index" && cat "$SCRATCH/index" > "$INDEX"
