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
# Beside every file F (F.zst: a file over 64 KB, zstd -19; tests decompress it):
#   F.stats / F.dump                     perf report --stats -i F / perf report -D -i F without the
#                                        hex lines of raw bytes
#   F.KIND.err, F.KIND.rc                perf's stderr / exit code when non-empty / non-zero
#   F.simpleperf-dump                    simpleperf dump F
#   (outputs over 20 KB are stored zstd -19 compressed as .zst)
#   F.simpleperf-trace-sched             simpleperf trace-sched --record-file F --show-threads
#   F.script                             perf script -i F (pipe streams)
set -u
AOSP_COMMIT=ae897cdf93123b8ffadd7c77d50cbba2fc5c934b
PP_COMMIT=f38363858a56e1dc3b33b998e5a0f6c7046b8993
here=$(cd "$(dirname "$0")" && pwd)
aosp=${1:?AOSP git dir}; pp=${2:?perfparser git dir}

# name in this folder, repository, path there: every perf.data file of simpleperf's testdata (its
# etm/ and lbr/ files prefixed etm_, lbr_; perf_with_kernel_symbol.data and
# perf_with_kmem_slab_callgraph.data are not in the snapshot this was made from; the two largest,
# generated_by_linux_perf.data and perf_with_interpreter_frames.data, are left out to keep this small)
FILES=$(git --git-dir="$aosp" ls-tree -r --name-only "$AOSP_COMMIT" simpleperf/testdata | grep '\.data$' |
  while read -r p; do
    case $p in */generated_by_linux_perf.data|*/perf_with_interpreter_frames.data) continue ;; esac # 2.2 and 1.3 MB
    git --git-dir="$aosp" cat-file -e "$AOSP_COMMIT:$p" 2>/dev/null || continue
    git --git-dir="$aosp" show "$AOSP_COMMIT:$p" >/dev/null 2>&1 || continue
    echo "$(echo "${p#simpleperf/testdata/}" | tr / _) aosp $p"
  done)
# perfparser's files (GPL-3.0: see SOURCES.md): a pipe stream of a uprobe recording, and
# --call-graph dwarf recordings of static binaries (qCompress'd: a 4-byte size, then zlib)
FILES="$FILES
probe.data.stream pp tests/auto/perfdata/probe.data.stream
vector_static_gcc.data pp tests/auto/perfdata/vector_static_gcc/perf.data.zlib
vector_static_clang.data pp tests/auto/perfdata/vector_static_clang/perf.data.zlib
fork_static_gcc.data pp tests/auto/perfdata/fork_static_gcc/perf.data.zstd.zlib
parallel_static_gcc.data pp tests/auto/perfdata/parallel_static_gcc/perf.data.zstd.zlib"
# Beside those: perfparser's expected output (F.perfparser-expected) and the static binary reduced
# to its symbols and CFI by reduce-elf.py (code and data zeroed), under the name it was mapped as.
unqcompress() { python3 -c 'import sys,zlib; d=sys.stdin.buffer.read(); sys.stdout.buffer.write(zlib.decompress(d[4:]))'; }
BINARIES="
vector_static_gcc.data vector_static_gcc/vector_static_gcc_v9.1.0.zlib
vector_static_clang.data vector_static_clang/vector_static_clang_v8.0.1.zlib
fork_static_gcc.data fork_static_gcc/fork.zlib
parallel_static_gcc.data parallel_static_gcc/parallel_static_gcc.zlib"
store() { # KIND FILE: stdout of the command in "$@" after the two, + .err/.rc
  local kind=$1 f=$2 limit=$3; shift 3
  local out="$here/$(basename "$f").$kind"
  rm -f "$out" "$out.zst" "$out.err" "$out.rc"
  "$@" >"$out" 2>"$out.err"; local rc=$?
  [ $rc -ne 0 ] && echo $rc >"$out.rc"
  [ -s "$out.err" ] || rm -f "$out.err"
  [ -s "$out" ] || { rm -f "$out"; return; }
  if [ "$(stat -c %s "$out")" -gt "$limit" ]; then zstd -q -19 -f --rm "$out" -o "$out.zst"; fi
}

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "$FILES" | while read -r name repo path; do
  [ -n "$name" ] || continue
  case $repo in aosp) git --git-dir="$aosp" show "$AOSP_COMMIT:$path" >"$tmp/$name" ;;
                pp) git --git-dir="$pp" show "$PP_COMMIT:$path" >"$tmp/$name"
                    case $path in *.zlib) unqcompress <"$tmp/$name" >"$tmp/$name.raw"; mv "$tmp/$name.raw" "$tmp/$name"
                      git --git-dir="$pp" show "$PP_COMMIT:${path%.zlib}.expected.txt.zlib" | unqcompress |
                        zstd -q -19 -f -o "$here/$name.perfparser-expected.zst" ;; esac ;; esac
  rm -f "$here/$name" "$here/$name.zst"
  if [ "$(stat -c %s "$tmp/$name")" -gt 65536 ]; then zstd -q -19 -f "$tmp/$name" -o "$here/$name.zst"
  else cp "$tmp/$name" "$here/$name"; fi
  f=$tmp/$name
  (cd "$tmp" && store stats "$name" 1000000 perf report --stats -i "$name")
  (cd "$tmp" && store dump "$name" 20000 bash -c 'perf report -D -i "$1" | grep -v "^\.  [0-9a-f][0-9a-f][0-9a-f][0-9a-f]: " |
    sed "s|/tmp/perf-vdso.so-[A-Za-z0-9]*|/tmp/perf-vdso.so-XXXXXX|"; exit ${PIPESTATUS[0]}' bash "$name")
  [ "$repo" = aosp ] && (cd "$tmp" && store simpleperf-dump "$name" 20000 simpleperf dump "$name")
  case $name in
    *.stream) (cd "$tmp" && store script "$name" 20000 perf script -i "$name") ;;
    perf_sched_stat_runtime.data)
      (cd "$tmp" && store simpleperf-trace-sched "$name" 1000000 simpleperf trace-sched --record-file "$name" --show-threads) ;;
  esac
done
echo "$BINARIES" | while read -r name path; do
  [ -n "$name" ] || continue
  git --git-dir="$pp" show "$PP_COMMIT:tests/auto/perfdata/$path" | unqcompress >"$tmp/bin"
  bin=$(basename "${path%.zlib}")
  python3 "$here/reduce-elf.py" "$tmp/bin" "$tmp/$bin"
  zstd -q -19 -f "$tmp/$bin" -o "$here/$name.$bin.zst"
done
