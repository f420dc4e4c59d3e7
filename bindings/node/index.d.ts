// Type declarations for the npm package `idelink`: the idelink engine (a Node-API addon) and
// the Node host around it. Every structured value is the engine's own JSON form (camelCase);
// lines and characters are 0-based; times are milliseconds from a monotonic clock.

/// <reference types="node" />

// ---------------------------------------------------------------------------------------------
// Editor state and events (in)

/** A position in a document: 0-based line and character (VS Code counts UTF-16 units). */
export interface Position {
  line: number;
  character: number;
}

/** A range of a document; `start` equals `end` for a bare caret. */
export interface Range {
  start: Position;
  end: Position;
}

/** A diagnostic, in the shape `getDiagnostics` answers with. */
export interface Diagnostic {
  message: string;
  severity: 'Error' | 'Warning' | 'Info' | 'Hint';
  range: Range;
  /** The tool that produced it (`rustc`, `eslint`, ...). */
  source?: string;
  /** The diagnostic's code, passed through as given. */
  code?: string | number;
}

/** The caret or selection moved in `path`, which also becomes the active editor. */
export interface SelectionChangedEvent {
  type: 'selectionChanged';
  path: string;
  /** The selected text, empty for a bare caret. */
  text: string;
  selection: Range;
}

/** Something that happened in the editor (the engine's EditorEvent JSON form). */
export type EditorEvent =
  | {
      type: 'documentOpened';
      path: string;
      languageId?: string;
      isDirty?: boolean;
      isUntitled?: boolean;
    }
  | { type: 'documentClosed'; path: string }
  | { type: 'documentActivated'; path: string }
  | { type: 'documentDirtyChanged'; path: string; isDirty: boolean }
  | { type: 'documentSaved'; path: string }
  | SelectionChangedEvent
  | { type: 'diagnosticsChanged'; path: string; diagnostics: Diagnostic[] }
  | { type: 'workspaceFoldersChanged'; folders: string[] }
  /** The user asked to add this file or line range to the prompt (→ `at_mentioned`). */
  | { type: 'mention'; path: string; lineStart?: number; lineEnd?: number };

// ---------------------------------------------------------------------------------------------
// Tool requests (out) and outcomes (in)

/** A request the editor must carry out and answer with a {@link ToolOutcome}. */
export type ToolRequest =
  | {
      tool: 'openFile';
      path: string;
      preview: boolean;
      startText?: string;
      endText?: string;
      selectToEndOfLine: boolean;
      makeFrontmost: boolean;
    }
  | {
      /** Show the proposal; answer `diffSaved` or `diffRejected`. Never write the file. */
      tool: 'openDiff';
      oldFilePath: string;
      newFilePath: string;
      newFileContents: string;
      tabName: string;
    }
  | { tool: 'saveDocument'; path: string }
  /** Only with `config.executeCode`; confirm with the user first. */
  | { tool: 'executeCode'; code: string };

/** The editor's answer to a {@link ToolRequest}. */
export type ToolOutcome =
  | { outcome: 'fileOpened'; languageId?: string; lineCount?: number }
  | { outcome: 'diffSaved'; finalText: string }
  | { outcome: 'diffRejected' }
  | { outcome: 'documentSaved' }
  | { outcome: 'codeExecuted'; outputs: string[] }
  | { outcome: 'failed'; message: string };

/** The tools the engine serves, by wire name. */
export type ToolName =
  | 'openFile'
  | 'openDiff'
  | 'close_tab'
  | 'closeAllDiffTabs'
  | 'getDiagnostics'
  | 'getCurrentSelection'
  | 'getLatestSelection'
  | 'getOpenEditors'
  | 'getWorkspaceFolders'
  | 'checkDocumentDirty'
  | 'saveDocument'
  | 'executeCode';

// ---------------------------------------------------------------------------------------------
// Engine outputs

/** Who connected, from the `initialize` request. */
export interface ClientInfo {
  name: string;
  version: string;
  /** The protocol version the session runs at. */
  protocolVersion: string;
}

/** Why a tool request was cancelled. */
export type CancelReason =
  | 'closedByClient'
  | 'replaced'
  | 'cancelledByClient'
  | 'clientGone'
  | 'deadlineExpired';

