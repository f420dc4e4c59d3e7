//! Frame headers (RFC 6455 §5.2): parsing what a client sends, emitting what a server sends.

use super::close_code;
use super::violation::Violation;

/// A frame's opcode (RFC 6455 §5.2, §11.8). Reserved opcodes have no variant: a frame carrying
/// one fails the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpCode {
    /// 0x0: continues a fragmented data message.
    Continuation,
    /// 0x1: starts a text (UTF-8) message.
    Text,
    /// 0x2: starts a binary message.
    Binary,
    /// 0x8: close control frame.
    Close,
    /// 0x9: ping control frame.
    Ping,
    /// 0xA: pong control frame.
    Pong,
}

impl OpCode {
    /// The opcode for the 4-bit value `bits`, or None for a reserved value (0x3-0x7, 0xB-0xF)
    /// or anything above 0xF.
    pub const fn from_u8(bits: u8) -> Option<OpCode> {
        match bits {
            0x0 => Some(OpCode::Continuation),
            0x1 => Some(OpCode::Text),
            0x2 => Some(OpCode::Binary),
            0x8 => Some(OpCode::Close),
            0x9 => Some(OpCode::Ping),
            0xA => Some(OpCode::Pong),
            _ => None,
        }
    }

    /// The 4-bit wire value.
    pub const fn as_u8(self) -> u8 {
        match self {
            OpCode::Continuation => 0x0,
            OpCode::Text => 0x1,
            OpCode::Binary => 0x2,
            OpCode::Close => 0x8,
            OpCode::Ping => 0x9,
            OpCode::Pong => 0xA,
        }
    }

    /// True for close, ping and pong (RFC 6455 §5.5: opcodes with the high bit set).
    pub const fn is_control(self) -> bool {
        self.as_u8() & 0x8 != 0
    }
}

/// Appends the header of an unmasked frame (the form a server sends, RFC 6455 §5.1) to `out`:
/// FIN bit, no RSV bits, `opcode`, and `payload_len` in its shortest encoding (RFC 6455 §5.2).
/// The caller appends exactly `payload_len` payload bytes after it.
pub fn write_frame_header(out: &mut Vec<u8>, fin: bool, opcode: OpCode, payload_len: usize) {
    out.extend_from_slice(frame_header(fin, opcode, payload_len).as_bytes());
}

/// The longest header of an unmasked frame (RFC 6455 §5.2: 2 bytes, 8 of extended length).
pub(crate) const MAX_HEADER: usize = 10;

/// The header [`write_frame_header`] writes, as bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServerHeader {
    bytes: [u8; MAX_HEADER],
    len: usize,
}

impl ServerHeader {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The header of an unmasked frame, as [`write_frame_header`] describes it.
pub(crate) fn frame_header(fin: bool, opcode: OpCode, payload_len: usize) -> ServerHeader {
    let first = if fin { 0x80 } else { 0x00 } | opcode.as_u8();
    let mut bytes = [0u8; MAX_HEADER];
    bytes[0] = first;
    // RFC 6455 §5.2: the minimal number of bytes MUST be used to encode the length.
    let len = match u16::try_from(payload_len) {
        Ok(len) if len < 126 => {
            bytes[1] = len as u8;
            2
        }
        Ok(len) => {
            bytes[1] = 126;
            bytes[2..4].copy_from_slice(&len.to_be_bytes());
            4
        }
        Err(_) => {
            bytes[1] = 127;
            bytes[2..10].copy_from_slice(&(payload_len as u64).to_be_bytes());
            10
        }
    };
    ServerHeader { bytes, len }
}

/// Appends a whole unmasked close frame: empty body when `code` is None or
/// [`close_code::NO_STATUS`], else the code followed by `reason` (which the caller keeps
/// within 123 bytes, RFC 6455 §5.5).
pub(crate) fn write_close_frame(out: &mut Vec<u8>, code: Option<u16>, reason: &[u8]) {
    match code {
        Some(code) if code != close_code::NO_STATUS => {
            write_frame_header(out, true, OpCode::Close, 2 + reason.len());
            out.extend_from_slice(&code.to_be_bytes());
            out.extend_from_slice(reason);
        }
        _ => write_frame_header(out, true, OpCode::Close, 0),
    }
}

/// A parsed client frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FrameHeader {
    /// Whether this is the final frame of its message.
    pub(crate) fin: bool,
    /// The frame's opcode.
    pub(crate) opcode: OpCode,
    /// The masking key (RFC 6455 §5.3).
    pub(crate) mask: [u8; 4],
    /// Payload length as declared (at most 2^63 - 1).
    pub(crate) payload_len: u64,
    /// Header length in bytes (6, 8 or 14 for a masked frame).
    pub(crate) header_len: usize,
}

