//! One MCP session: the lifecycle of a single client connection.

use std::borrow::Cow;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::params::{self, ClientInfo, ToolCall};
use crate::rpc::{Message, ParamsMembers, RequestId, RpcError};

/// Who we are, as answered in `initialize`'s `serverInfo`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerInfo {
    /// The server's name (shown by MCP clients).
    pub name: String,
    /// The server's version.
    pub version: String,
}

/// Where a session is in the MCP lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Nothing but `initialize` and `ping` is served yet.
    #[default]
    AwaitingInitialize,
    /// `initialize` was answered; `notifications/initialized` has not arrived. Requests are
    /// served already (see [`Session::handle`]).
    AwaitingInitialized,
    /// `notifications/initialized` arrived: the session is ready.
    Operational,
}

/// What the layer above must do after [`Session::handle`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Dispatch<'a> {
    /// Answer request `id` with `reply` (a result, or a JSON-RPC error); nothing else to do.
    Reply {
        /// The request's id.
        id: RequestId<'a>,
        /// The result or the error.
        reply: Result<McpResult<'a>, RpcError>,
    },
    /// Nothing to send, nothing to do: an MCP notification we need not act on, a
    /// notification before `initialize`, or a client's response.
    Ignored,
    /// `initialize` succeeded: answer `id` with `reply`; `client` is the client that connected.
    Initialize {
        /// The request's id.
        id: RequestId<'a>,
        /// Who connected, and the protocol version negotiated.
        client: ClientInfo,
        /// The `initialize` result.
        reply: McpResult<'a>,
        /// The client declared the `roots` capability: it answers `roots/list` (MCP: a server
        /// sends a request only for a capability the client declared).
        roots: bool,
    },
    /// `notifications/initialized` arrived: the phase is now [`Phase::Operational`].
    Initialized,
    /// `notifications/roots/list_changed`: the client's roots changed; ask `roots/list` again.
    RootsListChanged,
    /// The client's reply to a request of ours (`roots/list`): the layer above pairs it with
    /// its request by `id`, and ignores one it did not send.
    Response {
        /// The id of our request it answers.
        id: RequestId<'a>,
        /// `Ok(result)` or `Err(error)`, each as raw JSON.
        outcome: Result<&'a RawValue, &'a RawValue>,
    },
    /// A valid `tools/call`: the layer above answers it, with the call's id, later or now.
    ToolCall(ToolCall<'a>),
    /// `notifications/cancelled`: the client gave up on `request_id`. Nothing is answered;
    /// the layer above drops the call if it is still pending (answering it anyway is harmless).
    Cancelled {
        /// The id of the request the client cancelled.
        request_id: RequestId<'a>,
        /// The client's reason, when it gave one.
        reason: Option<Cow<'a, str>>,
    },
    /// A notification outside MCP's `notifications/` namespace, such as the CLI's
    /// `ide_connected`: the layer above reads it. It must not be answered.
    Notification {
        /// The notification's method.
        method: Cow<'a, str>,
        /// Its parameters as raw JSON (an object or an array) when present.
        params: Option<&'a RawValue>,
    },
}

/// The result of a protocol-level request, for the layer above to write as the reply
/// (serialized as the JSON-RPC `result`).
#[derive(Debug, Clone)]
pub struct McpResult<'a>(Answer<'a>);

#[derive(Debug, Clone)]
enum Answer<'a> {
    Initialize(InitializeResult<'a>),
    /// `ping`: `{}`.
    Empty,
    Tools(ToolList<'a>),
    EmptyList(EmptyList),
}

impl McpResult<'_> {
    /// True for the answer to `tools/list`.
    pub fn is_tool_list(&self) -> bool {
        matches!(self.0, Answer::Tools(_))
    }
}

impl Serialize for McpResult<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Answer::Initialize(result) => result.serialize(serializer),
            Answer::Empty => EmptyObject {}.serialize(serializer),
            Answer::Tools(list) => list.serialize(serializer),
            Answer::EmptyList(list) => list.serialize(serializer),
        }
    }
}

