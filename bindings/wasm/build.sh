#!/usr/bin/env bash
# Builds the npm package into pkg/: the release module through wasm-bindgen for browsers
# (pkg/web, ES module + init) and for Node (pkg/nodejs, CommonJS), each shrunk with
# wasm-opt -Oz from npm `binaryen` (Debian's binaryen 108 emits modules that fail to load),
# then prints the sizes. Needs: the wasm32-unknown-unknown target, wasm-bindgen-cli of the
# same version as the wasm-bindgen crate, and `npm ci` run here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"

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

cargo build -p idelink-wasm --target wasm32-unknown-unknown --profile wasm-release
module="$target_dir/wasm32-unknown-unknown/wasm-release/idelink_wasm.wasm"

for target in web nodejs; do
  out="$here/pkg/$target"
  rm -rf "$out"
  wasm-bindgen --target "$target" --out-dir "$out" --out-name idelink_wasm "$module"
  if [ "$target" = nodejs ]; then
    # The package is "type": "module"; this build is CommonJS.
    echo '{ "type": "commonjs" }' >"$out/package.json"
  fi
  bg="$out/idelink_wasm_bg.wasm"
  before=$(stat -c %s "$bg")
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$bg" -o "$bg"
  echo "pkg/$target/idelink_wasm_bg.wasm: $before bytes after wasm-bindgen, $(stat -c %s "$bg") after wasm-opt -Oz"
done
