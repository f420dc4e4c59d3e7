//! The JSON a lock body is read as: what `serde_json::Value` keeps, minus what [`super::LockFile::parse`]
//! never looks at (floats, negative numbers and `null` are all [`Loose::Other`]), with objects as
//! lists of members instead of maps.
//!
//! The text is read here, not by serde_json (whose deserializer would be the wasm module's only
//! use of it), but with serde_json 1.x's rules step for step, as `serde_json::from_str::<Value>`
//! reads it: the same grammar (RFC 8259, no trailing commas, no leading zeros), the same number
//! range (`crate::json::in_range`: `1e400` is refused), the same string rules (no raw control
//! characters, no unpaired surrogate escape), the same nesting limit (the 128th open bracket is
//! refused) and the same error positions (its line and column: the byte after which it
//! stopped). One serde_json quirk is kept so that no lock reads differently than it did: an
//! object whose first name is serde_json's raw-value token is read as the JSON text of that
//! member's string. The tests hold this to serde_json's own reading.

use std::borrow::Cow;

use super::LockFileError;

/// serde_json's key for an object that stands for a raw value (its `raw_value` feature):
/// `Value` reads such an object as the JSON text of its string member, and so does [`Loose`].
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The open arrays and objects serde_json reads at most, plus one: its recursion limit refuses
/// the 128th open bracket (a bound on the reader's recursion too).
const NESTING_LIMIT: u8 = 128;

/// One JSON value of a lock body.
#[derive(Debug, PartialEq, Eq)]
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

    /// Reads `text`, one JSON value with whitespace around it; [`LockFileError::InvalidJson`]
    /// with serde_json's line and column when it is not one.
    pub(crate) fn read(text: &str) -> Result<Loose, LockFileError> {
        let mut reader = LooseReader {
            text,
            bytes: text.as_bytes(),
            at: 0,
            depth_left: NESTING_LIMIT,
        };
        let value = reader.value()?;
        match reader.whitespace() {
            None => Ok(value),
            Some(_) => Err(reader.peek_error()),
        }
    }
}

/// Why an object was refused: a syntax error with its position, or (serde_json's "custom"
/// error) a raw-value token whose value is not a string, placed where the object ends.
enum Refused {
    Syntax(LockFileError),
    RawNotAString,
}

impl From<LockFileError> for Refused {
    fn from(error: LockFileError) -> Refused {
        Refused::Syntax(error)
    }
}

/// serde_json's `Deserializer` over a `&str`, cut down to `deserialize_any`.
struct LooseReader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The next byte to read (serde_json's `index`).
    at: usize,
    depth_left: u8,
}

