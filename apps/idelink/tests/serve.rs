//! `idelink serve` as a user runs it: a real process, a real socket, the lock file, signals.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::frames::{frames, wait_for_frame, write_frame};
use support::{idelink, lines, temp_dir, wait_exit, wait_for_line};

/// The lock file's token, after checking its mode.
fn token_from_lock(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "lock file mode");
    }
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(lock["transport"], "ws");
    assert_eq!(lock["ideName"], "idelink");
    lock["authToken"].as_str().unwrap().to_owned()
}

/// A `serve --stdio` sidecar after its `idelink/ready` frame: the editor's end of its stdio,
/// and what claude needs to connect (the port and the lock's token, its mode checked).
struct Sidecar {
    child: Child,
    stdin: ChildStdin,
    from_sidecar: Receiver<Value>,
    /// The ready frame's params.
    #[cfg_attr(
        not(unix),
        expect(dead_code, reason = "read by the resume test, which is Unix-only")
    )]
    ready: Value,
    port: u16,
    lock: PathBuf,
    token: String,
}

impl Sidecar {
    /// `idelink serve --stdio ARGS --lock-dir LOCK_DIR WORK`, up to its ready frame.
    fn start(work: &Path, lock_dir: &Path, args: &[&str]) -> Sidecar {
        let mut child = idelink(&["serve", "--stdio"])
            .args(args)
            .arg("--lock-dir")
            .arg(lock_dir)
            .arg(work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let from_sidecar = frames(child.stdout.take().unwrap());
        let ready = wait_for_frame(&from_sidecar, |m| m["method"] == "idelink/ready");
        let ready = ready["params"].clone();
        let port = u16::try_from(ready["port"].as_u64().unwrap()).unwrap();
        let lock = PathBuf::from(ready["lockFile"].as_str().unwrap());
        let token = token_from_lock(&lock);
        Sidecar {
            child,
            stdin,
            from_sidecar,
            ready,
            port,
            lock,
            token,
        }
    }
}

fn open_diff(path: &str, contents: &str, tab: &str) -> Value {
    json!({"old_file_path": path, "new_file_path": path, "new_file_contents": contents, "tab_name": tab})
}

fn texts(response: &Value) -> Vec<String> {
    response["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tool result: {response}"))
        .iter()
        .map(|item| item["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn serve_answers_diffs_by_policy_and_removes_its_lock_on_sigterm() {
    let dir = temp_dir("serve");
    let work = dir.join("work").canonicalize().unwrap();
    let file = work.join("main.rs");
    std::fs::write(&file, "fn main() {}\n").unwrap();
    let lock_dir = dir.join("ide");
    let mut child = idelink(&["serve", "--diff", "accept", "--lock-dir"])
        .arg(&lock_dir)
        .arg(&work)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let out = lines(child.stdout.take().unwrap());
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
    let lock = lock_dir.join(format!("{port}.lock"));
    let token = token_from_lock(&lock);
    wait_for_line(&out, &format!("CLAUDE_CODE_SSE_PORT={port} claude"));

    let mut client = Client::connect_initialized(port, &token).unwrap();
    wait_for_line(&out, "connected (idelink-test-client)");
    let path = file.to_str().unwrap();
    let saved = client
        .call_tool(
            "openDiff",
            open_diff(path, "fn main() { run() }\n", "tab-1"),
        )
        .unwrap();
    assert_eq!(texts(&saved), ["FILE_SAVED", "fn main() { run() }\n"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn main() {}\n",
        "idelink must never write the file: claude does"
    );
    wait_for_line(&out, "openDiff main.rs");
    let opened = client
        .call_tool(
            "openFile",
            json!({"filePath": path, "makeFrontmost": false}),
        )
        .unwrap();
    let opened: Value = serde_json::from_str(&texts(&opened)[0]).unwrap();
    assert_eq!(opened["languageId"], "rust");
    assert_eq!(opened["lineCount"], 1);

    #[cfg(unix)]
    {
        support::stop(&mut child);
        assert!(!lock.exists(), "the lock file must be removed on SIGTERM");
    }
    #[cfg(windows)]
    {
        support::terminate(&mut child);
        assert!(lock.exists(), "a terminated process cannot remove its lock");
        // The next idelink finds the owner's pid dead and sweeps the lock before writing its own.
        let mut next = idelink(&["serve", "--lock-dir"])
            .arg(&lock_dir)
            .arg(&work)
            .stdout(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let out = lines(next.stdout.take().unwrap());
        let banner = wait_for_line(&out, "on 127.0.0.1:");
        assert!(!banner.ends_with(&format!(":{port}")), "{banner}");
        assert!(!lock.exists(), "a lock whose pid is dead is swept at start");
        support::terminate(&mut next);
    }
}

/// Ctrl-Break (and Ctrl-C, the same console control handler) stops idelink cleanly on
/// Windows: the lock is removed.
#[cfg(windows)]
#[test]
fn ctrl_break_removes_the_lock() {
    let dir = temp_dir("ctrl-break");
    let lock_dir = dir.join("ide");
    let mut command = idelink(&["serve", "--diff", "reject", "--lock-dir"]);
    support::own_process_group(&mut command)
        .arg(&lock_dir)
        .arg(dir.join("work"))
        .stdout(Stdio::piped())
        .stdin(Stdio::null());
    let mut child = command.spawn().unwrap();
    let out = lines(child.stdout.take().unwrap());
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
    let lock = lock_dir.join(format!("{port}.lock"));
    assert!(lock.exists());
    if support::ctrl_break(&mut child, "ctrl_break_removes_the_lock") {
        assert!(
            !lock.exists(),
            "the lock file must be removed on Ctrl-Break"
        );
    }
}

#[test]
fn serve_refuses_a_missing_folder_with_a_clear_message() {
    let output = idelink(&["serve", "/definitely/not/here"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot serve /definitely/not/here"),
        "{stderr}"
    );
    assert!(stderr.contains("idelink serve DIR"), "{stderr}");
}

#[test]
fn serve_applies_the_session_cap_from_its_flag() {
    let dir = temp_dir("cap");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let mut child = idelink(&["serve", "--diff", "reject", "--max-connections", "2"])
        .arg("--lock-dir")
        .arg(&lock_dir)
        .arg(&work)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let out = lines(child.stdout.take().unwrap());
    let banner = wait_for_line(&out, "on 127.0.0.1:");
    let port: u16 = banner.rsplit(':').next().unwrap().parse().unwrap();
    let token = token_from_lock(&lock_dir.join(format!("{port}.lock")));
    let _first = Client::connect_initialized(port, &token).unwrap();
    let _second = Client::connect_initialized(port, &token).unwrap();
    let request = idelink_test_client::upgrade_request(port, Some(&token), "");
    let (_third, head) = Client::open(port, &request).unwrap();
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    child.kill().unwrap();
    wait_exit(&mut child);
}

#[test]
fn serve_refuses_a_bad_session_cap_with_what_it_takes() {
    let output = idelink(&["serve", "--max-connections", "0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--max-connections"), "{stderr}");
    assert!(stderr.contains("from 1 to 4096"), "{stderr}");
}

#[test]
fn env_prints_the_variables_for_a_port() {
    let output = idelink(&["env", "4242"])
        .env("no_proxy", "corp")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("export CLAUDE_CODE_SSE_PORT='4242'\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("export no_proxy='corp,127.0.0.1,localhost,::1'\n"),
        "{stdout}"
    );
}

#[test]
fn stdio_sidecar_bridges_an_editor_to_a_client() {
    let dir = temp_dir("stdio");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let Sidecar {
        mut child,
        mut stdin,
        from_sidecar,
        port,
        lock,
        token,
        ..
    } = Sidecar::start(&work, &lock_dir, &[]);
    assert_eq!(lock, lock_dir.join(format!("{port}.lock")));

    let path = format!("{}/lib.rs", support::claude_path(&work));
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "selectionChanged", "path": path, "text": "pub fn x()",
            "selection": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 10}}}}),
    );
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "i1", "method": "idelink/info"}),
    );
    let info = wait_for_frame(&from_sidecar, |m| m["id"] == "i1");
    assert_eq!(info["result"]["port"], port);

    let mut client = Client::connect_initialized(port, &token).unwrap();
    let selection = client.call_tool("getLatestSelection", json!({})).unwrap();
    let selection: Value = serde_json::from_str(&texts(&selection)[0]).unwrap();
    assert_eq!(selection["text"], "pub fn x()");
    assert_eq!(selection["filePath"], path.as_str());

    let pending = client
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": open_diff(&path, "proposed", "tab-9")}),
        )
        .unwrap();
    let call = wait_for_frame(&from_sidecar, |m| m["method"] == "tool/call");
    assert_eq!(call["params"]["request"]["tool"], "openDiff");
    assert_eq!(call["params"]["request"]["newFileContents"], "proposed");
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": call["id"], "result": {"outcome": "diffSaved", "finalText": "edited by the user"}}),
    );
    let answer = client.response(pending).unwrap();
    assert_eq!(texts(&answer), ["FILE_SAVED", "edited by the user"]);

    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "no/such"}),
    );
    let unknown = wait_for_frame(&from_sidecar, |m| m["id"] == 7);
    assert_eq!(unknown["error"]["code"], -32601);

    drop(stdin);
    assert!(wait_exit(&mut child).success());
    assert!(
        !lock.exists(),
        "the lock file must be removed when stdin closes"
    );
}

