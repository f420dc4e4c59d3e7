// The relay page's turn ledger in a real browser: `idelink relay` + the demo page (its engine
// with `ledger: true`) in Chromium + a client that makes claude's calls of an accept-edits turn
// (docs/protocol.md, "A turn's signals": closeAllDiffTabs, getDiagnostics {uri} before an edit,
// getDiagnostics {} after it) and edits the files itself, as the CLI does. The page answers
// the engine's reads, lists the turn with its hunks, undoes a file through the relay's
// compare-and-write, shows the engine's reason for a refused undo, and shows a file name made
// of markup as text; an open document follows claude's edit, and one with unsaved edits is
// not written over. Needs what relay.test.mjs needs. IDELINK_SCREENSHOT=<file.png> saves the
// page with the turn listed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeClient } from '../testkit/claude-client.mjs';
import { RelayProcess, launchChromium } from '../testkit/relay.mjs';

const WAIT_MS = 20_000;
const ORIGINAL = 'line one\nline two\nline three\n';
const EDITED = 'line one\nline 2\nline three\n';
/** A file name that is markup: shown live, it would run its handler. */
const MARKUP = '<img src=x onerror="window.pwned=1">&amp;.txt';

const dir = mkdtempSync(join(tmpdir(), 'idelink-ledger-e2e-'));
const work = join(dir, 'work');
let relay;
let context;
let page;
let client;

before(async () => {
  mkdirSync(work);
  writeFileSync(join(work, 'hello.txt'), ORIGINAL);
  relay = await RelayProcess.start(work, join(dir, 'ide'), WAIT_MS);
  context = await launchChromium(join(dir, 'profile'));
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(relay.pageUrl);
  await page.waitForSelector('body[data-link="linked"]', { timeout: WAIT_MS });
  await relay.line('page linked');
  const lock = relay.lock();
  client = await ClaudeClient.connect(lock.port, lock.authToken, WAIT_MS);
  await page.waitForSelector('body[data-ready="1"]', { timeout: WAIT_MS });
});

after(async () => {
  client?.close();
  await context?.close();
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name, args) => client.call('tools/call', { name, arguments: args });

/**
 * One edit as the CLI makes it: the pre-edit call (answered once the page gave the engine the
 * file's baseline), the write, the call after it.
 */
async function edit(path, text) {
  const before = await tool('getDiagnostics', { uri: `file://${path}` });
  assert.ok(before.result, `the pre-edit call failed: ${JSON.stringify(before)}`);
  writeFileSync(path, text);
  await tool('getDiagnostics', {});
}

/** The file row of `path` in turn `turn`. */
const fileRow = (turn, path) => page.locator(`#turns .turn[data-turn="${turn}"] section.file`).filter({
  has: page.locator('.path', { hasText: path.slice(work.length + 1) }),
});

async function undo(row, button) {
  await row.locator(button).first().click();
  await page.locator('#turns .confirm').waitFor({ timeout: WAIT_MS });
  await page.locator('#turns .confirm-undo').click();
}

test('a turn is listed with its hunks, a file is undone, a refused undo says why', async () => {
  const hello = join(work, 'hello.txt');
  const markup = join(work, MARKUP);
  await tool('closeAllDiffTabs', {});
  await edit(hello, EDITED);
  await edit(markup, 'made by claude\n');

  // The turn: both files, the lines each changed, auto-accepted, the new one created.
  const helloRow = fileRow(1, hello);
  await helloRow.locator('.lines', { hasText: '+1 -1' }).waitFor({ timeout: WAIT_MS });
  assert.deepEqual(await helloRow.locator('.tag').allTextContents(), ['auto']);
  assert.deepEqual(await helloRow.locator('.del').allTextContents(), ['- line two']);
  assert.deepEqual(await helloRow.locator('.add').allTextContents(), ['+ line 2']);
  assert.equal(await helloRow.locator('.hunk-bar span').textContent(), '@@ -2,1 +2,1 @@');
  const markupRow = fileRow(1, markup);
  await markupRow.locator('.lines', { hasText: '+1 -0' }).waitFor({ timeout: WAIT_MS });
  assert.deepEqual(await markupRow.locator('.tag').allTextContents(), ['auto', 'created']);

  // The markup file name is text: shown as it is, and no element of it exists.
  assert.equal(await markupRow.locator('.path').textContent(), MARKUP);
  assert.equal(await page.locator('#turns img').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);

  if (process.env.IDELINK_SCREENSHOT) await page.screenshot({ path: process.env.IDELINK_SCREENSHOT });

  // Undo hello.txt's change, confirmed: the relay writes it back on disk.
  await undo(helloRow, 'button.undo-file');
  await page.locator('#turns .ledger-message .done', { hasText: 'hello.txt: written back' }).waitFor({ timeout: WAIT_MS });
  assert.equal(readFileSync(hello, 'utf8'), ORIGINAL);
  await fileRow(1, hello).waitFor({ state: 'detached', timeout: WAIT_MS });

  // The next turn changes the created file again: undoing turn 1's change of it would
  // overwrite turn 2's, so the engine refuses, and the page says why; nothing is written.
  await tool('closeAllDiffTabs', {});
  await edit(markup, 'made by claude\nand changed in turn 2\n');
  await fileRow(2, markup).locator('.lines', { hasText: '+1 -0' }).waitFor({ timeout: WAIT_MS });
  await undo(fileRow(1, markup), 'button.undo-file');
  const refused = page.locator('#turns .ledger-message .refused');
  await refused.waitFor({ timeout: WAIT_MS });
  assert.equal(
    await refused.textContent(),
    `Undo turn 1's change of ${MARKUP}: refused: turn 2 changed ${markup} after turn 1: undo turn 2's change first`,
  );
  assert.equal(readFileSync(markup, 'utf8'), 'made by claude\nand changed in turn 2\n');

  // Turn 2's hunk undone: the file is back to what turn 1 left.
  await undo(fileRow(2, markup), 'button.undo-hunk');
  await page.locator('#turns .ledger-message .done', { hasText: 'written back' }).waitFor({ timeout: WAIT_MS });
  assert.equal(readFileSync(markup, 'utf8'), 'made by claude\n');
  assert.equal(await page.locator('#turns img').count(), 0);

  // A clean open document follows claude's edit; once the user edits it, an undo of that file
  // is refused by the page (its buffer is what the file holds for the editor), nothing written.
  await page.click('#file-list button[data-path="hello.txt"]');
  await page.waitForFunction((text) => document.getElementById('editor').value === text, ORIGINAL, { timeout: WAIT_MS });
  await tool('closeAllDiffTabs', {});
  await edit(hello, EDITED);
  await page.waitForFunction((text) => document.getElementById('editor').value === text, EDITED, { timeout: WAIT_MS });
  await fileRow(3, hello).waitFor({ timeout: WAIT_MS });
  await page.locator('#editor').focus();
  await page.keyboard.type('! ');
  await undo(fileRow(3, hello), 'button.undo-file');
  await page.locator('#turns .ledger-message .refused').waitFor({ timeout: WAIT_MS });
  assert.equal(
    await page.locator('#turns .ledger-message .refused').textContent(),
    `${hello} has unsaved edits in the editor: nothing was written`,
  );
  assert.equal(readFileSync(hello, 'utf8'), EDITED);
});
