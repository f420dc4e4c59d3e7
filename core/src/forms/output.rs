//! The output forms: `Output` (tagged by `kind`) with its `EngineEvent` (tagged by `event`),
//! `ToolRequest` (tagged by `tool`), `CloseReason` (tagged by `kind`), `CancelReason`, and
//! `SnapshotChanges`, written as serde_json writes their serde forms: absent options `null`,
//! except a request's, which are left out.

use super::host::write_strings;
use super::write::Object;
use crate::SnapshotChanges;
use crate::engine::{CancelReason, CloseReason, EngineEvent, Output, SessionChoice, SessionInfo};
use crate::ide::ToolRequest;
use crate::json::{push_string, push_u64};
use crate::ledger::{ChangedBy, FileContent, FileWrite, TurnChange};
use crate::mcp::ClientInfo;

/// An `Output` in its JSON form.
pub(super) fn output(out: &mut Vec<u8>, output: &Output) {
    let o = Object::new(out);
    match output {
        Output::Transmit { conn } => o.str("kind", "transmit").u64("conn", conn.as_u64()),
        Output::CloseTransport { conn } => {
            o.str("kind", "closeTransport").u64("conn", conn.as_u64())
        }
        Output::Event(event) => event_members(o.str("kind", "event"), event),
    }
    .end();
}

/// An `EngineEvent` in its JSON form (what the C host queues).
pub(super) fn event(out: &mut Vec<u8>, event: &EngineEvent) {
    event_members(Object::new(out), event).end();
}

fn event_members<'o>(o: Object<'o>, event: &EngineEvent) -> Object<'o> {
    match event {
        EngineEvent::Connected { conn, user_agent } => o
            .str("event", "connected")
            .u64("conn", conn.as_u64())
            .nullable("userAgent", user_agent.as_deref(), push_string),
        EngineEvent::SessionReady {
            conn,
            client,
            client_pid,
        } => o
            .str("event", "sessionReady")
            .u64("conn", conn.as_u64())
            .with("client", |out| client_info(out, client))
            .nullable("clientPid", *client_pid, |out, pid| {
                push_u64(out, pid.into())
            }),
        EngineEvent::ToolCall {
            id,
            conn,
            request,
            context_denied,
        } => {
            let o = o
                .str("event", "toolCall")
                .u64("id", id.as_u64())
                .u64("conn", conn.as_u64())
                .with("request", |out| tool_request(out, request));
            // Left out when false (`skip_serializing_if`).
            if *context_denied {
                o.bool("contextDenied", true)
            } else {
                o
            }
        }
        EngineEvent::ToolCallCancelled { id, reason } => o
            .str("event", "toolCallCancelled")
            .u64("id", id.as_u64())
            .str("reason", cancel_reason(*reason)),
        EngineEvent::FileReplaced { id, path, text } => o
            .str("event", "fileReplaced")
            .u64("id", id.as_u64())
            .str("path", path)
            .str("text", text),
        EngineEvent::ToolServed { conn, tool } => o
            .str("event", "toolServed")
            .u64("conn", conn.as_u64())
            .str("tool", tool.as_str()),
        EngineEvent::MessageTooLarge {
            conn,
            message,
            bytes,
            sent,
        } => o
            .str("event", "messageTooLarge")
            .nullable("conn", conn.map(|conn| conn.as_u64()), push_u64)
            .str("message", message)
            .u64("bytes", *bytes)
            .str("sent", sent.as_str()),
        EngineEvent::SessionsChanged { sessions } => o
            .str("event", "sessionsChanged")
            .with("sessions", |out| session_list(out, sessions)),
        EngineEvent::ContextWithheld {
            pushes,
            reads,
            paths,
            more_paths,
        } => o
            .str("event", "contextWithheld")
            .u64("pushes", *pushes)
            .u64("reads", *reads)
            .with("paths", |out| write_strings(out, paths))
            .u64("morePaths", *more_paths),
        EngineEvent::LedgerRead { read, path } => o
            .str("event", "ledgerRead")
            .u64("read", *read)
            .str("path", path),
        EngineEvent::LedgerWrite { write, file } => o
            .str("event", "ledgerWrite")
            .u64("write", *write)
            .with("file", |out| file_write(out, file)),
        EngineEvent::TurnChanged { change } => o
            .str("event", "turnChanged")
            .with("change", |out| turn_change(out, change)),
        EngineEvent::Closed { conn, reason } => o
            .str("event", "closed")
            .u64("conn", conn.as_u64())
            .with("reason", |out| close_reason(out, reason)),
    }
}

