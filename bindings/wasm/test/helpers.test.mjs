// Core's embedder helpers through the wasm binding: the terminal environment for a port and
// the language id of a file name, the same answers as core's own tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBrowserEngine, loadEngine } from '../testkit/load.mjs';

// terminalEnv is the Node module's (a page starts no terminals); languageId is in both.
const { terminalEnv } = loadEngine();
const builds = [loadEngine(), await loadBrowserEngine()];

test('terminalEnv sets the port and keeps each inherited bypass list', () => {
  const env = terminalEnv(4242, { no_proxy: 'corp.example, localhost', NO_PROXY: '*.internal' });
  assert.deepEqual(Object.entries(env), [
    ['CLAUDE_CODE_SSE_PORT', '4242'],
    ['ENABLE_IDE_INTEGRATION', 'true'],
    ['no_proxy', 'corp.example,localhost,127.0.0.1,::1'],
    ['NO_PROXY', '*.internal,127.0.0.1,localhost,::1'],
  ]);
});

test('terminalEnv with nothing inherited, and FORCE_CODE_TERMINAL only when asked', () => {
  const plain = terminalEnv(1);
  assert.equal(plain.no_proxy, '127.0.0.1,localhost,::1');
  assert.equal('FORCE_CODE_TERMINAL' in plain, false);
  const forced = terminalEnv(1, { NO_PROXY: 'a.example' }, true);
  assert.equal(forced.FORCE_CODE_TERMINAL, 'true');
  assert.equal(forced.no_proxy, 'a.example,127.0.0.1,localhost,::1');
  assert.throws(() => terminalEnv(1, { no_proxy: 7 }), /inherited/);
});

test('languageId maps file names to VS Code ids, in both modules', () => {
  for (const { languageId } of builds) {
    assert.equal(languageId('/w/src/main.rs'), 'rust');
    assert.equal(languageId('C:\\game\\Player.CS'), 'csharp');
    assert.equal(languageId('/w/LICENSE'), undefined);
  }
});
