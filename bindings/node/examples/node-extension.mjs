#!/usr/bin/env node
// A miniature "editor" built on `idelink`: it serves the current folder to the Claude Code CLI,
// pretends FILE is open with its first line selected, and asks on this terminal whether to
// accept each diff the CLI proposes (y/n).
//
//   node examples/node-extension.mjs [FILE]
//   # then, in the same folder (or below it), in another terminal:
//   claude --ide          (or: CLAUDE_CODE_SSE_PORT=<port> claude)
//
// Ctrl-C closes the server and removes its lock file.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { startHost } from 'idelink';

const folder = process.cwd();
const file = resolve(process.argv[2] ?? 'README.md');
const terminal = createInterface({ input: process.stdin, output: process.stdout });

/**
 * `text` from claude or the model made safe to print: C0/C1 controls, DEL, bidi controls and
 * invisible format characters become visible `<U+XXXX>` markers (newlines and tabs kept when
 * `multiline`), as `idelink serve`'s review shows them. Tool arguments are untrusted text.
 */
function shown(text, multiline = false) {
  const hidden = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;
  return String(text).replace(hidden, (c) =>
    multiline && (c === '\n' || c === '\t') ? c : `<U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}

/** Asks until the answer is y or n; rejects when `signal` aborts (the CLI moved on). */
async function confirm(question, signal) {
  for (;;) {
    const answer = (await terminal.question(question, { signal })).trim().toLowerCase();
    if (answer === 'y' || answer === 'n') return answer === 'y';
  }
}

const server = await startHost({
  workspaceFolders: [folder],
  ideName: 'Miniature Editor',
  onEvent(event) {
    if (event.event === 'sessionReady') {
      console.log(`claude ${shown(event.client.version)} connected (pid ${event.clientPid ?? '?'})`);
    } else if (event.event === 'closed') {
      console.log(`connection ${event.conn} closed: ${event.reason.kind}`);
    } else if (event.event === 'toolCallCancelled') {
      console.log(`\nrequest ${event.id} withdrawn (${shown(event.reason)})`);
    } else if (event.event === 'fileReplaced') {
      // The file now holds exactly this text (the CLI wrote it, with its own byte-order-mark and
      // line-ending rules): a real editor replaces the buffer with it and marks it clean.
      console.log(`${shown(event.path)} now holds the accepted text (${Buffer.byteLength(event.text)} bytes)`);
    }
  },
  async onToolCall(request, { signal }) {
    switch (request.tool) {
      case 'openDiff': {
        console.log(`\n--- proposed ${shown(request.newFilePath)} (${shown(request.tabName)})`);
        if (request.dirty) console.log('(the document has unsaved changes: the proposal was made from the file on disk)');
        console.log(shown(request.newFileContents, true));
        const accept = await confirm('accept this change? (y/n) ', signal);
        return accept
          ? { outcome: 'diffSaved', finalText: request.newFileContents }
          : { outcome: 'diffRejected' };
      }
      case 'openFile':
        console.log(`(would open ${shown(request.path)})`);
        return { outcome: 'fileOpened' };
      case 'saveDocument':
        console.log(`(would save ${shown(request.path)})`);
        return { outcome: 'documentSaved' };
      default:
        return { outcome: 'failed', message: `the miniature editor cannot ${request.tool}` };
    }
  },
});

const firstLine = readFileSync(file, 'utf8').split('\n', 1)[0];
server.handleEditorEvent({ type: 'documentOpened', path: file, languageId: 'markdown' });
server.selectionChanged({
  path: file,
  text: firstLine,
  selection: { start: { line: 0, character: 0 }, end: { line: 0, character: firstLine.length } },
});

console.log(`serving ${folder} on 127.0.0.1:${server.port}`);
console.log(`lock file: ${server.lockPath}`);
console.log(`selected line 1 of ${file}; now run \`claude --ide\` in ${folder}`);

async function quit() {
  terminal.close();
  await server.shutdown();
  process.exit(0);
}
terminal.once('SIGINT', quit); // Ctrl-C while the terminal is read
process.once('SIGINT', quit);
process.once('SIGTERM', quit);
