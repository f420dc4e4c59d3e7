//! # idelink-core
//!
//! A sans-IO engine for the *IDE side* of the Claude Code IDE protocol: the loopback
//! WebSocket server, speaking MCP over JSON-RPC 2.0, that the `claude` CLI connects to in
//! order to see the editor (selection, open files, diagnostics) and to show its edits as
//! reviewable diffs. The wire contract is `docs/protocol.md` in the repository; every rule the
//! real CLI depends on is enforced and tested here.
//!
//! The engine consumes **bytes** (HTTP upgrade, RFC 6455 frames, JSON-RPC) and **editor
//! events**, and emits **bytes** and **tool requests**. It has no sockets, threads, clocks
//! or randomness: time and the auth token are handed in, so it runs the same on a native
//! host, in Node through napi and in a browser through wasm.
//!
//! ## The run loop
//!
//! A host owns the listening socket, the lock file and the clock. After *every* input it
//! drains [`Engine::poll_output`] until `None`, then sleeps until the next I/O or
//! [`Engine::poll_timeout`]:
//!
//! ```
//! use idelink_core::{AuthToken, Config, Engine, EngineEvent, Output, Timestamp};
//!
//! let token = AuthToken::from_entropy([7; 16]); // a host mints it from OS randomness
//! let mut engine = Engine::new(Config::new(54321), token);
//!
//! // The host accepted a socket and read its first bytes.
//! let now = Timestamp::from_millis(0);
//! let conn = engine.handle_accept(now);
//! engine.handle_bytes(now, conn, b"GET / HTTP/1.1\r\nHost: 127.0.0.1:54321\r\n\r\n")?;
//!
//! while let Some(output) = engine.poll_output() {
//!     match output {
//!         Output::Transmit { conn } => {
//!             let bytes = engine.outbound(conn);
//!             let written = bytes.len(); // socket.write(bytes) in a real host
//!             engine.handle_sent(conn, written)?;
//!         }
//!         Output::CloseTransport { conn } => {
//!             // flush what `engine.outbound(conn)` still holds, close the socket, then:
//!             engine.handle_closed(now, conn)?;
//!         }
//!         Output::Event(EngineEvent::ToolCall { id, request, .. }) => {
//!             // show the diff, open the file…; later: engine.handle_tool_outcome(now, id, &outcome)
//!             let _ = (id, request);
//!         }
//!         Output::Event(_) => {}
//!         _ => {}
//!     }
//! }
//! // No token: refused with 401 and closed.
//! # Ok::<(), idelink_core::EngineError>(())
//! ```
//!
//! Inputs, each carrying `now`:
//! - [`Engine::handle_accept`] — a transport connection was accepted; returns its [`ConnId`].
//! - [`Engine::handle_bytes`] — bytes arrived on a connection.
//! - [`Engine::handle_closed`] — the transport ended (EOF, error, or the close the engine
//!   asked for). Always call it once per connection when its socket is gone.
//! - [`Engine::handle_sent`] — the host wrote a prefix of [`Engine::outbound`]. When that
//!   brings a connection back under `max_outbound_bytes`, the input it held is served, so
//!   outputs may follow: keep draining `poll_output`.
//! - [`Engine::handle_editor_event`] — an [`EditorEvent`]: documents, selection,
//!   diagnostics, workspace folders, an explicit mention.
//! - [`Engine::handle_snapshot`] — the editor's whole visible state at once (a per-frame
//!   [`snapshot::Snapshot`]); its difference from the previous one acts as the equivalent events.
//! - [`Engine::handle_tool_outcome`] — the editor finished a tool request: a write tool, or a
//!   read tool that [`Config::reads`] pulls from the editor instead of answering it from the
//!   editor events (see [`ReadSources`]).
//! - [`Engine::handle_timeout`] — the deadline from [`Engine::poll_timeout`] came.
//! - [`Engine::close`] / [`Engine::shutdown`] — the host wants connections closed.
//!
//! Outputs ([`Output`]): `Transmit` (a connection's outbound buffer became non-empty: write
//! it, partially if the socket is full, and report what went), `CloseTransport`, and
//! [`EngineEvent`]s: `Connected`, `SessionReady`, `ToolCall` (a [`ToolRequest`] the editor must
//! carry out and answer), `ToolCallCancelled`, `ToolServed`, `Closed`.
//!
//! ## Time
//!
//! [`Timestamp`] is the host's monotonic clock in milliseconds. The engine never reads a
//! clock; a timestamp smaller than one seen before counts as the one seen before. Tests drive
//! the engine on virtual time.
//!
//! ## Errors and panics
//!
//! Bad input from a peer is answered on the wire (an HTTP 4xx, a WebSocket close code, a
//! JSON-RPC error) and reported as an event; it never returns `Err` and never panics.
//! [`EngineError`] means the host misused the API (an unknown connection, a tool call
//! answered twice), and the call that returns it leaves the engine unchanged. A panic is a bug.
//!
//! ## Security
//!
//! - A client gets the WebSocket upgrade only with the right token in
//!   `x-claude-code-ide-authorization` (compared in constant time; 401 otherwise), no `Origin`
//!   header (403: browsers always send one, the CLI never does) and a `Host` that names a
//!   loopback address with the configured port (403: DNS rebinding).
//! - Everything a peer controls is capped (see Limits); over a cap the peer gets an answer
//!   (431, 503, close 1009, JSON-RPC error -32000) and no allocation was made for the excess.
//!   What the editor feeds the engine (documents, diagnostics, mentions) is capped too: the
//!   state keeps the most recent part, which is neither an error nor a panic.
//! - `executeCode` is neither advertised nor served unless [`Config::execute_code`] is set,
//!   and then each call is a tool request the editor must confirm.
//! - The engine never claims a diff was saved unless the editor said so (a deadline or a
//!   closed tab answers `DIFF_REJECTED`).
//! - [`AuthToken`] and the lock file model redact the token in `Debug` output.
//! - Nothing about a file the context policy denies ([`Config::policy`]) leaves the engine:
//!   not its name, not its text, in no push and no read answer (a property test feeds random
//!   editors, policies and clients and searches every byte sent).
//!
//! ## Limits and defaults ([`Config`])
//!
//! | limit | default | why |
//! |---|---|---|
//! | `max_head_bytes` | 16 KiB | the CLI's upgrade request is ~400 bytes |
//! | `handshake_timeout_ms` | 10 s | slowloris |
//! | `ws.max_message_bytes` | 64 MiB | `openDiff` carries a whole file; the CLI caps at 16 MiB |
//! | `ws.max_fragments` | 131 072 | bounds per-fragment work; admits 4 MiB in 64-byte fragments |
//! | `ws.keepalive_interval_ms` / `ws.keepalive_timeout_ms` | 30 s / 10 s | half-open detection; the CLI sends no keepalive |
//! | `ws.close_timeout_ms` | 5 s | a peer that never answers our close |
//! | `rpc.max_depth` | 64 | JSON nesting |
//! | `max_connections` | 16 | authenticated sessions (one per CLI session); one more upgrade gets 503 |
//! | `max_handshakes` | 8 | sockets still in the HTTP handshake; one more evicts the oldest (503, closed), so idle sockets never keep claude out |
//! | `max_outbound_bytes` | 96 MiB | checked as each reply is queued: over it the connection's input waits until the host writes it back under; a client that does not read is closed |
//! | `max_client_message_bytes` | 16 MiB | the CLI closes its connection on a bigger message: an answer over it becomes an error (a truncated `getDiagnostics`), a push over it is not sent |
//! | `max_pending_calls` | 64 | tool requests pending with the editor per connection; one more gets JSON-RPC error -32000 |
//! | `max_pending_proposal_bytes` | 64 MiB | text the tool requests pending with the editor carry, per connection (the editor holds each proposal until it answers); one request past it gets JSON-RPC error -32000; admits one proposal as large as `ws.max_message_bytes` |
//! | `max_total_pending_proposal_bytes` | 128 MiB | the same summed over every connection (two maximal proposals), so many clients cannot multiply the per-connection budget |
//! | `max_documents` | 4096 | open documents kept (paths are not canonicalised); the least recently activated is forgotten |
//! | `max_diagnostics` | 100 000 | diagnostic entries kept over all files; the files replaced longest ago are forgotten |
//! | `max_queued_mentions` | 64 | mentions waiting for a ready client; the oldest is dropped |
//! | `ready_delay_ms` | 500 ms | the CLI drops pushes sent as it initializes |
//! | `startup_window_ms` | 16 s | after ready, the selection is sent again (0.5, 1, 2, 4, 8 s later) until the client's first `tools/call`, and a mention that waited is held until 4× the CLI's connect pace (at least 1.5 s) after its `tools/list`: a CLI that starts slowly registers its handlers late (engine/push_schedule.rs) |
//! | `selection_debounce_ms` | 100 ms | trailing edge |
//! | `mention_ttl_ms` | 30 s | a mention waits this long for a client |
//! | `tool_deadline_ms` | 60 s | a silent editor (an error result; a pulled read gets JSON-RPC error -32000); `openDiff` has none by default |
//! | `roots_timeout_ms` | 5 s | a client that never answers the engine's `roots/list` (its folders stay unknown); asked only with `session_list` or a routing rule |
//! | [`MAX_SESSION_ROOTS`](engine::MAX_SESSION_ROOTS) | 64 | folders kept of one `roots/list` answer (the CLI sends its project and `--add-dir` folders) |
//! | `policy` | deny `.env*`, `*.pem`, `*.key`, `id_*`, `.git/`; `everything`; not paused | what may leave the engine about the editor ([`policy`]); its own limits: [`policy::REPORT_INTERVAL_MS`] (1 s between withheld reports), [`policy::MAX_REPORTED_PATHS`] (16 a report), [`policy::MAX_CACHED_VERDICTS`] (8192) |
//!
//! ## Layers
//!
//! Bottom to top, each usable and tested alone: `json` (the one JSON scanner, string decoder
//! and escaper, RFC 8259; crate-private) → [`http`] (upgrade) → [`ws`] (RFC 6455 server
//! codec) → [`rpc`] (JSON-RPC 2.0 envelope) → [`mcp`] (session) → [`ide`] (tools, one module
//! each, editor state, result shapes, paths) → [`engine`] (connections, routing, timers); [`lockfile`] is the
//! lock file model, with no file system; [`host_rules`] are the hosts' rules that need no system
//! call (socket pump policy, lock directories, the lock file's life); [`discovery`] is the
//! `claude` CLI's own choice of IDE (which lock it connects to, and whether it looks at all).
//! [`policy`] is the context policy every push and read answer passes (deny globs and ignore
//! files with git's semantics, the sharing mode, the pause), called from the engine's push and
//! answer paths.
//! [`link`] is the framing of the stream to an `idelink bridge` on another machine (SSH, a
//! container, WSL): connections of raw bytes with per-connection credit and a keepalive, which
//! a host hands to the engine as accepted sockets.
//! [`path_map`] maps paths between claude's machine and the editor's (`REMOTE=LOCAL`
//! prefixes), at the engine's edges when [`Config::path_map`] is set.
//! [`forms`] is the one codec of the JSON forms the faces hand in and get back (config, events,
//! snapshots, outcomes, outputs), on `json`, without serde, held to the serde forms by property
//! tests: every binding reads and writes them through it.
//!
//! Helpers every embedder needs, pure functions outside the engine: [`terminal_env`] (the
//! variables a terminal exports so `claude` connects to the editor's port) and [`language`]
//! (a VS Code language id from a file name).

pub mod discovery;
pub mod engine;
pub mod forms;
pub mod host_rules;
pub mod http;
pub mod ide;
mod json;
pub mod language;
pub mod ledger;
pub mod link;
pub mod lockfile;
pub mod mcp;
pub mod path_map;
pub mod policy;
pub mod rpc;
mod sha1;
pub mod snapshot;
pub mod terminal_env;
pub mod time;
pub mod token;
#[cfg(feature = "ts")]
mod ts;
pub mod ws;

#[expect(
    deprecated,
    reason = "the 0.1.0 name, re-exported for code written against it"
)]
pub use engine::Event;
pub use engine::{
    CancelReason, CloseReason, Config, ConnId, Engine, EngineError, EngineEvent, Output,
    SentInstead, SessionPolicy, ToolCallId,
};
pub use engine::{Routing, SessionChoice, SessionInfo};
pub use ide::{EditorEvent, ToolOutcome, ToolRequest};
pub use ide::{ReadSource, ReadSources};
pub use policy::{ContextPolicy, SharingMode};
pub use snapshot::{EditorSnapshot, Snapshot, SnapshotChanges};
pub use time::Timestamp;
pub use token::AuthToken;
