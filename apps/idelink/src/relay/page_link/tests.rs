//! The page link's machine on virtual time, byte for byte: what goes in is what a browser
//! sends, what comes out is what its socket would carry.

use super::*;
use crate::relay::files::Workspace;
use crate::relay::hello::{LINK_TAKEN, SECRET_SPENT, WRONG_SECRET};
use crate::relay::session::Welcome;
use std::path::PathBuf;

const PORT: u16 = 4100;
const ORIGIN: &str = "http://127.0.0.1:4100";
/// The key of RFC 6455 §1.3's example, and its accept value.
const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";
const ACCEPT: &str = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// Entropy that is always 7s: every token the machine draws is this one.
fn sevens() -> io::Result<[u8; 16]> {
    Ok([7; 16])
}

fn token(byte: u8) -> String {
    AuthToken::from_entropy([byte; 16]).as_str().to_owned()
}

/// A machine whose link secret is 1s' token.
fn machine() -> PageLink {
    let welcome = Welcome {
        claude_port: 4000,
        workspace: "/w".into(),
        ide_name: "n".into(),
    };
    let workspace = Workspace::new(PathBuf::from("/nonexistent"));
    let session = Session::new(AuthToken::from_entropy([1; 16]), welcome, workspace);
    let assets = Assets::new(PathBuf::from("/nonexistent"));
    PageLink::new(PORT, session, assets, Vec::new(), sevens)
}

fn outputs(machine: &mut PageLink) -> Vec<PageOutput> {
    std::iter::from_fn(|| machine.poll_output()).collect()
}

/// Writes everything `conn` has queued, as a pump whose socket takes it all would; returns it.
fn written(machine: &mut PageLink, conn: PageConnId) -> Vec<u8> {
    let bytes = machine.outbound(conn).to_vec();
    machine.handle_sent(conn, bytes.len());
    bytes
}

fn upgrade() -> Vec<u8> {
    format!(
        "GET /link HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nOrigin: {ORIGIN}\r\n\
         Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: {KEY}\r\n\r\n"
    )
    .into_bytes()
}

fn switching() -> Vec<u8> {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {ACCEPT}\r\n\r\n"
    )
    .into_bytes()
}

/// A client frame (RFC 6455 §5.3: masked; the zero key keeps the payload readable).
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mut frame = vec![0x80 | opcode, 0x80 | payload.len() as u8, 0, 0, 0, 0];
    frame.extend_from_slice(payload);
    frame
}

