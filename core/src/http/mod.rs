//! The HTTP/1.1 side of the WebSocket opening handshake (RFC 6455 §4.2), sans IO.
//!
//! The host appends received bytes to a per-connection buffer and calls [`parse_upgrade`] after
//! each read. It answers [`Upgrade::Partial`] until the request head is complete (and at most
//! [`UpgradePolicy::max_head_bytes`] long), then either [`Upgrade::Accepted`] — write
//! [`write_accept`]'s bytes and hand `buf[head_len..]` to the WebSocket layer, as the client may
//! have sent its first frames in the same packet — or [`Upgrade::Rejected`] — write
//! [`write_rejection`]'s bytes and close the connection.
//!
//! Parsing is push-style over the caller's slice (httparse, headers in a stack array) and never
//! panics, whatever the bytes. Every rule the request must meet, and the order the rules are
//! checked in, is documented on [`parse_upgrade`].
//!
//! The rules that differ between endpoints are an [`UpgradePolicy`]: the path, the
//! [`OriginRule`] (claude's endpoint forbids `Origin`; the relay's page link requires its own
//! page's) and where the [`Credential`] is (the token header, or the socket's first message).
//! A server that also answers plain `GET`s on the port (the relay's page) calls
//! [`parse_request`], which returns other targets to it after the same head, method and `Host`
//! checks.

mod base64;
mod response;
mod upgrade;

pub use response::{Rejection, write_accept, write_rejection};
pub use upgrade::{
    Accepted, Credential, DEFAULT_MAX_HEAD_BYTES, MAX_HEADERS, OriginRule, Request, Upgrade,
    UpgradePolicy, accept_key, parse_request, parse_upgrade,
};
