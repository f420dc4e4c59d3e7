//! A diagnostic's code, owned by core: a string or an integer as the editor gave it, any
//! other JSON value kept as its JSON text.
//!
//! LSP types `Diagnostic.code` as `integer | string` (LSP 3.17, "Diagnostic"); an editor
//! may still hand in something else (a float, an object), which is passed through rather
//! than refused. Core keeps such a value as text, checked by core's one JSON reader
//! (`crate::json`), not as a `serde_json::Value`: the engine never looks inside a code, and
//! the wasm module then carries no `Value` (its map, reader and writer).
//!
//! The two ways in agree on strings and integers and on what any code means, not always on
//! the bytes of an odd one:
//! - core's forms codec (`crate::forms`, the napi, wasm and C faces) keeps an odd code's
//!   text as given (`1.50`, `1e2`, `{"b":1,"a":2}`, whitespace and escapes included);
//! - serde (`Deserialize`) keeps it as serde_json writes the value it reads (`1.5`, `100.0`,
//!   `{"a":2,"b":1}`).
//!
//! Either text is written back as kept (the `getDiagnostics` answer); `Serialize` writes the
//! value serde_json reads from it, so serde's output is serde_json's normalized form either
//! way.

use std::fmt;

use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::json;

/// A diagnostic's code as the editor gave it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DiagnosticCode {
    /// A textual code (`E0308`).
    Text(String),
    /// An integer code that fits an `i64` (`2322`).
    Number(i64),
    /// Any other JSON value (a float, an integer beyond `i64`, `true`, an array, an object).
    Json(JsonCode),
}

/// The JSON text of a diagnostic code that is neither a string nor an `i64` integer: one
/// JSON value as serde_json would read it into a `Value` (RFC 8259 plus serde_json's limits:
/// no lone surrogate escape, no infinite number, at most 127 levels), without whitespace
/// around it. Only core makes one, so the text is always valid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JsonCode(String);

impl JsonCode {
    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl DiagnosticCode {
    /// The code `text` holds as JSON (whitespace around it allowed): a string is
    /// [`DiagnosticCode::Text`], an integer that fits an `i64` [`DiagnosticCode::Number`],
    /// any other value [`DiagnosticCode::Json`] with its text as given. `None` when `text` is
    /// not one JSON value serde_json reads, or is `null` (no code).
    pub fn from_json(text: &str) -> Option<DiagnosticCode> {
        json::check_value(text).ok()?;
        let raw = text.trim_matches([' ', '\t', '\n', '\r']);
        match raw.as_bytes().first() {
            Some(b'n') => None,
            Some(b'"') => Some(DiagnosticCode::Text(json::decode(raw).ok()?.into_owned())),
            _ => Some(DiagnosticCode::checked(raw)),
        }
    }

    /// The code of `raw`, a value `check_value` accepted, without whitespace around it, that
    /// is no string: an integer as serde_json reads one into an `i64` (`-0` is a float to
    /// it), anything else as its text.
    pub(crate) fn checked(raw: &str) -> DiagnosticCode {
        match raw.parse::<i64>() {
            Ok(n) if raw != "-0" => DiagnosticCode::Number(n),
            _ => DiagnosticCode::Json(JsonCode(raw.to_owned())),
        }
    }
}

/// The value of `raw`, a value `check_value` accepted, read with core's reader as serde_json
/// reads it into a `Value` (a name given twice: its last value; serde_json's raw-value
/// objects: the value they hold), except that a float is read correctly rounded (`str::parse`),
/// so that serde_json's shortest text of an `f64` reads back as that very `f64` (serde_json's
/// own parser, without its `float_roundtrip` feature, can be an ulp off). `None` only where
/// `raw` was not so accepted.
fn value_of(raw: &str) -> Option<serde_json::Value> {
    use serde_json::Value;
    let raw = json::unwrapped(raw);
    Some(match raw.as_bytes().first()? {
        b'n' => Value::Null,
        b't' => Value::Bool(true),
        b'f' => Value::Bool(false),
        b'"' => Value::String(json::decode(&raw).ok()?.into_owned()),
        b'[' => Value::Array(json::elements(&raw).map(value_of).collect::<Option<_>>()?),
        b'{' => {
            let mut members = serde_json::Map::new();
            for member in json::members(&raw) {
                members.insert(
                    member.name.text().ok()?.into_owned(),
                    value_of(member.value)?,
                );
            }
            Value::Object(members)
        }
        _ => match (raw.parse::<u64>(), raw.parse::<i64>()) {
            (Ok(n), _) => n.into(),
            (_, Ok(n)) if raw != "-0" => n.into(),
            _ => serde_json::Number::from_f64(raw.parse().ok()?)?.into(),
        },
    })
}

impl From<&str> for DiagnosticCode {
    fn from(text: &str) -> Self {
        DiagnosticCode::Text(text.to_owned())
    }
}

impl From<String> for DiagnosticCode {
    fn from(text: String) -> Self {
        DiagnosticCode::Text(text)
    }
}

impl From<i64> for DiagnosticCode {
    fn from(n: i64) -> Self {
        DiagnosticCode::Number(n)
    }
}

impl From<i32> for DiagnosticCode {
    fn from(n: i32) -> Self {
        DiagnosticCode::Number(n.into())
    }
}

impl From<u32> for DiagnosticCode {
    fn from(n: u32) -> Self {
        DiagnosticCode::Number(n.into())
    }
}

impl From<u64> for DiagnosticCode {
    /// An integer beyond `i64::MAX` is kept as its digits ([`DiagnosticCode::Json`]), as a
    /// JSON text holding it is read.
    fn from(n: u64) -> Self {
        match i64::try_from(n) {
            Ok(n) => DiagnosticCode::Number(n),
            Err(_) => DiagnosticCode::Json(JsonCode(n.to_string())),
        }
    }
}

impl Serialize for DiagnosticCode {
    /// A string or an integer as such; any other code as the value its text holds (so
    /// serde_json writes it in its own normalized form: what it wrote before for a code serde
    /// read, byte for byte).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DiagnosticCode::Text(text) => serializer.serialize_str(text),
            DiagnosticCode::Number(n) => serializer.serialize_i64(*n),
            DiagnosticCode::Json(raw) => value_of(raw.as_str())
                .ok_or_else(|| S::Error::custom("a diagnostic code that is not JSON"))?
                .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for DiagnosticCode {
    /// Any value but `null` (an absent code is `Option::None`): a string, an `i64`, or any
    /// other value as the text serde_json writes for it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => DiagnosticCode::Text(text),
            serde_json::Value::Null => return Err(D::Error::custom("null is no diagnostic code")),
            other => match other.as_i64() {
                Some(n) => DiagnosticCode::Number(n),
                None => DiagnosticCode::Json(JsonCode(other.to_string())),
            },
        })
    }
}

#[cfg(test)]
mod tests;
