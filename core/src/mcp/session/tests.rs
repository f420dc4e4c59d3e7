//! Tests of `session`.

use super::*;
use crate::rpc::{RpcLimits, parse, write_error, write_result, write_result_with};

const TOOLS: &str = r#"[{"name":"openDiff","inputSchema":{"type":"object"}}]"#;

fn server() -> ServerInfo {
    ServerInfo {
        name: "idelink".into(),
        version: "0.1.0".into(),
    }
}

/// Feeds `text` to `session`; returns the reply bytes and the dispatch.
fn feed<'a>(session: &mut Session, text: &'a str) -> (String, Dispatch<'a>) {
    feed_with_tools(session, text, TOOLS)
}

fn feed_with_tools<'a>(
    session: &mut Session,
    text: &'a str,
    tools_json: &'a str,
) -> (String, Dispatch<'a>) {
    let message = parse(text, &RpcLimits::default()).unwrap();
    let server: &'static ServerInfo = Box::leak(Box::new(server()));
    let dispatch = session.handle(message, server, tools_json);
    (written(&dispatch), dispatch)
}

/// The reply the layer above writes for `dispatch` (empty when there is none); a result
/// written by [`McpResult::write_json`] is checked against its serde form, byte for byte.
fn written(dispatch: &Dispatch<'_>) -> String {
    let mut out = Vec::new();
    let result = match dispatch {
        Dispatch::Reply {
            id,
            reply: Ok(result),
        } => Some((id, result)),
        Dispatch::Reply { id, reply: Err(e) } => {
            write_error(&mut out, Some(*id), e);
            None
        }
        Dispatch::Initialize { id, reply, .. } => Some((id, reply)),
        _ => None,
    };
    if let Some((id, result)) = result {
        write_result(&mut out, *id, result);
        let mut ours = Vec::new();
        write_result_with(&mut ours, *id, |out| {
            result.write_json(out);
            Ok::<(), std::convert::Infallible>(())
        });
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&out)
        );
    }
    String::from_utf8(out).unwrap()
}

fn request(id: u32, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

fn notification(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params}}}"#)
}

fn error(id: u32, code: i32, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

const INIT_PARAMS: &str = r#"{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"elicitation":{}},"clientInfo":{"name":"claude-code","version":"2.1.332"}}"#;

fn initialized() -> Session {
    let mut session = Session::new();
    let text = request(0, "initialize", INIT_PARAMS);
    feed(&mut session, &text);
    let text = notification("notifications/initialized", "{}");
    feed(&mut session, &text);
    assert_eq!(session.phase(), Phase::Operational);
    session
}

/// The exchange the claude CLI 2.1.332 opens every connection with.
#[test]
fn cli_transcript() {
    let mut session = Session::new();
    assert_eq!(session.phase(), Phase::AwaitingInitialize);

    let text = request(0, "initialize", INIT_PARAMS);
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"idelink","version":"0.1.0"}}}"#
    );
    let Dispatch::Initialize { client, .. } = dispatch else {
        panic!("{dispatch:?}")
    };
    assert_eq!(
        client,
        ClientInfo {
            name: "claude-code".into(),
            version: "2.1.332".into(),
            protocol_version: "2025-11-25",
        }
    );
    assert_eq!(session.phase(), Phase::AwaitingInitialized);

    let (reply, dispatch) = feed(
        &mut session,
        r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
    );
    assert_eq!(reply, "");
    assert!(matches!(dispatch, Dispatch::Initialized));
    assert_eq!(session.phase(), Phase::Operational);

    let text = notification("ide_connected", r#"{"pid":4242}"#);
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, "");
    let Dispatch::Notification { method, params } = dispatch else {
        panic!("{dispatch:?}")
    };
    assert_eq!(method, "ide_connected");
    assert_eq!(params.unwrap().get(), r#"{"pid":4242}"#);

    let text = request(1, "tools/list", "{}");
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"openDiff","inputSchema":{"type":"object"}}]}}"#
    );
    assert!(matches!(dispatch, Dispatch::Reply { .. }));

    let text = request(
        2,
        "tools/call",
        r#"{"name":"getDiagnostics","arguments":{"uri":"file:///w/a.rs"},"_meta":{"progressToken":2,"claudecode/toolUseId":"toolu_01"}}"#,
    );
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, "");
    let Dispatch::ToolCall(call) = dispatch else {
        panic!("{dispatch:?}")
    };
    assert_eq!(call.id.as_raw().get(), "2");
    assert!(matches!(call.name, Cow::Borrowed("getDiagnostics")));
    assert_eq!(call.arguments.unwrap().get(), r#"{"uri":"file:///w/a.rs"}"#);
    assert!(matches!(call.tool_use_id, Some(Cow::Borrowed("toolu_01"))));
    assert_eq!(session.phase(), Phase::Operational);
}

