// The browser demo editor. The whole Claude Code IDE protocol runs here, in the wasm engine;
// `idelink relay` only owns the sockets and the lock file and forwards claude's raw bytes over
// the page link (protocol: docs/relay.md; messages: hosts/cli/src/relay/link.rs).
import init, { Engine } from '/pkg/idelink_wasm.js';

const $ = (id) => document.getElementById(id);
/** Where this tab keeps the relay's resume token, so that a reload links again. */
const RESUME_KEY = 'idelink-relay-resume';
/** Largest data message sent to the relay (it accepts 8 MiB). */
const CHUNK_BYTES = 1 << 20;
const LANGUAGES = {
  rs: 'rust', js: 'javascript', mjs: 'javascript', ts: 'typescript', py: 'python', md: 'markdown',
  json: 'json', toml: 'toml', html: 'html', css: 'css', txt: 'plaintext', sh: 'shellscript',
};

const state = {
  engine: null,
  link: null,
  linkState: 'connecting',
  workspace: null,
  /** relay connection id → engine connection id, and back */
  toEngine: new Map(),
  toRelay: new Map(),
  ready: new Set(),
  /** the open document: { path, text, dirty } */
  doc: null,
  lastSelection: '',
  /** answers to list/read, by request id */
  waiting: new Map(),
  nextRequest: 1,
  timer: null,
};

const now = () => Math.floor(performance.now());

function showStatus() {
  const clients = state.toRelay.size;
  const ready = state.ready.size;
  $('status').textContent = `relay link: ${state.linkState} · claude clients: ${clients} connected, ${ready} ready` +
    (state.doc ? ` · ${state.doc.path}${state.doc.dirty ? ' (modified)' : ''}` : '');
  document.body.dataset.link = state.linkState === 'linked' ? 'linked' : 'down';
  document.body.dataset.ready = String(ready);
}

// ---- the page link ----------------------------------------------------------------------

async function start() {
  const secret = new URLSearchParams(location.hash.slice(1)).get('secret');
  if (!secret) {
    state.linkState = 'no secret in this URL: open the URL `idelink relay` printed';
    return showStatus();
  }
  try {
    await init();
  } catch (e) {
    state.linkState = `cannot load the wasm engine (${e.message}): run bash bindings/wasm/build.sh`;
    return showStatus();
  }
  // The secret never goes into a URL the browser requests: it is the link's first message.
  const ws = new WebSocket(`ws://${location.host}/link`);
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', secret, resume: sessionStorage.getItem(RESUME_KEY) }));
  ws.onmessage = (m) => (typeof m.data === 'string' ? onText(JSON.parse(m.data)) : onData(new Uint8Array(m.data)));
  ws.onclose = (e) => linkLost(e);
  state.link = ws;
  showStatus();
}

function linkSend(message) {
  if (state.link && state.link.readyState === WebSocket.OPEN) state.link.send(message);
}

function request(message) {
  const id = state.nextRequest++;
  return new Promise((resolve, reject) => {
    state.waiting.set(id, { resolve, reject });
    linkSend(JSON.stringify({ ...message, id }));
  });
}

/** The waiter of the request `id` answers, taken out of the table. */
function answered(id) {
  const waiter = state.waiting.get(id);
  state.waiting.delete(id);
  return waiter;
}

function onText(message) {
  switch (message.type) {
    case 'welcome':
      sessionStorage.setItem(RESUME_KEY, message.resume);
      state.workspace = message.workspace;
      state.engine = new Engine({ port: message.claudePort, workspaceFolders: [message.workspace] }, message.authToken);
      state.linkState = 'linked';
      document.title = `${message.ideName} — ${message.workspace}`;
      listFiles();
      break;
    case 'open': {
      const conn = state.engine.handleAccept(now());
      state.toEngine.set(message.conn, conn);
      state.toRelay.set(conn, message.conn);
      break;
    }
    case 'closed': {
      const conn = state.toEngine.get(message.conn);
      if (conn !== undefined) {
        forget(conn);
        state.engine.handleClosed(now(), conn);
      }
      break;
    }
    case 'files':
    case 'file':
      answered(message.id)?.resolve(message);
      break;
    case 'error': {
      const waiter = message.id === null ? undefined : answered(message.id);
      if (waiter) waiter.reject(new Error(message.message));
      else state.linkState = `linked, but: ${message.message}`;
      break;
    }
    default:
      console.warn('unknown relay message', message);
  }
  pump();
}

function onData(message) {
  const relayConn = new DataView(message.buffer, message.byteOffset).getUint32(0);
  const conn = state.toEngine.get(relayConn);
  if (conn === undefined) return;
  state.engine.handleBytes(now(), conn, message.subarray(4));
  pump();
}

