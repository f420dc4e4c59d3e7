// The claude CLI's discovery rules (core's `discovery` module) through the package: the same
// answers as core's own tests, with the NFC the binding adds (core compares text as given).
// Runs on the native addon and, with IDELINK_FORCE_WASM=1, on the WebAssembly engine.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover, folderContains } from 'idelink';

const composed = '/tmp/caf\u00e9';
const decomposed = '/tmp/cafe\u0301';
const lock = (port, ...workspaceFolders) => ({ port, workspaceFolders });

test('claude --ide in a served folder connects to that lock', () => {
  const verdict = discover({
    cwd: '/p/src',
    locks: [lock(4242, '/p'), lock(4243, '/q')],
    env: { HOME: '/h', TERM_PROGRAM: 'xterm' },
    ideFlag: true,
  });
  assert.deepEqual(verdict, {
    autoConnect: { state: 'on', reason: 'ideFlag' },
    choice: { kind: 'one', port: 4242 },
    ideTerminal: null,
    ancestorRule: false,
    connectsTo: 4242,
  });
});

test('paths compare in NFC, as the CLI compares them', () => {
  assert.equal(folderContains(composed, `${decomposed}/src`, 'posix'), true);
  assert.equal(folderContains(decomposed, composed, 'posix'), true);
  const verdict = discover({ cwd: `${composed}/x`, locks: [lock(3, decomposed)], ideFlag: true });
  assert.equal(verdict.connectsTo, 3);
});

test('containment is a prefix ending at a separator, in the style of claude\'s machine', () => {
  assert.equal(folderContains('/a/b', '/a/b/c', 'posix'), true);
  assert.equal(folderContains('/a/b', '/a/bc', 'posix'), false);
  assert.equal(folderContains('/A/b', '/a/b', 'posix'), false);
  assert.equal(folderContains('', '/a', 'posix'), false);
  assert.equal(folderContains('C:/w', 'C:\\w\\src', 'windows'), true);
  assert.equal(folderContains('C:/w', 'C:\\w\\src', 'posix'), false);
  assert.throws(() => folderContains('/a', '/a', 'mac'), /pathStyle must be "posix" or "windows", got "mac"/);
});

test('plain claude waits for /ide; a "no" in CLAUDE_CODE_AUTO_CONNECT_IDE wins', () => {
  const plain = discover({ cwd: '/p', locks: [lock(1, '/p')] });
  assert.deepEqual(plain.autoConnect, { state: 'notRequested' });
  assert.deepEqual(plain.choice, { kind: 'one', port: 1 });
  assert.equal(plain.connectsTo, null);
  const no = discover({ cwd: '/p', locks: [lock(1, '/p')], ideFlag: true, env: { CLAUDE_CODE_AUTO_CONNECT_IDE: 'off' } });
  assert.deepEqual(no.autoConnect, { state: 'disabled' });
  assert.equal(no.connectsTo, null);
  const config = discover({ cwd: '/p', locks: [], autoConnectConfig: true });
  assert.deepEqual(config.autoConnect, { state: 'on', reason: 'autoConnectConfig' });
  assert.deepEqual(config.choice, { kind: 'none' });
});

test('two servers on one folder connect none, unless the port is named', () => {
  const locks = [lock(1, '/p'), lock(2, '/p')];
  const both = discover({ cwd: '/p', locks, ideFlag: true });
  assert.deepEqual(both.choice, { kind: 'ambiguous', ports: [1, 2] });
  assert.equal(both.connectsTo, null);
  const named = discover({ cwd: '/elsewhere', locks, env: { CLAUDE_CODE_SSE_PORT: '2', TERM_PROGRAM: 'vscode' } });
  assert.deepEqual(named.autoConnect, { state: 'on', reason: 'ssePort' });
  assert.equal(named.connectsTo, 2);
  assert.equal(named.ideTerminal, 'vscode');
  assert.equal(named.ancestorRule, false);
  const skip = discover({ cwd: '/r', locks: [lock(1, '/p')], ideFlag: true, env: { CLAUDE_CODE_IDE_SKIP_VALID_CHECK: '1' } });
  assert.equal(skip.connectsTo, 1);
});

test('in an IDE terminal without a named port the lock owner must be an ancestor', () => {
  const verdict = discover({
    cwd: 'C:\\w\\src',
    pathStyle: 'windows',
    locks: [lock(7, 'C:/w')],
    env: { TERMINAL_EMULATOR: 'JetBrains-JediTerm' },
    ideFlag: true,
  });
  assert.equal(verdict.connectsTo, 7);
  assert.equal(verdict.ideTerminal, 'jetbrains');
  assert.equal(verdict.ancestorRule, true);
});

test('a malformed start is refused, naming what is wrong', () => {
  assert.throws(() => discover({ cwd: '/p', locks: [], lockz: 1 }), /^Error: start: unknown field `lockz`/);
  assert.throws(() => discover({ locks: [] }), /^Error: start: missing field `cwd`/);
  assert.throws(() => discover({ cwd: '/p', locks: [{ port: 70000, workspaceFolders: [] }] }), /^Error: start: /);
  assert.throws(() => discover('/p'), /start must be a plain object/);
});
