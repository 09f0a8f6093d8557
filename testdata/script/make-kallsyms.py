#!/usr/bin/env python3
"""Write the two kallsyms files gen-script.sh gives perf (and the tests give perfdata).

    make-kallsyms.py TEXT_ADDR

TEXT_ADDR is the kernel's `_text` address as the recordings' kernel MMAP names it (gen-script.sh
reads it from `perf report -D -i fp.data`: `[kernel.kallsyms]_text` mapped `@ 0xffffffff81000000`;
every recording here shows the same address and the same kernel build id).

- `kallsyms`: testdata/folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9 (unchanged lines)
  plus one line `TEXT_ADDR T _text`, sorted by address. perf 6.1 needs `_text` (the reference
  relocation symbol named by the kernel MMAP): without it `perf script --kallsyms EXTRACT` loads no
  kernel symbol at all (`perf script -v` says `[kernel.kallsyms] with build id 4a5a9b0… not found,
  continuing without symbols`) and prints every kernel frame as `[unknown]`.
- `kallsyms-derived`: `kallsyms` plus the kernel symbols that perf printed in the stored original
  outputs testdata/*.data.script (made on the recording machine with its full kallsyms): a frame
  `ffffffff81b9764c iowrite16+0xc ([kernel.kallsyms])` gives `iowrite16` starting at
  0xffffffff81b97640, written as `ffffffff81b97640 t iowrite16`. A name already in the extract, or an
  address the extract already names, is not added. 73 functions of offcpu*.data's stacks are in the
  extract at the lowest address perf printed for them (testdata commit 25fa0e2), not at their start
  (`ffffffff81358d63 T __x64_sys_vfork`, whose frames perf printed as `__x64_sys_vfork+0x43`): here
  they move to the start derived from the offsets (same type letter). Derived from perf's output
  only, never from perfdata. Every symbol start derived for one name must agree (checked).
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
EXTRACT = os.path.join(TESTDATA, "folded", "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")
FRAME = re.compile(r"\b([0-9a-f]{16}) (\S+)\+0x([0-9a-f]+) \(\[kernel\.kallsyms\]\)")


def read(path):
    out = []
    for line in open(path, encoding="utf-8"):
        addr, typ, name = line.rstrip("\n").split(" ", 2)
        out.append((int(addr, 16), typ, name))
    return out


def write(path, syms):
    syms = sorted(syms, key=lambda s: (s[0], s[2]))
    with open(path, "w", encoding="utf-8") as f:
        for addr, typ, name in syms:
            f.write(f"{addr:016x} {typ} {name}\n")
    return len(syms)


def main():
    text = int(sys.argv[1], 16)
    base = read(EXTRACT)
    if not any(name == "_text" for _, _, name in base):
        base.append((text, "T", "_text"))
    n = write(os.path.join(HERE, "kallsyms"), base)
    print(f"kallsyms: {n} lines (extract + _text at {text:#x})")

    names = {name for _, _, name in base}
    addrs = {addr for addr, _, _ in base}
    derived = {}
    sources = {}
    for path in sorted(glob.glob(os.path.join(TESTDATA, "*.data.script"))):
        for line in open(path, encoding="utf-8", errors="replace"):
            for m in FRAME.finditer(line):
                start = int(m.group(1), 16) - int(m.group(3), 16)
                name = m.group(2)
                if derived.setdefault(name, start) != start:
                    sys.exit(f"{name}: start {start:#x} in {path} but {derived[name]:#x} in {sources[name]}")
                sources.setdefault(name, os.path.basename(path))
    added = skipped = 0
    extra = []
    # Names the extract places at the lowest address perf printed for them (offcpu*.data's 73
    # functions, testdata commit 25fa0e2), not at their start: the derived start replaces them.
    by_name = {}
    for s in base:
        by_name.setdefault(s[2], []).append(s)
    moved = set()
    for name, start in derived.items():
        have = by_name.get(name, [])
        if len(have) == 1 and have[0][0] > start and start not in addrs:
            moved.add(have[0])
            extra.append((start, have[0][1], name))
    base = [s for s in base if s not in moved]
    for name, start in derived.items():
        if name in names:
            continue
        if start in addrs:
            skipped += 1
            print(f"  not added (address named in the extract): {start:016x} {name}")
            continue
        extra.append((start, "t", name))
        added += 1
    n = write(os.path.join(HERE, "kallsyms-derived"), base + extra)
    print(f"kallsyms-derived: {n} lines ({added} symbols added from *.data.script, {len(moved)} moved"
          f" to their start, {skipped} skipped)")


if __name__ == "__main__":
    main()
