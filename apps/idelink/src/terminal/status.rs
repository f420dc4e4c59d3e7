//! One status line per engine event.

use idelink_core::ledger::TurnChange;
use idelink_core::{EngineEvent, ToolRequest};

/// The status line for `event`, or None for events not worth a line.
pub fn line(event: &EngineEvent, workspace: &str) -> Option<String> {
    Some(match event {
        EngineEvent::Connected { conn, user_agent } => format!(
            "{conn} connected ({})",
            user_agent.as_deref().unwrap_or("no user agent")
        ),
        EngineEvent::SessionReady {
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
        EngineEvent::ToolCall {
            id,
            conn,
            request,
            context_denied,
        } => {
            let denied = if *context_denied {
                ", a file the context policy denies"
            } else {
                ""
            };
            format!("{conn} {} ({id}{denied})", describe(request, workspace))
        }
        EngineEvent::ToolCallCancelled { id, reason } => format!("{id} cancelled: {reason}"),
        EngineEvent::FileReplaced { id, path, text } => format!(
            "{id} {} now holds the accepted text ({} bytes)",
            relative(path, workspace),
            text.len()
        ),
        EngineEvent::ToolServed { conn, tool } => format!("{conn} {}", tool.as_str()),
        EngineEvent::MessageTooLarge {
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
        EngineEvent::Closed { conn, reason } => format!("{conn} closed: {reason}"),
        EngineEvent::ContextWithheld {
            pushes,
            reads,
            paths,
            more_paths,
        } => {
            let names: Vec<&str> = paths.iter().map(|p| relative(p, workspace)).collect();
            let more = if *more_paths > 0 {
                format!(" and {more_paths} more")
            } else {
                String::new()
            };
            format!(
                "withheld by the context policy: {}{more} ({pushes} pushes, {reads} reads so far)",
                names.join(", ")
            )
        }
        EngineEvent::TurnChanged {
            change: TurnChange::LeftOut { turn, path, reason },
        } => format!(
            "{turn}: {} left out of the ledger: {reason}",
            relative(path, workspace)
        ),
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
