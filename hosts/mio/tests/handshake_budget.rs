//! Unauthenticated sockets cannot keep claude out (issue 12 §5): sockets held open in the HTTP
//! handshake have their own budget, so a client with the token is served however many of them
//! a local process holds.

mod common;

use common::{Served, TempDir, config};
use idelink_test_client::Client;
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::Duration;

/// The figure: claude is upgraded and initialized this soon after connecting, with
/// the idle sockets held open. A deadline on the wait, not a sleep.
const SERVED_WITHIN: Duration = Duration::from_millis(100);

#[test]
fn sixty_four_idle_sockets_do_not_keep_a_client_with_the_token_out() {
    let dir = TempDir::new("handshakes");
    let served = Served::start(config(&dir));
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(("127.0.0.1", served.port)).unwrap())
        .collect();
    // A first client with the token proves the host has accepted every idle socket before it.
    let (port, token) = (served.port, served.token.clone());
    let mut first = Client::connect_initialized(port, &token).unwrap();
    let (done, result) = mpsc::channel();
    let client = std::thread::spawn(move || {
        let outcome = Client::connect_initialized(port, &token)
            .and_then(|mut c| c.call("ping", serde_json::json!({})));
        let _ = done.send(outcome);
    });
    let reply = result
        .recv_timeout(SERVED_WITHIN)
        .expect("served within the deadline")
        .unwrap();
    assert_eq!(reply["result"], serde_json::json!({}), "{reply}");
    client.join().unwrap();
    let ping = first.call("ping", serde_json::json!({})).unwrap();
    assert_eq!(ping["result"], serde_json::json!({}));
    drop(idle);
    served.stop();
}
