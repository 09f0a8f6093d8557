#!/usr/bin/env python3
"""Check that the symbol files under root/ answer `addr2line -i -f` (binutils, the program perf
runs for its inline frames and source lines) like the files perf read when the stored default
outputs were made, for every user-space address perf printed in the given recordings: the same
records (function names and `FILE:LINE`, files compared by their last component as perf prints
them), and the same "found" status (`??:0` or not), which is all perf takes from addr2line.

    verify-inline-extract.py dwarf.data python.data fp.data      (on the recording machine)
    verify-inline-extract.py --root DIR F...                     (another --symfs root: cxx/root)
Exit status 1 on any difference. The original file is perf's symbol source (build-id cache
`debug`, else `elf`, else the path); ours is what the tests read (root/usr/lib/debug/.build-id/
xx/yyyy.debug, else the stand-in at the path)."""
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
ROOT = os.path.join(HERE, "root")
DEBUG = os.path.expanduser("~/.debug")


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout


def perf_srcline(fileline):
    """What perf keeps of addr2line's `FILE:LINE` (filename_split, srcline_from_fileline)."""
    if fileline == "??:0":
        return None
    name, _, line = fileline.partition(":")
    digits = "".join(c for c in line.split(" ")[0] if c.isdigit()) if line[:1].isdigit() else ""
    return "%s:%d" % (name.rsplit("/", 1)[-1], int(digits or 0))


def answers(path, addrs):
    """addr -> [(name, srcline)] innermost first as `addr2line -a -i -f -e path` prints them
    (srcline as perf keeps it, None for `??:0`)."""
    out = run("addr2line", "-a", "-i", "-f", "-e", path, stdin="".join("0x%s\n" % a for a in addrs))
    res, cur, lines = {}, None, out.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("0x"):
            cur = int(lines[i], 16)
            res[cur] = []
            i += 1
        elif lines[i]:
            res[cur].append((lines[i], perf_srcline(lines[i + 1])))
            i += 2
        else:
            i += 1
    return res


def main(files):
    global ROOT
    if files[:1] == ["--root"]:
        ROOT, files = os.path.abspath(files[1]), files[2:]
    addrs = collections.defaultdict(set)
    bids = {}
    for f in files:
        path = os.path.join(TESTDATA, f)
        for line in run("perf", "script", "--no-inline", "-F", "ip,dso", "-i", path).splitlines():
            ip, _, dso = line.strip().partition(" ")
            dso = dso.strip("()")
            if dso.startswith("/"):
                addrs[dso].add(ip)
        for line in run("perf", "buildid-list", "-i", path).splitlines():
            bid, _, p = line.partition(" ")
            bids[p] = bid
    bad = 0
    for dso, a in sorted(addrs.items()):
        bid = bids.get(dso) or run("sh", "-c", "readelf -n %s | sed -n 's/.*Build ID: //p'" % dso).strip()
        cache = os.path.join(DEBUG, ".build-id", bid[:2], bid[2:])
        theirs = next((p for p in (os.path.join(cache, "debug"), os.path.join(cache, "elf"), dso) if os.path.isfile(p)))
        ours = os.path.join(ROOT, "usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug")
        if not os.path.isfile(ours):
            ours = os.path.join(ROOT, dso.lstrip("/"))
        t, o = answers(theirs, sorted(a)), answers(ours, sorted(a))
        diff = [x for x in t if t[x] != o.get(x)]
        print("%s: %d addresses, %d differ (%s vs %s)" % (dso, len(t), len(diff), theirs, ours))
        for x in diff:
            print("  %x: %s / %s" % (x, t[x], o.get(x)))
        bad += len(diff)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
