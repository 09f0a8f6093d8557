/work/main/downstream-test/target/release/deps/perfdata_downstream_test-a87a80f07983b36d.d: src/lib.rs Cargo.toml

/work/main/downstream-test/target/release/deps/libperfdata_downstream_test-a87a80f07983b36d.rmeta: src/lib.rs Cargo.toml

src/lib.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