impl McpResult<'_> {
    /// Appends the result as JSON: the bytes serde_json writes for its `Serialize` impl (the
    /// session's tests hold the two together), without serde.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        use crate::json::push_string;
        match &self.0 {
            Answer::Initialize(result) => {
                out.extend_from_slice(b"{\"protocolVersion\":");
                push_string(out, result.protocol_version);
                out.extend_from_slice(if result.capabilities.tools.list_changed {
                    b",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":"
                } else {
                    b",\"capabilities\":{\"tools\":{\"listChanged\":false}},\"serverInfo\":{\"name\":"
                });
                push_string(out, result.server_info.name);
                out.extend_from_slice(b",\"version\":");
                push_string(out, result.server_info.version);
                out.extend_from_slice(b"}}");
            }
            Answer::Empty => out.extend_from_slice(b"{}"),
            Answer::Tools(list) => {
                out.extend_from_slice(b"{\"tools\":");
                out.extend_from_slice(list.tools.0.as_bytes());
                out.push(b'}');
            }
            Answer::EmptyList(list) => {
                out.push(b'{');
                push_string(out, list.0);
                out.extend_from_slice(b":[]}");
            }
        }
    }
}

/// The MCP state of one client connection. It knows nothing of sockets or of the tools.
#[derive(Debug, Default)]
pub struct Session {
    phase: Phase,
}

/// Method names are echoed in "method not found" errors up to this many bytes.
const MAX_ECHOED_METHOD_BYTES: usize = 64;

impl Session {
    /// A session awaiting `initialize`.
    pub fn new() -> Self {
        Session::default()
    }

