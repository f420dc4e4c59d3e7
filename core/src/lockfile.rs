//! The lock file that lets the CLI discover a server (docs/protocol.md §1): its name and its JSON
//! body. No file system here; the host writes, reads and deletes the files.

use std::borrow::Cow;
use std::fmt;

use crate::ide::{PathStyle, normalize_path};
use crate::json;

/// The largest lock file a host reads: a lock body is a few hundred bytes, so anything larger
/// in the lock folder is not a lock (and a reader must not load whatever file sits there).
pub const MAX_LOCK_BYTES: u64 = 64 << 10;

/// The body of `<port>.lock` in the CLI's `ide/` directory.
///
/// `Debug` prints the token as `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct LockFile {
    /// A process that stays alive for as long as the server runs (the editor or the bridge):
    /// the CLI deletes locks whose `pid` is not alive.
    pub pid: u32,
    /// Absolute paths; the CLI auto-connects when its cwd equals or lies under exactly one.
    pub workspace_folders: Vec<String>,
    /// Free text shown as "Connected to `<ideName>` extension".
    pub ide_name: String,
    /// The secret the client must present (see [`crate::token::AuthToken`]).
    pub auth_token: String,
    /// Set only for a Windows editor serving a CLI that runs in WSL.
    pub running_in_windows: bool,
}

impl LockFile {
    /// The lock body: compact JSON with keys in the order `pid`, `workspaceFolders`, `ideName`,
    /// `transport` (always `"ws"`), `runningInWindows` (only when true), `authToken`.
    ///
    /// Each folder is written as the CLI must see it (docs/protocol.md §6): a folder spelled as
    /// an absolute Windows path gets forward slashes and an upper-case drive (`c:\game` →
    /// `C:/game`, `\\srv\share` → `//srv/share`), whichever host built the lock; any other
    /// folder (every absolute POSIX path) is written byte for byte. Folders are absolute, so
    /// this form rule is the whole Windows rule for them.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(b"{\"pid\":");
        crate::json::push_u64(&mut out, self.pid.into());
        out.extend_from_slice(b",\"workspaceFolders\":[");
        for (at, folder) in self.workspace_folders.iter().enumerate() {
            if at > 0 {
                out.push(b',');
            }
            crate::json::push_string(&mut out, &normalize_path(folder, PathStyle::Posix));
        }
        out.extend_from_slice(b"],\"ideName\":");
        crate::json::push_string(&mut out, &self.ide_name);
        // docs/protocol.md §1: transport MUST be "ws"; anything else selects legacy SSE.
        out.extend_from_slice(b",\"transport\":\"ws\"");
        if self.running_in_windows {
            out.extend_from_slice(b",\"runningInWindows\":true");
        }
        out.extend_from_slice(b",\"authToken\":");
        crate::json::push_string(&mut out, &self.auth_token);
        out.push(b'}');
        // Escaping cuts and joins only at ASCII bytes: the text stays UTF-8, nothing is lost.
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Reads a lock body, ours or another IDE's: unknown fields are ignored. `pid` (a u32),
    /// `workspaceFolders` (strings), `ideName` and `authToken` are required; `transport`, when
    /// present, must be `"ws"`; `runningInWindows`, when present, must be a boolean.
    ///
    /// The body is read as serde_json 1.x reads it into a `serde_json::Value` (as this did
    /// before core had its own reader; now core's one JSON reader checks it): the same texts are
    /// refused, at the same line and column.
    pub fn parse(text: &str) -> Result<LockFile, LockFileError> {
        json::check_value(text).map_err(|at| LockFileError::InvalidJson {
            line: at.line,
            column: at.column,
        })?;
        let object = json::unwrapped(text);
        if !object.starts_with('{') {
            return Err(LockFileError::NotAnObject);
        }

        let pid = json::unsigned(&required(&object, "pid")?)
            .and_then(|pid| u32::try_from(pid).ok())
            .ok_or(LockFileError::PidNotU32)?;

        let folders = required(&object, "workspaceFolders")?;
        let folders = folders
            .starts_with('[')
            .then(|| {
                json::elements(&folders)
                    .map(|folder| json::text(&json::unwrapped(folder)).map(Cow::into_owned))
                    .collect::<Option<Vec<String>>>()
            })
            .flatten()
            .ok_or(LockFileError::WrongType {
                field: "workspaceFolders",
                expected: "an array of strings",
            })?;

        let ide_name = required_str(&object, "ideName")?;
        let auth_token = required_str(&object, "authToken")?;

        if let Some(transport) = json::field(&object, "transport")
            && json::text(&transport).as_deref() != Some("ws")
        {
            return Err(LockFileError::TransportNotWs);
        }

        let running_in_windows = match json::field(&object, "runningInWindows").as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(_) => {
                return Err(LockFileError::WrongType {
                    field: "runningInWindows",
                    expected: "a boolean",
                });
            }
        };

