#!/usr/bin/env bash
# check-fixtures.sh F... : does perf 6.1 print, from root/ and kallsyms-* alone (an empty build-id
# cache), exactly what it printed on the recording machine (F.script, deep.data.script-maxstack512,
# pf-mem.data.script-mem)?
# Prints one line per output: "same" or "DIFFERS (N lines)". Exit code 1 if any differs.
set -u
cd "$(dirname "$0")" || exit 1
export LC_ALL=C
EMPTY=$(mktemp -d)
trap 'rm -rf "$EMPTY"' EXIT
KALLSYMS=$(ls kallsyms-* | head -1)
bad=0
check() { # check OUTPUT PERF-SCRIPT-ARGS...
	local got
	got=$(mktemp)
	PERF_BUILDID_DIR=$EMPTY perf script --symfs root --kallsyms "$KALLSYMS" "${@:2}" > "$got" 2>/dev/null
	if cmp -s "$got" "$1"; then
		echo "$1: same"
	else
		echo "$1: DIFFERS ($(diff "$1" "$got" | grep -c '^[<>]') lines)"
		bad=1
	fi
	rm -f "$got"
}
for f in "$@"; do
	check "$f.script" -i "$f"
	[ -e "$f.script-maxstack512" ] && check "$f.script-maxstack512" --max-stack 512 -i "$f"
	[ -e "$f.script-mem" ] && check "$f.script-mem" -F "${MEMFIELDS:-comm,tid,time,event,ip,sym,dso,addr,phys_addr,data_page_size,weight}" -i "$f"
	[ -e "$f.script-addr" ] && check "$f.script-addr" -F +addr -i "$f"
	[ -e "$f.script-ip-sym-addr" ] && check "$f.script-ip-sym-addr" -F ip,sym,addr -i "$f"
	[ -e "$f.script-ip-addr-dso" ] && check "$f.script-ip-addr-dso" -F ip,addr,dso -i "$f"
done
exit $bad
