//! Parsing and validating the client's WebSocket upgrade request (RFC 6455 §4.2.1).

use super::{Rejection, base64};
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

/// What a request must satisfy to be upgraded: one endpoint's rules.
///
/// claude's endpoint ([`UpgradePolicy::claude`]) is `/`, refuses any `Origin` and carries the
/// token in a header. The relay's page link is `/link`, requires `Origin` to be the relay's own
/// page and authenticates on the socket, after the upgrade. Everything else (head size and
/// syntax, method, `Host`, the WebSocket fields) is the same for every endpoint.
#[derive(Debug, Clone, Copy)]
pub struct UpgradePolicy<'a> {
    /// The port this server listens on; the `Host` header must name exactly this port.
    pub port: u16,
    /// The port of an `idelink bridge`'s listener on claude's machine, whose clients reach this
    /// server through the remote link with their bytes unchanged: their `Host` names it, a
    /// loopback authority there. 0: none.
    pub bridge_port: u16,
    /// The request target that upgrades (exactly: no query, no absolute form).
    pub path: &'a str,
    /// What the `Origin` header must be.
    pub origin: OriginRule<'a>,
    /// Where the client's credential is.
    pub credential: Credential<'a>,
    /// Largest request head accepted, in bytes ([`DEFAULT_MAX_HEAD_BYTES`] unless the host has
    /// a reason); a longer head is answered 431.
    pub max_head_bytes: usize,
}

/// The `Origin` rule of an endpoint (RFC 6455 §10.2: servers use it to refuse pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OriginRule<'a> {
    /// No `Origin` at all: the client is not a browser (claude sends none; any page does).
    Forbidden,
    /// Exactly one `Origin`, byte-equal to this serialized origin (RFC 6454 §6.1, e.g.
    /// `http://127.0.0.1:4100`): only the server's own page.
    Exactly(&'a str),
}

/// Where an endpoint's credential is.
#[derive(Debug, Clone, Copy)]
pub enum Credential<'a> {
    /// Exactly one `x-claude-code-ide-authorization` header that [`AuthToken::matches`] this
    /// token (docs/protocol.md §2).
    Header(&'a AuthToken),
    /// Not in the upgrade request: the caller authenticates the socket before trusting it (the
    /// relay's page link, whose first message carries its secret), or it is a test-only echo
    /// server. Never for claude's endpoint.
    OnSocket,
}

impl<'a> UpgradePolicy<'a> {
    /// claude's endpoint on `port`: target `/`, no `Origin`, `token` in its header, heads up
    /// to `max_head_bytes`.
    pub fn claude(port: u16, token: &'a AuthToken, max_head_bytes: usize) -> Self {
        UpgradePolicy {
            port,
            bridge_port: 0,
            path: "/",
            origin: OriginRule::Forbidden,
            credential: Credential::Header(token),
            max_head_bytes,
        }
    }
}

/// What a GET request for a server that also serves plain resources asks for
/// ([`parse_request`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'b> {
    /// The head is not complete yet and still within the cap: read more.
    Partial,
    /// A valid upgrade at the policy's path.
    Upgrade(Accepted),
    /// A well-formed `GET` for another target, from a client naming our `Host`: the caller
    /// serves it or answers 404. Nothing else about it was checked.
    Get {
        /// The request target as sent (query included).
        target: &'b str,
    },
    /// An invalid request: write [`super::write_rejection`]'s response, then close.
    Rejected(Rejection),
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
    base64::encode_digest(&crate::sha1::digest(&[sec_websocket_key, WEBSOCKET_GUID]))
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
/// 3. request target exactly the policy's path (`/` for claude; no query, no absolute form) →
///    else 404;
/// 4. exactly one `Host`, equal to `127.0.0.1:<port>`, `localhost:<port>` (any case) or
///    `[::1]:<port>` → 400 when missing or repeated, 403 for any other value;
/// 5. the policy's [`OriginRule`]: no `Origin` at all, or exactly one equal to the given
///    origin → else 403;
/// 6. with [`Credential::Header`], exactly one `x-claude-code-ide-authorization` that
///    [`AuthToken::matches`] → else 401;
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
    match decide(buf, policy, Others::Refused) {
        Request::Partial => Upgrade::Partial,
        Request::Upgrade(accepted) => Upgrade::Accepted(accepted),
        Request::Rejected(rejection) => Upgrade::Rejected(rejection),
        Request::Get { .. } => Upgrade::Rejected(path_rejection(policy)),
    }
}

