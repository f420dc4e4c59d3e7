//! Tests of `socket`.

use super::*;
use crate::ws::close_code;
use proptest::prelude::*;

const MASK: [u8; 4] = [0x37, 0xFA, 0x21, 0x3D];

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// A client frame: `first` is the whole first header byte, the payload is masked.
fn client_frame_raw(first: u8, mask: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    frame::write_frame_header(&mut out, true, OpCode::Text, payload.len());
    out[0] = first;
    out[1] |= 0x80;
    out.extend_from_slice(&mask);
    let start = out.len();
    out.extend_from_slice(payload);
    frame::apply_mask(&mut out[start..], mask, 0);
    out
}

fn client_frame(fin: bool, opcode: OpCode, payload: &[u8]) -> Vec<u8> {
    let first = if fin { 0x80 } else { 0 } | opcode.as_u8();
    client_frame_raw(first, MASK, payload)
}

/// The exact close frame a server sends with `code` and `reason`.
fn close_bytes(code: u16, reason: &str) -> Vec<u8> {
    let mut out = vec![0x88, (2 + reason.len()) as u8];
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(reason.as_bytes());
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
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

fn drain(socket: &mut ServerSocket, now: Timestamp, out: &mut Vec<u8>, into: &mut Vec<Owned>) {
    while let Some(message) = socket.poll_message(now, out) {
        into.push(match message {
            Message::Text(text) => Owned::Text(text.to_owned()),
            Message::Binary(bytes) => Owned::Binary(bytes.to_vec()),
        });
    }
}

fn run_chunks<'a>(config: WsConfig, chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut socket = ServerSocket::new(config, at(0));
    let mut out = Vec::new();
    let mut messages = Vec::new();
    for chunk in chunks {
        socket.receive(chunk);
        drain(&mut socket, at(0), &mut out, &mut messages);
    }
    Outcome {
        messages,
        out,
        finished: socket.finished().cloned(),
    }
}

fn run(config: WsConfig, input: &[u8]) -> Outcome {
    run_chunks(config, [input])
}

fn failed(code: u16, reason: &'static str) -> Option<Finished> {
    Some(Finished::Failed { code, reason })
}

fn text(s: &str) -> Owned {
    Owned::Text(s.to_owned())
}

/// Feeds `input` whole, split at every boundary, and one byte at a time: all the same.
fn assert_split_invariant(config: &WsConfig, input: &[u8]) -> Outcome {
    let whole = run(config.clone(), input);
    for split in 1..input.len() {
        let (a, b) = input.split_at(split);
        assert_eq!(
            run_chunks(config.clone(), [a, b]),
            whole,
            "split at {split}"
        );
    }
    assert_eq!(
        run_chunks(config.clone(), input.chunks(1)),
        whole,
        "byte by byte"
    );
    whole
}

fn assert_fails_with(input: &[u8], close: Vec<u8>, code: u16, reason: &'static str) {
    assert_fails_with_config(WsConfig::default(), input, close, code, reason);
}

fn assert_fails_with_config(
    config: WsConfig,
    input: &[u8],
    close: Vec<u8>,
    code: u16,
    reason: &'static str,
) {
    let outcome = assert_split_invariant(&config, input);
    assert_eq!(outcome.out, close, "{input:02X?}");
    assert_eq!(outcome.finished, failed(code, reason), "{input:02X?}");
    assert!(outcome.messages.is_empty());
}

// --- RFC 6455 §5.7 examples ---

#[test]
fn rfc_6455_5_7_masked_hello() {
    let input = [
        0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58,
    ];
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    assert_eq!(outcome.messages, [text("Hello")]);
    assert!(outcome.out.is_empty());
    assert_eq!(outcome.finished, None);
}

#[test]
fn rfc_6455_5_7_fragmented_hello_masked_by_client() {
    let mut input = client_frame(false, OpCode::Text, b"Hel");
    input.extend(client_frame(true, OpCode::Continuation, b"lo"));
    assert_eq!(input[..2], [0x01, 0x83]);
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    assert_eq!(outcome.messages, [text("Hello")]);
    assert!(outcome.out.is_empty());
}

