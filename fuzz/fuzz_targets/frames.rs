//! `ws::ServerSocket` fed an arbitrary byte stream cut at arbitrary points.
//!
//! Oracles: no panic; the same messages, output bytes and outcome whether the stream arrives
//! whole or in pieces (split invariance); a failed connection's output ends with the close
//! frame naming its code; messages never hold more bytes than arrived; after the stream, the
//! timers run to the end without panicking and a finished socket has no deadline.
#![no_main]

use idelink_core::Timestamp;
use idelink_core::ws::{Finished, Message, ServerSocket, WsConfig};
use libfuzzer_sys::fuzz_target;

/// The input's layout: `[config, n, cut_1 .. cut_n, stream ..]`. Config bit 0: accept
/// binary; bit 1: tiny limits (64-byte messages, 3 fragments). The cuts are the lengths of the
/// first pieces the stream arrives in (0 counts as 1); the rest arrives as one piece. A seed
/// is `[config, 0]` followed by a client byte stream.
struct Input<'a> {
    config: u8,
    cuts: &'a [u8],
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    fn parse(data: &'a [u8]) -> Option<Self> {
        let (&config, rest) = data.split_first()?;
        let (&n, rest) = rest.split_first()?;
        let (cuts, bytes) = rest.split_at_checked(usize::from(n))?;
        Some(Input {
            config,
            cuts,
            bytes,
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Owned {
    Text(String),
    Binary(Vec<u8>),
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    messages: Vec<Owned>,
    out: Vec<u8>,
    finished: Option<Finished>,
}

fn config(bits: u8) -> WsConfig {
    let mut config = WsConfig {
        accept_binary: bits & 1 != 0,
        ..WsConfig::default()
    };
    if bits & 2 != 0 {
        config.max_message_bytes = 64;
        config.max_fragments = 3;
    }
    config
}

fn run<'a>(config: WsConfig, pieces: impl Iterator<Item = &'a [u8]>) -> (ServerSocket, Outcome) {
    let now = Timestamp::from_millis(0);
    let mut socket = ServerSocket::new(config, now);
    let mut outcome = Outcome {
        messages: Vec::new(),
        out: Vec::new(),
        finished: None,
    };
    for piece in pieces {
        socket.receive(piece);
        while let Some(message) = socket.poll_message(now, &mut outcome.out) {
            outcome.messages.push(match message {
                Message::Text(text) => Owned::Text(text.to_owned()),
                Message::Binary(bytes) => Owned::Binary(bytes.to_vec()),
            });
        }
    }
    outcome.finished = socket.finished().cloned();
    (socket, outcome)
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data) else {
        return;
    };
    let config = config(input.config);
    let (_, whole) = run(config.clone(), std::iter::once(input.bytes));
    let mut pieces = Vec::new();
    let mut rest = input.bytes;
    for &cut in input.cuts {
        let (piece, tail) = rest.split_at(usize::from(cut.max(1)).min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces.push(rest);
    let (mut socket, split) = run(config, pieces.into_iter());
    assert_eq!(
        whole, split,
        "the outcome depends on how the stream was cut"
    );

    let payload: usize = split
        .messages
        .iter()
        .map(|m| match m {
            Owned::Text(t) => t.len(),
            Owned::Binary(b) => b.len(),
        })
        .sum();
    assert!(payload <= input.bytes.len());
    if let Some(Finished::Failed { code, reason }) = &split.finished {
        let mut close = vec![0x88, 2 + reason.len() as u8];
        close.extend_from_slice(&code.to_be_bytes());
        close.extend_from_slice(reason.as_bytes());
        assert!(
            split.out.ends_with(&close),
            "failed without its close frame"
        );
    }

    let mut out = split.out;
    for _ in 0..4 {
        match socket.poll_timeout() {
            Some(at) => socket.handle_timeout(at, &mut out),
            None => break,
        }
    }
    if socket.finished().is_some() {
        assert_eq!(socket.poll_timeout(), None);
        assert!(!socket.send_text(b"x", &mut out));
    }
});
