'use strict';
// A VS Code-style extension on `idelink`, written to be bundled (esbuild, webpack): `activate`
// serves the workspace to the Claude Code CLI, keeps the selection up to date, and answers its
// tool calls; `deactivate` stops serving. The editor calls below stand in for the vscode API.
//
//   npx esbuild extension.js --bundle --platform=node --target=node20 --outfile=dist/extension.js
//   node dist/extension.js [--name NAME] [--lock-dir DIR] [--diff accept|reject] [FOLDER]
//
// The last line runs it outside an editor, until SIGINT / SIGTERM: serving FOLDER (default: the
// current one) as NAME (default "Bundled Example"), its lock file in DIR (default: where the CLI
// looks), rejecting every diff (default) or accepting it as proposed (--diff accept, for a
// scripted test). It prints what happens, every text from claude shown inert.
//
// The bundle holds idelink's JavaScript; the engine is loaded at run time from the extension's
// own node_modules (between the bundle and the nearest package.json above it, never a parent
// folder's): the platform package (idelink-linux-x64-gnu, ...) or, failing that, idelink-wasm.
// Ship those with the extension (vsce packages node_modules that the bundle leaves external).

const { parseArgs } = require('node:util');
const { binding, startHost, terminalEnv } = require('idelink');

let server = null;

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

/**
 * Starts serving `folder`; `editor` gives the selection and carries out the tool calls.
 * `settings` (optional): `ideName`, `lockDir` (the lock directory; default where claude looks)
 * and `acceptDiffs` (default false: a real editor shows the diff and lets the user decide;
 * never accept unseen).
 */
async function activate(folder, editor, settings = {}) {
  const { ideName = 'Bundled Example', lockDir, acceptDiffs = false } = settings;
  server = await startHost({
    workspaceFolders: [folder],
    ideName,
    lock: lockDir === undefined ? 'default' : { dir: lockDir },
    onEvent(event) {
      if (event.event === 'sessionReady') {
        const { name, version, protocolVersion } = event.client;
        const pid = event.clientPid === null ? '' : `, pid ${event.clientPid}`;
        editor.log(`session ready: ${shown(name)} ${shown(version)}${pid} (MCP ${shown(protocolVersion)})`);
      } else if (event.event === 'fileReplaced') {
        // The file now holds exactly this text (the CLI wrote it): an editor replaces the
        // document's buffer with it and marks it clean, with no "changed on disk" prompt.
        editor.replaced(event.path, event.text);
      }
    },
    async onToolCall(request) {
      switch (request.tool) {
        case 'openFile':
          editor.log(`open ${shown(request.path)}`);
          return { outcome: 'fileOpened' };
        case 'openDiff':
          if (!acceptDiffs) {
            editor.log(`diff for ${shown(request.newFilePath)} rejected`);
            return { outcome: 'diffRejected' };
          }
          if (request.dirty) {
            // The CLI made the proposal from the file on disk, not from the unsaved buffer:
            // this example refuses rather than diff against text the user has not saved (the
            // CLI then asks in its own terminal; the reason goes to its debug log).
            editor.log(`diff for ${shown(request.newFilePath)} refused: unsaved changes`);
            return { outcome: 'diffRefused', reason: 'the document has unsaved changes in the editor: save or revert them, then answer in the terminal' };
          }
          editor.log(`diff for ${shown(request.newFilePath)} accepted as proposed`);
          return { outcome: 'diffSaved', finalText: request.newFileContents };
        default:
          return { outcome: 'failed', message: `this example cannot ${request.tool}` };
      }
    },
  });
  server.selectionChanged(editor.selection());
  // What a terminal the extension opens needs so `claude` connects to this server.
  return terminalEnv(server.port, process.env);
}

async function deactivate() {
  await server?.shutdown();
  server = null;
}

module.exports = { activate, deactivate };

/** The command line's settings; a wrong flag ends the process with what is wrong. */
function commandLine(args) {
  const options = { name: { type: 'string' }, 'lock-dir': { type: 'string' }, diff: { type: 'string' } };
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
    if (values.diff !== undefined && values.diff !== 'accept' && values.diff !== 'reject') {
      throw new Error(`--diff takes accept or reject, not ${JSON.stringify(values.diff)}`);
    }
    if (positionals.length > 1) throw new Error(`one FOLDER at most, got ${positionals.join(' ')}`);
    return {
      folder: positionals[0] ?? process.cwd(),
      settings: { ideName: values.name, lockDir: values['lock-dir'], acceptDiffs: values.diff === 'accept' },
    };
  } catch (error) {
    console.error(`${error.message}\nusage: extension.js [--name NAME] [--lock-dir DIR] [--diff accept|reject] [FOLDER]`);
    process.exit(2);
  }
}

if (require.main === module) {
  const { folder, settings } = commandLine(process.argv.slice(2));
  const file = `${folder}/README.md`;
  const editor = {
    log: (line) => console.log(line),
    replaced: (path, text) => console.log(`${shown(path)} now holds the accepted text (${Buffer.byteLength(text)} bytes)`),
    selection: () => ({
      path: file,
      text: 'hello',
      selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
    }),
  };
  activate(folder, editor, settings).then((env) => {
    console.log(`engine: ${binding.kind} (${binding.source}: ${binding.reason})`);
    console.log(`lock file: ${server.lockPath}`);
    console.log(`serving ${folder} on 127.0.0.1:${env.CLAUDE_CODE_SSE_PORT}`);
  });
  const stop = () => deactivate().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
