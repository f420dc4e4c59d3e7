//! `idelink relay` as a user runs it, with a scripted page instead of a browser: a real
//! process, real sockets on ephemeral ports, the lock file, the page link (docs/relay.md) and
//! its refusals.
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
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Instant;

mod engine_page;
mod support;

use engine_page::EnginePage;
use support::{DEADLINE, idelink, lines, wait_for_line};

struct Relay {
    child: Child,
    /// The relay's terminal: `r` + Enter rotates the link secret.
    stdin: ChildStdin,
    out: Receiver<String>,
    http_port: u16,
    claude_port: u16,
    secret: String,
    lock_dir: PathBuf,
    work: PathBuf,
}

impl Relay {
    fn start(name: &str) -> Relay {
        Relay::start_with(name, idelink(&["relay"]))
    }

    /// Starts `relay` (a command running `idelink relay`, with any extra flags).
    fn start_with(name: &str, mut relay: Command) -> Relay {
        let dir = std::env::temp_dir().join(format!("idelink-relay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("work")).unwrap();
        let work = dir.join("work").canonicalize().unwrap();
        std::fs::write(work.join("hello.txt"), "line one\nline two\n").unwrap();
        let lock_dir = dir.join("ide");
        relay
            .arg("--lock-dir")
            .arg(&lock_dir)
            .arg(&work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = spawn(&mut relay);
        let out = lines(child.stdout.take().unwrap());
        let stdin = child.stdin.take().unwrap();
        let serving = wait_for_line(&out, "claude port ");
        let claude_port = serving.rsplit(' ').next().unwrap().parse().unwrap();
        let url = wait_for_line(&out, "open http://127.0.0.1:");
        let (address, secret) = url
            .trim_start_matches("open http://127.0.0.1:")
            .split_once("/#secret=")
            .unwrap();
        Relay {
            child,
            stdin,
            out,
            http_port: address.parse().unwrap(),
            claude_port,
            secret: secret.to_owned(),
            lock_dir,
            work,
        }
    }

    fn link_request(&self, target: &str, origin: Option<&str>, host: Option<&str>) -> String {
        let port = self.http_port;
        let host = host.map_or(format!("127.0.0.1:{port}"), str::to_owned);
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        format!(
            "GET {target} HTTP/1.1\r\nHost: {host}\r\n{origin}Upgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    }

    /// A link socket from our own page, not yet authenticated.
    fn open_link(&self) -> Client {
        let request = self.link_request("/link", Some(&self.own_origin()), None);
        let (link, head) = Client::open(self.http_port, &request).unwrap();
        assert_eq!(status_of(&head), "101", "{head}");
        link
    }

    /// A link socket that sent its hello with `secret` and `resume`.
    fn hello(&self, secret: &str, resume: Option<&str>) -> Client {
        let mut link = self.open_link();
        let hello = serde_json::json!({ "type": "hello", "secret": secret, "resume": resume });
        link.send_text(&hello.to_string()).unwrap();
        link
    }

    /// A linked page: its socket and its welcome.
    fn link(&self, secret: &str, resume: Option<&str>) -> (Client, Value) {
        let mut link = self.hello(secret, resume);
        let welcome = next_text(&mut link);
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (link, welcome)
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

/// The token the lock file of `relay` holds now.
fn lock_token(relay: &Relay) -> String {
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(relay.lock_path()).unwrap()).unwrap();
    lock["authToken"].as_str().unwrap().to_owned()
}

/// The status code claude gets for an upgrade with `token` to `port`.
fn upgrade_status(port: u16, token: &str) -> String {
    let request = idelink_test_client::upgrade_request(port, Some(token), "");
    let (_, head) = Client::open(port, &request).unwrap();
    status_of(&head).to_owned()
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

/// The close frame the relay ends `link` with (text messages before it are skipped).
fn close_of(link: &mut Client) -> (Option<u16>, String) {
    loop {
        match link.next_frame().unwrap() {
            Frame::Close(code, reason) => return (code, reason),
            Frame::Text(_) => {}
            Frame::Ping(payload) => link.send_frame(0xA, true, &payload).unwrap(),
            other => panic!("expected a close frame, got {other:?}"),
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
fn the_page_link_needs_our_origin_our_host_and_the_secret_as_its_first_message() {
    let relay = Relay::start("refusals");
    let origin = relay.own_origin();
    for (target, origin, host, status) in [
        ("/link", None, None, "403"),
        ("/link", Some("http://evil.example"), None, "403"),
        ("/link", Some(origin.as_str()), Some("evil.example"), "403"),
        // The secret never travels in the request: the old query form is no link at all.
        (
            &*format!("/link?secret={}", relay.secret),
            Some(origin.as_str()),
            None,
            "404",
        ),
    ] {
        let request = relay.link_request(target, origin, host);
        let (_, head) = Client::open(relay.http_port, &request).unwrap();
        assert_eq!(status_of(&head), status, "{request:?} got {head}");
    }
    // Upgraded, but a wrong secret, or anything but a hello first, gets a close and no link.
    let mut wrong = relay.hello(&"0".repeat(32), None);
    assert_eq!(close_of(&mut wrong).0, Some(1008));
    let mut no_hello = relay.open_link();
    no_hello.send_text(r#"{"type":"list","id":1}"#).unwrap();
    assert_eq!(close_of(&mut no_hello).0, Some(1008));
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
fn a_leaked_url_cannot_take_the_link_but_a_reload_and_a_rotation_can() {
    let mut relay = Relay::start("takeover");
    let (mut first, welcome) = relay.link(&relay.secret, None);
    wait_for_line(&relay.out, "page linked");
    let resume = welcome["resume"].as_str().unwrap().to_owned();

    // Another page with the same URL is refused, loudly; the first keeps the link.
    let mut second = relay.hello(&relay.secret, None);
    assert_eq!(close_of(&mut second).0, Some(4001));
    wait_for_line(&relay.out, "a page was refused the link");
    first.send_text(r#"{"type":"list","id":5}"#).unwrap();
    assert_eq!(
        next_text(&mut first)["id"],
        5,
        "the first page is still linked"
    );
    assert!(relay.lock_path().exists());

    // The same tab reloaded (its resume token) takes the link over.
    let (mut reloaded, again) = relay.link(&relay.secret, Some(&resume));
    assert_eq!(close_of(&mut first).0, Some(4000));
    let resume = again["resume"].as_str().unwrap().to_owned();
    reloaded.send_text(r#"{"type":"list","id":6}"#).unwrap();
    assert_eq!(next_text(&mut reloaded)["id"], 6);

    // The user rotates: the page is unlinked, the old URL and resume token are void.
    relay.stdin.write_all(b"r\n").unwrap();
    let url = wait_for_line(&relay.out, "link secret rotated; open http://127.0.0.1:");
    assert_eq!(close_of(&mut reloaded).0, Some(4002));
    let mut stale = relay.hello(&relay.secret, Some(&resume));
    assert_eq!(close_of(&mut stale).0, Some(1008));
    let new_secret = url.rsplit("#secret=").next().unwrap().to_owned();
    let (mut fresh, _) = relay.link(&new_secret, None);
    fresh.send_text(r#"{"type":"list","id":7}"#).unwrap();
    assert_eq!(next_text(&mut fresh)["id"], 7);
    relay.stop();
}

#[test]
fn a_rotation_revokes_the_claude_token_the_old_page_holds() {
    let mut relay = Relay::start("revoke");
    let (link, welcome) = relay.link(&relay.secret, None);
    wait_for_line(&relay.out, "page linked");
    let old = welcome["authToken"].as_str().unwrap().to_owned();
    assert_eq!(lock_token(&relay), old);
    let page = EnginePage::start(link, &welcome);
    let mut session = Client::connect_initialized(relay.claude_port, &old).unwrap();

    // The user rotates: the page is unlinked and the session made under its token closed.
    relay.stdin.write_all(b"r\n").unwrap();
    let url = wait_for_line(&relay.out, "link secret rotated; open http://127.0.0.1:");
    assert_eq!(page.closed(), Some(4002));
    assert!(session.read_to_end().is_ok(), "the old session must end");

    // The next page holds a new token: the old one gets 401 from its engine; the lock and
    // the welcome carry the new one, which opens a session.
    let new_secret = url.rsplit("#secret=").next().unwrap().to_owned();
    let (link, welcome) = relay.link(&new_secret, None);
    wait_for_line(&relay.out, "page linked");
    let new = welcome["authToken"].as_str().unwrap().to_owned();
    let _page = EnginePage::start(link, &welcome);
    assert_eq!(
        upgrade_status(relay.claude_port, &old),
        "401",
        "the token of the page the rotation unlinked still opens a session"
    );
    assert_eq!(lock_token(&relay), new);
    Client::connect_initialized(relay.claude_port, &new).unwrap();
    relay.stop();
}

#[cfg(unix)]
#[test]
fn a_tree_of_empty_folders_is_listed_within_the_walk_budget() {
    // 100,000 folders holding no file (the listing's file cap never comes): the walk stops at
    // its folder and entry budgets, says so, and the relay's only thread is back at once.
    const FOLDERS: usize = 100_000;
    const STALL_BOUND: std::time::Duration = std::time::Duration::from_secs(1);
    let relay = Relay::start("empty-folders");
    for parent in 0..1000 {
        std::fs::create_dir(relay.work.join(format!("d{parent:03}"))).unwrap();
    }
    for i in 0..FOLDERS {
        let folder = relay.work.join(format!("d{:03}/e{i}", i % 1000));
        std::fs::create_dir(&folder).unwrap();
        if i % 10 == 0 {
            std::fs::write(folder.join(".hidden"), "x").unwrap();
        }
    }
    let (mut link, _) = relay.link(&relay.secret, None);
    let asked = Instant::now();
    link.send_text(r#"{"type":"list","id":1}"#).unwrap();
    let files = next_text(&mut link);
    let stall = asked.elapsed();
    println!("listing {FOLDERS} empty folders took the relay {stall:?}");
    assert_eq!(files["files"], serde_json::json!(["hello.txt"]));
    assert_eq!(files["truncated"], true, "the walk did not stop: {stall:?}");
    assert!(
        stall < STALL_BOUND,
        "the listing stalled the relay {stall:?}"
    );
    relay.stop();
}

/// `idelink relay` run under an open-descriptor limit of `nofile` (`SOFT:HARD`, util-linux's
/// `prlimit`, so the limit is the child's alone).
#[cfg(target_os = "linux")]
fn relay_under_limit(name: &str, nofile: &str) -> Relay {
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--nofile={nofile}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_idelink"))
        .arg("relay")
        .env_remove("RUST_LOG");
    Relay::start_with(name, command)
}

/// The descriptors process `pid` holds.
#[cfg(target_os = "linux")]
fn descriptors_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

/// The lowest descriptor number process `pid` does not hold: the one its next `open` or
/// `accept` would get. `RLIMIT_NOFILE` bounds descriptor *numbers*, so a limit of exactly this
/// makes the next one fail with `EMFILE` even when the process also holds a higher number (a
/// descriptor inherited from the test harness, such as cargo's jobserver pipe).
#[cfg(target_os = "linux")]
fn lowest_free_descriptor(pid: u32) -> usize {
    let held: std::collections::BTreeSet<usize> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    (0..).find(|fd| !held.contains(fd)).unwrap()
}

/// This test process may hold as many descriptors as its hard limit allows (thousands of
/// client sockets).
#[cfg(target_os = "linux")]
fn raise_own_descriptor_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    setrlimit(Resource::Nofile, raised).unwrap();
}

/// Up to `count` sockets to `port` that never send a byte: until one cannot connect within a
/// few seconds (the relay stopped accepting and its backlog is full).
#[cfg(target_os = "linux")]
fn idle_sockets(port: u16, count: usize) -> Vec<TcpStream> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let wait = std::time::Duration::from_secs(3);
    let sockets: Vec<TcpStream> = (0..count)
        .map_while(|_| TcpStream::connect_timeout(&address, wait).ok())
        .collect();
    if sockets.len() < count {
        println!("port {port} took {} of {count} sockets", sockets.len());
    }
    sockets
}

#[cfg(target_os = "linux")]
#[test]
fn idle_sockets_on_both_ports_never_keep_the_page_or_claude_out() {
    // Any local user can open idle sockets on both ports. Under a 1024-descriptor limit (hard
    // too, so raising it does not help), 2,000 on each: the relay keeps only its handshake
    // budgets of them, and the page links and claude initializes at once.
    const IDLE: usize = 2_000;
    const WITHIN: std::time::Duration = std::time::Duration::from_secs(1);
    const DESCRIPTOR_BOUND: usize = 200;
    raise_own_descriptor_limit();
    let relay = relay_under_limit("idle-sockets", "1024:1024");
    let pid = relay.child.id();
    let before = descriptors_of(pid);
    let _page_idle = idle_sockets(relay.http_port, IDLE);
    let _claude_idle = idle_sockets(relay.claude_port, IDLE);
    let held = descriptors_of(pid);
    println!("relay descriptors: {before} at start, {held} with {IDLE} idle sockets on each port");
    assert!(
        held < DESCRIPTOR_BOUND,
        "the relay holds {held} descriptors"
    );
    let started = Instant::now();
    let (link, welcome) = relay.link(&relay.secret, None);
    let _page = EnginePage::start(link, &welcome);
    let token = welcome["authToken"].as_str().unwrap();
    let _session = Client::connect_initialized(relay.claude_port, token).unwrap();
    let took = started.elapsed();
    println!("link and initialize took {took:?}");
    assert!(
        took < WITHIN,
        "the page linked and claude initialized in {took:?}"
    );
    wait_for_line(&relay.out, "page linked");
    relay.stop();
}

#[cfg(target_os = "linux")]
#[test]
fn with_no_descriptor_left_the_oldest_idle_socket_makes_room() {
    // A limit below the relay's budgets: idle sockets use up every descriptor. The next
    // request gets one all the same (the oldest idle socket is closed for it) and is answered.
    raise_own_descriptor_limit();
    let relay = relay_under_limit("no-descriptor", "40:40");
    let _idle = idle_sockets(relay.http_port, 200);
    let started = Instant::now();
    let (status, page) = fetch(&relay, "/");
    let took = started.elapsed();
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(page.starts_with(b"<!doctype html>"));
    assert!(
        took < std::time::Duration::from_secs(1),
        "answered in {took:?}"
    );
    relay.stop();
}

/// Sets the soft open-descriptor limit of running process `pid` to `limit` (the hard limit
/// stays, so it can be raised again).
#[cfg(target_os = "linux")]
fn set_limit_of(pid: u32, limit: usize) {
    let status = Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg(format!("--nofile={limit}:"))
        .status()
        .unwrap();
    assert!(status.success(), "prlimit: {status}");
}

#[cfg(target_os = "linux")]
#[test]
fn with_no_descriptor_left_and_none_to_evict_a_connection_is_closed_at_once() {
    // Every descriptor the relay may have is in use by the link and claude's sessions, none of
    // which may be evicted: a new connection is accepted and closed at once from the spare
    // descriptor (its peer sees the end instead of waiting in the backlog), and the relay
    // serves on once descriptors are back.
    const WITHIN: std::time::Duration = std::time::Duration::from_secs(1);
    let relay = Relay::start("spare");
    let pid = relay.child.id();
    let (link, welcome) = relay.link(&relay.secret, None);
    let _page = EnginePage::start(link, &welcome);
    let token = welcome["authToken"].as_str().unwrap().to_owned();
    let sessions: Vec<Client> = (0..4)
        .map(|_| Client::connect_initialized(relay.claude_port, &token).unwrap())
        .collect();
    let held = descriptors_of(pid);
    let limit = lowest_free_descriptor(pid);
    set_limit_of(pid, limit);
    let mut shed = TcpStream::connect(("127.0.0.1", relay.claude_port)).unwrap();
    shed.set_read_timeout(Some(DEADLINE)).unwrap();
    let started = Instant::now();
    let mut byte = [0; 1];
    let end = shed.read(&mut byte);
    let took = started.elapsed();
    assert!(
        matches!(&end, Ok(0))
            || end
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "{end:?} after {took:?}"
    );
    assert!(took < WITHIN, "closed after {took:?}");
    // The relay closes the shed socket (which ends the read above) before it can open its
    // spare again: the spare comes back just after, so its return is waited for.
    let deadline = Instant::now() + WITHIN;
    while descriptors_of(pid) != held && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(descriptors_of(pid), held, "the spare is back");
    set_limit_of(pid, limit + 16);
    Client::connect_initialized(relay.claude_port, &token).unwrap();
    drop(sessions);
    relay.stop();
}

#[cfg(target_os = "linux")]
#[test]
fn the_relay_raises_its_descriptor_limit_to_the_hard_limit() {
    let relay = relay_under_limit("raise-limit", "1024:4096");
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", relay.child.id())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let soft: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(soft, ["4096", "4096"], "{line}");
    relay.stop();
}

#[test]
fn relay_answers_carry_the_id_of_the_request() {
    let relay = Relay::start("ids");
    let (mut link, _) = relay.link(&relay.secret, None);
    link.send_text(r#"{"type":"read","id":41,"path":"missing.txt"}"#)
        .unwrap();
    link.send_text(r#"{"type":"read","id":42,"path":"hello.txt"}"#)
        .unwrap();
    link.send_text(r#"{"type":"format","id":43}"#).unwrap();
    link.send_text(r#"{"type":"list","id":44}"#).unwrap();
    let error = next_text(&mut link);
    assert_eq!(
        (&error["type"], &error["id"]),
        (&"error".into(), &41.into())
    );
    let file = next_text(&mut link);
    assert_eq!((&file["type"], &file["id"]), (&"file".into(), &42.into()));
    let unknown = next_text(&mut link);
    assert_eq!(
        (&unknown["type"], &unknown["id"]),
        (&"error".into(), &43.into())
    );
    let files = next_text(&mut link);
    assert_eq!(
        (&files["type"], &files["id"]),
        (&"files".into(), &44.into())
    );
    relay.stop();
}

/// GETs `path` from the relay's page port: the status line and the body.
fn fetch(relay: &Relay, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", relay.http_port)).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        relay.http_port
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let status = String::from_utf8_lossy(&answer[..end]);
    let status = status.lines().next().unwrap().to_owned();
    (status, answer[end + 4..].to_vec())
}

/// A fake wasm package: the relay serves its two files as they are.
fn wasm_package(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("idelink_wasm.js"), "export default 1;\n").unwrap();
    std::fs::write(dir.join("idelink_wasm_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dir.join("link.js"), "export class RelayLink {}\n").unwrap();
}

#[test]
fn a_binary_outside_the_checkout_serves_its_page_and_the_wasm_it_is_given() {
    // The binary alone, copied out of the build tree: the page is in it, the engine is read
    // from --wasm-dir, else from the `wasm` folder next to the executable.
    let dir = std::env::temp_dir().join(format!("idelink-relay-installed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let bin = dir.join("bin/idelink");
    std::fs::copy(env!("CARGO_BIN_EXE_idelink"), &bin).unwrap();
    wasm_package(&dir.join("elsewhere"));
    let mut given = Command::new(&bin);
    given.env_remove("RUST_LOG");
    given
        .current_dir(&dir)
        .args(["relay", "--wasm-dir"])
        .arg(dir.join("elsewhere"));
    let relay = Relay::start_with("installed-given", given);
    let (status, page) = fetch(&relay, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(page.starts_with(b"<!doctype html>"));
    let (status, app) = fetch(&relay, "/app.js");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        String::from_utf8(app)
            .unwrap()
            .contains("RelayLink.connect")
    );
    let (status, wasm) = fetch(&relay, "/pkg/idelink_wasm_bg.wasm");
    assert_eq!(
        (status.as_str(), wasm.as_slice()),
        ("HTTP/1.1 200 OK", &b"\0asm\x01\0\0\0"[..])
    );
    relay.stop();

    let mut beside = Command::new(&bin);
    beside.env_remove("RUST_LOG");
    beside.current_dir(&dir).arg("relay");
    let relay = Relay::start_with("installed-beside", beside);
    let (status, _) = fetch(&relay, "/pkg/idelink_wasm.js");
    assert_eq!(status, "HTTP/1.1 404 Not Found", "no wasm folder yet");
    wasm_package(&dir.join("bin/wasm"));
    let (status, js) = fetch(&relay, "/pkg/idelink_wasm.js");
    assert_eq!(
        (status.as_str(), js.as_slice()),
        ("HTTP/1.1 200 OK", &b"export default 1;\n"[..])
    );
    relay.stop();
    std::fs::remove_dir_all(dir).unwrap();
}

/// The peak resident set of process `pid` (`VmHWM`), in bytes.
#[cfg(target_os = "linux")]
fn peak_rss(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[cfg(target_os = "linux")]
#[test]
fn a_page_that_does_not_read_pauses_claude_within_the_pump_policy_bound() {
    // claude pipelines far more than the relay may hold while the page reads nothing: the
    // relay stops reading claude (core's PumpPolicy: 8 MiB queued for the page) instead of
    // buffering it, then delivers every byte once the page reads.
    const TOTAL: usize = 256 << 20;
    const BOUND: usize = 64 << 20;
    let relay = Relay::start("backpressure");
    let (mut link, _) = relay.link(&relay.secret, None);
    let mut stream = claude(relay.claude_port);
    let open = next_text(&mut link);
    let conn = u32::try_from(open["conn"].as_u64().unwrap()).unwrap();
    stream
        .set_write_timeout(Some(std::time::Duration::from_secs(1)))
        .unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut sent = 0;
    while sent < TOTAL {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        sent < TOTAL,
        "the relay kept reading claude: {sent} bytes taken"
    );
    let peak = peak_rss(relay.child.id());
    assert!(peak < BOUND, "relay peak RSS {peak} bytes, bound {BOUND}");
    // The page reads: every byte sent arrives, in order.
    let got = next_data(&mut link, conn, sent);
    assert_eq!(got.len(), sent);
    assert!(got.iter().all(|b| *b == b'x'));
    relay.stop();
}

#[cfg(target_os = "linux")]
#[test]
fn a_claude_that_does_not_read_pauses_the_page_within_the_pump_policy_bound() {
    // The page answers far more than claude reads: the relay stops reading the page once
    // claude's unread bytes reach core's PumpPolicy mark (8 MiB) instead of buffering them, then
    // delivers every byte once claude reads, and claude's connection stays open.
    const TOTAL: usize = 256 << 20;
    const BOUND: usize = 64 << 20;
    let relay = Relay::start("backpressure-claude");
    let (mut link, _) = relay.link(&relay.secret, None);
    let mut stream = claude(relay.claude_port);
    let open = next_text(&mut link);
    let conn = u32::try_from(open["conn"].as_u64().unwrap()).unwrap();
    link.socket()
        .set_write_timeout(Some(std::time::Duration::from_secs(1)))
        .unwrap();
    let message = data(conn, &vec![b'y'; 1 << 20]);
    let frame = idelink_test_client::client_frame(0x82, &message);
    let mut sent = 0;
    let mut written = 0;
    'writing: while sent < TOTAL {
        while written < frame.len() {
            match link.socket().write(&frame[written..]) {
                Ok(n) => written += n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break 'writing;
                }
                Err(e) => panic!("{e}"),
            }
        }
        written = 0;
        sent += message.len() - 4;
    }
    assert!(
        sent < TOTAL,
        "the relay kept reading the page: {sent} bytes taken"
    );
    let peak = peak_rss(relay.child.id());
    assert!(peak < BOUND, "relay peak RSS {peak} bytes, bound {BOUND}");
    // claude reads: every whole message the page sent arrives, in order.
    let got = read_exactly(&mut stream, sent);
    assert!(got.iter().all(|b| *b == b'y'));
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
    let (mut link, welcome) = relay.link(&relay.secret, None);
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
    link.send_text(r#"{"type":"read","id":1,"path":"hello.txt"}"#)
        .unwrap();
    let file = next_text(&mut link);
    assert_eq!(file["text"], "line one\nline two\n");
    link.send_text(r#"{"type":"read","id":2,"path":"../../etc/passwd"}"#)
        .unwrap();
    assert_eq!(next_text(&mut link)["type"], "error");
    link.send_text(r#"{"type":"list","id":3}"#).unwrap();
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

/// Starts `command`. A binary this process has just copied can be briefly busy: another test
/// thread that forked before the copy's file was closed holds it open until its child execs
/// (`ETXTBSY`), so that error is retried until a deadline.
fn spawn(command: &mut Command) -> Child {
    let deadline = Instant::now() + DEADLINE;
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == std::io::ErrorKind::ExecutableFileBusy
                    && Instant::now() < deadline =>
            {
                std::thread::yield_now();
            }
            result => return result.unwrap(),
        }
    }
}

#[test]
fn page_dir_serves_the_users_page_instead_of_the_demo() {
    let page = std::env::temp_dir().join(format!("idelink-relay-page-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&page);
    std::fs::create_dir_all(page.join("dist")).unwrap();
    std::fs::write(
        page.join("index.html"),
        "<!doctype html><title>mine</title>",
    )
    .unwrap();
    std::fs::write(page.join("dist/app.js"), "import './chunk.js';").unwrap();
    let mut command = idelink(&["relay", "--page-dir"]);
    command.arg(&page);
    let relay = Relay::start_with("page-dir", command);
    let (status, body) = fetch(&relay, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, b"<!doctype html><title>mine</title>");
    let (status, body) = fetch(&relay, "/dist/app.js?v=2");
    assert_eq!(
        (status.as_str(), body.as_slice()),
        ("HTTP/1.1 200 OK", &b"import './chunk.js';"[..])
    );
    for gone in [
        "/app.js",
        "/pkg/idelink_wasm.js",
        "/../index.html",
        "/dist/",
    ] {
        assert_eq!(fetch(&relay, gone).0, "HTTP/1.1 404 Not Found", "{gone}");
    }
    // The link is the relay's, with every rule: a page of the folder links with the secret.
    let (mut link, welcome) = relay.link(&relay.secret, None);
    assert_eq!(welcome["claudePort"], relay.claude_port);
    link.send_text(r#"{"type":"list","id":1}"#).unwrap();
    assert_eq!(next_text(&mut link)["files"][0], "hello.txt");
    relay.stop();
    std::fs::remove_dir_all(page).unwrap();
}

#[test]
fn an_allowed_dev_server_origin_links_under_the_same_rules() {
    let relay = Relay::start_with(
        "allow-origin",
        idelink(&["relay", "--allow-origin", "http://localhost:5173"]),
    );
    let printed = wait_for_line(&relay.out, "or open http://localhost:5173/");
    assert_eq!(
        printed,
        format!(
            "or open http://localhost:5173/#secret={}&link=ws://127.0.0.1:{}/link",
            relay.secret, relay.http_port
        )
    );
    let dev = "http://localhost:5173";
    for (origin, host, status) in [
        (Some(dev), None, "101"),
        (Some(relay.own_origin()).as_deref(), None, "101"),
        (Some("http://localhost:5174"), None, "403"),
        (Some("http://localhost:5173/"), None, "403"),
        (None, None, "403"),
        // The Host check stays: a rebound name is refused whatever the origin.
        (Some(dev), Some("rebound.example"), "403"),
    ] {
        let request = relay.link_request("/link", origin, host);
        let (_, head) = Client::open(relay.http_port, &request).unwrap();
        assert_eq!(status_of(&head), status, "{request:?} got {head}");
    }
    // Upgraded from the dev server, it still needs the secret first.
    let hello = |secret: &str| {
        let request = relay.link_request("/link", Some(dev), None);
        let (mut link, _) = Client::open(relay.http_port, &request).unwrap();
        let hello = serde_json::json!({ "type": "hello", "secret": secret, "resume": null });
        link.send_text(&hello.to_string()).unwrap();
        link
    };
    let mut wrong = hello(&"0".repeat(32));
    assert_eq!(close_of(&mut wrong).0, Some(1008));
    let mut linked = hello(&relay.secret);
    assert_eq!(next_text(&mut linked)["type"], "welcome");
    relay.stop();
}

#[test]
fn bad_page_flags_say_what_is_wrong_and_how_to_fix_it() {
    let missing = std::env::temp_dir().join(format!("idelink-no-such-page-{}", std::process::id()));
    for (args, expected) in [
        (
            vec!["--allow-origin", "http://localhost:5173/"],
            "--allow-origin \"http://localhost:5173/\": an origin has no path, query or fragment: write http://localhost:5173",
        ),
        (vec!["--allow-origin", "*"], "never a wildcard"),
        (
            vec!["--page-dir", missing.to_str().unwrap()],
            "pass the folder holding your page's index.html",
        ),
        (
            vec!["--page-dir", ".", "--wasm-dir", "."],
            "cannot be used with",
        ),
    ] {
        let mut command = idelink(&["relay"]);
        command.args(&args).stdin(Stdio::null());
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} started");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
