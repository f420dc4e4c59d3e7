//! The reading `parse` replaced, kept as the oracle it is compared with: serde_json reads the
//! envelope (values skipped as raw values) after a byte scan for the nesting depth; the
//! envelope rules applied to it are `parse`'s own.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de};
use serde_json::value::RawValue;

use crate::json::string_end;
use crate::rpc::{Invalid, Message, ParamsMembers, RpcError, RpcLimits};

/// Whether `text` nests arrays/objects deeper than `max_depth` levels, by a byte scan that
/// skips strings (meaningless on text that is not JSON; serde_json reports that text).
fn exceeds(text: &[u8], max_depth: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        at += 1;
        match byte {
            b'"' => at = string_end(text, at),
            b'{' | b'[' => {
                depth += 1;
                if depth > max_depth {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
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
pub(super) fn parse<'a>(text: &'a str, limits: &RpcLimits) -> Result<Message<'a>, Invalid<'a>> {
    // The depth scan runs before serde. serde_json then reads only the envelope's members and
    // skips every value (raw values, ignored members, batch elements) with its iterative
    // skipper, so it never recurses into the nesting; that lets a too-deep request still be
    // answered with its own id, and a too-deep notification go unanswered.
    let too_deep = exceeds(text.as_bytes(), limits.max_depth);
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

/// The production rules applied to serde's reading of the envelope: only the reading is
/// compared (the slices, the shape, the depth, a duplicate); the rules are one function.
fn classify<'a>(
    envelope: &Envelope<'a>,
    too_deep: bool,
    max_depth: usize,
) -> Result<Message<'a>, Invalid<'a>> {
    let envelope = crate::rpc::envelope::Envelope {
        jsonrpc: envelope.jsonrpc.map(RawValue::get),
        id: envelope.id.map(RawValue::get),
        method: envelope.method.map(RawValue::get),
        params: envelope.params.map(RawValue::get),
        result: envelope.result.map(RawValue::get),
        error: envelope.error.map(RawValue::get),
        duplicate: envelope.duplicate,
        params_members: ParamsMembers::default(),
    };
    super::classify(&envelope, too_deep, max_depth)
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
