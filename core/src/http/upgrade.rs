//! Parsing and validating the client's WebSocket upgrade request (RFC 6455 §4.2.1).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha1::{Digest, Sha1};

use super::Rejection;
use crate::token::AuthToken;

/// Default cap on the request head (request line + header fields + blank line): 16 KiB. The
/// CLI's handshake is under 1 KiB; the cap bounds what one connection can make us buffer.
pub const DEFAULT_MAX_HEAD_BYTES: usize = 16 * 1024;

/// Most header fields a request head may carry; one more is answered 431. The CLI sends about
/// ten. Headers are parsed into a stack array of this size.
pub const MAX_HEADERS: usize = 64;

/// RFC 6455 §1.3: the GUID the server appends to the client's key before hashing.
const WEBSOCKET_GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The header carrying the lock file's auth token (docs/protocol.md §2).
const AUTH_HEADER: &str = "x-claude-code-ide-authorization";

/// What a request must satisfy to be upgraded.
#[derive(Debug, Clone, Copy)]
pub struct UpgradePolicy<'a> {
    /// The port this server listens on; the `Host` header must name exactly this port.
    pub port: u16,
    /// The token the `x-claude-code-ide-authorization` header must carry. `None` skips the
    /// token check entirely: only for a test-only echo server, never for a served endpoint.
    pub auth_token: Option<&'a AuthToken>,
    /// Largest request head accepted, in bytes ([`DEFAULT_MAX_HEAD_BYTES`] unless the host has
    /// a reason); a longer head is answered 431.
    pub max_head_bytes: usize,
}

/// The outcome of [`parse_upgrade`] on the bytes received so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upgrade {
    /// The head is not complete yet and still within the cap: read more, then call again with
    /// the whole buffer.
    Partial,
    /// A valid upgrade: write [`super::write_accept`]'s response and switch to WebSocket.
    Accepted(Accepted),
    /// An invalid request: write [`super::write_rejection`]'s response, then close.
    Rejected(Rejection),
}

/// A request that passed every check, with what the 101 response and the session need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// Length of the request head in bytes, blank line included. `buf[head_len..]` is already
    /// WebSocket data from the client and must be fed to the WebSocket layer, not dropped.
    pub head_len: usize,
    /// The `Sec-WebSocket-Accept` value for the client's key (see [`accept_key`]).
    pub accept_key: [u8; 28],
    /// The client offered the `mcp` subprotocol, so the 101 must select it (docs/protocol.md §2:
    /// the CLI closes right after an upgrade that does not).
    pub mcp_subprotocol: bool,
    /// The first `User-Agent` header, decoded as UTF-8 with invalid bytes replaced by U+FFFD;
    /// for logs and diagnostics only (its length is bounded by the head cap).
    pub user_agent: Option<String>,
}

/// RFC 6455 §4.2.2 step 5.4: `base64(SHA-1(key ++ "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))`,
/// where `key` is the `Sec-WebSocket-Key` value without surrounding whitespace. Always 28 ASCII
/// bytes. Any input is hashed; validating the key is [`parse_upgrade`]'s job.
pub fn accept_key(sec_websocket_key: &[u8]) -> [u8; 28] {
    let mut sha1 = Sha1::new();
    sha1.update(sec_websocket_key);
    sha1.update(WEBSOCKET_GUID);
    let digest = sha1.finalize();
    let mut out = [0u8; 28];
    STANDARD
        .encode_slice(digest, &mut out)
        .expect("a 20-byte SHA-1 digest is exactly 28 padded base64 bytes");
    out
}