impl LooseReader<'_> {
    /// serde_json's position of byte index `index`: the 1-based line, and the bytes from the
    /// line's start to `index` as the column.
    fn error_at(&self, index: usize) -> LockFileError {
        let before = &self.bytes[..index.min(self.bytes.len())];
        let start_of_line = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
        LockFileError::InvalidJson {
            line: 1 + memchr::memchr_iter(b'\n', &before[..start_of_line]).count(),
            column: before.len() - start_of_line,
        }
    }

    /// serde_json's `error`: placed at the last byte read.
    fn error(&self) -> LockFileError {
        self.error_at(self.at)
    }

    /// serde_json's `peek_error`: placed at the byte looked at, not yet read.
    fn peek_error(&self) -> LockFileError {
        self.error_at(self.at + 1)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_digit(&self) -> Option<u8> {
        self.peek().filter(u8::is_ascii_digit)
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    /// Skips RFC 8259 §2's whitespace and peeks at the byte after it.
    fn whitespace(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
        self.peek()
    }

    fn value(&mut self) -> Result<Loose, LockFileError> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error());
        };
        match peek {
            b'n' => self.ident(b"null", Loose::Other),
            b't' => self.ident(b"true", Loose::Bool(true)),
            b'f' => self.ident(b"false", Loose::Bool(false)),
            b'-' | b'0'..=b'9' => self.number(),
            b'"' => self.string().map(Loose::Str),
            b'[' | b'{' => {
                self.depth_left -= 1;
                if self.depth_left == 0 {
                    return Err(self.peek_error());
                }
                self.at += 1;
                let value = if peek == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth_left += 1;
                value
            }
            _ => Err(self.peek_error()),
        }
    }

    /// A literal name (RFC 8259 §3), its first byte peeked at.
    fn ident(&mut self, word: &[u8], value: Loose) -> Result<Loose, LockFileError> {
        self.at += 1;
        for &expected in &word[1..] {
            if self.next() != Some(expected) {
                return Err(self.error());
            }
        }
        Ok(value)
    }

    /// A number (RFC 8259 §6), read as serde_json reads it: an integer that fits a `u64` as
    /// one, any other refused when its value would be an infinite `f64`.
    fn number(&mut self) -> Result<Loose, LockFileError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.next() {
            Some(b'0') if self.peek_digit().is_some() => return Err(self.peek_error()),
            Some(b'0'..=b'9') => self.digits(),
            _ => return Err(self.error()),
        }
        let mut whole = true;
        if self.peek() == Some(b'.') {
            whole = false;
            self.at += 1;
            if self.peek_digit().is_none() {
                return Err(self.peek_error());
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            whole = false;
            self.at += 1;
            let positive_exponent = self.peek() != Some(b'-');
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            let Some(digit @ b'0'..=b'9') = self.next() else {
                return Err(self.error());
            };
            let mut exponent = i32::from(digit - b'0');
            while let Some(digit) = self.peek_digit() {
                self.at += 1;
                let Some(more) = exponent
                    .checked_mul(10)
                    .and_then(|more| more.checked_add(i32::from(digit - b'0')))
                else {
                    // serde_json gives up at the digit that overflows an `i32`: infinite
                    // unless the value is zero or tiny, zero then.
                    if positive_exponent && !zero_significand(&self.bytes[start..self.at]) {
                        return Err(self.error());
                    }
                    self.digits();
                    return Ok(Loose::Other);
                };
                exponent = more;
            }
        }
        let raw = self.text.get(start..self.at).unwrap_or_default();
        match raw.parse() {
            Ok(unsigned) if whole => Ok(Loose::Unsigned(unsigned)),
            _ if crate::json::in_range(raw) => Ok(Loose::Other),
            _ => Err(self.error()),
        }
    }

    fn digits(&mut self) {
        while self.peek_digit().is_some() {
            self.at += 1;
        }
    }

    /// A string (RFC 8259 §7), its opening quote peeked at: checked here byte by byte for
    /// serde_json's error positions, decoded by the crate's one decoder.
    fn string(&mut self) -> Result<String, LockFileError> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.next() {
                None => return Err(self.error()),
                Some(b'"') => break,
                Some(b'\\') => self.escape()?,
                Some(0..0x20) => return Err(self.error()),
                Some(_) => {}
            }
        }
        match self.text.get(start..self.at).map(crate::json::decode) {
            Some(Ok(text)) => Ok(Cow::into_owned(text)),
            _ => Err(self.error()),
        }
    }

    /// The escape after a backslash.
    fn escape(&mut self) -> Result<(), LockFileError> {
        match self.next() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(()),
            Some(b'u') => {
                let unit = self.hex()?;
                if (0xDC00..=0xDFFF).contains(&unit) {
                    return Err(self.error());
                }
                if !(0xD800..=0xDBFF).contains(&unit) {
                    return Ok(());
                }
                // A high surrogate: `\u` and a low one must follow.
                for expected in [b'\\', b'u'] {
                    let Some(next) = self.next() else {
                        return Err(self.error());
                    };
                    if next != expected {
                        return Err(self.error());
                    }
                }
                if (0xDC00..=0xDFFF).contains(&self.hex()?) {
                    Ok(())
                } else {
                    Err(self.error())
                }
            }
            _ => Err(self.error()),
        }
    }

    /// The four hex digits of a `\u` escape, as a UTF-16 code unit.
    fn hex(&mut self) -> Result<u32, LockFileError> {
        let Some(digits) = self.bytes.get(self.at..self.at + 4) else {
            self.at = self.bytes.len();
            return Err(self.error());
        };
        self.at += 4;
        digits.iter().try_fold(0, |unit, &digit| {
            let value = char::from(digit).to_digit(16).ok_or_else(|| self.error())?;
            Ok(unit << 4 | value)
        })
    }

    /// An array's elements, its `[` read; reads its `]`.
    fn array(&mut self) -> Result<Loose, LockFileError> {
        let mut items = Vec::new();
        loop {
            match self.whitespace() {
                Some(b']') => {
                    self.at += 1;
                    return Ok(Loose::Array(items));
                }
                Some(b',') if !items.is_empty() => {
                    self.at += 1;
                    if let None | Some(b']') = self.whitespace() {
                        return Err(self.peek_error());
                    }
                }
                Some(_) if items.is_empty() => {}
                _ => return Err(self.peek_error()),
            }
            items.push(self.value()?);
        }
    }

    /// An object's members, its `{` read; reads its `}`. A raw-value token refused for a
    /// value that is not a string is placed after the object, as serde_json places it.
    fn object(&mut self) -> Result<Loose, LockFileError> {
        match self.members() {
            Ok(object) => Ok(object),
            Err(Refused::Syntax(error)) => Err(error),
            Err(Refused::RawNotAString) => {
                if self.whitespace() == Some(b'}') {
                    self.at += 1;
                }
                Err(self.error())
            }
        }
    }

    fn members(&mut self) -> Result<Loose, Refused> {
        let mut members = Vec::new();
        loop {
            match self.whitespace() {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Loose::Object(members));
                }
                Some(b',') if !members.is_empty() => {
                    self.at += 1;
                    self.whitespace();
                }
                Some(_) if members.is_empty() => {}
                _ => return Err(self.peek_error().into()),
            }
            if self.peek() != Some(b'"') {
                return Err(self.peek_error().into());
            }
            let name = self.string()?;
            if self.whitespace() != Some(b':') {
                return Err(self.peek_error().into());
            }
            self.at += 1;
            if members.is_empty() && name == RAW_VALUE_TOKEN {
                return self.raw_value();
            }
            members.push((name, self.value()?));
        }
    }

    /// serde_json's raw-value object, its token and colon read: the value of its string,
    /// read afresh (an error in it is placed in that text), then the object's `}`.
    fn raw_value(&mut self) -> Result<Loose, Refused> {
        let Loose::Str(text) = self.value()? else {
            return Err(Refused::RawNotAString);
        };
        let value = Loose::read(&text)?;
        if self.whitespace() != Some(b'}') {
            return Err(self.peek_error().into());
        }
        self.at += 1;
        Ok(value)
    }
}

/// Whether the digits of `raw` (a number up to its exponent's digits) are all zeros: the
/// significand serde_json keeps is zero exactly then.
fn zero_significand(raw: &[u8]) -> bool {
    raw.iter()
        .take_while(|&&byte| !matches!(byte, b'e' | b'E'))
        .all(|&byte| matches!(byte, b'0' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::super::{LockFile, LockFileError};
    use proptest::prelude::*;
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

    /// The one difference from `Value`, kept from the serde_json-based reader this replaced:
    /// serde_json's raw-value token with a value that is not a string is refused just the
    /// same, but the error's column is the object's end, not the value's (the value is read
    /// whole before it is refused).
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

    /// Pieces of JSON, whole and broken, that the property test strings together: every
    /// place where serde_json's reading can stop (numbers at its range and overflow edges,
    /// escapes and surrogates, literals, brackets, whitespace and line breaks).
    const PIECES: [&str; 44] = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\r\n",
        "\t",
        "\"",
        "\\",
        "\"pid\"",
        "\"ideName\"",
        "\"authToken\"",
        "\"workspaceFolders\"",
        "\"transport\"",
        "\"runningInWindows\"",
        "\"ws\"",
        "\"/a\"",
        "1",
        "-",
        "0",
        "01",
        ".",
        "e",
        "E+",
        "1e400",
        "-1e999999999999",
        "0e99999999999",
        "18446744073709551616",
        "4294967296",
        "1.5",
        "true",
        "tru",
        "null",
        "nul",
        "\\u",
        "d800",
        "\\udc00",
        "\\ud83d\\ude00",
        "\\n",
        "\u{1}",
        "é",
    ];

    /// A valid lock body.
    const BODY: &str = r#"{"pid":42,"workspaceFolders":["/a","/b"],"ideName":"N","transport":"ws","authToken":"t"}"#;

    proptest! {
        /// Random texts of JSON pieces read exactly as through a `serde_json::Value`:
        /// the same lock, or the same error at the same line and column.
        #[test]
        fn random_pieces_read_as_serde_json_reads_them(
            picks in proptest::collection::vec(0..PIECES.len(), 0..40),
        ) {
            let body: String = picks.iter().map(|&at| PIECES[at]).collect();
            prop_assert_eq!(LockFile::parse(&body), through_value(&body), "{}", body);
        }

        /// A valid body with one piece put in, or a run of bytes cut, anywhere.
        #[test]
        fn a_body_broken_anywhere_reads_as_serde_json_reads_it(
            at in 0..BODY.len(),
            cut in 0usize..4,
            piece in 0..PIECES.len(),
        ) {
            let end = (at + cut).min(BODY.len());
            let body = format!("{}{}{}", &BODY[..at], PIECES[piece], &BODY[end..]);
            prop_assert_eq!(LockFile::parse(&body), through_value(&body), "{}", body);
        }
    }
}
