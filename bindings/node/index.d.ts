// Type declarations for the npm package `idelink`: the idelink engine (a Node-API addon, or the
// same engine as WebAssembly) and the Node host around it. Every structured value is the
// engine's own JSON form (camelCase); lines and characters are 0-based; times are milliseconds
// from a monotonic clock.

/// <reference types="node" />

import type {
  EditorEvent,
  ToolRequest,
  ToolOutcome,
  CancelReason,
  EngineEvent,
  Output,
  Config,
  EditorSnapshot,
  SnapshotChanges,
  PathStyle,
  ClaudeStart,
  Verdict,
  SessionChoice,
  SessionInfo,
  Turn,
  FileContent,
  UndoTarget,
  LinkEvent,
  LinkHelloEvent,
} from './protocol';

// The engine's JSON forms, generated from its Rust types (`cargo run -p idelink-types`).
export * from './protocol';

/** The caret or selection moved in `path`, which also becomes the active editor. */
export type SelectionChangedEvent = Extract<EditorEvent, { type: 'selectionChanged' }>;

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
  /**
   * The editor's whole visible state, once per frame: its difference from the previous snapshot
   * acts as the equivalent editor events (nothing when nothing changed; one push when the caret
   * moved). `workspaceFolders` in the result means the lock file's folders need rewriting.
   */
  handleSnapshot(now: number, snapshot: EditorSnapshot): SnapshotChanges;
  /** The editor's answer to the tool call `id` from a `toolCall` event. */
  handleToolOutcome(now: number, id: number, outcome: ToolOutcome): void;
  /** The deadline from `pollTimeout()` came (early or repeated calls are harmless). */
  handleTimeout(now: number): void;
  /**
   * Every ready session, oldest first: its connection, the CLI's pid, its folders from
   * `roots/list` (`null` until known), when it connected, and whether it is chosen. With
   * `sessionList: true` (or a routing rule) each change comes as a `sessionsChanged` event.
   */
  sessions(): SessionInfo[];
  /**
   * Chooses the session mentions go to (and, with `routing: "chosen"`, every push):
   * `{by: "conn", conn}` or `{by: "pid", pid}` (a pid may be chosen before its CLI
   * connects); `null` chooses none. Throws for a connection that is not a session.
   */
  chooseSession(now: number, choice: SessionChoice | null): void;
  /**
   * The turn ledger (`ledger: true`): every turn held, oldest first, each file with its
   * baseline, current content and hunks; `turnChanged` events report each change.
   */
  ledger(): Turn[];
  /**
   * The host's answer to a `ledgerRead` event: what the file holds now (the editor's buffer
   * when open there, else the disk). Throws for an unknown read or one past its deadline.
   */
  handleLedgerRead(now: number, read: number, content: FileContent): void;
  /**
   * The host carried out a `ledgerWrite` event's compare-and-write (or refused it on a
   * conflict): `nowHolds` is what the file holds afterwards. Throws for an unknown write.
   */
  handleLedgerWritten(now: number, write: number, nowHolds: FileContent): void;
  /** The host's file watcher saw `path` change with no call announcing it ("seen on disk"). */
  handleFileSeen(now: number, path: string, content: FileContent, previous: FileContent): void;
  /**
   * Undoes a hunk, a file or a turn: the writes come as `ledgerWrite` events. Throws with
   * the reason when it is refused (the file changed since).
   */
  ledgerUndo(now: number, target: UndoTarget): void;
  /**
   * The next output, or `null` when there is nothing more until the next input. With a link
   * attached, the outputs of its connections are performed on the way at `now`, which is then
   * required.
   */
  pollOutput(now?: number): Output | null;
  /** When `handleTimeout` is next due (ms on the host clock; an attached link's timers too), or `null`. */
  pollTimeout(): number | null;
  /** A copy of `conn`'s unsent bytes; write them, then report with `handleSent`. */
  outbound(conn: number): Buffer;
  /** How many unsent bytes `conn` holds, without copying them (for back-pressure). */
  outboundLength(conn: number): number;
  /** The host wrote the first `n` bytes of `outbound(conn)`. */
  handleSent(conn: number, n: number): void;
  /**
   * Attaches a remote link (an `idelink bridge`'s byte stream; one at a time: throws while a
   * live one is attached). Its hello gives the bridge `authToken` (this engine's), `ideName`
   * and the config's folders as the far side spells them (through `pathMap`, which must
   * parse); its connections pause at `pauseReadsAtBytes` (default 8 MiB). Each connection the
   * bridge opens is then an engine connection whose outputs `pollOutput(now)` performs.
   * {@link Host.attachLink} does all of this.
   */
  attachLink(now: number, authToken: string, ideName: string, pauseReadsAtBytes?: number): void;
  /** Bytes read from the link's stream. */
  handleLinkBytes(now: number, bytes: Uint8Array): void;
  /** The link's stream ended (EOF, a read error). */
  handleLinkEnd(now: number): void;
  /** Ends the link (the bridge hears it and removes its lock). */
  shutdownLink(now: number): void;
  /** A copy of the bytes the link has for its stream; write them, then report with `handleLinkSent`. */
  linkOutbound(): Buffer;
  /** The host wrote the first `n` bytes of `linkOutbound()`. */
  handleLinkSent(n: number): void;
  /** The link's next news (`linkHello`, then `linkEnded`), or `null`. */
  pollLinkEvent(): LinkEvent | null;
}

