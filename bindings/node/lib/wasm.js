'use strict';
// The addon's function set (src/*.rs, the names lib/*.js call) over the WebAssembly engine
// (the idelink-wasm package's Node build), for platforms without a prebuilt addon. The engine
// and every rule are the same Rust code; this file only adapts the call shapes: the addon's
// engines are numeric handles, the wasm module's are objects; a few results differ in form
// (`undefined` for `null`, an object for `[name, value]` pairs). Arguments are checked here
// with the addon's own messages (src/convert.rs), so both bindings throw the same errors.

/** The largest integer a JS number holds exactly. */
const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

function fail(message) {
  return new Error(message);
}

/** As convert::timestamp: a finite, non-negative number of milliseconds. */
function timestamp(now) {
  if (typeof now === 'number' && Number.isFinite(now) && now >= 0) return now;
  throw fail(
    'now must be a finite, non-negative number of milliseconds from a monotonic clock ' +
      `(performance.now()), got ${now}`,
  );
}

/** As convert::whole_number. */
function whole(value, what) {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_SAFE_INTEGER) return value;
  throw fail(`${what} must be a non-negative integer, got ${value}`);
}

const conn = (c) => whole(c, 'conn (an id from handleAccept)');

/** As convert::json_text's check: an object (not null), else say what it was. */
function object(value, what) {
  if (value !== null && typeof value === 'object') return value;
  throw fail(`${what} must be an object in its JSON form, got a ${value === null ? 'null' : typeof value}`);
}

/**
 * Runs `call`, renaming the wasm module's `<wasmWhat>: <serde error>` to the addon's
 * `invalid <what>: <serde error>`.
 */
function parsing(wasmWhat, what, call) {
  try {
    return call();
  } catch (err) {
    const prefix = `${wasmWhat}: `;
    if (err instanceof Error && err.message.startsWith(prefix)) {
      throw fail(`invalid ${what}: ${err.message.slice(prefix.length)}`);
    }
    throw err;
  }
}

