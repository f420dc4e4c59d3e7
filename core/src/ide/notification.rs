//! Parameters of the notifications the server pushes to the CLI (docs/protocol.md §5).

use serde::{Deserialize, Serialize};

use super::event::{Position, Range};
use super::path::file_uri;

/// `selection_changed` params (also the body of the selection tools' answers):
///
/// ```json
/// {"text":"fn","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2},"isEmpty":false}}
/// ```
///
/// Non-empty `text` tells the CLI "the user selected lines a to b of F"; empty `text` "the
/// user opened F".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectionChanged {
    /// The selected text, exactly as the editor reported it.
    pub text: String,
    /// The normalized path of the document.
    pub file_path: String,
    /// `file://` + that path.
    pub file_url: String,
    /// Where the selection is.
    pub selection: SelectionRange,
}

impl SelectionChanged {
    /// The JSON-RPC method name of this notification.
    pub const METHOD: &'static str = "selection_changed";

    /// The params for `text` selected at `range` of the document at `normalized_path`.
    pub fn new(normalized_path: &str, text: &str, range: Range) -> Self {
        SelectionChanged {
            text: text.to_owned(),
            file_path: normalized_path.to_owned(),
            file_url: file_uri(normalized_path),
            selection: SelectionRange::new(range),
        }
    }
}

/// The `selection_changed` params that tell the CLI no file is open any more (the active
/// document closed): `{"text":"","selection":{"start":{"line":0,"character":0},"end":{..},"isEmpty":true}}`.
///
/// The CLI 2.1.332 replaces its IDE selection with every `selection_changed` that has
/// `selection.start` and `selection.end` (one without them is ignored, so the range is
/// required), and attaches "the user opened F" or "the user selected lines a to b of F" to the
/// next prompt only when `filePath` is present. Leaving `filePath` (and `fileUrl`) out clears
/// the file it would otherwise keep attaching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NoFileSelected {
    /// Always empty.
    pub text: &'static str,
    /// An empty range at 0:0.
    pub selection: SelectionRange,
}

impl NoFileSelected {
    /// The params (the same every time).
    pub const PARAMS: NoFileSelected = NoFileSelected {
        text: "",
        selection: SelectionRange {
            start: Position {
                line: 0,
                character: 0,
            },
            end: Position {
                line: 0,
                character: 0,
            },
            is_empty: true,
        },
    };
}

/// A selection's range with its emptiness spelled out:
/// `{"start":{..},"end":{..},"isEmpty":bool}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectionRange {
    /// Where the selection starts.
    pub start: Position,
    /// Where it ends.
    pub end: Position,
    /// `start == end` (a bare caret).
    pub is_empty: bool,
}

impl SelectionRange {
    /// The range with `is_empty` computed from it.
    pub fn new(range: Range) -> Self {
        SelectionRange {
            start: range.start,
            end: range.end,
            is_empty: range.start == range.end,
        }
    }
}

/// `at_mentioned` params: `{"filePath":"/w/a.rs","lineStart":3,"lineEnd":5}`, the line
/// fields left out when unknown. Lines are 0-based; the CLI inserts `@path#L<a>-<b>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AtMentioned {
    /// The normalized path of the file.
    pub file_path: String,
    /// First line of the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u32>,
    /// Last line of the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u32>,
}

impl AtMentioned {
    /// The JSON-RPC method name of this notification.
    pub const METHOD: &'static str = "at_mentioned";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_changed_json_is_exact() {
        let range = Range {
            start: Position {
                line: 0,
                character: 0,
            },
            end: Position {
                line: 0,
                character: 2,
            },
        };
        let params = SelectionChanged::new("/w/a.rs", "fn", range);
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"text":"fn","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2},"isEmpty":false}}"#
        );
        let caret = SelectionChanged::new("C:/a.rs", "", Range::default());
        assert_eq!(
            serde_json::to_string(&caret).unwrap(),
            r#"{"text":"","filePath":"C:/a.rs","fileUrl":"file:///C:/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}"#
        );
    }

    #[test]
    fn no_file_has_a_range_and_no_path() {
        assert_eq!(
            serde_json::to_string(&NoFileSelected::PARAMS).unwrap(),
            r#"{"text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}"#
        );
    }

    #[test]
    fn at_mentioned_json_leaves_out_unknown_lines() {
        let full = AtMentioned {
            file_path: "/w/a.rs".into(),
            line_start: Some(3),
            line_end: Some(5),
        };
        assert_eq!(
            serde_json::to_string(&full).unwrap(),
            r#"{"filePath":"/w/a.rs","lineStart":3,"lineEnd":5}"#
        );
        let bare = AtMentioned {
            file_path: "/w/a.rs".into(),
            line_start: None,
            line_end: None,
        };
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"filePath":"/w/a.rs"}"#
        );
    }
}
