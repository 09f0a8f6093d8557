#!/usr/bin/env bash
# Build perfdata's wheel (abi3: one file for every CPython >= 3.9 on this platform; cargo profile
# `dist` of perfdata-py/Cargo.toml: optimised, one codegen unit, no debug info, stripped) into
# $CARGO_TARGET_DIR/wheels (default target/wheels) and print its path. Incremental: when cargo
# finds nothing changed, maturin only packs the wheel again (seconds), so .ci/run builds it once
# and test.sh's call finds it built. maturin comes from the repo's venv (.venv, made here with
# PYTHON, default python3, when missing). Install the wheel anywhere without a compiler:
#   pip install --no-index target/wheels/perfdata-*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
[ -x .venv/bin/maturin ] || .venv/bin/python -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
out="$CARGO_TARGET_DIR/wheels"
# One wheel there: the one of these sources.
rm -f "$out"/perfdata-*.whl
# --profile dist is also pyproject.toml's tool.maturin.profile; said here so that no other
# setting decides what is shipped. PERFDATA_WHEEL_PROFILE=release builds the same code with the
# workspace's release profile instead (a larger extension, with line tables): .ci/run's choice,
# so that the tests' build of the workspace reuses the dependencies compiled for the wheel.
# maturin's and cargo's messages go to stderr, the path to stdout.
.venv/bin/maturin build --profile "${PERFDATA_WHEEL_PROFILE:-dist}" --manifest-path perfdata-py/Cargo.toml \
	--interpreter "$PWD/.venv/bin/python" --out "$out" >&2
ls "$out"/perfdata-*-abi3-*.whl