/** Why a connection ended. */
export type CloseReason =
  | { kind: 'upgradeRejected'; status: number; detail: string }
  | { kind: 'handshakeTimeout' }
  | { kind: 'tooManyConnections' }
  | { kind: 'peerClosed'; code: number | null; reason: string }
  | { kind: 'protocolViolation'; code: number; detail: string }
  | { kind: 'keepaliveTimeout' }
  | { kind: 'closeTimeout' }
  | { kind: 'superseded' }
  | { kind: 'outboundOverflow' }
  | { kind: 'closedByHost' }
  | { kind: 'transportClosed' };

/** Something that happened that the editor should know about or act on. */
export type EngineEvent =
  | { event: 'connected'; conn: number; userAgent: string | null }
  | { event: 'sessionReady'; conn: number; client: ClientInfo; clientPid: number | null }
  | { event: 'toolCall'; id: number; conn: number; request: ToolRequest }
  | { event: 'toolCallCancelled'; id: number; reason: CancelReason }
  | { event: 'toolAnswered'; conn: number; tool: ToolName }
  | { event: 'closed'; conn: number; reason: CloseReason };

/**
 * One thing for the host to do, from {@link Engine.pollOutput}: write `outbound(conn)`
 * (`transmit`), flush and close the socket (`closeTransport`), or an event's fields next to
 * `kind: "event"`.
 */
export type Output =
  | { kind: 'transmit'; conn: number }
  | { kind: 'closeTransport'; conn: number }
  | ({ kind: 'event' } & EngineEvent);

// ---------------------------------------------------------------------------------------------
// Configuration

/** WebSocket limits and timers. */
export interface WsConfig {
  maxMessageBytes?: number;
  maxFragments?: number;
  keepaliveIntervalMs?: number;
  keepaliveTimeoutMs?: number;
  closeTimeoutMs?: number;
  acceptBinary?: boolean;
}

/**
 * The engine configuration in its JSON form: every field optional (defaults in
 * core/src/lib.rs), unknown fields refused.
 */