#[test]
fn rfc_6455_5_7_ping_is_answered_with_a_pong_of_the_same_payload() {
    let input = [
        0x89, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58,
    ];
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    assert_eq!(outcome.out, [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]);
    assert!(outcome.messages.is_empty());
}

#[test]
fn sends_unmasked_frames() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    assert!(socket.send_text(b"Hello", &mut out));
    assert_eq!(out, [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]);
    out.clear();
    assert!(socket.send_binary(&[7; 256], &mut out));
    assert_eq!(out[..4], [0x82, 0x7E, 0x01, 0x00]);
    assert_eq!(out.len(), 4 + 256);
    out.clear();
    assert!(socket.send_binary(&vec![7; 65_536], &mut out));
    assert_eq!(
        out[..10],
        [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]
    );
}

// --- data messages ---

#[test]
fn ping_between_fragments_is_answered_and_the_message_completes() {
    let mut input = client_frame(false, OpCode::Text, b"a\xE2");
    input.extend(client_frame(true, OpCode::Ping, b"p"));
    input.extend(client_frame(false, OpCode::Continuation, b"\x82"));
    input.extend(client_frame(true, OpCode::Pong, b"unsolicited"));
    input.extend(client_frame(true, OpCode::Continuation, b"\xACb"));
    input.extend(client_frame(true, OpCode::Text, b""));
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    assert_eq!(outcome.messages, [text("a€b"), text("")]);
    assert_eq!(outcome.out, [0x8A, 0x01, b'p']);
    assert_eq!(outcome.finished, None);
}

#[test]
fn binary_is_delivered_when_accepted() {
    let config = WsConfig {
        accept_binary: true,
        ..WsConfig::default()
    };
    let mut input = client_frame(true, OpCode::Binary, &[0xFF, 0x00]);
    input.extend(client_frame(false, OpCode::Binary, &[1]));
    input.extend(client_frame(true, OpCode::Continuation, &[0xFE]));
    let outcome = assert_split_invariant(&config, &input);
    assert_eq!(
        outcome.messages,
        [Owned::Binary(vec![0xFF, 0]), Owned::Binary(vec![1, 0xFE])]
    );
}

#[test]
fn message_at_the_size_limit_is_accepted() {
    let config = WsConfig {
        max_message_bytes: 5,
        max_fragments: 2,
        ..WsConfig::default()
    };
    let mut input = client_frame(true, OpCode::Text, b"12345");
    input.extend(client_frame(false, OpCode::Text, b"123"));
    input.extend(client_frame(true, OpCode::Continuation, b"45"));
    let outcome = assert_split_invariant(&config, &input);
    assert_eq!(outcome.messages, [text("12345"), text("12345")]);
}

#[test]
fn unfragmented_text_is_returned_from_the_receive_buffer() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    socket.receive(&client_frame(true, OpCode::Text, b"in place"));
    let start = socket.recv.as_ptr() as usize;
    let end = start + socket.recv.len();
    let mut out = Vec::new();
    let Some(Message::Text(text)) = socket.poll_message(at(0), &mut out) else {
        panic!("no message");
    };
    assert_eq!(text, "in place");
    assert!((start..end).contains(&(text.as_ptr() as usize)));
}

