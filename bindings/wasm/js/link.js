// The page side of the `idelink relay` link (protocol: docs/relay.md), as the package ships it:
// a page imports `idelink-wasm/link`, calls `RelayLink.connect()`, and the whole Claude Code IDE
// protocol runs in this page's wasm engine while the relay owns the sockets and the lock file.
// The editor only feeds editor events, answers tool requests and shows what the engine reports.
//
// Back-pressure: claude's answers go out on the link WebSocket, whose `bufferedAmount` counts
// what the browser has not sent yet. Above `highWaterBytes` the link stops taking bytes out of
// the engine (they stay in its outbound buffers, which the engine bounds on its own), and it
// resumes once the browser's buffer is below half of it.
import init, { Engine } from './idelink_wasm.js';

/** Where a tab keeps the relay's resume token, so that a reload links again. */
const RESUME_KEY = 'idelink-relay-resume';
/** Largest data message sent to the relay (it accepts 8 MiB). */
const CHUNK_BYTES = 1 << 20;
/** Default `highWaterBytes`: a few chunks in flight. */
const HIGH_WATER_BYTES = 4 << 20;
/** Largest text message the relay takes from the page (docs/relay.md, "Messages"). */
const MAX_MESSAGE_BYTES = 8 << 20;
/** How often a paused link looks at `bufferedAmount` again (WebSocket has no drain event). */
const DRAIN_POLL_MS = 10;

/** What the relay's own close codes mean for the user (docs/relay.md). */
export const LINK_CLOSE_MESSAGES = {
  1001: 'the relay stopped: restart idelink relay and open the URL it prints',
  1008: 'refused: wrong link secret, open the URL idelink relay printed',
  4000: 'moved to a reload of this page',
  4001: 'refused: another page holds the link. Type r and Enter in the idelink relay terminal, then open the new URL',
  4002: 'closed: the link secret was rotated. Open the new URL idelink relay printed',
};

