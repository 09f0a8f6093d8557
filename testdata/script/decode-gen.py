#!/usr/bin/env python3
"""Writes the synthetic perf.data files behind the decode vectors (see README-decode.md) and,
with --vectors, runs perf 6.1 on them to write data-src.tsv and the regs/page-size outputs.

The files hold one raw (attr.type 4) event and SAMPLE records only: perf script needs nothing
else to print data_src, registers and page sizes. Values are chosen to cover every field of
`union perf_mem_data_src` (each value, combinations, long ones that hit perf's 100-byte buffers)
plus seeded random words.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

S_IP, S_TID, S_TIME, S_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
S_REGS_USER, S_WEIGHT, S_DATA_SRC = 1 << 12, 1 << 14, 1 << 15
S_REGS_INTR, S_PHYS_ADDR, S_DATA_PAGE_SIZE, S_CODE_PAGE_SIZE = 1 << 18, 1 << 19, 1 << 22, 1 << 23


def header_string(s):
    b = s.encode() + b"\0"
    n = (len(b) + 63) // 64 * 64
    return struct.pack("<I", n) + b.ljust(n, b"\0")


def perf_data(sample_type, samples, regs_user=0, regs_intr=0, arch=None):
    """samples: dicts of field values; returns the file's bytes (little-endian)."""
    attr = struct.pack(
        "<IIQQQQQIIQQQQIiQIHHIIQ",
        4, 128, 0x1234, 1, sample_type, 0, 0, 0, 0, 0, 0, 0,
        regs_user, 0, 0, regs_intr, 0, 0, 0, 0, 0, 0,
    )
    assert len(attr) == 128
    data = b""
    for i, s in enumerate(samples):
        body = struct.pack("<Q", 0x401000 + i)  # IP
        body += struct.pack("<II", 100, 100)  # TID
        body += struct.pack("<Q", 1_000_000_000 + i * 1000)  # TIME
        body += struct.pack("<Q", s.get("addr", 0x7f0000001000))  # ADDR
        if sample_type & S_REGS_USER:
            abi, vals = s.get("uregs", (0, []))
            body += struct.pack("<Q", abi) + b"".join(struct.pack("<Q", v) for v in vals)
        if sample_type & S_WEIGHT:
            body += struct.pack("<Q", s.get("weight", 0))
        if sample_type & S_DATA_SRC:
            body += struct.pack("<Q", s.get("data_src", 0))
        if sample_type & S_REGS_INTR:
            abi, vals = s.get("iregs", (0, []))
            body += struct.pack("<Q", abi) + b"".join(struct.pack("<Q", v) for v in vals)
        if sample_type & S_PHYS_ADDR:
            body += struct.pack("<Q", s.get("phys", 0))
        if sample_type & S_DATA_PAGE_SIZE:
            body += struct.pack("<Q", s.get("dpage", 0))
        if sample_type & S_CODE_PAGE_SIZE:
            body += struct.pack("<Q", s.get("cpage", 0))
        data += struct.pack("<IHH", 9, 2, 8 + len(body)) + body  # PERF_RECORD_SAMPLE, MISC_USER
    attrs_off = 104
    data_off = attrs_off + 144
    feats = [(6, header_string(arch))] if arch else []
    bitmap = [0, 0, 0, 0]
    for bit, _ in feats:
        bitmap[bit // 64] |= 1 << (bit % 64)
    hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, 144, attrs_off, 144, data_off, len(data), 0, 0)
    hdr += struct.pack("<QQQQ", *bitmap)
    out = hdr + attr + struct.pack("<QQ", 0, 0) + data
    table_end = len(out) + 16 * len(feats)
    table, payload = b"", b""
    for _, p in feats:
        table += struct.pack("<QQ", table_end + len(payload), len(p))
        payload += p
    return out + table + payload


