"""Folded stacks and flame graphs, against the standard tools' outputs stored beside the recordings
(testdata/folded/gen-folded.sh): ``F.folded-perf-script-py`` = ``perf script report stackcollapse``,
``F.folded-stackcollapse-pl`` = ``perf script | inferno-collapse-perf``, and variants with options.
Symbols come from testdata/folded (a --symfs root, no build-id cache, the recording kernel's
kallsyms), exactly as perfdata-core/tests/folded.rs passes them."""

from __future__ import annotations

import re

import pytest

import perfdata
import perfout

FOLDED = perfout.TESTDATA / "folded"
SYMBOLS = dict(
    symfs=FOLDED / "root",
    buildid_dir=FOLDED / "no-buildid-cache",
    kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
)

# The symbols perf found for sysw.data's rustc frames: an extract that the repository's `*.so` ignore
# rule kept out of git (perfdata-core/tests/folded.rs fails without it as well).
RUSTC_DRIVER = FOLDED / "root/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/librustc_driver-6108105cd7e839cf.so"


def needs_fixture(name):
    if name == "sysw.data" and not RUSTC_DRIVER.exists():
        pytest.skip(f"{RUSTC_DRIVER.relative_to(perfout.REPO)} is missing (ignored by .gitignore's *.so)")


# (recording, stored output suffix, options) — the cases of perfdata-core/tests/folded.rs
CASES = [
    ("fp.data", "folded-perf-script-py", dict(compat="perf-script-py")),
    ("fp.data", "folded-stackcollapse-pl", dict()),
    ("sysw.data", "folded-perf-script-py", dict(compat="perf-script-py")),
    ("sysw.data", "folded-stackcollapse-pl", dict(compat="stackcollapse-pl")),
    # perf script report stackcollapse -- --kernel --include-pid --include-tid
    ("fp.data", "folded-perf-script-py-k-pid-tid", dict(compat="perf-script-py", kernel=True, root="tid")),
    ("sysw.data", "folded-perf-script-py-k-pid-tid", dict(compat="perf-script-py", kernel=True, root="tid")),
    # perf script -F +pid | inferno-collapse-perf --all --tid
    ("fp.data", "folded-stackcollapse-pl-all-tid", dict(kernel=True, jit=True, root="tid")),
    ("sysw.data", "folded-stackcollapse-pl-all-tid", dict(kernel=True, jit=True, root="tid")),
    # inferno-collapse-perf --addrs
    ("fp.data", "folded-stackcollapse-pl-addrs", dict(addrs=True)),
    ("sysw.data", "folded-stackcollapse-pl-addrs", dict(addrs=True)),
    # two events: inferno finds no period in perf's padded lines and counts samples
    ("multi-g.data", "folded-stackcollapse-pl", dict(weight="samples")),
    ("multi-g.data", "folded-perf-script-py", dict(compat="perf-script-py")),
    ("multi-g.data", "folded-stackcollapse-pl-ev-page-faults", dict(event="page-faults/period=20/")),
    # perf script --comms dd / --time 3094.54,3094.545
    ("sysw.data", "folded-stackcollapse-pl-comm-dd", dict(comm="dd")),
    ("fp.data", "folded-stackcollapse-pl-time", dict(time="3094.54,3094.545")),
    ("fp.data", "folded-stackcollapse-pl-time", dict(time=(3_094_540_000_000, 3_094_545_000_000))),
    # perf script's other --time forms: several ranges, slices of the recording's span
    ("fp.data", "folded-stackcollapse-pl-time-multi", dict(time="3094.537,3094.54 3094.545,3094.548")),
    ("fp.data", "folded-stackcollapse-pl-time-pct-slash", dict(time="10%/2")),
    ("fp.data", "folded-stackcollapse-pl-time-pct-dash", dict(time="0%-10%,30%-40%")),
    ("fp.data", "folded-perf-script-py-time-pct-slash3", dict(compat="perf-script-py", time="10%/3")),
]


def stored(name: str, suffix: str) -> str:
    p = perfout.TESTDATA / f"{name}.{suffix}"
    if not p.exists():
        pytest.skip(f"{p.name} missing")
    return p.read_text()