/// Parses a client frame header from the start of `buf`: `Ok(None)` while more bytes are
/// needed, the header once complete, or the first rule it breaks (checked as soon as the byte
/// carrying it has arrived).
pub(crate) fn parse_client_header(buf: &[u8]) -> Result<Option<FrameHeader>, Violation> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    // RFC 6455 §5.2: RSV1-3 MUST be 0 unless an extension is negotiated; we negotiate none.
    if first & 0x70 != 0 {
        return Err(Violation::ReservedBitsSet);
    }
    // RFC 6455 §5.2: on an unknown opcode the endpoint MUST fail the connection.
    let opcode = OpCode::from_u8(first & 0x0F).ok_or(Violation::UnknownOpcode)?;
    let fin = first & 0x80 != 0;
    // RFC 6455 §5.5: control frames MUST NOT be fragmented.
    if opcode.is_control() && !fin {
        return Err(Violation::FragmentedControlFrame);
    }
    let Some(&second) = buf.get(1) else {
        return Ok(None);
    };
    // RFC 6455 §5.1: a client MUST mask all frames it sends to the server.
    if second & 0x80 == 0 {
        return Err(Violation::UnmaskedFrame);
    }
    let short_len = second & 0x7F;
    // RFC 6455 §5.5: all control frames MUST have a payload length of 125 bytes or less.
    if opcode.is_control() && short_len > 125 {
        return Err(Violation::ControlFrameTooBig);
    }
    let (payload_len, len_end) = match short_len {
        126 => {
            let Some(&[high, low]) = buf.get(2..4) else {
                return Ok(None);
            };
            let len = u16::from_be_bytes([high, low]);
            // RFC 6455 §5.2: the minimal number of bytes MUST be used to encode the length.
            if len < 126 {
                return Err(Violation::NonMinimalLength);
            }
            (u64::from(len), 4)
        }
        127 => {
            let Some(bytes) = buf.get(2..10) else {
                return Ok(None);
            };
            let mut array = [0u8; 8];
            array.copy_from_slice(bytes);
            let len = u64::from_be_bytes(array);
            // RFC 6455 §5.2: the most significant bit of a 64-bit length MUST be 0.
            if len >> 63 != 0 {
                return Err(Violation::LengthTopBitSet);
            }
            // RFC 6455 §5.2: the minimal number of bytes MUST be used to encode the length.
            if len < 65_536 {
                return Err(Violation::NonMinimalLength);
            }
            (len, 10)
        }
        len => (u64::from(len), 2),
    };
    let Some(&[a, b, c, d]) = buf.get(len_end..len_end + 4) else {
        return Ok(None);
    };
    Ok(Some(FrameHeader {
        fin,
        opcode,
        mask: [a, b, c, d],
        payload_len,
        header_len: len_end + 4,
    }))
}

/// XORs `payload` with the masking key (RFC 6455 §5.3), where `payload[0]` is byte `offset` of
/// the frame's payload. Masking and unmasking are the same operation, so a payload can be
/// unmasked in place piece by piece as it arrives.
pub(crate) fn apply_mask(payload: &mut [u8], mask: [u8; 4], offset: usize) {
    let key: [u8; 4] = std::array::from_fn(|i| mask[(offset + i) % 4]);
    let mut words = payload.chunks_exact_mut(4);
    for word in &mut words {
        for (byte, k) in word.iter_mut().zip(key) {
            *byte ^= k;
        }
    }
    for (byte, k) in words.into_remainder().iter_mut().zip(key) {
        *byte ^= k;
    }
}

