#!/usr/bin/env python3
"""Rebuild the symbol extracts the folded tests use, for all the given recordings at once.

Run on the recording machine, as root, from anywhere, with every recording the tests use (each
run rewrites root/ for all of them):  testdata/folded/make-extract.py fp.data sysw.data --cfi dwarf.data
(recordings: paths relative to testdata/, or absolute). cxx/record.sh writes its own root
(--root); script-rec/record.sh writes its root and kallsyms extract beside its recordings and
passes --for-perf (see main), as perf itself must print the same from them.

For every DSO with frames in F.script (perf script's own output), the file perf took its symbols from
(build-id cache `debug`, else `elf`, else the path itself) is reduced to the symbols perf printed (see
reduce_elf: other allocated sections become NOBITS, DWARF dropped) and placed under root/ at the mmap path (a
--symfs root). Symbols are matched by name: `nm` lists the mangled names, `c++filt -p` demangles them
(Rust v0 crate hashes and legacy `::h…` hashes removed, as perf prints them). The kernel's kallsyms from
the build-id cache is reduced to the symbols hit plus the symbol after each (which ends it).
Everything is derived from perf's output and the binaries, never from perfdata.
"""
import collections
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
DEBUG = os.path.expanduser("~/.debug")
# Paths through directories that hold build outputs, which git must not track.
BUILD_DIR = re.compile(r"/(target|\.venv|dist|__pycache__|node_modules)/")
FRAME = re.compile(r"^\t\s*\S+ (.*) \((.*)\)$")
# A sample line without a callchain: `… EVENT:   IP SYM+OFF (DSO)` (--for-perf).
SAMPLE_IP = re.compile(r"^\s*\S.* \d+\.\d+: +\d+ +\S+: +[0-9a-f]+ (.*) \(([^()]*)\)$")
# --for-perf: /tmp/perf-PID.map files larger than this keep only the lines of the symbols perf printed.
MAP_LIMIT = 64 * 1024


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=False).stdout


def build_ids(data):
    out = {}
    for line in run("perf", "buildid-list", "-i", data).splitlines():
        bid, _, path = line.partition(" ")
        out[path] = bid
    return out


def perf_name(demangled):
    # c++filt shows Rust v0 crate disambiguators (`core[8f2d…]::`) and legacy hashes; perf does not.
    s = re.sub(r"\[[0-9a-f]{5,16}\]", "", demangled)
    s = re.sub(r"\b(\d+|true|false): (usize|isize|bool|[ui](8|16|32|64|128))\b", r"\1", s)
    return re.sub(r"::h[0-9a-f]{16}$", "", s)


# Sections kept with their contents: what perf reads besides the symbol table (PLT synthesis from
# .rela.plt/.dynsym, CFI for --call-graph dwarf, the build id).
ALWAYS = {".note.gnu.build-id", ".shstrtab", ".gnu_debuglink"}
PLT = {".dynsym", ".dynstr", ".rela.plt", ".rel.plt", ".plt", ".plt.sec", ".plt.got"}
CFI = {".eh_frame", ".eh_frame_hdr", ".debug_frame"}
# --for-perf: the vDSO's build id; perf 6.1 segfaults on a [vdso] under --symfs whose build id it
# cannot read, when a sample or address falls in it.
NOTE = {".note"}
PLT_CODE = {".plt", ".plt.sec", ".plt.got"}
SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS, SHT_DYNSYM, SHF_ALLOC = 2, 3, 8, 11, 2


def section_table(data):
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    (shentsize, shnum, shstrndx) = struct.unpack_from("<HHH", data, 0x3A)
    shdrs = [list(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)) for i in range(shnum)]
    def name(i):
        off = shdrs[shstrndx][4] + shdrs[i][0]
        return data[off:data.index(b"\0", off)].decode()
    return shdrs, name