#[test]
fn a_buffer_grown_for_a_large_message_is_released_once_consumed() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    let big = vec![b'x'; 2 * MAX_KEPT_BUFFER_BYTES];
    let mut fragmented = client_frame(false, OpCode::Text, &big);
    fragmented.extend(client_frame(true, OpCode::Continuation, b"y"));
    for input in [client_frame(true, OpCode::Text, &big), fragmented] {
        socket.receive(&input);
        let Some(Message::Text(text)) = socket.poll_message(at(0), &mut out) else {
            panic!("no message");
        };
        assert!(text.len() > big.len() - 1);
        assert!(socket.poll_message(at(0), &mut out).is_none());
        assert_eq!(
            (socket.recv.capacity(), socket.assembled.capacity()),
            (0, 0)
        );
    }
    // Half a large message stays buffered until the rest arrives.
    let frame = client_frame(true, OpCode::Text, &big);
    socket.receive(&frame[..frame.len() / 2]);
    assert!(socket.poll_message(at(0), &mut out).is_none());
    socket.receive(&frame[frame.len() / 2..]);
    assert!(matches!(
        socket.poll_message(at(0), &mut out),
        Some(Message::Text(text)) if text.len() == big.len()
    ));
}

#[test]
fn steady_traffic_reuses_the_buffers() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    let mut fragmented = client_frame(false, OpCode::Text, &[b'x'; 300]);
    fragmented.extend(client_frame(true, OpCode::Continuation, &[b'y'; 300]));
    let single = client_frame(true, OpCode::Text, &[b'z'; 700]);
    let mut round = |socket: &mut ServerSocket| {
        for input in [&fragmented, &single] {
            socket.receive(input);
            assert!(socket.poll_message(at(0), &mut out).is_some());
            assert!(socket.poll_message(at(0), &mut out).is_none());
        }
    };
    round(&mut socket);
    let buffers = (
        socket.recv.as_ptr(),
        socket.recv.capacity(),
        socket.assembled.as_ptr(),
        socket.assembled.capacity(),
    );
    for _ in 0..1000 {
        round(&mut socket);
    }
    let after = (
        socket.recv.as_ptr(),
        socket.recv.capacity(),
        socket.assembled.as_ptr(),
        socket.assembled.capacity(),
    );
    assert_eq!(after, buffers);
    assert!(out.is_empty());
}

// --- violations, each with the exact close frame written ---

#[test]
fn unmasked_frame_is_1002() {
    assert_fails_with(
        &[0x81, 0x05, b'H', b'e', b'l', b'l', b'o'],
        vec![
            0x88, 0x19, 0x03, 0xEA, b'c', b'l', b'i', b'e', b'n', b't', b' ', b'f', b'r', b'a',
            b'm', b'e', b' ', b'n', b'o', b't', b' ', b'm', b'a', b's', b'k', b'e', b'd',
        ],
        1002,
        "client frame not masked",
    );
}

#[test]
fn reserved_bits_are_1002() {
    for first in [0xC1, 0xA1, 0x91, 0xF1] {
        let input = client_frame_raw(first, MASK, b"x");
        let close = close_bytes(1002, "reserved bits set");
        assert_fails_with(&input, close, 1002, "reserved bits set");
    }
}

#[test]
fn unknown_opcodes_are_1002() {
    for opcode in [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] {
        let input = client_frame_raw(0x80 | opcode, MASK, b"");
        let close = close_bytes(1002, "unknown opcode");
        assert_fails_with(&input, close, 1002, "unknown opcode");
    }
}

#[test]
fn fragmented_control_frames_are_1002() {
    for opcode in [0x8, 0x9, 0xA] {
        let input = client_frame_raw(opcode, MASK, b"");
        let close = close_bytes(1002, "fragmented control frame");
        assert_fails_with(&input, close, 1002, "fragmented control frame");
    }
}

#[test]
fn control_frames_over_125_bytes_are_1002() {
    let ok = client_frame(true, OpCode::Ping, &[b'p'; 125]);
    assert_eq!(run(WsConfig::default(), &ok).out.len(), 2 + 125);
    for opcode in [OpCode::Ping, OpCode::Pong, OpCode::Close] {
        let input = client_frame(true, opcode, &[b'p'; 126]);
        assert_eq!(input[..4], [0x80 | opcode.as_u8(), 0xFE, 0x00, 0x7E]);
        let close = close_bytes(1002, "control frame over 125 bytes");
        assert_fails_with(&input, close, 1002, "control frame over 125 bytes");
    }
}

