use super::*;

#[test]
fn roots_are_file_uris_decoded_normalized_and_deduplicated() {
    let posix = |result| roots_of(result, PathStyle::Posix);
    assert_eq!(
        posix(
            r#"{"roots":[{"uri":"file:///a%20b/","name":"x"},{"uri":"file:///a b"},{"uri":"file:///c"}]}"#
        ),
        Some(vec!["/a b".into(), "/c".into()])
    );
    assert_eq!(posix(r#"{"roots":[]}"#), Some(vec![]));
    assert_eq!(
        posix(r#"{"roots":[{"uri":"file:///"}]}"#),
        Some(vec!["/".into()])
    );
    assert_eq!(
        roots_of(
            r#"{"roots":[{"uri":"file:///c:/Work/"}]}"#,
            PathStyle::Windows
        ),
        Some(vec!["C:/Work".into()])
    );
    for bad in [
        r#"{}"#,
        r#"{"roots":{}}"#,
        r#"[]"#,
        r#"{"roots":null}"#,
        "7",
    ] {
        assert_eq!(posix(bad), None, "{bad}");
    }
    let many: Vec<String> = (0..MAX_SESSION_ROOTS + 5)
        .map(|i| format!(r#"{{"uri":"file:///r{i}"}}"#))
        .collect();
    let many = format!(r#"{{"roots":[{}]}}"#, many.join(","));
    assert_eq!(posix(&many).map(|f| f.len()), Some(MAX_SESSION_ROOTS));
}

#[test]
fn a_folder_holds_whole_components_below_it() {
    assert!(holds("/a", "/a"));
    assert!(holds("/a", "/a/b.rs"));
    assert!(holds("/a/", "/a/b.rs"));
    assert!(!holds("/a", "/ab/c.rs"));
    assert!(!holds("/a/b", "/a"));
    assert!(holds("/", "/x"));
    assert!(holds("C:/", "C:/x"));
    assert!(holds("C:/w", "C:/w/x"));
    assert!(!holds("C:/w", "D:/w/x"));
}

#[test]
fn routes_by_rule_and_by_choice() {
    let (a, b) = (ConnId(1), ConnId(2));
    let fa = vec!["/a".to_owned()];
    let ws = vec!["/w".to_owned()];
    let go = |routing, chosen, file, mention, conn, folders: Option<&[String]>| {
        routes(routing, chosen, file, mention, &ws, conn, folders)
    };
    assert!(go(
        Routing::Broadcast,
        None,
        Some("/z"),
        false,
        a,
        Some(&fa)
    ));
    assert!(go(Routing::Roots, None, Some("/a/x"), false, a, Some(&fa)));
    assert!(!go(Routing::Roots, None, Some("/b/x"), false, a, Some(&fa)));
    // Unknown folders: the workspace's; none configured: every file.
    assert!(go(Routing::Roots, None, Some("/w/x"), false, a, None));
    assert!(!go(Routing::Roots, None, Some("/b/x"), false, a, None));
    assert!(routes(
        Routing::Roots,
        None,
        Some("/b/x"),
        false,
        &[],
        a,
        None
    ));
    // No file: everyone.
    assert!(go(Routing::Roots, None, None, false, a, Some(&fa)));
    // The choice: every push under `chosen`, mentions under every rule.
    let chosen = Some(Chosen::Conn(b));
    assert!(!go(
        Routing::Chosen,
        chosen,
        Some("/a/x"),
        false,
        a,
        Some(&fa)
    ));
    assert!(go(Routing::Chosen, chosen, Some("/a/x"), false, b, None));
    assert!(go(Routing::Broadcast, chosen, Some("/a/x"), false, a, None));
    assert!(!go(Routing::Broadcast, chosen, Some("/a/x"), true, a, None));
    assert!(!go(
        Routing::Roots,
        Some(Chosen::Absent),
        Some("/a/x"),
        true,
        a,
        Some(&fa)
    ));
    // Nothing chosen under `chosen`: everyone.
    assert!(go(Routing::Chosen, None, Some("/a/x"), true, a, None));
}
