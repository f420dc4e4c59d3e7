//! Every JSON-RPC message the engine sends is written here: replies to a client's requests
//! (protocol-level ones from the MCP session, tool results, errors), answers to calls the editor
//! finished, and the engine's own notifications. One reused buffer, so steady traffic does not
//! allocate.

use crate::ide::ToolResult;
use crate::mcp::McpResult;
use crate::rpc::{self, RequestId, RpcError};

/// What a request is answered with.
pub(crate) enum Reply<'a> {
    /// A protocol-level result from the MCP session (`initialize`, `ping`, `tools/list`, …).
    Mcp(McpResult<'a>),
    /// A tool's result.
    Tool(&'a ToolResult),
    /// A tool's result already rendered as JSON (the selection tools, see `SelectionCache`).
    Rendered(&'a [u8]),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// The JSON messages written for one step of the engine, in order, until they are sent.
#[derive(Default)]
pub(crate) struct Writer {
    json: Vec<u8>,
    /// Where each message in `json` ends.
    ends: Vec<usize>,
}

impl Writer {
    /// Forgets the messages written (capacity kept).
    pub(crate) fn clear(&mut self) {
        self.json.clear();
        self.ends.clear();
    }

    /// Writes the reply to request `id`.
    pub(crate) fn reply(&mut self, id: RequestId<'_>, reply: &Reply<'_>) {
        match reply {
            Reply::Mcp(result) => rpc::write_result(&mut self.json, id, result),
            Reply::Tool(result) => rpc::write_result(&mut self.json, id, result),
            Reply::Rendered(json) => rpc::write_result_with(&mut self.json, id, |out| {
                out.extend_from_slice(json);
                Ok::<(), std::convert::Infallible>(())
            }),
            Reply::Error(error) => rpc::write_error(&mut self.json, Some(id), error),
        }
        self.ends.push(self.json.len());
    }

    /// Writes an error reply to a message whose id could not be read (`id: null`).
    pub(crate) fn error_without_id(&mut self, error: &RpcError) {
        rpc::write_error(&mut self.json, None, error);
        self.ends.push(self.json.len());
    }

    /// Writes a notification. False (nothing written) when `params` cannot be serialized,
    /// which the IDE layer's plain-data payloads rule out.
    pub(crate) fn notification(&mut self, method: &str, params: &impl serde::Serialize) -> bool {
        let written = rpc::write_notification(&mut self.json, method, params).is_ok();
        if written {
            self.ends.push(self.json.len());
        }
        written
    }

    /// The messages written since the last `clear`, in order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.json[start..end])
    }
}