// ---------------------------------------------------------------------------------------------
// The remote link (docs/remote.md)

/**
 * What {@link Host.attachLink} takes: a spawned bridge (a `ChildProcess` whose stdin and stdout
 * are pipes), or any stream pair carrying one.
 */
export type LinkTarget =
  | import('node:child_process').ChildProcess
  | { readable: NodeJS.ReadableStream; writable: NodeJS.WritableStream };

/** Options of {@link Host.attachLink}. */
export interface AttachLinkOptions {
  /** The far lock's `ideName`. Default: the host's {@link HostConfig.ideName}. */
  ideName?: string;
}

// ---------------------------------------------------------------------------------------------
// The lock file

/** The fields of `<port>.lock` (the CLI's discovery file). */
export interface LockFile {
  /** A process that stays alive while the host runs (the CLI deletes locks of dead pids). */
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
export function lockFileJson(fields: LockFile): string;

/** Reads a lock file body (ours or another IDE's); throws saying what is wrong with it. */
export function parseLockFile(text: string): Required<LockFile>;

/** `$CLAUDE_CONFIG_DIR/ide` when set, else `~/.claude/ide`: where the CLI looks for locks. */
export function defaultLockDir(env?: NodeJS.ProcessEnv): string;

// ---------------------------------------------------------------------------------------------
// Helpers for a terminal and for documents

/**
 * The variables a terminal exports so the `claude` started in it connects to the editor on
 * `port`: `CLAUDE_CODE_SSE_PORT`, `ENABLE_IDE_INTEGRATION`, and `no_proxy` / `NO_PROXY` with
 * loopback added to what `inherited` (the environment the terminal starts with, usually
 * `process.env`) already lists. With `forceCodeTerminal`, also `FORCE_CODE_TERMINAL=true`: the
 * CLI then treats the terminal as an IDE's own and ignores other editors' locks unless their
 * pid is its parent or an ancestor; set it only for a terminal the editor itself started.
 *
 * ```js
 * spawn(shell, { env: { ...process.env, ...terminalEnv(host.port, process.env) } });
 * ```
 */
export function terminalEnv(
  port: number,
  inherited?: { no_proxy?: string; NO_PROXY?: string },
  options?: { forceCodeTerminal?: boolean },
): Record<string, string>;

/** The VS Code language id of a path or file name (`"rust"`, `"cpp"`, ...), or `null`. */
export function languageId(path: string): string | null;

// ---------------------------------------------------------------------------------------------
// The claude CLI's discovery rules (core's `discovery` module)

/**
 * What `claude` started in `start.cwd` would do, by the CLI's own rules: whether it looks for an
 * IDE (`autoConnect`), which live lock it takes (`choice`: exactly one that matches, else
 * none), the IDE-terminal rule, and `connectsTo`, the port it connects to (or `null`). Pass the
 * live locks (pid alive) of the lock folders and the environment claude starts with
 * (`process.env` will do). Paths are compared in Unicode NFC, as the CLI compares them: this
 * function normalizes them itself.
 *
 * ```js
 * const verdict = discover({ cwd, locks: [{ port: host.port, workspaceFolders }], env: process.env, ideFlag: true });
 * if (verdict.connectsTo !== host.port) warn(verdict);
 * ```
 */
export function discover(start: ClaudeStart): Verdict;

/**
 * Whether `cwd` is `folder` or lies under it, as the CLI decides on a machine whose paths are
 * `pathStyle` (a case-sensitive prefix ending at a separator; both sides in NFC; `'windows'`
 * compares `C:\x` and `C:/x` alike).
 */
export function folderContains(folder: string, cwd: string, pathStyle: PathStyle): boolean;

// ---------------------------------------------------------------------------------------------
// The binding

/**
 * Which engine this process runs. `native`: the prebuilt addon of this platform (the optional
 * dependency `idelink-<platform>`), or in a checkout of the repository a file named by
 * `IDELINK_NODE_ADDON` or a build from source. `wasm`: the same engine as WebAssembly (the
 * dependency `idelink-wasm`), used when no addon fits the platform or `IDELINK_FORCE_WASM=1`
 * asks for it; same API, slower per call. Both come only from `idelink`'s own `node_modules`
 * (or, bundled, the extension's), never from a parent folder's.
 */
export const binding: Readonly<{
  kind: 'native' | 'wasm';
  /** The package name or file it was loaded from. */
  source: string;
  /** Why it was picked, e.g. `prebuilt for linux-x64-gnu`, `idelink-linux-x64-musl is not installed`. */
  reason: string;
}>;

// ---------------------------------------------------------------------------------------------
// The host

/** A tool request being handled by {@link HostConfig.onToolCall}. */
export interface ToolCallContext {
  /** The engine's id for the call. */
  id: number;
  /** The client connection that asked. */
  conn: number;
  /** Aborted (with a {@link CancelReason} as `reason`) when the call no longer needs an answer. */
  signal: AbortSignal;
}

/**
 * What {@link startHost} needs: idelink-host's `HostConfig` (the C host's `config_json`), plus
 * the callbacks.
 */
export interface HostConfig {
  /** Absolute paths (forward slashes) the CLI matches its working directory against. */
  workspaceFolders: string[];
  /** Shown by the CLI as "Connected to <ideName> extension"; also tells our stale locks apart. */
  ideName: string;
  /** The pid in the lock file; it must stay alive while serving. Default: `process.pid`. */
  pid?: number;
  /**
   * Carries out a tool request (show the diff, open the file...) and resolves with its outcome.
   * A rejection answers `failed` with its message. Without it every request fails. The read
   * tools that `engine.reads` pulls from the editor arrive here too (`{tool: 'getDiagnostics',
   * path}` → `{outcome: 'diagnostics', files}`, ...): answer them within `engine.toolDeadlineMs`.
   */
  onToolCall?: (request: ToolRequest, call: ToolCallContext) => ToolOutcome | Promise<ToolOutcome>;
  /**
   * Every engine event (connected, sessionReady, toolCall, toolCallCancelled, closed...), and an
   * attached link's news (linkHello, linkEnded: {@link Host.attachLink}).
   */
  onEvent?: (event: { kind: 'event' } & (EngineEvent | LinkEvent)) => void;
  /** Errors the host cannot throw to a caller (a refused outcome). Default: a process warning. */
  onError?: (error: Error) => void;
  /**
   * Where the lock file goes: `'default'` ({@link defaultLockDir}(), where the CLI looks),
   * `{ dir }` (this directory), or `'none'` (no lock file). Default `'default'`.
   */
  lock?: 'default' | 'none' | { dir: string };
  /** The port on 127.0.0.1. Default 0: one the OS picks. */
  port?: number;
  /**
   * Opt in to resume (default false): keep a record of this session beside the lock, and at
   * start take back the port and token of this editor's last session on the same workspace
   * folders when it closed or crashed at most 25 s ago and its port is free, so a `claude` still
   * redialling it (the CLI redials the same URL and token for about 15 s and never re-reads the
   * lock) rejoins without `/ide`. Otherwise the server starts fresh; {@link Host.resumed}
   * and {@link Host.resumeNote} say which and why. Needs a lock directory and the native
   * addon (on the WebAssembly fallback the server starts fresh and says so). On Windows a Node
   * server cannot check a record's ACL, so it always starts fresh there.
   */
  resume?: boolean;
  /** For a Windows editor serving a CLI inside WSL. */
  runningInWindows?: boolean;
  /** The engine's configuration; `port` and `workspaceFolders` are set by the host. */
  engine?: Omit<Config, 'port' | 'workspaceFolders'>;
  /**
   * Stop reading a client whose unsent answers reach this many bytes (it does not read them);
   * read again below half. Default 8 MiB (core's pump policy, the same in the mio host).
   */
  pauseReadsAtBytes?: number;
}

/** A running host: one listener, one lock file, one engine (idelink-mio's `Host` for Node). */
export interface Host {
  /** The port the CLI connects to, on 127.0.0.1. */
  readonly port: number;
  /**
   * The token clients must present (also in the lock file). A method, so the token is never an
   * enumerable property: `console.log`, `util.inspect` and `JSON.stringify` of the host show
   * `authToken: '<redacted>'`. Call it only where the token is handed to a client.
   */
  revealAuthToken(): string;
  /** The lock file's path, or `null` when started with `lock: 'none'`. */
  readonly lockPath: string | null;
  /** True when {@link HostConfig.resume} took back the last session's port and token. */
  readonly resumed: boolean;
  /**
   * How the server came to its port and token, for a log line: `resumed the last session on
   * port …`, `started a new session (why)`, or `resume is off`. It holds no token.
   */
  readonly resumeNote: string;
  /** The caret or selection moved; sent to clients as `selection_changed` after a debounce. */
  selectionChanged(selection: Omit<SelectionChangedEvent, 'type'>): void;
  /** Any editor event; `workspaceFoldersChanged` also rewrites the lock file. Throws when malformed. */
  handleEditorEvent(event: EditorEvent): void;
  /**
   * The editor's whole visible state, once per frame: only its difference from the previous
   * snapshot reaches clients; other workspace folders also rewrite the lock file.
   */
  handleSnapshot(snapshot: EditorSnapshot): SnapshotChanges;
  /**
   * Every ready session, oldest first: its connection, the CLI's pid, its folders (`null` until
   * known), when it connected, whether it is chosen. With `engine: { sessionList: true }` (or a
   * routing rule) each change comes as a `sessionsChanged` event.
   */
  sessions(): SessionInfo[];
  /**
   * Chooses the session mentions go to (and, with `routing: "chosen"`, every push): `{by:
   * "conn", conn}` or `{by: "pid", pid}`; `null` chooses none. Throws for a connection that is
   * not a session.
   */
  chooseSession(choice: SessionChoice | null): void;
  /** The turn ledger (`engine: { ledger: true }`): every turn held, oldest first. */
  ledger(): Turn[];
  /**
   * The answer to a `ledgerRead` event (`onEvent`): what the file holds now. With the ledger
   * on, answer each at once: claude's pre-edit call waits for it.
   */
  handleLedgerRead(read: number, content: FileContent): void;
  /** The editor carried out a `ledgerWrite` event's compare-and-write: what the file holds now. */
  handleLedgerWritten(write: number, nowHolds: FileContent): void;
  /** The editor's file watcher saw `path` change with no claude call announcing it. */
  handleFileSeen(path: string, content: FileContent, previous: FileContent): void;
  /** Undoes a hunk, a file or a turn (writes as `ledgerWrite` events); throws the refusal's reason. */
  ledgerUndo(target: UndoTarget): void;
  /**
   * Attaches a remote link: a spawned `idelink bridge` (`ssh dev idelink bridge`, `docker exec
   * -i box idelink bridge`, spawned with piped stdin and stdout) or any stream pair carrying
   * one. The bridge's lock gets this host's token, its `ideName` and the workspace folders as
   * the far side spells them (through `engine.pathMap`); every claude connection the bridge
   * opens is served as if accepted on {@link Host.port}. The stream is always read; writes wait
   * for `'drain'` when `write()` returns false. `onEvent` hears `linkHello` and, at the end,
   * `linkEnded`; the stream is then closed (the bridge removes its lock and exits; a child
   * still running after 2 s is killed). Resolves with the bridge's hello (its port and pid);
   * rejects when the link ends before it. One link at a time: a second throws until the first
   * ended (the streams it was given are left alone).
   */
  attachLink(target: LinkTarget, options?: AttachLinkOptions): Promise<LinkHelloEvent>;
  /** Ends the attached link, if any; resolves once its stream is closed (the bridge removes its lock). */
  endLink(): Promise<void>;
  /**
   * Removes the lock file, stops listening, closes every client (code 1001), ends an attached
   * link, and resolves when the sockets are gone (destroying those still open after `graceMs`,
   * default 1000).
   */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Listens on 127.0.0.1, mints the auth token (`crypto.randomBytes(16)`), writes the lock file
 * (0600 in a 0700 directory; removed on close, on exit and on SIGINT/SIGTERM/SIGHUP) and serves
 * the Claude Code CLI from the engine.
 */
export function startHost(config: HostConfig): Promise<Host>;
