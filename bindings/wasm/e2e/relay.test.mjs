// The whole chain in a real browser: `idelink relay` + the demo page running the wasm engine in
// Chromium + a protocol client that connects like the claude CLI. Needs /usr/bin/chromium
// (Debian's), driven by playwright-core (which never downloads a browser), the idelink binary
// (IDELINK_BIN, else <CARGO_TARGET_DIR or target>/debug/idelink) and bindings/wasm/pkg/web,
// which the relay is told to serve with --wasm-dir.
// IDELINK_SCREENSHOT=<file.png> saves the page with the diff panel open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeClient, deadline } from '../testkit/claude-client.mjs';
import { RelayProcess, launchChromium } from '../testkit/relay.mjs';

const WAIT_MS = 20_000;

const dir = mkdtempSync(join(tmpdir(), 'idelink-e2e-'));
const work = join(dir, 'work');
const lockDir = join(dir, 'ide');
let relay;
let pageUrl;
let httpPort;
let context;
let page;

/** The status line of a raw HTTP request to the relay's page port. */
async function statusOf(request) {
  const socket = net.connect(httpPort, '127.0.0.1');
  socket.write(request);
  let answer = '';
  socket.on('data', (d) => { answer += d.toString('latin1'); });
  await deadline(once(socket, 'close'), WAIT_MS, 'the relay to answer and close');
  return answer.split('\r\n')[0];
}

function linkRequest(target, origin) {
  return `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${httpPort}\r\n` +
    (origin ? `Origin: ${origin}\r\n` : '') +
    'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
}

function texts(response) {
  assert.ok(response.result?.content, `not a tool result: ${JSON.stringify(response)}`);
  return response.result.content.map((item) => item.text);
}

before(async () => {
  mkdirSync(work);
  writeFileSync(join(work, 'hello.txt'), 'line one\nline two\nline three\n');
  relay = await RelayProcess.start(work, lockDir, WAIT_MS);
  pageUrl = relay.pageUrl;
  httpPort = Number(new URL(pageUrl).port);
  context = await launchChromium(join(dir, 'profile'));
  page = context.pages()[0] ?? (await context.newPage());
});

after(async () => {
  await context?.close();
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the page link is refused from another origin, and never takes the secret in its URL', async () => {
  const secret = new URL(pageUrl).hash.replace('#secret=', '');
  const origin = `http://127.0.0.1:${httpPort}`;
  assert.equal(await statusOf(linkRequest('/link', 'http://evil.example')), 'HTTP/1.1 403 Forbidden');
  assert.equal(await statusOf(linkRequest('/link', null)), 'HTTP/1.1 403 Forbidden');
  assert.equal(await statusOf(linkRequest(`/link?secret=${secret}`, origin)), 'HTTP/1.1 404 Not Found');
});

