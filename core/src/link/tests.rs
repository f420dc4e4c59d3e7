//! Byte-exact vectors of the link's frames, its rules, and property tests: split invariance
//! and a random exchange between two ends that keeps every connection's bytes in order.

use proptest::prelude::*;

use super::*;
use crate::time::Timestamp;

const T0: Timestamp = Timestamp::ZERO;

fn editor_hello() -> Hello {
    Hello {
        binary_version: "0.9.0".into(),
        token: Some("tok".into()),
        ide_name: Some("Vim".into()),
        folders: vec!["/p".into()],
        ..Hello::default()
    }
}

fn bridge_hello() -> Hello {
    Hello {
        binary_version: "0.9.0".into(),
        port: Some(0x1234),
        pid: Some(7),
        ..Hello::default()
    }
}

fn small() -> LinkConfig {
    LinkConfig {
        window_bytes: 8,
        ..LinkConfig::default()
    }
}

fn events(link: &mut Link) -> Vec<LinkEvent> {
    std::iter::from_fn(|| link.poll_event()).collect()
}

/// Moves everything `from` has queued into `to`.
fn pump(from: &mut Link, to: &mut Link) {
    let bytes = from.outbound().to_vec();
    from.handle_sent(bytes.len()).expect("wrote what it held");
    to.handle_bytes(T0, &bytes);
}

/// An editor end and a bridge end that exchanged hellos.
fn pair(config: LinkConfig) -> (Link, Link) {
    let mut editor = Link::new(LinkRole::Editor, config, &editor_hello(), T0).expect("hello");
    let mut bridge = Link::new(LinkRole::Bridge, config, &bridge_hello(), T0).expect("hello");
    pump(&mut editor, &mut bridge);
    pump(&mut bridge, &mut editor);
    assert_eq!(events(&mut editor), [LinkEvent::Hello(bridge_hello())]);
    assert_eq!(events(&mut bridge), [LinkEvent::Hello(editor_hello())]);
    (editor, bridge)
}

#[test]
fn hello_bytes() {
    let link = Link::new(LinkRole::Editor, small(), &editor_hello(), T0).expect("hello");
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x01, 0, 0, 0, 0, 0, 0, 0, 27,   // Hello, link, 27 bytes
        0, 1,                            // link version 1
        1, 0, 5, b'0', b'.', b'9', b'.', b'0', // binary version
        2, 0, 3, b't', b'o', b'k',       // token
        3, 0, 3, b'V', b'i', b'm',       // ide name
        4, 0, 2, b'/', b'p',             // folder
    ];
    assert_eq!(link.outbound(), expected);
    let link = Link::new(LinkRole::Bridge, small(), &bridge_hello(), T0).expect("hello");
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x01, 0, 0, 0, 0, 0, 0, 0, 22,
        0, 1,
        1, 0, 5, b'0', b'.', b'9', b'.', b'0',
        6, 0, 2, 0x12, 0x34,             // port
        7, 0, 4, 0, 0, 0, 7,             // pid
    ];
    assert_eq!(link.outbound(), expected);
}

#[test]
fn a_hello_is_peeked_whole_or_not_at_all() {
    let link = Link::new(LinkRole::Bridge, small(), &bridge_hello(), T0).expect("hello");
    let mut stream = link.outbound().to_vec();
    let len = stream.len();
    stream.extend_from_slice(&[2, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(peek_hello(&stream), Ok(Some((bridge_hello(), len))));
    assert_eq!(peek_hello(&stream[..len - 1]), Ok(None));
    assert_eq!(peek_hello(&stream[..3]), Ok(None));
    assert_eq!(peek_hello(&stream[len..]), Err(LinkFault::HelloOrder));
}

#[test]
fn hello_round_trips_and_skips_unknown_fields() {
    let mut hello = editor_hello();
    hello.running_in_windows = true;
    hello.folders.push("C:/w".into());
    let mut payload = hello.encode().expect("fits");
    payload.extend_from_slice(&[200, 0, 1, 9]);
    assert_eq!(Hello::parse(&payload), Ok(hello.clone()));
    assert_eq!(
        Hello::parse(&[0, 1, 2, 0, 1, b'a', 2, 0, 1, b'b']),
        Err(LinkFault::BadHello("a field appears twice"))
    );
    assert_eq!(
        Hello::parse(&[0, 1, 2, 0, 5, b'a']),
        Err(LinkFault::BadHello("a field is cut short"))
    );
    assert_eq!(
        Hello::parse(&[0, 1, 2, 0, 1, 0xff]),
        Err(LinkFault::BadHello("a text field is not UTF-8"))
    );
    assert!(
        !format!("{hello:?}").contains("tok\""),
        "the token is redacted"
    );
}

#[test]
fn another_version_is_refused_with_a_fault_naming_both() {
    let mut link = Link::new(LinkRole::Bridge, small(), &bridge_hello(), T0).expect("hello");
    link.handle_sent(link.outbound().len()).expect("sent");
    link.handle_bytes(T0, &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2]);
    let fault = LinkFault::Version { ours: 1, theirs: 2 };
    assert_eq!(events(&mut link), [LinkEvent::Dead(fault.clone())]);
    let text = fault.to_string();
    let mut expected = vec![
        8,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        u8::try_from(text.len()).expect("short"),
    ];
    expected.extend_from_slice(text.as_bytes());
    assert_eq!(link.outbound(), expected);
    assert!(text.contains("link version 2, this side speaks 1"));
}

#[test]
fn open_data_credit_close_bytes() {
    let (mut editor, mut bridge) = pair(small());
    let conn = bridge.open().expect("bridge opens");
    assert_eq!(bridge.send(conn, b"GET /"), Ok(5));
    bridge.close(conn).expect("open");
    #[rustfmt::skip]
    let expected: &[u8] = &[
        2, 0, 0, 0, 1, 0, 0, 0, 0,                       // Open #1
        3, 0, 0, 0, 1, 0, 0, 0, 5, b'G', b'E', b'T', b' ', b'/', // Data #1
        4, 0, 0, 0, 1, 0, 0, 0, 0,                       // Close #1
    ];
    assert_eq!(bridge.outbound(), expected);
    pump(&mut bridge, &mut editor);
    assert_eq!(
        events(&mut editor),
        [
            LinkEvent::Opened(conn),
            LinkEvent::Readable(conn),
            LinkEvent::Closed(conn)
        ]
    );
    // What came before the close is still there to hand on; closing it sends nothing back.
    assert_eq!(editor.received(conn), Ok(&b"GET /"[..]));
    assert_eq!(
        editor.send(conn, b"x"),
        Err(LinkError::UnknownConnection(1))
    );
    editor.close(conn).expect("held until the host closes it");
    assert!(editor.outbound().is_empty());
    assert_eq!(editor.received(conn), Err(LinkError::UnknownConnection(1)));

    let conn = bridge.open().expect("bridge opens");
    bridge.send(conn, b"abc").expect("open");
    pump(&mut bridge, &mut editor);
    let _ = events(&mut editor);
    assert_eq!(editor.received(conn), Ok(&b"abc"[..]));
    editor.consume(conn, 3).expect("held");
    // The buffer ran dry: the 3 bytes are credited at once.
    assert_eq!(editor.outbound(), [5, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 3]);
}

#[test]
fn a_reader_that_does_not_consume_pauses_its_connection_only() {
    let (mut editor, mut bridge) = pair(small());
    let slow = bridge.open().expect("opens");
    let fast = bridge.open().expect("opens");
    pump(&mut bridge, &mut editor);
    let _ = events(&mut editor);
    // The editor answers both with 20 bytes; the bridge's claude on `slow` does not read.
    assert_eq!(editor.send(slow, &[b's'; 20]), Ok(8));
    assert_eq!(editor.send(fast, &[b'f'; 20]), Ok(8));
    pump(&mut editor, &mut bridge);
    let _ = events(&mut bridge);
    bridge.consume(fast, 8).expect("held");
    pump(&mut bridge, &mut editor);
    assert_eq!(events(&mut editor), [LinkEvent::Writable(fast)]);
    assert_eq!(editor.writable(slow), Ok(0));
    assert_eq!(editor.send(fast, &[b'f'; 12]), Ok(8));
    assert_eq!(editor.send(slow, b"s"), Ok(0));
}

#[test]
fn a_sender_that_spent_its_credit_exactly_hears_when_it_comes_back() {
    let (mut editor, mut bridge) = pair(small());
    let conn = bridge.open().expect("opens");
    pump(&mut bridge, &mut editor);
    let _ = events(&mut editor);
    // A host that reads its socket only as far as the credit goes offers exactly 8.
    assert_eq!(bridge.send(conn, &[1; 8]), Ok(8));
    pump(&mut bridge, &mut editor);
    editor.consume(conn, 8).expect("held");
    pump(&mut editor, &mut bridge);
    assert_eq!(events(&mut bridge), [LinkEvent::Writable(conn)]);
}

#[test]
fn data_beyond_credit_is_a_fault_and_closes_every_connection() {
    let (_, mut bridge) = pair(small());
    let conn = bridge.open().expect("opens");
    let other = bridge.open().expect("opens");
    let _ = events(&mut bridge);
    let mut frame = vec![3, 0, 0, 0, 1, 0, 0, 0, 9];
    frame.extend_from_slice(&[0; 9]);
    bridge.handle_bytes(T0, &frame);
    assert_eq!(
        events(&mut bridge),
        [
            LinkEvent::Closed(conn),
            LinkEvent::Closed(other),
            LinkEvent::Dead(LinkFault::CreditExceeded(1))
        ]
    );
    assert_eq!(bridge.send(conn, b"x"), Err(LinkError::Dead));
}

#[test]
fn peer_faults_on_the_wire() {
    let cases: &[(&[u8], LinkFault)] = &[
        (&[9, 0, 0, 0, 0, 0, 0, 0, 0], LinkFault::UnknownFrameKind(9)),
        (
            &[3, 0, 0, 0, 0, 0, 0, 0, 1, 0],
            LinkFault::WrongConnectionId {
                kind: FrameKind::Data,
                conn: 0,
            },
        ),
        (
            &[3, 0, 0, 0, 1, 0, 1, 0, 1],
            LinkFault::BadLength {
                kind: FrameKind::Data,
                len: MAX_DATA_FRAME_BYTES + 1,
            },
        ),
        (&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1], LinkFault::HelloOrder),
        (&[2, 0, 0, 0, 3, 0, 0, 0, 0], LinkFault::BadOpen(3)),
        (
            &[4, 0, 0, 0, 5, 0, 0, 0, 0],
            LinkFault::UnknownConnection(5),
        ),
        (
            &[8, 0, 0, 0, 0, 0, 0, 0, 2, b'n', b'o'],
            LinkFault::PeerFault("no".into()),
        ),
    ];
    for (bytes, fault) in cases {
        // The bridge already has its peer's hello; it opens nothing, so every id is unknown.
        let (_, mut bridge) = pair(small());
        bridge.handle_bytes(T0, bytes);
        assert_eq!(
            events(&mut bridge),
            [LinkEvent::Dead(fault.clone())],
            "{bytes:?}"
        );
        assert_eq!(
            bridge.outbound().first() == Some(&8),
            fault.is_peer_violation(),
            "a violation is told to the peer: {bytes:?}"
        );
    }
}

