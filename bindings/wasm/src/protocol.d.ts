// The engine's JSON forms, shared by both JavaScript packages: `idelink` (napi) and
// `idelink-wasm`. Every structured value is the engine's own serde form (camelCase); lines and
// characters are 0-based; times are milliseconds from a monotonic clock; ids and counts are
// numbers (exact up to 2^53).
//
// Generated from the serde types of idelink-core by `cargo run -p idelink-types`: do not edit.

// -----------------------------------------------------------------------------------------------
// Editor state and events (in)

/** A position in a document: 0-based line and character. JSON `{"line":0,"character":0}`. */
export type Position = {
  /** 0-based line. */
  line: number;
  /** 0-based character within the line (VS Code counts UTF-16 code units). */
  character: number;
};

/** A range of a document. JSON `{"start":{..},"end":{..}}`. */
export type Range = {
  /** Where it starts. */
  start: Position;
  /** Where it ends (equal to `start` for an empty range). */
  end: Position;
};

/**
 * A diagnostic's severity, serialized as its name: `"Error"`, `"Warning"`, `"Info"`, `"Hint"` (the
 * names the CLI reads).
 */
export type Severity = "Error" | "Warning" | "Info" | "Hint";

/**
 * One diagnostic, serialized in the shape `getDiagnostics` answers with:
 * `{"message","severity","range","source"?,"code"?}`.
 */
export type Diagnostic = {
  /** The human-readable message. */
  message: string;
  /** How bad it is. */
  severity: Severity;
  /** Where it applies. */
  range: Range;
  /** The tool that produced it (`rustc`, `eslint`, ...); left out when `null`. */
  source?: string | null;
  /**
   * The diagnostic's code, a string or a number as the source gave it (passed through); left out
   * when `null`.
   */
  code?: string | number;
};

/** One file's diagnostics: in a `ToolOutcome::Diagnostics` and in an {@link EditorSnapshot}. */
export type FileDiagnostics = {
  /** The file's path. */
  path: string;
  /** Its diagnostics, in the editor's order. */
  diagnostics: Array<Diagnostic>;
};

/** What the editor shares with clients unasked, beside what the deny rules keep back. */
export type SharingMode = "everything" | "selectionOnly" | "mentionsOnly";

/**
 * One ignore file's text, read by the host (core has no file system): a `.gitignore` with `dir` the
 * folder it lies in, or `.git/info/exclude` with `dir` the repository's root. JSON
 * `{"dir":"/w","text":"target/\n*.log\n"}`.
 */
export type IgnoreFile = {
  /** The folder its patterns are relative to (an absolute path in the editor's spelling). */
  dir: string;
  /**
   * Its contents (git's ignore syntax: `#` comments, `!` negation, a trailing `/` for directories,
   * `**`).
   */
  text: string;
};

/**
 * What may leave the engine about the editor (docs/protocol.md, "Context policy"): applied to every
 * `selection_changed`, every `at_mentioned` and every read tool's answer, from the state or pulled
 * from the editor. A denied file is absent from all of them (or "no file"): never its name, never
 * its text.
 *
 * A path is denied when `DEFAULT_DENY` then `deny` (git's ignore syntax, relative to the workspace
 * folder that holds the path, or to the file system's root for a path outside every folder; the
 * last matching pattern decides, ASCII case folded) deny it, or when the `ignoreFiles` ignore it as
 * git would (the deepest file's last matching pattern decides; for the same folder, a later file in
 * the list before an earlier one; a path under an ignored folder stays ignored; case folded only
 * for Windows paths).
 *
 * JSON: `{"deny":["secrets/"],"ignoreFiles":[{"dir":"/w","text":"target/\n"}],
 * "mode":"selectionOnly","paused":false}`, every field optional.
 */
export type ContextPolicy = {
  /** Deny globs added after `DEFAULT_DENY` (a `!pattern` re-allows). Default: none. */
  deny?: Array<string>;
  /**
   * The workspace's ignore files, as the host read them: list `.git/info/exclude` first, then each
   * `.gitignore` (root and nested). Default: none.
   */
  ignoreFiles?: Array<IgnoreFile>;
  /** What is shared unasked. Default `SharingMode::Everything`. */
  mode?: SharingMode;
  /**
   * Nothing about the editor leaves the engine: "no file" is pushed once, mentions are dropped, the
   * read tools answer as for an editor with nothing open (the workspace folders excepted: the lock
   * file names them already). Default `false`.
   */
  paused?: boolean;
};

/**
 * Something that happened in the editor. Paths are the editor's own spelling; the state normalizes
 * them (see `normalize_path`).
 */
export type EditorEvent =
  | {
      type: "documentOpened";
      /** The document's path. */
      path: string;
      /** The editor's language id (`rust`, `typescript`, ...), when known. */
      languageId?: string | null;
      /** Whether it has unsaved changes. */
      isDirty?: boolean;
      /** Whether it has never been saved to disk. */
      isUntitled?: boolean;
    }
  | {
      type: "documentClosed";
      /** The document's path. */
      path: string;
    }
  | {
      type: "documentActivated";
      /** The document's path. */
      path: string;
    }
  | { type: "noDocumentActive" }
  | {
      type: "documentDirtyChanged";
      /** The document's path. */
      path: string;
      /** Whether it now has unsaved changes. */
      isDirty: boolean;
    }
  | {
      type: "documentSaved";
      /** The document's path. */
      path: string;
    }
  | {
      type: "selectionChanged";
      /** The document's path. */
      path: string;
      /** The selected text (empty for a bare caret), kept exactly as given. */
      text: string;
      /** The selection; `start == end` for a bare caret. */
      selection: Range;
    }
  | {
      type: "diagnosticsChanged";
      /** The file's path. */
      path: string;
      /** Its complete new list of diagnostics. */
      diagnostics: Array<Diagnostic>;
    }
  | {
      type: "proposalDiagnosticsChanged";
      /** The `openDiff` tool call (`ToolCallId::as_u64`). */
      call: number;
      /** The complete new list of diagnostics of its proposal. */
      diagnostics: Array<Diagnostic>;
    }
  | {
      type: "workspaceFoldersChanged";
      /** The new folders, absolute paths. */
      folders: Array<string>;
    }
  | {
      type: "mention";
      /** The file's path. */
      path: string;
      /** First line of the range, 0-based. */
      lineStart?: number | null;
      /** Last line of the range, 0-based. */
      lineEnd?: number | null;
    }
  | {
      type: "policyChanged";
      /** The policy now in force. */
      policy: ContextPolicy;
    }
  | {
      type: "sharingPaused";
      /** Paused. */
      paused: boolean;
    };

