//! The JSON a lock body is read as: what `serde_json::Value` keeps, minus what [`super::LockFile::parse`]
//! never looks at (floats, negative numbers and `null` are all [`Loose::Other`]), with objects as
//! lists of members instead of maps, so the wasm module carries neither `Value`'s deserializer
//! nor its map. The text is read by serde_json's own `Deserializer` exactly as a `Value` would
//! be: the same syntax checks, nesting limit and error positions (but for one corner, see
//! `visit_map`). Only `deserialize_any` is asked for, so serde's "invalid type" messages,
//! and the float formatting they link, stay out of the wasm module.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// serde_json's key for an object that stands for a raw value (its `raw_value` feature):
/// `Value` reads such an object as the JSON text of its string member, and so does [`Loose`].
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// One JSON value of a lock body.
pub(crate) enum Loose {
    Bool(bool),
    /// An integer from 0 to `u64::MAX` (what `Value::as_u64` reads).
    Unsigned(u64),
    Str(String),
    Array(Vec<Loose>),
    /// Members in text order; a name given twice counts with its last value.
    Object(Vec<(String, Loose)>),
    /// `null`, a negative integer or a number with a fraction or exponent.
    Other,
}

impl Loose {
    /// The value of member `name` (the last one when given twice), for an object.
    pub(crate) fn get(&self, name: &str) -> Option<&Loose> {
        let Loose::Object(members) = self else {
            return None;
        };
        members
            .iter()
            .rev()
            .find(|(member, _)| member == name)
            .map(|(_, value)| value)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Loose::Str(text) => Some(text),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Loose, D::Error> {
        deserializer.deserialize_any(LooseVisitor)
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Loose, E> {
        Ok(u64::try_from(value).map_or(Loose::Other, Loose::Unsigned))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Loose, E> {
        Ok(Loose::Unsigned(value))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Loose, E> {
        Ok(Loose::Other)
    }

    fn visit_str<E>(self, value: &str) -> Result<Loose, E> {
        Ok(Loose::Str(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Loose, E> {
        Ok(Loose::Str(value))
    }

    fn visit_unit<E>(self) -> Result<Loose, E> {
        Ok(Loose::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Loose::Array(items))
    }

    // Names and the raw-value token's text are read as `Loose` too, never as `String`: a
    // `String` asks serde_json for a string, and its "invalid type" error for anything else
    // links serde's `Unexpected` messages, and through them the standard library's float
    // formatting (some 18 KB of the wasm module). serde_json reads every member name as a
    // string, so a name is always `Loose::Str`.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut members = Vec::new();
        let mut first = true;
        while let Some(name) = map.next_key::<Loose>()? {
            let Loose::Str(name) = name else {
                return Err(de::Error::custom("a member name that is not a string"));
            };
            if std::mem::take(&mut first) && name == RAW_VALUE_TOKEN {
                let Loose::Str(text) = map.next_value::<Loose>()? else {
                    return Err(de::Error::custom("a raw value that is not a string"));
                };
                return serde_json::from_str(&text).map_err(de::Error::custom);
            }
            members.push((name, map.next_value()?));
        }
        Ok(Loose::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LockFile, LockFileError};
    use serde_json::Value;

    /// The lock body read as a `serde_json::Value`, the way `LockFile::parse` read it before
    /// [`super::Loose`]: each outcome must stay the same.
    fn through_value(text: &str) -> Result<LockFile, LockFileError> {
        let value: Value = serde_json::from_str(text).map_err(|e| LockFileError::InvalidJson {
            line: e.line(),
            column: e.column(),
        })?;
        let Value::Object(object) = value else {
            return Err(LockFileError::NotAnObject);
        };
        let field = |field| {
            object
                .get(field)
                .ok_or(LockFileError::MissingField { field })
        };
        let string = |name| {
            field(name)?
                .as_str()
                .map(str::to_owned)
                .ok_or(LockFileError::WrongType {
                    field: name,
                    expected: "a string",
                })
        };
        let pid = field("pid")?
            .as_u64()
            .and_then(|pid| u32::try_from(pid).ok())
            .ok_or(LockFileError::PidNotU32)?;
        let folders_wrong = LockFileError::WrongType {
            field: "workspaceFolders",
            expected: "an array of strings",
        };
        let workspace_folders = field("workspaceFolders")?
            .as_array()
            .ok_or(folders_wrong.clone())?
            .iter()
            .map(|folder| folder.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or(folders_wrong)?;
        let ide_name = string("ideName")?;
        let auth_token = string("authToken")?;
        match object.get("transport") {
            None => {}
            Some(Value::String(transport)) if transport == "ws" => {}
            Some(_) => return Err(LockFileError::TransportNotWs),
        }
        let running_in_windows = match object.get("runningInWindows") {
            None => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => {
                return Err(LockFileError::WrongType {
                    field: "runningInWindows",
                    expected: "a boolean",
                });
            }
        };
        Ok(LockFile {
            pid,
            workspace_folders,
            ide_name,
            auth_token,
            running_in_windows,
        })
    }

    #[test]
    fn reads_every_body_as_a_serde_json_value_would() {
        let rest = r#""workspaceFolders":["/a"],"ideName":"N","authToken":"t""#;
        let deep = format!(
            r#"{{"pid":1,{rest},"x":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let mut bodies: Vec<String> = [
            "",
            " ",
            "nul",
            "null",
            "[]",
            "{}",
            "1",
            "\"s\"",
            "{\"pid\":1",
            "{\"pid\":1,}",
            "{\"pid\":1} x",
            "{\"a\":\"\\ud800\"}",
            "{\"a\":\"\\x\"}",
            "{\"a\":1e400}",
            "{\"a\":01}",
            "{\"a\":\"\u{1}\"}",
            "{\n\"pid\":\n-}",
        ]
        .iter()
        .map(|body| body.to_string())
        .collect();
        for pid in [
            "1",
            "-0",
            "0",
            "1.0",
            "1e2",
            "-1",
            "4294967295",
            "4294967296",
            "18446744073709551616",
            "null",
            "\"1\"",
            "true",
            "[1]",
            "{}",
        ] {
            bodies.push(format!(r#"{{"pid":{pid},{rest}}}"#));
            bodies.push(format!(r#"{{"pid":"x","pid":{pid},{rest}}}"#));
            bodies.push(format!(r#"{{"pid":{pid},{rest},"pid":2}}"#));
        }
        for field in [
            "workspaceFolders",
            "ideName",
            "authToken",
            "transport",
            "runningInWindows",
        ] {
            for value in [
                "null",
                "1",
                "\"ws\"",
                "\"sse\"",
                "true",
                "false",
                "[]",
                "[\"/a\"]",
                "[\"/a\",1]",
                "{}",
                "\"a\\u00e9\\n\"",
            ] {
                bodies.push(format!(r#"{{"pid":1,{rest},"{field}":{value}}}"#));
            }
            bodies.push(format!(r#"{{"pid":1,{}}}"#, rest.replace(field, "other")));
        }
        bodies.push(deep);
        let inner = format!(r#"{{"pid":7,{rest}}}"#);
        let token = "$serde_json::private::RawValue";
        bodies.push(format!(r#"{{"{token}":{}}}"#, Value::from(inner.clone())));
        bodies.push(format!(r#"{{"{token}":{},"b":1}}"#, Value::from(inner)));
        bodies.push(format!(r#"{{"{token}":"{{\"pid\":"}}"#));
        bodies.push(format!(r#"{{"{token}":"[1]"}}"#));
        bodies.push(format!(r#"{{"a":1,"{token}":"[1]"}}"#));
        for body in &bodies {
            assert_eq!(LockFile::parse(body), through_value(body), "{body}");
        }
    }

    /// The one difference from `Value`: serde_json's raw-value token with a value that is not
    /// a string is refused just the same, but the error's column is the object's end, not the
    /// value's (the value is read whole before it is refused, so that no "expected a string"
    /// error, and the float formatting behind serde's messages, is linked).
    #[test]
    fn a_raw_value_token_without_a_string_is_refused() {
        let token = "$serde_json::private::RawValue";
        for value in ["1", "-1.5", "null", "true", "[1]", "{}"] {
            let body = format!(r#"{{"{token}":{value}}}"#);
            assert!(
                matches!(through_value(&body), Err(LockFileError::InvalidJson { .. })),
                "{body}"
            );
            assert_eq!(
                LockFile::parse(&body),
                Err(LockFileError::InvalidJson {
                    line: 1,
                    column: body.len()
                }),
                "{body}"
            );
        }
    }
}
