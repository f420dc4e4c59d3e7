//! The owned diagnostic code: strings and integers as serde reads them, odd codes kept as
//! their text by core's reader and as serde_json's text by serde, both meaning what
//! serde_json reads.

use super::*;

fn json(code: &DiagnosticCode) -> String {
    serde_json::to_string(code).unwrap()
}

#[test]
fn strings_and_integers_read_as_themselves_both_ways() {
    for (text, code) in [
        (r#""E0308""#, DiagnosticCode::from("E0308")),
        (r#""a\"b""#, DiagnosticCode::from(String::from("a\"b"))),
        ("2322", DiagnosticCode::from(2322)),
        ("-7", DiagnosticCode::from(-7i64)),
        ("9223372036854775807", DiagnosticCode::from(i64::MAX)),
        ("-9223372036854775808", DiagnosticCode::from(i64::MIN)),
    ] {
        assert_eq!(
            DiagnosticCode::from_json(text),
            Some(code.clone()),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<DiagnosticCode>(text).unwrap(), code);
        assert_eq!(json(&code), text);
    }
}

#[test]
fn odd_codes_keep_their_text_in_core_and_serde_json_text_in_serde() {
    for (given, serde) in [
        ("1.50", "1.5"),
        ("1e2", "100.0"),
        ("-0", "-0.0"),
        ("9223372036854775808", "9223372036854775808"),
        ("true", "true"),
        (r#"{"b":1, "a":[2]}"#, r#"{"a":[2],"b":1}"#),
        (r#"{"a":1,"a":2}"#, r#"{"a":2}"#),
        (r#"["\u0041"]"#, r#"["A"]"#),
    ] {
        let Some(DiagnosticCode::Json(ours)) = DiagnosticCode::from_json(&format!(" {given}\n"))
        else {
            panic!("{given} is an odd code");
        };
        assert_eq!(ours.as_str(), given);
        let read: DiagnosticCode = serde_json::from_str(given).unwrap();
        assert_eq!(
            read,
            DiagnosticCode::Json(JsonCode(serde.to_owned())),
            "{given}"
        );
        // Both mean the value serde_json reads, and serde writes that value.
        assert_eq!(json(&DiagnosticCode::Json(ours)), serde);
        assert_eq!(json(&read), serde);
    }
    assert_eq!(
        Some(DiagnosticCode::from(u64::MAX)),
        DiagnosticCode::from_json("18446744073709551615")
    );
}

#[test]
fn what_serde_json_refuses_is_no_code() {
    for text in [
        "",
        "null",
        "1e400",
        r#""\ud800""#,
        r#"[" \udc00"]"#,
        "[1",
        "1 2",
        "+1",
    ] {
        assert_eq!(DiagnosticCode::from_json(text), None, "{text}");
    }
    let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert_eq!(DiagnosticCode::from_json(&deep), None);
    let deepest = format!("{}{}", "[".repeat(127), "]".repeat(127));
    assert!(DiagnosticCode::from_json(&deepest).is_some());
}
