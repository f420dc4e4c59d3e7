//! The remote link: the framing of the byte stream between the editor side (the engine) and an
//! `idelink bridge` on the machine where claude runs (SSH, a container, WSL), sans-IO.
//!
//! The bridge listens on its own loopback and writes its own lock; every client claude opens
//! there is carried over the link as a connection of raw bytes. The link decides nothing about
//! the protocol above it: the editor side hands each connection to its engine as an accepted
//! socket, and the engine checks the token, the upgrade and everything after, exactly as for a
//! local socket.
//!
//! ## The wire
//!
//! Both directions are a sequence of frames: a 9-byte header — kind (u8), connection id (u32),
//! payload length (u32), big-endian — then the payload ([`FrameKind`] lists the kinds and their
//! payloads). Each side's first frame is a [`Hello`] (link version, idelink version, and what
//! the bridge writes into its lock); a peer with another [`LINK_VERSION`] is refused.
//!
//! ## Rules
//!
//! - **Connections**: only the bridge opens them, with ids that only grow (never reused on a
//!   link). `Close` from either side ends one at both; frames that crossed a close are dropped.
//! - **Back-pressure per connection**: a sender has [`LinkConfig::window_bytes`] of credit per
//!   connection and spends it on `Data`; the receiver returns it with `Credit` as its host
//!   [`Link::consume`]s the bytes (writes them to claude's socket, or feeds them to the
//!   engine). A claude that does not read stops its own connection's credit and nothing else;
//!   the stream is always read.
//! - **Keepalive**: a link silent for [`LinkConfig::keepalive_interval_ms`] is pinged; no
//!   bytes within [`LinkConfig::keepalive_timeout_ms`] after it end the link.
//! - **A dead link** (end of stream, keepalive, a fault either side) closes every connection
//!   ([`LinkEvent::Closed`] for each, then [`LinkEvent::Dead`]); the bridge then removes its lock
//!   and exits. A peer that broke a rule is told which in a `Fault` frame.
//!
//! ## Attached to an engine
//!
//! [`LinkAttach`] joins the editor end to an [`Engine`](crate::Engine) directly: each
//! connection the bridge opens is an engine connection, so a host serves claude's remote
//! sockets without a loopback hop of its own (see its module for who calls what). A face that
//! owns a bare engine (the napi and wasm engines) keeps one in a [`LinkSlot`].
//!
//! ## Limits
//!
//! | limit | value | why |
//! |---|---|---|
//! | [`MAX_DATA_FRAME_BYTES`] | 64 KiB | one socket read; frames of many connections interleave |
//! | [`MAX_HELLO_BYTES`] | 64 KiB | bounds what a peer buffers before it says who it is |
//! | [`MAX_HELLO_FOLDERS`] | 256 | bounds the lock the bridge writes |
//! | [`MAX_FAULT_BYTES`] | 1 KiB | a line for a person |
//! | `window_bytes` | 4 MiB | per-connection credit: keeps a pipe busy, bounds the receiver's buffer |
//! | `keepalive_interval_ms` / `keepalive_timeout_ms` | 15 s / 10 s | a dropped SSH session is noticed |
//! | `max_connections` | 256 | connections open at once |

mod attach;
mod end;
mod error;
mod frame;
mod hello;
mod ids;
mod slot;
#[cfg(test)]
mod tests;

pub use attach::{AttachEvent, LinkAttach};
pub use end::{Link, LinkConfig, LinkConnId, LinkEvent, LinkRole};
pub use error::{LinkError, LinkFault, SHUTDOWN_REASON};
pub use frame::{FrameKind, HEADER_BYTES, MAX_DATA_FRAME_BYTES, MAX_FAULT_BYTES, MAX_HELLO_BYTES};
pub use hello::{Hello, LINK_VERSION, MAX_HELLO_FOLDERS, peek_hello};
pub use slot::{AttachRefusal, LinkSlot, NeedsTime, editor_hello};
