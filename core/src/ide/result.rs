//! The result of a `tools/call`, in the only shape the CLI parses (docs/protocol.md §3).

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use std::io;

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

/// Appends `{"content":[{"type":"text","text":<value as compact JSON>}]}` to `out`: the bytes
/// `ToolResult::json(value)` serializes to, written without building the text first (the JSON
/// is escaped into the string as serde_json produces it).
///
/// # Errors
/// When `value`'s `Serialize` impl fails; `out` then ends in a partial result the caller
/// must discard.
pub(crate) fn write_json_result<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(br#"{"content":[{"type":"text","text":""#);
    serde_json::to_writer(JsonStringContents(out), value)?;
    out.extend_from_slice(br#""}]}"#);
    Ok(())
}

/// Writes what it is given as the contents of a JSON string, escaped exactly as serde_json
/// escapes a string. Escapes concern single ASCII bytes only, so any split of the input into
/// chunks gives the same output.
struct JsonStringContents<'a>(&'a mut Vec<u8>);

impl io::Write for JsonStringContents<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        crate::json::escape_into(self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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

    /// `write_json_result` into a fresh buffer.
    fn written<T: Serialize + ?Sized>(value: &T) -> String {
        let mut out = Vec::new();
        write_json_result(&mut out, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_written_in_place_matches_the_serialized_result() {
        let value = serde_json::json!({"text": "a \"q\" \\ \n\t\u{1}\u{7f} é ✻", "n": [1, -2.5]});
        assert_eq!(written(&value), wire(&ToolResult::json(&value)));
        assert_eq!(
            written(&serde_json::json!({"a": "q\"\\\n"})),
            r#"{"content":[{"type":"text","text":"{\"a\":\"q\\\"\\\\\\n\"}"}]}"#
        );
    }

    #[test]
    fn json_written_in_place_leaves_a_failure_to_the_caller() {
        let bad: BTreeMap<(u8, u8), u8> = BTreeMap::from([((1, 2), 3)]);
        assert!(write_json_result(&mut Vec::new(), &bad).is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_text_written_in_place_matches_the_serialized_result(
            text in proptest::prop_oneof![
                proptest::prelude::any::<String>(),
                "[\\x00-\\x1f\\x7f\"\\\\/a\u{e9}\u{2028}]*",
            ],
        ) {
            let value = serde_json::json!({ "text": text, "filePath": text });
            proptest::prop_assert_eq!(written(&value), wire(&ToolResult::json(&value)));
        }
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
