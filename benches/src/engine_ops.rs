//! The engine-only operations the benchmarks time, count allocations of, and run under
//! callgrind: each is a steady-state setup plus one repeatable operation.

use crate::wire::{self, FILE_PATH, SELECTED_TEXT};
use idelink_core::ws::{Message, ServerSocket, WsConfig};
use idelink_core::{
    AuthToken, Config, ConnId, EditorEvent, Engine, EngineEvent, Output, Timestamp, ToolOutcome,
};
use std::hint::black_box;

/// The port the engine-only sessions pretend to serve.
const PORT: u16 = 40000;
/// The token they admit.
const TOKEN: &str = "00112233445566778899aabbccddeeff";
/// How many distinct request frames a round-trip benchmark cycles through.
const FRAME_RING: u64 = 64;
/// The chunk size a host reads with (the mio host reads 64 KiB at a time).
pub const READ_CHUNK: usize = 64 * 1024;

/// Accepts one client on `engine` and takes it through the CLI's start — the upgrade with
/// `token`, `initialize`, `notifications/initialized` — at time 0, then runs the engine's
/// timers once so it is ready; the caller drains the outputs.
pub fn connect_client(engine: &mut Engine, port: u16, token: &str) -> ConnId {
    let now = Timestamp::from_millis(0);
    let conn = engine.handle_accept(now);
    let mut hello = wire::upgrade_request(port, token);
    hello.extend(wire::client_frame(wire::initialize()));
    hello.extend(wire::client_frame(wire::initialized()));
    engine
        .handle_bytes(now, conn, &hello)
        .expect("the connection was just accepted");
    engine.handle_timeout(now);
    conn
}

/// A `selectionChanged` editor event on line `line` of the benchmark document.
pub fn selection_event(line: u32) -> EditorEvent {
    EditorEvent::SelectionChanged {
        path: FILE_PATH.into(),
        text: SELECTED_TEXT.into(),
        selection: idelink_core::ide::Range {
            start: idelink_core::ide::Position { line, character: 0 },
            end: idelink_core::ide::Position {
                line: line + 2,
                character: 1,
            },
        },
    }
}

/// What draining the engine after one input produced.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// Bytes handed to the "socket".
    pub sent: usize,
    /// `ToolServed` events.
    pub answered: usize,
    /// `ToolCall` events (their ids are answered by the caller).
    pub tool_calls: usize,
}

/// An engine with ready clients, an active document with a selection, and warm buffers.
pub struct Session {
    engine: Engine,
    conns: Vec<ConnId>,
    now: Timestamp,
    calls: Vec<Vec<u8>>,
    next_call: usize,
    pending: Vec<idelink_core::ToolCallId>,
}

impl Session {
    /// A session with `clients` ready clients. Keepalive is off: the benchmarks run minutes of
    /// virtual time with clients that never speak between calls.
    pub fn new(clients: usize) -> Session {
        let mut config = Config::new(PORT);
        config.ready_delay_ms = 0;
        config.max_connections = clients + 1;
        config.ws.keepalive_interval_ms = 0;
        let token = AuthToken::parse(TOKEN).expect("TOKEN is 32 lowercase hex digits");
        let mut session = Session {
            engine: Engine::new(config, token),
            conns: Vec::new(),
            now: Timestamp::from_millis(0),
            calls: (1..=FRAME_RING)
                .map(|id| wire::client_frame(&wire::selection_call(id)))
                .collect(),
            next_call: 0,
            pending: Vec::new(),
        };
        let mut hello = wire::upgrade_request(PORT, TOKEN);
        hello.extend(wire::client_frame(wire::initialize()));
        hello.extend(wire::client_frame(wire::initialized()));
        for _ in 0..clients {
            let conn = session.engine.handle_accept(session.now);
            session.conns.push(conn);
            session.feed(conn, &hello);
        }
        session.engine.handle_timeout(session.now);
        session.drain();
        session
            .engine
            .handle_editor_event(session.now, &selection_event(2));
        session.tick_debounce();
        session
    }

