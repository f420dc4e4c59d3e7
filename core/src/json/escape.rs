//! Writing JSON strings and integers straight into a buffer, byte for byte as serde_json
//! writes them (RFC 8259 §6 and §7).

/// For each byte: 0 when it stands for itself inside a JSON string, else the letter of its
/// escape (`u` for `\u00XX`). RFC 8259 §7: quotation mark, reverse solidus and the control
/// characters (U+0000 through U+001F) MUST be escaped; serde_json uses the short forms below.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Appends `bytes` as the contents of a JSON string (no quotes), escaped exactly as
/// serde_json escapes: short forms where JSON has them, `\u00XX` for other control bytes.
/// Escapes concern single ASCII bytes, so any split of the input into chunks gives the same
/// output.
///
/// Eight bytes are tested at a time ([`escape_mask`]), the first byte to escape found from the
/// mask, and the run before it copied whole: this is the one pass the engine makes over every
/// byte of a big answer.
pub(crate) fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    escape_with(out, bytes, push_escape);
}

/// Appends `bytes`, the contents of a string inside a JSON text, as that text's string is
/// written inside another JSON string: escaped for the inner text, then the result escaped
/// again, in one pass. The result is what [`escape_into`] gives applied twice: `"` becomes
/// `\\\"`, `\` four backslashes, a line feed `\\n`, byte 0x01 `\\u0001`; every other
/// byte stands for itself both times.
pub(crate) fn escape_twice_into(out: &mut Vec<u8>, bytes: &[u8]) {
    escape_with(out, bytes, push_escape_twice);
}

/// The loop of [`escape_into`] and [`escape_twice_into`]: every byte [`ESCAPE`] marks is
/// replaced by what `push` appends for it, the runs between them copied whole.
#[inline(always)]
fn escape_with(out: &mut Vec<u8>, bytes: &[u8], push: fn(&mut Vec<u8>, u8)) {
    // Room for the text and some escapes (source code escapes a few bytes in a hundred), so a
    // big text is rarely regrown midway.
    out.reserve(bytes.len() + bytes.len() / 8 + 2);
    let mut start = 0;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let mask = escape_mask(u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]));
        if mask == 0 {
            at += 8;
            continue;
        }
        // Little-endian: the lowest flagged byte comes first in `bytes`.
        at += (mask.trailing_zeros() / 8) as usize;
        out.extend_from_slice(&bytes[start..at]);
        push(out, bytes[at]);
        at += 1;
        start = at;
    }
    for (offset, &byte) in bytes[at..].iter().enumerate() {
        if ESCAPE[usize::from(byte)] != 0 {
            out.extend_from_slice(&bytes[start..at + offset]);
            push(out, byte);
            start = at + offset + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Bit 7 of each byte of `word` (read little-endian) that is a control byte (below 0x20), `"`
/// or `\`, by the usual word tests: `(x - 0x01…01) & !x & 0x80…80` flags the zero bytes of `x`
/// and, with `0x20…20`, the bytes below 0x20 (never a byte of 0x80 or more); `"` and `\` are
/// the zero bytes of the word xored with them. A borrow only runs upwards from a flagged byte,
/// so the lowest flag is always exact (a byte above one may be flagged wrongly; it is never
/// looked at before the true one is escaped and the word read again after it).
pub(crate) fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    below(word, 0x20) | below(quote, 1) | below(backslash, 1)
}

/// Appends the escape of `byte`, one that [`ESCAPE`] marks.
fn push_escape(out: &mut Vec<u8>, byte: u8) {
    let short = ESCAPE[usize::from(byte)];
    if short == b'u' {
        let (high, low) = hex(byte);
        out.extend_from_slice(&[b'\\', b'u', b'0', b'0', high, low]);
    } else {
        out.extend_from_slice(&[b'\\', short]);
    }
}

/// Appends the escape of the escape of `byte`, one that [`ESCAPE`] marks: a backslash for
/// the backslash that opens the first escape, then the first escape's rest, escaped in turn
/// (only `"` and `\` among those need it).
fn push_escape_twice(out: &mut Vec<u8>, byte: u8) {
    match ESCAPE[usize::from(byte)] {
        b'u' => {
            let (high, low) = hex(byte);
            out.extend_from_slice(&[b'\\', b'\\', b'u', b'0', b'0', high, low]);
        }
        quoted @ (b'"' | b'\\') => out.extend_from_slice(&[b'\\', b'\\', b'\\', quoted]),
        short => out.extend_from_slice(&[b'\\', b'\\', short]),
    }
}

/// The two lowercase hex digits of `byte`, as serde_json writes them in `\u00XX`.
fn hex(byte: u8) -> (u8, u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)])
}

/// Appends `text` as a JSON string, quotes included, escaped exactly as serde_json escapes
/// it; infallible, unlike serializing into an `io::Write`.
pub(crate) fn push_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    escape_into(out, text.as_bytes());
    out.push(b'"');
}

/// Appends `n` in decimal, as serde_json writes an integer.
pub(crate) fn push_u64(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}