/// Parses the request head at the start of `buf` and decides whether to upgrade.
///
/// Call it again with the whole buffer each time more bytes arrive. Any bytes are safe: this
/// never panics. Only the first `policy.max_head_bytes` bytes are ever parsed.
///
/// Checks, in this order; the first broken rule decides the answer:
/// 1. size and syntax: incomplete within the cap → [`Upgrade::Partial`]; no complete head within
///    the cap or more than [`MAX_HEADERS`] headers → 431; not HTTP/1.x syntax → 400; not
///    HTTP/1.1 → 400;
/// 2. method `GET` → else 405 (`Allow: GET`);
/// 3. request target exactly `/` (no query, no absolute form) → else 404;
/// 4. exactly one `Host`, equal to `127.0.0.1:<port>`, `localhost:<port>` (any case) or
///    `[::1]:<port>` → 400 when missing or repeated, 403 for any other value;
/// 5. no `Origin` header at all → else 403;
/// 6. exactly one `x-claude-code-ide-authorization` that [`AuthToken::matches`] → else 401
///    (skipped when the policy has no token);
/// 7. `Upgrade` lists `websocket` and `Connection` lists `upgrade` → else 400;
/// 8. exactly one `Sec-WebSocket-Version: 13` → else 426 (`Sec-WebSocket-Version: 13`);
/// 9. exactly one `Sec-WebSocket-Key` that is base64 for 16 bytes → else 400.
///
/// Why this order: nothing can be trusted until the head is bounded and well formed. Method and
/// path reveal only that an HTTP server listens here, which connecting already proved. `Host`
/// and `Origin` come before the token so that a browser page (DNS rebinding, cross-site
/// WebSocket) is turned away whatever it sends and never learns how the token check answers.
/// The token comes before every WebSocket detail so that a client without it learns nothing
/// about what this server speaks (versions, subprotocols). Version precedes key as RFC 6455
/// §4.4 lets a client retry with version 13, and the key only means something in version 13.
///
/// Extension offers (`permessage-deflate`, …) are declined by omission: the 101 never carries
/// `Sec-WebSocket-Extensions` (RFC 6455 §9.1).
pub fn parse_upgrade(buf: &[u8], policy: &UpgradePolicy) -> Upgrade {
    let window = buf.get(..policy.max_head_bytes).unwrap_or(buf);
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(window) {
        Ok(httparse::Status::Complete(head_len)) => match validate(&request, head_len, policy) {
            Ok(accepted) => Upgrade::Accepted(accepted),
            Err(rejection) => Upgrade::Rejected(rejection),
        },
        Ok(httparse::Status::Partial) if buf.len() > policy.max_head_bytes => {
            Upgrade::Rejected(Rejection::HeadTooLarge)
        }
        Ok(httparse::Status::Partial) => Upgrade::Partial,
        Err(httparse::Error::TooManyHeaders) => Upgrade::Rejected(Rejection::TooManyHeaders),
        Err(_) => Upgrade::Rejected(Rejection::MalformedHead),
    }
}

/// Steps 1 (version) to 9 of [`parse_upgrade`] on a complete head of `head_len` bytes.
fn validate(
    request: &httparse::Request,
    head_len: usize,
    policy: &UpgradePolicy,
) -> Result<Accepted, Rejection> {
    let headers: &[httparse::Header] = request.headers;

    // RFC 6455 §4.2.1: the opening handshake is an HTTP/1.1 or higher GET request.
    if request.version != Some(1) {
        return Err(Rejection::NotHttp11);
    }
    if request.method != Some("GET") {
        return Err(Rejection::MethodNotGet);
    }
    // The CLI always asks for `ws://127.0.0.1:<port>/`; nothing else is served.
    if request.path != Some("/") {
        return Err(Rejection::PathNotRoot);
    }

    // RFC 9112 §3.2: a server MUST respond 400 to a request that lacks a Host header field or
    // carries more than one.
    let host = match occurrences(values(headers, "host")) {
        Occurrences::Absent => return Err(Rejection::MissingHost),
        Occurrences::Repeated => return Err(Rejection::DuplicateHost),
        Occurrences::Single(host) => host,
    };
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends its own name.
    if !host_is_loopback(host, policy.port) {
        return Err(Rejection::HostNotLoopback);
    }
    // RFC 6455 §4.1: a browser client MUST send Origin (§10.2: so that servers can refuse
    // cross-origin pages); the CLI sends none, so any Origin is a web page.
    if values(headers, "origin").next().is_some() {
        return Err(Rejection::OriginPresent);
    }

    if let Some(token) = policy.auth_token {
        match occurrences(values(headers, AUTH_HEADER)) {
            Occurrences::Absent => return Err(Rejection::MissingToken),
            Occurrences::Single(presented) if token.matches(presented) => {}
            Occurrences::Single(_) | Occurrences::Repeated => return Err(Rejection::WrongToken),
        }
    }

    // RFC 6455 §4.2.1 items 3 and 4: an Upgrade field containing "websocket" and a Connection
    // field containing "upgrade", both ASCII case-insensitive; when the client's handshake
    // does not match, the server MUST answer with an error code such as 400 Bad Request.
    if !any_element(headers, "upgrade", |e| e.eq_ignore_ascii_case(b"websocket")) {
        return Err(Rejection::NoWebSocketUpgrade);
    }
    if !any_element(headers, "connection", |e| {
        e.eq_ignore_ascii_case(b"upgrade")
    }) {
        return Err(Rejection::NoConnectionUpgrade);
    }

    // RFC 6455 §4.2.1 item 6 and §4.4: version 13 only; otherwise answer 426 with the
    // versions we speak in Sec-WebSocket-Version.
    if !matches!(
        occurrences(values(headers, "sec-websocket-version")),
        Occurrences::Single(b"13")
    ) {
        return Err(Rejection::UnsupportedWebSocketVersion);
    }

    // RFC 6455 §4.2.1 item 5: a Sec-WebSocket-Key whose value base64-decodes to 16 bytes;
    // §11.3.1: the field MUST NOT appear more than once.
    let key = match occurrences(values(headers, "sec-websocket-key")) {
        Occurrences::Single(key) if key_is_valid(key) => key,
        _ => return Err(Rejection::InvalidWebSocketKey),
    };

    // RFC 7936 §3: subprotocol names match case-sensitively; the list may span several fields.
    let mcp_subprotocol = any_element(headers, "sec-websocket-protocol", |e| e == b"mcp");
    let user_agent = values(headers, "user-agent")
        .next()
        .map(|ua| String::from_utf8_lossy(ua).into_owned());

    Ok(Accepted {
        head_len,
        accept_key: accept_key(key),
        mcp_subprotocol,
        user_agent,
    })
}

