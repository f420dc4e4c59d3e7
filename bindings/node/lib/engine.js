'use strict';
// The JS `Engine` class: each method is one call into the binding's engine_* functions (src/, or
// lib/wasm.js over the WebAssembly engine), holding the engine's handle. The engine is dropped when this object is collected.
// Documented in index.d.ts.

const native = require('./addon.js');

const engines = new FinalizationRegistry((handle) => native.engineFree(handle));

/** `null`, a primitive's type, or an object's class name: for error messages. */
function describe(value) {
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value;
  return value.constructor?.name ?? 'object';
}

class Engine {
  #handle;

  constructor(config, authToken) {
    this.#handle = native.engineNew(config, authToken);
    engines.register(this, this.#handle);
  }

  handleAccept(now) {
    return native.engineHandleAccept(this.#handle, now);
  }

  handleBytes(now, conn, bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError(`bytes must be a Uint8Array or a Buffer, got ${describe(bytes)}`);
    }
    native.engineHandleBytes(this.#handle, now, conn, bytes);
  }

  handleClosed(now, conn) {
    native.engineHandleClosed(this.#handle, now, conn);
  }

  close(now, conn) {
    native.engineClose(this.#handle, now, conn);
  }

  shutdown(now) {
    native.engineShutdown(this.#handle, now);
  }

  handleEditorEvent(now, event) {
    native.engineHandleEditorEvent(this.#handle, now, event);
  }

  handleSnapshot(now, snapshot) {
    const bits = native.engineHandleSnapshot(this.#handle, now, snapshot);
    return {
      documents: (bits & 1) !== 0,
      active: (bits & 2) !== 0,
      diagnostics: (bits & 4) !== 0,
      workspaceFolders: (bits & 8) !== 0,
    };
  }

  handleToolOutcome(now, id, outcome) {
    native.engineHandleToolOutcome(this.#handle, now, id, outcome);
  }

  handleTimeout(now) {
    native.engineHandleTimeout(this.#handle, now);
  }

  sessions() {
    const list = native.engineSessions(this.#handle);
    // The WebAssembly engine (lib/wasm.js) hands out the parsed list itself.
    return typeof list === 'string' ? JSON.parse(list) : list;
  }

  chooseSession(now, choice) {
    native.engineChooseSession(this.#handle, now, choice ?? null);
  }

  ledger() {
    const turns = native.engineLedger(this.#handle);
    // The WebAssembly engine (lib/wasm.js) hands out the parsed list itself.
    return typeof turns === 'string' ? JSON.parse(turns) : turns;
  }

  handleLedgerRead(now, read, content) {
    native.engineHandleLedgerRead(this.#handle, now, read, content);
  }

  handleLedgerWritten(now, write, nowHolds) {
    native.engineHandleLedgerWritten(this.#handle, now, write, nowHolds);
  }

  handleFileSeen(now, path, content, previous) {
    native.engineHandleFileSeen(this.#handle, now, path, content, previous);
  }

  ledgerUndo(now, target) {
    native.engineLedgerUndo(this.#handle, now, target);
  }

  pollOutput(now) {
    const out = native.enginePollOutput(this.#handle, now);
    // A number is a transmit (conn) or a closeTransport (-conn); anything else is the JSON
    // text of the output's serde form (src/engine.rs, engine_poll_output).
    if (typeof out === 'number') {
      return out > 0 ? { kind: 'transmit', conn: out } : { kind: 'closeTransport', conn: -out };
    }
    // The WebAssembly engine (lib/wasm.js) hands out the parsed object itself.
    return typeof out === 'string' ? JSON.parse(out) : out;
  }

  pollTimeout() {
    return native.enginePollTimeout(this.#handle);
  }

  outbound(conn) {
    const bytes = Buffer.allocUnsafe(native.engineOutboundLength(this.#handle, conn));
    native.engineOutboundInto(this.#handle, conn, bytes);
    return bytes;
  }

  outboundLength(conn) {
    return native.engineOutboundLength(this.#handle, conn);
  }

  handleSent(conn, n) {
    native.engineHandleSent(this.#handle, conn, n);
  }

  // The remote link (src/link.rs): one at a time, its outputs inside pollOutput(now).

  attachLink(now, authToken, ideName, pauseReadsAtBytes) {
    native.engineLinkAttach(this.#handle, now, authToken, ideName, pauseReadsAtBytes ?? undefined);
  }

  handleLinkBytes(now, bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError(`bytes must be a Uint8Array or a Buffer, got ${describe(bytes)}`);
    }
    native.engineLinkBytes(this.#handle, now, bytes);
  }

  handleLinkEnd(now) {
    native.engineLinkEnd(this.#handle, now);
  }

  shutdownLink(now) {
    native.engineLinkShutdown(this.#handle, now);
  }

  linkOutbound() {
    const bytes = Buffer.allocUnsafe(native.engineLinkOutboundLength(this.#handle));
    native.engineLinkOutboundInto(this.#handle, bytes);
    return bytes;
  }

  handleLinkSent(n) {
    native.engineLinkSent(this.#handle, n);
  }

  pollLinkEvent() {
    const event = native.engineLinkPollEvent(this.#handle);
    // The WebAssembly engine (lib/wasm.js) hands out the parsed object itself.
    return typeof event === 'string' ? JSON.parse(event) : event;
  }
}

module.exports = { Engine, describe };