/// Splits a received close body (RFC 6455 §5.5.1) into its code and reason: `(None, "")` for an
/// empty body, else a valid code and a UTF-8 reason, or the rule the body breaks.
pub(crate) fn parse_close_payload(payload: &[u8]) -> Result<(Option<u16>, &str), Violation> {
    match payload {
        [] => Ok((None, "")),
        // RFC 6455 §5.5.1: a close body, if present, MUST start with a 2-byte status code.
        [_] => Err(Violation::CloseFrameTooShort),
        [high, low, reason @ ..] => {
            let code = u16::from_be_bytes([*high, *low]);
            // RFC 6455 §7.4: only defined, registered or private-use codes may be received.
            if !close_code::is_valid_received(code) {
                return Err(Violation::InvalidCloseCode);
            }
            // RFC 6455 §5.5.1: the close reason MUST be UTF-8 (§8.1: else fail with 1007).
            let reason = std::str::from_utf8(reason).map_err(|_| Violation::InvalidCloseReason)?;
            Ok((Some(code), reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(fin: bool, opcode: OpCode, len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        write_frame_header(&mut out, fin, opcode, len);
        out
    }

    #[test]
    fn opcodes_round_trip_and_reserved_ones_have_none() {
        for bits in 0..=0xFFu8 {
            match OpCode::from_u8(bits) {
                Some(op) => assert_eq!(op.as_u8(), bits),
                None => assert!(matches!(bits, 0x3..=0x7 | 0xB..)),
            }
        }
        assert!(OpCode::Ping.is_control() && !OpCode::Text.is_control());
    }

    #[test]
    fn rfc_6455_5_7_emitted_headers() {
        // Fragmented unmasked text "Hel" + "lo".
        assert_eq!(header(false, OpCode::Text, 3), [0x01, 0x03]);
        assert_eq!(header(true, OpCode::Continuation, 2), [0x80, 0x02]);
        // Unmasked ping / pong with "Hello".
        assert_eq!(header(true, OpCode::Ping, 5), [0x89, 0x05]);
        assert_eq!(header(true, OpCode::Pong, 5), [0x8A, 0x05]);
        // 256 bytes and 64 KiB of binary data in a single unmasked frame.
        assert_eq!(header(true, OpCode::Binary, 256), [0x82, 0x7E, 0x01, 0x00]);
        assert_eq!(
            header(true, OpCode::Binary, 65_536),
            [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]
        );
    }

    #[test]
    fn emitted_length_forms_switch_at_126_and_65536() {
        assert_eq!(header(true, OpCode::Text, 125), [0x81, 125]);
        assert_eq!(header(true, OpCode::Text, 126), [0x81, 126, 0, 126]);
        assert_eq!(header(true, OpCode::Text, 65_535), [0x81, 126, 0xFF, 0xFF]);
        assert_eq!(header(true, OpCode::Text, 65_536)[..2], [0x81, 127]);
    }

    #[test]
    fn close_frames() {
        let mut out = Vec::new();
        write_close_frame(&mut out, Some(1000), b"bye");
        write_close_frame(&mut out, None, b"");
        write_close_frame(&mut out, Some(close_code::NO_STATUS), b"ignored");
        assert_eq!(
            out,
            [0x88, 5, 0x03, 0xE8, b'b', b'y', b'e', 0x88, 0, 0x88, 0]
        );
    }

    #[test]
    fn parses_rfc_6455_5_7_masked_hello() {
        let frame = [
            0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58,
        ];
        let parsed = parse_client_header(&frame).unwrap().unwrap();
        assert_eq!(
            parsed,
            FrameHeader {
                fin: true,
                opcode: OpCode::Text,
                mask: [0x37, 0xFA, 0x21, 0x3D],
                payload_len: 5,
                header_len: 6,
            }
        );
        let mut payload = frame[6..].to_vec();
        apply_mask(&mut payload, parsed.mask, 0);
        assert_eq!(payload, b"Hello");
        for end in 0..6 {
            assert_eq!(parse_client_header(&frame[..end]), Ok(None), "{end}");
        }
    }

    #[test]
    fn parses_extended_lengths() {
        let frame = [0x82, 0xFE, 0x01, 0x00, 1, 2, 3, 4];
        let parsed = parse_client_header(&frame).unwrap().unwrap();
        assert_eq!((parsed.payload_len, parsed.header_len), (256, 8));
        let frame = [0x02, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4];
        let parsed = parse_client_header(&frame).unwrap().unwrap();
        assert_eq!(
            (parsed.fin, parsed.payload_len, parsed.header_len),
            (false, 65_536, 14)
        );
        let frame = [
            0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4,
        ];
        let parsed = parse_client_header(&frame).unwrap().unwrap();
        assert_eq!(parsed.payload_len, u64::MAX >> 1);
    }

    #[test]
    fn header_violations_are_found_at_the_byte_that_carries_them() {
        let cases: &[(&[u8], Violation)] = &[
            (&[0xC1], Violation::ReservedBitsSet),
            (&[0xA1], Violation::ReservedBitsSet),
            (&[0x91], Violation::ReservedBitsSet),
            (&[0x83], Violation::UnknownOpcode),
            (&[0x87], Violation::UnknownOpcode),
            (&[0x8B], Violation::UnknownOpcode),
            (&[0x8F], Violation::UnknownOpcode),
            (&[0x09], Violation::FragmentedControlFrame),
            (&[0x81, 0x05], Violation::UnmaskedFrame),
            (&[0x89, 0xFE], Violation::ControlFrameTooBig),
            (&[0x88, 0xFF], Violation::ControlFrameTooBig),
            (&[0x81, 0xFE, 0x00, 0x7D], Violation::NonMinimalLength),
            (
                &[0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0],
                Violation::LengthTopBitSet,
            ),
            (
                &[0x81, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF],
                Violation::NonMinimalLength,
            ),
        ];
        for (bytes, violation) in cases {
            for end in 0..bytes.len() {
                assert_eq!(parse_client_header(&bytes[..end]), Ok(None), "{bytes:02X?}");
            }
            assert_eq!(parse_client_header(bytes), Err(*violation), "{bytes:02X?}");
        }
    }

    #[test]
    fn masking_in_pieces_equals_masking_at_once() {
        let mask = [0x11, 0x22, 0x33, 0x44];
        let data: Vec<u8> = (0..=40).collect();
        let mut whole = data.clone();
        apply_mask(&mut whole, mask, 0);
        for split in 0..data.len() {
            let mut pieces = data.clone();
            let (head, tail) = pieces.split_at_mut(split);
            apply_mask(head, mask, 0);
            apply_mask(tail, mask, split);
            assert_eq!(pieces, whole, "{split}");
        }
        assert_eq!(whole[5], 5 ^ 0x22);
    }

    #[test]
    fn close_payloads() {
        assert_eq!(parse_close_payload(b""), Ok((None, "")));
        assert_eq!(
            parse_close_payload(b"\x03"),
            Err(Violation::CloseFrameTooShort)
        );
        assert_eq!(parse_close_payload(b"\x03\xE8ok"), Ok((Some(1000), "ok")));
        assert_eq!(parse_close_payload(b"\x0F\xA0"), Ok((Some(4000), "")));
        assert_eq!(
            parse_close_payload(b"\x03\xED"),
            Err(Violation::InvalidCloseCode)
        );
        assert_eq!(
            parse_close_payload(b"\x03\xE8\xFF"),
            Err(Violation::InvalidCloseReason)
        );
    }
}
