//! Incoming messages: the JSON-RPC 2.0 envelope, parsed borrowed from the message text.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::envelope::{self, Envelope, Shape};
use super::{ParamsMembers, RequestId, RpcError, raw};
use crate::json::decode;

/// One incoming JSON-RPC message, borrowed from the text it was parsed from.
#[derive(Debug, Clone)]
pub enum Message<'a> {
    /// A call the peer expects exactly one reply to, carrying `id`.
    Request {
        /// The id to echo in the reply.
        id: RequestId<'a>,
        /// The method name; borrowed unless the client escaped characters in it.
        method: Cow<'a, str>,
        /// The parameters as raw JSON, always an object or an array when present.
        params: Option<&'a RawValue>,
        /// The members of `params` when it is an object, as the envelope reader found them.
        params_members: ParamsMembers,
    },
    /// A message without an id: it MUST NOT be answered, whatever it contains.
    Notification {
        /// The method name; borrowed unless the client escaped characters in it.
        method: Cow<'a, str>,
        /// The parameters as raw JSON, always an object or an array when present.
        params: Option<&'a RawValue>,
    },
    /// The peer's reply to a request of ours (exactly one of `result`/`error`). It is never
    /// answered.
    Response {
        /// The id of the request it answers.
        id: RequestId<'a>,
        /// `Ok(result)` or `Err(error)`, each as raw JSON (the error object is not checked
        /// beyond being present).
        outcome: Result<&'a RawValue, &'a RawValue>,
    },
}

/// Limits [`parse`] enforces on what a peer sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RpcLimits {
    /// Deepest array/object nesting accepted in a message; `{}` is one level. Default 64:
    /// MCP messages nest a handful of levels, and the layers above may parse `params` with
    /// recursive code that must not be driven arbitrarily deep.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_depth: usize,
}

impl Default for RpcLimits {
    fn default() -> Self {
        RpcLimits { max_depth: 64 }
    }
}

/// Why a text is not an acceptable message, and how to answer it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid<'a> {
    /// The id to answer with; `None` writes `"id":null` (the id was missing, not a number or
    /// string, or given twice).
    pub id: Option<RequestId<'a>>,
    /// Whether to answer at all. `false` when the message was notification-shaped (a string
    /// `method` and no `id` member) or response-shaped (`result`/`error` and no `method`):
    /// those are never answered, whatever is wrong with them.
    pub reply: bool,
    /// The error to answer with.
    pub error: RpcError,
}

/// Parses one message from `text`, borrowing everything it can from it.
///
/// Values (`id`, `params`, unknown members) are kept as raw JSON and never parsed here; a
/// string (`method`, `jsonrpc`) allocates only when it contains escapes. The whole text is
/// read once, by hand: its grammar, its nesting depth, the envelope's members and the first
/// members of an object `params` in the same pass.
///
/// # Errors
/// An [`Invalid`] says how to answer a text that is not an acceptable message:
/// `PARSE_ERROR` for text that is not JSON, `INVALID_REQUEST` for anything else (a batch, a
/// non-object, a broken envelope, nesting deeper than `limits.max_depth`).
pub fn parse<'a>(text: &'a str, limits: &RpcLimits) -> Result<Message<'a>, Invalid<'a>> {
    let answer = |code, message: &'static str| Invalid {
        id: None,
        reply: true,
        error: RpcError::new(code, message),
    };
    match envelope::read(text) {
        // JSON-RPC 2.0 §5.1: invalid JSON is answered with a Parse error and a null id.
        Err(_) => Err(answer(
            RpcError::PARSE_ERROR,
            "parse error: the message is not valid JSON",
        )),
        // JSON-RPC 2.0 §6 allows batches, but MCP 2025-06-18 removed them and the CLI never
        // sends one: the whole array gets one Invalid Request reply instead of one per element.
        Ok((Shape::Array, _)) => Err(answer(
            RpcError::INVALID_REQUEST,
            "batch requests are not supported",
        )),
        Ok((Shape::Scalar, _)) => Err(answer(
            RpcError::INVALID_REQUEST,
            "a message must be a JSON object",
        )),
        Ok((Shape::Object(envelope), deepest)) => {
            classify(&envelope, deepest > limits.max_depth, limits.max_depth)
        }
    }
}

/// Checks the envelope's members against JSON-RPC 2.0 §4 and §5, in a fixed order.
fn classify<'a>(
    envelope: &Envelope<'a>,
    too_deep: bool,
    max_depth: usize,
) -> Result<Message<'a>, Invalid<'a>> {
    let method = envelope.method.map(|method| decode(method).ok());
    let result = envelope.result.map(raw::borrowed);
    let error = envelope.error.map(raw::borrowed);
    let has_outcome = result.is_some() || error.is_some();
    let response_shaped = envelope.method.is_none() && has_outcome;
    let notification_shaped = matches!(method, Some(Some(_))) && envelope.id.is_none();
    let id = envelope
        .id
        .map(raw::borrowed)
        .and_then(RequestId::from_raw)
        .filter(|_| envelope.duplicate != Some("id"));
    let fail = |message: Cow<'static, str>| {
        Err(Invalid {
            id,
            // JSON-RPC 2.0 §4.1: the server MUST NOT reply to a notification.
            reply: !(response_shaped || notification_shaped),
            error: RpcError::new(RpcError::INVALID_REQUEST, message),
        })
    };

    if let Some(name) = envelope.duplicate {
        return fail(format!("duplicate member \"{name}\"").into());
    }
    if too_deep {
        return fail(format!("nesting deeper than {max_depth} levels").into());
    }
    // JSON-RPC 2.0 §4: "jsonrpc" MUST be exactly "2.0".
    if envelope
        .jsonrpc
        .and_then(|version| decode(version).ok())
        .is_none_or(|version| version != "2.0")
    {
        return fail("\"jsonrpc\" must be \"2.0\"".into());
    }
    if envelope.id.is_some() && id.is_none() {
        return fail("\"id\" must be a number or a string".into());
    }
    let Some(method) = method else {
        // JSON-RPC 2.0 §5: a response carries "result" or "error", never both.
        return match (id, result, error) {
            (_, None, None) => fail("missing \"method\"".into()),
            (_, Some(_), Some(_)) => {
                fail("a response cannot carry both \"result\" and \"error\"".into())
            }
            (None, _, _) => fail("a response must carry an \"id\"".into()),
            (Some(id), Some(result), None) => Ok(Message::Response {
                id,
                outcome: Ok(result),
            }),
            (Some(id), None, Some(error)) => Ok(Message::Response {
                id,
                outcome: Err(error),
            }),
        };
    };
    if has_outcome {
        return fail("a request cannot carry \"result\" or \"error\"".into());
    }
    let Some(method) = method else {
        return fail("\"method\" must be a string".into());
    };
    // JSON-RPC 2.0 §4.2: params, when present, MUST be a structured value (object or array).
    // That is an envelope rule, checked without knowing the method: Invalid Request.
    if envelope
        .params
        .is_some_and(|params| !params.starts_with(['{', '[']))
    {
        return fail("\"params\" must be an object or an array".into());
    }
    let params = envelope.params.map(raw::borrowed);
    Ok(match id {
        Some(id) => Message::Request {
            id,
            method,
            params,
            params_members: envelope.params_members,
        },
        None => Message::Notification { method, params },
    })
}

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;
