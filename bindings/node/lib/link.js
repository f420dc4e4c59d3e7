'use strict';
// A remote link's stream for lib/host.js (Host#attachLink): a spawned `idelink bridge`'s stdout
// read into the engine's link, the link's bytes written to its stdin. Every rule of the link
// (framing, credit per connection, keepalive, closes) is core's LinkAttach inside the engine;
// this file moves bytes. The stream is always read; writes stop while `write()` returns false
// and go on at 'drain'. When the link ends, its last bytes are written, the stream closed (the
// bridge removes its lock and exits), and a bridge process still running after
// BRIDGE_EXIT_MS is killed.

const { ChildProcess } = require('node:child_process');
const { describe } = require('./engine.js');

/** How long a link's stream may take to close, and its bridge to exit (as `idelink serve --remote`). */
const BRIDGE_EXIT_MS = 2000;

/**
 * The stream pair of `target`: a ChildProcess (its stdout and stdin) or `{ readable, writable }`.
 * Throws a TypeError naming what is missing.
 */
function linkStreams(target) {
  if (target instanceof ChildProcess) {
    if (!target.stdout || !target.stdin) {
      throw new TypeError("attachLink needs the bridge spawned with piped stdin and stdout (stdio: ['pipe', 'pipe', ...])");
    }
    return { readable: target.stdout, writable: target.stdin, child: target };
  }
  const { readable, writable } = target ?? {};
  const reads = typeof readable?.on === 'function' && typeof readable.destroy === 'function';
  const writes = typeof writable?.write === 'function' && typeof writable.end === 'function';
  if (!reads || !writes) {
    throw new TypeError(`attachLink needs a ChildProcess or { readable, writable } streams, got ${describe(target)}`);
  }
  return { readable, writable, child: null };
}

/** One attached link's stream and its pump state. */
class LinkPump {
  #engine;
  #readable;
  #writable;
  #child;
  #host;
  /** writable.write returned false: the link's bytes wait in the engine until 'drain'. */
  #blocked = false;
  #ended = false;
  #settle;
  #resolveClosed;

  /**
   * `host.input(call)` runs `call(now)` as the host's input and drains the engine (which calls
   * pump); `host.event(event)` hears the link's news; `host.ended()` that it is over.
   */
  constructor(engine, { readable, writable, child }, host) {
    this.#engine = engine;
    this.#readable = readable;
    this.#writable = writable;
    this.#child = child;
    this.#host = host;
    /** The bridge's hello; rejected when the link ends before it. */
    this.hello = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // A caller that leaves the promise alone must not crash the process with an unhandled
    // rejection: the link's end also reaches onEvent.
    this.hello.catch(() => {});
    /** Resolves once the stream is closed. */
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    const end = () => host.input((at) => engine.handleLinkEnd(at));
    readable.on('data', (chunk) => host.input((at) => engine.handleLinkBytes(at, chunk)));
    readable.on('end', end);
    readable.on('error', end);
    readable.on('close', end);
    writable.on('error', end);
    writable.on('drain', () => {
      this.#blocked = false;
      host.input(() => {});
    });
  }

  /** Writes the link's bytes (unless the stream is full) and hands on its news. */
  pump() {
    if (this.#ended) return;
    if (!this.#blocked) this.#write();
    const engine = this.#engine;
    for (let event = engine.pollLinkEvent(); event !== null; event = engine.pollLinkEvent()) {
      if (event.event === 'linkHello') this.#settle.resolve(event);
      if (event.event === 'linkEnded') this.#end(event);
      this.#host.event(event);
    }
  }

  #write() {
    const bytes = this.#engine.linkOutbound();
    if (bytes.length === 0) return;
    const room = this.#writable.write(bytes);
    this.#engine.handleLinkSent(bytes.length);
    if (!room) this.#blocked = true;
  }

  /** The link is dead: its last bytes (a fault telling the bridge why) go, the stream closes. */
  #end(event) {
    this.#ended = true;
    this.#write();
    this.#settle.reject(new Error(`idelink: the link ended before the bridge said who it is: ${event.message}`));
    this.#host.ended();
    const child = this.#child;
    const running = child !== null && child.exitCode === null && child.signalCode === null;
    let waiting = running ? 2 : 1;
    const done = () => {
      waiting -= 1;
      if (waiting === 0) clearTimeout(late);
    };
    const closed = () => {
      this.#readable.destroy();
      this.#resolveClosed();
    };
    // A stream that takes no more bytes, or a bridge that does not exit, is cut off.
    const late = setTimeout(() => {
      this.#writable.destroy();
      closed();
      if (running) child.kill();
    }, BRIDGE_EXIT_MS);
    late.unref();
    if (running) child.once('exit', done);
    // Called once the bytes are flushed, or with the error of a stream that broke.
    this.#writable.end(() => {
      closed();
      done();
    });
  }
}

module.exports = { LinkPump, linkStreams };
