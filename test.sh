#!/usr/bin/env bash
# Run every test of the project: formatting, lints, the Rust tests (unit, conformance with perf's
# stored outputs, robustness). Uses ../shared/corpus when it is present.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
