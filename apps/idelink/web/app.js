// The browser demo editor. The whole Claude Code IDE protocol runs here, in the wasm engine;
// `idelink relay` only owns the sockets and the lock file and forwards claude's raw bytes over
// the page link, which the package's link client speaks (`idelink-wasm/link`, served here as
// /pkg/link.js; protocol: docs/relay.md). This file is only the editor.
import { RelayLink, secretFromHash } from '/pkg/link.js';
import { anyFound, inertNodes, inertText, noFindings, warning } from '/inert.js';
import { LedgerView } from '/ledger.js';

const $ = (id) => document.getElementById(id);
const LANGUAGES = {
  rs: 'rust', js: 'javascript', mjs: 'javascript', ts: 'typescript', py: 'python', md: 'markdown',
  json: 'json', toml: 'toml', html: 'html', css: 'css', txt: 'plaintext', sh: 'shellscript',
};

const state = {
  link: null,
  linkState: 'connecting',
  workspace: null,
  /** engine connections claude opened, and those whose session is ready */
  connected: new Set(),
  ready: new Set(),
  /** the open document: { path, text, dirty } */
  doc: null,
  lastSelection: '',
  /** the turn ledger's panel (ledger.js) */
  ledger: null,
};

function showStatus() {
  $('status').textContent = `relay link: ${state.linkState} · claude clients: ${state.connected.size} connected, ${state.ready.size} ready` +
    (state.doc ? ` · ${inertText(state.doc.path)}${state.doc.dirty ? ' (modified)' : ''}` : '');
  document.body.dataset.link = state.linkState === 'linked' ? 'linked' : 'down';
  document.body.dataset.ready = String(state.ready.size);
}

// ---- the page link ----------------------------------------------------------------------

async function start() {
  if (!secretFromHash()) {
    state.linkState = 'no secret in this URL: open the URL `idelink relay` printed';
    return showStatus();
  }
  try {
    state.link = await RelayLink.connect({
      // The turn ledger: the engine asks this page for files (ledgerRead) and undoes through it.
      config: { ledger: true },
      onEvent,
      onClose: (closed) => {
        state.linkState = closed.message;
        state.connected.clear();
        state.ready.clear();
        showStatus();
      },
      onError: (message) => {
        state.linkState = `linked, but: ${message}`;
        showStatus();
      },
    });
  } catch (e) {
    state.linkState = e.message;
    return showStatus();
  }
  state.workspace = state.link.welcome.workspace;
  state.linkState = 'linked';
  document.title = `${state.link.welcome.ideName} — ${state.workspace}`;
  state.ledger = new LedgerView({ link: state.link, documents, root: $('turns'), workspace: state.workspace });
  showStatus();
  listFiles();
}

function onEvent(out) {
  if (state.ledger?.onEvent(out)) return;
  switch (out.event) {
    case 'connected':
      state.connected.add(out.conn);
      break;
    case 'sessionReady':
      state.ready.add(out.conn);
      break;
    case 'closed':
      state.connected.delete(out.conn);
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
  showStatus();
}

function answer(id, outcome) {
  try {
    state.link.answer(id, outcome);
  } catch (e) {
    console.warn(`tool call ${id}: ${e.message}`);
  }
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
  const { files, truncated } = await state.link.listFiles();
  const list = $('file-list');
  list.replaceChildren(...files.map((name) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.textContent = inertText(name);
    button.dataset.path = name;
    button.onclick = () => openFile(name).catch((e) => alert(e.message));
    item.append(button);
    return item;
  }));
  if (truncated) list.append(Object.assign(document.createElement('li'), { textContent: '…' }));
}

async function openFile(path) {
  const file = await state.link.readFile(path);
  state.doc = { path: file.path, text: file.text, dirty: false };
  state.lastSelection = '';
  const editor = $('editor');
  editor.value = file.text;
  editor.disabled = false;
  editor.setSelectionRange(0, 0);
  $('mention').disabled = false;
  $('file-name').textContent = inertText(file.path);
  for (const b of document.querySelectorAll('#file-list button')) {
    b.classList.toggle('active', `${state.workspace}/${b.dataset.path}` === file.path);
  }
  renderGutter();
  state.link.editorEvent({ type: 'documentOpened', path: file.path, languageId: language(file.path) });
  selectionChanged();
  return state.doc;
}

