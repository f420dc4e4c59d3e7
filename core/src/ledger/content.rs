//! What the host reports a file holds when the ledger asks ([`FileContent`]), and how the
//! ledger keeps it within its limits.

use serde::{Deserialize, Serialize};

/// A file's content as the host read it (from the editor's buffer when the file is open
/// there, else from disk). JSON form, tagged by `"kind"`:
///
/// ```json
/// {"kind":"text","text":"fn main() {}\n"}
/// {"kind":"binary","bytes":2048,"digest":"9a0364b9e99bb480dd25e1f0284c8555"}
/// {"kind":"large","bytes":52428800,"digest":"…"}
/// {"kind":"missing"}
/// {"kind":"unread","reason":"permission denied"}
/// {"kind":"outside","reason":"/w/link resolves to /etc/passwd, outside the workspace"}
/// ```
///
/// `digest` is any text that changes when the bytes change (a hash of them); the ledger only
/// compares it. A text over the ledger's per-file limit is kept as `large` with its SHA-1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FileContent {
    /// The file is UTF-8 text: all of it.
    Text {
        /// The text.
        text: String,
    },
    /// The file is not UTF-8 text (or holds a NUL byte): only its size and digest are kept.
    Binary {
        /// Its size.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        bytes: u64,
        /// A digest of its bytes.
        digest: String,
    },
    /// The file is over the ledger's per-file limit: only its size and digest are kept.
    Large {
        /// Its size.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        bytes: u64,
        /// A digest of its bytes.
        digest: String,
    },
    /// No such file (not created yet, or deleted).
    Missing,
    /// The host could not read it, or did not answer within the ledger's deadline.
    Unread {
        /// Why.
        reason: String,
    },
    /// The host will not read it for the ledger: it lies outside the workspace once its
    /// links are resolved (a link inside pointing outside). As a baseline the file is left
    /// out of the ledger ([`TurnChange::LeftOut`](super::TurnChange::LeftOut)).
    Outside {
        /// Why, for a person.
        reason: String,
    },
}

impl FileContent {
    /// The text, when the whole text is kept.
    pub fn text(&self) -> Option<&str> {
        match self {
            FileContent::Text { text } => Some(text),
            _ => None,
        }
    }

    /// What tells this version of the file from another (`None`: not known, it was not
    /// read).
    pub(crate) fn version(&self) -> Option<String> {
        match self {
            FileContent::Text { text } => Some(sha1_hex(text.as_bytes())),
            FileContent::Binary { digest, .. } | FileContent::Large { digest, .. } => {
                Some(digest.clone())
            }
            FileContent::Missing => Some(String::from("missing")),
            FileContent::Unread { .. } | FileContent::Outside { .. } => None,
        }
    }

    /// The bytes of text the ledger holds for this content.
    pub fn held_bytes(&self) -> usize {
        self.text().map_or(0, str::len)
    }

    /// `self` with a text over `max_bytes` replaced by its summary (`large`, SHA-1 digest).
    pub(crate) fn within(self, max_bytes: usize) -> FileContent {
        match self {
            FileContent::Text { text } if text.len() > max_bytes => FileContent::Large {
                bytes: text.len() as u64,
                digest: sha1_hex(text.as_bytes()),
            },
            other => other,
        }
    }

    /// A one-line description for lists: `text`, `binary, 2048 bytes`, `missing`, ….
    pub fn summary(&self) -> String {
        match self {
            FileContent::Text { text } => format!("{} bytes of text", text.len()),
            FileContent::Binary { bytes, .. } => format!("binary, {bytes} bytes"),
            FileContent::Large { bytes, .. } => {
                format!("{bytes} bytes, over the ledger's file limit (summary only)")
            }
            FileContent::Missing => String::from("no file"),
            FileContent::Unread { reason } | FileContent::Outside { reason } => {
                format!("not read: {reason}")
            }
        }
    }
}

/// The SHA-1 of `bytes` in lower-case hex (core's one hash, RFC 6455's; this only tells
/// contents apart, it guards nothing).
pub fn sha1_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    crate::sha1::digest(&[bytes])
        .iter()
        .flat_map(|byte| [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]])
        .map(char::from)
        .collect()
}
