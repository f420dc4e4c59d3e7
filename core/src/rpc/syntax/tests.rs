//! Tests of `syntax`: the reader against serde_json's verdicts, the depth it measures, the
//! string decoding and the member and element iterators.

use proptest::prelude::*;
use serde::de::IgnoredAny;

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
    assert!(matches!(decode(r#""abc""#), Some(Cow::Borrowed("abc"))));
    assert!(matches!(decode(r#""a\u0062c""#), Some(Cow::Owned(ref s)) if s == "abc"));
    assert_eq!(
        decode(r#""\"\\\/\b\f\n\r\t""#).as_deref(),
        Some("\"\\/\u{8}\u{c}\n\r\t")
    );
    assert_eq!(decode(r#""\ud83d\ude00""#).as_deref(), Some("😀"));
    assert_eq!(decode(r#""\uD83D\uDE00""#).as_deref(), Some("😀"));
    for lone in [
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud800\n""#,
        r#""\ud800x""#,
        r#""\ud800\u0041""#,
        r#""\ud800\ud800""#,
    ] {
        assert_eq!(decode(lone), None, "{lone}");
    }
    assert_eq!(decode("1"), None);
    assert_eq!(decode("null"), None);
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
    assert_eq!(members(r#"{"\ud800":1}"#).next().unwrap().name.text(), None);
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
            prop_assert_eq!(decode(raw).map(Cow::into_owned), theirs, "{:?}", raw);
        }
    }
}
