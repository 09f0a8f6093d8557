#!/usr/bin/env bash
# Build the seed corpora in fuzz/corpus/<target>/ (gitignored) from testdata/*.data, the shared
# corpus (../shared/corpus, including the quipper fuzz reproducers) and fuzz/regressions/.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/corpus
for t in file pipe roundtrip features sample zstd; do mkdir -p "corpus/$t"; done
seed() { # target, files...
  local t=$1; shift
  for f in "$@"; do if [ -f "$f" ]; then cp "$f" "corpus/$t/$(basename "$(dirname "$f")")_$(basename "$f")"; fi; done
}
files=(../testdata/*.data ../testdata/*/data* regressions/*)
[ -d "$shared" ] && files+=("$shared"/*/*)
for t in file roundtrip; do seed "$t" "${files[@]}"; done
# pipe: the streams without their 16-byte pipe header (the target adds it)
for f in ../testdata/pipe*.data "$shared"/quipper/*piped* "$shared"/mslt/pipe.data; do
  [ -f "$f" ] && tail -c +17 "$f" > "corpus/pipe/$(basename "$f")"
done
echo "seeded: $(for t in corpus/*; do printf '%s=%s ' "${t#corpus/}" "$(ls "$t" | wc -l)"; done)"
