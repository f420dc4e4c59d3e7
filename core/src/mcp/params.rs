//! What the client's `initialize`, `tools/call` and `notifications/cancelled` carry.
//!
//! Each shape is decoded borrowed from the message text, read by hand from text the
//! envelope reader already checked, by the rules serde's derived `Deserialize` applied to it
//! before (the tests hold the two to the same answers): unknown members are ignored, a known
//! member of the wrong type makes the whole `params` malformed (`None`). serde is not used:
//! its errors would link its messages, and through them the standard library's float
//! formatting (some 18 KB of the wasm module). Nor does serde_json's own nesting limit (128)
//! apply: the envelope's `RpcLimits::max_depth` (64 by default) does.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::negotiate_version;
use crate::json;
use crate::rpc::{self, ParamsMembers, RequestId};

/// Who connected, from the `initialize` request.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClientInfo {
    /// `clientInfo.name`, `"claude-code"` for the CLI.
    pub name: String,
    /// `clientInfo.version`, the CLI's version.
    pub version: String,
    /// The protocol version the session runs at (the one answered, see
    /// [`negotiate_version`]).
    pub protocol_version: &'static str,
}

/// A valid `tools/call` request, for the layer above to answer with the same `id`.
#[derive(Debug, Clone)]
pub struct ToolCall<'a> {
    /// The request id the result must carry.
    pub id: RequestId<'a>,
    /// The tool's name (`params.name`); not checked against the tool list here.
    pub name: Cow<'a, str>,
    /// `params.arguments` as raw JSON, always an object when present; `null` counts as absent.
    pub arguments: Option<&'a RawValue>,
    /// `params._meta["claudecode/toolUseId"]`: the CLI's id for the model's tool use.
    pub tool_use_id: Option<Cow<'a, str>>,
}

/// The client behind an `initialize` request, or `None` when `params` lacks a string
/// `protocolVersion` or a `clientInfo` with string `name` and `version`. `capabilities` is
/// not read: the server uses none of the client's capabilities, so unknown or missing ones
/// cannot matter.
///
/// serde's rules: `clientInfo` may also be an array of exactly `name` and `version`, by
/// position; a name given twice, or a member name holding a lone surrogate escape, makes
/// the object malformed.
pub(super) fn client_info(params: Option<&RawValue>) -> Option<ClientInfo> {
    let params = params?.get();
    let [protocol_version, client_info] = named(
        params,
        json::members(params),
        ["protocolVersion", "clientInfo"],
    )?;
    let protocol_version = json::decode(protocol_version?).ok()?;
    let [name, version] = implementation(client_info?)?;
    Some(ClientInfo {
        name: json::decode(name).ok()?.into_owned(),
        version: json::decode(version).ok()?.into_owned(),
        protocol_version: negotiate_version(&protocol_version),
    })
}

/// True when `initialize`'s `params.capabilities` is an object with a `roots` member (the
/// CLI sends `"roots":{}`; its bundled code declares `roots:{listChanged:!0}` for its MCP
/// clients). Anything malformed declares nothing.
pub(super) fn declares_roots(params: Option<&RawValue>) -> bool {
    let Some(params) = params.map(RawValue::get) else {
        return false;
    };
    named(params, json::members(params), ["capabilities"])
        .and_then(|[capabilities]| capabilities)
        .and_then(|capabilities| named(capabilities, json::members(capabilities), ["roots"]))
        .is_some_and(|[roots]| roots.is_some_and(|roots| roots.starts_with('{')))
}

/// The raw `name` and `version` of an MCP `Implementation` (`clientInfo`): the members of an
/// object, or the elements of an array of exactly two (serde reads a struct from either).
fn implementation(value: &str) -> Option<[&str; 2]> {
    if value.starts_with('[') {
        let mut elements = json::elements(value);
        let fields = [elements.next()?, elements.next()?];
        return elements.next().is_none().then_some(fields);
    }
    let [name, version] = named(value, json::members(value), ["name", "version"])?;
    Some([name?, version?])
}

/// The call behind a `tools/call` request, or `None` when `params` lacks a string `name` or
/// has `arguments` that is not an object. `_meta` is advisory: when it is not an object
/// with a string `claudecode/toolUseId`, the call goes ahead without a tool-use id.
///
/// The rules are those serde applies to a struct of those three fields (the replies have
/// always followed them): a name given twice, or any member name holding a lone surrogate
/// escape, makes the object malformed; `null` counts as absent.
///
/// `members` are those the envelope reader recorded while it read `params`: the call is
/// read without walking `params` again (only `_meta` is, when present).
pub(super) fn tool_call<'a>(
    id: RequestId<'a>,
    params: Option<&'a RawValue>,
    members: &ParamsMembers,
) -> Option<ToolCall<'a>> {
    let params = params?.get();
    let [name, arguments, meta] =
        named(params, members.iter(params), ["name", "arguments", "_meta"])?;
    let name = json::decode(name?).ok()?;
    let arguments = arguments.filter(|&arguments| arguments != "null");
    // MCP tools/call: `arguments` is an object mapping argument names to values.
    if arguments.is_some_and(|arguments| !arguments.starts_with('{')) {
        return None;
    }
    let tool_use_id = meta
        .and_then(|meta| named(meta, json::members(meta), ["claudecode/toolUseId"]))
        .and_then(|[tool_use_id]| tool_use_id)
        .filter(|&tool_use_id| tool_use_id != "null")
        .and_then(|tool_use_id| json::decode(tool_use_id).ok());
    Some(ToolCall {
        id,
        name,
        arguments: arguments.map(rpc::raw_value),
        tool_use_id,
    })
}

/// The raw values of the members `names` among `members`, those of `object` (an accepted
/// JSON object), or `None` when it is not an object (MCP params are always named), names a
/// member twice, or has a member name that does not decode.
fn named<'a, const N: usize>(
    object: &str,
    members: impl Iterator<Item = json::Member<'a>>,
    names: [&str; N],
) -> Option<[Option<&'a str>; N]> {
    if !object.starts_with('{') {
        return None;
    }
    let mut values = [None; N];
    for member in members {
        let name = member.name.text().ok()?;
        if let Some(at) = names.iter().position(|&known| known == name)
            && values[at].replace(member.value).is_some()
        {
            return None;
        }
    }
    Some(values)
}

/// The request id and reason of a `notifications/cancelled`, or `None` when `params` lacks
/// a number or string `requestId` or has a non-string `reason` (`null` counts as absent).
/// A name given twice, or a member name holding a lone surrogate escape, makes the object
/// malformed (serde's rules).
pub(super) fn cancelled(
    params: Option<&RawValue>,
) -> Option<(RequestId<'_>, Option<Cow<'_, str>>)> {
    let params = params?.get();
    let [request_id, reason] = named(params, json::members(params), ["requestId", "reason"])?;
    let request_id = RequestId::from_raw(rpc::raw_value(request_id?))?;
    let reason = match reason.filter(|&reason| reason != "null") {
        Some(reason) => Some(json::decode(reason).ok()?),
        None => None,
    };
    Some((request_id, reason))
}

#[cfg(test)]
mod tests;