/// A server frame, unmasked (RFC 6455 §5.1).
fn server_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x80 | opcode];
    match payload.len() {
        len @ 0..126 => frame.push(len as u8),
        len => {
            frame.push(126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    frame
}

fn close_frame(code: u16, reason: &str) -> Vec<u8> {
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(reason.as_bytes());
    server_frame(0x8, &payload)
}

fn hello(secret: &str, resume: Option<&str>) -> Vec<u8> {
    let resume = resume.map_or("null".to_owned(), |r| format!("\"{r}\""));
    let text = format!(r#"{{"type":"hello","secret":"{secret}","resume":{resume}}}"#);
    client_frame(0x1, text.as_bytes())
}

fn welcome() -> Vec<u8> {
    let (auth, resume) = (token(7), token(7));
    let text = format!(
        r#"{{"type":"welcome","claudePort":4000,"authToken":"{auth}","workspace":"/w","ideName":"n","resume":"{resume}"}}"#
    );
    server_frame(0x1, text.as_bytes())
}

/// A browser connection `conn` accepted at `now` sends the upgrade and, in the same read, a
/// hello with `secret` and `resume`; returns what the machine answered (written all).
fn say_hello(
    machine: &mut PageLink,
    now: Timestamp,
    conn: PageConnId,
    secret: &str,
    resume: Option<&str>,
) -> Vec<u8> {
    machine.handle_accept(now, conn);
    let mut input = upgrade();
    input.extend_from_slice(&hello(secret, resume));
    machine.handle_bytes(now, conn, &input);
    written(machine, conn)
}

/// `switching` then `frame`: the answer to an upgrade and hello.
fn upgraded_then(frame: Vec<u8>) -> Vec<u8> {
    let mut bytes = switching();
    bytes.extend_from_slice(&frame);
    bytes
}

/// Links connection `conn` at `now` with the fresh secret: the 101 and the welcome.
fn linked(machine: &mut PageLink, now: Timestamp, conn: PageConnId) {
    let answer = say_hello(machine, now, conn, &token(1), None);
    assert_eq!(answer, upgraded_then(welcome()));
    outputs(machine);
}

#[test]
fn a_head_past_its_deadline_is_dropped_without_a_byte() {
    let mut machine = machine();
    let conn = PageConnId(3);
    machine.handle_accept(at(0), conn);
    machine.handle_bytes(at(100), conn, b"GET / HTTP/1.1\r\nHo");
    assert_eq!(outputs(&mut machine), []);
    assert_eq!(machine.poll_timeout(), Some(at(HEAD_DEADLINE_MS)));
    machine.handle_timeout(at(HEAD_DEADLINE_MS - 1));
    assert_eq!(outputs(&mut machine), []);
    machine.handle_timeout(at(HEAD_DEADLINE_MS));
    let last = Vec::new();
    assert_eq!(outputs(&mut machine), [PageOutput::Drop { conn, last }]);
    assert_eq!(machine.poll_timeout(), None);
    assert!(machine.take_events().is_empty());
}

#[test]
fn a_file_is_answered_then_the_write_side_shuts_and_the_socket_lingers() {
    let mut machine = machine();
    let conn = PageConnId(3);
    machine.handle_accept(at(0), conn);
    let head = format!("GET /nope HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n\r\n");
    machine.handle_bytes(at(5), conn, head.as_bytes());
    let since = at(5);
    assert_eq!(
        outputs(&mut machine),
        [
            PageOutput::Linger { conn, since },
            PageOutput::Transmit { conn }
        ]
    );
    let answer = String::from_utf8(machine.outbound(conn).to_vec()).unwrap();
    assert!(answer.starts_with("HTTP/1.1 404 Not Found\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\n/nope is not served"), "{answer}");
    // Half of it went, then the rest: only then our end of stream.
    machine.handle_sent(conn, 10);
    assert_eq!(outputs(&mut machine), []);
    assert_eq!(machine.unsent(conn), answer.len() - 10);
    machine.handle_sent(conn, answer.len() - 10);
    assert_eq!(outputs(&mut machine), [PageOutput::ShutdownWrite { conn }]);
    // What the browser sends now is discarded; no deadline is the machine's (the linger is).
    machine.handle_bytes(at(6), conn, b"GET / HTTP/1.1\r\n\r\n");
    assert_eq!(
        (outputs(&mut machine), machine.poll_timeout()),
        (vec![], None)
    );
}

#[test]
fn a_link_without_its_hello_in_time_is_closed_with_1008_and_the_handshake_completes() {
    let mut machine = machine();
    let conn = PageConnId(3);
    machine.handle_accept(at(0), conn);
    machine.handle_bytes(at(200), conn, &upgrade());
    assert_eq!(outputs(&mut machine), [PageOutput::Transmit { conn }]);
    assert_eq!(written(&mut machine, conn), switching());
    assert_eq!(machine.poll_timeout(), Some(at(200 + HELLO_DEADLINE_MS)));
    machine.handle_timeout(at(199 + HELLO_DEADLINE_MS));
    assert_eq!(outputs(&mut machine), []);
    machine.handle_timeout(at(200 + HELLO_DEADLINE_MS));
    assert_eq!(outputs(&mut machine), [PageOutput::Transmit { conn }]);
    assert_eq!(
        written(&mut machine, conn),
        close_frame(POLICY, "no hello in time")
    );
    // A hello now comes too late: read for the close handshake, and dropped.
    machine.handle_bytes(at(10_300), conn, &hello(&token(1), None));
    assert_eq!(outputs(&mut machine), []);
    // The browser answers our close (RFC 6455 §5.5.1): the socket is done, with no byte more.
    machine.handle_bytes(at(10_400), conn, &client_frame(0x8, &POLICY.to_be_bytes()));
    let last = Vec::new();
    assert_eq!(outputs(&mut machine), [PageOutput::Drop { conn, last }]);
    assert!(machine.take_events().is_empty());
}

#[test]
fn a_linked_page_s_data_and_requests_reach_the_relay_and_claude_s_bytes_reach_it() {
    let mut machine = machine();
    let conn = PageConnId(3);
    linked(&mut machine, at(0), conn);
    assert_eq!(machine.link(), Some(conn));
    let events = machine.take_events();
    assert!(
        matches!(&events[..], [PageEvent::Linked { auth_token, fresh: true }]
            if auth_token.as_str() == token(7)),
        "{events:?}"
    );
    // Data for claude connection 5, then a close of it, in one read.
    let mut input = client_frame(0x2, &[0, 0, 0, 5, b'a', b'b', b'c']);
    input.extend_from_slice(&client_frame(0x1, br#"{"type":"close","conn":5}"#));
    machine.handle_bytes(at(1), conn, &input);
    // The data the relay has not taken counts against reading the link, then claude's unread.
    assert_eq!(machine.unsent(conn), 3);
    let events = machine.take_events();
    assert!(
        matches!(&events[..], [PageEvent::Data { conn: 5, bytes }, PageEvent::Close { conn: 5 }]
            if bytes == b"abc"),
        "{events:?}"
    );
    machine.handle_downstream(40);
    assert_eq!(machine.unsent(conn), 40);
    // claude's bytes go out as they are, in one binary frame.
    machine.send_binary(&[0, 0, 0, 5, b'h', b'i']);
    assert_eq!(outputs(&mut machine), [PageOutput::Transmit { conn }]);
    assert_eq!(
        written(&mut machine, conn),
        server_frame(0x2, &[0, 0, 0, 5, b'h', b'i'])
    );
    // A request the relay cannot read is answered, with its id.
    machine.handle_bytes(
        at(2),
        conn,
        &client_frame(0x1, br#"{"type":"format","id":6}"#),
    );
    let answer = written(&mut machine, conn);
    assert_eq!(answer[0], 0x81, "one text frame");
    assert!(String::from_utf8_lossy(&answer).contains(r#"{"type":"error","id":6,"#));
}

#[test]
fn the_page_closing_the_link_gets_its_close_echoed_and_unlinks() {
    let mut machine = machine();
    let conn = PageConnId(3);
    linked(&mut machine, at(0), conn);
    machine.take_events();
    machine.handle_bytes(at(50), conn, &client_frame(0x8, &1000u16.to_be_bytes()));
    let last = close_frame(1000, "");
    assert_eq!(outputs(&mut machine), [PageOutput::Drop { conn, last }]);
    assert!(matches!(&machine.take_events()[..], [PageEvent::Unlinked]));
    assert_eq!(machine.link(), None);
}

#[test]
fn a_leaked_url_is_refused_a_reload_takes_over_and_a_rotation_unlinks() {
    let mut machine = machine();
    let (first, leaked, reload) = (PageConnId(3), PageConnId(4), PageConnId(5));
    linked(&mut machine, at(0), first);
    machine.take_events();
    // Another page with the spent secret: refused, the first keeps the link.
    let answer = say_hello(&mut machine, at(1), leaked, &token(1), None);
    let refused = close_frame(LINK_TAKEN, SECRET_SPENT.reason);
    assert_eq!(answer, upgraded_then(refused));
    let events = machine.take_events();
    assert!(matches!(&events[..], [PageEvent::Refused { reason }]
        if *reason == SECRET_SPENT.reason));
    assert_eq!(machine.link(), Some(first));
    // The same tab reloaded, with its resume token: the first page gets 4000 and goes.
    outputs(&mut machine);
    machine.handle_accept(at(2), reload);
    let mut input = upgrade();
    input.extend_from_slice(&hello(&token(1), Some(&token(7))));
    machine.handle_bytes(at(2), reload, &input);
    // The old link's close goes first, before the new one's welcome.
    let replaced = close_frame(REPLACED, "this tab reloaded, the link moved to it");
    let out = outputs(&mut machine);
    assert_eq!(
        out[0],
        PageOutput::Drop {
            conn: first,
            last: replaced
        }
    );
    assert_eq!(machine.link(), Some(reload));
    let events = machine.take_events();
    assert!(
        matches!(
            &events[..],
            [
                PageEvent::Replaced,
                PageEvent::Unlinked,
                PageEvent::Linked { fresh: false, .. }
            ]
        ),
        "{events:?}"
    );
    // It keeps the claude token (sevens), with a new resume token (sevens again here).
    assert_eq!(written(&mut machine, reload), upgraded_then(welcome()));
    // A rotation: the link closes with 4002 and the old secret opens nothing.
    machine.rotate(at(3), AuthToken::from_entropy([9; 16]));
    let rotated = close_frame(ROTATED, "the link secret was rotated");
    assert_eq!(
        outputs(&mut machine),
        [PageOutput::Drop {
            conn: reload,
            last: rotated
        }]
    );
    assert!(matches!(&machine.take_events()[..], [PageEvent::Unlinked]));
    let again = PageConnId(6);
    let answer = say_hello(&mut machine, at(4), again, &token(1), Some(&token(7)));
    assert_eq!(
        answer,
        upgraded_then(close_frame(POLICY, WRONG_SECRET.reason))
    );
    assert_eq!(machine.link(), None);
    assert!(machine.url().ends_with(&format!("#secret={}", token(9))));
}

#[test]
fn one_connection_past_the_budget_evicts_the_oldest_that_does_not_hold_the_link() {
    let mut machine = machine();
    let link = PageConnId(3);
    linked(&mut machine, at(0), link);
    machine.take_events();
    for id in 10..10 + MAX_PENDING_PAGE_CONNS {
        machine.handle_accept(at(1), PageConnId(id));
    }
    assert_eq!(outputs(&mut machine), []);
    // One more: the oldest pending (10) goes, at once and silent; the link stays.
    machine.handle_accept(at(2), PageConnId(100));
    let last = Vec::new();
    let conn = PageConnId(10);
    assert_eq!(outputs(&mut machine), [PageOutput::Drop { conn, last }]);
    machine.handle_accept(at(2), PageConnId(101));
    let (conn, last) = (PageConnId(11), Vec::new());
    assert_eq!(outputs(&mut machine), [PageOutput::Drop { conn, last }]);
    // Freeing a descriptor evicts in the same order and never the link.
    for _ in 12..10 + MAX_PENDING_PAGE_CONNS {
        assert!(machine.evict_oldest_pending());
    }
    assert!(machine.evict_oldest_pending());
    assert!(machine.evict_oldest_pending());
    let dropped: Vec<usize> = outputs(&mut machine)
        .into_iter()
        .map(|output| match output {
            PageOutput::Drop { conn, .. } => conn.0,
            other => panic!("{other:?}"),
        })
        .collect();
    let expected: Vec<usize> = (12..10 + MAX_PENDING_PAGE_CONNS)
        .chain([100, 101])
        .collect();
    assert_eq!(dropped, expected);
    assert!(!machine.evict_oldest_pending());
    assert_eq!(machine.link(), Some(link));
    assert!(machine.take_events().is_empty());
}