/** The link secret from a URL fragment `#secret=<hex>` (the one `idelink relay` prints). */
export function secretFromHash(hash = globalThis.location?.hash ?? '') {
  return new URLSearchParams(hash.replace(/^#/, '')).get('secret');
}

/**
 * The relay's link address from a URL fragment `&link=ws://127.0.0.1:<port>/link` (what
 * `idelink relay --allow-origin` prints for a dev server's page), or null. Only a loopback
 * relay is taken from a URL.
 */
export function linkFromHash(hash = globalThis.location?.hash ?? '') {
  const link = new URLSearchParams(hash.replace(/^#/, '')).get('link');
  return link && /^ws:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/link$/.test(link) ? link : null;
}

const monotonicNow = () => Math.floor(performance.now());

export class RelayLink {
  /**
   * Links to the relay and resolves once it welcomed this page, with the engine running.
   * Rejects when there is no secret, the engine does not load, or the relay refuses the link.
   */
  static async connect(options = {}) {
    const secret = options.secret ?? secretFromHash();
    if (!secret) throw new Error('no link secret: open the URL `idelink relay` printed (it ends in #secret=...)');
    await init(options.wasm === undefined ? undefined : { module_or_path: options.wasm });
    const link = new RelayLink(options, secret);
    return link.#welcomed;
  }

  #options;
  #ws;
  #storage;
  #highWater;
  #now;
  #welcomed;
  /** relay connection id → engine connection id, and back */
  #toEngine = new Map();
  #toRelay = new Map();
  /** engine connections with bytes to send, and those to close once sent */
  #unsent = new Set();
  #closing = new Set();
  #paused = false;
  #timer = undefined;
  #waiting = new Map();
  #nextRequest = 1;
  #closed = false;

  /** Use `RelayLink.connect`. */
  constructor(options, secret) {
    this.#options = options;
    this.#now = options.now ?? monotonicNow;
    this.#highWater = options.highWaterBytes ?? HIGH_WATER_BYTES;
    this.#storage = options.storage === undefined ? globalThis.sessionStorage ?? null : options.storage;
    /** The engine, once welcomed. */
    this.engine = null;
    /** The relay's welcome: `{claudePort, authToken, workspace, ideName, resume}`. */
    this.welcome = null;
    const Socket = options.WebSocket ?? globalThis.WebSocket;
    const url = options.url ?? linkFromHash() ?? `ws://${globalThis.location.host}/link`;
    const ws = new Socket(url);
    ws.binaryType = 'arraybuffer';
    this.#ws = ws;
    this.#welcomed = new Promise((resolve, reject) => {
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', secret, resume: this.#storage?.getItem(RESUME_KEY) ?? null }));
      ws.onmessage = (m) => {
        if (typeof m.data !== 'string') return this.#onData(new Uint8Array(m.data));
        const message = JSON.parse(m.data);
        if (message.type !== 'welcome') return this.#onText(message);
        try {
          this.#welcome(message);
          resolve(this);
        } catch (e) {
          reject(e);
          ws.close(1000, 'the engine refused its configuration');
        }
      };
      ws.onclose = (e) => {
        const info = closeInfo(e);
        if (!this.engine) reject(new Error(`the relay link closed: ${info.message}`));
        this.#lost(info);
      };
    });
  }

  /** The number of claude connections the relay holds for this page. */
  get connections() {
    return this.#toRelay.size;
  }

  /** Whether the link holds claude's bytes back (the browser's send buffer is full). */
  get paused() {
    return this.#paused;
  }

  /** Feeds an editor event to the engine (`{type: 'selectionChanged', ...}`). */
  editorEvent(event) {
    this.#engine().handleEditorEvent(this.#now(), event);
    this.#pump();
  }

  /** Answers tool request `id` (`{outcome: 'diffSaved', finalText}`, ...). Throws on misuse. */
  answer(id, outcome) {
    try {
      this.#engine().handleToolOutcome(this.#now(), id, outcome);
    } finally {
      this.#pump();
    }
  }

  /** The workspace's files, relative to its folder: `{files, truncated}`. */
  listFiles() {
    return this.#request({ type: 'list' });
  }

  /** One workspace file's text: `{path, text}` (`path` absolute). */
  readFile(path) {
    return this.#request({ type: 'read', path });
  }

  /**
   * What a workspace file holds, as the turn ledger takes it (`{kind: 'text', text}`,
   * `{kind: 'missing'}`, `binary`, `large`, `unread`): `{path, content}`. For a `ledgerRead`
   * event of a file the editor does not hold with unsaved edits.
   */
  readContent(path) {
    return this.#request({ type: 'content', path });
  }

  /**
   * Carries out a `ledgerWrite` event's `file` on disk as a compare-and-write: the relay writes
   * `file.text` (deletes the file for null) only while it holds `file.expected`. Resolves with
   * `{path, content, conflict}`: what the file holds afterwards, and why nothing was written
   * (null when it was); report `content` with `ledgerWritten`.
   */
  writeFile(file) {
    return this.#request({ type: 'write', path: file.path, expected: file.expected, text: file.text });
  }

  /** The turn ledger (`ledger: true` in `config`): the engine's `ledger()`. */
  ledger() {
    return this.#engine().ledger();
  }

  /** Answers a `ledgerRead` event's `read` with what the file holds; throws for an unknown read. */
  ledgerRead(read, content) {
    try {
      this.#engine().handleLedgerRead(this.#now(), read, content);
    } finally {
      this.#pump();
    }
  }

  /** Reports a `ledgerWrite` event's `write` done (or refused): `nowHolds` is what the file holds. */
  ledgerWritten(write, nowHolds) {
    try {
      this.#engine().handleLedgerWritten(this.#now(), write, nowHolds);
    } finally {
      this.#pump();
    }
  }

  /**
   * Undoes a hunk, a file or a turn (`{undo: 'file', turn, path}`, ...): its writes come as
   * `ledgerWrite` events. Throws with the reason when the engine refuses it.
   */
  ledgerUndo(target) {
    try {
      this.#engine().ledgerUndo(this.#now(), target);
    } finally {
      this.#pump();
    }
  }

  /** Closes the link (the relay then closes every claude connection). */
  close() {
    this.#ws.close(1000, 'the page closed the link');
  }

  #engine() {
    if (!this.engine) throw new Error('the relay link is not up');
    return this.engine;
  }

  #welcome(message) {
    this.#storage?.setItem(RESUME_KEY, message.resume);
    const config = { ...this.#options.config, port: message.claudePort, workspaceFolders: [message.workspace] };
    this.engine = new Engine(config, message.authToken);
    this.welcome = message;
  }

  #send(message) {
    if (this.#ws.readyState === 1) this.#ws.send(message);
  }

  #request(message) {
    const id = this.#nextRequest++;
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(new Error('the relay link is gone'));
      const text = JSON.stringify({ ...message, id });
      // A UTF-16 unit is at most 3 UTF-8 bytes: only a long text is measured.
      if (text.length * 3 > MAX_MESSAGE_BYTES && new TextEncoder().encode(text).length > MAX_MESSAGE_BYTES) {
        return reject(new Error(`the request is larger than the relay takes (${MAX_MESSAGE_BYTES} bytes)`));
      }
      this.#waiting.set(id, { resolve, reject });
      this.#send(text);
    });
  }

  #answered(id) {
    const waiter = this.#waiting.get(id);
    this.#waiting.delete(id);
    return waiter;
  }

  #onText(message) {
    switch (message.type) {
      case 'open': {
        const conn = this.#engine().handleAccept(this.#now());
        this.#toEngine.set(message.conn, conn);
        this.#toRelay.set(conn, message.conn);
        break;
      }
      case 'closed': {
        const conn = this.#toEngine.get(message.conn);
        if (conn !== undefined) {
          this.#forget(conn);
          this.#engine().handleClosed(this.#now(), conn);
        }
        break;
      }
      case 'files':
      case 'file':
      case 'content':
      case 'written':
        this.#answered(message.id)?.resolve(message);
        break;
      case 'error': {
        const waiter = message.id === null ? undefined : this.#answered(message.id);
        if (waiter) waiter.reject(new Error(message.message));
        else this.#options.onError?.(message.message);
        break;
      }
      default:
        this.#options.onError?.(`unknown relay message ${JSON.stringify(message.type)}`);
    }
    this.#pump();
  }

  #onData(message) {
    if (message.length < 4 || !this.engine) return;
    const relayConn = new DataView(message.buffer, message.byteOffset).getUint32(0);
    const conn = this.#toEngine.get(relayConn);
    if (conn === undefined) return;
    this.engine.handleBytes(this.#now(), conn, message.subarray(4));
    this.#pump();
  }

  #lost(info) {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const waiter of this.#waiting.values()) waiter.reject(new Error('the relay link is gone'));
    this.#waiting.clear();
    if (this.engine) {
      for (const conn of [...this.#toRelay.keys()]) {
        this.#forget(conn);
        this.engine.handleClosed(this.#now(), conn);
      }
      this.#pump();
    }
    this.#options.onClose?.(info);
  }

  #forget(conn) {
    this.#toEngine.delete(this.#toRelay.get(conn));
    this.#toRelay.delete(conn);
    this.#unsent.delete(conn);
    this.#closing.delete(conn);
  }

  /** Drains the engine and sends what it has, until neither has anything; arms its timer. */
  #pump() {
    const engine = this.engine;
    if (!engine) return;
    do {
      for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
        if (out.kind === 'transmit') {
          this.#unsent.add(out.conn);
        } else if (out.kind === 'closeTransport') {
          this.#unsent.add(out.conn);
          this.#closing.add(out.conn);
        } else {
          this.#options.onEvent?.(out);
        }
      }
    } while (this.#flush());
    clearTimeout(this.#timer);
    if (this.#closed) return;
    const at = engine.pollTimeout();
    if (this.#paused) {
      this.#timer = setTimeout(() => this.#drained(), DRAIN_POLL_MS);
    } else if (at !== undefined) {
      this.#timer = setTimeout(() => {
        engine.handleTimeout(this.#now());
        this.#pump();
      }, Math.max(0, at - this.#now()));
    }
  }

  /** A paused link looks at the browser's buffer again; the engine's timers wait meanwhile. */
  #drained() {
    if (this.#ws.bufferedAmount < this.#highWater / 2) {
      this.#paused = false;
      this.engine.handleTimeout(this.#now());
    }
    this.#pump();
  }

  /**
   * Sends the engine's unsent bytes while the browser's buffer is below the high-water mark;
   * true when the engine was told of sent bytes or closed connections (it may have more).
   */
  #flush() {
    let progressed = false;
    for (const conn of this.#unsent) {
      if (this.#paused) break;
      const relayConn = this.#toRelay.get(conn);
      const bytes = this.engine.outbound(conn);
      let sent = 0;
      while (sent < bytes.length && relayConn !== undefined) {
        if (this.#ws.bufferedAmount >= this.#highWater) {
          this.#paused = true;
          break;
        }
        const part = bytes.subarray(sent, sent + CHUNK_BYTES);
        const message = new Uint8Array(4 + part.length);
        new DataView(message.buffer).setUint32(0, relayConn);
        message.set(part, 4);
        this.#send(message);
        sent += part.length;
      }
      // Bytes of a connection the relay no longer has are dropped.
      if (relayConn === undefined) sent = bytes.length;
      if (sent > 0) {
        this.engine.handleSent(conn, sent);
        progressed = true;
      }
      if (sent < bytes.length) break;
      this.#unsent.delete(conn);
      if (this.#closing.has(conn)) {
        if (relayConn !== undefined) this.#send(JSON.stringify({ type: 'close', conn: relayConn }));
        this.#forget(conn);
        this.engine.handleClosed(this.#now(), conn);
        progressed = true;
      }
    }
    return progressed;
  }
}

function closeInfo(event) {
  const why = event.reason ? `${event.code} ${event.reason}` : `${event.code}`;
  const message = LINK_CLOSE_MESSAGES[event.code] ?? `lost (${why}): restart idelink relay and open the URL it prints`;
  return { code: event.code, reason: event.reason, message };
}
