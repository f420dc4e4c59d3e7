//! The mio host on real loopback sockets: several clients, a client that does not read, the
//! headless rule. The host runs on its own thread, as an editor might run it.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_core::host_rules::PumpPolicy;
use idelink_core::{EditorEvent, EngineEvent, ToolOutcome, ToolRequest};
use idelink_mio::{Host, HostConfig, HostError, LockPlacement};
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

fn lock_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("idelink-host-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A host on a thread that accepts every diff with the proposed text, answers a pulled
/// `getDiagnostics` with one warning for the file asked about, and forwards events.
struct Running {
    port: u16,
    token: String,
    editor: Sender<EditorEvent>,
    events: Receiver<EngineEvent>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    fn start(config: HostConfig) -> Running {
        let mut host = Host::start(config).unwrap();
        let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
        let (editor, editor_events) = mpsc::channel::<EditorEvent>();
        let (send_event, events) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut batch = Vec::new();
            while !stopped.load(Ordering::SeqCst) {
                host.poll(Some(Duration::from_millis(5)), &mut batch)
                    .unwrap();
                while let Ok(event) = editor_events.try_recv() {
                    host.handle_editor_event(&event).unwrap();
                }
                for event in batch.drain(..) {
                    if let EngineEvent::ToolCall {
                        id,
                        request: ToolRequest::GetDiagnostics { path },
                        ..
                    } = &event
                    {
                        host.handle_tool_outcome(*id, &pulled_diagnostics(path))
                            .unwrap();
                    }
                    if let EngineEvent::ToolCall {
                        id,
                        request:
                            ToolRequest::OpenDiff {
                                new_file_contents,
                                tab_name,
                                ..
                            },
                        ..
                    } = &event
                        && !tab_name.starts_with("hold")
                    {
                        let outcome = ToolOutcome::DiffSaved {
                            final_text: new_file_contents.clone(),
                            original_text: None,
                        };
                        host.handle_tool_outcome(*id, &outcome).unwrap();
                    }
                    let _ = send_event.send(event);
                }
            }
        });
        Running {
            port,
            token,
            editor,
            events,
            stop,
            thread: Some(thread),
        }
    }

    fn wait_for(&self, what: impl Fn(&EngineEvent) -> bool) -> EngineEvent {
        loop {
            let event = self.events.recv_timeout(DEADLINE).expect("host event");
            if what(&event) {
                return event;
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the editor of [`Running`] answers a pulled `getDiagnostics` with.
fn pulled_diagnostics(path: &Option<String>) -> ToolOutcome {
    serde_json::from_value(json!({"outcome": "diagnostics", "files": [{
        "path": path.clone().unwrap_or_else(|| "/w/all.rs".into()),
        "diagnostics": [{"message": "unused", "severity": "Warning",
            "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 9}}}],
    }]}))
    .unwrap()
}

fn config(name: &str) -> HostConfig {
    let mut config = HostConfig::new("idelink-test", vec!["/w".into()]);
    config.lock = LockPlacement::At(lock_dir(name));
    config.engine.ready_delay_ms = 0;
    config.engine.selection_debounce_ms = 0;
    config
}

fn diff_args(tab: &str) -> Value {
    json!({"old_file_path": "/w/a.rs", "new_file_path": "/w/a.rs", "new_file_contents": "new", "tab_name": tab})
}

#[test]
fn two_clients_are_served_and_only_the_departing_ones_diffs_are_cancelled() {
    let host = Running::start(config("two"));
    let mut first = Client::connect_initialized(host.port, &host.token).unwrap();
    let mut second = Client::connect_initialized(host.port, &host.token).unwrap();
    for _ in 0..2 {
        host.wait_for(|e| matches!(e, EngineEvent::SessionReady { .. }));
    }
    host.editor
        .send(EditorEvent::SelectionChanged {
            path: "/w/a.rs".into(),
            text: "abc".into(),
            selection: serde_json::from_value(
                json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}),
            )
            .unwrap(),
        })
        .unwrap();
    for client in [&mut first, &mut second] {
        let pushed = client.notification("selection_changed").unwrap();
        assert_eq!(pushed["params"]["text"], "abc");
    }

    second
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": diff_args("hold-2")}),
        )
        .unwrap();
    let held_id = match host.wait_for(|e| matches!(e, EngineEvent::ToolCall { .. })) {
        EngineEvent::ToolCall { id, .. } => id,
        _ => unreachable!(),
    };
    let saved = first
        .call(
            "tools/call",
            json!({"name": "openDiff", "arguments": diff_args("tab-1")}),
        )
        .unwrap();
    assert_eq!(saved["result"]["content"][0]["text"], "FILE_SAVED");
    assert_eq!(saved["result"]["content"][1]["text"], "new");
    drop(second);
    let cancelled = host.wait_for(|e| matches!(e, EngineEvent::ToolCallCancelled { .. }));
    assert!(
        matches!(cancelled, EngineEvent::ToolCallCancelled { id, .. } if id == held_id),
        "only the departed client's diff is cancelled: {cancelled:?}"
    );
    let still = first.call("ping", json!({})).unwrap();
    assert_eq!(still["result"], json!({}));
}

#[test]
fn a_client_that_reads_late_gets_every_answer_in_order() {
    let mut config = config("slow");
    config.pump = PumpPolicy::pausing_at(16 * 1024);
    let host = Running::start(config);
    let mut client = Client::connect_initialized(host.port, &host.token).unwrap();
    // 300 requests whose answers (~3 KiB each) are far more than the pause threshold; the
    // client reads nothing until all are sent.
    let ids: Vec<u64> = (0..300)
        .map(|_| client.send_request("tools/list", json!({})).unwrap())
        .collect();
    for id in ids {
        let answer = client.response(id).unwrap();
        assert!(
            answer["result"]["tools"].as_array().unwrap().len() > 5,
            "{answer}"
        );
    }
}

#[test]
fn a_headless_run_serves_nothing_unless_it_opts_in() {
    let dir = lock_dir("headless");
    let mut config = HostConfig::new("idelink-test", vec!["/w".into()]);
    config.lock = LockPlacement::At(dir.clone());
    config.headless = true;
    let refused = Host::start(config.clone()).err().unwrap();
    assert!(matches!(refused, HostError::HeadlessNotEnabled));
    assert!(
        refused.to_string().contains("serve_when_headless"),
        "{refused}"
    );
    assert!(!dir.exists(), "no lock directory, no lock file");
    config.serve_when_headless = true;
    let host = Host::start(config).unwrap();
    assert!(host.lock_path().unwrap().exists());
    let lock = host.lock_path().unwrap().to_owned();
    drop(host);
    assert!(!lock.exists(), "the lock goes with the host");
}

#[test]
fn a_pulled_read_is_answered_by_the_editor_through_the_host() {
    let mut config = config("pulled");
    config.engine.reads.set(
        idelink_core::ide::ToolName::GetDiagnostics,
        idelink_core::ReadSource::Editor,
    );
    let host = Running::start(config);
    let mut client = Client::connect_initialized(host.port, &host.token).unwrap();
    let answer = client
        .call_tool("getDiagnostics", json!({"uri": "file:///w/src/main.rs"}))
        .unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"[{"uri":"file:///w/src/main.rs","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":9}}}]}]"#
    );
    let asked = host.wait_for(|e| matches!(e, EngineEvent::ToolCall { .. }));
    assert!(
        matches!(&asked, EngineEvent::ToolCall { request: ToolRequest::GetDiagnostics { path: Some(p) }, .. } if p == "/w/src/main.rs"),
        "{asked:?}"
    );
}
