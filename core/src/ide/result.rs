//! The result of a `tools/call`, in the only shape the CLI parses (docs/protocol.md §3).

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct, Serializer};

/// A tool's answer: text items, and whether it is an error.
///
/// Serializes as `{"content":[{"type":"text","text":..},..]}`, plus `"isError":true` only
/// when set. Never `structuredContent`: structured payloads ride as JSON text inside
/// `content[0].text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The text items, in order.
    pub texts: Vec<String>,
    /// Whether the tool failed.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result holding one text item.
    pub fn text(s: impl Into<String>) -> Self {
        ToolResult {
            texts: vec![s.into()],
            is_error: false,
        }
    }

    /// A failed result (`"isError":true`) holding one text item, `msg`.
    pub fn error(msg: impl Into<String>) -> Self {
        ToolResult {
            texts: vec![msg.into()],
            is_error: true,
        }
    }

    /// A successful result whose one text item is `value` as compact JSON. A value that
    /// cannot be encoded (a map with non-string keys) gives an error result saying so.
    pub fn json<T: Serialize>(value: &T) -> Self {
        match serde_json::to_string(value) {
            Ok(json) => ToolResult::text(json),
            Err(err) => ToolResult::error(format!("the result could not be encoded: {err}")),
        }
    }
}

impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("content", &TextItems(&self.texts))?;
        if self.is_error {
            map.serialize_entry("isError", &true)?;
        }
        map.end()
    }
}

struct TextItems<'a>(&'a [String]);

impl Serialize for TextItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(TextItem))
    }
}

struct TextItem<'a>(&'a String);

impl Serialize for TextItem<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut item = serializer.serialize_struct("TextItem", 2)?;
        item.serialize_field("type", "text")?;
        item.serialize_field("text", self.0)?;
        item.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn wire(result: &ToolResult) -> String {
        serde_json::to_string(result).unwrap()
    }

    #[test]
    fn text_result_has_no_is_error() {
        assert_eq!(
            wire(&ToolResult::text("TAB_CLOSED")),
            r#"{"content":[{"type":"text","text":"TAB_CLOSED"}]}"#
        );
    }

    #[test]
    fn error_result_sets_is_error() {
        assert_eq!(
            wire(&ToolResult::error("no \"x\"")),
            r#"{"content":[{"type":"text","text":"no \"x\""}],"isError":true}"#
        );
    }

    #[test]
    fn several_items_keep_their_order() {
        let result = ToolResult {
            texts: vec!["FILE_SAVED".into(), "a\nb".into()],
            is_error: false,
        };
        assert_eq!(
            wire(&result),
            r#"{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"a\nb"}]}"#
        );
        let empty = ToolResult {
            texts: vec![],
            is_error: false,
        };
        assert_eq!(wire(&empty), r#"{"content":[]}"#);
    }

    #[test]
    fn json_rides_inside_the_text() {
        let value = serde_json::json!({"success": true});
        assert_eq!(
            wire(&ToolResult::json(&value)),
            r#"{"content":[{"type":"text","text":"{\"success\":true}"}]}"#
        );
    }

    #[test]
    fn unencodable_json_becomes_an_error_result() {
        let bad: BTreeMap<(u8, u8), u8> = BTreeMap::from([((1, 2), 3)]);
        assert_eq!(
            ToolResult::json(&bad),
            ToolResult::error("the result could not be encoded: key must be a string")
        );
    }
}
