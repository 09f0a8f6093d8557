#!/usr/bin/env python3
"""synth.py DATA DUMP: a hand-made recording and jitdump for what node does not show (run by
record.sh, which has perf inject and perf script read them: their output is the oracle).

Process 7 ("synth", recorded with -k mono) maps anonymous executable memory at 0x10000 (t=10),
then the marker /tmp/perfdata-jitsynth/jit-7.dump (t=20), and later more anonymous memory over
the JIT code (t=40, which perf inject drops). The dump (written here, little-endian):
  t=30  JIT_CODE_LOAD   index 1 "synth_a"  0x10000 size 0x100
  t=31  UNWINDING_INFO  mapped_size 0x40 (the next load's MMAP2 covers ALIGN_8(size) + 0x40)
  t=32  JIT_CODE_LOAD   index 2 "synth_b"  0x10200 size 0x21
  t=33  JIT_CODE_DEBUG_INFO, and an unknown record id 99 (skipped by its size)
  t=50  JIT_CODE_LOAD   index 3 "synth_c"  0x10000 size 0x80  (over the first half of synth_a)
  t=60  JIT_CODE_MOVE   index 2            0x10200 -> 0x10400
  t=70  JIT_CODE_LOAD   index 1 "synth_a2" 0x11000 size 0x10  (index 1 again: perf inject rewrites
                                           jitted-7-1.so, so every map of it now has synth_a2, of
                                           size 0x10, as its only symbol)
  t=75  JIT_CODE_CLOSE  (perf 6.1 stops at a record without a body: its fread of 0 bytes "fails")
  t=80  JIT_CODE_LOAD   index 4 "synth_d"  0x12000 size 0x10  (so never used)
Samples (user mode, callchain [PERF_CONTEXT_USER, ip]) at t=25 (before any load), 45, 55, 65, 75
and 85, at addresses inside, between and past these pieces of code.
"""
import struct
import sys

PID = 7
MARKER = "/tmp/perfdata-jitsynth/jit-%d.dump" % PID
# sample_type IP | TID | TIME | PERIOD | CALLCHAIN
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x100 | 0x20
PERIOD = 1000
CONTEXT_USER = (1 << 64) - 512


def sample_id(time):
    return struct.pack("<IIQ", PID, PID, time)


def record(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def padded(s):
    b = s.encode() + b"\0"
    return b + bytes(-len(b) % 8)


def comm(time, name):
    return record(3, 0, struct.pack("<II", PID, PID) + padded(name) + sample_id(time))


def mmap2(time, addr, length, pgoff, prot, flags, name):
    body = struct.pack("<IIQQQIIQQII", PID, PID, addr, length, pgoff, 0, 0, 0, 0, prot, flags)
    return record(10, 2, body + padded(name) + sample_id(time))


def sample(time, ip):
    chain = [CONTEXT_USER, ip]
    body = struct.pack("<QIIQQQ", ip, PID, PID, time, PERIOD, len(chain)) + struct.pack("<%dQ" % len(chain), *chain)
    return record(9, 2, body)


def attr():
    flags = (1 << 18) | (1 << 25) | (1 << 5)  # sample_id_all, use_clockid, exclude_kernel
    # PERF_ATTR_SIZE_VER7 (perf 6.1 refuses larger attrs).
    a = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 1, 128, 0, PERIOD, SAMPLE_TYPE, 0, flags, 0, 0, 0, 0, 0, 0, 0, 1,
                    0, 0, 0, 0, 0, 0, 0)
    assert len(a) == 128
    return a


def perf_data():
    recs = [comm(5, "synth"), mmap2(10, 0x10000, 0x10000, 0x10000, 7, 0x22, "//anon"),
            mmap2(20, 0x7000000, 0x1000, 0, 5, 2, MARKER),
            sample(25, 0x10010),
            mmap2(40, 0x10000, 0x1000, 0x10000, 7, 0x22, "//anon")]
    # t=45: synth_a's map (named by the later load with its index: synth_a2 for 0x10 bytes), synth_b,
    # past synth_b's code but inside its map, past its map.
    recs += [sample(45, a) for a in (0x10008, 0x10010, 0x100f0, 0x10210, 0x10230, 0x10270)]
    # t=55: synth_c over synth_a's first half, synth_a's second half.
    recs += [sample(55, a) for a in (0x10010, 0x100f0)]
    # t=65: synth_b moved, and where it was.
    recs += [sample(65, a) for a in (0x10410, 0x10210)]
    # t=75: the second load with index 1, and the first load's map (now of synth_a2's size).
    recs += [sample(75, a) for a in (0x11008, 0x100f0, 0x10088)]
    # t=85: the load after JIT_CODE_CLOSE.
    recs += [sample(85, 0x12008)]
    data = b"".join(recs)
    a = attr() + struct.pack("<QQ", 0, 0)
    header = b"PERFILE2" + struct.pack("<QQ", 104, len(a)) + struct.pack("<QQ", 104, len(a))
    header += struct.pack("<QQ", 104 + len(a), len(data)) + struct.pack("<QQ", 0, 0) + bytes(32)
    assert len(header) == 104
    return header + a + data


def jr(rid, time, body):
    return struct.pack("<IIQ", rid, 16 + len(body), time) + body


def load(time, index, addr, size, name):
    return jr(0, time, struct.pack("<IIQQQQ", PID, PID, addr, addr, size, index) + name.encode() + b"\0"
              + bytes([0xc3]) * size)


def dump():
    recs = [load(30, 1, 0x10000, 0x100, "synth_a"),
            jr(4, 31, struct.pack("<QQQ", 0x20, 0x14, 0x40) + bytes(0x20)),
            load(32, 2, 0x10200, 0x21, "synth_b"),
            jr(2, 33, struct.pack("<QQ", 0x10200, 1) + struct.pack("<Qii", 0x10200, 3, 0) + b"synth.js\0"),
            jr(99, 33, b"unknown!"),
            load(50, 3, 0x10000, 0x80, "synth_c"),
            jr(1, 60, struct.pack("<IIQQQQQ", PID, PID, 0x10400, 0x10200, 0x10400, 0x21, 2)),
            load(70, 1, 0x11000, 0x10, "synth_a2"),
            jr(3, 75, b""),
            load(80, 4, 0x12000, 0x10, "synth_d")]
    header = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, PID, 1, 0)
    return header + b"".join(recs)


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        f.write(perf_data())
    with open(sys.argv[2], "wb") as f:
        f.write(dump())
