#!/usr/bin/env node
// The npm packages as a new user gets them (scripts/npm-build packs them first):
//
//   node scripts/npm-check.mjs [--real-claude DRIVER] [TARBALL_DIR]
//                                        (default TARBALL_DIR: $CARGO_TARGET_DIR/npm/tarballs)
//
// In a fresh temporary project whose PATH has no cargo or rustc, `npm install` the tarballs of
// idelink, idelink-wasm and this platform's idelink-<platform>; bundle the example extension
// (bindings/node/examples/bundled-extension) with esbuild; remove node_modules/idelink (the
// bundle must hold all of its JavaScript); run the bundle and serve a session to a real
// WebSocket client (`ws`): initialize, the selection the extension reported, openFile and
// openDiff answered by the extension. Then remove the platform package and run it again: the
// same session on the WebAssembly engine. Both runs sit below a planted node_modules (packages
// named idelink-<platform> and idelink-wasm in the temporary folder's parent of the project) that
// must never run; then, with idelink-wasm removed too, the bundle must fail naming the folders it
// looked in. With --real-claude (the idelink-node example
// `npm_real_claude`, bindings/node/tests/drivers), each run is followed by the pinned claude CLI
// connecting to the bundle and having its diff accepted (skipped loudly without the CLI, failing
// with CI=true). Fails on the first difference. About 20 s, and 15 s per real-CLI run.

import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const DEADLINE_MS = 15000;
const root = fileURLToPath(new URL('..', import.meta.url));
const nodeDir = join(root, 'bindings', 'node');
const WebSocket = createRequire(join(nodeDir, 'package.json'))('ws');
const esbuild = join(nodeDir, 'node_modules', '.bin', 'esbuild');
const { values: flags, positionals } = parseArgs({ options: { 'real-claude': { type: 'string' } }, allowPositionals: true });
const tarballs = positionals[0] ?? join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'npm', 'tarballs');

/** This machine's platform package (as lib/addon.js names it). */
function platformPackage() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const musl = existsSync('/usr/bin/ldd') && readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    return `idelink-linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  return platform === 'win32' ? `idelink-win32-${arch}-gnu` : `idelink-${platform}-${arch}`;
}

function tarball(name) {
  const file = readdirSync(tarballs).find((f) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`).test(f));
  assert.ok(file, `no ${name}-<version>.tgz in ${tarballs}: run scripts/npm-build first`);
  return join(tarballs, file);
}

function within(promise, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const work = mkdtempSync(join(tmpdir(), 'idelink-npm-check-'));
const project = join(work, 'extension');
const config = join(work, 'claude-config');
// A PATH with node and npm and the system's tools, and no Rust toolchain.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: config };
delete env.IDELINK_NODE_ADDON;
delete env.IDELINK_FORCE_WASM;
delete env.IDELINK_WASM_MODULE;
const planted = join(work, 'PLANTED-CODE-RAN');

/** Packages above the project that Node's bare-name resolution would find; each writes `planted`. */
function plantAbove() {
  for (const name of [platformPackage(), 'idelink-wasm']) {
    const dir = join(work, 'node_modules', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.1.0', main: 'index.js' }));
    writeFileSync(join(dir, 'index.js'), `require('node:fs').appendFileSync(${JSON.stringify(planted)}, '${name}\\n');`);
  }
}

function assertNothingPlantedRan() {
  assert.equal(existsSync(planted) ? readFileSync(planted, 'utf8') : '', '', 'a package planted above the project ran');
}

const sh = (command, options = {}) => execFileSync('sh', ['-c', command], { cwd: project, env, stdio: 'inherit', ...options });

/** Runs the bundle, serves one session to a WebSocket client, stops it; returns its engine line. */
async function serveOneSession() {
  // --diff accept: the example rejects every diff unless told otherwise.
  const proc = spawn(process.execPath, [join(project, 'dist', 'extension.js'), '--diff', 'accept', project], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let stdout = '';
  const watchers = [];
  proc.stdout.on('data', (chunk) => {
    stdout += chunk;
    for (const w of watchers) if (w.pattern.test(stdout)) w.resolve(stdout.match(w.pattern));
  });
  const printed = (pattern, what) =>
    within(new Promise((resolve) => (pattern.test(stdout) ? resolve(stdout.match(pattern)) : watchers.push({ pattern, resolve }))), what);
  try {
    const [, engine] = await printed(/engine: (.*)\n/, 'the engine line');
    const [, lockPath] = await printed(/lock file: (\S+)\n/, 'the lock path');
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    assert.deepEqual(lock.workspaceFolders, [project]);
    const port = Number(/(\d+)\.lock$/.exec(lockPath)[1]);

    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'mcp', {
      headers: { 'x-claude-code-ide-authorization': lock.authToken },
    });
    const answers = new Map();
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      answers.get(message.id)?.(message);
    });
    await within(new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)), 'the upgrade');
    let id = 0;
    const request = (method, params) => {
      id += 1;
      const answer = within(new Promise((resolve) => answers.set(id, resolve)), `the answer to ${method}`);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return answer;
    };
    const call = async (name, args) => (await request('tools/call', { name, arguments: args })).result;

    const init = await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'claude-code', version: '2.1.332' },
    });
    assert.equal(typeof init.result.serverInfo.name, 'string');
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const selection = JSON.parse((await call('getCurrentSelection', {})).content[0].text);
    assert.equal(selection.text, 'hello');
    assert.equal(selection.filePath, join(project, 'README.md'));
    assert.equal((await call('openFile', { filePath: join(project, 'a.txt') })).isError, undefined);
    const diff = await call('openDiff', {
      old_file_path: join(project, 'a.txt'),
      new_file_path: join(project, 'a.txt'),
      new_file_contents: 'new text\n',
      tab_name: 'tab',
    });
    assert.deepEqual(diff.content, [
      { type: 'text', text: 'FILE_SAVED' },
      { type: 'text', text: 'new text\n' },
    ]);
    ws.close();

    proc.kill('SIGTERM');
    assert.deepEqual(await within(exited, 'the extension to stop'), { code: 0, signal: null });
    assert.equal(existsSync(lockPath), false, 'the lock is removed');
    return engine;
  } finally {
    proc.kill('SIGKILL');
  }
}

