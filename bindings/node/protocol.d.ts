// The engine's JSON forms, shared by both JavaScript packages: `idelink` (napi, which ships this
// file) and `idelink-wasm` (which embeds it in its generated declarations). Every structured
// value is the engine's own serde form (camelCase); lines and characters are 0-based; times
// are milliseconds from a monotonic clock.

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
  | { kind: 'handshakeEvicted' }
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
  maxHandshakes?: number;
  maxOutboundBytes?: number;
  maxPendingCalls?: number;
  maxDocuments?: number;
  maxDiagnostics?: number;
  maxQueuedMentions?: number;
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