#[test]
fn frames_that_crossed_a_close_are_dropped() {
    let (mut editor, mut bridge) = pair(small());
    let conn = bridge.open().expect("opens");
    pump(&mut bridge, &mut editor);
    let _ = events(&mut editor);
    editor.send(conn, b"late").expect("open");
    bridge.close(conn).expect("open");
    pump(&mut editor, &mut bridge);
    assert_eq!(events(&mut bridge), []);
    assert!(bridge.dead().is_none());
}

#[test]
fn keepalive_pings_then_ends_a_silent_link() {
    let (mut editor, _) = pair(small());
    let interval = small().keepalive_interval_ms;
    let at = editor.poll_timeout().expect("alive");
    assert_eq!(at, T0.add_millis(interval));
    editor.handle_timeout(at);
    assert_eq!(
        editor.outbound(),
        [6, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1]
    );
    let deadline = editor.poll_timeout().expect("alive");
    assert_eq!(deadline, at.add_millis(small().keepalive_timeout_ms));
    editor.handle_timeout(deadline);
    assert_eq!(
        events(&mut editor),
        [LinkEvent::Dead(LinkFault::KeepaliveTimeout)]
    );
    assert_eq!(editor.poll_timeout(), None);
}

#[test]
fn a_ping_is_answered_once_while_its_pong_is_unsent() {
    let (mut editor, _) = pair(small());
    let ping = [6, 0, 0, 0, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8];
    editor.handle_bytes(T0, &ping);
    editor.handle_bytes(T0, &ping);
    let pong = [7, 0, 0, 0, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8];
    assert_eq!(editor.outbound(), pong);
    editor.handle_sent(pong.len()).expect("sent");
    editor.handle_bytes(T0, &ping);
    assert_eq!(editor.outbound(), pong);
}

#[test]
fn eof_closes_every_connection() {
    let (mut editor, mut bridge) = pair(small());
    let conn = bridge.open().expect("opens");
    pump(&mut bridge, &mut editor);
    let _ = events(&mut editor);
    editor.handle_eof();
    assert_eq!(
        events(&mut editor),
        [LinkEvent::Closed(conn), LinkEvent::Dead(LinkFault::Eof)]
    );
    assert!(editor.outbound().is_empty());
}

#[test]
fn host_misuse_is_an_error() {
    let (mut editor, mut bridge) = pair(small());
    assert_eq!(editor.open(), Err(LinkError::NotBridge));
    let conn = bridge.open().expect("opens");
    assert_eq!(bridge.consume(conn, 1), Err(LinkError::Overrun));
    assert_eq!(
        editor.send(conn, b"x"),
        Err(LinkError::UnknownConnection(1))
    );
    let held = bridge.outbound().len();
    assert_eq!(bridge.handle_sent(held + 1), Err(LinkError::Overrun));
    let too_many = Hello {
        folders: vec![String::new(); MAX_HELLO_FOLDERS + 1],
        ..Hello::default()
    };
    assert!(Link::new(LinkRole::Bridge, small(), &too_many, T0).is_err());
}

