//! The stdio sidecar's Content-Length frames, as an editor reads and writes them.

use super::DEADLINE;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver};

/// One Content-Length framed message from the sidecar; `None` once its stdout is closed.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader
            .read_line(&mut line)
            .expect("read the sidecar's stdout")
            == 0
        {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().expect("a Content-Length number");
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("a whole frame body");
    Some(serde_json::from_slice(&body).expect("a JSON frame body"))
}

/// Writes one framed message to the sidecar's stdin.
pub fn write_frame(stdin: &mut impl Write, message: &Value) {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the sidecar");
    stdin.flush().expect("flush to the sidecar");
}

/// Frames from the sidecar on a channel (deadline-bounded waits).
pub fn frames(stdout: impl Read + Send + 'static) -> Receiver<Value> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        while let Some(frame) = read_frame(&mut reader) {
            if send.send(frame).is_err() {
                return;
            }
        }
    });
    receive
}

/// The next frame `what` accepts (earlier ones are skipped), waiting at most [`DEADLINE`].
pub fn wait_for_frame(frames: &Receiver<Value>, what: impl Fn(&Value) -> bool) -> Value {
    loop {
        let frame = frames.recv_timeout(DEADLINE).expect("sidecar message");
        if what(&frame) {
            return frame;
        }
    }
}
