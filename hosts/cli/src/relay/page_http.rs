//! The relay's HTTP side, sans IO: what to answer to one request head from the browser.
//!
//! The core's upgrade parser is the claude endpoint's policy (target `/`, no `Origin` at all,
//! the claude token); the page link needs the opposite (an `Origin` that must be ours), so
//! requests are parsed here with httparse and only the RFC 6455 accept key comes from the core.
//!
//! Checks, in order, the first broken rule deciding the answer: a complete head within
//! [`MAX_HEAD_BYTES`] (431) that parses (400); method `GET` (405); exactly one `Host`, equal to
//! `127.0.0.1:<port>` (403: DNS rebinding). Then by path: `/link` needs `Origin` equal to
//! `http://127.0.0.1:<port>` (403: another site's page), the link secret as `?secret=` (401,
//! compared in constant time), and a WebSocket upgrade (`Upgrade`, `Connection`, version 13, a
//! 16-byte key: 400 / 426); the demo files need nothing more; anything else is 404.

use idelink_core::AuthToken;
use idelink_core::http::accept_key;

/// Largest request head read from the browser.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
const MAX_HEADERS: usize = 64;

/// What to do with the bytes received so far on a browser connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// The head is incomplete: read more.
    Partial,
    /// Serve the file at this URL path (already known to be one of ours).
    Serve(String),
    /// Upgrade to the page link: answer 101 with this accept key; bytes after `head_len` are
    /// WebSocket data.
    Link {
        /// Length of the request head.
        head_len: usize,
        /// `Sec-WebSocket-Accept`.
        accept_key: [u8; 28],
    },
    /// Refuse with this status and a one-line reason (sent as the body).
    Refuse(u16, &'static str),
}

/// Decides on the head at the start of `buf` for a relay listening on `port` whose link
/// requires `secret`; `is_file` says whether a path is one the relay serves.
pub fn decide(
    buf: &[u8],
    port: u16,
    secret: &AuthToken,
    is_file: impl Fn(&str) -> bool,
) -> Decision {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let head_len = match request.parse(buf.get(..MAX_HEAD_BYTES).unwrap_or(buf)) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() >= MAX_HEAD_BYTES => {
            return Decision::Refuse(431, "request head too large");
        }
        Ok(httparse::Status::Partial) => return Decision::Partial,
        Err(_) => return Decision::Refuse(400, "not an HTTP/1.1 request"),
    };
    if request.version != Some(1) {
        return Decision::Refuse(400, "HTTP/1.1 required");
    }
    if request.method != Some("GET") {
        return Decision::Refuse(405, "only GET is served");
    }
    let headers = request.headers;
    let origin = format!("http://127.0.0.1:{port}");
    let host = &origin["http://".len()..];
    match single(headers, "host") {
        Some(value) if value.eq_ignore_ascii_case(host.as_bytes()) => {}
        _ => return Decision::Refuse(403, "Host must be the relay's own 127.0.0.1 address"),
    }
    let target = request.path.unwrap_or("");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path != "/link" {
        return if is_file(path) {
            Decision::Serve(path.to_owned())
        } else {
            Decision::Refuse(404, "no such file")
        };
    }
    match single(headers, "origin") {
        Some(value) if value == origin.as_bytes() => {}
        _ => return Decision::Refuse(403, "the link is only for the relay's own page"),
    }
    let presented = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("secret="));
    if !presented.is_some_and(|s| secret.matches(s.as_bytes())) {
        return Decision::Refuse(
            401,
            "wrong or missing link secret: open the URL idelink printed",
        );
    }
    if !lists(headers, "upgrade", "websocket") || !lists(headers, "connection", "upgrade") {
        return Decision::Refuse(400, "not a WebSocket upgrade");
    }
    if single(headers, "sec-websocket-version") != Some(b"13") {
        return Decision::Refuse(426, "WebSocket version 13 required");
    }
    match single(headers, "sec-websocket-key") {
        Some(key) if is_base64_of_16(key) => Decision::Link {
            head_len,
            accept_key: accept_key(key),
        },
        _ => Decision::Refuse(400, "bad Sec-WebSocket-Key"),
    }
}

/// The 101 answer for [`Decision::Link`].
pub fn switching_protocols(accept_key: &[u8; 28]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ".to_vec();
    out.extend_from_slice(accept_key);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A complete response that closes the connection. Every answer forbids framing, caching and
/// referrers, and pins scripts, styles and connections to the relay's own origin.
pub fn response(status: u16, content_type: &str, body: &[u8], port: u16) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        _ => "Error",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer\r\nContent-Security-Policy: default-src 'none'; \
         script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; \
         connect-src 'self' ws://127.0.0.1:{port}; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'\r\n",
        body.len()
    )
    .into_bytes();
    if status == 405 {
        out.extend_from_slice(b"Allow: GET\r\n");
    }
    if status == 426 {
        out.extend_from_slice(b"Sec-WebSocket-Version: 13\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// The value of the one header named `name`; None when absent or repeated.
fn single<'a>(headers: &[httparse::Header<'a>], name: &str) -> Option<&'a [u8]> {
    let mut found = headers.iter().filter(|h| h.name.eq_ignore_ascii_case(name));
    match (found.next(), found.next()) {
        (Some(header), None) => Some(header.value.trim_ascii()),
        _ => None,
    }
}

