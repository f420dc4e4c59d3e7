// Which engine runs: the native addon, or the WebAssembly engine when IDELINK_FORCE_WASM=1 asks
// for it (scripts/test runs this suite both ways; scripts/npm-check also runs the packaged
// example with the platform package removed).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { binding } from 'idelink';

test('the engine is the binding asked for, and says why it was picked', () => {
  const wasm = process.env.IDELINK_FORCE_WASM === '1';
  assert.equal(binding.kind, wasm ? 'wasm' : 'native');
  assert.match(binding.reason, wasm ? /^IDELINK_FORCE_WASM=1/ : /^(built from source|IDELINK_NODE_ADDON|prebuilt for )/);
  assert.ok(Object.isFrozen(binding));
});
