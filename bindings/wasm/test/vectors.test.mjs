// Replays the shared transcript vectors (tests/vectors/*.json, format in
// tests/vectors/README.md) against the nodejs build: every send must equal the expected HTTP
// text plus the encoded frames byte for byte, every other output must equal its JSON form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEngine, vectorsDir } from '../testkit/load.mjs';
import { encodeFrame, fromHex } from '../testkit/frames.mjs';

const { Engine } = loadEngine();
const MASK = [0x37, 0xfa, 0x21, 0x3d];

const files = readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort();

test('the vector files are there', () => {
  assert.ok(files.length >= 5, `expected the vector files in ${vectorsDir}, found ${files}`);
});

for (const file of files) {
  test(`vector ${file} replays byte for byte`, () => {
    const vector = JSON.parse(readFileSync(join(vectorsDir, file), 'utf8'));
    replay(vector);
  });
}

function replay(vector) {
  const engine = new Engine(vector.config, vector.token);
  try {
    vector.steps.forEach((step, index) => {
      const where = `step ${index} (${step.do})`;
      apply(engine, step);
      const actual = drain(engine);
      const expected = step.expect;
      for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
        assert.ok(i < actual.length, `${where}: missing output ${i}: ${JSON.stringify(expected[i])}`);
        assert.ok(i < expected.length, `${where}: unexpected output ${i}: ${show(actual[i])}`);
        compareOutput(where, i, expected[i], actual[i]);
      }
    });
  } finally {
    engine.free();
  }
}

function apply(engine, step) {
  const now = step.at;
  switch (step.do) {
    case 'accept': engine.handleAccept(now); break;
    case 'bytes': engine.handleBytes(now, step.conn, clientBytes(step)); break;
    case 'closed': engine.handleClosed(now, step.conn); break;
    case 'close': engine.close(now, step.conn); break;
    case 'editor': engine.handleEditorEvent(now, step.event); break;
    case 'outcome': engine.handleToolOutcome(now, step.id, step.outcome); break;
    case 'timeout': engine.handleTimeout(now); break;
    default: throw new Error(`unknown input ${JSON.stringify(step.do)}`);
  }
}

/** Every output after an input, sends taken whole from the outbound buffer. */
function drain(engine) {
  const outputs = [];
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
    if (out.kind === 'transmit') {
      const bytes = engine.outbound(out.conn);
      engine.handleSent(out.conn, bytes.length);
      outputs.push({ send: out.conn, bytes: Buffer.from(bytes) });
    } else if (out.kind === 'closeTransport') {
      outputs.push({ closeTransport: out.conn });
    } else if (out.kind === 'event') {
      const { kind, ...event } = out;
      outputs.push({ event });
    } else {
      throw new Error(`unknown output ${JSON.stringify(out)}`);
    }
  }
  return outputs;
}

function compareOutput(where, i, expected, actual) {
  if ('send' in expected) {
    assert.equal(actual.send, expected.send, `${where}: output ${i} is not a send on ${expected.send}: ${show(actual)}`);
    const want = Buffer.concat([
      Buffer.from(expected.http ?? '', 'utf8'),
      ...(expected.frames ?? []).map((f) => encodeFrame(f, null)),
    ]);
    if (!want.equals(actual.bytes)) {
      assert.fail(`${where}: output ${i} bytes differ\n  expected: ${JSON.stringify(want.toString('latin1'))}\n  actual:   ${JSON.stringify(actual.bytes.toString('latin1'))}`);
    }
  } else {
    assert.deepEqual(actual, expected, `${where}: output ${i} differs`);
  }
}

function show(output) {
  return JSON.stringify(output, (k, v) => (k === 'bytes' ? Buffer.from(v.data ?? v).toString('latin1') : v));
}

/** The raw `http` text, then each frame as a masked client frame, then raw `hex`. */
function clientBytes(step) {
  return Buffer.concat([
    Buffer.from(step.http ?? '', 'utf8'),
    ...(step.frames ?? []).map((f) => encodeFrame(f, MASK)),
    fromHex(step.hex ?? ''),
  ]);
}
