#!/usr/bin/env python3
"""Write testdata/offcpu-bpf.data: a recording laid out as `perf record --off-cpu` writes one.

perf 6.1 here is built without BPF skeletons, so it cannot record --off-cpu; this file has the
layout perf's util/bpf_off_cpu.c gives those recordings, so that perf itself can read it and be
the oracle (perf script / perf report outputs stored beside it by gen-outputs of this script):

- a `dummy` event (software, config 9) for the side-band records, and the `offcpu-time` event
  (software, config 10 = BPF_OUTPUT) with OFFCPU_SAMPLE_TYPES: IDENTIFIER, IP, TID, TIME, ID, CPU,
  PERIOD, CALLCHAIN, CGROUP; names in HEADER_EVENT_DESC;
- COMM and MMAP2 records of fp.data's `spin` process (pid 754: its binary, ld.so, libc; the
  addresses as recorded);
- at the end of the data, one offcpu-time sample per (thread, stack) as off_cpu_write() emits
  them: ip = the stack's first address, pid/tid, time OFF_CPU_TIMESTAMP (~0 << 32), cpu 0, period
  = the off-CPU time in ns, callchain = PERF_CONTEXT_USER + the user stack, cgroup id.

The stacks are the distinct user callchains of spin's samples in fp.data (read with perfdata),
each given a deterministic off-CPU time. Run from the repo root with the venv's python:
    .venv/bin/python testdata/gen-offcpu-bpf.py
"""

import struct
import subprocess
import sys
from pathlib import Path

import perfdata

HERE = Path(__file__).resolve().parent
OUT = HERE / "offcpu-bpf.data"

PERF_CONTEXT_USER = 0xFFFFFFFFFFFFFE00
OFF_CPU_TIMESTAMP = (~0 << 32) & 0xFFFFFFFFFFFFFFFF

# sample_type bits
IP, TID, TIME, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 0x20, 0x40, 0x80, 0x100
IDENTIFIER, CGROUP = 1 << 16, 1 << 21
OFFCPU_SAMPLE_TYPES = IDENTIFIER | IP | TID | TIME | ID | CPU | PERIOD | CALLCHAIN | CGROUP
DUMMY_SAMPLE_TYPES = IDENTIFIER | IP | TID | TIME | CPU | PERIOD

# attr flag bits
F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_TASK, F_SAMPLE_ID_ALL = 1, 2, 1 << 8, 1 << 9, 1 << 13, 1 << 18
F_MMAP2, F_COMM_EXEC = 1 << 23, 1 << 24
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7, as perf 6.1 writes it

ID_DUMMY, ID_OFFCPU = 1001, 1002
PID = 754


def attr(type_, config, sample_type, flags, period=1):
    b = struct.pack("<IIQQQQQ", type_, ATTR_SIZE, config, period, sample_type, 0, flags)
    return b + bytes(ATTR_SIZE - len(b))


def record(type_, misc, body):
    return struct.pack("<IHH", type_, misc, 8 + len(body)) + body


def sample_id(time, ident=ID_DUMMY):
    # sample_id_all trailer of the dummy event: TID, TIME, CPU, IDENTIFIER.
    return struct.pack("<IIQIIQ", PID, PID, time, 0, 0, ident)


def cstr(s, align=8):
    b = s.encode() + b"\0"
    return b + bytes(-len(b) % align)


def perf_string(s):
    # perf's header string: u32 length (padded to NAME_ALIGN 64), then the bytes.
    b = s.encode() + b"\0"
    b += bytes(-len(b) % 64)
    return struct.pack("<I", len(b)) + b


