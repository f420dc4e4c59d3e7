//! The MCP session on an upgraded connection and what the engine learned of its client:
//! each text message goes through the JSON-RPC envelope, then the session, then the tools.

use super::config::Config;
use super::output::ConnId;
use super::push_schedule::StartupPushes;
use super::service::{Effect, Service};
use super::sessions::SessionRoots;
use super::writer::{Reply, Writer};
use crate::json;
use crate::mcp::{self, ClientInfo, Dispatch};
use crate::rpc;
use crate::time::Timestamp;

/// The MCP session on an open connection and what the engine learned of its client.
pub(crate) struct Client {
    mcp: mcp::Session,
    /// Set by `initialize`.
    info: Option<ClientInfo>,
    /// Set by `ide_connected`.
    pid: Option<u32>,
    /// When the client becomes ready for notifications (set by `notifications/initialized`).
    ready_at: Option<Timestamp>,
    ready: bool,
    /// The pushes of its first seconds.
    startup: StartupPushes,
    /// Its folders, from `roots/list`.
    roots: SessionRoots,
    /// When its upgrade completed.
    connected_at: Timestamp,
    /// Under a routing rule other than broadcast, the last `selection_changed` sent to it:
    /// its start-up repeats send this one while the editor's selection is another session's.
    last_selection: Option<Vec<u8>>,
}

/// What serving one message needs besides the session and the service.
pub(super) struct Step<'a> {
    now: Timestamp,
    conn: ConnId,
    config: &'a Config,
    tools_json: &'a str,
}

impl<'a> Step<'a> {
    pub(super) fn new(
        now: Timestamp,
        conn: ConnId,
        config: &'a Config,
        tools_json: &'a str,
    ) -> Step<'a> {
        Step {
            now,
            conn,
            config,
            tools_json,
        }
    }
}

impl Client {
    /// A session that has not seen `initialize` yet, upgraded at `now`.
    pub(super) fn new(now: Timestamp) -> Client {
        Client {
            connected_at: now,
            last_selection: None,
            mcp: mcp::Session::new(),
            info: None,
            pid: None,
            ready_at: None,
            ready: false,
            startup: StartupPushes::default(),
            roots: SessionRoots::default(),
        }
    }

    /// Serves one text message: JSON-RPC envelope, then the MCP session, then the tools.
    pub(super) fn serve(
        &mut self,
        step: &Step<'_>,
        text: &str,
        service: &mut Service,
        writer: &mut Writer,
    ) -> Effect {
        let message = match rpc::parse(text, &step.config.rpc) {
            Ok(message) => message,
            Err(invalid) => {
                if invalid.reply {
                    match invalid.id {
                        Some(id) => writer.reply(id, &Reply::Error(invalid.error)),
                        None => writer.error_without_id(&invalid.error),
                    }
                }
                return Effect::None;
            }
        };
        match self
            .mcp
            .handle(message, &step.config.server_info, step.tools_json)
        {
            Dispatch::Reply { id, reply } => {
                if reply.as_ref().is_ok_and(|result| result.is_tool_list()) {
                    self.startup.tools_listed(step.now);
                }
                let reply = match reply {
                    Ok(result) => Reply::Mcp(result),
                    Err(error) => Reply::Error(error),
                };
                writer.reply(id, &reply);
                Effect::None
            }
            Dispatch::Initialize {
                id,
                client,
                reply,
                roots,
            } => {
                self.startup.initialize(step.now);
                writer.reply(id, &Reply::Mcp(reply));
                self.info = Some(client);
                self.roots
                    .declare(roots && step.config.keeps_session_list());
                Effect::Initialized
            }
            Dispatch::Initialized => {
                self.ready_at = Some(step.now.add_millis(step.config.ready_delay_ms));
                // MCP lifecycle: the server sends requests (but pings and logging) only once
                // `initialized` came. The CLI registers its `roots/list` handler when it
                // creates the client, before it connects (its bundled code:
                // `setRequestHandler("roots/list",async()=>(…"Received ListRoots request from
                // server"…`), so asking now is answered before readiness.
                self.roots
                    .ask(step.now, step.config.roots_timeout_ms, writer);
                Effect::None
            }
            Dispatch::RootsListChanged => {
                self.roots
                    .ask(step.now, step.config.roots_timeout_ms, writer);
                Effect::None
            }
            Dispatch::Response { id, outcome } => {
                let outcome = outcome.map(|r| r.get()).map_err(|e| e.get());
                let changed = self.roots.answered(
                    step.now,
                    step.config.roots_timeout_ms,
                    id.as_raw().get(),
                    outcome,
                    step.config.path_style,
                    writer,
                );
                if changed {
                    Effect::SessionChanged
                } else {
                    Effect::None
                }
            }
            Dispatch::Notification { method, params } => {
                if method == "ide_connected" {
                    self.pid = params.and_then(ide_connected_pid);
                }
                Effect::None
            }
            Dispatch::Cancelled { request_id, .. } => service.cancelled(step.conn, request_id),
            Dispatch::ToolCall(call) => {
                service.tool_call(step.now, step.conn, call, step.config, writer)
            }
            Dispatch::Ignored => Effect::None,
        }
    }

