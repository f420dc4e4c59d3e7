//! The page link's messages, sans IO. The relay parses nothing of the IDE protocol: claude's
//! bytes ride as binary messages, tagged with the claude connection they belong to.
//!
//! - Binary, both ways: a 4-byte big-endian connection id, then raw bytes of that claude
//!   connection (relay → page: read from claude; page → relay: to write to claude).
//! - Text, relay → page (JSON, tagged by `type`): `welcome {claudePort, authToken, workspace,
//!   ideName}` once the link is up (the only way the page learns the claude token); `open
//!   {conn}` when claude connects; `closed {conn}` when its connection ended; `files {files,
//!   truncated}` and `file {path, text}` answering the page; `error {message}`.
//! - Text, page → relay: `close {conn}` (write what was sent before it, then close that claude
//!   connection), `list {}` (the workspace's files), `read {path}` (one file's text).

use serde::{Deserialize, Serialize};

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
        /// Relative paths, forward slashes, sorted.
        files: &'a [String],
        /// More files exist than were listed.
        truncated: bool,
    },
    /// A file's text.
    File {
        /// Its absolute path, forward slashes.
        path: &'a str,
        /// Its contents.
        text: &'a str,
    },
    /// A request from the page failed.
    Error {
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
    /// Close claude connection `conn` once what was sent before is written.
    Close {
        /// The connection id.
        conn: u32,
    },
    /// List the workspace's files.
    List,
    /// Read one file (absolute, or relative to the workspace).
    Read {
        /// The file.
        path: String,
    },
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
        assert_eq!(parse(r#"{"type":"list"}"#).unwrap(), FromPage::List);
        assert_eq!(
            parse(r#"{"type":"read","path":"a.rs"}"#).unwrap(),
            FromPage::Read {
                path: "a.rs".into()
            }
        );
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
        };
        assert_eq!(
            welcome.to_json(),
            r#"{"type":"welcome","claudePort":4000,"authToken":"t","workspace":"/w","ideName":"n"}"#
        );
        assert_eq!(
            ToPage::Open { conn: 1 }.to_json(),
            r#"{"type":"open","conn":1}"#
        );
    }
}