#[test]
fn initialize_negotiates_the_version() {
    for (requested, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2024-11-05"),
        ("2024-10-07", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut session = Session::new();
        let params = format!(
            r#"{{"protocolVersion":"{requested}","capabilities":{{"extensions":{{"x":1}},"sampling":{{}}}},"clientInfo":{{"name":"c","version":"1","title":"t"}}}}"#
        );
        let text = request(5, "initialize", &params);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(
            reply,
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"result":{{"protocolVersion":"{answered}","capabilities":{{"tools":{{"listChanged":false}}}},"serverInfo":{{"name":"idelink","version":"0.1.0"}}}}}}"#
            )
        );
        assert!(
            matches!(dispatch, Dispatch::Initialize { client, .. } if client.protocol_version == answered)
        );
    }
}

#[test]
fn server_info_is_escaped() {
    let mut session = Session::new();
    let text = request(1, "initialize", INIT_PARAMS);
    let message = parse(&text, &RpcLimits::default()).unwrap();
    let server = ServerInfo {
        name: "a\"b".into(),
        version: "1\\2".into(),
    };
    let dispatch = session.handle(message, &server, TOOLS);
    assert!(written(&dispatch).ends_with(r#""serverInfo":{"name":"a\"b","version":"1\\2"}}}"#));
}

#[test]
fn malformed_initialize_is_invalid_params() {
    let invalid = error(
        3,
        -32602,
        r#"initialize params need a string \"protocolVersion\" and \"clientInfo\" with string \"name\" and \"version\""#,
    );
    let mut session = Session::new();
    for params in [
        "{}",
        "[]",
        r#"["2025-11-25",{},{"name":"c","version":"1"}]"#,
        r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#,
        r#"{"protocolVersion":2025,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c"}}"#,
        r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":1}}"#,
        r#"{"protocolVersion":"2025-11-25","protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}"#,
    ] {
        let text = request(3, "initialize", params);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, invalid, "{params}");
        assert!(matches!(dispatch, Dispatch::Reply { .. }));
        assert_eq!(session.phase(), Phase::AwaitingInitialize);
    }
    let (reply, _) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"method":"initialize"}"#,
    );
    assert_eq!(reply, invalid);
    // Capabilities are not required; a later valid initialize still succeeds.
    let params = r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}"#;
    let text = request(4, "initialize", params);
    let (_, dispatch) = feed(&mut session, &text);
    assert!(matches!(dispatch, Dispatch::Initialize { .. }));
}

#[test]
fn second_initialize_is_refused() {
    let mut session = Session::new();
    let text = request(0, "initialize", INIT_PARAMS);
    feed(&mut session, &text);
    let refused = error(1, -32600, "session already initialized");
    let text = request(1, "initialize", INIT_PARAMS);
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, refused);
    assert!(matches!(dispatch, Dispatch::Reply { .. }));
    assert_eq!(session.phase(), Phase::AwaitingInitialized);

    let mut session = initialized();
    let text = request(1, "initialize", INIT_PARAMS);
    let (reply, _) = feed(&mut session, &text);
    assert_eq!(reply, refused);
    assert_eq!(session.phase(), Phase::Operational);
}