    /// `clientInfo` from `initialize`, once it came.
    pub(crate) fn info(&self) -> Option<&ClientInfo> {
        self.info.as_ref()
    }

    /// The CLI's pid from `ide_connected`, once it came.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The last `selection_changed` routed to it (kept under a rule other than broadcast).
    pub(crate) fn last_selection(&self) -> Option<&[u8]> {
        self.last_selection.as_deref()
    }

    /// Forgets the last `selection_changed` routed to it (the context policy changed).
    pub(crate) fn forget_routed_selection(&mut self) {
        self.last_selection = None;
    }

    /// Keeps `message` as the last `selection_changed` routed to it.
    pub(crate) fn routed_selection(&mut self, message: &[u8]) {
        let kept = self.last_selection.get_or_insert_with(Vec::new);
        kept.clear();
        kept.extend_from_slice(message);
    }

    /// When its upgrade completed.
    pub(crate) fn connected_at(&self) -> Timestamp {
        self.connected_at
    }

    /// Its folders from `roots/list`, and the request in flight.
    pub(crate) fn roots(&self) -> &SessionRoots {
        &self.roots
    }

    /// Its folders from `roots/list`, to change.
    pub(crate) fn roots_mut(&mut self) -> &mut SessionRoots {
        &mut self.roots
    }

    /// True once, when the readiness delay has run out at `now`: from then on the client
    /// receives notifications.
    pub(crate) fn become_ready(&mut self, now: Timestamp) -> bool {
        let due = !self.ready && self.ready_at.is_some_and(|at| at <= now);
        self.ready |= due;
        due
    }

    /// True once the readiness delay ran out: the client receives notifications.
    pub(super) fn is_ready(&self) -> bool {
        self.ready
    }

    /// When the readiness delay runs out, while it runs.
    pub(super) fn ready_deadline(&self) -> Option<Timestamp> {
        self.ready_at.filter(|_| !self.ready)
    }

    /// The pushes of the client's first seconds.
    pub(crate) fn startup(&self) -> &StartupPushes {
        &self.startup
    }

    /// The pushes of the client's first seconds, to change.
    pub(crate) fn startup_mut(&mut self) -> &mut StartupPushes {
        &mut self.startup
    }
}

/// The `pid` of an `ide_connected` notification (`{"pid": 1234}`), if well-formed: an object
/// whose `pid` (the last one, if given twice) is an integer from 0 to `u32::MAX`, and no
/// member name of which holds a lone surrogate escape. Read with [`json::members`]: a serde
/// deserializer here would link serde's error messages, and with them the standard
/// library's float formatting, into the wasm module.
fn ide_connected_pid(params: &serde_json::value::RawValue) -> Option<u32> {
    let mut pid = None;
    for member in json::members(params.get()) {
        if member.name.text().ok()? == "pid" {
            pid = Some(member.value);
        }
    }
    let pid = pid?;
    // JSON integers have no sign but `-` and no leading zeros: digits alone are the u32 ones.
    pid.bytes()
        .all(|byte| byte.is_ascii_digit())
        .then(|| pid.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::ide_connected_pid;
    use serde_json::value::RawValue;

    fn pid(params: &str) -> Option<u32> {
        ide_connected_pid(&RawValue::from_string(params.to_owned()).unwrap())
    }

    #[test]
    fn reads_an_integer_pid_from_an_object() {
        assert_eq!(pid(r#"{"pid":4242}"#), Some(4242));
        assert_eq!(pid(r#"{ "other": [1, {"pid": 9}], "pid" : 0 }"#), Some(0));
        assert_eq!(pid(r#"{"\u0070id":7}"#), Some(7));
        assert_eq!(pid(r#"{"pid":4294967295}"#), Some(u32::MAX));
        assert_eq!(pid(r#"{"pid":1,"pid":2}"#), Some(2));
    }

    #[test]
    fn anything_else_is_no_pid() {
        for params in [
            r#"{}"#,
            r#"{"pid":-1}"#,
            r#"{"pid":1.0}"#,
            r#"{"pid":1e3}"#,
            r#"{"pid":"42"}"#,
            r#"{"pid":null}"#,
            r#"{"pid":4294967296}"#,
            r#"[42]"#,
            r#"42"#,
        ] {
            assert_eq!(pid(params), None, "{params}");
        }
    }
}
