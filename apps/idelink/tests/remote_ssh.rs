//! `idelink serve --remote` through a real `ssh` to an OpenSSH server the test starts on a
//! free loopback port (its own host key, one authorized key, the current user): the bridge's
//! hello, its lock, a claude connection through it with the token, a `tools/call` and an
//! `openDiff` round trip with mapped paths. Without sshd the test says it is skipped and why
//! (`CI=true` makes that a failure).
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::{Duration, Instant};

mod support;

use support::sshd::Sshd;
use support::{idelink, skip, temp_dir, texts, wait_for_line};

/// The far side's name for the workspace.
const FAR: &str = "/far/ssh/proj";

#[test]
fn a_claude_behind_a_bridge_started_over_ssh_is_served_with_its_own_paths() {
    let test = "a_claude_behind_a_bridge_started_over_ssh_is_served_with_its_own_paths";
    let dir = temp_dir("remote-ssh");
    let sshd = match Sshd::start(&dir) {
        Ok(sshd) => sshd,
        Err(why) => return skip(test, &why),
    };
    let work = dir.join("work").canonicalize().unwrap();
    std::fs::write(work.join("main.rs"), "fn main() {}\n").unwrap();
    let far_locks = dir.join("far-ide");
    let bridge = sshd.transport(&format!(
        "'{}' bridge --lock-dir '{}'",
        env!("CARGO_BIN_EXE_idelink"),
        far_locks.display()
    ));
    let (mut serve, out, err) = support::spawn_piped(
        idelink(&["serve", "--diff", "accept", "--lock-dir"])
            .arg(dir.join("near-ide"))
            .args(["--remote", &bridge, "--map"])
            .arg(format!("{FAR}={}", work.display()))
            .arg(&work)
            .stdin(Stdio::null()),
    );
    // The bridge's own words come back through ssh's stderr.
    let (lock, body, port) = support::bridge_lock(&err);
    assert_eq!(body["workspaceFolders"], json!([FAR]));
    let token = body["authToken"].as_str().unwrap();
    assert!(
        std::fs::read_dir(dir.join("near-ide")).map_or(true, |d| d.count() == 0),
        "the editor side wrote a lock"
    );

    let mut claude = Client::connect_initialized(port, token).unwrap();
    wait_for_line(&out, "connected (idelink-test-client)");
    let folders = claude.call_tool("getWorkspaceFolders", json!({})).unwrap();
    let folders: Value = serde_json::from_str(&texts(&folders)[0]).unwrap();
    assert_eq!(folders["rootPath"], FAR);
    let path = format!("{FAR}/main.rs");
    let saved = claude
        .call_tool(
            "openDiff",
            json!({"old_file_path": path, "new_file_path": path,
                   "new_file_contents": "fn main() { run() }\n", "tab_name": "t"}),
        )
        .unwrap();
    assert_eq!(texts(&saved), ["FILE_SAVED", "fn main() { run() }\n"]);
    // The review read the editor's own file (the far path does not exist here).
    wait_for_line(&out, "openDiff main.rs");
    drop(claude);
    support::stop(&mut serve.0);
    // The bridge removes its lock as ssh closes its stdin: within a second.
    let until = Instant::now() + Duration::from_secs(1);
    while lock.exists() {
        assert!(
            Instant::now() < until,
            "the far lock outlived the ssh session"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(sshd);
}
