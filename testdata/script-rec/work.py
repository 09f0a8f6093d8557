# work.py - perfdata's script tests: a short CPython 3.12 workload for `python3.12 -X perf`
# (python312.data): each Python function gets a trampoline named in /tmp/perf-PID.map.
import sys


def leaf(n):
    return sum(i * i for i in range(n))


def middle(d, n):
    return leaf(n) if d == 0 else middle(d - 1, n) + d


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
print(sum(middle(i % 8, 2000) for i in range(rounds)))