#[test]
fn stdio_sidecar_takes_a_snapshot_and_rewrites_the_lock_for_its_folders() {
    let dir = temp_dir("stdio-snapshot");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let Sidecar {
        mut child,
        mut stdin,
        from_sidecar,
        port,
        lock,
        token,
        ..
    } = Sidecar::start(&work, &lock_dir, &[]);

    let root = support::claude_path(&work);
    let path = format!("{root}/main.cpp");
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "editor/snapshot", "params": {
            "documents": [{"path": path, "languageId": "cpp", "isDirty": true}],
            "active": {"path": path, "text": "int", "selection": {
                "start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 3}}},
            "workspaceFolders": [root, "/shared"]}}),
    );
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "i1", "method": "idelink/info"}),
    );
    wait_for_frame(&from_sidecar, |m| m["id"] == "i1");
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(body["workspaceFolders"], json!([root, "/shared"]), "{body}");

    let mut client = Client::connect_initialized(port, &token).unwrap();
    let selection = client.call_tool("getLatestSelection", json!({})).unwrap();
    let selection: Value = serde_json::from_str(&texts(&selection)[0]).unwrap();
    assert_eq!(selection["text"], "int");
    let dirty = client
        .call_tool("checkDocumentDirty", json!({"filePath": path}))
        .unwrap();
    assert!(texts(&dirty)[0].contains(r#""isDirty":true"#), "{dirty}");

    drop(stdin);
    assert!(wait_exit(&mut child).success());
}

#[test]
fn stdio_sidecar_pulls_the_reads_it_is_told_to_from_the_editor() {
    let dir = temp_dir("stdio-pull");
    let work = dir.join("work").canonicalize().unwrap();
    let Sidecar {
        mut child,
        mut stdin,
        from_sidecar,
        port,
        token,
        ..
    } = Sidecar::start(
        &work,
        &dir.join("ide"),
        &["--pull=getDiagnostics,checkDocumentDirty"],
    );
    let path = format!("{}/lib.rs", support::claude_path(&work));
    let uri = file_uri(&path);

    let mut client = Client::connect_initialized(port, &token).unwrap();
    let pending = client
        .send_request(
            "tools/call",
            json!({"name": "getDiagnostics", "arguments": {"uri": uri}}),
        )
        .unwrap();
    let call = wait_for_frame(&from_sidecar, |m| m["method"] == "tool/call");
    assert_eq!(
        call["params"]["request"],
        json!({"tool": "getDiagnostics", "path": path})
    );
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": call["id"], "result": {"outcome": "noSelection"}}),
    );
    let refused = wait_for_frame(&from_sidecar, |m| m["method"] == "idelink/log");
    let message = refused["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("outcome noSelection does not answer tool getDiagnostics"),
        "{message}"
    );
    let range = json!({"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 3}});
    let answer = json!({"jsonrpc": "2.0", "id": call["id"], "result": {"outcome": "diagnostics",
        "files": [{"path": path, "diagnostics": [{"message": "unused", "severity": "Warning", "range": range}]}]}});
    write_frame(&mut stdin, &answer);
    let answer = client.response(pending).unwrap();
    let files: Value = serde_json::from_str(&texts(&answer)[0]).unwrap();
    assert_eq!(files[0]["uri"], uri);
    assert_eq!(files[0]["diagnostics"][0]["message"], "unused");

    // Not pulled: answered from the (empty) state without asking the editor.
    let editors = client.call_tool("getOpenEditors", json!({})).unwrap();
    assert_eq!(texts(&editors), [r#"{"tabs":[]}"#]);

    drop(stdin);
    assert!(wait_exit(&mut child).success());
}

#[test]
fn pull_needs_stdio_and_names_a_read_tool() {
    let refused = idelink(&["serve", "--pull=getDiagnostics"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--stdio"), "{stderr}");
    let refused = idelink(&["serve", "--stdio", "--pull=openDiff"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("getDiagnostics"), "{stderr}");
}

/// `serve --stdio --resume`: a sidecar whose stdin closed (the editor quit) and that is started
/// again for the same folder comes back on the same port with the same token, and its
/// `idelink/ready` says `"resumed": true`; the first start says false. Unix: under Wine a
/// record's owner-only DACL cannot be read back (scripts/wine/unix-only.tsv).
#[cfg(unix)]
#[test]
fn a_sidecar_started_again_with_resume_comes_back_on_its_port() {
    let dir = temp_dir("resume");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let Sidecar {
        mut child,
        stdin,
        from_sidecar: _first_frames,
        ready,
        token,
        ..
    } = Sidecar::start(&work, &lock_dir, &["--resume"]);
    assert_eq!(ready["resumed"], false, "{ready}");
    drop(stdin);
    assert!(wait_exit(&mut child).success());

    let Sidecar {
        mut child,
        stdin,
        from_sidecar: _second_frames,
        ready: again,
        port,
        token: same_token,
        ..
    } = Sidecar::start(&work, &lock_dir, &["--resume"]);
    assert_eq!(again["resumed"], true, "{again}");
    assert_eq!(again["port"], ready["port"]);
    assert_eq!(same_token, token);
    Client::connect_initialized(port, &token).unwrap();
    drop(stdin);
    assert!(wait_exit(&mut child).success());
}

#[test]
fn stdio_sidecar_lists_sessions_and_routes_mentions_to_the_chosen_one() {
    let dir = temp_dir("stdio-sessions");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let Sidecar {
        mut child,
        mut stdin,
        from_sidecar,
        port,
        token,
        ..
    } = Sidecar::start(&work, &lock_dir, &["--routing", "chosen"]);
    let mut one = Client::connect_initialized(port, &token).unwrap();
    let mut two = Client::connect_initialized(port, &token).unwrap();
    let listed = |m: &Value| {
        m["params"]["event"] == "sessionsChanged"
            && m["params"]["sessions"]
                .as_array()
                .is_some_and(|s| s.len() == 2)
    };
    wait_for_frame(&from_sidecar, listed);
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "s", "method": "idelink/sessions"}),
    );
    let sessions = wait_for_frame(&from_sidecar, |m| m["id"] == "s");
    let conns: Vec<_> = sessions["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["conn"].clone())
        .collect();
    assert_eq!(conns, [json!(1), json!(2)], "{sessions}");

    for (id, params) in [
        ("bad", json!({"choice": {"by": "conn", "conn": 9}})),
        ("odd", json!({"pick": 1})),
    ] {
        write_frame(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "idelink/chooseSession", "params": params}),
        );
        let refused = wait_for_frame(&from_sidecar, |m| m["id"] == id);
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "c", "method": "idelink/chooseSession",
                "params": {"choice": {"by": "conn", "conn": 2}}}),
    );
    let chosen = wait_for_frame(&from_sidecar, |m| m["id"] == "c");
    assert_eq!(chosen["result"], Value::Null, "{chosen}");
    let path = format!("{}/lib.rs", support::claude_path(&work));
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "mention", "path": path, "lineStart": 0, "lineEnd": 0}}),
    );
    let mention = two.notification("at_mentioned").unwrap();
    assert_eq!(mention["params"]["filePath"], path.as_str());
    // The other client's next message is its ping's answer: no mention came first.
    let id = one.send_request("ping", json!({})).unwrap();
    let next = one.next_json().unwrap();
    assert_eq!(next, json!({"jsonrpc": "2.0", "id": id, "result": {}}));

    drop(stdin);
    assert!(wait_exit(&mut child).success());
}

