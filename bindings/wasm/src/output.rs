//! The engine's outputs as plain JS objects in their JSON forms (`Output`, `EngineEvent`,
//! `ToolRequest`, `CloseReason` in `protocol.d.ts`), built key by key ([`crate::js::Built`]):
//! the same objects `JSON.parse` would give for core's serde form, `null` for an absent
//! option except where the form leaves the field out.

use crate::js::Built;
use idelink_core::mcp::ClientInfo;
use idelink_core::{CancelReason, CloseReason, Event, Output, SnapshotChanges, ToolRequest};
use wasm_bindgen::prelude::*;

/// Said of an output of a newer core than this binding knows: a build mismatch.
const UNKNOWN: &str = "the engine produced an output this binding does not know: rebuild the binding against the same idelink-core";

/// `output` as a plain object, or an error for a variant this binding does not know.
pub(crate) fn output(output: &Output) -> Result<JsValue, JsError> {
    Ok(match output {
        Output::Transmit { conn } => Built::new()
            .str("kind", "transmit")
            .num("conn", conn.as_u64() as f64),
        Output::CloseTransport { conn } => Built::new()
            .str("kind", "closeTransport")
            .num("conn", conn.as_u64() as f64),
        Output::Event(event) => event_fields(Built::new().str("kind", "event"), event)?,
        _ => return Err(JsError::new(UNKNOWN)),
    }
    .done())
}

fn event_fields(b: Built, event: &Event) -> Result<Built, JsError> {
    Ok(match event {
        Event::Connected { conn, user_agent } => b
            .str("event", "connected")
            .num("conn", conn.as_u64() as f64)
            .opt_str("userAgent", user_agent.as_deref()),
        Event::SessionReady {
            conn,
            client,
            client_pid,
        } => b
            .str("event", "sessionReady")
            .num("conn", conn.as_u64() as f64)
            .value("client", &client_info(client))
            .value(
                "clientPid",
                &client_pid.map_or(JsValue::NULL, |pid| JsValue::from_f64(pid.into())),
            ),
        Event::ToolCall { id, conn, request } => b
            .str("event", "toolCall")
            .num("id", id.as_u64() as f64)
            .num("conn", conn.as_u64() as f64)
            .value("request", &tool_request(request)?),
        Event::ToolCallCancelled { id, reason } => b
            .str("event", "toolCallCancelled")
            .num("id", id.as_u64() as f64)
            .str("reason", cancel_reason(*reason)?),
        Event::ToolServed { conn, tool } => b
            .str("event", "toolServed")
            .num("conn", conn.as_u64() as f64)
            .str("tool", tool.as_str()),
        Event::MessageTooLarge {
            conn,
            message,
            bytes,
            sent,
        } => b
            .str("event", "messageTooLarge")
            .value(
                "conn",
                &conn.map_or(
                    JsValue::NULL,
                    |conn| JsValue::from_f64(conn.as_u64() as f64),
                ),
            )
            .str("message", message)
            .num("bytes", *bytes as f64)
            .str("sent", sent.as_str()),
        Event::Closed { conn, reason } => b
            .str("event", "closed")
            .num("conn", conn.as_u64() as f64)
            .value("reason", &close_reason(reason)?),
        _ => return Err(JsError::new(UNKNOWN)),
    })
}

/// What a snapshot changed (`SnapshotChanges`).
pub(crate) fn snapshot_changes(changes: &SnapshotChanges) -> JsValue {
    Built::new()
        .bool("documents", changes.documents)
        .bool("active", changes.active)
        .bool("diagnostics", changes.diagnostics)
        .bool("workspaceFolders", changes.workspace_folders)
        .done()
}

fn client_info(client: &ClientInfo) -> JsValue {
    Built::new()
        .str("name", &client.name)
        .str("version", &client.version)
        .str("protocolVersion", client.protocol_version)
        .done()
}

fn tool_request(request: &ToolRequest) -> Result<JsValue, JsError> {
    Ok(match request {
        ToolRequest::OpenFile {
            path,
            preview,
            start_text,
            end_text,
            select_to_end_of_line,
            make_frontmost,
        } => Built::new()
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
        } => Built::new()
            .str("tool", "openDiff")
            .str("oldFilePath", old_file_path)
            .str("newFilePath", new_file_path)
            .str("newFileContents", new_file_contents)
            .str("tabName", tab_name),
        ToolRequest::SaveDocument { path } => {
            Built::new().str("tool", "saveDocument").str("path", path)
        }
        ToolRequest::ExecuteCode { code } => {
            Built::new().str("tool", "executeCode").str("code", code)
        }
        ToolRequest::GetDiagnostics { path } => Built::new()
            .str("tool", "getDiagnostics")
            .some_str("path", path.as_deref()),
        ToolRequest::GetCurrentSelection => Built::new().str("tool", "getCurrentSelection"),
        ToolRequest::GetLatestSelection => Built::new().str("tool", "getLatestSelection"),
        ToolRequest::GetOpenEditors => Built::new().str("tool", "getOpenEditors"),
        ToolRequest::GetWorkspaceFolders => Built::new().str("tool", "getWorkspaceFolders"),
        ToolRequest::CheckDocumentDirty { path } => Built::new()
            .str("tool", "checkDocumentDirty")
            .str("path", path),
        _ => return Err(JsError::new(UNKNOWN)),
    }
    .done())
}

fn cancel_reason(reason: CancelReason) -> Result<&'static str, JsError> {
    Ok(match reason {
        CancelReason::ClosedByClient => "closedByClient",
        CancelReason::Replaced => "replaced",
        CancelReason::CancelledByClient => "cancelledByClient",
        CancelReason::ClientGone => "clientGone",
        CancelReason::DeadlineExpired => "deadlineExpired",
        _ => return Err(JsError::new(UNKNOWN)),
    })
}

fn close_reason(reason: &CloseReason) -> Result<JsValue, JsError> {
    let kind = |name: &str| Built::new().str("kind", name);
    Ok(match reason {
        CloseReason::UpgradeRejected { status, detail } => kind("upgradeRejected")
            .num("status", *status)
            .str("detail", detail),
        CloseReason::HandshakeTimeout => kind("handshakeTimeout"),
        CloseReason::TooManyConnections => kind("tooManyConnections"),
        CloseReason::HandshakeEvicted => kind("handshakeEvicted"),
        CloseReason::PeerClosed { code, reason } => kind("peerClosed")
            .value(
                "code",
                &code.map_or(JsValue::NULL, |code| JsValue::from_f64(code.into())),
            )
            .str("reason", reason),
        CloseReason::ProtocolViolation { code, detail } => kind("protocolViolation")
            .num("code", *code)
            .str("detail", detail),
        CloseReason::KeepaliveTimeout => kind("keepaliveTimeout"),
        CloseReason::CloseTimeout => kind("closeTimeout"),
        CloseReason::Superseded => kind("superseded"),
        CloseReason::OutboundOverflow => kind("outboundOverflow"),
        CloseReason::ClosedByHost => kind("closedByHost"),
        CloseReason::TransportClosed => kind("transportClosed"),
        _ => return Err(JsError::new(UNKNOWN)),
    }
    .done())
}
