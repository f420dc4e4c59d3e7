//! The one JSON string decoder: a string's text from its raw JSON, borrowed when it holds no
//! escape, unescaped once into a string of its size otherwise.

use std::borrow::Cow;

/// Why a JSON string could not be decoded: the text is not a string as [`decode`] takes it.
pub(crate) const NOT_A_STRING: &str = "not a valid JSON string";

/// Why a JSON string could not be decoded: it escapes half of a UTF-16 surrogate pair, which
/// no Rust string can hold.
pub(crate) const LONE_SURROGATE: &str = "a lone UTF-16 surrogate in a \\u escape";

/// Contents this long or shorter are searched for a backslash byte by byte: most strings
/// decoded are short names, and a plain loop beats a `memchr` call for them.
const SHORT_CONTENTS: usize = 32;

/// The text of `raw`, a JSON string as the scanner accepts it (quotes included): borrowed
/// when it has no escape, decoded otherwise. [`NOT_A_STRING`] when it is not a string (or
/// not a well-formed one), [`LONE_SURROGATE`] when a `\u` escape leaves a surrogate unpaired.
///
/// RFC 8259 §7: the escapes are `\" \\ \/ \b \f \n \r \t` and `\u` with four hex digits; a
/// character outside the Basic Multilingual Plane is escaped as a UTF-16 surrogate pair.
/// serde_json refuses an unpaired surrogate in a string it decodes, and so does this (§8.2
/// leaves such strings' behaviour unpredictable).
pub(crate) fn decode(raw: &str) -> Result<Cow<'_, str>, &'static str> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .ok_or(NOT_A_STRING)?;
    let bytes = inner.as_bytes();
    let first = if bytes.len() <= SHORT_CONTENTS {
        bytes.iter().position(|&byte| byte == b'\\')
    } else {
        memchr::memchr(b'\\', bytes)
    };
    let Some(first) = first else {
        return Ok(Cow::Borrowed(inner));
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    let mut found = Some(first);
    while let Some(offset) = found {
        out.extend_from_slice(&bytes[at..at + offset]);
        let escape = at + offset + 1;
        at = match bytes.get(escape).ok_or(NOT_A_STRING)? {
            b'u' => {
                let (decoded, len) = unicode_escape(&bytes[escape..])?;
                out.extend_from_slice(decoded.encode_utf8(&mut [0; 4]).as_bytes());
                escape + len
            }
            letter => {
                out.push(match letter {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    _ => return Err(NOT_A_STRING),
                });
                escape + 1
            }
        };
        found = memchr::memchr(b'\\', &bytes[at..]);
    }
    out.extend_from_slice(&bytes[at..]);
    // Text was cut only at ASCII backslashes and joined with whole characters: still UTF-8.
    String::from_utf8(out)
        .map(Cow::Owned)
        .map_err(|_| NOT_A_STRING)
}

/// `u` + 4 hex digits at the start of `escape` (the bytes after a backslash), joined with a
/// following `\uDC00`-`\uDFFF` when it is a high surrogate (RFC 8259 §7): the character and
/// the bytes it took.
fn unicode_escape(escape: &[u8]) -> Result<(char, usize), &'static str> {
    let first = hex_unit(escape.get(1..5))?;
    match first {
        0xD800..=0xDBFF => {
            if escape.get(5..7) != Some(b"\\u") {
                return Err(LONE_SURROGATE);
            }
            let second = hex_unit(escape.get(7..11))?;
            if !(0xDC00..=0xDFFF).contains(&second) {
                return Err(LONE_SURROGATE);
            }
            let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
            char::from_u32(code).map(|c| (c, 11)).ok_or(LONE_SURROGATE)
        }
        _ => char::from_u32(first).map(|c| (c, 5)).ok_or(LONE_SURROGATE),
    }
}

/// The UTF-16 code unit written as `digits`, exactly four hex digits.
pub(super) fn hex_unit(digits: Option<&[u8]>) -> Result<u32, &'static str> {
    let digits = digits.ok_or(NOT_A_STRING)?;
    digits.iter().try_fold(0, |unit, &digit| {
        let value = char::from(digit).to_digit(16).ok_or(NOT_A_STRING)?;
        Ok(unit << 4 | value)
    })
}
