#!/usr/bin/env python3
"""The perf-script recipe for off-CPU stacks that `perfdata offcpu` replaces: read
`perf script -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso --ns` of a `sched:sched_switch -g`
recording on stdin, pair each switch-out (with its stack; not a dead task's last one) with the
task's next switch-in and print folded stacks weighted by ns (stackcollapse-perf.pl's frame names:
`[module]` for unknown symbols).
"""
import re
import sys

# The module is a path or `[name]` (which may end in ` (deleted)`), or `inlined` for inline frames.
FRAME = re.compile(r"^\t\s*[0-9a-f]+ (.*?) \(([/\[].*|inlined)\)$")
HEAD = re.compile(
    r"^\s*(.*?)\s+\d+/(\d+)\s+\[\d+\]\s+(\d+)\.(\d{9}):\s+sched:sched_switch:\s+.* prev_pid=(\d+) .* prev_state=(\S+) ==> .* next_pid=(\d+) next_prio=")


def name(sym, dso):
    if sym != "[unknown]":
        return sym
    return "[unknown]" if dso == "[unknown]" else "[" + dso.rsplit("/", 1)[-1] + "]"


def main():
    pending = {}
    folded = {}
    cur = None
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("\t"):
            m = FRAME.match(line)
            if cur is not None and m:
                cur.append(name(m.group(1), m.group(2)))
            continue
        m = HEAD.match(line)
        if not m:
            cur = None
            continue
        comm, t = m.group(1), int(m.group(3)) * 1_000_000_000 + int(m.group(4))
        prev, state, nxt = int(m.group(5)), m.group(6), int(m.group(7))
        cur = None
        if prev != 0 and ("X" in state or "Z" in state):
            # a dead task's last switch-out: it never runs again (its tid may be reused)
            pending.pop(prev, None)
        elif prev != 0:
            cur = [comm.replace(" ", "_")]
            pending[prev] = (t, cur)
        if nxt != 0 and nxt in pending:
            start, frames = pending.pop(nxt)
            if len(frames) > 1:
                key = ";".join(frames[:1] + frames[:0:-1])
                folded[key] = folded.get(key, 0) + t - start
    out = sys.stdout
    for k in sorted(folded):
        out.write(f"{k} {folded[k]}\n")


main()
