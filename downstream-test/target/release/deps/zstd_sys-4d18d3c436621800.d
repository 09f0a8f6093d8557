/work/main/downstream-test/target/release/deps/zstd_sys-4d18d3c436621800.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/bindings_zstd.rs

/work/main/downstream-test/target/release/deps/libzstd_sys-4d18d3c436621800.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/bindings_zstd.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-sys-2.1.3+zstd.1.5.7/src/bindings_zstd.rs:
