#!/usr/bin/env bash
# comm-override.sh: comm-override.data, a recording with a thread perf knows no FORK of, and
# perf 6.1's reports of it (perfdata-cli/tests/report.rs compares them).
#
# A shell's subshell loops, then execs awk. The subshell's FORK record is then pointed at an
# unused thread id (4000000), as if perf had lost it: perf names the thread `:TID` until its
# COMM, and that COMM renames the `:TID` comm in place (`comm__override`), so perf's report
# shows the loop's samples under `awk` as well. Nothing is named from this machine's files
# (an empty --symfs, no kallsyms, no build-id cache), so the outputs hold on any machine.
#   comm-override.data.report-default   perf report --stdio
#   comm-override.data.report-flat      perf report --stdio --no-children -g none
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
if [ "${1:-}" = record ]; then
	perf record -q -e cpu-clock -c 1000000 -g -o comm-override.data -- sh -c \
		'(i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec awk "BEGIN { for (i = 0; i < 3000000; i++) s += i }")'
	python3 - comm-override.data <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
# perf_file_header: magic, size, attr_size, attrs {offset, size}, data {offset, size}, ...
off, size = struct.unpack_from("<QQ", data, 40)
forks, execs, at = [], set(), off
while at + 8 <= off + size:
    kind, misc, n = struct.unpack_from("<IHH", data, at)
    if n < 8:
        sys.exit("bad record size")
    if kind == 7:  # PERF_RECORD_FORK: pid, ppid, tid, ptid
        forks.append(at)
    if kind == 3 and misc & 0x2000 and data[at + 16:at + 19] == b"awk":  # COMM, exec
        execs.add(struct.unpack_from("<I", data, at + 12)[0])
    at += n
hit = [a for a in forks if struct.unpack_from("<I", data, a + 16)[0] in execs]
if len(hit) != 1:
    sys.exit(f"expected one FORK of the awk thread, found {len(hit)}")
struct.pack_into("<I", data, hit[0] + 8, 4000000)
struct.pack_into("<I", data, hit[0] + 16, 4000000)
open(path, "wb").write(data)
PY
fi
empty=$(mktemp -d)
for args in "default:" "flat:--no-children -g none"; do
	# shellcheck disable=SC2086
	PERF_BUILDID_DIR=$empty perf report --stdio --symfs "$empty" --kallsyms /dev/null ${args#*:} \
		-i comm-override.data > "comm-override.data.report-${args%%:*}" 2>/dev/null
done
rmdir "$empty"