def reduce_elf(data, keep_syms, keep_content, runtime=None, reduce_dynsym=False, plt_wanted=None,
               plt_headers=False):
    """A copy of a 64-bit little-endian ELF file with every section header, every program header and
    the `keep_content` sections, whose other sections have no contents (NOBITS, or empty when not
    allocated), and whose .symtab holds only the symbols named in `keep_syms`. Section indices do
    not change, so symbols keep their st_shndx. When `data` is a debug file (perf's symbols came
    from it) and `runtime` the binary itself, the program headers and the kept contents the debug
    file lacks (CFI, PLT: NOBITS there) come from `runtime`, as the unwinder reads them from it.
    `reduce_dynsym`: .dynsym (with .dynstr) is reduced like .symtab (for a file without .symtab
    whose PLT is not needed). `plt_headers`: the kept PLT code sections (.plt, .plt.sec, .plt.got)
    become NOBITS headers at the binary's file offset (the runtime file's, for a debug file): perf
    6.1 (dso__synthesize_plt_symbols) places the synthesized `name@plt` symbols at the .plt
    section's file offset and reads no PLT code. `plt_wanted`: names whose `name@plt` perf printed;
    .dynsym (with .dynstr) then keeps only the symbols of those .rela.plt entries, the entries'
    symbol indices rewritten (the others point to symbol 0), as perf 6.1 names the PLT entries from
    them (used for files with a .symtab, whose .dynsym serves the PLT only: node's is 1.8 MB)."""
    assert data[:6] == b"\x7fELF\x02\x01", "64-bit little-endian ELF only"
    (phoff, shoff) = struct.unpack_from("<QQ", data, 0x20)
    (phentsize, phnum, shentsize, shnum, shstrndx) = struct.unpack_from("<HHHHH", data, 0x36)
    shdrs, name = section_table(data)
    name = [name(i) for i in range(len(shdrs))].__getitem__  # before any offset changes
    # (plt_headers) the PLT code sections whose header alone is kept, at the binary's offset
    plt_hdr = {i for i in range(len(shdrs)) if plt_headers and name(i) in PLT_CODE and name(i) in keep_content}
    from_runtime = {}
    if runtime is not None:
        rshdrs, rname = section_table(runtime)
        rsec = {rname(i): sh for i, sh in enumerate(rshdrs)}
        for i, sh in enumerate(shdrs):
            r = rsec.get(name(i))
            if name(i) in keep_content and sh[1] == SHT_NOBITS and r and r[1] != SHT_NOBITS and r[3] == sh[3]:
                from_runtime[i] = runtime[r[4]:r[4] + r[5]]
                sh[1], sh[5] = r[1], r[5]
        (rphoff,) = struct.unpack_from("<Q", runtime, 0x20)
        (rphentsize, rphnum) = struct.unpack_from("<HH", runtime, 0x36)
        assert (rphentsize, rphnum) == (phentsize, phnum), "program headers differ"
        data_ph = runtime[rphoff:rphoff + rphentsize * rphnum]
    else:
        data_ph = data[phoff:phoff + phentsize * phnum]
    out = bytearray(data[:64])
    out += data_ph
    struct.pack_into("<Q", out, 0x20, 64)
    contents = dict(from_runtime)
    for i in plt_hdr:
        contents.pop(i, None)
        if runtime is not None and name(i) in rsec:
            shdrs[i][4] = rsec[name(i)][4]
        shdrs[i][1] = SHT_NOBITS
    for i, sh in enumerate(shdrs):
        if sh[1] == SHT_SYMTAB or (reduce_dynsym and sh[1] == SHT_DYNSYM):
            strtab = shdrs[sh[6]]
            strings = data[strtab[4]:strtab[4] + strtab[5]]
            syms, new_str, first_global = [bytes(24)], bytearray(b"\0"), None
            for binding_pass in (0, 1):  # locals first, as ELF requires
                for j in range(1, sh[5] // 24):
                    ent = bytearray(data[sh[4] + j * 24:sh[4] + (j + 1) * 24])
                    st_name, st_info = struct.unpack_from("<IB", ent, 0)
                    if (st_info >> 4 != 0) != bool(binding_pass):
                        continue
                    n = strings[st_name:strings.index(b"\0", st_name)]
                    if n.decode(errors="replace") not in keep_syms:
                        continue
                    struct.pack_into("<I", ent, 0, len(new_str))
                    new_str += n + b"\0"
                    syms.append(bytes(ent))
                if binding_pass == 0:
                    first_global = len(syms)
            contents[i] = b"".join(syms)
            sh[7] = first_global
            contents[sh[6]] = bytes(new_str)
    if plt_wanted is not None:
        rela = [i for i in range(len(shdrs)) if name(i) == ".rela.plt"]
        if rela:
            def sec(j):
                return contents.get(j) or data[shdrs[j][4]:shdrs[j][4] + shdrs[j][5]]
            ri = rela[0]
            di = shdrs[ri][6]
            si = shdrs[di][6]
            relas, dsyms, dstr = sec(ri), sec(di), sec(si)
            new_syms, new_str, idx_map, new_rela = [bytes(24)], bytearray(b"\0"), {}, bytearray()
            for k in range(len(relas) // 24):
                r_offset, r_info, r_addend = struct.unpack_from("<QQq", relas, k * 24)
                sym, typ = r_info >> 32, r_info & 0xFFFFFFFF
                if sym and sym not in idx_map:
                    ent = bytearray(dsyms[sym * 24:(sym + 1) * 24])
                    (st_name,) = struct.unpack_from("<I", ent, 0)
                    n = dstr[st_name:dstr.index(b"\0", st_name)]
                    if n.decode(errors="replace") in plt_wanted:
                        struct.pack_into("<I", ent, 0, len(new_str))
                        new_str += n + b"\0"
                        idx_map[sym] = len(new_syms)
                        new_syms.append(bytes(ent))
                new_rela += struct.pack("<QQq", r_offset, (idx_map.get(sym, 0) << 32) | typ, r_addend)
            contents[ri], contents[di], contents[si] = bytes(new_rela), b"".join(new_syms), bytes(new_str)
            for j in (ri, di, si):
                if shdrs[j][1] == SHT_NOBITS:  # (a debug file's: the runtime's contents were taken)
                    shdrs[j][1] = SHT_STRTAB if j == si else (SHT_DYNSYM if j == di else 4)
            shdrs[di][7] = 1
    for i, sh in enumerate(shdrs):
        if i in contents or i == 0 or i in plt_hdr:
            continue
        if name(i) in keep_content and sh[1] != SHT_NOBITS:
            contents[i] = data[sh[4]:sh[4] + sh[5]]
        elif sh[1] != SHT_NOBITS:
            if sh[2] & SHF_ALLOC:
                sh[1] = SHT_NOBITS
            else:
                sh[5] = 0
    for i, sh in enumerate(shdrs):
        if i in contents:
            align = max(sh[8], 1)
            out += bytes(-len(out) % align)
            sh[4], sh[5] = len(out), len(contents[i])
            out += contents[i]
        elif i not in plt_hdr:  # (plt_hdr: the binary's offset, see above)
            sh[4] = len(out)
    out += bytes(-len(out) % 8)
    struct.pack_into("<Q", out, 0x28, len(out))
    for sh in shdrs:
        out += struct.pack("<IIQQQQIIQQ", *sh)
    return bytes(out)


def perf_frames(text, sample_lines=False):
    """(symbol, dso) of every resolved frame line of perf script's output; `sample_lines`: also of
    every sample line without a callchain (`… EVENT: IP SYM+OFF (DSO)`)."""
    for line in text.splitlines():
        m = FRAME.match(line) or (SAMPLE_IP.match(line) if sample_lines else None)
        if m:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
            if sym != "[unknown]":
                yield sym, m.group(2)


def main(args):
    """`make-extract.py [--root DIR] [--kallsyms-dir KDIR] [--reduce-dynsym] [--for-perf] F… [--cfi G…]`:
    the G recordings (--call-graph dwarf) also need the CFI sections of their DSOs; DIR (default
    root/ here): the --symfs root written (cxx/record.sh gives its recordings their own); KDIR
    (default: here): where kallsyms-<build id> is written (its source is always the build-id
    cache); --reduce-dynsym: see extract_dsos. --for-perf (script-rec/record.sh): the extract must
    let perf 6.1 itself print the same, not only perfdata, and the recordings have outputs the
    folded ones lack:
    - frames are also read from sample lines without a callchain, from F.script-maxstack512
      (frames past perf's default 127) and from F.script-mem (`-F …,addr,…`: data symbols);
    - the kallsyms extract keeps `_text` (perf 6.1 ignores a kallsyms file without the kernel
      MMAP's reference symbol);
    - extract_dsos's `for_perf`: .note kept, PLT headers at their offset, .dynsym cut to the
      sampled PLT entries, names with spaces, large perf maps reduced."""
    root, kdir, reduce_dynsym, for_perf = os.path.join(HERE, "root"), HERE, False, False
    while args and args[0] in ("--root", "--kallsyms-dir", "--reduce-dynsym", "--for-perf"):
        if args[0] == "--root":
            root, args = os.path.abspath(args[1]), args[2:]
        elif args[0] == "--kallsyms-dir":
            kdir, args = os.path.abspath(args[1]), args[2:]
        elif args[0] == "--reduce-dynsym":
            reduce_dynsym, args = True, args[1:]
        else:
            for_perf, args = True, args[1:]
    files = [a for a in args if a != "--cfi"]
    cfi_files = set(args[args.index("--cfi") + 1:]) if "--cfi" in args else set()
    cfi_dsos = set()
    wanted = collections.defaultdict(set)  # dso -> perf's symbol names
    kernel = set()
    bids = {}
    for f in files:
        data = os.path.join(TESTDATA, f)
        bids.update(build_ids(data))
        texts = [open(data + ".script", encoding="utf-8", errors="replace").read()]
        if for_perf and os.path.exists(data + ".script-maxstack512"):
            # frames past perf's default 127 (script-rec/deep.data)
            texts.append(open(data + ".script-maxstack512", encoding="utf-8", errors="replace").read())
        if f in cfi_files:
            # The unwinding tests compare with `perf script --no-inline`, whose frames carry the
            # symbol-table names that the default output replaces with inlined DWARF names.
            texts.append(run("perf", "script", "--no-inline", "-i", data))
        pairs = [p for text in texts for p in perf_frames(text, sample_lines=for_perf)]
        if for_perf and os.path.exists(data + ".script-mem"):
            # `-F …,ip,sym,dso,addr,…`: the sampled data address's symbol too (script-rec/pf-mem.data)
            mem = open(data + ".script-mem", encoding="utf-8", errors="replace").read()
            pairs += [(m.group(1), m.group(2)) for m in
                      re.finditer(r" [0-9a-f]{6,} (\S+) \(([^()]*)\)", mem) if m.group(1) != "[unknown]"]
        for sym, dso in pairs:
            if dso == "[kernel.kallsyms]":
                kernel.add(sym)
            elif dso.startswith("/") or dso == "[vdso]":
                wanted[dso].add(sym)
                if f in cfi_files:
                    cfi_dsos.add(dso)
    extract_dsos(wanted, bids, cfi_dsos, root, reduce_dynsym, for_perf)
    write_kallsyms(bids.get("[kernel.kallsyms]"), kernel, kdir, keep_text=for_perf)


def extract_dsos(wanted, bids, cfi_dsos, root, reduce_dynsym=False, for_perf=False):
    """Write the reduced copy of each DSO of `wanted` (path -> symbol names perf printed) under the
    --symfs root `root`; `bids`: path -> build id; `cfi_dsos`: DSOs whose CFI sections are kept;
    `reduce_dynsym`: a file without .symtab and without sampled PLT entries keeps only the sampled
    .dynsym symbols (and no PLT) instead of its whole .dynsym. `for_perf` (what perf 6.1 itself
    needs to print the same from the copies; see reduce_elf): .note kept (a [vdso]'s build id);
    the PLT code sections kept as NOBITS headers at the binary's offset (plt_headers); for a file
    with .symtab, .dynsym/.dynstr cut to the sampled `name@plt` entries (plt_wanted); `nm` names
    split in three fields, not at every blank (the jitted-*.so of perf inject --jit have names
    with spaces); /tmp/perf-PID.map files over MAP_LIMIT cut to the lines of the symbols printed."""
    for dso, names in sorted(wanted.items()):
        if re.fullmatch(r"/tmp/perf-\d+\.map", dso):
            # A JIT symbol file: text, kept whole (perf reads it at report time).
            out = os.path.join(root, dso.lstrip("/"))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            text = open(dso, "rb").read()
            if not for_perf:
                print(f"{dso}: copied")
            elif len(text) > MAP_LIMIT:
                # Only the lines naming a symbol perf printed (each line: START SIZE NAME). perf
                # gives every line its own start and size, so the kept lines resolve as before.
                lines = text.decode("utf-8", errors="surrogateescape").splitlines(keepends=True)
                kept = [l for l in lines if l.rstrip("\n").split(" ", 2)[-1] in names]
                text = "".join(kept).encode("utf-8", errors="surrogateescape")
                print(f"{dso}: {len(kept)} of {len(lines)} lines kept, {len(text)} bytes")
            else:
                print(f"{dso}: copied, {len(text)} bytes")
            with open(out, "wb") as dst:
                dst.write(text)
            continue
        bid = bids.get(dso)
        src = dso
        if dso == "[vdso]":
            # perf saved the vdso image in its cache; the tests find it as <symfs>/[vdso].
            src = os.path.join(DEBUG, dso, bid, "vdso")
        for c in ("debug", "elf"):
            p = os.path.join(DEBUG, dso.lstrip("/"), bid or "-", c)
            if bid and os.path.exists(p) and os.path.getsize(p) > 0:
                if " .symtab " in run("readelf", "-SW", p):
                    src = p
                    break
        # (for_perf: split in three, as names may hold spaces)
        fields = (lambda l: l.split(None, 2)) if for_perf else (lambda l: l.split())
        mangled = [fields(l)[-1] for l in run("nm", "--defined-only", src).splitlines() if len(fields(l)) == 3]
        mangled += [fields(l)[-1] for l in run("nm", "-D", "--defined-only", src).splitlines() if len(fields(l)) == 3]
        # nm -D prints versions (`f@@LINUX_2.6`); perf prints .dynsym names without them (and
        # c++filt demangles none with one).
        unversioned = [re.sub(r"@.*$", "", m) for m in mangled]
        demangled = run("c++filt", "-p", stdin="\n".join(unversioned) + "\n").splitlines()
        keep = sorted({m for m, d, u in zip(mangled, demangled, unversioned)
                       if perf_name(d) in names or m in names or u in names})
        found = {perf_name(d) for m, d in zip(mangled, demangled) if m in keep} | set(keep)
        found |= {u for m, u in zip(mangled, unversioned) if m in keep}
        missing = sorted(n for n in names - found if not n.endswith("@plt"))  # (@plt: from .rela.plt)
        out = os.path.join(root, dso.lstrip("/"))
        if bid and BUILD_DIR.search(dso):
            # A DSO of a build or virtualenv directory (a pyarrow wheel's libarrow under .venv/):
            # tools/check-tracked.py keeps such directories out of git, so its stand-in goes where
            # perf and perfdata also look under --symfs, by build id.
            out = os.path.join(root, "usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # The binary itself (what perf unwinds with and takes PLT symbols from).
        runtime = os.path.join(DEBUG, dso.lstrip("/"), bid or "-", "elf")
        runtime = runtime if os.path.exists(runtime) else (src if dso == "[vdso]" else dso)
        with open(src, "rb") as f, open(runtime, "rb") as r:
            # Without a .symtab perf reads .dynsym: keep it whole.
            no_symtab = " .symtab " not in run("readelf", "-SW", src)
            plt = any(n.endswith("@plt") for n in names)
            dynsym_reduced = reduce_dynsym and no_symtab and not plt
            sections = ALWAYS | (PLT if (no_symtab and not dynsym_reduced) or plt else set())
            sections |= CFI if dso in cfi_dsos else set()
            sections |= NOTE if for_perf else set()
            # .dynstr holds the names without their `@VERSION`.
            names_kept = set(keep) | ({re.sub(r"@.*$", "", m) for m in keep} if dynsym_reduced else set())
            # With a .symtab, .dynsym only names the PLT entries: keep the sampled ones (for_perf).
            plt_wanted = {n[:-4] for n in names if n.endswith("@plt")} if for_perf and plt and not no_symtab else None
            reduced = reduce_elf(f.read(), names_kept, sections, None if runtime == src else r.read(), dynsym_reduced,
                                 plt_wanted, plt_headers=for_perf)
        with open(out, "wb") as f:
            f.write(reduced)
        print(f"{dso} <- {src}: {len(keep)} symbols kept, {os.path.getsize(out)} bytes"
              + (f", NOT FOUND: {missing}" if missing else ""))


def write_kallsyms(kb, kernel, kdir=HERE, keep_text=False):
    """The kallsyms extract for the kernel with build id `kb`, written to `kdir`: the symbols in
    `kernel` and the next (`keep_text`: `_text` too, which perf 6.1 needs as the kernel MMAP's
    reference symbol)."""
    if kb and kernel:
        lines = open(os.path.join(DEBUG, "[kernel.kallsyms]", kb, "kallsyms"), encoding="utf-8").read().splitlines()
        keep, take_next = set(), False
        for line in lines:
            parts = line.split()
            if take_next:
                keep.add(line)
                take_next = False
            if len(parts) >= 3 and (parts[2] in kernel or (keep_text and parts[2] == "_text")):
                keep.add(line)
                take_next = True
        with open(os.path.join(kdir, "kallsyms-" + kb), "w", encoding="utf-8") as k:
            k.write("".join(l + "\n" for l in sorted(keep)))
        print(f"kallsyms-{kb}: {len(keep)} lines")


if __name__ == "__main__":
    main(sys.argv[1:])
