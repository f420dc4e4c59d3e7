'use strict';
// The lock file's life on disk. Every rule is core's (through the addon: lock names, the stale
// rule, the directory rules, when to restore and rewrite); this file performs the system calls.
// - directory `$CLAUDE_CONFIG_DIR/ide`, else `~/.claude/ide`. The directory holding it must be
//   the user's (or root's) and not writable by group or others unless sticky; `ide/` is
//   created 0700, refused when it is a symbolic link, not a directory, or another user's, and
//   tightened to 0700 when looser;
// - written to a temporary name created 0600 with O_CREAT|O_EXCL|O_NOFOLLOW, then renamed into
//   place, so the token never sits in a file others can read and readers never see half a file;
// - at start, stale locks that are ours (same ideName, dead pid) are swept; a lock whose pid
//   is alive is never deleted;
// - restored when someone deletes it; removed on close, on process exit and on
//   SIGINT/SIGTERM/SIGHUP.
//
// Difference from the mio host: Node's fs has no `*at` calls (openat, renameat relative to an
// open directory), so operations go by path. The directories are checked again right before
// every write (start, rewrite, restore), and files are created with O_NOFOLLOW|O_EXCL, which
// narrows a swap of `ide/` to the moment between that check and the write, but cannot close it
// as the mio host's descriptor-relative calls do.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  judgeConfigDir,
  judgeLockDir,
  lockDirComponents,
  lockFileJson,
  lockFileName,
  lockTempFileName,
  lockUpkeep,
  maxLockBytes,
  staleLockOwner,
} = require('./addon.js');

/** Core's `MAX_LOCK_BYTES`: a file in the lock folder larger than this is not read as a lock. */
const MAX_LOCK_BYTES = maxLockBytes();

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0 } = fs.constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/**
 * The directory the CLI searches: `$CLAUDE_CONFIG_DIR/ide` when set and non-empty, else
 * `<home>/.claude/ide`.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
function defaultLockDir(env = process.env) {
  const home = env.HOME || env.USERPROFILE || os.homedir() || undefined;
  return path.join(...lockDirComponents(env.CLAUDE_CONFIG_DIR || undefined, home));
}

/** What core judges a directory by, from an fs.Stats. */
function facts(stat) {
  const kind = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'directory' : 'other';
  return { kind, owner: stat.uid, mode: stat.mode & 0o7777 };
}

function statOrNull(stat, file) {
  try {
    return stat(file);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Creates `dir` 0700 (and the directory holding it) when missing and checks both by core's
 * rules; tightens `dir` to 0700 when looser. Ownership and modes are checked where the
 * platform has uids (not on Windows).
 */
function prepareDir(dir) {
  const parent = path.dirname(dir);
  if (statOrNull(fs.statSync, parent) === null) fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  const me = typeof process.geteuid === 'function' ? process.geteuid() : null;
  // The parent is followed if it is a link the user made (as the mio host does), and judged.
  if (me !== null) judgeConfigDir(parent, facts(fs.statSync(parent)), me);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  const stat = fs.lstatSync(dir);
  const tighten = judgeLockDir(dir, facts(stat), me ?? stat.uid);
  if (tighten !== null && me !== null) fs.chmodSync(dir, tighten);
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

/** The contents of `file` when it is a regular file of at most MAX_LOCK_BYTES, else null. */
function readSmall(file) {
  const stat = statOrNull(fs.lstatSync, file);
  if (stat === null || !stat.isFile() || stat.size > MAX_LOCK_BYTES) return null;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Removes the locks in `dir` that core judges ours and stale (our ideName, dead pid). Other
 * IDEs' locks and anything unreadable are left alone. Returns the paths removed.
 */
function sweepStale(dir, ideName) {
  const removed = [];
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    const body = readSmall(file);
    if (body === null) continue;
    const owner = staleLockOwner(name, body, ideName);
    if (owner === null || pidIsAlive(owner)) continue;
    try {
      fs.unlinkSync(file);
      removed.push(file);
    } catch {
      // gone already, or not ours to delete
    }
  }
  return removed;
}

let attempt = 0;

/**
 * Writes `contents` to a fresh temporary file (core names it) created 0600 with
 * O_CREAT|O_EXCL|O_NOFOLLOW beside `file`, then renames it over `file`.
 */
function writeAtomically(file, contents) {
  const dir = path.dirname(file);
  const base = path.basename(file);
  for (;;) {
    const tmp = path.join(dir, lockTempFileName(base, process.pid, attempt++ % 2 ** 32));
    let fd;
    try {
      fd = fs.openSync(tmp, CREATE_NEW, 0o600);
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

/** Locks to remove if the process ends without shutting its hosts down. */
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

/**
 * Owns `<dir>/<port>.lock` while open: written, rewritten, restored, removed (the mio host's
 * `LockFileGuard`; the body model is core's `LockFile`, built by `lockFileJson`).
 */
class LockFileGuard {
  /**
   * Prepares `dir`, sweeps our stale locks and writes the lock for `port`.
   * @param {string} dir
   * @param {number} port
   * @param {import('../index').LockFile} fields
   */
  constructor(dir, port, fields) {
    prepareDir(dir);
    sweepStale(dir, fields.ideName);
    this.path = path.join(dir, lockFileName(port));
    this.fields = fields;
    writeAtomically(this.path, lockFileJson(fields));
    if (live.size === 0) hook();
    live.add(this);
  }

  /** Replaces the contents (workspace folders changed, say), atomically. */
  rewrite(fields) {
    prepareDir(path.dirname(this.path));
    writeAtomically(this.path, lockFileJson(fields));
    this.fields = fields;
  }

  /** Writes the lock again when core says so (it is gone); returns true when it had to. */
  restoreIfMissing() {
    if (!live.has(this)) return false;
    const present = statOrNull(fs.lstatSync, this.path) !== null;
    if (lockUpkeep(present) === 'keep') return false;
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

module.exports = { LockFileGuard, defaultLockDir, pidIsAlive, prepareDir, sweepStale, writeAtomically };
