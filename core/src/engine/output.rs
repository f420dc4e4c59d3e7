//! What the engine hands back to the host: outputs, events and their ids.

use super::sessions::SessionInfo;
use crate::ide::{ToolName, ToolRequest};
use crate::ledger::{FileWrite, TurnChange};
use crate::mcp::ClientInfo;
use serde::Serialize;
use std::fmt;

/// One transport connection, numbered by the engine from 1 in accept order. Never reused.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConnId(pub(crate) u64);

impl ConnId {
    /// The number (for logs and for bindings, which carry ids as numbers).
    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// The id with this number, as returned earlier by [`as_u64`](Self::as_u64).
    pub fn from_u64(n: u64) -> Self {
        ConnId(n)
    }
}

impl fmt::Display for ConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "conn#{}", self.0)
    }
}

/// One tool request handed to the editor, numbered by the engine from 1. Never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ToolCallId(pub(crate) u64);

impl ToolCallId {
    /// The number (for logs and bindings).
    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// The id with this number, as returned earlier by [`as_u64`](Self::as_u64).
    pub fn from_u64(n: u64) -> Self {
        ToolCallId(n)
    }
}

impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call#{}", self.0)
    }
}

/// One thing for the host to do, drained with [`Engine::poll_output`](crate::Engine::poll_output)
/// in causal order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum Output {
    /// The connection has bytes to write: write what the socket takes of
    /// [`Engine::outbound`](crate::Engine::outbound) and report it with
    /// [`Engine::handle_sent`](crate::Engine::handle_sent). Emitted once when the outbound
    /// buffer goes from empty to non-empty; the host keeps writing until it is empty.
    Transmit {
        /// The connection.
        conn: ConnId,
    },
    /// Write what remains in the connection's outbound buffer (best effort, bounded by the
    /// host's own deadline), then close the transport. The engine has forgotten the
    /// connection except for those bytes; they stay readable until `handle_sent` drains them or
    /// `handle_closed` is called.
    CloseTransport {
        /// The connection.
        conn: ConnId,
    },
    /// Something the editor should know or do.
    Event(EngineEvent),
}

/// The 0.1.0 name of [`EngineEvent`], kept so that code written for 0.1 still compiles. The
/// concept has one name in every face: `EngineEvent` in Rust, in TypeScript (`protocol.d.ts`;
/// `Event` is the DOM's there) and in the docs; C gets it as the `event_json` of an
/// `IDELINK_OUTPUT_EVENT` output.
#[deprecated(
    note = "renamed `EngineEvent`: one name in Rust, TypeScript, C and the docs \
                     (TypeScript cannot use `Event`, the DOM's)"
)]
pub type Event = EngineEvent;

