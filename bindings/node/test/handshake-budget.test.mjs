// Unauthenticated sockets cannot keep claude out (startHost over real loopback sockets on
// port 0): 64 sockets that never send a byte are held open, then a client with the token
// upgrades and initializes within 100 ms. Idle sockets have their own handshake budget in the
// engine and evict one another; they never take a session's slot. Deadlines, no sleeps.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { startHost } from 'idelink';

/** The figure: upgraded and initialized this soon with the idle sockets held open. */
const SERVED_WITHIN_MS = 100;
/** Setting up the idle sockets and a first client: a deadline for a hung server. */
const SETUP_MS = 5000;

function within(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Opens a ws client with the token, initializes it; resolves with the initialize answer. */
function initialize(port, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'mcp', {
      headers: { 'x-claude-code-ide-authorization': token },
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('open', () => {
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: 't' } },
        }),
      );
    });
    ws.once('message', (data) => resolve({ ws, answer: JSON.parse(data.toString('utf8')) }));
  });
}

test('64 idle sockets do not keep a client with the token out', async () => {
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: 'none'});
  const idle = [];
  try {
    await within(
      Promise.all(
        Array.from({ length: 64 }, () => new Promise((resolve, reject) => {
          const socket = connect(server.port, '127.0.0.1', () => resolve());
          socket.on('error', () => {}); // evicted sockets are closed by the server
          socket.once('error', reject);
          idle.push(socket);
        })),
      ),
      SETUP_MS,
      'the idle sockets to connect',
    );
    // A first client proves the server has accepted every idle socket before it.
    const first = await within(initialize(server.port, server.revealAuthToken()), SETUP_MS, 'a first client');
    assert.equal(first.answer.result.protocolVersion, '2025-11-25');
    const claude = await within(initialize(server.port, server.revealAuthToken()), SERVED_WITHIN_MS, 'claude served');
    assert.equal(claude.answer.id, 0);
    assert.equal(claude.answer.result.protocolVersion, '2025-11-25');
    first.ws.terminate();
    claude.ws.terminate();
  } finally {
    for (const socket of idle) socket.destroy();
    await server.shutdown();
  }
});
