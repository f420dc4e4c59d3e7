'use strict';
// The addon's function set (src/*.rs, the names lib/*.js call) over the WebAssembly engine
// (the idelink-wasm package's Node build), for platforms without a prebuilt addon. The engine
// and every rule are the same Rust code; this file only adapts the call shapes: the addon's
// engines are numeric handles, the wasm module's are objects; a few results differ in form
// (`undefined` for `null`, an object for `[name, value]` pairs). Arguments are checked by
// the module itself, with core's messages (idelink_core::forms), the addon's too.

/** The addon's exports, built on the wasm module `w`. */
function wasmBinding(w) {
  const engines = new Map();
  let last = 0;

  function engine(handle) {
    const found = engines.get(handle);
    // As src/registry.rs: lib/engine.js never calls with a freed handle.
    if (found === undefined) throw new Error(`no engine with handle ${handle}: it was freed`);
    return found;
  }

  function engineNew(config, authToken) {
    last += 1;
    engines.set(last, new w.Engine(config ?? {}, authToken));
    return last;
  }

  return {
    engineNew,
    engineFree(handle) {
      const found = engines.get(handle);
      engines.delete(handle);
      found?.free();
    },
    engineHandleAccept: (h, now) => engine(h).handleAccept(now),
    engineHandleBytes: (h, now, c, bytes) => engine(h).handleBytes(now, c, bytes),
    engineHandleClosed: (h, now, c) => engine(h).handleClosed(now, c),
    engineClose: (h, now, c) => engine(h).close(now, c),
    engineShutdown: (h, now) => engine(h).shutdown(now),
    engineHandleEditorEvent: (h, now, event) => engine(h).handleEditorEvent(now, event),
    engineHandleSnapshot(h, now, snapshot) {
      const c = engine(h).handleSnapshot(now, snapshot);
      // As the addon's: 1 documents, 2 active, 4 diagnostics, 8 workspace folders.
      return (c.documents ? 1 : 0) | (c.active ? 2 : 0) | (c.diagnostics ? 4 : 0) | (c.workspaceFolders ? 8 : 0);
    },
    engineHandleToolOutcome: (h, now, id, outcome) => engine(h).handleToolOutcome(now, id, outcome),
    engineHandleTimeout: (h, now) => engine(h).handleTimeout(now),
    engineSessions: (h) => engine(h).sessions(),
    engineChooseSession: (h, now, choice) => engine(h).chooseSession(now, choice),
    engineLedger: (h) => engine(h).ledger(),
    engineHandleLedgerRead: (h, now, read, content) => engine(h).handleLedgerRead(now, read, content),
    engineHandleLedgerWritten: (h, now, write, holds) => engine(h).handleLedgerWritten(now, write, holds),
    engineHandleFileSeen: (h, now, path, content, previous) =>
      engine(h).handleFileSeen(now, path, content, previous),
    engineLedgerUndo: (h, now, target) => engine(h).ledgerUndo(now, target),
    // Already an object (lib/engine.js passes objects through).
    enginePollOutput: (h, now) => engine(h).pollOutput(now),
    enginePollTimeout: (h) => engine(h).pollTimeout() ?? null,
    engineOutboundLength: (h, c) => engine(h).outboundLength(c),
    // As the addon's: copies the start of the unsent bytes into `target`, returns the count.
    engineOutboundInto(h, c, target) {
      const bytes = engine(h).outbound(c);
      const n = Math.min(bytes.length, target.length);
      target.set(bytes.subarray(0, n));
      return n;
    },
    engineHandleSent: (h, c, n) => engine(h).handleSent(c, n),
    engineLinkAttach: (h, now, token, ideName, pause) => engine(h).attachLink(now, token, ideName, pause),
    engineLinkBytes: (h, now, bytes) => engine(h).handleLinkBytes(now, bytes),
    engineLinkEnd: (h, now) => engine(h).handleLinkEnd(now),
    engineLinkShutdown: (h, now) => engine(h).shutdownLink(now),
    engineLinkOutboundLength: (h) => engine(h).linkOutboundLength(),
    // As engineOutboundInto, for the link's stream.
    engineLinkOutboundInto(h, target) {
      const bytes = engine(h).linkOutbound();
      const n = Math.min(bytes.length, target.length);
      target.set(bytes.subarray(0, n));
      return n;
    },
    engineLinkSent: (h, n) => engine(h).handleLinkSent(n),
    engineLinkPollEvent: (h) => engine(h).pollLinkEvent(),

    terminalEnvPairs: (port, noProxy, noProxyUpper, force) =>
      Object.entries(w.terminalEnv(port, { no_proxy: noProxy, NO_PROXY: noProxyUpper }, force)),
    languageId: (file) => w.languageId(file) ?? null,

    folderContains: (folder, cwd, pathStyle) => w.folderContains(folder, cwd, pathStyle),
    // As the addon's: the Verdict as JSON text (index.js parses it).
    discover: (start) => JSON.stringify(w.discover(start)),

    lockFileJson: (fields) => w.lockFileJson(fields),
    parseLockFile: (text) => w.parseLockFile(text),
    lockFileName: (port) => w.lockFileName(port),
    lockPortFromFileName: (name) => w.lockPortFromFileName(name) ?? null,
    staleLockOwner: (name, body, ours) => w.staleLockOwner(name, body, ours) ?? null,
    lockTempFileName: (name, pid, attempt) => w.lockTempFileName(name, pid, attempt),
    maxLockBytes: () => w.maxLockBytes(),
    lockUpkeep: (present) => w.lockUpkeep(present),
    lockRewrittenFor: (lock, event) => w.lockRewrittenFor(lock, event),
    lockRewrittenForSnapshot: (lock, snapshot) => w.lockRewrittenForSnapshot(lock, snapshot),
    lockDirComponents: (configDir, home) => w.lockDirComponents(configDir, home),
    judgeConfigDir: (dir, f, me) => w.judgeConfigDir(dir, f.kind, f.owner, f.mode, me) ?? null,
    judgeLockDir: (dir, f, me) => w.judgeLockDir(dir, f.kind, f.owner, f.mode, me) ?? null,
    resumeRecordFileName: (port) => w.resumeRecordFileName(port),
    resumeRecordPort: (name) => w.resumeRecordPort(name) ?? null,
    resumeRecordJson: (port, running, atMs, lockJson) => w.resumeRecordJson(port, running, atMs, lockJson),
    resumeRecordFor: (body, ideName, folders) => w.resumeRecordFor(body, ideName, folders),
    judgeResumeFile: (kind, owner, mode, me) => w.judgeResumeFile(kind, owner, mode, me) ?? null,
    mayResume: (body, nowMs, alive, lockAtPort) => w.mayResume(body, nowMs, alive, lockAtPort) ?? null,
    resumeLeftover: (body, ideName, folders, nowMs, alive) =>
      w.resumeLeftover(body, ideName, folders, nowMs, alive),
    resumeHeartbeatDue: (writtenMs, nowMs) => w.resumeHeartbeatDue(writtenMs, nowMs),
    pumpPolicy(pauseReadsAtBytes) {
      const policy = new w.PumpPolicy(pauseReadsAtBytes ?? undefined);
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