/** What the relay's own close codes mean for the user (docs/relay.md). */
const LINK_CLOSED = {
  1008: 'refused: wrong link secret, open the URL idelink relay printed',
  4000: 'moved to a reload of this page',
  4001: 'refused: another page holds the link. Type r and Enter in the idelink relay terminal, then open the new URL',
  4002: 'closed: the link secret was rotated. Open the new URL idelink relay printed',
};

function linkLost(event) {
  const why = event.reason ? `${event.code} ${event.reason}` : `${event.code}`;
  state.linkState = LINK_CLOSED[event.code] ?? `lost (${why}): restart idelink relay and open the URL it prints`;
  for (const waiter of state.waiting.values()) waiter.reject(new Error('the relay link is gone'));
  state.waiting.clear();
  if (state.engine) {
    for (const conn of [...state.toRelay.keys()]) {
      forget(conn);
      state.engine.handleClosed(now(), conn);
    }
    pump();
  }
  showStatus();
}

function forget(conn) {
  const relayConn = state.toRelay.get(conn);
  state.toRelay.delete(conn);
  state.toEngine.delete(relayConn);
  state.ready.delete(conn);
}

// ---- the engine's run loop --------------------------------------------------------------

/** Drains the engine after every input, then arms its timer. */
function pump() {
  const engine = state.engine;
  if (!engine) return showStatus();
  for (let out = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
    if (out.kind === 'transmit') {
      transmit(out.conn);
    } else if (out.kind === 'closeTransport') {
      transmit(out.conn);
      const relayConn = state.toRelay.get(out.conn);
      if (relayConn !== undefined) linkSend(JSON.stringify({ type: 'close', conn: relayConn }));
      forget(out.conn);
      engine.handleClosed(now(), out.conn);
    } else {
      onEvent(out);
    }
  }
  clearTimeout(state.timer);
  const at = engine.pollTimeout();
  if (at !== undefined) {
    state.timer = setTimeout(() => {
      engine.handleTimeout(now());
      pump();
    }, Math.max(0, at - now()));
  }
  showStatus();
}

/** Sends everything the engine holds for `conn` to claude, through the relay. */
function transmit(conn) {
  const relayConn = state.toRelay.get(conn);
  const bytes = state.engine.outbound(conn);
  if (relayConn !== undefined) {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      const part = bytes.subarray(at, at + CHUNK_BYTES);
      const message = new Uint8Array(4 + part.length);
      new DataView(message.buffer).setUint32(0, relayConn);
      message.set(part, 4);
      linkSend(message);
    }
  }
  state.engine.handleSent(conn, bytes.length);
}

function onEvent(out) {
  switch (out.event) {
    case 'sessionReady':
      state.ready.add(out.conn);
      break;
    case 'closed':
      state.ready.delete(out.conn);
      break;
    case 'toolCall':
      toolCall(out.id, out.request);
      break;
    case 'toolCallCancelled':
      document.querySelector(`.diff[data-id="${out.id}"]`)?.remove();
      showNoDiffs();
      break;
    default:
      break;
  }
}

function answer(id, outcome) {
  try {
    state.engine.handleToolOutcome(now(), id, outcome);
  } catch (e) {
    console.warn(`tool call ${id}: ${e.message}`);
  }
  pump();
}

function toolCall(id, request) {
  switch (request.tool) {
    case 'openDiff':
      showDiff(id, request);
      break;
    case 'openFile':
      openFile(request.path)
        .then((doc) => answer(id, { outcome: 'fileOpened', languageId: language(doc.path), lineCount: lineCount(doc.text) }))
        .catch((e) => answer(id, { outcome: 'failed', message: e.message }));
      break;
    default:
      answer(id, { outcome: 'failed', message: `the browser demo cannot ${request.tool}` });
  }
}

// ---- the editor ------------------------------------------------------------------------

async function listFiles() {
  const { files, truncated } = await request({ type: 'list' });
  const list = $('file-list');
  list.replaceChildren(...files.map((name) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.textContent = name;
    button.dataset.path = name;
    button.onclick = () => openFile(name).catch((e) => alert(e.message));
    item.append(button);
    return item;
  }));
  if (truncated) list.append(Object.assign(document.createElement('li'), { textContent: '…' }));
}

async function openFile(path) {
  const file = await request({ type: 'read', path });
  state.doc = { path: file.path, text: file.text, dirty: false };
  state.lastSelection = '';
  const editor = $('editor');
  editor.value = file.text;
  editor.disabled = false;
  editor.setSelectionRange(0, 0);
  $('mention').disabled = false;
  $('file-name').textContent = file.path;
  for (const b of document.querySelectorAll('#file-list button')) {
    b.classList.toggle('active', `${state.workspace}/${b.dataset.path}` === file.path);
  }
  renderGutter();
  state.engine.handleEditorEvent(now(), { type: 'documentOpened', path: file.path, languageId: language(file.path) });
  selectionChanged();
  return state.doc;
}

function language(path) {
  return LANGUAGES[path.split('.').pop()] ?? 'plaintext';
}

