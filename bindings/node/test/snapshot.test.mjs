// Per-frame snapshots through the Node package: the engine reports what changed and sends
// nothing for an unchanged frame; the server rewrites its lock file when the folders change.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Engine, parseLockFile, startHost } from 'idelink';

const NOTHING = { documents: false, active: false, diagnostics: false, workspaceFolders: false };

const frame = (line) => ({
  documents: [{ path: '/w/player.cpp', languageId: 'cpp' }, { path: '/w/enemy.cpp', isDirty: true }],
  active: { path: '/w/player.cpp', text: '', selection: { start: { line, character: 0 }, end: { line, character: 0 } } },
  workspaceFolders: ['/w'],
});

test('an unchanged snapshot changes nothing; a moved caret changes the active selection', () => {
  const engine = new Engine({ port: 40000, workspaceFolders: ['/w'] }, '00112233445566778899aabbccddeeff');
  assert.deepEqual(engine.handleSnapshot(0, frame(1)), { ...NOTHING, documents: true, active: true });
  assert.deepEqual(engine.handleSnapshot(16, frame(1)), NOTHING);
  assert.equal(engine.pollOutput(), null);
  assert.deepEqual(engine.handleSnapshot(32, frame(2)), { ...NOTHING, active: true });
  assert.deepEqual(engine.handleSnapshot(48, { ...frame(2), active: null }), { ...NOTHING, active: true });
  assert.throws(() => engine.handleSnapshot(64, { documents: [{ languageId: 'cpp' }] }), /snapshot/);
});

test('the server rewrites its lock file when a snapshot names other folders', async () => {
  const base = mkdtempSync(join(tmpdir(), 'idelink-snapshot-'));
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Frame Editor', lock: { dir: join(base, 'ide') }});
  try {
    const folders = () => parseLockFile(readFileSync(server.lockPath, 'utf8')).workspaceFolders;
    assert.deepEqual(server.handleSnapshot(frame(0)).workspaceFolders, false);
    assert.deepEqual(folders(), ['/w']);
    const changes = server.handleSnapshot({ ...frame(0), workspaceFolders: ['/w', '/shared'] });
    assert.deepEqual(changes, { ...NOTHING, workspaceFolders: true });
    assert.deepEqual(folders(), ['/w', '/shared']);
  } finally {
    await server.shutdown();
    rmSync(base, { recursive: true, force: true });
  }
});