/// Something that happened that the editor should know about or act on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "event"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum EngineEvent {
    /// A client completed the WebSocket upgrade with the right token.
    Connected {
        /// The connection.
        conn: ConnId,
        /// The client's `User-Agent` (`claude-code/<version> …` for the CLI).
        user_agent: Option<String>,
    },
    /// The client finished the MCP handshake and the readiness delay passed: it now receives
    /// notifications (the current selection was just sent to it).
    SessionReady {
        /// The connection.
        conn: ConnId,
        /// `clientInfo` and the negotiated protocol version.
        client: ClientInfo,
        /// The CLI's process id from its `ide_connected` notification, if it sent one.
        client_pid: Option<u32>,
    },
    /// The editor must carry out this request and answer it with
    /// [`Engine::handle_tool_outcome`](crate::Engine::handle_tool_outcome).
    ToolCall {
        /// Quote it in the answer.
        id: ToolCallId,
        /// The client that asked.
        conn: ConnId,
        /// What to do.
        request: ToolRequest,
        /// The request's file (`openFile`'s, either of `openDiff`'s) is one the context policy
        /// denies ([`Config::policy`](crate::Config::policy)): the editor and the user decide,
        /// and the review can say so. Left out of the JSON form when false.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        context_denied: bool,
    },
    /// A request handed out earlier no longer needs an answer: close its diff view, stop
    /// what it started. An outcome reported for it now is an error.
    ToolCallCancelled {
        /// The request.
        id: ToolCallId,
        /// Why.
        reason: CancelReason,
    },
    /// The editor accepted an `openDiff` (its
    /// [`ToolOutcome::DiffSaved`](crate::ToolOutcome::DiffSaved) was answered `FILE_SAVED`):
    /// the CLI now writes `text` to `path`, exactly these bytes once it has (its rules for the
    /// byte-order mark, line endings and final newline for the client's release applied:
    /// [`written_text`](crate::ide::written_text);
    /// it writes after its own `getDiagnostics` of the file, moments later). Replace the
    /// document's buffer with `text` and mark it clean; a file watcher's change to these
    /// bytes is this write, not a conflict. Not emitted for an accept that changes nothing
    /// (answered as a refusal), nor when the editor saved the file while the diff was pending
    /// (`documentSaved`, `documentDirtyChanged` to clean, a snapshot showing it clean): the
    /// CLI then refuses the write, or replaces its old text within what was saved, so reload
    /// the file from disk.
    FileReplaced {
        /// The `openDiff` request that was accepted.
        id: ToolCallId,
        /// The file (the request's `new_file_path`).
        path: String,
        /// Its text once the CLI wrote it.
        text: String,
    },
    /// The engine served a read tool (or `close_tab`, `closeAllDiffTabs`) itself, from the
    /// editor state. For status displays and logs; nothing to do.
    ToolServed {
        /// The client that asked.
        conn: ConnId,
        /// The tool.
        tool: ToolName,
    },
    /// A message for a client was over
    /// [`Config::max_client_message_bytes`](crate::Config::max_client_message_bytes), which
    /// the CLI closes its connection on (docs/protocol.md, "The CLI's inbound limit"): it was
    /// not sent, and `sent` says what went in its place. The session stays up.
    MessageTooLarge {
        /// The client it was for; absent for a notification meant for every ready client.
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        conn: Option<ConnId>,
        /// What it was: the tool whose answer it was (`openDiff`, `getDiagnostics`, …), the
        /// notification's method (`selection_changed`, `at_mentioned`), or `response` for a
        /// reply to any other request.
        message: String,
        /// Its size: the bytes of the JSON-RPC message (the WebSocket message's payload).
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        bytes: u64,
        /// What was sent instead.
        sent: SentInstead,
    },
    /// The session list changed ([`Engine::sessions`](crate::Engine::sessions)): a client
    /// became ready or left, its folders came from `roots/list`, or the choice changed
    /// ([`Engine::choose_session`](crate::Engine::choose_session)). `sessions` is the new list.
    SessionsChanged {
        /// Every ready session, oldest first.
        sessions: Vec<SessionInfo>,
    },
    /// The context policy ([`Config::policy`](crate::Config::policy)) kept something from
    /// the clients: a push (`selection_changed` of a denied file or one the sharing mode does
    /// not share, an `at_mentioned` while paused or of a denied file) or what a read answer
    /// would have said. For the editor's status line; reported at most once a second
    /// ([`REPORT_INTERVAL_MS`](crate::policy::REPORT_INTERVAL_MS)).
    ContextWithheld {
        /// Pushes withheld since the engine started.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        pushes: u64,
        /// Read answers that left something out, since the engine started.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        reads: u64,
        /// The files withheld since the previous report (normalized), in the order first
        /// withheld, at most [`MAX_REPORTED_PATHS`](crate::policy::MAX_REPORTED_PATHS).
        paths: Vec<String>,
        /// Files withheld since the previous report beyond `paths`.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        more_paths: u64,
    },
    /// The turn ledger ([`Config::ledger`](crate::Config::ledger)) needs what `path` holds
    /// now: answer with [`Engine::handle_ledger_read`](crate::Engine::handle_ledger_read),
    /// at once (a baseline read holds the CLI's pre-edit call until it is answered, or until
    /// `ledger_read_deadline_ms`).
    LedgerRead {
        /// Quote it in the answer.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        read: u64,
        /// The file (normalized).
        path: String,
    },
    /// An undo asks the host to write a file: only when it still holds `file.expected`
    /// (compare-and-write; never overwrite a newer change), then answer with
    /// [`Engine::handle_ledger_written`](crate::Engine::handle_ledger_written) and what the
    /// file holds now. An editor edits its buffer and saves; `serve` writes the file.
    LedgerWrite {
        /// Quote it in the answer.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        write: u64,
        /// What to write, and what must be there.
        file: FileWrite,
    },
    /// The turn ledger grew or shrank: a turn started or ended, a file joined one, its hunks
    /// changed, turns were dropped for the budget.
    TurnChanged {
        /// What changed.
        change: TurnChange,
    },
    /// The connection is gone (or was refused); its pending requests were cancelled first.
    Closed {
        /// The connection.
        conn: ConnId,
        /// Why.
        reason: CloseReason,
    },
}