    /// One `tools/call getCurrentSelection` round trip on the first client: the request's
    /// bytes in, every output drained, the answer's bytes taken.
    pub fn round_trip(&mut self) -> Drained {
        let frame = &self.calls[self.next_call];
        self.next_call = (self.next_call + 1) % self.calls.len();
        let conn = self.conns[0];
        let _ = self.engine.handle_bytes(self.now, conn, frame);
        self.drain()
    }

    /// One `selection_changed` fan-out: the editor moves the selection, the debounce runs
    /// out, every ready client gets the notification.
    pub fn fan_out(&mut self, line: u32) -> Drained {
        self.engine
            .handle_editor_event(self.now, &selection_event(line));
        self.tick_debounce()
    }

    /// Ingests one large message (an `openDiff` frame) on the first client in host-sized
    /// chunks, then answers the tool request it became with `DIFF_REJECTED`.
    pub fn ingest(&mut self, frame: &[u8]) -> Drained {
        let conn = self.conns[0];
        let mut total = Drained::default();
        for chunk in frame.chunks(READ_CHUNK) {
            let _ = self.engine.handle_bytes(self.now, conn, chunk);
            total = add(total, self.drain());
        }
        for id in std::mem::take(&mut self.pending) {
            let _ = self
                .engine
                .handle_tool_outcome(self.now, id, &ToolOutcome::DiffRejected);
            total = add(total, self.drain());
        }
        total
    }

    /// One editor event, the debounce run out, every output drained.
    pub fn editor_event(&mut self, event: &EditorEvent) -> Drained {
        self.engine.handle_editor_event(self.now, event);
        self.tick_debounce()
    }

    /// One editor event, handled and nothing drained (see [`Session::debounce`]).
    pub fn editor_event_only(&mut self, event: &EditorEvent) {
        self.engine.handle_editor_event(self.now, event);
    }

    /// The selection debounce runs out; every output drained.
    pub fn debounce(&mut self) -> Drained {
        self.tick_debounce()
    }

    /// As [`Session::editor_event`], returning a copy of the bytes sent (for checks).
    pub fn editor_event_bytes(&mut self, event: &EditorEvent) -> Vec<u8> {
        self.engine.handle_editor_event(self.now, event);
        let debounce = self.engine.config().selection_debounce_ms;
        self.now = self.now.add_millis(debounce);
        self.engine.handle_timeout(self.now);
        let mut sent = Vec::new();
        self.drain_into(Some(&mut sent));
        sent
    }

    /// One request frame on the first client, every output drained.
    pub fn call(&mut self, frame: &[u8]) -> Drained {
        let conn = self.conns[0];
        let _ = self.engine.handle_bytes(self.now, conn, frame);
        self.drain()
    }

    /// As [`Session::call`], returning a copy of the bytes sent (for checks).
    pub fn call_bytes(&mut self, frame: &[u8]) -> Vec<u8> {
        let conn = self.conns[0];
        let _ = self.engine.handle_bytes(self.now, conn, frame);
        let mut sent = Vec::new();
        self.drain_into(Some(&mut sent));
        sent
    }

    fn feed(&mut self, conn: ConnId, bytes: &[u8]) {
        let _ = self.engine.handle_bytes(self.now, conn, bytes);
        self.drain();
    }

    fn tick_debounce(&mut self) -> Drained {
        let debounce = self.engine.config().selection_debounce_ms;
        self.now = self.now.add_millis(debounce);
        self.engine.handle_timeout(self.now);
        self.drain()
    }

    /// Drains every output as a host does, writing every outbound byte at once.
    fn drain(&mut self) -> Drained {
        self.drain_into(None)
    }

    /// Drains every output, copying the bytes sent into `copy` when given.
    fn drain_into(&mut self, mut copy: Option<&mut Vec<u8>>) -> Drained {
        let mut drained = Drained::default();
        while let Some(output) = self.engine.poll_output() {
            match output {
                Output::Transmit { conn } => {
                    let bytes = self.engine.outbound(conn);
                    drained.sent += black_box(bytes).len();
                    if let Some(copy) = copy.as_deref_mut() {
                        copy.extend_from_slice(bytes);
                    }
                    let _ = self.engine.handle_sent(conn, bytes.len());
                }
                Output::Event(EngineEvent::ToolServed { .. }) => drained.answered += 1,
                Output::Event(EngineEvent::ToolCall { id, .. }) => {
                    drained.tool_calls += 1;
                    self.pending.push(id);
                }
                _ => {}
            }
        }
        drained
    }
}

fn add(a: Drained, b: Drained) -> Drained {
    Drained {
        sent: a.sent + b.sent,
        answered: a.answered + b.answered,
        tool_calls: a.tool_calls + b.tool_calls,
    }
}

/// A WebSocket server socket fed one large text frame at a time: frame decode, unmask in
/// place and the UTF-8 check, with nothing above them.
pub struct Decoder {
    socket: ServerSocket,
    frame: Vec<u8>,
    payload_len: usize,
    out: Vec<u8>,
}

/// Source code: ASCII, as most files an `openDiff` carries are.
pub const SOURCE_TEXT: &str = "    let value = compute(\"input\", 42); // a line of code\n";
/// Text where a quarter of the bytes belong to multi-byte characters (UTF-8 validation
/// leaves its ASCII fast path).
pub const MIXED_TEXT: &str = "fn grüße() -> &'static str { \"✻ κόσμε\" } // ok\n";

impl Decoder {
    /// A decoder for frames carrying `payload_len` bytes of `pattern`, repeated.
    pub fn new(payload_len: usize, pattern: &str) -> Decoder {
        let config = WsConfig {
            keepalive_interval_ms: 0,
            ..WsConfig::default()
        };
        let text: String = pattern.chars().cycle().take(payload_len).collect();
        let mut text = text.into_bytes();
        text.truncate(payload_len);
        while std::str::from_utf8(&text).is_err() {
            text.pop();
        }
        let payload_len = text.len();
        let mut frame = Vec::with_capacity(payload_len + 14);
        wire::push_client_frame(&text, &mut frame);
        Decoder {
            socket: ServerSocket::new(config, Timestamp::from_millis(0)),
            frame,
            payload_len,
            out: Vec::new(),
        }
    }

    /// Payload bytes per frame.
    pub fn payload_len(&self) -> usize {
        self.payload_len
    }

    /// Feeds the frame in host-sized chunks and takes the message; returns its length.
    pub fn decode(&mut self) -> usize {
        let mut len = 0;
        for chunk in self.frame.chunks(READ_CHUNK) {
            self.socket.receive(chunk);
            if let Some(Message::Text(text)) = self
                .socket
                .poll_message(Timestamp::from_millis(0), &mut self.out)
            {
                len = black_box(text).len();
            }
        }
        len
    }
}

/// The floor for moving bytes: copying a buffer of the same size.
pub struct Memcpy {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl Memcpy {
    /// Buffers of `len` bytes.
    pub fn new(len: usize) -> Memcpy {
        Memcpy {
            src: (0..len).map(|i| (i % 251) as u8).collect(),
            dst: vec![0; len],
        }
    }

    /// Copies the buffer once; returns its length.
    pub fn copy(&mut self) -> usize {
        self.dst.copy_from_slice(black_box(&self.src));
        black_box(&self.dst).len()
    }
}

/// The masked `openDiff` frame the ingest benchmark feeds: about `bytes` of file contents.
pub fn open_diff_frame(bytes: usize) -> Vec<u8> {
    wire::client_frame(&wire::open_diff_call(1, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_does_its_work() {
        let mut session = Session::new(3);
        let trip = session.round_trip();
        assert_eq!((trip.answered, trip.tool_calls), (1, 0));
        assert!(trip.sent > 200, "{trip:?}");
        let fan = session.fan_out(9);
        assert!(fan.sent > 3 * 150, "{fan:?}");
        let frame = open_diff_frame(200_000);
        let ingest = session.ingest(&frame);
        assert_eq!(ingest.tool_calls, 1);
        assert!(ingest.sent > 50, "{ingest:?}");
        let mut decoder = Decoder::new(300_000, MIXED_TEXT);
        assert_eq!(decoder.decode(), decoder.payload_len());
        assert_eq!(decoder.decode(), decoder.payload_len());
        assert_eq!(Memcpy::new(1000).copy(), 1000);
    }
}
