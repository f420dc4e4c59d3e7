//! Incoming messages: the JSON-RPC 2.0 envelope, parsed borrowed from the message text.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de};
use serde_json::value::RawValue;

use super::{RequestId, RpcError, depth};

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
/// string (`method`, `jsonrpc`) allocates only when it contains escapes.
///
/// # Errors
/// An [`Invalid`] says how to answer a text that is not an acceptable message:
/// `PARSE_ERROR` for text that is not JSON, `INVALID_REQUEST` for anything else (a batch, a
/// non-object, a broken envelope, nesting deeper than `limits.max_depth`).
pub fn parse<'a>(text: &'a str, limits: &RpcLimits) -> Result<Message<'a>, Invalid<'a>> {
    // The depth scan runs before serde. serde_json then reads only the envelope's members and
    // skips every value (raw values, ignored members, batch elements) with its iterative
    // skipper, so it never recurses into the nesting; that lets a too-deep request still be
    // answered with its own id, and a too-deep notification go unanswered.
    let too_deep = depth::exceeds(text.as_bytes(), limits.max_depth);
    let answer = |code, message: &'static str| Invalid {
        id: None,
        reply: true,
        error: RpcError::new(code, message),
    };
    match serde_json::from_str::<Shape<'a>>(text) {
        // JSON-RPC 2.0 §5.1: invalid JSON is answered with a Parse error and a null id.
        Err(_) => Err(answer(
            RpcError::PARSE_ERROR,
            "parse error: the message is not valid JSON",
        )),
        // JSON-RPC 2.0 §6 allows batches, but MCP 2025-06-18 removed them and the CLI never
        // sends one: the whole array gets one Invalid Request reply instead of one per element.
        Ok(Shape::Array) => Err(answer(
            RpcError::INVALID_REQUEST,
            "batch requests are not supported",
        )),
        Ok(Shape::Scalar) => Err(answer(
            RpcError::INVALID_REQUEST,
            "a message must be a JSON object",
        )),
        Ok(Shape::Object(envelope)) => classify(&envelope, too_deep, limits.max_depth),
    }
}

/// Checks the envelope's members against JSON-RPC 2.0 §4 and §5, in a fixed order.
fn classify<'a>(
    envelope: &Envelope<'a>,
    too_deep: bool,
    max_depth: usize,
) -> Result<Message<'a>, Invalid<'a>> {
    let method = envelope.method.map(decode_str);
    let has_outcome = envelope.result.is_some() || envelope.error.is_some();
    let response_shaped = envelope.method.is_none() && has_outcome;
    let notification_shaped = matches!(method, Some(Some(_))) && envelope.id.is_none();
    let id = envelope
        .id
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
        .and_then(decode_str)
        .is_none_or(|version| version != "2.0")
    {
        return fail("\"jsonrpc\" must be \"2.0\"".into());
    }
    if envelope.id.is_some() && id.is_none() {
        return fail("\"id\" must be a number or a string".into());
    }
    let Some(method) = method else {
        // JSON-RPC 2.0 §5: a response carries "result" or "error", never both.
        return match (id, envelope.result, envelope.error) {
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
        .is_some_and(|params| !params.get().starts_with(['{', '[']))
    {
        return fail("\"params\" must be an object or an array".into());
    }
    let params = envelope.params;
    Ok(match id {
        Some(id) => Message::Request { id, method, params },
        None => Message::Notification { method, params },
    })
}

/// `raw` decoded as a JSON string, borrowed when it has no escapes; `None` for other values.
fn decode_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Text<'a>(#[serde(borrow)] Cow<'a, str>);
    serde_json::from_str::<Text<'_>>(raw.get())
        .ok()
        .map(|text| text.0)
}

/// The top-level JSON value, reduced to what the envelope rules need.
enum Shape<'a> {
    Object(Envelope<'a>),
    Array,
    Scalar,
}

/// The members of a message object, each kept as raw JSON.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    /// The first member name given twice.
    duplicate: Option<&'static str>,
}

/// The member names the envelope reads (escaped spellings match too); others are skipped.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Shape<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<'de>, A::Error> {
        let mut envelope = Envelope::default();
        let mut duplicate = None;
        while let Some(member) = map.next_key::<Member>()? {
            let (slot, name) = match member {
                Member::Jsonrpc => (&mut envelope.jsonrpc, "jsonrpc"),
                Member::Id => (&mut envelope.id, "id"),
                Member::Method => (&mut envelope.method, "method"),
                Member::Params => (&mut envelope.params, "params"),
                Member::Result => (&mut envelope.result, "result"),
                Member::Error => (&mut envelope.error, "error"),
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            // RFC 8259 §4: names within an object SHOULD be unique. A duplicated envelope
            // member makes the message ambiguous, so it is refused rather than guessed at.
            if slot.is_some() && duplicate.is_none() {
                duplicate = Some(name);
            }
            *slot = Some(map.next_value()?);
        }
        envelope.duplicate = duplicate;
        Ok(Shape::Object(envelope))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Shape::Array)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Shape<'de>, E> {
        Ok(Shape::Scalar)
    }
}

#[cfg(test)]
mod tests;
