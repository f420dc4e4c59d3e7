'use strict';
// startHost: the Node host around the engine, as the mio host is the native one. It owns the
// loopback listener (`net`), the token (`crypto`), the lock file (./lock.js), with `resume` the
// resume record (./resume.js), the clock
// (`performance.now()`) and the timer; it pumps sockets into the engine and drains the engine's
// outputs after every input; with attachLink, it also moves a remote link's stream (./link.js).
// All protocol decisions are the engine's; the pump's (when to stop
// and resume reading a client, the linger, the lock check period) are core's pump policy, as
// in the mio host: before each read, the bytes held for a client and not yet taken by the
// kernel (the engine's queue plus the socket's own write buffer) are measured; at or above the
// pause mark the socket is paused, and it resumes once a drain brings them below the resume
// mark (half).

const crypto = require('node:crypto');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const util = require('node:util');
const { lockRewrittenFor, lockRewrittenForSnapshot, pumpPolicy } = require('./addon.js');
const { Engine } = require('./engine.js');
const { LockFileGuard, defaultLockDir, prepareDir } = require('./lock.js');
const { LinkPump, linkStreams } = require('./link.js');
const { ResumeRecordKeeper, findResumable } = require('./resume.js');

function now() {
  return performance.now();
}

/**
 * Listens on 127.0.0.1, mints the token, writes the lock file and serves the Claude Code CLI.
 * @param {import('../index').HostConfig} config
 * @returns {Promise<import('../index').Host>}
 */
async function startHost(config) {
  const lockDir = checkConfig(config);
  const { listener, authToken, resume } = await listen(config, lockDir);
  try {
    return new Host(config, lockDir, listener, authToken, resume);
  } catch (err) {
    listener.close();
    throw err;
  }
}

/** A listener on 127.0.0.1 at `port` (0: ephemeral), or the listen error. */
async function bound(port) {
  const listener = net.createServer();
  await new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host: '127.0.0.1', port }, () => {
      listener.removeListener('error', reject);
      resolve();
    });
  });
  return listener;
}

/**
 * The listener and token to serve with: with `resume` on, a resumable record's port (bound
 * exactly) and token (./resume.js, core's rules); else, or when there is none or its port does
 * not bind, a fresh token on `config.port`. `resume` says which, and why (the mio host's
 * `ResumeOutcome`).
 */
async function listen(config, lockDir) {
  let why = null;
  if (config.resume && lockDir !== null) {
    prepareDir(lockDir);
    const found = findResumable(lockDir, config.ideName, config.workspaceFolders);
    if (found.why === undefined) {
      try {
        const note = `resumed the last session on port ${found.port} with its token: a claude still reconnecting to it rejoins`;
        return { listener: await bound(found.port), authToken: found.authToken, resume: { resumed: true, note } };
      } catch (err) {
        why = err.code === 'EADDRINUSE' ? `port ${found.port} is in use` : `port ${found.port}: ${err.code ?? err.message}`;
      }
    } else {
      why = found.why;
    }
  }
  const listener = await bound(config.port ?? 0);
  const note = why === null ? 'resume is off' : `started a new session (${why})`;
  return { listener, authToken: crypto.randomBytes(16).toString('hex'), resume: { resumed: false, note } };
}

/** Checks `config`; returns the lock directory it names, or null for `lock: 'none'`. */
function checkConfig(config) {
  if (config === null || typeof config !== 'object') {
    throw new TypeError('startHost needs a config object: { workspaceFolders, ideName, ... }');
  }
  const { workspaceFolders, ideName, lock = 'default' } = config;
  if (!Array.isArray(workspaceFolders) || !workspaceFolders.every((f) => typeof f === 'string')) {
    throw new TypeError('config.workspaceFolders must be an array of absolute paths');
  }
  if (typeof ideName !== 'string' || ideName === '') {
    throw new TypeError('config.ideName must be a non-empty string (shown by the CLI)');
  }
  // The names before HostConfig matched idelink-host's: refused, so that a caller still
  // passing them never has its lock written where it did not ask (docs/embedding.md).
  for (const [old, now] of [['lockDir', 'lock'], ['config', 'engine']]) {
    if (old in config) throw new TypeError(`config.${old} is now config.${now} (HostConfig, as in Rust and C)`);
  }
  // As idelink-host's LockPlacement and the C host's `lock` (Default, None, At(dir)).
  if (lock === 'default') return defaultLockDir();
  if (lock === 'none') return null;
  if (lock !== null && typeof lock === 'object' && typeof lock.dir === 'string') return lock.dir;
  throw new TypeError("config.lock must be 'default', 'none' or { dir: '/path/to/ide' }");
}

