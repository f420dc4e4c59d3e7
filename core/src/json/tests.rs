//! Tests of the one JSON reader against serde_json: the scanner's verdicts and the depth it
//! measures, the string decoder, the member and element walks, and the escaping.

use std::borrow::Cow;
use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::scan::INLINE_LEVELS;
use super::string::{LONE_SURROGATE, NOT_A_STRING};
use super::*;

/// Whether the reader takes `text` as one JSON value, and the deepest nesting in it.
fn read(text: &str) -> Option<usize> {
    let mut reader = Reader::new(text);
    reader.value().ok()?;
    reader.at_end().then(|| reader.deepest())
}

/// serde_json's verdict when it skips a value (what it does to every raw value of a message).
fn serde_reads(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

#[test]
fn grammar_follows_rfc_8259() {
    for text in [
        "1",
        "-0",
        "0.5",
        "1e5",
        "1E+5",
        "-1.5e-07",
        r#""""#,
        r#""\u00e9\n\/""#,
        "true",
        "false",
        "null",
        "[]",
        "{}",
        " [1, {\"a\": [null]}]\r\n\t",
        r#"{"":0}"#,
        "1e400",
        r#""\ud800""#,
        r#"{"a":{"a":1},"a":2}"#,
    ] {
        assert!(read(text).is_some(), "{text}");
        assert!(serde_reads(text), "{text}");
    }
    for text in [
        "",
        " ",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "0x1",
        "tru",
        "nul",
        "True",
        "[1,]",
        "{\"a\":1,}",
        "[,1]",
        "{,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{1:2}",
        "[1 2]",
        "[1}",
        "{]",
        "\"a",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"a\u{1}b\"",
        "\"tab\there\"",
        "1 2",
        "[] x",
        "[",
        "{",
        "[[]",
        "\u{a0}1",
        "1\u{feff}",
        "/* c */ 1",
        "NaN",
        "Infinity",
    ] {
        assert!(read(text).is_none(), "{text:?}");
        assert!(!serde_reads(text), "{text:?}");
    }
}

#[test]
fn depth_counts_arrays_and_objects_not_strings() {
    assert_eq!(read("1"), Some(0));
    assert_eq!(read("{}"), Some(1));
    assert_eq!(read(r#"{"a":[{"b":[]}]}"#), Some(4));
    assert_eq!(read("[[],[],[[]],{}]"), Some(3));
    assert_eq!(read(r#"{"a":"[[[[{{{{"}"#), Some(1));
    assert_eq!(read(r#"{"a":"\"[[[["}"#), Some(1));
    assert_eq!(read(r#"[["\\",[]]]"#), Some(3));
}

#[test]
fn deep_nesting_spills_past_the_inline_stack() {
    for levels in [INLINE_LEVELS - 1, INLINE_LEVELS, INLINE_LEVELS + 1, 5000] {
        let arrays = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(read(&arrays), Some(levels));
        let objects = format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels));
        assert_eq!(read(&objects), Some(levels));
        let mixed = format!("{}1{}", "[{\"a\":".repeat(levels), "}]".repeat(levels));
        assert_eq!(read(&mixed), Some(2 * levels));
        // The bracket kind is remembered at every level: a wrong closer deep down fails.
        let wrong = format!("{}1{}", "[{\"a\":".repeat(levels), "]}".repeat(levels));
        assert_eq!(read(&wrong), None);
    }
}

#[test]
fn long_strings_are_read_word_by_word() {
    let long = "x[{\\n".repeat(100_000);
    assert_eq!(read(&format!(r#"{{"a":"{long}","b":[[]]}}"#)), Some(3));
    assert_eq!(read(&format!("\"{long}\u{1}\"")), None);
    assert_eq!(read(&format!("\"{long}\\q\"")), None);
    assert_eq!(read(&format!("\"{long}")), None);
}

#[test]
fn decode_borrows_plain_strings_and_refuses_lone_surrogates() {
    assert!(matches!(decode(r#""abc""#), Ok(Cow::Borrowed("abc"))));
    assert!(matches!(decode(r#""a\u0062c""#), Ok(Cow::Owned(ref s)) if s == "abc"));
    assert_eq!(
        decode(r#""\"\\\/\b\f\n\r\t""#).as_deref(),
        Ok("\"\\/\u{8}\u{c}\n\r\t")
    );
    assert_eq!(decode(r#""\ud83d\ude00""#).as_deref(), Ok("😀"));
    assert_eq!(decode(r#""\uD83D\uDE00""#).as_deref(), Ok("😀"));
    for lone in [
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud800\n""#,
        r#""\ud800x""#,
        r#""\ud800\u0041""#,
        r#""\ud800\ud800""#,
    ] {
        assert_eq!(decode(lone), Err(LONE_SURROGATE), "{lone}");
    }
    assert_eq!(decode("1"), Err(NOT_A_STRING));
    assert_eq!(decode("null"), Err(NOT_A_STRING));
    assert_eq!(decode(r#""\u+123""#), Err(NOT_A_STRING));
    assert_eq!(decode(r#""\ud83d\u+e00""#), Err(NOT_A_STRING));
    assert_eq!(decode(r#""\q""#), Err(NOT_A_STRING));
    assert_eq!(decode(r#""\""#), Err(NOT_A_STRING));
}

#[test]
fn members_are_read_in_order() {
    let object = r#"{"a" : 1 ,"b\"":"}", "c":[{"]":1}] , "d":{"e":[]},"\u0066":true}"#;
    let read: Vec<_> = members(object)
        .map(|member| (member.name.text().unwrap().into_owned(), member.value))
        .collect();
    let expected = [
        ("a", "1"),
        ("b\"", r#""}""#),
        ("c", r#"[{"]":1}]"#),
        ("d", r#"{"e":[]}"#),
        ("f", "true"),
    ];
    assert_eq!(read.len(), expected.len());
    for ((name, value), (want_name, want_value)) in read.iter().zip(expected) {
        assert_eq!((name.as_str(), *value), (want_name, want_value));
    }
    assert_eq!(members("{}").count(), 0);
    assert_eq!(members("[1]").count(), 0);
    assert_eq!(members(r#"{"a""#).count(), 0);
    assert_eq!(members(r#"{"a":[1"#).count(), 0);
    assert_eq!(members(r#"{"a":1 "b":2}"#).count(), 1);
    assert_eq!(
        members(r#"{"\ud800":1}"#).next().unwrap().name.text(),
        Err(LONE_SURROGATE)
    );
}

#[test]
fn elements_are_read_in_order() {
    let array = r#"[ 1 ,"]",[{"a":[2]}] , {"b":{}},"\u0063" ]"#;
    let read: Vec<_> = elements(array).collect();
    assert_eq!(
        read,
        [
            "1",
            r#""]""#,
            r#"[{"a":[2]}]"#,
            r#"{"b":{}}"#,
            r#""\u0063""#
        ]
    );
    assert_eq!(elements("[]").count(), 0);
    assert_eq!(elements("[ ]").count(), 0);
    assert_eq!(elements(r#"{"a":1}"#).count(), 0);
    assert_eq!(elements("[1").count(), 1);
    assert_eq!(elements("[1 2]").count(), 1);
}

/// JSON-like text: mostly valid values, with every way of breaking them mixed in.
fn json_like() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| serde_json::Value::from(n).to_string()),
        "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?",
        "[-+.eE0-9]{1,6}",
        "\"([a-z\\[\\]{}:,]|\\\\[\"\\\\/bfnrtu]|\\\\u[0-9a-fA-FdD]{4}|\\\\[x0]|\t|\u{1}|é){0,6}\"?",
        "[tfnrueals]{1,5}",
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        let member = ("\"[a-z\\\\u0-9]{0,4}\"", "[ :]{0,2}", inner.clone())
            .prop_map(|(name, colon, value)| format!("{name}{colon}{value}"));
        prop_oneof![
            (prop::collection::vec(inner, 0..5), "[ ,]{0,2}", "[\\]}]?")
                .prop_map(|(items, comma, close)| format!("[{}{comma}{close}", items.join(","))),
            (prop::collection::vec(member, 0..5), "[ ,]{0,2}", "[\\]}]?")
                .prop_map(|(items, comma, close)| format!("{{{}{comma}{close}", items.join(","))),
        ]
    })
    .prop_map(|text| text)
}

proptest! {
    #[test]
    fn verdict_is_serde_json_s(text in json_like(), space in "[ \t\r\n]{0,2}") {
        let text = format!("{space}{text}{space}");
        prop_assert_eq!(read(&text).is_some(), serde_reads(&text), "{:?}", text);
    }

    #[test]
    fn verdict_on_any_text_is_serde_json_s(text in ".{0,24}") {
        prop_assert_eq!(read(&text).is_some(), serde_reads(&text), "{:?}", text);
    }

    #[test]
    fn decode_is_serde_json_s(text in json_like()) {
        if let Some(raw) = text.starts_with('"').then_some(&text).filter(|t| read(t).is_some()) {
            let theirs = serde_json::from_str::<String>(raw).ok();
            prop_assert_eq!(decode(raw).ok().map(Cow::into_owned), theirs, "{:?}", raw);
        }
    }
}

/// What serde_json makes of an object: names and raw value texts, the last of a name kept.
fn reference(object: &str) -> BTreeMap<String, String> {
    let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(object).unwrap();
    map.into_iter()
        .map(|(k, v)| (k, v.get().to_owned()))
        .collect()
}

/// What [`members`] makes of the same object, the last of a name kept.
fn walked(object: &str) -> BTreeMap<String, String> {
    members(object)
        .map(|member| {
            (
                member.name.text().unwrap().into_owned(),
                member.value.to_owned(),
            )
        })
        .collect()
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e6f64..1e6).prop_map(serde_json::Value::from),
        "[a-z\"\\\\/\u{e9}\u{1}\n{}\\[\\],:]{0,12}".prop_map(serde_json::Value::from),
        // Long enough for the trusted walk's `memchr` search, with escaped quotes in it.
        "[a-z\"\\\\]{30,80}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn members_are_what_serde_json_reads(
        entries in prop::collection::btree_map("[a-z\"\\\\é]{0,5}", json_value(), 0..5),
        pretty in any::<bool>(),
    ) {
        let object = serde_json::Value::Object(entries.into_iter().collect());
        let text = if pretty {
            serde_json::to_string_pretty(&object).unwrap()
        } else {
            serde_json::to_string(&object).unwrap()
        };
        prop_assert_eq!(walked(&text), reference(&text));
    }

    #[test]
    fn elements_are_what_serde_json_reads(items in prop::collection::vec(json_value(), 0..5)) {
        let text = serde_json::to_string(&items).unwrap();
        let theirs: Vec<Box<RawValue>> = serde_json::from_str(&text).unwrap();
        let theirs: Vec<&str> = theirs.iter().map(|raw| raw.get()).collect();
        prop_assert_eq!(elements(&text).collect::<Vec<_>>(), theirs);
    }

    #[test]
    fn any_text_is_walked_or_refused_without_panicking(text in "\\PC{0,40}") {
        for member in members(&text) {
            let _ = member.name.text();
        }
        let _ = elements(&text).count();
        let _ = decode(&text);
        let _ = string_end(text.as_bytes(), 0);
    }

    #[test]
    fn any_string_survives_encoding_and_decoding(text in any::<String>()) {
        let json = serde_json::to_string(&text).unwrap();
        prop_assert_eq!(decode(&json).map(Cow::into_owned), Ok(text));
    }

    #[test]
    fn unicode_escapes_decode_as_serde_json_does(units in prop::collection::vec(0u16..=0xffff, 0..6)) {
        let json: String = std::iter::once("\"".to_owned())
            .chain(units.iter().map(|u| format!("\\u{u:04x}")))
            .chain(std::iter::once("\"".to_owned()))
            .collect();
        let ours = decode(&json).ok().map(Cow::into_owned);
        let theirs = serde_json::from_str::<String>(&json).ok();
        prop_assert_eq!(ours, theirs);
    }
}

#[test]
fn duplicate_names_keep_the_last_value() {
    let text = r#"{"a":1,"a":[2, {"x":"]"}] , "b" : "\"}" }"#;
    assert_eq!(walked(text), reference(text));
    assert_eq!(walked(text)["a"], r#"[2, {"x":"]"}]"#);
}

#[test]
fn escaped_names_are_decoded() {
    let text = r#"{"a\u0062":true,"c\"":null}"#;
    assert_eq!(walked(text), reference(text));
}

#[test]
fn strings_end_at_the_first_unescaped_quote_short_or_long() {
    for pad in [0, 5, 31, 32, 33, 100] {
        for run in 0..5 {
            let contents = format!("{}{}\"", "a".repeat(pad), "\\".repeat(run));
            let text = format!("{contents} tail\" rest");
            // An even run of backslashes leaves the quote unescaped.
            let expected = if run % 2 == 0 {
                contents.len()
            } else {
                contents.len() + " tail\"".len()
            };
            assert_eq!(string_end(text.as_bytes(), 0), expected, "{pad} {run}");
        }
    }
    assert_eq!(string_end(b"abc", 0), 3);
    assert_eq!(string_end(&[b'a'; 100], 0), 100);
}

#[test]
fn a_trusted_walk_crosses_long_strings_with_escaped_quotes() {
    for pad in [0, 31, 32, 33, 100] {
        let value = serde_json::to_string(&format!("{}\"}}\\\",{}", "a".repeat(pad), "x")).unwrap();
        let object = format!(r#"{{"s":{value},"t":[1]}}"#);
        assert_eq!(walked(&object), reference(&object), "{pad}");
    }
}

proptest! {
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them(
        text in "[a-z\"\\\\\\x00-\\x1f\\x7f é✻]{0,40}",
    ) {
        let mut ours = Vec::new();
        escape_into(&mut ours, text.as_bytes());
        let theirs = serde_json::to_string(&text).unwrap();
        prop_assert_eq!(String::from_utf8(ours).unwrap(), &theirs[1..theirs.len() - 1]);
    }
}

#[test]
fn every_byte_escapes_as_serde_json_escapes_it_at_every_offset() {
    for byte in 0..=0x7fu8 {
        for pad in 0..17 {
            let text = format!("{}{}{}", "a".repeat(pad), char::from(byte), "b".repeat(9));
            let mut ours = Vec::new();
            escape_into(&mut ours, text.as_bytes());
            let theirs = serde_json::to_string(&text).unwrap();
            assert_eq!(
                ours,
                theirs.as_bytes()[1..theirs.len() - 1],
                "{byte:#x} at {pad}"
            );
        }
    }
}

/// serde_json's escaping of `text` as a string's contents, applied twice.
fn serde_twice(text: &str) -> String {
    let once = serde_json::to_string(text).unwrap();
    let twice = serde_json::to_string(&once[1..once.len() - 1]).unwrap();
    twice[1..twice.len() - 1].to_owned()
}

#[test]
fn every_byte_escapes_twice_as_serde_json_escapes_it_twice_at_every_offset() {
    for byte in 0..=0x7fu8 {
        for pad in 0..17 {
            let text = format!("{}{}{}", "a".repeat(pad), char::from(byte), "b".repeat(9));
            let mut ours = Vec::new();
            escape_twice_into(&mut ours, text.as_bytes());
            assert_eq!(ours, serde_twice(&text).as_bytes(), "{byte:#x} at {pad}");
        }
    }
}

proptest! {
    #[test]
    fn strings_are_escaped_twice_as_serde_json_escapes_them_twice(
        text in prop_oneof![
            any::<String>(),
            "[a-z\"\\\\\\x00-\\x1f\\x7f é✻\u{2028}\u{2029}]{0,40}",
        ],
    ) {
        let mut ours = Vec::new();
        escape_twice_into(&mut ours, text.as_bytes());
        prop_assert_eq!(String::from_utf8(ours).unwrap(), serde_twice(&text));
    }

    #[test]
    fn integers_are_written_as_serde_json_writes_them(n in any::<u64>()) {
        let mut ours = Vec::new();
        push_u64(&mut ours, n);
        prop_assert_eq!(ours, serde_json::to_vec(&n).unwrap());
    }
}
