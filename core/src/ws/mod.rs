//! The RFC 6455 WebSocket codec, server side, from the first byte after the HTTP upgrade.
//!
//! [`ServerSocket`] is a sans-IO state machine for one connection. The host hands it the bytes
//! it read ([`ServerSocket::receive`]) and the time; it hands back complete messages
//! ([`ServerSocket::poll_message`], borrowed from its own buffers), bytes to write (appended to
//! a caller's `Vec<u8>`), the next deadline ([`ServerSocket::poll_timeout`]) and, at the end,
//! why the transport must be closed ([`ServerSocket::finished`]).
//!
//! What it enforces, each failing the connection with a close frame whose code names the class
//! of fault: client frames masked, RSV bits clear, known opcodes, control frames unfragmented
//! and at most 125 bytes, minimal length encodings, fragments not interleaved (all 1002); text
//! valid UTF-8, checked as bytes arrive (1007); binary refused unless
//! [`WsConfig::accept_binary`] (1003); message size and fragment count within [`WsConfig`]
//! (1009), decided from frame headers before any payload is buffered. Close codes received are
//! checked against [`close_code::is_valid_received`] (1002). Pings are answered, keepalive
//! pings are sent after receive silence, and the close handshake is bounded in time.
//!
//! Steady traffic does not allocate: the receive buffer is compacted and reused, payloads are
//! unmasked in place, and fragments are joined in one reused buffer.

pub mod close_code;
mod config;
mod event;
mod frame;
mod socket;
mod timers;
mod utf8;
mod violation;

pub use config::WsConfig;
pub use event::{Finished, Message};
pub(crate) use frame::{MAX_HEADER, ServerHeader};
pub use frame::{OpCode, write_frame_header};
pub use socket::ServerSocket;
