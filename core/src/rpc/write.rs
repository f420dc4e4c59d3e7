//! Outgoing messages: compact JSON appended straight into the caller's buffer.
//!
//! Every writer appends to `out` and never clears it, so replies can be written behind space
//! reserved for a frame header. Keys come in a fixed order: `jsonrpc`, then `id`, then
//! `result` or `error` (`code`, `message`); notifications carry `jsonrpc`, `method`, `params`.

use serde::Serialize;

use super::{RequestId, RpcError};

/// Appends the success reply `{"jsonrpc":"2.0","id":<id>,"result":<result>}` to `out`.
///
/// `id` is written byte-for-byte as received. When `result`'s `Serialize` impl fails (a map
/// with non-string keys, say), whatever it wrote is removed and the reply becomes an
/// `INTERNAL_ERROR` error for the same id, so the request is still answered.
pub fn write_result<T: Serialize + ?Sized>(out: &mut Vec<u8>, id: RequestId<'_>, result: &T) {
    write_result_with(out, id, |out| serde_json::to_writer(out, result));
}

/// Appends the success reply `{"jsonrpc":"2.0","id":<id>,"result":…}` to `out`, the result
/// appended by `write_json`, which must append exactly one compact JSON value or fail (for a
/// result written without going through `Serialize`).
///
/// When `write_json` fails, whatever was written is removed and the reply becomes an
/// `INTERNAL_ERROR` error for the same id, as with [`write_result`].
pub fn write_result_with<E>(
    out: &mut Vec<u8>,
    id: RequestId<'_>,
    write_json: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) {
    let start = out.len();
    push_head(out, Some(id));
    out.extend_from_slice(b",\"result\":");
    let written = write_json(out).is_ok();
    end_result(out, start, id, written);
}

/// Closes the reply [`write_result_with`] began at `start`, or replaces it with the error
/// reply when its result was not `written` (one copy for every result writer).
fn end_result(out: &mut Vec<u8>, start: usize, id: RequestId<'_>, written: bool) {
    if written {
        out.push(b'}');
    } else {
        out.truncate(start);
        let error = RpcError::new(RpcError::INTERNAL_ERROR, "result could not be serialized");
        write_error(out, Some(id), &error);
    }
}

/// Appends the error reply `{"jsonrpc":"2.0","id":<id>,"error":{"code":…,"message":…}}` to
/// `out`; `id: None` writes `"id":null` (the request's id could not be read).
pub fn write_error(out: &mut Vec<u8>, id: Option<RequestId<'_>>, error: &RpcError) {
    push_head(out, id);
    out.extend_from_slice(b",\"error\":{\"code\":");
    push_i32(out, error.code);
    out.extend_from_slice(b",\"message\":");
    crate::json::push_string(out, &error.message);
    out.extend_from_slice(b"}}");
}

/// Appends the notification `{"jsonrpc":"2.0","method":<method>,"params":<params>}` to `out`.
///
/// # Errors
/// When `params`' `Serialize` impl fails; `out` is then left as it was.
pub fn write_notification<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    method: &str,
    params: &T,
) -> Result<(), serde_json::Error> {
    let start = out.len();
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    crate::json::push_string(out, method);
    out.extend_from_slice(b",\"params\":");
    match serde_json::to_writer(&mut *out, params) {
        Ok(()) => {
            out.push(b'}');
            Ok(())
        }
        Err(error) => {
            out.truncate(start);
            Err(error)
        }
    }
}

fn push_head(out: &mut Vec<u8>, id: Option<RequestId<'_>>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => out.extend_from_slice(id.as_raw().get().as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends `value` in decimal; infallible, unlike `write!` into an `io::Write`.
fn push_i32(out: &mut Vec<u8>, value: i32) {
    if value < 0 {
        out.push(b'-');
    }
    crate::json::push_u64(out, u64::from(value.unsigned_abs()));
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::ser::Error as _;
    use serde_json::value::RawValue;

    use super::*;

    fn id(text: &str) -> RequestId<'_> {
        RequestId::from_raw(serde_json::from_str::<&RawValue>(text).unwrap()).unwrap()
    }

    fn text(out: Vec<u8>) -> String {
        String::from_utf8(out).unwrap()
    }

    /// A value whose `Serialize` impl always fails.
    struct Unserializable;

    impl Serialize for Unserializable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("refused"))
        }
    }

    #[test]
    fn result_is_compact_with_keys_in_order() {
        let mut out = Vec::new();
        write_result(
            &mut out,
            id("7"),
            &serde_json::json!({"b": [1, 2], "a": null}),
        );
        assert_eq!(
            text(out),
            r#"{"jsonrpc":"2.0","id":7,"result":{"a":null,"b":[1,2]}}"#
        );
    }

    #[test]
    fn id_is_echoed_byte_for_byte() {
        let mut out = Vec::new();
        write_result(&mut out, id(r#""a\u0062\"c""#), &());
        write_result(&mut out, id("1.50e0"), &[0u8; 0]);
        assert_eq!(
            text(out),
            concat!(
                r#"{"jsonrpc":"2.0","id":"a\u0062\"c","result":null}"#,
                r#"{"jsonrpc":"2.0","id":1.50e0,"result":[]}"#,
            )
        );
    }

    #[test]
    fn writers_append_without_clearing() {
        let mut out = b"HEADER".to_vec();
        write_error(&mut out, None, &RpcError::new(-1, "x"));
        assert_eq!(
            text(out),
            r#"HEADER{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}"#
        );
    }

    #[test]
    fn error_with_id_and_escaped_message() {
        let mut out = Vec::new();
        let error = RpcError::new(
            RpcError::METHOD_NOT_FOUND,
            "method not found: \"a\\b\"\n\u{1}é",
        );
        write_error(&mut out, Some(id(r#""x""#)), &error);
        assert_eq!(
            text(out),
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"method not found: \"a\\b\"\n\u0001é"}}"#
        );
    }

    #[test]
    fn codes_are_written_in_decimal() {
        for code in [0, 7, -32700, -32002, i32::MIN, i32::MAX] {
            let mut out = Vec::new();
            push_i32(&mut out, code);
            assert_eq!(text(out), code.to_string());
        }
    }

    #[test]
    fn result_written_by_a_closure_matches_the_serialized_one() {
        let mut direct = Vec::new();
        write_result(&mut direct, id("4"), &serde_json::json!({"a": [1]}));
        let mut with = Vec::new();
        write_result_with(&mut with, id("4"), |out| {
            out.extend_from_slice(br#"{"a":[1]}"#);
            Ok::<(), ()>(())
        });
        assert_eq!(text(with), text(direct));
        let mut failed = b"[".to_vec();
        write_result_with(&mut failed, id("5"), |out| {
            out.extend_from_slice(b"{\"half");
            Err(())
        });
        assert_eq!(
            text(failed),
            r#"[{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"result could not be serialized"}}"#
        );
    }

    #[test]
    fn failed_result_becomes_internal_error_for_the_same_id() {
        let mut out = b"[".to_vec();
        write_result(&mut out, id("3"), &Unserializable);
        assert_eq!(
            text(out),
            r#"[{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"result could not be serialized"}}"#
        );
    }

    #[test]
    fn notification_bytes() {
        let mut out = Vec::new();
        write_notification(
            &mut out,
            "at_mentioned",
            &serde_json::json!({"filePath": "/a"}),
        )
        .unwrap();
        assert_eq!(
            text(out),
            r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/a"}}"#
        );
    }

    #[test]
    fn failed_notification_leaves_buffer_unchanged() {
        let mut out = b"kept".to_vec();
        assert!(write_notification(&mut out, "x", &Unserializable).is_err());
        assert_eq!(text(out), "kept");
    }

    proptest! {
        #[test]
        fn strings_escape_exactly_like_serde_json(
            input in prop_oneof![any::<String>(), "[\\x00-\\x1f\\x7f\"\\\\/a\u{e9}\u{2028}]*"],
        ) {
            let mut out = Vec::new();
            crate::json::push_string(&mut out, &input);
            prop_assert_eq!(text(out), serde_json::to_string(&input).unwrap());
        }

        #[test]
        fn codes_format_exactly_like_std(code in any::<i32>()) {
            let mut out = Vec::new();
            push_i32(&mut out, code);
            prop_assert_eq!(text(out), code.to_string());
        }
    }
}
