// The claude CLI's discovery rules through the wasm binding: the same verdicts as core's own
// tests, paths put in NFC with the JS engine's String.prototype.normalize.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../testkit/load.mjs';

const { discover, folderContains } = loadEngine();

test('discover answers the Verdict form, in NFC', () => {
  const verdict = discover({
    cwd: '/tmp/caf\u00e9/src',
    locks: [{ port: 4242, workspaceFolders: ['/tmp/cafe\u0301'] }, { port: 4243, workspaceFolders: ['/q'] }],
    env: { TERM_PROGRAM: 'vscode' },
    ideFlag: true,
  });
  assert.deepEqual(verdict, {
    autoConnect: { state: 'on', reason: 'ideFlag' },
    choice: { kind: 'one', port: 4242 },
    ideTerminal: 'vscode',
    ancestorRule: true,
    connectsTo: 4242,
  });
  const both = discover({ cwd: '/p', locks: [{ port: 1, workspaceFolders: ['/p'] }, { port: 2, workspaceFolders: ['/'] }] });
  assert.deepEqual(both.choice, { kind: 'ambiguous', ports: [1, 2] });
  assert.deepEqual(both.autoConnect, { state: 'notRequested' });
  assert.equal(both.connectsTo, null);
});

test('folderContains, and a malformed start refused', () => {
  assert.equal(folderContains('C:/w', 'C:\\w\\src', 'windows'), true);
  assert.equal(folderContains('/a/b', '/a/bc', 'posix'), false);
  assert.throws(() => folderContains('/a', '/a', 'mac'), /pathStyle must be "posix" or "windows"/);
  assert.throws(() => discover({ cwd: '/p', locks: [], lockz: 1 }), /unknown field `lockz`/);
  assert.throws(() => discover({ locks: [] }), /missing field `cwd`/);
});
