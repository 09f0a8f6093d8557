"""Shared fixtures: the recordings with perf's stored outputs beside them."""

from __future__ import annotations

import pytest

import perfout


def _ids(paths):
    return [p.parent.name + "/" + p.name for p in paths]


COMMITTED = perfout.committed_recordings()
CORPUS = perfout.corpus_recordings()


def pytest_generate_tests(metafunc):
    if "recording" in metafunc.fixturenames:
        paths = COMMITTED + CORPUS
        metafunc.parametrize("recording", paths, ids=_ids(paths))
    if "committed" in metafunc.fixturenames:
        metafunc.parametrize("committed", COMMITTED, ids=_ids(COMMITTED))


@pytest.fixture
def quickstart():
    p = perfout.TESTDATA / "quickstart.data"
    if not p.exists():
        pytest.skip("testdata/quickstart.data missing")
    return p
