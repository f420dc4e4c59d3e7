// Host#attachLink with a real `idelink bridge` (the binary of `cargo build -p idelink`, or
// IDELINK_BIN), spawned with its own CLAUDE_CONFIG_DIR: the test acts as claude there, reading
// the far lock the bridge writes and dialing its port. The lock holds this host's token and
// name and the folder as the far side spells it (the engine's pathMap); claude upgrades,
// initializes and calls a tool over the link; a wrong token is refused; a 1 MiB answer goes
// whole through a stream that refuses writes (back-pressure); ending the link, or the bridge
// exiting, ends it on both sides (the far lock removed). Every wait has a deadline.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Writable } from 'node:stream';
import { after, test } from 'node:test';
import { startHost } from 'idelink';
import { Client, Waiters, refusal, within } from '../testkit/claude.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const IDELINK =
  process.env.IDELINK_BIN ??
  join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'debug', process.platform === 'win32' ? 'idelink.exe' : 'idelink');
/** The far side's name for the workspace. */
const FAR = '/far/proj';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'idelink-link-')));
after(() => rmSync(base, { recursive: true, force: true }));

/** Resolves once `path` no longer exists (watching its folder, with a deadline). */
function gone(path, what) {
  return within(
    new Promise((resolve) => {
      const watcher = watch(dirname(path), () => {
        if (!existsSync(path)) {
          watcher.close();
          resolve();
        }
      });
      if (!existsSync(path)) {
        watcher.close();
        resolve();
      }
    }),
    what,
  );
}

/** A host serving `work` under the far name FAR, its events in `events`. */
function host(work, events, onToolCall) {
  return startHost({
    workspaceFolders: [work],
    ideName: 'Link Test',
    lock: 'none',
    engine: { readyDelayMs: 0, pathMap: [`${FAR}=${work}`] },
    onEvent: (event) => events.push(event),
    onToolCall,
  });
}

/** claude at the bridge's `port`, upgraded and initialized. */
async function initialized(port, token) {
  const claude = new Client(port, token);
  await claude.open();
  const init = await claude.request(0, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'claude-code', version: '2.1.332' },
  });
  assert.ok(init.result.capabilities.tools, 'tools capability advertised');
  claude.send({ method: 'notifications/initialized' });
  return claude;
}

