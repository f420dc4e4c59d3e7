//! MCP: the session that runs over one client connection, and nothing of sockets or tools.
//!
//! A [`Session`] takes each parsed [`crate::rpc::Message`] and hands back a [`Dispatch`]: the
//! reply to a protocol-level request (which the layer above writes, with every other reply),
//! or what the layer above must act on (`tools/call`, cancellations, the CLI's own
//! notifications such as `ide_connected`).
//!
//! Decisions where MCP leaves room:
//! - Before `initialize`, `ping` is answered and every other request gets
//!   `SERVER_NOT_INITIALIZED` (-32002, LSP's code: MCP defines none); notifications are
//!   dropped.
//! - Between the `initialize` reply and `notifications/initialized`, everything is served.
//! - A second `initialize` gets `INVALID_REQUEST` "session already initialized".
//! - `prompts/list`, `resources/list` and `resources/templates/list` are answered with empty
//!   lists although those capabilities are not declared: clients that ask anyway get an
//!   answer rather than an error.

mod params;
mod session;
mod version;

pub use params::{ClientInfo, ToolCall};
pub use session::{Dispatch, McpResult, Phase, ServerInfo, Session};
pub use version::{SUPPORTED_PROTOCOL_VERSIONS, negotiate_version};
