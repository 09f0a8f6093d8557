#!/usr/bin/env python3
"""reduce-elf.py RUNTIME SYMBOLS KEEP OUT - write a small ELF64 (little endian) standing in for
RUNTIME in the folded/unwind tests:

* the ELF header and every program header of RUNTIME, verbatim (so file offsets, load addresses
  and the extent of the loaded bytes are those of the real file, though the bytes are not there);
* the sections the unwinder reads, with their contents: .note.gnu.build-id, .eh_frame_hdr,
  .eh_frame (and .debug_frame when RUNTIME has one);
* the function symbols of SYMBOLS (the file perf took its symbols from: the build-id cache
  `debug` file, or RUNTIME itself) whose names are listed in KEEP (one per line), in a .symtab
  (or .dynsym when SYMBOLS has no .symtab, as perf then used that), all pointing at one NOBITS
  executable section covering RUNTIME's executable sections.

Everything else (code, data, DWARF) is left out.
"""
import struct
import sys


def sections(data):
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    out = []
    for i in range(shnum):
        f = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        out.append(dict(zip("name type flags addr offset size link info align entsize".split(), f)))
    strtab = out[shstrndx]
    for s in out:
        end = data.index(b"\0", strtab["offset"] + s["name"])
        s["sname"] = data[strtab["offset"] + s["name"]:end].decode()
    return out


def find(secs, name):
    return next((s for s in secs if s["sname"] == name), None)


def contents(data, s):
    return data[s["offset"]:s["offset"] + s["size"]] if s["type"] != 8 else b""


def main():
    runtime_path, symbols_path, keep_path, out_path = sys.argv[1:5]
    rt = open(runtime_path, "rb").read()
    sy = open(symbols_path, "rb").read()
    assert rt[:4] == b"\x7fELF" and rt[4] == 2 and rt[5] == 1, "ELF64 little endian only"
    keep = {l.strip() for l in open(keep_path) if l.strip()}
    rsecs, ssecs = sections(rt), sections(sy)

    (phoff,) = struct.unpack_from("<Q", rt, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", rt, 0x36)
    phdrs = rt[phoff:phoff + phentsize * phnum]

    exec_secs = [s for s in rsecs if s["flags"] & 4 and s["flags"] & 2]
    lo = min(s["addr"] for s in exec_secs)
    hi = max(s["addr"] + s["size"] for s in exec_secs)

    # (name, type, flags, addr, data or size for NOBITS, link, info, align, entsize)
    out = [("", 0, 0, 0, b"", 0, 0, 0, 0)]
    for name in (".note.gnu.build-id", ".eh_frame_hdr", ".eh_frame", ".debug_frame"):
        s = find(rsecs, name)
        if s is not None and s["type"] != 8:
            out.append((name, s["type"], s["flags"], s["addr"], contents(rt, s), 0, 0, s["align"], s["entsize"]))
    text_index = len(out)
    out.append((".text", 8, 6, lo, hi - lo, 0, 0, 16, 0))

    symsec = find(ssecs, ".symtab") or find(ssecs, ".dynsym")
    dynamic = symsec["sname"] == ".dynsym"
    names = ssecs[symsec["link"]]
    strtab = bytearray(b"\0")
    syms = [b"\0" * 24]
    locals_ = 1
    entries = []
    for i in range(symsec["size"] // 24):
        name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", sy, symsec["offset"] + 24 * i)
        if shndx == 0 or shndx >= 0xFF00 or info & 0xF not in (0, 2, 10):
            continue
        if not ssecs[shndx]["flags"] & 4:
            continue
        end = sy.index(b"\0", names["offset"] + name)
        n = sy[names["offset"] + name:end]
        if n.decode(errors="replace") not in keep:
            continue
        entries.append((info >> 4 != 0, n, info, other, value, size))
    entries.sort(key=lambda e: e[0])  # locals first, as ELF requires
    for is_global, n, info, other, value, size in entries:
        off = len(strtab)
        strtab += n + b"\0"
        syms.append(struct.pack("<IBBHQQ", off, info, other, text_index, value, size))
        if not is_global:
            locals_ += 1
    symname, strname = (".dynsym", ".dynstr") if dynamic else (".symtab", ".strtab")
    sym_index = len(out)
    out.append((symname, 11 if dynamic else 2, 2 if dynamic else 0, 0, b"".join(syms), sym_index + 1, locals_, 8, 24))
    out.append((strname, 3, 2 if dynamic else 0, 0, bytes(strtab), 0, 0, 1, 0))
    shstr = bytearray(b"\0")
    name_off = []
    for s in out:
        name_off.append(len(shstr) if s[0] else 0)
        if s[0]:
            shstr += s[0].encode() + b"\0"
    out.append((".shstrtab", 3, 0, 0, bytes(shstr + b".shstrtab\0"), 0, 0, 1, 0))
    name_off.append(len(shstr))

    body = bytearray(rt[:64])
    body += phdrs
    offsets = []
    for s in out:
        data = s[4]
        if isinstance(data, int) or not data:
            offsets.append(len(body))
            continue
        align = max(s[7], 1)
        body += b"\0" * (-len(body) % align)
        offsets.append(len(body))
        body += data
    body += b"\0" * (-len(body) % 8)
    shoff = len(body)
    for i, s in enumerate(out):
        size = s[4] if isinstance(s[4], int) else len(s[4])
        body += struct.pack("<IIQQQQIIQQ", name_off[i], s[1], s[2], s[3], offsets[i], size, s[5], s[6], s[7], s[8])
    struct.pack_into("<Q", body, 0x20, 64)
    struct.pack_into("<Q", body, 0x28, shoff)
    struct.pack_into("<HHHHHH", body, 0x34, 64, phentsize, phnum, 64, len(out), len(out) - 1)
    open(out_path, "wb").write(body)


if __name__ == "__main__":
    main()
