// A small protocol client that connects the way the claude CLI does (upgrade with the token
// and the `mcp` subprotocol, no Origin, masked frames, one JSON-RPC message per text frame).
// Every wait has a deadline.
import net from 'node:net';
import { once } from 'node:events';
import { encodeFrame } from '../../../tests/vectors/replay.mjs';

const MASK = [0x37, 0xfa, 0x21, 0x3d];

/** Rejects after `ms` with a message naming what was awaited. */
export function deadline(promise, ms, what) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

export class ClaudeClient {
  /** Connects to 127.0.0.1:`port` with `token` and runs initialize / initialized / ide_connected. */
  static async connect(port, token, waitMs) {
    const socket = net.connect(port, '127.0.0.1');
    await deadline(once(socket, 'connect'), waitMs, 'the TCP connection');
    const client = new ClaudeClient(socket, waitMs);
    socket.write(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
        `Sec-WebSocket-Protocol: mcp\r\nx-claude-code-ide-authorization: ${token}\r\n` +
        'User-Agent: claude-code/e2e (idelink test)\r\n\r\n',
    );
    const head = await deadline(client.head, waitMs, 'the upgrade answer');
    if (!head.startsWith('HTTP/1.1 101') || !/Sec-WebSocket-Protocol: mcp/i.test(head)) {
      throw new Error(`upgrade refused: ${head}`);
    }
    const init = await client.call('initialize', {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: 'e2e' },
    });
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    client.notify('notifications/initialized', {});
    client.notify('ide_connected', { pid: process.pid });
    return client;
  }

  constructor(socket, waitMs) {
    this.socket = socket;
    this.waitMs = waitMs;
    this.buffer = Buffer.alloc(0);
    this.upgraded = false;
    this.messages = [];
    this.waiters = [];
    this.nextId = 1;
    this.ended = new Promise((resolve) => socket.once('close', resolve));
    this.head = new Promise((resolve) => { this.gotHead = resolve; });
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', () => {});
    socket.once('close', () => this.settle());
  }

  call(method, params) {
    const id = this.send(method, params);
    return this.next((m) => m.id === id && !('method' in m), `the answer to ${method}`);
  }

  /** Sends a request; returns its id. */
  send(method, params) {
    const id = this.nextId++;
    this.write({ jsonrpc: '2.0', id, method, params });
    return id;
  }

  notify(method, params) {
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** The first message (received or to come) matching `predicate`, taken out of the queue. */
  next(predicate, what) {
    const found = this.messages.findIndex(predicate);
    if (found >= 0) return Promise.resolve(this.messages.splice(found, 1)[0]);
    const waiting = new Promise((resolve, reject) => this.waiters.push({ predicate, resolve, reject }));
    return deadline(waiting, this.waitMs, what);
  }

  notification(method, predicate = () => true) {
    return this.next((m) => m.method === method && !('id' in m) && predicate(m.params), `notification ${method}`);
  }

  close() {
    this.socket.destroy();
  }

  write(message) {
    this.socket.write(encodeFrame({ text: JSON.stringify(message) }, MASK));
  }

  receive(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.upgraded) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.gotHead(this.buffer.subarray(0, end + 4).toString('latin1'));
      this.buffer = this.buffer.subarray(end + 4);
      this.upgraded = true;
    }
    for (;;) {
      const frame = decodeServerFrame(this.buffer);
      if (!frame) return;
      this.buffer = this.buffer.subarray(frame.length);
      if (frame.opcode === 0x1) this.deliver(JSON.parse(frame.payload.toString('utf8')));
      else if (frame.opcode === 0x9) this.socket.write(encodeFrame({ pong: frame.payload.toString('utf8') }, MASK));
    }
  }

  deliver(message) {
    const waiter = this.waiters.findIndex((w) => w.predicate(message));
    if (waiter >= 0) this.waiters.splice(waiter, 1)[0].resolve(message);
    else this.messages.push(message);
  }

  settle() {
    for (const w of this.waiters.splice(0)) w.reject(new Error('the connection closed'));
  }
}

/** One unmasked server frame at the start of `buf`, or null when incomplete. */
function decodeServerFrame(buf) {
  if (buf.length < 2) return null;
  const opcode = buf[0] & 0x0f;
  let length = buf[1] & 0x7f;
  let start = 2;
  if (length === 126) {
    if (buf.length < 4) return null;
    length = buf.readUInt16BE(2);
    start = 4;
  } else if (length === 127) {
    if (buf.length < 10) return null;
    length = Number(buf.readBigUInt64BE(2));
    start = 10;
  }
  if (buf.length < start + length) return null;
  return { opcode, payload: buf.subarray(start, start + length), length: start + length };
}
