//! Message framing on stdio: `Content-Length` headers (LSP, Nova's `jsonrpc` process mode) or
//! one JSON message per line.

use clap::ValueEnum;
use std::io::{self, BufRead, Read, Write};

/// How the sidecar frames JSON-RPC messages on stdio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StdioFraming {
    /// `Content-Length: N\r\n\r\n<N bytes>` (LSP, Nova's `jsonrpc` process mode).
    ContentLength,
    /// One JSON message per line.
    Lines,
}

/// Largest message accepted from the editor: an `openDiff` answer carries a whole file, and
/// claude caps its own messages at 16 MiB.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The stream ended (cleanly, between messages).
    Closed,
    /// A header block without a usable `Content-Length`.
    BadHeader(String),
    /// A message larger than [`MAX_MESSAGE_BYTES`].
    TooLarge(usize),
    /// The message is not UTF-8.
    NotUtf8,
    /// Reading failed.
    Io(io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => f.write_str("stream closed"),
            FrameError::BadHeader(why) => write!(f, "bad message header: {why}"),
            FrameError::TooLarge(n) => {
                write!(
                    f,
                    "message of {n} bytes is over the {MAX_MESSAGE_BYTES}-byte cap"
                )
            }
            FrameError::NotUtf8 => f.write_str("message is not UTF-8"),
            FrameError::Io(e) => write!(f, "read failed: {e}"),
        }
    }
}

/// Reads the next message. After `BadHeader`/`TooLarge`/`NotUtf8` the stream may be out of
/// step; the sidecar reports the error and stops.
pub fn read_message(input: &mut impl BufRead, framing: StdioFraming) -> Result<String, FrameError> {
    match framing {
        StdioFraming::ContentLength => read_content_length(input),
        StdioFraming::Lines => read_line(input),
    }
}

fn read_line(input: &mut impl BufRead) -> Result<String, FrameError> {
    loop {
        let mut line = Vec::new();
        let n = Read::take(&mut *input, MAX_MESSAGE_BYTES as u64 + 2)
            .read_until(b'\n', &mut line)
            .map_err(FrameError::Io)?;
        if n == 0 {
            return Err(FrameError::Closed);
        }
        if !line.ends_with(b"\n") && n > MAX_MESSAGE_BYTES {
            return Err(FrameError::TooLarge(n));
        }
        let text = String::from_utf8(line).map_err(|_| FrameError::NotUtf8)?;
        let text = text.trim();
        if !text.is_empty() {
            return Ok(text.to_owned());
        }
    }
}

fn read_content_length(input: &mut impl BufRead) -> Result<String, FrameError> {
    let mut length = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        let n = Read::take(&mut *input, 8192)
            .read_line(&mut line)
            .map_err(FrameError::Io)?;
        if n == 0 {
            return if saw_header {
                Err(FrameError::BadHeader("stream ended inside a header".into()))
            } else {
                Err(FrameError::Closed)
            };
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        let Some((name, value)) = line.split_once(':') else {
            return Err(FrameError::BadHeader(format!(
                "not a header line: {line:?}"
            )));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let parsed = value.trim().parse::<usize>().map_err(|_| {
                FrameError::BadHeader(format!("Content-Length is not a number: {value:?}"))
            })?;
            length = Some(parsed);
        }
    }
    let length = length.ok_or_else(|| FrameError::BadHeader("no Content-Length".into()))?;
    if length > MAX_MESSAGE_BYTES {
        return Err(FrameError::TooLarge(length));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => FrameError::BadHeader("stream ended inside a body".into()),
        _ => FrameError::Io(e),
    })?;
    String::from_utf8(body).map_err(|_| FrameError::NotUtf8)
}

/// Writes one message with the framing and flushes.
pub fn write_message(
    output: &mut impl Write,
    framing: StdioFraming,
    json: &[u8],
) -> io::Result<()> {
    match framing {
        StdioFraming::ContentLength => {
            write!(output, "Content-Length: {}\r\n\r\n", json.len())?;
            output.write_all(json)?;
        }
        StdioFraming::Lines => {
            output.write_all(json)?;
            output.write_all(b"\n")?;
        }
    }
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], framing: StdioFraming) -> Vec<Result<String, String>> {
        let mut input = io::BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match read_message(&mut input, framing) {
                Err(FrameError::Closed) => return out,
                Ok(text) => out.push(Ok(text)),
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn content_length_frames_round_trip() {
        let mut wire = Vec::new();
        write_message(
            &mut wire,
            StdioFraming::ContentLength,
            r#"{"a":"é"}"#.as_bytes(),
        )
        .unwrap();
        write_message(&mut wire, StdioFraming::ContentLength, b"{}").unwrap();
        assert!(wire.starts_with(b"Content-Length: 10\r\n\r\n{\"a\""));
        assert_eq!(
            read_all(&wire, StdioFraming::ContentLength),
            [Ok(r#"{"a":"é"}"#.to_owned()), Ok("{}".to_owned())]
        );
    }

    #[test]
    fn content_type_and_header_case_are_tolerated() {
        let wire = b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}";
        assert_eq!(
            read_all(wire, StdioFraming::ContentLength),
            [Ok("{}".to_owned())]
        );
    }

    #[test]
    fn bad_headers_say_what_is_wrong() {
        let cases: [(&[u8], &str); 4] = [
            (
                b"Content-Length: x\r\n\r\n",
                "Content-Length is not a number",
            ),
            (b"Content-Type: a\r\n\r\n{}", "no Content-Length"),
            (b"garbage\r\n\r\n", "not a header line"),
            (b"Content-Length: 99999999999\r\n\r\n", "over the"),
        ];
        for (wire, expected) in cases {
            let got = read_all(wire, StdioFraming::ContentLength);
            let [Err(message)] = got.as_slice() else {
                panic!("{wire:?}: {got:?}");
            };
            assert!(message.contains(expected), "{message}");
        }
        let truncated = read_all(b"Content-Length: 5\r\n\r\n{}", StdioFraming::ContentLength);
        assert_eq!(
            truncated,
            [Err(
                "bad message header: stream ended inside a body".to_owned()
            )]
        );
    }

    #[test]
    fn lines_skip_blank_lines_and_trim_cr() {
        let wire = b"{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            read_all(wire, StdioFraming::Lines),
            [
                Ok(r#"{"a":1}"#.to_owned()),
                Ok(r#"{"b":2}"#.to_owned()),
                Ok(r#"{"c":3}"#.to_owned())
            ]
        );
        let mut out = Vec::new();
        write_message(&mut out, StdioFraming::Lines, b"{}").unwrap();
        assert_eq!(out, b"{}\n");
    }
}