/// Everything the editor end saw, for comparing runs: its events, its output, and what each
/// connection holds.
type Seen = (Vec<LinkEvent>, Vec<u8>, Vec<(u32, Vec<u8>)>);

fn run_split(stream: &[u8], cuts: &[usize]) -> Seen {
    let mut link = Link::new(LinkRole::Editor, small(), &editor_hello(), T0).expect("hello");
    let mut at = 0;
    for &cut in cuts {
        let end = (at + cut).min(stream.len());
        link.handle_bytes(T0, &stream[at..end]);
        at = end;
    }
    link.handle_bytes(T0, &stream[at..]);
    let held = link
        .connections()
        .map(|c| (c.get(), link.received(c).expect("open").to_vec()))
        .collect();
    (events(&mut link), link.outbound().to_vec(), held)
}

proptest! {
    /// A stream gives the same events, output and buffers however it is cut.
    #[test]
    fn split_invariance(
        frames in proptest::collection::vec((1u8..=9, 0u32..4, proptest::collection::vec(any::<u8>(), 0..12)), 0..12),
        cuts in proptest::collection::vec(0usize..20, 0..16),
    ) {
        let mut stream = Vec::new();
        let hello = bridge_hello().encode().expect("fits");
        frame::push(&mut stream, FrameKind::Hello, 0, &hello);
        for (kind, conn, payload) in &frames {
            stream.push(*kind);
            stream.extend_from_slice(&conn.to_be_bytes());
            stream.extend_from_slice(&u32::try_from(payload.len()).expect("short").to_be_bytes());
            stream.extend_from_slice(payload);
        }
        let whole = run_split(&stream, &[]);
        prop_assert_eq!(run_split(&stream, &cuts), whole);
    }

    /// Two ends exchanging random sends, consumes and partial writes: each connection's bytes
    /// arrive whole and in order, and no end ever holds more than its window per connection.
    #[test]
    fn every_connection_keeps_its_order(
        ops in proptest::collection::vec((0u8..5, 0usize..3, 1usize..30), 1..80),
    ) {
        let (mut editor, mut bridge) = pair(small());
        let conns: Vec<LinkConnId> = (0..3).map(|_| bridge.open().expect("opens")).collect();
        pump(&mut bridge, &mut editor);
        let mut sent: Vec<Vec<u8>> = vec![Vec::new(); 3];
        let mut got: Vec<Vec<u8>> = vec![Vec::new(); 3];
        let mut next = 0u8;
        for (op, which, n) in ops {
            let conn = conns[which];
            match op {
                0 => {
                    let bytes: Vec<u8> = (0..n).map(|_| { next = next.wrapping_add(1); next }).collect();
                    let took = bridge.send(conn, &bytes).expect("open");
                    sent[which].extend_from_slice(&bytes[..took]);
                    next = next.wrapping_sub(u8::try_from(n - took).expect("short"));
                }
                1 => {
                    let part = bridge.outbound().len().min(n);
                    let bytes = bridge.outbound()[..part].to_vec();
                    bridge.handle_sent(part).expect("held");
                    editor.handle_bytes(T0, &bytes);
                }
                2 => {
                    let held = editor.received(conn).expect("open");
                    let take = held.len().min(n);
                    got[which].extend_from_slice(&held[..take]);
                    editor.consume(conn, take).expect("held");
                }
                _ => {
                    let part = editor.outbound().len().min(n);
                    let bytes = editor.outbound()[..part].to_vec();
                    editor.handle_sent(part).expect("held");
                    bridge.handle_bytes(T0, &bytes);
                }
            }
            prop_assert!(editor.received(conn).expect("open").len() <= 8);
            prop_assert!(editor.dead().is_none() && bridge.dead().is_none());
        }
        for _ in 0..1000 {
            pump(&mut bridge, &mut editor);
            for (which, &conn) in conns.iter().enumerate() {
                let held = editor.received(conn).expect("open").to_vec();
                got[which].extend_from_slice(&held);
                editor.consume(conn, held.len()).expect("held");
            }
            pump(&mut editor, &mut bridge);
            if bridge.outbound().is_empty() && editor.outbound().is_empty() {
                break;
            }
        }
        for which in 0..3 {
            prop_assert!(sent[which].starts_with(&got[which]) && got[which].starts_with(&sent[which]));
        }
    }
}
