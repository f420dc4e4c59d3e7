//! The tokio host on real loopback sockets: the lock file's life (written 0600, rewritten when
//! the folders change, restored when deleted, removed on shutdown), the headless rule, a port in
//! use, a tool call answered through its oneshot, a reply dropped unanswered (the deadline
//! answers), a client vanishing mid-diff (only its call is cancelled), selection pushes.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{DEADLINE, TempDir, blocking, config, wait_for};
use idelink_core::{CancelReason, CloseReason, EditorEvent, EngineEvent, ToolOutcome, ToolRequest};
use idelink_test_client::Client;
use idelink_tokio::{Host, HostError, HostEvent, PortChoice, ResumeOutcome};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

fn diff_args(tab: &str) -> Value {
    json!({"old_file_path": "/w/a.rs", "new_file_path": "/w/a.rs",
        "new_file_contents": "new", "tab_name": tab})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lock_is_written_private_rewritten_restored_and_removed_on_shutdown() {
    let dir = TempDir::new("lock");
    let mut config = config(&dir);
    config.pump.lock_check_interval_ms = 20;
    let (host, _events) = Host::start(config).unwrap();
    let lock = host.lock_path().unwrap().to_owned();
    assert_eq!(
        lock,
        dir.path().join("ide").join(format!("{}.lock", host.port()))
    );
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(body["authToken"], host.auth_token().as_str());
    assert_eq!(body["transport"], "ws");
    assert_eq!(body["pid"], std::process::id());
    let mode = std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    host.handle_editor_event(EditorEvent::WorkspaceFoldersChanged {
        folders: vec!["/w".into(), "/v".into()],
    })
    .await
    .unwrap();
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(body["workspaceFolders"], json!(["/w", "/v"]));

    std::fs::remove_file(&lock).unwrap();
    // Round trips through the engine task until it notices (it checks every 20 ms).
    let restored = tokio::time::timeout(DEADLINE, async {
        while !lock.exists() {
            let same = EditorEvent::WorkspaceFoldersChanged {
                folders: vec!["/w".into(), "/v".into()],
            };
            host.handle_editor_event(same).await.unwrap();
        }
    })
    .await;
    assert!(restored.is_ok(), "the deleted lock was not restored");
    let mode = std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    host.shutdown(Duration::from_secs(1)).await;
    assert!(!lock.exists(), "shutdown removes the lock");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headless_run_serves_nothing_unless_it_opts_in_and_a_taken_port_is_a_clear_error() {
    let dir = TempDir::new("headless");
    let mut headless = config(&dir);
    headless.headless = true;
    assert!(matches!(
        Host::start(headless.clone()),
        Err(HostError::HeadlessNotEnabled)
    ));
    assert!(
        !dir.path().join("ide").exists(),
        "no lock without the opt-in"
    );
    headless.serve_when_headless = true;
    let (host, _events) = Host::start(headless).unwrap();

    let mut taken = config(&dir);
    taken.port = PortChoice::Fixed(host.port());
    let message = Host::start(taken).err().unwrap().to_string();
    assert!(
        message.starts_with(&format!("cannot listen on 127.0.0.1 port {}", host.port())),
        "{message}"
    );
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_is_answered_through_its_oneshot_and_selection_is_pushed() {
    let dir = TempDir::new("oneshot");
    let (host, mut events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let client = blocking(move || Client::connect_initialized(port, &token).unwrap()).await;
    wait_for(&mut events, "the session", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::SessionReady { .. }))
    })
    .await;
    host.handle_editor_event(EditorEvent::SelectionChanged {
        path: "/w/a.rs".into(),
        text: "abc".into(),
        selection: serde_json::from_value(
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}),
        )
        .unwrap(),
    })
    .await
    .unwrap();
    let (client, pushed) = blocking(move || {
        let mut client = client;
        let pushed = client.notification("selection_changed").unwrap();
        (client, pushed)
    })
    .await;
    assert_eq!(pushed["params"]["text"], "abc");

    let answer = tokio::task::spawn_blocking(move || {
        let mut client = client;
        client.call_tool("openDiff", diff_args("tab-1")).unwrap()
    });
    let HostEvent::ToolCall { request, reply, .. } =
        wait_for(&mut events, "the openDiff call", |e| {
            matches!(e, HostEvent::ToolCall { .. })
        })
        .await
    else {
        unreachable!()
    };
    let ToolRequest::OpenDiff {
        new_file_contents, ..
    } = request
    else {
        panic!("not an openDiff: {request:?}")
    };
    // The editor answers from another task, as a tokio editor does.
    tokio::spawn(async move {
        reply.send(ToolOutcome::DiffSaved {
            final_text: new_file_contents,
            original_text: None,
        });
    });
    let saved = answer.await.unwrap();
    assert_eq!(saved["result"]["content"][0]["text"], "FILE_SAVED");
    assert_eq!(saved["result"]["content"][1]["text"], "new");
    host.shutdown(Duration::from_secs(1)).await;
    assert!(
        tokio::time::timeout(DEADLINE, events.recv()).await.is_ok(),
        "the events channel ends after shutdown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_reply_is_answered_by_the_deadline_and_a_late_answer_is_refused() {
    let dir = TempDir::new("deadline");
    let mut config = config(&dir);
    config.engine.diff_deadline_ms = Some(200);
    let (host, mut events) = Host::start(config).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let answer = tokio::task::spawn_blocking(move || {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        client.call_tool("openDiff", diff_args("tab-1")).unwrap()
    });
    let HostEvent::ToolCall { id, reply, .. } = wait_for(&mut events, "the call", |e| {
        matches!(e, HostEvent::ToolCall { .. })
    })
    .await
    else {
        unreachable!()
    };
    drop(reply);
    let rejected = answer.await.unwrap();
    assert_eq!(rejected["result"]["content"][0]["text"], "DIFF_REJECTED");
    wait_for(
        &mut events,
        "the deadline's cancellation",
        |e| matches!(e, HostEvent::Engine(EngineEvent::ToolCallCancelled { id: c, .. }) if *c == id),
    )
    .await;
    assert!(
        host.handle_tool_outcome(id, ToolOutcome::DiffRejected)
            .await
            .is_err(),
        "nothing left to answer"
    );
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_departing_clients_diff_is_cancelled() {
    let dir = TempDir::new("vanish");
    let (host, mut events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let (stay, mut leave) = blocking(move || {
        (
            Client::connect_initialized(port, &token).unwrap(),
            Client::connect_initialized(port, &token).unwrap(),
        )
    })
    .await;
    let held = blocking(move || {
        leave
            .send_request(
                "tools/call",
                json!({"name": "openDiff", "arguments": diff_args("t")}),
            )
            .unwrap();
        leave
    })
    .await;
    let HostEvent::ToolCall { id, conn, .. } = wait_for(&mut events, "the call", |e| {
        matches!(e, HostEvent::ToolCall { .. })
    })
    .await
    else {
        unreachable!()
    };
    drop(held);
    wait_for(&mut events, "the cancellation", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::ToolCallCancelled { id: c, reason: CancelReason::ClientGone }) if *c == id)
    })
    .await;
    wait_for(&mut events, "the close", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::Closed { conn: c, reason: CloseReason::TransportClosed }) if *c == conn)
    })
    .await;
    let pong = blocking(move || {
        let mut stay = stay;
        stay.call("ping", json!({})).unwrap()
    })
    .await;
    assert_eq!(pong["result"], json!({}));
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pulled_read_is_answered_through_its_oneshot_after_a_refused_wrong_kind() {
    let dir = TempDir::new("pulled");
    let mut config = config(&dir);
    config.engine.reads.set(
        idelink_core::ide::ToolName::CheckDocumentDirty,
        idelink_core::ReadSource::Editor,
    );
    let (host, mut events) = Host::start(config).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let answer = tokio::task::spawn_blocking(move || {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        client
            .call_tool("checkDocumentDirty", json!({"filePath": "/w/a.rs"}))
            .unwrap()
    });
    let HostEvent::ToolCall {
        id, request, reply, ..
    } = wait_for(&mut events, "the pulled read", |e| {
        matches!(e, HostEvent::ToolCall { .. })
    })
    .await
    else {
        unreachable!()
    };
    assert_eq!(
        request,
        ToolRequest::CheckDocumentDirty {
            path: "/w/a.rs".into()
        }
    );
    let refused = host
        .handle_tool_outcome(id, ToolOutcome::NoSelection)
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!("{id}: outcome noSelection does not answer tool checkDocumentDirty")
    );
    reply.send(ToolOutcome::DocumentDirty {
        is_dirty: true,
        is_untitled: false,
    });
    let dirty = answer.await.unwrap();
    assert_eq!(
        dirty["result"]["content"][0]["text"],
        r#"{"success":true,"filePath":"/w/a.rs","isDirty":true,"isUntitled":false}"#
    );
    host.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_shut_down_and_started_again_resumes_its_port_and_token() {
    let dir = TempDir::new("resume");
    let mut config = config(&dir);
    config.resume = true;
    let (first, _events) = Host::start(config.clone()).unwrap();
    assert!(
        matches!(first.resume(), ResumeOutcome::Fresh(_)),
        "{}",
        first.resume()
    );
    let (port, token) = (first.port(), first.auth_token().as_str().to_owned());
    first.shutdown(Duration::ZERO).await;

    let (second, _events) = Host::start(config).unwrap();
    assert_eq!(*second.resume(), ResumeOutcome::Resumed { port });
    assert_eq!(
        (second.port(), second.auth_token().as_str()),
        (port, token.as_str())
    );
    blocking(move || Client::connect_initialized(port, &token).unwrap()).await;
    second.shutdown(Duration::ZERO).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_policy_pauses_pushes_and_flags_a_denied_file() {
    let dir = TempDir::new("policy");
    let (host, mut events) = Host::start(config(&dir)).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let client = blocking(move || Client::connect_initialized(port, &token).unwrap()).await;
    wait_for(&mut events, "the session", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::SessionReady { .. }))
    })
    .await;
    let mention = |path: &str| EditorEvent::Mention {
        path: path.into(),
        line_start: None,
        line_end: None,
    };
    host.handle_editor_event(EditorEvent::SharingPaused { paused: true })
        .await
        .unwrap();
    host.handle_editor_event(mention("/w/paused.rs"))
        .await
        .unwrap();
    wait_for(&mut events, "the withheld report", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::ContextWithheld { paths, .. })
            if paths.iter().any(|p| p == "/w/paused.rs"))
    })
    .await;
    host.handle_editor_event(EditorEvent::SharingPaused { paused: false })
        .await
        .unwrap();
    host.handle_editor_event(mention("/w/resumed.rs"))
        .await
        .unwrap();
    let (client, pushed) = blocking(move || {
        let mut client = client;
        let pushed = client.notification("at_mentioned").unwrap();
        (client, pushed)
    })
    .await;
    assert_eq!(
        pushed["params"]["filePath"], "/w/resumed.rs",
        "the paused one never went"
    );

    let _answer = tokio::task::spawn_blocking(move || {
        let mut client = client;
        client.call_tool("openFile", json!({"filePath": "/w/.env"}))
    });
    let HostEvent::ToolCall { context_denied, .. } =
        wait_for(&mut events, "the openFile call", |e| {
            matches!(e, HostEvent::ToolCall { .. })
        })
        .await
    else {
        unreachable!()
    };
    assert!(context_denied, "an openFile of .env carries the flag");
    host.shutdown(Duration::from_secs(1)).await;
}
