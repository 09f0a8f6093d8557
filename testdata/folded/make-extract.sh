#!/bin/sh
# Rebuild the symbol extracts the folded tests use (run on the recording machine, as root):
# for every DSO with samples in F.script, the file perf took its symbols from (build-id cache
# `debug`, else `elf`, else the path itself), reduced with objcopy to the symbols perf printed
# (allocated sections become NOBITS, DWARF dropped), placed under root/ at the mmap path (a --symfs
# root); and the kernel's kallsyms from the build-id cache limited to the symbols hit plus the
# symbol after each (which ends it).
set -e
cd "$(dirname "$0")"
for F in "$@"; do
  S=../$F.script
  grep -P '^\t' "$S" | sed -E 's/^\s*\S+ (.*) \((\/.*)\)$/\2 \1/;t;d' | sed -E 's/\+0x[0-9a-f]+$//' | sort -u > /tmp/syms.$$
  for dso in $(cut -d' ' -f1 /tmp/syms.$$ | sort -u); do
    bid=$(perf buildid-list -i ../$F 2>/dev/null | awk -v p="$dso" '$2==p{print $1}')
    [ -n "$bid" ] || bid=$(file -L "$dso" | sed -nE 's/.*BuildID\[sha1\]=([0-9a-f]+).*/\1/p')
    src=$dso
    for c in ~/.debug/$dso/$bid/debug ~/.debug/$dso/$bid/elf; do [ -s "$c" ] && readelf -SW "$c" | grep -q ' .symtab ' && { src=$c; break; }; done
    mkdir -p "root$(dirname "$dso")"
    awk -v p="$dso" '$1==p{print $2}' /tmp/syms.$$ > /tmp/keep.$$
    objcopy --only-keep-debug -R '.debug*' -R .gnu_debuglink --keep-symbols=/tmp/keep.$$ "$src" "root$dso"
    echo "$dso <- $src ($(wc -l < /tmp/keep.$$) symbols)"
  done
  kb=$(perf buildid-list -i ../$F 2>/dev/null | awk '$2=="[kernel.kallsyms]"{print $1}')
  grep -P '^\t' "$S" | grep '(\[kernel.kallsyms\])' | awk '{print $2}' | sed -E 's/\+0x[0-9a-f]+$//' | sort -u > /tmp/ksyms.$$
  awk 'NR==FNR{k[$1]=1;next} want{print;want=0} ($3 in k){print;want=1}' /tmp/ksyms.$$ ~/.debug/\[kernel.kallsyms\]/$kb/kallsyms | sort -u -k1,1 > kallsyms.$F.tmp
  sort kallsyms.$F.tmp > kallsyms-$kb; rm -f kallsyms.$F.tmp
done
rm -f /tmp/syms.$$ /tmp/keep.$$ /tmp/ksyms.$$
