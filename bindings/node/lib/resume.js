'use strict';
// The resume record's life on disk for the Node host (`<port>.resume` beside the locks): found
// and judged at start, written with the lock, refreshed by a heartbeat, marked stopped on close.
// Every rule is core's (through the addon: the record's name and body, the file rule, whether a
// record may be resumed, which leftovers go, when the heartbeat is due; docs/protocol.md §1,
// "Reconnects and resume"); this file performs the system calls, as ./lock.js does for the lock
// (and with its writer: a temporary file created 0600 with O_CREAT|O_EXCL|O_NOFOLLOW, then
// renamed into place, in the directory ./lock.js prepared and judged).
//
// A record is read only when it is a regular file of this user with no permission bit for group
// or others, judged on the opened handle (O_NOFOLLOW: a link is refused, never followed). Where
// there are no uids (Windows) Node cannot read a file's ACL, so every record counts as not
// private there and a Node host on Windows always starts fresh.
//
// The rules come from whichever engine runs (./addon.js): the native addon or the WebAssembly
// fallback (./wasm.js), which carries the same functions.

const fs = require('node:fs');
const path = require('node:path');
const addon = require('./addon.js');
const {
  judgeResumeFile,
  lockFileJson,
  lockFileName,
  mayResume,
  resumeHeartbeatDue,
  resumeLeftover,
  resumeRecordFileName,
  resumeRecordFor,
  resumeRecordJson,
  resumeRecordPort,
  staleLockOwner,
} = addon;
const { pidIsAlive, writeAtomically } = require('./lock.js');

const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
/** The largest record read: core's lock limit (a record is a lock body and three fields). */
const MAX_RECORD_BYTES = 64 * 1024;

/** The user records must belong to, or null where there are no uids. */
function me() {
  return typeof process.geteuid === 'function' ? process.geteuid() : null;
}

/**
 * The text of the record `name` in `dir`, judged by core's file rule on the opened handle:
 * `{ body }`, `{ refused: why }`, or null when it is gone, unreadable or too large.
 */
function readRecord(dir, name) {
  let fd;
  try {
    fd = fs.openSync(path.join(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if (err.code === 'ELOOP') return { refused: judgeResumeFile('symlink', 0, 0, 0) };
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    const kind = stat.isFile() ? 'regular' : stat.isSymbolicLink() ? 'symlink' : 'other';
    const user = me();
    // Without uids (Windows) the mode says nothing about who can read it: not private.
    const mode = user === null ? 0o666 : stat.mode & 0o7777;
    const refused = judgeResumeFile(kind, user === null ? 0 : stat.uid, mode, user ?? 0);
    if (refused !== null) return { refused };
    if (stat.size > MAX_RECORD_BYTES) return null;
    return { body: fs.readFileSync(fd, 'utf8') };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** What sits at `<port>.lock` in `dir`, as core's rules name it. */
function lockAtPort(dir, port, ideName) {
  const file = path.join(dir, lockFileName(port));
  let stat;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    return err.code === 'ENOENT' ? 'missing' : 'other';
  }
  if (!stat.isFile() || stat.size > MAX_RECORD_BYTES) return 'other';
  try {
    const owner = staleLockOwner(lockFileName(port), fs.readFileSync(file, 'utf8'), ideName);
    return owner !== null && !pidIsAlive(owner) ? 'oursStale' : 'other';
  } catch {
    return 'other';
  }
}

/** The fields JS needs of a record core accepted. */
function fieldsOf(body) {
  const { port, pid, authToken, atMs } = JSON.parse(body);
  return { port, pid, authToken, atMs };
}

/**
 * The record of `ideName` serving `workspaceFolders` in the prepared lock directory `dir` that
 * core lets a starting host resume (`{ port, authToken }`), or `{ why }` saying why there is
 * none.
 */
function findResumable(dir, ideName, workspaceFolders) {
  const now = Date.now();
  let refused = null;
  const judged = [];
  for (const name of fs.readdirSync(dir)) {
    if (resumeRecordPort(name) === null) continue;
    const read = readRecord(dir, name);
    if (read === null) continue;
    if (read.refused !== undefined) {
      refused ??= read.refused;
      continue;
    }
    if (!resumeRecordFor(read.body, ideName, workspaceFolders)) continue;
    const record = fieldsOf(read.body);
    const why = mayResume(read.body, now, pidIsAlive(record.pid), lockAtPort(dir, record.port, ideName));
    judged.push({ record, why });
  }
  // The newest record is the session claude saw last (core's `newest`: time, then port).
  judged.sort((a, b) => b.record.atMs - a.record.atMs || b.record.port - a.record.port);
  const resumable = judged.find((j) => j.why === null);
  if (resumable) return { port: resumable.record.port, authToken: resumable.record.authToken };
  return { why: judged[0]?.why ?? refused ?? 'no recent session of this editor and workspace' };
}

/**
 * The record a running Node host keeps beside its lock: written at start, again when the
 * heartbeat is due and when the lock is rewritten, and as stopped on close. The leftovers of
 * earlier sessions of this editor and workspace are removed at start.
 */
class ResumeRecordKeeper {
  /**
   * @param {string} dir the lock directory (prepared by the lock's guard)
   * @param {number} port
   * @param {import('../index').LockFileFields} fields
   */
  constructor(dir, port, fields) {
    this.file = path.join(dir, resumeRecordFileName(port));
    this.port = port;
    this.fields = fields;
    this.writtenAt = 0;
    this.stopped = false;
    this.#write(true);
    this.#removeLeftovers(dir);
  }

  #write(running) {
    this.writtenAt = Date.now();
    writeAtomically(this.file, resumeRecordJson(this.port, running, this.writtenAt, lockFileJson(this.fields)));
  }

  #removeLeftovers(dir) {
    const now = Date.now();
    for (const name of fs.readdirSync(dir)) {
      const port = resumeRecordPort(name);
      if (port === null || port === this.port) continue;
      const read = readRecord(dir, name);
      if (read === null || read.body === undefined) continue;
      const { pid } = fieldsOf(read.body);
      const { ideName, workspaceFolders } = this.fields;
      if (!resumeLeftover(read.body, ideName, workspaceFolders, now, pidIsAlive(pid))) continue;
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }

  /** Writes the record's time again when core says the heartbeat is due. */
  refresh() {
    if (!this.stopped && resumeHeartbeatDue(this.writtenAt, Date.now())) this.#write(true);
  }

  /** Writes the record for rewritten lock fields (new workspace folders). */
  relock(fields) {
    this.fields = fields;
    if (!this.stopped) this.#write(true);
  }

  /** Marks the record stopped (best effort: a close cannot fail for it). Idempotent. */
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.#write(false);
    } catch {
      // The directory may be gone or read-only now; a crashed host's record says as much.
    }
  }
}

module.exports = { ResumeRecordKeeper, findResumable };
