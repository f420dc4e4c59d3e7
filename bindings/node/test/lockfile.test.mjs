// The lock file startHost writes: 0600 in a 0700 directory, the engine's JSON body, stale
// locks of ours swept, a symlinked directory refused, a config directory others can write or
// own refused, an ide/ swapped while serving never written through, restored when deleted,
// rewritten when the workspace folders change, removed on close, on exit and on a signal.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defaultLockDir, lockFileJson, startHost } from 'idelink';

const DEADLINE_MS = 5000;
const DEAD_PID = 2 ** 31 - 1;
const INDEX = fileURLToPath(new URL('../index.js', import.meta.url));
const addon = createRequire(import.meta.url)('../lib/addon.js');

const bases = [];
after(() => bases.forEach((base) => rmSync(base, { recursive: true, force: true })));

function tempBase() {
  const base = mkdtempSync(join(tmpdir(), 'idelink-lock-'));
  bases.push(base);
  return base;
}

/** Checks `condition` on every turn of the event loop until it holds or the deadline passes. */
async function eventually(condition, what) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const mode = (path) => statSync(path).mode & 0o777;

/** Why startHost refused `options`, or null (after closing the server) when it started. */
function refusal(options) {
  return startHost(options).then(
    (server) => server.shutdown().then(() => null),
    (err) => err,
  );
}

test('the lock is 0600 in a 0700 directory, holds the engine body, and goes on close', async () => {
  const dir = join(tempBase(), 'config', 'ide');
  const server = await startHost({ workspaceFolders: ['/w', '/v'], ideName: 'Test Editor', pid: 4321, lock: { dir: dir }});
  try {
    assert.equal(server.lockPath, join(dir, `${server.port}.lock`));
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(server.lockPath), 0o600);
    assert.match(server.revealAuthToken(), /^[0-9a-f]{32}$/);
    const text = readFileSync(server.lockPath, 'utf8');
    assert.deepEqual(JSON.parse(text), {
      pid: 4321,
      workspaceFolders: ['/w', '/v'],
      ideName: 'Test Editor',
      transport: 'ws',
      authToken: server.revealAuthToken(),
    });
    assert.equal(text, lockFileJson({ pid: 4321, workspaceFolders: ['/w', '/v'], ideName: 'Test Editor', authToken: server.revealAuthToken() }));
    assert.deepEqual(readdirSync(dir), [`${server.port}.lock`], 'no temporary file left behind');

    server.handleEditorEvent({ type: 'workspaceFoldersChanged', folders: ['/x'] });
    assert.deepEqual(JSON.parse(readFileSync(server.lockPath, 'utf8')).workspaceFolders, ['/x']);
    assert.equal(mode(server.lockPath), 0o600, 'a rewrite keeps the mode');

    rmSync(server.lockPath);
    await eventually(() => existsSync(server.lockPath), 'the deleted lock to be restored');
    assert.equal(mode(server.lockPath), 0o600);
  } finally {
    await server.shutdown();
  }
  assert.equal(existsSync(server.lockPath), false, 'removed on close');
});

test('stale locks of ours are swept; live or foreign ones stay', async () => {
  const dir = join(tempBase(), 'ide');
  mkdirSync(dir, { mode: 0o700 });
  const body = (pid, ideName) => lockFileJson({ pid, workspaceFolders: ['/w'], ideName, authToken: 'ab' });
  writeFileSync(join(dir, '1.lock'), body(DEAD_PID, 'Test Editor'));
  writeFileSync(join(dir, '2.lock'), body(DEAD_PID, 'Another Editor'));
  writeFileSync(join(dir, '3.lock'), body(process.pid, 'Test Editor'));
  writeFileSync(join(dir, '4.lock'), 'not json');
  writeFileSync(join(dir, '05.lock'), body(DEAD_PID, 'Test Editor'));
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: dir }});
  try {
    const left = readdirSync(dir).sort();
    assert.deepEqual(left, ['05.lock', '2.lock', '3.lock', '4.lock', `${server.port}.lock`].sort());
  } finally {
    await server.shutdown();
  }
});

test('the lock placement is HostConfig.lock; a malformed one or the old lockDir is refused', async () => {
  const dir = join(tempBase(), 'placed', 'ide');
  const placed = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir } });
  await placed.shutdown();
  assert.equal(placed.lockPath, join(dir, `${placed.port}.lock`));
  await assert.rejects(startHost({ workspaceFolders: ['/w'], ideName: 'E', lock: '/x' }), /config.lock must be 'default', 'none' or \{ dir/);
  await assert.rejects(startHost({ workspaceFolders: ['/w'], ideName: 'E', lockDir: null }), /config.lockDir is now config.lock/);
  await assert.rejects(startHost({ workspaceFolders: ['/w'], ideName: 'E', lock: 'none', config: {} }), /config.config is now config.engine/);
});

