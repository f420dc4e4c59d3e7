// Which module has which exports (build.sh, src/lib.rs): the Node module has every function
// the npm package `idelink` calls on its WebAssembly fallback (bindings/node/lib/wasm.js), and
// the browser module only what a page uses, none of the host-file rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadBrowserEngine, loadEngine } from '../testkit/load.mjs';

const fallback = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node', 'lib', 'wasm.js');
/** Every `w.<name>` lib/wasm.js calls on the module. */
const used = [...new Set([...readFileSync(fallback, 'utf8').matchAll(/\bw\.(\w+)/g)].map((m) => m[1]))];
const node = loadEngine();
const web = await loadBrowserEngine();

test('the Node module has every export the Node package calls', () => {
  assert.ok(used.length >= 25, `expected lib/wasm.js's calls, found ${used}`);
  assert.deepEqual(used.filter((name) => typeof node[name] !== 'function'), []);
});

test('the browser module has the engine and languageId, and no host-file rules', () => {
  const browser = ['Engine', 'languageId'];
  assert.deepEqual(browser.filter((name) => typeof web[name] !== 'function'), []);
  const nodeOnly = used.filter((name) => !browser.includes(name));
  assert.ok(nodeOnly.includes('lockFileJson') && nodeOnly.includes('discover'), `${nodeOnly}`);
  assert.deepEqual(nodeOnly.filter((name) => name in web), []);
});

test("only the Node module's Engine attaches a remote link", () => {
  const link = ['attachLink', 'handleLinkBytes', 'handleLinkEnd', 'shutdownLink', 'linkOutbound',
    'linkOutboundLength', 'handleLinkSent', 'pollLinkEvent'];
  assert.deepEqual(link.filter((name) => typeof node.Engine.prototype[name] !== 'function'), []);
  assert.deepEqual(link.filter((name) => name in web.Engine.prototype), []);
  for (const name of ['pollOutput', 'pollTimeout', 'handleTimeout']) {
    assert.equal(typeof web.Engine.prototype[name], 'function', name);
  }
});