test('a page opened without the secret does not link', async () => {
  const bare = await context.newPage();
  await bare.goto(pageUrl.replace(/#.*/, ''));
  await bare.waitForFunction(() => document.getElementById('status').textContent.includes('no secret'), null, { timeout: WAIT_MS });
  assert.equal(relay.lockCount(), 0, 'no page linked, so no lock');
  await bare.close();
});

test('claude drives the browser editor through the relay', async () => {
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-link="linked"]', { timeout: WAIT_MS });
  await relay.line('page linked');
  const lock = relay.lock();
  assert.equal(lock.ideName, 'idelink (browser)');
  const client = await ClaudeClient.connect(lock.port, lock.authToken, WAIT_MS);
  const tools = await client.call('tools/list', {});
  assert.ok(tools.result.tools.some((t) => t.name === 'openDiff'));

  // A selection made in the page arrives as selection_changed.
  await page.click('#file-list button[data-path="hello.txt"]');
  await page.waitForFunction(() => document.getElementById('editor').value.startsWith('line one'), null, { timeout: WAIT_MS });
  await page.waitForSelector('body[data-ready="1"]', { timeout: WAIT_MS });
  await page.locator('#editor').evaluate((el) => { el.focus(); el.setSelectionRange(5, 13); });
  const selected = await client.notification('selection_changed', (p) => p.text === 'one\nline');
  assert.equal(selected.params.filePath, join(work, 'hello.txt'));
  assert.deepEqual(selected.params.selection.start, { line: 0, character: 5 });
  assert.deepEqual(selected.params.selection.end, { line: 1, character: 4 });

  // "Send selection to claude" mentions the lines.
  await page.click('#mention');
  const mentioned = await client.notification('at_mentioned');
  assert.deepEqual(mentioned.params, { filePath: join(work, 'hello.txt'), lineStart: 0, lineEnd: 1 });

  // openDiff shows a diff panel; Accept after editing returns FILE_SAVED with the final text.
  const path = join(work, 'hello.txt');
  const tab = '✻ [Claude Code] hello.txt (e2e001) ⧉';
  const proposed = 'line one\nline 2\nline three\n';
  const saved = client.call('tools/call', {
    name: 'openDiff',
    arguments: { old_file_path: path, new_file_path: path, new_file_contents: proposed, tab_name: tab },
  });
  const panel = page.locator('.diff');
  await panel.waitFor({ timeout: WAIT_MS });
  assert.equal(await panel.locator('h3').textContent(), tab);
  assert.deepEqual(await panel.locator('.diff-view .del').allTextContents(), ['- line two']);
  assert.deepEqual(await panel.locator('.diff-view .add').allTextContents(), ['+ line 2']);
  if (process.env.IDELINK_SCREENSHOT) await page.screenshot({ path: process.env.IDELINK_SCREENSHOT });
  const edited = `${proposed}line four, by the user\n`;
  await panel.locator('textarea.proposed').fill(edited);
  await panel.locator('button.accept').click();
  assert.deepEqual(texts(await saved), ['FILE_SAVED', edited]);
  assert.equal(readFileSync(path, 'utf8'), 'line one\nline two\nline three\n', 'the editor never writes: claude does');

  // Reject answers DIFF_REJECTED with the tab name.
  const rejected = client.call('tools/call', {
    name: 'openDiff',
    arguments: { old_file_path: path, new_file_path: path, new_file_contents: 'nope\n', tab_name: 'tab-2' },
  });
  await page.locator('.diff button.reject').click({ timeout: WAIT_MS });
  assert.deepEqual(texts(await rejected), ['DIFF_REJECTED', 'tab-2']);

  // Model text holding bidi, invisible and control characters is never shown live: each is a
  // visible marker, and the hunk holding them a warning (the terminal review's rules, inert.js).
  const trojan = 'line one\nif (admin) {\u202E } \u2066// ok\u2069\u200B\x1b[2K\nline three\n';
  const marked = client.call('tools/call', {
    name: 'openDiff',
    arguments: { old_file_path: path, new_file_path: path, new_file_contents: trojan, tab_name: 'tab\u202E-3' },
  });
  const hidden = page.locator('.diff');
  await hidden.waitFor({ timeout: WAIT_MS });
  assert.equal(await hidden.locator('h3').textContent(), 'tab<U+202E>-3');
  const added = await hidden.locator('.diff-view .add').allTextContents();
  assert.ok(added.includes('+ if (admin) {<U+202E> } <U+2066>// ok<U+2069><U+200B><ESC>[2K'), JSON.stringify(added));
  assert.deepEqual(await hidden.locator('.diff-view .warning').allTextContents(), [
    '! warning: this hunk holds control characters and bidi controls (text may read reordered) and ' +
      'invisible characters, shown as <NAME> or <U+XXXX>',
  ]);
  assert.equal(await hidden.locator('.diff-view mark.hidden-char').count(), 5);
  const viewText = await hidden.locator('.diff-view').textContent();
  assert.ok(!/[\u202E\u2066\u2069\u200B\x1b]/.test(viewText), 'a hidden character is shown live');
  assert.equal(await hidden.locator('textarea.proposed').inputValue(), trojan, 'the proposal itself is kept as sent');
  await hidden.locator('button.reject').click();
  assert.deepEqual(texts(await marked), ['DIFF_REJECTED', 'tab\u202E-3']);

  // Another tab opened with the same (say, leaked) URL is refused; this one keeps the link.
  const other = await context.newPage();
  await other.goto(pageUrl);
  await other.waitForFunction(() => document.getElementById('status').textContent.includes('another page holds the link'), null, { timeout: WAIT_MS });
  await relay.line('a page was refused the link');
  assert.equal(await page.evaluate(() => document.body.dataset.link), 'linked');
  await other.close();

  // This tab reloaded links again (its resume token); the old engine's claude connection ends.
  await page.reload();
  await page.waitForSelector('body[data-link="linked"]', { timeout: WAIT_MS });
  await deadline(client.ended, WAIT_MS, 'the relay to close the claude connection');
  await relay.line('page linked');

  // When the page goes away, the lock goes too.
  await page.close();
  await relay.line('page gone');
  assert.equal(relay.lockCount(), 0, 'the lock goes with the page');
});
