//! The server's side of the handshake: the 101 that switches to WebSocket, and the complete
//! error responses for every rule a request can break.

use std::fmt;

use ::http::StatusCode;

use super::Accepted;

/// Why an upgrade request was refused; each variant names the rule broken.
///
/// [`write_rejection`] turns it into a complete response; `Display` is a log line (it never
/// contains the token or any other request bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// The head did not end within `max_head_bytes` (431).
    HeadTooLarge,
    /// The head has more than [`super::MAX_HEADERS`] header fields (431).
    TooManyHeaders,
    /// The bytes are not an HTTP/1.x request head (400).
    MalformedHead,
    /// The request is HTTP/1.0; RFC 6455 §4.2.1 needs HTTP/1.1 (400).
    NotHttp11,
    /// The method is not `GET` (405 with `Allow: GET`).
    MethodNotGet,
    /// The request target is not exactly `/`, claude's endpoint (404).
    PathNotRoot,
    /// The request target is not the endpoint's path, for an endpoint other than `/` (404).
    UnknownPath,
    /// There is no `Host` header (400, RFC 9112 §3.2).
    MissingHost,
    /// There is more than one `Host` header (400, RFC 9112 §3.2).
    DuplicateHost,
    /// `Host` is not `127.0.0.1`, `localhost` or `[::1]` with this server's port (403).
    HostNotLoopback,
    /// The request carries an `Origin` header, so it comes from a browser (403).
    OriginPresent,
    /// The endpoint takes only its own page: `Origin` is missing, repeated or another origin
    /// (403).
    OriginNotOwn,
    /// No `x-claude-code-ide-authorization` header (401, same bytes as [`Self::WrongToken`]).
    MissingToken,
    /// The `x-claude-code-ide-authorization` header does not match, or is repeated (401, same
    /// bytes as [`Self::MissingToken`]).
    WrongToken,
    /// No `Upgrade` header lists `websocket` (400).
    NoWebSocketUpgrade,
    /// No `Connection` header lists `upgrade` (400).
    NoConnectionUpgrade,
    /// `Sec-WebSocket-Version` is missing, repeated or not `13` (426 with
    /// `Sec-WebSocket-Version: 13`).
    UnsupportedWebSocketVersion,
    /// `Sec-WebSocket-Key` is missing, repeated or not base64 for 16 bytes (400).
    InvalidWebSocketKey,
    /// The server already serves its maximum number of connections (503). Decided by the
    /// engine at accept time, before any request byte is read.
    TooManyConnections,
}

impl Rejection {
    /// The status code the response carries.
    pub fn status(&self) -> StatusCode {
        match self {
            Rejection::HeadTooLarge | Rejection::TooManyHeaders => {
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE
            }
            Rejection::MalformedHead
            | Rejection::NotHttp11
            | Rejection::MissingHost
            | Rejection::DuplicateHost
            | Rejection::NoWebSocketUpgrade
            | Rejection::NoConnectionUpgrade
            | Rejection::InvalidWebSocketKey => StatusCode::BAD_REQUEST,
            Rejection::MethodNotGet => StatusCode::METHOD_NOT_ALLOWED,
            Rejection::PathNotRoot | Rejection::UnknownPath => StatusCode::NOT_FOUND,
            Rejection::HostNotLoopback | Rejection::OriginPresent | Rejection::OriginNotOwn => {
                StatusCode::FORBIDDEN
            }
            Rejection::MissingToken | Rejection::WrongToken => StatusCode::UNAUTHORIZED,
            Rejection::UnsupportedWebSocketVersion => StatusCode::UPGRADE_REQUIRED,
            Rejection::TooManyConnections => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The status line after `HTTP/1.1 `: the code and its reason phrase (RFC 9110 §15),
    /// spelled here so the module does not carry the `http` crate's table of every reason.
    fn status_line(&self) -> &'static str {
        match self.status() {
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "431 Request Header Fields Too Large",
            StatusCode::BAD_REQUEST => "400 Bad Request",
            StatusCode::METHOD_NOT_ALLOWED => "405 Method Not Allowed",
            StatusCode::NOT_FOUND => "404 Not Found",
            StatusCode::FORBIDDEN => "403 Forbidden",
            StatusCode::UNAUTHORIZED => "401 Unauthorized",
            StatusCode::UPGRADE_REQUIRED => "426 Upgrade Required",
            _ => "503 Service Unavailable",
        }
    }

    /// The log line (`Display`).
    fn message(&self) -> &'static str {
        match self {
            Rejection::HeadTooLarge => "request head too large",
            Rejection::TooManyHeaders => "too many header fields",
            Rejection::MalformedHead => "malformed http request head",
            Rejection::NotHttp11 => "http/1.1 required",
            Rejection::MethodNotGet => "method must be GET",
            Rejection::PathNotRoot => "the only resource is /",
            Rejection::UnknownPath => "no such resource",
            Rejection::MissingHost => "missing host header",
            Rejection::DuplicateHost => "more than one host header",
            Rejection::HostNotLoopback => {
                "host must be 127.0.0.1, localhost or [::1] with this server's port"
            }
            Rejection::OriginPresent => "requests with an origin header are refused",
            Rejection::OriginNotOwn => "origin must be this server's own page",
            Rejection::MissingToken => "missing x-claude-code-ide-authorization header",
            Rejection::WrongToken => "wrong x-claude-code-ide-authorization token",
            Rejection::NoWebSocketUpgrade => "upgrade header must list websocket",
            Rejection::NoConnectionUpgrade => "connection header must list upgrade",
            Rejection::UnsupportedWebSocketVersion => "sec-websocket-version must be 13",
            Rejection::InvalidWebSocketKey => {
                "sec-websocket-key must be one base64 value of 16 bytes"
            }
            Rejection::TooManyConnections => "too many connections",
        }
    }

