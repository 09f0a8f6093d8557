"""Argument errors name the call: an unknown keyword gives a TypeError that names the method and lists
the keywords it accepts; a bad value gives a ValueError that names the method, the argument and the
accepted values, and for ``compat`` what it means for that call (an output tool for the folded-stack
calls, a perf version for the ``sched_*`` calls)."""

import perfdata
import perfout
import pytest

TESTDATA = perfout.TESTDATA

# The keywords of folded() (perfdata-py/src/flamegraph.rs FOLD_KEYS), plus progress.
FOLD = [
    "compat", "weight", "root", "kernel", "jit", "inline", "annotate_inline", "srcline",
    "plain_unwind", "max_stack", "addrs", "event", "all_events", "tidy", "tidy_java", "pid",
    "tid", "comm", "time", "symfs", "buildid_dir", "kallsyms", "symbols", "jitdump",
]  # fmt: skip
GRAPH = ["title", "subtitle", "colors", "inverted", "width"]
SCRIPT = [
    "fields", "ns", "hide_call_graph", "max_stack", "inline", "show_task_events",
    "show_mmap_events", "show_switch_events", "time", "cpu", "pid", "tid", "comms", "symfs",
    "kallsyms", "buildid_dir", "symbols", "jitdump",
]  # fmt: skip


def unexpected(call: str, key: str, accepted: list) -> str:
    return f"{call} got an unexpected keyword argument '{key}'; accepted: {', '.join(sorted(set(accepted)))}"


FOLD_COMPAT = (
    "For this call compat names the tool whose folded output is reproduced: 'stackcollapse-pl' "
    "(perf script | stackcollapse-perf.pl, the default) or 'perf-script-py' (perf script report "
    "stackcollapse); the sched_* calls' compat names a perf version ('perf-6.1') instead"
)
SCHED_COMPAT = (
    "For this call compat names the perf version whose output is reproduced: None or 'modern' "
    "(the current perf) or 'perf-6.1'; folded()'s compat names an output tool ('stackcollapse-pl', "
    "'perf-script-py') instead"
)


def message(excinfo) -> str:
    return str(excinfo.value)


@pytest.fixture(scope="module")
def fp():
    with perfdata.open(TESTDATA / "fp.data") as f:
        yield f


@pytest.fixture(scope="module")
def sched():
    with perfdata.open(TESTDATA / "sched.data") as f:
        yield f


@pytest.mark.parametrize(
    "method,accepted",
    [
        ("folded", FOLD + ["progress"]),
        ("folded_text", FOLD + ["progress"]),
        ("flamegraph", FOLD + GRAPH + ["progress"]),
        ("script", SCRIPT),
        ("report", FOLD + ["sort", "parent", "exclude_other", "children", "call_graph", "progress"]),
        ("annotate", FOLD + ["symbol", "percent_type", "percent_limit", "disassembler_style", "asm_raw",
                             "print_line", "objdump", "prefix", "prefix_strip"]),
    ],
)
def test_an_unknown_keyword_names_the_call_and_the_accepted_ones(fp, method, accepted):
    with pytest.raises(TypeError) as e:
        getattr(fp, method)(bogus=1)
    assert message(e) == unexpected(f"PerfData.{method}()", "bogus", accepted)


def test_keywords_of_calls_with_positional_arguments(fp, tmp_path):
    with pytest.raises(TypeError) as e:
        fp.write_folded(tmp_path / "x.folded", colour="hot")
    assert message(e) == unexpected("PerfData.write_folded()", "colour", FOLD + ["progress"])
    with pytest.raises(TypeError) as e:
        fp.write_script(tmp_path / "x.script", field="ip")
    assert message(e) == unexpected("PerfData.write_script()", "field", SCRIPT)
    with pytest.raises(TypeError) as e:
        fp.to_arrow(symbolize=True, bogus=1)
    assert message(e) == unexpected("PerfData.to_arrow()", "bogus", FOLD + ["progress"])
    with pytest.raises(TypeError) as e:
        perfdata.flamegraph_diff(fp, fp, bogus=1)
    assert message(e) == unexpected("perfdata.flamegraph_diff()", "bogus", FOLD + GRAPH)


def test_off_cpu_keywords(sched):
    with pytest.raises(TypeError) as e:
        sched.off_cpu(min_ms=1)
    assert message(e) == unexpected("PerfData.off_cpu()", "min_ms", FOLD + ["state", "min_us"])
    with pytest.raises(TypeError) as e:
        sched.off_cpu_flamegraph(min_ms=1)
    assert message(e) == unexpected("PerfData.off_cpu_flamegraph()", "min_ms", FOLD + GRAPH + ["state", "min_us"])


