// The relay link client (pkg/web/link.js, `idelink-wasm/link`) against a scripted relay: a fake
// WebSocket whose messages and `bufferedAmount` the test controls. The wasm engine is real (the
// web build, loaded from its bytes). Every wait has a deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deadline } from '../testkit/claude-client.mjs';

const web = join(dirname(fileURLToPath(import.meta.url)), '..', 'pkg', 'web');
assert.ok(existsSync(join(web, 'link.js')), `${web}/link.js is missing: build with bash bindings/wasm/build.sh`);
const { RelayLink, linkFromHash, secretFromHash } = await import(join(web, 'link.js'));
const wasm = readFileSync(join(web, 'idelink_wasm_bg.wasm'));
const TOKEN = '00112233445566778899aabbccddeeff';
const WAIT_MS = 5_000;

/** A WebSocket the test plays the relay on. */
class FakeRelay {
  static created = [];
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    this.bufferedAmount = 0;
    this.waiters = [];
    FakeRelay.created.push(this);
  }

  send(message) {
    this.sent.push(typeof message === 'string' ? JSON.parse(message) : Buffer.from(message));
    for (const w of this.waiters.splice(0)) w();
  }

  close(code = 1005, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  open() {
    this.readyState = 1;
    this.onopen();
  }

  text(message) {
    this.onmessage({ data: JSON.stringify(message) });
  }

  data(conn, bytes) {
    const message = new Uint8Array(4 + bytes.length);
    new DataView(message.buffer).setUint32(0, conn);
    message.set(bytes, 4);
    this.onmessage({ data: message.buffer });
  }

  /** Resolves once `predicate(sent)` holds. */
  until(predicate, what) {
    return deadline(new Promise((resolve) => {
      const look = () => (predicate(this.sent) ? resolve() : this.waiters.push(look));
      look();
    }), WAIT_MS, what);
  }
}

function upgrade(token) {
  return Buffer.from(
    'GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      `Sec-WebSocket-Protocol: mcp\r\nx-claude-code-ide-authorization: ${token}\r\n\r\n`,
  );
}

/** Connects a link to a fresh fake relay that welcomes it. */
async function linked(options = {}) {
  const before = FakeRelay.created.length;
  const connecting = RelayLink.connect({ secret: 'cafe', url: 'ws://relay/link', WebSocket: FakeRelay, wasm, storage: null, ...options });
  await deadline(new Promise((resolve) => {
    const look = () => (FakeRelay.created.length > before ? resolve() : setImmediate(look));
    look();
  }), WAIT_MS, 'the link socket');
  const relay = FakeRelay.created.at(-1);
  relay.open();
  assert.deepEqual(relay.sent.shift(), { type: 'hello', secret: 'cafe', resume: null });
  relay.text({ type: 'welcome', claudePort: 40000, authToken: TOKEN, workspace: '/w', ideName: 'test', resume: 'r1' });
  return { link: await connecting, relay };
}

const texts = (bytes) => bytes.subarray(4).toString('latin1');

test('the link says hello, configures the engine from the welcome and carries claude bytes', async () => {
  const events = [];
  const { link, relay } = await linked({ onEvent: (e) => events.push(e) });
  assert.equal(link.welcome.ideName, 'test');
  relay.text({ type: 'open', conn: 7 });
  assert.equal(link.connections, 1);
  relay.data(7, upgrade(TOKEN));
  const answer = relay.sent.find((m) => Buffer.isBuffer(m));
  assert.deepEqual([...answer.subarray(0, 4)], [0, 0, 0, 7], 'tagged with the relay connection');
  assert.match(texts(answer), /^HTTP\/1\.1 101 /);
  assert.equal(events[0].event, 'connected');
  link.close();
});

test('a wrong token is answered, then the relay is told to close that connection', async () => {
  const { link, relay } = await linked();
  relay.text({ type: 'open', conn: 8 });
  relay.data(8, upgrade('ffffffffffffffffffffffffffffffff'));
  await relay.until((sent) => sent.some((m) => m.type === 'close'), 'the close message');
  const at = relay.sent.findIndex((m) => m.type === 'close');
  assert.match(texts(relay.sent[at - 1]), /^HTTP\/1\.1 401 /, 'the answer goes before the close');
  assert.deepEqual(relay.sent[at], { type: 'close', conn: 8 });
  assert.equal(link.connections, 0);
  link.close();
});