/// [`parse_upgrade`] for a server that also serves plain resources on the same port (the
/// relay's page): a `GET` whose target is not the policy's path passes steps 1, 2 and 4 and is
/// returned as [`Request::Get`] for the caller to serve; the policy's path goes through every
/// step, as in [`parse_upgrade`].
pub fn parse_request<'b>(buf: &'b [u8], policy: &UpgradePolicy) -> Request<'b> {
    decide(buf, policy, Others::Returned)
}

/// What step 3 does with a target other than the policy's path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Others {
    /// 404 at step 3 ([`parse_upgrade`]).
    Refused,
    /// Checked for `Host` (step 4), then returned ([`parse_request`]).
    Returned,
}

fn decide<'b>(buf: &'b [u8], policy: &UpgradePolicy, others: Others) -> Request<'b> {
    let window = buf.get(..policy.max_head_bytes).unwrap_or(buf);
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(window) {
        Ok(httparse::Status::Complete(head_len)) => {
            match validate(&request, head_len, policy, others) {
                Ok(request) => request,
                Err(rejection) => Request::Rejected(rejection),
            }
        }
        Ok(httparse::Status::Partial) if buf.len() > policy.max_head_bytes => {
            Request::Rejected(Rejection::HeadTooLarge)
        }
        Ok(httparse::Status::Partial) => Request::Partial,
        Err(httparse::Error::TooManyHeaders) => Request::Rejected(Rejection::TooManyHeaders),
        Err(_) => Request::Rejected(Rejection::MalformedHead),
    }
}

/// The 404 of step 3: claude's endpoint names its one resource.
fn path_rejection(policy: &UpgradePolicy) -> Rejection {
    if policy.path == "/" {
        Rejection::PathNotRoot
    } else {
        Rejection::UnknownPath
    }
}

/// Steps 1 (version) to 9 of [`parse_upgrade`] on a complete head of `head_len` bytes.
fn validate<'b>(
    request: &httparse::Request<'_, 'b>,
    head_len: usize,
    policy: &UpgradePolicy,
    others: Others,
) -> Result<Request<'b>, Rejection> {
    let headers: &[httparse::Header] = request.headers;

    // RFC 6455 §4.2.1: the opening handshake is an HTTP/1.1 or higher GET request.
    if request.version != Some(1) {
        return Err(Rejection::NotHttp11);
    }
    if request.method != Some("GET") {
        return Err(Rejection::MethodNotGet);
    }
    // The CLI always asks for `ws://127.0.0.1:<port>/`; nothing else is upgraded.
    let target = request.path.unwrap_or("");
    let upgrade_target = target == policy.path;
    if !upgrade_target && others == Others::Refused {
        return Err(path_rejection(policy));
    }

    // RFC 9112 §3.2: a server MUST respond 400 to a request that lacks a Host header field or
    // carries more than one.
    let host = match occurrences(values(headers, "host")) {
        Occurrences::Absent => return Err(Rejection::MissingHost),
        Occurrences::Repeated => return Err(Rejection::DuplicateHost),
        Occurrences::Single(host) => host,
    };
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends its own name.
    let bridged = policy.bridge_port != 0 && host_is_loopback(host, policy.bridge_port);
    if !host_is_loopback(host, policy.port) && !bridged {
        return Err(Rejection::HostNotLoopback);
    }
    if !upgrade_target {
        return Ok(Request::Get { target });
    }
    // RFC 6455 §4.1: a browser client MUST send Origin (§10.2: so that servers can refuse
    // cross-origin pages); the CLI sends none, so any Origin is a web page.
    match (policy.origin, occurrences(values(headers, "origin"))) {
        (OriginRule::Forbidden, Occurrences::Absent) => {}
        (OriginRule::Forbidden, _) => return Err(Rejection::OriginPresent),
        (OriginRule::Exactly(own), Occurrences::Single(origin)) if origin == own.as_bytes() => {}
        (OriginRule::Exactly(_), _) => return Err(Rejection::OriginNotOwn),
    }

    if let Credential::Header(token) = policy.credential {
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

    Ok(Request::Upgrade(Accepted {
        head_len,
        accept_key: accept_key(key),
        mcp_subprotocol,
        user_agent,
    }))
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
    base64::is_16_bytes(key)
}

#[cfg(test)]
mod tests;
