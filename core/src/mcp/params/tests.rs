//! Tests of `params`: each reading against the serde reading it replaced.

use proptest::prelude::*;
use serde::Deserialize;

use super::*;
use crate::rpc::{Message, RpcLimits, parse};

/// A JSON string that borrows from the text unless it holds escapes. (serde borrows a bare
/// `Cow<str>` field marked `borrow`, but not one inside an `Option`.)
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

/// `params` decoded as `T`, when it is an object of that shape: how serde read them.
fn decode<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Option<T> {
    let params = params?;
    // MCP params are always named. serde would also fill a struct from a by-position array.
    if !params.get().starts_with('{') {
        return None;
    }
    serde_json::from_str(params.get()).ok()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams<'a> {
    #[serde(borrow)]
    protocol_version: Cow<'a, str>,
    #[serde(borrow)]
    client_info: Implementation<'a>,
}

#[derive(Deserialize)]
struct Implementation<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    version: Cow<'a, str>,
}

/// `client_info` as serde derived it: the oracle.
fn serde_client_info(params: Option<&RawValue>) -> Option<ClientInfo> {
    let params: InitializeParams<'_> = decode(params)?;
    Some(ClientInfo {
        name: params.client_info.name.into_owned(),
        version: params.client_info.version.into_owned(),
        protocol_version: negotiate_version(&params.protocol_version),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CancelledParams<'a> {
    #[serde(borrow)]
    request_id: &'a RawValue,
    #[serde(borrow, default)]
    reason: Option<Text<'a>>,
}

/// `cancelled` as serde derived it: the oracle.
fn serde_cancelled(params: Option<&RawValue>) -> Option<(RequestId<'_>, Option<Cow<'_, str>>)> {
    let params: CancelledParams<'_> = decode(params)?;
    let request_id = RequestId::from_raw(params.request_id)?;
    Some((request_id, params.reason.map(|text| text.0)))
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallMeta<'a> {
    #[serde(borrow, default, rename = "claudecode/toolUseId")]
    tool_use_id: Option<Text<'a>>,
}

/// `tool_call` as serde derived it: the oracle.
fn serde_tool_call<'a>(id: RequestId<'a>, params: Option<&'a RawValue>) -> Option<ToolCall<'a>> {
    let params: CallParams<'a> = decode(params)?;
    if params
        .arguments
        .is_some_and(|arguments| !arguments.get().starts_with('{'))
    {
        return None;
    }
    Some(ToolCall {
        id,
        name: params.name,
        arguments: params.arguments,
        tool_use_id: decode::<CallMeta<'a>>(params.meta)
            .and_then(|meta| meta.tool_use_id)
            .map(|text| text.0),
    })
}

/// Everything a reading of `params` decided, with where `arguments` lies in `text`.
fn verdict(text: &str, call: Option<ToolCall<'_>>) -> String {
    let Some(call) = call else {
        return "malformed".to_owned();
    };
    let arguments = call
        .arguments
        .map(|a| (a.get(), a.get().as_ptr() as usize - text.as_ptr() as usize));
    let owned = |text: &Cow<'_, str>| matches!(text, Cow::Owned(_));
    format!(
        "{:?} owned={} {arguments:?} {:?} owned={:?}",
        call.name,
        owned(&call.name),
        call.tool_use_id,
        call.tool_use_id.as_ref().map(owned)
    )
}

/// Both readings of the `params` of the request `text`.
fn both(text: &str) -> Option<(String, String)> {
    let Ok(Message::Request {
        id,
        params,
        params_members,
        ..
    }) = parse(text, &RpcLimits::default())
    else {
        return None;
    };
    Some((
        verdict(text, tool_call(id, params, &params_members)),
        verdict(text, serde_tool_call(id, params)),
    ))
}

#[test]
fn the_cli_s_call_is_read_borrowed() {
    let text = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"getCurrentSelection","arguments":{},"_meta":{"progressToken":3,"claudecode/toolUseId":"toolu_01A"}}}"#;
    let Ok(Message::Request {
        id,
        params,
        params_members,
        ..
    }) = parse(text, &RpcLimits::default())
    else {
        panic!("not a request");
    };
    let call = tool_call(id, params, &params_members).unwrap();
    assert!(matches!(call.name, Cow::Borrowed("getCurrentSelection")));
    assert_eq!(call.arguments.unwrap().get(), "{}");
    assert!(matches!(call.tool_use_id, Some(Cow::Borrowed("toolu_01A"))));
}

