'use strict';
// Picks the engine's binding, the napi-rs way: the prebuilt addon of this platform comes in its
// own npm package (idelink-<platform>, an optional dependency that npm installs only where its
// `os` / `cpu` / `libc` match), required by package name; when none fits, the same engine runs
// as WebAssembly (the `idelink-wasm` package's Node build, through lib/wasm.js). In order:
//
// 1. IDELINK_NODE_ADDON=/path/to/addon: that file (a release build for the benchmark, a build
//    of another branch);
// 2. IDELINK_FORCE_WASM=1: the WebAssembly engine (IDELINK_WASM_MODULE=/path/to/idelink_wasm.js
//    names a build outside node_modules);
// 3. idelink.node beside package.json: a build from source in a checkout (scripts/test puts it
//    there; the published package has none);
// 4. the platform package, by name;
// 5. the WebAssembly engine, saying why the native one was not used (`binding.reason`).
//
// Package names are computed, never literal: a bundler (esbuild, webpack) leaves such a require
// to run time, where Node resolves it from the node_modules beside the bundle, instead of trying
// to inline a .node file or the wasm module's `__dirname`-relative read.

const fs = require('node:fs');
const path = require('node:path');

/** The platform packages, by `<platform>-<arch>[-<libc>]` (npm/<key>/ in the repository). */
const PLATFORM_PACKAGES = new Set([
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-gnu',
]);
const PACKAGE = 'idelink';
const WASM_PACKAGE = 'idelink-wasm';

/** Whether this Linux runs on musl: its `ldd` says so, or Node's report names no glibc. */
function isMusl() {
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
  } catch {
    return !process.report?.getReport?.()?.header?.glibcVersionRuntime;
  }
}

/** This process's platform key, as the platform packages are named. */
function platformKey() {
  const { platform, arch } = process;
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  // The Windows addon is built with mingw-w64 (x86_64-pc-windows-gnu); it runs in any node.exe.
  if (platform === 'win32') return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

/** Loads a native addon file whatever its name ends with (require needs `.node`). */
function dlopen(file) {
  const module = { exports: {} };
  process.dlopen(module, file);
  return module.exports;
}

/** The WebAssembly engine behind the addon's function set. */
function wasm(reason) {
  const { wasmBinding } = require('./wasm.js');
  const source = process.env.IDELINK_WASM_MODULE || WASM_PACKAGE;
  let module;
  try {
    module = require(source);
  } catch (err) {
    throw new Error(
      `idelink: no engine to run: ${reason}, and the WebAssembly engine (${source}) did not ` +
        `load: ${err.message}. Reinstall idelink (npm install idelink) so npm adds ` +
        `${WASM_PACKAGE}, or build from source (bindings/node/README.md)`,
      { cause: err },
    );
  }
  return { kind: 'wasm', source, reason, exports: wasmBinding(module) };
}

/** The binding to use, with where it came from: `{kind, source, reason, exports}`. */
function load() {
  const file = process.env.IDELINK_NODE_ADDON;
  if (file) return { kind: 'native', source: file, reason: 'IDELINK_NODE_ADDON', exports: dlopen(file) };
  if (process.env.IDELINK_FORCE_WASM === '1') return wasm('IDELINK_FORCE_WASM=1 asked for it');

  const built = path.join(__dirname, '..', 'idelink.node');
  if (fs.existsSync(built)) return { kind: 'native', source: built, reason: 'built from source', exports: dlopen(built) };

  const key = platformKey();
  if (!PLATFORM_PACKAGES.has(key)) return wasm(`no prebuilt addon for ${key}`);
  const name = `${PACKAGE}-${key}`;
  try {
    return { kind: 'native', source: name, reason: `prebuilt for ${key}`, exports: require(name) };
  } catch (err) {
    const why = err.code === 'MODULE_NOT_FOUND' ? 'is not installed' : `did not load (${err.message})`;
    return wasm(`${name} ${why}`);
  }
}

const binding = load();

module.exports = binding.exports;
/** Which engine runs: `kind` "native" or "wasm", its `source`, and the `reason` it was picked. */
module.exports.binding = Object.freeze({ kind: binding.kind, source: binding.source, reason: binding.reason });
