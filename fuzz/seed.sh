#!/usr/bin/env bash
# Build the seed corpora in fuzz/corpus/<target>/ (gitignored) from testdata/*.data, the shared
# corpus (../shared/corpus, including the quipper fuzz reproducers) and fuzz/regressions/.
# The tracepoint and features seeds are parts of recordings, cut out by seedgen/ (built with the
# library into $CARGO_TARGET_DIR, default ../target); the symbols seeds are the symbol extracts of
# testdata/folded (ELF files, a kallsyms file, jitdump files) plus a perf map and a build-id note
# written here.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/corpus
for t in file pipe roundtrip features sample zstd tracepoint symbols sched parse export_chrome export_speedscope report; do
  mkdir -p "corpus/$t"
done
seed() { # target, files...
  local t=$1; shift
  for f in "$@"; do if [ -f "$f" ]; then cp "$f" "corpus/$t/$(basename "$(dirname "$f")")_$(basename "$f")"; fi; done
}
files=(../testdata/*.data ../testdata/*/data* ../testdata/peer/*.data regressions/*/*)
[ -d "$shared" ] && files+=("$shared"/*/*)
for t in file roundtrip; do seed "$t" "${files[@]}"; done
# parse: the first 512 bytes of the recordings (the headers and the attrs that follow them)
for f in ../testdata/*.data; do [ -f "$f" ] && head -c 512 "$f" > "corpus/parse/$(basename "$f")"; done
# pipe: the streams without their 16-byte pipe header (the target adds it)
for f in ../testdata/pipe*.data "$shared"/quipper/*piped* "$shared"/mslt/pipe.data; do
  [ -f "$f" ] && tail -c +17 "$f" > "corpus/pipe/$(basename "$f")"
done
# sched: the sched, block and off-CPU recordings as files, and the sched pipe stream without its header
seed sched ../testdata/sched*.data ../testdata/block*.data ../testdata/offcpu*.data ../testdata/pipe-tp.data
tail -c +17 ../testdata/sched-pipe.data > corpus/sched/sched-pipe.stream
# export_chrome, export_speedscope: the sched recordings and the small -g ones (stacks to fold)
for t in export_chrome export_speedscope; do
  seed "$t" ../testdata/sched*.data ../testdata/fp.data ../testdata/multi-g.data ../testdata/sysw.data
done
# report: the small recordings with callchains, event groups, several events and branch stacks
seed report ../testdata/fp.data ../testdata/sysw.data ../testdata/multi.data ../testdata/multi-g.data \
  ../testdata/group.data ../testdata/comm-override.data ../testdata/sched.data \
  "$shared"/quipper/perf.data.group_desc-4.14 "$shared"/quipper/perf.data.branch-4.14
# Every regression file is a seed of the target it was found by (regressions/<target>/).
for d in regressions/*/; do
  t=$(basename "$d")
  [ -d "corpus/$t" ] && cp "$d"* "corpus/$t/" 2>/dev/null || true
done
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target}" \
  cargo run -q --release --manifest-path seedgen/Cargo.toml -- corpus "${files[@]}"
find ../testdata/folded -type f ! -name '*.sh' -exec sh -c 'cp "$1" "corpus/symbols/$(basename "$1")"' _ {} \;
printf '7f0000001000 40 jitted_fn\n7f0000001040 0x20 _ZN4core3fmt5write17h0123456789abcdefE\n7f0000002000 8 _ZNSt6vectorIiSaIiEE9push_backERKi\n' \
  > corpus/symbols/perf-1234.map
# /sys/kernel/notes layout: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0", the id.
printf '\004\000\000\000\024\000\000\000\003\000\000\000GNU\000%s' "0123456789abcdefghij" > corpus/symbols/notes
echo "seeded: $(for t in corpus/*; do printf '%s=%s ' "${t#corpus/}" "$(ls "$t" | wc -l)"; done)"