/// The values of every header named `name` (ASCII case-insensitive), in order. httparse has
/// already trimmed surrounding whitespace.
fn values<'b>(headers: &[httparse::Header<'b>], name: &str) -> impl Iterator<Item = &'b [u8]> {
    headers
        .iter()
        .filter(move |h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value)
}

/// How often a header occurs, with its value when it occurs exactly once.
enum Occurrences<'b> {
    Absent,
    Single(&'b [u8]),
    Repeated,
}

fn occurrences<'b>(mut values: impl Iterator<Item = &'b [u8]>) -> Occurrences<'b> {
    match (values.next(), values.next()) {
        (None, _) => Occurrences::Absent,
        (Some(value), None) => Occurrences::Single(value),
        (Some(_), Some(_)) => Occurrences::Repeated,
    }
}

/// Whether any element of the comma-separated lists in the headers named `name` satisfies
/// `wanted`. RFC 9110 §5.6.1: elements are separated by commas with optional whitespace, and
/// empty elements are ignored; RFC 9110 §5.3: repeated fields form one list.
fn any_element(headers: &[httparse::Header], name: &str, wanted: impl Fn(&[u8]) -> bool) -> bool {
    values(headers, name).any(|value| {
        value
            .split(|&b| b == b',')
            .map(<[u8]>::trim_ascii)
            .any(|element| !element.is_empty() && wanted(element))
    })
}

/// Whether `host` is a loopback authority with exactly `port` (decimal, no leading zeros).
/// Only the three spellings a local client uses are allowed, so no resolver trick (`127.1`,
/// `0x7f.0.0.1`, `2130706433`, a rebinding DNS name) ever matches.
fn host_is_loopback(host: &[u8], port: u16) -> bool {
    let port = port.to_string();
    let Some(name) = host
        .strip_suffix(port.as_bytes())
        .and_then(|rest| rest.strip_suffix(b":"))
    else {
        return false;
    };
    name == b"127.0.0.1" || name == b"[::1]" || name.eq_ignore_ascii_case(b"localhost")
}

