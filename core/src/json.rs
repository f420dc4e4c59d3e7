//! Byte-level JSON that serde_json does not offer: the end of a string without decoding it,
//! the members of an object as raw text, and string escaping straight into a buffer. Strings are crossed with `memchr`,
//! so a document that is mostly one long string (an `openDiff` of a big file) costs little.

use std::borrow::Cow;

/// Bytes of a string read one by one before switching to `memchr`: names and most values
/// end sooner, and a loop beats a call for them.
const SHORT_STRING: usize = 32;

/// The index just past the quote that closes the string whose contents start at `at`, or the
/// text's length when it never closes. Past the first few bytes only quotes are searched for:
/// a quote preceded by an odd run of backslashes is escaped, so escapes without a quote
/// (`\n`, most of them) cost nothing.
pub(crate) fn string_end(text: &[u8], at: usize) -> usize {
    let mut i = at;
    let short_end = text.len().min(at.saturating_add(SHORT_STRING));
    while i < short_end {
        match text[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    loop {
        let Some(found) = text.get(i..).and_then(|rest| memchr::memchr(b'"', rest)) else {
            return text.len();
        };
        let quote = i + found;
        let backslashes = text[at..quote]
            .iter()
            .rev()
            .take_while(|&&byte| byte == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return quote + 1;
        }
        i = quote + 1;
    }
}

/// Why [`members`] could not read an object.
pub(crate) const NOT_AN_OBJECT: &str = "not a JSON object";

/// One member of an object: its decoded name and the raw text of its value.
pub(crate) type Member<'a> = (Cow<'a, str>, &'a str);

/// The members of `object`, a JSON object that serde_json already validated (a `RawValue`):
/// each name, decoded by `decode_name` when it holds an escape, with the raw text of its value,
/// in the order given. A name given twice is listed twice: a reader takes the last one, as
/// serde_json's maps keep the last value (so reading stays linear in the members however many
/// a peer sends). Text that is not such an object gives [`NOT_AN_OBJECT`] (or the error of
/// `decode_name`), never a panic. (A call's arguments are a handful of members: a list searched
/// from the end is smaller code than an ordered map, and no slower.)
pub(crate) fn members<'a>(
    object: &'a str,
    decode_name: impl Fn(&str) -> Result<String, &'static str>,
) -> Result<Vec<Member<'a>>, &'static str> {
    let bytes = object.as_bytes();
    let mut map: Vec<Member<'a>> = Vec::new();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return Err(NOT_AN_OBJECT);
    }
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return Ok(map);
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return Err(NOT_AN_OBJECT);
        }
        let name_end = string_end(bytes, at + 1);
        let name = object.get(at..name_end).ok_or(NOT_AN_OBJECT)?;
        let name = match name.get(1..name.len().saturating_sub(1)) {
            Some(plain) if !plain.contains('\\') => Cow::Borrowed(plain),
            _ => Cow::Owned(decode_name(name)?),
        };
        at = skip_space(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            return Err(NOT_AN_OBJECT);
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(bytes, start).ok_or(NOT_AN_OBJECT)?;
        let value = object.get(start..end).ok_or(NOT_AN_OBJECT)?;
        map.push((name, value));
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => return Ok(map),
            _ => return Err(NOT_AN_OBJECT),
        }
    }
}

/// RFC 8259 §2: insignificant whitespace is space, tab, line feed and carriage return.
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The index just past the value starting at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => Some(string_end(bytes, at + 1)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&byte) = bytes.get(i) {
                i += 1;
                match byte {
                    b'"' => i = string_end(bytes, i),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        _ => {
            let len = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at);
            Some(at + len)
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;
    use std::collections::BTreeMap;

    fn plain(name: &str) -> Result<String, &'static str> {
        serde_json::from_str(name).map_err(|_| "bad name")
    }

    /// What serde_json makes of the same object: names and raw value texts.
    fn reference(object: &str) -> BTreeMap<String, String> {
        let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(object).unwrap();
        map.into_iter()
            .map(|(k, v)| (k, v.get().to_owned()))
            .collect()
    }

    fn ours(object: &str) -> BTreeMap<String, String> {
        members(object, plain)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.to_owned()))
            .collect()
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            (-1e6f64..1e6).prop_map(serde_json::Value::from),
            "[a-z\"\\\\/\u{e9}\u{1}\n{}\\[\\],:]{0,12}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn members_are_what_serde_json_reads(
            entries in prop::collection::btree_map("[a-z\"\\\\é]{0,5}", json_value(), 0..5),
            pretty in any::<bool>(),
        ) {
            let object = serde_json::Value::Object(entries.into_iter().collect());
            let text = if pretty {
                serde_json::to_string_pretty(&object).unwrap()
            } else {
                serde_json::to_string(&object).unwrap()
            };
            prop_assert_eq!(ours(&text), reference(&text));
        }

        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(
            text in "[a-z\"\\\\\\x00-\\x1f\\x7f é✻]{0,40}",
        ) {
            let mut ours = Vec::new();
            escape_into(&mut ours, text.as_bytes());
            let theirs = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(String::from_utf8(ours).unwrap(), &theirs[1..theirs.len() - 1]);
        }

        #[test]
        fn any_text_is_read_or_refused_without_panicking(text in "\\PC{0,40}") {
            let _ = members(&text, plain);
            let _ = string_end(text.as_bytes(), 0);
        }
    }

    #[test]
    fn strings_end_at_the_first_unescaped_quote_short_or_long() {
        for pad in [0, 5, 31, 32, 33, 100] {
            for run in 0..5 {
                let contents = format!("{}{}\"", "a".repeat(pad), "\\".repeat(run));
                let text = format!("{contents} tail\" rest");
                // An even run of backslashes leaves the quote unescaped.
                let expected = if run % 2 == 0 {
                    contents.len()
                } else {
                    contents.len() + " tail\"".len()
                };
                assert_eq!(string_end(text.as_bytes(), 0), expected, "{pad} {run}");
            }
        }
        assert_eq!(string_end(b"abc", 0), 3);
        assert_eq!(string_end(&[b'a'; 100], 0), 100);
    }

    #[test]
    fn every_byte_escapes_as_serde_json_escapes_it_at_every_offset() {
        for byte in 0..=0x7fu8 {
            for pad in 0..17 {
                let text = format!("{}{}{}", "a".repeat(pad), char::from(byte), "b".repeat(9));
                let mut ours = Vec::new();
                escape_into(&mut ours, text.as_bytes());
                let theirs = serde_json::to_string(&text).unwrap();
                assert_eq!(
                    ours,
                    theirs.as_bytes()[1..theirs.len() - 1],
                    "{byte:#x} at {pad}"
                );
            }
        }
    }

    /// serde_json's escaping of `text` as a string's contents, applied twice.
    fn serde_twice(text: &str) -> String {
        let once = serde_json::to_string(text).unwrap();
        let twice = serde_json::to_string(&once[1..once.len() - 1]).unwrap();
        twice[1..twice.len() - 1].to_owned()
    }

    #[test]
    fn every_byte_escapes_twice_as_serde_json_escapes_it_twice_at_every_offset() {
        for byte in 0..=0x7fu8 {
            for pad in 0..17 {
                let text = format!("{}{}{}", "a".repeat(pad), char::from(byte), "b".repeat(9));
                let mut ours = Vec::new();
                escape_twice_into(&mut ours, text.as_bytes());
                assert_eq!(ours, serde_twice(&text).as_bytes(), "{byte:#x} at {pad}");
            }
        }
    }

    proptest! {
        #[test]
        fn strings_are_escaped_twice_as_serde_json_escapes_them_twice(
            text in prop_oneof![
                any::<String>(),
                "[a-z\"\\\\\\x00-\\x1f\\x7f é✻\u{2028}\u{2029}]{0,40}",
            ],
        ) {
            let mut ours = Vec::new();
            escape_twice_into(&mut ours, text.as_bytes());
            prop_assert_eq!(String::from_utf8(ours).unwrap(), serde_twice(&text));
        }

        #[test]
        fn integers_are_written_as_serde_json_writes_them(n in any::<u64>()) {
            let mut ours = Vec::new();
            push_u64(&mut ours, n);
            prop_assert_eq!(ours, serde_json::to_vec(&n).unwrap());
        }
    }

    #[test]
    fn duplicate_names_keep_the_last_value() {
        let text = r#"{"a":1,"a":[2, {"x":"]"}] , "b" : "\"}" }"#;
        assert_eq!(ours(text), reference(text));
        assert_eq!(ours(text)["a"], r#"[2, {"x":"]"}]"#);
    }

    #[test]
    fn escaped_names_are_decoded() {
        let text = r#"{"a\u0062":true,"c\"":null}"#;
        assert_eq!(ours(text), reference(text));
    }

    #[test]
    fn non_objects_are_refused() {
        for text in ["[]", "1", "\"x\"", "{", "{\"a\"}", "{\"a\":1,}", ""] {
            assert_eq!(members(text, plain).err(), Some(NOT_AN_OBJECT), "{text}");
        }
    }
}