/// The session list (`Engine::sessions`) in its JSON form.
pub(super) fn session_list(out: &mut Vec<u8>, sessions: &[SessionInfo]) {
    out.push(b'[');
    for (i, session) in sessions.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        Object::new(out)
            .u64("conn", session.conn.as_u64())
            .nullable("pid", session.pid, |out, pid| push_u64(out, pid.into()))
            .nullable("folders", session.folders.as_deref(), write_strings)
            .u64("connectedAt", session.connected_at)
            .bool("chosen", session.chosen)
            .end();
    }
    out.push(b']');
}

fn client_info(out: &mut Vec<u8>, client: &ClientInfo) {
    Object::new(out)
        .str("name", &client.name)
        .str("version", &client.version)
        .str("protocolVersion", client.protocol_version)
        .end();
}

fn tool_request(out: &mut Vec<u8>, request: &ToolRequest) {
    let o = Object::new(out);
    match request {
        ToolRequest::OpenFile {
            path,
            preview,
            start_text,
            end_text,
            select_to_end_of_line,
            make_frontmost,
        } => o
            .str("tool", "openFile")
            .str("path", path)
            .bool("preview", *preview)
            .some_str("startText", start_text.as_deref())
            .some_str("endText", end_text.as_deref())
            .bool("selectToEndOfLine", *select_to_end_of_line)
            .bool("makeFrontmost", *make_frontmost),
        ToolRequest::OpenDiff {
            old_file_path,
            new_file_path,
            new_file_contents,
            tab_name,
            dirty,
        } => {
            let o = o
                .str("tool", "openDiff")
                .str("oldFilePath", old_file_path)
                .str("newFilePath", new_file_path)
                .str("newFileContents", new_file_contents)
                .str("tabName", tab_name);
            // Left out when false (`skip_serializing_if = "is_false"`).
            if *dirty { o.bool("dirty", true) } else { o }
        }
        ToolRequest::SaveDocument { path } => o.str("tool", "saveDocument").str("path", path),
        ToolRequest::ExecuteCode { code } => o.str("tool", "executeCode").str("code", code),
        ToolRequest::GetDiagnostics { path } => o
            .str("tool", "getDiagnostics")
            .some_str("path", path.as_deref()),
        ToolRequest::GetCurrentSelection => o.str("tool", "getCurrentSelection"),
        ToolRequest::GetLatestSelection => o.str("tool", "getLatestSelection"),
        ToolRequest::GetOpenEditors => o.str("tool", "getOpenEditors"),
        ToolRequest::GetWorkspaceFolders => o.str("tool", "getWorkspaceFolders"),
        ToolRequest::CheckDocumentDirty { path } => {
            o.str("tool", "checkDocumentDirty").str("path", path)
        }
    }
    .end();
}

fn cancel_reason(reason: CancelReason) -> &'static str {
    match reason {
        CancelReason::ClosedByClient => "closedByClient",
        CancelReason::Replaced => "replaced",
        CancelReason::CancelledByClient => "cancelledByClient",
        CancelReason::ClientGone => "clientGone",
        CancelReason::DeadlineExpired => "deadlineExpired",
    }
}

fn close_reason(out: &mut Vec<u8>, reason: &CloseReason) {
    match reason {
        CloseReason::UpgradeRejected { status, detail } => Object::new(out)
            .str("kind", "upgradeRejected")
            .u64("status", *status)
            .str("detail", detail),
        CloseReason::HandshakeTimeout => Object::new(out).str("kind", "handshakeTimeout"),
        CloseReason::TooManyConnections => Object::new(out).str("kind", "tooManyConnections"),
        CloseReason::HandshakeEvicted => Object::new(out).str("kind", "handshakeEvicted"),
        CloseReason::PeerClosed { code, reason } => Object::new(out)
            .str("kind", "peerClosed")
            .nullable("code", *code, |out, code| push_u64(out, code.into()))
            .str("reason", reason),
        CloseReason::ProtocolViolation { code, detail } => Object::new(out)
            .str("kind", "protocolViolation")
            .u64("code", *code)
            .str("detail", detail),
        CloseReason::KeepaliveTimeout => Object::new(out).str("kind", "keepaliveTimeout"),
        CloseReason::CloseTimeout => Object::new(out).str("kind", "closeTimeout"),
        CloseReason::Superseded => Object::new(out).str("kind", "superseded"),
        CloseReason::OutboundOverflow => Object::new(out).str("kind", "outboundOverflow"),
        CloseReason::ClosedByHost => Object::new(out).str("kind", "closedByHost"),
        CloseReason::TransportClosed => Object::new(out).str("kind", "transportClosed"),
    }
    .end();
}

