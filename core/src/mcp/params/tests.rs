//! Tests of `params`: `tool_call` against the serde reading it replaced.

use proptest::prelude::*;

use super::*;
use crate::rpc::{Message, RpcLimits, parse};

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
