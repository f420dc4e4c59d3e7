//! A text read as serde_json 1.x reads it into a `serde_json::Value`, for the lock file and
//! the resume record (which other programs write, and which were read through `Value`
//! before): [`check_value`] accepts and refuses exactly what `serde_json::from_str::<Value>`
//! does, with its error's line and column; [`field`], [`unsigned`] and [`unwrapped`] read
//! the accepted text as `Value`'s `get`, `as_u64` and its raw-value objects do.
//!
//! The rules beyond RFC 8259's grammar are the scanner's ([`super::Reader::serde_value`]):
//! no unpaired surrogate escape, no number serde_json reads as infinite (`1e400`), at most 127
//! open brackets, and serde_json's raw-value token (an object whose first name is
//! [`RAW_VALUE_TOKEN`] stands for the JSON text of its string).

use std::borrow::Cow;

use super::members::members;
use super::scan::Reader;
use super::string::decode;

/// serde_json's key for an object that stands for a raw value (its `raw_value` feature):
/// `Value` reads such an object as the JSON text of its string member.
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Where serde_json stops in a text it refuses: its error's line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// 1-based line.
    pub(crate) line: usize,
    /// The bytes from the line's start up to and including the last one read.
    pub(crate) column: usize,
}

impl Position {
    /// serde_json's position of byte index `index` of `bytes`: the 1-based line, and the bytes
    /// from the line's start to `index` as the column.
    pub(crate) fn of(bytes: &[u8], index: usize) -> Position {
        let before = bytes.get(..index).unwrap_or(bytes);
        let start_of_line = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
        Position {
            line: 1 + memchr::memchr_iter(b'\n', before.get(..start_of_line).unwrap_or_default())
                .count(),
            column: before.len() - start_of_line,
        }
    }
}

/// Whether `text` is one JSON value, with whitespace around it, that serde_json reads into a
/// `Value`; where not, the position of serde_json's error.
pub(crate) fn check_value(text: &str) -> Result<(), Position> {
    let mut reader = Reader::serde_value(text);
    match reader.value() {
        Ok(_) if reader.at_end() => Ok(()),
        Ok(_) => {
            reader.refuse_peeked();
            Err(reader.refusal())
        }
        Err(_) => Err(reader.refusal()),
    }
}

/// `value`, a value [`check_value`] accepted, without the whitespace around it and with
/// serde_json's raw-value objects read as the text they hold (itself unwrapped).
pub(crate) fn unwrapped(value: &str) -> Cow<'_, str> {
    let value = value.trim_matches([' ', '\t', '\n', '\r']);
    let mut all = members(value);
    let raw = match (all.next(), all.next()) {
        (Some(first), None) if first.name.text().as_deref() == Ok(RAW_VALUE_TOKEN) => {
            decode(first.value).ok()
        }
        _ => None,
    };
    match raw {
        Some(inner) => Cow::Owned(unwrapped(&inner).into_owned()),
        None => Cow::Borrowed(value),
    }
}

/// The value of member `name` of `object` (an [`unwrapped`] object), as `Value::get` reads it:
/// the last one when the name is given twice, itself unwrapped.
pub(crate) fn field<'a>(object: &'a str, name: &str) -> Option<Cow<'a, str>> {
    members(object)
        .filter(|member| member.name.text().as_deref() == Ok(name))
        .last()
        .map(|member| unwrapped(member.value))
}

/// An unwrapped value as `Value::as_u64` reads it: an integer from 0 to `u64::MAX` without
/// fraction or exponent (`-0` and `1.0` are not).
pub(crate) fn unsigned(value: &str) -> Option<u64> {
    value.parse().ok()
}

/// An unwrapped value as `Value::as_str` reads it: a string's text.
pub(crate) fn text(value: &str) -> Option<Cow<'_, str>> {
    value.starts_with('"').then(|| decode(value).ok())?
}