/** One accepted socket and its pump state. */
class Socket {
  constructor(socket) {
    this.socket = socket;
    /** socket.write returned false: hold further bytes in the engine until 'drain'. */
    this.blocked = false;
    /** Reading stopped: the client does not read its answers (back-pressure). */
    this.paused = false;
    /** The engine asked to close: flush, end, destroy after the policy's linger at the latest. */
    this.closing = false;
    this.linger = null;
  }
}

/** What inspection and JSON show instead of the token (as the Rust types' Debug does). */
const REDACTED = '<redacted>';

class Host {
  /** The token clients must present: never an own enumerable property (see revealAuthToken). */
  #authToken;
  #engine;
  #listener;
  #lock = null;
  #record = null;
  #lockCheck = null;
  #sockets = new Map();
  /** Tool calls handed to onToolCall and not yet answered or cancelled: id → AbortController. */
  #pending = new Map();
  #timer = null;
  #timerAt = null;
  #closed = null;
  #idle = null;
  #config;
  /** Core's pump policy (pause and resume marks, linger, lock check period). */
  #pump;
  /** The attached remote link's stream (./link.js), or null. */
  #link = null;

  constructor(config, lockDir, listener, authToken, resume) {
    this.#config = config;
    this.#listener = listener;
    this.#pump = pumpPolicy(config.pauseReadsAtBytes);
    /** The port the CLI connects to (on 127.0.0.1). */
    this.port = listener.address().port;
    this.#authToken = authToken;
    const { workspaceFolders, ideName } = config;
    this.#engine = new Engine({ ...config.engine, port: this.port, workspaceFolders }, authToken);
    /** The lock file's path, or null when started with `lock: 'none'`. */
    this.lockPath = null;
    /** True when `resume: true` took back the last session's port and token. */
    this.resumed = resume.resumed;
    /** How the server came to its port and token, for a log line (no token in it). */
    this.resumeNote = resume.note;
    if (lockDir !== null) {
      const fields = {
        pid: config.pid ?? process.pid,
        workspaceFolders,
        ideName,
        authToken,
        runningInWindows: config.runningInWindows ?? false,
      };
      this.#lock = new LockFileGuard(lockDir, this.port, fields);
      if (config.resume) {
        try {
          this.#record = new ResumeRecordKeeper(lockDir, this.port, fields);
        } catch (err) {
          this.#lock.remove();
          throw err;
        }
      }
      this.lockPath = this.#lock.path;
      this.#lockCheck = setInterval(() => this.#restoreLock(), this.#pump.lockCheckIntervalMs);
      this.#lockCheck.unref();
    }
    listener.on('connection', (socket) => this.#safely(() => this.#accept(socket)));
  }

  /**
   * The token clients must present (also in the lock file). A method, not a property, so that
   * `console.log(host)`, `util.inspect`, `JSON.stringify` and error reporters that walk an
   * object's properties never print it: call it only where the token is handed to a client.
   * @returns {string}
   */
  revealAuthToken() {
    return this.#authToken;
  }

  /** What `util.inspect` (and so `console.log`) shows: the token redacted. */
  [util.inspect.custom](depth, options, inspect) {
    const shown = { port: this.port, lockPath: this.lockPath, authToken: REDACTED };
    return `Host ${inspect(shown, options)}`;
  }

  /** What `JSON.stringify` writes: the token redacted. */
  toJSON() {
    return { port: this.port, lockPath: this.lockPath, authToken: REDACTED };
  }

  /**
   * The caret or selection moved: `{ path, text, selection: { start, end } }`.
   * @param {Omit<import('../index').SelectionChangedEvent, 'type'>} selection
   */
  selectionChanged({ path, text, selection }) {
    this.handleEditorEvent({ type: 'selectionChanged', path, text, selection });
  }

  /**
   * An editor event in its JSON form; `workspaceFoldersChanged` also rewrites the lock file.
   * @param {import('../index').EditorEvent} event
   */
  handleEditorEvent(event) {
    if (this.#closed) throw new Error('idelink: the host is shut down');
    this.#engine.handleEditorEvent(now(), event);
    try {
      const rewritten = this.#lock && lockRewrittenFor(this.#lock.fields, event);
      if (rewritten) this.#rewriteLock(rewritten);
    } finally {
      this.#drain();
    }
  }

  /**
   * The editor's whole visible state, once per frame: only its difference from the previous
   * snapshot reaches claude (nothing when nothing changed); other workspace folders also
   * rewrite the lock file.
   * @param {import('../index').EditorSnapshot} snapshot
   * @returns {import('../index').SnapshotChanges}
   */
  handleSnapshot(snapshot) {
    if (this.#closed) throw new Error('idelink: the host is shut down');
    const changes = this.#engine.handleSnapshot(now(), snapshot);
    try {
      const rewritten =
        changes.workspaceFolders && this.#lock && lockRewrittenForSnapshot(this.#lock.fields, snapshot);
      if (rewritten) this.#rewriteLock(rewritten);
    } finally {
      this.#drain();
    }
    return changes;
  }

  /**
   * Every ready session, oldest first: its connection, the CLI's pid, its folders (`null`
   * until known), when it connected, whether it is chosen.
   * @returns {import('../index').SessionInfo[]}
   */
  sessions() {
    return this.#engine.sessions();
  }

  /**
   * Chooses the session mentions go to (and, with `routing: 'chosen'`, every push):
   * `{by: 'conn', conn}` or `{by: 'pid', pid}`; `null` chooses none. Mentions that waited for
   * it are sent at once. Throws for a connection that is not a session.
   * @param {import('../index').SessionChoice | null} choice
   */
  chooseSession(choice) {
    this.#call((at) => this.#engine.chooseSession(at, choice));
  }

  /**
   * The turn ledger (`engine: { ledger: true }`): every turn held, oldest first.
   * @returns {import('../index').Turn[]}
   */
  ledger() {
    return this.#engine.ledger();
  }

  /**
   * The answer to a `ledgerRead` event: what the file `read` asked for holds now (the
   * editor's buffer when open, else the disk). The claude call waiting for it is answered.
   * @param {number} read
   * @param {import('../index').FileContent} content
   */
  handleLedgerRead(read, content) {
    this.#call((at) => this.#engine.handleLedgerRead(at, read, content));
  }

  /**
   * The editor carried out a `ledgerWrite` event's compare-and-write: what the file holds now.
   * @param {number} write
   * @param {import('../index').FileContent} nowHolds
   */
  handleLedgerWritten(write, nowHolds) {
    this.#call((at) => this.#engine.handleLedgerWritten(at, write, nowHolds));
  }

  /**
   * The editor's file watcher saw `path` change with no claude call announcing it.
   * @param {string} path
   * @param {import('../index').FileContent} content
   * @param {import('../index').FileContent} previous
   */
  handleFileSeen(path, content, previous) {
    this.#call((at) => this.#engine.handleFileSeen(at, path, content, previous));
  }

  /**
   * Undoes a hunk, a file or a turn: the writes come as `ledgerWrite` events (`onEvent`).
   * Throws with the reason when it is refused.
   * @param {import('../index').UndoTarget} target
   */
  ledgerUndo(target) {
    this.#call((at) => this.#engine.ledgerUndo(at, target));
  }

  /**
   * Attaches a remote link: a spawned `idelink bridge` (a `ChildProcess` with piped stdin and
   * stdout: `ssh dev idelink bridge`, `docker exec -i box idelink bridge`) or any stream pair
   * `{ readable, writable }` carrying one. The bridge's lock gets this host's token, its
   * `ideName` (or `options.ideName`) and the workspace folders as the far side spells them
   * (through `engine.pathMap`); every claude connection the bridge opens is then served as if
   * accepted on this host's port. `onEvent` hears `linkHello` when the bridge said who it is,
   * and `linkEnded` when the link ended; the stream is then closed (the bridge removes its lock
   * and exits; a child still running after 2 s is killed). One link at a time: a second throws
   * until the first has ended.
   * @param {import('../index').LinkTarget} target
   * @param {import('../index').AttachLinkOptions} [options]
   * @returns {Promise<import('../index').LinkHelloEvent>} the bridge's hello (its port, its
   *   pid); rejected when the link ends before it
   */
  attachLink(target, options = {}) {
    if (this.#closed) throw new Error('idelink: the host is shut down');
    const streams = linkStreams(target);
    const ideName = options?.ideName ?? this.#config.ideName;
    if (typeof ideName !== 'string' || ideName === '') {
      throw new TypeError('options.ideName must be a non-empty string (the far lock\'s ideName)');
    }
    this.#engine.attachLink(now(), this.#authToken, ideName, this.#config.pauseReadsAtBytes);
    const link = new LinkPump(this.#engine, streams, {
      input: (input) => this.#safely(() => this.#linkInput(link, input)),
      event: (event) => this.#dispatch({ kind: 'event', ...event }),
      ended: () => {
        if (this.#link === link) this.#link = null;
      },
    });
    this.#link = link;
    this.#drain();
    return link.hello;
  }

  /**
   * Ends the attached link, if any: the bridge hears it, removes its lock and exits. Resolves
   * once the link's stream is closed.
   * @returns {Promise<void>}
   */
  endLink() {
    const link = this.#link;
    if (link === null) return Promise.resolve();
    this.#linkInput(link, (at) => this.#engine.shutdownLink(at));
    return link.closed;
  }

  /** One input of the link's stream (`call` at `now()`), unless `link` is no longer attached. */
  #linkInput(link, call) {
    if (this.#link !== link) return;
    try {
      call(now());
    } finally {
      this.#drain();
    }
  }

  /** Runs one call of the engine's at `now()`, then pumps what it led to. */
  #call(call) {
    if (this.#closed) throw new Error('idelink: the host is shut down');
    try {
      call(now());
    } finally {
      this.#drain();
    }
  }

  /**
   * Removes the lock file, stops listening, closes every client (close code 1001) and waits
   * for the sockets to go, destroying those still open after `graceMs`.
   * @param {number} [graceMs]
   * @returns {Promise<void>}
   */
  shutdown(graceMs = 1000) {
    this.#closed ??= this.#stop(graceMs);
    return this.#closed;
  }

  async #stop(graceMs) {
    clearInterval(this.#lockCheck);
    // The record first: a server started again once the lock is gone finds it stopped.
    this.#record?.stop();
    this.#lock?.remove();
    const listening = new Promise((resolve) => this.#listener.close(() => resolve()));
    this.#engine.shutdown(now());
    this.#drain();
    const link = this.endLink();
    if (this.#sockets.size > 0) {
      const idle = new Promise((resolve) => {
        this.#idle = resolve;
      });
      const force = setTimeout(() => {
        for (const s of this.#sockets.values()) s.socket.destroy();
      }, graceMs);
      await idle;
      clearTimeout(force);
    }
    await Promise.all([listening, link]);
    clearTimeout(this.#timer);
    this.#timer = null;
  }

  #accept(socket) {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true); // answers are small; latency matters more than packet count
    const conn = this.#engine.handleAccept(now());
    this.#sockets.set(conn, new Socket(socket));
    socket.on('data', (chunk) => this.#safely(() => this.#onData(conn, chunk)));
    socket.on('drain', () => this.#safely(() => this.#onDrain(conn)));
    socket.on('error', () => {}); // 'close' follows and reports the transport gone
    socket.on('close', () => this.#safely(() => this.#onClose(conn)));
    this.#drain();
  }

  /** Runs an I/O callback; an engine error there (a bug) goes to onError, not to the loop. */
  #safely(callback) {
    try {
      callback();
    } catch (err) {
      this.#report(err);
    }
  }

  /** Bytes held for `conn` that the kernel has not taken: the engine's and the socket's. */
  #unsent(conn, s) {
    return this.#engine.outboundLength(conn) + s.socket.writableLength;
  }

  #onData(conn, chunk) {
    this.#engine.handleBytes(now(), conn, chunk);
    this.#drain();
    const s = this.#sockets.get(conn);
    if (s && !s.paused && !s.closing && this.#unsent(conn, s) >= this.#pump.pauseReadsAtBytes) {
      s.paused = true;
      s.socket.pause();
    }
  }

  #onDrain(conn) {
    const s = this.#sockets.get(conn);
    if (!s) return;
    s.blocked = false;
    this.#flush(conn);
    if (s.closing && !s.blocked) s.socket.end();
    if (s.paused && !s.closing && this.#unsent(conn, s) < this.#pump.resumeReadsBelowBytes) {
      s.paused = false;
      s.socket.resume();
    }
  }

  #onClose(conn) {
    const s = this.#sockets.get(conn);
    if (!s) return;
    this.#sockets.delete(conn);
    clearTimeout(s.linger);
    try {
      this.#engine.handleClosed(now(), conn);
      this.#drain();
    } finally {
      if (this.#sockets.size === 0 && this.#idle) this.#idle();
    }
  }

  /** Hands the socket everything the engine holds for `conn`, unless the socket is full. */
  #flush(conn) {
    const s = this.#sockets.get(conn);
    if (!s || s.blocked || !s.socket.writable) return;
    const bytes = this.#engine.outbound(conn);
    if (bytes.length === 0) return;
    const room = s.socket.write(bytes);
    this.#engine.handleSent(conn, bytes.length);
    if (!room) s.blocked = true;
  }

  #closeTransport(conn) {
    const s = this.#sockets.get(conn);
    if (!s || s.closing) return;
    s.closing = true;
    this.#flush(conn);
    if (!s.blocked) s.socket.end();
    s.linger = setTimeout(() => s.socket.destroy(), this.#pump.lingerMs);
    s.linger.unref();
  }

  /**
   * Drains the engine's outputs (those of the link's connections go to the link on the way),
   * then the link's bytes and news; called after every input.
   */
  #drain() {
    const engine = this.#engine;
    const at = now();
    for (let out = engine.pollOutput(at); out !== null; out = engine.pollOutput(at)) {
      if (out.kind === 'transmit') this.#flush(out.conn);
      else if (out.kind === 'closeTransport') this.#closeTransport(out.conn);
      else if (out.kind === 'event') this.#dispatch(out);
    }
    this.#link?.pump();
    this.#schedule();
  }

  #dispatch(event) {
    if (event.event === 'toolCall') this.#toolCall(event);
    if (event.event === 'toolCallCancelled') {
      const controller = this.#pending.get(event.id);
      this.#pending.delete(event.id);
      controller?.abort(event.reason);
    }
    const { onEvent } = this.#config;
    if (onEvent) {
      try {
        onEvent(event);
      } catch (err) {
        this.#report(err);
      }
    }
  }

  #toolCall({ id, conn, request }) {
    const controller = new AbortController();
    this.#pending.set(id, controller);
    const { onToolCall, ideName } = this.#config;
    const call = { id, conn, signal: controller.signal };
    // Deferred, so the handler never runs inside the engine's drain; skipped when the call was
    // cancelled in the same batch of input (there is nothing left to carry out).
    Promise.resolve()
      .then(() => {
        if (controller.signal.aborted) return null;
        if (!onToolCall) {
          return { outcome: 'failed', message: `${ideName} does not carry out ${request.tool}` };
        }
        return onToolCall(request, call);
      })
      .then(
        (outcome) => outcome,
        (err) => ({ outcome: 'failed', message: String(err?.message ?? err) }),
      )
      .then((outcome) => this.#safely(() => this.#answer(id, outcome)));
  }

  #answer(id, outcome) {
    if (!this.#pending.delete(id)) return; // cancelled meanwhile, or the host shut down
    try {
      this.#engine.handleToolOutcome(now(), id, outcome);
    } catch (err) {
      this.#report(err);
      const message = `the editor's answer was refused: ${err.message}`;
      this.#engine.handleToolOutcome(now(), id, { outcome: 'failed', message });
    }
    this.#drain();
  }

  /** Arms the one timer for the engine's next deadline. */
  #schedule() {
    const at = this.#engine.pollTimeout();
    if (at === this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = at;
    if (at === null) return;
    const delay = Math.max(0, Math.ceil(at - now()));
    this.#timer = setTimeout(() => this.#safely(() => this.#tick()), delay);
    this.#timer.unref(); // the listener and sockets keep the process alive, not the timer
  }

  #tick() {
    this.#timer = null;
    this.#timerAt = null;
    this.#engine.handleTimeout(now());
    this.#drain();
  }

  /** Writes new lock fields, and the resume record around them. */
  #rewriteLock(fields) {
    this.#lock.rewrite(fields);
    this.#record?.relock(fields);
  }

  #restoreLock() {
    try {
      this.#lock.restoreIfMissing();
      this.#record?.refresh();
    } catch (err) {
      this.#report(err);
    }
  }

  #report(err) {
    const { onError } = this.#config;
    if (onError) onError(err);
    else process.emitWarning(err);
  }
}

module.exports = { startHost };
