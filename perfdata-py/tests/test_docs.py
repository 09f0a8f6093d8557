"""Every public function and method of the module documents itself with an example, and every
example runs: the docstrings' ``>>>`` lines are doctests, run in a directory where ``perf.data`` is
testdata/quickstart.data (``perf record -g`` of a shell loop and ``ls``), ``sched.data`` is
testdata/sched.data (``perf sched record``) and ``block.data`` testdata/block.data (block_rq_*
tracepoints). The printed values are those files' own."""

import doctest
import inspect
import re
import shutil

import perfdata
import perfout
import pytest


def public_callables():
    """(qualified name, object) for the module's functions and the methods of its classes."""
    for name, obj in sorted(vars(perfdata).items()):
        if name.startswith("_"):
            continue
        if inspect.isclass(obj) and getattr(obj, "__module__", "").startswith("perfdata"):
            if issubclass(obj, BaseException):
                continue
            for m, member in sorted(vars(obj).items()):
                if not m.startswith("_") and callable(member):
                    yield f"{name}.{m}", member
        elif inspect.isbuiltin(obj) or inspect.isfunction(obj):
            yield name, obj


CALLABLES = list(public_callables())


def test_the_module_has_methods():
    names = {n for n, _ in CALLABLES}
    assert {"open", "PerfData.folded", "PerfData.to_arrow", "ArrowTable.to_pandas"} <= names, names


@pytest.mark.parametrize("name,obj", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_example_runs(name, obj, tmp_path, monkeypatch):
    doc = obj.__doc__ or ""
    assert "Example:" in doc and ">>>" in doc, f"{name} has no example in its docstring"
    shutil.copy(perfout.TESTDATA / "quickstart.data", tmp_path / "perf.data")
    shutil.copy(perfout.TESTDATA / "sched.data", tmp_path / "sched.data")
    shutil.copy(perfout.TESTDATA / "block.data", tmp_path / "block.data")
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(doc, {"perfdata": perfdata}, name, None, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)


# README's Python section: "`folded()` takes the options of `perfdata folded` (...)", and
# "`progress=True` on `folded`, `flamegraph`, `report` and `to_arrow`/`to_pandas`/`to_polars`".
README_FOLDED_OPTIONS = [
    "compat", "weight", "root", "kernel", "jit", "addrs", "inline", "annotate_inline", "srcline",
    "plain_unwind", "event", "all_events", "tidy", "tidy_java", "pid", "tid", "comm", "time", "symfs",
    "buildid_dir", "kallsyms", "symbols",
]  # fmt: skip
README_PROGRESS = ["folded", "flamegraph", "report", "to_arrow", "to_pandas", "to_polars"]


def documented_args(doc):
    """The names an ``Args:`` section documents (``pid, tid, comm: ...`` names three)."""
    section = doc.split("Args:", 1)[1]
    section = re.split(r"^\s*(Returns|Raises|Example):", section, flags=re.M)[0]
    names = set()
    for m in re.finditer(r"^ {4}(?:\*\*)?(\w+(?:, \w+)*):", section, re.M):
        names |= set(m.group(1).split(", "))
    return names


def test_folded_documents_and_takes_every_option_the_readme_lists():
    doc = perfdata.PerfData.folded.__doc__
    missing = set(README_FOLDED_OPTIONS + ["progress"]) - documented_args(doc)
    assert not missing, f"folded()'s docstring lacks {sorted(missing)}"
    params = inspect.signature(perfdata.PerfData.folded).parameters
    assert not set(README_FOLDED_OPTIONS + ["progress"]) - set(params)
    with perfdata.open(perfout.TESTDATA / "quickstart.data") as f:
        # every one is accepted (its value the default the signature shows)
        defaults = {k: params[k].default for k in README_FOLDED_OPTIONS + ["progress"]}
        assert sum(f.folded(**defaults).values()) == sum(f.folded().values())


@pytest.mark.parametrize("name", README_PROGRESS)
def test_progress_is_documented(name):
    doc = getattr(perfdata.PerfData, name).__doc__
    assert re.search(r"\bprogress\b", doc), f"PerfData.{name}'s docstring does not say progress=True"
