#!/usr/bin/env bash
# Build the page's WebAssembly module: perfdata-wasm for wasm32-unknown-unknown (cargo profile
# `web`: optimised for size, no debug info), then wasm-bindgen's JavaScript glue for ES modules,
# both into web/pkg/ (never committed). Needs: `rustup target add wasm32-unknown-unknown`, clang
# (zstd's C code compiled for wasm32), and wasm-bindgen-cli of the version perfdata-wasm pins:
#   cargo install wasm-bindgen-cli --version "$(web/build.sh --bindgen-version)"
# Then serve web/ with any static server (python3 -m http.server -d web) and open index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' perfdata-wasm/Cargo.toml)
if [ "${1:-}" = --bindgen-version ]; then
  echo "$version"
  exit 0
fi
have=$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)
if [ "$have" != "$version" ]; then
  echo "web/build.sh: wasm-bindgen $version is needed (found: ${have:-none}):" >&2
  echo "  cargo install wasm-bindgen-cli --version $version" >&2
  exit 1
fi
cargo build -q --profile web -p perfdata-wasm --target wasm32-unknown-unknown
target=${CARGO_TARGET_DIR:-target}
rm -rf web/pkg
wasm-bindgen --target web --no-typescript --out-dir web/pkg "$target/wasm32-unknown-unknown/web/perfdata_wasm.wasm"
echo "web/pkg: $(du -k web/pkg/perfdata_wasm_bg.wasm | cut -f1) KiB of WebAssembly" >&2