test('claude bytes wait in the engine while the link buffer is over its high-water mark', async () => {
  const { link, relay } = await linked({ highWaterBytes: 1000 });
  relay.text({ type: 'open', conn: 3 });
  relay.bufferedAmount = 1000;
  relay.data(3, upgrade(TOKEN));
  assert.equal(link.paused, true);
  assert.equal(relay.sent.filter((m) => Buffer.isBuffer(m)).length, 0, 'nothing sent while full');
  assert.ok(link.engine.outbound(1).length > 0, 'the answer waits in the engine');
  // Sent once the buffer is below half the mark.
  relay.bufferedAmount = 499;
  await relay.until((sent) => sent.some((m) => Buffer.isBuffer(m)), 'the held answer');
  assert.match(texts(relay.sent.find((m) => Buffer.isBuffer(m))), /^HTTP\/1\.1 101 /);
  assert.equal(link.paused, false);
  assert.equal(link.engine.outbound(1).length, 0);
  link.close();
});

test('file requests pair with their answers by id; a lost link fails what is pending', async () => {
  const closes = [];
  const { link, relay } = await linked({ onClose: (c) => closes.push(c) });
  const listing = link.listFiles();
  const reading = link.readFile('a.txt');
  assert.deepEqual(relay.sent.slice(-2), [{ type: 'list', id: 1 }, { type: 'read', path: 'a.txt', id: 2 }]);
  relay.text({ type: 'file', id: 2, path: '/w/a.txt', text: 'alpha' });
  relay.text({ type: 'files', id: 1, files: ['a.txt'], truncated: false });
  assert.deepEqual((await listing).files, ['a.txt']);
  assert.equal((await reading).text, 'alpha');
  const pending = link.readFile('b.txt');
  relay.close(4001, 'another page');
  await assert.rejects(pending, /the relay link is gone/);
  assert.match(closes[0].message, /another page holds the link/);
});

test("the ledger's file requests pair by id, and one over the relay's message cap is never sent", async () => {
  const { link, relay } = await linked();
  const reading = link.readContent('a.txt');
  const file = { turn: 1, path: '/w/a.txt', expected: { kind: 'text', text: 'claude' }, text: null };
  const writing = link.writeFile(file);
  assert.deepEqual(relay.sent.slice(-2), [
    { type: 'content', path: 'a.txt', id: 1 },
    { type: 'write', path: '/w/a.txt', expected: { kind: 'text', text: 'claude' }, text: null, id: 2 },
  ]);
  relay.text({ type: 'written', id: 2, path: '/w/a.txt', content: { kind: 'missing' }, conflict: null });
  relay.text({ type: 'content', id: 1, path: '/w/a.txt', content: { kind: 'text', text: 'claude' } });
  assert.deepEqual(await writing, { type: 'written', id: 2, path: '/w/a.txt', content: { kind: 'missing' }, conflict: null });
  assert.deepEqual((await reading).content, { kind: 'text', text: 'claude' });
  // Two texts of 4.5 MiB: the relay would close the link for the message; it is refused here.
  const big = 'x'.repeat(9 << 19);
  const sent = relay.sent.length;
  await assert.rejects(link.writeFile({ ...file, expected: { kind: 'text', text: big }, text: big }), /larger than the relay takes/);
  assert.equal(relay.sent.length, sent, 'nothing sent');
  assert.deepEqual(link.ledger(), [], 'the engine runs no ledger unless configured');
  link.close();
});

test('a refused hello rejects connect with what to do', async () => {
  const before = FakeRelay.created.length;
  const connecting = RelayLink.connect({ secret: 'bad', url: 'ws://relay/link', WebSocket: FakeRelay, wasm, storage: null });
  await deadline(new Promise((resolve) => {
    const look = () => (FakeRelay.created.length > before ? resolve() : setImmediate(look));
    look();
  }), WAIT_MS, 'the link socket');
  const relay = FakeRelay.created.at(-1);
  relay.open();
  relay.close(1008, 'wrong link secret');
  await assert.rejects(connecting, /wrong link secret, open the URL/);
  await assert.rejects(RelayLink.connect({ secret: '', WebSocket: FakeRelay, wasm }), /no link secret/);
});

test('the fragment gives the secret and only a loopback link address', () => {
  assert.equal(secretFromHash('#secret=cafe&link=ws://127.0.0.1:4100/link'), 'cafe');
  assert.equal(linkFromHash('#secret=cafe&link=ws://127.0.0.1:4100/link'), 'ws://127.0.0.1:4100/link');
  assert.equal(linkFromHash('#secret=cafe&link=ws://evil.example:4100/link'), null);
  assert.equal(linkFromHash('#secret=cafe'), null);
});
