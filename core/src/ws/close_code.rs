//! Close status codes (RFC 6455 §7.4 and the IANA "WebSocket Close Code Number" registry).

/// 1000: the purpose for which the connection was established has been fulfilled.
pub const NORMAL: u16 = 1000;
/// 1001: the endpoint is going away (server shutting down, page navigated away).
pub const GOING_AWAY: u16 = 1001;
/// 1002: the endpoint is terminating the connection due to a protocol error.
pub const PROTOCOL_ERROR: u16 = 1002;
/// 1003: the endpoint received a type of data it cannot accept (here: binary messages).
pub const UNSUPPORTED_DATA: u16 = 1003;
/// 1005: reserved to mean "no status code was present"; never sent in a close frame. Passing it
/// to [`ServerSocket::close`](super::ServerSocket::close) sends a close frame with no body.
pub const NO_STATUS: u16 = 1005;
/// 1006: reserved to mean "closed without a close frame"; never sent in a close frame.
pub const ABNORMAL: u16 = 1006;
/// 1007: a message's data was inconsistent with its type (e.g. invalid UTF-8 in text).
pub const INVALID_PAYLOAD: u16 = 1007;
/// 1008: a message violated the endpoint's policy (generic, when no other code fits).
pub const POLICY_VIOLATION: u16 = 1008;
/// 1009: a message was too big to process.
pub const MESSAGE_TOO_BIG: u16 = 1009;
/// 1010: the client expected the server to negotiate an extension it did not.
pub const MANDATORY_EXTENSION: u16 = 1010;
/// 1011: the server met an unexpected condition that prevented it from fulfilling the request.
pub const INTERNAL_ERROR: u16 = 1011;
/// 1012: the service is restarting (IANA registry).
pub const SERVICE_RESTART: u16 = 1012;
/// 1013: the service is overloaded, try again later (IANA registry).
pub const TRY_AGAIN_LATER: u16 = 1013;
/// 1014: a gateway or proxy received an invalid response from upstream (IANA registry).
pub const BAD_GATEWAY: u16 = 1014;

/// Whether `code` may appear in a close frame received from a peer.
///
/// Valid: 1000-1003, 1007-1014 and 3000-4999. Invalid: 0-999 (RFC 6455 §7.4.2: not used),
/// 1004 (reserved), 1005, 1006 and 1015 (RFC 6455 §7.4.1: MUST NOT be set in a close frame),
/// and the unassigned rest of 1016-2999 (reserved for this protocol and its extensions).
/// 1012-1014 are registered with IANA after the RFC; they are accepted, as tungstenite does and
/// as the current Autobahn suite expects (its invalid-code cases 7.9.x no longer list them).
pub const fn is_valid_received(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_codes_match_rfc_6455_and_iana() {
        let valid: Vec<u16> = (0..=u16::MAX).filter(|&c| is_valid_received(c)).collect();
        let mut expected: Vec<u16> = vec![1000, 1001, 1002, 1003];
        expected.extend(1007..=1014);
        expected.extend(3000..=4999);
        assert_eq!(valid, expected);
        for code in [
            0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
        ] {
            assert!(!is_valid_received(code), "{code}");
        }
    }
}
