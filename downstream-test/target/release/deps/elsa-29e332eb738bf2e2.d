/work/main/downstream-test/target/release/deps/elsa-29e332eb738bf2e2.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/map.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/vec.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/sync.rs

/work/main/downstream-test/target/release/deps/libelsa-29e332eb738bf2e2.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/map.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/vec.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/sync.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/map.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/vec.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/elsa-1.11.2/src/sync.rs:
