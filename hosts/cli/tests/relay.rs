//! `idelink relay` as a user runs it, with a scripted page instead of a browser: a real
//! process, real sockets on ephemeral ports, the lock file, the page link and its refusals.
//! (The whole chain with Chromium and the wasm engine: bindings/wasm/e2e/.)
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::{Client, Frame};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::{DEADLINE, idelink, lines, wait_for_line};

struct Relay {
    child: Child,
    out: Receiver<String>,
    http_port: u16,
    claude_port: u16,
    secret: String,
    lock_dir: PathBuf,
    work: PathBuf,
}

impl Relay {
    fn start(name: &str) -> Relay {
        let dir = std::env::temp_dir().join(format!("idelink-relay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("work")).unwrap();
        let work = dir.join("work").canonicalize().unwrap();
        std::fs::write(work.join("hello.txt"), "line one\nline two\n").unwrap();
        let lock_dir = dir.join("ide");
        let mut child = idelink(&["relay", "--lock-dir"])
            .arg(&lock_dir)
            .arg(&work)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let serving = wait_for_line(&out, "claude port ");
        let claude_port = serving.rsplit(' ').next().unwrap().parse().unwrap();
        let url = wait_for_line(&out, "open http://127.0.0.1:");
        let (address, secret) = url
            .trim_start_matches("open http://127.0.0.1:")
            .split_once("/#secret=")
            .unwrap();
        Relay {
            child,
            out,
            http_port: address.parse().unwrap(),
            claude_port,
            secret: secret.to_owned(),
            lock_dir,
            work,
        }
    }

    fn link_request(&self, query: &str, origin: Option<&str>, host: Option<&str>) -> String {
        let port = self.http_port;
        let host = host.map_or(format!("127.0.0.1:{port}"), str::to_owned);
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        format!(
            "GET /link{query} HTTP/1.1\r\nHost: {host}\r\n{origin}Upgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    }

    fn own_origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    fn lock_path(&self) -> PathBuf {
        self.lock_dir.join(format!("{}.lock", self.claude_port))
    }

    fn stop(mut self) {
        #[cfg(unix)]
        {
            support::stop(&mut self.child);
            assert!(!self.lock_path().exists(), "the lock must be gone on exit");
        }
        #[cfg(windows)]
        support::terminate(&mut self.child);
        if let Some(dir) = self.lock_dir.parent() {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}

fn status_of(head: &str) -> &str {
    head.split(' ').nth(1).unwrap_or("")
}

fn next_text(link: &mut Client) -> Value {
    loop {
        match link.next_frame().unwrap() {
            Frame::Text(text) => return serde_json::from_str(&text).unwrap(),
            Frame::Ping(payload) => link.send_frame(0xA, true, &payload).unwrap(),
            other => panic!("expected a text message, got {other:?}"),
        }
    }
}

/// Collects data messages for `conn` until `want` bytes arrived.
fn next_data(link: &mut Client, conn: u32, want: usize) -> Vec<u8> {
    let mut got = Vec::new();
    while got.len() < want {
        match link.next_frame().unwrap() {
            Frame::Other(2, payload) => {
                assert_eq!(
                    payload[..4],
                    conn.to_be_bytes(),
                    "data for another connection"
                );
                got.extend_from_slice(&payload[4..]);
            }
            other => panic!("expected data, got {other:?}"),
        }
    }
    got
}

fn data(conn: u32, bytes: &[u8]) -> Vec<u8> {
    let mut message = conn.to_be_bytes().to_vec();
    message.extend_from_slice(bytes);
    message
}

fn claude(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    stream
}

fn read_exactly(stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    stream.read_exact(&mut buf).unwrap();
    buf
}

fn assert_eof(stream: &mut TcpStream) {
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "unexpected bytes {rest:?}");
}

fn no_lock_in(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |entries| {
        entries
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().ends_with(".lock"))
    })
}

#[test]
fn the_page_link_needs_the_secret_our_origin_and_our_host() {
    let relay = Relay::start("refusals");
    let secret = format!("?secret={}", relay.secret);
    let origin = relay.own_origin();
    let wrong_secret = format!("?secret={}", "0".repeat(32));
    for (query, origin, host, status) in [
        ("", Some(origin.as_str()), None, "401"),
        (wrong_secret.as_str(), Some(origin.as_str()), None, "401"),
        (secret.as_str(), None, None, "403"),
        (secret.as_str(), Some("http://evil.example"), None, "403"),
        (
            secret.as_str(),
            Some(origin.as_str()),
            Some("evil.example"),
            "403",
        ),
    ] {
        let request = relay.link_request(query, origin, host);
        let (_, head) = Client::open(relay.http_port, &request).unwrap();
        assert_eq!(status_of(&head), status, "{request:?} got {head}");
    }
    assert!(no_lock_in(&relay.lock_dir), "no page linked, so no lock");
    let mut stream = claude(relay.claude_port);
    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("no editor page is linked"), "{answer}");
    relay.stop();
}

#[test]
fn the_demo_page_is_served_with_a_strict_policy() {
    let relay = Relay::start("page");
    let request = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        relay.http_port
    );
    let (_, response) = Client::open(relay.http_port, &request).unwrap();
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.contains("frame-ancestors 'none'"), "{response}");
    let rebound = "GET / HTTP/1.1\r\nHost: rebound.example\r\n\r\n";
    let (_, response) = Client::open(relay.http_port, rebound).unwrap();
    assert_eq!(status_of(&response), "403");
    relay.stop();
}

#[test]
fn claude_bytes_ride_the_link_both_ways_and_end_with_the_page() {
    let relay = Relay::start("forward");
    let request = relay.link_request(
        &format!("?secret={}", relay.secret),
        Some(&relay.own_origin()),
        None,
    );
    let (mut link, head) = Client::open(relay.http_port, &request).unwrap();
    assert_eq!(status_of(&head), "101", "{head}");
    let welcome = next_text(&mut link);
    assert_eq!(welcome["type"], "welcome");
    assert_eq!(welcome["claudePort"], relay.claude_port);
    assert_eq!(welcome["workspace"], support::claude_path(&relay.work));
    wait_for_line(&relay.out, "page linked");
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(relay.lock_path()).unwrap()).unwrap();
    assert_eq!(lock["authToken"], welcome["authToken"]);
    assert_eq!(lock["workspaceFolders"][0], welcome["workspace"]);

    // claude → page and back, bytes untouched.
    let mut first = claude(relay.claude_port);
    first.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let open = next_text(&mut link);
    assert_eq!(open["type"], "open");
    let conn = u32::try_from(open["conn"].as_u64().unwrap()).unwrap();
    assert_eq!(next_data(&mut link, conn, 18), b"GET / HTTP/1.1\r\n\r\n");
    link.send_frame(0x2, true, &data(conn, b"HTTP/1.1 101 ok\r\n\r\n"))
        .unwrap();
    assert_eq!(read_exactly(&mut first, 19), b"HTTP/1.1 101 ok\r\n\r\n");

    // The page reads workspace files over the link, and nothing outside.
    link.send_text(r#"{"type":"read","path":"hello.txt"}"#)
        .unwrap();
    let file = next_text(&mut link);
    assert_eq!(file["text"], "line one\nline two\n");
    link.send_text(r#"{"type":"read","path":"../../etc/passwd"}"#)
        .unwrap();
    assert_eq!(next_text(&mut link)["type"], "error");
    link.send_text(r#"{"type":"list"}"#).unwrap();
    assert_eq!(next_text(&mut link)["files"][0], "hello.txt");

    // The page closes a claude connection after its last bytes.
    link.send_frame(0x2, true, &data(conn, b"bye")).unwrap();
    link.send_text(&format!(r#"{{"type":"close","conn":{conn}}}"#))
        .unwrap();
    assert_eq!(read_exactly(&mut first, 3), b"bye");
    assert_eof(&mut first);

    // claude closing is reported to the page.
    let second = claude(relay.claude_port);
    let opened = next_text(&mut link)["conn"].clone();
    drop(second);
    let closed = next_text(&mut link);
    assert_eq!(
        (closed["type"].as_str(), &closed["conn"]),
        (Some("closed"), &opened)
    );

    // When the page goes, its claude connections and the lock go too.
    let mut third = claude(relay.claude_port);
    assert_eq!(next_text(&mut link)["type"], "open");
    drop(link);
    assert_eof(&mut third);
    wait_for_line(&relay.out, "page gone");
    assert!(
        !relay.lock_path().exists(),
        "the lock must go with the page"
    );
    relay.stop();
}
