// The binding's own contract: conversions, host misuse thrown as Error, the run-loop calls.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBuilds } from '../testkit/load.mjs';
import { PORT, TOKEN, drain, upgrade } from '../testkit/engine-wire.mjs';

for (const [build, { Engine }] of await loadBuilds()) {
  describe(build, () => {
    test('a client with the token is upgraded and reported connected', () => {
      const engine = new Engine({ port: PORT }, TOKEN);
      const conn = engine.handleAccept(0);
      assert.equal(conn, 1);
      engine.handleBytes(0, conn, upgrade(TOKEN));
      const outputs = drain(engine);
      assert.deepEqual(outputs[0], { kind: 'transmit', conn: 1 });
      assert.deepEqual(outputs[1], { kind: 'event', event: 'connected', conn: 1, userAgent: null });
      const bytes = engine.outbound(conn);
      assert.ok(bytes instanceof Uint8Array);
      assert.match(Buffer.from(bytes).toString('latin1'), /^HTTP\/1\.1 101 /);
      engine.handleSent(conn, 10);
      assert.equal(engine.outbound(conn).length, bytes.length - 10, 'a partial send leaves the rest');
      engine.free();
    });

    test('a wrong token gets 401 and the transport closed', () => {
      const engine = new Engine({ port: PORT }, TOKEN);
      const conn = engine.handleAccept(0);
      engine.handleBytes(0, conn, upgrade('ffffffffffffffffffffffffffffffff'));
      const kinds = drain(engine).map((o) => o.kind);
      assert.deepEqual(kinds.slice(0, 2), ['transmit', 'closeTransport']);
      assert.match(Buffer.from(engine.outbound(conn)).toString('latin1'), /^HTTP\/1\.1 401 /);
      engine.free();
    });

    test('timers: a handshake deadline is pending after an accept, and absent before', () => {
      const engine = new Engine({ port: PORT, handshakeTimeoutMs: 250 }, TOKEN);
      assert.equal(engine.pollTimeout(), undefined);
      engine.handleAccept(1000.7);
      assert.equal(engine.pollTimeout(), 1250, 'the fraction of now is dropped');
      engine.handleTimeout(1250);
      const closed = drain(engine).find((o) => o.event === 'closed');
      assert.deepEqual(closed.reason, { kind: 'handshakeTimeout' });
      engine.free();
    });

    test('editor events and outcomes in their JSON forms are accepted', () => {
      const engine = new Engine({ port: PORT, workspaceFolders: ['/w'] }, TOKEN);
      engine.handleEditorEvent(0, {
        type: 'selectionChanged', path: '/w/a.rs', text: 'fn',
        selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } },
      });
      engine.handleEditorEvent(0, { type: 'mention', path: '/w/a.rs', lineStart: 1 });
      assert.deepEqual(drain(engine), []);
      engine.free();
    });

    test('host misuse throws an Error that says what is wrong', () => {
      const engine = new Engine({ port: PORT }, TOKEN);
      const cases = [
        [() => engine.handleBytes(0, 7, new Uint8Array(1)), /unknown connection conn#7/],
        [() => engine.handleClosed(0, 7), /unknown connection/],
        [() => engine.close(0, 7), /unknown connection/],
        [() => engine.handleSent(7, 1), /unknown connection/],
        [() => engine.handleAccept(-1), /^now must be a finite, non-negative number of milliseconds/],
        [() => engine.handleTimeout(Number.NaN), /now must be/],
        [() => engine.handleClosed(0, 1.5), /^conn \(an id from handleAccept\) must be a non-negative integer, got 1\.5$/],
        [() => engine.handleEditorEvent(0, { type: 'documentExploded', path: '/w' }), /^event: unknown variant/],
        [() => engine.handleEditorEvent(0, undefined), /^event must be a plain object, got a value with no JSON form$/],
        [() => engine.handleToolOutcome(0, 1, { outcome: 'diffRejected' }), /unknown tool call call#1/],
        [() => engine.handleToolOutcome(0, 1, { outcome: 'exploded' }), /^outcome: unknown variant/],
        [() => new Engine({ port: PORT, colour: 'red' }, TOKEN), /^config: unknown field `colour`/],
        [() => new Engine({ port: 70000 }, TOKEN), /^config: /],
        [() => new Engine({ port: PORT }, ''), /auth token is empty/],
        [() => engine.ledgerUndo(0, { undo: 'everything' }), /^target: unknown variant `everything`, expected one of hunk, file, turn$/],
        [() => engine.ledgerUndo(0, { undo: 'turn', turn: 9 }), /turn 9/],
        [() => engine.handleLedgerRead(0, 1, { kind: 'text' }), /^content: missing field `text`$/],
        [() => engine.handleLedgerRead(0, 1, { kind: 'missing' }), /ledger read 1|read 1/],
        [() => engine.handleLedgerWritten(0, 1.5, { kind: 'missing' }), /^write must be a non-negative integer, got 1.5$/],
      ];
      for (const [call, message] of cases) {
        assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(call));
      }
      const conn = engine.handleAccept(0);
      assert.throws(() => engine.handleSent(conn, 1), /reported 1 bytes sent, only 0 buffered/);
      engine.free();
    });

    test('a pulled read is a toolCall, and an outcome of the wrong kind throws', () => {
      const engine = new Engine({ port: PORT, readyDelayMs: 0, reads: { getDiagnostics: 'editor' } }, TOKEN);
      const conn = engine.handleAccept(0);
      const frame = (json) => {
        const payload = Buffer.from(json);
        const mask = [1, 2, 3, 4];
        const length = payload.length < 126 ? [payload.length] : [126, payload.length >> 8, payload.length & 0xff];
        return Buffer.concat([
          Buffer.from([0x81, 0x80 | length[0], ...length.slice(1), ...mask]),
          Buffer.from(payload.map((b, i) => b ^ mask[i % 4])),
        ]);
      };
      engine.handleBytes(0, conn, Buffer.concat([
        upgrade(TOKEN),
        frame('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}'),
        frame('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{"uri":"file:///w/a.rs"}}}'),
      ]));
      const call = drain(engine).find((o) => o.event === 'toolCall');
      assert.deepEqual(call.request, { tool: 'getDiagnostics', path: '/w/a.rs' });
      assert.throws(
        () => engine.handleToolOutcome(0, call.id, { outcome: 'noSelection' }),
        /outcome noSelection does not answer tool getDiagnostics/,
      );
      engine.handleSent(conn, engine.outbound(conn).length);
      engine.handleToolOutcome(0, call.id, { outcome: 'diagnostics', files: [] });
      const sent = Buffer.from(engine.outbound(conn));
      const reply = sent.subarray(sent[1] === 126 ? 4 : 2).toString('utf8');
      assert.equal(
        reply,
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[{\\"uri\\":\\"file:///w/a.rs\\",\\"diagnostics\\":[]}]"}]}}',
      );
      engine.free();
    });
  });
}