#[test]
fn before_initialize_only_ping_is_served() {
    let mut session = Session::new();
    let text = request(1, "ping", "{}");
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert!(matches!(dispatch, Dispatch::Reply { .. }));
    for method in ["tools/list", "tools/call", "prompts/list", "no/such"] {
        let text = request(2, method, r#"{"name":"x"}"#);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(
            reply,
            error(2, -32002, "server not initialized: send initialize first"),
            "{method}"
        );
        assert!(matches!(dispatch, Dispatch::Reply { .. }));
    }
    for method in [
        "notifications/initialized",
        "ide_connected",
        "notifications/cancelled",
    ] {
        let text = notification(method, r#"{"requestId":2}"#);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, "");
        assert!(matches!(dispatch, Dispatch::Ignored), "{method}");
    }
    assert_eq!(session.phase(), Phase::AwaitingInitialize);
}

#[test]
fn requests_before_initialized_are_served() {
    let mut session = Session::new();
    let text = request(0, "initialize", INIT_PARAMS);
    feed(&mut session, &text);
    let text = request(1, "tools/list", "{}");
    let (reply, _) = feed(&mut session, &text);
    assert!(reply.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":["#));
    let text = request(2, "tools/call", r#"{"name":"x"}"#);
    let (_, dispatch) = feed(&mut session, &text);
    assert!(matches!(dispatch, Dispatch::ToolCall(_)));
    let text = notification("ide_connected", "{}");
    let (_, dispatch) = feed(&mut session, &text);
    assert!(matches!(dispatch, Dispatch::Notification { .. }));
    assert_eq!(session.phase(), Phase::AwaitingInitialized);
}

#[test]
fn fixed_answers() {
    let mut session = initialized();
    for (method, result) in [
        ("ping", "{}"),
        ("prompts/list", r#"{"prompts":[]}"#),
        ("resources/list", r#"{"resources":[]}"#),
        ("resources/templates/list", r#"{"resourceTemplates":[]}"#),
    ] {
        let text = request(9, method, r#"{"cursor":"c"}"#);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(
            reply,
            format!(r#"{{"jsonrpc":"2.0","id":9,"result":{result}}}"#)
        );
        assert!(matches!(dispatch, Dispatch::Reply { .. }));
    }
    let (reply, _) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#,
    );
    assert_eq!(reply, r#"{"jsonrpc":"2.0","id":"p","result":{}}"#);
}

#[test]
fn tool_list_must_be_a_json_array() {
    let mut session = initialized();
    for tools in ["", "{}", "[", "null"] {
        let text = request(4, "tools/list", "{}");
        let (reply, dispatch) = feed_with_tools(&mut session, &text, tools);
        assert_eq!(reply, error(4, -32603, "the tool list is not a JSON array"));
        assert!(matches!(dispatch, Dispatch::Reply { .. }));
    }
    let text = request(4, "tools/list", "{}");
    let (reply, _) = feed_with_tools(&mut session, &text, " [] ");
    assert_eq!(reply, r#"{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}"#);
}

#[test]
fn unknown_methods_are_named() {
    let mut session = initialized();
    let text = request(6, "sampling/createMessage", "{}");
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(
        reply,
        error(6, -32601, "method not found: sampling/createMessage")
    );
    assert!(matches!(dispatch, Dispatch::Reply { .. }));

    let (reply, _) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":6,"method":"a\"\\b"}"#,
    );
    assert_eq!(reply, error(6, -32601, r#"method not found: a\"\\b"#));

    let long = format!("{}é{}", "m".repeat(63), "x".repeat(1000));
    let text = request(6, &long, "{}");
    let (reply, _) = feed(&mut session, &text);
    assert_eq!(
        reply,
        error(6, -32601, &format!("method not found: {}…", "m".repeat(63)))
    );
    let exact = "m".repeat(64);
    let text = request(6, &exact, "{}");
    let (reply, _) = feed(&mut session, &text);
    assert_eq!(
        reply,
        error(6, -32601, &format!("method not found: {exact}"))
    );
}

#[test]
fn tool_call_params_are_checked() {
    let invalid = error(
        8,
        -32602,
        r#"tools/call params need a string \"name\" and, if any, object \"arguments\""#,
    );
    let mut session = initialized();
    for params in [
        "{}",
        "[]",
        r#"["openFile",{}]"#,
        r#"{"name":5}"#,
        r#"{"name":null}"#,
        r#"{"arguments":{}}"#,
        r#"{"name":"x","arguments":[]}"#,
        r#"{"name":"x","arguments":"{}"}"#,
        r#"{"name":"x","arguments":1}"#,
        r#"{"name":"x","name":"y"}"#,
    ] {
        let text = request(8, "tools/call", params);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, invalid, "{params}");
        assert!(matches!(dispatch, Dispatch::Reply { .. }));
    }
    let (reply, _) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#,
    );
    assert_eq!(reply, invalid);
}

#[test]
fn tool_call_optional_parts() {
    let mut session = initialized();
    for params in [
        r#"{"name":"closeAllDiffTabs"}"#,
        r#"{"name":"closeAllDiffTabs","arguments":null,"_meta":null}"#,
        r#"{"name":"closeAllDiffTabs","_meta":{"progressToken":"t","other":[1]}}"#,
        r#"{"name":"closeAllDiffTabs","_meta":{"claudecode/toolUseId":7}}"#,
        r#"{"name":"closeAllDiffTabs","_meta":[]}"#,
        r#"{"name":"closeAllDiffTabs","_meta":"t"}"#,
    ] {
        let text = request(1, "tools/call", params);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, "");
        let Dispatch::ToolCall(call) = dispatch else {
            panic!("{params}: {dispatch:?}")
        };
        assert_eq!(call.name, "closeAllDiffTabs");
        assert!(call.arguments.is_none());
        assert!(call.tool_use_id.is_none());
    }
    let text = request(
        1,
        "tools/call",
        r#"{"name":"open\u0046ile","_meta":{"claudecode/toolUseId":"t\u005f1"}}"#,
    );
    let (_, dispatch) = feed(&mut session, &text);
    let Dispatch::ToolCall(call) = dispatch else {
        panic!("{dispatch:?}")
    };
    assert!(matches!(call.name, Cow::Owned(ref name) if name == "openFile"));
    assert!(matches!(call.tool_use_id, Some(Cow::Owned(ref id)) if id == "t_1"));
}

#[test]
fn cancellation() {
    let mut session = initialized();
    let text = notification(
        "notifications/cancelled",
        r#"{"requestId":"abc","reason":"user interrupted"}"#,
    );
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, "");
    let Dispatch::Cancelled { request_id, reason } = dispatch else {
        panic!("{dispatch:?}")
    };
    assert_eq!(request_id.as_raw().get(), r#""abc""#);
    assert!(matches!(reason, Some(Cow::Borrowed("user interrupted"))));

    let text = notification("notifications/cancelled", r#"{"requestId":12}"#);
    let (_, dispatch) = feed(&mut session, &text);
    assert!(matches!(
        dispatch,
        Dispatch::Cancelled { request_id, reason: None } if request_id.as_raw().get() == "12"
    ));

    for params in [
        "{}",
        "[12]",
        r#"{"requestId":null}"#,
        r#"{"requestId":true}"#,
        r#"{"requestId":{}}"#,
        r#"{"requestId":1,"reason":5}"#,
    ] {
        let text = notification("notifications/cancelled", params);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, "");
        assert!(matches!(dispatch, Dispatch::Ignored), "{params}");
    }
    let (_, dispatch) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
    );
    assert!(matches!(dispatch, Dispatch::Ignored));
}

#[test]
fn notifications_are_never_answered() {
    let mut session = initialized();
    // Every MCP notification is handled (or dropped) here, answered or not.
    let text = notification("notifications/roots/list_changed", "{}");
    let (reply, dispatch) = feed(&mut session, &text);
    assert_eq!(reply, "");
    assert!(matches!(dispatch, Dispatch::RootsListChanged));
    for method in [
        "notifications/initialized",
        "notifications/progress",
        "notifications/unknown",
    ] {
        let text = notification(method, INIT_PARAMS);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, "", "{method}");
        assert!(matches!(dispatch, Dispatch::Ignored), "{method}");
    }
    // Anything else goes up, even when it names a request method.
    for method in ["tools/list", "initialize", "ping", "selection_changed"] {
        let text = notification(method, INIT_PARAMS);
        let (reply, dispatch) = feed(&mut session, &text);
        assert_eq!(reply, "", "{method}");
        assert!(
            matches!(dispatch, Dispatch::Notification { method: ref m, .. } if m == method),
            "{method}"
        );
    }
    assert_eq!(session.phase(), Phase::Operational);
}

#[test]
fn client_responses_go_up_unanswered_once_initialized() {
    let mut session = Session::new();
    let response = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let (reply, dispatch) = feed(&mut session, response);
    assert_eq!(reply, "");
    assert!(matches!(dispatch, Dispatch::Ignored));
    let mut session = initialized();
    let (reply, dispatch) = feed(&mut session, response);
    assert_eq!(reply, "");
    assert!(
        matches!(dispatch, Dispatch::Response { id, outcome: Ok(result) } if id.as_raw().get() == "1" && result.get() == "{}")
    );
    let (_, dispatch) = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}"#,
    );
    assert!(matches!(
        dispatch,
        Dispatch::Response {
            outcome: Err(_),
            ..
        }
    ));
}

#[test]
fn the_roots_capability_is_read_from_initialize() {
    let declares = |capabilities: &str| {
        let params = format!(
            r#"{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"c","version":"1"}}}}"#
        );
        let text = request(0, "initialize", &params);
        let (_, dispatch) = feed(&mut Session::new(), &text);
        matches!(dispatch, Dispatch::Initialize { roots: true, .. })
    };
    assert!(declares(r#"{"roots":{},"elicitation":{}}"#));
    assert!(declares(r#"{"roots":{"listChanged":true}}"#));
    for capabilities in [
        r#"{}"#,
        r#"{"roots":true}"#,
        r#"{"roots":null}"#,
        r#"[]"#,
        "1",
    ] {
        assert!(!declares(capabilities), "{capabilities}");
    }
}

#[test]
fn replies_come_back_as_values() {
    let mut session = Session::new();
    let text = request(1, "tools/list", "{}");
    let (_, dispatch) = feed(&mut session, &text);
    let Dispatch::Reply {
        id,
        reply: Err(error),
    } = dispatch
    else {
        panic!("{dispatch:?}")
    };
    assert_eq!(id.as_raw().get(), "1");
    assert_eq!(error.code, RpcError::SERVER_NOT_INITIALIZED);
}
