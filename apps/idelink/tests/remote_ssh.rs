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
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod support;

use support::sshd::Sshd;
use support::{idelink, lines, temp_dir, texts, wait_for_line};

/// The far side's name for the workspace.
const FAR: &str = "/far/ssh/proj";

/// Says loudly that `test` did not run and why; with `CI=true` that is a failure.
pub fn skip(test: &str, why: &str) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!in_ci, "CI=true and {why}");
    eprintln!("\n!! SKIPPED {test}: {why}");
}

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
    let mut serve = idelink(&["serve", "--diff", "accept", "--lock-dir"])
        .arg(dir.join("near-ide"))
        .args(["--remote", &bridge, "--map"])
        .arg(format!("{FAR}={}", work.display()))
        .arg(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(serve.stdout.take().unwrap());
    let err = lines(std::process::ChildStdout::from(std::os::fd::OwnedFd::from(
        serve.stderr.take().unwrap(),
    )));
    // The bridge's own words come back through ssh's stderr.
    let up = wait_for_line(&err, "idelink bridge: listening on 127.0.0.1:");
    let lock = PathBuf::from(up.rsplit("lock ").next().unwrap());
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(body["workspaceFolders"], json!([FAR]));
    let port: u16 = lock.file_stem().unwrap().to_str().unwrap().parse().unwrap();
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
    support::stop(&mut serve);
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