/// `SnapshotChanges` in its JSON form.
pub(super) fn snapshot_changes(out: &mut Vec<u8>, changes: &SnapshotChanges) {
    Object::new(out)
        .bool("documents", changes.documents)
        .bool("active", changes.active)
        .bool("diagnostics", changes.diagnostics)
        .bool("workspaceFolders", changes.workspace_folders)
        .end();
}

/// A session choice in its JSON form (`Engine::session_choice`).
pub(super) fn session_choice(out: &mut Vec<u8>, choice: &SessionChoice) {
    let o = Object::new(out);
    match choice {
        SessionChoice::Conn { conn } => o.str("by", "conn").u64("conn", conn.as_u64()),
        SessionChoice::Pid { pid } => o.str("by", "pid").u64("pid", *pid),
    }
    .end();
}

/// A ledger `FileContent`, tagged by `kind`.
pub(super) fn file_content(out: &mut Vec<u8>, content: &FileContent) {
    let o = Object::new(out);
    match content {
        FileContent::Text { text } => o.str("kind", "text").str("text", text),
        FileContent::Binary { bytes, digest } => o
            .str("kind", "binary")
            .u64("bytes", *bytes)
            .str("digest", digest),
        FileContent::Large { bytes, digest } => o
            .str("kind", "large")
            .u64("bytes", *bytes)
            .str("digest", digest),
        FileContent::Missing => o.str("kind", "missing"),
        FileContent::Unread { reason } => o.str("kind", "unread").str("reason", reason),
        FileContent::Outside { reason } => o.str("kind", "outside").str("reason", reason),
    }
    .end();
}

fn file_write(out: &mut Vec<u8>, file: &FileWrite) {
    Object::new(out)
        .u64("turn", file.turn.as_u64())
        .str("path", &file.path)
        .with("expected", |out| file_content(out, &file.expected))
        .nullable("text", file.text.as_deref(), push_string)
        .end();
}

fn turn_change(out: &mut Vec<u8>, change: &TurnChange) {
    let o = Object::new(out);
    match change {
        TurnChange::Started { turn, conn } => o
            .str("change", "started")
            .u64("turn", turn.as_u64())
            .u64("conn", conn.as_u64()),
        TurnChange::FileAdded {
            turn,
            path,
            changed_by,
        } => o
            .str("change", "fileAdded")
            .u64("turn", turn.as_u64())
            .str("path", path)
            .str(
                "changedBy",
                match changed_by {
                    ChangedBy::Claude => "claude",
                    ChangedBy::SeenOnDisk => "seenOnDisk",
                },
            ),
        TurnChange::FileChanged {
            turn,
            path,
            revision,
            hunks,
            added,
            removed,
        } => o
            .str("change", "fileChanged")
            .u64("turn", turn.as_u64())
            .str("path", path)
            .u64("revision", *revision)
            .u64("hunks", *hunks)
            .u64("added", *added)
            .u64("removed", *removed),
        TurnChange::Closed { turn } => o.str("change", "closed").u64("turn", turn.as_u64()),
        TurnChange::LeftOut { turn, path, reason } => o
            .str("change", "leftOut")
            .u64("turn", turn.as_u64())
            .str("path", path)
            .str("reason", reason),
        TurnChange::Dropped { turns } => o.str("change", "dropped").with("turns", |out| {
            out.push(b'[');
            for (i, turn) in turns.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_u64(out, turn.as_u64());
            }
            out.push(b']');
        }),
    }
    .end();
}
