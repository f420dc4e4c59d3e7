// Unauthenticated sockets cannot keep claude out of the relay's page engine (the wasm engine
// the demo page runs, here the browser module and the Node one; the relay forwards each claude socket to it):
// 64 connections that never send a byte are held open, then a client with the token is
// upgraded and initialized at once. Idle connections have their own handshake budget and
// evict one another (503, then the transport is closed); they never take a session's slot.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBuilds } from '../testkit/load.mjs';
import { PORT, TOKEN, drain, upgrade } from '../testkit/engine-wire.mjs';

for (const [build, { Engine }] of await loadBuilds()) {
  describe(build, () => {
    /** A masked client text frame (RFC 6455 §5.3), payloads under 64 KiB. */
    function textFrame(text) {
      const payload = Buffer.from(text);
      assert.ok(payload.length < 65536);
      const key = [1, 2, 3, 4];
      const length = payload.length < 126 ? [0x80 | payload.length] : [0x80 | 126, payload.length >> 8, payload.length & 0xff];
      return Buffer.concat([
        Buffer.from([0x81, ...length, ...key]),
        Buffer.from(payload.map((b, i) => b ^ key[i % 4])),
      ]);
    }

    test('64 idle connections do not keep a client with the token out', () => {
      const engine = new Engine({ port: PORT }, TOKEN);
      const idle = Array.from({ length: 64 }, (_, i) => engine.handleAccept(i));
      const evicted = drain(engine).filter((o) => o.kind === 'event' && o.event === 'closed');
      assert.ok(evicted.length >= 56, `${evicted.length} idle connections evicted`);
      for (const closed of evicted) {
        assert.deepEqual(closed.reason, { kind: 'handshakeEvicted' });
        assert.match(Buffer.from(engine.outbound(closed.conn)).toString('latin1'), /^HTTP\/1\.1 503 /);
      }
      // The virtual clock moves 64 ms; the client is served in the same instant it connects.
      const claude = engine.handleAccept(64);
      engine.handleBytes(
        64,
        claude,
        Buffer.concat([
          upgrade(TOKEN),
          textFrame('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"t"}}}'),
        ]),
      );
      const outputs = drain(engine);
      assert.ok(outputs.some((o) => o.event === 'connected' && o.conn === claude));
      assert.ok(!outputs.some((o) => o.kind === 'closeTransport' && o.conn === claude));
      const sent = Buffer.from(engine.outbound(claude)).toString('latin1');
      assert.match(sent, /^HTTP\/1\.1 101 /);
      assert.match(sent, /"id":0,"result":\{"protocolVersion":"2025-11-25"/);
      assert.ok(idle.length === 64);
      engine.free();
    });
  });
}
