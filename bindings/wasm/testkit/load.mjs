// Loads the nodejs build of the binding (pkg/nodejs, made by build.sh) for the tests.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const entry = join(here, '..', 'pkg', 'nodejs', 'idelink_wasm.js');

/** The binding's exports; fails with the build command when it was not built. */
export function loadEngine() {
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing: build the binding first with bash bindings/wasm/build.sh`);
  }
  return createRequire(import.meta.url)(entry);
}