/** `idelink bridge` with its own CLAUDE_CONFIG_DIR under `dir`; its stderr lines in `lines`. */
function bridge(dir) {
  assert.ok(existsSync(IDELINK), `${IDELINK} is missing: build it with cargo build -p idelink, or set IDELINK_BIN`);
  const child = spawn(IDELINK, ['bridge'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = new Waiters();
  let held = '';
  child.stderr.setEncoding('utf8').on('data', (text) => {
    const parts = (held + text).split('\n');
    held = parts.pop();
    for (const line of parts) lines.push(line);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exited };
}

/** The far lock the bridge announced on stderr once the host's hello came, and its body. */
async function farLock(lines) {
  const up = await lines.next((l) => l.startsWith('idelink bridge: listening on 127.0.0.1:'), 'the bridge to listen');
  const path = up.slice(up.indexOf(', lock ') + ', lock '.length);
  return { path, body: JSON.parse(readFileSync(path, 'utf8')) };
}

test('claude behind a bridge is served over the link, and ending it removes the far lock', async () => {
  const dir = mkdtempSync(join(base, 'served-'));
  const events = new Waiters();
  const server = await host(dir, events);
  const far = bridge(join(dir, 'claude'));
  try {
    const hello = await within(server.attachLink(far.child), "the bridge's hello");
    assert.equal(hello.event, 'linkHello');
    assert.equal(hello.pid, far.child.pid);
    assert.equal(typeof hello.port, 'number');
    const heard = await events.next((e) => e.event === 'linkHello', 'linkHello as a host event');
    assert.equal(heard.port, hello.port);
    assert.throws(() => server.attachLink({ readable: new PassThrough(), writable: new PassThrough() }), /a link is attached already/);

    const lock = await farLock(far.lines);
    assert.equal(lock.path, join(dir, 'claude', 'ide', `${hello.port}.lock`));
    assert.equal(lock.body.authToken, server.revealAuthToken());
    assert.equal(lock.body.ideName, 'Link Test');
    assert.deepEqual(lock.body.workspaceFolders, [FAR]);
    assert.equal(lock.body.pid, far.child.pid);

    assert.equal(await refusal(hello.port, '0'.repeat(32)), 401);
    const claude = await initialized(hello.port, lock.body.authToken);
    assert.equal(claude.ws.protocol, 'mcp');
    const folders = await claude.request(1, 'tools/call', { name: 'getWorkspaceFolders', arguments: {} });
    const answer = JSON.parse(folders.result.content[0].text);
    assert.equal(answer.rootPath, FAR, 'the folder as the far side spells it');

    await within(server.endLink(), 'the link to close');
    const ended = await events.next((e) => e.event === 'linkEnded', 'linkEnded');
    assert.equal(ended.fault, 'shutdown');
    await gone(lock.path, 'the far lock to go');
    assert.equal(await claude.closeCode(), 1006, 'claude loses its connection with the link');
    // It exits by itself, in order (the host's shutdown is no fault), not by the kill below.
    assert.deepEqual(await within(far.exited, 'the bridge to exit'), { code: 0, signal: null });
  } finally {
    far.child.kill();
    await server.shutdown();
  }
});

test('an answer larger than the stream takes at once goes out whole, waiting for drain', async () => {
  const dir = mkdtempSync(join(base, 'drain-'));
  const events = new Waiters();
  const server = await host(dir, events, async (request) => ({ outcome: 'diffSaved', finalText: request.newFileContents }));
  const far = bridge(join(dir, 'claude'));
  // The bridge's stdin behind a stream that takes 1 KiB at a time: write() returns false for
  // nearly every write of the link, which then waits for 'drain'.
  let refusals = 0;
  const narrow = new Writable({
    highWaterMark: 1024,
    write(chunk, _encoding, done) {
      far.child.stdin.write(chunk, done);
    },
    final(done) {
      far.child.stdin.end(done);
    },
  });
  const write = narrow.write.bind(narrow);
  narrow.write = (chunk, ...rest) => {
    const room = write(chunk, ...rest);
    if (!room) refusals += 1;
    return room;
  };
  try {
    const hello = await within(server.attachLink({ readable: far.child.stdout, writable: narrow }), "the bridge's hello");
    const lock = await farLock(far.lines);
    const claude = await initialized(hello.port, lock.body.authToken);
    const text = 'x'.repeat(1 << 20) + '\n';
    const path = `${FAR}/big.txt`;
    const saved = await claude.request(1, 'tools/call', {
      name: 'openDiff',
      arguments: { old_file_path: path, new_file_path: path, new_file_contents: text, tab_name: 'big' },
    });
    assert.deepEqual(
      saved.result.content.map((c) => c.text),
      ['FILE_SAVED', text],
    );
    assert.ok(refusals > 0, 'write() returned false at least once');
    await within(server.endLink(), 'the link to close');
    await gone(lock.path, 'the far lock to go');
  } finally {
    far.child.kill();
    await server.shutdown();
  }
});

test('a bridge that exits ends the link: linkEnded, and a next link can attach', async () => {
  const dir = mkdtempSync(join(base, 'exits-'));
  const events = new Waiters();
  const server = await host(dir, events);
  const first = bridge(join(dir, 'claude'));
  const second = bridge(join(dir, 'claude'));
  try {
    await within(server.attachLink(first.child), "the first bridge's hello");
    const lock = await farLock(first.lines);
    first.child.kill('SIGTERM');
    const ended = await events.next((e) => e.event === 'linkEnded', 'linkEnded');
    // A bridge told to stop ends the link in order, and says so before it goes.
    assert.equal(ended.fault, 'shutdown');
    assert.equal(ended.message, "the link's peer shut it down");
    await gone(lock.path, "the first bridge's lock to go");

    const hello = await within(server.attachLink(second.child), "the second bridge's hello");
    assert.equal(hello.pid, second.child.pid);
    const next = await farLock(second.lines);
    assert.equal(next.body.authToken, server.revealAuthToken());
    await server.shutdown();
    await gone(next.path, 'the far lock to go with the host');
  } finally {
    first.child.kill();
    second.child.kill();
    await server.shutdown();
  }
});

test('a stream that ends before any hello rejects the hello and reports the end', async () => {
  const events = new Waiters();
  const server = await host(mkdtempSync(join(base, 'silent-')), events);
  try {
    const readable = new PassThrough();
    const writable = new PassThrough();
    const hello = server.attachLink({ readable, writable });
    readable.end();
    await assert.rejects(within(hello, 'the refusal'), /the link ended before the bridge said who it is/);
    const ended = await events.next((e) => e.event === 'linkEnded', 'linkEnded');
    assert.equal(ended.fault, 'eof');
    assert.ok(writable.writableEnded, 'the stream is closed');
    assert.throws(() => server.attachLink({}), /attachLink needs a ChildProcess or \{ readable, writable \} streams, got Object/);
  } finally {
    await server.shutdown();
  }
});

test('a stream that takes no bytes is cut off when the link ends, so endLink still resolves', async () => {
  const server = await host(mkdtempSync(join(base, 'stuck-')), new Waiters());
  try {
    const readable = new PassThrough();
    // Never done with its first write: end() would wait for ever.
    const writable = new Writable({ highWaterMark: 1, write() {} });
    const hello = server.attachLink({ readable, writable });
    await within(server.endLink(), 'the stream to be cut off');
    assert.ok(writable.destroyed && readable.destroyed, 'both ends destroyed');
    await assert.rejects(hello, /the link ended before the bridge said who it is: the link was shut down/);
  } finally {
    await server.shutdown();
  }
});