// -----------------------------------------------------------------------------------------------
// Per-frame snapshots (in)

/** One open document of an {@link EditorSnapshot}. */
export type SnapshotDocument = {
  /** Its path. */
  path: string;
  /** The editor's language id, when known. */
  languageId?: string | null;
  /** Whether it has unsaved changes. */
  isDirty?: boolean;
  /** Whether it has never been saved to disk. */
  isUntitled?: boolean;
};

/** The active document of an {@link EditorSnapshot} and its selection. */
export type SnapshotActive = {
  /** The document's path. */
  path: string;
  /** The selected text (empty for a bare caret). */
  text?: string;
  /** The selection (a caret at 0:0 when left out). */
  selection?: Range;
};

/**
 * The editor's whole visible state at once, in its JSON form (owning its strings); each call
 * compares it with the previous one and applies only the difference.
 */
export type EditorSnapshot = {
  /** The open documents, in tab order. */
  documents?: Array<SnapshotDocument>;
  /** The active document and its selection; absent or `null` when none is active. */
  active?: SnapshotActive | null;
  /** The diagnostics of each file that has some. */
  diagnostics?: Array<FileDiagnostics>;
  /** The workspace folders, absolute paths. */
  workspaceFolders?: Array<string>;
};

/**
 * What a snapshot changed, by kind. All `false`: nothing changed and no event was applied. JSON
 * form: `{"documents":false,"active":true,"diagnostics":false,"workspaceFolders":false}`.
 */
export type SnapshotChanges = {
  /**
   * Documents were opened, closed or changed language or flags (a tab list only reordered changes
   * nothing: tabs keep the order documents first appeared in).
   */
  documents: boolean;
  /** The active document or its selection changed (a `selection_changed` push follows). */
  active: boolean;
  /** Some file's diagnostics changed. */
  diagnostics: boolean;
  /** The workspace folders changed: the host rewrites the lock file. */
  workspaceFolders: boolean;
};

// -----------------------------------------------------------------------------------------------
// Tool requests (out) and outcomes (in)

/**
 * A call the editor must carry out, then report a {@link ToolOutcome} for. Paths are normalized
 * with the state's {@link PathStyle}.
 */
export type ToolRequest =
  | {
      tool: "openFile";
      /** The file to open. */
      path: string;
      /** Open it as a preview tab. */
      preview?: boolean;
      /** Select from the first occurrence of this text. */
      startText?: string | null;
      /** Extend the selection to the end of this text's first occurrence after `startText`. */
      endText?: string | null;
      /** Extend the selection to the end of the line where it ends. */
      selectToEndOfLine?: boolean;
      /** Make the file the active editor; when false, open it in the background. */
      makeFrontmost?: boolean;
    }
  | {
      tool: "openDiff";
      /** The file as it is (it may not exist yet). */
      oldFilePath: string;
      /** The file the new contents are for (the same path in practice). */
      newFilePath: string;
      /** The proposed contents (may be empty). */
      newFileContents: string;
      /** The diff tab's name, unique per proposal. */
      tabName: string;
      /**
       * `oldFilePath` is open in the editor with unsaved changes (the editor's own {@link
       * EditorEvent}s said so when the call came): its buffer is not the text the proposal was made
       * from.
       */
      dirty?: boolean;
    }
  | {
      tool: "saveDocument";
      /** The document to save. */
      path: string;
    }
  | {
      tool: "executeCode";
      /** The code to run. */
      code: string;
    }
  | {
      tool: "getDiagnostics";
      /** The one file asked about; absent for every file. */
      path?: string | null;
    }
  | { tool: "getCurrentSelection" }
  | { tool: "getLatestSelection" }
  | { tool: "getOpenEditors" }
  | { tool: "getWorkspaceFolders" }
  | {
      tool: "checkDocumentDirty";
      /** The document asked about. */
      path: string;
    };

/** What the editor reports after carrying out a {@link ToolRequest}. */
export type ToolOutcome =
  | {
      outcome: "fileOpened";
      /** Its language id, when known. */
      languageId?: string | null;
      /** Its number of lines, when known. */
      lineCount?: number | null;
    }
  | {
      outcome: "diffSaved";
      /** The complete accepted text. */
      finalText: string;
      /**
       * The file's text on disk when the diff was shown (the diff's left side; empty for a file
       * that does not exist, as the CLI reads it), if the editor read it.
       */
      originalText?: string | null;
    }
  | { outcome: "diffRejected" }
  | {
      outcome: "diffRefused";
      /** Why, for the user (and the CLI's debug log). */
      reason: string;
    }
  | { outcome: "documentSaved" }
  | {
      outcome: "codeExecuted";
      /** The outputs, in order. */
      outputs: Array<string>;
    }
  | {
      outcome: "failed";
      /** Why, for the user. */
      message: string;
    }
  | {
      outcome: "diagnostics";
      /** The files and their diagnostics, in any order. */
      files: Array<FileDiagnostics>;
    }
  | {
      outcome: "selection";
      /** The document's path. */
      path: string;
      /** The selected text, exactly as in the document. */
      text: string;
      /** Where the selection is. */
      selection: Range;
    }
  | { outcome: "noSelection" }
  | {
      outcome: "openEditors";
      /** One entry per tab. */
      tabs: Array<OpenTab>;
    }
  | {
      outcome: "workspaceFolders";
      /** The folders. */
      folders: Array<string>;
    }
  | {
      outcome: "documentDirty";
      /** Whether it has unsaved changes. */
      isDirty: boolean;
      /** Whether it has never been saved to disk. */
      isUntitled?: boolean;
    }
  | { outcome: "documentNotOpen" };

