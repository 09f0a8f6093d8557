#!/usr/bin/env python3
"""A smaller copy of a distribution debug file (Debian's dbgsym, DWARF 5, zlib SHF_COMPRESSED
sections) that answers `addr2line -i -f` for the given addresses the way the original does.

    reduce-debug.py DEBUG_FILE OUT ADDR...      (ADDR: hex ELF virtual addresses)

Kept: every section header, the full .symtab/.strtab (perf's symbols and binutils'
elf_find_function read them), .debug_str, .debug_line_str, .debug_rnglists; of .debug_info only
the compilation units .debug_aranges gives for the addresses, with their abbreviation tables and
line programs (offsets in the unit headers, DW_AT_stmt_list and .debug_aranges rewritten).
Dropped (empty): .debug_loclists (variable locations) and the other units. The result is what
the tests read and what perf (through addr2line) read for the stored outputs: gen-folded.sh.
"""
import struct
import sys
import zlib

SHT_NOBITS, SHF_COMPRESSED, ELFCOMPRESS_ZLIB = 8, 0x800, 1
DW_AT_stmt_list = 0x10
# Fixed sizes of DWARF 5 attribute forms (None: variable, handled in skip_form).
FORM_SIZE = {0x05: 2, 0x06: 4, 0x07: 8, 0x0B: 1, 0x0C: 1, 0x0E: 4, 0x10: 4, 0x11: 1, 0x12: 2, 0x13: 4,
             0x14: 8, 0x17: 4, 0x19: 0, 0x1C: 4, 0x1D: 4, 0x1E: 16, 0x1F: 4, 0x20: 8, 0x21: 0,
             0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1, 0x2A: 2, 0x2B: 3, 0x2C: 4}


def leb(b, i, signed=False):
    """The LEB128 number at b[i] and the index after it."""
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return (v - (1 << shift) if signed and x & 0x40 else v), i


def uleb(b, i):
    return leb(b, i)


def sleb(b, i):
    return leb(b, i, True)


def sections(data):
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    (shentsize, shnum, shstrndx) = struct.unpack_from("<HHH", data, 0x3A)
    shdrs = [list(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)) for i in range(shnum)]
    strtab = shdrs[shstrndx]

    def name(sh):
        off = strtab[4] + sh[0]
        return data[off:data.index(b"\0", off)].decode()
    return shdrs, [name(sh) for sh in shdrs]


def contents(data, sh):
    raw = data[sh[4]:sh[4] + sh[5]]
    if sh[2] & SHF_COMPRESSED:
        ch_type, _, ch_size, _ = struct.unpack_from("<IIQQ", raw, 0)
        assert ch_type == ELFCOMPRESS_ZLIB
        out = zlib.decompress(raw[24:])
        assert len(out) == ch_size
        return out
    return raw


def compress(raw, align):
    return struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, len(raw), align) + zlib.compress(raw, 9)


def abbrev_table(abbrev, off):
    """code -> (tag, [(attr, form)]) of the table at `off`, and the table's end."""
    table = {}
    i = off
    while True:
        code, i = uleb(abbrev, i)
        if code == 0:
            return table, i
        tag, i = uleb(abbrev, i)
        i += 1  # children
        attrs = []
        while True:
            at, i = uleb(abbrev, i)
            form, i = uleb(abbrev, i)
            if form == 0x21:
                _, i = sleb(abbrev, i)
            if at == 0 and form == 0:
                break
            attrs.append((at, form))
        table[code] = (tag, attrs)


def skip_form(b, i, form, addr_size):
    if form in FORM_SIZE:
        return i + FORM_SIZE[form]
    if form == 0x01:  # addr
        return i + addr_size
    if form == 0x08:  # string
        return b.index(b"\0", i) + 1
    if form in (0x09, 0x18):  # block, exprloc
        n, i = uleb(b, i)
        return i + n
    if form == 0x0A:  # block1
        return i + 1 + b[i]
    if form == 0x0D:
        return sleb(b, i)[1]
    if form in (0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23):  # udata, ref_udata, strx, addrx, loclistx, rnglistx
        return uleb(b, i)[1]
    raise ValueError("form 0x%x" % form)


