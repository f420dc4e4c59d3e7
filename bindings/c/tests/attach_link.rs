//! `idelink_host_attach_link` called as C calls it, against the real `idelink bridge` (the
//! command's binary, which `cargo test --workspace` builds beside this test; `cargo build -p
//! idelink` before running this file alone): the bridge's pipes handed to a C host with the
//! hello peeked first, its `linkHello` event, the far lock holding the host's token, name and
//! folders mapped through the engine's `pathMap`, a test client served through the bridge's
//! port (upgrade with the token, `initialize`, a `tools/call`), and the link's end reported as
//! `linkEnded` once the bridge is killed. Unix: the ends are file descriptors (the Windows
//! build hands `HANDLE`s over the same call, checked by its lint).
#![cfg(unix)]
#![expect(
    unsafe_code,
    clippy::undocumented_unsafe_blocks,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "calls the C ABI with live pointers to locals; a test fails loudly"
)]

use idelink::*;
use idelink_core::link::peek_hello;
use idelink_test_client::Client;
use serde_json::{Value, json};
use std::ffi::{CStr, CString};
use std::io::Read;
use std::os::fd::IntoRawFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod support;

/// How long each step may take: generous for a loaded CI machine, never slept.
const STEP: Duration = Duration::from_secs(20);

fn last_error() -> String {
    unsafe { CStr::from_ptr(idelink_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// The `idelink` binary: `IDELINK_BIN`, else the one cargo built into this test's target dir.
fn idelink_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("IDELINK_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("idelink");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p idelink` (or set IDELINK_BIN)",
        bin.display()
    );
    bin
}

/// Every event the host queues, as JSON.
fn drain(host: *mut IdelinkHost, into: &mut Vec<Value>) {
    support::poll(host);
    while let Some(text) = support::next_queued(host) {
        into.push(serde_json::from_str(&text).unwrap());
    }
}

/// Polls until an event named `name` is queued; returns it.
fn wait_event(host: *mut IdelinkHost, name: &str, seen: &mut Vec<Value>) -> Value {
    let deadline = Instant::now() + STEP;
    loop {
        if let Some(event) = seen.iter().find(|e| e["event"] == name) {
            return event.clone();
        }
        assert!(Instant::now() < deadline, "no {name} event: {seen:?}");
        drain(host, seen);
    }
}

#[test]
fn a_bridge_attached_to_a_c_host_serves_claude_and_its_end_is_reported() {
    let root = std::env::temp_dir().join(format!("idelink-c-attach-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (near_locks, far_locks) = (root.join("near"), root.join("far"));
    std::fs::create_dir_all(&far_locks).unwrap();
    let config = CString::new(format!(
        r#"{{"ideName":"Ed","workspaceFolders":["/home/me/proj"],"lock":{{"dir":"{}"}},"engine":{{"pathMap":["/far/proj=/home/me/proj"]}}}}"#,
        near_locks.display()
    ))
    .unwrap();
    let mut host = null_mut();
    assert_eq!(
        unsafe { idelink_host_start(config.as_ptr(), &mut host) },
        IdelinkStatus::IdelinkOk,
        "{}",
        last_error()
    );
    let mut near_port = 0_u16;
    unsafe { idelink_host_port(host, &mut near_port) };
    let near_lock: Value = serde_json::from_str(
        &std::fs::read_to_string(near_locks.join(format!("{near_port}.lock"))).unwrap(),
    )
    .unwrap();
    let token = near_lock["authToken"].as_str().unwrap().to_owned();

    // The bridge, and its hello peeked as an editor does to learn its port first.
    let mut bridge = Command::new(idelink_binary())
        .arg("bridge")
        .arg("--lock-dir")
        .arg(&far_locks)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (mut input, output) = (bridge.stdout.take().unwrap(), bridge.stdin.take().unwrap());
    let mut read = Vec::new();
    let mut buf = [0_u8; 4096];
    let peeked = loop {
        if let Some((hello, _)) = peek_hello(&read).unwrap() {
            break hello;
        }
        let n = input.read(&mut buf).unwrap();
        assert!(n > 0, "the bridge ended before its hello");
        read.extend_from_slice(&buf[..n]);
    };
    let port = peeked.port.expect("the bridge's hello names its port");

    let (input, output) = (input.into_raw_fd(), output.into_raw_fd());
    let status = unsafe {
        idelink_host_attach_link(
            host,
            input as isize,
            output as isize,
            read.as_ptr(),
            read.len(),
        )
    };
    assert_eq!(status, IdelinkStatus::IdelinkOk, "{}", last_error());

    let mut seen = Vec::new();
    let hello = wait_event(host, "linkHello", &mut seen);
    assert_eq!(hello["port"], port, "{hello}");
    assert_eq!(hello["pid"], bridge.id(), "{hello}");
    assert!(hello.get("token").is_none(), "{hello}");

    // The far lock: the host's token and name, its folder as the far side spells it.
    let far_lock = far_locks.join(format!("{port}.lock"));
    let deadline = Instant::now() + STEP;
    while !far_lock.exists() {
        assert!(
            Instant::now() < deadline,
            "no far lock {}",
            far_lock.display()
        );
        drain(host, &mut seen);
    }
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&far_lock).unwrap()).unwrap();
    assert_eq!(lock["authToken"], token.as_str(), "{lock}");
    assert_eq!(lock["ideName"], "Ed", "{lock}");
    assert_eq!(lock["workspaceFolders"], json!(["/far/proj"]), "{lock}");

    // A claude on the far side: the upgrade with the token, initialize, a tool call. The host
    // is polled here while the client runs on its own thread.
    let (done, answer) = mpsc::channel();
    let claude_token = token.clone();
    std::thread::spawn(move || {
        let result = Client::connect_initialized(port, &claude_token).and_then(|mut client| {
            let answer = client.call_tool("getWorkspaceFolders", json!({}))?;
            Ok((client, answer))
        });
        let _ = done.send(result.map_err(|e| e.to_string()));
    });
    let deadline = Instant::now() + STEP;
    let (client, answer) = loop {
        if let Ok(answer) = answer.try_recv() {
            break answer.unwrap();
        }
        assert!(Instant::now() < deadline, "no answer through the bridge");
        drain(host, &mut seen);
    };
    let text = answer.to_string();
    assert!(text.contains("/far/proj"), "{answer}");
    assert!(
        seen.iter()
            .any(|e| e["event"] == "toolServed" && e["tool"] == "getWorkspaceFolders"),
        "{seen:?}"
    );

    // The bridge dies (SIGKILL): the host says the link ended and closes the connection it
    // carried, whose client is still open.
    seen.clear();
    bridge.kill().unwrap();
    bridge.wait().unwrap();
    let ended = wait_event(host, "linkEnded", &mut seen);
    assert_eq!(ended["fault"], "eof", "{ended}");
    wait_event(host, "closed", &mut seen);
    drop(client);

    unsafe { idelink_host_free(host) };
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn bad_pipe_ends_and_a_second_link_are_refused_with_their_statuses() {
    let config =
        CString::new(r#"{"ideName":"Ed","workspaceFolders":["/p"],"lock":"none"}"#).unwrap();
    let mut host = null_mut();
    assert_eq!(
        unsafe { idelink_host_start(config.as_ptr(), &mut host) },
        IdelinkStatus::IdelinkOk
    );
    let status = unsafe { idelink_host_attach_link(host, -1, 1, std::ptr::null(), 0) };
    assert_eq!(status, IdelinkStatus::IdelinkErrorInvalidArgument);
    assert_eq!(last_error(), "input is no file descriptor: -1");

    // Two pipes the host takes; a second attach is refused (and closes what it was given).
    let (first_in, first_out) = std::io::pipe().unwrap();
    let (second_in, second_out) = std::io::pipe().unwrap();
    let attach = |input: std::io::PipeReader, output: std::io::PipeWriter| unsafe {
        idelink_host_attach_link(
            host,
            input.into_raw_fd() as isize,
            output.into_raw_fd() as isize,
            std::ptr::null(),
            0,
        )
    };
    assert_eq!(
        attach(first_in, second_out),
        IdelinkStatus::IdelinkOk,
        "{}",
        last_error()
    );
    assert_eq!(
        attach(second_in, first_out),
        IdelinkStatus::IdelinkErrorMisuse
    );
    assert_eq!(last_error(), "a link is attached already");
    unsafe { idelink_host_free(host) };
}
