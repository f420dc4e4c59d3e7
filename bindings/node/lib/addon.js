'use strict';
// Picks the engine's binding, the napi-rs way: the prebuilt addon of this platform comes in its
// own npm package (idelink-<platform>, an optional dependency that npm installs only where its
// `os` / `cpu` / `libc` match); when none fits, the same engine runs as WebAssembly (the
// `idelink-wasm` package's Node build, through lib/wasm.js).
//
// Both are loaded only from this package's own node_modules, never by bare name: Node's
// resolution of a bare name goes on through every ancestor folder's node_modules (and
// NODE_PATH, ~/.node_modules), so a `node_modules` planted above the extension (`/tmp`,
// `C:\node_modules`, writable by any user) would supply native or JS code whenever the platform
// package is missing here (`--omit=optional`, a `.vsix` packed for another platform, an arch
// without a prebuilt). The package's own node_modules are, in order:
//
// - installed (`<nm>/idelink/lib/addon.js`): `<nm>/idelink/node_modules` (where npm nests a
//   dependency) and `<nm>`, the folder holding `idelink` (its siblings; pnpm's layout too);
// - bundled (esbuild, webpack: this file inlined into the extension's bundle): the
//   node_modules of every folder from the bundle's own up to the nearest one holding a
//   package.json (the extension's root), and no further (with no package.json above, the
//   bundle's own folder's only);
// - a checkout (bindings/node, not inside any node_modules): `bindings/node/node_modules`.
//
// A package found there is loaded from the file it resolves to, and only when that file lies
// inside the package's folder (symlinks followed). In order:
//
// 1. a checkout only (development switches, ignored by an installed or bundled copy):
//    IDELINK_NODE_ADDON=/path/to/addon, that file (a release build for the benchmark, the
//    Windows addon under Wine); IDELINK_WASM_MODULE=/path/to/idelink_wasm.js, a WebAssembly
//    build outside node_modules; `idelink.node` beside package.json (scripts/test puts it there);
// 2. IDELINK_FORCE_WASM=1: the WebAssembly engine (from the package's own node_modules);
// 3. the platform package;
// 4. the WebAssembly engine, saying why the native one was not used (`binding.reason`).
//
// Package names are computed, never literal, and package.json is read with `fs`, never
// required: a bundler (esbuild, webpack) leaves such code to run time instead of inlining a
// .node file, the wasm module's `__dirname`-relative read or this package's manifest.

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

/** The `name` of the package.json in `dir`, or null when there is none (or it is unreadable). */
function packageName(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name ?? null;
  } catch {
    return null;
  }
}

/**
 * Where this loader runs (`layout`: "installed", "bundled" or "checkout") and the node_modules
 * folders its engine may come from, nearest first. `here` is this file's folder.
 */
function homes(here) {
  const root = path.dirname(here);
  if (path.basename(here) === 'lib' && packageName(root) === PACKAGE) {
    const holder = path.dirname(root);
    if (path.basename(holder) === 'node_modules') {
      return { layout: 'installed', folders: [path.join(root, 'node_modules'), holder] };
    }
    return { layout: 'checkout', folders: [path.join(root, 'node_modules')] };
  }
  const folders = [];
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'node_modules') folders.push(path.join(dir, 'node_modules'));
    if (fs.existsSync(path.join(dir, 'package.json'))) return { layout: 'bundled', folders };
    // No package.json above the bundle: its own folder's node_modules only.
    if (path.dirname(dir) === dir) return { layout: 'bundled', folders: folders.slice(0, 1) };
  }
}

/** Whether `file` lies inside `dir` (both real paths). */
function inside(dir, file) {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * The file that package `name` loads from, in the first of `folders` holding it, or null when
 * none does. Throws when the package resolves outside its own folder.
 */
function resolveOwn(folders, name) {
  for (const folder of folders) {
    const dir = path.join(folder, name);
    if (!fs.existsSync(path.join(dir, 'package.json'))) continue;
    // Resolution from `folder` finds `folder/name` first (checked just above): `paths` makes
    // it honour the package's `exports` and `main` as a require from there would.
    const file = fs.realpathSync(require.resolve(name, { paths: [folder] }));
    const real = fs.realpathSync(dir);
    if (!inside(real, file)) {
      throw new Error(`idelink: ${name} in ${folder} resolves outside its folder (${file}); refusing to load it`);
    }
    return file;
  }
  return null;
}

/** Loads a native addon file whatever its name ends with (require needs `.node`). */
function dlopen(file) {
  const module = { exports: {} };
  process.dlopen(module, file);
  return module.exports;
}

/**
 * The WebAssembly engine behind the addon's function set, from `file` (null: not installed),
 * named `source` in `binding`.
 */
function wasm(reason, { file, source }, folders) {
  const { wasmBinding } = require('./wasm.js');
  if (file === null) {
    throw new Error(
      `idelink: no engine to run: ${reason}, and ${WASM_PACKAGE} is not installed in ` +
        `${folders.join(' or ')} (packages elsewhere are never loaded). Reinstall idelink ` +
        `(npm install idelink) so npm adds ${WASM_PACKAGE}, or build from source (bindings/node/README.md)`,
    );
  }
  let module;
  try {
    module = require(file);
  } catch (err) {
    throw new Error(
      `idelink: no engine to run: ${reason}, and the WebAssembly engine (${file}) did not ` +
        `load: ${err.message}. Reinstall idelink (npm install idelink), or build from source ` +
        `(bindings/node/README.md)`,
      { cause: err },
    );
  }
  return { kind: 'wasm', source, reason, exports: wasmBinding(module) };
}

/** The binding to use, with where it came from: `{kind, source, reason, exports}`. */
function load() {
  const { layout, folders } = homes(__dirname);
  const env = process.env;
  const wasmFile = () =>
    layout === 'checkout' && env.IDELINK_WASM_MODULE
      ? { file: env.IDELINK_WASM_MODULE, source: env.IDELINK_WASM_MODULE }
      : { file: resolveOwn(folders, WASM_PACKAGE), source: WASM_PACKAGE };

  if (layout === 'checkout') {
    const file = env.IDELINK_NODE_ADDON;
    if (file) return { kind: 'native', source: file, reason: 'IDELINK_NODE_ADDON', exports: dlopen(file) };
  }
  if (env.IDELINK_FORCE_WASM === '1') return wasm('IDELINK_FORCE_WASM=1 asked for it', wasmFile(), folders);
  if (layout === 'checkout') {
    const built = path.join(__dirname, '..', 'idelink.node');
    if (fs.existsSync(built)) return { kind: 'native', source: built, reason: 'built from source', exports: dlopen(built) };
  }

  const key = platformKey();
  if (!PLATFORM_PACKAGES.has(key)) return wasm(`no prebuilt addon for ${key}`, wasmFile(), folders);
  const name = `${PACKAGE}-${key}`;
  const file = resolveOwn(folders, name);
  if (file === null) return wasm(`${name} is not installed`, wasmFile(), folders);
  try {
    return { kind: 'native', source: name, reason: `prebuilt for ${key}`, exports: require(file) };
  } catch (err) {
    return wasm(`${name} did not load (${err.message})`, wasmFile(), folders);
  }
}

const binding = load();

module.exports = binding.exports;
/** Which engine runs: `kind` "native" or "wasm", its `source`, and the `reason` it was picked. */
module.exports.binding = Object.freeze({ kind: binding.kind, source: binding.source, reason: binding.reason });
