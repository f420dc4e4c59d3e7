// startHost's `resume` over real loopback sockets on port 0 and a real lock directory (issue
// 33 §2): a server closed and started again for the same editor and folders comes back on its
// port with its token (an upgrade with the old token is accepted); a live server's record, a
// record readable by others or a symbolic link, and a busy port start fresh and say why; with
// resume off no record is kept; on the WebAssembly fallback a server starts fresh and says why.
// Every wait has a deadline; nothing sleeps. Unix: the records planted here have Unix modes (a
// Node server on Windows always starts fresh).

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRequire } from 'node:module';
import { lockFileJson, startHost } from 'idelink';

const addon = createRequire(import.meta.url)('../lib/addon.js');
const DEADLINE_MS = 5000;
const DEAD_PID = 2 ** 31 - 1;
const TOKEN = '0123456789abcdef0123456789abcdef';
const unix = process.platform !== 'win32';

const base = mkdtempSync(join(tmpdir(), 'idelink-resume-'));
after(() => rmSync(base, { recursive: true, force: true }));
let next = 0;
/** A fresh lock directory. */
function lockDir() {
  const dir = join(base, `c${next++}`, 'ide');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(join(dir, '..'), 0o700);
  return dir;
}

const options = (dir) => ({ workspaceFolders: ['/w'], ideName: 'ResumeTest', lock: { dir }, resume: true });

/** The status line of an upgrade to `port` presenting `token`. */
function upgrade(port, token) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => reject(new Error('no upgrade answer within the deadline')), DEADLINE_MS);
    let head = '';
    socket.on('connect', () =>
      socket.write(
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
          `Sec-WebSocket-Protocol: mcp\r\nx-claude-code-ide-authorization: ${token}\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n')) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(head.split('\r\n')[0]);
    });
    socket.on('error', reject);
  });
}

/** A port nobody listens on now. */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Writes a record by hand for `port`, as a server of ResumeTest on /w would. */
function plant(dir, port, { running = false, pid = DEAD_PID, mode = 0o600 } = {}) {
  const lock = lockFileJson({ pid, workspaceFolders: ['/w'], ideName: 'ResumeTest', authToken: TOKEN });
  const file = join(dir, addon.resumeRecordFileName(port));
  writeFileSync(file, addon.resumeRecordJson(port, running, Date.now(), lock), { mode });
  chmodSync(file, mode);
  return file;
}

test('a server closed and started again takes back its port and token', { skip: !unix }, async () => {
  const dir = lockDir();
  const first = await startHost(options(dir));
  assert.equal(first.resumed, false);
  assert.match(first.resumeNote, /^started a new session \(no recent session/);
  const { port } = first;
  const token = first.revealAuthToken();
  await first.shutdown(0);

  const second = await startHost(options(dir));
  try {
    assert.equal(second.resumed, true, second.resumeNote);
    assert.equal(second.port, port);
    assert.equal(second.revealAuthToken(), token);
    assert.match(second.resumeNote, new RegExp(`^resumed the last session on port ${port}`));
    assert.equal(await upgrade(port, token), 'HTTP/1.1 101 Switching Protocols');
    assert.match(await upgrade(port, TOKEN), /^HTTP\/1.1 401/);
  } finally {
    await second.shutdown(0);
  }
});

test('without resume no record is kept and none is used', { skip: !unix }, async () => {
  const dir = lockDir();
  plant(dir, await freePort());
  const server = await startHost({ ...options(dir), resume: false });
  try {
    assert.equal(server.resumed, false);
    assert.equal(server.resumeNote, 'resume is off');
    assert.notEqual(server.revealAuthToken(), TOKEN);
    assert.equal(existsSync(join(dir, `${server.port}.resume`)), false);
  } finally {
    await server.shutdown(0);
  }
});

test('a live server, a record others can read, a link and a busy port start fresh', { skip: !unix }, async () => {
  const cases = [
    [(dir, port) => plant(dir, port, { running: true, pid: process.pid }), `(pid ${process.pid}) is still serving`],
    [(dir, port) => plant(dir, port, { mode: 0o644 }), 'readable by others (mode 0644)'],
    [
      (dir, port) => {
        const elsewhere = lockDir();
        const target = plant(elsewhere, port);
        symlinkSync(target, join(dir, addon.resumeRecordFileName(port)));
      },
      'is a symbolic link',
    ],
  ];
  for (const [arrange, why] of cases) {
    const dir = lockDir();
    arrange(dir, await freePort());
    const server = await startHost(options(dir));
    try {
      assert.equal(server.resumed, false, server.resumeNote);
      assert.ok(server.resumeNote.includes(why), server.resumeNote);
      assert.notEqual(server.revealAuthToken(), TOKEN);
    } finally {
      await server.shutdown(0);
    }
  }

  const dir = lockDir();
  const taken = net.createServer();
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const busy = taken.address().port;
  plant(dir, busy);
  const server = await startHost(options(dir));
  try {
    assert.equal(server.resumed, false);
    assert.equal(server.resumeNote, `started a new session (port ${busy} is in use)`);
    assert.notEqual(server.port, busy);
  } finally {
    await server.shutdown(0);
    await new Promise((resolve) => taken.close(resolve));
  }
});