        Ok(LockFile {
            pid,
            workspace_folders: folders,
            ide_name,
            auth_token,
            running_in_windows,
        })
    }

    /// The lock's file name for a server on `port`: `"<port>.lock"`.
    pub fn file_name(port: u16) -> String {
        format!("{port}.lock")
    }

    /// The port a lock file name stands for: the inverse of [`LockFile::file_name`]. `None` for
    /// anything `file_name` would not produce (other names, leading zeros, signs, port 0,
    /// numbers above 65535).
    pub fn port_from_file_name(name: &str) -> Option<u16> {
        let digits = name.strip_suffix(".lock")?;
        let port: u16 = digits.parse().ok()?;
        (port != 0 && LockFile::file_name(port) == name).then_some(port)
    }
}

/// The value of `field` of `object`, which it must have.
fn required<'a>(object: &'a str, field: &'static str) -> Result<Cow<'a, str>, LockFileError> {
    json::field(object, field).ok_or(LockFileError::MissingField { field })
}

/// The text of string `field` of `object`, which it must have.
fn required_str(object: &str, field: &'static str) -> Result<String, LockFileError> {
    json::text(&required(object, field)?)
        .map(Cow::into_owned)
        .ok_or(LockFileError::WrongType {
            field,
            expected: "a string",
        })
}

impl fmt::Debug for LockFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockFile")
            .field("pid", &self.pid)
            .field("workspace_folders", &self.workspace_folders)
            .field("ide_name", &self.ide_name)
            .field("auth_token", &format_args!("<redacted>"))
            .field("running_in_windows", &self.running_in_windows)
            .finish()
    }
}

/// Why [`LockFile::parse`] refused a lock body. No variant carries field values, so an error
/// never leaks the token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockFileError {
    /// The text is not JSON.
    InvalidJson {
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
    },
    /// The JSON is not an object.
    NotAnObject,
    /// A required field is absent.
    MissingField {
        /// The field's JSON name.
        field: &'static str,
    },
    /// A field has the wrong JSON type.
    WrongType {
        /// The field's JSON name.
        field: &'static str,
        /// What the field must be, e.g. "a string".
        expected: &'static str,
    },
    /// `pid` is not an integer from 0 to 4294967295.
    PidNotU32,
    /// `transport` is present and not `"ws"` (docs/protocol.md §1: anything else is legacy SSE).
    TransportNotWs,
}

impl fmt::Display for LockFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockFileError::InvalidJson { line, column } => {
                write!(f, "lock file is not json (line {line}, column {column})")
            }
            LockFileError::NotAnObject => f.write_str("lock file is not a json object"),
            LockFileError::MissingField { field } => {
                write!(f, "lock file has no {field} field")
            }
            LockFileError::WrongType { field, expected } => {
                write!(f, "lock file field {field} must be {expected}")
            }
            LockFileError::PidNotU32 => {
                f.write_str("lock file field pid must be an integer from 0 to 4294967295")
            }
            LockFileError::TransportNotWs => {
                f.write_str("lock file field transport must be \"ws\"")
            }
        }
    }
}

impl std::error::Error for LockFileError {}

#[cfg(test)]
mod tests {
    use super::*;

    mod as_serde_json;

