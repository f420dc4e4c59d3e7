//! The link's frame: a 9-byte header (`kind` u8, connection id u32, payload length u32, both
//! big-endian) and its payload. Lengths are checked against the kind's cap from the header,
//! before anything is buffered for the payload.

use super::error::LinkFault;

/// Bytes of a frame header: kind (1), connection id (4), payload length (4).
pub const HEADER_BYTES: usize = 9;

/// The largest `Data` payload, in bytes. 64 KiB: one socket read's worth (the pump's
/// `read_chunk_bytes`), so a sender cuts its stream into frames as it reads it, and a frame
/// never delays another connection's for long on a shared link.
pub const MAX_DATA_FRAME_BYTES: usize = 64 << 10;

/// The largest `Hello` payload, in bytes. 64 KiB: a hello carries a token, a name, a version
/// and the workspace folders (a few hundred bytes in practice); the cap bounds what a peer makes
/// the other side buffer before it has said who it is.
pub const MAX_HELLO_BYTES: usize = 64 << 10;

/// The largest `Fault` payload (its reason text), in bytes. 1 KiB: one line for a person.
pub const MAX_FAULT_BYTES: usize = 1 << 10;

/// The payload of `Credit`, `Ping` and `Pong`, in bytes: a u32 for credit, an opaque u64 for a
/// ping and its pong.
const CREDIT_BYTES: usize = 4;
const PING_BYTES: usize = 8;

/// What a frame says. The byte values are the wire's and never change within a link version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// `0x01`, connection 0: who the sender is (see [`super::Hello`]). The first frame each way.
    Hello,
    /// `0x02`: the bridge accepted a client on its loopback; the id is new (larger than any
    /// before on this link). Only the bridge sends it.
    Open,
    /// `0x03`: bytes of a connection, 1 to [`MAX_DATA_FRAME_BYTES`], within the credit the
    /// receiver granted.
    Data,
    /// `0x04`, empty: the sender is done with the connection (its socket closed, or it closes
    /// it). The id is gone on both sides; nothing is sent back for it.
    Close,
    /// `0x05`, a u32: the receiver handed that many more of the connection's bytes on, so the
    /// sender may send that many more.
    Credit,
    /// `0x06`, connection 0, 8 opaque bytes: are you there? Answered by a `Pong` with the same
    /// bytes.
    Ping,
    /// `0x07`, connection 0: the answer to a `Ping`.
    Pong,
    /// `0x08`, connection 0, UTF-8 text: the sender ends the link, and why. Nothing follows.
    Fault,
}

impl FrameKind {
    /// The kind's byte on the wire.
    pub const fn byte(self) -> u8 {
        match self {
            FrameKind::Hello => 0x01,
            FrameKind::Open => 0x02,
            FrameKind::Data => 0x03,
            FrameKind::Close => 0x04,
            FrameKind::Credit => 0x05,
            FrameKind::Ping => 0x06,
            FrameKind::Pong => 0x07,
            FrameKind::Fault => 0x08,
        }
    }

    /// The kind a wire byte names, if any.
    pub const fn from_byte(byte: u8) -> Option<FrameKind> {
        Some(match byte {
            0x01 => FrameKind::Hello,
            0x02 => FrameKind::Open,
            0x03 => FrameKind::Data,
            0x04 => FrameKind::Close,
            0x05 => FrameKind::Credit,
            0x06 => FrameKind::Ping,
            0x07 => FrameKind::Pong,
            0x08 => FrameKind::Fault,
            _ => return None,
        })
    }

    /// Whether the kind names a connection (a non-zero id) or the link (id 0).
    const fn per_connection(self) -> bool {
        matches!(
            self,
            FrameKind::Open | FrameKind::Data | FrameKind::Close | FrameKind::Credit
        )
    }

    /// The payload lengths the kind admits, inclusive.
    const fn payload_range(self) -> (usize, usize) {
        match self {
            FrameKind::Hello => (2, MAX_HELLO_BYTES),
            FrameKind::Open | FrameKind::Close => (0, 0),
            FrameKind::Data => (1, MAX_DATA_FRAME_BYTES),
            FrameKind::Credit => (CREDIT_BYTES, CREDIT_BYTES),
            FrameKind::Ping | FrameKind::Pong => (PING_BYTES, PING_BYTES),
            FrameKind::Fault => (0, MAX_FAULT_BYTES),
        }
    }
}

/// A checked frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What the frame says.
    pub kind: FrameKind,
    /// The connection, or 0 for the link.
    pub conn: u32,
    /// The payload's length in bytes, within the kind's range.
    pub len: usize,
}

impl Header {
    /// Reads and checks the header at the start of `bytes`: `Ok(None)` until
    /// [`HEADER_BYTES`] are there.
    pub fn parse(bytes: &[u8]) -> Result<Option<Header>, LinkFault> {
        let Some(head) = bytes.first_chunk::<HEADER_BYTES>() else {
            return Ok(None);
        };
        let kind = FrameKind::from_byte(head[0]).ok_or(LinkFault::UnknownFrameKind(head[0]))?;
        let conn = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
        let len = u32::from_be_bytes([head[5], head[6], head[7], head[8]]);
        if kind.per_connection() == (conn == 0) {
            return Err(LinkFault::WrongConnectionId { kind, conn });
        }
        let (min, max) = kind.payload_range();
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len < min || len > max {
            return Err(LinkFault::BadLength { kind, len });
        }
        Ok(Some(Header { kind, conn, len }))
    }
}

/// Appends one frame to `out`. The caller keeps `payload` within the kind's range (the link's
/// senders do; a debug build checks it).
pub fn push(out: &mut Vec<u8>, kind: FrameKind, conn: u32, payload: &[u8]) {
    debug_assert!({
        let (min, max) = kind.payload_range();
        (min..=max).contains(&payload.len()) && kind.per_connection() != (conn == 0)
    });
    out.push(kind.byte());
    out.extend_from_slice(&conn.to_be_bytes());
    let len = u32::try_from(payload.len()).expect("payload lengths are capped far below 4 GiB");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
}

/// Reads a credit payload.
pub fn credit(payload: &[u8]) -> u32 {
    payload
        .first_chunk::<CREDIT_BYTES>()
        .map_or(0, |b| u32::from_be_bytes(*b))
}
