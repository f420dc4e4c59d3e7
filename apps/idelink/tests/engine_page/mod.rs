//! A scripted page that runs the real engine, as the demo page runs it in wasm: it takes the
//! claude token from its welcome and answers claude's connections over the page link, so a
//! test can see what a page's engine answers a token (101, 401) and drive a whole session.

use idelink_core::{AuthToken, Config, ConnId, Engine, Output, Timestamp};
use idelink_test_client::{Client, Frame};
use serde_json::Value;
use std::collections::HashMap;
use std::io::ErrorKind;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the page waits for a frame before it runs the engine's timers.
const TICK: Duration = Duration::from_millis(20);

/// The page's thread; it ends when the relay closes the link.
pub struct EnginePage {
    thread: JoinHandle<Option<u16>>,
}

impl EnginePage {
    /// Serves claude on `link`, linked with `welcome`.
    pub fn start(link: Client, welcome: &Value) -> EnginePage {
        let token = AuthToken::parse(welcome["authToken"].as_str().unwrap()).unwrap();
        let port = u16::try_from(welcome["claudePort"].as_u64().unwrap()).unwrap();
        let engine = Engine::new(Config::new(port), token);
        let thread = std::thread::spawn(move || serve(link, engine));
        EnginePage { thread }
    }

    /// Waits for the relay to close the link: its close code.
    pub fn closed(self) -> Option<u16> {
        self.thread.join().unwrap()
    }
}

/// The ids of claude's connections: the relay's (on the link) and the engine's.
#[derive(Default)]
struct Conns {
    engine: HashMap<u32, ConnId>,
    relay: HashMap<ConnId, u32>,
}

fn serve(mut link: Client, mut engine: Engine) -> Option<u16> {
    link.socket().set_read_timeout(Some(TICK)).unwrap();
    let clock = Instant::now();
    let now = || Timestamp::from_millis(u64::try_from(clock.elapsed().as_millis()).unwrap());
    let mut conns = Conns::default();
    loop {
        match link.next_frame() {
            Ok(Frame::Text(text)) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                let conn = message["conn"].as_u64().and_then(|c| u32::try_from(c).ok());
                match (message["type"].as_str(), conn) {
                    (Some("open"), Some(conn)) => {
                        let id = engine.handle_accept(now());
                        conns.engine.insert(conn, id);
                        conns.relay.insert(id, conn);
                    }
                    (Some("closed"), Some(conn)) => {
                        if let Some(id) = conns.engine.remove(&conn) {
                            conns.relay.remove(&id);
                            engine.handle_closed(now(), id).unwrap();
                        }
                    }
                    _ => {}
                }
            }
            Ok(Frame::Other(2, payload)) => {
                let conn = u32::from_be_bytes(payload[..4].try_into().unwrap());
                if let Some(id) = conns.engine.get(&conn) {
                    engine.handle_bytes(now(), *id, &payload[4..]).unwrap();
                }
            }
            Ok(Frame::Ping(payload)) => link.send_frame(0xA, true, &payload).unwrap(),
            Ok(Frame::Close(code, _)) => return code,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return None,
        }
        if engine.poll_timeout().is_some_and(|at| at <= now()) {
            engine.handle_timeout(now());
        }
        if drain(&mut link, &mut engine, &mut conns, now()).is_err() {
            return None;
        }
    }
}

/// Carries the engine's outputs to the relay: bytes as data messages, closes as `close`.
fn drain(
    link: &mut Client,
    engine: &mut Engine,
    conns: &mut Conns,
    now: Timestamp,
) -> std::io::Result<()> {
    while let Some(output) = engine.poll_output() {
        let (id, closing) = match output {
            Output::Transmit { conn } => (conn, false),
            Output::CloseTransport { conn } => (conn, true),
            _ => continue,
        };
        let Some(&conn) = conns.relay.get(&id) else {
            continue;
        };
        let bytes = engine.outbound(id).to_vec();
        if !bytes.is_empty() {
            let mut message = conn.to_be_bytes().to_vec();
            message.extend_from_slice(&bytes);
            link.send_frame(0x2, true, &message)?;
            engine.handle_sent(id, bytes.len()).unwrap();
        }
        if closing {
            link.send_text(&format!(r#"{{"type":"close","conn":{conn}}}"#))?;
            conns.relay.remove(&id);
            conns.engine.remove(&conn);
            engine.handle_closed(now, id).unwrap();
        }
    }
    Ok(())
}
