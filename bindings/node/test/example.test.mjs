// Runs examples/node-extension.mjs as a user would: finds it through its lock file, proposes a
// diff over a real socket, answers "y" on the example's terminal, sees the fileReplaced line
// that follows, and stops it with SIGINT.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const DEADLINE_MS = 10000;
const EXAMPLE = fileURLToPath(new URL('../examples/node-extension.mjs', import.meta.url));
const config = mkdtempSync(join(tmpdir(), 'idelink-example-'));
after(() => rmSync(config, { recursive: true, force: true }));

function within(promise, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

test('the example serves a diff and takes the answer from its terminal', async () => {
  const proc = spawn(process.execPath, [EXAMPLE, EXAMPLE], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config },
    stdio: ['pipe', 'pipe', 'inherit'],
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
    const [, lockPath] = await printed(/lock file: (\S+)\n/, 'the lock path');
    assert.ok(lockPath.startsWith(join(config, 'ide')), lockPath);
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    const port = Number(/(\d+)\.lock$/.exec(lockPath)[1]);
    assert.deepEqual(lock.workspaceFolders, [process.cwd()]);

    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'mcp', {
      headers: { 'x-claude-code-ide-authorization': lock.authToken },
    });
    const answers = new Map();
    const answered = (id) =>
      within(new Promise((resolve) => answers.set(id, resolve)), `the answer to request ${id}`);
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      answers.get(message.id)?.(message);
    });
    await within(new Promise((resolve) => ws.once('open', resolve)), 'the upgrade');
    const send = (message) => ws.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
    const init = answered(0);
    send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '9' } } });
    await init;

    const diff = answered(1);
    send({
      id: 1,
      method: 'tools/call',
      params: { name: 'openDiff', arguments: { old_file_path: '/w/a', new_file_path: '/w/a', new_file_contents: 'new text\n', tab_name: 'tab' } },
    });
    await printed(/accept this change\? \(y\/n\) $/, 'the question');
    proc.stdin.write('y\n');
    const result = await diff;
    assert.deepEqual(result.result.content, [
      { type: 'text', text: 'FILE_SAVED' },
      { type: 'text', text: 'new text\n' },
    ]);
    // The engine's fileReplaced for the accept: the example prints the bytes the file now holds.
    await printed(/\/w\/a now holds the accepted text \(9 bytes\)\n/, 'the fileReplaced line');
    ws.close();

    proc.kill('SIGINT');
    assert.deepEqual(await within(exited, 'the example to exit'), { code: 0, signal: null });
    assert.equal(existsSync(lockPath), false, 'the lock is removed');
  } finally {
    proc.kill('SIGKILL');
  }
});