#[test]
fn continuation_without_a_message_is_1002() {
    let input = client_frame(true, OpCode::Continuation, b"x");
    let close = close_bytes(1002, "continuation without a message");
    assert_fails_with(&input, close, 1002, "continuation without a message");
}

#[test]
fn new_message_inside_a_fragmented_one_is_1002() {
    let config = WsConfig {
        accept_binary: true,
        ..WsConfig::default()
    };
    for opcode in [OpCode::Text, OpCode::Binary] {
        let mut input = client_frame(false, OpCode::Text, b"a");
        input.extend(client_frame(true, opcode, b"b"));
        let reason = "new message inside a fragmented one";
        let close = close_bytes(1002, reason);
        assert_fails_with_config(config.clone(), &input, close, 1002, reason);
    }
}

#[test]
fn length_with_the_top_bit_set_is_1002() {
    let input = [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 1, 2, 3, 4];
    let close = close_bytes(1002, "length top bit set");
    assert_fails_with(&input, close, 1002, "length top bit set");
}

#[test]
fn non_minimal_lengths_are_1002() {
    let reason = "length not minimally encoded";
    let sixteen_bit_for_125 = [0x81, 0xFE, 0x00, 0x7D];
    assert_fails_with(
        &sixteen_bit_for_125,
        close_bytes(1002, reason),
        1002,
        reason,
    );
    let sixty_four_bit_for_65535 = [0x81, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF];
    assert_fails_with(
        &sixty_four_bit_for_65535,
        close_bytes(1002, reason),
        1002,
        reason,
    );
}

#[test]
fn invalid_utf8_is_1007() {
    let reason = "invalid utf-8 in text message";
    for payload in [
        &b"\xFF"[..],
        b"ok\xC0\xAF",
        b"\xED\xA0\x80",
        b"ends \xE2\x82",
    ] {
        let input = client_frame(true, OpCode::Text, payload);
        assert_fails_with(&input, close_bytes(1007, reason), 1007, reason);
    }
    // A message whose last fragment leaves a code point unfinished.
    let mut input = client_frame(false, OpCode::Text, b"a");
    input.extend(client_frame(true, OpCode::Continuation, b"\xF0\x9F"));
    assert_fails_with(&input, close_bytes(1007, reason), 1007, reason);
    // A code point broken across fragments.
    let mut input = client_frame(false, OpCode::Text, b"a\xE2\x82");
    input.extend(client_frame(true, OpCode::Continuation, b"b"));
    assert_fails_with(&input, close_bytes(1007, reason), 1007, reason);
}

#[test]
fn invalid_utf8_fails_before_the_rest_of_the_frame_arrives() {
    let frame = client_frame(true, OpCode::Text, b"ab\xFFcdefgh");
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.receive(&frame[..6 + 2]);
    assert!(socket.poll_message(at(0), &mut out).is_none());
    assert_eq!(socket.finished(), None);
    socket.receive(&frame[6 + 2..6 + 3]);
    assert!(socket.poll_message(at(0), &mut out).is_none());
    let reason = "invalid utf-8 in text message";
    assert_eq!(out, close_bytes(1007, reason));
    assert_eq!(socket.finished(), failed(1007, reason).as_ref());
    // A later fragment of a message fails the same way.
    let mut input = client_frame(false, OpCode::Text, b"ok");
    let second = client_frame(true, OpCode::Continuation, b"\xE2\x28rest");
    input.extend_from_slice(&second[..6 + 2]);
    let outcome = run(WsConfig::default(), &input);
    assert_eq!(outcome.out, close_bytes(1007, reason));
}

#[test]
fn binary_is_1003_by_default() {
    let input = client_frame(true, OpCode::Binary, b"\x00");
    let reason = "binary messages not accepted";
    assert_fails_with(&input, close_bytes(1003, reason), 1003, reason);
    let header_only = [0x02, 0xFE, 0x10, 0x00, 1, 2, 3, 4];
    assert_fails_with(&header_only, close_bytes(1003, reason), 1003, reason);
}

