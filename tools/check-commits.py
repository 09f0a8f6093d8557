#!/usr/bin/env python3
"""Every commit since the rule began has a subject of at most 72 characters, a blank line, and a
body (the why and the measurements): DEVELOPERS.md's rule for commit messages.

    tools/check-commits.py [REV]     # the commits in REV..HEAD (default: since the rule began)

The rule began after f6f7814 (the commits before it have one long line each). In a shallow clone
that lacks f6f7814, every commit the clone has is checked (they are the newest ones); outside a git
checkout (a source archive) there are no commits to check, and it says so.
"""
import subprocess
import sys

SINCE = "f6f7814"


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)


def main():
    if git("rev-parse", "--git-dir").returncode != 0:
        print("check-commits: not a git checkout, no commits to check")
        return 0
    base = sys.argv[1] if len(sys.argv) > 1 else SINCE
    have_base = git("cat-file", "-e", base + "^{commit}").returncode == 0
    revs = git("rev-list", f"{base}..HEAD" if have_base else "HEAD").stdout.split()
    bad = []
    for rev in revs:
        message = git("log", "-1", "--format=%B", rev).stdout.rstrip("\n").split("\n")
        subject = message[0]
        why = []
        if len(subject) > 72:
            why.append(f"subject of {len(subject)} characters (at most 72)")
        if len(message) < 3 or message[1].strip() != "" or not any(l.strip() for l in message[2:]):
            why.append("no blank line and body after the subject")
        if why:
            bad.append(f"{rev[:10]} {subject[:60]}: {'; '.join(why)}")
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print(f"{len(bad)} of {len(revs)} commits break the rule for commit messages (DEVELOPERS.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