/**
 * The editor's documents as the ledger sees them: the open one (the demo has one tab), and the
 * file changed on disk under it (claude's edit, an undo): a clean document shows the new text, a
 * deleted file's document closes.
 */
const documents = {
  get(path) {
    return state.doc?.path === path ? state.doc : null;
  },
  replaced(path, text) {
    if (state.doc?.path !== path) {
      // A file created or deleted again: the list shows what is there now.
      listFiles();
      return;
    }
    if (state.doc.dirty) return;
    if (text === null) {
      state.link.editorEvent({ type: 'documentClosed', path });
      state.doc = null;
      const editor = $('editor');
      editor.value = '';
      editor.disabled = true;
      $('mention').disabled = true;
      $('file-name').textContent = 'no file open';
      renderGutter();
      listFiles();
    } else {
      state.doc.text = $('editor').value = text;
      renderGutter();
    }
    showStatus();
  },
};

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
  if (!state.doc || !state.link) return;
  const { text, selection } = currentSelection();
  const key = JSON.stringify([state.doc.path, text, selection]);
  if (key === state.lastSelection) return;
  state.lastSelection = key;
  state.link.editorEvent({ type: 'selectionChanged', path: state.doc.path, text, selection });
}

function mention() {
  if (!state.doc || !state.link) return;
  const { selection } = currentSelection();
  state.link.editorEvent({
    type: 'mention', path: state.doc.path, lineStart: selection.start.line, lineEnd: selection.end.line,
  });
}

function edited() {
  if (!state.doc) return;
  state.doc.text = $('editor').value;
  renderGutter();
  if (!state.doc.dirty) {
    state.doc.dirty = true;
    state.link.editorEvent({ type: 'documentDirtyChanged', path: state.doc.path, isDirty: true });
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
      oldText = (await state.link.readFile(proposal.oldFilePath)).text;
    } catch (e) {
      note = ` (new file: ${e.message})`;
    }
  }
  const panel = document.createElement('article');
  panel.className = 'diff';
  panel.dataset.id = String(id);
  // Model text: every hidden character shown as a marker (inert.js), never live.
  const title = document.createElement('h3');
  title.textContent = inertText(proposal.tabName);
  const path = Object.assign(document.createElement('p'), { className: 'path', textContent: inertText(proposal.newFilePath + note) });
  const view = document.createElement('div');
  view.className = 'diff-view';
  const found = noFindings();
  view.append(...diffLines(oldText, proposal.newFileContents, found));
  const label = Object.assign(document.createElement('label'), { textContent: 'Proposed text (edit it before accepting if you like)' });
  if (anyFound(found)) {
    label.prepend(Object.assign(document.createElement('strong'), {
      className: 'warning', textContent: 'The text below holds hidden characters: the diff above shows them as markers. ',
    }));
  }
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

/**
 * A line diff (longest common subsequence) as rows, every line made inert; large inputs show
 * the proposal only. A hunk (a run of changed rows) that holds hidden characters is preceded by
 * a warning saying which; what was found is added to `found`.
 */
function diffLines(before, after, found) {
  const rows = lineDiff(before.split('\n'), after.split('\n'));
  const out = [];
  for (let start = 0; start < rows.length;) {
    const changed = rows[start].kind !== 'same';
    let end = start;
    while (end < rows.length && (rows[end].kind !== 'same') === changed) end++;
    const hunk = noFindings();
    const shown = rows.slice(start, end).map(({ kind, text }) => {
      const row = Object.assign(document.createElement('div'), { className: kind });
      row.append(`${kind === 'add' ? '+' : kind === 'del' ? '-' : ' '} `, ...inertNodes(text, hunk));
      return row;
    });
    if (anyFound(hunk)) {
      out.push(Object.assign(document.createElement('div'), { className: 'warning', textContent: warning(hunk) }));
      for (const kind of Object.keys(hunk)) found[kind] ||= hunk[kind];
    }
    out.push(...shown);
    start = end;
  }
  return out;
}

/** The rows of a line diff of `a` and `b`: `{ kind: 'same' | 'del' | 'add', text }`. */
function lineDiff(a, b) {
  const row = (kind, text) => ({ kind, text });
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
