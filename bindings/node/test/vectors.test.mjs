// Replays the shared transcript vectors (tests/vectors/*.json, format in tests/vectors/README.md)
// through the addon: every expected send is encoded to bytes and compared with the whole of
// `outbound(conn)` at that moment, byte for byte; events and closes are compared as JSON.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Engine } from 'idelink';

const VECTORS = new URL('../../../tests/vectors/', import.meta.url);
const MASK = [0x37, 0xfa, 0x21, 0x3d];

function fromHex(hex) {
  return Buffer.from(hex.replace(/\s+/g, ''), 'hex');
}

/** `{text|binary|ping|pong|close}` → opcode and payload. */
function framePayload(frame) {
  if (typeof frame.text === 'string') return [0x1, Buffer.from(frame.text, 'utf8')];
  if (typeof frame.binary === 'string') return [0x2, fromHex(frame.binary)];
  if (typeof frame.ping === 'string') return [0x9, Buffer.from(frame.ping, 'utf8')];
  if (typeof frame.pong === 'string') return [0xa, Buffer.from(frame.pong, 'utf8')];
  if (Array.isArray(frame.close)) {
    if (frame.close.length === 0) return [0x8, Buffer.alloc(0)];
    const code = Buffer.alloc(2);
    code.writeUInt16BE(frame.close[0]);
    return [0x8, Buffer.concat([code, Buffer.from(frame.close[1] ?? '', 'utf8')])];
  }
  throw new Error(`unknown frame ${JSON.stringify(frame)}`);
}

/** One frame, masked with `mask` (client) or unmasked (server), shortest length form. */
function encodeFrame(frame, mask) {
  const [defaultOpcode, payload] = framePayload(frame);
  const first = ((frame.fin ?? true) ? 0x80 : 0) | (frame.opcode ?? defaultOpcode);
  const maskBit = mask ? 0x80 : 0;
  let head;
  if (payload.length <= 125) {
    head = Buffer.from([first, maskBit | payload.length]);
  } else if (payload.length <= 0xffff) {
    head = Buffer.from([first, maskBit | 126, payload.length >> 8, payload.length & 0xff]);
  } else {
    head = Buffer.alloc(10);
    head[0] = first;
    head[1] = maskBit | 127;
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  if (!mask) return Buffer.concat([head, payload]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, Buffer.from(mask), masked]);
}

/** A `bytes` step's input: raw `http`, then each frame masked, then raw `hex`. */
function clientBytes(step) {
  return Buffer.concat([
    Buffer.from(step.http ?? '', 'utf8'),
    ...(step.frames ?? []).map((frame) => encodeFrame(frame, MASK)),
    step.hex ? fromHex(step.hex) : Buffer.alloc(0),
  ]);
}

/** An expected `send`: its `http` text followed by its frames as the server encodes them. */
function expectedSend(item) {
  return Buffer.concat([
    Buffer.from(item.http ?? '', 'utf8'),
    ...(item.frames ?? []).map((frame) => encodeFrame(frame, null)),
  ]);
}

function applyInput(engine, step) {
  const now = step.at;
  switch (step.do) {
    case 'accept':
      engine.handleAccept(now);
      break;
    case 'bytes':
      engine.handleBytes(now, step.conn, clientBytes(step));
      break;
    case 'closed':
      engine.handleClosed(now, step.conn);
      break;
    case 'close':
      engine.close(now, step.conn);
      break;
    case 'editor':
      engine.handleEditorEvent(now, step.event);
      break;
    case 'outcome':
      engine.handleToolOutcome(now, step.id, step.outcome);
      break;
    case 'timeout':
      engine.handleTimeout(now);
      break;
    default:
      throw new Error(`unknown input ${JSON.stringify(step.do)}`);
  }
}

/** Drains the outputs after one input and checks them against `expect`, in order. */
function checkOutputs(engine, expected, where) {
  let i = 0;
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput(), i++) {
    const want = expected[i];
    const at = `${where}, output ${i}`;
    assert.ok(want !== undefined, `${at}: unexpected extra output ${JSON.stringify(out)}`);
    if (out.kind === 'transmit') {
      assert.equal(want.send, out.conn, `${at}: got a send for conn ${out.conn}`);
      const actual = engine.outbound(out.conn);
      engine.handleSent(out.conn, actual.length);
      const bytes = expectedSend(want);
      assert.ok(
        actual.equals(bytes),
        `${at}: sent bytes differ\n  expected: ${bytes.toString('latin1')}\n  actual:   ${actual.toString('latin1')}`,
      );
    } else if (out.kind === 'closeTransport') {
      assert.deepEqual(want, { closeTransport: out.conn }, `${at}: closeTransport`);
    } else {
      assert.equal(out.kind, 'event', `${at}: unknown output kind`);
      const { kind, ...event } = out;
      assert.deepEqual({ event }, want, `${at}: event differs`);
    }
  }
  assert.equal(i, expected.length, `${where}: expected ${expected.length} outputs, got ${i}`);
}

const files = readdirSync(VECTORS)
  .filter((name) => name.endsWith('.json'))
  .sort();

test('the shared vectors are all there', () => {
  assert.ok(files.length >= 7, `expected the vector files, found ${files}`);
});

for (const name of files) {
  test(`vector ${name} replays byte for byte`, () => {
    const vector = JSON.parse(readFileSync(join(VECTORS.pathname, name), 'utf8'));
    const engine = new Engine(vector.config, vector.token);
    vector.steps.forEach((step, index) => {
      applyInput(engine, step);
      checkOutputs(engine, step.expect, `${name} step ${index} (${step.do})`);
    });
  });
}

test('a wrong expectation fails the comparison', () => {
  const engine = new Engine({ port: 40000 }, '00112233445566778899aabbccddeeff');
  engine.handleAccept(0);
  engine.handleBytes(0, 1, Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n'));
  assert.throws(
    () => checkOutputs(engine, [{ send: 1, http: 'HTTP/1.1 200 OK\r\n\r\n' }], 'probe'),
    /sent bytes differ/,
  );
});
