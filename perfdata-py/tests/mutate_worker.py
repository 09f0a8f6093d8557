"""Child process of test_errors: read mutated recordings every way the API allows.

Any exception other than PerfDataError (or OSError/TypeError for a stream) ends the process with a
traceback; a crash ends it with a signal. Prints ``inputs: N`` when all went well.

    python mutate_worker.py --mutations 300 --seed 1 a.data b.data --as-is fuzz1 fuzz2
"""

from __future__ import annotations

import argparse
import io
import random
import struct

import perfdata

TABLES = ("samples", "mmaps", "comms", "tasks", "lost", "records")


def mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(5)
    b = bytearray(data)
    if kind == 0 and len(b) > 1:  # truncate anywhere
        return bytes(b[: rng.randrange(len(b))])
    if kind == 1:  # random bytes overwritten
        for _ in range(rng.randint(1, 16)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 2 and len(b) >= 8:  # an aligned u64 set to an extreme
        at = rng.randrange(len(b) // 8) * 8
        struct.pack_into("<Q", b, at, rng.choice([0, 1, 0xFFFF, 1 << 31, 1 << 63, (1 << 64) - 1]))
        return bytes(b)
    if kind == 3 and len(b) >= 8:  # a u16 (record sizes live in u16s) set to an extreme
        at = rng.randrange(len(b) // 2) * 2
        struct.pack_into("<H", b, at, rng.choice([0, 1, 7, 8, 9, 0xFFFF]))
        return bytes(b)
    if len(b) > 64:  # a block duplicated (records out of place)
        i, j = sorted(rng.randrange(len(b)) for _ in range(2))
        return bytes(b[:j] + b[i:j] + b[j:])
    return bytes(b)


def exercise(data: bytes) -> None:
    try:
        f = perfdata.open(data)
    except perfdata.PerfDataError:
        return
    repr(f)
    f.header.to_dict()
    for e in f.events:
        e.to_dict()
        repr(e)
    for order in ("file", "time"):
        for r in f.records(order=order):
            r.to_dict()
            repr(r)
    try:
        for _ in f.samples(strict=True):
            pass
    except perfdata.PerfDataError as e:
        assert isinstance(e.offset, (int, type(None)))
    for t in TABLES:
        f.to_arrow(t).__arrow_c_stream__()
    f.record_counts()
    f.diagnostics
    # the same bytes as a stream
    try:
        s = perfdata.open(io.BytesIO(data), stream=True)
    except perfdata.PerfDataError:
        return
    for _ in s.records():
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mutations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--as-is", nargs="*", default=[])
    a = ap.parse_args()
    rng = random.Random(a.seed)
    originals = [open(p, "rb").read() for p in a.files]
    n = 0
    for p in a.as_is:
        exercise(open(p, "rb").read())
        n += 1
    if originals:
        for i in range(a.mutations):
            exercise(mutate(rng, originals[i % len(originals)]))
            n += 1
    print(f"inputs: {n}")


if __name__ == "__main__":
    main()
