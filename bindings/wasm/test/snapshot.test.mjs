// Per-frame snapshots through the wasm binding: what changed is reported, an unchanged frame
// sends nothing, and a malformed snapshot throws and changes nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBuilds } from '../testkit/load.mjs';

for (const [build, { Engine }] of await loadBuilds()) {
  describe(build, () => {
    const NOTHING = { documents: false, active: false, diagnostics: false, workspaceFolders: false };

    const frame = (line) => ({
      documents: [{ path: '/w/player.cpp', languageId: 'cpp' }],
      active: { path: '/w/player.cpp', text: '', selection: { start: { line, character: 0 }, end: { line, character: 0 } } },
      workspaceFolders: ['/w'],
    });

    test('an unchanged snapshot changes nothing; a moved caret and other folders are reported', () => {
      const engine = new Engine({ port: 40000, workspaceFolders: ['/w'] }, '00112233445566778899aabbccddeeff');
      try {
        assert.throws(() => engine.handleSnapshot(0, { documents: [{ isDirty: true }] }), /snapshot/);
        assert.deepEqual(engine.handleSnapshot(0, frame(1)), { ...NOTHING, documents: true, active: true });
        assert.deepEqual(engine.handleSnapshot(16, frame(1)), NOTHING);
        assert.equal(engine.pollOutput(), null);
        assert.deepEqual(engine.handleSnapshot(32, frame(2)), { ...NOTHING, active: true });
        const folders = engine.handleSnapshot(48, { ...frame(2), workspaceFolders: ['/w', '/v'] });
        assert.deepEqual(folders, { ...NOTHING, workspaceFolders: true });
      } finally {
        engine.free();
      }
    });
  });
}
