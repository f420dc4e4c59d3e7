// Core's embedder helpers through the addon: the terminal environment for a port and the
// language id of a file name, the same answers as core's own tests.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { languageId, terminalEnv } from 'idelink';

test('terminalEnv sets the port and keeps each inherited bypass list', () => {
  const env = terminalEnv(4242, { no_proxy: 'corp.example, localhost', NO_PROXY: '*.internal' });
  assert.deepEqual(env, {
    CLAUDE_CODE_SSE_PORT: '4242',
    ENABLE_IDE_INTEGRATION: 'true',
    no_proxy: 'corp.example,localhost,127.0.0.1,::1',
    NO_PROXY: '*.internal,127.0.0.1,localhost,::1',
  });
  assert.deepEqual(Object.keys(env), [
    'CLAUDE_CODE_SSE_PORT',
    'ENABLE_IDE_INTEGRATION',
    'no_proxy',
    'NO_PROXY',
  ]);
});

test('terminalEnv with nothing inherited, and FORCE_CODE_TERMINAL only when asked', () => {
  const plain = terminalEnv(1);
  assert.equal(plain.no_proxy, '127.0.0.1,localhost,::1');
  assert.equal(plain.NO_PROXY, plain.no_proxy);
  assert.equal('FORCE_CODE_TERMINAL' in plain, false);
  const forced = terminalEnv(1, { NO_PROXY: 'a.example' }, { forceCodeTerminal: true });
  assert.equal(forced.FORCE_CODE_TERMINAL, 'true');
  assert.equal(forced.no_proxy, 'a.example,127.0.0.1,localhost,::1');
});

test('languageId maps file names to VS Code ids', () => {
  assert.equal(languageId('/w/src/main.rs'), 'rust');
  assert.equal(languageId('C:\\game\\Player.CS'), 'csharp');
  assert.equal(languageId('/w/Makefile'), 'makefile');
  assert.equal(languageId('/w/LICENSE'), null);
});
