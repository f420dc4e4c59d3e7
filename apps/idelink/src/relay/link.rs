//! The page link's messages, sans IO. The relay parses nothing of the IDE protocol: claude's
//! bytes ride as binary messages, tagged with the claude connection they belong to.
//!
//! - Binary, both ways: a 4-byte big-endian connection id, then raw bytes of that claude
//!   connection (relay → page: read from claude; page → relay: to write to claude).
//! - Text, page → relay (JSON, tagged by `type`): first, and only first, `hello {secret,
//!   resume}`: the link secret from the URL fragment, and the resume token this tab was given
//!   before (or null). Then `close {conn}` (write what was sent before it, then close that
//!   claude connection), `list {id}` (the workspace's files), `read {id, path}` (one file's
//!   text), and for the page's turn ledger `content {id, path}` (what a file holds, as the
//!   ledger takes it) and `write {id, path, expected, text}` (an undo's compare-and-write);
//!   `id` is the page's number for the request, echoed in its answer.
//! - Text, relay → page: `welcome {claudePort, authToken, workspace, ideName, resume}` once the
//!   hello was accepted (the only way the page learns the claude token; `resume` lets this tab
//!   link again after a reload); `open {conn}` when claude connects; `closed {conn}` when its
//!   connection ended; `files {id, files, truncated}`, `file {id, path, text}`, `content {id,
//!   path, content}` and `written {id, path, content, conflict}` answering the page; `error {id, message}` (`id` null when it answers no request).
//!
//! The whole protocol, with its close codes: docs/relay.md.

use idelink_core::ledger::FileContent;
use serde::{Deserialize, Deserializer, Serialize};

/// A message for the page.
#[derive(Debug, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToPage<'a> {
    /// The link is up: how the page's engine must be configured.
    Welcome {
        /// The port claude connects to (the engine checks `Host` against it).
        claude_port: u16,
        /// The token in the lock file (the engine checks it).
        auth_token: &'a str,
        /// The workspace folder (absolute, forward slashes).
        workspace: &'a str,
        /// The name claude shows.
        ide_name: &'a str,
        /// Presented in a later hello from this tab (a reload), it takes the link over.
        resume: &'a str,
    },
    /// claude opened connection `conn`.
    Open {
        /// The connection id.
        conn: u32,
    },
    /// claude's connection `conn` ended.
    Closed {
        /// The connection id.
        conn: u32,
    },
    /// The workspace's files, relative to the workspace folder.
    Files {
        /// The request answered.
        id: u64,
        /// Relative paths, forward slashes, sorted.
        files: &'a [String],
        /// More files exist than were listed.
        truncated: bool,
    },
    /// A file's text.
    File {
        /// The request answered.
        id: u64,
        /// Its absolute path, forward slashes.
        path: &'a str,
        /// Its contents.
        text: &'a str,
    },
    /// What a file holds, as the turn ledger takes it.
    Content {
        /// The request answered.
        id: u64,
        /// Its absolute path, forward slashes.
        path: &'a str,
        /// Its content (`{kind: "text", text}`, `{kind: "missing"}`, ...).
        content: &'a FileContent,
    },
    /// An undo's compare-and-write was carried out, or refused.
    Written {
        /// The request answered.
        id: u64,
        /// Its absolute path, forward slashes.
        path: &'a str,
        /// What the file holds afterwards.
        content: &'a FileContent,
        /// Why nothing was written (the file no longer held `expected`, or the write failed);
        /// null when it was.
        conflict: Option<&'a str>,
    },
    /// A request from the page failed, or (`id` None) the relay reports a problem.
    Error {
        /// The request answered; None when the error answers none.
        id: Option<u64>,
        /// What went wrong, for the user.
        message: &'a str,
    },
}

impl ToPage<'_> {
    /// The JSON text of the message.
    pub fn to_json(&self) -> String {
        // Serializing these plain structs cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A text message from the page.
#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FromPage {
    /// The first message: the page's credentials.
    Hello {
        /// The link secret, from the URL fragment.
        secret: String,
        /// The resume token the relay gave this tab, if it linked before.
        resume: Option<String>,
    },
    /// Close claude connection `conn` once what was sent before is written.
    Close {
        /// The connection id.
        conn: u32,
    },
    /// List the workspace's files.
    List {
        /// The page's number for the request.
        id: u64,
    },
    /// Read one file (absolute, or relative to the workspace).
    Read {
        /// The page's number for the request.
        id: u64,
        /// The file.
        path: String,
    },
    /// What a file holds now, for the turn ledger (absolute, or relative to the workspace).
    Content {
        /// The page's number for the request.
        id: u64,
        /// The file.
        path: String,
    },
    /// An undo's write: `text` (null: delete the file) only while the file holds `expected`.
    Write {
        /// The page's number for the request.
        id: u64,
        /// The file.
        path: String,
        /// What the file must hold now.
        expected: FileContent,
        /// What to write; null deletes the file. Required: a message without it is refused,
        /// never read as a delete.
        #[serde(deserialize_with = "required_option")]
        text: Option<String>,
    },
}

/// An `Option` field that must be present (`null` or a value): serde reads a missing
/// `Option` as `None` unless the field has its own deserializer.
fn required_option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::deserialize(d)
}

/// The `id` of a text message the relay could not parse as a request, when it has one, so
/// that the error still answers it.
pub fn request_id(text: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    value.get("id")?.as_u64()
}

/// A binary message carrying `bytes` of claude connection `conn`.
pub fn data_message(conn: u32, bytes: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&conn.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// Splits a binary message from the page into its connection id and bytes; None when it is
/// shorter than the id.
pub fn split_data(message: &[u8]) -> Option<(u32, &[u8])> {
    let (id, bytes) = message.split_first_chunk::<4>()?;
    Some((u32::from_be_bytes(*id), bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_messages_round_trip() {
        let mut out = Vec::new();
        data_message(258, b"GET /", &mut out);
        assert_eq!(&out[..4], &[0, 0, 1, 2]);
        assert_eq!(split_data(&out), Some((258, &b"GET /"[..])));
        assert_eq!(split_data(&[0, 0, 1]), None);
        assert_eq!(split_data(&[0, 0, 0, 7]), Some((7, &b""[..])));
    }

    #[test]
    fn page_messages_parse_and_unknown_ones_are_refused() {
        let parse = |s: &str| serde_json::from_str::<FromPage>(s);
        assert_eq!(
            parse(r#"{"type":"close","conn":3}"#).unwrap(),
            FromPage::Close { conn: 3 }
        );
        assert_eq!(
            parse(r#"{"type":"list","id":1}"#).unwrap(),
            FromPage::List { id: 1 }
        );
        assert_eq!(
            parse(r#"{"type":"read","id":2,"path":"a.rs"}"#).unwrap(),
            FromPage::Read {
                id: 2,
                path: "a.rs".into()
            }
        );
        assert_eq!(
            parse(r#"{"type":"hello","secret":"s","resume":null}"#).unwrap(),
            FromPage::Hello {
                secret: "s".into(),
                resume: None
            }
        );
        assert_eq!(
            parse(r#"{"type":"content","id":3,"path":"/w/a"}"#).unwrap(),
            FromPage::Content {
                id: 3,
                path: "/w/a".into()
            }
        );
        let write =
            r#"{"type":"write","id":4,"path":"a","expected":{"kind":"missing"},"text":null}"#;
        assert_eq!(
            parse(write).unwrap(),
            FromPage::Write {
                id: 4,
                path: "a".into(),
                expected: FileContent::Missing,
                text: None
            }
        );
        let no_text = r#"{"type":"write","id":5,"path":"a","expected":{"kind":"missing"}}"#;
        assert!(parse(no_text).is_err(), "a write without text is no delete");
        assert_eq!(request_id(r#"{"type":"format","id":9}"#), Some(9));
        assert_eq!(request_id(r#"{"type":"list"}"#), None);
        assert_eq!(request_id("not json"), None);
        assert!(parse(r#"{"type":"format","disk":"c"}"#).is_err());
        assert!(parse(r#"{"type":"close","conn":-1}"#).is_err());
    }

    #[test]
    fn messages_for_the_page_are_camel_case_json() {
        let welcome = ToPage::Welcome {
            claude_port: 4000,
            auth_token: "t",
            workspace: "/w",
            ide_name: "n",
            resume: "r",
        };
        assert_eq!(
            welcome.to_json(),
            r#"{"type":"welcome","claudePort":4000,"authToken":"t","workspace":"/w","ideName":"n","resume":"r"}"#
        );
        let error = ToPage::Error {
            id: Some(7),
            message: "m",
        };
        assert_eq!(error.to_json(), r#"{"type":"error","id":7,"message":"m"}"#);
        let written = ToPage::Written {
            id: 8,
            path: "/w/a",
            content: &FileContent::Text { text: "x".into() },
            conflict: None,
        };
        assert_eq!(
            written.to_json(),
            r#"{"type":"written","id":8,"path":"/w/a","content":{"kind":"text","text":"x"},"conflict":null}"#
        );
        assert_eq!(
            ToPage::Open { conn: 1 }.to_json(),
            r#"{"type":"open","conn":1}"#
        );
    }
}