#[test]
fn messages_over_the_limit_are_1009_from_the_header() {
    let config = WsConfig {
        max_message_bytes: 10,
        ..WsConfig::default()
    };
    let reason = "message too big";
    // Only the header of an 11-byte frame: rejected before the payload arrives.
    let input = &client_frame(true, OpCode::Text, &[b'x'; 11])[..6];
    assert_fails_with_config(
        config.clone(),
        input,
        close_bytes(1009, reason),
        1009,
        reason,
    );
    // Fragments adding up past the limit.
    let mut input = client_frame(false, OpCode::Text, &[b'x'; 6]);
    input.extend_from_slice(&client_frame(true, OpCode::Continuation, &[b'x'; 5])[..6]);
    assert_fails_with_config(
        config.clone(),
        &input,
        close_bytes(1009, reason),
        1009,
        reason,
    );
    // A header claiming 2^63 - 1 bytes allocates nothing (it would abort the test).
    let input = [
        0x81, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4,
    ];
    assert_fails_with(&input, close_bytes(1009, reason), 1009, reason);
    let input = [0x81, 0xFF, 0, 0, 0x01, 0, 0, 0, 0, 0, 1, 2, 3, 4];
    assert_fails_with(&input, close_bytes(1009, reason), 1009, reason);
}

#[test]
fn too_many_fragments_is_1009() {
    let config = WsConfig {
        max_fragments: 3,
        ..WsConfig::default()
    };
    let mut three = client_frame(false, OpCode::Text, b"a");
    three.extend(client_frame(false, OpCode::Continuation, b"b"));
    let mut four = three.clone();
    three.extend(client_frame(true, OpCode::Continuation, b"c"));
    assert_eq!(run(config.clone(), &three).messages, [text("abc")]);
    four.extend(client_frame(false, OpCode::Continuation, b"c"));
    four.extend(client_frame(true, OpCode::Continuation, b"d"));
    let reason = "too many fragments";
    assert_fails_with_config(config, &four, close_bytes(1009, reason), 1009, reason);
}

#[test]
fn close_with_a_1_byte_payload_is_1002() {
    let input = client_frame(true, OpCode::Close, &[0x03]);
    let reason = "close payload of 1 byte";
    assert_fails_with(&input, close_bytes(1002, reason), 1002, reason);
}

#[test]
fn invalid_close_codes_are_1002() {
    let reason = "invalid close code";
    for code in [
        0u16, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
    ] {
        let input = client_frame(true, OpCode::Close, &code.to_be_bytes());
        assert_fails_with(&input, close_bytes(1002, reason), 1002, reason);
    }
}

#[test]
fn close_reason_must_be_utf8_1007() {
    let input = client_frame(true, OpCode::Close, b"\x03\xE8bad \xFF");
    let reason = "invalid utf-8 in close reason";
    assert_fails_with(&input, close_bytes(1007, reason), 1007, reason);
}

#[test]
fn everything_buffered_after_a_violation_is_discarded() {
    let mut input = client_frame(true, OpCode::Binary, b"x");
    input.extend(client_frame(true, OpCode::Text, b"never seen"));
    input.extend(client_frame(true, OpCode::Ping, b"never answered"));
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.receive(&input);
    assert!(socket.poll_message(at(0), &mut out).is_none());
    socket.receive(&client_frame(true, OpCode::Ping, b"late"));
    assert!(socket.poll_message(at(0), &mut out).is_none());
    assert_eq!(out, close_bytes(1003, "binary messages not accepted"));
    assert_eq!(
        (socket.recv.capacity(), socket.assembled.capacity()),
        (0, 0)
    );
    assert!(socket.is_closing());
    assert!(!socket.send_text(b"x", &mut out));
    assert_eq!(socket.poll_timeout(), None);
}

// --- close handshake ---