    fn ours() -> LockFile {
        LockFile {
            pid: 4242,
            workspace_folders: vec!["/home/u/proj".to_owned(), "/tmp/a \"b\"\\c".to_owned()],
            ide_name: "Nova ✻".to_owned(),
            auth_token: "00112233445566778899aabbccddeeff".to_owned(),
            running_in_windows: false,
        }
    }

    #[test]
    fn to_json_is_byte_exact_in_key_order() {
        assert_eq!(
            ours().to_json(),
            r#"{"pid":4242,"workspaceFolders":["/home/u/proj","/tmp/a \"b\"\\c"],"ideName":"Nova ✻","transport":"ws","authToken":"00112233445566778899aabbccddeeff"}"#
        );
        let wsl = LockFile {
            running_in_windows: true,
            workspace_folders: Vec::new(),
            ..ours()
        };
        assert_eq!(
            wsl.to_json(),
            r#"{"pid":4242,"workspaceFolders":[],"ideName":"Nova ✻","transport":"ws","runningInWindows":true,"authToken":"00112233445566778899aabbccddeeff"}"#
        );
    }

    #[test]
    fn windows_folders_are_written_with_forward_slashes_and_posix_ones_byte_for_byte() {
        let lock = LockFile {
            workspace_folders: vec![
                r"C:\game".to_owned(),
                r"d:\art\raw".to_owned(),
                r"\\srv\share\proj".to_owned(),
                r"/home/u/a\b".to_owned(),
            ],
            ..ours()
        };
        assert_eq!(
            lock.to_json(),
            r#"{"pid":4242,"workspaceFolders":["C:/game","D:/art/raw","//srv/share/proj","/home/u/a\\b"],"ideName":"Nova ✻","transport":"ws","authToken":"00112233445566778899aabbccddeeff"}"#
        );
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let odd = "\u{1}\u{1f}\u{7f}\n\t\r\u{8}\u{c}/\"\\é✻";
        let lock = LockFile {
            workspace_folders: vec![odd.to_owned()],
            ide_name: odd.to_owned(),
            ..ours()
        };
        let quoted = serde_json::to_string(odd).unwrap();
        let expected = format!(
            r#"{{"pid":4242,"workspaceFolders":[{quoted}],"ideName":{quoted},"transport":"ws","authToken":"00112233445566778899aabbccddeeff"}}"#
        );
        assert_eq!(lock.to_json(), expected);
        assert_eq!(LockFile::parse(&lock.to_json()), Ok(lock));
    }

    #[test]
    fn round_trips() {
        for lock in [
            ours(),
            LockFile {
                running_in_windows: true,
                ..ours()
            },
        ] {
            assert_eq!(LockFile::parse(&lock.to_json()), Ok(lock));
        }
    }

    #[test]
    fn parses_a_vs_code_style_lock_with_extra_fields() {
        let text = r#"{
            "pid": 12345,
            "workspaceFolders": ["/Users/me/project"],
            "ideName": "Visual Studio Code",
            "transport": "ws",
            "runningInWindows": false,
            "authToken": "0f8fad5b-d9cb-469f-a165-70867728950e",
            "ideVersion": "1.99.0",
            "extensionVersion": {"major": 2},
            "port": 54321
        }"#;
        assert_eq!(
            LockFile::parse(text),
            Ok(LockFile {
                pid: 12345,
                workspace_folders: vec!["/Users/me/project".to_owned()],
                ide_name: "Visual Studio Code".to_owned(),
                auth_token: "0f8fad5b-d9cb-469f-a165-70867728950e".to_owned(),
                running_in_windows: false,
            })
        );
        let no_transport = r#"{"pid":1,"workspaceFolders":[],"ideName":"x","authToken":"t"}"#;
        assert_eq!(LockFile::parse(no_transport).map(|l| l.pid), Ok(1));
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let cases: [(&str, LockFileError, &str); 12] = [
            (
                "{\"pid\": }",
                LockFileError::InvalidJson { line: 1, column: 9 },
                "lock file is not json (line 1, column 9)",
            ),
            (
                "[]",
                LockFileError::NotAnObject,
                "lock file is not a json object",
            ),
            (
                r#"{"workspaceFolders":[],"ideName":"x","authToken":"t"}"#,
                LockFileError::MissingField { field: "pid" },
                "lock file has no pid field",
            ),
            (
                r#"{"pid":-1,"workspaceFolders":[],"ideName":"x","authToken":"t"}"#,
                LockFileError::PidNotU32,
                "lock file field pid must be an integer from 0 to 4294967295",
            ),
            (
                r#"{"pid":4294967296,"workspaceFolders":[],"ideName":"x","authToken":"t"}"#,
                LockFileError::PidNotU32,
                "lock file field pid must be an integer from 0 to 4294967295",
            ),
            (
                r#"{"pid":"1","workspaceFolders":[],"ideName":"x","authToken":"t"}"#,
                LockFileError::PidNotU32,
                "lock file field pid must be an integer from 0 to 4294967295",
            ),
            (
                r#"{"pid":1,"workspaceFolders":"/a","ideName":"x","authToken":"t"}"#,
                LockFileError::WrongType {
                    field: "workspaceFolders",
                    expected: "an array of strings",
                },
                "lock file field workspaceFolders must be an array of strings",
            ),
            (
                r#"{"pid":1,"workspaceFolders":["/a",2],"ideName":"x","authToken":"t"}"#,
                LockFileError::WrongType {
                    field: "workspaceFolders",
                    expected: "an array of strings",
                },
                "lock file field workspaceFolders must be an array of strings",
            ),
            (
                r#"{"pid":1,"workspaceFolders":[],"authToken":"t"}"#,
                LockFileError::MissingField { field: "ideName" },
                "lock file has no ideName field",
            ),
            (
                r#"{"pid":1,"workspaceFolders":[],"ideName":"x","authToken":7}"#,
                LockFileError::WrongType {
                    field: "authToken",
                    expected: "a string",
                },
                "lock file field authToken must be a string",
            ),
            (
                r#"{"pid":1,"workspaceFolders":[],"ideName":"x","authToken":"t","transport":"sse"}"#,
                LockFileError::TransportNotWs,
                "lock file field transport must be \"ws\"",
            ),
            (
                r#"{"pid":1,"workspaceFolders":[],"ideName":"x","authToken":"t","runningInWindows":"true"}"#,
                LockFileError::WrongType {
                    field: "runningInWindows",
                    expected: "a boolean",
                },
                "lock file field runningInWindows must be a boolean",
            ),
        ];
        for (text, error, message) in cases {
            let err = LockFile::parse(text).unwrap_err();
            assert_eq!(err, error, "{text}");
            assert_eq!(err.to_string(), message);
        }
        assert_eq!(
            LockFile::parse(r#"{"pid":1,"workspaceFolders":[],"ideName":"x"}"#),
            Err(LockFileError::MissingField { field: "authToken" })
        );
    }

    #[test]
    fn debug_redacts_the_token() {
        let text = format!("{:?}", ours());
        assert!(!text.contains("00112233445566778899aabbccddeeff"));
        assert_eq!(
            text,
            r#"LockFile { pid: 4242, workspace_folders: ["/home/u/proj", "/tmp/a \"b\"\\c"], ide_name: "Nova ✻", auth_token: <redacted>, running_in_windows: false }"#
        );
    }

    #[test]
    fn file_names_and_ports() {
        assert_eq!(LockFile::file_name(41234), "41234.lock");
        assert_eq!(LockFile::port_from_file_name("41234.lock"), Some(41234));
        assert_eq!(LockFile::port_from_file_name("65535.lock"), Some(65535));
        assert_eq!(LockFile::port_from_file_name("1.lock"), Some(1));
        for name in [
            "0.lock",
            "65536.lock",
            "041234.lock",
            "+41234.lock",
            "-1.lock",
            " 1.lock",
            ".lock",
            "41234",
            "41234.lock.tmp",
            "41234.LOCK",
            "abc.lock",
            "",
        ] {
            assert_eq!(LockFile::port_from_file_name(name), None, "{name:?}");
        }
    }
}
