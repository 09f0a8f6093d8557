/work/main/downstream-test/target/release/deps/memmap2-e1ac0db1c548db91.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/unix.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/advice.rs

/work/main/downstream-test/target/release/deps/libmemmap2-e1ac0db1c548db91.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/unix.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/advice.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/unix.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/memmap2-0.9.12/src/advice.rs:
