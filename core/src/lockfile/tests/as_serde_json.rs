//! `LockFile::parse` against serde_json, its oracle: every lock body, whole or broken, reads
//! exactly as through a `serde_json::Value` (the same lock, or the same error at the same
//! line and column).

use crate::lockfile::{LockFile, LockFileError};
use proptest::prelude::*;
use serde_json::Value;

/// The lock body read as a `serde_json::Value`, the way `LockFile::parse` read it before
/// core read JSON itself: each outcome must stay the same.
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
const BODY: &str =
    r#"{"pid":42,"workspaceFolders":["/a","/b"],"ideName":"N","transport":"ws","authToken":"t"}"#;

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