/** The pinned claude CLI against the bundle (when --real-claude names the driver). */
function realClaude(engine) {
  const driver = flags['real-claude'];
  if (driver === undefined) return;
  console.log(`npm-check: the real claude CLI against the bundled extension on ${engine}`);
  execFileSync(driver, [process.execPath, join(project, 'dist', 'extension.js')], { env, stdio: 'inherit' });
}

try {
  const rust = spawnSync('sh', ['-c', 'command -v cargo || command -v rustc'], { env, encoding: 'utf8' });
  assert.notEqual(rust.status, 0, `the check's PATH must hold no Rust toolchain, found ${rust.stdout}`);

  cpSync(join(nodeDir, 'examples', 'bundled-extension', 'extension.js'), join(project, 'extension.js'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bundled-extension', private: true }));
  writeFileSync(join(project, 'README.md'), 'hello\n');
  const platform = platformPackage();
  const packages = ['idelink', 'idelink-wasm', platform].map(tarball);
  console.log(`npm-check: npm install ${packages.join(' ')} (PATH=${env.PATH})`);
  // --offline: the tarballs are all there is; the other platforms' optional packages are skipped.
  sh(`npm install --offline --no-audit --no-fund --loglevel=error ${packages.map((p) => `'${p}'`).join(' ')}`);
  execFileSync(esbuild, ['extension.js', '--bundle', '--platform=node', '--target=node20', '--outfile=dist/extension.js', '--log-level=warning'], {
    cwd: project,
    stdio: 'inherit',
  });
  rmSync(join(project, 'node_modules', 'idelink'), { recursive: true });
  plantAbove();

  const native = await serveOneSession();
  assertNothingPlantedRan();
  assert.match(native, new RegExp(`^native \\(${platform}: prebuilt for `));
  console.log(`npm-check: the bundled extension served a session on ${native}`);
  realClaude(native);

  rmSync(join(project, 'node_modules', platform), { recursive: true });
  const wasm = await serveOneSession();
  assertNothingPlantedRan();
  assert.match(wasm, new RegExp(`^wasm \\(idelink-wasm: ${platform} is not installed\\)$`));
  console.log(`npm-check: without ${platform}, the bundled extension served a session on ${wasm}`);
  realClaude(wasm);
  assertNothingPlantedRan();

  rmSync(join(project, 'node_modules', 'idelink-wasm'), { recursive: true });
  const none = spawnSync(process.execPath, [join(project, 'dist', 'extension.js'), project], {
    cwd: project,
    env,
    encoding: 'utf8',
    timeout: DEADLINE_MS,
  });
  assertNothingPlantedRan();
  assert.notEqual(none.status, 0, 'with no engine of its own the bundle must not run');
  assert.match(none.stderr, /idelink: no engine to run: .* idelink-wasm is not installed in /);
  console.log('npm-check: with no engine of its own (one planted above), the bundle failed clearly');
} finally {
  rmSync(work, { recursive: true, force: true });
}
