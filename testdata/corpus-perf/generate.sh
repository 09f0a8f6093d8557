#!/usr/bin/env bash
# Store perf's own reading of every ../shared/corpus file (the corpus itself is not copied here):
#   <sub>/<name>.dump.zst    perf report -D, without the hex lines of raw bytes (size), zstd -19
#   <sub>/<name>.header      perf report --header-only -I
#   <sub>/<name>.dump.err  what perf printed on stderr, when anything
#   <sub>/<name>.rc          exit codes of the two commands
# Run from anywhere; needs perf and zstd. Regenerate only when the corpus changes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$here/../../../shared/corpus}
for f in "$corpus"/{quipper,mslt,lnt}/*; do
  sub=$(basename "$(dirname "$f")"); name=$(basename "$f")
  mkdir -p "$here/$sub"
  perf report -D -i "$f" 2>"$here/$sub/$name.dump.err" | grep -v '^\.  [0-9a-f][0-9a-f][0-9a-f][0-9a-f]: ' | zstd -q -19 -f -o "$here/$sub/$name.dump.zst"
  d=${PIPESTATUS[0]}
  [ -s "$here/$sub/$name.dump.err" ] || rm -f "$here/$sub/$name.dump.err"
  perf report --header-only -I -i "$f" > "$here/$sub/$name.header" 2>/dev/null
  echo "dump $d header $?" > "$here/$sub/$name.rc"
done
# perf script's branch stacks (the files recorded with -b): `-F ip,brstack` and `-F brstack,dso`
#   <sub>/<name>.script-brstack.zst, <sub>/<name>.script-brstack-dso.zst
for f in "$corpus"/quipper/perf.data.{branch-4.14,branch_stack_hw_index,branch_stack_spec,callgraph_and_branch-3.8,raw_callgraph_branch-3.4}; do
  name=$(basename "$f")
  LC_ALL=C perf script -F ip,brstack -i "$f" 2>/dev/null | zstd -q -19 -f -o "$here/quipper/$name.script-brstack.zst"
  LC_ALL=C perf script -F brstack,dso -i "$f" 2>/dev/null | zstd -q -19 -f -o "$here/quipper/$name.script-brstack-dso.zst"
done
# perf script's branch stacks with names and offsets: `-F ip,brstacksym`, `-F brstacksym,dso`,
# `-F ip,brstackoff`, `-F brstackoff,dso`, none of this machine's symbols let in (as for the
# reports below: an old recording without build ids would otherwise name this machine's files):
#   <sub>/<name>.script-brstacksym.zst, .script-brstacksym-dso.zst, .script-brstackoff.zst,
#   .script-brstackoff-dso.zst
empty=$(mktemp -d)
for f in "$corpus"/quipper/perf.data.{branch-4.14,branch_stack_hw_index,branch_stack_spec,callgraph_and_branch-3.8,raw_callgraph_branch-3.4}; do
  name=$(basename "$f")
  for field in brstacksym brstackoff; do
    LC_ALL=C perf script -F ip,$field -i "$f" --symfs "$empty" --kallsyms /dev/null 2>/dev/null | zstd -q -19 -f -o "$here/quipper/$name.script-$field.zst"
    LC_ALL=C perf script -F $field,dso -i "$f" --symfs "$empty" --kallsyms /dev/null 2>/dev/null | zstd -q -19 -f -o "$here/quipper/$name.script-$field-dso.zst"
  done
done
rmdir "$empty"
# perf report in branch mode (the default for these files), with --sort dso_from,dso_to, and with
# --no-branch-stack, none of this machine's symbols let in: --symfs an empty directory and
# --kallsyms /dev/null (the recordings' binaries and kernels are not here), the three closing
# lines (perf's random tip) cut:
#   quipper/<name>.report-branch.zst, .report-branch-sort-dso_from,dso_to.zst,
#   .report-no-branch-stack.zst
# reports FILES -- RUNS: each file's perf report for each run ("SUFFIX ARGS…").
reports() {
  local files=() f name args suffix empty
  while [ "$1" != -- ]; do files+=("$1"); shift; done; shift
  empty=$(mktemp -d)
  for f in "${files[@]}"; do
    name=$(basename "$f")
    for args in "$@"; do
      set -- $args; suffix=$1; shift
      LC_ALL=C perf report --stdio -i "$f" --symfs "$empty" --kallsyms /dev/null "$@" 2>/dev/null | head -n -3 | zstd -q -19 -f -o "$here/quipper/$name.report-$suffix.zst"
    done
  done
  rmdir "$empty"
}
reports "$corpus"/quipper/perf.data.{branch-4.14,branch_stack_hw_index,branch_stack_spec,callgraph_and_branch-3.8,callgraph_and_branch-3.4} -- \
  "branch" "branch-sort-dso_from,dso_to --sort dso_from,dso_to" "no-branch-stack --no-branch-stack"
# perf report of the recordings of event groups: its group view (its default: a table for each
# group, a column of each member's shares), with the samples column and without call graphs, and
# a table per event (--no-group); no symbols of this machine's, the tip cut, as above:
#   quipper/<name>.report-group.zst, .report-group-n.zst, .report-no-group.zst
reports "$corpus"/quipper/perf.data.{group_desc-4.14,lost_samples-4.4,piped.header_feautres_group_desc-6.8} -- \
  "group" "group-n -n --no-children -g none" "no-group --no-group"
