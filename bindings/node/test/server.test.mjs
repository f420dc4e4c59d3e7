// startHost over real loopback sockets on port 0, with the `ws` package as the client (as
// the CLI's WebSocket client would connect): token + `mcp` subprotocol, initialize, a selection
// pushed by the editor and read back, openDiff answered through onToolCall, a 401 for a wrong
// token, and close. Every wait has a deadline; nothing sleeps.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import util from 'node:util';
import { after, test } from 'node:test';
import { parseLockFile, startHost } from 'idelink';
import { Client, Waiters, refusal, within } from '../testkit/claude.mjs';

const base = mkdtempSync(join(tmpdir(), 'idelink-server-'));
after(() => rmSync(base, { recursive: true, force: true }));

test('a ws client upgrades, initializes, reads a selection and gets a diff answered', async () => {
  const events = new Waiters();
  const diffs = [];
  const server = await startHost({
    workspaceFolders: ['/w'],
    ideName: 'Test Editor',
    lock: { dir: join(base, 'ide') },
    engine: { readyDelayMs: 0, selectionDebounceMs: 0 },
    onEvent: (event) => events.push(event),
    async onToolCall(request, call) {
      diffs.push({ request, id: call.id });
      assert.equal(request.tool, 'openDiff');
      return { outcome: 'diffSaved', finalText: `${request.newFileContents}// reviewed\n` };
    },
  });
  try {
    const client = new Client(server.port, server.revealAuthToken());
    await client.open();
    assert.equal(client.ws.protocol, 'mcp');
    const connected = await events.next((e) => e.event === 'connected', 'connected');
    assert.equal(connected.userAgent, 'claude-code/2.1.332 (test)');

    const init = await client.request(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'claude-code', version: '2.1.332' },
    });
    assert.equal(init.result.protocolVersion, '2025-11-25');
    assert.ok(init.result.capabilities.tools, 'tools capability advertised');
    client.send({ method: 'notifications/initialized' });
    client.send({ method: 'ide_connected', params: { pid: 4242 } });
    const ready = await events.next((e) => e.event === 'sessionReady', 'sessionReady');
    assert.equal(ready.clientPid, 4242);

    server.selectionChanged({
      path: '/w/src/main.rs',
      text: 'fn main',
      selection: { start: { line: 2, character: 0 }, end: { line: 2, character: 7 } },
    });
    const pushed = await client.messages.next((m) => m.method === 'selection_changed', 'selection_changed');
    assert.equal(pushed.params.text, 'fn main');
    assert.equal(pushed.params.filePath, '/w/src/main.rs');

    const selection = await client.request(1, 'tools/call', { name: 'getCurrentSelection', arguments: {} });
    const body = JSON.parse(selection.result.content[0].text);
    assert.deepEqual(
      { success: body.success, text: body.text, filePath: body.filePath, start: body.selection.start },
      { success: true, text: 'fn main', filePath: '/w/src/main.rs', start: { line: 2, character: 0 } },
    );

    const diff = await client.request(2, 'tools/call', {
      name: 'openDiff',
      arguments: {
        old_file_path: '/w/src/main.rs',
        new_file_path: '/w/src/main.rs',
        new_file_contents: 'fn main() {}\n',
        tab_name: '✻ [Claude Code] main.rs (1a2b3c) ⧉',
      },
    });
    assert.deepEqual(diff.result.content, [
      { type: 'text', text: 'FILE_SAVED' },
      { type: 'text', text: 'fn main() {}\n// reviewed\n' },
    ]);
    assert.equal(diffs.length, 1);
    assert.equal(diffs[0].request.tabName, '✻ [Claude Code] main.rs (1a2b3c) ⧉');

    await server.shutdown();
    assert.equal(await client.closeCode(), 1001, 'close sends going-away');
  } finally {
    await server.shutdown();
  }
});