#[test]
fn peer_close_is_echoed_with_its_code() {
    for code in [
        1000u16, 1001, 1003, 1007, 1011, 1012, 1013, 1014, 3000, 4999,
    ] {
        let mut payload = code.to_be_bytes().to_vec();
        payload.extend_from_slice(b"bye");
        let mut input = client_frame(true, OpCode::Close, &payload);
        input.extend(client_frame(true, OpCode::Text, b"after close"));
        let outcome = assert_split_invariant(&WsConfig::default(), &input);
        let [high, low] = code.to_be_bytes();
        assert_eq!(outcome.out, [0x88, 0x02, high, low]);
        assert_eq!(
            outcome.finished,
            Some(Finished::PeerClosed {
                code: Some(code),
                reason: "bye".to_owned()
            })
        );
        assert!(outcome.messages.is_empty());
    }
}

#[test]
fn empty_peer_close_is_answered_with_an_empty_close() {
    let mut input = client_frame(true, OpCode::Text, b"last");
    input.extend(client_frame(true, OpCode::Close, b""));
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    assert_eq!(outcome.messages, [text("last")]);
    assert_eq!(outcome.out, [0x88, 0x00]);
    assert_eq!(
        outcome.finished,
        Some(Finished::PeerClosed {
            code: None,
            reason: String::new()
        })
    );
}

#[test]
fn our_close_then_the_peers() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    // A data frame half received when we close is ignored, as is everything after it.
    let half = client_frame(true, OpCode::Text, b"half a frame");
    socket.receive(&half[..9]);
    assert!(socket.poll_message(at(1), &mut out).is_none());
    socket.close(at(2), close_code::GOING_AWAY, "shutting down", &mut out);
    assert_eq!(out, close_bytes(1001, "shutting down"));
    assert!(socket.is_closing());
    socket.close(at(3), close_code::NORMAL, "again", &mut out);
    assert!(!socket.send_text(b"late", &mut out));
    assert_eq!(out, close_bytes(1001, "shutting down"));
    out.clear();
    socket.receive(&half[9..]);
    socket.receive(&client_frame(false, OpCode::Text, b"ignored"));
    socket.receive(&client_frame(true, OpCode::Ping, b"no pong"));
    socket.receive(&client_frame(true, OpCode::Continuation, &[0xFF; 300]));
    socket.receive(&client_frame(true, OpCode::Binary, b"ignored"));
    assert!(socket.poll_message(at(4), &mut out).is_none());
    assert_eq!(socket.finished(), None);
    socket.receive(&client_frame(true, OpCode::Close, b"\x03\xE8"));
    assert!(socket.poll_message(at(5), &mut out).is_none());
    assert!(out.is_empty());
    assert_eq!(
        socket.finished(),
        Some(&Finished::PeerClosed {
            code: Some(1000),
            reason: String::new()
        })
    );
}

#[test]
fn violation_after_our_close_sends_nothing_more() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.close(at(0), close_code::NORMAL, "", &mut out);
    assert_eq!(out, [0x88, 0x02, 0x03, 0xE8]);
    out.clear();
    socket.receive(&[0x81, 0x01, b'x']);
    assert!(socket.poll_message(at(0), &mut out).is_none());
    assert!(out.is_empty());
    assert_eq!(
        socket.finished(),
        failed(1002, "client frame not masked").as_ref()
    );
}

#[test]
fn close_reason_is_truncated_at_a_char_boundary() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    let reason = format!("ab{}", "é".repeat(70));
    socket.close(at(0), close_code::NORMAL, &reason, &mut out);
    let expected = format!("ab{}", "é".repeat(60));
    assert_eq!(expected.len(), 122);
    assert_eq!(out, close_bytes(1000, &expected));

    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.close(at(0), close_code::NORMAL, &"x".repeat(200), &mut out);
    assert_eq!(out, close_bytes(1000, &"x".repeat(123)));
    assert_eq!(out.len(), 2 + 125);
}

#[test]
fn close_with_no_status_sends_an_empty_close() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.close(at(0), close_code::NO_STATUS, "dropped", &mut out);
    assert_eq!(out, [0x88, 0x00]);
}