def data_src_values():
    v = set()

    def ds(op=0, lvl=0, snoop=0, lock=0, dtlb=0, lvl_num=0, remote=0, snoopx=0, blk=0, hops=0):
        return (op | lvl << 5 | snoop << 19 | lock << 24 | dtlb << 26 | lvl_num << 33 | remote << 37
                | snoopx << 38 | blk << 40 | hops << 43)

    for op in range(32):
        v.add(ds(op=op))
    for b in range(14):
        for hm in (0, 2, 4, 6):
            v.add(ds(op=2, lvl=(1 << b) | hm))
    for lvl in (0, 1, 2, 4, 6, 0x3FFF, 0x3FF9, 0x3FFB, 0x1FC0, 0x0A0A):
        v.add(ds(op=2, lvl=lvl))
    for snoop in range(32):
        for snoopx in range(4):
            v.add(ds(op=2, snoop=snoop, snoopx=snoopx))
    for lock in range(4):
        v.add(ds(op=4, lock=lock))
    for dtlb in range(128):
        v.add(ds(op=2, dtlb=dtlb))
    for num in range(16):
        for remote in (0, 1):
            for hops in range(5):
                for lvl in (0, 1, 2, 4, 0x22, 0x41):
                    v.add(ds(op=2, lvl=lvl, lvl_num=num, remote=remote, hops=hops))
    for remote in (0, 1):
        for hops in range(5):
            v.add(ds(op=2, remote=remote, hops=hops))
    for blk in range(8):
        v.add(ds(op=2, blk=blk))
    # Long ones: past the 100-byte buffers.
    v.add(ds(op=31, lvl=0x3FFF, snoop=31, lock=3, dtlb=127, lvl_num=15, remote=1, snoopx=3, blk=7))
    v.add(ds(op=2, lvl=0x3FFE, snoop=0x1E, lock=2, dtlb=0x7E, lvl_num=4, remote=1, snoopx=3, blk=6))
    v.add(ds(op=2, lvl=0x3FF8, snoop=0x1E, dtlb=0x7E, lvl_num=0xB, remote=1, snoopx=3, blk=6))
    v.add(ds(op=2, lvl=0x0FF8, lvl_num=0xD, remote=1))
    v.add(ds(op=16, lvl=0x1000 | 0x800 | 0x400 | 2, snoop=0x1E, dtlb=0x7E, snoopx=3, blk=6))
    for n in range(1, 14):
        v.add(ds(op=2, lvl=((1 << n) - 1) << 3 & 0x3FFF | 2, snoop=0x1E, snoopx=3, dtlb=0x7E, blk=6))
        v.add(ds(op=4, lvl=(0x3FFF >> n) << 3 & 0x3FFF | 4, snoop=0x1E, dtlb=0x3E, lock=1, blk=2))
    # Real-world values (Intel PEBS / AMD IBS style).
    for x in (0x68100142, 0x6a100142, 0x68200242, 0x51080242, 0x5080021, 0x260080842, 0x1a1080142,
              0x26a100142, 0x628800142, 0x4a1d02c2):
        v.add(x)
    rnd = random.Random(61)
    for _ in range(120):
        x = rnd.getrandbits(64)
        v.add(x)
        v.add(x & ((1 << 43) - 1))  # hops 0, reserved clear
        v.add(x & ((1 << 46) - 1) & ~(7 << 43) | (rnd.randrange(5) << 43))
    return sorted(v)


PAGE_SIZES = [0, 1, 2, 512, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 8192, 16384, 65536, 1 << 20,
              (1 << 20) + 1, 2 << 20, 1 << 30, 2 << 30, 1 << 40, 1 << 50, (1 << 64) - 1, 3 * 1024,
              1024 * 1024, 1024 ** 3, 2 * 1024 ** 4, 5000, 123456789]


REG_ARCHES = ["x86_64", "i686", "ix86", "aarch64", "arm64", "aarch64_be", "armv7l", "arm", "sa110", "ppc64le",
              "powerpc", "s390x", "mips64", "csky", "riscv", "riscv64", "loongarch64", "sparc64", "sh4", "X86_64"]


def write(name, blob):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(blob)


def perf_script(path, fields):
    r = subprocess.run(["perf", "script", "-F", fields, "-i", path], capture_output=True, check=True)
    return r.stdout.decode()