/** One tab in a `ToolOutcome::OpenEditors`. */
export type OpenTab = {
  /** The document's path. */
  path: string;
  /** The editor's language id, when known. */
  languageId?: string | null;
  /** Whether it has unsaved changes. */
  isDirty?: boolean;
  /** Whether it has never been saved to disk. */
  isUntitled?: boolean;
  /** Whether it is the active editor (at most one tab is). */
  isActive?: boolean;
};

/** A tool the server offers, by its wire name (`close_tab` is the one snake_case name). */
export type ToolName =
  | "openFile"
  | "openDiff"
  | "close_tab"
  | "closeAllDiffTabs"
  | "getDiagnostics"
  | "getCurrentSelection"
  | "getLatestSelection"
  | "getOpenEditors"
  | "getWorkspaceFolders"
  | "checkDocumentDirty"
  | "saveDocument"
  | "executeCode";

// -----------------------------------------------------------------------------------------------
// The turn ledger

/** One turn, numbered by the ledger from 1 in start order. Never reused. */
export type TurnId = number;

/** Who changed a file of a turn. */
export type ChangedBy = "claude" | "seenOnDisk";

/**
 * One run of changed lines: `oldLines` lines of the baseline from line `oldStart` were replaced by
 * `newLines` lines of the current text from line `newStart` (0-based line numbers; a count of 0 is
 * a pure insertion or deletion at that line).
 */
export type Hunk = {
  /** First baseline line replaced. */
  oldStart: number;
  /** Baseline lines replaced (the lines removed). */
  oldLines: number;
  /** First current line that replaced them. */
  newStart: number;
  /** Current lines that replaced them (the lines added). */
  newLines: number;
};

/**
 * A file's content as the host read it (from the editor's buffer when the file is open there, else
 * from disk). JSON form, tagged by `"kind"`:
 *
 * ```json {"kind":"text","text":"fn main() {}\n"}
 * {"kind":"binary","bytes":2048,"digest":"9a0364b9e99bb480dd25e1f0284c8555"}
 * {"kind":"large","bytes":52428800,"digest":"…"} {"kind":"missing"}
 * {"kind":"unread","reason":"permission denied"} {"kind":"outside","reason":"/w/link resolves to
 * /etc/passwd, outside the workspace"} ```
 *
 * `digest` is any text that changes when the bytes change (a hash of them); the ledger only
 * compares it. A text over the ledger's per-file limit is kept as `large` with its SHA-1.
 */
export type FileContent =
  | {
      kind: "text";
      /** The text. */
      text: string;
    }
  | {
      kind: "binary";
      /** Its size. */
      bytes: number;
      /** A digest of its bytes. */
      digest: string;
    }
  | {
      kind: "large";
      /** Its size. */
      bytes: number;
      /** A digest of its bytes. */
      digest: string;
    }
  | { kind: "missing" }
  | {
      kind: "unread";
      /** Why. */
      reason: string;
    }
  | {
      kind: "outside";
      /** Why, for a person. */
      reason: string;
    };

/** One file of a turn. */
export type FileChange = {
  /** The file (normalized). */
  path: string;
  /** Who changed it first in this turn. */
  changedBy: ChangedBy;
  /**
   * Every claude edit of it in this turn went through an `openDiff` the editor answered
   * ("reviewed"); false when any was accepted without the IDE ("auto").
   */
  reviewed: boolean;
  /** Before the turn's first change of it. */
  baseline: FileContent;
  /** As last read (after the edit, an undo, or a change seen on disk). */
  current: FileContent;
  /**
   * Bumped each time `current` changes: an undo of a hunk names the revision it was shown at, so a
   * hunk claude changed since is never undone blind.
   */
  revision: number;
  /** False while claude is editing it (baseline taken, its edit not ended yet). */
  settled: boolean;
  /**
   * The file changed in a way claude did not announce: between two of its edits, or to other text
   * than the accepted diff's.
   */
  outsideChange: boolean;
  /** The hunks from `baseline` to `current` (none when either is not text). */
  hunks: Array<Hunk>;
};

/** One prompt's turn of one client. */
export type Turn = {
  /** Its number. */
  id: TurnId;
  /** The client whose prompt it is. */
  conn: ConnId;
  /** When its `closeAllDiffTabs` came (the host's milliseconds, `Timestamp::as_millis`). */
  startedMs: number;
  /** Ended: the client's next prompt started, or it disconnected. */
  closed: boolean;
  /** Its files, in the order they were first changed. */
  files: Array<FileChange>;
};

/** How the ledger grew or shrank, in order. JSON form tagged by `"change"`. */
export type TurnChange =
  | {
      change: "started";
      /** The turn. */
      turn: TurnId;
      /** Its client. */
      conn: ConnId;
    }
  | {
      change: "fileAdded";
      /** The turn. */
      turn: TurnId;
      /** The file. */
      path: string;
      /** Claude's announced edit, or a change seen on disk. */
      changedBy: ChangedBy;
    }
  | {
      change: "fileChanged";
      /** The turn. */
      turn: TurnId;
      /** The file. */
      path: string;
      /** Its new revision. */
      revision: number;
      /** Its hunks now. */
      hunks: number;
      /** Lines added across them. */
      added: number;
      /** Lines removed across them. */
      removed: number;
    }
  | {
      change: "closed";
      /** The turn. */
      turn: TurnId;
    }
  | {
      change: "leftOut";
      /** The turn. */
      turn: TurnId;
      /**
       * The file as claude named it (or as the ledger spells it, when the host refused it): a
       * report, never a path to act on.
       */
      path: string;
      /** Why, for a person. */
      reason: string;
    }
  | {
      change: "dropped";
      /** The turns. */
      turns: Array<TurnId>;
    };

/**
 * One write the host carries out for an undo: only when the file still holds `expected` (its text,
 * or no file for `FileContent::Missing`), else it answers a conflict and writes nothing (never a
 * silent overwrite).
 */
export type FileWrite = {
  /** The turn whose change is undone. */
  turn: TurnId;
  /** The file. */
  path: string;
  /** What it must hold now. */
  expected: FileContent;
  /** What to write; `null`: delete the file. */
  text: string | null;
};

/**
 * What to undo. JSON form, tagged by `"undo"`:
 *
 * ```json {"undo":"hunk","turn":3,"path":"/w/a.rs","revision":2,"hunk":0}
 * {"undo":"file","turn":3,"path":"/w/a.rs"} {"undo":"turn","turn":3} ```
 */
export type UndoTarget =
  | {
      undo: "hunk";
      /** The turn. */
      turn: TurnId;
      /** The file. */
      path: string;
      /** The file's `FileChange::revision` the hunk was shown at. */
      revision: number;
      /** The hunk's index in `FileChange::hunks`. */
      hunk: number;
    }
  | {
      undo: "file";
      /** The turn. */
      turn: TurnId;
      /** The file. */
      path: string;
    }
  | {
      undo: "turn";
      /** The turn. */
      turn: TurnId;
    };

// -----------------------------------------------------------------------------------------------
// Engine outputs

/** One transport connection, numbered by the engine from 1 in accept order. Never reused. */
export type ConnId = number;

/** One tool request handed to the editor, numbered by the engine from 1. Never reused. */
export type ToolCallId = number;

/** Who connected, from the `initialize` request. */
export type ClientInfo = {
  /** `clientInfo.name`, `"claude-code"` for the CLI. */
  name: string;
  /** `clientInfo.version`, the CLI's version. */
  version: string;
  /** The protocol version the session runs at (the one answered, see `negotiate_version`). */
  protocolVersion: string;
};

/** Why a tool request was cancelled. */
export type CancelReason =
  | "closedByClient"
  | "replaced"
  | "cancelledByClient"
  | "clientGone"
  | "deadlineExpired";

/** Why a connection ended. */
export type CloseReason =
  | {
      kind: "upgradeRejected";
      /** The HTTP status sent. */
      status: number;
      /** What was wrong. */
      detail: string;
    }
  | { kind: "handshakeTimeout" }
  | { kind: "tooManyConnections" }
  | { kind: "handshakeEvicted" }
  | {
      kind: "peerClosed";
      /** The client's close code, if it sent one. */
      code: number | null;
      /** The client's reason text. */
      reason: string;
    }
  | {
      kind: "protocolViolation";
      /** The close code sent (1002, 1003, 1007, 1009, …). */
      code: number;
      /** The rule broken. */
      detail: string;
    }
  | { kind: "keepaliveTimeout" }
  | { kind: "closeTimeout" }
  | { kind: "superseded" }
  | { kind: "outboundOverflow" }
  | { kind: "closedByHost" }
  | { kind: "transportClosed" };

/**
 * What the engine sent in place of a message over the client's limit
 * (`EngineEvent::MessageTooLarge`).
 */
export type SentInstead = "error" | "truncated" | "tabClosed" | "nothing";

/** One client session, as `Engine::sessions` lists it. */
export type SessionInfo = {
  /** The connection. */
  conn: ConnId;
  /** The CLI's process id from `ide_connected`, once it came. */
  pid?: number | null;
  /**
   * Its folders (normalized paths) from `roots/list`; `null` until it answered (or when it does not
   * declare the capability, or the engine does not ask).
   */
  folders?: Array<string> | null;
  /** When the upgrade completed, in the host's milliseconds. */
  connectedAt: number;
  /** True for the session pushes are routed to by the choice. */
  chosen: boolean;
};

/** Something that happened that the editor should know about or act on. */
export type EngineEvent =
  | {
      event: "connected";
      /** The connection. */
      conn: ConnId;
      /** The client's `User-Agent` (`claude-code/<version> …` for the CLI). */
      userAgent: string | null;
    }
  | {
      event: "sessionReady";
      /** The connection. */
      conn: ConnId;
      /** `clientInfo` and the negotiated protocol version. */
      client: ClientInfo;
      /** The CLI's process id from its `ide_connected` notification, if it sent one. */
      clientPid: number | null;
    }
  | {
      event: "toolCall";
      /** Quote it in the answer. */
      id: ToolCallId;
      /** The client that asked. */
      conn: ConnId;
      /** What to do. */
      request: ToolRequest;
      /**
       * The request's file (`openFile`'s, either of `openDiff`'s) is one the context policy denies
       * (`Config::policy`): the editor and the user decide, and the review can say so. Left out of
       * the JSON form when false.
       */
      contextDenied?: boolean;
    }
  | {
      event: "toolCallCancelled";
      /** The request. */
      id: ToolCallId;
      /** Why. */
      reason: CancelReason;
    }
  | {
      event: "fileReplaced";
      /** The `openDiff` request that was accepted. */
      id: ToolCallId;
      /** The file (the request's `newFilePath`). */
      path: string;
      /** Its text once the CLI wrote it. */
      text: string;
    }
  | {
      event: "toolServed";
      /** The client that asked. */
      conn: ConnId;
      /** The tool. */
      tool: ToolName;
    }
  | {
      event: "messageTooLarge";
      /** The client it was for; absent for a notification meant for every ready client. */
      conn?: ConnId | null;
      /**
       * What it was: the tool whose answer it was (`openDiff`, `getDiagnostics`, …), the
       * notification's method (`selection_changed`, `at_mentioned`), or `response` for a reply to
       * any other request.
       */
      message: string;
      /** Its size: the bytes of the JSON-RPC message (the WebSocket message's payload). */
      bytes: number;
      /** What was sent instead. */
      sent: SentInstead;
    }
  | {
      event: "sessionsChanged";
      /** Every ready session, oldest first. */
      sessions: Array<SessionInfo>;
    }
  | {
      event: "contextWithheld";
      /** Pushes withheld since the engine started. */
      pushes: number;
      /** Read answers that left something out, since the engine started. */
      reads: number;
      /**
       * The files withheld since the previous report (normalized), in the order first withheld, at
       * most `MAX_REPORTED_PATHS`.
       */
      paths: Array<string>;
      /** Files withheld since the previous report beyond `paths`. */
      morePaths: number;
    }
  | {
      event: "ledgerRead";
      /** Quote it in the answer. */
      read: number;
      /** The file (normalized). */
      path: string;
    }
  | {
      event: "ledgerWrite";
      /** Quote it in the answer. */
      write: number;
      /** What to write, and what must be there. */
      file: FileWrite;
    }
  | {
      event: "turnChanged";
      /** What changed. */
      change: TurnChange;
    }
  | {
      event: "closed";
      /** The connection. */
      conn: ConnId;
      /** Why. */
      reason: CloseReason;
    };

/** One thing for the host to do, drained with `Engine.pollOutput` in causal order. */
export type Output =
  | {
      kind: "transmit";
      /** The connection. */
      conn: ConnId;
    }
  | {
      kind: "closeTransport";
      /** The connection. */
      conn: ConnId;
    }
  | { kind: "event" } & EngineEvent;

// -----------------------------------------------------------------------------------------------
// Configuration

/** How the editor's file system spells paths. JSON form: `"posix"` or `"windows"`. */
export type PathStyle = "posix" | "windows";

/** How the engine treats a second client connecting while one is already served. */
export type SessionPolicy = "multi" | "single";

/** Which ready clients receive `selection_changed` and `at_mentioned`. */
export type Routing = "broadcast" | "roots" | "chosen";

/**
 * The session a host picks (`Engine.chooseSession`): a connection, or the CLI process whose
 * `ide_connected` named this pid (a session that has not connected yet is chosen when it does:
 * `idelink claude` binds the child it starts).
 */
export type SessionChoice =
  | {
      by: "conn";
      /** The connection. */
      conn: ConnId;
    }
  | {
      by: "pid";
      /** The CLI's process id. */
      pid: number;
    };

/** Where a read tool's answer comes from. */
export type ReadSource = "state" | "editor";

/**
 * The {@link ReadSource} of each read tool. Default: every one from the state. JSON form:
 * `{"getDiagnostics": "editor"}` (camelCase tool names, every field optional, unknown fields
 * refused).
 */
export type ReadSources = {
  /** `getDiagnostics`. */
  getDiagnostics?: ReadSource;
  /** `getCurrentSelection`. */
  getCurrentSelection?: ReadSource;
  /** `getLatestSelection`. */
  getLatestSelection?: ReadSource;
  /** `getOpenEditors`. */
  getOpenEditors?: ReadSource;
  /** `getWorkspaceFolders`. */
  getWorkspaceFolders?: ReadSource;
  /** `checkDocumentDirty`. */
  checkDocumentDirty?: ReadSource;
};

/** Who we are, as answered in `initialize`'s `serverInfo`. */
export type ServerInfo = {
  /** The server's name (shown by MCP clients). */
  name: string;
  /** The server's version. */
  version: string;
};

/**
 * Limits and timers for a `ServerSocket`.
 *
 * Every limit bounds what a peer can make the server buffer; every timer is measured on the
 * host-supplied `Timestamp` clock.
 */
export type WsConfig = {
  /**
   * Largest data message accepted, in payload bytes summed over all its fragments. A frame whose
   * header would take the message past it fails the connection with 1009 before any of its payload
   * is buffered. Default 64 MiB: the CLI sends whole files in `openDiff` and caps its own inbound
   * messages at 16 MiB, so this admits those with room.
   */
  maxMessageBytes?: number;
  /**
   * Most frames one data message may span (the first frame plus its continuations); one more fails
   * the connection with 1009. Default 131 072: Autobahn's 9.x cases send 4 MiB in 64-byte fragments
   * (65 536 frames).
   */
  maxFragments?: number;
  /**
   * Receive silence, in milliseconds, after which a ping is sent. 0 sends no keepalive pings.
   * Default 30 000.
   */
  keepaliveIntervalMs?: number;
  /**
   * Milliseconds to wait, after a keepalive ping, for any byte from the peer; none by then means
   * the connection is half-open and the socket finishes with `Finished::KeepaliveTimeout`. Default
   * 10 000.
   */
  keepaliveTimeoutMs?: number;
  /**
   * Milliseconds to wait, after we sent a close frame, for the peer's close frame; none by then
   * finishes the socket with `Finished::CloseTimeout`. Default 5 000.
   */
  closeTimeoutMs?: number;
  /**
   * Whether binary data messages are delivered (`Message::Binary`). When false (the default: the
   * IDE protocol is text only) a binary frame fails the connection with 1003.
   */
  acceptBinary?: boolean;
};

/** Limits `parse` enforces on what a peer sends. */
export type RpcLimits = {
  /**
   * Deepest array/object nesting accepted in a message; `{}` is one level. Default 64: MCP messages
   * nest a handful of levels, and the layers above may parse `params` with recursive code that must
   * not be driven arbitrarily deep.
   */
  maxDepth?: number;
};

/**
 * Everything an `Engine` is configured with. `Config::new(port)` gives the defaults below; change
 * fields before handing it to `Engine::new`.
 *
 * The JSON form (used by the bindings and the transcript vectors) names fields in camelCase; every
 * field is optional and defaults as below, unknown fields are refused: `{"port": 40000,
 * "workspaceFolders": ["/w"], "sessionPolicy": "single", "ws": {"maxMessageBytes": 1048576},
 * "diffDeadlineMs": null}`.
 */
export type Config = {
  /** The loopback port the host listens on: the upgrade's `Host` must carry it. */
  port?: number;
  /** `serverInfo` in the `initialize` answer. Default: `idelink` and this crate's version. */
  serverInfo?: ServerInfo;
  /** The workspace folders (absolute paths) the editor serves. */
  workspaceFolders?: Array<string>;
  /** How the editor's paths are written. Default: POSIX. */
  pathStyle?: PathStyle;
  /**
   * Cap on the HTTP upgrade request head. Default 16 KiB: the CLI's request is about 400 bytes;
   * anything near the cap is not a Claude client.
   */
  maxHeadBytes?: number;
  /** Time from accept to a complete upgrade request. Default 10 s (slowloris defence). */
  handshakeTimeoutMs?: number;
  /** WebSocket limits and timers (message cap 64 MiB, keepalive 30 s, …). */
  ws?: WsConfig;
  /** JSON-RPC limits (nesting depth 64). */
  rpc?: RpcLimits;
  /**
   * Sessions (connections that passed the upgrade with the token) served at once; one more
   * authenticated upgrade is answered 503. Default 16: the CLI opens one per session, and a handful
   * of sessions is already unusual. Handshakes do not count here.
   */
  maxConnections?: number;
  /**
   * Connections still in the HTTP handshake at once. When one more is accepted, the oldest
   * handshake is answered 503 and closed. Default 8: the CLI sends its upgrade request as soon as
   * it connects, so a handful is plenty, and any local process can open idle sockets: they evict
   * one another and never take a session's slot. At least one handshake is always admitted.
   */
  maxHandshakes?: number;
  /**
   * Unsent bytes a connection may hold. Checked as each reply is queued: over it, the engine stops
   * serving that connection's input (it stays buffered) until `handle_sent` brings the buffer back
   * to the cap. A message the engine sends on its own to a connection already over the cap closes
   * it instead, dropping the backlog, and so does input held for a connection over the cap growing
   * past `ws.max_message_bytes`. Default 96 MiB: room for a 16 MiB file echoed back several times,
   * bounded all the same.
   */
  maxOutboundBytes?: number;
  /**
   * The largest WebSocket message (its payload: one JSON-RPC message) the engine sends a client.
   * The CLI 2.1.332 closes its connection on a bigger one, and the session with it (its bundled
   * code: `MCP server sent a WebSocket message over ${EMe/1024/1024} MiB. Claude Code did not read
   * it and closed the connection.`, `EMe=16777216`, checked as `Buffer.byteLength(message) > EMe`;
   * docs/protocol.md, "The CLI's inbound limit"). So nothing over it is sent: a tool's answer over
   * it becomes an error result (`getDiagnostics` a truncated answer that says so; an accepted
   * `openDiff` whose final text is the proposal unchanged, `TAB_CLOSED`, which the CLI reads as
   * that accept), any other reply a JSON-RPC error, and a notification is not sent; each is
   * reported as `EngineEvent::MessageTooLarge`. Default 16 MiB (16 777 216), the CLI's figure:
   * exactly that many bytes are sent.
   */
  maxClientMessageBytes?: number;
  /**
   * Tool requests one connection may have pending with the editor; one more is answered with
   * JSON-RPC error -32000. Default 64: the CLI waits for each diff it shows, and each pending
   * request holds its arguments.
   */
  maxPendingCalls?: number;
  /**
   * Bytes of text the tool requests of one connection pending with the editor may carry (a diff's
   * proposed contents, paths, code: what `ToolRequest::text_bytes` counts); a request that would
   * pass it is answered with JSON-RPC error -32000 and never reaches the editor. The editor holds
   * each pending proposal until it is answered, so the count cap alone lets one client pin
   * `maxPendingCalls` whole files. Default 64 MiB, the default `ws.max_message_bytes`: a connection
   * with nothing pending is always admitted one proposal as large as a message can be (the CLI's
   * own inbound limit is 16 MiB, but its `openDiff` carries a whole file). A replaced diff's bytes
   * are freed first.
   */
  maxPendingProposalBytes?: number;
  /**
   * `maxPendingProposalBytes` summed over every connection, the editor's whole budget; past it a
   * request gets JSON-RPC error -32000 as well. Default 128 MiB: two maximal proposals waiting at
   * once, from one session or two, and `maxConnections` clients cannot multiply the per-connection
   * budget.
   */
  maxTotalPendingProposalBytes?: number;
  /**
   * Open documents the editor state keeps; past it the least recently activated one (never the
   * active one) is forgotten. Default 4096: paths are not canonicalised, so a model opening one
   * file under many spellings adds a document per spelling.
   */
  maxDocuments?: number;
  /**
   * Diagnostic entries the editor state keeps, summed over files; past it the files replaced
   * longest ago are forgotten. Default 100 000: `getDiagnostics` renders them all.
   */
  maxDiagnostics?: number;
  /** Mentions kept while no client is ready; one more drops the oldest. Default 64. */
  maxQueuedMentions?: number;
  /** Multi (default) or single-session. */
  sessionPolicy?: SessionPolicy;
  /**
   * Time from `notifications/initialized` until the client counts as ready for notifications.
   * Default 500 ms: the CLI drops a push sent in the same instant and receives one sent 500 ms
   * later (docs/protocol.md §5).
   */
  readyDelayMs?: number;
  /**
   * How long after a client became ready the engine sends it the selection again, on gaps that
   * double from 500 ms (0.5, 1, 2, 4, 8 s: five repeats in the default), until the client's first
   * `tools/call`; a mention that waited for the client is held at most this long too. Default 16 s:
   * a CLI that starts slowly registers its handlers late and drops what came before
   * (docs/protocol.md §5); on two cores at load 20, four CLIs starting at once took up to a few
   * seconds. 0 turns the repeats off (mentions then go at ready).
   */
  startupWindowMs?: number;
  /** Trailing-edge debounce for `selection_changed`. Default 100 ms (peers use 50–300). */
  selectionDebounceMs?: number;
  /** How long an `at_mentioned` waits for a ready client before it is dropped. Default 30 s. */
  mentionTtlMs?: number;
  /**
   * Where each read tool is answered from: the engine's state (the default, fed by editor events)
   * or the editor, as a tool request answered with a typed outcome (pull). JSON: `"reads":
   * {"getDiagnostics": "editor"}`.
   */
  reads?: ReadSources;
  /**
   * Deadline for the editor to answer a tool request other than `openDiff` (pulled reads included);
   * the engine then answers an error for it (an error result; for a pulled read, JSON-RPC error
   * -32000). Default 60 s. `null`: wait forever. The CLI gives its own `getDiagnostics` calls 500
   * ms (before an edit) and 2 s (after): an editor that pulls diagnostics answers within that or is
   * not heard.
   */
  toolDeadlineMs?: number | null;
  /**
   * Deadline for the editor to answer `openDiff`; the engine then answers `DIFF_REJECTED`. Default
   * `null`: a diff waits for the user as long as it takes (the CLI waits too).
   */
  diffDeadlineMs?: number | null;
  /**
   * Advertise and serve `executeCode`. Default off; when on, every call is a tool request the
   * editor must confirm with the user.
   */
  executeCode?: boolean;
  /**
   * Which ready clients receive `selection_changed` and `at_mentioned`. Default broadcast: every
   * ready client.
   */
  routing?: Routing;
  /**
   * Keep the session list: ask each client that declares the `roots` capability for its folders
   * (`roots/list` after `notifications/initialized`, again on `notifications/roots/list_changed`)
   * and report every change of the list as `SessionsChanged`. Default off, so the wire and the
   * events stay as they were; a routing rule other than broadcast keeps the list whatever this
   * says.
   */
  sessionList?: boolean;
  /**
   * How long a `roots/list` may take before the engine stops waiting (the folders stay as they
   * were). Default 5 s: the CLI answers from memory at once.
   */
  rootsTimeoutMs?: number;
  /**
   * What may leave the engine about the editor: deny globs (on top of `DEFAULT_DENY`), the
   * workspace's ignore files, the sharing mode, the pause switch (docs/protocol.md, "Context
   * policy"). Change it at run time with `EditorEvent::PolicyChanged` or
   * `EditorEvent::SharingPaused`. JSON: `"policy": {"deny": ["secrets/"], "mode":
   * "selectionOnly"}`.
   */
  policy?: ContextPolicy;
  /**
   * Claude runs on another machine whose paths differ: `REMOTE=LOCAL` prefix pairs
   * (`/home/me/proj=/Users/me/proj`; idelink-core's `pathMap` module). The engine then speaks
   * claude's paths on the wire and the editor's at its API: tool requests reach the editor mapped,
   * and events, snapshots, pulled answers and these folders reach claude mapped. A path outside
   * every pair is refused (a request) or withheld (an event), never guessed; an entry that does not
   * parse refuses every path. Default: none (no mapping).
   */
  pathMap?: Array<string>;
  /**
   * The port of an `idelink bridge`'s loopback listener on claude's machine (`idelink serve
   * --remote`): its clients' bytes reach this engine unchanged through the remote link, so their
   * `Host` names that port, and is accepted as well as `port`. The token and every other rule are
   * checked as for a local socket. Default 0: none.
   */
  bridgePort?: number;
  /**
   * Keep the turn ledger (docs/protocol.md, "A turn's signals"): before answering the CLI's
   * pre-edit `getDiagnostics {uri}` the engine asks the host for the file's content
   * (`EngineEvent::LedgerRead`) and waits up to `ledgerReadDeadlineMs`. Default off: a host that
   * turns it on answers those reads. The ledger names the editor's paths (mapped back through
   * `pathMap` when one is set) and keeps only files inside the workspace folders: a file outside
   * either is left out (reported as `leftOut`), its call answered as without the ledger.
   */
  ledger?: boolean;
  /**
   * The most bytes of file text the ledger keeps over all turns; past it the oldest ended turns are
   * dropped (reported). Default 64 MiB: a 200-file turn of ordinary sources.
   */
  maxLedgerBytes?: number;
  /**
   * The most bytes of one file's text the ledger keeps; a bigger file is kept as its size and
   * digest (listed, not undoable). Default 8 MiB.
   */
  maxLedgerFileBytes?: number;
  /**
   * How long the pre-edit answer waits for the host's read of the file. Default 300 ms: the CLI
   * waits 500 ms and stops asking for the session after three timeouts in a row (its bundled code:
   * `consecutiveBaselineTimeouts>=Iit`, `Iit=3`), so the engine answers in time whatever the host
   * does.
   */
  ledgerReadDeadlineMs?: number;
};

// -----------------------------------------------------------------------------------------------
// The claude CLI's choice of IDE (discovery)

/**
 * The environment variables the CLI reads when it chooses an IDE, raw (`null`: unset). JSON form:
 * an object with the variables' own names, so `process.env` can be passed as it is (other variables
 * are ignored).
 */
export type ClaudeEnv = {
  /** `CLAUDE_CODE_AUTO_CONNECT_IDE`: a yes/no switch (`1 true yes on` / `0 false no off`). */
  CLAUDE_CODE_AUTO_CONNECT_IDE?: string | null;
  /** `CLAUDE_CODE_SSE_PORT`: the port whose lock matches whatever its folders. */
  CLAUDE_CODE_SSE_PORT?: string | null;
  /** `CLAUDE_CODE_IDE_SKIP_VALID_CHECK`: every lock matches. */
  CLAUDE_CODE_IDE_SKIP_VALID_CHECK?: string | null;
  /** `FORCE_CODE_TERMINAL`. */
  FORCE_CODE_TERMINAL?: string | null;
  /** `TERM_PROGRAM`. */
  TERM_PROGRAM?: string | null;
  /** `TERMINAL_EMULATOR`. */
  TERMINAL_EMULATOR?: string | null;
};

/**
 * A live lock (its pid alive, its body read), as far as choosing goes. JSON form:
 * `{"port":4242,"workspaceFolders":["/p"]}`.
 */
