'use strict';
// The lock file's life on disk, with the rules of the mio host (hosts/mio/src/lock.rs):
// - directory `$CLAUDE_CONFIG_DIR/ide`, else `~/.claude/ide`; created 0700; refused when it is
//   a symbolic link, not a directory, or owned by another user; tightened to 0700 when looser;
// - written to a temporary name created 0600 with O_EXCL ('wx'), then renamed into place, so
//   the token never sits in a file others can read and readers never see half a file;
// - at start, stale locks that are ours (same ideName, dead pid) are swept; a lock whose pid
//   is alive is never deleted;
// - restored when someone deletes it; removed on close, on process exit and on
//   SIGINT/SIGTERM/SIGHUP.
// The body is built and read by core (lockFileJson / parseLockFile), never spelled here.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { lockFileJson, parseLockFile } = require('./addon.js');

/**
 * The directory the CLI searches: `$CLAUDE_CONFIG_DIR/ide` when set and non-empty, else
 * `<home>/.claude/ide`.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
function defaultLockDir(env = process.env) {
  if (env.CLAUDE_CONFIG_DIR) return path.join(env.CLAUDE_CONFIG_DIR, 'ide');
  const home = env.HOME || env.USERPROFILE || os.homedir();
  if (!home) {
    throw new Error('cannot find the Claude config directory: set CLAUDE_CONFIG_DIR or HOME');
  }
  return path.join(home, '.claude', 'ide');
}

/** Creates `dir` 0700 when missing; refuses a symlink, a non-directory or another user's. */
function prepareDir(dir) {
  let stat = lstatOrNull(dir);
  if (stat === null) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    stat = fs.lstatSync(dir);
  }
  if (stat.isSymbolicLink()) {
    throw new Error(
      `refusing lock directory ${dir}: it is a symbolic link; remove it or point ` +
        'CLAUDE_CONFIG_DIR at a real directory',
    );
  }
  if (!stat.isDirectory()) throw new Error(`lock directory ${dir} is not a directory`);
  if (typeof process.geteuid === 'function') {
    const me = process.geteuid();
    if (stat.uid !== me) {
      throw new Error(
        `refusing lock directory ${dir}: it belongs to uid ${stat.uid}, not to this user`,
      );
    }
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  }
}

function lstatOrNull(file) {
  try {
    return fs.lstatSync(file);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

/** True when a process with this pid exists (for another user too: EPERM means alive). */
function pidIsAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

/** `<port>.lock` for ports 1..65535 written without leading zeros, as the CLI names them. */
function isLockName(name) {
  const match = /^([1-9][0-9]{0,4})\.lock$/.exec(name);
  return match !== null && Number(match[1]) <= 65535;
}

/**
 * Removes the locks in `dir` that are ours and stale: `ideName` equals ours and the pid is
 * dead. Unreadable files and other IDEs' locks are left alone. Returns the paths removed.
 */
function sweepStale(dir, ideName) {
  const removed = [];
  for (const name of fs.readdirSync(dir)) {
    if (!isLockName(name)) continue;
    const file = path.join(dir, name);
    let lock;
    try {
      lock = parseLockFile(fs.readFileSync(file, 'utf8'));
    } catch {
      continue; // unreadable or not a lock body: not ours to judge
    }
    if (lock.ideName === ideName && !pidIsAlive(lock.pid)) {
      try {
        fs.unlinkSync(file);
        removed.push(file);
      } catch {
        // gone already, or not ours to delete
      }
    }
  }
  return removed;
}

let nonce = 0;

/**
 * Writes `contents` to a fresh temporary file created 0600 with O_EXCL beside `file`, then
 * renames it over `file`.
 */
function writeAtomically(file, contents) {
  const dir = path.dirname(file);
  const base = path.basename(file);
  for (;;) {
    const tmp = path.join(dir, `.${base}.${process.pid}.${nonce++}.tmp`);
    let fd;
    try {
      fd = fs.openSync(tmp, 'wx', 0o600);
    } catch (err) {
      if (err.code === 'EEXIST') continue;
      throw err;
    }
    try {
      fs.writeFileSync(fd, contents);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(tmp, file);
      return;
    } catch (err) {
      if (fd !== undefined) fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}

/** Locks to remove if the process ends without closing its servers. */
const live = new Set();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function removeAllLive() {
  for (const lock of live) lock.remove();
}

/**
 * On a signal nobody else handles, remove the locks and die of the same signal (the default
 * behaviour the listener displaced). When the application handles the signal too, it decides
 * whether the process ends; the 'exit' hook removes the locks if it does.
 */
function onSignal(signal) {
  if (process.listenerCount(signal) > 1) return;
  removeAllLive();
  unhook();
  process.kill(process.pid, signal);
}

function hook() {
  process.on('exit', removeAllLive);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function unhook() {
  process.removeListener('exit', removeAllLive);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
}

/** Owns `<dir>/<port>.lock` while open: written, rewritten, restored, removed. */
class LockFile {
  /**
   * Prepares `dir`, sweeps our stale locks and writes the lock for `port`.
   * @param {string} dir
   * @param {number} port
   * @param {import('../index').LockFileFields} fields
   */
  constructor(dir, port, fields) {
    prepareDir(dir);
    sweepStale(dir, fields.ideName);
    this.path = path.join(dir, `${port}.lock`);
    this.fields = fields;
    writeAtomically(this.path, lockFileJson(fields));
    if (live.size === 0) hook();
    live.add(this);
  }

  /** Replaces the contents (workspace folders changed, say), atomically. */
  rewrite(fields) {
    writeAtomically(this.path, lockFileJson(fields));
    this.fields = fields;
  }

  /** Writes the lock again when it is gone; returns true when it had to. */
  restoreIfMissing() {
    if (!live.has(this) || lstatOrNull(this.path) !== null) return false;
    prepareDir(path.dirname(this.path));
    writeAtomically(this.path, lockFileJson(this.fields));
    return true;
  }

  /** Removes the file (best effort) and stops guarding it. Idempotent. */
  remove() {
    if (!live.delete(this)) return;
    if (live.size === 0) unhook();
    try {
      fs.rmSync(this.path, { force: true });
    } catch {
      // Best effort, as on every exit path: the directory may be gone or read-only now.
    }
  }
}

module.exports = { LockFile, defaultLockDir, pidIsAlive, sweepStale };
