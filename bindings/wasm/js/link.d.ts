// The page side of the `idelink relay` link (`idelink-wasm/link`). Protocol: docs/relay.md.
import type {
  Config, EditorEvent, Engine, FileContent, FileWrite, InitInput, Output, ToolOutcome, Turn, UndoTarget,
} from './idelink_wasm.js';

/** An engine output that is an event for the editor (`{kind: 'event', event: 'toolCall', ...}`). */
export type EditorFacingEvent = Extract<Output, { kind: 'event' }>;

/** Why the link closed. */
export interface LinkClosed {
  /** The WebSocket close code (the relay's: 1001, 1008, 4000, 4001, 4002; or the browser's). */
  code: number;
  /** The close reason the relay gave, if any. */
  reason: string;
  /** What it means for the user, with what to do. */
  message: string;
}

/** The relay's welcome: how the engine is configured. */
export interface Welcome {
  type: 'welcome';
  /** The port claude connects to (the engine checks `Host` against it). */
  claudePort: number;
  /** The token of the lock file (the engine checks it on every claude upgrade). */
  authToken: string;
  /** The workspace folder (absolute, forward slashes). */
  workspace: string;
  /** The name claude shows. */
  ideName: string;
  /** The token a reload of this tab links again with (kept in `storage`). */
  resume: string;
}

export interface RelayLinkOptions {
  /** The link secret. Default: `secret` in this page's URL fragment (`#secret=<hex>`). */
  secret?: string;
  /** The link's WebSocket URL. Default: `link` in the URL fragment (a dev server's page), else `ws://<this page's host>/link` (the relay serves the page). */
  url?: string;
  /** The wasm module, as `init()` takes it (URL, Response, bytes). Default: next to the package's JS. */
  wasm?: InitInput | Promise<InitInput>;
  /** Engine configuration beyond what the relay sets (`port` and `workspaceFolders` come from it). */
  config?: Omit<Config, 'port' | 'workspaceFolders'>;
  /** Where the resume token is kept. Default: `sessionStorage` (one tab, survives reloads); `null`: nowhere. */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** Unsent link bytes (`bufferedAmount`) at which claude's answers are held in the engine. Default 4 MiB; resumes below half. */
  highWaterBytes?: number;
  /** Every engine event: `connected`, `sessionReady`, `toolCall` (answer it with `answer`), `toolCallCancelled`, `toolServed`, `messageTooLarge`, `contextWithheld`, `closed`; with `ledger: true` also `ledgerRead` (answer it with `ledgerRead`), `ledgerWrite` (carry it out, then `ledgerWritten`) and `turnChanged`. */
  onEvent?: (event: EditorFacingEvent) => void;
  /** The link closed (after `connect` resolved); every claude connection is closed with it. */
  onClose?: (closed: LinkClosed) => void;
  /** A problem the relay reports that answers no request (the lock file could not be written). */
  onError?: (message: string) => void;
  /** The monotonic clock in ms. Default: `performance.now()`. */
  now?: () => number;
  /** The WebSocket constructor. Default: the global one. */
  WebSocket?: { new (url: string): WebSocket };
}

/** Messages for the relay's own close codes (docs/relay.md). */
export const LINK_CLOSE_MESSAGES: Readonly<Record<number, string>>;

/** The link secret in a URL fragment `#secret=<hex>` (default: this page's), or null. */
export function secretFromHash(hash?: string): string | null;

/** The loopback link address in a URL fragment `&link=ws://127.0.0.1:<port>/link` (default: this page's), or null. */
export function linkFromHash(hash?: string): string | null;

/** One page's link to `idelink relay`, with the engine that serves claude through it. */
export class RelayLink {
  /**
   * Loads the engine, links to the relay and resolves once it welcomed this page. Rejects when
   * there is no secret, the engine does not load, or the relay refuses the link (the error says why).
   */
  static connect(options?: RelayLinkOptions): Promise<RelayLink>;
  private constructor();
  /** The engine (driven by the link: feed it through `editorEvent` and `answer`). */
  readonly engine: Engine;
  /** The relay's welcome. */
  readonly welcome: Welcome;
  /** Claude connections the relay holds for this page. */
  readonly connections: number;
  /** Whether claude's answers are held back because the browser's send buffer is full. */
  readonly paused: boolean;
  /** Feeds an editor event to the engine. Throws when the event is malformed. */
  editorEvent(event: EditorEvent): void;
  /** Answers tool request `id`. Throws when the id is unknown, answered or cancelled. */
  answer(id: number, outcome: ToolOutcome): void;
  /** The workspace's files, relative to its folder (at most 5,000; `truncated` when more exist). */
  listFiles(): Promise<{ files: string[]; truncated: boolean }>;
  /** A workspace file's text, by absolute or workspace-relative path; `path` comes back absolute. */
  readFile(path: string): Promise<{ path: string; text: string }>;
  /** What a workspace file holds, as the turn ledger takes it (for a `ledgerRead` event); rejects for a path outside the workspace. */
  readContent(path: string): Promise<{ path: string; content: FileContent }>;
  /** A `ledgerWrite` event's compare-and-write on disk: `conflict` says why nothing was written (null: it was). */
  writeFile(file: FileWrite): Promise<{ path: string; content: FileContent; conflict: string | null }>;
  /** The turn ledger (`ledger: true` in `config`), oldest turn first. */
  ledger(): Turn[];
  /** Answers a `ledgerRead` event. Throws for an unknown read. */
  ledgerRead(read: number, content: FileContent): void;
  /** Reports a `ledgerWrite` event carried out or refused: what the file holds now. Throws for an unknown write. */
  ledgerWritten(write: number, nowHolds: FileContent): void;
  /** Undoes a hunk, a file or a turn; the writes come as `ledgerWrite` events. Throws with the reason when refused. */
  ledgerUndo(target: UndoTarget): void;
  /** Closes the link. */
  close(): void;
}
