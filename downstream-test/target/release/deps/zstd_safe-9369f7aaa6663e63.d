/work/main/downstream-test/target/release/deps/zstd_safe-9369f7aaa6663e63.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/constants.rs

/work/main/downstream-test/target/release/deps/libzstd_safe-9369f7aaa6663e63.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/constants.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/zstd-safe-7.4.1/src/constants.rs:
