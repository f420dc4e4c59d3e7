//! The whole engine driven by an arbitrary sequence of host operations: accept, raw bytes, a
//! valid upgrade, client frames, JSON-RPC messages built from the CLI's own shapes, editor
//! events, tool outcomes, partial writes, timeouts and closes.
//!
//! Oracles, besides "no panic":
//! - the host API errs exactly on misuse: calls on a connection the engine has forgotten, an
//!   outcome for a tool call that is not pending, an outcome that does not fit its request;
//! - every `ToolCallCancelled` names a pending call, and when `Closed` is reported for a
//!   connection none of its calls is left pending;
//! - `Connected` and `Closed` come at most once per connection, `Transmit` only with bytes;
//! - everything the engine writes is a well-formed server stream (HTTP head, then unmasked
//!   minimal frames) and every text frame is one JSON-RPC 2.0 object;
//! - after `handle_timeout(now)` nothing is due at or before `now`.
#![no_main]

use arbitrary::Arbitrary;
use idelink_core::{
    Config, ConnId, EditorEvent, Engine, EngineError, EngineEvent, Output, ReadSource, ReadSources,
    SessionPolicy, Timestamp, ToolCallId, ToolOutcome, ToolRequest,
};
use idelink_fuzz::{PORT, ServerStream, client_frame, server_message, token, upgrade_request};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Bit 0 single-session, bit 1 executeCode, bit 2 a diff deadline, bit 3 tiny limits,
    /// bit 4 every read tool pulled from the editor (`Config::reads`).
    config: u8,
    ops: Vec<Op>,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Accept,
    /// A whole CLI handshake in one step: accept, upgrade, `initialize`,
    /// `notifications/initialized` (so deep states are one operation away).
    Session {
        version: u8,
    },
    /// A valid upgrade request (with an optional extra header line) on a connection.
    Upgrade {
        conn: u8,
        extra: Extra,
    },
    Bytes {
        conn: u8,
        bytes: Vec<u8>,
    },
    Frame {
        conn: u8,
        first: u8,
        mask: [u8; 4],
        payload: Vec<u8>,
    },
    Rpc {
        conn: u8,
        message: Rpc,
    },
    Editor(Editor),
    Outcome {
        call: u8,
        outcome: Outcome,
    },
    /// The host wrote `n` bytes (modulo what is buffered) of a connection's output.
    Sent {
        conn: u8,
        n: u16,
    },
    /// Toggles whether the host writes everything at once on `Transmit`.
    AutoWrite,
    Advance {
        ms: u16,
    },
    /// Time jumps to the next deadline, which fires.
    NextDeadline,
    Closed {
        conn: u8,
    },
    Close {
        conn: u8,
    },
    Shutdown,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Extra {
    None,
    Origin,
    WrongToken,
    Deflate,
    OtherHost,
}

#[derive(Arbitrary, Debug)]
enum Rpc {
    Initialize { version: u8 },
    Initialized,
    IdeConnected { pid: u32 },
    ToolsList { id: u8 },
    Ping { id: u8 },
    Call { id: u8, tool: Tool },
    Cancelled { id: u8 },
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum Tool {
    OpenDiff { path: u8, tab: u8, contents: String },
    CloseTab { tab: u8 },
    CloseAllDiffTabs,
    OpenFile { path: u8, frontmost: bool },
    SaveDocument { path: u8 },
    CheckDocumentDirty { path: u8 },
    GetDiagnostics { path: Option<u8> },
    GetCurrentSelection,
    GetOpenEditors,
    GetWorkspaceFolders,
    ExecuteCode { code: String },
    Unknown,
    WrongTypes,
}

#[derive(Arbitrary, Debug)]
enum Editor {
    Opened {
        path: u8,
        dirty: bool,
    },
    Closed {
        path: u8,
    },
    Activated {
        path: u8,
    },
    Selection {
        path: u8,
        text: String,
        line: u8,
        character: u8,
    },
    Diagnostics {
        path: u8,
        message: String,
    },
    Folders {
        path: u8,
    },
    Mention {
        path: u8,
        line: Option<u8>,
    },
    Dirty {
        path: u8,
        dirty: bool,
    },
    Saved {
        path: u8,
    },
}

#[derive(Arbitrary, Debug)]
enum Outcome {
    FileOpened,
    DiffSaved(String),
    /// An accept with the file's text the diff was made from.
    DiffSavedOver(String, String),
    DiffRejected,
    DiffRefused(String),
    DocumentSaved,
    CodeExecuted(Vec<String>),
    Failed(String),
    /// The answers to pulled reads.
    Diagnostics {
        path: u8,
        message: String,
        twice: bool,
    },
    Selection {
        path: u8,
        text: String,
        line: u8,
    },
    NoSelection,
    OpenEditors {
        path: u8,
        dirty: bool,
    },
    WorkspaceFolders {
        path: u8,
    },
    DocumentDirty(bool),
    DocumentNotOpen,
}

const PATHS: [&str; 8] = [
    "/w/a.rs",
    "/w/src/../../etc/passwd",
    "/w/nul\u{0}byte.rs",
    "/w/missing.rs",
    "/outside/link",
    "relative.rs",
    "C:\\w\\a.rs",
    "/w/ü €.rs",
];

fn path(i: u8) -> &'static str {
    PATHS[usize::from(i) % PATHS.len()]
}