    /// The response body without its newline: the log line, except that a missing and a wrong
    /// token read the same, so the response does not tell a prober which one it was.
    fn body(&self) -> &'static str {
        match self {
            Rejection::MissingToken | Rejection::WrongToken => {
                "missing or wrong x-claude-code-ide-authorization token"
            }
            other => other.message(),
        }
    }

    /// The header line a status requires, CRLF included, or nothing.
    fn extra_header(&self) -> &'static [u8] {
        match self {
            // RFC 9110 §15.5.6: a 405 response MUST carry an Allow header field.
            Rejection::MethodNotGet => b"Allow: GET\r\n",
            // RFC 6455 §4.4: answer an unsupported version with the versions we support.
            Rejection::UnsupportedWebSocketVersion => b"Sec-WebSocket-Version: 13\r\n",
            _ => b"",
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Appends the 101 response that completes the handshake for `accepted`:
/// `HTTP/1.1 101 Switching Protocols`, `Upgrade: websocket`, `Connection: Upgrade`,
/// `Sec-WebSocket-Accept`, then `Sec-WebSocket-Protocol: mcp` when the client offered it, and
/// the blank line. No `Sec-WebSocket-Extensions`: every extension offer is declined.
pub fn write_accept(accepted: &Accepted, out: &mut Vec<u8>) {
    // RFC 6455 §4.2.2 step 5: status 101, Upgrade, Connection and Sec-WebSocket-Accept.
    out.extend_from_slice(
        b"HTTP/1.1 101 Switching Protocols\r\n\
          Upgrade: websocket\r\n\
          Connection: Upgrade\r\n\
          Sec-WebSocket-Accept: ",
    );
    out.extend_from_slice(&accepted.accept_key);
    out.extend_from_slice(b"\r\n");
    // docs/protocol.md §2: without the subprotocol the CLI closes right after the upgrade.
    if accepted.mcp_subprotocol {
        out.extend_from_slice(b"Sec-WebSocket-Protocol: mcp\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// Appends a complete plain-text error response for `rejection`: status line,
/// `Connection: close`, `Content-Type: text/plain; charset=utf-8`, `Content-Length`, the header
/// the status requires (`Allow` for 405, `Sec-WebSocket-Version` for 426), a blank line and a
/// one-line body saying what is wrong. The host closes the connection after writing it.
pub fn write_rejection(rejection: &Rejection, out: &mut Vec<u8>) {
    let body = rejection.body();
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(rejection.status_line().as_bytes());
    out.extend_from_slice(
        b"\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ",
    );
    out.extend_from_slice((body.len() + 1).to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(rejection.extra_header());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(b"\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Rejection; 19] = [
        Rejection::HeadTooLarge,
        Rejection::TooManyHeaders,
        Rejection::MalformedHead,
        Rejection::NotHttp11,
        Rejection::MethodNotGet,
        Rejection::PathNotRoot,
        Rejection::UnknownPath,
        Rejection::MissingHost,
        Rejection::DuplicateHost,
        Rejection::HostNotLoopback,
        Rejection::OriginPresent,
        Rejection::OriginNotOwn,
        Rejection::MissingToken,
        Rejection::WrongToken,
        Rejection::NoWebSocketUpgrade,
        Rejection::NoConnectionUpgrade,
        Rejection::UnsupportedWebSocketVersion,
        Rejection::InvalidWebSocketKey,
        Rejection::TooManyConnections,
    ];

    #[test]
    fn statuses_per_rule() {
        let codes: Vec<u16> = ALL.iter().map(|r| r.status().as_u16()).collect();
        assert_eq!(
            codes,
            [
                431, 431, 400, 400, 405, 404, 404, 400, 400, 403, 403, 403, 401, 401, 400, 400,
                426, 400, 503
            ]
        );
    }

    #[test]
    fn every_response_is_complete_and_its_content_length_is_right() {
        for rejection in ALL {
            let mut out = Vec::new();
            write_rejection(&rejection, &mut out);
            let text = String::from_utf8(out).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap();
            let status = rejection.status();
            assert!(head.starts_with(&format!(
                "HTTP/1.1 {} {}\r\nConnection: close\r\n",
                status.as_str(),
                status.canonical_reason().unwrap()
            )));
            assert!(head.contains(&format!("\r\nContent-Length: {}", body.len())));
            assert!(body.ends_with('\n') && body.len() > 1);
        }
    }

    #[test]
    fn display_is_lower_case_without_a_trailing_period() {
        for rejection in ALL {
            let text = rejection.to_string();
            assert!(text.starts_with(|c: char| c.is_ascii_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
        assert_eq!(
            Rejection::MissingToken.to_string(),
            "missing x-claude-code-ide-authorization header"
        );
        assert_eq!(
            Rejection::WrongToken.to_string(),
            "wrong x-claude-code-ide-authorization token"
        );
    }

    #[test]
    fn writers_append_after_existing_bytes() {
        let mut out = b"x".to_vec();
        write_rejection(&Rejection::MethodNotGet, &mut out);
        assert_eq!(
            out,
            b"xHTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\
              Content-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\nAllow: GET\r\n\r\n\
              method must be GET\n"
        );
        let accepted = Accepted {
            head_len: 0,
            accept_key: *b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
            mcp_subprotocol: true,
            user_agent: None,
        };
        let mut out = b"y".to_vec();
        write_accept(&accepted, &mut out);
        assert_eq!(
            out,
            b"yHTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
              Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: mcp\r\n\r\n"
        );
    }
}
