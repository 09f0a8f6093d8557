#!/usr/bin/env bash
# Run every test of the project: formatting, lints, the Rust tests (unit, conformance with perf's
# stored outputs, robustness), then the Python bindings' tests. Uses ../shared/corpus when it is
# present. Needs CPython >= 3.9 with pip (PYTHON picks the interpreter) and PyPI for the venv.
set -euo pipefail
cd "$(dirname "$0")"
# Only our own code and no build output in git (the fixtures from elsewhere are listed, with their
# origin and licence, in testdata/README.md).
python3 tools/check-tracked.py
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --release
# Demangling on a machine without libiberty-dev: the pure-Rust fallback's tests (they check its
# documented difference from perf), in a target dir of their own so that the build above keeps
# libiberty. `perfdata --version` names the demangler a build uses.
PERFDATA_LIBIBERTY=none CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/fallback" \
	cargo test --release --quiet -p perfdata-symbolize --test demangle

# perfdata-core as a downstream user gets it without default features: its own workspace (no feature
# of ours leaks in), a `for` loop counting what perf report --stats counts, and none of the analysis
# dependencies in its tree.
cargo fmt --manifest-path downstream-test/Cargo.toml -- --check
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" cargo test --release --quiet --manifest-path downstream-test/Cargo.toml
core_tree=$(cargo tree --manifest-path downstream-test/Cargo.toml -e normal --prefix none)
if grep -E '^(gimli|object|addr2line|flate2|rustc-demangle|cpp_demangle|inferno|zstd|serde) ' <<<"$core_tree"; then
	echo "perfdata-core without default features pulls in the dependencies above" >&2
	exit 1
fi

# Python bindings (perfdata-py, its own cargo workspace): format and lint them, build them into a venv
# inside the repo (.venv) with maturin, and run their pytest suite (pyarrow, pandas, polars, DuckDB,
# Dask distributed and the notebook runner are installed so that none of those tests is skipped;
# dask[distributed] adds ~7 s and 44 MB to a fresh venv. pyspark is not: its 456 MB sdist took ~2 min
# to download and install here, so its test skips with the reason).
PY_TEST_DEPS=(maturin pytest pyarrow pandas polars duckdb "dask[distributed]" nbclient nbformat ipykernel zstandard mypy jsonschema)
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check "${PY_TEST_DEPS[@]}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" PYO3_PYTHON="$PWD/.venv/bin/python"
cargo fmt --manifest-path perfdata-py/Cargo.toml -- --check
cargo clippy --manifest-path perfdata-py/Cargo.toml --all-targets --release -- -D warnings
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" \
	.venv/bin/maturin develop --release --quiet -m perfdata-py/Cargo.toml
.venv/bin/python -m pytest -p no:cacheprovider perfdata-py/tests -q
