// The demo editor's turn ledger view (docs/relay.md, "The ledger view"): every turn the engine
// holds, newest first, with its files (lines added and removed; "auto" or "reviewed", "seen on
// disk", created, deleted) and, for an opened turn, its hunks; and undo of a hunk, a file or a
// turn behind a confirmation. The engine asks the editor for files as `ledgerRead` events and
// hands it an undo's writes as `ledgerWrite` events: both are answered from the editor's
// documents (a document with unsaved edits holds what the file holds for the editor) and, for
// the rest, from the disk through the relay, whose write is a compare-and-write.
//
// Everything shown came from claude or a file: paths and lines go through inert.js, and nothing
// becomes markup (text nodes only).
import { anyFound, inertNodes, inertText, noFindings, warning } from '/inert.js';

/** The widest line shown in a hunk; the rest is cut with a marker (the terminal review's 200). */
const MAX_LINE_CHARS = 200;

/** `text`'s lines as core numbers them (`split_inclusive('\n')`: each with its `\n`). */
function lines(text) {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A content's text for a diff: a missing file is empty; binary, large and unread have none. */
function textOf(content) {
  if (content.kind === 'missing') return '';
  return content.kind === 'text' ? content.text : null;
}

/** A content in words, for a file whose text is not kept. */
function summary(content) {
  switch (content.kind) {
    case 'binary': return `binary, ${content.bytes} bytes`;
    case 'large': return `${content.bytes} bytes, over the ledger's per-file limit`;
    case 'unread': return `not read: ${content.reason}`;
    default: return content.kind;
  }
}

const element = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

const changed = (file) => JSON.stringify(file.current) !== JSON.stringify(file.baseline);

export class LedgerView {
  #link;
  #documents;
  #root;
  #workspace;
  /** turns whose hunks are shown; the newest turn opens by itself */
  #opened = new Set();
  #seenNewest = 0;
  /** the undo waiting for its confirmation: `{target, what}` */
  #confirming = null;
  #scheduled = false;

  /**
   * `documents`: the editor's model, `{get(path) → {text, dirty} | null, replaced(path, text |
   * null)}` (`replaced`: the file now holds `text` on disk, or is gone).
   */
  constructor({ link, documents, root, workspace }) {
    this.#link = link;
    this.#documents = documents;
    this.#root = root;
    this.#workspace = workspace;
    this.render();
  }

  /** An engine event; true when it was the ledger's. */
  onEvent(out) {
    switch (out.event) {
      case 'ledgerRead':
        this.#read(out.read, out.path);
        return true;
      case 'ledgerWrite':
        this.#write(out.write, out.file);
        return true;
      case 'turnChanged':
        this.#schedule();
        return true;
      default:
        return false;
    }
  }

  // ---- the engine's reads and writes ------------------------------------------------------

  /** Answers `read`: a document with unsaved edits from its buffer, else the disk. */
  async #read(read, path) {
    const doc = this.#documents.get(path);
    let content;
    if (doc?.dirty) {
      content = { kind: 'text', text: doc.text };
    } else {
      try {
        content = (await this.#link.readContent(path)).content;
      } catch (e) {
        content = { kind: 'unread', reason: e.message };
      }
      // A clean document follows its file, as an editor reloads one changed on disk.
      if (content.kind === 'text' && doc && !doc.dirty && doc.text !== content.text) {
        this.#documents.replaced(path, content.text);
      }
    }
    try {
      this.#link.ledgerRead(read, content);
    } catch (e) {
      // Past the engine's deadline: it answered claude without this read, and said so.
      console.warn(`ledger read ${read}: ${e.message}`);
    }
  }

  /**
   * Carries out `write` (an undo's `file`): refused while the document holds unsaved edits,
   * else the relay's compare-and-write; a clean document then shows what was written.
   */
  async #write(write, file) {
    const doc = this.#documents.get(file.path);
    let holds;
    let conflict = null;
    if (doc?.dirty) {
      holds = { kind: 'text', text: doc.text };
      conflict = `${file.path} has unsaved edits in the editor: nothing was written`;
    } else {
      try {
        ({ content: holds, conflict } = await this.#link.writeFile(file));
      } catch (e) {
        conflict = `cannot undo ${file.path}: ${e.message}`;
        holds = await this.#link.readContent(file.path).then((r) => r.content, (why) => ({ kind: 'unread', reason: why.message }));
      }
      if (conflict === null) this.#documents.replaced(file.path, file.text);
    }
    try {
      this.#link.ledgerWritten(write, holds);
    } catch (e) {
      conflict ??= e.message;
    }
    if (conflict !== null) this.#note(conflict, true);
    else this.#note(`${this.#relative(file.path)}: ${file.text === null ? 'deleted' : 'written back'}`, false);
  }

  // ---- undo ------------------------------------------------------------------------------

  #ask(target, what) {
    this.#confirming = { target, what };
    this.render();
  }

  #undo() {
    const { target, what } = this.#confirming;
    this.#confirming = null;
    this.render();
    this.#root.querySelector('.ledger-message').replaceChildren();
    try {
      // Its writes come as `ledgerWrite` events, each noted when carried out.
      this.#link.ledgerUndo(target);
    } catch (e) {
      // The engine's reason: claude changed the file since, a later turn changed it, …
      this.#note(`${what}: refused: ${e.message}`, true);
    }
  }

  /** Notes `text` (a reason from the engine or the relay, which may quote paths) inert. */
  #note(text, refused) {
    const line = element('div', { className: refused ? 'refused' : 'done', textContent: inertText(text) });
    this.#root.querySelector('.ledger-message').append(line);
  }

  // ---- the view --------------------------------------------------------------------------

  /** Renders once after a burst of `turnChanged` events. */
  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.render();
    });
  }

  render() {
    const turns = this.#link.ledger().filter((turn) => turn.files.some(changed)).reverse();
    const newest = turns[0]?.id ?? 0;
    if (newest > this.#seenNewest) {
      this.#seenNewest = newest;
      this.#opened.add(newest);
    }
    const message = this.#root.querySelector('.ledger-message') ?? element('p', { className: 'ledger-message', role: 'status' });
    const body = [element('h2', { textContent: 'Turns' }), message];
    if (this.#confirming) body.push(this.#confirmation());
    if (turns.length === 0) body.push(element('p', { className: 'none', textContent: 'No turn changed a file yet.' }));
    for (const turn of turns) body.push(this.#turn(turn, turn.id === newest));
    this.#root.replaceChildren(...body);
  }

  #confirmation() {
    const yes = element('button', { type: 'button', className: 'confirm-undo', textContent: 'Undo' });
    const no = element('button', { type: 'button', className: 'cancel-undo', textContent: 'Cancel' });
    yes.onclick = () => this.#undo();
    no.onclick = () => {
      this.#confirming = null;
      this.render();
    };
    return element('div', { className: 'confirm', role: 'alertdialog' },
      element('span', { textContent: `${inertText(this.#confirming.what)}? Nothing is written over a change made since.` }), yes, no);
  }

  #turn(turn, newest) {
    const files = turn.files.filter(changed);
    const open = this.#opened.has(turn.id);
    const toggle = element('button', { type: 'button', className: 'toggle', textContent: open ? 'Hide hunks' : 'Show hunks' });
    toggle.onclick = () => {
      if (open) this.#opened.delete(turn.id);
      else this.#opened.add(turn.id);
      this.render();
    };
    const undo = element('button', { type: 'button', className: 'undo-turn', textContent: 'Undo turn' });
    undo.onclick = () => this.#ask({ undo: 'turn', turn: turn.id }, `Undo every file of turn ${turn.id}`);
    const state = turn.closed ? 'ended' : newest ? 'current' : 'open';
    const title = element('h3', { textContent: `Turn ${turn.id} (${state}): ${files.length} file${files.length === 1 ? '' : 's'}` });
    const article = element('article', { className: 'turn' }, element('div', { className: 'turn-bar' }, title, toggle, undo));
    article.dataset.turn = String(turn.id);
    for (const file of files) article.append(this.#file(turn, file, open));
    return article;
  }

  #relative(path) {
    const prefix = `${this.#workspace.replace(/\/$/, '')}/`;
    return path.startsWith(prefix) ? path.slice(prefix.length) : path;
  }

  #file(turn, file, open) {
    let added = 0;
    let removed = 0;
    for (const hunk of file.hunks) {
      added += hunk.newLines;
      removed += hunk.oldLines;
    }
    const tags = [];
    if (file.changedBy === 'seenOnDisk') tags.push('seen on disk');
    else tags.push(file.reviewed ? 'reviewed' : 'auto');
    if (file.baseline.kind === 'missing') tags.push('created');
    else if (file.current.kind === 'missing') tags.push('deleted');
    if (!file.settled) tags.push('claude is editing it');
    if (file.outsideChange) tags.push('also changed outside claude');
    const name = this.#relative(file.path);
    const undo = element('button', { type: 'button', className: 'undo-file', textContent: 'Undo file' });
    undo.onclick = () => this.#ask({ undo: 'file', turn: turn.id, path: file.path }, `Undo turn ${turn.id}'s change of ${name}`);
    const head = element('div', { className: 'file-bar' },
      element('span', { className: 'path', textContent: inertText(name) }),
      element('span', { className: 'lines', textContent: `+${added} -${removed}` }),
      ...tags.map((tag) => element('span', { className: 'tag', textContent: tag })),
      undo);
    const section = element('section', { className: 'file' }, head);
    section.dataset.path = file.path;
    if (open) section.append(...this.#hunks(turn, file, name));
    return section;
  }

  /** The file's hunks, each line inert; a hunk holding hidden characters is warned of first. */
  #hunks(turn, file, name) {
    const before = textOf(file.baseline);
    const now = textOf(file.current);
    if (before === null || now === null) {
      return [element('p', { className: 'not-shown', textContent: `not shown: before ${summary(file.baseline)}, now ${summary(file.current)}` })];
    }
    const [old, current] = [lines(before), lines(now)];
    return file.hunks.map((hunk, index) => {
      const found = noFindings();
      const row = (kind, line) => {
        const shown = line.replace(/\n$/, '');
        const cut = shown.length > MAX_LINE_CHARS;
        const div = element('div', { className: kind }, kind === 'add' ? '+ ' : '- ', ...inertNodes(cut ? shown.slice(0, MAX_LINE_CHARS) : shown, found));
        if (cut) div.append(element('mark', { className: 'cut', textContent: '…' }));
        return div;
      };
      const rows = [
        ...old.slice(hunk.oldStart, hunk.oldStart + hunk.oldLines).map((line) => row('del', line)),
        ...current.slice(hunk.newStart, hunk.newStart + hunk.newLines).map((line) => row('add', line)),
      ];
      const undo = element('button', { type: 'button', className: 'undo-hunk', textContent: 'Undo hunk' });
      undo.onclick = () => this.#ask(
        { undo: 'hunk', turn: turn.id, path: file.path, revision: file.revision, hunk: index },
        `Undo hunk ${index + 1} of ${name} in turn ${turn.id}`,
      );
      const header = element('div', { className: 'hunk-bar' },
        element('span', { textContent: `@@ -${hunk.oldStart + 1},${hunk.oldLines} +${hunk.newStart + 1},${hunk.newLines} @@` }), undo);
      const view = element('div', { className: 'diff-view hunk' }, header);
      if (anyFound(found)) view.append(element('div', { className: 'warning', textContent: warning(found) }));
      view.append(...rows);
      return view;
    });
  }
}
