// What the node tests need to act as the claude CLI: deadlines, a queue of values to wait on,
// and a JSON-RPC client over `ws` presenting the token and the `mcp` subprotocol as the CLI
// does. Imported by the test/*.test.mjs files (outside test/, so that node --test does not
// take it for a test file).

import WebSocket from 'ws';

const DEADLINE_MS = 5000;

/** `promise`, or a rejection naming `what` after DEADLINE_MS. */
export function within(promise, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Resolves with the first value `predicate` accepts among those pushed later. */
export class Waiters {
  #waiters = [];
  #seen = [];
  push(value) {
    this.#seen.push(value);
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (waiter.predicate(value)) waiter.resolve(value);
      else this.#waiters.push(waiter);
    }
  }
  /** Every value pushed so far that `predicate` accepts. */
  all(predicate) {
    return this.#seen.filter(predicate);
  }
  next(predicate, what) {
    const found = this.#seen.find(predicate);
    if (found) return Promise.resolve(found);
    return within(new Promise((resolve) => this.#waiters.push({ predicate, resolve })), what);
  }
}

/** A JSON-RPC client over `ws`, as the CLI is. */
export class Client {
  constructor(port, token) {
    this.messages = new Waiters();
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'mcp', {
      headers: { 'x-claude-code-ide-authorization': token, 'user-agent': 'claude-code/2.1.332 (test)' },
    });
    this.ws.on('message', (data) => this.messages.push(JSON.parse(data.toString('utf8'))));
    this.#closed = new Promise((resolve) => this.ws.on('close', (code) => resolve(code)));
  }
  #closed;
  /** The close code the client saw. */
  closeCode() {
    return within(this.#closed, 'the client to close');
  }
  open() {
    return within(
      new Promise((resolve, reject) => {
        this.ws.once('open', resolve);
        this.ws.once('error', reject);
      }),
      'the upgrade',
    );
  }
  send(message) {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }
  request(id, method, params) {
    this.send({ id, method, params });
    return this.messages.next((m) => m.id === id, `the answer to ${method}`);
  }
}

/** The status with which an upgrade presenting `token` at `port` is refused. */
export function refusal(port, token) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'mcp', {
    headers: { 'x-claude-code-ide-authorization': token },
  });
  return within(
    new Promise((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('open', () => reject(new Error('upgraded with a wrong token')));
      ws.on('error', reject);
    }),
    'the refusal',
  );
}
