#!/usr/bin/env python3
"""Fails when git tracks a build output or a binary that testdata/README.md does not list.

Nothing under a target/, .venv/, dist/, __pycache__/ or node_modules/ directory may be tracked,
listed or not. Build outputs by name (wheels, object files, archives, shared objects, Rust
metadata, Python bytecode, WebAssembly) and binaries (ELF files and ar archives, found by their
first bytes) may be tracked only when the path matches a pattern of the first column of testdata/README.md's table "Files from elsewhere, and
binaries kept as fixtures" (test fixtures, each with its origin and licence there; `*` matches
across `/`, and a pattern also matches its own text literally, so `[vdso]` names that file).
"""

import fnmatch
import os
import re
import subprocess
import sys

BUILD_DIRS = {"target", ".venv", "dist", "__pycache__", "node_modules"}
BUILD_SUFFIXES = re.compile(r"\.(whl|o|a|so|rlib|rmeta|pyc|pyd|dll|dylib|exe|wasm)$|\.so\.[0-9.]+$")
TABLE = "## Files from elsewhere, and binaries kept as fixtures"


def patterns(readme):
    """Every `…` in the first column of the table under TABLE."""
    out, on = [], False
    for line in readme.splitlines():
        if line.startswith("## "):
            on = line == TABLE
        elif on and line.startswith("| `"):
            out += re.findall(r"`([^`]*)`", line.split("|")[1])
    return out


def why_not(path):
    """Why `path` needs to be listed, or None."""
    parts = path.split("/")
    if BUILD_DIRS.intersection(parts[:-1]):
        return "in a build directory"
    if BUILD_SUFFIXES.search(parts[-1]):
        return "a build output by its name"
    if os.path.isfile(path) and not os.path.islink(path):
        with open(path, "rb") as f:
            head = f.read(8)
        if head.startswith(b"\x7fELF"):
            return "an ELF file"
        if head.startswith(b"!<arch>\n"):
            return "an ar archive"
    return None


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    with open("testdata/README.md", encoding="utf-8") as f:
        allowed = patterns(f.read())
    if not allowed:
        sys.exit(f"tools/check-tracked.py: no patterns under '{TABLE}' in testdata/README.md")
    tracked = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout
    bad = 0
    for path in tracked.decode("utf-8", "surrogateescape").split("\0"):
        if not path:
            continue
        why = why_not(path)
        listed = any(path == p or fnmatch.fnmatchcase(path, p) for p in allowed)
        if why == "in a build directory" or (why and not listed):
            print(f"tracked but {why}{'' if listed else ', and not listed in testdata/README.md'}: {path}", file=sys.stderr)
            bad += 1
    if bad:
        sys.exit(f"{bad} tracked files are build outputs or unlisted binaries (see tools/check-tracked.py)")


if __name__ == "__main__":
    main()
