// `idelink relay` and headless Chromium for the end-to-end tests: the relay as a child process
// whose stdout lines are awaited with a deadline, and the browser as Debian's /usr/bin/chromium
// driven by playwright-core (which never downloads one).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { deadline } from './claude-client.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The idelink binary: IDELINK_BIN, else <CARGO_TARGET_DIR or target>/debug/idelink. */
export const IDELINK_BIN = process.env.IDELINK_BIN ?? resolve(root, process.env.CARGO_TARGET_DIR ?? 'target', 'debug', 'idelink');
/** The wasm engine package the demo page loads (bindings/wasm/build.sh makes it). */
export const WASM_DIR = resolve(root, 'bindings', 'wasm', 'pkg', 'web');
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run',
];

/** A running `idelink relay --lock-dir <lockDir> --wasm-dir <WASM_DIR> <work>` (or other page
 * arguments). */
export class RelayProcess {
  /** `pageArgs`: where the page comes from (`--page-dir DIR` for a bundled page). */
  static async start(work, lockDir, waitMs, pageArgs = ['--wasm-dir', WASM_DIR]) {
    if (!existsSync(IDELINK_BIN)) throw new Error(`${IDELINK_BIN} is missing: cargo build -p idelink`);
    const relay = new RelayProcess(spawn(IDELINK_BIN, ['relay', '--lock-dir', lockDir, ...pageArgs, work], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }), lockDir, waitMs);
    relay.pageUrl = (await relay.line('open http://127.0.0.1:')).slice('open '.length);
    return relay;
  }

  constructor(child, lockDir, waitMs) {
    this.child = child;
    this.lockDir = lockDir;
    this.waitMs = waitMs;
    this.seen = [];
    this.wake = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.seen.push(line);
      this.wake?.();
    });
  }

  /**
   * Resolves with the first stdout line containing `needle` (the lines up to it are consumed).
   * At the deadline it fails saying what the relay printed that no call took yet.
   */
  line(needle) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.wake = null;
        reject(new Error(`timed out after ${this.waitMs} ms waiting for relay output ${JSON.stringify(needle)}; ` +
          `the relay printed since: ${JSON.stringify(this.seen)}`));
      }, this.waitMs);
      const look = () => {
        const at = this.seen.findIndex((l) => l.includes(needle));
        if (at < 0) {
          this.wake = look;
          return;
        }
        clearTimeout(timer);
        this.wake = null;
        resolve(this.seen.splice(0, at + 1)[at]);
      };
      look();
    });
  }

  /** How many lock files the relay's lock folder holds. */
  lockCount() {
    return existsSync(this.lockDir) ? readdirSync(this.lockDir).filter((n) => n.endsWith('.lock')).length : 0;
  }

  /** The lock file the relay wrote for the linked page: `{port, authToken, ...}`. */
  lock() {
    const name = readdirSync(this.lockDir).find((n) => n.endsWith('.lock'));
    if (!name) throw new Error(`no lock file in ${this.lockDir}`);
    return { port: Number(name.replace('.lock', '')), ...JSON.parse(readFileSync(join(this.lockDir, name), 'utf8')) };
  }

  async stop() {
    if (this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    await deadline(once(this.child, 'exit'), this.waitMs, 'the relay to exit');
  }
}

/** Headless Chromium with its profile in `profileDir`. */
export function launchChromium(profileDir) {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1360, height: 760 },
  });
}