// --- timers ---

#[test]
fn keepalive_ping_after_silence_then_timeout() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(1_000));
    let mut out = Vec::new();
    assert_eq!(socket.poll_timeout(), Some(at(31_000)));
    socket.handle_timeout(at(30_999), &mut out);
    assert!(out.is_empty());
    socket.handle_timeout(at(31_000), &mut out);
    assert_eq!(out, [0x89, 0x00]);
    assert_eq!(socket.poll_timeout(), Some(at(41_000)));
    socket.handle_timeout(at(40_999), &mut out);
    assert_eq!((out.len(), socket.finished()), (2, None));
    socket.handle_timeout(at(41_000), &mut out);
    assert_eq!(out, [0x89, 0x00]);
    assert_eq!(socket.finished(), Some(&Finished::KeepaliveTimeout));
    assert_eq!(socket.poll_timeout(), None);
    assert!(!socket.is_closing());
    assert!(!socket.send_text(b"x", &mut out));
}

#[test]
fn any_bytes_count_as_liveness() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.handle_timeout(at(30_000), &mut out);
    assert_eq!(out, [0x89, 0x00]);
    // An unsolicited-looking pong answers it.
    socket.receive(&client_frame(true, OpCode::Pong, b""));
    assert!(socket.poll_message(at(35_000), &mut out).is_none());
    assert_eq!(socket.poll_timeout(), Some(at(65_000)));
    // Part of a frame is activity too: a slow large message is not a dead peer.
    socket.handle_timeout(at(65_000), &mut out);
    assert_eq!(out, [0x89, 0x00, 0x89, 0x00]);
    socket.receive(&client_frame(true, OpCode::Text, b"slow")[..3]);
    socket.handle_timeout(at(74_000), &mut out);
    assert_eq!(socket.finished(), None);
    assert_eq!(socket.poll_timeout(), Some(at(104_000)));
    // Time handed in backwards is taken as the latest time seen.
    socket.handle_timeout(at(5), &mut out);
    assert_eq!(socket.poll_timeout(), Some(at(104_000)));
    assert_eq!(out.len(), 4);
}

#[test]
fn no_keepalive_when_the_interval_is_zero() {
    let config = WsConfig {
        keepalive_interval_ms: 0,
        ..WsConfig::default()
    };
    let mut socket = ServerSocket::new(config, at(0));
    let mut out = Vec::new();
    assert_eq!(socket.poll_timeout(), None);
    socket.handle_timeout(at(u64::MAX), &mut out);
    assert_eq!((out.len(), socket.finished()), (0, None));
}

#[test]
fn close_wait_expires() {
    let mut socket = ServerSocket::new(WsConfig::default(), at(0));
    let mut out = Vec::new();
    socket.handle_timeout(at(30_000), &mut out);
    socket.close(at(30_100), close_code::NORMAL, "", &mut out);
    assert_eq!(out, [0x89, 0x00, 0x88, 0x02, 0x03, 0xE8]);
    // Closing stops the keepalive: only the close-wait deadline remains.
    assert_eq!(socket.poll_timeout(), Some(at(35_100)));
    socket.handle_timeout(at(35_099), &mut out);
    assert_eq!(socket.finished(), None);
    socket.handle_timeout(at(35_100), &mut out);
    assert_eq!(socket.finished(), Some(&Finished::CloseTimeout));
    assert_eq!(out.len(), 6);
}

// --- splitting and properties ---

