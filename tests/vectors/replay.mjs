// The transcript-vector runner for JavaScript bindings (format: tests/vectors/README.md). The
// Node (napi) and wasm bindings both replay the vectors through it, so a vector means the same
// thing to every binding; core/tests/vectors.rs is its Rust twin.
//
//   import { defineVectorTests } from '../../../tests/vectors/replay.mjs';
//   defineVectorTests((config, token) => new Engine(config, token));

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The mask every client frame of a vector is sent with. */
export const MASK = [0x37, 0xfa, 0x21, 0x3d];

const VECTORS = dirname(fileURLToPath(import.meta.url));

export function fromHex(hex) {
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

/** One frame, with `fin`/`opcode` overrides, shortest length form; masked when `mask` is given. */
export function encodeFrame(frame, mask) {
  const [defaultOpcode, payload] = framePayload(frame);
  const opcode = frame.opcode ?? defaultOpcode;
  const fin = frame.fin ?? true;
  const length = payload.length;
  const extended = length <= 125 ? 0 : length <= 0xffff ? 2 : 8;
  const head = Buffer.alloc(2 + extended);
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask ? 0x80 : 0) | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) head.writeUInt16BE(length, 2);
  if (extended === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (!mask) return Buffer.concat([head, payload]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, Buffer.from(mask), masked]);
}

/** A `bytes` step's input: raw `http`, then each frame masked, then raw `hex`. */
function clientBytes(step) {
  return Buffer.concat([
    Buffer.from(step.http ?? '', 'utf8'),
    ...(step.frames ?? []).map((frame) => encodeFrame(frame, MASK)),
    fromHex(step.hex ?? ''),
  ]);
}

/** An expected `send`: its `http` text followed by its frames as the server encodes them. */
function expectedSend(item) {
  return Buffer.concat([
    Buffer.from(item.http ?? '', 'utf8'),
    ...(item.frames ?? []).map((frame) => encodeFrame(frame, null)),
  ]);
}

/** Runs one input; a `snapshot` step returns what the call reported, as its expect list's first item. */
function applyInput(engine, step) {
  const now = step.at;
  switch (step.do) {
    case 'accept': engine.handleAccept(now); break;
    case 'bytes': engine.handleBytes(now, step.conn, clientBytes(step)); break;
    case 'closed': engine.handleClosed(now, step.conn); break;
    case 'close': engine.close(now, step.conn); break;
    case 'editor': engine.handleEditorEvent(now, step.event); break;
    case 'snapshot': return { snapshotChanges: engine.handleSnapshot(now, step.snapshot) };
    case 'outcome': engine.handleToolOutcome(now, step.id, step.outcome); break;
    case 'timeout': engine.handleTimeout(now); break;
    case 'choose': engine.chooseSession(now, step.choice); break;
    case 'sessions': return { sessions: engine.sessions() };
    case 'ledgerRead': engine.handleLedgerRead(now, step.read, step.content); break;
    case 'ledgerWritten': engine.handleLedgerWritten(now, step.write, step.nowHolds); break;
    case 'fileSeen': engine.handleFileSeen(now, step.path, step.content, step.previous); break;
    case 'ledgerUndo':
      try {
        engine.ledgerUndo(now, step.target);
      } catch (e) {
        return { refused: e.message };
      }
      break;
    case 'ledger': return { ledger: engine.ledger() };
    default: throw new Error(`unknown input ${JSON.stringify(step.do)}`);
  }
}

/** Drains the outputs after one input and checks them against `expected`, in order. */
export function checkOutputs(engine, expected, where) {
  let i = 0;
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput(), i++) {
    const want = expected[i];
    const at = `${where}, output ${i}`;
    assert.ok(want !== undefined, `${at}: unexpected extra output ${JSON.stringify(out)}`);
    if (out.kind === 'transmit') {
      assert.equal(want.send, out.conn, `${at}: got a send for conn ${out.conn}`);
      const actual = Buffer.from(engine.outbound(out.conn));
      engine.handleSent(out.conn, actual.length);
      const bytes = expectedSend(want);
      assert.ok(
        actual.equals(bytes),
        `${at}: sent bytes differ\n  expected: ${JSON.stringify(bytes.toString('latin1'))}\n  actual:   ${JSON.stringify(actual.toString('latin1'))}`,
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

/**
 * Registers one `node:test` test per vector file, replaying it through engines made by
 * `createEngine(config, token)`; `dispose(engine)` runs after each (wasm frees its memory).
 */
export function defineVectorTests(createEngine, dispose = () => {}) {
  const files = readdirSync(VECTORS).filter((name) => name.endsWith('.json')).sort();
  test('the shared vectors are all there', () => {
    assert.ok(files.length >= 8, `expected the vector files in ${VECTORS}, found ${files}`);
  });
  for (const name of files) {
    test(`vector ${name} replays byte for byte`, () => {
      const vector = JSON.parse(readFileSync(join(VECTORS, name), 'utf8'));
      const engine = createEngine(vector.config, vector.token);
      try {
        vector.steps.forEach((step, index) => {
          const where = `${name} step ${index} (${step.do})`;
          const reported = applyInput(engine, step);
          const [first, ...rest] = step.expect;
          if (reported) assert.deepEqual(reported, first, `${where}: snapshot changes differ`);
          checkOutputs(engine, reported ? rest : step.expect, where);
        });
      } finally {
        dispose(engine);
      }
    });
  }
  test('a wrong expectation fails the comparison', () => {
    const engine = createEngine({ port: 40000 }, '00112233445566778899aabbccddeeff');
    try {
      engine.handleAccept(0);
      engine.handleBytes(0, 1, Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n'));
      assert.throws(
        () => checkOutputs(engine, [{ send: 1, http: 'HTTP/1.1 200 OK\r\n\r\n' }], 'probe'),
        /sent bytes differ/,
      );
    } finally {
      dispose(engine);
    }
  });
}
