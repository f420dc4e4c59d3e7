//! The comparison server, built the way a user who picks the usual crates would build it:
//! tokio (multi-threaded runtime), tokio-tungstenite for the WebSocket, serde_json `Value` for
//! every message, the editor state behind a mutex. It checks the token, answers with
//! `Sec-WebSocket-Protocol: mcp`, and answers `initialize`, `getCurrentSelection` (the same
//! shape as idelink), `checkDocumentDirty` (no document open: the path comes back) and `openDiff` (rejected at once, as the idelink bench editor does).
//! Prints `<port> <token>`, then serves until killed.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const FILE_PATH: &str = "/home/u/proj/src/main.rs";
const SELECTED_TEXT: &str = "fn main() {\n    println!(\"hello\");\n}";
/// tungstenite caps frames at 16 MiB by default: a 16 MiB file in `openDiff` needs more.
const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// What the editor last reported.
struct Selection {
    text: String,
    file_path: String,
    start: (u32, u32),
    end: (u32, u32),
}

type Editor = Arc<Mutex<Selection>>;

#[tokio::main]
async fn main() -> io::Result<()> {
    let editor = Arc::new(Mutex::new(Selection {
        text: SELECTED_TEXT.into(),
        file_path: FILE_PATH.into(),
        start: (2, 0),
        end: (4, 1),
    }));
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    println!("{} {TOKEN}", listener.local_addr()?.port());
    io::stdout().flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(serve(stream, Arc::clone(&editor)));
    }
}

async fn serve(stream: TcpStream, editor: Editor) {
    let _ = stream.set_nodelay(true);
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let Ok(mut ws) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, check_upgrade, Some(config)).await
    else {
        return;
    };
    while let Some(Ok(message)) = ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        let Ok(request) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if let Some(reply) = handle(&request, &editor) {
            let reply = Utf8Bytes::from(reply.to_string());
            if ws.send(Message::Text(reply)).await.is_err() {
                return;
            }
        }
    }
}

/// The token must match; the answer names the `mcp` subprotocol, which the CLI requires.
#[expect(
    clippy::result_large_err,
    reason = "the signature of tungstenite's handshake callback"
)]
fn check_upgrade(request: &Request, mut response: Response) -> Result<Response, ErrorResponse> {
    let token = request
        .headers()
        .get("x-claude-code-ide-authorization")
        .and_then(|v| v.to_str().ok());
    if token != Some(TOKEN) {
        let mut refused = ErrorResponse::new(Some("unauthorized".into()));
        *refused.status_mut() = StatusCode::UNAUTHORIZED;
        return Err(refused);
    }
    response
        .headers_mut()
        .insert("sec-websocket-protocol", HeaderValue::from_static("mcp"));
    Ok(response)
}

/// The reply to a request; `None` for notifications.
fn handle(request: &Value, editor: &Editor) -> Option<Value> {
    let id = request.get("id")?.clone();
    let params = &request["params"];
    let result = match request["method"].as_str() {
        Some("initialize") => json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "tungstenite-bench", "version": "0.1.0"},
        }),
        Some("tools/call") => match params["name"].as_str() {
            Some("getCurrentSelection") => text_result(&current_selection(editor)),
            Some("checkDocumentDirty") => {
                let path = params["arguments"]["filePath"].as_str().unwrap_or_default();
                let message = format!("Document not open: {path}");
                text_result(&json!({"success": false, "message": message}))
            }
            Some("openDiff") => json!({"content": [
                {"type": "text", "text": "DIFF_REJECTED"},
                {"type": "text", "text": params["arguments"]["tab_name"]},
            ]}),
            _ => return Some(error(id, -32602, "unknown tool")),
        },
        Some("ping") => json!({}),
        _ => return Some(error(id, -32601, "method not found")),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn current_selection(editor: &Editor) -> Value {
    let Ok(selection) = editor.lock() else {
        return json!({"success": false, "message": "No active editor found"});
    };
    let position = |(line, character): (u32, u32)| json!({"line": line, "character": character});
    json!({
        "success": true,
        "text": selection.text,
        "filePath": selection.file_path,
        "fileUrl": format!("file://{}", selection.file_path),
        "selection": {
            "start": position(selection.start),
            "end": position(selection.end),
            "isEmpty": selection.start == selection.end,
        },
    })
}

fn text_result(value: &Value) -> Value {
    json!({"content": [{"type": "text", "text": value.to_string()}]})
}

fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