#[test]
fn a_mixed_transcript_is_split_invariant() {
    let mut input = vec![
        0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58,
    ];
    input.extend(client_frame(false, OpCode::Text, "grüß ".as_bytes()));
    input.extend(client_frame(true, OpCode::Ping, b"1"));
    input.extend(client_frame(
        false,
        OpCode::Continuation,
        &"€".as_bytes()[..1],
    ));
    input.extend(client_frame(
        true,
        OpCode::Continuation,
        &"€𝄞".as_bytes()[1..],
    ));
    input.extend(client_frame(true, OpCode::Text, &[b'L'; 300]));
    input.extend(client_frame(true, OpCode::Pong, b""));
    input.extend(client_frame(true, OpCode::Close, b"\x0F\xA0done"));
    let outcome = assert_split_invariant(&WsConfig::default(), &input);
    let long = "L".repeat(300);
    assert_eq!(
        outcome.messages,
        [text("Hello"), text("grüß €𝄞"), text(&long)]
    );
    assert_eq!(outcome.out, [0x8A, 0x01, b'1', 0x88, 0x02, 0x0F, 0xA0]);
}

fn message_strategy() -> impl Strategy<Value = Owned> {
    prop_oneof![
        ".{0,40}".prop_map(Owned::Text),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Owned::Binary),
    ]
}

/// Encodes `message` as masked client frames cut at `cuts`, with a ping before each
/// continuation when `pings`; returns the pongs expected.
fn encode(
    message: &Owned,
    cuts: &[usize],
    mask: [u8; 4],
    pings: bool,
    into: &mut Vec<u8>,
) -> Vec<u8> {
    let (opcode, bytes) = match message {
        Owned::Text(text) => (OpCode::Text, text.as_bytes()),
        Owned::Binary(bytes) => (OpCode::Binary, bytes.as_slice()),
    };
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort_unstable();
    points.push(bytes.len());
    let mut pongs = Vec::new();
    let mut from = 0;
    for (i, &to) in points.iter().enumerate() {
        let fin = i + 1 == points.len();
        let op = if i == 0 { opcode } else { OpCode::Continuation };
        if i > 0 && pings {
            into.extend(client_frame_raw(0x89, mask, &[i as u8]));
            pongs.extend_from_slice(&[0x8A, 0x01, i as u8]);
        }
        let first = if fin { 0x80 } else { 0 } | op.as_u8();
        into.extend(client_frame_raw(first, mask, &bytes[from..to]));
        from = to;
    }
    pongs
}

proptest! {
    #[test]
    fn fragmented_masked_messages_round_trip(
        messages in prop::collection::vec(
            (message_strategy(), prop::collection::vec(any::<usize>(), 0..4), any::<[u8; 4]>(), any::<bool>()),
            0..8,
        ),
        chunk in 1usize..64,
    ) {
        let mut input = Vec::new();
        let mut pongs = Vec::new();
        for (message, cuts, mask, pings) in &messages {
            pongs.extend(encode(message, cuts, *mask, *pings, &mut input));
        }
        let config = WsConfig { accept_binary: true, ..WsConfig::default() };
        let outcome = run_chunks(config.clone(), input.chunks(chunk));
        let expected: Vec<Owned> = messages.iter().map(|m| m.0.clone()).collect();
        prop_assert_eq!(&outcome.messages, &expected);
        prop_assert_eq!(&outcome.out, &pongs);
        prop_assert_eq!(outcome.finished, None);
        prop_assert_eq!(run(config, &input).messages, expected);
    }

    #[test]
    fn random_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        chunk in 1usize..32,
        masked_prefix in any::<bool>(),
    ) {
        let config = WsConfig { max_message_bytes: 256, max_fragments: 4, ..WsConfig::default() };
        let mut socket = ServerSocket::new(config, at(0));
        let mut out = Vec::new();
        let mut messages = Vec::new();
        if masked_prefix {
            // Get past the mask check so the random bytes reach deeper states.
            socket.receive(&[0x01, 0x83, 0, 0, 0, 0]);
        }
        for (i, piece) in bytes.chunks(chunk).enumerate() {
            socket.receive(piece);
            drain(&mut socket, at(i as u64 * 7_000), &mut out, &mut messages);
            socket.handle_timeout(at(i as u64 * 7_000), &mut out);
        }
        if let Some(Finished::Failed { code, reason }) = socket.finished() {
            let close = close_bytes(*code, reason);
            prop_assert!(out.ends_with(&close));
        }
    }
}