export interface Config {
  /** The loopback port the host listens on: the upgrade's `Host` must carry it. */
  port?: number;
  serverInfo?: { name: string; version: string };
  workspaceFolders?: string[];
  pathStyle?: 'posix' | 'windows';
  maxHeadBytes?: number;
  handshakeTimeoutMs?: number;
  ws?: WsConfig;
  rpc?: { maxDepth?: number };
  maxConnections?: number;
  maxOutboundBytes?: number;
  sessionPolicy?: 'multi' | 'single';
  readyDelayMs?: number;
  selectionDebounceMs?: number;
  mentionTtlMs?: number;
  /** `null`: wait forever. */
  toolDeadlineMs?: number | null;
  /** `null` (the default): a diff waits for the user as long as it takes. */
  diffDeadlineMs?: number | null;
  executeCode?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The raw engine

/**
 * The IDE side of the Claude Code IDE protocol for one endpoint, sans I/O. After every input
 * drain {@link Engine.pollOutput} until `null`, then wait for I/O or
 * {@link Engine.pollTimeout}. Every method throws an `Error` on host misuse (an unknown
 * connection, a tool call answered twice, a malformed argument), leaving the engine unchanged.
 */
export class Engine {
  /**
   * @param config the configuration in its JSON form (`undefined` or `null`: all defaults).
   * @param authToken the token clients must present (32 hex digits from a CSPRNG).
   */
  constructor(config: Config | null | undefined, authToken: string);
  /** A connection was accepted at `now`; returns its id (from 1, never reused). */
  handleAccept(now: number): number;
  /** `bytes` arrived on `conn`. */
  handleBytes(now: number, conn: number, bytes: Uint8Array): void;
  /** `conn`'s socket is gone (EOF, error, or the close the engine asked for); once per conn. */
  handleClosed(now: number, conn: number): void;
  /** The host wants `conn` closed (an open client gets close code 1001). */
  close(now: number, conn: number): void;
  /** Closes every connection, as `close` does. */
  shutdown(now: number): void;
  /** An editor event (selection, documents, diagnostics, folders, a mention). */
  handleEditorEvent(now: number, event: EditorEvent): void;
  /** The editor's answer to the tool call `id` from a `toolCall` event. */
  handleToolOutcome(now: number, id: number, outcome: ToolOutcome): void;
  /** The deadline from `pollTimeout()` came (early or repeated calls are harmless). */
  handleTimeout(now: number): void;
  /** The next output, or `null` when there is nothing more until the next input. */
  pollOutput(): Output | null;
  /** When `handleTimeout` is next due (ms on the host clock), or `null`. */
  pollTimeout(): number | null;
  /** A copy of `conn`'s unsent bytes; write them, then report with `handleSent`. */
  outbound(conn: number): Buffer;
  /** How many unsent bytes `conn` holds, without copying them (for back-pressure). */
  outboundLength(conn: number): number;
  /** The host wrote the first `n` bytes of `outbound(conn)`. */
  handleSent(conn: number, n: number): void;
}

// ---------------------------------------------------------------------------------------------
// The lock file

/** The fields of `<port>.lock` (the CLI's discovery file). */
export interface LockFileFields {
  /** A process that stays alive while the server runs (the CLI deletes locks of dead pids). */
  pid: number;
  /** Absolute paths the CLI matches its working directory against. */
  workspaceFolders: string[];
  /** Shown by the CLI as "Connected to <ideName> extension". */
  ideName: string;
  authToken: string;
  /** Only for a Windows editor serving a CLI inside WSL. */
  runningInWindows?: boolean;
}

/** The JSON text of a lock file, built by the engine's lock model (`transport: "ws"` added). */
export function lockFileJson(fields: LockFileFields): string;

/** Reads a lock file body (ours or another IDE's); throws saying what is wrong with it. */
export function parseLockFile(text: string): Required<LockFileFields>;

/** `$CLAUDE_CONFIG_DIR/ide` when set, else `~/.claude/ide`: where the CLI looks for locks. */
export function defaultLockDir(env?: NodeJS.ProcessEnv): string;

// ---------------------------------------------------------------------------------------------
// The server

/** A tool request being handled by {@link ServerOptions.onToolCall}. */
export interface ToolCallContext {
  /** The engine's id for the call. */
  id: number;
  /** The client connection that asked. */
  conn: number;
  /** Aborted (with a {@link CancelReason} as `reason`) when the call no longer needs an answer. */
  signal: AbortSignal;
}

/** What {@link startServer} needs. */
export interface ServerOptions {
  /** Absolute paths (forward slashes) the CLI matches its working directory against. */
  workspaceFolders: string[];
  /** Shown by the CLI as "Connected to <ideName> extension"; also tells our stale locks apart. */
  ideName: string;
  /** The pid in the lock file; it must stay alive while serving. Default: `process.pid`. */
  pid?: number;
  /**
   * Carries out a tool request (show the diff, open the file...) and resolves with its outcome.
   * A rejection answers `failed` with its message. Without it every request fails.
   */
  onToolCall?: (request: ToolRequest, call: ToolCallContext) => ToolOutcome | Promise<ToolOutcome>;
  /** Every engine event (connected, sessionReady, toolCall, toolCallCancelled, closed...). */
  onEvent?: (event: { kind: 'event' } & EngineEvent) => void;
  /** Errors the server cannot throw to a caller (a refused outcome). Default: a process warning. */
  onError?: (error: Error) => void;
  /** The lock directory; `null` writes no lock file. Default: {@link defaultLockDir}(). */
  lockDir?: string | null;
  /** The port on 127.0.0.1. Default 0: one the OS picks. */
  port?: number;
  /** For a Windows editor serving a CLI inside WSL. */
  runningInWindows?: boolean;
  /** Engine configuration; `port` and `workspaceFolders` are set by the server. */
  config?: Omit<Config, 'port' | 'workspaceFolders'>;
  /** Stop reading a client whose unsent answers pass this many bytes. Default 8 MiB. */
  pauseReadsAtBytes?: number;
}

/** A running server: one listener, one lock file, one engine. */
export interface IdeServer {
  /** The port the CLI connects to, on 127.0.0.1. */
  readonly port: number;
  /** The token clients must present (also in the lock file). */
  readonly authToken: string;
  /** The lock file's path, or `null` when started with `lockDir: null`. */
  readonly lockPath: string | null;
  /** The caret or selection moved; sent to clients as `selection_changed` after a debounce. */
  selectionChanged(selection: Omit<SelectionChangedEvent, 'type'>): void;
  /** Any editor event; `workspaceFoldersChanged` also rewrites the lock file. Throws when malformed. */
  editorEvent(event: EditorEvent): void;
  /**
   * Removes the lock file, stops listening, closes every client (code 1001) and resolves when
   * the sockets are gone (destroying those still open after `graceMs`, default 1000).
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Listens on 127.0.0.1, mints the auth token (`crypto.randomBytes(16)`), writes the lock file
 * (0600 in a 0700 directory; removed on close, on exit and on SIGINT/SIGTERM/SIGHUP) and serves
 * the Claude Code CLI from the engine.
 */
export function startServer(options: ServerOptions): Promise<IdeServer>;