/// `path`'s URI as claude sends it: `file:///C:/w/lib.rs` on Windows, `file:///w/lib.rs`
/// elsewhere.
fn file_uri(path: &str) -> String {
    match path.strip_prefix('/') {
        Some(rooted) => format!("file:///{rooted}"),
        None => format!("file:///{path}"),
    }
}

/// What the editor reads for the sidecar's ledger: the file's text, or no file.
fn on_disk(path: &Path) -> Value {
    match std::fs::read_to_string(path) {
        Ok(text) => json!({"kind": "text", "text": text}),
        Err(_) => json!({"kind": "missing"}),
    }
}

/// Waits for the sidecar's next `ledgerRead` and answers it from disk with request `id`.
fn answer_ledger_read(
    from_sidecar: &std::sync::mpsc::Receiver<Value>,
    stdin: &mut impl std::io::Write,
    id: &str,
) -> String {
    let asked = wait_for_frame(from_sidecar, |m| m["params"]["event"] == "ledgerRead");
    let path = asked["params"]["path"].as_str().unwrap().to_owned();
    write_frame(
        stdin,
        &json!({"jsonrpc": "2.0", "id": id, "method": "idelink/ledgerRead",
                "params": {"read": asked["params"]["read"], "content": on_disk(Path::new(&path))}}),
    );
    path
}

