#!/usr/bin/env python3
"""Helpers of record.sh (see there): jitdump files and the symbol extracts of the jitdump test.

  jitdump.py records DUMP                 one line per record (id, size, timestamp, load details)
  jitdump.py reduce DUMP SCRIPT OUT       DUMP without the JIT_CODE_LOAD records whose
                                          jitted-PID-INDEX.so no frame of SCRIPT (perf script of
                                          the recording injected with DUMP) names, nor the
                                          DEBUG_INFO/UNWINDING_INFO records that go with them
  jitdump.py extract ROOT DEBUG DATA SCRIPT...
                                          the reduced binaries perf took symbols from for the frames
                                          of the SCRIPTs (make-extract.py's extract_dsos), under
                                          ROOT; DEBUG: the build-id cache perf used; DATA: the
                                          recording whose build ids apply
  jitdump.py buildids SRC DST DIR         copy the entries of the build-id cache SRC for
                                          DIR/jitted-*.so to DST, each reduced to its symbol table
                                          and build id
  jitdump.py reduce-so FILE...            reduce jitted-*.so files the same way, in place

Layout of a jitdump file: linux tools/perf/Documentation/jitdump-specification.txt. Written from the
specification and perf's own output, never from perfdata.
"""
import collections
import importlib.util
import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CODE_LOAD, CODE_MOVE, DEBUG_INFO, CLOSE, UNWINDING_INFO = range(5)


def make_extract():
    spec = importlib.util.spec_from_file_location("make_extract", os.path.join(HERE, "..", "make-extract.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def records(data):
    """(offset, id, total_size, timestamp) of each complete record (little-endian files only)."""
    magic, _version, header_size = struct.unpack_from("<III", data, 0)
    assert magic == 0x4A695444, "little-endian jitdump only"
    off = header_size
    while off + 16 <= len(data):
        rid, size, ts = struct.unpack_from("<IIQ", data, off)
        if size < 16 or off + size > len(data):
            break
        yield off, rid, size, ts
        off += size


def load_fields(data, off):
    pid, tid, vma, addr, size, index = struct.unpack_from("<IIQQQQ", data, off + 16)
    name = data[off + 56:data.index(b"\0", off + 56)].decode(errors="replace")
    return pid, tid, vma, addr, size, index, name


def cmd_records(dump):
    data = open(dump, "rb").read()
    for off, rid, size, ts in records(data):
        extra = ""
        if rid == CODE_LOAD:
            pid, tid, _vma, addr, csize, index, name = load_fields(data, off)
            extra = f" pid {pid} tid {tid} addr {addr:#x} size {csize:#x} index {index} {name}"
        elif rid == UNWINDING_INFO:
            extra = " unwinding %d eh_frame_hdr %d mapped %d" % struct.unpack_from("<QQQ", data, off + 16)
        print(f"{off:#x} id {rid} size {size} time {ts}{extra}")


def cmd_reduce(dump, script, out):
    data = open(dump, "rb").read()
    hit = {int(m.group(1)) for m in re.finditer(r"/jitted-\d+-(\d+)\.so\)$", open(script).read(), re.M)}
    (header_size,) = struct.unpack_from("<I", data, 8)
    kept, pending, loads = [data[:header_size]], [], 0
    for off, rid, size, _ts in records(data):
        rec = data[off:off + size]
        if rid in (DEBUG_INFO, UNWINDING_INFO):
            # perf attaches these to the next JIT_CODE_LOAD: they go or stay with it.
            pending.append(rec)
        elif rid == CODE_LOAD:
            if load_fields(data, off)[5] in hit:
                kept += pending + [rec]
                loads += 1
            pending = []
        else:
            kept.append(rec)
    kept += pending
    with open(out, "wb") as f:
        f.write(b"".join(kept))
    print(f"{out}: {loads} of the loads kept (jitted .so files hit: {len(hit)}), {sum(map(len, kept))} bytes")


def cmd_extract(root, debug, data, scripts):
    mx = make_extract()
    mx.DEBUG = debug
    wanted = collections.defaultdict(set)
    for s in scripts:
        for sym, dso in mx.perf_frames(open(s, encoding="utf-8", errors="replace").read()):
            # The jitted-*.so files come from the build-id cache (`buildids`), the dump is copied.
            if (dso.startswith("/") or dso == "[vdso]") and not re.search(r"/jitted-\d+-\d+\.so$", dso):
                wanted[dso].add(sym)
    mx.extract_dsos(wanted, mx.build_ids(data), set(), root, reduce_dynsym=True)


class Everything:
    """The set of all symbol names (a jitted-*.so holds one function symbol: all are kept)."""

    def __contains__(self, _name):
        return True


def reduce_so(mx, src, out):
    """A jitted-*.so without its code: its one symbol and its build id are what perf reads."""
    data = open(src, "rb").read()
    with open(out, "wb") as f:
        f.write(mx.reduce_elf(data, Everything(), mx.ALWAYS))


def cmd_buildids(src, dst, under):
    mx = make_extract()
    ids = os.path.join(src, ".build-id")
    n = 0
    for head in sorted(os.listdir(ids)):
        for tail in sorted(os.listdir(os.path.join(ids, head))):
            link = os.path.join(ids, head, tail)
            target = os.readlink(link)
            if not re.search(re.escape(under.rstrip("/")) + r"/jitted-\d+-\d+\.so/", target):
                continue
            elf = os.path.normpath(os.path.join(os.path.dirname(link), target, "elf"))
            out = os.path.join(dst, os.path.relpath(elf, src))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            reduce_so(mx, elf, out)
            os.makedirs(os.path.join(dst, ".build-id", head), exist_ok=True)
            os.symlink(target, os.path.join(dst, ".build-id", head, tail))
            n += 1
    print(f"{dst}: {n} jitted-*.so entries")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "records":
        cmd_records(*args)
    elif cmd == "reduce":
        cmd_reduce(*args)
    elif cmd == "extract":
        cmd_extract(args[0], args[1], args[2], args[3:])
    elif cmd == "buildids":
        cmd_buildids(*args)
    elif cmd == "reduce-so":
        for path in args:
            reduce_so(make_extract(), path, path)
    else:
        sys.exit(__doc__)