/// RFC 6455 §4.1: the key is a 16-byte nonce in base64 (RFC 4648 §4, padded): 24 characters.
fn key_is_valid(key: &[u8]) -> bool {
    let mut decoded = [0u8; 18];
    key.len() == 24 && matches!(STANDARD.decode_slice(key, &mut decoded), Ok(16))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::http::{write_accept, write_rejection};

    const PORT: u16 = 41234;
    const TOKEN: &str = "00112233445566778899aabbccddeeff";
    /// RFC 6455 §1.3's example key and the accept value it gives.
    const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";
    const ACCEPT: &[u8; 28] = b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    /// The smallest request this server upgrades.
    const VALID: [(&str, &str); 6] = [
        ("Host", "127.0.0.1:41234"),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", KEY),
        ("X-Claude-Code-Ide-Authorization", TOKEN),
    ];

    const RESPONSE_101: &str = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
        Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";

    fn head(request_line: &str, headers: &[(&str, &str)]) -> Vec<u8> {
        let mut text = format!("{request_line}\r\n");
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("\r\n");
        text.into_bytes()
    }

    fn valid() -> Vec<u8> {
        head("GET / HTTP/1.1", &VALID)
    }

    /// [`VALID`] with header `name` set to `value`: replaced in place, removed for `None`,
    /// appended when absent.
    fn valid_with(name: &str, value: Option<&str>) -> Vec<u8> {
        let mut headers: Vec<(&str, &str)> = VALID
            .iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case(name))
            .copied()
            .collect();
        if let Some(value) = value {
            match VALID.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) {
                Some(at) => headers.insert(at, (name, value)),
                None => headers.push((name, value)),
            }
        }
        head("GET / HTTP/1.1", &headers)
    }

    /// [`VALID`] plus extra header fields at the end.
    fn valid_plus(extra: &[(&str, &str)]) -> Vec<u8> {
        head("GET / HTTP/1.1", &[&VALID[..], extra].concat())
    }

    fn parse_with(buf: &[u8], max_head_bytes: usize) -> Upgrade {
        let token = AuthToken::parse(TOKEN).unwrap();
        let policy = UpgradePolicy {
            port: PORT,
            auth_token: Some(&token),
            max_head_bytes,
        };
        parse_upgrade(buf, &policy)
    }

    fn parse(buf: &[u8]) -> Upgrade {
        parse_with(buf, DEFAULT_MAX_HEAD_BYTES)
    }

    fn accepted(buf: &[u8]) -> Accepted {
        match parse(buf) {
            Upgrade::Accepted(accepted) => accepted,
            other => panic!(
                "expected Accepted for {:?}, got {other:?}",
                String::from_utf8_lossy(buf)
            ),
        }
    }

    fn rejection_bytes(rejection: Rejection) -> String {
        let mut out = Vec::new();
        write_rejection(&rejection, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// `buf` is refused with `rejection`, whose response is exactly `response`.
    fn assert_rejected(buf: &[u8], rejection: Rejection, response: &str) {
        assert_eq!(
            parse(buf),
            Upgrade::Rejected(rejection),
            "request {:?}",
            String::from_utf8_lossy(buf)
        );
        assert_eq!(rejection_bytes(rejection), response);
    }

    fn error_response(status: &str, extra: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\n{extra}\r\n{body}",
            body.len()
        )
    }

    #[test]
    fn accept_key_matches_rfc_6455_section_1_3() {
        assert_eq!(&accept_key(KEY.as_bytes()), ACCEPT);
    }

    #[test]
    fn minimal_valid_request_is_accepted_without_subprotocol() {
        let buf = valid();
        let accepted = accepted(&buf);
        assert_eq!(
            accepted,
            Accepted {
                head_len: buf.len(),
                accept_key: *ACCEPT,
                mcp_subprotocol: false,
                user_agent: None,
            }
        );
        let mut out = Vec::new();
        write_accept(&accepted, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), RESPONSE_101);
    }

    #[test]
    fn real_cli_request_is_accepted_and_following_frame_bytes_are_kept() {
        let head = "GET / HTTP/1.1\r\n\
            Host: 127.0.0.1:41234\r\n\
            Connection: Upgrade\r\n\
            Upgrade: websocket\r\n\
            Sec-WebSocket-Version: 13\r\n\
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
            Sec-WebSocket-Protocol: mcp\r\n\
            Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\
            X-Claude-Code-Ide-Authorization: 00112233445566778899aabbccddeeff\r\n\
            User-Agent: claude-code/2.1.332 (external, cli)\r\n\
            \r\n";
        // RFC 6455 §5.7: a masked text frame "Hello".
        let frame = [
            0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
        ];
        let buf = [head.as_bytes(), &frame].concat();
        let accepted = accepted(&buf);
        assert_eq!(
            accepted,
            Accepted {
                head_len: head.len(),
                accept_key: *ACCEPT,
                mcp_subprotocol: true,
                user_agent: Some("claude-code/2.1.332 (external, cli)".to_owned()),
            }
        );
        assert_eq!(&buf[accepted.head_len..], &frame);
        let mut out = b"earlier output|".to_vec();
        write_accept(&accepted, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "earlier output|HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\
             Sec-WebSocket-Protocol: mcp\r\n\r\n"
        );
    }

    #[test]
    fn every_strict_prefix_is_partial_and_the_whole_is_accepted() {
        let buf = valid_plus(&[("Sec-WebSocket-Protocol", "mcp"), ("User-Agent", "ua")]);
        for end in 0..buf.len() {
            assert_eq!(
                parse(&buf[..end]),
                Upgrade::Partial,
                "prefix of {end} bytes"
            );
        }
        let whole = accepted(&buf);
        assert_eq!(whole.head_len, buf.len());
        assert!(whole.mcp_subprotocol);
        assert_eq!(whole.user_agent.as_deref(), Some("ua"));
    }

    const HEAD_TOO_LARGE: &str = "HTTP/1.1 431 Request Header Fields Too Large\r\n\
        Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n\
        \r\nrequest head too large\n";

    #[test]
    fn incomplete_head_is_partial_up_to_the_cap_then_431() {
        let buf = valid();
        let incomplete = &buf[..buf.len() - 1];
        let cap = incomplete.len();
        assert_eq!(parse_with(incomplete, cap), Upgrade::Partial);
        assert_eq!(parse_with(&buf[..cap - 1], cap), Upgrade::Partial);
        let over = [incomplete, b"x"].concat();
        assert_eq!(
            parse_with(&over, cap),
            Upgrade::Rejected(Rejection::HeadTooLarge)
        );
        assert_eq!(rejection_bytes(Rejection::HeadTooLarge), HEAD_TOO_LARGE);
        // Endless header bytes under the default cap.
        let endless = [
            b"GET / HTTP/1.1\r\nX: ".as_slice(),
            &[b'a'; DEFAULT_MAX_HEAD_BYTES],
        ]
        .concat();
        assert_rejected(&endless, Rejection::HeadTooLarge, HEAD_TOO_LARGE);
    }

    #[test]
    fn complete_head_longer_than_the_cap_is_431_and_one_at_the_cap_is_accepted() {
        let buf = valid();
        assert_eq!(
            parse_with(&buf, buf.len() - 1),
            Upgrade::Rejected(Rejection::HeadTooLarge)
        );
        let Upgrade::Accepted(at_cap) = parse_with(&buf, buf.len()) else {
            panic!("a head of exactly max_head_bytes is accepted");
        };
        assert_eq!(at_cap.head_len, buf.len());
        // Bytes after a head that fits do not count against the cap.
        let with_frame = [buf.as_slice(), &[0x81; 64]].concat();
        assert_eq!(
            parse_with(&with_frame, buf.len()),
            Upgrade::Accepted(at_cap)
        );
    }

    #[test]
    fn too_many_headers_is_431() {
        let extra: Vec<(&str, &str)> = (0..MAX_HEADERS - VALID.len())
            .map(|_| ("X-Pad", "1"))
            .collect();
        assert!(matches!(parse(&valid_plus(&extra)), Upgrade::Accepted(_)));
        let one_more = [&extra[..], &[("X-Pad", "1")]].concat();
        assert_rejected(
            &valid_plus(&one_more),
            Rejection::TooManyHeaders,
            "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n\r\n\
             too many header fields\n",
        );
    }

    #[test]
    fn malformed_heads_are_400() {
        let response = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 28\r\n\r\n\
            malformed http request head\n";
        for buf in [
            b"\0GET / HTTP/1.1\r\n\r\n".as_slice(),
            b"GET / HTTP/2.0\r\n\r\n",
            b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\0b\r\n\r\n",
            b"GET  / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\nHost\n\n",
        ] {
            assert_rejected(buf, Rejection::MalformedHead, response);
        }
    }

    #[test]
    fn http_1_0_is_400() {
        let buf = head("GET / HTTP/1.0", &VALID);
        assert_rejected(
            &buf,
            Rejection::NotHttp11,
            "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 18\r\n\r\n\
             http/1.1 required\n",
        );
    }

    #[test]
    fn methods_other_than_get_are_405_with_allow() {
        let response = "HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\nAllow: GET\r\n\r\n\
            method must be GET\n";
        for line in [
            "POST / HTTP/1.1",
            "get / HTTP/1.1",
            "HEAD / HTTP/1.1",
            "CONNECT / HTTP/1.1",
        ] {
            assert_rejected(&head(line, &VALID), Rejection::MethodNotGet, response);
        }
    }

    #[test]
    fn targets_other_than_slash_are_404_including_a_query() {
        let response = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n\r\n\
            the only resource is /\n";
        for target in [
            "/?x",
            "/?",
            "/ws",
            "//",
            "*",
            "http://127.0.0.1:41234/",
            "/#",
        ] {
            let buf = head(&format!("GET {target} HTTP/1.1"), &VALID);
            assert_rejected(&buf, Rejection::PathNotRoot, response);
        }
    }

    #[test]
    fn loopback_hosts_with_our_port_are_accepted() {
        for host in [
            "127.0.0.1:41234",
            "localhost:41234",
            "LocalHost:41234",
            "LOCALHOST:41234",
            "[::1]:41234",
        ] {
            accepted(&valid_with("Host", Some(host)));
        }
        accepted(&valid_with("hOsT", Some("127.0.0.1:41234")));
    }

    #[test]
    fn other_hosts_are_403() {
        let response = error_response(
            "403 Forbidden",
            "",
            "host must be 127.0.0.1, localhost or [::1] with this server's port\n",
        );
        assert!(response.contains("Content-Length: 67\r\n"));
        for host in [
            "evil:41234",
            "evil.example:41234",
            "127.1:41234",
            "0x7f.0.0.1:41234",
            "2130706433:41234",
            "127.0.0.2:41234",
            "0.0.0.0:41234",
            "localhost.:41234",
            "[::ffff:127.0.0.1]:41234",
            "[0:0:0:0:0:0:0:1]:41234",
            "::1:41234",
            "127.0.0.1",
            "localhost",
            "[::1]",
            "127.0.0.1:",
            "127.0.0.1:41235",
            "127.0.0.1:1234",
            "127.0.0.1:141234",
            "127.0.0.1:041234",
            "127.0.0.1:41234:41234",
            "127.0.0.1 :41234",
            "user@127.0.0.1:41234",
            "",
        ] {
            assert_rejected(
                &valid_with("Host", Some(host)),
                Rejection::HostNotLoopback,
                &response,
            );
        }
    }

    #[test]
    fn missing_or_repeated_host_is_400() {
        assert_rejected(
            &valid_with("Host", None),
            Rejection::MissingHost,
            "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 20\r\n\r\n\
             missing host header\n",
        );
        assert_rejected(
            &valid_plus(&[("host", "127.0.0.1:41234")]),
            Rejection::DuplicateHost,
            "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 26\r\n\r\n\
             more than one host header\n",
        );
    }

    #[test]
    fn any_origin_is_403() {
        let response = "HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 43\r\n\r\n\
            requests with an origin header are refused\n";
        for (name, value) in [
            ("Origin", "null"),
            ("Origin", "http://127.0.0.1:41234"),
            ("origin", "https://evil.example"),
            ("ORIGIN", ""),
        ] {
            assert_rejected(
                &valid_plus(&[(name, value)]),
                Rejection::OriginPresent,
                response,
            );
        }
    }

    const UNAUTHORIZED: &str = "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\
        Content-Type: text/plain; charset=utf-8\r\nContent-Length: 55\r\n\r\n\
        missing or wrong x-claude-code-ide-authorization token\n";

    #[test]
    fn missing_and_wrong_tokens_get_the_same_401() {
        let name = "X-Claude-Code-Ide-Authorization";
        assert_rejected(
            &valid_with(name, None),
            Rejection::MissingToken,
            UNAUTHORIZED,
        );
        for wrong in [
            "",
            "00112233445566778899aabbccddeef",
            "00112233445566778899aabbccddeeff0",
            "00112233445566778899AABBCCDDEEFF",
            "10112233445566778899aabbccddeeff",
        ] {
            assert_rejected(
                &valid_with(name, Some(wrong)),
                Rejection::WrongToken,
                UNAUTHORIZED,
            );
        }
        let twice = valid_plus(&[("x-claude-code-ide-authorization", TOKEN)]);
        assert_rejected(&twice, Rejection::WrongToken, UNAUTHORIZED);
        assert!(!UNAUTHORIZED.contains(TOKEN));
        assert!(!Rejection::WrongToken.to_string().contains(TOKEN));
    }

    #[test]
    fn token_header_name_is_case_insensitive() {
        accepted(&valid_with("x-claude-code-ide-authorization", Some(TOKEN)));
        accepted(&valid_with("X-CLAUDE-CODE-IDE-AUTHORIZATION", Some(TOKEN)));
    }

    #[test]
    fn policy_without_token_skips_the_token_check() {
        let policy = UpgradePolicy {
            port: PORT,
            auth_token: None,
            max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
        };
        let buf = valid_with("X-Claude-Code-Ide-Authorization", None);
        assert!(matches!(parse_upgrade(&buf, &policy), Upgrade::Accepted(_)));
        let wrong = valid_with("X-Claude-Code-Ide-Authorization", Some("anything"));
        assert!(matches!(
            parse_upgrade(&wrong, &policy),
            Upgrade::Accepted(_)
        ));
    }

    #[test]
    fn upgrade_must_list_websocket_else_400() {
        let response = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 35\r\n\r\n\
            upgrade header must list websocket\n";
        assert_rejected(
            &valid_with("Upgrade", None),
            Rejection::NoWebSocketUpgrade,
            response,
        );
        for value in ["h2c", "websockets", "web socket", "websocket/13", ""] {
            let buf = valid_with("Upgrade", Some(value));
            assert_rejected(&buf, Rejection::NoWebSocketUpgrade, response);
        }
        for value in [
            "WebSocket",
            "WEBSOCKET",
            "h2c, websocket",
            ",websocket ,",
            "foo,\twebsocket",
        ] {
            accepted(&valid_with("Upgrade", Some(value)));
        }
        let two_fields = valid_with("Upgrade", Some("h2c"));
        let two_fields = [
            &two_fields[..two_fields.len() - 2],
            b"upgrade: websocket\r\n\r\n",
        ]
        .concat();
        accepted(&two_fields);
    }

    #[test]
    fn connection_must_list_upgrade_else_400() {
        let response = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 36\r\n\r\n\
            connection header must list upgrade\n";
        assert_rejected(
            &valid_with("Connection", None),
            Rejection::NoConnectionUpgrade,
            response,
        );
        for value in ["keep-alive", "close", "upgrades", "up grade", ""] {
            let buf = valid_with("Connection", Some(value));
            assert_rejected(&buf, Rejection::NoConnectionUpgrade, response);
        }
        for value in [
            "upgrade",
            "UPGRADE",
            "keep-alive, Upgrade",
            "Upgrade,keep-alive",
            ", ,Upgrade",
        ] {
            accepted(&valid_with("Connection", Some(value)));
        }
        let two_fields = valid_with("Connection", Some("keep-alive"));
        let two_fields = [
            &two_fields[..two_fields.len() - 2],
            b"connection: upgrade\r\n\r\n",
        ]
        .concat();
        accepted(&two_fields);
    }

    #[test]
    fn websocket_version_other_than_13_is_426_naming_13() {
        let response = "HTTP/1.1 426 Upgrade Required\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 33\r\n\
            Sec-WebSocket-Version: 13\r\n\r\nsec-websocket-version must be 13\n";
        let name = "Sec-WebSocket-Version";
        assert_rejected(
            &valid_with(name, None),
            Rejection::UnsupportedWebSocketVersion,
            response,
        );
        for value in ["8", "12", "14", "013", "13, 8", ""] {
            let buf = valid_with(name, Some(value));
            assert_rejected(&buf, Rejection::UnsupportedWebSocketVersion, response);
        }
        let twice = valid_plus(&[("sec-websocket-version", "13")]);
        assert_rejected(&twice, Rejection::UnsupportedWebSocketVersion, response);
    }

    #[test]
    fn websocket_key_must_be_one_base64_16_byte_value_else_400() {
        let response = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Length: 55\r\n\r\n\
            sec-websocket-key must be one base64 value of 16 bytes\n";
        let name = "Sec-WebSocket-Key";
        assert_rejected(
            &valid_with(name, None),
            Rejection::InvalidWebSocketKey,
            response,
        );
        for value in [
            "",
            "AAAAAAAAAAAAAAAAAAAA",         // 15 bytes
            "AAAAAAAAAAAAAAAAAAAAAAA=",     // 17 bytes
            "AAAAAAAAAAAAAAAAAAAAAA",       // 16 bytes, padding missing
            "AAAAAAAAAAAAAAAAAAAAAA==AAAA", // trailing data
            "dGhlIHNhbXBsZSBub25jZQ=!",     // not base64
            "dGhlIHNhbXBsZSBub25jZR==",     // non-canonical trailing bits
            "dGhlIHNhbXBsZSBub25jZQ-_",     // URL-safe alphabet
        ] {
            assert_rejected(
                &valid_with(name, Some(value)),
                Rejection::InvalidWebSocketKey,
                response,
            );
        }
        let twice = valid_plus(&[("sec-websocket-key", KEY)]);
        assert_rejected(&twice, Rejection::InvalidWebSocketKey, response);
        let other = accepted(&valid_with(name, Some("AQIDBAUGBwgJCgsMDQ4PEA==")));
        assert_eq!(&other.accept_key, &accept_key(b"AQIDBAUGBwgJCgsMDQ4PEA=="));
        assert_ne!(&other.accept_key, ACCEPT);
    }

    #[test]
    fn earlier_rules_win_over_later_ones() {
        // A request that breaks every rule; fixing them one at a time, in the documented order,
        // must move the answer to the next rule each time, and finally to Accepted.
        let mut line = "POST /x HTTP/1.0";
        let mut fields = [
            ("Host", "evil:41234"),
            ("Origin", "null"),
            ("X-Claude-Code-Ide-Authorization", "wrong"),
            ("Upgrade", "h2c"),
            ("Connection", "close"),
            ("Sec-WebSocket-Version", "8"),
            ("Sec-WebSocket-Key", "bad"),
        ];
        let mut answers = Vec::new();
        for step in 0..=10 {
            match step {
                0 => {}
                1 => line = "POST /x HTTP/1.1",
                2 => line = "GET /x HTTP/1.1",
                3 => line = "GET / HTTP/1.1",
                4 => fields[0].1 = "localhost:41234",
                5 => fields[1] = ("X-Ignored", "null"),
                6 => fields[2].1 = TOKEN,
                7 => fields[3].1 = "websocket",
                8 => fields[4].1 = "Upgrade",
                9 => fields[5].1 = "13",
                _ => fields[6].1 = KEY,
            }
            answers.push(match parse(&head(line, &fields)) {
                Upgrade::Rejected(rejection) => Some(rejection),
                _ => None,
            });
        }
        assert_eq!(
            answers,
            [
                Some(Rejection::NotHttp11),
                Some(Rejection::MethodNotGet),
                Some(Rejection::PathNotRoot),
                Some(Rejection::HostNotLoopback),
                Some(Rejection::OriginPresent),
                Some(Rejection::WrongToken),
                Some(Rejection::NoWebSocketUpgrade),
                Some(Rejection::NoConnectionUpgrade),
                Some(Rejection::UnsupportedWebSocketVersion),
                Some(Rejection::InvalidWebSocketKey),
                None,
            ]
        );
        assert!(matches!(parse(&head(line, &fields)), Upgrade::Accepted(_)));
    }

    #[test]
    fn mcp_subprotocol_is_found_in_any_list_position_and_matched_case_sensitively() {
        let name = "Sec-WebSocket-Protocol";
        for (value, offered) in [
            ("mcp", true),
            ("chat, mcp", true),
            ("mcp,chat", true),
            (" , mcp ,", true),
            ("MCP", false),
            ("mcp2", false),
            ("chat", false),
            ("", false),
        ] {
            assert_eq!(
                accepted(&valid_with(name, Some(value))).mcp_subprotocol,
                offered,
                "{value:?}"
            );
        }
        let two_fields = valid_plus(&[(name, "chat"), (name, "mcp")]);
        assert!(accepted(&two_fields).mcp_subprotocol);
    }

    #[test]
    fn user_agent_is_the_first_one_decoded_lossily() {
        let two = valid_plus(&[("User-Agent", "first"), ("user-agent", "second")]);
        assert_eq!(accepted(&two).user_agent.as_deref(), Some("first"));
        let mut buf = valid_plus(&[("User-Agent", "caf?")]);
        let at = buf.iter().position(|&b| b == b'?').unwrap();
        buf[at] = 0xe9;
        assert_eq!(accepted(&buf).user_agent.as_deref(), Some("caf\u{fffd}"));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..2048),
            cap in 0usize..4096,
        ) {
            let _ = parse_with(&bytes, cap);
            let _ = parse(&bytes);
        }

        #[test]
        fn mutated_valid_requests_never_panic(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut buf = valid_plus(&[("Sec-WebSocket-Protocol", "mcp"), ("User-Agent", "ua")]);
            for (at, byte) in edits {
                let at = at.index(buf.len());
                buf[at] = byte;
            }
            let cut = cut.index(buf.len() + 1);
            if let Upgrade::Accepted(accepted) = parse(&buf[..cut]) {
                prop_assert!(accepted.head_len <= cut);
                let mut out = Vec::new();
                write_accept(&accepted, &mut out);
            }
        }
    }
}
