//! The C ABI called as C calls it (through the exported functions): status codes and messages
//! for bad arguments and misuse, the headless rule, the lock file's lifecycle, and the waker.
#![expect(
    unsafe_code,
    clippy::undocumented_unsafe_blocks,
    reason = "calls the C ABI; each call passes live pointers to locals and NUL-terminated literals"
)]

use idelink::*;
use std::ffi::{CStr, CString, c_char};
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

mod support;

fn last_error() -> String {
    unsafe { CStr::from_ptr(idelink_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("idelink-c-abi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn start(config: &str) -> (IdelinkStatus, *mut IdelinkHost) {
    let config = CString::new(config).unwrap_or_default();
    let mut host = null_mut();
    let status = unsafe { idelink_host_start(config.as_ptr(), &mut host) };
    (status, host)
}

#[test]
fn a_headless_run_opens_nothing_unless_it_opts_in() {
    let locks = temp_dir("headless");
    let dir = locks.to_string_lossy().into_owned();
    let (status, host) = start(&format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/p"],"headless":true,"lock":{{"dir":"{dir}"}}}}"#
    ));
    assert_eq!(status, IdelinkStatus::IdelinkErrorHeadless);
    assert!(host.is_null());
    assert!(
        last_error().contains("\"serveWhenHeadless\":true"),
        "{}",
        last_error()
    );
    assert!(
        !locks.exists(),
        "a headless run must not create the lock folder"
    );

    let (status, host) = start(&format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/p"],"headless":true,"serveWhenHeadless":true,"lock":{{"dir":"{dir}"}}}}"#
    ));
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let mut port = 0_u16;
    assert_eq!(
        unsafe { idelink_host_port(host, &mut port) },
        IdelinkStatus::IdelinkOk
    );
    let lock = locks.join(format!("{port}.lock"));
    assert!(lock.exists(), "the opted-in host writes {}", lock.display());
    unsafe { idelink_host_shutdown(host, 0) };
    unsafe { idelink_host_free(host) };
    assert!(!lock.exists(), "shutdown and free remove the lock");
    let _ = std::fs::remove_dir_all(&locks);
}

#[test]
fn bad_arguments_and_misuse_are_statuses_with_messages() {
    let (status, _) = start(r#"{"ideName":"Ed","workspaceFolders":[],"lockDir":"/x"}"#);
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(
        last_error().contains("unknown field `lockDir`"),
        "{}",
        last_error()
    );
    assert_eq!(
        unsafe { idelink_host_start(null(), null_mut()) },
        IdelinkStatus::IdelinkErrorInvalidArgument
    );

    let mut engine = null_mut();
    let token = c"00112233445566778899aabbccddeeff";
    let status =
        unsafe { idelink_engine_new(c"{\"port\":1}".as_ptr(), token.as_ptr(), &mut engine) };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    assert_eq!(
        unsafe { idelink_engine_handle_sent(engine, 9, 1) },
        IdelinkStatus::IdelinkErrorMisuse
    );
    assert!(last_error().contains("conn#9"), "{}", last_error());
    let outcome = c"{\"outcome\":\"diffRejected\"}";
    assert_eq!(
        unsafe { idelink_engine_handle_tool_outcome(engine, 0, 5, outcome.as_ptr()) },
        IdelinkStatus::IdelinkErrorMisuse
    );
    let bad_event = c"{\"type\":\"selectionChanged\"}";
    assert_eq!(
        unsafe { idelink_engine_handle_editor_event(engine, 0, bad_event.as_ptr()) },
        IdelinkStatus::IdelinkErrorInvalidArgument
    );
    assert!(
        last_error().starts_with("invalid event_json: event: missing field"),
        "{}",
        last_error()
    );
    assert_eq!(
        unsafe { idelink_engine_handle_bytes(engine, 0, 1, null(), 3) },
        IdelinkStatus::IdelinkErrorInvalidArgument
    );
    assert_eq!(
        unsafe { idelink_engine_handle_accept(null_mut(), 0, null_mut()) },
        IdelinkStatus::IdelinkErrorInvalidArgument
    );
    assert_eq!(last_error(), "engine is NULL");
    // The engine is still usable after every refusal.
    let mut conn = 0;
    assert_eq!(
        unsafe { idelink_engine_handle_accept(engine, 0, &mut conn) },
        IdelinkStatus::IdelinkOk
    );
    assert_eq!(conn, 1);
    let mut short = null_mut();
    let status = unsafe { idelink_engine_new(null(), c"has space".as_ptr(), &mut short) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert!(
        last_error().starts_with("invalid auth_token"),
        "{}",
        last_error()
    );
    unsafe { idelink_engine_free(engine) };
    unsafe { idelink_engine_free(null_mut()) };
}

#[test]
fn a_waker_ends_a_blocking_poll_from_another_thread() {
    let (status, host) = start(r#"{"ideName":"Ed","workspaceFolders":[],"lock":"none"}"#);
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let mut waker = null_mut();
    assert_eq!(
        unsafe { idelink_host_waker(host, &mut waker) },
        IdelinkStatus::IdelinkOk
    );
    let waker_addr = waker as usize;
    let started = Instant::now();
    let waking = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        unsafe { idelink_waker_wake(waker_addr as *const IdelinkWaker) }
    });
    // -1: block until something happens; only the waker can end it (no client, no deadline).
    assert_eq!(
        unsafe { idelink_host_poll(host, -1) },
        IdelinkStatus::IdelinkOk
    );
    assert_eq!(waking.join().ok(), Some(IdelinkStatus::IdelinkOk));
    assert!(started.elapsed() < Duration::from_secs(60));
    let mut event: *mut c_char = null_mut();
    assert_eq!(
        unsafe { idelink_host_next_event(host, &mut event) },
        IdelinkStatus::IdelinkOk
    );
    assert!(event.is_null(), "no client, so no event");
    unsafe { idelink_host_free(host) };
    // The waker outlives the host; waking then does nothing harmful.
    let _ = unsafe { idelink_waker_wake(waker) };
    unsafe { idelink_waker_free(waker) };
}

#[test]
fn the_terminal_env_and_language_helpers_answer_as_core_does() {
    let inherited =
        CString::new(r#"{"no_proxy":"corp.example","forceCodeTerminal":true}"#).unwrap_or_default();
    let mut env = null_mut();
    assert_eq!(
        unsafe { idelink_terminal_env(4242, inherited.as_ptr(), &mut env) },
        IdelinkStatus::IdelinkOk
    );
    let text = unsafe { CStr::from_ptr(env) }
        .to_string_lossy()
        .into_owned();
    unsafe { idelink_string_free(env) };
    assert_eq!(
        text,
        r#"{"CLAUDE_CODE_SSE_PORT":"4242","ENABLE_IDE_INTEGRATION":"true","no_proxy":"corp.example,127.0.0.1,localhost,::1","NO_PROXY":"corp.example,127.0.0.1,localhost,::1","FORCE_CODE_TERMINAL":"true"}"#
    );
    let bad = CString::new(r#"{"noProxy":"x"}"#).unwrap_or_default();
    assert_eq!(
        unsafe { idelink_terminal_env(1, bad.as_ptr(), &mut env) },
        IdelinkStatus::IdelinkErrorInvalidArgument
    );
    assert!(last_error().contains("inherited_json"), "{}", last_error());

    let mut id = null_mut();
    let path = CString::new("/p/Player.CS").unwrap_or_default();
    assert_eq!(
        unsafe { idelink_language_id(path.as_ptr(), &mut id) },
        IdelinkStatus::IdelinkOk
    );
    assert_eq!(unsafe { CStr::from_ptr(id) }.to_str(), Ok("csharp"));
    unsafe { idelink_string_free(id) };
    let unknown = CString::new("/p/LICENSE").unwrap_or_default();
    assert_eq!(
        unsafe { idelink_language_id(unknown.as_ptr(), &mut id) },
        IdelinkStatus::IdelinkOk
    );
    assert!(id.is_null());
}

/// Polls `host` until it queues an event that contains `needle`; returns its JSON.
fn next_event_with(host: *mut IdelinkHost, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        support::poll(host);
        while let Some(text) = support::next_queued(host) {
            if text.contains(needle) {
                return text;
            }
        }
    }
    panic!("no event with {needle} within the deadline")
}

#[test]
fn a_pulled_read_reaches_the_editor_and_a_wrong_kind_of_outcome_is_misuse() {
    let locks = temp_dir("pulled");
    let dir = locks.to_string_lossy().into_owned();
    let (status, host) = start(&format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/p"],"lock":{{"dir":"{dir}"}},"engine":{{"reads":{{"getDiagnostics":"editor"}}}}}}"#
    ));
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let mut port = 0_u16;
    assert_eq!(
        unsafe { idelink_host_port(host, &mut port) },
        IdelinkStatus::IdelinkOk
    );
    let lock = std::fs::read_to_string(locks.join(format!("{port}.lock"))).unwrap_or_default();
    let lock: serde_json::Value = serde_json::from_str(&lock).unwrap_or_default();
    let token = lock["authToken"].as_str().unwrap_or_default().to_owned();
    let client = std::thread::spawn(move || {
        let mut client = idelink_test_client::Client::connect_initialized(port, &token)?;
        client.call_tool(
            "getDiagnostics",
            serde_json::json!({"uri": "file:///p/src/main.rs"}),
        )
    });
    let call = next_event_with(host, "\"toolCall\"");
    let call: serde_json::Value = serde_json::from_str(&call).unwrap_or_default();
    assert_eq!(
        call["request"],
        serde_json::json!({"tool": "getDiagnostics", "path": "/p/src/main.rs"})
    );
    let id = call["id"].as_u64().unwrap_or_default();
    assert_eq!(
        unsafe {
            idelink_host_handle_tool_outcome(host, id, c"{\"outcome\":\"noSelection\"}".as_ptr())
        },
        IdelinkStatus::IdelinkErrorMisuse
    );
    assert!(
        last_error().contains("outcome noSelection does not answer tool getDiagnostics"),
        "{}",
        last_error()
    );
    let outcome = c"{\"outcome\":\"diagnostics\",\"files\":[]}";
    assert_eq!(
        unsafe { idelink_host_handle_tool_outcome(host, id, outcome.as_ptr()) },
        IdelinkStatus::IdelinkOk,
        "{}",
        last_error()
    );
    while !client.is_finished() {
        assert_eq!(
            unsafe { idelink_host_poll(host, 10) },
            IdelinkStatus::IdelinkOk
        );
    }
    let answer = client.join().ok().and_then(Result::ok).unwrap_or_default();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"[{"uri":"file:///p/src/main.rs","diagnostics":[]}]"#
    );
    unsafe { idelink_host_shutdown(host, 0) };
    unsafe { idelink_host_free(host) };
    let _ = std::fs::remove_dir_all(&locks);
}

/// `"resume":true`: a host freed and started again for the same editor and folders comes back
/// on its port (and says so); with resume off it says so too.
#[test]
fn a_resumed_host_comes_back_on_its_port_and_says_so() {
    let locks = temp_dir("resume");
    let dir = locks.to_string_lossy().into_owned();
    let config = format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/p"],"resume":true,"lock":{{"dir":"{dir}"}}}}"#
    );
    let resumed = |host| {
        let mut resumed = true;
        let status = unsafe { idelink_host_resumed(host, &mut resumed) };
        assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
        let mut note = null_mut();
        let status = unsafe { idelink_host_resume_note(host, &mut note) };
        assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
        let text = unsafe { CStr::from_ptr(note) }
            .to_string_lossy()
            .into_owned();
        unsafe { idelink_string_free(note) };
        (resumed, text)
    };
    let port_of = |host| {
        let mut port = 0_u16;
        assert_eq!(
            unsafe { idelink_host_port(host, &mut port) },
            IdelinkStatus::IdelinkOk
        );
        port
    };

    let (status, first) = start(&config);
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let (was, note) = resumed(first);
    assert!(!was && note.starts_with("started a new session"), "{note}");
    let port = port_of(first);
    unsafe { idelink_host_free(first) };

    let (status, second) = start(&config);
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    let (was, note) = resumed(second);
    assert!(was, "{note}");
    assert!(note.contains(&format!("on port {port}")), "{note}");
    assert_eq!(port_of(second), port);
    unsafe { idelink_host_free(second) };

    let (status, off) = start(&config.replace(r#""resume":true"#, r#""resume":false"#));
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());
    assert_eq!(resumed(off), (false, "resume is off".to_owned()));
    unsafe { idelink_host_free(off) };
    let _ = std::fs::remove_dir_all(&locks);
}