test('a pulled getDiagnostics reaches onToolCall parsed and its outcome answers the client', async () => {
  const asked = [];
  const server = await startHost({
    workspaceFolders: ['/w'],
    ideName: 'Test Editor',
    lock: 'none',
    engine: { reads: { getDiagnostics: 'editor' } },
    onToolCall(request) {
      asked.push(request);
      const range = { start: { line: 1, character: 4 }, end: { line: 1, character: 9 } };
      return {
        outcome: 'diagnostics',
        files: [{ path: request.path, diagnostics: [{ message: 'unused', severity: 'Warning', range }] }],
      };
    },
  });
  try {
    const client = new Client(server.port, server.revealAuthToken());
    await client.open();
    await client.request(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'claude-code', version: '2.1.332' },
    });
    const answer = await client.request(1, 'tools/call', {
      name: 'getDiagnostics',
      arguments: { uri: 'file:///w/src/main.rs' },
    });
    assert.deepEqual(asked, [{ tool: 'getDiagnostics', path: '/w/src/main.rs' }]);
    assert.equal(
      answer.result.content[0].text,
      '[{"uri":"file:///w/src/main.rs","diagnostics":[{"message":"unused","severity":"Warning",' +
        '"range":{"start":{"line":1,"character":4},"end":{"line":1,"character":9}}}]}]',
    );
  } finally {
    await server.shutdown();
  }
});

test('a diff cancelled by close_tab aborts the onToolCall signal and ignores its late answer', async () => {
  let release;
  const answered = new Promise((resolve) => {
    release = resolve;
  });
  const aborted = new Waiters();
  const started = new Waiters();
  const server = await startHost({
    workspaceFolders: ['/w'],
    ideName: 'Test Editor',
    lock: 'none',
    onToolCall(request, call) {
      call.signal.addEventListener('abort', () => aborted.push(call.signal.reason));
      started.push(request.tabName);
      return answered; // the user never answers before close_tab comes
    },
  });
  try {
    const client = new Client(server.port, server.revealAuthToken());
    await client.open();
    await client.request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    const tab = 'tab-1';
    client.send({
      id: 1,
      method: 'tools/call',
      params: { name: 'openDiff', arguments: { old_file_path: '/w/a', new_file_path: '/w/a', new_file_contents: 'x', tab_name: tab } },
    });
    await started.next((name) => name === tab, 'onToolCall to start');
    await client.request(2, 'tools/call', { name: 'close_tab', arguments: { tab_name: tab } });
    const diff = await client.messages.next((m) => m.id === 1, 'the diff answer');
    assert.equal(diff.result.content[0].text, 'DIFF_REJECTED');
    assert.equal(await aborted.next(() => true, 'the abort'), 'closedByClient');
    release({ outcome: 'diffSaved', finalText: 'too late' }); // dropped: the call is gone
    const ping = await client.request(3, 'ping', {});
    assert.deepEqual(ping.result, {}, 'the server still serves after the late answer');
  } finally {
    await server.shutdown();
  }
});

test('a large answer goes out whole through back-pressure', async () => {
  const big = 'x'.repeat(4 << 20);
  const server = await startHost({
    workspaceFolders: ['/w'],
    ideName: 'Test Editor',
    lock: 'none',
    onToolCall: () => ({ outcome: 'diffSaved', finalText: big }),
  });
  try {
    const client = new Client(server.port, server.revealAuthToken());
    await client.open();
    await client.request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    const diff = await client.request(1, 'tools/call', {
      name: 'openDiff',
      arguments: { old_file_path: '/w/a', new_file_path: '/w/a', new_file_contents: '', tab_name: 't' },
    });
    assert.equal(diff.result.content[1].text.length, big.length);
    assert.ok(diff.result.content[1].text === big);
  } finally {
    await server.shutdown();
  }
});

