#!/bin/sh
# Re-creates perf-names.tsv: for each name of perf-names.txt, what perf 6.1 itself names a
# function of that name. Each name becomes the one function of a small executable (assembled
# with a quoted symbol name), and `perf probe -x EXE -F --filter '*'` lists the functions of
# EXE as perf's symbol loader named them (dso__load_sym → demangle_sym: libiberty's
# cplus_demangle, perf's Rust-hash, OCaml and Java steps); the line that the same executable
# without the function does not have is perf's name. Needs perf (as root) and gcc.
#   testdata/demangle/make-perf.sh
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exe() { # exe NAME OUT: an executable with main and, if NAME is not empty, a function NAME
    {
        echo '.text'
        if [ -n "$1" ]; then
            q=$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')
            printf '.globl "%s"\n.type "%s", @function\n"%s":\n  ret\n.size "%s", 1\n' "$q" "$q" "$q" "$q"
        fi
        printf '.globl main\n.type main, @function\nmain:\n  xor %%eax, %%eax\n  ret\n.size main, 3\n'
        echo '.section .note.GNU-stack,"",@progbits'
    } > "$work/f.s"
    gcc -o "$2" "$work/f.s"
}
exe "" "$work/base"
perf probe -x "$work/base" -F --filter '*' | sort > "$work/base.txt"
: > perf-names.tsv.tmp
while IFS= read -r name; do
    exe "$name" "$work/one"
    perf probe -x "$work/one" -F --filter '*' | sort | comm -23 - "$work/base.txt" > "$work/new.txt"
    [ "$(wc -l < "$work/new.txt")" = 1 ] || { echo "$name: $(cat "$work/new.txt")" >&2; exit 1; }
    printf '%s\t%s\n' "$name" "$(cat "$work/new.txt")" >> perf-names.tsv.tmp
done < perf-names.txt
mv perf-names.tsv.tmp perf-names.tsv
