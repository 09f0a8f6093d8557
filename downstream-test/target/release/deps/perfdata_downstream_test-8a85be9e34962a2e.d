/work/main/downstream-test/target/release/deps/perfdata_downstream_test-8a85be9e34962a2e.d: src/lib.rs Cargo.toml

/work/main/downstream-test/target/release/deps/libperfdata_downstream_test-8a85be9e34962a2e.rmeta: src/lib.rs Cargo.toml

src/lib.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
