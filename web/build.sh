#!/usr/bin/env bash
# Builds the viewer for a browser into target/web/ (index.html, the JS
# glue, the .wasm): a static folder to serve or host as it is. Installs
# what it lacks: the wasm32 target (rustup) and wasm-bindgen-cli at
# exactly the version Cargo.lock pins (cargo install --locked). Runs
# wasm-opt where it is installed (Debian's binaryen).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=wasm32-unknown-unknown
OUT=target/web

if ! rustup target list --installed | grep -qx "$TARGET"; then
    rustup target add "$TARGET"
fi

# The tool must match the wasm-bindgen crate the build links, to the patch.
VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$VERSION" ]; then
    # Its own lock file names versions a registry may no longer serve
    # (yanked): then its dependencies are resolved anew.
    cargo install --locked wasm-bindgen-cli --version "$VERSION" ||
        cargo install wasm-bindgen-cli --version "$VERSION"
fi

cargo build --profile web-release --target "$TARGET" --no-default-features --features viewer --bin io3d-viewer

rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
# The names section (function names, 23 MB) goes; wasm-bindgen reads the
# target features section before, so the build does not strip them.
wasm-bindgen --target web --no-typescript --remove-name-section --out-dir "$OUT.tmp" \
    "target/$TARGET/web-release/io3d-viewer.wasm"
# Debian 12's binaryen (108) breaks the externref table wasm-bindgen makes
# (the page fails at start in WebAssembly.Table.set): only newer ones run.
OPT_VERSION=$(wasm-opt --version 2>/dev/null | awk '{print $3}' || true)
if [ "${OPT_VERSION:-0}" -ge 116 ] 2>/dev/null; then
    # The features Rust emits for this target by default, and no others.
    wasm-opt -Os --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-reference-types --enable-multivalue \
        -o "$OUT.tmp/io3d-viewer_bg.wasm" "$OUT.tmp/io3d-viewer_bg.wasm"
else
    echo "wasm-opt ${OPT_VERSION:-not found}: 116 or newer is needed; the .wasm is left as built" >&2
fi
cp web/index.html "$OUT.tmp/"
# The folder is replaced whole, never left half built.
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
wasm="$OUT/io3d-viewer_bg.wasm"
echo "built $OUT: $(stat -c %s "$wasm") bytes of wasm, $(gzip -9c "$wasm" | wc -c) gzipped"
