//! JSON-RPC 2.0: the message envelope, and nothing of MCP.
//!
//! [`parse`] turns one text message into a borrowed [`Message`] or an [`Invalid`] that says
//! how to answer it; [`write_result`] (or [`write_result_with`]), [`write_error`] and
//! [`write_notification`] append compact replies to an output buffer.
//!
//! Decisions where the specification leaves room:
//! - Batches (JSON arrays) are refused with one `INVALID_REQUEST` reply, id null: MCP
//!   2025-06-18 removed batching and the Claude Code CLI never sends one.
//! - `params` that is neither an object nor an array is an envelope fault: `INVALID_REQUEST`.
//! - Duplicate envelope members are refused (`INVALID_REQUEST`); a duplicated `id` is answered
//!   with id null, since neither copy can be trusted.
//! - Nesting deeper than [`RpcLimits::max_depth`] is measured while the text is read, by a
//!   reader that keeps its bracket stack as bits and never recurses; the envelope is still
//!   read, so a too-deep request gets its own id back and a too-deep notification gets no
//!   reply.
//! - Nothing notification-shaped (a string `method`, no `id`) or response-shaped (`result` or
//!   `error`, no `method`) is ever answered, however broken: answering a broken response
//!   could start an error ping-pong between two peers.
//!
//! The text is read in one pass by the crate's JSON scanner (`crate::json`), with serde_json's verdicts: what it
//! calls not JSON is a parse error here too, and the tests hold the two to the same answers.

mod envelope;
mod error;
mod id;
mod message;
mod params;
mod raw;
mod write;

pub use error::RpcError;
pub use id::{OwnedRequestId, RequestId};
pub use message::{Invalid, Message, RpcLimits, parse};
pub use params::ParamsMembers;
pub(crate) use raw::borrowed as raw_value;
pub use write::{write_error, write_notification, write_result, write_result_with};
