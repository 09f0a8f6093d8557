/work/main/downstream-test/target/release/deps/stable_deref_trait-18e9352bd55c7a5f.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/stable_deref_trait-1.2.1/src/lib.rs

/work/main/downstream-test/target/release/deps/libstable_deref_trait-18e9352bd55c7a5f.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/stable_deref_trait-1.2.1/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/stable_deref_trait-1.2.1/src/lib.rs:
