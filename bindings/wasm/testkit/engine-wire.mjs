// The bytes a test's claude sends an engine, and the engine's outputs drained: shared by the
// engine tests that drive either module by hand.

/** The token and port every hand-driven engine test uses. */
export const TOKEN = '00112233445566778899aabbccddeeff';
export const PORT = 40000;

/** claude's upgrade request to `127.0.0.1:PORT`, presenting `token`. */
export function upgrade(token) {
  return Buffer.from(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      `Sec-WebSocket-Protocol: mcp\r\nx-claude-code-ide-authorization: ${token}\r\n\r\n`,
  );
}

/** Every output `engine` has now, in order. */
export function drain(engine) {
  const all = [];
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) all.push(out);
  return all;
}
