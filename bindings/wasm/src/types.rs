//! TypeScript declarations of the JSON forms the `Engine` methods take and return. They
//! restate the serde forms documented in `idelink_core` (`Config`, `EditorEvent`,
//! `ToolOutcome`, `Output`); the transcript-vector test in `test/` replays those forms.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** 0-based line and character (VS Code counts UTF-16 code units). */
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }
export type Severity = "Error" | "Warning" | "Info" | "Hint";
export interface Diagnostic {
  message: string; severity: Severity; range: Range; source?: string; code?: string | number;
}

/** The engine configuration: every field optional (defaults in idelink_core::Config), unknown fields refused. */
export interface Config {
  port?: number;
  serverInfo?: { name: string; version: string };
  workspaceFolders?: string[];
  pathStyle?: "posix" | "windows";
  maxHeadBytes?: number;
  handshakeTimeoutMs?: number;
  ws?: {
    maxMessageBytes?: number; maxFragments?: number; keepaliveIntervalMs?: number;
    keepaliveTimeoutMs?: number; closeTimeoutMs?: number; acceptBinary?: boolean;
  };
  rpc?: { maxDepth?: number };
  maxConnections?: number;
  maxOutboundBytes?: number;
  sessionPolicy?: "multi" | "single";
  readyDelayMs?: number;
  selectionDebounceMs?: number;
  mentionTtlMs?: number;
  toolDeadlineMs?: number | null;
  diffDeadlineMs?: number | null;
  executeCode?: boolean;
}

/** Something that happened in the editor. */
export type EditorEvent =
  | { type: "documentOpened"; path: string; languageId?: string; isDirty?: boolean; isUntitled?: boolean }
  | { type: "documentClosed"; path: string }
  | { type: "documentActivated"; path: string }
  | { type: "documentDirtyChanged"; path: string; isDirty: boolean }
  | { type: "documentSaved"; path: string }
  | { type: "selectionChanged"; path: string; text: string; selection: Range }
  | { type: "diagnosticsChanged"; path: string; diagnostics: Diagnostic[] }
  | { type: "workspaceFoldersChanged"; folders: string[] }
  | { type: "mention"; path: string; lineStart?: number; lineEnd?: number };

/** A tool request the editor must carry out and answer with handleToolOutcome. */
export type ToolRequest =
  | { tool: "openFile"; path: string; preview: boolean; startText?: string; endText?: string;
      selectToEndOfLine: boolean; makeFrontmost: boolean }
  | { tool: "openDiff"; oldFilePath: string; newFilePath: string; newFileContents: string; tabName: string }
  | { tool: "saveDocument"; path: string }
  | { tool: "executeCode"; code: string };

/** The editor's answer to a ToolRequest. */
export type ToolOutcome =
  | { outcome: "fileOpened"; languageId?: string; lineCount?: number }
  | { outcome: "diffSaved"; finalText: string }
  | { outcome: "diffRejected" }
  | { outcome: "documentSaved" }
  | { outcome: "codeExecuted"; outputs: string[] }
  | { outcome: "failed"; message: string };

export type CancelReason =
  | "closedByClient" | "replaced" | "cancelledByClient" | "clientGone" | "deadlineExpired";

export type CloseReason =
  | { kind: "upgradeRejected"; status: number; detail: string }
  | { kind: "handshakeTimeout" } | { kind: "tooManyConnections" }
  | { kind: "peerClosed"; code: number | null; reason: string }
  | { kind: "protocolViolation"; code: number; detail: string }
  | { kind: "keepaliveTimeout" } | { kind: "closeTimeout" } | { kind: "superseded" }
  | { kind: "outboundOverflow" } | { kind: "closedByHost" } | { kind: "transportClosed" };

/** Something the editor should know or do (the `event` field tags it). */
export type Event =
  | { event: "connected"; conn: number; userAgent: string | null }
  | { event: "sessionReady"; conn: number;
      client: { name: string; version: string; protocolVersion: string }; clientPid: number | null }
  | { event: "toolCall"; id: number; conn: number; request: ToolRequest }
  | { event: "toolCallCancelled"; id: number; reason: CancelReason }
  | { event: "toolAnswered"; conn: number; tool: string }
  | { event: "closed"; conn: number; reason: CloseReason };

/** One thing for the host to do, in causal order. */
export type Output =
  | { kind: "transmit"; conn: number }
  | { kind: "closeTransport"; conn: number }
  | ({ kind: "event" } & Event);
"#;