#[test]
fn stdio_sidecar_keeps_a_turn_and_undoes_its_file_through_the_editor() {
    let dir = temp_dir("stdio-ledger");
    let work = dir.join("work").canonicalize().unwrap();
    let lock_dir = dir.join("ide");
    let file = work.join("a.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let Sidecar {
        mut child,
        mut stdin,
        from_sidecar,
        port,
        token,
        ..
    } = Sidecar::start(&work, &lock_dir, &["--ledger"]);

    let uri = file_uri(&support::claude_path(&file));
    let edited = file.clone();
    let claude = std::thread::spawn(move || {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        client.call_tool("closeAllDiffTabs", json!({})).unwrap();
        // Answered only once the editor read the baseline.
        client
            .call_tool("getDiagnostics", json!({ "uri": uri }))
            .unwrap();
        std::fs::write(&edited, "one\n2\n").unwrap();
        client.call_tool("getDiagnostics", json!({})).unwrap();
        client
    });
    let path = answer_ledger_read(&from_sidecar, &mut stdin, "r1");
    assert_eq!(answer_ledger_read(&from_sidecar, &mut stdin, "r2"), path);
    let _client = claude.join().unwrap();

    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "l1", "method": "idelink/ledger"}),
    );
    let ledger = wait_for_frame(&from_sidecar, |m| m["id"] == "l1");
    let kept = &ledger["result"][0]["files"][0];
    assert_eq!(kept["path"], path.as_str());
    assert_eq!(
        kept["baseline"],
        json!({"kind": "text", "text": "one\ntwo\n"})
    );
    assert_eq!(kept["current"], json!({"kind": "text", "text": "one\n2\n"}));

    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "u1", "method": "idelink/ledgerUndo",
                "params": {"target": {"undo": "file", "turn": 1, "path": path}}}),
    );
    let write = wait_for_frame(&from_sidecar, |m| m["params"]["event"] == "ledgerWrite");
    let planned = &write["params"]["file"];
    // The editor's compare-and-write.
    assert_eq!(on_disk(&file), planned["expected"]);
    std::fs::write(&file, planned["text"].as_str().unwrap()).unwrap();
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "w1", "method": "idelink/ledgerWritten",
                "params": {"write": write["params"]["write"], "nowHolds": on_disk(&file)}}),
    );
    let written = wait_for_frame(&from_sidecar, |m| m["id"] == "w1");
    assert_eq!(written["result"], Value::Null, "{written}");
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "l2", "method": "idelink/ledger"}),
    );
    let ledger = wait_for_frame(&from_sidecar, |m| m["id"] == "l2");
    let kept = &ledger["result"][0]["files"][0];
    assert_eq!(kept["current"], kept["baseline"]);
    assert_eq!(kept["hunks"], json!([]));

    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "u2", "method": "idelink/ledgerUndo",
                "params": {"target": {"undo": "turn", "turn": 9}}}),
    );
    let refused = wait_for_frame(&from_sidecar, |m| m["id"] == "u2");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("turn 9"),
        "{refused}"
    );
    write_frame(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "r3", "method": "idelink/ledgerRead",
                "params": {"read": 1, "content": {"kind": "text"}}}),
    );
    let malformed = wait_for_frame(&from_sidecar, |m| m["id"] == "r3");
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");

    drop(stdin);
    assert!(wait_exit(&mut child).success());
}
