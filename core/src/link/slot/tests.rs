//! The slot against a real engine and a bridge end on virtual time: the hello it sends, one
//! link at a time, the link's outputs kept from the host, the deadlines folded, a dead link
//! replaced.

use super::*;
use crate::Config;
use crate::engine::EngineEvent;
use crate::link::{Link, LinkEvent, LinkFault, LinkRole};
use crate::token::AuthToken;

const BRIDGE_PORT: u16 = 41_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn token() -> AuthToken {
    AuthToken::from_entropy([0x22; 16])
}

fn engine(path_map: &[&str]) -> Engine {
    let mut config = Config::new(40_000);
    config.workspace_folders = vec!["/home/me/proj".into(), "/elsewhere".into()];
    config.path_map = path_map.iter().map(|m| (*m).to_owned()).collect();
    Engine::new(config, token())
}

fn bridge() -> Link {
    let hello = Hello {
        binary_version: "0.9.0".into(),
        port: Some(BRIDGE_PORT),
        ..Hello::default()
    };
    Link::new(LinkRole::Bridge, LinkConfig::default(), &hello, at(0)).expect("hello")
}

/// Moves the slot's bytes to the bridge end and the bridge's to the slot, then drains.
fn carry(
    slot: &mut LinkSlot,
    engine: &mut Engine,
    bridge: &mut Link,
    now: Timestamp,
) -> Vec<Output> {
    let to_bridge = slot.outbound().to_vec();
    slot.handle_sent(to_bridge.len()).expect("held");
    bridge.handle_bytes(now, &to_bridge);
    let to_editor = bridge.outbound().to_vec();
    bridge.handle_sent(to_editor.len()).expect("held");
    slot.handle_stream_bytes(engine, now, &to_editor);
    std::iter::from_fn(|| slot.poll_output(engine, now)).collect()
}

#[test]
fn the_hello_carries_the_token_the_name_and_the_folders_as_the_far_side_spells_them() {
    let plain = editor_hello(engine(&[]).config(), token().as_str(), "Ed").expect("no map");
    assert_eq!(plain.token.as_deref(), Some(token().as_str()));
    assert_eq!(plain.ide_name.as_deref(), Some("Ed"));
    assert_eq!(plain.folders, ["/home/me/proj", "/elsewhere"]);
    assert_eq!(plain.binary_version, env!("CARGO_PKG_VERSION"));
    assert_eq!((plain.port, plain.pid), (None, None));

    let mapped = engine(&["/far/proj=/home/me/proj"]);
    let hello = editor_hello(mapped.config(), "t", "Ed").expect("a good map");
    assert_eq!(
        hello.folders,
        ["/far/proj"],
        "the unmapped folder is left out"
    );

    let mut slot = LinkSlot::default();
    let refused = slot.attach(
        &engine(&["no equals sign"]),
        at(0),
        "t",
        "Ed",
        PumpPolicy::DEFAULT,
    );
    let message = refused.expect_err("a bad map").to_string();
    assert!(
        message.starts_with("cannot attach the link: the engine's pathMap: "),
        "{message}"
    );
    assert!(!slot.is_live());
}

#[test]
fn one_link_at_a_time_its_outputs_kept_from_the_host_and_a_dead_one_replaced() {
    let mut engine = engine(&[]);
    let mut slot = LinkSlot::default();
    assert_eq!(slot.poll_timeout(&engine), engine.poll_timeout());
    slot.attach(&engine, at(0), token().as_str(), "Ed", PumpPolicy::DEFAULT)
        .expect("the first");
    let second = slot.attach(&engine, at(0), token().as_str(), "Ed", PumpPolicy::DEFAULT);
    assert_eq!(second, Err(AttachRefusal::Attached));
    let untimed = slot.poll_output_at(&mut engine, None);
    assert_eq!(
        untimed,
        Err(NeedsTime),
        "a live link's outputs need the time"
    );
    assert_eq!(slot.poll_output_at(&mut engine, Some(at(0))), Ok(None));

    let mut bridge = bridge();
    assert_eq!(carry(&mut slot, &mut engine, &mut bridge, at(1)), []);
    let Some(AttachEvent::Hello(hello)) = slot.poll_event() else {
        panic!("the bridge's hello first");
    };
    assert_eq!(hello.port, Some(BRIDGE_PORT));
    // The keepalive is the link's; the engine alone has no deadline now.
    assert_eq!(engine.poll_timeout(), None);
    assert_eq!(
        slot.poll_timeout(&engine),
        Some(at(1 + LinkConfig::default().keepalive_interval_ms)),
        "the link's keepalive"
    );

    // Claude upgrades at the bridge: the 101 goes back over the link, never to the host.
    let conn = bridge.open().expect("open");
    let upgrade = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{BRIDGE_PORT}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: mcp\r\n\
         X-Claude-Code-Ide-Authorization: {}\r\n\r\n",
        token().as_str()
    );
    bridge.send(conn, upgrade.as_bytes()).expect("credit");
    let outputs = carry(&mut slot, &mut engine, &mut bridge, at(2));
    assert!(
        outputs
            .iter()
            .all(|o| matches!(o, Output::Event(EngineEvent::Connected { .. }))),
        "{outputs:?}"
    );
    assert_eq!(outputs.len(), 1);
    carry(&mut slot, &mut engine, &mut bridge, at(3));
    let answer = bridge.received(conn).expect("open");
    assert!(answer.starts_with(b"HTTP/1.1 101 Switching Protocols\r\n"));

    // The timer reaches the link too: once the link is silent that long, a ping goes out.
    let keepalive = at(3 + LinkConfig::default().keepalive_interval_ms);
    slot.handle_timeout(&mut engine, keepalive);
    assert!(!slot.outbound().is_empty(), "a ping");

    // The bridge's stream ends: the link is dead, claude's connection closed in the engine.
    slot.handle_stream_end(&mut engine, keepalive);
    let outputs: Vec<_> = std::iter::from_fn(|| slot.poll_output(&mut engine, keepalive)).collect();
    assert!(
        matches!(outputs[..], [Output::Event(EngineEvent::Closed { .. })]),
        "{outputs:?}"
    );
    assert_eq!(slot.poll_event(), Some(AttachEvent::Dead(LinkFault::Eof)));
    assert!(!slot.is_live());
    assert_eq!(
        slot.poll_output_at(&mut engine, None),
        Ok(None),
        "a dead one's do not"
    );
    slot.attach(
        &engine,
        keepalive,
        token().as_str(),
        "Ed",
        PumpPolicy::DEFAULT,
    )
    .expect("a dead link is replaced");
    assert!(slot.is_live());
    assert!(matches!(bridge.poll_event(), Some(LinkEvent::Hello(_))));
}

#[test]
fn without_a_link_each_call_is_the_engines() {
    let mut engine = engine(&[]);
    let mut slot = LinkSlot::default();
    slot.handle_stream_bytes(&mut engine, at(0), b"ignored");
    slot.handle_stream_end(&mut engine, at(0));
    slot.shutdown(&mut engine, at(0));
    assert_eq!(slot.outbound(), b"");
    assert_eq!(slot.handle_sent(0), Ok(()));
    assert_eq!(slot.handle_sent(1), Err(LinkError::Overrun));
    assert_eq!(slot.poll_event(), None);
    let conn = engine.handle_accept(at(0));
    engine.close(at(0), conn).expect("known");
    assert_eq!(
        slot.poll_output_at(&mut engine, None),
        Ok(Some(Output::CloseTransport { conn }))
    );
}