/** The addon's exports, built on the wasm module `w`. */
function wasmBinding(w) {
  const engines = new Map();
  let last = 0;

  function engine(handle) {
    const found = engines.get(whole(handle, 'handle'));
    if (found === undefined) throw fail(`no engine with handle ${handle}: it was freed`);
    return found;
  }

  function engineNew(config, authToken) {
    const json = config === undefined || config === null ? {} : object(config, 'config');
    let created;
    try {
      created = parsing('config', 'config', () => new w.Engine(json, authToken));
    } catch (err) {
      // The module reads the config first: any other refusal is the token's.
      if (!(err instanceof Error) || err.message.startsWith('invalid config: ') || err.message.startsWith('config ')) throw err;
      throw fail(`invalid authToken: ${err.message}`);
    }
    last += 1;
    engines.set(last, created);
    return last;
  }

  return {
    engineNew,
    engineFree(handle) {
      const found = engines.get(handle);
      engines.delete(handle);
      found?.free();
    },
    engineHandleAccept: (h, now) => engine(h).handleAccept(timestamp(now)),
    engineHandleBytes: (h, now, c, bytes) => engine(h).handleBytes(timestamp(now), conn(c), bytes),
    engineHandleClosed: (h, now, c) => engine(h).handleClosed(timestamp(now), conn(c)),
    engineClose: (h, now, c) => engine(h).close(timestamp(now), conn(c)),
    engineShutdown: (h, now) => engine(h).shutdown(timestamp(now)),
    engineHandleEditorEvent(h, now, event) {
      const e = engine(h);
      timestamp(now);
      object(event, 'editor event');
      parsing('event', 'editor event', () => e.handleEditorEvent(now, event));
    },
    engineHandleSnapshot(h, now, snapshot) {
      const e = engine(h);
      timestamp(now);
      object(snapshot, 'snapshot');
      const c = parsing('snapshot', 'snapshot', () => e.handleSnapshot(now, snapshot));
      // As the addon's: 1 documents, 2 active, 4 diagnostics, 8 workspace folders.
      return (c.documents ? 1 : 0) | (c.active ? 2 : 0) | (c.diagnostics ? 4 : 0) | (c.workspaceFolders ? 8 : 0);
    },
    engineHandleToolOutcome(h, now, id, outcome) {
      const e = engine(h);
      timestamp(now);
      whole(id, 'id (the id of a toolCall event)');
      object(outcome, 'tool outcome');
      parsing('outcome', 'tool outcome', () => e.handleToolOutcome(now, id, outcome));
    },
    engineHandleTimeout: (h, now) => engine(h).handleTimeout(timestamp(now)),
    // Already an object (lib/engine.js passes objects through).
    enginePollOutput: (h) => engine(h).pollOutput(),
    enginePollTimeout: (h) => engine(h).pollTimeout() ?? null,
    engineOutboundLength: (h, c) => engine(h).outboundLength(conn(c)),
    // As the addon's: copies the start of the unsent bytes into `target`, returns the count.
    engineOutboundInto(h, c, target) {
      const bytes = engine(h).outbound(conn(c));
      const n = Math.min(bytes.length, target.length);
      target.set(bytes.subarray(0, n));
      return n;
    },
    engineHandleSent: (h, c, n) => engine(h).handleSent(conn(c), whole(n, 'n (the number of bytes written)')),

    terminalEnvPairs: (port, noProxy, noProxyUpper, force) =>
      Object.entries(w.terminalEnv(port, { no_proxy: noProxy, NO_PROXY: noProxyUpper }, force)),
    languageId: (file) => w.languageId(file) ?? null,

    folderContains: (folder, cwd, pathStyle) => w.folderContains(folder, cwd, pathStyle),
    // As the addon's: the Verdict as JSON text (index.js parses it).
    // As the addon's: the Verdict as JSON text (index.js parses it).
    discover(start) {
      object(start, 'start');
      return JSON.stringify(parsing('start', 'start', () => w.discover(start)));
    },

    lockFileJson: (fields) => w.lockFileJson(fields),
    parseLockFile: (text) => w.parseLockFile(text),
    lockFileName: (port) => w.lockFileName(port),
    lockPortFromFileName: (name) => w.lockPortFromFileName(name) ?? null,
    staleLockOwner: (name, body, ours) => w.staleLockOwner(name, body, ours) ?? null,
    lockTempFileName: (name, pid, attempt) => w.lockTempFileName(name, pid, attempt),
    maxLockBytes: () => w.maxLockBytes(),
    lockUpkeep: (present) => w.lockUpkeep(present),
    lockRewrittenFor(lock, event) {
      object(event, 'event');
      return parsing('event', 'event', () => w.lockRewrittenFor(lock, event));
    },
    lockRewrittenForSnapshot(lock, snapshot) {
      object(snapshot, 'snapshot');
      return parsing('snapshot', 'snapshot', () => w.lockRewrittenForSnapshot(lock, snapshot));
    },
    lockDirComponents: (configDir, home) => w.lockDirComponents(configDir, home),
    judgeConfigDir: (dir, f, me) => w.judgeConfigDir(dir, f.kind, f.owner, f.mode, me) ?? null,
    judgeLockDir: (dir, f, me) => w.judgeLockDir(dir, f.kind, f.owner, f.mode, me) ?? null,
    pumpPolicy(pauseReadsAtBytes) {
      const pause = pauseReadsAtBytes === undefined || pauseReadsAtBytes === null
        ? undefined
        : whole(pauseReadsAtBytes, 'pauseReadsAtBytes');
      const policy = new w.PumpPolicy(pause);
      try {
        return {
          pauseReadsAtBytes: policy.pauseReadsAtBytes,
          resumeReadsBelowBytes: policy.resumeReadsBelowBytes,
          lingerMs: policy.lingerMs,
          lockCheckIntervalMs: policy.lockCheckIntervalMs,
        };
      } finally {
        policy.free();
      }
    },
  };
}

module.exports = { wasmBinding };
