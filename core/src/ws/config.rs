//! Limits and timers of one WebSocket connection.

/// Limits and timers for a [`ServerSocket`](super::ServerSocket).
///
/// Every limit bounds what a peer can make the server buffer; every timer is measured on the
/// host-supplied [`Timestamp`](crate::Timestamp) clock.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WsConfig {
    /// Largest data message accepted, in payload bytes summed over all its fragments. A frame
    /// whose header would take the message past it fails the connection with 1009 before any of
    /// its payload is buffered. Default 64 MiB: the CLI sends whole files in `openDiff` and caps
    /// its own inbound messages at 16 MiB, so this admits those with room.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_message_bytes: usize,
    /// Most frames one data message may span (the first frame plus its continuations); one more
    /// fails the connection with 1009. Default 131 072: Autobahn's 9.x cases send 4 MiB in
    /// 64-byte fragments (65 536 frames).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_fragments: usize,
    /// Receive silence, in milliseconds, after which a ping is sent. 0 sends no keepalive pings.
    /// Default 30 000.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub keepalive_interval_ms: u64,
    /// Milliseconds to wait, after a keepalive ping, for any byte from the peer; none by then
    /// means the connection is half-open and the socket finishes with
    /// [`Finished::KeepaliveTimeout`](super::Finished::KeepaliveTimeout). Default 10 000.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub keepalive_timeout_ms: u64,
    /// Milliseconds to wait, after we sent a close frame, for the peer's close frame; none by
    /// then finishes the socket with [`Finished::CloseTimeout`](super::Finished::CloseTimeout).
    /// Default 5 000.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub close_timeout_ms: u64,
    /// Whether binary data messages are delivered ([`Message::Binary`](super::Message::Binary)).
    /// When false (the default: the IDE protocol is text only) a binary frame fails the
    /// connection with 1003.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub accept_binary: bool,
}

impl Default for WsConfig {
    fn default() -> Self {
        WsConfig {
            max_message_bytes: 64 * 1024 * 1024,
            max_fragments: 131_072,
            keepalive_interval_ms: 30_000,
            keepalive_timeout_ms: 10_000,
            close_timeout_ms: 5_000,
            accept_binary: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_admit_a_16_mib_message_and_autobahn_fragmentation() {
        let config = WsConfig::default();
        assert_eq!(config.max_message_bytes, 67_108_864);
        assert!(config.max_message_bytes > 16 * 1024 * 1024);
        assert_eq!(config.max_fragments, 131_072);
        assert!(config.max_fragments >= 4 * 1024 * 1024 / 64);
        assert_eq!(config.keepalive_interval_ms, 30_000);
        assert_eq!(config.keepalive_timeout_ms, 10_000);
        assert_eq!(config.close_timeout_ms, 5_000);
        assert!(!config.accept_binary);
    }
}