test('a wrong token gets 401 and no upgrade', async () => {
  const events = new Waiters();
  const server = await startHost({
    workspaceFolders: ['/w'],
    ideName: 'Test Editor',
    lock: 'none',
    onEvent: (event) => events.push(event),
  });
  try {
    assert.equal(await refusal(server.port, '0'.repeat(32)), 401);
    const closed = await events.next((e) => e.event === 'closed', 'closed');
    assert.deepEqual(closed.reason.kind, 'upgradeRejected');
    assert.equal(closed.reason.status, 401);
  } finally {
    await server.shutdown();
  }
});

test('the token never shows in console.log, util.inspect, JSON.stringify or an Error', async () => {
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: { dir: join(base, 'inspect') }});
  try {
    // From the lock file, as the CLI reads it: the test does not depend on the accessor.
    const token = parseLockFile(readFileSync(server.lockPath, 'utf8')).authToken;
    assert.match(token, /^[0-9a-f]{32}$/);
    const printed = [];
    const log = console.log;
    console.log = (...args) => printed.push(util.format(...args));
    try {
      console.log(server);
      console.log('%o %O %j %s', server, server, server, server);
      console.log({ server });
    } finally {
      console.log = log;
    }
    const shown = [
      ...printed,
      util.inspect(server),
      util.inspect(server, { showHidden: true, depth: Infinity, getters: true }),
      util.inspect(server, { customInspect: false, showHidden: true, getters: true }),
      JSON.stringify(server),
      JSON.stringify({ nested: [server] }),
      JSON.stringify(Object.entries(server)),
      JSON.stringify({ ...server }),
      new Error(util.format('could not serve %o', server)).message,
      String(new Error(`state: ${JSON.stringify(server)}`)),
    ];
    for (const text of shown) assert.ok(!text.includes(token), `the token leaked in: ${text}`);
    assert.ok(util.inspect(server).includes("authToken: '<redacted>'"), util.inspect(server));
    assert.equal(JSON.parse(JSON.stringify(server)).authToken, '<redacted>');
    assert.equal(Object.keys(server).includes('authToken'), false);
    assert.equal(server.revealAuthToken(), token, 'the explicit accessor still gives it');
  } finally {
    await server.shutdown();
  }
});

/**
 * Runs the shared back-pressure scenario (tests/client: a client that pipelines tools/call and
 * does not read) against `port`; resolves with its JSON report. `IDELINK_BACKPRESSURE_BIN`
 * names a built `backpressure` binary; without it, cargo runs it.
 */
