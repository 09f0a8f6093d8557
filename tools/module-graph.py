#!/usr/bin/env python3
"""Which module of a crate imports which, drawn from the code's own paths.

    tools/module-graph.py CRATE_SRC_DIR            # the cycles, then every edge
    tools/module-graph.py CRATE_SRC_DIR --check    # exit 1 when the modules form a cycle
    tools/module-graph.py CRATE_SRC_DIR --depth=1  # the same for the top-level modules only

A module is a file (`feature/bpf.rs` is `feature::bpf`, `feature/mod.rs` is `feature`; a file named
by a `#[path = "…"] mod name;` is `name` in the module that declares it). An edge
A -> B is a path in A's code (a `use`, or a `crate::`/`super::` path in an expression or type)
that names an item B defines. Unit tests (`#[cfg(test)] mod tests`) are left out: they may look
anywhere. A parent's `mod child;` and its `pub use child::Item` re-exports are containment, not
imports, so they are not edges either way.

Names are resolved by a reading good enough for this purpose, not by the compiler: an item's
module is the file under the named module that defines an item of that name (`struct`, `enum`,
`fn`, `trait`, `type`, `const`, `static`, `macro_rules!`, `union`, or a `mod`).
"""
import os
import re
import sys
from collections import defaultdict

ITEM = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|const\s+|async\s+|extern\s+\"C\"\s+)*"
    r"(?:struct|enum|fn|trait|type|const|static|union|mod)\s+([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
MACRO = re.compile(r"macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)")
TESTS = re.compile(r"^\s*#\[cfg\(test\)\]\s*\n\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", re.M)
# Comments, strings and character literals, in one left-to-right pass (a `//` in a string is not a
# comment, a `"` in a character literal does not open a string).
LEXEMES = re.compile(
    r'(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<string>b?r(?P<hashes>#*)".*?"(?P=hashes)|b?"(?:\\.|[^"\\])*")'
    r"|(?P<char>b?'(?:\\[^']+|[^'\\])')",
    re.S,
)


def code_only(text):
    return LEXEMES.sub(lambda m: "" if m.group("comment") else '""', text)


def code_only_keep_strings(text):
    return LEXEMES.sub(lambda m: "" if m.group("comment") else m.group(0), text)


PATH_ATTR = re.compile(r'#\[\s*path\s*=\s*"([^"]+)"\s*\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;')
PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main") and (len(rel) > 1 or rel[-1] != "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_tests(text):
    m = TESTS.search(text)
    if not m:
        return text
    # Cut the test module: from its opening brace to the matching closing one.
    depth, i = 0, m.end() - 1
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[: m.start()] + strip_tests(text[i + 1 :])
        i += 1
    return text[: m.start()]