/// `params` members, well and badly formed.
const MEMBERS: &[&str] = &[
    r#""name":"x""#,
    r#""name":"g\u0065t""#,
    r#""name":"\ud800""#,
    r#""name":1"#,
    r#""name":null"#,
    r#""n\u0061me":"y""#,
    r#""arguments":{}"#,
    r#""arguments":{"a":[1]}"#,
    r#""arguments":null"#,
    r#""arguments":[]"#,
    r#""arguments":"{}""#,
    r#""_meta":null"#,
    r#""_meta":{}"#,
    r#""_meta":[]"#,
    r#""_meta":{"claudecode/toolUseId":"t"}"#,
    r#""_meta":{"claudecode/toolUseId":"t\u0031"}"#,
    r#""_meta":{"claudecode/toolUseId":5}"#,
    r#""_meta":{"claudecode/toolUseId":null}"#,
    r#""_meta":{"claudecode/toolUseId":"\udc00"}"#,
    r#""_meta":{"claudecode/toolUseId":"a","claudecode/toolUseId":"b"}"#,
    r#""_meta":{"\ud800":1,"claudecode/toolUseId":"t"}"#,
    r#""\ud800":1"#,
    r#""other":[{}]"#,
    r#""":"name""#,
];

proptest! {
    #[test]
    fn tool_calls_are_read_as_serde_read_them(
        members in prop::collection::vec(prop::sample::select(MEMBERS), 0..5),
        space in "[ \n]{0,1}",
        array in any::<bool>(),
    ) {
        let params = if array {
            format!("[{}]", members.join(","))
        } else {
            format!("{{{space}{}{space}}}", members.join(&format!(",{space}")))
        };
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#
        );
        if let Some((ours, theirs)) = both(&text) {
            prop_assert_eq!(ours, theirs, "{}", text);
        }
    }
}

/// The `params` of the message `text`, whatever its method.
fn params_of(text: &str) -> Option<&RawValue> {
    match parse(text, &RpcLimits::default()) {
        Ok(Message::Request { params, .. } | Message::Notification { params, .. }) => params,
        _ => None,
    }
}

/// `params`: an object of `members` (with `space` around them), or an array of them.
fn params_text(members: &[&str], space: &str, array: bool) -> String {
    if array {
        format!("[{}]", members.join(","))
    } else {
        format!("{{{space}{}{space}}}", members.join(&format!(",{space}")))
    }
}

/// `initialize` params `protocolVersion` members, well and badly formed.
const PROTOCOL_VERSIONS: &[&str] = &[
    r#""protocolVersion":"2025-06-18""#,
    r#""protocolVersion":"2024-11-05""#,
    r#""protocolVersion":"2025\u002d06-18""#,
    r#""protocolVersion":"\ud800""#,
    r#""protocolVersion":1"#,
    r#""protocolVersion":null"#,
    r#""pr\u006ftocolVersion":"1""#,
];

/// `initialize` params `clientInfo` members, well and badly formed.
const CLIENT_INFOS: &[&str] = &[
    r#""clientInfo":{"name":"claude-code","version":"1.0"}"#,
    r#""clientInfo":{"version":"2","name":"c\u006c","other":[{}]}"#,
    r#""clientInfo":{"name":"a","version":"1","name":"b"}"#,
    r#""clientInfo":{"name":"a"}"#,
    r#""clientInfo":{"version":"1"}"#,
    r#""clientInfo":{"name":null,"version":"1"}"#,
    r#""clientInfo":{"name":"a","version":null}"#,
    r#""clientInfo":{"name":"\udc00","version":"1"}"#,
    r#""clientInfo":{"\ud800":1,"name":"a","version":"1"}"#,
    r#""clientInfo":["a","1"]"#,
    r#""clientInfo":[ "a" , "1\u0032" ]"#,
    r#""clientInfo":["a"]"#,
    r#""clientInfo":[]"#,
    r#""clientInfo":["a","1","x"]"#,
    r#""clientInfo":["a",1]"#,
    r#""clientInfo":[["a"],"1"]"#,
    r#""clientInfo":null"#,
    r#""clientInfo":"a""#,
    r#""cl\u0069entInfo":["a","1"]"#,
];

/// Other `initialize` params members.
const INITIALIZE_OTHERS: &[&str] = &[
    r#""capabilities":{"roots":{}}"#,
    r#""\ud800":1"#,
    r#""":"clientInfo""#,
    r#""protocolVersion":"2025-06-18""#,
    r#""clientInfo":["b","2"]"#,
];

/// `notifications/cancelled` params `requestId` members, well and badly formed.
const REQUEST_IDS: &[&str] = &[
    r#""requestId":3"#,
    r#""requestId":-1.5e3"#,
    r#""requestId":"x\u0031""#,
    r#""requestId":null"#,
    r#""requestId":{}"#,
    r#""requestId":[1]"#,
    r#""requestId":true"#,
    r#""request\u0049d":4"#,
];

