//! The server side of one WebSocket connection after the upgrade: frames in, messages out,
//! control frames answered, the close handshake and the keepalive timers.

use super::config::WsConfig;
use super::event::{Finished, Message};
use super::frame::{self, FrameHeader, OpCode};
use super::timers::{TimerAction, Timers};
use super::utf8::Utf8Validator;
use super::violation::Violation;
use crate::time::Timestamp;

/// Capacity a receive or reassembly buffer keeps once everything in it is consumed. Steady
/// traffic (calls, pings, selection reads) stays far below it and reuses the buffer; one
/// buffer grown for a rare large message (an `openDiff` carrying a whole file) goes back to
/// the allocator, so idle connections do not each pin a message's worth of memory.
const MAX_KEPT_BUFFER_BYTES: usize = 1 << 20;

/// Whether a data message is text or binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataKind {
    Text,
    Binary,
}

/// A fragmented data message whose final frame has not arrived yet.
#[derive(Debug, Clone, Copy)]
struct OpenMessage {
    kind: DataKind,
    /// Payload bytes received so far, summed over its frames.
    len: usize,
    /// Frames received so far.
    frames: usize,
}

/// A frame whose header is parsed and whose payload is (partly) in the receive buffer, which it
/// starts at `read_pos`.
#[derive(Debug, Clone, Copy)]
struct FrameInProgress {
    header: FrameHeader,
    payload_len: usize,
    /// Payload bytes unmasked (and, for text, validated) so far.
    unmasked: usize,
    /// Whether the payload belongs to a text message.
    text: bool,
}

/// What the next step of decoding found at the head of the receive buffer.
enum Start {
    NeedMore,
    Ignored,
    Frame(FrameInProgress),
}

/// Where a complete message lies.
enum Ready {
    /// An unfragmented message, still in the receive buffer.
    InPlace {
        kind: DataKind,
        start: usize,
        end: usize,
    },
    /// A fragmented message, joined in the message buffer.
    Assembled { kind: DataKind },
}

/// The server side of one WebSocket connection, from the first byte after the HTTP upgrade to
/// the moment the transport must be closed. Sans-IO: bytes and time go in, messages, bytes to
/// write and deadlines come out.
///
/// The host loop: feed what the transport read to [`receive`](Self::receive), call
/// [`poll_message`](Self::poll_message) until it returns None, call
/// [`handle_timeout`](Self::handle_timeout) when [`poll_timeout`](Self::poll_timeout) is due,
/// write `out`, and close the transport once [`finished`](Self::finished) is Some.
#[derive(Debug)]
pub struct ServerSocket {
    config: WsConfig,
    timers: Timers,
    /// Bytes received and not yet consumed start at `read_pos`; compacted on `receive`.
    recv: Vec<u8>,
    read_pos: usize,
    /// Bytes from `read_pos` on that belong to a data frame ignored while closing.
    skip: u64,
    frame: Option<FrameInProgress>,
    message: Option<OpenMessage>,
    /// Fragments of the open message, joined; reused from message to message.
    assembled: Vec<u8>,
    utf8: Utf8Validator,
    /// Bytes arrived since time was last handed in.
    received_unseen: bool,
    finished: Option<Finished>,
}

impl ServerSocket {
    /// A socket for a connection upgraded at `now`; the keepalive interval runs from `now`.
    pub fn new(config: WsConfig, now: Timestamp) -> Self {
        ServerSocket {
            timers: Timers::new(&config, now),
            config,
            recv: Vec::new(),
            read_pos: 0,
            skip: 0,
            frame: None,
            message: None,
            assembled: Vec::new(),
            utf8: Utf8Validator::default(),
            received_unseen: false,
            finished: None,
        }
    }