def expand_use(body):
    """`a::{b, c::{d, e as f}}` -> ['a::b', 'a::c::d', 'a::c::e@f'] (`@` marks a rename)."""
    body = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", body))

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    out = []
    for part in split_top(body):
        if "{" in part:
            prefix, rest = part.split("{", 1)
            for inner in expand_use(rest[:-1]):
                out.append(prefix + inner)
        else:
            out.append(part)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check = "--check" in sys.argv
    depth = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--depth=")), None)
    src = args[0]
    texts = {}
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(root, n)
                texts[os.path.normpath(p)] = open(p).read()
    # `#[path = "x.rs"] mod name;` puts x.rs at `declaring module::name`, wherever the file is
    # (relative to the declaring file's directory).
    placed = {}
    for p, text in texts.items():
        for pm in PATH_ATTR.finditer(code_only_keep_strings(text)):
            placed[os.path.normpath(os.path.join(os.path.dirname(p), pm.group(1)))] = (p, pm.group(2))

    def module_at(p, seen=()):
        if p in placed and p not in seen:
            decl, name = placed[p]
            return module_at(decl, seen + (p,)) + (name,)
        return module_of(src, p)

    files = {module_at(p): text for p, text in texts.items()}
    modules = set(files)
    defines = {}
    for m, text in files.items():
        code = strip_tests(code_only(text))
        defines[m] = set(ITEM.findall(code)) | set(MACRO.findall(code))

    def absolute(own, segs):
        """`segs` of a `use` in module `own` as (base module, rest), or None for another crate."""
        head, rest = segs[0], segs[1:]
        if head == "crate":
            return (), rest
        if head == "super":
            base = own[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            return base, rest
        if head == "self":
            return own, rest
        if own + (head,) in modules:
            return own, segs
        return None

    # `pub use path::Item [as Name];`: where each module's re-exported names come from.
    reexports = defaultdict(dict)
    for m, text in files.items():
        for um in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", strip_tests(code_only(text))):
            for u in expand_use(um.group(1)):
                path, _, alias = u.partition("@")
                segs = [s for s in path.split("::") if s]
                if not segs or segs[-1] == "*":
                    continue
                target = absolute(m, segs)
                if target is not None and target[1]:
                    reexports[m][alias or segs[-1]] = target

    def resolve(base, segs, seen=()):
        """The module that `base::segs...` names (longest module prefix, then the item)."""
        mod = base
        i = 0
        while i < len(segs) and mod + (segs[i],) in modules:
            mod = mod + (segs[i],)
            i += 1
        if i == len(segs) or segs[i] == "*":
            return mod
        name = segs[i]
        if name in defines.get(mod, ()):
            return mod
        # Re-exported by a `pub use` of `mod`: where that path leads.
        if name in reexports.get(mod, {}) and (mod, name) not in seen:
            rbase, rsegs = reexports[mod][name]
            return resolve(rbase, list(rsegs) + segs[i + 1 :], seen + ((mod, name),))
        # Re-exported: the module below `mod` that defines it.
        cands = [m for m in modules if m[: len(mod)] == mod and name in defines[m]]
        if len(cands) == 1:
            return cands[0]
        return mod

    edges = defaultdict(set)
    for m, text in files.items():
        code = strip_tests(code_only(text))
        own = m if m != () else ()
        # `super` of a file is its parent module; of mod.rs it is the grandparent.
        parent = own[:-1]
        aliases = {}
        uses = []
        for um in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code):
            is_pub = um.group(1) is not None
            for u in expand_use(um.group(2)):
                uses.append((is_pub, u))
        targets = []
        for is_pub, u in uses:
            u, _, alias = u.partition("@")
            segs = [s for s in u.split("::") if s]
            if not segs:
                continue
            head, rest = segs[0], segs[1:]
            if head == "crate":
                base = ()
            elif head == "super":
                base = parent
                while rest and rest[0] == "super":
                    base, rest = base[:-1], rest[1:]
            elif head == "self":
                base = own
            elif own + (head,) in modules:
                base, rest = own, segs
            else:
                continue
            t = resolve(base, rest)
            if rest and rest[-1] != "*":
                if base + tuple(rest) in modules:
                    aliases[alias or rest[-1]] = base + tuple(rest)
            # A parent re-exporting its child's items is containment.
            if is_pub and t[: len(own)] == own:
                continue
            targets.append(t)
        for pm in PATH.finditer(code):
            head = pm.group(1)
            segs = [s.strip() for s in pm.group(2).split("::") if s.strip()]
            if head == "crate":
                base = ()
            elif head == "super":
                base = parent
                while segs and segs[0] == "super":
                    base, segs = base[:-1], segs[1:]
            else:
                base = own
            targets.append(resolve(base, segs))
        for am in re.finditer(r"\b([a-z_][a-z0-9_]*)\s*::\s*([A-Za-z_][A-Za-z0-9_]*)", code):
            if am.group(1) in aliases:
                targets.append(resolve(aliases[am.group(1)], [am.group(2)]))
        for t in targets:
            if t == m:
                continue
            # A child naming its ancestor module's own items is an edge; a parent naming its
            # child's items is containment.
            if t[: len(m)] == m:
                continue
            edges[m].add(t)

    if depth is not None:
        folded = defaultdict(set)
        for a, bs in edges.items():
            for b in bs:
                if a[:depth] != b[:depth]:
                    folded[a[:depth]].add(b[:depth])
        edges = folded
        modules = {m[:depth] for m in modules}

    # Tarjan's strongly connected components.
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            strong(v)

    name = lambda m: "::".join(m) or "crate"
    for comp in sccs:
        inside = set(comp)
        print(f"cycle of {len(comp)}: " + ", ".join(name(m) for m in comp))
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b in inside:
                    print(f"    {name(a)} -> {name(b)}")
    if check:
        sys.exit(1 if sccs else 0)
    print()
    for a in sorted(edges):
        print(f"{name(a)} -> {', '.join(name(b) for b in sorted(edges[a]))}")


if __name__ == "__main__":
    main()