export type Candidate = {
  /** The port from the lock's file name. */
  port: number;
  /** The lock's `workspaceFolders`, in NFC. */
  workspaceFolders: Array<string>;
};

/**
 * How claude is started, as the editor knows it. JSON form (the wasm, Node and C faces):
 * `{"cwd":"/p/src","pathStyle":"posix","locks":[{"port":4242,"workspaceFolders":["/p"]}],
 * "env":{"CLAUDE_CODE_SSE_PORT":"4242"},"autoConnectConfig":false,"ideFlag":true}`; only `cwd` and
 * `locks` are required. Every path in NFC: the Node, wasm and C bindings normalize it; a Rust
 * caller normalizes first.
 */
export type ClaudeStart = {
  /** The folder claude starts in. */
  cwd: string;
  /** How the machine claude runs on spells paths (default POSIX). */
  pathStyle?: PathStyle;
  /** The live locks (their pid alive), as the lock folders hold them. */
  locks: Array<Candidate>;
  /** The environment claude starts with. */
  env?: ClaudeEnv;
  /** `autoConnectIde` in claude's global config (`~/.claude.json`). */
  autoConnectConfig?: boolean;
  /** claude is started with `--ide` (as `idelink claude` does). */
  ideFlag?: boolean;
};

/**
 * Why auto-connect is on. JSON form: `"ideFlag"`, `"ssePort"`, `"autoConnectEnv"`,
 * `"autoConnectConfig"`.
 */
export type AutoConnectReason = "ideFlag" | "ssePort" | "autoConnectEnv" | "autoConnectConfig";

/**
 * Whether the CLI looks for an IDE at start. JSON form: `{"state":"disabled"}`,
 * `{"state":"on","reason":"ideFlag"}`, `{"state":"notRequested"}`.
 */
export type AutoConnect =
  | { state: "disabled" }
  | {
      state: "on";
      /** The first reason that applies, in the CLI's order. */
      reason: AutoConnectReason;
    }
  | { state: "notRequested" };

/**
 * The CLI's choice among live locks for a cwd: a lock whose port is `CLAUDE_CODE_SSE_PORT` matches
 * whatever its folders; when exactly one lock has that port it alone is taken. Otherwise the locks
 * containing the cwd are counted, and only exactly one connects. JSON form:
 * `{"kind":"one","port":4242}`, `{"kind":"none"}`, `{"kind":"ambiguous","ports":[1,2]}`.
 */
export type LockChoice =
  | {
      kind: "one";
      /** Its port. */
      port: number;
    }
  | { kind: "none" }
  | {
      kind: "ambiguous";
      /** Their ports, in the candidates' order. */
      ports: Array<number>;
    };

/**
 * An IDE terminal the CLI detects. Inside one it takes a lock found by folder only when the lock's
 * `pid` is its parent or an ancestor (a lock whose port is `CLAUDE_CODE_SSE_PORT` is exempt). JSON
 * form: `"forced"`, `"vscode"`, `"jetbrains"`.
 */
export type IdeTerminal = "forced" | "vscode" | "jetbrains";

/**
 * What the CLI would do. JSON form: `{"autoConnect":{"state":"on","reason":"ideFlag"},
 * "choice":{"kind":"one","port":4242},"ideTerminal":null,"ancestorRule":false, "connectsTo":4242}`.
 */
export type Verdict = {
  /** Whether it looks for an IDE at start. */
  autoConnect: AutoConnect;
  /** The lock it takes. */
  choice: LockChoice;
  /** The IDE terminal it detects. */
  ideTerminal: IdeTerminal | null;
  /**
   * In that IDE terminal, with no `CLAUDE_CODE_SSE_PORT`: the chosen lock is taken only when its
   * `pid` is claude's parent or an ancestor (the editor's own terminal).
   */
  ancestorRule: boolean;
  /**
   * The port it connects to at start: auto-connect on and exactly one lock chosen (subject to
   * `ancestorRule`); `null` otherwise (`/ide` may still connect by hand).
   */
  connectsTo: number | null;
};

// -----------------------------------------------------------------------------------------------
// The remote link's news (core's forms codec; no serde type)

/** The bridge said who it is: its idelink version, its loopback port and pid, the far lock's folders. */
export type LinkHelloEvent = {
  event: "linkHello";
  binaryVersion: string;
  port: number | null;
  pid: number | null;
  folders: Array<string>;
  runningInWindows: boolean;
};

/**
 * The link ended. `fault`: `eof` (the bridge exited or its stream closed), `keepaliveTimeout`,
 * `peerFault` (the bridge said why: see `message`), `shutdown` (ended in order, by this side or
 * the bridge), `version` (another link version: install the same idelink on both sides),
 * `protocol` (the peer broke the framing). `message` is for a person and holds the far side's words: render it inert.
 */
export type LinkEndedEvent = {
  event: "linkEnded";
  fault: "eof" | "keepaliveTimeout" | "peerFault" | "shutdown" | "version" | "protocol";
  message: string;
};

/** The news of an attached remote link: its hello, then its end. */
export type LinkEvent = LinkHelloEvent | LinkEndedEvent;
