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
    let policy = UpgradePolicy::claude(PORT, &token, max_head_bytes);
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
fn credential_on_the_socket_skips_the_token_check() {
    let token = AuthToken::parse(TOKEN).unwrap();
    let policy = UpgradePolicy {
        credential: Credential::OnSocket,
        ..UpgradePolicy::claude(PORT, &token, DEFAULT_MAX_HEAD_BYTES)
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

/// The relay's page link: `/link`, only its own page, the credential on the socket.
const PAGE_ORIGIN: &str = "http://127.0.0.1:41234";

fn page_policy() -> UpgradePolicy<'static> {
    UpgradePolicy {
        bridge_port: 0,
        port: PORT,
        path: "/link",
        origin: OriginRule::Exactly(PAGE_ORIGIN),
        credential: Credential::OnSocket,
        max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
    }
}

/// A browser's link request: `GET /link` from `origin` (when Some).
fn page_link(target: &str, origin: Option<&str>) -> Vec<u8> {
    let mut headers = vec![
        ("Host", "127.0.0.1:41234"),
        ("Upgrade", "websocket"),
        ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", KEY),
    ];
    if let Some(origin) = origin {
        headers.push(("Origin", origin));
    }
    head(&format!("GET {target} HTTP/1.1"), &headers)
}

/// The response bytes [`parse_request`] leads to for `buf` under the page policy.
fn page_answer(buf: &[u8]) -> String {
    let mut out = Vec::new();
    match parse_request(buf, &page_policy()) {
        Request::Upgrade(accepted) => write_accept(&accepted, &mut out),
        Request::Rejected(rejection) => write_rejection(&rejection, &mut out),
        other => panic!("{other:?}"),
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn page_link_upgrades_for_its_own_origin_only() {
    assert_eq!(
        page_answer(&page_link("/link", Some(PAGE_ORIGIN))),
        RESPONSE_101
    );
    let forbidden = error_response(
        "403 Forbidden",
        "",
        "origin must be this server's own page\n",
    );
    for origin in [
        None,
        Some("http://evil.example"),
        Some("http://127.0.0.1:41235"),
        Some("http://localhost:41234"),
        Some("null"),
    ] {
        assert_eq!(
            page_answer(&page_link("/link", origin)),
            forbidden,
            "{origin:?}"
        );
    }
    let mut twice = page_link("/link", Some(PAGE_ORIGIN));
    twice.truncate(twice.len() - 2);
    twice.extend_from_slice(b"Origin: http://127.0.0.1:41234\r\n\r\n");
    assert_eq!(page_answer(&twice), forbidden);
}

#[test]
fn page_link_shares_every_other_rule_with_claude() {
    // The credential is not in the upgrade: no token header needed, a query is not the path.
    let version_8 = page_link("/link", Some(PAGE_ORIGIN));
    let text = String::from_utf8(version_8)
        .unwrap()
        .replace("13\r\n", "8\r\n");
    assert_eq!(
        page_answer(text.as_bytes()),
        error_response(
            "426 Upgrade Required",
            "Sec-WebSocket-Version: 13\r\n",
            "sec-websocket-version must be 13\n",
        )
    );
    let rebound = String::from_utf8(page_link("/link", Some(PAGE_ORIGIN)))
        .unwrap()
        .replace("Host: 127.0.0.1:41234", "Host: rebound.example:41234");
    assert_eq!(
        page_answer(rebound.as_bytes()),
        error_response(
            "403 Forbidden",
            "",
            "host must be 127.0.0.1, localhost or [::1] with this server's port\n",
        )
    );
    let oversized = vec![b'a'; DEFAULT_MAX_HEAD_BYTES];
    assert_eq!(parse_request(&oversized, &page_policy()), Request::Partial);
    let oversized = vec![b'a'; DEFAULT_MAX_HEAD_BYTES + 1];
    assert_eq!(
        parse_request(&oversized, &page_policy()),
        Request::Rejected(Rejection::HeadTooLarge)
    );
}

#[test]
fn page_requests_for_other_targets_are_returned_after_the_host_check() {
    let get = |target: &str, host: &str| {
        let buf = head(&format!("GET {target} HTTP/1.1"), &[("Host", host)]);
        match parse_request(&buf, &page_policy()) {
            Request::Get { target } => Ok(target.to_owned()),
            Request::Rejected(rejection) => Err(rejection),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        get("/app.js?v=1", "127.0.0.1:41234"),
        Ok("/app.js?v=1".into())
    );
    assert_eq!(
        get("/link?secret=00", "127.0.0.1:41234"),
        Ok("/link?secret=00".into())
    );
    assert_eq!(
        get("/", "rebound.example:41234"),
        Err(Rejection::HostNotLoopback)
    );
    let post = head("POST / HTTP/1.1", &[("Host", "127.0.0.1:41234")]);
    assert_eq!(
        parse_request(&post, &page_policy()),
        Request::Rejected(Rejection::MethodNotGet)
    );
    // parse_upgrade under the same policy refuses other targets at step 3.
    assert_eq!(
        parse_upgrade(&page_link("/app.js", Some(PAGE_ORIGIN)), &page_policy()),
        Upgrade::Rejected(Rejection::UnknownPath)
    );
    assert_eq!(
        rejection_bytes(Rejection::UnknownPath),
        error_response("404 Not Found", "", "no such resource\n")
    );
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

#[test]
fn a_bridge_port_is_a_second_loopback_host_and_nothing_more() {
    let token = AuthToken::parse(TOKEN).unwrap();
    let bridged = UpgradePolicy {
        bridge_port: 41_000,
        ..UpgradePolicy::claude(PORT, &token, DEFAULT_MAX_HEAD_BYTES)
    };
    let plain = UpgradePolicy::claude(PORT, &token, DEFAULT_MAX_HEAD_BYTES);
    let through = valid_with("Host", Some("127.0.0.1:41000"));
    assert!(matches!(
        parse_upgrade(&through, &bridged),
        Upgrade::Accepted(_)
    ));
    assert!(matches!(
        parse_upgrade(&through, &plain),
        Upgrade::Rejected(..)
    ));
    let own = valid_with("Host", Some(&format!("localhost:{PORT}")));
    assert!(matches!(
        parse_upgrade(&own, &bridged),
        Upgrade::Accepted(_)
    ));
    let rebound = valid_with("Host", Some("evil.example:41000"));
    assert!(matches!(
        parse_upgrade(&rebound, &bridged),
        Upgrade::Rejected(..)
    ));
}
