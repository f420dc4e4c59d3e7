//! The protocol rules a peer can break, each with the close code it is answered with.

use super::close_code;

/// A rule of RFC 6455 (or of this server's limits) that the peer broke. Each one fails the
/// connection (RFC 6455 §7.1.7) with [`Violation::close_code`] and [`Violation::reason`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Violation {
    /// RFC 6455 §5.1: a client MUST mask every frame it sends.
    UnmaskedFrame,
    /// RFC 6455 §5.2: RSV1-3 MUST be 0 unless an extension defining them was negotiated.
    ReservedBitsSet,
    /// RFC 6455 §5.2: opcodes 0x3-0x7 and 0xB-0xF are reserved.
    UnknownOpcode,
    /// RFC 6455 §5.5: control frames MUST NOT be fragmented.
    FragmentedControlFrame,
    /// RFC 6455 §5.5: control frame payloads MUST be 125 bytes or less.
    ControlFrameTooBig,
    /// RFC 6455 §5.2: the most significant bit of a 64-bit length MUST be 0.
    LengthTopBitSet,
    /// RFC 6455 §5.2: the minimal number of bytes MUST be used to encode the length.
    NonMinimalLength,
    /// RFC 6455 §5.4: a continuation frame needs a fragmented message to continue.
    ContinuationWithoutMessage,
    /// RFC 6455 §5.4: fragments of one message MUST NOT be interleaved with another message.
    DataFrameInsideMessage,
    /// RFC 6455 §7.4.1 (1003): this server accepts text messages only.
    BinaryNotAccepted,
    /// RFC 6455 §7.4.1 (1009): the message is over `max_message_bytes`.
    MessageTooBig,
    /// RFC 6455 §7.4.1 (1009): the message spans more than `max_fragments` frames.
    TooManyFragments,
    /// RFC 6455 §8.1: text messages MUST be valid UTF-8.
    InvalidUtf8,
    /// RFC 6455 §5.5.1: a close body, if any, starts with a 2-byte status code.
    CloseFrameTooShort,
    /// RFC 6455 §7.4: the close code is reserved, unassigned or not allowed on the wire.
    InvalidCloseCode,
    /// RFC 6455 §5.5.1: the close reason MUST be UTF-8.
    InvalidCloseReason,
}

impl Violation {
    /// The close code the connection is failed with.
    pub(crate) const fn close_code(self) -> u16 {
        match self {
            Violation::BinaryNotAccepted => close_code::UNSUPPORTED_DATA,
            // RFC 6455 §7.4.1: 1009 is for a message "too big for it to process"; 1008 is the
            // generic fallback "when there is no other more suitable status code (e.g., 1003
            // or 1009)", so a fragment count over the limit is 1009 as well.
            Violation::MessageTooBig | Violation::TooManyFragments => close_code::MESSAGE_TOO_BIG,
            Violation::InvalidUtf8 | Violation::InvalidCloseReason => close_code::INVALID_PAYLOAD,
            _ => close_code::PROTOCOL_ERROR,
        }
    }

    /// The reason text sent in the close frame and reported in `Finished::Failed`.
    pub(crate) const fn reason(self) -> &'static str {
        match self {
            Violation::UnmaskedFrame => "client frame not masked",
            Violation::ReservedBitsSet => "reserved bits set",
            Violation::UnknownOpcode => "unknown opcode",
            Violation::FragmentedControlFrame => "fragmented control frame",
            Violation::ControlFrameTooBig => "control frame over 125 bytes",
            Violation::LengthTopBitSet => "length top bit set",
            Violation::NonMinimalLength => "length not minimally encoded",
            Violation::ContinuationWithoutMessage => "continuation without a message",
            Violation::DataFrameInsideMessage => "new message inside a fragmented one",
            Violation::BinaryNotAccepted => "binary messages not accepted",
            Violation::MessageTooBig => "message too big",
            Violation::TooManyFragments => "too many fragments",
            Violation::InvalidUtf8 => "invalid utf-8 in text message",
            Violation::CloseFrameTooShort => "close payload of 1 byte",
            Violation::InvalidCloseCode => "invalid close code",
            Violation::InvalidCloseReason => "invalid utf-8 in close reason",
        }
    }
}
