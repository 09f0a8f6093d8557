#!/usr/bin/env bash
# Run every test of the project: formatting, lints, the Rust tests (unit, conformance with perf's
# stored outputs, robustness), then the Python bindings' tests. Uses ../shared/corpus when it is
# present. Needs CPython >= 3.9 with pip (PYTHON picks the interpreter) and PyPI for the venv.
set -euo pipefail
cd "$(dirname "$0")"
# Only our own code and no build output in git (the fixtures from elsewhere are listed, with their
# origin and licence, in testdata/README.md).
python3 tools/check-tracked.py
# Commit messages: a subject of at most 72 characters, a blank line, a body (DEVELOPERS.md).
python3 tools/check-commits.py
# No import cycle between the files, nor between the top-level modules, of any crate: the layers
# docs/ARCHITECTURE.md draws are the code's (tools/module-graph.py without --check prints them).
for src in perfdata-core/src perfdata-symbolize/src perfdata-analysis/src perfdata-cli/src perfdata-py/src; do
	python3 tools/module-graph.py "$src" --check
	python3 tools/module-graph.py "$src" --depth=1 --check
done
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
# perfdata-analysis without the pprof export (its fold engine has pprof-only parts) lints clean too.
cargo clippy -p perfdata-analysis --release --no-default-features --features symbolize,flamegraph -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
# The reader builds for the browser (web/, docs/web.md): perfdata-core for wasm32-unknown-unknown
# without C code (no default features but json and write), then the page's module, perfdata-wasm
# with every default feature (zstd's C code compiled for wasm32 by clang) and its JavaScript glue
# (web/build.sh, wasm-bindgen-cli); the page itself runs in Chromium after the Python venv exists.
# A machine that cannot get the target skips these steps with a NOTE.
wasm=1
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
	rustup target add wasm32-unknown-unknown || {
	echo "NOTE: no wasm32-unknown-unknown target (rustup target add failed): the browser build and page tests are skipped"
	wasm=0
}
if [ "$wasm" = 1 ]; then
	CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/wasm32" \
		cargo check --quiet -p perfdata-core --no-default-features --features json,write --target wasm32-unknown-unknown
	CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/wasm32" web/build.sh
fi
# The tests compare with perf's outputs on "machines" without the binaries: a debuginfod server
# from the environment (Debian's /etc/profile.d/debuginfod.sh sets one for login shells) would
# fetch them; tests/debuginfod.rs starts its own on 127.0.0.1.
unset DEBUGINFOD_URLS
cargo test --workspace --release
# The four crates package for crates.io (in dependency order, their path dependencies resolved
# against each other). Without the verifying build, which took 8 minutes here (run it by hand
# before a release: drop --no-verify).
cargo package --quiet --no-verify --allow-dirty -p perfdata-core -p perfdata-symbolize -p perfdata-analysis -p perfdata-cli

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

# Python bindings (perfdata-py, its own cargo workspace): format and lint them, build their wheel
# (perfdata-py/build-wheel.sh: maturin build, abi3, profile dist or PERFDATA_WHEEL_PROFILE; a repack
# of the wheel .ci/run built when nothing changed), install that very file into a venv inside the
# repo (.venv) from no index (nothing is compiled at install time), check the type stubs against it
# (mypy.stubtest) and run their pytest suite. The suite's libraries come from PyPI as the extra
# perfdata[test] (pyarrow, pandas, polars, DuckDB, Dask distributed, the notebook runner, mypy) so
# that none of those tests is skipped; dask[distributed] adds ~7 s and 44 MB to a fresh venv.
# pyspark is not in it: its 456 MB sdist took ~2 min to download and install here, so its test skips
# with the reason.
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" PYO3_PYTHON="$PWD/.venv/bin/python"
cargo fmt --manifest-path perfdata-py/Cargo.toml -- --check
cargo clippy --manifest-path perfdata-py/Cargo.toml --all-targets --release -- -D warnings
wheel=$(perfdata-py/build-wheel.sh)
.venv/bin/python -m pip install -q --disable-pip-version-check "$wheel[test]"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-index --force-reinstall "$wheel"
# The extension links libiberty statically: none of its functions may be exported, so that a process
# that also loads another libiberty (or a second demangler) keeps each its own.
so=$(.venv/bin/python -c 'import perfdata._perfdata as m; print(m.__file__)')
if nm -D --defined-only "$so" | grep -E ' (cplus_|rust_demangle|d_demangle|xmalloc|_sch_)'; then
	echo "$so exports libiberty's symbols (above)" >&2
	exit 1
fi
# The type stubs (python/perfdata/__init__.pyi) against the installed module: every name, signature
# and default as the runtime has it (no allowlist: nothing is left that a stub cannot say).
.venv/bin/python -m mypy.stubtest perfdata --mypy-config-file perfdata-py/pyproject.toml
.venv/bin/python -m pytest -p no:cacheprovider perfdata-py/tests -q

# The browser page (web/) in headless Chromium through its chromedriver (Debian's chromium and
# chromium-driver): committed recordings opened through the page's file inputs, every view checked.
if [ "$wasm" = 1 ]; then
	.venv/bin/python -m pip install -q --disable-pip-version-check selenium
	.venv/bin/python -m pytest -p no:cacheprovider web/test_page.py -q
fi

# Demangling on a machine without libiberty-dev: the pure-Rust fallback's tests (they check its
# documented difference from perf). Last, in the same target dir: only perfdata-symbolize and the
# test are rebuilt (the binaries built above keep libiberty; the next build that needs the
# library rebuilds it with libiberty). `perfdata --version` names the demangler a build uses.
PERFDATA_LIBIBERTY=none cargo test --release --quiet -p perfdata-symbolize --test demangle