/// `notifications/cancelled` params `reason` members, well and badly formed.
const REASONS: &[&str] = &[
    r#""reason":"user cancelled""#,
    r#""reason":"a\nb""#,
    r#""reason":"\ud800""#,
    r#""reason":null"#,
    r#""reason":5"#,
    r#""reason":["x"]"#,
];

/// Other `notifications/cancelled` params members.
const CANCELLED_OTHERS: &[&str] = &[
    r#""\ud800":1"#,
    r#""other":{"requestId":1}"#,
    r#""requestId":5"#,
    r#""reason":"again""#,
];

/// Members in any order: at most one of each of `first` and `second`, with a few `others`
/// (which may name them again).
fn members_of(
    first: &'static [&'static str],
    second: &'static [&'static str],
    others: &'static [&'static str],
) -> impl Strategy<Value = Vec<&'static str>> {
    (
        prop::option::weighted(0.9, prop::sample::select(first)),
        prop::option::weighted(0.9, prop::sample::select(second)),
        prop::collection::vec(prop::sample::select(others), 0..3),
    )
        .prop_flat_map(|(first, second, others)| {
            let members: Vec<_> = first.into_iter().chain(second).chain(others).collect();
            Just(members).prop_shuffle()
        })
}

/// Everything a reading of `cancelled` params decided, with whether `reason` was copied.
fn cancelled_verdict(call: Option<(RequestId<'_>, Option<Cow<'_, str>>)>) -> String {
    match call {
        None => "malformed".to_owned(),
        Some((id, reason)) => format!(
            "{} {reason:?} owned={:?}",
            id.as_raw().get(),
            reason.as_ref().map(|text| matches!(text, Cow::Owned(_)))
        ),
    }
}

#[test]
fn the_cli_s_initialize_and_cancel_are_read() {
    let text = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"claude-code","version":"2.0.1"}}}"#;
    let client = client_info(params_of(text)).unwrap();
    assert_eq!((&*client.name, &*client.version), ("claude-code", "2.0.1"));
    assert_eq!(client.protocol_version, negotiate_version("2025-06-18"));
    let text = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"gone"}}"#;
    let (id, reason) = cancelled(params_of(text)).unwrap();
    assert_eq!(id.as_raw().get(), "7");
    assert!(matches!(reason, Some(Cow::Borrowed("gone"))));
}

/// Requests of `method` whose params hold each pair of a `first` and a `second` member, each
/// alone, and none.
fn every_pair(method: &str, first: &[&str], second: &[&str]) -> Vec<String> {
    let with_none = |members: &[&str]| -> Vec<Option<String>> {
        members
            .iter()
            .map(|&member| Some(member.to_owned()))
            .chain([None])
            .collect()
    };
    let mut texts = Vec::new();
    for a in with_none(first) {
        for b in with_none(second) {
            let members: Vec<String> = a.iter().chain(&b).cloned().collect();
            texts.push(format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{}}}}}"#,
                members.join(",")
            ));
        }
    }
    texts
}

#[test]
fn every_pair_of_members_is_read_as_serde_read_it() {
    for text in every_pair("initialize", PROTOCOL_VERSIONS, CLIENT_INFOS) {
        let params = params_of(&text);
        assert_eq!(client_info(params), serde_client_info(params), "{text}");
    }
    for text in every_pair("notifications/cancelled", REQUEST_IDS, REASONS) {
        let params = params_of(&text);
        assert_eq!(
            cancelled_verdict(cancelled(params)),
            cancelled_verdict(serde_cancelled(params)),
            "{text}"
        );
    }
}

proptest! {
    #[test]
    fn initialize_params_are_read_as_serde_read_them(
        members in members_of(PROTOCOL_VERSIONS, CLIENT_INFOS, INITIALIZE_OTHERS),
        space in "[ \n]{0,1}",
        array in any::<bool>(),
    ) {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}"#,
            params_text(&members, &space, array)
        );
        let params = params_of(&text);
        prop_assert_eq!(client_info(params), serde_client_info(params), "{}", text);
    }

    #[test]
    fn cancelled_params_are_read_as_serde_read_them(
        members in members_of(REQUEST_IDS, REASONS, CANCELLED_OTHERS),
        space in "[ \n]{0,1}",
        array in any::<bool>(),
    ) {
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}}"#,
            params_text(&members, &space, array)
        );
        let params = params_of(&text);
        prop_assert_eq!(
            cancelled_verdict(cancelled(params)),
            cancelled_verdict(serde_cancelled(params)),
            "{}",
            text
        );
    }
}
