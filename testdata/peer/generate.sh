#!/usr/bin/env bash
# Copy the peer projects' perf.data files listed below into this folder and store what perf 6.1 and
# simpleperf print for them (see SOURCES.md for where each file comes from and its licence).
#
#   generate.sh AOSP_GIT PERFPARSER_GIT
#
# AOSP_GIT: a git directory of platform/system/extras (the AOSP simpleperf sources; any mirror
# holding commit $AOSP_COMMIT), PERFPARSER_GIT: one of KDAB/perfparser (commit $PP_COMMIT).
# Needs perf, zstd and simpleperf on PATH (simpleperf: the NDK 27.0.11902837 Linux x86_64 build,
# `simpleperf --version`: 1.build.11421629; PyPI's perftools 0.2.5 ships it).
#
# Beside every file F (F.zst: a file over 1 MB, zstd -19; tests decompress it):
#   F.stats / F.dump                     perf report --stats -i F / perf report -D -i F
#   F.KIND.err, F.KIND.rc                perf's stderr / exit code when non-empty / non-zero
#   F.simpleperf-dump                    simpleperf dump F (zstd'd as F.simpleperf-dump.zst over 100 KB)
#   F.simpleperf-trace-sched             simpleperf trace-sched --record-file F --show-threads
#   F.simpleperf-report                  simpleperf report -i F --sort comm,dso,symbol -g --full-callgraph
set -u
AOSP_COMMIT=ae897cdf93123b8ffadd7c77d50cbba2fc5c934b
PP_COMMIT=f38363858a56e1dc3b33b998e5a0f6c7046b8993
here=$(cd "$(dirname "$0")" && pwd)
aosp=${1:?AOSP git dir}; pp=${2:?perfparser git dir}

# name in this folder, repository, path there
FILES="
perf_with_tracepoint_event.data aosp simpleperf/testdata/perf_with_tracepoint_event.data
perf_with_tracepoint_event_dynamic_field.data aosp simpleperf/testdata/perf_with_tracepoint_event_dynamic_field.data
perf_sched_stat_runtime.data aosp simpleperf/testdata/perf_sched_stat_runtime.data
"

store() { # KIND FILE: stdout of the command in "$@" after the two, + .err/.rc
  local kind=$1 f=$2 limit=$3; shift 3
  local out="$here/$(basename "$f").$kind"
  rm -f "$out" "$out.zst" "$out.err" "$out.rc"
  "$@" >"$out" 2>"$out.err"; local rc=$?
  [ $rc -ne 0 ] && echo $rc >"$out.rc"
  [ -s "$out.err" ] || rm -f "$out.err"
  [ -s "$out" ] || rm -f "$out"
  if [ "$(stat -c %s "$out")" -gt "$limit" ]; then zstd -q -19 -f --rm "$out" -o "$out.zst"; fi
}

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "$FILES" | while read -r name repo path; do
  [ -n "$name" ] || continue
  case $repo in aosp) git --git-dir="$aosp" show "$AOSP_COMMIT:$path" >"$tmp/$name" ;;
                pp) git --git-dir="$pp" show "$PP_COMMIT:$path" >"$tmp/$name" ;; esac
  rm -f "$here/$name" "$here/$name.zst"
  if [ "$(stat -c %s "$tmp/$name")" -gt 1000000 ]; then zstd -q -19 -f "$tmp/$name" -o "$here/$name.zst"
  else cp "$tmp/$name" "$here/$name"; fi
  f=$tmp/$name
  (cd "$tmp" && store stats "$name" 1000000 perf report --stats -i "$name")
  (cd "$tmp" && store dump "$name" 1000000 perf report -D -i "$name")
  (cd "$tmp" && store simpleperf-dump "$name" 100000 simpleperf dump "$name")
  case $name in
    perf_sched_stat_runtime.data)
      (cd "$tmp" && store simpleperf-trace-sched "$name" 1000000 simpleperf trace-sched --record-file "$name" --show-threads) ;;
  esac
done
