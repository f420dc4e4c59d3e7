//! The top-level value of a message, read in one pass: the grammar checked, the nesting
//! measured, and the envelope's members kept as raw text.

use super::ParamsMembers;
use crate::json::{NotJson, Reader, decode};

/// The top-level JSON value, reduced to what the envelope rules need.
pub(super) enum Shape<'a> {
    Object(Envelope<'a>),
    Array,
    Scalar,
}

/// The members of a message object, each kept as raw JSON (no surrounding whitespace).
#[derive(Default)]
pub(super) struct Envelope<'a> {
    pub(super) jsonrpc: Option<&'a str>,
    pub(super) id: Option<&'a str>,
    pub(super) method: Option<&'a str>,
    pub(super) params: Option<&'a str>,
    pub(super) result: Option<&'a str>,
    pub(super) error: Option<&'a str>,
    /// The first member name given twice.
    pub(super) duplicate: Option<&'static str>,
    /// The members of the last `params` read, when it is an object.
    pub(super) params_members: ParamsMembers,
}

/// `text` read as one JSON text, with the deepest nesting in it (`{}` is one level), or
/// [`NotJson`] for text that is not JSON (RFC 8259 §2: one value, whitespace around it).
///
/// Every byte is checked, also inside values no rule looks at, and nesting has no limit
/// here: a message nested too deep is still read, so that a too-deep request gets its own
/// id back and a too-deep notification goes unanswered.
pub(super) fn read(text: &str) -> Result<(Shape<'_>, usize), NotJson> {
    let mut reader = Reader::new(text);
    let shape = match reader.peek().ok_or(NotJson)? {
        b'{' => Shape::Object(envelope(&mut reader, text)?),
        b'[' => {
            reader.value()?;
            Shape::Array
        }
        _ => {
            let start = reader.value()?;
            scalar(text.get(start..reader.at()).ok_or(NotJson)?)?;
            Shape::Scalar
        }
    };
    if !reader.at_end() {
        return Err(NotJson);
    }
    Ok((shape, reader.deepest()))
}

/// Reads the top-level object, keeping the members the envelope rules read. Names are
/// decoded when they hold escapes (`"\u0069d"` is `id`); a name that cannot be decoded (a
/// lone surrogate) makes the text not JSON, as serde_json has it for the names it decodes.
fn envelope<'a>(reader: &mut Reader<'a>, text: &'a str) -> Result<Envelope<'a>, NotJson> {
    let mut envelope = Envelope::default();
    reader.expect(b'{')?;
    reader.open(true);
    if reader.eat(b'}') {
        reader.close();
        return Ok(envelope);
    }
    loop {
        let name = reader.name(text)?.text().map_err(|_| NotJson)?;
        let value = if name == "params" && reader.peek() == Some(b'{') {
            let (value, members) = params_members(reader, text)?;
            envelope.params_members = members;
            value
        } else {
            let value_start = reader.value()?;
            text.get(value_start..reader.at()).ok_or(NotJson)?
        };
        let member = match &*name {
            "jsonrpc" => Some((&mut envelope.jsonrpc, "jsonrpc")),
            "id" => Some((&mut envelope.id, "id")),
            "method" => Some((&mut envelope.method, "method")),
            "params" => Some((&mut envelope.params, "params")),
            "result" => Some((&mut envelope.result, "result")),
            "error" => Some((&mut envelope.error, "error")),
            _ => None,
        };
        if let Some((slot, name)) = member {
            // RFC 8259 §4: names within an object SHOULD be unique. A duplicated envelope
            // member makes the message ambiguous, so it is refused rather than guessed at.
            if slot.is_some() && envelope.duplicate.is_none() {
                envelope.duplicate = Some(name);
            }
            *slot = Some(value);
        }
        if reader.eat(b'}') {
            reader.close();
            return Ok(envelope);
        }
        reader.expect(b',')?;
    }
}

/// Reads `params`, an object, recording its first members (JSON-RPC 2.0 §4.2: parameters
/// by name) for the layer above; returns its raw text with them.
fn params_members<'a>(
    reader: &mut Reader<'a>,
    text: &'a str,
) -> Result<(&'a str, ParamsMembers), NotJson> {
    let mut recorder = ParamsMembers::recorder();
    reader.peek();
    let start = reader.at();
    reader.expect(b'{')?;
    reader.open(true);
    if !reader.eat(b'}') {
        loop {
            let member = reader.member(text)?;
            recorder.record(text, start, member);
            if reader.eat(b'}') {
                break;
            }
            reader.expect(b',')?;
        }
    }
    reader.close();
    Ok((text.get(start..reader.at()).ok_or(NotJson)?, recorder))
}

/// Whether a top-level scalar is one serde_json reads as a value: a string whose escapes
/// decode (no lone surrogate), and a number within `f64`'s range as serde_json reads it
/// (see [`number`]), so the boundary falls where it always did.
fn scalar(raw: &str) -> Result<(), NotJson> {
    let readable = match raw.as_bytes().first() {
        Some(b'"') => decode(raw).is_ok(),
        Some(b'-' | b'0'..=b'9') => crate::json::in_range(raw),
        _ => true,
    };
    if readable { Ok(()) } else { Err(NotJson) }
}
