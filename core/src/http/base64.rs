//! The two uses of base64 (RFC 4648 §4, padded) in the WebSocket handshake: encoding the
//! `Sec-WebSocket-Accept` digest, and checking that a `Sec-WebSocket-Key` is a 16-byte
//! nonce. Written out rather than taken from the `base64` crate, whose general engine is
//! some 5.5 KB of the wasm module for 28 bytes out and 24 in.

/// RFC 4648 §4 (Table 1): the standard alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The 28-character padded encoding of a 20-byte SHA-1 digest.
pub(super) fn encode_digest(digest: &[u8; 20]) -> [u8; 28] {
    let mut out = [b'='; 28];
    for (group, chunk) in digest.chunks(3).enumerate() {
        // The chunk's bytes as the top of a 24-bit group; a short last chunk leaves zeros.
        let bits = chunk.iter().enumerate().fold(0u32, |bits, (at, &byte)| {
            bits | u32::from(byte) << (16 - 8 * at)
        });
        // RFC 4648 §4: n bytes give n + 1 characters, and `=` pads the group to four.
        for at in 0..=chunk.len() {
            out[4 * group + at] = ALPHABET[(bits >> (18 - 6 * at)) as usize & 63];
        }
    }
    out
}

/// Whether `key` is the canonical padded encoding of exactly 16 bytes: 22 characters of
/// the alphabet, `==`, and (RFC 4648 §3.5) zero in the 4 bits of the last character that
/// carry no data.
pub(super) fn is_16_bytes(key: &[u8]) -> bool {
    let Some((data, b"==")) = key.split_at_checked(22) else {
        return false;
    };
    let mut last = None;
    for &byte in data {
        last = ALPHABET.iter().position(|&letter| letter == byte);
        if last.is_none() {
            return false;
        }
    }
    last.is_some_and(|value| value & 0b1111 == 0)
}

#[cfg(test)]
mod tests;
