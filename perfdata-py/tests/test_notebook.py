"""The notebooks of examples/ run from top to bottom (so they never rot) and show perf's numbers:
quickstart.ipynb (one recording), fleet.ipynb (a generated fleet as one dataset)."""

from __future__ import annotations

import json
import sys

import pytest

import perfout

NOTEBOOK = perfout.REPO / "examples" / "quickstart.ipynb"


def execute(path, tmp_path, monkeypatch):
    """Run the notebook at ``path`` from top to bottom in a kernel of this interpreter (cwd:
    examples/); its code cells, with no error among their outputs."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("pandas")
    # A kernel spec of this very interpreter (one that can import perfdata), found before any
    # user-wide "python3" spec.
    spec = tmp_path / "kernels" / "perfdata-test"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "perfdata tests",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="perfdata-test",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    for c in code:
        assert not [o for o in c.outputs if o.output_type == "error"], c.source
    return code


def result(cell):
    """The data of a cell's execute_result."""
    return [o for o in cell.outputs if o.output_type == "execute_result"][0]["data"]


def test_quickstart_notebook_executes(tmp_path, monkeypatch):
    code = execute(NOTEBOOK, tmp_path, monkeypatch)
    # the last cell shows the number of samples: what perf's dump counts
    perf = perfout.parse_dump_samples((perfout.TESTDATA / "quickstart.data.dump").read_text())
    header = perfout.parse_header((perfout.TESTDATA / "quickstart.data.header").read_text())
    last = [o for o in code[-1].outputs if o.output_type == "execute_result"][0]
    assert last["data"]["text/plain"] == str(len(perf))
    # the flame graph shows inline (as SVG, and as HTML for its script) with every sample's period:
    # -g, all samples have a callchain, each weighs the event's fixed period (-c 200000)
    graph = [c for c in code if "flamegraph(" in c.source][0]
    shown = [o for o in graph.outputs if o.output_type == "execute_result"][0]["data"]
    assert shown["image/svg+xml"].lstrip().startswith("<?xml") and "<iframe srcdoc=" in shown["text/html"]
    period = len(perf) * int(header.events[0].fields["sample_period"])
    assert f"<title>all ({period:,} period, 100%)</title>" in shown["image/svg+xml"]
    assert ">quickstart.data<" in shown["image/svg+xml"]
    # the header cell prints perf's host and command line
    printed = "".join(o.get("text", "") for o in code[1].outputs)
    assert header.values["hostname"] in printed
    assert header.values["cmdline"].strip() in printed


def test_fleet_notebook_executes(tmp_path, monkeypatch):
    """examples/fleet.ipynb, which makes its fleet with the package alone (PerfData.write, no
    cargo): Dask's answer is DuckDB's, the flame graph from the dataset weighs what
    PerfData.folded() of the recordings selected weighs, and the samples per host are perf's
    counts."""
    pytest.importorskip("duckdb")
    pytest.importorskip("distributed")
    import perfdata

    code = execute(perfout.REPO / "examples" / "fleet.ipynb", tmp_path, monkeypatch)
    printed = lambda c: "".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")
    dask = [c for c in code if "LocalCluster(" in c.source][0]
    assert "Dask == DuckDB: True" in printed(dask)
    # The oracle: the committed recordings the notebook's 40 members were written from (the fleet's
    # rules, perfout.fleet_member), folded as they are, and perf's sample counts of them.
    fleet = [perfout.fleet_member(i) for i in range(40)]
    graph = [c for c in code if "dataset_flamegraph(ds, \"host IN" in c.source][0]
    chosen = [s for s, host, date in fleet if host in ("host01", "host02") and date >= "2026-11-02"]
    total = sum(sum(perfdata.open(perfout.TESTDATA / s).folded().values()) for s in chosen)
    shown = result(graph)
    assert shown["text/plain"].startswith("<perfdata.FlameGraph ") and f"total {total}," in shown["text/plain"]
    assert shown["image/svg+xml"].lstrip().startswith("<?xml") and "<iframe srcdoc=" in shown["text/html"]
    assert f"<title>all ({total:,} period, 100%)</title>" in shown["image/svg+xml"]
    diff = [c for c in code if "diff=(" in c.source][0]
    assert "Differential Flame Graph" in result(diff)["image/svg+xml"]
    per_host = {}
    for source, host, _ in fleet:
        per_host[host] = per_host.get(host, 0) + perfout.perf_samples(source)
    counts = [c for c in code if "value_counts" in c.source][0]
    last = eval(result(counts)["text/plain"])  # a dict literal
    assert {h: n for h, n in last.items() if h.startswith("host")} == per_host


def test_examples_type_check_strictly_against_the_stubs(tmp_path):
    """The code of every notebook in examples/ passes ``mypy --strict`` with perfdata's stubs: the
    stubs describe what the notebooks use (Optional where a field can be missing, etc.)."""
    pytest.importorskip("mypy")
    import subprocess

    checked = []
    for nb_path in sorted((perfout.REPO / "examples").glob("*.ipynb")):
        cells = json.loads(nb_path.read_text())["cells"]
        code = [
            line
            for c in cells
            if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines()
            if not line.lstrip().startswith(("%", "!"))  # IPython magics are not Python
        ]
        out = tmp_path / (nb_path.stem + ".py")
        out.write_text("\n".join(code) + "\n")
        checked.append(str(out))
    assert checked, "no notebooks in examples/"
    stubs = perfout.REPO / "perfdata-py" / "python"
    # mypy in a child process: MYPYPATH points at the package's stubs (not the installed module).
    env = {"MYPYPATH": str(stubs), "PATH": "/usr/bin:/bin"}
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--ignore-missing-imports",
            "--no-incremental",
            # Dask's functions have no annotations: calling them is not a typing error of ours.
            "--untyped-calls-exclude=dask",
            "--untyped-calls-exclude=distributed",
            *checked,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stdout + res.stderr
