#!/usr/bin/env bash
# Builds the npm package into pkg/, from two modules of the same crate:
# - the browser module (no cargo features: the Engine and languageId), through
#   wasm-bindgen for browsers (pkg/web: ES module + init(), with the relay link client js/link.*)
#   and for bundlers that load .wasm imports (pkg/bundler), the same bytes;
# - the Node module (feature `node`: also the terminal environment and the lock file, resume
#   record, pump policy and discovery rules, the function set of the npm package `idelink`'s
#   native addon, for its WebAssembly fallback) for Node (pkg/nodejs, CommonJS).
# A page behind `idelink relay` needs none of the host-file rules (the relay keeps the lock file
# and the sockets), and its download is the module's size. Each module is shrunk with wasm-opt
# -Oz from npm `binaryen` (Debian's binaryen 108 emits modules that fail to load); the sizes are
# printed.
#
# Both modules are built by a dated nightly (`nightly` below) that rebuilds std for size
# (-Zbuild-std, feature optimize_for_size) with panics that abort at once
# (-Cpanic=immediate-abort: no panic message is formatted, no source location kept; on
# wasm32-unknown-unknown a panic only ever trapped, with its message written nowhere) and no
# Debug formatting (-Zfmt-debug=none): 23 KB off the browser module (bindings/wasm/README.md,
# "Module size"). The crate builds with stable too (cargo test, clippy); only the shipped
# modules need the nightly. Needs: that nightly with rust-src and the wasm32-unknown-unknown
# target, wasm-bindgen-cli of the same version as the wasm-bindgen crate, and `npm ci` run
# here; scripts/install installs all three.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# A separate target directory: std built for size must not evict the stable builds' artifacts.
target_dir="${CARGO_TARGET_DIR:-$root/target}/wasm-nightly"
nightly="nightly-2026-10-30"

if ! rustup +"$nightly" component list --installed 2>/dev/null | grep -q '^rust-src'; then
  echo "rust $nightly with rust-src is missing:" >&2
  echo "  rustup toolchain install $nightly --profile minimal -c rust-src -t wasm32-unknown-unknown" >&2
  exit 1
fi

want="$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$here/Cargo.toml")"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$want" ]; then
  echo "wasm-bindgen CLI ${have:-missing}, need $want:" >&2
  echo "  cargo install wasm-bindgen-cli --version $want --no-default-features" >&2
  exit 1
fi
wasm_opt="$here/node_modules/.bin/wasm-opt"
if [ ! -x "$wasm_opt" ]; then
  echo "$wasm_opt is missing: run (cd bindings/wasm && npm ci)" >&2
  exit 1
fi

# `module FEATURES`: builds the crate with cargo FEATURES, prints the module's path.
module() {
  RUSTFLAGS="${RUSTFLAGS:-} -Zunstable-options -Cpanic=immediate-abort -Zfmt-debug=none -Zlocation-detail=none" \
    CARGO_TARGET_DIR="$target_dir" cargo +"$nightly" build -p idelink-wasm \
    --target wasm32-unknown-unknown --profile wasm-release --no-default-features \
    -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size "$@" >&2
  echo "$target_dir/wasm32-unknown-unknown/wasm-release/idelink_wasm.wasm"
}

# `shrink FILE`: wasm-opt in place.
# --low-memory-unused: Rust places its stack first, so the first KiB of memory is never used.
# --flatten --rereloop between two -Oz runs rebuilds the control flow of the big functions
# (the engine's pump, the export shims): about 3.5 KB smaller than -Oz alone, 10 s more.
# --strip-target-features: the features section only tells tools what the module uses (151 bytes).
shrink() {
  "$wasm_opt" -Oz --flatten --rereloop -Oz --converge --low-memory-unused --strip-producers \
    --strip-target-features \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$1" -o "$1"
}

rm -rf "$here/pkg"
# The output file is the same for both builds: each is bound before the next is built.
browser="$(module)"
for target in web bundler; do
  wasm-bindgen --target "$target" --out-dir "$here/pkg/$target" --out-name idelink_wasm "$browser"
done
node="$(module --features node)"
wasm-bindgen --target nodejs --out-dir "$here/pkg/nodejs" --out-name idelink_wasm "$node"
# The package is "type": "module"; the nodejs build is CommonJS.
echo '{ "type": "commonjs" }' >"$here/pkg/nodejs/package.json"
cp "$here/js/link.js" "$here/js/link.d.ts" "$here/pkg/web/"

web="$here/pkg/web/idelink_wasm_bg.wasm"
cmp -s "$web" "$here/pkg/bundler/idelink_wasm_bg.wasm" ||
  { echo "wasm-bindgen wrote a different module for --target bundler: optimize each" >&2; exit 1; }
for bg in "$web" "$here/pkg/nodejs/idelink_wasm_bg.wasm"; do
  before=$(stat -c %s "$bg")
  shrink "$bg"
  echo "$bg: $before bytes after wasm-bindgen, $(stat -c %s "$bg") after wasm-opt -Oz"
done
cp "$web" "$here/pkg/bundler/idelink_wasm_bg.wasm"
