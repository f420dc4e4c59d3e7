//! The adversarial cases every host answers the same way ([`idelink_test_client::adversarial`]),
//! against the tokio host on a real socket, with a bystander client connected throughout that
//! must still be served afterwards; the handshake deadline; and the handshake budget (idle
//! sockets cannot keep a client with the token out).
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{TempDir, blocking, config};
use idelink_test_client::{Client, adversarial};
use idelink_tokio::Host;
use std::net::TcpStream;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_upgrades_framing_violations_and_bad_json_get_their_exact_answers() {
    let dir = TempDir::new("adversarial");
    let (host, _events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    blocking(move || {
        let mut bystander = Client::connect_initialized(port, &token).unwrap();
        adversarial::refused_upgrades(port, &token);
        adversarial::framing_violations(port, &token);
        adversarial::malformed_json(port, &token);
        adversarial::still_served(port, &token);
        let pong = bystander.call("ping", serde_json::json!({})).unwrap();
        assert_eq!(pong["result"], serde_json::json!({}));
    })
    .await;
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_idle_sockets_do_not_keep_a_client_with_the_token_out() {
    let dir = TempDir::new("handshakes");
    let (host, _events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    blocking(move || {
        let idle: Vec<TcpStream> = (0..64)
            .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
            .collect();
        let mut client = Client::connect_initialized(port, &token).unwrap();
        let pong = client.call("ping", serde_json::json!({})).unwrap();
        assert_eq!(pong["result"], serde_json::json!({}));
        drop(idle);
    })
    .await;
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slowloris_is_closed_at_the_handshake_deadline() {
    let dir = TempDir::new("slowloris");
    let mut config = config(&dir);
    config.engine.handshake_timeout_ms = 300;
    let (host, mut events) = Host::start(config).unwrap();
    let port = host.port();
    blocking(move || {
        use std::io::{Read, Write};
        let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket.set_read_timeout(Some(common::DEADLINE)).unwrap();
        socket
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:")
            .unwrap();
        let mut rest = Vec::new();
        socket.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"", "closed without a word");
    })
    .await;
    // It never authenticated: its close is counted, not queued on its own.
    common::wait_for(&mut events, "the slowloris closed", |e| {
        matches!(
            e,
            idelink_tokio::HostEvent::HandshakesClosed {
                count: 1,
                last: idelink_core::CloseReason::HandshakeTimeout,
            }
        )
    })
    .await;
    host.shutdown(Duration::from_secs(1)).await;
}
