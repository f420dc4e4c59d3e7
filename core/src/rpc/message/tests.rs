//! Tests of `message`.

use proptest::prelude::*;

use super::*;
use crate::rpc::write_error;

/// What the server sends back for `text`: the error reply bytes, or a marker.
fn answer_with(text: &str, limits: &RpcLimits) -> String {
    match parse(text, limits) {
        Ok(message) => format!("accepted: {message:?}"),
        Err(invalid) if !invalid.reply => format!("no reply: {}", invalid.error.message),
        Err(invalid) => {
            let mut out = Vec::new();
            write_error(&mut out, invalid.id, &invalid.error);
            String::from_utf8(out).unwrap()
        }
    }
}

fn answer(text: &str) -> String {
    answer_with(text, &RpcLimits::default())
}

fn error(id: &str, code: i32, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

fn nested(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn request_is_borrowed() {
    let text =
        r#" {"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x"},"extra":[1]} "#;
    let Ok(Message::Request {
        id, method, params, ..
    }) = parse(text, &RpcLimits::default())
    else {
        panic!("not a request");
    };
    assert_eq!(id.as_raw().get(), r#""a-1""#);
    assert!(matches!(method, Cow::Borrowed("tools/call")));
    assert_eq!(params.unwrap().get(), r#"{"name":"x"}"#);
}

#[test]
fn escaped_names_are_decoded() {
    let text = r#"{"\u006Asonrpc":"2\u002e0","\u0069d":1,"method":"p\u0069ng"}"#;
    let Ok(Message::Request {
        id, method, params, ..
    }) = parse(text, &RpcLimits::default())
    else {
        panic!("not a request");
    };
    assert_eq!(id.as_raw().get(), "1");
    assert!(matches!(method, Cow::Owned(ref name) if name == "ping"));
    assert!(params.is_none());
}

#[test]
fn notification_and_array_params() {
    let text = r#"{"method":"ide_connected","params":[],"jsonrpc":"2.0"}"#;
    let Ok(Message::Notification { method, params }) = parse(text, &RpcLimits::default()) else {
        panic!("not a notification");
    };
    assert_eq!(method, "ide_connected");
    assert_eq!(params.unwrap().get(), "[]");
}

#[test]
fn responses_are_recognised() {
    let ok = parse(
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        &RpcLimits::default(),
    );
    assert!(
        matches!(ok, Ok(Message::Response { id, outcome: Ok(r) }) if id.as_raw().get() == "4" && r.get() == "{}")
    );
    let err = parse(
        r#"{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}"#,
        &RpcLimits::default(),
    );
    assert!(
        matches!(err, Ok(Message::Response { id, outcome: Err(_) }) if id.as_raw().get() == r#""s""#)
    );
}

#[test]
fn not_json_is_a_parse_error_with_null_id() {
    let parse_error = error("null", -32700, "parse error: the message is not valid JSON");
    for text in [
        "",
        "   ",
        "not json",
        "{",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}{}"#,
        r#"[1,"#,
        r#"{"a":"\x"}"#,
        r#"{'jsonrpc':'2.0'}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\u{1}b\"}",
    ] {
        assert_eq!(answer(text), parse_error, "{text:?}");
    }
}

#[test]
fn json_that_is_not_an_object_is_invalid_with_null_id() {
    let not_object = error("null", -32600, "a message must be a JSON object");
    for text in ["1", "-2.5", r#""str""#, "null", "true", "false"] {
        assert_eq!(answer(text), not_object, "{text}");
    }
}

#[test]
fn batches_get_one_reply() {
    let batch = error("null", -32600, "batch requests are not supported");
    for text in [
        "[]",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "[1,2]",
    ] {
        assert_eq!(answer(text), batch, "{text}");
    }
    assert_eq!(
        answer(&nested(1000)),
        batch,
        "nesting is skipped, not parsed"
    );
}

#[test]
fn jsonrpc_must_be_exactly_2_0() {
    let wrong = error("1", -32600, r#"\"jsonrpc\" must be \"2.0\""#);
    for version in [
        "",
        r#","jsonrpc":"1.0""#,
        r#","jsonrpc":2.0"#,
        r#","jsonrpc":null"#,
        r#","jsonrpc":"2.0 ""#,
    ] {
        let text = format!(r#"{{"id":1,"method":"ping"{version}}}"#);
        assert_eq!(answer(&text), wrong, "{text}");
    }
}

#[test]
fn id_must_be_number_or_string() {
    let wrong = error("null", -32600, r#"\"id\" must be a number or a string"#);
    for id in ["null", "true", "false", "{}", r#"{"a":1}"#, "[]", "[1]"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_eq!(answer(&text), wrong, "{text}");
    }
}

#[test]
fn method_must_be_a_string() {
    for method in ["1", "null", "{}", "[]"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":7,"method":{method}}}"#);
        assert_eq!(
            answer(&text),
            error("7", -32600, r#"\"method\" must be a string"#),
            "{text}"
        );
    }
    // JSON-RPC 2.0 §7 example: no id and a non-string method is answered with a null id.
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#),
        error("null", -32600, r#"\"method\" must be a string"#)
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":7}"#),
        error("7", -32600, r#"missing \"method\""#)
    );
    assert_eq!(
        answer(r#"{}"#),
        error("null", -32600, r#"\"jsonrpc\" must be \"2.0\""#)
    );
}

#[test]
fn params_must_be_object_or_array() {
    for params in ["1", r#""x""#, "null", "true"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":"p","method":"m","params":{params}}}"#);
        assert_eq!(
            answer(&text),
            error(
                r#""p""#,
                -32600,
                r#"\"params\" must be an object or an array"#
            ),
            "{text}"
        );
    }
}

#[test]
fn method_with_result_or_error_is_invalid() {
    let both = error(
        "2",
        -32600,
        r#"a request cannot carry \"result\" or \"error\""#,
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":2,"method":"m","result":1}"#),
        both
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":2,"method":"m","error":{}}"#),
        both
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":2,"method":"m","result":null}"#),
        both
    );
}

#[test]
fn duplicate_members_are_invalid() {
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#),
        error("null", -32600, r#"duplicate member \"id\""#)
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":1,"\u0069d":1,"method":"ping"}"#),
        error("null", -32600, r#"duplicate member \"id\""#)
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}"#),
        error("3", -32600, r#"duplicate member \"method\""#)
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":3,"method":"ping"}"#),
        error("3", -32600, r#"duplicate member \"jsonrpc\""#)
    );
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{},"params":[]}"#),
        error("3", -32600, r#"duplicate member \"params\""#)
    );
    // Unknown members are skipped, duplicated or not.
    assert!(
        answer(r#"{"jsonrpc":"2.0","id":3,"method":"ping","x":1,"x":2}"#).starts_with("accepted")
    );
}

#[test]
fn nesting_is_limited_before_parsing() {
    let deep_params = |levels| {
        format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"m","params":{}}}"#,
            nested(levels)
        )
    };
    assert!(answer(&deep_params(63)).starts_with("accepted"));
    assert_eq!(
        answer(&deep_params(64)),
        error("9", -32600, "nesting deeper than 64 levels")
    );
    assert_eq!(
        answer(&deep_params(100_000)),
        error("9", -32600, "nesting deeper than 64 levels")
    );
    let limits = RpcLimits { max_depth: 2 };
    assert!(
        answer_with(
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
            &limits
        )
        .starts_with("accepted")
    );
    assert_eq!(
        answer_with(
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[]}}"#,
            &limits
        ),
        error("1", -32600, "nesting deeper than 2 levels")
    );
    assert_eq!(
        answer_with(
            r#"{"jsonrpc":"2.0","method":"m","params":{"a":[]}}"#,
            &limits
        ),
        "no reply: nesting deeper than 2 levels"
    );
    // Brackets inside strings are text, not nesting.
    assert!(
        answer_with(
            r#"{"jsonrpc":"2.0","id":1,"method":"[[[[","params":{}}"#,
            &limits
        )
        .starts_with("accepted")
    );
}

#[test]
fn broken_notifications_are_not_answered() {
    for text in [
        r#"{"method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"1.0","method":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"x","params":5}"#,
        r#"{"jsonrpc":"2.0","method":"x","result":5}"#,
        r#"{"jsonrpc":"2.0","method":"x","params":{},"params":{}}"#,
    ] {
        assert!(answer(text).starts_with("no reply: "), "{text}");
    }
}

#[test]
fn broken_responses_are_not_answered() {
    for (text, why) in [
        (
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"a response must carry an \"id\""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{}}"#,
            r#"\"id\" must be a number or a string"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#,
            r#"a response cannot carry both \"result\" and \"error\""#,
        ),
        (r#"{"id":1,"result":1}"#, r#"\"jsonrpc\" must be \"2.0\""#),
    ] {
        assert_eq!(
            answer(text),
            format!("no reply: {}", why.replace('\\', "")),
            "{text}"
        );
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".*".prop_map(Value::String),
        "jsonrpc|id|method|params|result|error|2\\.0|ping".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("jsonrpc|id|method|params|result|error|x|.*", inner, 0..8)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

fn check_invariants(text: &str, limits: &RpcLimits) {
    match parse(text, limits) {
        Ok(Message::Request { id, params, .. }) => {
            assert!(RequestId::from_raw(id.as_raw()).is_some());
            assert!(params.is_none_or(|p| p.get().starts_with(['{', '['])));
        }
        Ok(Message::Notification { params, .. }) => {
            assert!(params.is_none_or(|p| p.get().starts_with(['{', '['])));
        }
        Ok(Message::Response { id, .. }) => assert!(RequestId::from_raw(id.as_raw()).is_some()),
        Err(invalid) => {
            assert!(
                invalid
                    .id
                    .is_none_or(|id| RequestId::from_raw(id.as_raw()).is_some())
            );
            assert!([-32700, -32600].contains(&invalid.error.code));
            assert!(invalid.reply || invalid.error.code == -32600);
        }
    }
}

proptest! {
    #[test]
    fn random_text_never_panics(text in ".*", max_depth in 0usize..8) {
        check_invariants(&text, &RpcLimits { max_depth });
    }

    #[test]
    fn random_json_never_panics(value in json_value(), max_depth in 0usize..8) {
        check_invariants(&value.to_string(), &RpcLimits { max_depth });
    }

    #[test]
    fn random_envelopes_never_panic(
        members in prop::collection::vec(
            ("jsonrpc|id|method|params|result|error|x", json_value()), 0..6),
    ) {
        let body: Vec<String> = members
            .iter()
            .map(|(key, value)| format!("{}:{value}", serde_json::to_string(key).unwrap()))
            .collect();
        check_invariants(&format!("{{{}}}", body.join(",")), &RpcLimits::default());
    }
}

/// Everything `parse` decided about `text`, offsets of the borrowed slices included.
fn verdict(text: &str, result: Result<Message<'_>, Invalid<'_>>) -> String {
    let at = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let raw = |raw: Option<&RawValue>| raw.map(|raw| format!("{}@{}", raw.get(), at(raw)));
    let id = |id: RequestId<'_>| raw(Some(id.as_raw()));
    let method = |method: &Cow<'_, str>| {
        let owned = matches!(method, Cow::Owned(_));
        format!("{method:?} owned={owned}")
    };
    match result {
        Ok(Message::Request {
            id: i,
            method: m,
            params,
            params_members,
        }) => {
            // The recorded members are the members of `params`, read again.
            if let Some(p) = params {
                let again: Vec<_> = crate::json::members(p.get()).collect();
                let recorded: Vec<_> = params_members.iter(p.get()).collect();
                assert_eq!(recorded, again, "{text}");
            }
            format!("request {:?} {} {:?}", id(i), method(&m), raw(params))
        }
        Ok(Message::Notification { method: m, params }) => {
            format!("notification {} {:?}", method(&m), raw(params))
        }
        Ok(Message::Response { id: i, outcome }) => {
            let outcome = outcome.map(|r| raw(Some(r))).map_err(|e| raw(Some(e)));
            format!("response {:?} {outcome:?}", id(i))
        }
        Err(invalid) => format!(
            "invalid {:?} reply={} {} {}",
            invalid.id.map(id),
            invalid.reply,
            invalid.error.code,
            invalid.error.message
        ),
    }
}

/// Raw member values an envelope may carry, well and badly formed.
const VALUES: &[&str] = &[
    r#""2.0""#,
    r#""2\u002e0""#,
    r#""2.00""#,
    "2.0",
    "1",
    "-0",
    "1e5",
    "1.5E-3",
    "1e400",
    "01",
    "null",
    "true",
    "{}",
    "[]",
    r#"{"a":[1,{"b":null}]}"#,
    r#"[[[[[[]]]]]]"#,
    r#""tools/call""#,
    r#""p\u0069ng""#,
    r#""\ud800""#,
    r#""\ud83d\ude00""#,
    r#""a\"b""#,
    r#"{"name":"x","arguments":{}}"#,
    r#""\x""#,
    "\"tab\there\"",
    "[1,]",
    "{\"a\":}",
    "tru",
];

/// Member names, plain, escaped and broken.
const NAMES: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "x",
    r"\u0069d",
    r"me\u0074hod",
    r"\ud800",
    r"\ud800x",
    "ID",
    "",
];

/// An envelope-shaped text, then maybe one edit that can break it anywhere.
fn envelope_like() -> impl Strategy<Value = String> {
    let member = (
        prop::sample::select(NAMES),
        "[ \t]{0,1}",
        prop::sample::select(VALUES),
    )
        .prop_map(|(name, space, value)| format!("\"{name}\"{space}:{space}{value}"));
    let edit = prop_oneof![
        Just(None),
        (any::<prop::sample::Index>(), "[,:{}\\[\\]\"\\\\ 0e.\n]?").prop_map(Some),
    ];
    (prop::collection::vec(member, 0..7), "[ \n]{0,1}", edit).prop_map(|(members, space, edit)| {
        let mut text = format!("{space}{{{}}}{space}", members.join(","));
        if let Some((at, insert)) = edit {
            let chars: Vec<char> = text.chars().collect();
            let at = at.index(chars.len() + 1);
            let mut edited: String = chars[..at.min(chars.len())].iter().collect();
            edited.push_str(&insert);
            // An empty insert deletes the character at `at` instead.
            let skip = usize::from(insert.is_empty());
            edited.extend(chars.iter().skip(at + skip));
            text = edited;
        }
        text
    })
}

fn same_as_serde(text: &str, max_depth: usize) -> Result<(), TestCaseError> {
    let limits = RpcLimits { max_depth };
    prop_assert_eq!(
        verdict(text, parse(text, &limits)),
        verdict(text, super::oracle::parse(text, &limits)),
        "{:?}",
        text
    );
    Ok(())
}

proptest! {
    #[test]
    fn envelopes_are_read_as_serde_json_read_them(text in envelope_like(), max_depth in 0usize..4) {
        same_as_serde(&text, max_depth)?;
    }

    #[test]
    fn json_is_read_as_serde_json_reads_it(value in json_value(), max_depth in 0usize..8) {
        same_as_serde(&value.to_string(), max_depth)?;
    }

    #[test]
    fn any_text_is_read_as_serde_json_reads_it(text in ".{0,16}|[\\[\\]{}\",:0-9a-z ]{0,16}") {
        same_as_serde(&text, 64)?;
    }
}

#[test]
fn corner_cases_are_read_as_serde_json_reads_them() {
    for text in [
        "1e400",
        "-1e400",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "0e99999999999",
        "1e-400",
        "\"\\ud800\"",
        "\"ok\"",
        "[\"\\ud800\"]",
        "{\"\\ud800\":1}",
        "{\"x\":\"\\ud800\"}",
        r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
        r#"{"jsonrpc":"\ud800","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","i\u0064":1,"id":2,"method":"ping"}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u{0}",
        " \t\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n",
        "",
        " ",
        "{",
        "}",
        "[",
        "null",
    ] {
        same_as_serde(text, 64).unwrap();
        same_as_serde(text, 0).unwrap();
    }
}
