// Loads the binding's two modules (made by build.sh) for the tests: the Node module
// (pkg/nodejs: every export, the npm package `idelink`'s WebAssembly fallback) and the browser
// module (pkg/web: the Engine and languageId, what a page downloads).
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', 'pkg');

/** Throws with the build command when `file` was not built. */
function built(file) {
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: build the binding first with bash bindings/wasm/build.sh`);
  }
  return file;
}

/** The Node module's exports (pkg/nodejs, CommonJS). */
export function loadEngine() {
  return createRequire(import.meta.url)(built(join(pkg, 'nodejs', 'idelink_wasm.js')));
}

/** The browser module's exports (pkg/web), instantiated from its bytes as `init` does in a page. */
export async function loadBrowserEngine() {
  const web = await import(built(join(pkg, 'web', 'idelink_wasm.js')));
  web.initSync({ module: readFileSync(built(join(pkg, 'web', 'idelink_wasm_bg.wasm'))) });
  return web;
}

/** `[name, exports]` of both modules, for the engine tests each must pass. */
export async function loadBuilds() {
  return [
    ['pkg/nodejs', loadEngine()],
    ['pkg/web', await loadBrowserEngine()],
  ];
}