/// Why a tool request was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum CancelReason {
    /// The client sent `close_tab` or `closeAllDiffTabs` for a pending diff (it was answered
    /// `DIFF_REJECTED`); typically the user answered in the terminal.
    ClosedByClient,
    /// The client sent a new `openDiff` with the same tab name.
    Replaced,
    /// The client sent `notifications/cancelled` for it.
    CancelledByClient,
    /// The client's connection closed.
    ClientGone,
    /// The editor did not answer within the deadline; the engine answered for it.
    DeadlineExpired,
}

/// What the engine sent in place of a message over the client's limit
/// ([`EngineEvent::MessageTooLarge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum SentInstead {
    /// An error saying so: an error result (`isError`) for a tool's answer, a JSON-RPC error
    /// (-32000) for any other reply.
    Error,
    /// `getDiagnostics`: the diagnostics that fit, and a second text item saying how many
    /// were left out.
    Truncated,
    /// An accepted `openDiff` whose final text is the proposal unchanged: `TAB_CLOSED`, which
    /// the CLI reads as exactly that accept (it writes the proposal).
    TabClosed,
    /// Nothing: a notification is dropped (the client keeps what it had), and so is a reply
    /// whose request id alone is over the limit.
    Nothing,
}

impl SentInstead {
    /// The JSON form's name (`error`, `truncated`, `tabClosed`, `nothing`).
    pub fn as_str(self) -> &'static str {
        match self {
            SentInstead::Error => "error",
            SentInstead::Truncated => "truncated",
            SentInstead::TabClosed => "tabClosed",
            SentInstead::Nothing => "nothing",
        }
    }
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum CloseReason {
    /// The upgrade request was refused with this HTTP status.
    UpgradeRejected {
        /// The HTTP status sent.
        status: u16,
        /// What was wrong.
        detail: String,
    },
    /// No complete upgrade request within the handshake deadline.
    HandshakeTimeout,
    /// An authenticated upgrade while `max_connections` sessions are served; refused with 503.
    TooManyConnections,
    /// Still in the HTTP handshake when `max_handshakes` newer connections arrived; answered
    /// 503 and closed.
    HandshakeEvicted,
    /// The client closed the WebSocket (close frame received and answered).
    PeerClosed {
        /// The client's close code, if it sent one.
        code: Option<u16>,
        /// The client's reason text.
        reason: String,
    },
    /// The client broke the WebSocket protocol; the engine closed with this code.
    ProtocolViolation {
        /// The close code sent (1002, 1003, 1007, 1009, …).
        code: u16,
        /// The rule broken.
        detail: String,
    },
    /// No frame from the client after a keepalive ping (half-open connection).
    KeepaliveTimeout,
    /// The client did not answer our close frame in time.
    CloseTimeout,
    /// A newer client took over (single-session policy); closed with 4001.
    Superseded,
    /// The client did not read its answers: the outbound buffer passed its cap.
    OutboundOverflow,
    /// The host closed the connection (`Engine::close`), or the engine shut down.
    ClosedByHost,
    /// The host reported end of stream or a socket error.
    TransportClosed,
}

impl fmt::Display for CancelReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CancelReason::ClosedByClient => "the client closed the diff (answered elsewhere)",
            CancelReason::Replaced => "replaced by a newer proposal for the same tab",
            CancelReason::CancelledByClient => "the client cancelled the request",
            CancelReason::ClientGone => "the client disconnected",
            CancelReason::DeadlineExpired => "the editor did not answer in time",
        })
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::UpgradeRejected { status, detail } => {
                write!(f, "upgrade refused with {status}: {detail}")
            }
            CloseReason::HandshakeTimeout => f.write_str("no upgrade request in time"),
            CloseReason::TooManyConnections => f.write_str("too many connections"),
            CloseReason::HandshakeEvicted => {
                f.write_str("evicted by newer connections while in the handshake")
            }
            CloseReason::PeerClosed { code: None, .. } => f.write_str("closed by the client"),
            CloseReason::PeerClosed {
                code: Some(code),
                reason,
            } if reason.is_empty() => write!(f, "closed by the client ({code})"),
            CloseReason::PeerClosed {
                code: Some(code),
                reason,
            } => write!(f, "closed by the client ({code}: {reason})"),
            CloseReason::ProtocolViolation { code, detail } => {
                write!(f, "protocol violation, closed with {code}: {detail}")
            }
            CloseReason::KeepaliveTimeout => f.write_str("no answer to the keepalive ping"),
            CloseReason::CloseTimeout => f.write_str("no answer to our close frame"),
            CloseReason::Superseded => f.write_str("a newer client took over (4001)"),
            CloseReason::OutboundOverflow => f.write_str("the client does not read its answers"),
            CloseReason::ClosedByHost => f.write_str("closed by the host"),
            CloseReason::TransportClosed => f.write_str("connection lost"),
        }
    }
}
