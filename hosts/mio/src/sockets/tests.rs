//! The socket table on real loopback pairs: reads, back-pressure pauses, writes that stop at a
//! full send buffer, closing with discard and linger. Every wait has a deadline.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use super::*;
use mio::{Events, Poll};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(10);
const PEER: Token = Token(1);

/// A table holding the server side of one loopback pair, and the client side (blocking).
fn pair(policy: PumpPolicy) -> (Poll, SocketTable, std::net::TcpStream) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.set_read_timeout(Some(DEADLINE)).unwrap();
    let (server, _) = listener.accept().unwrap();
    server.set_nonblocking(true).unwrap();
    let poll = Poll::new().unwrap();
    let mut table = SocketTable::new(policy);
    let stream = TcpStream::from_std(server);
    table.insert(poll.registry(), PEER, stream).unwrap();
    (poll, table, client)
}

/// Polls until `PEER` is readable and reads once.
fn read_when_ready(
    poll: &mut Poll,
    table: &mut SocketTable,
    buf: &mut [u8],
    unsent: usize,
) -> Read {
    let mut events = Events::with_capacity(8);
    loop {
        match table.read(PEER, buf, unsent) {
            Read::WouldBlock => {}
            other => return other,
        }
        poll.poll(&mut events, Some(DEADLINE)).unwrap();
        assert!(!events.is_empty(), "no readiness within the deadline");
        for event in events.iter() {
            let _ = table.handle_event(event);
        }
    }
}

#[test]
fn reads_what_the_peer_sends_and_sees_it_leave() {
    let (mut poll, mut table, mut client) = pair(PumpPolicy::DEFAULT);
    client.write_all(b"hello").unwrap();
    let mut buf = [0; 64];
    assert_eq!(
        read_when_ready(&mut poll, &mut table, &mut buf, 0),
        Read::Data(5)
    );
    assert_eq!(&buf[..5], b"hello");
    drop(client);
    assert_eq!(
        read_when_ready(&mut poll, &mut table, &mut buf, 0),
        Read::Gone
    );
    assert!(table.remove(poll.registry(), PEER));
    assert!(
        !table.remove(poll.registry(), PEER),
        "removal is idempotent"
    );
    assert_eq!(table.read(PEER, &mut buf, 0), Read::WouldBlock);
    assert_eq!(table.write(PEER, b"x"), Write::Sent(0));
}

#[test]
fn reads_pause_at_the_mark_and_resume_below_half() {
    let (mut poll, mut table, mut client) = pair(PumpPolicy::pausing_at(100));
    client.write_all(b"more input").unwrap();
    let mut buf = [0; 64];
    assert_eq!(table.read(PEER, &mut buf, 100), Read::Paused);
    assert!(table.is_paused(PEER));
    assert_eq!(table.paused(), vec![PEER]);
    assert!(!table.resume(PEER, 50), "50 is not below half of 100");
    assert!(table.resume(PEER, 49));
    assert!(!table.is_paused(PEER));
    assert!(!table.resume(PEER, 0), "resumes once");
    assert_eq!(
        read_when_ready(&mut poll, &mut table, &mut buf, 49),
        Read::Data(10)
    );
}

#[test]
fn a_peer_that_does_not_read_blocks_writes_until_it_reads() {
    let (mut poll, mut table, mut client) = pair(PumpPolicy::DEFAULT);
    let chunk = vec![7u8; 1 << 20];
    let mut sent = 0;
    while !table.is_write_blocked(PEER) {
        match table.write(PEER, &chunk) {
            Write::Sent(n) => sent += n,
            Write::Gone => panic!("the peer is still there"),
        }
        assert!(sent < 1 << 30, "the send buffer never filled");
    }
    assert_eq!(
        table.write(PEER, &chunk),
        Write::Sent(0),
        "blocked: nothing goes"
    );
    let mut sink = vec![0; 1 << 20];
    let mut events = Events::with_capacity(8);
    let mut drained = 0;
    while table.is_write_blocked(PEER) {
        drained += client.read(&mut sink).unwrap();
        poll.poll(&mut events, Some(Duration::ZERO)).unwrap();
        for event in events.iter() {
            let _ = table.handle_event(event);
        }
        assert!(drained <= sent, "read more than was sent");
    }
    assert!(matches!(table.write(PEER, b"x"), Write::Sent(1)));
}

#[test]
fn a_closing_socket_discards_input_and_lingers_until_its_deadline() {
    let policy = PumpPolicy::DEFAULT;
    let (mut poll, mut table, mut client) = pair(policy);
    let t = Timestamp::from_millis(1_000);
    table.close(PEER, t);
    table.close(PEER, t.add_millis(500));
    assert!(table.is_closing(PEER));
    assert_eq!(table.next_deadline(), Some(t.add_millis(policy.linger_ms)));
    assert!(table.expired(t.add_millis(policy.linger_ms - 1)).is_empty());
    assert_eq!(table.expired(t.add_millis(policy.linger_ms)), vec![PEER]);
    client.write_all(b"ignored").unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    let mut events = Events::with_capacity(8);
    // The peer's end of stream shows as read-closed on Unix, as readable on Windows (AFD).
    while !events.iter().any(|e| e.is_read_closed() || e.is_readable()) {
        poll.poll(&mut events, Some(DEADLINE)).unwrap();
        assert!(!events.is_empty(), "no end of stream within the deadline");
    }
    let mut buf = [0; 64];
    // Unsent bytes remain: the peer's end does not end the flush.
    assert_eq!(table.read(PEER, &mut buf, 3), Read::WouldBlock);
    assert!(table.contains(PEER));
    assert_eq!(table.read(PEER, &mut buf, 0), Read::Gone);
    table.shutdown_write(PEER).unwrap();
    assert_eq!(
        client.read(&mut buf).unwrap(),
        0,
        "our end of stream arrived"
    );
}
