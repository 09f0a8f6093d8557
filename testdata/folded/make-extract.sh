#!/bin/sh
# make-extract.sh F... - rebuild the extracts the folded and unwind tests use, for the recordings
# F (names relative to testdata/, e.g. fp.data dwarf.data python.data). Run on the recording
# machine, as root, with the build-id cache perf used (~/.debug).
#
# For every DSO in the user frames of `perf script --no-inline -i F` (any F), reduce-elf.py writes
# a stand-in under root/ at the mmap path (a --symfs root) holding
#   * the program headers, build id, .eh_frame_hdr and .eh_frame of the file perf reads a dso's
#     bytes from when unwinding (the build-id cache `elf`, else the path itself), and
#   * the symbols perf printed, taken from the file perf took its symbols from (the build-id cache
#     `debug`, else `elf`, else the path, whichever has a .symtab first; else the path's .dynsym).
# The kernel's kallsyms (build-id cache copy) is cut down to the symbols hit plus the symbol after
# each (which ends it). The --no-inline script is used so that the names kept are the symbol-table
# names (perf's default output replaces some with DWARF names through addr2line).
set -e
cd "$(dirname "$0")"
t=/tmp/make-extract.$$
: > $t.syms; : > $t.ksyms; : > $t.bids
for F in "$@"; do
  perf script --no-inline -i ../$F 2>/dev/null > $t.script
  grep -P '^\t' $t.script | sed -E 's/^\s*\S+ (.*) \((\/.*)\)$/\2 \1/;t;d' | sed -E 's/\+0x[0-9a-f]+$//' >> $t.syms
  grep -P '^\t' $t.script | grep '(\[kernel.kallsyms\])' | awk '{print $2}' | sed -E 's/\+0x[0-9a-f]+$//' >> $t.ksyms
  perf buildid-list -i ../$F 2>/dev/null >> $t.bids || true
done
sort -u -o $t.syms $t.syms
rm -rf root
for dso in $(cut -d' ' -f1 $t.syms | sort -u); do
  bid=$(awk -v p="$dso" '$2==p{print $1; exit}' $t.bids)
  [ -n "$bid" ] || bid=$(file -L "$dso" | sed -nE 's/.*BuildID\[sha1\]=([0-9a-f]+).*/\1/p')
  rt=$dso
  [ -s ~/.debug/$dso/$bid/elf ] && rt=~/.debug/$dso/$bid/elf
  src=$rt
  for c in ~/.debug/$dso/$bid/debug ~/.debug/$dso/$bid/elf $dso; do
    [ -s "$c" ] && readelf -SW "$c" | grep -q ' .symtab ' && { src=$c; break; }
  done
  awk -v p="$dso" '$1==p{sub(/^[^ ]* /, ""); print}' $t.syms > $t.keep
  mkdir -p "root$(dirname "$dso")"
  python3 ./reduce-elf.py "$rt" "$src" $t.keep "root$dso"
  echo "$dso <- $rt, symbols from $src ($(wc -l < $t.keep) names), $(stat -c %s "root$dso") bytes"
done
kb=$(awk '$2=="[kernel.kallsyms]"{print $1; exit}' $t.bids)
[ -n "$kb" ] || kb=$(perf buildid-list -k)
sort -u -o $t.ksyms $t.ksyms
awk 'NR==FNR{k[$1]=1;next} want{print;want=0} ($3 in k){print;want=1}' $t.ksyms ~/.debug/\[kernel.kallsyms\]/$kb/kallsyms \
  | sort -u > kallsyms-$kb
echo "kallsyms-$kb: $(wc -l < kallsyms-$kb) symbols"
rm -f $t.*