def parse_folded(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        stack, weight = line.rsplit(" ", 1)
        out[stack] = int(weight)
    return out


@pytest.mark.parametrize("name,suffix,options", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_folded_is_the_tools_output(name, suffix, options, tmp_path):
    needs_fixture(name)
    want = stored(name, suffix)
    with perfdata.open(perfout.TESTDATA / name) as f:
        text = f.folded_text(**options, **SYMBOLS)
        stacks = f.folded(**options, **SYMBOLS)
        f.write_folded(tmp_path / "out.folded", **options, **SYMBOLS)
    if text != want:
        ours, theirs = set(text.splitlines()), set(want.splitlines())
        pytest.fail(f"perf only: {sorted(theirs - ours)[:5]}\nours only: {sorted(ours - theirs)[:5]}")
    assert stacks == parse_folded(want)
    assert list(stacks) == sorted(stacks, key=lambda s: s.encode())
    assert (tmp_path / "out.folded").read_text() == want


JITDUMP = FOLDED / "jitdump"


@pytest.mark.parametrize("compat,suffix", [("perf-script-py", "folded-perf-script-py"),
                                           ("stackcollapse-pl", "folded-stackcollapse-pl")])
def test_jitdump(compat, suffix):
    """node's JIT code named from its jit-PID.dump (testdata/folded/jitdump, see
    perfdata-core/tests/jitdump.rs): perf's stacks after ``perf inject --jit``; with
    ``jitdump=False``, perf's without it."""
    want = perfout._unzstd(JITDUMP / f"rec.jit.data.{suffix}.zst")
    plain = perfout._unzstd(JITDUMP / f"rec.data.{suffix}.zst")
    if want is None or plain is None:
        pytest.skip("no zstd decompressor")
    symbols = dict(symfs=JITDUMP / "root", buildid_dir=JITDUMP / "no-buildid-cache")
    with perfdata.open(JITDUMP / "rec.data") as f:
        assert f.folded_text(compat=compat, **symbols) == want
        assert f.folded_text(compat=compat, jitdump=False, **symbols) == plain
        with pytest.raises(TypeError, match="jitdump"):
            f.folded(jitdump="no")


def test_a_stream_folds_too():
    """A pipe read as a stream is folded in its one pass: one count per sample perf's dump shows."""
    with open(perfout.TESTDATA / "pipe.data", "rb") as fo:
        f = perfdata.open(fo, stream=True)
        stacks = f.folded(compat="perf-script-py", **SYMBOLS)
    perf = perfout.parse_dump_samples((perfout.TESTDATA / "pipe.data.dump").read_text())
    assert sum(stacks.values()) == len(perf)
    assert any(s.startswith("spin;") and s.endswith(";leaf") for s in stacks)


def test_bad_options():
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        with pytest.raises(TypeError, match="colour"):
            f.folded(colour="hot")
        with pytest.raises(TypeError, match="title"):
            f.folded(title="x")  # a graph option: flamegraph() only
        with pytest.raises(ValueError, match="compat"):
            f.folded(compat="flamegraph.pl")
        with pytest.raises(ValueError, match="root"):
            f.folded(root="process")
        with pytest.raises(ValueError, match="exclude"):
            f.folded(event="cpu-clock", all_events=True)
        with pytest.raises(ValueError, match="time"):
            f.folded(time="yesterday")
        with pytest.raises(TypeError, match="kernel"):
            f.folded(kernel="yes")
        with pytest.raises(ValueError, match="palette"):
            f.flamegraph(colors="plaid")


# ------------------------------------------------------------------------------------------------
# flame graphs


def test_flamegraph_svg(tmp_path):
    path = perfout.TESTDATA / "fp.data"
    want = parse_folded(stored("fp.data", "folded-stackcollapse-pl"))
    with perfdata.open(path) as f:
        g = f.flamegraph(**SYMBOLS)
        icicle = f.flamegraph(inverted=True, title="spin", colors="blue", width=800, **SYMBOLS)
        samples = f.flamegraph(compat="perf-script-py", **SYMBOLS)
    assert isinstance(g, perfdata.FlameGraph)
    assert (g.stacks, g.total) == (len(want), sum(want.values()))
    svg = g.svg
    assert svg.startswith("<?xml") and svg.rstrip().endswith("</svg>")
    assert "<title>all (" in svg and "Flame Graph" in svg and str(path) in svg  # subtitle: the file
    # every frame of the hottest stack is drawn, with the period (flamegraph.pl: "N period")
    for frame in max(want, key=want.get).split(";"):
        assert f"<title>{frame.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')} (" in svg
    assert "period, " in svg and "samples, " in samples.svg
    assert "function search" in svg  # interactive
    assert 'width="800"' in icicle.svg and ">spin<" in icicle.svg
    # Jupyter: the SVG as an image, and in an iframe for HTML (its script runs there)
    assert g._repr_svg_() == svg
    html = g._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "&lt;svg" in html and "<svg" not in html
    g.save(tmp_path / "fg.svg")
    assert (tmp_path / "fg.svg").read_text() == svg
    assert "stacks" in repr(g)


def test_flamegraph_of_nothing():
    with perfdata.open(perfout.TESTDATA / "fp.data") as f:
        g = f.flamegraph(comm="no-such-command")
    assert g.stacks == 0 and "No valid input" in g.svg


def test_flamegraph_diff():
    fp, sysw = perfout.TESTDATA / "fp.data", perfout.TESTDATA / "sysw.data"
    a = perfdata.open(fp)
    same = perfdata.flamegraph_diff(a, fp, **SYMBOLS)  # a PerfData or a path
    assert "Differential Flame Graph" in same.svg
    # identical profiles: every frame unchanged (0.00%), white as in flamegraph.pl: no red, no blue
    titles = re.findall(r"<title>([^<]*)</title>", same.svg)
    assert titles and all(t.endswith("; 0.00%)") for t in titles if not t.startswith("all "))
    fills = set(re.findall(r'<rect[^>]* fill="(rgb\([^"]*\))"', same.svg))
    assert fills == {"rgb(255,255,255)"}, fills
    d = perfdata.flamegraph_diff(fp, sysw, normalize=True, title="fp → sysw", **SYMBOLS)
    assert ">fp → sysw<" in d.svg and d.total == sum(sysw_folded().values())
    neg = perfdata.flamegraph_diff(fp, sysw, negate=True, **SYMBOLS)
    assert neg.total == sum(parse_folded(stored("fp.data", "folded-stackcollapse-pl")).values())
    with pytest.raises(TypeError):
        perfdata.flamegraph_diff(fp, sysw, bogus=1)


def sysw_folded():
    return parse_folded(stored("sysw.data", "folded-stackcollapse-pl"))


# --call-graph dwarf recordings: perf script's default output has inline frames (from the reduced
# libc/ld.so debug files under the symfs root), --no-inline's has none; ours too without options.
@pytest.mark.parametrize("name", ["dwarf.data", "python.data"])
@pytest.mark.parametrize("compat", ["stackcollapse-pl", "perf-script-py"])
def test_inline_frames(name, compat):
    suffix = f"folded-{compat}"
    with perfdata.open(perfout.TESTDATA / name) as f:
        assert f.folded_text(compat=compat, **SYMBOLS) == stored(name, suffix)
        assert f.folded_text(compat=compat, inline=True, **SYMBOLS) == stored(name, suffix)
        assert f.folded_text(compat=compat, inline=False, **SYMBOLS) == stored(name, suffix + "-noinline")


def stackcollapse_pl_srcline(text: str) -> dict:
    """``stackcollapse-perf.pl --srcline`` (FlameGraph's current script; its rules, not its code) on
    ``perf script -F +srcline`` text, default options otherwise: the line after a frame line (none
    after a frame of the ``[unknown]`` module) is appended as ``:`` plus that line without its
    ``[…]`` parts, unless nothing is left. perfdata-core/tests/srcline.rs applies the same rule."""
    header = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
    period_event = re.compile(r":\s*(\d+)*\s+(\S+):\s*$")
    frame = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")
    out, stack, pname, period, first_event = {}, [], None, 1, None
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith("#"):
            continue
        if not line:
            if pname is not None:
                key = ";".join([pname] + stack)
                out[key] = out.get(key, 0) + period
            stack, pname = [], None
            continue
        m = header.match(line)
        if m:
            period = 1
            pe = period_event.search(line)
            if pe:
                first_event = first_event or pe[2]
                if pe[2] != first_event:
                    continue
                period = int(pe[1] or 1)
            pname = m[1].replace(" ", "_")
            continue
        m = frame.match(line)
        if not m or pname is None:
            continue
        func, module = re.sub(r"\+0x[\da-f]+$", "", m[2]), m[3]
        if func.startswith("("):
            continue
        unknown = func == "[unknown]" and module == "[unknown]"
        if func == "[unknown]":
            func = "[%s]" % ("unknown" if unknown else module.rsplit("/", 1)[-1])
        func = func.replace(";", ":")
        if not re.search(r"\.\(.*\)\.", func):
            func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
        func = func.replace('"', "").replace("'", "")
        if not unknown:
            src = re.sub(r"\[.*?\]", "", next(lines, "")).strip()
            if src:
                func += ":" + src
        stack.insert(0, func)
    return out


# perf script -F +srcline (fp.data: -g, no inline frames; dwarf.data: --no-inline)
@pytest.mark.parametrize("name,stored_text", [("fp.data", "script-srcline"), ("dwarf.data", "script-srcline-noinline")])
def test_srcline(name, stored_text):
    want = stackcollapse_pl_srcline(stored(name, stored_text))
    assert any(":spin.c:" in s for s in want)
    with perfdata.open(perfout.TESTDATA / name) as f:
        assert f.folded(srcline=True, inline=False, **SYMBOLS) == want
        assert f.folded(inline=False, **SYMBOLS) != want


def test_export_speedscope_and_chrome_trace(tmp_path):
    """PerfData.export: speedscope profiles weigh what folded() weighs; the Chrome trace has the
    scheduler's slices and one instant event per sample; a bad format leaves no file."""
    import json

    f = perfdata.open(perfout.TESTDATA / "fp.data")
    out = tmp_path / "fp.speedscope.json"
    f.export(out, format="speedscope", compat="perf-script-py", aggregate=True)
    d = json.loads(out.read_text())
    frames = [fr["name"] for fr in d["shared"]["frames"]]
    got = {}
    for p in d["profiles"]:
        for s, w in zip(p["samples"], p["weights"]):
            key = ";".join([p["name"], *(frames[i] for i in s)])
            got[key] = got.get(key, 0) + w
    assert got == f.folded(compat="perf-script-py")
    # By default: one evented profile per thread, in time order.
    f.export(out, format="speedscope")
    d = json.loads(out.read_text())
    assert d["profiles"] and all(p["type"] == "evented" for p in d["profiles"])
    for p in d["profiles"]:
        at = [e["at"] for e in p["events"]]
        assert at == sorted(at)
    trace = tmp_path / "mix.json"
    perfdata.open(perfout.TESTDATA / "sched-mix.data").export(trace, format="chrome-trace")
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(e["ph"] == "i" for e in events) == 1133
    assert sum(e["ph"] == "X" for e in events) > 500
    with pytest.raises(ValueError, match="format must be"):
        f.export(tmp_path / "x.json", format="no-such-format")
    assert not (tmp_path / "x.json").exists()


def _proto_fields(b):
    """(field number, value) of a protobuf message: ints for varints, bytes for the rest."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        if key & 7 == 0:
            v, i = _varint(b, i)
        elif key & 7 == 2:
            n, i = _varint(b, i)
            v, i = b[i : i + n], i + n
        else:
            raise AssertionError(f"wire type {key & 7}")
        yield key >> 3, v


def _varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def test_export_pprof(tmp_path):
    """PerfData.export(format="pprof"): a gzipped profile.proto (read here with a plain protobuf
    wire decoder, field numbers from pprof's profile.proto) whose samples weigh, per stack, what
    folded() weighs (periods and counts); labels comm, pid, tid, cpu. (go tool pprof reads the
    same files in perfdata-cli/tests/export.rs.)"""
    import gzip

    f = perfdata.open(perfout.TESTDATA / "sysw.data")
    out = tmp_path / "sysw.pb.gz"
    f.export(out, format="pprof", **SYMBOLS)
    p = list(_proto_fields(gzip.decompress(out.read_bytes())))
    strings = [v.decode() for k, v in p if k == 6]
    assert strings[0] == ""
    types = [dict(_proto_fields(v)) for k, v in p if k == 1]
    assert [(strings[t.get(1, 0)], strings[t.get(2, 0)]) for t in types] == [
        ("samples", "count"),
        ("cpu-clock:ppp", "nanoseconds"),
    ]
    functions = {d[1]: strings[d.get(2, 0)] for d in (dict(_proto_fields(v)) for k, v in p if k == 5)}
    locations = {}
    for k, v in p:
        if k == 4:
            fields = list(_proto_fields(v))
            lines = [dict(_proto_fields(x)) for n, x in fields if n == 4]
            locations[dict(fields)[1]] = [functions[line[1]] for line in lines]
    periods, counts = {}, {}
    for k, v in p:
        if k != 2:
            continue
        fields = list(_proto_fields(v))
        locs = [x for n, y in fields if n == 1 for x in _packed(y)]
        values = [x for n, y in fields if n == 2 for x in _packed(y)]
        labels = {}
        for d in (dict(_proto_fields(y)) for n, y in fields if n == 3):
            labels[strings[d[1]]] = strings[d[2]] if 2 in d else d.get(3, 0)
        assert set(labels) == {"comm", "pid", "tid", "cpu"}
        frames = [x for loc in locs for x in locations[loc]]
        key = ";".join([labels["comm"].replace(" ", "_"), *reversed(frames)])
        counts[key] = counts.get(key, 0) + values[0]
        periods[key] = periods.get(key, 0) + values[1]
    assert periods == f.folded(weight="period", **SYMBOLS)
    assert counts == f.folded(weight="samples", **SYMBOLS)
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"PERFILE2 but nothing after it")
    with pytest.raises(perfdata.PerfDataError, match="perf_file_header"):
        perfdata.open(bad).export(tmp_path / "bad.pb.gz", format="pprof")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bad.data", "sysw.pb.gz"]


def test_export_pprof_every_event_period_and_program(tmp_path):
    """PerfData.export(format="pprof") keeps every event by default (a value column each, its
    unit from the event, summing folded(event=...)'s periods; event= keeps one); the profile's
    period type and period are the first event's (multi-g.data: cpu-clock -c 200000,
    page-faults -c 20, perf evlist -v); mapping 1 is the recorded program."""
    import gzip

    f = perfdata.open(perfout.TESTDATA / "multi-g.data")

    def profile(**options):
        out = tmp_path / "p.pb.gz"
        f.export(out, format="pprof", **SYMBOLS, **options)
        p = list(_proto_fields(gzip.decompress(out.read_bytes())))
        strings = [v.decode() for k, v in p if k == 6]
        types = [dict(_proto_fields(v)) for k, v in p if k == 1]
        types = [(strings[t.get(1, 0)], strings[t.get(2, 0)]) for t in types]
        sums = [0] * len(types)
        for k, v in p:
            if k == 2:
                values = [x for n, y in _proto_fields(v) if n == 2 for x in _packed(y)]
                sums = [a + b for a, b in zip(sums, values)]
        period_type = next(dict(_proto_fields(v)) for k, v in p if k == 11)
        period = next(v for k, v in p if k == 12)
        first_mapping = dict(next(_proto_fields(v) for k, v in p if k == 3))
        mapping = (first_mapping[1], strings[first_mapping[5]])
        return types, sums, (strings[period_type[1]], strings[period_type[2]], period), mapping

    types, sums, period, mapping = profile()
    events = ["cpu-clock", "page-faults/period=20/"]
    assert types == [("samples", "count"), ("cpu-clock", "nanoseconds"), ("page-faults/period=20/", "count")]
    for event, total in zip(events, sums[1:]):
        assert total == sum(f.folded(event=event, weight="period", **SYMBOLS).values())
    assert period == ("cpu-clock", "nanoseconds", 200000)
    assert mapping == (1, "/work/main/testdata/bin/spin")
    types, sums, period, _ = profile(event=events[1])
    assert types == [("samples", "count"), ("page-faults/period=20/", "count")]
    assert period == ("page-faults/period=20/", "count", 20)


def test_report_rows_equal_perf_report():
    """PerfData.report(): the rows of perf report --no-children --sort comm,dso,sym (stored as
    testdata/fp.data.report), in perf's order, with the symbol extracts the folded tests use."""
    pytest.importorskip("pandas")
    f = perfdata.open(perfout.TESTDATA / "fp.data")
    df = f.report(
        symfs=str(FOLDED / "root"),
        buildid_dir=str(FOLDED / "no-buildid-cache"),
        kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
    )
    ours = [
        f"{o:.2f}% {c} {d} {'[k]' if k else '[.]'} {s}"
        for o, c, d, k, s in zip(df.overhead, df.comm, df.dso, df.kernel, df.symbol)
    ]
    text = (perfout.TESTDATA / "fp.data.report").read_text()
    perf = [" ".join(l.split()) for l in text.splitlines() if "%" in l and not l.startswith("#")]
    assert ours == perf
    assert int(df.samples.sum()) == 152


def test_report_children_and_sort_keys_equal_perf_report():
    """PerfData.report(children=True) and report(sort=...): the rows of perf report --children and
    of perf report -n --sort pid,sym (testdata/gen-report.sh), in perf's order."""
    pytest.importorskip("pandas")
    f = perfdata.open(perfout.TESTDATA / "dwarf.data")
    sym = dict(
        symfs=str(FOLDED / "root"),
        buildid_dir=str(FOLDED / "no-buildid-cache"),
        kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
    )

    def perf(name):
        text = (perfout.TESTDATA / name).read_text()
        return [" ".join(l.split()) for l in text.splitlines() if "%" in l and not l.startswith("#")]

    df = f.report(children=True, **sym)
    ours = [
        f"{c:.2f}% {o:.2f}% {m} {d} {'[k]' if k else '[.]'} {s}"
        for c, o, m, d, k, s in zip(df.children, df.overhead, df.comm, df.dso, df.kernel, df.symbol)
    ]
    assert ours == perf("dwarf.data.report-children")
    # Children include the row's own samples, and the callers of the leaf carry its share.
    assert (df.children >= df.overhead).all()
    assert df.children.max() > df.overhead.max()

    df = f.report(sort=["pid", "sym"], **sym)
    ours = [
        f"{o:.2f}% {n} {p}:{c} {'[k]' if k else '[.]'} {s}"
        for o, n, p, c, k, s in zip(df.overhead, df.samples, df.pid, df.comm, df.kernel, df.symbol)
    ]
    assert ours == perf("dwarf.data.report-n-sort-pid,sym")
    with pytest.raises(ValueError, match="unknown --sort key"):
        f.report(sort="comm,nope")


def test_report_srcline_and_parent_keys_equal_perf_report():
    """report(sort=["sym", "srcline"]): perf report --no-children --sort sym,srcline's rows, in
    perf's order (perf cuts the source lines to its column's width: ours start with what it
    shows); report(parent=..., exclude_other=True): perf report -p ... -x (perf's [other] is
    None)."""
    pytest.importorskip("pandas")
    f = perfdata.open(perfout.TESTDATA / "fp.data")
    sym = dict(
        symfs=str(FOLDED / "root"),
        buildid_dir=str(FOLDED / "no-buildid-cache"),
        kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
    )
    df = f.report(sort=["sym", "srcline"], **sym)
    text = (perfout.TESTDATA / "fp.data.report-g-no-children-sym,srcline").read_text()
    perf = [l.split() for l in text.splitlines() if "%" in l and not l.startswith("#")]
    assert len(perf) == len(df) == 40
    ours = zip(df.overhead, df.kernel, df.symbol, df.srcline)
    for (pct, mark, name, shown), (o, k, s, line) in zip(perf, ours):
        assert (pct, mark, name) == (f"{o:.2f}%", "[k]" if k else "[.]", s)
        assert line.startswith(shown), (line, shown)
    assert "spin.c:31" in set(df.srcline) and df.srcline.str.contains(r"\+\d+$").any()
    # No callchain of fp.data reaches a function of perf's default pattern: all [other].
    df = f.report(sort="parent", **sym)
    assert list(df.parent.isna()) == [True] and abs(df.overhead.sum() - 100) < 0.01
    # A pattern (which adds the key) and -x: perf report --no-children -p 'page_fault|^leaf' -x.
    df = f.report(parent="page_fault|^leaf", exclude_other=True, **sym)
    text = (perfout.TESTDATA / "fp.data.report-g-no-children-parent-pattern-x").read_text()
    perf = [" ".join(l.split()) for l in text.splitlines() if "%" in l and not l.startswith("#")]
    ours = [
        f"{o:.2f}% {c} {d} {'[k]' if k else '[.]'} {s} {p}"
        for o, c, d, k, s, p in zip(df.overhead, df.comm, df.dso, df.kernel, df.symbol, df.parent)
    ]
    assert ours == perf and len(ours) == 9
    with pytest.raises(ValueError, match="--parent"):
        f.report(parent="(", **sym)


def test_report_of_tracepoints_is_by_their_text():
    """report() of a recording of tracepoints only: perf's default there, the trace key (each
    sample's text); the texts and sample counts of perf report's tables (one per event)."""
    pytest.importorskip("pandas")
    f = perfdata.open(perfout.TESTDATA / "syscalls.data")
    df = f.report()
    assert "trace" in df.columns and "symbol" not in df.columns
    text = (perfout.TESTDATA / "syscalls.data.report").read_text()
    rows = [l.split(None, 1) for l in text.splitlines() if "%" in l and not l.startswith("#")]
    assert set(df.trace) == {t for _, t in rows}
    counts = [int(l.split()[2]) for l in text.splitlines() if l.startswith("# Samples:")]
    assert int(df.samples.sum()) == sum(counts) == 70
    assert list(perfdata.open(perfout.TESTDATA / "multi.data").report(sort="trace").trace.isna()) == [True]


@pytest.mark.parametrize("name", ["fp.data", "dwarf.data"])
def test_report_call_graph_equals_perf_report_folded(name):
    """PerfData.report(children=True, call_graph="caller"): each row's path tree, written as perf
    report -g folded writes it (every node with samples ending in it, the path from the root, most
    first), equals perf 6.1's text for that row (testdata/F.report-g-folded)."""
    pytest.importorskip("pandas")
    f = perfdata.open(perfout.TESTDATA / name)
    sym = dict(
        symfs=str(FOLDED / "root"),
        buildid_dir=str(FOLDED / "no-buildid-cache"),
        kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
    )
    df = f.report(children=True, call_graph="caller", **sym)
    total = int(df.period.sum())

    def folded(nodes, path, out):
        for n in nodes:
            p = path + [x for x in n["frames"] if not x.startswith("0xfffffffffffff")]
            folded(n["children"], p, out)
            if n["period"]:
                out.append((n["period"], f"{100 * n['period'] / total:.2f}% {';'.join(p)}"))
        return out

    ours = []
    for tree in df.call_graph:
        lines = folded(tree, [], [])
        lines.sort(key=lambda t: -t[0])  # stable: ties stay in the tree's order, as in perf
        ours.append([l for _, l in lines])
    perf, row = [], None
    for line in (perfout.TESTDATA / f"{name}.report-g-folded").read_text().splitlines():
        if line.startswith(" ") and "%" in line:
            row = []
            perf.append(row)
        elif row is not None and "%" in line and not line.startswith("#"):
            row.append(line)
    assert len(ours) == len(perf) > 10
    assert ours == perf
    assert all(isinstance(t, list) and t for t in df.call_graph)
    with pytest.raises(ValueError, match="call_graph"):
        f.report(call_graph="sideways")


def test_progress_reports_the_whole_file(capsys, monkeypatch):
    """progress=True: a bar on the reading of the file, tqdm's when installed (a fake one here,
    which records what it is told), else a line on stderr; it ends at the file's size."""
    import sys
    import types

    path = perfout.TESTDATA / "offcpu-dwarf.data"
    size = path.stat().st_size
    f = perfdata.open(path)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # no tqdm: the plain line
    assert f.folded(progress=True) == f.folded()
    err = capsys.readouterr().err
    assert "offcpu-dwarf.data" in err and "100% of 0.7 MB" in err

    bars = []

    class FakeTqdm:
        def __init__(self, total=None, desc="", **kw):
            self.total, self.desc, self.n, self.closed = total, desc, 0, False
            bars.append(self)

        def update(self, n):
            self.n += n

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    assert f.to_arrow("samples", progress=True).num_rows == f.to_arrow("samples").num_rows
    pytest.importorskip("pandas")
    f.report(progress=True)
    assert len(bars) == 2
    assert all(b.total == size and b.n == size and b.closed and b.desc.endswith("offcpu-dwarf.data") for b in bars)
    assert capsys.readouterr().err == ""


def test_speedscope_export_is_valid_against_the_file_format_schema(tmp_path):
    """The speedscope export of fp, dwarf and system-wide recordings validates against
    speedscope's file-format JSON Schema (testdata/speedscope: the schema speedscope generates
    from its file-format-spec.ts), per comm and per thread; a profile missing a required field
    does not."""
    import json

    import jsonschema

    schema = json.loads((perfout.TESTDATA / "speedscope" / "file-format-schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    for name in ["fp.data", "dwarf.data", "sysw.data"]:
        for root in ["comm", "tid"]:
            out = tmp_path / f"{name}.{root}.json"
            perfdata.open(perfout.TESTDATA / name).export(out, format="speedscope", root=root, aggregate=True)
            doc = json.loads(out.read_text())
            jsonschema.validate(doc, schema)
            assert doc["profiles"] and all(len(p["samples"]) == len(p["weights"]) for p in doc["profiles"])
        # The default: evented profiles, one per thread.
        out = tmp_path / f"{name}.json"
        perfdata.open(perfout.TESTDATA / name).export(out, format="speedscope")
        evented = json.loads(out.read_text())
        jsonschema.validate(evented, schema)
        assert evented["profiles"] and all(p["type"] == "evented" for p in evented["profiles"])
    del doc["profiles"][0]["weights"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    del evented["profiles"][0]["events"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(evented, schema)


def test_diff_of_runs():
    """perfdata.diff(baseline_runs, new_runs) (what `perfdata diff --baseline … --new …` prints):
    each side repeats one recording, so the intervals are points; fp.data's leaf holds 68.42 %,
    dwarf.data's 50.00 % (perf report's tables of both)."""
    pytest.importorskip("pandas")

    fp, dwarf = perfout.TESTDATA / "fp.data", perfout.TESTDATA / "dwarf.data"
    sym = dict(
        symfs=str(FOLDED / "root"),
        buildid_dir=str(FOLDED / "no-buildid-cache"),
        kallsyms=str(FOLDED / "kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"),
    )
    d = perfdata.diff([fp, perfdata.open(fp)], [str(dwarf), dwarf], **sym)
    leaf = d[d.symbol == "leaf"].iloc[0]
    assert (round(leaf.baseline, 2), round(leaf.new, 2), round(leaf.delta, 2)) == (68.42, 50.0, -18.42)
    assert leaf.significant and leaf.low == leaf.high == leaf.delta
    assert list(leaf.baseline_runs) == [leaf.baseline, leaf.baseline]
    # Largest change first; every key of either side is a row.
    assert list(d.delta.abs()) == sorted(d.delta.abs(), reverse=True)
    assert d.symbol.iloc[0] == "leaf" and len(d) > 30
    one = perfdata.diff(fp, dwarf, **sym)
    assert one.low.isna().all() and not one.significant.any()
    with pytest.raises(ValueError, match="unknown --sort key"):
        perfdata.diff(fp, dwarf, sort="nope")