    /// Bytes read from the peer, appended to the receive buffer. The buffer is compacted first
    /// (consumed bytes dropped, capacity kept), so steady traffic does not allocate. Ignored
    /// once the socket is finished. The next call taking `now` records it as the time of the
    /// last activity.
    pub fn receive(&mut self, bytes: &[u8]) {
        if self.finished.is_some() || bytes.is_empty() {
            return;
        }
        if self.read_pos > 0 {
            self.recv.drain(..self.read_pos);
            self.read_pos = 0;
        }
        self.recv.extend_from_slice(bytes);
        self.received_unseen = true;
    }

    /// Decodes what is buffered and returns the next complete data message, borrowed from the
    /// socket's own buffers: payloads are unmasked in place, an unfragmented message is
    /// returned straight from the receive buffer, fragments are joined in a reused buffer.
    ///
    /// Text is validated as its bytes arrive, so invalid UTF-8 fails the connection at the
    /// first bad byte even inside a frame only partly received. Control frames are handled
    /// here: a ping is answered with a pong carrying its payload, a pong is ignored, a close is
    /// answered and finishes the socket; replies are appended to `out`. A protocol violation
    /// appends a close frame with its code to `out`, discards everything buffered and makes
    /// [`finished`](Self::finished) Some.
    ///
    /// Returns None when nothing complete is buffered or the socket is closing or finished;
    /// the caller loops until None. If bytes were received since the last call taking a time,
    /// `now` is recorded as the last activity (keepalive).
    pub fn poll_message(&mut self, now: Timestamp, out: &mut Vec<u8>) -> Option<Message<'_>> {
        self.tick(now);
        self.release_large_buffers();
        let ready = self.decode(out)?;
        let (kind, bytes) = match ready {
            Ready::InPlace { kind, start, end } => (kind, &self.recv[start..end]),
            Ready::Assembled { kind } => (kind, self.assembled.as_slice()),
        };
        match kind {
            DataKind::Binary => Some(Message::Binary(bytes)),
            // Every byte already passed the incremental validator, which accepts exactly what
            // std accepts (see its tests), so this conversion does not fail.
            DataKind::Text => std::str::from_utf8(bytes).ok().map(Message::Text),
        }
    }

    /// Frees a buffer over [`MAX_KEPT_BUFFER_BYTES`] that holds nothing still needed (the
    /// message last returned borrowed from it is gone: this takes `&mut self`).
    fn release_large_buffers(&mut self) {
        if self.read_pos == self.recv.len() && self.recv.capacity() > MAX_KEPT_BUFFER_BYTES {
            self.recv = Vec::new();
            self.read_pos = 0;
        }
        if self.message.is_none() && self.assembled.capacity() > MAX_KEPT_BUFFER_BYTES {
            self.assembled = Vec::new();
        }
    }

    /// Appends one unmasked FIN text frame carrying `payload` (which the caller guarantees is
    /// UTF-8) to `out`. Returns false and writes nothing once we have sent a close frame or
    /// the socket is finished.
    pub fn send_text(&mut self, payload: &[u8], out: &mut Vec<u8>) -> bool {
        self.send(OpCode::Text, payload, out)
    }

    /// Appends one unmasked FIN binary frame carrying `payload` to `out`. Returns false and
    /// writes nothing once we have sent a close frame or the socket is finished.
    pub fn send_binary(&mut self, payload: &[u8], out: &mut Vec<u8>) -> bool {
        self.send(OpCode::Binary, payload, out)
    }

    /// Starts the close handshake: appends a close frame carrying `code` and `reason`
    /// (truncated at a char boundary to 123 bytes) to `out`, then waits up to
    /// `close_timeout_ms` for the peer's close. [`close_code::NO_STATUS`] sends a close frame
    /// with no body. The caller passes a code that may be sent (not 1005-with-body, 1006 or
    /// 1015). Data frames arriving afterwards are ignored. Does nothing once a close frame was
    /// sent or the socket is finished.
    ///
    /// [`close_code::NO_STATUS`]: super::close_code::NO_STATUS
    pub fn close(&mut self, now: Timestamp, code: u16, reason: &str, out: &mut Vec<u8>) {
        self.tick(now);
        if self.timers.is_closing() || self.finished.is_some() {
            return;
        }
        // RFC 6455 §5.5: a control frame payload is at most 125 bytes: 2 of code, 123 of reason.
        let reason = reason
            .get(..reason.floor_char_boundary(123))
            .unwrap_or_default();
        frame::write_close_frame(out, Some(code), reason.as_bytes());
        self.start_closing();
    }

    /// Handles the timers due at `now`: sends the keepalive ping after `keepalive_interval_ms`
    /// of receive silence (appended to `out`), finishes with
    /// [`Finished::KeepaliveTimeout`] when that ping got no byte back within
    /// `keepalive_timeout_ms`, and with [`Finished::CloseTimeout`] when our close frame got no
    /// answer within `close_timeout_ms`. Calling it early is harmless.
    pub fn handle_timeout(&mut self, now: Timestamp, out: &mut Vec<u8>) {
        self.tick(now);
        if self.finished.is_some() {
            return;
        }
        match self.timers.handle_timeout() {
            TimerAction::Nothing => {}
            // RFC 6455 §5.5.2: a ping may serve as a keepalive; its payload may be empty.
            TimerAction::SendPing => frame::write_frame_header(out, true, OpCode::Ping, 0),
            TimerAction::KeepaliveTimeout => self.finish(Finished::KeepaliveTimeout),
            TimerAction::CloseTimeout => self.finish(Finished::CloseTimeout),
        }
    }

    /// The next time [`handle_timeout`](Self::handle_timeout) has work: the close-wait expiry
    /// while closing, else the keepalive expiry while a ping is unanswered, else the next
    /// keepalive ping. None when finished or when no timer runs.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        match self.finished {
            Some(_) => None,
            None => self.timers.poll_timeout(),
        }
    }

    /// Some once the transport must be closed (after flushing what was appended to `out`).
    pub fn finished(&self) -> Option<&Finished> {
        self.finished.as_ref()
    }

    /// Bytes received and not yet decoded (for a caller that bounds input it holds back).
    pub fn buffered_input(&self) -> usize {
        self.recv.len() - self.read_pos
    }

    /// True once we sent a close frame: nothing more may be sent on this connection.
    pub fn is_closing(&self) -> bool {
        self.timers.is_closing()
    }

    /// Moves the clock to `now` (never backwards) and records pending receive activity.
    fn tick(&mut self, now: Timestamp) {
        self.timers.advance(now);
        if self.received_unseen {
            self.received_unseen = false;
            self.timers.received();
        }
    }

    fn send(&self, opcode: OpCode, payload: &[u8], out: &mut Vec<u8>) -> bool {
        let Some(header) = self.data_header(opcode, payload.len()) else {
            return false;
        };
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(payload);
        true
    }

    /// The header of the unmasked FIN text frame [`send_text`](Self::send_text) would write
    /// for a payload of `payload_len` bytes, for a payload the caller already holds in place
    /// (the header goes right before it). `None` when nothing may be sent, as `send_text`.
    pub(crate) fn text_header(&self, payload_len: usize) -> Option<frame::ServerHeader> {
        self.data_header(OpCode::Text, payload_len)
    }

    fn data_header(&self, opcode: OpCode, payload_len: usize) -> Option<frame::ServerHeader> {
        // RFC 6455 §5.5.1: after sending a close frame, the endpoint MUST NOT send more data.
        if self.timers.is_closing() || self.finished.is_some() {
            return None;
        }
        Some(frame::frame_header(true, opcode, payload_len))
    }

    /// Decodes frames until a data message is complete, more bytes are needed, or the socket
    /// finishes.
    fn decode(&mut self, out: &mut Vec<u8>) -> Option<Ready> {
        loop {
            if self.finished.is_some() {
                return None;
            }
            if self.skip > 0 {
                let buffered = self.recv.len() - self.read_pos;
                let skipped = usize::try_from(self.skip).map_or(buffered, |s| s.min(buffered));
                self.read_pos += skipped;
                self.skip -= skipped as u64;
                if self.skip > 0 {
                    return None;
                }
            }
            let mut frame = match self.frame {
                Some(frame) => frame,
                None => match self.start_frame() {
                    Ok(Start::Frame(frame)) => frame,
                    Ok(Start::Ignored) => continue,
                    Ok(Start::NeedMore) => return None,
                    Err(violation) => {
                        self.fail(violation, out);
                        return None;
                    }
                },
            };
            let start = self.read_pos + frame.header.header_len;
            // Saturating: a limit near usize::MAX must not overflow (on wasm32, say).
            let end = start.saturating_add(frame.payload_len);
            let arrived = self.recv.len().min(end);
            if arrived > start + frame.unmasked {
                let fresh = &mut self.recv[start + frame.unmasked..arrived];
                frame::apply_mask(fresh, frame.header.mask, frame.unmasked);
                // RFC 6455 §8.1: text MUST be UTF-8; checked as it arrives so that the
                // connection fails at the first invalid byte.
                if frame.text && self.utf8.feed(fresh).is_err() {
                    self.fail(Violation::InvalidUtf8, out);
                    return None;
                }
                frame.unmasked = arrived - start;
            }
            if arrived < end {
                self.frame = Some(frame);
                return None;
            }
            self.frame = None;
            self.read_pos = end;
            match frame.header.opcode {
                OpCode::Ping => self.on_ping(start, end, out),
                // RFC 6455 §5.5.3: an unsolicited pong MAY be sent and expects no response.
                OpCode::Pong => {}
                OpCode::Close => self.on_close(start, end, out),
                OpCode::Text | OpCode::Binary | OpCode::Continuation => {
                    if let Some(ready) = self.on_data(frame, start, end, out) {
                        return Some(ready);
                    }
                }
            }
        }
    }

    /// Parses the header at `read_pos` and applies the rules that depend on the connection's
    /// state, all before any payload is buffered.
    fn start_frame(&mut self) -> Result<Start, Violation> {
        let Some(header) = frame::parse_client_header(&self.recv[self.read_pos..])? else {
            return Ok(Start::NeedMore);
        };
        let (payload_len, text) = match header.opcode {
            // The header parser already holds control payloads to 125 bytes.
            OpCode::Close | OpCode::Ping | OpCode::Pong => (header.payload_len as usize, false),
            // RFC 6455 §5.5.1: after sending a close frame, data received is discarded.
            _ if self.timers.is_closing() => {
                self.skip = header.payload_len + header.header_len as u64;
                return Ok(Start::Ignored);
            }
            OpCode::Continuation => {
                // RFC 6455 §5.4: a continuation frame only continues a fragmented message.
                let open = self.message.ok_or(Violation::ContinuationWithoutMessage)?;
                if open.frames >= self.config.max_fragments {
                    return Err(Violation::TooManyFragments);
                }
                (
                    self.admit(open.len, header.payload_len)?,
                    open.kind == DataKind::Text,
                )
            }
            OpCode::Text | OpCode::Binary => {
                // RFC 6455 §5.4: fragments of one message MUST NOT be interleaved with
                // another; only control frames may come between them.
                if self.message.is_some() {
                    return Err(Violation::DataFrameInsideMessage);
                }
                // RFC 6455 §7.4.1 (1003): a type of data the endpoint cannot accept.
                if header.opcode == OpCode::Binary && !self.config.accept_binary {
                    return Err(Violation::BinaryNotAccepted);
                }
                if header.opcode == OpCode::Text {
                    self.utf8.reset();
                }
                (
                    self.admit(0, header.payload_len)?,
                    header.opcode == OpCode::Text,
                )
            }
        };
        Ok(Start::Frame(FrameInProgress {
            header,
            payload_len,
            unmasked: 0,
            text,
        }))
    }

    /// The frame's payload length, if a message holding `so_far` bytes may grow by it. Decided
    /// from the header alone: a header claiming terabytes allocates nothing.
    fn admit(&self, so_far: usize, frame_len: u64) -> Result<usize, Violation> {
        let room = self.config.max_message_bytes.saturating_sub(so_far);
        match usize::try_from(frame_len) {
            Ok(len) if len <= room => Ok(len),
            // RFC 6455 §7.4.1 (1009): a message too big for the endpoint to process.
            _ => Err(Violation::MessageTooBig),
        }
    }

    fn on_ping(&mut self, start: usize, end: usize, out: &mut Vec<u8>) {
        // RFC 6455 §5.5.2: a ping MUST be answered with a pong carrying the same application
        // data, unless a close frame was already sent (§5.5.1: nothing may follow it).
        if !self.timers.is_closing() {
            frame::write_frame_header(out, true, OpCode::Pong, end - start);
            out.extend_from_slice(&self.recv[start..end]);
        }
    }

    fn on_close(&mut self, start: usize, end: usize, out: &mut Vec<u8>) {
        let parsed = frame::parse_close_payload(&self.recv[start..end])
            .map(|(code, reason)| (code, reason.to_owned()));
        match parsed {
            Err(violation) => self.fail(violation, out),
            Ok((code, reason)) => {
                // RFC 6455 §5.5.1: on a close frame it did not already answer, an endpoint
                // MUST send a close frame in response, typically echoing the status code.
                if !self.timers.is_closing() {
                    frame::write_close_frame(out, code, b"");
                    self.timers.close_sent();
                }
                // RFC 6455 §7.1.1: the server then closes the TCP connection first.
                self.finish(Finished::PeerClosed { code, reason });
            }
        }
    }

    /// A complete data frame whose payload lies between `start` and `end`: returns the
    /// message it completes, if any.
    fn on_data(
        &mut self,
        frame: FrameInProgress,
        start: usize,
        end: usize,
        out: &mut Vec<u8>,
    ) -> Option<Ready> {
        let kind = if frame.text {
            DataKind::Text
        } else {
            DataKind::Binary
        };
        let ready = match self.message.take() {
            None if frame.header.fin => Ready::InPlace { kind, start, end },
            open => {
                let (len, frames) = match open {
                    Some(open) => (open.len, open.frames),
                    None => {
                        self.assembled.clear();
                        (0, 0)
                    }
                };
                self.assembled.extend_from_slice(&self.recv[start..end]);
                if !frame.header.fin {
                    self.message = Some(OpenMessage {
                        kind,
                        len: len + (end - start),
                        frames: frames + 1,
                    });
                    return None;
                }
                Ready::Assembled { kind }
            }
        };
        // RFC 6455 §8.1: a text message MUST be valid UTF-8, so it cannot end inside a
        // code point.
        if kind == DataKind::Text && !self.utf8.is_complete() {
            self.fail(Violation::InvalidUtf8, out);
            return None;
        }
        Some(ready)
    }

    /// Stops sending after our close frame: no more keepalive, and data frames, including the
    /// one arriving now, are ignored (RFC 6455 §5.5.1).
    fn start_closing(&mut self) {
        self.timers.close_sent();
        self.message = None;
        self.assembled.clear();
        if let Some(frame) = self.frame.filter(|f| !f.header.opcode.is_control()) {
            self.frame = None;
            self.skip = frame.header.header_len as u64 + frame.payload_len as u64;
        }
    }

    /// Fails the connection (RFC 6455 §7.1.7): sends a close frame with the violation's code
    /// unless one was sent already, and finishes.
    fn fail(&mut self, violation: Violation, out: &mut Vec<u8>) {
        let (code, reason) = (violation.close_code(), violation.reason());
        if !self.timers.is_closing() {
            frame::write_close_frame(out, Some(code), reason.as_bytes());
            self.timers.close_sent();
        }
        self.finish(Finished::Failed { code, reason });
    }

    /// Finishes the socket and releases its buffers: nothing buffered matters any more.
    fn finish(&mut self, finished: Finished) {
        self.finished = Some(finished);
        self.recv = Vec::new();
        self.read_pos = 0;
        self.skip = 0;
        self.frame = None;
        self.message = None;
        self.assembled = Vec::new();
    }
}

#[cfg(test)]
mod tests;