def main(src, out, addrs):
    data = open(src, "rb").read()
    assert data[:6] == b"\x7fELF\x02\x01", "64-bit little-endian ELF only"
    shdrs, names = sections(data)
    idx = {n: i for i, n in enumerate(names)}
    dwarf = {n: contents(data, shdrs[idx[n]]) for n in (".debug_aranges", ".debug_info", ".debug_abbrev", ".debug_line")}

    # .debug_aranges: the units holding the addresses.
    aranges, units, sets = dwarf[".debug_aranges"], [], {}
    i = 0
    while i < len(aranges):
        (length,) = struct.unpack_from("<I", aranges, i)
        end = i + 4 + length
        (cu_off,) = struct.unpack_from("<I", aranges, i + 6)
        sets[cu_off] = aranges[i:end]
        j = i + 16  # header (12 bytes) padded to twice the address size
        while j + 16 <= end:
            lo, size = struct.unpack_from("<QQ", aranges, j)
            j += 16
            if any(lo <= a < lo + size for a in addrs) and cu_off not in units:
                units.append(cu_off)
        i = end
    units.sort()
    missing = [hex(a) for a in addrs if not any(
        lo <= a < lo + size for off in units for lo, size in
        struct.iter_unpack("<QQ", sets[off][16:len(sets[off]) - (len(sets[off]) - 16) % 16]))]
    print("%s: %d units; not in any: %s" % (src, len(units), " ".join(missing) or "none"), file=sys.stderr)

    info, abbrev, line = dwarf[".debug_info"], dwarf[".debug_abbrev"], dwarf[".debug_line"]
    new_info, new_abbrev, new_line, new_aranges = bytearray(), bytearray(), bytearray(), bytearray()
    abbrev_map, line_map = {}, {}
    for off in units:
        (length, version, unit_type, addr_size, abbrev_off) = struct.unpack_from("<IHBBI", info, off)
        assert version == 5 and length < 0xFFFFFFF0, "32-bit DWARF 5 units only"
        unit = bytearray(info[off:off + 4 + length])
        if abbrev_off not in abbrev_map:
            _, end = abbrev_table(abbrev, abbrev_off)
            abbrev_map[abbrev_off] = len(new_abbrev)
            new_abbrev += abbrev[abbrev_off:end]
        struct.pack_into("<I", unit, 8, abbrev_map[abbrev_off])
        # The unit DIE's DW_AT_stmt_list: its line program.
        table, _ = abbrev_table(abbrev, abbrev_off)
        code, i = uleb(unit, 12 if unit_type in (1, 3) else 20)
        for at, form in table[code][1]:
            if at == DW_AT_stmt_list:
                assert form == 0x17
                (lo,) = struct.unpack_from("<I", unit, i)
                if lo not in line_map:
                    (ll,) = struct.unpack_from("<I", line, lo)
                    line_map[lo] = len(new_line)
                    new_line += line[lo:lo + 4 + ll]
                struct.pack_into("<I", unit, i, line_map[lo])
            i = skip_form(unit, i, form, addr_size)
        s = bytearray(sets[off])
        struct.pack_into("<I", s, 6, len(new_info))
        new_aranges += s
        new_info += unit

    replaced = {".debug_info": new_info, ".debug_abbrev": new_abbrev, ".debug_line": new_line,
                ".debug_aranges": new_aranges, ".debug_loclists": b""}
    # Lay the file out again: ELF header, program headers, section contents, section headers.
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    (phentsize, phnum) = struct.unpack_from("<HH", data, 0x36)
    blob = bytearray(data[:64]) + data[phoff:phoff + phentsize * phnum]
    struct.pack_into("<Q", blob, 0x20, 64 if phnum else 0)
    for i, sh in enumerate(shdrs):
        if i == 0:
            continue
        if names[i] in replaced:
            body = replaced[names[i]]
            body = compress(bytes(body), 1) if sh[2] & SHF_COMPRESSED and body else bytes(body)
            if not body:
                sh[2] &= ~SHF_COMPRESSED
        else:
            body = data[sh[4]:sh[4] + sh[5]]
        if sh[1] == SHT_NOBITS:
            # perf derives symbol adjustments from .text's sh_addr - sh_offset: keep the offsets.
            continue
        align = max(sh[8], 1)
        blob += bytes(-len(blob) % align)
        sh[4], sh[5] = len(blob), len(body)
        blob += body
    blob += bytes(-len(blob) % 8)
    struct.pack_into("<Q", blob, 0x28, len(blob))
    for sh in shdrs:
        blob += struct.pack("<IIQQQQIIQQ", *sh)
    open(out, "wb").write(blob)
    print("%s: %d bytes (was %d)" % (out, len(blob), len(data)), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(a, 16) for a in sys.argv[3:]])