@pytest.mark.parametrize(
    "method,accepted",
    [
        ("sched_latency", ["by", "sort", "compat", "cpu"]),
        ("sched_map", ["compact", "cpus", "compat"]),
        (
            "sched_timehist",
            ["wakeups", "migrations", "cpu_visual", "state", "next", "summary", "idle_hist", "pid", "tid",
             "cpu", "time", "compat"],
        ),
    ],
)  # fmt: skip
def test_sched_calls_name_themselves_too(sched, method, accepted):
    with pytest.raises(TypeError) as e:
        getattr(sched, method)(bogus=1)
    assert message(e) == unexpected(f"PerfData.{method}()", "bogus", accepted)


def test_folded_compat_names_an_output_tool(fp):
    for method in ("folded", "folded_text", "flamegraph"):
        with pytest.raises(ValueError) as e:
            getattr(fp, method)(compat="perf-6.1")
        assert message(e) == (
            f"PerfData.{method}(): unknown compat 'perf-6.1'; accepted: 'stackcollapse-pl' or "
            f"'perf-script-py'. {FOLD_COMPAT}"
        )
        assert type(e.value) is ValueError


def test_sched_compat_names_a_perf_version(sched):
    for method in ("sched_latency", "sched_map", "sched_timehist"):
        with pytest.raises(ValueError) as e:
            getattr(sched, method)(compat="stackcollapse-pl")
        assert message(e) == (
            f"PerfData.{method}(): unknown compat 'stackcollapse-pl'; accepted: None, 'modern' or "
            f"'perf-6.1'. {SCHED_COMPAT}"
        )


def test_sched_latency_by(sched):
    with pytest.raises(ValueError) as e:
        sched.sched_latency(by="pid")
    assert message(e) == (
        "PerfData.sched_latency(): by must be 'comm' (one row per command name, perf's default) or "
        "'tid' (one row per thread), not 'pid': perf sched latency -p (--pids) groups by thread, "
        "which is by='tid'; there is no per-process grouping"
    )
    with pytest.raises(ValueError) as e:
        sched.sched_latency(by="cpu")
    assert message(e) == (
        "PerfData.sched_latency(): by must be 'comm' (one row per command name, perf's default) or "
        "'tid' (one row per thread, perf's -p), not 'cpu'"
    )
    with pytest.raises(ValueError) as e:
        sched.sched_latency(sort="fast")
    assert message(e) == (
        "PerfData.sched_latency(): sort: unknown sort key \"fast\" (pid, avg, max, switch, runtime)"
    )
    # What by="tid" gives: one row per thread, as perf sched latency -p prints them.
    want = (TESTDATA / "sched.data.sched-latency-p").read_text()
    assert sched.sched_latency(by="tid", compat="perf-6.1").text() == want
    assert len(sched.sched_latency(by="tid").to_arrow()) > len(sched.sched_latency().to_arrow())


def test_other_bad_values_name_the_call_and_the_argument(fp, sched):
    with pytest.raises(ValueError) as e:
        fp.folded(root="process")
    assert message(e) == "PerfData.folded(): root must be 'comm', 'pid', 'tid' or 'none', not \"process\""
    with pytest.raises(ValueError) as e:
        fp.report(weight="cycles")
    assert message(e) == "PerfData.report(): weight must be 'samples' or 'period', not \"cycles\""
    with pytest.raises(TypeError) as e:
        fp.folded(kernel="yes")
    assert message(e).startswith("PerfData.folded(): kernel: ")
    with pytest.raises(ValueError) as e:
        fp.flamegraph(colors="plaid")
    assert message(e) == (
        "PerfData.flamegraph(): unknown colors 'plaid'; accepted: 'hot', 'mem', 'io', 'java', 'js', 'perl', "
        "'python', 'rust', 'wakeup', 'aqua', 'blue', 'green', 'orange', 'purple', 'red' or 'yellow'. colors "
        "names a flamegraph.pl palette"
    )
    with pytest.raises(ValueError) as e:
        sched.sched_map(cpus="0-x")
    assert message(e) == "PerfData.sched_map(): bad cpus list \"0-x\" (like '0-3,7')"


def test_file_errors_are_not_argument_errors(tmp_path):
    """A damaged file's PerfDataError (a ValueError) keeps its own message and type."""
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"PERFILE2" + bytes(200))
    with pytest.raises(perfdata.PerfDataError) as e:
        perfdata.open(bad).folded()
    assert not message(e).startswith("PerfData.")
