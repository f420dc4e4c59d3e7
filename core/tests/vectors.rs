//! Replays the transcript vectors in `tests/vectors/` (format: `tests/vectors/README.md`).
#![expect(
    clippy::unwrap_used,
    reason = "a test harness: a malformed vector must fail the test loudly"
)]

use idelink_core::{
    AuthToken, Config, ConnId, EditorEvent, EditorSnapshot, Engine, Output, Timestamp, ToolCallId,
};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

#[test]
fn every_vector_replays_byte_for_byte() {
    let bless = std::env::var_os("IDELINK_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "expected the vector files, found {files:?}"
    );
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let mut vector: Value = serde_json::from_str(&text).unwrap();
        let actual = replay(&vector);
        let steps = vector["steps"].as_array_mut().unwrap();
        for (i, (step, got)) in steps.iter_mut().zip(actual).enumerate() {
            if bless {
                step["expect"] = Value::Array(got);
            } else if let Err(why) = compare(&step["expect"], &got) {
                failures.push(format!(
                    "{}: step {i} ({}): {why}",
                    file.display(),
                    step["do"]
                ));
                break;
            }
        }
        if bless {
            let pretty = serde_json::to_string_pretty(&vector).unwrap();
            std::fs::write(file, pretty + "\n").unwrap();
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Runs a vector's inputs and returns, per step, its outputs in the `expect` form (sends as
/// decoded frames, so a mismatch reads as text).
fn replay(vector: &Value) -> Vec<Vec<Value>> {
    let token = AuthToken::parse(vector["token"].as_str().unwrap()).unwrap();
    let config = Config::from_json(&vector["config"].to_string()).unwrap();
    let mut engine = Engine::new(config, token);
    let mut upgraded = BTreeSet::new();
    let mut all = Vec::new();
    for step in vector["steps"].as_array().unwrap() {
        let now = Timestamp::from_millis(step["at"].as_u64().unwrap());
        let mut outputs = Vec::new();
        let conn = || ConnId::from_u64(step["conn"].as_u64().unwrap());
        match step["do"].as_str().unwrap() {
            "accept" => {
                engine.handle_accept(now);
            }
            "bytes" => engine
                .handle_bytes(now, conn(), &client_bytes(step))
                .unwrap(),
            "closed" => engine.handle_closed(now, conn()).unwrap(),
            "close" => engine.close(now, conn()).unwrap(),
            "editor" => {
                let event: EditorEvent = serde_json::from_value(step["event"].clone()).unwrap();
                engine.handle_editor_event(now, &event);
            }
            "snapshot" => {
                let snapshot: EditorSnapshot =
                    serde_json::from_value(step["snapshot"].clone()).unwrap();
                let changes = snapshot.with_view(|view| engine.handle_snapshot(now, view));
                outputs.push(json!({ "snapshotChanges": changes }));
            }
            "outcome" => {
                let id = ToolCallId::from_u64(step["id"].as_u64().unwrap());
                let outcome = serde_json::from_value(step["outcome"].clone()).unwrap();
                engine.handle_tool_outcome(now, id, &outcome).unwrap();
            }
            "timeout" => engine.handle_timeout(now),
            "choose" => {
                let choice = serde_json::from_value(step["choice"].clone()).unwrap();
                engine.choose_session(now, choice).unwrap();
            }
            "sessions" => outputs.push(json!({ "sessions": engine.sessions() })),
            "ledgerRead" => {
                let content = serde_json::from_value(step["content"].clone()).unwrap();
                let read = step["read"].as_u64().unwrap();
                engine.handle_ledger_read(now, read, &content).unwrap();
            }
            "ledgerWritten" => {
                let holds = serde_json::from_value(step["nowHolds"].clone()).unwrap();
                let write = step["write"].as_u64().unwrap();
                engine.handle_ledger_written(now, write, &holds).unwrap();
            }
            "fileSeen" => {
                let content = serde_json::from_value(step["content"].clone()).unwrap();
                let previous = serde_json::from_value(step["previous"].clone()).unwrap();
                let path = step["path"].as_str().unwrap();
                engine.handle_file_seen(now, path, &content, &previous);
            }
            "ledgerUndo" => {
                let target = serde_json::from_value(step["target"].clone()).unwrap();
                if let Err(refused) = engine.ledger_undo(now, &target) {
                    outputs.push(json!({ "refused": refused.to_string() }));
                }
            }
            "ledger" => {
                let turns: Vec<_> = engine.ledger().turns().collect();
                outputs.push(json!({ "ledger": turns }));
            }
            other => panic!("unknown input {other:?}"),
        }
        while let Some(output) = engine.poll_output() {
            outputs.push(match output {
                Output::Transmit { conn } => {
                    let bytes = engine.outbound(conn).to_vec();
                    engine.handle_sent(conn, bytes.len()).unwrap();
                    let mut item = decode_send(&bytes, upgraded.contains(&conn));
                    let http = item.get("http").and_then(Value::as_str).unwrap_or("");
                    if http.starts_with("HTTP/1.1 101") {
                        upgraded.insert(conn);
                    }
                    let mut send = json!({ "send": conn.as_u64() });
                    for key in ["http", "frames"] {
                        if let Some(v) = item.get_mut(key) {
                            send[key] = v.take();
                        }
                    }
                    send
                }
                Output::CloseTransport { conn } => json!({ "closeTransport": conn.as_u64() }),
                Output::Event(event) => json!({ "event": event }),
                other => panic!("unknown output {other:?}"),
            });
        }
        all.push(outputs);
    }
    all
}

fn client_bytes(step: &Value) -> Vec<u8> {
    let mut bytes = step["http"].as_str().unwrap_or("").as_bytes().to_vec();
    for frame in step["frames"].as_array().into_iter().flatten() {
        encode_frame(frame, Some(MASK), &mut bytes);
    }
    if let Some(hex) = step["hex"].as_str() {
        bytes.extend(from_hex(hex));
    }
    bytes
}

/// Encodes one `{text|binary|ping|pong|close}` frame description.
fn encode_frame(frame: &Value, mask: Option<[u8; 4]>, out: &mut Vec<u8>) {
    let (opcode, payload) = frame_payload(frame);
    let opcode = frame["opcode"].as_u64().map_or(opcode, |o| o as u8);
    let fin = frame["fin"].as_bool().unwrap_or(true);
    out.push(u8::from(fin) << 7 | opcode);
    let mask_bit = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n @ 0..=125 => out.push(mask_bit | n as u8),
        n @ 126..=0xffff => {
            out.push(mask_bit | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(mask_bit | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    match mask {
        Some(key) => {
            out.extend_from_slice(&key);
            out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        }
        None => out.extend_from_slice(&payload),
    }
}

fn frame_payload(frame: &Value) -> (u8, Vec<u8>) {
    if let Some(text) = frame["text"].as_str() {
        (0x1, text.as_bytes().to_vec())
    } else if let Some(hex) = frame["binary"].as_str() {
        (0x2, from_hex(hex))
    } else if let Some(text) = frame["ping"].as_str() {
        (0x9, text.as_bytes().to_vec())
    } else if let Some(text) = frame["pong"].as_str() {
        (0xA, text.as_bytes().to_vec())
    } else if let Some(close) = frame["close"].as_array() {
        let mut payload = Vec::new();
        if let Some(code) = close.first().and_then(Value::as_u64) {
            payload.extend_from_slice(&(code as u16).to_be_bytes());
            let reason = close.get(1).and_then(Value::as_str).unwrap_or("");
            payload.extend_from_slice(reason.as_bytes());
        }
        (0x8, payload)
    } else {
        panic!("unknown frame {frame}")
    }
}

/// Splits a server send into its HTTP head (before the upgrade) and frames, checking that the
/// frames re-encode to exactly the bytes sent (unmasked, shortest length form).
fn decode_send(bytes: &[u8], upgraded: bool) -> Value {
    let mut item = json!({});
    let mut rest = bytes;
    if !upgraded {
        let head_end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(bytes.len(), |i| i + 4);
        if bytes.starts_with(b"HTTP/1.1 101") {
            item["http"] = json!(String::from_utf8_lossy(&bytes[..head_end]));
            rest = &bytes[head_end..];
        } else {
            item["http"] = json!(String::from_utf8_lossy(bytes));
            rest = &[];
        }
    }
    let mut frames = Vec::new();
    while !rest.is_empty() {
        let (frame, len) = decode_server_frame(rest);
        let mut again = Vec::new();
        encode_frame(&frame, None, &mut again);
        assert_eq!(
            again,
            rest[..len],
            "server frame not in canonical form: {frame}"
        );
        frames.push(frame);
        rest = &rest[len..];
    }
    if !frames.is_empty() {
        item["frames"] = Value::Array(frames);
    }
    item
}

fn decode_server_frame(b: &[u8]) -> (Value, usize) {
    assert!(b.len() >= 2, "truncated frame");
    let (fin, opcode) = (b[0] & 0x80 != 0, b[0] & 0x0f);
    assert_eq!(b[1] & 0x80, 0, "server frames must not be masked");
    let (len, start) = match b[1] & 0x7f {
        126 => (u16::from_be_bytes([b[2], b[3]]) as usize, 4),
        127 => (
            u64::from_be_bytes(b[2..10].try_into().unwrap()) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    let payload = &b[start..start + len];
    let text = || String::from_utf8(payload.to_vec()).expect("server text is UTF-8");
    let mut frame = match opcode {
        0x1 => json!({ "text": text() }),
        0x2 => json!({ "binary": to_hex(payload) }),
        0x9 => json!({ "ping": text() }),
        0xA => json!({ "pong": text() }),
        0x8 if payload.is_empty() => json!({ "close": [] }),
        0x8 => {
            let code = u16::from_be_bytes([payload[0], payload[1]]);
            let reason = String::from_utf8(payload[2..].to_vec()).unwrap();
            json!({ "close": [code, reason] })
        }
        other => panic!("server sent opcode {other}"),
    };
    if !fin {
        frame["fin"] = json!(false);
    }
    (frame, start + len)
}

/// Expected vs actual, item by item; a mismatch names the first difference.
fn compare(expected: &Value, actual: &[Value]) -> Result<(), String> {
    let expected = expected.as_array().ok_or("step has no expect list")?;
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            return Err(format!(
                "output {i} differs\n  expected: {e}\n  actual:   {a}"
            ));
        }
    }
    if expected.len() != actual.len() {
        return Err(format!(
            "expected {} outputs, got {}: {}",
            expected.len(),
            actual.len(),
            Value::Array(actual.to_vec())
        ));
    }
    Ok(())
}

fn from_hex(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
