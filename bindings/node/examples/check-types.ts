// Compiled by `tsc --noEmit -p bindings/node/tsconfig.json` (scripts/test): uses every public
// declaration the way an extension would, so a declaration that drifts from the JS breaks the
// build. It is not run.

import { spawn } from 'node:child_process';
import {
  Engine,
  binding,
  defaultLockDir,
  discover,
  folderContains,
  languageId,
  lockFileJson,
  parseLockFile,
  startHost,
  terminalEnv,
  type EditorEvent,
  type EngineEvent,
  type Host,
  type LinkEvent,
  type LinkHelloEvent,
  type Output,
  type Verdict,
  type ToolOutcome,
  type ToolRequest,
} from 'idelink';

async function extension(): Promise<Host> {
  const server = await startHost({
    workspaceFolders: ['/home/me/project'],
    ideName: 'My Editor',
    pid: process.pid,
    lock: { dir: defaultLockDir() },
    engine: {
      sessionPolicy: 'single',
      diffDeadlineMs: null,
      ws: { maxMessageBytes: 32 << 20 },
      reads: { getDiagnostics: 'editor', checkDocumentDirty: 'editor' },
    },
    onEvent(event) {
      if (event.event === 'sessionReady') console.log(event.client.name, event.clientPid);
      if (event.event === 'closed' && event.reason.kind === 'peerClosed') console.log(event.reason.code);
      if (event.event === 'fileReplaced') console.log(event.id, event.path, event.text.length);
      if (event.event === 'linkEnded') console.log(event.fault, event.message);
    },
    async onToolCall(request: ToolRequest, call): Promise<ToolOutcome> {
      call.signal.addEventListener('abort', () => console.log('cancelled', call.signal.reason));
      switch (request.tool) {
        case 'openDiff':
          if (request.dirty) return { outcome: 'diffRefused', reason: 'unsaved changes' };
          return { outcome: 'diffSaved', finalText: request.newFileContents, originalText: 'old\n' };
        case 'openFile':
          return { outcome: 'fileOpened', languageId: 'rust', lineCount: 3 };
        case 'saveDocument':
          return { outcome: 'documentSaved' };
        case 'executeCode':
          return { outcome: 'failed', message: `refused ${request.code.length} bytes of code` };
        case 'getDiagnostics':
          return { outcome: 'diagnostics', files: request.path ? [{ path: request.path, diagnostics: [] }] : [] };
        case 'getCurrentSelection':
        case 'getLatestSelection':
          return { outcome: 'noSelection' };
        case 'getOpenEditors':
          return { outcome: 'openEditors', tabs: [{ path: '/home/me/project/a.rs', isActive: true }] };
        case 'getWorkspaceFolders':
          return { outcome: 'workspaceFolders', folders: ['/home/me/project'] };
        case 'checkDocumentDirty':
          return { outcome: 'documentDirty', isDirty: request.path.endsWith('.rs') };
      }
    },
    onError: (error: Error) => console.error(error.message),
  });
  const port: number = server.port;
  const token: string = server.revealAuthToken();
  const lock: string | null = server.lockPath;
  console.log(port, token, lock);
  server.selectionChanged({
    path: '/home/me/project/a.rs',
    text: 'fn',
    selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } },
  });
  const event: EditorEvent = { type: 'mention', path: '/home/me/project/a.rs', lineStart: 1 };
  server.handleEditorEvent(event);
  server.handleEditorEvent({ type: 'workspaceFoldersChanged', folders: ['/home/me/project'] });
  const terminal = server.sessions().find((session) => session.pid === 4242);
  server.chooseSession(terminal ? { by: 'conn', conn: terminal.conn } : { by: 'pid', pid: 4242 });
  server.chooseSession(null);
  await server.shutdown(500);
  return server;
}

async function remote(server: Host): Promise<void> {
  const bridge = spawn('ssh', ['dev', 'idelink', 'bridge'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const hello: LinkHelloEvent = await server.attachLink(bridge, { ideName: 'My Editor (remote)' });
  console.log(hello.port, hello.pid, hello.folders);
  await server.endLink();
}

function rawLink(engine: Engine, streamWrite: (bytes: Buffer) => void): void {
  const now = performance.now();
  engine.attachLink(now, '00112233445566778899aabbccddeeff', 'My Editor', 1 << 20);
  engine.handleLinkBytes(now, new Uint8Array([0x00]));
  for (let out: Output | null = engine.pollOutput(now); out !== null; out = engine.pollOutput(now)) {
    console.log(out.kind);
  }
  const bytes: Buffer = engine.linkOutbound();
  streamWrite(bytes);
  engine.handleLinkSent(bytes.length);
  const news: LinkEvent | null = engine.pollLinkEvent();
  if (news?.event === 'linkHello') console.log(news.port);
  engine.handleLinkEnd(now);
  engine.shutdownLink(now);
}

function rawEngine(socketWrite: (bytes: Buffer) => void): void {
  const engine = new Engine({ port: 40000, readyDelayMs: 0 }, '00112233445566778899aabbccddeeff');
  const now = performance.now();
  const conn: number = engine.handleAccept(now);
  engine.handleBytes(now, conn, new Uint8Array([0x47]));
  engine.handleEditorEvent(now, { type: 'documentSaved', path: '/w/a.rs' });
  for (let out: Output | null = engine.pollOutput(); out !== null; out = engine.pollOutput()) {
    if (out.kind === 'transmit') {
      const bytes: Buffer = engine.outbound(out.conn);
      socketWrite(bytes);
      engine.handleSent(out.conn, bytes.length);
    } else if (out.kind === 'closeTransport') {
      engine.handleClosed(now, out.conn);
    } else {
      const event: EngineEvent = out;
      if (event.event === 'toolCall') {
        engine.handleToolOutcome(now, event.id, { outcome: 'diffRejected' });
      }
    }
  }
  const at: number | null = engine.pollTimeout();
  if (at !== null) engine.handleTimeout(at);
  const pending: number = engine.outboundLength(conn);
  engine.close(now, conn);
  engine.shutdown(now);
  console.log(pending);
}

const text: string = lockFileJson({
  pid: 1,
  workspaceFolders: ['/w'],
  ideName: 'x',
  authToken: 'ab',
  runningInWindows: false,
});
const back: boolean = parseLockFile(text).runningInWindows;

const engine: 'native' | 'wasm' = binding.kind;
const terminal: Record<string, string> = { ...terminalEnv(1, process.env, { forceCodeTerminal: true }) };
const language: string | null = languageId('/w/a.rs');

void extension;
void rawEngine;
void remote;
void rawLink;
void back;
void engine;
void terminal;
void language;

/** Whether `claude --ide` started in `cwd` would connect to `host`, by the CLI's own rules. */
function connectsHere(host: Host, cwd: string, workspaceFolders: string[]): boolean {
  const verdict: Verdict = discover({
    cwd,
    locks: [{ port: host.port, workspaceFolders }],
    env: process.env,
    ideFlag: true,
    pathStyle: process.platform === 'win32' ? 'windows' : 'posix',
  });
  if (verdict.choice.kind === 'ambiguous') console.warn(`several servers: ${verdict.choice.ports.join(', ')}`);
  return verdict.connectsTo === host.port && folderContains(workspaceFolders[0] ?? '', cwd, 'posix');
}
void connectsHere;
