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
import { startServer } from 'idelink';

const folder = process.cwd();
const file = resolve(process.argv[2] ?? 'README.md');
const terminal = createInterface({ input: process.stdin, output: process.stdout });

/** Asks until the answer is y or n; rejects when `signal` aborts (the CLI moved on). */
async function confirm(question, signal) {
  for (;;) {
    const answer = (await terminal.question(question, { signal })).trim().toLowerCase();
    if (answer === 'y' || answer === 'n') return answer === 'y';
  }
}

const server = await startServer({
  workspaceFolders: [folder],
  ideName: 'Miniature Editor',
  onEvent(event) {
    if (event.event === 'sessionReady') {
      console.log(`claude ${event.client.version} connected (pid ${event.clientPid ?? '?'})`);
    } else if (event.event === 'closed') {
      console.log(`connection ${event.conn} closed: ${event.reason.kind}`);
    } else if (event.event === 'toolCallCancelled') {
      console.log(`\nrequest ${event.id} withdrawn (${event.reason})`);
    }
  },
  async onToolCall(request, { signal }) {
    switch (request.tool) {
      case 'openDiff': {
        console.log(`\n--- proposed ${request.newFilePath} (${request.tabName})`);
        console.log(request.newFileContents);
        const accept = await confirm('accept this change? (y/n) ', signal);
        return accept
          ? { outcome: 'diffSaved', finalText: request.newFileContents }
          : { outcome: 'diffRejected' };
      }
      case 'openFile':
        console.log(`(would open ${request.path})`);
        return { outcome: 'fileOpened' };
      case 'saveDocument':
        console.log(`(would save ${request.path})`);
        return { outcome: 'documentSaved' };
      default:
        return { outcome: 'failed', message: `the miniature editor cannot ${request.tool}` };
    }
  },
});

const firstLine = readFileSync(file, 'utf8').split('\n', 1)[0];
server.editorEvent({ type: 'documentOpened', path: file, languageId: 'markdown' });
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
  await server.close();
  process.exit(0);
}
terminal.once('SIGINT', quit); // Ctrl-C while the terminal is read
process.once('SIGINT', quit);
process.once('SIGTERM', quit);
