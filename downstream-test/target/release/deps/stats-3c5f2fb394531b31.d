/work/main/downstream-test/target/release/deps/stats-3c5f2fb394531b31.d: tests/stats.rs tests/../../perfdata-core/tests/common/mod.rs Cargo.toml

/work/main/downstream-test/target/release/deps/libstats-3c5f2fb394531b31.rmeta: tests/stats.rs tests/../../perfdata-core/tests/common/mod.rs Cargo.toml

tests/stats.rs:
tests/../../perfdata-core/tests/common/mod.rs:
Cargo.toml:

# env-dep:CARGO_MANIFEST_DIR=/work/main/downstream-test
# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