def main():
    values = data_src_values()
    st = S_IP | S_TID | S_TIME | S_ADDR | S_WEIGHT | S_DATA_SRC | S_PHYS_ADDR | S_DATA_PAGE_SIZE | S_CODE_PAGE_SIZE
    samples = [{"data_src": x, "weight": i, "phys": x >> 3, "dpage": PAGE_SIZES[i % len(PAGE_SIZES)],
                "cpage": PAGE_SIZES[(i * 7) % len(PAGE_SIZES)]} for i, x in enumerate(values)]
    write("data-src.data", perf_data(st, samples))
    # Registers: every mask bit, in x86_64 and aarch64 recordings; a sample with ABI 0 prints nothing.
    st_r = S_IP | S_TID | S_TIME | S_ADDR | S_REGS_USER | S_REGS_INTR
    full = (1 << 64) - 1
    umask = 0xFF00FF00000001FF
    rs = [
        {"iregs": (2, [0x1000 + i for i in range(64)]), "uregs": (2, [i * 0x111 for i in range(bin(umask).count("1"))])},
        {"iregs": (1, [(1 << 64) - 1 - i for i in range(64)]), "uregs": (0, [])},
        {"iregs": (0, []), "uregs": (2, [0] * bin(umask).count("1"))},
    ]
    for arch in ("x86_64", "aarch64"):
        write(f"regs-{arch}.data", perf_data(st_r, rs, regs_user=umask, regs_intr=full, arch=arch))
    if "--vectors" not in sys.argv:
        return
    with tempfile.TemporaryDirectory() as tmp:
        vectors(values, full, tmp)


def vectors(values, full, tmp):
    """Runs perf on the files and on one-sample files in `tmp`; writes perf's text next to this script."""
    # Register names per architecture string: one sample with every mask bit set, value = bit.
    rows = []
    for arch in REG_ARCHES:
        p = os.path.join(tmp, "arch.data")
        with open(p, "wb") as f:
            f.write(perf_data(S_IP | S_TID | S_TIME | S_ADDR | S_REGS_INTR, [{"iregs": (2, list(range(64)))}],
                              regs_intr=full, arch=arch))
        text = perf_script(p, "iregs")
        assert text.endswith("\n") and text.count("\n") == 1, (arch, text)
        rows.append(f"{arch}\t{text[:-1]}\n")
    with open(os.path.join(HERE, "regs-arch.tsv"), "w") as f:
        f.write("# HEADER_ARCH<TAB>perf 6.1 `perf script -F iregs` of one sample: ABI 2, every mask bit set,"
                " each register's value its bit number (decode-gen.py --vectors)\n")
        f.writelines(rows)
    # One perf run per value: perf pads data_src to its running maximum (a static), so a lone
    # sample gives the unpadded text.
    rows = []
    for x in values:
        p = os.path.join(tmp, "one.data")
        with open(p, "wb") as f:
            f.write(perf_data(S_IP | S_TID | S_TIME | S_ADDR | S_DATA_SRC, [{"data_src": x}]))
        text = perf_script(p, "data_src")
        assert text.endswith("\n") and text.count("\n") == 1, (x, text)
        rows.append(f"{x:x}\t{text[:-1]}\n")
    with open(os.path.join(HERE, "data-src.tsv"), "w") as f:
        f.write("# value (hex)<TAB>perf 6.1 `perf script -F data_src` for a file holding only that sample"
                " (decode-gen.py --vectors)\n")
        f.writelines(rows)
    dsd = os.path.join(HERE, "data-src.data")
    for fields, suffix in (("data_src", "F-data_src"), ("data_page_size,code_page_size", "F-page-size")):
        with open(os.path.join(HERE, f"data-src.data.{suffix}"), "w") as f:
            f.write(perf_script(dsd, fields))
    for arch in ("x86_64", "aarch64"):
        p = os.path.join(HERE, f"regs-{arch}.data")
        for kind in ("iregs", "uregs"):
            with open(f"{p}.F-{kind}", "w") as f:
                f.write(perf_script(p, kind))
    # The recorded testdata/regs.data (perf record --user-regs/--intr-regs on x86_64).
    for kind in ("iregs", "uregs"):
        with open(os.path.join(HERE, f"regs.data.F-{kind}"), "w") as f:
            f.write(perf_script(os.path.join(HERE, "..", "regs.data"), kind))


if __name__ == "__main__":
    main()