/// Whether some `name` header lists `token` (comma-separated, any case).
fn lists(headers: &[httparse::Header], name: &str, token: &str) -> bool {
    headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case(name))
        .flat_map(|h| h.value.split(|b| *b == b','))
        .any(|item| item.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
}

/// RFC 6455 §4.1: the key is base64 for 16 bytes, 24 characters ending in `==`.
fn is_base64_of_16(key: &[u8]) -> bool {
    key.len() == 24
        && key.ends_with(b"==")
        && key[..22]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORT: u16 = 4100;

    fn secret() -> AuthToken {
        AuthToken::from_entropy([9; 16])
    }

    fn link_request(target: &str, origin: Option<&str>, host: &str) -> Vec<u8> {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        format!(
            "GET {target} HTTP/1.1\r\nHost: {host}\r\n{origin}Upgrade: websocket\r\n\
             Connection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
        .into_bytes()
    }

    fn decide_link(target: &str, origin: Option<&str>, host: &str) -> Decision {
        decide(&link_request(target, origin, host), PORT, &secret(), |_| {
            false
        })
    }

    #[test]
    fn the_link_needs_our_origin_our_host_and_the_secret() {
        let good = format!("/link?secret={}", secret().as_str());
        let origin = Some("http://127.0.0.1:4100");
        let host = "127.0.0.1:4100";
        match decide_link(&good, origin, host) {
            Decision::Link { accept_key, .. } => {
                assert_eq!(&accept_key, b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
            }
            other => panic!("{other:?}"),
        }
        let refused = |d: Decision| match d {
            Decision::Refuse(status, _) => status,
            other => panic!("not refused: {other:?}"),
        };
        assert_eq!(refused(decide_link("/link", origin, host)), 401);
        assert_eq!(refused(decide_link("/link?secret=00", origin, host)), 401);
        assert_eq!(refused(decide_link(&good, None, host)), 403);
        assert_eq!(
            refused(decide_link(&good, Some("http://evil.example"), host)),
            403
        );
        assert_eq!(
            refused(decide_link(&good, Some("http://127.0.0.1:4101"), host)),
            403
        );
        assert_eq!(
            refused(decide_link(&good, origin, "evil.example:4100")),
            403
        );
        assert_eq!(refused(decide_link(&good, origin, "127.0.0.1:4101")), 403);
    }

    #[test]
    fn files_are_served_to_our_host_only() {
        let get = |target: &str, host: &str| {
            let request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n");
            decide(request.as_bytes(), PORT, &secret(), |p| p == "/app.js")
        };
        assert_eq!(
            get("/app.js?v=1", "127.0.0.1:4100"),
            Decision::Serve("/app.js".into())
        );
        assert!(matches!(
            get("/nope", "127.0.0.1:4100"),
            Decision::Refuse(404, _)
        ));
        assert!(matches!(
            get("/app.js", "rebound.example:4100"),
            Decision::Refuse(403, _)
        ));
    }

    #[test]
    fn partial_oversized_and_malformed_heads() {
        let s = secret();
        assert_eq!(
            decide(b"GET / HTTP/1.1\r\nHo", PORT, &s, |_| true),
            Decision::Partial
        );
        let huge = [b'a'; MAX_HEAD_BYTES + 1];
        assert!(matches!(
            decide(&huge, PORT, &s, |_| true),
            Decision::Refuse(400 | 431, _)
        ));
        let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert!(matches!(
            decide(long.as_bytes(), PORT, &s, |_| true),
            Decision::Refuse(431, _)
        ));
        assert!(matches!(
            decide(
                b"POST / HTTP/1.1\r\nHost: 127.0.0.1:4100\r\n\r\n",
                PORT,
                &s,
                |_| true
            ),
            Decision::Refuse(405, _)
        ));
    }

    #[test]
    fn responses_carry_the_security_headers() {
        let text = String::from_utf8(response(404, "text/plain", b"no", PORT)).unwrap();
        assert!(text.starts_with("HTTP/1.1 404 Not Found\r\n"));
        assert!(text.contains("frame-ancestors 'none'"));
        assert!(text.contains("connect-src 'self' ws://127.0.0.1:4100;"));
        assert!(text.ends_with("\r\n\r\nno"));
    }
}
