'use strict';
// A VS Code-style extension on `idelink`, written to be bundled (esbuild, webpack): `activate`
// serves the workspace to the Claude Code CLI, keeps the selection up to date, and answers its
// tool calls; `deactivate` stops serving. The editor calls below stand in for the vscode API.
//
//   npx esbuild extension.js --bundle --platform=node --target=node20 --outfile=dist/extension.js
//   node dist/extension.js [FOLDER]       # runs it outside an editor, until SIGINT / SIGTERM
//
// The bundle holds idelink's JavaScript; the engine is loaded at run time from node_modules
// beside it: the platform package (idelink-linux-x64-gnu, ...) or, failing that, idelink-wasm.
// Ship those with the extension (vsce packages node_modules that the bundle leaves external).

const { binding, startServer, terminalEnv } = require('idelink');

let server = null;

/** Starts serving `folder`; `editor` gives the selection and carries out the tool calls. */
async function activate(folder, editor) {
  server = await startServer({
    workspaceFolders: [folder],
    ideName: 'Bundled Example',
    async onToolCall(request) {
      switch (request.tool) {
        case 'openFile':
          editor.log(`open ${request.path}`);
          return { outcome: 'fileOpened' };
        case 'openDiff':
          editor.log(`diff for ${request.newFilePath} accepted as proposed`);
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
  await server?.close();
  server = null;
}

module.exports = { activate, deactivate };

if (require.main === module) {
  const folder = process.argv[2] ?? process.cwd();
  const file = `${folder}/README.md`;
  const editor = {
    log: (line) => console.log(line),
    selection: () => ({
      path: file,
      text: 'hello',
      selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
    }),
  };
  activate(folder, editor).then((env) => {
    console.log(`engine: ${binding.kind} (${binding.source}: ${binding.reason})`);
    console.log(`serving ${folder} on port ${env.CLAUDE_CODE_SSE_PORT}; lock file: ${server.lockPath}`);
  });
  const stop = () => deactivate().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
