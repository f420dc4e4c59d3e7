// The package as a new user gets it: `npm pack` of bindings/wasm (built by build.sh), installed
// from the tarball into a fresh project; a page bundled there with esbuild from
// `idelink-wasm/link`, served by `idelink relay --page-dir`, links in Chromium and answers a
// selection and an openDiff to a client that connects like the claude CLI. The same install
// also loads the Node build (the `node` condition). Needs what relay.test.mjs needs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ClaudeClient } from '../testkit/claude-client.mjs';
import { RelayProcess, launchChromium } from '../testkit/relay.mjs';

const WAIT_MS = 20_000;
const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// The page a web IDE would write: the editor side only, the link is the package's.
const MAIN_JS = `
import { RelayLink } from 'idelink-wasm/link';

const link = await RelayLink.connect({
  onEvent(out) {
    if (out.event === 'sessionReady') document.body.dataset.ready = 'yes';
    if (out.event === 'toolCall' && out.request.tool === 'openDiff') {
      link.answer(out.id, { outcome: 'diffSaved', finalText: out.request.newFileContents + 'accepted in the page\\n' });
    }
  },
  onClose(closed) { document.body.dataset.link = closed.message; },
});
const path = link.welcome.workspace + '/hello.txt';
window.select = (text) => {
  link.editorEvent({ type: 'documentOpened', path, languageId: 'plaintext' });
  link.editorEvent({ type: 'selectionChanged', path, text, selection: { start: { line: 0, character: 5 }, end: { line: 0, character: 8 } } });
};
document.body.dataset.link = 'linked';
`;

const dir = mkdtempSync(join(tmpdir(), 'idelink-package-'));
const work = join(dir, 'work');
const lockDir = join(dir, 'ide');
const project = join(dir, 'project');
const site = join(project, 'site');
let tarball;
let relay;
let context;

before(async () => {
  assert.ok(existsSync(join(pkgDir, 'pkg', 'web', 'link.js')), 'bindings/wasm/pkg is missing: bash bindings/wasm/build.sh');
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  execFileSync('npm', ['pack', '--pack-destination', packs, '--loglevel=error'], { cwd: pkgDir, stdio: ['ignore', 'ignore', 'inherit'] });
  tarball = join(packs, readdirSync(packs).find((name) => name.endsWith('.tgz')));
  mkdirSync(site, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'web-ide', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
});

after(async () => {
  await context?.close();
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds every build its exports name, and Node loads its own', () => {
  console.log(`${tarball.split('/').pop()}: ${statSync(tarball).size} bytes`);
  const installed = join(project, 'node_modules', 'idelink-wasm');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.private, undefined, 'publishable');
  const targets = JSON.stringify(manifest.exports).match(/\.\/pkg\/[^"]+/g);
  for (const file of targets) assert.ok(existsSync(join(installed, file)), `${file} is in the tarball`);
  // `require` and `import` from Node both take the `node` condition (the CommonJS build).
  const { Engine, languageId } = createRequire(join(project, 'index.js'))('idelink-wasm');
  const engine = new Engine({ port: 40000 }, '00112233445566778899aabbccddeeff');
  assert.equal(engine.handleAccept(0), 1);
  assert.equal(languageId('a.rs'), 'rust');
});

test('a page bundled with esbuild from the tarball links through idelink relay --page-dir', async () => {
  writeFileSync(join(project, 'main.js'), MAIN_JS);
  writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><title>web ide</title><script type="module" src="/main.js"></script><body>');
  await build({
    absWorkingDir: project, entryPoints: ['main.js'], bundle: true, format: 'esm', platform: 'browser',
    target: 'es2022', outfile: join(site, 'main.js'), logLevel: 'error',
  });
  // The web build fetches its module next to the script (import.meta.url): ship it there.
  copyFileSync(createRequire(join(project, 'index.js')).resolve('idelink-wasm/idelink_wasm_bg.wasm'), join(site, 'idelink_wasm_bg.wasm'));
  mkdirSync(work);
  writeFileSync(join(work, 'hello.txt'), 'line one\nline two\n');
  relay = await RelayProcess.start(work, lockDir, WAIT_MS, ['--page-dir', site]);
  context = await launchChromium(join(dir, 'profile'));
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(relay.pageUrl);
  await page.waitForSelector('body[data-link="linked"]', { state: 'attached', timeout: WAIT_MS }).catch((e) => {
    throw new Error(`the page did not link (${problems.join('; ')}): ${e.message}`);
  });
  await relay.line('page linked');
  const lock = relay.lock();
  const client = await ClaudeClient.connect(lock.port, lock.authToken, WAIT_MS);
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: WAIT_MS });

  await page.evaluate(() => window.select('one'));
  const selected = await client.notification('selection_changed', (p) => p.text === 'one');
  assert.equal(selected.params.filePath, join(work, 'hello.txt'));

  const path = join(work, 'hello.txt');
  const saved = await client.call('tools/call', {
    name: 'openDiff',
    arguments: { old_file_path: path, new_file_path: path, new_file_contents: 'line 1\n', tab_name: 'pkg-e2e' },
  });
  assert.deepEqual(saved.result.content.map((c) => c.text), ['FILE_SAVED', 'line 1\naccepted in the page\n']);
  assert.deepEqual(problems, []);
  client.close();
});
