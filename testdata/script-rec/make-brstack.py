#!/usr/bin/env python3
"""Write brstack.data: ../fp.data with a branch stack (PERF_SAMPLE_BRANCH_STACK) in every sample.

No machine here records branch stacks (the VM has no PMU), so the entries are made up from each
sample's own callchain: for consecutive user frames `callee, caller` an entry `caller -> callee`
(addresses in bin/spin and libc, which the committed fixtures name), an entry from the first
kernel frame to the first user frame when the chain has both, and one between two addresses no
map holds. At most 8 entries; the flags vary (predicted/mispredicted, in_tx, abort, cycles,
branch type) so that every part of perf's `/P/-/-/CYCLES/TYPE` is exercised.

Usage: make-brstack.py [FP_DATA [OUT]] (defaults: ../fp.data, brstack.data beside this script).
"""

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 1 << 4, 1 << 5, 1 << 6, 1 << 7
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_BRANCH_STACK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
SAMPLE_IDENTIFIER = 1 << 16
# perf_branch_sample_type: USER | KERNEL | ANY_CALL (no HW_INDEX: no hw_idx word).
BRANCH_SAMPLE_TYPE = 1 | 2 | 1 << 4
CONTEXT_KERNEL = 0xFFFF_FFFF_FFFF_FF80
CONTEXT_USER = 0xFFFF_FFFF_FFFF_FE00
RECORD_SAMPLE = 9
HEADER_EVENT_DESC = 12
MAX_ENTRIES = 8


def flags(k):
    """Branch entry flags: mispred bit 0, predicted 1, in_tx 2, abort 3, cycles 4-19, type 20-23."""
    pred = 1 << 1 if k % 3 != 1 else 1 << 0
    in_tx = 1 << 2 if k == 5 else 0
    abort = 1 << 3 if k == 6 else 0
    cycles = (k * 7) & 0xFFFF
    btype = [4, 6, 1, 0, 2][k % 5]  # CALL, RET, COND, UNKNOWN, UNCOND
    return pred | in_tx | abort | cycles << 4 | btype << 20


def entries(chain):
    kernel, user, ctx = [], [], None
    for a in chain:
        if a >= 0xFFFF_FFFF_FFFF_F000:
            ctx = a
        elif ctx == CONTEXT_KERNEL:
            kernel.append(a)
        elif ctx == CONTEXT_USER:
            user.append(a)
    out = []
    if kernel and user:
        out.append((kernel[0], user[0]))
    out.extend((user[i + 1], user[i]) for i in range(len(user) - 1))
    out.append((0x1000, 0x2000))
    return out[:MAX_ENTRIES]


def main():
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "fp.data"
    dst = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "brstack.data"
    b = bytearray(src.read_bytes())
    assert b[:8] == b"PERFILE2", "a little-endian perf.data file"
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", b, 16)
    features = struct.unpack_from("<4Q", b, 72)
    sample_types = []
    for at in range(attrs_off, attrs_off + attrs_size, attr_size):
        st = struct.unpack_from("<Q", b, at + 24)[0]
        assert st & (SAMPLE_IDENTIFIER | SAMPLE_READ | SAMPLE_RAW | SAMPLE_BRANCH_STACK) == 0, hex(st)
        sample_types.append(st)
        struct.pack_into("<Q", b, at + 24, st | SAMPLE_BRANCH_STACK)
        struct.pack_into("<Q", b, at + 72, BRANCH_SAMPLE_TYPE)
    assert len(set(sample_types)) == 1, "one sample layout"
    st = sample_types[0]
    assert st & SAMPLE_CALLCHAIN
    data = bytearray()
    at, end = data_off, data_off + data_size
    while at < end:
        typ, misc, size = struct.unpack_from("<IHH", b, at)
        rec = bytes(b[at:at + size])
        at += size
        if typ != RECORD_SAMPLE:
            data += rec
            continue
        # The fields before the callchain, in perf's order.
        off = 8
        for bit in (SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID,
                    SAMPLE_CPU, SAMPLE_PERIOD):
            if st & bit:
                off += 8
        nr = struct.unpack_from("<Q", rec, off)[0]
        chain = struct.unpack_from(f"<{nr}Q", rec, off + 8)
        off += 8 + 8 * nr
        es = entries(chain)
        stack = struct.pack("<Q", len(es))
        for k, (frm, to) in enumerate(es):
            stack += struct.pack("<QQQ", frm, to, flags(k))
        new = rec[:off] + stack + rec[off:]
        assert len(new) < 1 << 16
        data += struct.pack("<IHH", typ, misc, len(new)) + new[8:]
    delta = len(data) - data_size
    tail = bytearray(b[end:])
    # The feature table right after the data: every section moves by delta.
    bits = [i for i in range(256) if features[i // 64] >> (i % 64) & 1]
    for n, bit in enumerate(bits):
        o, s = struct.unpack_from("<QQ", tail, 16 * n)
        struct.pack_into("<QQ", tail, 16 * n, o + delta, s)
        if bit == HEADER_EVENT_DESC:
            # The attrs repeated in EVENT_DESC: the same sample type there.
            p = o - end
            nr_ev, ev_attr_size = struct.unpack_from("<II", tail, p)
            p += 8
            for _ in range(nr_ev):
                t = struct.unpack_from("<Q", tail, p + 24)[0]
                struct.pack_into("<Q", tail, p + 24, t | SAMPLE_BRANCH_STACK)
                struct.pack_into("<Q", tail, p + 72, BRANCH_SAMPLE_TYPE)
                p += ev_attr_size
                nr_ids = struct.unpack_from("<I", tail, p)[0]
                p += 4
                slen = struct.unpack_from("<I", tail, p)[0]
                p += 4 + slen + 8 * nr_ids
    head = bytearray(b[:data_off])
    struct.pack_into("<Q", head, 48, data_size + delta)
    dst.write_bytes(bytes(head + data + tail))


if __name__ == "__main__":
    main()