    /// The session's lifecycle phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Handles one parsed message.
    ///
    /// Protocol-level requests (`initialize`, `ping`, `tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`, unknown methods, malformed params) come
    /// back as the reply to write ([`Dispatch::Reply`], [`Dispatch::Initialize`]); the session
    /// writes nothing itself. `tools/call` and the notifications the layer above must act on
    /// are returned too. `tools_json` is the pre-rendered JSON array of tool descriptors that
    /// `tools/list` answers with, written as given (only its brackets are checked: it must be
    /// valid JSON, as `ide::tools_json` renders it). Notifications are never answered.
    ///
    /// Requests that arrive after `initialize` was answered but before
    /// `notifications/initialized` are served: a client may pipeline them, and refusing
    /// them would gain nothing.
    pub fn handle<'a>(
        &mut self,
        message: Message<'a>,
        server: &'a ServerInfo,
        tools_json: &'a str,
    ) -> Dispatch<'a> {
        match message {
            Message::Request {
                id,
                method,
                params,
                params_members,
            } => self.request(id, &method, params, &params_members, server, tools_json),
            Message::Notification { method, params } => self.notification(method, params),
            // Before `initialize` we have sent no request: nothing to pair a reply with.
            Message::Response { .. } if self.phase == Phase::AwaitingInitialize => {
                Dispatch::Ignored
            }
            Message::Response { id, outcome } => Dispatch::Response { id, outcome },
        }
    }

    fn request<'a>(
        &mut self,
        id: RequestId<'a>,
        method: &str,
        params: Option<&'a RawValue>,
        params_members: &ParamsMembers,
        server: &'a ServerInfo,
        tools_json: &'a str,
    ) -> Dispatch<'a> {
        let answer = |answer| Dispatch::Reply {
            id,
            reply: Ok(McpResult(answer)),
        };
        let error = match method {
            "initialize" => return self.initialize(id, params, server),
            // MCP ping: either party may send a ping at any time; the receiver MUST respond
            // promptly with an empty result.
            "ping" => return answer(Answer::Empty),
            // MCP lifecycle: the client SHOULD NOT send requests other than pings before the
            // server has responded to `initialize`. MCP names no error code; LSP's is used.
            _ if self.phase == Phase::AwaitingInitialize => RpcError::new(
                RpcError::SERVER_NOT_INITIALIZED,
                "server not initialized: send initialize first",
            ),
            "tools/call" => match params::tool_call(id, params, params_members) {
                Some(call) => return Dispatch::ToolCall(call),
                None => RpcError::new(
                    RpcError::INVALID_PARAMS,
                    "tools/call params need a string \"name\" and, if any, object \"arguments\"",
                ),
            },
            // `tools_json` is the engine's own rendering (`ide::tools_json`), not peer input:
            // its brackets are checked and its contents written as they are, not parsed again
            // (a serde_json parse here linked serde's error messages, and the float formatting
            // they use, into the wasm module).
            "tools/list" => match tools_json.trim_matches([' ', '\t', '\n', '\r']) {
                // One page holds every tool: no `nextCursor`, and any `cursor` is ignored.
                tools if tools.len() >= 2 && tools.starts_with('[') && tools.ends_with(']') => {
                    return answer(Answer::Tools(ToolList {
                        tools: RawJson(tools),
                    }));
                }
                _ => RpcError::new(
                    RpcError::INTERNAL_ERROR,
                    "the tool list is not a JSON array",
                ),
            },
            // Nothing to offer, and these capabilities are not declared; an empty list still
            // answers a client that asks anyway.
            "prompts/list" => return answer(Answer::EmptyList(EmptyList("prompts"))),
            "resources/list" => return answer(Answer::EmptyList(EmptyList("resources"))),
            "resources/templates/list" => {
                return answer(Answer::EmptyList(EmptyList("resourceTemplates")));
            }
            _ => {
                let end = method.floor_char_boundary(MAX_ECHOED_METHOD_BYTES);
                let ellipsis = if end < method.len() { "…" } else { "" };
                let shown = method.get(..end).unwrap_or_default();
                let message = format!("method not found: {shown}{ellipsis}");
                RpcError::new(RpcError::METHOD_NOT_FOUND, message)
            }
        };
        Dispatch::Reply {
            id,
            reply: Err(error),
        }
    }

    fn initialize<'a>(
        &mut self,
        id: RequestId<'a>,
        params: Option<&'a RawValue>,
        server: &'a ServerInfo,
    ) -> Dispatch<'a> {
        // MCP lifecycle: initialization MUST be the first interaction, and happens once.
        if self.phase != Phase::AwaitingInitialize {
            let error = RpcError::new(RpcError::INVALID_REQUEST, "session already initialized");
            return Dispatch::Reply {
                id,
                reply: Err(error),
            };
        }
        let roots = params::declares_roots(params);
        let Some(client) = params::client_info(params) else {
            let error = RpcError::new(
                RpcError::INVALID_PARAMS,
                "initialize params need a string \"protocolVersion\" and \"clientInfo\" \
                 with string \"name\" and \"version\"",
            );
            return Dispatch::Reply {
                id,
                reply: Err(error),
            };
        };
        let result = InitializeResult {
            protocol_version: client.protocol_version,
            // Without `capabilities.tools` the CLI never lists tools. The list is fixed for
            // the session's life, hence `listChanged: false`.
            capabilities: Capabilities {
                tools: ToolsCapability {
                    list_changed: false,
                },
            },
            server_info: Implementation {
                name: &server.name,
                version: &server.version,
            },
        };
        self.phase = Phase::AwaitingInitialized;
        Dispatch::Initialize {
            id,
            client,
            reply: McpResult(Answer::Initialize(result)),
            roots,
        }
    }

    fn notification<'a>(
        &mut self,
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    ) -> Dispatch<'a> {
        // MCP lifecycle: before `initialize` only pings are expected; anything else is noise.
        if self.phase == Phase::AwaitingInitialize {
            return Dispatch::Ignored;
        }
        if !method.starts_with("notifications/") {
            return Dispatch::Notification { method, params };
        }
        match &*method {
            "notifications/initialized" if self.phase == Phase::AwaitingInitialized => {
                self.phase = Phase::Operational;
                Dispatch::Initialized
            }
            "notifications/cancelled" => match params::cancelled(params) {
                Some((request_id, reason)) => Dispatch::Cancelled { request_id, reason },
                None => Dispatch::Ignored,
            },
            // MCP roots: a client that declared `roots.listChanged` sends this when its roots
            // change; the server then asks `roots/list` again.
            "notifications/roots/list_changed" => Dispatch::RootsListChanged,
            // A repeated `initialized` and any other MCP notification need nothing from us.
            _ => Dispatch::Ignored,
        }
    }
}

#[derive(Serialize)]
struct EmptyObject {}

/// `{"<key>":[]}`.
#[derive(Debug, Clone)]
struct EmptyList(&'static str);

impl Serialize for EmptyList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &[(); 0])?;
        map.end()
    }
}

#[derive(Debug, Clone, Serialize)]
struct ToolList<'a> {
    tools: RawJson<'a>,
}

/// JSON text of our own, written as it is: serialized the way serde_json writes a
/// `RawValue` (its `raw_value` feature's struct token), without a `RawValue` to parse first.
#[derive(Debug, Clone, Copy)]
struct RawJson<'a>(&'a str);

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'static str,
    capabilities: Capabilities,
    server_info: Implementation<'a>,
}

#[derive(Debug, Clone, Serialize)]
struct Capabilities {
    tools: ToolsCapability,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolsCapability {
    list_changed: bool,
}

#[derive(Debug, Clone, Serialize)]
struct Implementation<'a> {
    name: &'a str,
    version: &'a str,
}

#[cfg(test)]
mod tests;