function lineCount(text) {
  return text.split('\n').length;
}

function renderGutter() {
  const lines = lineCount($('editor').value);
  $('gutter').textContent = Array.from({ length: lines }, (_, i) => i + 1).join('\n');
}

/** A character offset in the textarea as a 0-based line and UTF-16 character. */
function position(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

function currentSelection() {
  const editor = $('editor');
  const text = editor.value;
  return {
    text: text.slice(editor.selectionStart, editor.selectionEnd),
    selection: { start: position(text, editor.selectionStart), end: position(text, editor.selectionEnd) },
  };
}

function selectionChanged() {
  if (!state.doc || !state.engine) return;
  const { text, selection } = currentSelection();
  const key = JSON.stringify([state.doc.path, text, selection]);
  if (key === state.lastSelection) return;
  state.lastSelection = key;
  state.engine.handleEditorEvent(now(), { type: 'selectionChanged', path: state.doc.path, text, selection });
  pump();
}

function mention() {
  if (!state.doc || !state.engine) return;
  const { selection } = currentSelection();
  state.engine.handleEditorEvent(now(), {
    type: 'mention', path: state.doc.path, lineStart: selection.start.line, lineEnd: selection.end.line,
  });
  pump();
}

function edited() {
  if (!state.doc) return;
  state.doc.text = $('editor').value;
  renderGutter();
  if (!state.doc.dirty) {
    state.doc.dirty = true;
    state.engine.handleEditorEvent(now(), { type: 'documentDirtyChanged', path: state.doc.path, isDirty: true });
  }
  selectionChanged();
}

// ---- diffs -------------------------------------------------------------------------------

async function showDiff(id, proposal) {
  let oldText = '';
  let note = '';
  if (state.doc && state.doc.path === proposal.oldFilePath) {
    oldText = state.doc.text;
  } else {
    try {
      oldText = (await request({ type: 'read', path: proposal.oldFilePath })).text;
    } catch (e) {
      note = ` (new file: ${e.message})`;
    }
  }
  const panel = document.createElement('article');
  panel.className = 'diff';
  panel.dataset.id = String(id);
  const title = document.createElement('h3');
  title.textContent = proposal.tabName;
  const path = Object.assign(document.createElement('p'), { className: 'path', textContent: proposal.newFilePath + note });
  const view = document.createElement('div');
  view.className = 'diff-view';
  view.append(...diffLines(oldText, proposal.newFileContents));
  const label = Object.assign(document.createElement('label'), { textContent: 'Proposed text (edit it before accepting if you like)' });
  const proposed = document.createElement('textarea');
  proposed.className = 'proposed';
  proposed.spellcheck = false;
  proposed.value = proposal.newFileContents;
  label.htmlFor = proposed.id = `proposed-${id}`;
  const accept = Object.assign(document.createElement('button'), { type: 'button', className: 'accept', textContent: 'Accept' });
  const reject = Object.assign(document.createElement('button'), { type: 'button', className: 'reject', textContent: 'Reject' });
  accept.onclick = () => {
    panel.remove();
    showNoDiffs();
    answer(id, { outcome: 'diffSaved', finalText: proposed.value });
    if (state.doc && state.doc.path === proposal.newFilePath) {
      // claude writes the file after the answer; the editor shows what it will hold.
      state.doc.text = $('editor').value = proposed.value;
      renderGutter();
    }
  };
  reject.onclick = () => {
    panel.remove();
    showNoDiffs();
    answer(id, { outcome: 'diffRejected' });
  };
  const actions = document.createElement('div');
  actions.className = 'actions';
  actions.append(accept, reject);
  panel.append(title, path, view, label, proposed, actions);
  $('diffs').append(panel);
  showNoDiffs();
}

function showNoDiffs() {
  $('no-diffs').hidden = document.querySelector('.diff') !== null;
}

/** A line diff (longest common subsequence) as rows; large inputs show the proposal only. */
function diffLines(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  const row = (kind, text) => Object.assign(document.createElement('div'), { className: kind, textContent: `${kind === 'add' ? '+' : kind === 'del' ? '-' : ' '} ${text}` });
  if (a.length * b.length > 4_000_000) return b.map((line) => row('add', line));
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const rows = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      rows.push(row('same', a[i++]));
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      rows.push(row('del', a[i++]));
    } else {
      rows.push(row('add', b[j++]));
    }
  }
  return rows;
}

// ---- wiring ------------------------------------------------------------------------------

const editor = $('editor');
editor.addEventListener('input', edited);
editor.addEventListener('scroll', () => { $('gutter').scrollTop = editor.scrollTop; });
for (const name of ['select', 'keyup', 'mouseup', 'focus']) editor.addEventListener(name, selectionChanged);
document.addEventListener('selectionchange', () => {
  if (document.activeElement === editor) selectionChanged();
});
$('mention').addEventListener('click', mention);
start();
