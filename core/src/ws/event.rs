//! What a socket hands back: complete messages, and why it finished.

/// A complete data message, borrowed from the socket's buffers until the socket is used again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    /// A text message: valid UTF-8, all fragments joined.
    Text(&'a str),
    /// A binary message, all fragments joined; only returned when
    /// [`WsConfig::accept_binary`](super::WsConfig::accept_binary) is set.
    Binary(&'a [u8]),
}

/// Why a socket is finished: the transport must be closed once `out` has been flushed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finished {
    /// The peer sent a valid close frame: either it started the close handshake and we replied
    /// echoing its code (RFC 6455 §5.5.1), or it answered ours. `code` is None when the peer's
    /// close frame had no body.
    PeerClosed {
        /// The peer's status code, if its close frame carried one.
        code: Option<u16>,
        /// The peer's reason text (empty when none).
        reason: String,
    },
    /// The peer broke a protocol rule or a limit and we failed the connection (RFC 6455
    /// §7.1.7), sending a close frame with this code and reason unless we had sent one already.
    Failed {
        /// The close code sent (see [`close_code`](super::close_code)).
        code: u16,
        /// The reason sent, naming the rule broken.
        reason: &'static str,
    },
    /// A keepalive ping got no byte at all back within `keepalive_timeout_ms`: half-open.
    KeepaliveTimeout,
    /// We sent a close frame and the peer's did not arrive within `close_timeout_ms`.
    CloseTimeout,
}