function backpressureScenario(port, token) {
  const bin = process.env.IDELINK_BACKPRESSURE_BIN;
  const [file, args] = bin
    ? [bin, [String(port), token]]
    : ['cargo', ['run', '-q', '-p', 'idelink-test-client', '--bin', 'backpressure', '--', String(port), token]];
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`the back-pressure scenario failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

test('a client that pipelines calls without reading is paused within the shared memory bound', { timeout: 300_000 }, async () => {
  const server = await startHost({ workspaceFolders: ['/w'], ideName: 'Test Editor', lock: 'none'});
  try {
    const before = process.memoryUsage().rss;
    const report = await backpressureScenario(server.port, server.revealAuthToken());
    const growth = process.resourceUsage().maxRSS * 1024 - before;
    assert.ok(report.answerBytes >= 8 << 20, `the client stopped before the server paused it: ${JSON.stringify(report)}`);
    assert.ok(
      growth <= report.peakGrowthBoundBytes,
      `peak memory grew by ${growth} bytes, over the bound of ${report.peakGrowthBoundBytes}: ${JSON.stringify(report)}`,
    );
  } finally {
    await server.shutdown();
  }
});

test('the host keeps a turn through its ledger calls and undoes its file on disk', async () => {
  const events = new Waiters();
  const dir = mkdtempSync(join(base, 'ledger-'));
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'one\ntwo\n');
  const onDisk = (path) => {
    try {
      return { kind: 'text', text: readFileSync(path, 'utf8') };
    } catch {
      return { kind: 'missing' };
    }
  };
  const server = await startHost({
    workspaceFolders: [dir],
    ideName: 'Test Editor',
    lock: 'none',
    engine: { readyDelayMs: 0, ledger: true },
    onEvent(event) {
      // The editor answers each read at once: claude's pre-edit call waits for it.
      if (event.event === 'ledgerRead') server.handleLedgerRead(event.read, onDisk(event.path));
      events.push(event);
    },
  });
  try {
    const client = new Client(server.port, server.revealAuthToken());
    await client.open();
    await client.request(0, 'initialize', {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.332' },
    });
    await client.request(1, 'tools/call', { name: 'closeAllDiffTabs', arguments: {} });
    await client.request(2, 'tools/call', { name: 'getDiagnostics', arguments: { uri: `file://${file}` } });
    writeFileSync(file, 'one\n2\n');
    await client.request(3, 'tools/call', { name: 'getDiagnostics', arguments: {} });
    await events.next((e) => e.event === 'turnChanged' && e.change.change === 'fileChanged', 'the edit kept');
    const [turn] = server.ledger();
    assert.deepEqual(
      [turn.files[0].path, turn.files[0].baseline, turn.files[0].current],
      [file, { kind: 'text', text: 'one\ntwo\n' }, { kind: 'text', text: 'one\n2\n' }],
    );

    server.ledgerUndo({ undo: 'file', turn: turn.id, path: file });
    const { write, file: planned } = await events.next((e) => e.event === 'ledgerWrite', 'the undo');
    // The editor's compare-and-write.
    assert.deepEqual(onDisk(planned.path), planned.expected);
    writeFileSync(planned.path, planned.text);
    server.handleLedgerWritten(write, onDisk(planned.path));
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\n');
    assert.deepEqual(server.ledger()[0].files[0].hunks, []);
    assert.throws(() => server.ledgerUndo({ undo: 'turn', turn: 9 }), /turn 9/);
  } finally {
    await server.shutdown();
  }
});

test('the host lists its sessions and sends a mention to the one chosen, by pid or by connection', async () => {
  const events = new Waiters();
  const server = await startHost({
    workspaceFolders: [base],
    ideName: 'Test Editor',
    lock: 'none',
    engine: { readyDelayMs: 0 },
    onEvent: (event) => events.push(event),
  });
  try {
    const clients = [];
    for (const pid of [4101, 4102]) {
      const client = new Client(server.port, server.revealAuthToken());
      await client.open();
      await client.request(0, 'initialize', {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.332' },
      });
      client.send({ method: 'notifications/initialized', params: {} });
      client.send({ method: 'ide_connected', params: { pid } });
      await events.next((e) => e.event === 'sessionReady' && e.clientPid === pid, `session ${pid}`);
      clients.push(client);
    }
    assert.deepEqual(server.sessions().map((s) => [s.pid, s.chosen]), [[4101, false], [4102, false]]);
    const path = join(base, 'a.rs');
    const mention = (lineStart) => server.handleEditorEvent({ type: 'mention', path, lineStart, lineEnd: lineStart });
    const mentioned = (client, lineStart) =>
      client.messages.next((m) => m.method === 'at_mentioned' && m.params.lineStart === lineStart, `mention ${lineStart}`);

    server.chooseSession({ by: 'pid', pid: 4102 });
    assert.deepEqual(server.sessions().map((s) => s.chosen), [false, true]);
    mention(1);
    await mentioned(clients[1], 1);
    const first = server.sessions()[0].conn;
    server.chooseSession({ by: 'conn', conn: first });
    mention(2);
    await mentioned(clients[0], 2);
    // The first client's mentions: only the one sent while it was chosen.
    assert.deepEqual(clients[0].messages.all((m) => m.method === 'at_mentioned').map((m) => m.params.lineStart), [2]);
    assert.throws(() => server.chooseSession({ by: 'conn', conn: 99 }), /99/);
    server.chooseSession(null);
    assert.deepEqual(server.sessions().map((s) => s.chosen), [false, false]);
  } finally {
    await server.shutdown();
  }
});