def main():
    fp = perfdata.open(HERE / "fp.data")
    stacks = []
    for s in fp.samples():
        cc = s.callchain
        if s.pid != PID or not cc or s.time < 3094537561570:
            continue
        user = []
        in_user = False
        for c in cc:
            if c >= 0xFFFFFFFFFFFFF000:
                in_user = c == PERF_CONTEXT_USER
                continue
            if in_user and c:
                user.append(c)
        if user and tuple(user) not in stacks:
            stacks.append(tuple(user))
    if len(stacks) < 5:
        sys.exit(f"only {len(stacks)} user stacks in fp.data")

    # Side-band: spin's comm and its executable maps, as fp.data recorded them.
    t0 = 3094537512005
    data = record(3, 0x2000, struct.pack("<II", PID, PID) + cstr("spin") + sample_id(t0))
    maps = [
        (0x5645C8C34000, 0x1000, 0x1000, 5341204, 3958316650, "/work/main/testdata/bin/spin"),
        (0x7F03B7316000, 0x26000, 0x1000, 325843, 0, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
        (0x7F03B7146000, 0x156000, 0x26000, 326279, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
    ]
    for i, (start, length, pgoff, ino, gen, path) in enumerate(maps):
        body = struct.pack("<IIQQQIIQQII", PID, PID, start, length, pgoff, 0xFE, 0, ino, gen, 5, 2)
        data += record(10, 2, body + cstr(path) + sample_id(t0 + 50000 + i))
    data += record(68, 0, b"")  # PERF_RECORD_FINISHED_ROUND
    # The off-CPU samples, as off_cpu_write() emits them at the end of the recording.
    for i, user in enumerate(stacks):
        period = 1_000_000 + 7919 * i * i
        cc = [PERF_CONTEXT_USER, *user]
        body = struct.pack(
            "<QQIIQQIIQQ", ID_OFFCPU, user[0], PID, PID, OFF_CPU_TIMESTAMP, ID_OFFCPU, 0, 0, period, len(cc)
        )
        body += struct.pack(f"<{len(cc)}Q", *cc) + struct.pack("<Q", 1)
        data += record(9, 2, body)  # PERF_RECORD_SAMPLE, user mode

    attrs = [
        (attr(1, 9, DUMMY_SAMPLE_TYPES, F_DISABLED | F_INHERIT | F_MMAP | F_COMM | F_TASK | F_SAMPLE_ID_ALL
              | F_MMAP2 | F_COMM_EXEC), ID_DUMMY, "dummy:u"),
        (attr(1, 10, OFFCPU_SAMPLE_TYPES, F_DISABLED | F_SAMPLE_ID_ALL), ID_OFFCPU, "offcpu-time"),
    ]
    HEADER = 104
    ids_off = HEADER
    ids = b"".join(struct.pack("<Q", i) for _, i, _ in attrs)
    attrs_off = ids_off + len(ids)
    attr_entry = ATTR_SIZE + 16
    attr_sec = b"".join(a + struct.pack("<QQ", ids_off + 8 * k, 8) for k, (a, _, _) in enumerate(attrs))
    data_off = attrs_off + len(attr_sec)
    # Features: EVENT_DESC (12).
    desc = struct.pack("<II", len(attrs), ATTR_SIZE)
    for a, i, name in attrs:
        desc += a + struct.pack("<I", 1) + perf_string(name) + struct.pack("<Q", i)
    feat_table_off = data_off + len(data)
    feat_off = feat_table_off + 16
    features = [(12, desc)]
    table = b""
    off = feat_off
    for _, body in features:
        table += struct.pack("<QQ", off, len(body))
        off += len(body)
    bitmap = [0, 0, 0, 0]
    for bit, _ in features:
        bitmap[bit // 64] |= 1 << (bit % 64)
    header = b"PERFILE2" + struct.pack(
        "<QQQQQQQQ4Q", HEADER, attr_entry, attrs_off, len(attr_sec), data_off, len(data), 0, 0, *bitmap
    )
    OUT.write_bytes(header + ids + attr_sec + data + table + b"".join(b for _, b in features))
    print(f"{OUT.name}: {len(stacks)} off-CPU stacks, {OUT.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
