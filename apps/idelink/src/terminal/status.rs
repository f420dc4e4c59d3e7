//! One status line per engine event.

use idelink_core::{Event, ToolRequest};

/// The status line for `event`, or None for events not worth a line.
pub fn line(event: &Event, workspace: &str) -> Option<String> {
    Some(match event {
        Event::Connected { conn, user_agent } => format!(
            "{conn} connected ({})",
            user_agent.as_deref().unwrap_or("no user agent")
        ),
        Event::SessionReady {
            conn,
            client,
            client_pid,
        } => {
            let pid = client_pid.map_or(String::new(), |pid| format!(", pid {pid}"));
            format!(
                "{conn} session ready: {} {}{pid} (MCP {})",
                client.name, client.version, client.protocol_version
            )
        }
        Event::ToolCall { id, conn, request } => {
            format!("{conn} {} ({id})", describe(request, workspace))
        }
        Event::ToolCallCancelled { id, reason } => format!("{id} cancelled: {reason}"),
        Event::ToolServed { conn, tool } => format!("{conn} {}", tool.as_str()),
        Event::MessageTooLarge {
            conn,
            message,
            bytes,
            sent,
        } => {
            let to = conn.map_or("every client".to_owned(), |conn| conn.to_string());
            format!(
                "{to} {message}: {bytes} bytes, over the client's message limit; sent {} instead",
                sent.as_str()
            )
        }
        Event::Closed { conn, reason } => format!("{conn} closed: {reason}"),
        _ => return None,
    })
}

/// What a tool request asks, with workspace paths shown relative.
pub fn describe(request: &ToolRequest, workspace: &str) -> String {
    match request {
        ToolRequest::OpenDiff { new_file_path, .. } => {
            format!("openDiff {}", relative(new_file_path, workspace))
        }
        ToolRequest::OpenFile { path, .. } => format!("openFile {}", relative(path, workspace)),
        ToolRequest::SaveDocument { path } => {
            format!("saveDocument {}", relative(path, workspace))
        }
        ToolRequest::ExecuteCode { .. } => "executeCode".to_owned(),
        _ => "tool request".to_owned(),
    }
}

/// `path` relative to `workspace` when inside it.
pub fn relative<'p>(path: &'p str, workspace: &str) -> &'p str {
    path.strip_prefix(workspace)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_workspace_are_shown_relative() {
        assert_eq!(relative("/w/src/a.rs", "/w"), "src/a.rs");
        assert_eq!(relative("/other/a.rs", "/w"), "/other/a.rs");
        assert_eq!(relative("/wx/a.rs", "/w"), "/wx/a.rs");
        assert_eq!(relative("/w", "/w"), "/w");
    }
}
