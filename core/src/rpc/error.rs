//! The JSON-RPC error object: a code and a message.

use std::borrow::Cow;

/// A JSON-RPC error object as sent in a reply: `{"code":…,"message":…}`.
///
/// The message is written JSON-escaped; it may hold peer text (a method name, say) as long as
/// the caller keeps it short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The error code, one of the associated constants or an application code.
    pub code: i32,
    /// A short lower-case description of what was wrong.
    pub message: Cow<'static, str>,
}

impl RpcError {
    /// JSON-RPC 2.0 §5.1: invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// JSON-RPC 2.0 §5.1: the JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// JSON-RPC 2.0 §5.1: the method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// JSON-RPC 2.0 §5.1: invalid method parameters.
    pub const INVALID_PARAMS: i32 = -32602;
    /// JSON-RPC 2.0 §5.1: internal JSON-RPC error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// A request other than `initialize`/`ping` arrived before `initialize`. MCP defines no
    /// code for this; this is LSP's `ServerNotInitialized`, which MCP clients already know.
    pub const SERVER_NOT_INITIALIZED: i32 = -32002;
    /// JSON-RPC 2.0 §5.1 reserves -32000 to -32099 for implementation-defined server errors:
    /// this one refuses a request over a per-connection cap (too many pending tool calls).
    pub const SERVER_BUSY: i32 = -32000;
    /// The editor did not answer a read pulled from it in time: a plain server error (JSON-RPC
    /// 2.0 §5.1's implementation-defined range). Measured with the CLI 2.1.332: it takes a
    /// JSON-RPC error as a failed call, while an error result makes it log an IDE error as
    /// well.
    pub const EDITOR_TIMEOUT: i32 = -32000;
    /// A reply would be over the client's message limit
    /// (`Config::max_client_message_bytes`, which the CLI closes its connection on): a plain
    /// server error in its place (JSON-RPC 2.0 §5.1's implementation-defined range).
    pub const TOO_LARGE: i32 = -32000;

    /// An error with `code` and `message`.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }
}