fn tab(i: u8) -> String {
    format!("✻ [Claude Code] a.rs ({}) ⧉", i % 4)
}

impl Tool {
    fn call(&self) -> Value {
        let (name, args) = match self {
            Tool::OpenDiff {
                path: p,
                tab: t,
                contents,
            } => (
                "openDiff",
                json!({"old_file_path": path(*p), "new_file_path": path(*p),
                       "new_file_contents": contents, "tab_name": tab(*t)}),
            ),
            Tool::CloseTab { tab: t } => ("close_tab", json!({"tab_name": tab(*t)})),
            Tool::CloseAllDiffTabs => ("closeAllDiffTabs", json!({})),
            Tool::OpenFile { path: p, frontmost } => (
                "openFile",
                json!({"filePath": path(*p), "makeFrontmost": frontmost}),
            ),
            Tool::SaveDocument { path: p } => ("saveDocument", json!({"filePath": path(*p)})),
            Tool::CheckDocumentDirty { path: p } => {
                ("checkDocumentDirty", json!({"filePath": path(*p)}))
            }
            Tool::GetDiagnostics { path: Some(p) } => (
                "getDiagnostics",
                json!({"uri": format!("file://{}", path(*p))}),
            ),
            Tool::GetDiagnostics { path: None } => ("getDiagnostics", json!({})),
            Tool::GetCurrentSelection => ("getCurrentSelection", json!({})),
            Tool::GetOpenEditors => ("getOpenEditors", json!({})),
            Tool::GetWorkspaceFolders => ("getWorkspaceFolders", json!({})),
            Tool::ExecuteCode { code } => ("executeCode", json!({"code": code})),
            Tool::Unknown => ("noSuchTool", json!({})),
            Tool::WrongTypes => ("openDiff", json!({"old_file_path": 7, "tab_name": []})),
        };
        json!({"name": name, "arguments": args, "_meta": {"progressToken": 1}})
    }
}

impl Rpc {
    fn text(&self) -> String {
        let message = match self {
            Rpc::Initialize { version } => {
                let versions = ["2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01"];
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": versions[usize::from(*version) % versions.len()],
                    "capabilities": {"roots": {}},
                    "clientInfo": {"name": "claude-code", "version": "2.1.332"}}})
            }
            Rpc::Initialized => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            Rpc::IdeConnected { pid } => {
                json!({"jsonrpc": "2.0", "method": "ide_connected", "params": {"pid": pid}})
            }
            Rpc::ToolsList { id } => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
            Rpc::Ping { id } => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            Rpc::Call { id, tool } => {
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": tool.call()})
            }
            Rpc::Cancelled { id } => json!({"jsonrpc": "2.0",
                "method": "notifications/cancelled", "params": {"requestId": id}}),
            Rpc::Raw(text) => return text.clone(),
        };
        message.to_string()
    }
}

impl Editor {
    fn event(&self) -> EditorEvent {
        let value = match self {
            Editor::Opened { path: p, dirty } => {
                json!({"type": "documentOpened", "path": path(*p), "isDirty": dirty})
            }
            Editor::Closed { path: p } => json!({"type": "documentClosed", "path": path(*p)}),
            Editor::Activated { path: p } => {
                json!({"type": "documentActivated", "path": path(*p)})
            }
            Editor::Selection {
                path: p,
                text,
                line,
                character,
            } => json!({"type": "selectionChanged", "path": path(*p), "text": text,
                "selection": {"start": {"line": line, "character": 0},
                              "end": {"line": line, "character": character}}}),
            Editor::Diagnostics { path: p, message } => json!({"type": "diagnosticsChanged",
                "path": path(*p), "diagnostics": [{"message": message, "severity": "Error",
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}]}),
            Editor::Folders { path: p } => {
                json!({"type": "workspaceFoldersChanged", "folders": [path(*p)]})
            }
            Editor::Mention { path: p, line } => {
                json!({"type": "mention", "path": path(*p), "lineStart": line, "lineEnd": line})
            }
            Editor::Dirty { path: p, dirty } => {
                json!({"type": "documentDirtyChanged", "path": path(*p), "isDirty": dirty})
            }
            Editor::Saved { path: p } => json!({"type": "documentSaved", "path": path(*p)}),
        };
        serde_json::from_value(value).expect("the editor event JSON form")
    }
}

impl Outcome {
    fn outcome(&self) -> ToolOutcome {
        let value = match self {
            Outcome::FileOpened => json!({"outcome": "fileOpened"}),
            Outcome::DiffSaved(text) => json!({"outcome": "diffSaved", "finalText": text}),
            Outcome::DiffSavedOver(text, original) => {
                json!({"outcome": "diffSaved", "finalText": text, "originalText": original})
            }
            Outcome::DiffRejected => json!({"outcome": "diffRejected"}),
            Outcome::DiffRefused(reason) => json!({"outcome": "diffRefused", "reason": reason}),
            Outcome::DocumentSaved => json!({"outcome": "documentSaved"}),
            Outcome::CodeExecuted(outputs) => {
                json!({"outcome": "codeExecuted", "outputs": outputs})
            }
            Outcome::Failed(message) => json!({"outcome": "failed", "message": message}),
            Outcome::Diagnostics {
                path: p,
                message,
                twice,
            } => {
                let file = json!({"path": path(*p), "diagnostics": [{
                    "message": message,
                    "severity": "Error",
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                    "code": 7,
                }]});
                let files = if *twice {
                    vec![file.clone(), file]
                } else {
                    vec![file]
                };
                json!({"outcome": "diagnostics", "files": files})
            }
            Outcome::Selection {
                path: p,
                text,
                line,
            } => {
                let at = json!({"line": line, "character": 0});
                json!({"outcome": "selection", "path": path(*p), "text": text,
                       "selection": {"start": at, "end": at}})
            }
            Outcome::NoSelection => json!({"outcome": "noSelection"}),
            Outcome::OpenEditors { path: p, dirty } => json!({"outcome": "openEditors",
                "tabs": [{"path": path(*p), "languageId": "rust", "isDirty": dirty, "isActive": true}]}),
            Outcome::WorkspaceFolders { path: p } => {
                json!({"outcome": "workspaceFolders", "folders": [path(*p)]})
            }
            Outcome::DocumentDirty(dirty) => json!({"outcome": "documentDirty", "isDirty": dirty}),
            Outcome::DocumentNotOpen => json!({"outcome": "documentNotOpen"}),
        };
        serde_json::from_value(value).expect("the tool outcome JSON form")
    }

    /// Whether this outcome answers `request` (`failed` answers anything).
    fn fits(&self, request: &ToolRequest) -> bool {
        matches!(
            (self, request),
            (Outcome::Failed(_), _)
                | (Outcome::FileOpened, ToolRequest::OpenFile { .. })
                | (
                    Outcome::DiffSaved(_)
                        | Outcome::DiffSavedOver(..)
                        | Outcome::DiffRejected
                        | Outcome::DiffRefused(_),
                    ToolRequest::OpenDiff { .. }
                )
                | (Outcome::DocumentSaved, ToolRequest::SaveDocument { .. })
                | (Outcome::CodeExecuted(_), ToolRequest::ExecuteCode { .. })
                | (
                    Outcome::Diagnostics { .. },
                    ToolRequest::GetDiagnostics { .. }
                )
                | (
                    Outcome::Selection { .. } | Outcome::NoSelection,
                    ToolRequest::GetCurrentSelection | ToolRequest::GetLatestSelection
                )
                | (Outcome::OpenEditors { .. }, ToolRequest::GetOpenEditors)
                | (
                    Outcome::WorkspaceFolders { .. },
                    ToolRequest::GetWorkspaceFolders
                )
                | (
                    Outcome::DocumentDirty(_) | Outcome::DocumentNotOpen,
                    ToolRequest::CheckDocumentDirty { .. }
                )
        )
    }
}

/// The host around the engine, and the model the oracles check it against.
struct Harness {
    engine: Engine,
    now: u64,
    auto_write: bool,
    /// Every connection ever accepted, in order (ops pick among them, forgotten ones too).
    accepted: Vec<ConnId>,
    /// Connections the engine still knows (accepted, `handle_closed` not yet called).
    live: BTreeSet<ConnId>,
    connected: BTreeSet<ConnId>,
    closed: BTreeSet<ConnId>,
    streams: BTreeMap<ConnId, ServerStream>,
    /// Tool calls handed out and neither answered nor cancelled.
    pending: BTreeMap<ToolCallId, (ConnId, ToolRequest)>,
    /// Every tool call ever handed out.
    issued: Vec<ToolCallId>,
}

impl Harness {
    fn at(&self) -> Timestamp {
        Timestamp::from_millis(self.now)
    }

    /// A live connection, or (high bit set, or none live) any connection ever accepted, so
    /// that calls on forgotten connections are exercised too.
    fn pick(&self, i: u8) -> Option<ConnId> {
        let i = usize::from(i);
        if i & 0x80 == 0 && !self.live.is_empty() {
            return self.live.iter().nth(i % self.live.len()).copied();
        }
        (!self.accepted.is_empty()).then(|| self.accepted[i % self.accepted.len()])
    }

    /// Checks a host call's result against the model: it errs only for a forgotten connection.
    fn conn_result(&self, conn: ConnId, result: Result<(), EngineError>) {
        if self.live.contains(&conn) {
            assert_eq!(result, Ok(()), "{conn} is live");
        } else {
            assert_eq!(result, Err(EngineError::UnknownConnection(conn)));
        }
    }

    fn write(&mut self, conn: ConnId, n: usize) {
        let pending = self.engine.outbound(conn);
        let n = n.min(pending.len());
        let bytes = pending[..n].to_vec();
        let result = self.engine.handle_sent(conn, n);
        self.conn_result(conn, result);
        if n == 0 {
            return;
        }
        let stream = self.streams.entry(conn).or_default();
        for frame in stream.feed(&bytes) {
            if frame.opcode == 0x1 {
                server_message(&frame.payload);
            }
        }
    }

    fn drain(&mut self) {
        while let Some(output) = self.engine.poll_output() {
            match output {
                Output::Transmit { conn } => {
                    assert!(
                        !self.engine.outbound(conn).is_empty(),
                        "Transmit with nothing"
                    );
                    if self.auto_write {
                        self.write(conn, usize::MAX);
                    }
                }
                Output::CloseTransport { conn } => {
                    self.write(conn, usize::MAX);
                    let result = self.engine.handle_closed(self.at(), conn);
                    self.conn_result(conn, result);
                    self.live.remove(&conn);
                }
                Output::Event(event) => self.event(event),
                _ => {}
            }
        }
    }

    fn event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Connected { conn, .. } => {
                assert!(self.connected.insert(conn), "{conn} connected twice");
            }
            EngineEvent::Closed { conn, .. } => {
                assert!(self.closed.insert(conn), "{conn} closed twice");
                let left: Vec<_> = self.pending.values().filter(|(c, _)| *c == conn).collect();
                assert!(
                    left.is_empty(),
                    "{conn} closed with calls pending: {left:?}"
                );
            }
            EngineEvent::ToolCall {
                id, conn, request, ..
            } => {
                assert!(!self.closed.contains(&conn), "a call from closed {conn}");
                self.issued.push(id);
                assert!(self.pending.insert(id, (conn, request)).is_none());
            }
            EngineEvent::ToolCallCancelled { id, .. } => {
                assert!(
                    self.pending.remove(&id).is_some(),
                    "{id} cancelled, not pending"
                );
            }
            _ => {}
        }
    }

    fn run(&mut self, op: &Op) {
        let now = self.at();
        match op {
            Op::Accept => {
                let conn = self.engine.handle_accept(now);
                self.accepted.push(conn);
                self.live.insert(conn);
            }
            Op::Session { version } => {
                let conn = self.engine.handle_accept(now);
                self.accepted.push(conn);
                self.live.insert(conn);
                self.drain();
                let mut bytes = upgrade_request("");
                for message in [Rpc::Initialize { version: *version }, Rpc::Initialized] {
                    bytes.extend(client_frame(0x81, [9, 8, 7, 6], message.text().as_bytes()));
                }
                let result = self.engine.handle_bytes(now, conn, &bytes);
                self.conn_result(conn, result);
            }
            Op::Upgrade { conn, extra } => {
                let extra = match extra {
                    Extra::None => "",
                    Extra::Origin => "Origin: null\r\n",
                    Extra::WrongToken => "X-Claude-Code-Ide-Authorization: x\r\n",
                    Extra::Deflate => "Sec-WebSocket-Extensions: permessage-deflate\r\n",
                    Extra::OtherHost => "Host: evil.example\r\n",
                };
                self.bytes(*conn, &upgrade_request(extra));
            }
            Op::Bytes { conn, bytes } => self.bytes(*conn, bytes),
            Op::Frame {
                conn,
                first,
                mask,
                payload,
            } => self.bytes(*conn, &client_frame(*first, *mask, payload)),
            Op::Rpc { conn, message } => {
                let text = message.text();
                self.bytes(*conn, &client_frame(0x81, [1, 2, 3, 4], text.as_bytes()));
            }
            Op::Editor(editor) => self.engine.handle_editor_event(now, &editor.event()),
            Op::Outcome { call, outcome } => {
                let Some(&id) = self
                    .issued
                    .get(usize::from(*call) % self.issued.len().max(1))
                else {
                    return;
                };
                let result = self.engine.handle_tool_outcome(now, id, &outcome.outcome());
                match self.pending.get(&id) {
                    None => assert_eq!(result, Err(EngineError::UnknownToolCall(id))),
                    Some((_, request)) if outcome.fits(request) => {
                        assert_eq!(result, Ok(()));
                        self.pending.remove(&id);
                    }
                    Some(_) => assert!(matches!(result, Err(EngineError::OutcomeMismatch(..)))),
                }
            }
            Op::Sent { conn, n } => {
                if let Some(conn) = self.pick(*conn) {
                    self.write(conn, usize::from(*n));
                }
            }
            Op::AutoWrite => self.auto_write = !self.auto_write,
            Op::Advance { ms } => self.now += u64::from(*ms),
            Op::NextDeadline => {
                if let Some(at) = self.engine.poll_timeout() {
                    self.now = self.now.max(at.as_millis());
                }
                let now = self.at();
                self.engine.handle_timeout(now);
                self.drain();
                if let Some(next) = self.engine.poll_timeout() {
                    assert!(
                        next > now,
                        "{next:?} still due after handle_timeout({now:?})"
                    );
                }
            }
            Op::Closed { conn } => {
                if let Some(conn) = self.pick(*conn) {
                    let result = self.engine.handle_closed(now, conn);
                    self.conn_result(conn, result);
                    self.live.remove(&conn);
                }
            }
            Op::Close { conn } => {
                if let Some(conn) = self.pick(*conn) {
                    let result = self.engine.close(now, conn);
                    self.conn_result(conn, result);
                }
            }
            Op::Shutdown => self.engine.shutdown(now),
        }
        self.drain();
    }

    fn bytes(&mut self, conn: u8, bytes: &[u8]) {
        if let Some(conn) = self.pick(conn) {
            let result = self.engine.handle_bytes(self.at(), conn, bytes);
            self.conn_result(conn, result);
        }
    }
}

fn config(bits: u8) -> Config {
    let mut config = Config::new(PORT);
    config.workspace_folders = vec!["/w".to_owned()];
    if bits & 1 != 0 {
        config.session_policy = SessionPolicy::Single;
    }
    config.execute_code = bits & 2 != 0;
    if bits & 4 != 0 {
        config.diff_deadline_ms = Some(1_000);
    }
    if bits & 8 != 0 {
        config.max_connections = 2;
        config.max_outbound_bytes = 4_096;
        config.ws.max_message_bytes = 1_024;
        config.ws.max_fragments = 4;
        config.rpc.max_depth = 4;
        // Small byte budgets for pending calls, so refusals, replacements freeing their bytes
        // and answers freeing theirs all happen within a few hundred-byte messages.
        config.max_pending_proposal_bytes = 256;
        config.max_total_pending_proposal_bytes = 384;
    }
    if bits & 16 != 0 {
        config.reads = ReadSources::all(ReadSource::Editor);
    }
    config
}

fuzz_target!(|input: Input| {
    let mut harness = Harness {
        engine: Engine::new(config(input.config), token()),
        now: 0,
        auto_write: true,
        accepted: Vec::new(),
        live: BTreeSet::new(),
        connected: BTreeSet::new(),
        closed: BTreeSet::new(),
        streams: BTreeMap::new(),
        pending: BTreeMap::new(),
        issued: Vec::new(),
    };
    for op in input.ops.iter().take(256) {
        harness.run(op);
    }
    // Every connection closed by the host ends with no call of it pending.
    let now = harness.at();
    for conn in harness.live.clone() {
        assert_eq!(harness.engine.handle_closed(now, conn), Ok(()));
        harness.live.remove(&conn);
        harness.drain();
    }
    assert!(
        harness.pending.is_empty(),
        "calls left pending: {:?}",
        harness.pending
    );
});
