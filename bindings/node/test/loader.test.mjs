// The loader (lib/addon.js) takes its engine only from the package's own node_modules: a
// `node_modules` planted in a parent folder (`/tmp/node_modules`, `C:\node_modules`) is never
// loaded, installed or bundled, whatever the environment says. The copies below are laid out as
// npm lays out a user's project, with the package's published files; each case runs in a fresh
// Node process with a deadline. Planted packages write a marker file when they run.
//
// scripts/test runs this file twice: on the native addon (the platform package present holds
// the addon built in this checkout) and with IDELINK_FORCE_WASM=1 (then idelink-wasm present
// holds the WebAssembly build IDELINK_WASM_MODULE names).

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const nodeDir = fileURLToPath(new URL('..', import.meta.url));
const DEADLINE_MS = 20000;
const wasmRun = process.env.IDELINK_FORCE_WASM === '1';

/** This machine's platform key, as lib/addon.js computes it. */
function platformKey() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const musl = existsSync('/usr/bin/ldd') && readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  return platform === 'win32' ? `win32-${arch}-gnu` : `${platform}-${arch}`;
}
const key = platformKey();
const platformPackage = `idelink-${key}`;

const work = mkdtempSync(join(tmpdir(), 'idelink-loader-'));
after(() => rmSync(work, { recursive: true, force: true }));
const marker = join(work, 'PLANTED-CODE-RAN');

/** A package in `nodeModules/name` whose code, when loaded, writes the marker. */
function plant(nodeModules, name) {
  const dir = join(nodeModules, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.1.0', main: 'index.js' }));
  writeFileSync(
    join(dir, 'index.js'),
    `require('node:fs').appendFileSync(${JSON.stringify(marker)}, ${JSON.stringify(`${name} from ${dir}\n`)});\n` +
      'module.exports = new Proxy({}, { get: () => () => ({}) });\n',
  );
  return dir;
}

/** `idelink` as npm installs it: the published files (package.json `files`) in `nodeModules`. */
function installIdelink(nodeModules) {
  const dir = join(nodeModules, 'idelink');
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(nodeDir, 'package.json'), 'utf8'));
  for (const file of ['package.json', ...manifest.files]) {
    cpSync(join(nodeDir, file), join(dir, file), { recursive: true });
  }
}

/** The real engine of this run in `nodeModules`: the platform package, or idelink-wasm. */
function installEngine(nodeModules) {
  if (wasmRun) {
    const pkg = dirname(dirname(process.env.IDELINK_WASM_MODULE));
    const dir = join(nodeModules, 'idelink-wasm');
    cpSync(join(pkg, '..', 'package.json'), join(dir, 'package.json'));
    cpSync(pkg, join(dir, 'pkg'), { recursive: true });
    return;
  }
  const dir = join(nodeModules, platformPackage);
  const manifest = JSON.parse(readFileSync(join(nodeDir, 'npm', key, 'package.json'), 'utf8'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  cpSync(join(nodeDir, 'idelink.node'), join(dir, manifest.main));
}

/** A fresh user project, `work/<name>/project`, below a planted `work/<name>/node_modules`. */
function layout(name) {
  const parent = join(work, name);
  const project = join(parent, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true }));
  plant(join(parent, 'node_modules'), platformPackage);
  plant(join(parent, 'node_modules'), 'idelink-wasm');
  return project;
}

/** Runs `script` (CommonJS) in `cwd` with `env` added to a clean environment. */
function run(cwd, script, env = {}) {
  const clean = { ...process.env, ...env };
  for (const name of ['IDELINK_NODE_ADDON', 'IDELINK_WASM_MODULE', 'IDELINK_FORCE_WASM', 'NODE_PATH']) {
    if (!(name in env)) delete clean[name];
  }
  rmSync(marker, { force: true });
  const result = spawnSync(process.execPath, ['-e', script], { cwd, env: clean, encoding: 'utf8', timeout: DEADLINE_MS });
  assert.equal(result.error, undefined, `the process ran: ${result.error}`);
  const planted = existsSync(marker) ? readFileSync(marker, 'utf8') : '';
  assert.equal(planted, '', `planted code ran:\n${planted}`);
  return result;
}

const SHOW_BINDING = "const { binding } = require('idelink'); console.log(JSON.stringify(binding));";

/** Asserts the process printed this run's own engine, from the package's own folder. */
function assertOwnEngine(result) {
  assert.equal(result.status, 0, result.stderr);
  const binding = JSON.parse(result.stdout);
  if (wasmRun) assert.deepEqual([binding.kind, binding.source], ['wasm', 'idelink-wasm']);
  else assert.deepEqual([binding.kind, binding.source, binding.reason], ['native', platformPackage, `prebuilt for ${key}`]);
}

/** Asserts the process failed, saying no engine is installed where it looks, and nothing else ran. */
function assertNoEngine(result, where) {
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /idelink: no engine to run: /);
  assert.match(result.stderr, new RegExp(`idelink-wasm is not installed in ${where.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}`));
}

test('installed: a planted parent node_modules is never loaded; the own engine runs, or a clear error', () => {
  const project = layout('installed');
  const own = join(project, 'node_modules');
  installIdelink(own);
  // Neither the platform package nor idelink-wasm beside idelink (--omit=optional, a .vsix of
  // another platform): the planted ones above are the only ones Node's resolution would find.
  assertNoEngine(run(project, SHOW_BINDING, wasmRun ? { IDELINK_FORCE_WASM: '1' } : {}), join(own, 'idelink', 'node_modules'));
  installEngine(own);
  assertOwnEngine(run(project, SHOW_BINDING, wasmRun ? { IDELINK_FORCE_WASM: '1' } : {}));
});

test('installed: IDELINK_NODE_ADDON and IDELINK_WASM_MODULE are development switches, ignored here', () => {
  const project = layout('switches');
  const own = join(project, 'node_modules');
  installIdelink(own);
  installEngine(own);
  const planted = plant(join(dirname(project), 'elsewhere'), 'payload');
  const env = { IDELINK_NODE_ADDON: join(planted, 'index.js'), IDELINK_WASM_MODULE: join(planted, 'index.js') };
  assertOwnEngine(run(project, SHOW_BINDING, wasmRun ? { ...env, IDELINK_FORCE_WASM: '1' } : env));
});

test('bundled: the engine comes from the extension’s own node_modules, never a parent’s', () => {
  const project = layout('bundled');
  const own = join(project, 'node_modules');
  installIdelink(own);
  writeFileSync(join(project, 'extension.js'), SHOW_BINDING);
  execFileSync(
    join(nodeDir, 'node_modules', '.bin', 'esbuild'),
    ['extension.js', '--bundle', '--platform=node', '--target=node20', '--outfile=dist/extension.js', '--log-level=error'],
    { cwd: project, timeout: DEADLINE_MS },
  );
  // The bundle holds all of idelink's JavaScript: the package itself is not shipped.
  rmSync(join(own, 'idelink'), { recursive: true });
  const bundle = "require('./dist/extension.js');";
  const env = wasmRun ? { IDELINK_FORCE_WASM: '1' } : {};
  assertNoEngine(run(project, bundle, env), join(project, 'dist', 'node_modules'));
  installEngine(own);
  assertOwnEngine(run(project, bundle, env));
});
