//! Engine configuration: every limit a peer could push against, every timer, every policy.

use super::sessions::Routing;
use crate::http::DEFAULT_MAX_HEAD_BYTES;
use crate::ide::{PathStyle, ReadSources};
use crate::mcp::ServerInfo;
use crate::policy::ContextPolicy;
use crate::rpc::RpcLimits;
use crate::ws::WsConfig;
use serde::{Deserialize, Serialize};

/// How the engine treats a second client connecting while one is already served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SessionPolicy {
    /// Serve every client at once; notifications go to every ready client.
    #[default]
    Multi,
    /// One client at a time: when a newer client completes `initialize`, the older one is
    /// closed with code 4001 and the reason the CLI reads as "do not reconnect"
    /// (docs/protocol.md §2).
    Single,
}

/// Everything an [`Engine`](crate::Engine) is configured with. `Config::new(port)` gives the
/// defaults below; change fields before handing it to `Engine::new`.
///
/// The JSON form (used by the bindings and the transcript vectors) names fields in camelCase;
/// every field is optional and defaults as below, unknown fields are refused:
/// `{"port": 40000, "workspaceFolders": ["/w"], "sessionPolicy": "single", "ws":
/// {"maxMessageBytes": 1048576}, "diffDeadlineMs": null}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Config {
    /// The loopback port the host listens on: the upgrade's `Host` must carry it.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub port: u16,
    /// `serverInfo` in the `initialize` answer. Default: `idelink` and this crate's version.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub server_info: ServerInfo,
    /// The workspace folders (absolute paths) the editor serves.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub workspace_folders: Vec<String>,
    /// How the editor's paths are written. Default: POSIX.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub path_style: PathStyle,
    /// Cap on the HTTP upgrade request head. Default 16 KiB: the CLI's request is about 400
    /// bytes; anything near the cap is not a Claude client.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_head_bytes: usize,
    /// Time from accept to a complete upgrade request. Default 10 s (slowloris defence).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub handshake_timeout_ms: u64,
    /// WebSocket limits and timers (message cap 64 MiB, keepalive 30 s, …).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ws: WsConfig,
    /// JSON-RPC limits (nesting depth 64).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub rpc: RpcLimits,
    /// Sessions (connections that passed the upgrade with the token) served at once; one
    /// more authenticated upgrade is answered 503. Default 16: the CLI opens one per session,
    /// and a handful of sessions is already unusual. Handshakes do not count here.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_connections: usize,
    /// Connections still in the HTTP handshake at once. When one more is accepted, the
    /// oldest handshake is answered 503 and closed. Default 8: the CLI sends its upgrade
    /// request as soon as it connects, so a handful is plenty, and any local process can open
    /// idle sockets: they evict one another and never take a session's slot. At least one
    /// handshake is always admitted.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_handshakes: usize,
    /// Unsent bytes a connection may hold. Checked as each reply is queued: over it, the
    /// engine stops serving that connection's input (it stays buffered) until
    /// `handle_sent` brings the buffer back to the cap. A message the engine sends on its own
    /// to a connection already over the cap closes it instead, dropping the backlog, and so
    /// does input held for a connection over the cap growing past `ws.max_message_bytes`.
    /// Default 96 MiB: room for a 16 MiB file echoed back several times, bounded all the same.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_outbound_bytes: usize,
    /// The largest WebSocket message (its payload: one JSON-RPC message) the engine sends a
    /// client. The CLI 2.1.332 closes its connection on a bigger one, and the session with it
    /// (its bundled code: `MCP server sent a WebSocket message over ${EMe/1024/1024} MiB.
    /// Claude Code did not read it and closed the connection.`, `EMe=16777216`, checked as
    /// `Buffer.byteLength(message) > EMe`; docs/protocol.md, "The CLI's inbound limit"). So
    /// nothing over it is sent: a tool's answer over it becomes an error result
    /// (`getDiagnostics` a truncated answer that says so; an accepted `openDiff` whose final
    /// text is the proposal unchanged, `TAB_CLOSED`, which the CLI reads as that accept), any
    /// other reply a JSON-RPC error, and a notification is not sent; each is reported as
    /// [`EngineEvent::MessageTooLarge`](crate::EngineEvent::MessageTooLarge). Default 16 MiB (16 777 216),
    /// the CLI's figure: exactly that many bytes are sent.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_client_message_bytes: usize,
    /// Tool requests one connection may have pending with the editor; one more is answered
    /// with JSON-RPC error -32000. Default 64: the CLI waits for each diff it shows, and each
    /// pending request holds its arguments.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_pending_calls: usize,
    /// Bytes of text the tool requests of one connection pending with the editor may carry
    /// (a diff's proposed contents, paths, code: what
    /// [`ToolRequest::text_bytes`](crate::ide::ToolRequest::text_bytes) counts); a request
    /// that would pass it is answered with JSON-RPC error -32000 and never reaches the editor.
    /// The editor holds each pending proposal until it is answered, so the count cap alone
    /// lets one client pin `max_pending_calls` whole files. Default 64 MiB, the default
    /// `ws.max_message_bytes`: a connection with nothing pending is always admitted one
    /// proposal as large as a message can be (the CLI's own inbound limit is 16 MiB, but its
    /// `openDiff` carries a whole file). A replaced diff's bytes are freed first.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_pending_proposal_bytes: usize,
    /// [`max_pending_proposal_bytes`](Self::max_pending_proposal_bytes) summed over every
    /// connection, the editor's whole budget; past it a request gets JSON-RPC error -32000 as
    /// well. Default 128 MiB: two maximal proposals waiting at once, from one session or two,
    /// and `max_connections` clients cannot multiply the per-connection budget.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_total_pending_proposal_bytes: usize,
    /// Open documents the editor state keeps; past it the least recently activated one
    /// (never the active one) is forgotten. Default 4096: paths are not canonicalised, so a
    /// model opening one file under many spellings adds a document per spelling.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_documents: usize,
    /// Diagnostic entries the editor state keeps, summed over files; past it the files
    /// replaced longest ago are forgotten. Default 100 000: `getDiagnostics` renders them all.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_diagnostics: usize,
    /// Mentions kept while no client is ready; one more drops the oldest. Default 64.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_queued_mentions: usize,
    /// Multi (default) or single-session.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub session_policy: SessionPolicy,
    /// Time from `notifications/initialized` until the client counts as ready for
    /// notifications. Default 500 ms: the CLI drops a push sent in the same instant and
    /// receives one sent 500 ms later (docs/protocol.md §5).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ready_delay_ms: u64,
    /// How long after a client became ready the engine sends it the selection again, on gaps
    /// that double from 500 ms (0.5, 1, 2, 4, 8 s: five repeats in the default), until the
    /// client's first `tools/call`; a mention that waited for the client is held at most this
    /// long too. Default 16 s: a CLI that starts slowly registers its handlers late and drops
    /// what came before (docs/protocol.md §5); on two cores at load 20, four CLIs starting at
    /// once took up to a few seconds. 0 turns the repeats off (mentions then go at ready).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub startup_window_ms: u64,
    /// Trailing-edge debounce for `selection_changed`. Default 100 ms (peers use 50–300).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub selection_debounce_ms: u64,
    /// How long an `at_mentioned` waits for a ready client before it is dropped. Default 30 s.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub mention_ttl_ms: u64,
    /// Where each read tool is answered from: the engine's state (the default, fed by editor
    /// events) or the editor, as a tool request answered with a typed outcome (pull). JSON:
    /// `"reads": {"getDiagnostics": "editor"}`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub reads: ReadSources,
    /// Deadline for the editor to answer a tool request other than `openDiff` (pulled reads
    /// included); the engine then answers an error for it (an error result; for a pulled
    /// read, JSON-RPC error -32000). Default 60 s. `None`: wait forever.
    /// The CLI gives its own `getDiagnostics` calls 500 ms (before an edit) and 2 s (after):
    /// an editor that pulls diagnostics answers within that or is not heard.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub tool_deadline_ms: Option<u64>,
    /// Deadline for the editor to answer `openDiff`; the engine then answers `DIFF_REJECTED`.
    /// Default `None`: a diff waits for the user as long as it takes (the CLI waits too).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub diff_deadline_ms: Option<u64>,
    /// Advertise and serve `executeCode`. Default off; when on, every call is a tool request
    /// the editor must confirm with the user.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub execute_code: bool,
    /// Which ready clients receive `selection_changed` and `at_mentioned`. Default
    /// broadcast: every ready client.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub routing: Routing,
    /// Keep the session list: ask each client that declares the `roots` capability for its
    /// folders (`roots/list` after `notifications/initialized`, again on
    /// `notifications/roots/list_changed`) and report every change of the list as
    /// `SessionsChanged`. Default off, so the wire and the events stay as they were; a
    /// routing rule other than broadcast keeps the list whatever this says.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub session_list: bool,
    /// How long a `roots/list` may take before the engine stops waiting (the folders stay as
    /// they were). Default 5 s: the CLI answers from memory at once.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub roots_timeout_ms: u64,
    /// What may leave the engine about the editor: deny globs (on top of
    /// [`DEFAULT_DENY`](crate::policy::DEFAULT_DENY)), the workspace's ignore files, the sharing
    /// mode, the pause switch (docs/protocol.md, "Context policy"). Change it at run time with
    /// [`EditorEvent::PolicyChanged`](crate::EditorEvent::PolicyChanged) or
    /// [`EditorEvent::SharingPaused`](crate::EditorEvent::SharingPaused). JSON:
    /// `"policy": {"deny": ["secrets/"], "mode": "selectionOnly"}`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub policy: ContextPolicy,
    /// Claude runs on another machine whose paths differ: `REMOTE=LOCAL` prefix pairs
    /// (`/home/me/proj=/Users/me/proj`; idelink-core's `path_map` module). The engine then speaks
    /// claude's paths on the wire and the editor's at its API: tool requests reach the editor
    /// mapped, and events, snapshots, pulled answers and these folders reach claude mapped. A
    /// path outside every pair is refused (a request) or withheld (an event), never guessed;
    /// an entry that does not parse refuses every path. Default: none (no mapping).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub path_map: Vec<String>,
    /// The port of an `idelink bridge`'s loopback listener on claude's machine (`idelink serve
    /// --remote`): its clients' bytes reach this engine unchanged through the remote link, so
    /// their `Host` names that port, and is accepted as well as [`port`](Self::port). The token
    /// and every other rule are checked as for a local socket. Default 0: none.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub bridge_port: u16,
    /// Keep the turn ledger (docs/protocol.md, "A turn's signals"): before answering the
    /// CLI's pre-edit `getDiagnostics {uri}` the engine asks the host for the file's content
    /// ([`EngineEvent::LedgerRead`](crate::EngineEvent::LedgerRead)) and waits up to
    /// `ledger_read_deadline_ms`. Default off: a host that turns it on answers those reads.
    /// The ledger names the editor's paths (mapped back through [`path_map`](Self::path_map)
    /// when one is set) and keeps only files inside the workspace folders: a file outside
    /// either is left out (reported as `leftOut`), its call answered as without the ledger.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ledger: bool,
    /// The most bytes of file text the ledger keeps over all turns; past it the oldest ended
    /// turns are dropped (reported). Default 64 MiB: a 200-file turn of ordinary sources.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_ledger_bytes: usize,
    /// The most bytes of one file's text the ledger keeps; a bigger file is kept as its size
    /// and digest (listed, not undoable). Default 8 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_ledger_file_bytes: usize,
    /// How long the pre-edit answer waits for the host's read of the file. Default 300 ms:
    /// the CLI waits 500 ms and stops asking for the session after three timeouts in a row
    /// (its bundled code: `consecutiveBaselineTimeouts>=Iit`, `Iit=3`), so the engine
    /// answers in time whatever the host does.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub ledger_read_deadline_ms: u64,
}

impl Default for Config {
    /// The defaults, with port 0 (set it before use).
    fn default() -> Self {
        Config::new(0)
    }
}

impl Config {
    /// The default [`max_connections`](Self::max_connections), for hosts that offer it as a
    /// setting (`idelink serve --max-connections`).
    pub const DEFAULT_MAX_CONNECTIONS: usize = 16;

    /// The CLI's own inbound WebSocket message limit (2.1.332: 16 MiB; 2.1.112 run by Node:
    /// the `ws` package's 100 MiB), the default
    /// [`max_client_message_bytes`](Self::max_client_message_bytes): the smaller one.
    pub const CLI_MAX_MESSAGE_BYTES: usize = 16 << 20;

    /// True when the engine keeps the session list ([`session_list`](Self::session_list), or
    /// a routing rule other than broadcast).
    pub fn keeps_session_list(&self) -> bool {
        self.session_list || self.routing != Routing::Broadcast
    }

    /// Parses the JSON form, filling in defaults; the error names the offending field.
    pub fn from_json(json: &str) -> Result<Config, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The defaults for an endpoint listening on `port`.
    pub fn new(port: u16) -> Self {
        Config {
            port,
            server_info: ServerInfo {
                name: "idelink".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            workspace_folders: Vec::new(),
            path_style: PathStyle::Posix,
            max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
            handshake_timeout_ms: 10_000,
            ws: WsConfig::default(),
            rpc: RpcLimits::default(),
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            max_handshakes: 8,
            max_outbound_bytes: 96 << 20,
            max_client_message_bytes: Self::CLI_MAX_MESSAGE_BYTES,
            max_pending_calls: 64,
            max_pending_proposal_bytes: 64 << 20,
            max_total_pending_proposal_bytes: 128 << 20,
            max_documents: 4096,
            max_diagnostics: 100_000,
            max_queued_mentions: 64,
            session_policy: SessionPolicy::Multi,
            ready_delay_ms: 500,
            startup_window_ms: 16_000,
            selection_debounce_ms: 100,
            mention_ttl_ms: 30_000,
            reads: ReadSources::default(),
            tool_deadline_ms: Some(60_000),
            diff_deadline_ms: None,
            execute_code: false,
            routing: Routing::Broadcast,
            session_list: false,
            roots_timeout_ms: 5_000,
            policy: ContextPolicy::default(),
            path_map: Vec::new(),
            bridge_port: 0,
            ledger: false,
            max_ledger_bytes: 64 << 20,
            max_ledger_file_bytes: 8 << 20,
            ledger_read_deadline_ms: 300,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_fills_defaults_and_refuses_unknown_fields() {
        let config = Config::from_json(
            r#"{"port":40000,"sessionPolicy":"single","ws":{"maxMessageBytes":1024},"diffDeadlineMs":5}"#,
        )
        .unwrap();
        assert_eq!(config.port, 40000);
        assert_eq!(config.session_policy, SessionPolicy::Single);
        assert_eq!(config.ws.max_message_bytes, 1024);
        assert_eq!(
            config.ws.keepalive_interval_ms,
            WsConfig::default().keepalive_interval_ms
        );
        assert_eq!(config.diff_deadline_ms, Some(5));
        assert_eq!(config.tool_deadline_ms, Some(60_000));
        assert_eq!(config.server_info.name, "idelink");
        let err = Config::from_json(r#"{"prot":1}"#).unwrap_err().to_string();
        assert!(err.contains("unknown field `prot`"), "{err}");
        let none = Config::from_json(r#"{"toolDeadlineMs":null}"#).unwrap();
        assert_eq!(none.tool_deadline_ms, None);
    }

    #[test]
    fn reads_default_to_the_state_and_pull_per_tool() {
        use crate::ide::{ReadSource, ToolName};
        assert_eq!(Config::new(1).reads, ReadSources::all(ReadSource::State));
        let config =
            Config::from_json(r#"{"reads":{"getDiagnostics":"editor","getOpenEditors":"state"}}"#)
                .unwrap();
        for tool in ToolName::ALL {
            let expected = if tool == ToolName::GetDiagnostics {
                ReadSource::Editor
            } else {
                ReadSource::State
            };
            assert_eq!(config.reads.source(tool), expected, "{}", tool.as_str());
        }
        let err = Config::from_json(r#"{"reads":{"openDiff":"editor"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `openDiff`"), "{err}");
        let err = Config::from_json(r#"{"reads":{"getDiagnostics":"lsp"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `lsp`"), "{err}");
    }
}
