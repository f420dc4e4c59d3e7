//! The relay's HTTP side, sans IO: what to answer to one request head from the browser.
//!
//! Every rule is core's ([`idelink_core::http::parse_request`]) under the page link's policy:
//! the link is `GET /link` upgraded to a WebSocket, whose `Origin` must be exactly the relay's
//! own page (`http://127.0.0.1:<port>`) or one the user allowed with `--allow-origin` (403:
//! another site's page) and whose credential is not in the request at all but in the first
//! message on the socket ([`super::hello`]); any other `GET` from a client naming our `Host`
//! (403 otherwise: DNS rebinding) is a page file or 404.

use super::assets::Assets;
use idelink_core::http::{
    Accepted, Credential, DEFAULT_MAX_HEAD_BYTES, OriginRule, Rejection, Request, UpgradePolicy,
    parse_request, write_rejection,
};

/// The page link's request target.
pub const LINK_PATH: &str = "/link";

/// What to do with the bytes received so far on a browser connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// The head is incomplete: read more.
    Partial,
    /// Send these bytes, then close.
    Close(Vec<u8>),
    /// Upgrade to the page link (core's 101 for it).
    Link(Accepted),
}

/// The page link's upgrade policy for a relay whose page is at `origin`, on `port`.
pub fn link_policy(port: u16, origin: &str) -> UpgradePolicy<'_> {
    UpgradePolicy {
        bridge_port: 0,
        port,
        path: LINK_PATH,
        origin: OriginRule::Exactly(origin),
        credential: Credential::OnSocket,
        max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
    }
}

/// Decides on the head at the start of `buf` for a relay listening on `port` whose link may be
/// opened from `origins` (its own page's first, then those the user allowed), serving
/// `assets`. Every rule but the origin is checked the same for each origin.
pub fn answer(buf: &[u8], port: u16, origins: &[String], assets: &Assets) -> Answer {
    let mut request = Request::Partial;
    for origin in origins {
        request = parse_request(buf, &link_policy(port, origin));
        if !matches!(request, Request::Rejected(Rejection::OriginNotOwn)) {
            break;
        }
    }
    match request {
        Request::Partial => Answer::Partial,
        Request::Upgrade(accepted) => Answer::Link(accepted),
        Request::Rejected(rejection) => {
            tracing::debug!(%rejection, "browser request refused");
            let mut out = Vec::new();
            write_rejection(&rejection, &mut out);
            Answer::Close(out)
        }
        Request::Get { target } => {
            let path = target.split_once('?').map_or(target, |(path, _)| path);
            Answer::Close(match assets.get(path) {
                Ok((kind, body)) => response(200, kind, &body, port),
                Err(why) => response(404, "text/plain; charset=utf-8", why.as_bytes(), port),
            })
        }
    }
}

/// A complete response that closes the connection: 200 with a file or 404 with why. Every
/// answer forbids framing, caching and referrers, and pins scripts, styles and connections to
/// the relay's own origin.
fn response(status: u16, content_type: &str, body: &[u8], port: u16) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer\r\nContent-Security-Policy: default-src 'none'; \
         script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; \
         connect-src 'self' ws://127.0.0.1:{port}; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const PORT: u16 = 4100;
    const ORIGIN: &str = "http://127.0.0.1:4100";

    fn origins() -> Vec<String> {
        vec![ORIGIN.to_owned()]
    }

    fn assets() -> Assets {
        Assets::new(PathBuf::from("/nonexistent"))
    }

    fn text(answer: Answer) -> String {
        match answer {
            Answer::Close(bytes) => String::from_utf8(bytes).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    fn get(target: &str, host: &str) -> Answer {
        let request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n");
        answer(request.as_bytes(), PORT, &origins(), &assets())
    }

    #[test]
    fn files_are_served_to_our_host_only_with_a_strict_policy() {
        let page = text(get("/?v=1", "127.0.0.1:4100"));
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(page.contains("frame-ancestors 'none'"));
        assert!(page.contains("connect-src 'self' ws://127.0.0.1:4100;"));
        assert!(page.contains("\r\n\r\n<!doctype html>"));
        let missing = text(get("/nope", "127.0.0.1:4100"));
        assert!(
            missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
            "{missing}"
        );
        assert!(
            missing.ends_with("\r\n\r\n/nope is not served"),
            "{missing}"
        );
        let rebound = text(get("/", "rebound.example:4100"));
        assert!(
            rebound.starts_with("HTTP/1.1 403 Forbidden\r\n"),
            "{rebound}"
        );
    }

    #[test]
    fn the_link_is_core_s_upgrade_and_the_secret_is_not_in_the_request() {
        let link = |target: &str, origin: &str| {
            format!(
                "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:4100\r\nOrigin: {origin}\r\n\
                 Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
        };
        let up = answer(
            link("/link", ORIGIN).as_bytes(),
            PORT,
            &origins(),
            &assets(),
        );
        assert!(
            matches!(up, Answer::Link(ref a) if &a.accept_key == b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        );
        let other = text(answer(
            link("/link", "http://evil.example").as_bytes(),
            PORT,
            &origins(),
            &assets(),
        ));
        assert!(other.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{other}");
        // An allowed dev server's page links too; the relay's own page still does.
        let allowed = vec![ORIGIN.to_owned(), "http://localhost:5173".to_owned()];
        for origin in [ORIGIN, "http://localhost:5173"] {
            let up = answer(link("/link", origin).as_bytes(), PORT, &allowed, &assets());
            assert!(matches!(up, Answer::Link(_)), "{origin}");
        }
        let near = text(answer(
            link("/link", "http://localhost:5174").as_bytes(),
            PORT,
            &allowed,
            &assets(),
        ));
        assert!(near.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{near}");
        // The old query form is no link: the secret never travels in a request.
        let query = text(answer(
            link("/link?secret=00", ORIGIN).as_bytes(),
            PORT,
            &origins(),
            &assets(),
        ));
        assert!(query.starts_with("HTTP/1.1 404 Not Found\r\n"), "{query}");
        assert_eq!(
            answer(b"GET / HTTP/1.1\r\nHo", PORT, &origins(), &assets()),
            Answer::Partial
        );
    }
}
