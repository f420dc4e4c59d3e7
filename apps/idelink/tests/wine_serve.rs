//! The Windows build of `idelink serve` and `idelink serve --stdio`, run under Wine, serving a
//! Linux client over loopback as the claude CLI would: the lock file is found in the config
//! folder (`CLAUDE_CONFIG_DIR/ide`), the upgrade carries its token, the session initializes, and
//! an `openDiff` is answered (by the editor through the sidecar, or by `serve`'s policy).
//!
//! Built only with the `wine-tests` feature: scripts/wine-test runs it with `IDELINK_WINE` (the
//! wine64 loader) and `IDELINK_WINE_EXE` (the Windows `idelink.exe`) set, in its Wine prefix.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod support;

use support::frames::{frames, wait_for_frame, write_frame};
use support::{lines, temp_dir, wait_exit, wait_for_line};

/// The name Wine gives a Linux path: drive `Z:` is the root.
fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.to_str().unwrap()).replace('/', "\\")
}

fn required(name: &str) -> std::ffi::OsString {
    std::env::var_os(name)
        .unwrap_or_else(|| panic!("{name} is not set: run this test through scripts/wine-test"))
}

/// `idelink.exe ARGS` under Wine with `config` as `CLAUDE_CONFIG_DIR`, stdin and stdout piped.
fn wine_idelink(args: &[&str], config: &Path, work: &Path) -> Child {
    Command::new(required("IDELINK_WINE"))
        .arg(required("IDELINK_WINE_EXE"))
        .args(args)
        .arg(windows_path(work))
        .env("CLAUDE_CONFIG_DIR", windows_path(config))
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A fresh workspace (`work/main.lua`) and config folder for test `name`.
fn setup(name: &str) -> (PathBuf, PathBuf, String) {
    let dir = temp_dir(name);
    let work = dir.join("work").canonicalize().unwrap();
    std::fs::write(work.join("main.lua"), "print('hi')\n").unwrap();
    let config = dir.join("config");
    std::fs::create_dir_all(&config).unwrap();
    let folder = format!("Z:{}", work.to_str().unwrap());
    (work, config, folder)
}

/// The lock for `port` in `config/ide`, read from Linux: its folders are `folder` (forward
/// slashes, drive letter), its transport `ws`; returns its token.
fn lock_token(config: &Path, port: u16, folder: &str) -> String {
    let lock_path = config.join("ide").join(format!("{port}.lock"));
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(lock_path).unwrap()).unwrap();
    assert_eq!(
        lock["workspaceFolders"],
        json!([folder]),
        "forward slashes, drive letter"
    );
    assert_eq!(lock["transport"], "ws");
    lock["authToken"].as_str().unwrap().to_owned()
}

#[test]
fn a_windows_idelink_serve_under_wine_answers_a_linux_client() {
    let (work, config, folder) = setup("wine-serve");
    let mut child = wine_idelink(&["serve", "--diff", "accept"], &config, &work);
    let out = lines(child.stdout.take().unwrap());
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().trim().parse().unwrap();
    let token = lock_token(&config, port, &folder);

    let mut client = Client::connect_initialized(port, &token).unwrap();
    let file = format!("{folder}/main.lua").replace('/', "\\");
    let saved = client
        .call_tool(
            "openDiff",
            json!({"old_file_path": file, "new_file_path": file,
                   "new_file_contents": "print('bye')\n", "tab_name": "wine-serve"}),
        )
        .unwrap();
    assert_eq!(
        saved["result"]["content"][0]["text"], "FILE_SAVED",
        "{saved}"
    );
    child.kill().unwrap();
    wait_exit(&mut child);
}

#[test]
fn a_windows_idelink_under_wine_serves_a_linux_client() {
    let (work, config, folder) = setup("wine");
    let mut child = wine_idelink(&["serve", "--stdio"], &config, &work);
    let mut stdin = child.stdin.take().unwrap();
    let from_sidecar = frames(child.stdout.take().unwrap());

    // The lock file, found from Linux in the config folder, where the Windows process wrote it.
    let ready = wait_for_frame(&from_sidecar, |m| m["method"] == "idelink/ready");
    let port = u16::try_from(ready["params"]["port"].as_u64().unwrap()).unwrap();
    let lock_path = config.join("ide").join(format!("{port}.lock"));
    assert_eq!(ready["params"]["lockFile"], windows_path(&lock_path));
    let token = lock_token(&config, port, &folder);
    let token = token.as_str();

    // Upgrade with the token and initialize, from Linux, over loopback; a wrong token is 401.
    let wrong = idelink_test_client::upgrade_request(port, Some("not-the-token"), "");
    let (_, refused) = Client::open(port, &wrong).unwrap();
    assert!(refused.starts_with("HTTP/1.1 401 "), "{refused}");
    let mut client = Client::connect_initialized(port, token).unwrap();

    // An openDiff goes to the editor through the sidecar, which answers it.
    let file = format!("{folder}/main.lua");
    let pending = client
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": {
                "old_file_path": file.replace('/', "\\"), "new_file_path": file.replace('/', "\\"),
                "new_file_contents": "print('bye')\n", "tab_name": "wine-1"}}),
        )
        .unwrap();
    let call = wait_for_frame(&from_sidecar, |m| m["method"] == "tool/call");
    assert_eq!(call["params"]["request"]["tool"], "openDiff");
    assert_eq!(
        call["params"]["request"]["oldFilePath"], file,
        "normalized to forward slashes"
    );
    assert_eq!(
        call["params"]["request"]["newFileContents"],
        "print('bye')\n"
    );
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": call["id"], "result": {"outcome": "diffSaved", "finalText": "print('bye')\n"}}),
    );
    let answer = client.response(pending).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "FILE_SAVED");

    // Closing stdin ends the sidecar, which removes its lock.
    drop(stdin);
    assert!(wait_exit(&mut child).success());
    assert!(!lock_path.exists(), "the lock is removed when stdin closes");
}
