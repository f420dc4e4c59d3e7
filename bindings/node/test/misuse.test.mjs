// Host misuse throws a plain JS Error carrying the engine's message, and leaves the engine
// working. (A Rust panic is turned into a thrown Error the same way; that path is covered by
// the Rust unit tests of `error::guard`, since no input makes the engine panic.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine, lockFileJson, parseLockFile } from 'idelink';
import { MASK, encodeFrame } from '../../../tests/vectors/replay.mjs';

const TOKEN = '00112233445566778899aabbccddeeff';
const UPGRADE =
  'GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
  `Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: ${TOKEN}\r\n\r\n`;

function drain(engine) {
  const outputs = [];
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
    if (out.kind === 'transmit') {
      const bytes = engine.outbound(out.conn);
      engine.handleSent(out.conn, bytes.length);
      outputs.push({ ...out, bytes });
    } else {
      outputs.push(out);
    }
  }
  return outputs;
}

function throwsEngineError(fn, message) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`);
    assert.match(err.message, message);
    return true;
  });
}

test('unknown connections throw an Error with the engine message; the engine still works', () => {
  const engine = new Engine({ port: 40000 }, TOKEN);
  throwsEngineError(() => engine.handleBytes(0, 7, Buffer.from('x')), /^unknown connection conn#7$/);
  throwsEngineError(() => engine.handleClosed(0, 7), /^unknown connection conn#7$/);
  throwsEngineError(() => engine.close(0, 7), /^unknown connection conn#7$/);
  throwsEngineError(() => engine.handleSent(7, 0), /^unknown connection conn#7$/);
  throwsEngineError(
    () => engine.handleToolOutcome(0, 3, { outcome: 'diffRejected' }),
    /^unknown tool call call#3: never issued/,
  );
  assert.equal(engine.pollOutput(), null, 'a failed call leaves nothing behind');

  const conn = engine.handleAccept(1);
  assert.equal(conn, 1);
  engine.handleBytes(1, conn, Buffer.from(UPGRADE));
  const [send, connected] = drain(engine);
  assert.match(send.bytes.toString('latin1'), /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.deepEqual(connected, { kind: 'event', event: 'connected', conn: 1, userAgent: null });
  throwsEngineError(() => engine.handleSent(conn, 1), /^conn#1: reported 1 bytes sent, only 0 buffered$/);
});

test('malformed arguments throw and say what to pass instead', () => {
  const engine = new Engine(undefined, TOKEN);
  throwsEngineError(() => engine.handleAccept(-1), /^now must be a finite, non-negative number/);
  throwsEngineError(() => engine.handleAccept(Number.NaN), /^now must be/);
  throwsEngineError(() => engine.handleBytes(0, 1, 'GET /'), /^bytes must be a Uint8Array or a Buffer, got string$/);
  throwsEngineError(() => engine.handleBytes(0, 1, new Uint16Array(1)), /^bytes must be a Uint8Array or a Buffer, got Uint16Array$/);
  throwsEngineError(() => engine.handleClosed(0, 1.5), /^conn \(an id from handleAccept\) must be a non-negative integer, got 1\.5$/);
  throwsEngineError(
    () => engine.handleEditorEvent(0, { type: 'selectionChanged', path: '/w/a.rs' }),
    /^event: missing field `text`$/,
  );
  throwsEngineError(() => engine.handleEditorEvent(0, 'documentSaved'), /^event must be a plain object, got "documentSaved"$/);
  throwsEngineError(
    () => engine.handleToolOutcome(0, 1, { outcome: 'accepted' }),
    /^outcome: unknown variant `accepted`, expected one of fileOpened, /,
  );
  throwsEngineError(() => new Engine({ prot: 1 }, TOKEN), /^config: unknown field `prot`, expected one of port, /);
  throwsEngineError(() => new Engine({}, ''), /^invalid authToken: auth token is empty$/);
  throwsEngineError(() => parseLockFile('{"pid":1}'), /^invalid lock file: /);
  assert.equal(engine.handleAccept(0), 1, 'the engine is unchanged by every failed call');
});

test('a tool call answered twice throws the second time', () => {
  const engine = new Engine({ port: 40000, readyDelayMs: 0 }, TOKEN);
  const conn = engine.handleAccept(0);
  engine.handleBytes(0, conn, Buffer.from(UPGRADE));
  drain(engine);
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'openFile', arguments: { filePath: '/w/a.rs' } },
  };
  const frame = (text) => encodeFrame({ text }, MASK);
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  engine.handleBytes(0, conn, frame(JSON.stringify(init)));
  engine.handleBytes(0, conn, frame(JSON.stringify(call)));
  const toolCall = drain(engine).find((o) => o.event === 'toolCall');
  assert.equal(toolCall?.request.tool, 'openFile');
  throwsEngineError(
    () => engine.handleToolOutcome(1, toolCall.id, { outcome: 'diffSaved', finalText: '' }),
    /^call#1: outcome diffSaved does not answer tool openFile$/,
  );
  engine.handleToolOutcome(1, toolCall.id, { outcome: 'fileOpened' });
  assert.equal(drain(engine)[0].kind, 'transmit');
  throwsEngineError(() => engine.handleToolOutcome(2, toolCall.id, { outcome: 'fileOpened' }), /^unknown tool call call#1/);
});

test('lockFileJson is the engine lock model', () => {
  const text = lockFileJson({ pid: 9, workspaceFolders: ['/w'], ideName: 'Nova', authToken: TOKEN, runningInWindows: true });
  assert.equal(
    text,
    `{"pid":9,"workspaceFolders":["/w"],"ideName":"Nova","transport":"ws","runningInWindows":true,"authToken":"${TOKEN}"}`,
  );
  assert.deepEqual(parseLockFile(text), { pid: 9, workspaceFolders: ['/w'], ideName: 'Nova', authToken: TOKEN, runningInWindows: true });
});

test('chooseSession refuses a connection that is no session and a malformed choice', () => {
  const engine = new Engine({ port: 40000 }, TOKEN);
  throwsEngineError(() => engine.chooseSession(0, { by: 'conn', conn: 7 }), /^unknown connection conn#7$/);
  throwsEngineError(() => engine.chooseSession(0, { by: 'window', conn: 1 }), /^choice: unknown variant `window`, expected one of conn, pid$/);
  throwsEngineError(() => engine.chooseSession(0, { by: 'pid', pid: -1 }), /choice.*pid/);
  assert.deepEqual(engine.sessions(), []);
  // A pid may be chosen before its client connects; null chooses none.
  engine.chooseSession(0, { by: 'pid', pid: 4242 });
  engine.chooseSession(1, null);
  const events = drain(engine).filter((o) => o.kind === 'event').map(({ kind, ...event }) => event);
  assert.deepEqual(events, [
    { event: 'sessionsChanged', sessions: [] },
    { event: 'sessionsChanged', sessions: [] },
  ]);
});

test('the link calls refuse a second link, a bad pathMap, pollOutput without the time, an overrun', () => {
  const mapped = new Engine({ port: 40000, workspaceFolders: ['/w'], pathMap: ['no equals sign'] }, TOKEN);
  throwsEngineError(() => mapped.attachLink(0, TOKEN, 'Ed'), /^cannot attach the link: the engine's pathMap: /);

  const engine = new Engine({ port: 40000, workspaceFolders: ['/w'] }, TOKEN);
  assert.equal(engine.pollLinkEvent(), null);
  engine.attachLink(0, TOKEN, 'Ed');
  throwsEngineError(() => engine.attachLink(0, TOKEN, 'Ed'), /^a link is attached already: one at a time/);
  throwsEngineError(() => engine.pollOutput(), /^pollOutput\(now\) needs the time while a link is attached$/);
  assert.equal(engine.pollOutput(0), null);
  // The editor's hello is queued at once: 9 header bytes, then link version 1.
  const hello = engine.linkOutbound();
  assert.deepEqual([...hello.subarray(0, 1)], [1], 'a Hello frame');
  assert.deepEqual([...hello.subarray(9, 11)], [0, 1], 'link version 1');
  throwsEngineError(() => engine.handleLinkSent(hello.length + 1), /^more bytes reported than the link holds$/);
  engine.handleLinkSent(hello.length);
  assert.equal(engine.linkOutbound().length, 0);
  throwsEngineError(() => engine.handleLinkBytes(0, 'text'), /^bytes must be a Uint8Array or a Buffer, got string$/);

  // The stream ends before the bridge said anything: the link is dead, and a next one attaches.
  engine.handleLinkEnd(1);
  assert.deepEqual(engine.pollLinkEvent(), { event: 'linkEnded', fault: 'eof', message: "the link's stream ended" });
  assert.equal(engine.pollOutput(), null, 'no time needed once the link is dead');
  engine.attachLink(2, TOKEN, 'Ed');
  engine.shutdownLink(3);
  assert.equal(engine.pollLinkEvent().fault, 'shutdown');
});
