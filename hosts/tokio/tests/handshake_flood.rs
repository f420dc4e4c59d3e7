//! A flood of unauthenticated connect/hang-ups against the tokio host while the editor does not
//! read its events: the queue holds one counted event for all of them (not one per socket),
//! every hang-up is counted, and a client with the token is still served at once.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{DEADLINE, TempDir, blocking, config};
use idelink_core::{CloseReason, EngineEvent};
use idelink_test_client::Client;
use idelink_tokio::{Host, HostEvent};
use std::io::Read;
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// Sockets that connect and hang up without a word (no upgrade, no token).
const HANG_UPS: u64 = 3_000;

/// At most this many events queued after the flood and the token-holding client's session:
/// the client's own (`Connected`, `SessionReady`, what it asked) and one count for the flood.
const QUEUED_BOUND: usize = 8;

/// The token-holding client connects and initializes within this, after the flood.
const SERVED_WITHIN: Duration = Duration::from_secs(1);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_thousand_hang_ups_hold_one_queued_event_and_a_client_with_the_token_is_served() {
    let dir = TempDir::new("hangups");
    let (host, mut events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let before = events.len();
    let (served_in, client) = blocking(move || {
        for _ in 0..HANG_UPS {
            let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
            socket.shutdown(Shutdown::Write).unwrap();
            // The host closes its side once the engine has forgotten the socket (and reported
            // its end): the flood is then queued, or counted, before the next socket.
            socket.set_read_timeout(Some(DEADLINE)).unwrap();
            assert_eq!(
                socket.read(&mut [0u8; 1]).unwrap(),
                0,
                "closed without a word"
            );
        }
        let started = Instant::now();
        let mut client = Client::connect_initialized(port, &token).unwrap();
        let pong = client.call("ping", serde_json::json!({})).unwrap();
        assert_eq!(pong["result"], serde_json::json!({}));
        (started.elapsed(), client)
    })
    .await;
    let after = events.len();
    eprintln!(
        "tokio host: {before} events queued before {HANG_UPS} hang-ups, {after} after; \
         the client with the token initialized in {served_in:?}"
    );
    assert!(
        after <= QUEUED_BOUND,
        "{after} events queued after {HANG_UPS} unauthenticated hang-ups (bound {QUEUED_BOUND})"
    );
    assert!(
        served_in < SERVED_WITHIN,
        "the client with the token took {served_in:?} to initialize"
    );

    // Nothing was lost: every hang-up is in the count, and the client's session is reported.
    let (mut counted, mut connected) = (0, false);
    while let Ok(event) = events.try_recv() {
        match event {
            HostEvent::HandshakesClosed { count, last } => {
                assert_eq!(last, CloseReason::TransportClosed);
                counted += count;
            }
            HostEvent::Engine(EngineEvent::Connected { .. }) => connected = true,
            _ => {}
        }
    }
    assert_eq!(counted, HANG_UPS, "every hang-up is counted");
    assert!(connected, "the client's Connected is queued");

    // The session's own close is reported as it is, not counted.
    drop(client);
    common::wait_for(&mut events, "the client's close", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::Closed { .. }))
    })
    .await;
    host.shutdown(Duration::from_secs(1)).await;
}