test('a lock past core\'s MAX_LOCK_BYTES is not read; one at the cap is', () => {
  // lib/lock.js takes the cap from core (the addon's, or the wasm module's, maxLockBytes).
  assert.equal(addon.maxLockBytes(), 64 * 1024);
  const { sweepStale } = createRequire(import.meta.url)('../lib/lock.js');
  const dir = join(tempBase(), 'ide');
  mkdirSync(dir, { mode: 0o700 });
  const body = lockFileJson({ pid: DEAD_PID, workspaceFolders: ['/w'], ideName: 'Test Editor', authToken: 'ab' });
  const padded = (size) => body + ' '.repeat(size - Buffer.byteLength(body));
  writeFileSync(join(dir, '1.lock'), padded(addon.maxLockBytes()));
  writeFileSync(join(dir, '2.lock'), padded(addon.maxLockBytes() + 1));
  assert.deepEqual(sweepStale(dir, 'Test Editor'), [join(dir, '1.lock')]);
  assert.deepEqual(readdirSync(dir), ['2.lock']);
});

test('a symlinked or loose lock directory is refused or tightened', async () => {
  const base = tempBase();
  mkdirSync(join(base, 'real'));
  symlinkSync(join(base, 'real'), join(base, 'link'));
  await assert.rejects(
    startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(base, 'link') }}),
    /refusing lock directory .*link: it is a symbolic link/,
  );
  assert.deepEqual(readdirSync(join(base, 'real')), [], 'nothing written through the link');

  mkdirSync(join(base, 'loose'), { mode: 0o755 });
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(base, 'loose') }});
  await server.shutdown();
  assert.equal(mode(join(base, 'loose')), 0o700);
});

test('a config directory others can write is refused with the fix', async () => {
  for (const loose of [0o770, 0o707, 0o777]) {
    const config = tempBase();
    chmodSync(config, loose);
    const err = await refusal({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(config, 'ide') }});
    assert.ok(err?.message.endsWith(`fix it with: chmod go-w ${config}`), String(err));
    assert.deepEqual(readdirSync(config), [], 'nothing created in it');
  }
  // Sticky, like /tmp: only an entry's owner may rename it, so it is accepted.
  const sticky = tempBase();
  chmodSync(sticky, 0o1777);
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(sticky, 'ide') }});
  await server.shutdown();
});

test('a config directory of another user is refused', async () => {
  const config = tempBase();
  if (process.geteuid() === 0) {
    chownSync(config, 65534, 65534);
    const err = await refusal({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(config, 'ide') }});
    assert.match(String(err), /belongs to uid 65534, not to this user/);
    assert.deepEqual(readdirSync(config), [], 'nothing created in it');
  } else {
    // Only root can give a directory away: the rule startHost applies, played for another user.
    const facts = { kind: 'directory', owner: process.geteuid(), mode: 0o700 };
    assert.throws(() => addon.judgeConfigDir(config, facts, process.geteuid() + 1), /not to this user/);
  }
});

test('an ide directory swapped for a link while serving is never written through', async () => {
  const config = tempBase();
  const elsewhere = tempBase();
  const dir = join(config, 'ide');
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: dir }});
  try {
    renameSync(dir, join(config, 'moved'));
    symlinkSync(elsewhere, dir);
    assert.throws(
      () => server.handleEditorEvent({ type: 'workspaceFoldersChanged', folders: ['/w2'] }),
      /refusing lock directory .*ide: it is a symbolic link/,
    );
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing written through the link');
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(readdirSync(elsewhere), []);
});

test('the default directory honours CLAUDE_CONFIG_DIR', () => {
  assert.equal(defaultLockDir({ CLAUDE_CONFIG_DIR: '/cfg', HOME: '/home/u' }), '/cfg/ide');
  assert.equal(defaultLockDir({ CLAUDE_CONFIG_DIR: '', HOME: '/home/u' }), '/home/u/.claude/ide');
  assert.equal(defaultLockDir({ HOME: '/home/u' }), '/home/u/.claude/ide');
});

/** Runs a child that starts a server, prints its lock path, then meets `ending`. */
function child(ending) {
  const dir = join(tempBase(), 'ide');
  const script = `
    const { startHost } = require(${JSON.stringify(INDEX)});
    startHost({ workspaceFolders: ['/w'], ideName: 'Child', lock: { dir: ${JSON.stringify(dir)} }})
      .then((server) => { console.log(server.lockPath); ${ending} });`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lockPath = new Promise((resolve) => {
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error('the child did not finish in time'));
    }, DEADLINE_MS);
  });
  return { proc, lockPath: Promise.race([lockPath, deadline]), exited: Promise.race([exited, deadline]).finally(() => clearTimeout(timer)) };
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  test(`${signal} removes the lock and still ends the process by that signal`, async () => {
    const run = child('');
    const lockPath = await run.lockPath;
    assert.ok(existsSync(lockPath), 'the child wrote its lock');
    run.proc.kill(signal);
    assert.deepEqual(await run.exited, { code: null, signal });
    assert.equal(existsSync(lockPath), false);
  });
}

test('process.exit removes the lock', async () => {
  const run = child('setImmediate(() => process.exit(3));');
  const lockPath = await run.lockPath;
  assert.deepEqual(await run.exited, { code: 3, signal: null });
  assert.equal(existsSync(lockPath), false);
});
